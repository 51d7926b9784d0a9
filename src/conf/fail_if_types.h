/* --fail-if's types (the parser is cli/fail_if): one grammar for a run's thresholds and compare's conditions.
 *
 *   [KIND.]METRIC OP VALUE
 *
 * KIND an operation kind (any case), METRIC one of rate, errors, min, mean,
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
 * skipped, late.LATENCY.  Any threshold that holds at the end of a run makes it exit
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
	/* the join's (--server-log): unindexed searches, notes=U and notes=A */
	LDB_M_UNINDEXED,
	LDB_M_UNINDEXED_SEARCHES,   /* results with notes=A: fully unindexed (logconv's "Unindexed Searches") */
	LDB_M_UNINDEXED_COMPONENTS, /* results with notes=U: a component unindexed ("Unindexed Components") */
	/* a replay's (ldbench replay): results that differ from the recorded
	 * ones, and requests of the log not sent (every reason) */
	LDB_M_DIFFER,
	LDB_M_SKIPPED,
	LDB_M_COUNT
};
/* The "kind" of a threshold on the replication check (-S): repl.p99>2s,
 * repl.unseen>0; a latency is the worst consumer's. */
#define LDB_THRESHOLD_REPL (-2)
/* The "kind" of a threshold on the join with the server's log (--server-log,
 * report/join.h's figures over the run): server.p99>5ms (etime),
 * outside.p99>1ms, queue.p99, processing.p99; unindexed>0 takes
 * LDB_THRESHOLD_JOIN_SERVER.  LDB_THRESHOLD_JOIN_SERVER - f for figure f of
 * enum ldb_jfig (etime 1 ... outside 4). */
#define LDB_THRESHOLD_JOIN_SERVER (-4)
/* The "kind" of a replay's lateness against its schedule (recorded timing):
 * late.p99>10ms. */
#define LDB_THRESHOLD_LATE (-3)
#define LDB_THRESHOLD_JOIN_LAST (-7)
enum ldb_cmp { LDB_LT, LDB_LE, LDB_GT, LDB_GE };

struct ldb_threshold {
	int kind; /* enum ldb_op, or -1: the run's main operation (compare: any kind) */
	enum ldb_metric metric;
	enum ldb_cmp cmp;
	bool relative; /* value is a change in percent */
	double value;  /* absolute: latencies in ns, rate in ops/s, errors in count */
	char text[96]; /* as given */
};

/* The forms a caller takes. */
struct ldb_threshold_form {
	unsigned metrics;        /* (1u << enum ldb_metric) for each metric taken */
	bool relative;           /* values are signed changes in percent; else absolute, with units */
	unsigned counts;         /* relative form: the metrics that also take a plain count */
	const char *metric_help; /* the refusal when the metric is missing or not taken */
	bool replay;             /* a replay's: late.LATENCY, and no kind means every kind */
};

#endif
