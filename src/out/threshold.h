/* --fail-if on a plain run: absolute thresholds checked against the summary,
 * e.g. 'p99>5ms', 'errors>0', 'rate<1000', 'search.p99.9>=20ms'.  Any that
 * holds makes the run exit with LDB_EXIT_THRESHOLD. */
#ifndef LDBENCH_THRESHOLD_H
#define LDBENCH_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>



enum ldb_metric { LDB_M_RATE, LDB_M_ERRORS, LDB_M_MIN, LDB_M_MEAN, LDB_M_P50, LDB_M_P90, LDB_M_P95, LDB_M_P99,
	          LDB_M_P999, LDB_M_MAX };
enum ldb_cmp { LDB_LT, LDB_LE, LDB_GT, LDB_GE };

struct ldb_threshold {
	int kind;              /* enum ldb_op, or -1 for the run's main operation */
	enum ldb_metric metric;
	enum ldb_cmp cmp;
	double value;          /* latencies in ns, rate in ops/s, errors in count */
	char text[96];         /* as given */
};

/* Parse one expression.  @return 0, or -1 with a one-line reason. */
int ldb_threshold_parse(struct ldb_threshold *t, const char *expr, char *err, size_t cap);
bool ldb_threshold_holds(const struct ldb_threshold *t, double actual);
/* The metric's display form of a value ("7.412 ms", "1520.33/s", "3"). */
void ldb_threshold_format(const struct ldb_threshold *t, double actual, char *buf, size_t cap);

#endif
