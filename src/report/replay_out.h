/* The replay's fidelity report: what was replayed per kind, what was not
 * and why (with the first log lines), the results that differ from the
 * recorded ones (with examples), the latencies and the lateness against the
 * schedule; as text and as one JSON object {"replay": {...}}
 * (docs/replay.md). */
#ifndef LDBENCH_REPORT_REPLAY_OUT_H
#define LDBENCH_REPORT_REPLAY_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "run/replay.h"

void ldb_replay_text(const struct ldb_rp_result *r, bool recorded, FILE *out);
/** @return 0, or -1 on a write error. */
int ldb_replay_json(const struct ldb_rp_result *r, bool recorded, FILE *f);

#endif
