/* --fail-if's types (the parser is cli/fail_if): one grammar for a run's thresholds and compare's conditions.
 *
 *   [KIND.][SOURCE.]METRIC OP VALUE
 *
 * KIND an operation kind (any case), SOURCE repl (-S), listen (--listeners:
 * listen.missing, listen.delay.p99, ...: enum ldb_lfig), client, server,
 * queue, processing, outside (the join's figures: --server-log), late (a
 * replay's), METRIC one of rate, errors, min, mean,
 * p50, p90, p95, p99, p99.9, max, misses, hits (the expected-result checks
 * of srchnentries), OP one of < <= > >=, VALUE a number that is
 * either absolute, with the metric's unit ('p99>5ms', 'errors>0', 'rate<1000',
 * 'search.p99.9>=20ms'), or a signed change in percent ('rate<-5%',
 * 'p99>+10%').  Blanks may separate the parts.  Each caller says which metrics
 * and which kind of value it takes (struct ldb_threshold_form): a plain run
 * takes absolute values on every metric, compare relative changes of rate,
 * p50, p99, misses and hits, and for misses and hits also a plain count (the
 * change side's median: 'misses>0'); a replay the run's absolute metrics
 * (a threshold without KIND on every kind together) and its own: differ,
 * skipped, late.LATENCY; ldbench join the join's figures.  Any threshold that holds at the end of a run makes it exit
 * with LDB_EXIT_THRESHOLD; compare exits 1. */
#ifndef LDBENCH_CONF_FAIL_IF_TYPES_H
#define LDBENCH_CONF_FAIL_IF_TYPES_H

#include <stdbool.h>

enum ldb_metric {
	LDB_M_RATE,
	LDB_M_ERRORS,
	LDB_M_MIN,
	LDB_M_MEAN,
	LDB_M_P50,
	LDB_M_P90,
	LDB_M_P95,
	LDB_M_P99,
	LDB_M_P999,
	LDB_M_MAX,
	/* expected-result checks (srchnentries): counts, like errors */
	LDB_M_MISSES,
	LDB_M_HITS,
	/* the replication check's own (with the kind "repl") */
	LDB_M_UNSEEN,
	/* the join's (--server-log): unindexed searches, notes=U and notes=A;
	 * the operations joined in percent of those sent */
	LDB_M_UNINDEXED,
	LDB_M_UNINDEXED_SEARCHES,   /* results with notes=A: fully unindexed (logconv's "Unindexed Searches") */
	LDB_M_UNINDEXED_COMPONENTS, /* results with notes=U: a component unindexed ("Unindexed Components") */
	LDB_M_COVERAGE,
	/* a replay's (ldbench replay): results that differ from the recorded
	 * ones, and requests of the log not sent (every reason) */
	LDB_M_DIFFER,
	LDB_M_SKIPPED,
	LDB_M_COUNT
};
/* Where a threshold's figure comes from; each source but the run's own needs
 * an option of the run (ldb_threshold_needs). */
enum ldb_tsource {
	LDB_TS_RUN,    /* the run's own figures (a replay's: its own) */
	LDB_TS_REPL,   /* the replication check (-S): repl.LATENCY (the worst consumer's), repl.unseen */
	LDB_TS_JOIN,   /* the join with the server's log (--server-log; ldbench join): FIGURE.LATENCY,
	              * unindexed (notes=U and notes=A), coverage (% of the operations joined) */
	LDB_TS_LATE,   /* a replay's lateness against its schedule (recorded timing): late.LATENCY */
	LDB_TS_LISTEN, /* the listeners (--listeners): listen.FIGURE (enum ldb_lfig) */
};
/* A listeners' figure (LDB_TS_LISTEN): counts (the metric LDB_M_UNSEEN, a
 * count) missing, dup, out_of_order, unmatched, lost, down; latencies
 * delay.LATENCY (confirmation to arrival), refresh.p50/max. */
enum ldb_lfig {
	LDB_LF_MISSING,
	LDB_LF_DUP,
	LDB_LF_OOO,
	LDB_LF_UNMATCHED,
	LDB_LF_LOST,
	LDB_LF_DOWN,
	LDB_LF_DELAY,
	LDB_LF_REFRESH,
	LDB_LF_COUNT
};
/* The join's figure of a LDB_TS_JOIN latency: client., server. (etime),
 * queue., processing., outside. (no figure: client). */
enum ldb_tfig { LDB_TF_CLIENT, LDB_TF_SERVER, LDB_TF_QUEUE, LDB_TF_PROC, LDB_TF_OUTSIDE, LDB_TF_COUNT };
/* A threshold without an operation kind: the run's main operation (compare:
 * any kind; a replay, the join: every kind together). */
#define LDB_KIND_ANY (-1)
enum ldb_cmp { LDB_LT, LDB_LE, LDB_GT, LDB_GE };

struct ldb_threshold {
	enum ldb_tsource source;
	int kind;          /* enum ldb_op, or LDB_KIND_ANY */
	enum ldb_tfig fig; /* LDB_TS_JOIN: the figure of a latency */
	enum ldb_metric metric;
	enum ldb_cmp cmp;
	bool relative; /* value is a change in percent */
	double value;  /* absolute: latencies in ns, rate in ops/s, errors in count */
	char text[96]; /* as given */
	int wl;        /* [workload] sections: 1 + the index of the workload it names ("fg.search.p99"); 0: the run */
	enum ldb_lfig lfig; /* LDB_TS_LISTEN: which figure */
};

/* The forms a caller takes. */
struct ldb_threshold_form {
	unsigned metrics;        /* (1u << enum ldb_metric) for each metric taken */
	bool relative;           /* values are signed changes in percent; else absolute, with units */
	unsigned counts;         /* relative form: the metrics that also take a plain count */
	const char *metric_help; /* the refusal when the metric is missing or not taken */
	bool replay;             /* a replay's: late.LATENCY, and no kind means every kind */
	bool join;               /* ldbench join's: the join's figures only, no kind means every kind */
};

#endif
