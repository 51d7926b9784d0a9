/* TLS with OpenSSL 3 on ldbench's own sockets: the OpenSSL backend of
 * tls.h (tls_backend.h). */
#include "run/tls_backend.h"
#include "run/tls_lean.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct ossl_tls {
	OSSL_LIB_CTX *lib; /* the lean context (tls_lean.h, not ours to free), or NULL: OpenSSL's default */
	SSL_CTX *ctx;
	char *host; /* SNI and the name checked; NULL when host is an IP */
	bool resume;
};

/* Where a connection's session slot hangs (SSL ex_data), for the new-session
 * callback. */
static int slot_index = -1;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_index_init(void)
{
	slot_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* OpenSSL's last queued reason, or a fallback; empties the thread's queue. */
static const char *ssl_reason(const char *fallback)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r != NULL ? r : fallback;
}

/* No prompt for an encrypted key: fail instead. */
static int no_password(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static void drop_session(struct ldb_tls_session *slot)
{
	SSL_SESSION_free(slot->sess);
}

/* A session the server handed out on a connection with a slot: it replaces
 * the slot's.  With TLS 1.3 this runs inside a read after the handshake. */
static int new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct ldb_tls_session *slot = SSL_get_ex_data(ssl, slot_index);

	if (slot == NULL)
		return 0;
	ldb_tls_session_set(slot, sess, 0, drop_session);
	return 1; /* we keep the reference */
}

static int load_trust(SSL_CTX *ctx, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	if (c->cacert != NULL) {
		if (ldb_tls_check_readable("--tls-cacert", c->cacert, false, err, cap) < 0)
			return -1;
		if (SSL_CTX_load_verify_file(ctx, c->cacert) != 1) {
			snprintf(err, cap, "--tls-cacert %s: no PEM certificate could be read (%s)", c->cacert,
			         ssl_reason("bad file"));
			return -1;
		}
	}
	if (c->cacertdir != NULL) {
		if (ldb_tls_check_readable("--tls-cacertdir", c->cacertdir, true, err, cap) < 0)
			return -1;
		if (SSL_CTX_load_verify_dir(ctx, c->cacertdir) != 1) {
			snprintf(err, cap, "--tls-cacertdir %s: cannot be used (%s)", c->cacertdir,
			         ssl_reason("bad directory"));
			return -1;
		}
	}
	if (c->cacert == NULL && c->cacertdir == NULL && !c->insecure && SSL_CTX_set_default_verify_paths(ctx) != 1) {
		snprintf(err, cap, "cannot load the system's CA certificates (%s); give --tls-cacert",
		         ssl_reason("unknown error"));
		return -1;
	}
	return 0;
}

static int load_client_cert(SSL_CTX *ctx, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	int r = ldb_tls_client_cert_args(c, err, cap);

	if (r <= 0)
		return r;
	if (SSL_CTX_use_certificate_chain_file(ctx, c->cert) != 1) {
		snprintf(err, cap, "--tls-cert %s: not a PEM certificate (%s)", c->cert, ssl_reason("bad file"));
		return -1;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, c->key, SSL_FILETYPE_PEM) != 1) {
		unsigned long e = ERR_peek_last_error();

		if (ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH) {
			ERR_clear_error();
			snprintf(err, cap, "--tls-key %s does not match the certificate of --tls-cert %s", c->key,
			         c->cert);
			return -1;
		}
		snprintf(err, cap, "--tls-key %s: not an unencrypted PEM private key (%s)", c->key,
		         ssl_reason("bad file"));
		return -1;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		ERR_clear_error();
		snprintf(err, cap, "--tls-key %s does not match the certificate of --tls-cert %s", c->key, c->cert);
		return -1;
	}
	return 0;
}

/* Protocol floor and TLS 1.2 cipher list (--tls-min, --tls-ciphers). */
static int set_protocols(SSL_CTX *ctx, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	if (c->min == 12 || c->min == 13) {
		if (SSL_CTX_set_min_proto_version(ctx, c->min == 13 ? TLS1_3_VERSION : TLS1_2_VERSION) != 1) {
			snprintf(err, cap, "--tls-min 1.%d: not available (%s)", c->min - 10,
			         ssl_reason("OpenSSL refused"));
			return -1;
		}
	}
	/* --tls-ciphers is OpenSSL's cipher list, which only governs TLS 1.2 and
	 * below; TLS 1.3 suites are a separate setting (SSL_CTX_set_ciphersuites),
	 * left at OpenSSL's default. */
	if (c->ciphers != NULL && SSL_CTX_set_cipher_list(ctx, c->ciphers) != 1) {
		ERR_clear_error();
		snprintf(err, cap, "--tls-ciphers '%s': no usable cipher in the list", c->ciphers);
		return -1;
	}
	return 0;
}

