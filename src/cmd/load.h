/* The load command (ldbench's default): start the I/O threads, sample them
 * every interval (report/sampler), watch the stop conditions (-N, -T, noloop,
 * -E, --duration, dead threads, SIGINT/SIGTERM), join them, and finish with
 * the summary, --monitor's server figures and --fail-if's verdict. */
#ifndef LDBENCH_CMD_LOAD_H
#define LDBENCH_CMD_LOAD_H

#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"

/* The figures of a finished run that --sweep tabulates. */
struct ldb_result {
	int threads;
	int main_op; /* enum ldb_op whose latency p50/p99 are */
	uint64_t counted;
	double seconds, rate;
	uint64_t p50_ns, p99_ns;
	uint64_t errors;
	int status;
	/* for --find-max */
	int depth; /* the -a it ran with */
	double rate_target;
	uint64_t p999_ns;
	double server_mean_ns; /* from the real send */
	bool met;              /* every --find-max expression held */
	char missed[96];       /* the first that did not, with its value */
	bool client_limited, short_of_inflight;
	int summary_index; /* its summary record's place among a --json file's (1, 2, ...), 0: none */
	bool interrupted;  /* SIGINT/SIGTERM ended it */
};

/* Run the load described by a checked config; text goes to out; res (may be
 * NULL) gets the main figures.  @return the exit status (ldclt's codes). */
int ldb_run_load(const struct ldb_config *cfg, FILE *out, struct ldb_result *res);

#endif
