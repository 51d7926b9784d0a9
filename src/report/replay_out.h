/* The replay's fidelity report: what was replayed per kind, what was not
 * and why (with the first log lines), the results that differ from the
 * recorded ones (with examples), the latencies and the lateness against the
 * schedule; as text and as the "replay" member of the run's summary record
 * (docs/replay.md).  And the replay's figures as a run's (report/reporter.h):
 * its summary and sample for the run's record writers (--json, --csv,
 * --html: docs/results.md), and its --fail-if verdict. */
#ifndef LDBENCH_REPORT_REPLAY_OUT_H
#define LDBENCH_REPORT_REPLAY_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/fail_if.h"
#include "report/reporter.h"
#include "run/replay.h"

void ldb_replay_text(const struct ldb_rp_result *r, bool recorded, FILE *out);
/** ,"replay":{...}: the fidelity report as a member of the summary record. */
void ldb_replay_put_json(FILE *f, const struct ldb_rp_result *r, bool recorded);

/* The header record's "config" members of a replay (struct ldb_outputs'
 * config_json; o->config_arg: its struct ldb_target): the target, the
 * operation "replay", the sender threads, the interval; the load's template
 * fields null or their defaults (docs/results.md). */
void ldb_replay_config_json(FILE *f, const struct ldb_outputs *o, int io_threads);

/* A replay seen as a run: per operation kind of the run (the log's types
 * that are one: unbinds are not), attempted = sent, completed = answered,
 * succeeded = counted = the answers with a success code, errors by code the
 * others; the latencies the replay's; seconds its elapsed time. */
struct ldb_replay_run {
	const struct ldb_rp_result *r;
	bool recorded;                /* --timing recorded */
	struct ldb_summary_part part; /* as a part of sum: its "replay" member and live metrics */
	struct ldb_summary sum;       /* its one part: this report */
	struct ldb_sample sample;     /* the whole replay as one interval */
	struct ldb_hist all;          /* every kind's latencies together */
	int op_of[LDB_SLOG_NOPTYPES]; /* the run's kind of a log type, -1 none */
};

/** Fill x from r (kept, not copied).  @return 0, or -1 out of memory. */
int ldb_replay_run_init(struct ldb_replay_run *x, const struct ldb_rp_result *r, bool recorded, int status);
void ldb_replay_run_free(struct ldb_replay_run *x);
/** --fail-if (the replay's form) on x: a line "Threshold failed: EXPR (KIND
 *  is VALUE)" through text per threshold that holds.  @return status, or
 *  LDB_EXIT_THRESHOLD when one holds and status is LDB_EXIT_OK. */
int ldb_replay_thresholds(const struct ldb_replay_run *x, const struct ldb_threshold *t, int n, int status,
                          struct ldb_text *text);

/* A replay's counters so far, as the live metrics publish them
 * (report/metrics_text): per log type the requests read, sent and whose
 * answer differs, per reason (enum ldb_rp_skip) those not sent (a failed
 * or lost connection's among them, as the report counts them), and those
 * left unanswered.  Read from a running part's result with relaxed atomic
 * loads (ldb_rp_bump), at each sample (ldb_sample.live); from the result at
 * the end, its report's own figures. */
struct ldb_live_counts {
	uint64_t read[LDB_SLOG_NOPTYPES], sent[LDB_SLOG_NOPTYPES], differ[LDB_SLOG_NOPTYPES];
	uint64_t not_sent[LDB_RP_NSKIPS];
	uint64_t unanswered;
};
void ldb_replay_live_read(struct ldb_live_counts *l, const struct ldb_rp_result *r);

/* The replay's samples: every interval, the answers, the rate and the
 * latencies of the interval read from the sender's histograms and codes
 * (relaxed atomic loads), printed as a run's sample lines through text (NULL:
 * none) and handed to the reporters' sample(); the last, partial interval
 * (final) when it ends, from the result the sender left. */
struct ldb_replay_sampler;
/** Start its thread (r initialised; every signal blocked in it).  @return it, or NULL. */
struct ldb_replay_sampler *ldb_replay_sampler_start(const struct ldb_rp_result *r, int64_t interval_ns,
                                                    struct ldb_text *text, struct ldb_reporter *rep, int nrep);
/** After the replay: stop it, hand on the last interval, free it. */
void ldb_replay_sampler_end(struct ldb_replay_sampler *p);

#endif