/* Server certificate checks: the chain, and the name or address we dialled. */
static int set_verification(struct ossl_tls *t, const struct ldb_tls_settings *c, const char *host, char *err,
                            size_t cap)
{
	if (c->insecure) {
		SSL_CTX_set_verify(t->ctx, SSL_VERIFY_NONE, NULL);
		return 0;
	}
	X509_VERIFY_PARAM *vp = SSL_CTX_get0_param(t->ctx);
	int rc;

	SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
	if (ldb_tls_is_ip(host)) {
		rc = X509_VERIFY_PARAM_set1_ip_asc(vp, host);
	} else {
		X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		rc = X509_VERIFY_PARAM_set1_host(vp, host, 0);
	}
	if (rc != 1) {
		snprintf(err, cap, "cannot check the server certificate against host '%s' (%s)", host,
		         ssl_reason("bad host name"));
		return -1;
	}
	return 0;
}

/* The context's fixed modes: non-blocking I/O as with send(), read-ahead, and
 * servers that close after an unbind without close_notify. */
static void set_modes(SSL_CTX *ctx)
{
	SSL_CTX_set_default_passwd_cb(ctx, no_password);
	/* partial writes as with send(); a retried write may come from a moved buffer */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* read whatever the socket has, not a record header then its body: one
	 * read() serves many responses, as on plain connections */
	SSL_CTX_set_read_ahead(ctx, 1);
	/* servers close LDAP connections after an unbind without close_notify */
	SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

static void ossl_ctx_free(void *ctx)
{
	struct ossl_tls *t = ctx;

	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);
	free(t->host);
	free(t);
}

