/* TLS with GnuTLS on ldbench's own sockets: the GnuTLS backend of tls.h
 * (tls_backend.h).
 *
 * The run's credentials (trust store, client certificate) and priorities
 * (versions, groups) are built once and shared by every session; a session
 * per connection is GnuTLS's unit (gnutls_init allocates it).  Without
 * --tls-resume no session ticket is asked for (GNUTLS_NO_TICKETS).  The
 * client offers one key share, X25519 (GNUTLS_KEY_SHARE_TOP; GnuTLS's default
 * is two, P-256 and X25519, one of them computed for nothing), as OpenSSL.
 *
 * Verification runs inside the handshake, when the server's Certificate
 * message has come (a verify function on the credentials), so a certificate
 * that does not verify fails the handshake before a byte of LDAP is sent:
 * GnuTLS's own check of the chain against the trust store, of the name or
 * address dialled (IP addresses checked as addresses) and of the key purpose
 * (TLS server), as gnutls_session_set_verify_cert does.  A chain that
 * verified is kept in the worker's slot: the next handshake that presents the
 * byte-identical chain, before the first of its certificates expires, is not
 * checked again (the run's trust store and host do not change; the server
 * still proves with its signature in the handshake that it holds the
 * certificate's key).  Checking the chain is GnuTLS's dearest part of a
 * handshake (certificate parsing with libtasn1, lookups, signatures: 1.6
 * million instructions against OpenSSL's 0.35 to 0.9), which a run
 * with a connection per bind would otherwise repeat for the same chain every
 * time; a TLS session resumed skips it likewise. */
#include "run/tls_backend.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#define GROUPS                                                                                                       \
	":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:+GROUP-X448:+GROUP-FFDHE2048:" \
	"+GROUP-FFDHE3072:+GROUP-FFDHE4096:+GROUP-FFDHE6144:+GROUP-FFDHE8192"

static int verify_peer(gnutls_session_t s);

struct gnu_tls {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	char *sni;   /* the server name sent; NULL when the host is an IP address */
	char *check; /* the name or address verified; NULL with --tls-insecure */
	bool resume;
};

static int load_trust(gnutls_certificate_credentials_t cred, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	int r;

	if (c->cacert != NULL) {
		if (ldb_tls_check_readable("--tls-cacert", c->cacert, false, err, cap) < 0)
			return -1;
		r = gnutls_certificate_set_x509_trust_file(cred, c->cacert, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			snprintf(err, cap, "--tls-cacert %s: no PEM certificate could be read (%s)", c->cacert,
			         r < 0 ? gnutls_strerror(r) : "none in the file");
			return -1;
		}
	}
	if (c->cacertdir != NULL) {
		if (ldb_tls_check_readable("--tls-cacertdir", c->cacertdir, true, err, cap) < 0)
			return -1;
		r = gnutls_certificate_set_x509_trust_dir(cred, c->cacertdir, GNUTLS_X509_FMT_PEM);
		if (r < 0) {
			snprintf(err, cap, "--tls-cacertdir %s: cannot be used (%s)", c->cacertdir, gnutls_strerror(r));
			return -1;
		}
	}
	if (c->cacert == NULL && c->cacertdir == NULL && !c->insecure &&
	    (r = gnutls_certificate_set_x509_system_trust(cred)) < 0) {
		snprintf(err, cap, "cannot load the system's CA certificates (%s); give --tls-cacert",
		         gnutls_strerror(r));
		return -1;
	}
	return 0;
}

/* Whether the file holds at least one PEM certificate. */
static bool has_certificate(const char *file)
{
	gnutls_datum_t data = { NULL, 0 };
	gnutls_x509_crt_t *list = NULL;
	unsigned n = 0;

	if (gnutls_load_file(file, &data) < 0)
		return false;
	if (gnutls_x509_crt_list_import2(&list, &n, &data, GNUTLS_X509_FMT_PEM, 0) < 0)
		n = 0;
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(list[i]);
	gnutls_free(list);
	gnutls_free(data.data);
	return n > 0;
}

