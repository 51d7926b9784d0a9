/* --fail-if: one grammar for a run's thresholds and compare's conditions.
 *
 *   [KIND.]METRIC OP VALUE
 *
 * KIND an operation kind (any case), METRIC one of rate, errors, min, mean,
 * p50, p90, p95, p99, p99.9, max, OP one of < <= > >=, VALUE a number that is
 * either absolute, with the metric's unit ('p99>5ms', 'errors>0', 'rate<1000',
 * 'search.p99.9>=20ms'), or a signed change in percent ('rate<-5%',
 * 'p99>+10%').  Blanks may separate the parts.  Each caller says which metrics
 * and which kind of value it takes (struct ldb_threshold_form): a plain run
 * takes absolute values on every metric, compare relative changes of rate,
 * p50 and p99.  Any threshold that holds at the end of a run makes it exit
 * with LDB_EXIT_THRESHOLD; compare exits 1. */
#ifndef LDBENCH_THRESHOLD_H
#define LDBENCH_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* (cli/config.h holds the run's thresholds and includes this header, so this
 * one cannot include it back: the types below are declared, not defined.) */
struct ldb_config;
struct ldb_summary;
struct ldb_text;

enum ldb_metric { LDB_M_RATE, LDB_M_ERRORS, LDB_M_MIN, LDB_M_MEAN, LDB_M_P50, LDB_M_P90, LDB_M_P95, LDB_M_P99,
	          LDB_M_P999, LDB_M_MAX, LDB_M_COUNT };
enum ldb_cmp { LDB_LT, LDB_LE, LDB_GT, LDB_GE };

struct ldb_threshold {
	int kind;              /* enum ldb_op, or -1: the run's main operation (compare: any kind) */
	enum ldb_metric metric;
	enum ldb_cmp cmp;
	bool relative;         /* value is a change in percent */
	double value;          /* absolute: latencies in ns, rate in ops/s, errors in count */
	char text[96];         /* as given */
};

/* The forms a caller takes. */
struct ldb_threshold_form {
	unsigned metrics;          /* (1u << enum ldb_metric) for each metric taken */
	bool relative;             /* values are signed changes in percent; else absolute, with units */
	const char *metric_help;   /* the refusal when the metric is missing or not taken */
};
extern const struct ldb_threshold_form ldb_threshold_run;     /* a plain run's --fail-if */
extern const struct ldb_threshold_form ldb_threshold_compare; /* ldbench compare's --fail-if */

/* Parse one expression in the given form.  @return 0, or -1 with a one-line
 * reason ("--fail-if 'EXPR': ..."). */
int ldb_threshold_parse_form(struct ldb_threshold *t, const char *expr, const struct ldb_threshold_form *form,
                             char *err, size_t cap);
/* A plain run's form (ldb_threshold_run). */
int ldb_threshold_parse(struct ldb_threshold *t, const char *expr, char *err, size_t cap);

bool ldb_threshold_holds(const struct ldb_threshold *t, double actual);
const char *ldb_threshold_metric_name(enum ldb_metric m); /* "rate", ..., "p99.9", "max" */
const char *ldb_threshold_cmp_text(enum ldb_cmp c);       /* "<", "<=", ">", ">=" */
/* The metric's display form of a value ("7.412 ms", "1520.33/s", "3"). */
void ldb_threshold_format(const struct ldb_threshold *t, double actual, char *buf, size_t cap);

/* The value a run's summary gives t's metric for the operation kind `kind`. */
double ldb_threshold_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind);
/* A run's --fail-if on its summary (main_op stands for thresholds without a
 * kind).  text non-NULL: one line per threshold that holds ("Threshold
 * failed: ..."), and with -v per one that does not.  @return status, or
 * LDB_EXIT_THRESHOLD when one holds and status is LDB_EXIT_OK. */
int ldb_thresholds_check(const struct ldb_config *c, const struct ldb_summary *sum, int main_op, int status,
                         struct ldb_text *text);

#endif
