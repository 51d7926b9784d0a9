/* TLS on ldbench's own non-blocking sockets, with OpenSSL 3 or GnuTLS
 * (--tls-library; run/tls_backend.h is what each library provides).
 *
 * One context (struct ldb_tls) per run, built from the checked config before
 * any worker starts and read-only afterwards (OpenSSL's SSL_CTX and GnuTLS's
 * credentials and priorities are safe to share between threads once set up).
 * One struct ldb_tls_conn per connection, driven by the epoll worker through
 * a three-way outcome: done, want read, want write (or failed / closed).
 *
 * The caller keeps one struct ldb_tls_session per worker (a slot), zeroed at
 * start and given to each of the worker's connections.  Session resumption
 * (--tls-resume): each new connection of that worker offers the slot's
 * session, and every session the server hands out on that connection
 * replaces the slot's (TLS 1.3 tickets arrive after the handshake, during a
 * later read).  GnuTLS also keeps there the server's certificate chain it
 * last verified (see tls_gnutls.c).  A slot is only ever touched by the
 * thread that owns its worker.
 *
 * Nothing here allocates per operation: ldb_tls_read/ldb_tls_write reuse the
 * library's buffers.  Opening a connection allocates its session object (both
 * libraries do, inherently); a failure message is only formatted on failure.
 */
#ifndef LDBENCH_RUN_TLS_H
#define LDBENCH_RUN_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "conf/target.h"

/* StartTLS's requestName (RFC 4511 4.14.1): the load's (run/setup) and the
 * replay's request, both encoded from it by proto/wire at start-up. */
#define LDB_STARTTLS_OID "1.3.6.1.4.1.1466.20037"

/* Outcome of a handshake step, a read or a write. */
enum ldb_tls_rc {
	LDB_TLS_OK = 0,         /* done (handshake complete, or *n bytes moved) */
	LDB_TLS_WANT_READ = 1,  /* call again when the fd is readable (EPOLLIN) */
	LDB_TLS_WANT_WRITE = 2, /* call again when the fd is writable (EPOLLOUT) */
	LDB_TLS_CLOSED = 3,     /* the peer closed the connection (read only) */
	LDB_TLS_ERROR = -1      /* failed: drop the connection */
};

/* The run's TLS context (opaque). */
struct ldb_tls;

/* A worker's slot: zero it before first use, ldb_tls_session_free it at the
 * end. */
struct ldb_tls_session {
	void *sess;                                 /* --tls-resume: the library's saved session, or NULL */
	size_t len;                                 /* its size (GnuTLS: serialized data) */
	void (*drop)(struct ldb_tls_session *slot); /* frees sess (set with it) */
	unsigned char *chain;                       /* GnuTLS: the verified chain's certificates, DER, end to end */
	size_t chain_len;
	unsigned chain_n; /* how many certificates */
	long chain_until; /* the first notAfter among them (time_t) */
};

/* One TLS connection.  Zero it (or ldb_tls_conn_free it) before the first
 * ldb_tls_conn_open; it can be reopened after ldb_tls_conn_free. */
struct ldb_tls_backend;
struct ldb_tls_conn {
	const struct ldb_tls_backend *be; /* the run's library (set by ldb_tls_conn_open) */
	void *ctx;                        /* the backend's run context */
	void *ssl;                        /* SSL *, or gnutls_session_t */
	struct ldb_tls_session *slot;     /* --tls-resume: the worker's slot, else NULL */
	struct ldb_tls_session *cache;    /* the worker's slot, for its verified chain (GnuTLS) */
	unsigned verify_status;           /* GnuTLS: the failed verification's status bits */
	int fd;
	/* GnuTLS: read-ahead, as OpenSSL's (one recv() serves several records,
	 * where GnuTLS alone reads a record's header, then its body); made on
	 * the first open, kept across reopens, freed by ldb_tls_conn_release */
	unsigned char *ra;
	size_t ra_len, ra_off;
	bool handshake_done;
	bool ticket_saved; /* GnuTLS: the session was saved to the slot after its ticket came */
};