static int load_client_cert(gnutls_certificate_credentials_t cred, const struct ldb_tls_settings *c, char *err,
                            size_t cap)
{
	int r = ldb_tls_client_cert_args(c, err, cap);

	if (r <= 0)
		return r;
	if (!has_certificate(c->cert)) {
		snprintf(err, cap, "--tls-cert %s: not a PEM certificate", c->cert);
		return -1;
	}
	/* an encrypted key fails here: there is no password callback */
	r = gnutls_certificate_set_x509_key_file(cred, c->cert, c->key, GNUTLS_X509_FMT_PEM);
	if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH) {
		snprintf(err, cap, "--tls-key %s does not match the certificate of --tls-cert %s", c->key, c->cert);
		return -1;
	}
	if (r < 0) {
		snprintf(err, cap, "--tls-key %s: not an unencrypted PEM private key (%s)", c->key, gnutls_strerror(r));
		return -1;
	}
	return 0;
}

/* Versions as OpenSSL's on Debian 12: TLS 1.2 and 1.3 (--tls-min 1.3: 1.3
 * alone); everything else GnuTLS's NORMAL. */
static int set_priorities(struct gnu_tls *t, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	const char *prio = c->min == 13 ? "NORMAL:-VERS-ALL:+VERS-TLS1.3" GROUPS
	                                : "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" GROUPS;
	const char *where = NULL;
	int r;

	if (c->ciphers != NULL) {
		snprintf(err, cap, "--tls-ciphers is an OpenSSL cipher list: it needs --tls-library openssl");
		return -1;
	}
	r = gnutls_priority_init2(&t->prio, prio, &where, 0);
	if (r < 0) {
		snprintf(err, cap, "cannot set the TLS versions (%s)", gnutls_strerror(r));
		return -1;
	}
	return 0;
}

static void gnu_ctx_free(void *ctx)
{
	struct gnu_tls *t = ctx;

	if (t == NULL)
		return;
	if (t->prio != NULL)
		gnutls_priority_deinit(t->prio);
	if (t->cred != NULL)
		gnutls_certificate_free_credentials(t->cred);
	free(t->sni);
	free(t->check);
	free(t);
}

