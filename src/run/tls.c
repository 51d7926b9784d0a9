/* TLS on ldbench's own sockets: the run's library behind tls.h (see
 * tls_backend.h), and the checks the libraries share. */
#include "run/tls.h"
#include "run/tls_backend.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ldb_tls {
	const struct ldb_tls_backend *be;
	void *ctx; /* the backend's */
	bool verify;
};

int ldb_tls_client_cert_args(const struct ldb_tls_settings *c, char *err, size_t cap)
{
	if (c->cert == NULL && c->key == NULL)
		return 0;
	if (c->cert == NULL || c->key == NULL) {
		snprintf(err, cap, "--tls-cert and --tls-key go together");
		return -1;
	}
	if (ldb_tls_check_readable("--tls-cert", c->cert, false, err, cap) < 0 ||
	    ldb_tls_check_readable("--tls-key", c->key, false, err, cap) < 0)
		return -1;
	return 1;
}

int ldb_tls_check_readable(const char *opt, const char *path, bool dir, char *err, size_t cap)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(err, cap, "%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (dir && !S_ISDIR(st.st_mode)) {
		snprintf(err, cap, "%s %s: not a directory", opt, path);
		return -1;
	}
	if (!dir && S_ISDIR(st.st_mode)) {
		snprintf(err, cap, "%s %s: is a directory, not a file", opt, path);
		return -1;
	}
	if (dir) {
		DIR *d = opendir(path);

		if (d == NULL) {
			snprintf(err, cap, "%s %s: cannot open: %s", opt, path, strerror(errno));
			return -1;
		}
		closedir(d);
		return 0;
	}
	FILE *f = fopen(path, "re");

	if (f == NULL) {
		snprintf(err, cap, "%s %s: cannot open: %s", opt, path, strerror(errno));
		return -1;
	}
	fclose(f);
	return 0;
}

bool ldb_tls_is_ip(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int ldb_tls_new(struct ldb_tls **out, const struct ldb_tls_settings *c, char *err, size_t cap)
{
	struct ldb_tls *t = calloc(1, sizeof *t);
	/* ldb_target_check_tls settles the library; unsettled, --tls-ciphers is OpenSSL's */
	int lib = c->library != LDB_TLS_LIB_DEFAULT ? c->library
	          : c->ciphers != NULL              ? LDB_TLS_LIB_OPENSSL
	                                            : LDB_TLS_LIB_PREFERRED;

	*out = NULL;
	if (t == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	t->be = lib == LDB_TLS_LIB_GNUTLS ? &ldb_tls_gnutls : &ldb_tls_openssl;
	t->verify = !c->insecure;
	if (t->be->ctx_new(&t->ctx, c, err, cap) != 0) {
		free(t);
		return -1;
	}
	*out = t;
	return 0;
}

void ldb_tls_free(struct ldb_tls *t)
{
	if (t == NULL)
		return;
	t->be->ctx_free(t->ctx);
	free(t);
}

bool ldb_tls_verifies(const struct ldb_tls *t)
{
	return t != NULL && t->verify;
}

const char *ldb_tls_library_name(const struct ldb_tls *t)
{
	return t != NULL ? t->be->name : "";
}

int ldb_tls_conn_open(struct ldb_tls_conn *tc, const struct ldb_tls *t, int fd, struct ldb_tls_session *slot, char *err,
                      size_t cap)
{
	tc->be = t->be;
	tc->ctx = t->ctx;
	tc->ssl = NULL;
	tc->fd = fd;
	tc->ra_len = tc->ra_off = 0;
	tc->slot = NULL;
	tc->cache = slot;
	tc->verify_status = 0;
	tc->handshake_done = false;
	tc->ticket_saved = false;
	return t->be->conn_open(tc, fd, slot, err, cap);
}

int ldb_tls_handshake(struct ldb_tls_conn *tc, char *err, size_t cap)
{
	if (tc->handshake_done)
		return LDB_TLS_OK;
	return tc->be->handshake(tc, err, cap);
}

bool ldb_tls_resumed(const struct ldb_tls_conn *tc)
{
	return tc->ssl != NULL && tc->handshake_done && tc->be->resumed(tc);
}

int ldb_tls_read(struct ldb_tls_conn *tc, void *buf, size_t cap, size_t *n)
{
	return tc->be->read(tc, buf, cap, n);
}

int ldb_tls_write(struct ldb_tls_conn *tc, const void *buf, size_t len, size_t *n)
{
	*n = 0;
	if (len == 0)
		return LDB_TLS_OK;
	return tc->be->write(tc, buf, len, n);
}

size_t ldb_tls_pending(const struct ldb_tls_conn *tc)
{
	return tc->ssl != NULL ? tc->be->pending(tc) : 0;
}

void ldb_tls_conn_free(struct ldb_tls_conn *tc)
{
	if (tc->ssl != NULL)
		tc->be->conn_free(tc);
	tc->ssl = NULL;
	tc->slot = NULL;
	tc->cache = NULL;
	tc->ra_len = tc->ra_off = 0; /* the next connection's bytes only */
	tc->handshake_done = false;
	tc->ticket_saved = false;
}

void ldb_tls_conn_release(struct ldb_tls_conn *tc)
{
	ldb_tls_conn_free(tc);
	free(tc->ra);
	tc->ra = NULL;
}

void ldb_tls_conn_close(struct ldb_tls_conn *tc)
{
	if (tc->ssl != NULL && tc->handshake_done)
		tc->be->shutdown(tc); /* one attempt: the socket is non-blocking */
	ldb_tls_conn_free(tc);
}

void ldb_tls_session_set(struct ldb_tls_session *slot, void *sess, size_t len, void (*drop)(struct ldb_tls_session *))
{
	if (slot->sess != NULL && slot->drop != NULL)
		slot->drop(slot);
	slot->sess = sess;
	slot->len = len;
	slot->drop = sess != NULL ? drop : NULL;
}

void ldb_tls_session_free(struct ldb_tls_session *slot)
{
	ldb_tls_session_set(slot, NULL, 0, NULL);
	free(slot->chain);
	slot->chain = NULL;
	slot->chain_len = 0;
	slot->chain_n = 0;
}

const char *ldb_tls_version(const struct ldb_tls_conn *tc)
{
	return tc->ssl != NULL ? tc->be->version(tc) : "";
}
