/* The server's own operation counters, read before and after a run (--monitor):
 * OpenLDAP's cn=Operations,cn=Monitor (monitorOpCompleted per operation, the
 * op table's .monitor names) or 389 DS's cn=snmp,cn=monitor (per-kind
 * counters, the op table's .snmp names: searchops, simpleauthbinds, ...).
 * Read through libldap on a connection of its own, in the main thread only.
 * 389 DS's cn=monitor opscompleted is not used: it counts unbinds, and over
 * LDAPS more operations than the client sent. */
#ifndef LDBENCH_SERVER_MONITOR_H
#define LDBENCH_SERVER_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"
#include "run/stats.h"

enum ldb_monitor_kind { LDB_MON_NONE, LDB_MON_OPENLDAP, LDB_MON_389DS };

struct ldb_monitor_snap {
	enum ldb_monitor_kind kind;
	uint64_t completed[LDB_OP_COUNT]; /* per operation kind */
	bool have[LDB_OP_COUNT];          /* the server counts this kind */
	uint64_t total;                   /* all kinds the server counts, together */
	unsigned probes;                  /* searches the read made before the one that answered */
	bool bound;                       /* the read bound as -D (not when -D has an XXX) */
	bool starttls;                    /* the read sent a StartTLS (an extended operation) */
};

/* One kind's server count beside the client's.  The client's completed
 * count includes the binds that opened connections (bind kind), the
 * parent entries it created (add kind) and the connections' own extended
 * requests (StartTLS, the sync WhoAmI: the extended kinds); in_flight = sent
 * but unanswered when the run ended, which the server may or may not have
 * completed.  Kinds the server counts in one counter (OpenLDAP's Extended:
 * passmod, whoami, extended) are compared together: the client's side is the
 * sum of theirs. */
struct ldb_monitor_cmp {
	uint64_t server, client, in_flight;
	bool agree; /* client <= server <= client + in_flight */
};

/* @return false when the server has no counter for kind k (389 DS: abandon). */
bool ldb_monitor_compare(const struct ldb_monitor_snap *delta, const struct ldb_totals *tot, int k,
                         struct ldb_monitor_cmp *out);

/* The name of kind k's line among the kinds used: its name, joined with
 * the other used kinds of its counter ("passmod+whoami").  false when an
 * earlier kind's line covers k (one line per counter). */
bool ldb_monitor_line_name(const struct ldb_monitor_snap *delta, const bool used[LDB_OP_COUNT], int k, char *name,
                           size_t cap);

/* "cn=Monitor" (OpenLDAP) or "cn=snmp,cn=monitor" (389 DS). */
const char *ldb_monitor_source(const struct ldb_monitor_snap *s);

/* The JSON summary's ,"server":{...} member: source and, per kind the run
 * used, server_completed, client_completed, in_flight, agree. */
void ldb_monitor_put_json(FILE *f, const struct ldb_monitor_snap *delta, const struct ldb_totals *tot,
                          const bool used[LDB_OP_COUNT]);

/* On a side connection (side/ldapconn: the run's address and TLS, bound as
 * -D or -o mech unless they have an XXX).  @return 0, or the exit status
 * with one line in err: 4 when the connection, its TLS or the bind failed
 * (as the load's first connection), 7 when the counters cannot be read. */
int ldb_monitor_read(const struct ldb_config *c, struct ldb_monitor_snap *s, char *err, size_t cap);

/* The server-side delta, less the reads' own traffic: each read is one bind
 * when -D is given (and a StartTLS with --starttls) and 1 + probes searches (389 DS: the cn=Operations probe
 * that fails, then cn=snmp).  Whether a server counts a read's last search in
 * that read's own result or not, the delta holds the first read's last search
 * or the second read's, never both: 1 + the second read's probes searches,
 * and the second read's bind. */
void ldb_monitor_delta(const struct ldb_monitor_snap *before, const struct ldb_monitor_snap *after, bool binds,
                       struct ldb_monitor_snap *delta);

/* Leave out of a delta the operations the pre-flight check sent between the
 * two reads (own: per kind; total: all of them, with its unbind). */
void ldb_monitor_discount(struct ldb_monitor_snap *delta, const uint64_t own[LDB_OP_COUNT], uint64_t total);

#endif
