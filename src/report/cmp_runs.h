/* Runs set against runs: the analysis of `ldbench compare` (cmd/compare_runs) and of the
 * report page's table (cmd/report_page); docs/results.md.
 *
 *   ldbench compare [--fail-if COND]... BASE.json... -- CHANGE.json...
 *
 * Each file is a JSON lines file written by --json (or by merge); its last
 * summary record is used.  Per operation kind, compare prints for each side the
 * median of the runs' rate, p50 and p99, their spread (min..max over the runs),
 * and the change of the medians in percent.
 *
 * COND is [KIND.]METRIC OP VALUE%: METRIC one of rate, p50, p99, misses, hits
 * (misses and hits also take a plain count, held by the change side's median:
 * 'misses>0'); OP one of
 * < <= > >=; VALUE a signed number ("rate<-5%", "p99>+10%", "search.p50>=20%");
 * the grammar is a run's --fail-if's (cli/fail_if.h), in its relative form.
 * With [workload] sections, COND may begin with a workload's name
 * ("fg.search.p99>+10%"): that workload's figures, matched by name.
 * It holds when the change of that metric satisfies OP VALUE for KIND, or,
 * without KIND, for any kind.  A kind that only one side has, or whose base
 * median is 0, is not compared and satisfies no condition.
 *
 * Runs made with --server-log: per kind both sides joined, the medians of
 * the join's p99 figures (server etime, outside, queue, processing) and
 * their change, in ms and in percent, after the table.
 *
 * Exit status: 0 no condition holds (or none given); 1 at least one holds;
 * 2 bad command line or bad input (an unreadable or malformed file, a file
 * without a summary record, another schema version, a bad COND), one line on
 * stderr.
 */
#ifndef LDBENCH_REPORT_CMP_RUNS_H
#define LDBENCH_REPORT_CMP_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conf/config.h"
#include "report/json.h"
#include "cli/fail_if.h"

#define LDB_CMP_EXIT_HOLDS 1

/* misses and hits: the srchnentries checks, valid in a run that made some */
enum ldb_cmp_metric { LDB_CMP_RATE, LDB_CMP_P50, LDB_CMP_P99, LDB_CMP_MISSES, LDB_CMP_HITS, LDB_CMP_METRICS };
const char *ldb_cmp_metric_name(enum ldb_cmp_metric m); /* "rate", "p50", "p99", "misses", "hits" */
/* How compare's table shows a metric, in the text (ldb_cmp_print) and on the report page alike:
 * its label ("rate /s", "p50 ms", "p99 ms", "misses", "hits"), a record's value in the
 * label's unit (the records' latencies are in microseconds, the tables' in ms), and its decimals. */
const char *ldb_cmp_metric_label(enum ldb_cmp_metric m);
double ldb_cmp_metric_value(enum ldb_cmp_metric m, double v);
int ldb_cmp_metric_decimals(enum ldb_cmp_metric m);

/* What compare takes from one run's summary record. */
/* The rows: one per operation kind, then "repl" (-S: the replication delay,
 * the worst consumer's p50 and p99; no rate). */
#define LDB_CMP_REPL LDB_OP_COUNT
#define LDB_CMP_ROWS (LDB_OP_COUNT + 1)

/* The join's figures compare shows (--server-log): p99 of etime, outside,
 * queue, processing, in ms; per kind and for "all" (index LDB_OP_COUNT). */
enum { LDB_CMP_J_SERVER, LDB_CMP_J_OUTSIDE, LDB_CMP_J_QUEUE, LDB_CMP_J_PROC, LDB_CMP_JFIGS };

/* The listeners' figures compare shows (--listeners; report/cmp_listen.c):
 * refresh p50/max, delay p50/p99/max (ms), missing, duplicated, out of
 * order, and --listeners-baseline's rate and p99 ratios. */
enum { LDB_CMP_LFIGS = 10 };

struct ldb_cmp_run {
	bool lhas[LDB_CMP_LFIGS];
	double lv[LDB_CMP_LFIGS];
	bool jhas[LDB_OP_COUNT + 1][LDB_CMP_JFIGS];
	double jv[LDB_OP_COUNT + 1][LDB_CMP_JFIGS];
	bool has[LDB_CMP_ROWS];                    /* the kind ran (attempted, completed or errors) */
	bool valid[LDB_CMP_ROWS][LDB_CMP_METRICS]; /* false: latency null (nothing recorded) */
	double v[LDB_CMP_ROWS][LDB_CMP_METRICS];   /* rate /s; p50, p99 in microseconds; misses, hits */
};

/* One side's figures for one kind and metric. */
struct ldb_cmp_stat {
	int runs; /* runs that had a value */
	double median, min, max;
};

