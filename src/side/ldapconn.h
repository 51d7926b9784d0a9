/* Side connections: the blocking libldap connections ldbench opens beside the
 * load's own sockets (--monitor's reads, the pre-flight check, the -S
 * watchers, -e scalab01's logins), all opened here, one way:
 *
 *   - the address: the run's server (-H, or -h/-p, ldaps with -Z or -H
 *     ldaps://), or a server given as HOST[:PORT] (the run's scheme) or URL;
 *   - TLS as the load's (docs/design.md, "Side connections"): ldaps, or
 *     StartTLS on an ldap:// server when the run uses --starttls; the same
 *     CA (--tls-cacert, --tls-cacertdir, else the system's), client
 *     certificate and key, --tls-min, and the same verification: the server
 *     certificate and its host name are checked unless --tls-insecure (or -Z
 *     without a CA, as ldclt); each connection has TLS settings of its own
 *     (LDAP_OPT_X_TLS_NEWCTX), nothing is taken from ldap.conf or shared
 *     between connections;
 *   - a timeout on the connect and handshake (and on every operation when
 *     asked); referrals not chased; every option's result checked;
 *   - a bind: simple, or SASL EXTERNAL or PLAIN as the load's -o mech, or
 *     none (anonymous).
 * A failure is one line in the caller's buffer, and a class that says which
 * exit status the load gives the same failure. */
#ifndef LDBENCH_SIDE_LDAPCONN_H
#define LDBENCH_SIDE_LDAPCONN_H

#include <stdbool.h>
#include <stddef.h>

#include <ldap.h>

#include "conf/config.h"

/* Who a side connection binds as. */
struct ldb_side_who {
	const char *dn;       /* a simple bind's DN; NULL (and no mech): no bind */
	const char *password; /* NULL: empty */
	const char *mech;     /* "EXTERNAL" or "PLAIN" (the load's -o mech), NULL: simple */
	const char *authid;   /* PLAIN's user */
	const char *authzid;  /* NULL: none */
};

struct ldb_side_opts {
	const char *server;             /* HOST[:PORT] or URL; NULL: the run's server */
	int port;                       /* the port of a HOST without one; 0: -p's */
	int net_timeout_s;              /* the connect and the TLS handshake; 0: -t's */
	bool op_timeout;                /* -t bounds every operation as well */
	bool v2;                        /* LDAPv2 (-V 2), else v3 */
	const struct ldb_side_who *who; /* NULL: no bind */
};

/* What failed, as the load would say it. */
enum ldb_side_fail {
	LDB_SIDE_OK,
	LDB_SIDE_SETUP,   /* a bad address, an option libldap refused, out of memory */
	LDB_SIDE_CONNECT, /* the server cannot be reached */
	LDB_SIDE_TLS,     /* the handshake failed (certificate not verified, ...) */
	LDB_SIDE_BIND     /* StartTLS or the bind refused */
};

struct ldb_side {
	LDAP *ld;
	int rc;                  /* libldap's code of the step that failed */
	enum ldb_side_fail fail; /* which step */
	bool starttls;           /* a StartTLS request was sent */
	char url[512];
};

/* Open, secure and bind, on the target t (conf/target.h: the load's is
 * ldb_target_of_config's; -S's consumers take its TLS and its port).  @return 0 with s->ld, or -1 with s->fail, s->rc
 * and one line in err ("cannot connect to ldaps://HOST:636 (TLS): certificate
 * verify failed: ...", "bind as DN refused by URL: Invalid credentials"). */
int ldb_side_open(struct ldb_side *s, const struct ldb_target *t, const struct ldb_side_opts *o, char *err, size_t cap);
/* Unbind (when open). */
void ldb_side_close(struct ldb_side *s);

/* The run's own identity (-D and its password, or -o mech's): false when it
 * has an XXX (a different one per operation) or there is none. */
bool ldb_side_run_who(const struct ldb_config *c, struct ldb_side_who *w);

/* The exit status the load gives the same failure: 4 (cannot connect or
 * bind, TLS failures included), 7 for a set-up failure. */
int ldb_side_exit_status(enum ldb_side_fail f);

#endif
