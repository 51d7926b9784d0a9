/* The replay's transport (run/replay_sender): a connection's bytes plain, or
 * through the run's TLS library (run/tls.h): ldaps from the first byte, or a
 * StartTLS exchange and then the handshake.  Until the setup says a
 * connection is ready, the sender writes none of the log's requests on it:
 * a certificate that does not verify fails the handshake before any LDAP
 * byte, so no bind (and no password) goes to an unverified peer.
 *
 * The TLS session object is made when the handshake starts (once per
 * connection, inherent to both libraries) and freed at its close; reads and
 * writes reuse the library's buffers: nothing is allocated per request. */
#ifndef LDBENCH_RUN_REPLAY_TLS_H
#define LDBENCH_RUN_REPLAY_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/tls.h"

/* A connection's setup after its connect() was started. */
enum ldb_rp_phase {
	LDB_RP_PH_TCP = 0,   /* the TCP connect is under way */
	LDB_RP_PH_STARTTLS,  /* the StartTLS request is being written */
	LDB_RP_PH_ANSWER,    /* its answer is awaited */
	LDB_RP_PH_HANDSHAKE, /* the TLS handshake */
	LDB_RP_PH_UP         /* ready for the log's requests */
};

struct ldb_rp_tls {
	struct ldb_tls_conn tc; /* when tls_on */
	uint8_t phase;          /* enum ldb_rp_phase */
	uint8_t req_sent;       /* StartTLS request bytes written */
	uint16_t ans_len;       /* its answer's bytes read */
	bool tls_on;            /* the session object exists */
	bool rd_wants_wr;       /* a TLS read waits for the socket to be writable */
	bool wr_wants_rd;       /* a TLS write waits for it to be readable */
};

/* The TLS of a replay: the run's context (NULL: plain LDAP), StartTLS or
 * ldaps, and the sender's session slot (run/tls.h). */
struct ldb_rp_tlsconf {
	const struct ldb_tls *tls;
	bool starttls;
	struct ldb_tls_session *slot;
	const uint8_t *starttls_op; /* with starttls: its ExtendedRequest (LDB_STARTTLS_OID), encoded once */
	size_t starttls_len;
};

/** The setup's next steps: called once the TCP connect succeeded, then on
 *  each event of the connection until it says ready.  buf (cap) is the
 *  connection's input buffer, where StartTLS's answer is read.
 *  @return 1 ready (LDB_RP_PH_UP), 0 waiting for the socket, -1 failed
 *  with one line in why. */
int ldb_rp_tls_setup(struct ldb_rp_tls *t, const struct ldb_rp_tlsconf *tc, int fd, uint8_t *buf, size_t cap, char *why,
                     size_t whycap);

/** send() and recv() through the connection's transport: the same results
 *  (-1 with errno EAGAIN when the socket must wait, 0 from recv at the
 *  peer's close). */
ssize_t ldb_rp_io_send(struct ldb_rp_tls *t, int fd, const void *buf, size_t len);
ssize_t ldb_rp_io_recv(struct ldb_rp_tls *t, int fd, void *buf, size_t cap);

/** The connection ends (its fd is the caller's to close): a close_notify
 *  first when graceful and the handshake completed; the phase back to TCP. */
void ldb_rp_tls_end(struct ldb_rp_tls *t, bool graceful);
/** At the sender's end: also the buffers kept across connections. */
void ldb_rp_tls_release(struct ldb_rp_tls *t);

#endif