static int ossl_ctx_new(void **out, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	struct ossl_tls *t = calloc(1, sizeof *t);
	const char *host = c->name != NULL ? c->name : "localhost";

	*out = NULL;
	if (t == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	pthread_once(&slot_once, slot_index_init);
	ERR_clear_error();
	/* a client certificate's private key needs the decoders the lean context
	 * leaves out */
	if (c->cert == NULL && c->key == NULL)
		t->lib = ldb_tls_lean();
	t->ctx = SSL_CTX_new_ex(t->lib, NULL, TLS_client_method());
	if (t->ctx == NULL || slot_index < 0) {
		snprintf(err, cap, "cannot create a TLS context (%s)", ssl_reason("OpenSSL failed"));
		goto fail;
	}
	set_modes(t->ctx);
	if (set_protocols(t->ctx, c, err, cap) < 0 || load_trust(t->ctx, c, err, cap) < 0 ||
	    load_client_cert(t->ctx, c, err, cap) < 0 || set_verification(t, c, host, err, cap) < 0)
		goto fail;
	if (!ldb_tls_is_ip(host) && (t->host = strdup(host)) == NULL) {
		snprintf(err, cap, "out of memory");
		goto fail;
	}
	t->resume = c->resume;
	if (t->resume) {
		SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(t->ctx, new_session);
	} else {
		/* nothing resumes: no session cache, and no TLS 1.2 ticket asked for */
		SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
		SSL_CTX_set_options(t->ctx, SSL_OP_NO_TICKET);
	}
	*out = t;
	return 0;
fail:
	ossl_ctx_free(t);
	return -1;
}

static int ossl_conn_open(struct ldb_tls_conn *tc, int fd, struct ldb_tls_session *slot, char *err, size_t cap)
{
	const struct ossl_tls *t = tc->ctx;
	SSL *ssl = SSL_new(t->ctx);

	if (ssl == NULL || SSL_set_fd(ssl, fd) != 1 ||
	    (t->host != NULL && SSL_set_tlsext_host_name(ssl, t->host) != 1)) {
		snprintf(err, cap, "cannot start TLS on the connection (%s)", ssl_reason("out of memory"));
		SSL_free(ssl);
		return -1;
	}
	SSL_set_connect_state(ssl);
	if (t->resume && slot != NULL) {
		SSL_set_ex_data(ssl, slot_index, slot);
		if (slot->sess != NULL)
			SSL_set_session(ssl, slot->sess); /* OpenSSL takes its own reference */
		tc->slot = slot;
	}
	tc->ssl = ssl;
	return 0;
}

/* The reason a handshake failed, in one line. */
static void handshake_reason(SSL *ssl, int sslerr, char *err, size_t cap)
{
	unsigned long e = ERR_peek_last_error();
	long vr = SSL_get_verify_result(ssl);
	int saved = errno;

	if (e != 0 && ERR_GET_REASON(e) == SSL_R_CERTIFICATE_VERIFY_FAILED && vr != X509_V_OK) {
		if (vr == X509_V_ERR_HOSTNAME_MISMATCH || vr == X509_V_ERR_IP_ADDRESS_MISMATCH) {
			X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
			char *ip = X509_VERIFY_PARAM_get1_ip_asc(vp);
			const char *name = X509_VERIFY_PARAM_get0_host(vp, 0);

			snprintf(err, cap, "certificate verify failed: %s (the certificate is not for %s)",
			         X509_verify_cert_error_string(vr),
			         ip != NULL     ? ip
			         : name != NULL ? name
			                        : "?");
			OPENSSL_free(ip);
		} else {
			snprintf(err, cap, "certificate verify failed: %s", X509_verify_cert_error_string(vr));
		}
	} else if (e != 0) {
		const char *r = ERR_reason_error_string(e);

		snprintf(err, cap, "TLS handshake failed: %s", r != NULL ? r : "unknown error");
	} else if (sslerr == SSL_ERROR_SYSCALL && saved != 0) {
		snprintf(err, cap, "TLS handshake failed: %s", strerror(saved));
	} else {
		snprintf(err, cap, "TLS handshake failed: the server closed the connection");
	}
	ERR_clear_error();
}

static int ossl_handshake(struct ldb_tls_conn *tc, char *err, size_t cap)
{
	SSL *ssl = tc->ssl;
	int r, e;

	errno = 0;
	r = SSL_do_handshake(ssl);
	if (r == 1) {
		tc->handshake_done = true;
		return LDB_TLS_OK;
	}
	e = SSL_get_error(ssl, r);
	if (e == SSL_ERROR_WANT_READ)
		return LDB_TLS_WANT_READ;
	if (e == SSL_ERROR_WANT_WRITE)
		return LDB_TLS_WANT_WRITE;
	if (err != NULL && cap > 0)
		handshake_reason(ssl, e, err, cap);
	else
		ERR_clear_error();
	return LDB_TLS_ERROR;
}

static bool ossl_resumed(const struct ldb_tls_conn *tc)
{
	return SSL_session_reused(tc->ssl) == 1;
}

/* Map an I/O call's failure to the three-way outcome. */
static int io_outcome(SSL *ssl, int r, bool reading)
{
	switch (SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ: return LDB_TLS_WANT_READ;
	case SSL_ERROR_WANT_WRITE: return LDB_TLS_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN: return reading ? LDB_TLS_CLOSED : LDB_TLS_ERROR;
	case SSL_ERROR_SYSCALL:
		if (reading && ERR_peek_error() == 0 && errno == 0)
			return LDB_TLS_CLOSED;
		break;
	default: break;
	}
	ERR_clear_error();
	return LDB_TLS_ERROR;
}

static int ossl_read(struct ldb_tls_conn *tc, void *buf, size_t cap, size_t *n)
{
	size_t got = 0;
	int r;

	errno = 0;
	r = SSL_read_ex(tc->ssl, buf, cap, &got);
	*n = got;
	if (r == 1)
		return LDB_TLS_OK;
	*n = 0;
	return io_outcome(tc->ssl, r, true);
}

static int ossl_write(struct ldb_tls_conn *tc, const void *buf, size_t len, size_t *n)
{
	size_t put = 0;
	int r;

	errno = 0;
	r = SSL_write_ex(tc->ssl, buf, len, &put);
	if (r == 1) {
		*n = put;
		return LDB_TLS_OK;
	}
	return io_outcome(tc->ssl, r, false);
}

static size_t ossl_pending(const struct ldb_tls_conn *tc)
{
	int p = SSL_pending(tc->ssl);

	return p > 0 ? (size_t)p : 0;
}

static void ossl_conn_free(struct ldb_tls_conn *tc)
{
	SSL_free(tc->ssl);
	ERR_clear_error();
}

static void ossl_shutdown(struct ldb_tls_conn *tc)
{
	SSL_shutdown(tc->ssl);
}

static const char *ossl_version(const struct ldb_tls_conn *tc)
{
	return SSL_get_version(tc->ssl);
}

const struct ldb_tls_backend ldb_tls_openssl = {
	.name = "OpenSSL",
	.ctx_new = ossl_ctx_new,
	.ctx_free = ossl_ctx_free,
	.conn_open = ossl_conn_open,
	.handshake = ossl_handshake,
	.resumed = ossl_resumed,
	.read = ossl_read,
	.write = ossl_write,
	.pending = ossl_pending,
	.shutdown = ossl_shutdown,
	.conn_free = ossl_conn_free,
	.version = ossl_version,
};
