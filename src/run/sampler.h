/* The main thread during a run: start the workers, sample them every interval
 * (relaxed reads, rates over measured time), watch the stop conditions (-N,
 * -T, noloop, -E, dead threads, SIGINT/SIGTERM), join, summarise. */
#ifndef LDBENCH_SAMPLER_H
#define LDBENCH_SAMPLER_H

#include <stdio.h>

#include <stdint.h>

#include "cli/config.h"

/* The figures of a finished run that --sweep tabulates. */
struct ldb_result {
	int threads;
	int main_op;           /* enum ldb_op whose latency p50/p99 are */
	uint64_t counted;
	double seconds, rate;
	uint64_t p50_ns, p99_ns;
	uint64_t errors;
	int status;
};

/* Run the load described by a checked config; text goes to out; res (may be
 * NULL) gets the main figures.  @return the exit status (ldclt's codes). */
int ldb_run_load(const struct ldb_config *cfg, FILE *out, struct ldb_result *res);

/* --sweep: the same load at each thread count, one after the other, then one
 * table (concurrency, rate, p50, p99, errors) like the back-wt benchmark's.
 * @return the worst exit status. */
int ldb_sweep(struct ldb_config *cfg, FILE *out);

#endif
