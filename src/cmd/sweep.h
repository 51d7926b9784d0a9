/* --sweep: the same load at each thread count, one after the other, then one
 * table (concurrency, rate, p50, p99, errors) like the back-wt benchmark's. */
#ifndef LDBENCH_CMD_SWEEP_H
#define LDBENCH_CMD_SWEEP_H

#include <stdio.h>

#include "conf/config.h"
#include "cmd/load.h"

/* @return the worst exit status. */
int ldb_sweep(struct ldb_config *cfg, FILE *out);

/* The table of n runs' results (progname and pid head it). */
void ldb_sweep_table(FILE *out, const char *progname, int pid, const struct ldb_result *res, int n);

#endif
