/* --fail-if: the one grammar of a run's thresholds and compare's conditions
 * (the types and the grammar are described in conf/fail_if_types.h). */
#ifndef LDBENCH_CLI_FAIL_IF_H
#define LDBENCH_CLI_FAIL_IF_H

#include <stddef.h>

#include "conf/fail_if_types.h"

extern const struct ldb_threshold_form ldb_threshold_run;     /* a plain run's --fail-if */
extern const struct ldb_threshold_form ldb_threshold_compare; /* ldbench compare's --fail-if */
extern const struct ldb_threshold_form ldb_threshold_replay;  /* ldbench replay's --fail-if */
extern const struct ldb_threshold_form ldb_threshold_join;    /* ldbench join's --fail-if */

/* Parse one expression in the given form.  @return 0, or -1 with a one-line
 * reason ("--fail-if 'EXPR': ..."). */
int ldb_threshold_parse_form(struct ldb_threshold *t, const char *expr, const struct ldb_threshold_form *form,
                             char *err, size_t cap);
/* A plain run's form (ldb_threshold_run). */
int ldb_threshold_parse(struct ldb_threshold *t, const char *expr, char *err, size_t cap);

/* The option of a run that gives t's figure: "--server-log" (the join's),
 * "-S" (the replication check's), or NULL (the run's own). */
const char *ldb_threshold_needs(const struct ldb_threshold *t);
/* A run's thresholds t[0..n) against the sources it has (server_log: a
 * --server-log; repl: -S; listeners: --listeners).  @return 0, or -1 with one line in err naming
 * the option the first one without its source needs. */
int ldb_thresholds_sources(const struct ldb_threshold *t, int n, bool server_log, bool repl, bool listeners, char *err,
                           size_t cap);

bool ldb_threshold_holds(const struct ldb_threshold *t, double actual);
const char *ldb_threshold_metric_name(enum ldb_metric m); /* "rate", ..., "p99.9", "max" */
const char *ldb_threshold_cmp_text(enum ldb_cmp c);       /* "<", "<=", ">", ">=" */
/* The metric's display form of a value ("7.412 ms", "1520.33/s", "3"). */
void ldb_threshold_format(const struct ldb_threshold *t, double actual, char *buf, size_t cap);

#endif
