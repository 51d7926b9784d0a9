/* The server's own operation counters, read before and after a run (--monitor):
 * OpenLDAP's cn=Operations,cn=Monitor (monitorOpCompleted per operation) or
 * 389 DS's cn=monitor (opscompleted/opsinitiated, all operations together).
 * Read through libldap on a connection of its own, in the main thread only. */
#ifndef LDBENCH_MONITOR_H
#define LDBENCH_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"

enum ldb_monitor_kind { LDB_MON_NONE, LDB_MON_OPENLDAP, LDB_MON_389DS };

struct ldb_monitor_snap {
	enum ldb_monitor_kind kind;
	uint64_t completed[LDB_OP_COUNT]; /* OpenLDAP: per operation kind */
	uint64_t total;                   /* all operations completed (389 DS: opscompleted) */
};

/* @return 0, or -1 with one line in err (cannot connect, bind, or read). */
int ldb_monitor_read(const struct ldb_config *c, struct ldb_monitor_snap *s, char *err, size_t cap);

/* The server-side delta, less the reads' own traffic (each read is one bind
 * when -D is given and one search; a read sees its own bind but not its own
 * search), printed beside the client's counts. */
void ldb_monitor_delta(const struct ldb_monitor_snap *before, const struct ldb_monitor_snap *after, bool binds,
                       struct ldb_monitor_snap *delta);

/* Leave out of a delta the operations the pre-flight check sent between the
 * two reads (own: per kind; total: all of them, with its unbind). */
void ldb_monitor_discount(struct ldb_monitor_snap *delta, const uint64_t own[LDB_OP_COUNT], uint64_t total);

#endif
