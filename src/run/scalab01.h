/* -e scalab01: ldclt's modem-pool scenario, in its own threads (not the I/O
 * threads' loop: it is a scenario of whole-second sleeps, not a throughput
 * load).  Each client, one thread of blocking libldap calls:
 *   1. takes a modem from the pool (at most scalab01_maxcnxnb sessions at
 *      once, one atomic counter); when none is free it sleeps 0..wait s;
 *   2. drops its previous connection, opens one and binds as a random user
 *      (randombinddn); no other client may be that user at the same moment;
 *   3. reads the user's ntUserFlags (base search); "1": the user is already
 *      logged in, the modem goes back;
 *   4. else writes ntUserFlags: 1 and hands the session to the control
 *      thread with a random duration of 1..cnxduration s: one login counted;
 *   5. sleeps 0..wait s.
 * The control thread, bound as "cn=super user,<-b>", wakes every second and
 * ends the sessions whose time is up: it adds their duration to
 * ntUserUnitsPerWeek (read, then replaced), writes ntUserFlags: 0 and gives
 * the modem back.  See docs/migrating-from-ldclt.md for what differs. */
#ifndef LDBENCH_RUN_SCALAB01_H
#define LDBENCH_RUN_SCALAB01_H

#include <stdint.h>

#include "run/run.h"

/* What the scenario did beside the clients' counters, read after the end. */
struct ldb_s1_totals {
	uint64_t logins, locked, modem_waits; /* the clients: logins, users found logged in, pool full */
	uint64_t ended, open_at_end;          /* sessions the control thread ended, and still open */
	uint64_t ctrl_ops[LDB_OP_COUNT];      /* the control connection's operations, per kind */
	uint64_t ctrl_errors;                 /* of which failed */
	int most_in_use;                      /* the pool's highest use */
	int status;                           /* the control thread's exit status (ldclt's codes) */
};

/* Bind the control connection and start its thread; -1 with one line in err
 * (status: the exit status). */
int ldb_s1_begin(struct ldb_run *run, int *status, char *err, size_t cap);
/* A client's thread (pthread start routine): arg is its ldb_iothread, which
 * carries exactly one client. */
void *ldb_s1_client_main(void *arg);
/* After the clients' join: stop the control thread, its totals.  The
 * sessions still open are left as they are (their users stay locked), as
 * ldclt leaves them. */
void ldb_s1_end(struct ldb_s1_totals *t);
/* The kinds a login does beside its bind (a search, a modify): their
 * latency histograms are in use. */
void ldb_s1_kinds(bool used[LDB_OP_COUNT]);

#endif
