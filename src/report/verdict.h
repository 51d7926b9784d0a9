/* A run's verdict: its --fail-if thresholds (cli/fail_if) evaluated on its
 * summary. */
#ifndef LDBENCH_REPORT_VERDICT_H
#define LDBENCH_REPORT_VERDICT_H

#include "cli/fail_if.h"
#include "report/reporter.h"

/* The value a run's summary gives t's metric for the operation kind `kind`. */
/* A latency metric of h: min, max, mean or a percentile, p99 for any
 * other metric (0 when h is NULL or holds nothing). */
double ldb_hist_metric(const struct ldb_hist *h, enum ldb_metric m);
double ldb_threshold_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind);
/* A run's --fail-if on its summary (main_op stands for thresholds without a
 * kind).  text non-NULL: one line per threshold that holds ("Threshold
 * failed: ..."), and with -v per one that does not.  @return status, or
 * LDB_EXIT_THRESHOLD when one holds and status is LDB_EXIT_OK. */
int ldb_thresholds_check(const struct ldb_config *c, const struct ldb_summary *sum, int main_op, int status,
                         struct ldb_text *text);

#endif