struct ldb_cmp_row {
	bool in_base, in_change;
	struct ldb_cmp_stat base[LDB_CMP_METRICS], change[LDB_CMP_METRICS];
	bool has_pct[LDB_CMP_METRICS]; /* both sides have values and the base median is not 0 */
	double pct[LDB_CMP_METRICS];   /* (change - base) / base * 100 */
};

struct ldb_cmp_result {
	struct ldb_cmp_row op[LDB_CMP_ROWS];
};

/* A row's name: the operation kind's, or "repl". */
const char *ldb_cmp_row_name(int k);
/* Whether the table has a line for metric m of this row: misses and hits only
 * when a side made srchnentries checks. */
bool ldb_cmp_row_shows(const struct ldb_cmp_row *row, enum ldb_cmp_metric m);

struct ldb_cmp_cond {
	int kind; /* enum ldb_op, LDB_CMP_REPL, or -1 for any kind */
	enum ldb_cmp_metric metric;
	enum ldb_cmp cmp;
	char op[3]; /* "<", "<=", ">", ">=" */
	double pct;
	bool count;    /* misses/hits with a plain count: the change side's median OP pct */
	char text[64]; /* as given (truncated) */
	char wl[32];   /* a workload's figures ("fg.search.p99>+10%": "fg"), "" the run's */
	bool listen;   /* listen.FIGURE: lfig, an index of the listen table (cmp_listen.c) */
	int lfig;
};

/** Parse "[KIND.]METRIC OP VALUE%" (the relative form of threshold.h's grammar).
 *  @return 0, or -1 with one line in err. */
int ldb_cmp_parse_cond(const char *expr, struct ldb_cmp_cond *c, char *err, size_t cap);

/** Fill `r` from a summary record. @return 0, or -1 with one line in err. */
int ldb_cmp_run_from_record(const struct ldb_json *summary, struct ldb_cmp_run *r, char *err, size_t cap);

/** The listeners' figures of a summary record into r (none: nothing). */
void ldb_cmp_listen_from_record(const struct ldb_json *summary, struct ldb_cmp_run *r);
/** The listeners' table: each figure both sides have, its medians, the
 *  change and the change in percent; nothing when a side has no listeners. */
void ldb_cmp_listen_print(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc, FILE *out);
/* A listen.FIGURE condition's row of the listen table (parsed by the shared grammar). */
int ldb_cmp_listen_index(const struct ldb_threshold *t);
/* Whether listen condition c holds: the change in percent of the figure's
 * medians (the base's above 0), or with a count the change side's median.
 * @return true with *v (the change, or the count) and *label. */
bool ldb_cmp_listen_holds(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc,
                          const struct ldb_cmp_cond *c, double *v, const char **label);
/** The join's p99 figures of a summary record into r (none: nothing). */
void ldb_cmp_join_from_record(const struct ldb_json *summary, struct ldb_cmp_run *r);
/** The join's table: per kind both sides have, each figure's medians, the
 *  change in ms and in percent; nothing when a side has no join. */
void ldb_cmp_join_print(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc, FILE *out);

/** Each file's summary record into runs[0..n); a file that cannot be read or
 * holds no usable summary is one line "PROG: ..." on stderr. @return 0 or -1. */
int ldb_cmp_load_runs(const char *prog, char **files, int n, struct ldb_cmp_run *runs);

/** Median of v[0..n) (n > 0; sorts v in place; the mean of the two middle values when n is even). */
double ldb_cmp_median(double *v, int n);

/** Medians, spreads and changes of base[0..nb) against change[0..nc). */
void ldb_cmp_compute(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc,
                     struct ldb_cmp_result *res);

/** Does `c` hold?  @return true or false; when true, *kind and *pct say where
 *  (the first kind in enum order). */
bool ldb_cmp_holds(const struct ldb_cmp_result *res, const struct ldb_cmp_cond *c, int *kind, double *pct);

/** The table. */
void ldb_cmp_print(const struct ldb_cmp_result *res, int nb, int nc, FILE *out);

/** [workload] sections: after the run's table, a table per workload, matched
 *  by name over the files (base[0..nb), change[0..nc), read again; a
 *  workload on one side only is said, not compared). */
void ldb_cmp_print_workloads(char **base, int nb, char **change, int nc, FILE *out);

/** Workload `name`'s medians and changes over the files (read again), for a
 *  condition that names it.  @return 1 computed into res; 0 it is on one
 *  side only (not compared: no condition holds); -1 no run has it, with the
 *  workloads the runs have in names (", "-separated). */
int ldb_cmp_compute_workload(char **base, int nb, char **change, int nc, const char *name, struct ldb_cmp_result *res,
                             char *names, size_t cap);

/** The workloads' names in files[0..n) (read again), first seen first, at
 *  most max.  @return how many (0: no [workload] sections). */
int ldb_cmp_workload_names(char **files, int n, char names[][32], int max);

#endif
