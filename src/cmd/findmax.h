/* --find-max OBJECTIVE (docs/capacity.md): open-loop steps of target rate, each with
 * its warm-up and measured time, growing geometrically from a start rate (or
 * half a closed-loop probe's), then bisecting between the last passing and
 * the first failing step until the gap is under --find-max-tolerance or the
 * --find-max-steps budget is spent.  A step passes when every objective
 * expression holds and the achieved rate is within 5 % of the target; a
 * failing step is run again once, and fails only if that fails too.  Each
 * step gets enough clients for its rate at the latency seen so far.  Then a
 * table of steps and the result; with --json a record per step and a final
 * one (docs/capacity.md). */
#ifndef LDBENCH_CMD_FINDMAX_H
#define LDBENCH_CMD_FINDMAX_H

#include <stdio.h>

#include "conf/config.h"

/* @return 0 when a rate met the objective, LDB_EXIT_NO_CAPACITY when none
 * did, or a step's own failure (7, 99, 4). */
int ldb_find_max(struct ldb_config *cfg, FILE *out);

#endif
