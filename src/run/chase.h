/* -e referral=on|rebind: a client follows a referral as libldap does for
 * ldclt.  Private to run/: conn.c hands a search reference or a referral
 * result (10) of one of its slots here.  The chase is synchronous and off the
 * hot path: a blocking socket of the client's own to the referred server
 * (ldap://host:port; kept open for the next referral to the same server),
 * bound anonymously (on) or with -D/-w (rebind), the same request sent there,
 * every wait bounded by min(-t, 1 s).  Its state is allocated at a client's
 * first chase.  See docs/design.md "Referrals". */
#ifndef LDBENCH_RUN_CHASE_H
#define LDBENCH_RUN_CHASE_H

#include "proto/wire.h"

struct ldb_conn;
struct ldb_client;

/* Follow the referral in r (a message for slot i of cn, whose request is
 * still there) once.  Entries the referred server returns are counted as
 * the slot's; the referral is counted as followed, and followed ok when
 * the referred server's result is a success of the kind.
 * @return that result code, or -1 when the referral could not be followed
 * (no ldap:// URL, the server unreachable, a broken answer, a timeout). */
int ldb_chase(struct ldb_conn *cn, int i, const struct ldb_resp *r);

/* The client's chase connection and buffers, if any. */
void ldb_chase_free(struct ldb_client *w);

#endif
