/* A run's verdict: its --fail-if thresholds (cli/fail_if) evaluated on its
 * summary, or on the join's figures alone (ldbench join).  A threshold whose
 * figure could not be obtained never passes: it is "not evaluated". */
#ifndef LDBENCH_REPORT_VERDICT_H
#define LDBENCH_REPORT_VERDICT_H

#include "cli/fail_if.h"
#include "report/reporter.h"

/* t's figure on a run's summary for the operation kind `kind`: the run's
 * own, or the summary's part that gives t's source (the replication check,
 * the join).  @return true, or false with *why (*v 0) when the summary does
 * not have it (no join: --server-log that failed). */
bool ldb_threshold_value(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind, double *v,
                         const char **why);
/* The same, 0 when the figure could not be obtained (--find-max's steps). */
double ldb_threshold_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind);
/* One threshold's outcome: 0 passed, 1 held, 2 not evaluated (why non-NULL).
 * text non-NULL: its line ("Threshold failed: EXPR (WHAT is VALUE)",
 * "Threshold not evaluated: EXPR (WHAT: WHY)", with verbose "Threshold
 * passed: ..."). */
int ldb_threshold_verdict(const struct ldb_threshold *t, double a, const char *why, const char *what, bool verbose,
                          struct ldb_text *text);
/* The status after the thresholds: status when it is not LDB_EXIT_OK, else
 * LDB_EXIT_THRESHOLD (one held), LDB_EXIT_NOT_EVALUATED (one could not be
 * evaluated), LDB_EXIT_NO_JOIN (--server-log's join failed), LDB_EXIT_OK. */
int ldb_verdict_status(int status, bool held, bool not_evaluated, bool no_join);
/* A run's --fail-if on its summary (main_op stands for thresholds without a
 * kind on the run's own figures; the join's without a kind are over every
 * kind), each line as ldb_threshold_verdict's (text non-NULL; -v: the
 * passed ones too).  @return ldb_verdict_status's, no_join when the run has
 * --server-log and the summary's join is missing or unusable. */
int ldb_thresholds_check(const struct ldb_config *c, const struct ldb_summary *sum, int main_op, int status,
                         struct ldb_text *text);

#endif