static int gnu_ctx_new(void **out, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	struct gnu_tls *t = calloc(1, sizeof *t);
	const char *host = c->name != NULL ? c->name : "localhost";
	int r;

	*out = NULL;
	if (t == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	if ((r = gnutls_certificate_allocate_credentials(&t->cred)) < 0) {
		snprintf(err, cap, "cannot create a TLS context (%s)", gnutls_strerror(r));
		goto fail;
	}
	if (!c->insecure)
		gnutls_certificate_set_verify_function(t->cred, verify_peer);
	if (set_priorities(t, c, err, cap) < 0 || load_trust(t->cred, c, err, cap) < 0 ||
	    load_client_cert(t->cred, c, err, cap) < 0)
		goto fail;
	if ((!ldb_tls_is_ip(host) && (t->sni = strdup(host)) == NULL) ||
	    (!c->insecure && (t->check = strdup(host)) == NULL)) {
		snprintf(err, cap, "out of memory");
		goto fail;
	}
	t->resume = c->resume;
	*out = t;
	return 0;
fail:
	gnu_ctx_free(t);
	return -1;
}

/* The read-ahead buffer: a whole record of the largest size GnuTLS accepts
 * (header, 2^14 bytes, expansion). */
#define RA_SIZE (5 + 16384 + 256)

/* GnuTLS's reads: from the read-ahead buffer, refilled by one recv() of all
 * the socket holds (up to RA_SIZE) when empty; -1 with errno EAGAIN when both
 * are empty (GnuTLS then says GNUTLS_E_AGAIN). */
static ssize_t pull(gnutls_transport_ptr_t p, void *buf, size_t len)
{
	struct ldb_tls_conn *tc = p;
	size_t k;

	if (tc->ra_off == tc->ra_len) {
		ssize_t n;

		tc->ra_off = tc->ra_len = 0;
		do
			n = recv(tc->fd, tc->ra, RA_SIZE, MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return n;
		tc->ra_len = (size_t)n;
	}
	k = tc->ra_len - tc->ra_off < len ? tc->ra_len - tc->ra_off : len;
	memcpy(buf, tc->ra + tc->ra_off, k);
	tc->ra_off += k;
	return (ssize_t)k;
}

/* Whether a read would find bytes within ms (GnuTLS asks only with a
 * timeout set, which a non-blocking session has not). */
static int pull_timeout(gnutls_transport_ptr_t p, unsigned ms)
{
	struct ldb_tls_conn *tc = p;
	struct pollfd pfd = { .fd = tc->fd, .events = POLLIN };

	if (tc->ra_off < tc->ra_len)
		return 1;
	return poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
}

static ssize_t push(gnutls_transport_ptr_t p, const giovec_t *iov, int n)
{
	struct ldb_tls_conn *tc = p;
	struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };

	return sendmsg(tc->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static int gnu_conn_open(struct ldb_tls_conn *tc, int fd, struct ldb_tls_session *slot, char *err, size_t cap)
{
	const struct gnu_tls *t = tc->ctx;
	unsigned flags = GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL | GNUTLS_KEY_SHARE_TOP;
	gnutls_session_t s = NULL;
	int r;

	(void)fd; /* tc->fd */
	if (tc->ra == NULL && (tc->ra = malloc(RA_SIZE)) == NULL) {
		snprintf(err, cap, "cannot start TLS on the connection (out of memory)");
		return -1;
	}
	if (!t->resume)
		flags |= GNUTLS_NO_TICKETS; /* nothing resumes: no ticket asked for */
	r = gnutls_init(&s, flags);
	if (r >= 0)
		r = gnutls_priority_set(s, t->prio);
	if (r >= 0)
		r = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, t->cred);
	if (r >= 0 && t->sni != NULL)
		r = gnutls_server_name_set(s, GNUTLS_NAME_DNS, t->sni, strlen(t->sni));
	if (r >= 0 && t->resume && slot != NULL && slot->sess != NULL)
		r = gnutls_session_set_data(s, slot->sess, slot->len);
	if (r < 0) {
		snprintf(err, cap, "cannot start TLS on the connection (%s)", gnutls_strerror(r));
		if (s != NULL)
			gnutls_deinit(s);
		return -1;
	}
	gnutls_session_set_ptr(s, tc); /* for verify_peer */
	gnutls_transport_set_ptr(s, tc);
	gnutls_transport_set_pull_function(s, pull);
	gnutls_transport_set_pull_timeout_function(s, pull_timeout);
	gnutls_transport_set_vec_push_function(s, push);
	if (t->resume && slot != NULL)
		tc->slot = slot;
	tc->ssl = s;
	return 0;
}

/* Whether the chain is the slot's, byte for byte, and still within its dates. */
static bool chain_known(const struct ldb_tls_session *k, const gnutls_datum_t *certs, unsigned n)
{
	size_t off = 0;

	if (k == NULL || k->chain == NULL || k->chain_n != n || (long)time(NULL) >= k->chain_until)
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (certs[i].size > k->chain_len - off || memcmp(k->chain + off, certs[i].data, certs[i].size) != 0)
			return false;
		off += certs[i].size;
	}
	return off == k->chain_len;
}

/* Keep a chain that verified in the slot, with the first expiry among its
 * certificates (once per worker, or when the server's chain changes). */
static void chain_keep(struct ldb_tls_session *k, const gnutls_datum_t *certs, unsigned n)
{
	size_t len = 0, off = 0;
	long until = -1;
	unsigned char *copy;

	for (unsigned i = 0; i < n; i++) {
		gnutls_x509_crt_t crt;
		long exp = -1;

		len += certs[i].size;
		if (gnutls_x509_crt_init(&crt) < 0)
			return;
		if (gnutls_x509_crt_import(crt, &certs[i], GNUTLS_X509_FMT_DER) == 0)
			exp = (long)gnutls_x509_crt_get_expiration_time(crt);
		gnutls_x509_crt_deinit(crt);
		if (exp < 0)
			return; /* unreadable dates: never kept, checked every time */
		if (until < 0 || exp < until)
			until = exp;
	}
	if ((copy = malloc(len)) == NULL)
		return;
	for (unsigned i = 0; i < n; i++) {
		memcpy(copy + off, certs[i].data, certs[i].size);
		off += certs[i].size;
	}
	free(k->chain);
	k->chain = copy;
	k->chain_len = len;
	k->chain_n = n;
	k->chain_until = until;
}

/* The credentials' verify function (not set with --tls-insecure): 0 lets the
 * handshake go on, -1 fails it (GNUTLS_E_CERTIFICATE_ERROR) with the status
 * kept for the failure's line. */
static int verify_peer(gnutls_session_t s)
{
	struct ldb_tls_conn *tc = gnutls_session_get_ptr(s);
	const struct gnu_tls *t = tc->ctx;
	unsigned n = 0, status = 0;
	const gnutls_datum_t *certs = gnutls_certificate_get_peers(s, &n);
	gnutls_typed_vdata_st want[2] = {
		{ .type = GNUTLS_DT_DNS_HOSTNAME, .data = (unsigned char *)t->check },
		{ .type = GNUTLS_DT_KEY_PURPOSE_OID, .data = (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER },
	};

	if (certs == NULL || n == 0) {
		tc->verify_status = GNUTLS_CERT_INVALID;
		return -1;
	}
	if (chain_known(tc->cache, certs, n))
		return 0;
	if (gnutls_certificate_verify_peers(s, want, 2, &status) < 0 || status != 0) {
		tc->verify_status = status != 0 ? status : GNUTLS_CERT_INVALID;
		return -1;
	}
	if (tc->cache != NULL)
		chain_keep(tc->cache, certs, n);
	return 0;
}

static void drop_session(struct ldb_tls_session *slot)
{
	gnutls_free(slot->sess);
}

/* With a slot: once the session can be resumed (TLS 1.2: at the end of the
 * handshake; TLS 1.3: when the server's ticket has come, during a read), it
 * replaces the slot's. */
static void save_session(struct ldb_tls_conn *tc)
{
	gnutls_session_t s = tc->ssl;
	gnutls_datum_t d = { NULL, 0 };

	if (gnutls_protocol_get_version(s) == GNUTLS_TLS1_3 &&
	    (gnutls_session_get_flags(s) & GNUTLS_SFLAGS_SESSION_TICKET) == 0)
		return;
	tc->ticket_saved = true;
	if (gnutls_session_get_data2(s, &d) < 0)
		return;
	ldb_tls_session_set(tc->slot, d.data, d.size, drop_session);
}

/* An issuer not found among the trusted, in OpenSSL's words: the chain the
 * server sent ends in a self-signed certificate, or does not. */
static const char *unknown_issuer(gnutls_session_t s)
{
	const char *why = "unable to get local issuer certificate";
	unsigned n = 0;
	const gnutls_datum_t *certs = gnutls_certificate_get_peers(s, &n);
	gnutls_x509_crt_t last;

	if (certs == NULL || n == 0 || gnutls_x509_crt_init(&last) < 0)
		return why;
	if (gnutls_x509_crt_import(last, &certs[n - 1], GNUTLS_X509_FMT_DER) == 0 &&
	    gnutls_x509_crt_check_issuer(last, last) != 0)
		why = n == 1 ? "self-signed certificate" : "self-signed certificate in certificate chain";
	gnutls_x509_crt_deinit(last);
	return why;
}

/* The status bits of a failed verification, in OpenSSL's words where it has
 * them (the same lines whichever library runs). */
static void verify_reason(gnutls_session_t s, unsigned st, const char *check, char *err, size_t cap)
{
	gnutls_datum_t out = { NULL, 0 };

	if (st & GNUTLS_CERT_SIGNER_NOT_FOUND)
		snprintf(err, cap, "certificate verify failed: %s", unknown_issuer(s));
	else if (st & GNUTLS_CERT_EXPIRED)
		snprintf(err, cap, "certificate verify failed: certificate has expired");
	else if (st & GNUTLS_CERT_NOT_ACTIVATED)
		snprintf(err, cap, "certificate verify failed: certificate is not yet valid");
	else if (st & GNUTLS_CERT_REVOKED)
		snprintf(err, cap, "certificate verify failed: certificate revoked");
	else if (st & GNUTLS_CERT_UNEXPECTED_OWNER)
		snprintf(err, cap, "certificate verify failed: %s mismatch (the certificate is not for %s)",
		         ldb_tls_is_ip(check) ? "IP address" : "hostname", check);
	else if (gnutls_certificate_verification_status_print(st, GNUTLS_CRT_X509, &out, 0) == 0)
		snprintf(err, cap, "certificate verify failed: %s", (const char *)out.data);
	else
		snprintf(err, cap, "certificate verify failed");
	gnutls_free(out.data);
}

/* The reason a handshake failed, in one line. */
static void handshake_reason(struct ldb_tls_conn *tc, int r, int saved_errno, char *err, size_t cap)
{
	const struct gnu_tls *t = tc->ctx;
	gnutls_session_t s = tc->ssl;

	if ((r == GNUTLS_E_CERTIFICATE_ERROR || r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) && tc->verify_status != 0)
		verify_reason(s, tc->verify_status, t->check != NULL ? t->check : "?", err, cap);
	else if (r == GNUTLS_E_FATAL_ALERT_RECEIVED)
		snprintf(err, cap, "TLS handshake failed: the server sent the alert '%s'",
		         gnutls_alert_get_name(gnutls_alert_get(s)));
	else if ((r == GNUTLS_E_PUSH_ERROR || r == GNUTLS_E_PULL_ERROR) && saved_errno != 0)
		snprintf(err, cap, "TLS handshake failed: %s", strerror(saved_errno));
	else if (r == GNUTLS_E_PREMATURE_TERMINATION || r == GNUTLS_E_UNEXPECTED_PACKET_LENGTH)
		snprintf(err, cap, "TLS handshake failed: the server closed the connection");
	else
		snprintf(err, cap, "TLS handshake failed: %s", gnutls_strerror(r));
}

/* A call that would block: which way the session waits. */
static int blocked(gnutls_session_t s)
{
	return gnutls_record_get_direction(s) == 1 ? LDB_TLS_WANT_WRITE : LDB_TLS_WANT_READ;
}

static int gnu_handshake(struct ldb_tls_conn *tc, char *err, size_t cap)
{
	gnutls_session_t s = tc->ssl;
	int r;

	do {
		errno = 0;
		r = gnutls_handshake(s);
	} while (r < 0 && r != GNUTLS_E_AGAIN && gnutls_error_is_fatal(r) == 0);
	if (r == GNUTLS_E_SUCCESS) {
		tc->handshake_done = true;
		if (tc->slot != NULL)
			save_session(tc);
		return LDB_TLS_OK;
	}
	if (r == GNUTLS_E_AGAIN)
		return blocked(s);
	if (err != NULL && cap > 0)
		handshake_reason(tc, r, errno, err, cap);
	return LDB_TLS_ERROR;
}

static bool gnu_resumed(const struct ldb_tls_conn *tc)
{
	return gnutls_session_is_resumed(tc->ssl) != 0;
}

static int gnu_read(struct ldb_tls_conn *tc, void *buf, size_t cap, size_t *n)
{
	gnutls_session_t s = tc->ssl;
	ssize_t r;

	*n = 0;
	for (;;) {
		r = gnutls_record_recv(s, buf, cap);
		if (tc->slot != NULL && !tc->ticket_saved)
			save_session(tc);
		if (r > 0) {
			*n = (size_t)r;
			return LDB_TLS_OK;
		}
		/* a close_notify, or a plain EOF (LDAP servers close after an unbind) */
		if (r == 0 || r == GNUTLS_E_PREMATURE_TERMINATION)
			return LDB_TLS_CLOSED;
		if (r == GNUTLS_E_AGAIN)
			return blocked(s);
		if (gnutls_error_is_fatal((int)r) != 0)
			return LDB_TLS_ERROR;
		/* interrupted, a warning alert, a renegotiation request: read on */
	}
}

static int gnu_write(struct ldb_tls_conn *tc, const void *buf, size_t len, size_t *n)
{
	gnutls_session_t s = tc->ssl;
	ssize_t r;

	/* after GNUTLS_E_AGAIN GnuTLS sends what it has buffered and returns
	 * that length, whatever buf holds now */
	do
		r = gnutls_record_send(s, buf, len);
	while (r == GNUTLS_E_INTERRUPTED);
	if (r > 0) {
		*n = (size_t)r;
		return LDB_TLS_OK;
	}
	return r == GNUTLS_E_AGAIN ? blocked(s) : LDB_TLS_ERROR;
}

static size_t gnu_pending(const struct ldb_tls_conn *tc)
{
	return gnutls_record_check_pending(tc->ssl);
}

static void gnu_shutdown(struct ldb_tls_conn *tc)
{
	gnutls_bye(tc->ssl, GNUTLS_SHUT_WR);
}

static void gnu_conn_free(struct ldb_tls_conn *tc)
{
	gnutls_deinit(tc->ssl);
}

/* The version in OpenSSL's words ("TLSv1.3"), as the OpenSSL backend. */
static const char *gnu_version(const struct ldb_tls_conn *tc)
{
	switch (gnutls_protocol_get_version(tc->ssl)) {
	case GNUTLS_TLS1_3: return "TLSv1.3";
	case GNUTLS_TLS1_2: return "TLSv1.2";
	default: return gnutls_protocol_get_name(gnutls_protocol_get_version(tc->ssl));
	}
}

const struct ldb_tls_backend ldb_tls_gnutls = {
	.name = "GnuTLS",
	.ctx_new = gnu_ctx_new,
	.ctx_free = gnu_ctx_free,
	.conn_open = gnu_conn_open,
	.handshake = gnu_handshake,
	.resumed = gnu_resumed,
	.read = gnu_read,
	.write = gnu_write,
	.pending = gnu_pending,
	.shutdown = gnu_shutdown,
	.conn_free = gnu_conn_free,
	.version = gnu_version,
};