/* Build the run's context from a target's checked TLS settings alone
 * (conf/target.h), with the library of s->library (LDB_TLS_LIB_DEFAULT:
 * OpenSSL with ciphers, else LDB_TLS_LIB_PREFERRED): CA file (cacert), CA
 * directory (cacertdir) or the system's store when neither is given; client
 * certificate and key (PEM; checked to match); minimum version (min); TLS 1.2
 * cipher list (OpenSSL only: ldb_target_check_tls refuses it with GnuTLS);
 * server certificate verification with s->name (an IP address is checked as
 * an IP; NULL: localhost), unless insecure.  Start-up only.  @return 0 and
 * *out, or -1 with one line in err (an unreadable or bad file, say; the load
 * exits 7, the replay 2). */
int ldb_tls_new(struct ldb_tls **out, const struct ldb_tls_settings *s, char *err, size_t cap);
void ldb_tls_free(struct ldb_tls *t);
/* Whether the server certificate is verified (false with --tls-insecure or -Z
 * without a CA). */
bool ldb_tls_verifies(const struct ldb_tls *t);
/* The library's name, "OpenSSL" or "GnuTLS", for the TLS line. */
const char *ldb_tls_library_name(const struct ldb_tls *t);

/* Start TLS on a connected (or connecting) non-blocking socket fd, as the
 * client.  slot: the worker's slot, or NULL (no resumption and no verified
 * chain kept; resumption also needs --tls-resume).  The fd stays the
 * caller's (ldb_tls_conn_free does not close it).  @return 0, or -1 with one
 * line in err (out of memory). */
int ldb_tls_conn_open(struct ldb_tls_conn *tc, const struct ldb_tls *t, int fd, struct ldb_tls_session *slot, char *err,
                      size_t cap);

/* One handshake step.  @return LDB_TLS_OK when the handshake is complete,
 * LDB_TLS_WANT_READ / LDB_TLS_WANT_WRITE, or LDB_TLS_ERROR with one line in
 * err, e.g. "certificate verify failed: unable to get local issuer
 * certificate" or "certificate verify failed: hostname mismatch". */
int ldb_tls_handshake(struct ldb_tls_conn *tc, char *err, size_t cap);

/* Whether the completed handshake resumed the offered session. */
bool ldb_tls_resumed(const struct ldb_tls_conn *tc);

/* Read up to cap bytes.  @return LDB_TLS_OK with *n > 0; LDB_TLS_WANT_READ /
 * LDB_TLS_WANT_WRITE (nothing read, *n = 0); LDB_TLS_CLOSED on the peer's
 * close (close_notify or a plain EOF, which LDAP servers send after an
 * unbind); LDB_TLS_ERROR.  A readable fd may hold several records: call again
 * until it says WANT_READ, or check ldb_tls_pending(). */
int ldb_tls_read(struct ldb_tls_conn *tc, void *buf, size_t cap, size_t *n);

/* Write up to len bytes (partial writes happen, as with send()).  @return
 * LDB_TLS_OK with *n > 0, LDB_TLS_WANT_WRITE / LDB_TLS_WANT_READ (*n = 0:
 * call again with the same bytes, the buffer may have moved), LDB_TLS_ERROR. */
int ldb_tls_write(struct ldb_tls_conn *tc, const void *buf, size_t len, size_t *n);

/* Decrypted bytes already buffered in the library (readable without the
 * fd becoming readable again). */
size_t ldb_tls_pending(const struct ldb_tls_conn *tc);

/* Send a close_notify if the handshake completed (one non-blocking attempt,
 * never waits), then free the session object.  The fd is not closed. */
void ldb_tls_conn_close(struct ldb_tls_conn *tc);
/* Free without a close_notify (after an error). */
void ldb_tls_conn_free(struct ldb_tls_conn *tc);
/* Free for good (the connection's slot goes away): ldb_tls_conn_free and the
 * buffers kept across reopens. */
void ldb_tls_conn_release(struct ldb_tls_conn *tc);

/* Free what the slot holds (the worker ends). */
void ldb_tls_session_free(struct ldb_tls_session *slot);

/* The negotiated protocol ("TLSv1.3") of a completed handshake, for -v. */
const char *ldb_tls_version(const struct ldb_tls_conn *tc);

#endif
