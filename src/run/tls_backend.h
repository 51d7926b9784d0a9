/* What a TLS library does for ldbench's load (run/tls.h's functions are
 * these, through the run's backend): one table per library, tls_openssl.c
 * (OpenSSL 3) and tls_gnutls.c (GnuTLS), and the checks both share.
 *
 * A backend's context is built once per run and read-only afterwards; its
 * connection functions touch only the connection and, with --tls-resume, the
 * worker's session slot, so any number of I/O threads call them at once. */
#ifndef LDBENCH_RUN_TLS_BACKEND_H
#define LDBENCH_RUN_TLS_BACKEND_H

#include "run/tls.h"

struct ldb_tls_backend {
	const char *name; /* "OpenSSL", "GnuTLS" */
	/* the per-run context: credentials, trust store, versions, verification */
	int (*ctx_new)(void **ctx, const struct ldb_tls_settings *c, char *err, size_t cap);
	void (*ctx_free)(void *ctx);
	/* as ldb_tls_conn_open etc. in tls.h; tc->be and tc->ctx are set */
	int (*conn_open)(struct ldb_tls_conn *tc, int fd, struct ldb_tls_session *slot, char *err, size_t cap);
	int (*handshake)(struct ldb_tls_conn *tc, char *err, size_t cap);
	bool (*resumed)(const struct ldb_tls_conn *tc);
	int (*read)(struct ldb_tls_conn *tc, void *buf, size_t cap, size_t *n);
	int (*write)(struct ldb_tls_conn *tc, const void *buf, size_t len, size_t *n);
	size_t (*pending)(const struct ldb_tls_conn *tc);
	void (*shutdown)(struct ldb_tls_conn *tc); /* one close_notify attempt */
	void (*conn_free)(struct ldb_tls_conn *tc);
	const char *(*version)(const struct ldb_tls_conn *tc);
};

extern const struct ldb_tls_backend ldb_tls_openssl;
extern const struct ldb_tls_backend ldb_tls_gnutls;

/* A file or directory we are about to give the library: -1 with one line in
 * err ("--tls-cacert PATH: No such file or directory") when it cannot be read
 * as such.  opt names the option. */
int ldb_tls_check_readable(const char *opt, const char *path, bool dir, char *err, size_t cap);
/* --tls-cert and --tls-key, the checks both libraries share: 0 when neither
 * is given, 1 when both are and can be read, -1 with one line in err
 * otherwise (one without the other, a file that cannot be read). */
int ldb_tls_client_cert_args(const struct ldb_tls_settings *c, char *err, size_t cap);
/* Whether host is an IPv4 or IPv6 address (checked as an address, no SNI). */
bool ldb_tls_is_ip(const char *host);
/* The slot's saved session is now sess (len bytes, freed by drop); the one
 * it held before is freed. */
void ldb_tls_session_set(struct ldb_tls_session *slot, void *sess, size_t len, void (*drop)(struct ldb_tls_session *));

#endif
