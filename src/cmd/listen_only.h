/* A listeners-only run: `ldbench --listeners N --listen-base DN` with no
 * operation of its own (docs/guide.md "Another host's writes"): the
 * listeners' refresh, then their notifications until --duration passed (or
 * SIGINT/SIGTERM), recorded with --listen-record FILE for `ldbench
 * listen-join`; the Listeners: lines (every notification unmatched: the
 * run made no write) and with --json FILE a {"type":"listeners",...} line. */
#ifndef LDBENCH_CMD_LISTEN_ONLY_H
#define LDBENCH_CMD_LISTEN_ONLY_H

#include <stdio.h>

#include "conf/config.h"

/* @return the exit status (0, or as a load's: its line said). */
int ldb_listen_only(const struct ldb_config *c, FILE *out);

#endif
