/* tls: the run's context (bad files fail with one clear line) and the
 * non-blocking client API, driven against an in-process OpenSSL server over a
 * socketpair, once with each library (--tls-library openssl, then gnutls):
 * the same outcomes and the same failure lines.  Certificates are made at test
 * time with the openssl command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "conf/config.h"
#include "run/tls.h"

/* The run's context from a configuration, as run/setup builds it: the
 * target's TLS settings (conf/target.h). */
static int tls_new_cfg(struct ldb_tls **t, const struct ldb_config *c, char *err, size_t cap)
{
	struct ldb_target target;
	ldb_target_of_config(&target, c);
	return ldb_tls_new(t, &target.tls, err, cap);
}

static char dir[64];
static int lib; /* the run's library: LDB_TLS_LIB_OPENSSL or LDB_TLS_LIB_GNUTLS */

static char *path(const char *name)
{
	static char buf[8][256];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

/* A CA, a server certificate for 127.0.0.1 and localhost, a client
 * certificate (CN=user00001), a second unrelated CA, and some bad files. */
static int make_certs(void **state)
{
	(void)state;
	char cmd[4096];

	signal(SIGPIPE, SIG_IGN);
	strcpy(dir, "/tmp/ldbench-tls-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(cmd, sizeof cmd,
	         "(set -e; cd %s\n"
	         "K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'\n"
	         "for ca in ca other; do\n"
	         "  openssl req -x509 $K -keyout $ca.key -out $ca.pem -days 2 -subj \"/CN=ldbench $ca CA\" "
	         "    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign\n"
	         "done\n"
	         "printf 'basicConstraints=CA:FALSE\\nsubjectAltName=IP:127.0.0.1,DNS:localhost\\n"
	         "extendedKeyUsage=serverAuth\\n' >server.ext\n"
	         "printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' >client.ext\n"
	         "openssl req -new $K -keyout server.key -out server.csr -subj /CN=localhost\n"
	         "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
	         "  -extfile server.ext -out server.pem\n"
	         "openssl x509 -req -in server.csr -CA other.pem -CAkey other.key -CAcreateserial -days 2 "
	         "  -extfile server.ext -out other-server.pem\n"
	         "openssl req -new $K -keyout client.key -out client.csr -subj /CN=user00001\n"
	         "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
	         "  -extfile client.ext -out client.pem\n"
	         "echo 'not a certificate' >junk.pem\n"
	         "mkdir cadir && cp ca.pem cadir/ && openssl rehash cadir\n"
	         ") >/dev/null 2>&1\n",
	         dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int remove_certs(void **state)
{
	(void)state;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void set(char **dst, const char *v)
{
	free(*dst);
	*dst = v != NULL ? strdup(v) : NULL;
}

static void base_config(struct ldb_config *c, const char *host, const char *ca)
{
	ldb_config_init(c);
	set(&c->host, host);
	set(&c->tls_cacert, ca);
	c->ldaps = true;
	c->tls_library = lib;
}

/* ---------------------------------------------------------------- context */

/* ldb_tls_new must fail with a line containing `want`. */
static void expect_ctx_error(struct ldb_config *c, const char *want)
{
	struct ldb_tls *t = (struct ldb_tls *)1;
	char err[512] = "";

	assert_int_equal(tls_new_cfg(&t, c, err, sizeof err), -1);
	assert_null(t);
	if (strstr(err, want) == NULL)
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(strchr(err, '\n'));
	ldb_config_free(c);
}

static void test_ctx_bad_files(void **state)
{
	(void)state;
	struct ldb_config c;

	base_config(&c, "127.0.0.1", path("missing.pem"));
	expect_ctx_error(&c, "--tls-cacert");
	base_config(&c, "127.0.0.1", path("missing.pem"));
	expect_ctx_error(&c, "No such file or directory");

	base_config(&c, "127.0.0.1", path("junk.pem"));
	expect_ctx_error(&c, "no PEM certificate could be read");

	base_config(&c, "127.0.0.1", path("cadir"));
	expect_ctx_error(&c, "is a directory");

	base_config(&c, "127.0.0.1", NULL);
	set(&c.tls_cacertdir, path("ca.pem"));
	expect_ctx_error(&c, "--tls-cacertdir");

	base_config(&c, "127.0.0.1", path("ca.pem"));
	set(&c.tls_cert, path("client.pem"));
	set(&c.tls_key, path("nokey.pem"));
	expect_ctx_error(&c, "--tls-key");

	base_config(&c, "127.0.0.1", path("ca.pem"));
	set(&c.tls_cert, path("junk.pem"));
	set(&c.tls_key, path("client.key"));
	expect_ctx_error(&c, "--tls-cert");

	/* a key that is not the certificate's */
	base_config(&c, "127.0.0.1", path("ca.pem"));
	set(&c.tls_cert, path("client.pem"));
	set(&c.tls_key, path("server.key"));
	expect_ctx_error(&c, "does not match the certificate");

	base_config(&c, "127.0.0.1", path("ca.pem"));
	set(&c.tls_cert, path("client.pem"));
	expect_ctx_error(&c, "--tls-cert and --tls-key go together");

	base_config(&c, "127.0.0.1", path("ca.pem"));
	set(&c.tls_ciphers, "NO-SUCH-CIPHER");
	expect_ctx_error(&c, lib == LDB_TLS_LIB_OPENSSL ? "--tls-ciphers 'NO-SUCH-CIPHER'"
	                                                : "--tls-ciphers is an OpenSSL cipher list");
}

static void test_ctx_good(void **state)
{
	(void)state;
	struct ldb_config c;
	struct ldb_tls *t = NULL;
	char err[512] = "";

	base_config(&c, "localhost", path("ca.pem"));
	set(&c.tls_cert, path("client.pem"));
	set(&c.tls_key, path("client.key"));
	c.tls_min = 13;
	if (lib == LDB_TLS_LIB_OPENSSL)
		set(&c.tls_ciphers, "ECDHE-ECDSA-AES128-GCM-SHA256");
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	assert_string_equal(ldb_tls_library_name(t), lib == LDB_TLS_LIB_OPENSSL ? "OpenSSL" : "GnuTLS");
	assert_non_null(t);
	assert_true(ldb_tls_verifies(t));
	ldb_tls_free(t);
	ldb_config_free(&c);

	base_config(&c, "localhost", NULL);
	set(&c.tls_cacertdir, path("cadir"));
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	ldb_tls_free(t);
	ldb_config_free(&c);

	base_config(&c, "localhost", NULL); /* the system's CAs */
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	assert_true(ldb_tls_verifies(t));
	ldb_tls_free(t);
	ldb_config_free(&c);

	base_config(&c, "localhost", NULL);
	c.tls_insecure = true;
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	assert_false(ldb_tls_verifies(t));
	ldb_tls_free(t);
	ldb_config_free(&c);
}

/* -------------------------------------------------------------- handshakes */

struct server {
	SSL_CTX *ctx;
	int max_version; /* 0 or TLS1_2_VERSION */
	bool want_client_cert;
};

/* A server whose certificate is cert (server.pem: the fixture CA's). */
static SSL_CTX *server_ctx_cert(int max_version, bool want_client_cert, const char *cert)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	assert_non_null(ctx);
	assert_int_equal(SSL_CTX_use_certificate_file(ctx, path(cert), SSL_FILETYPE_PEM), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey_file(ctx, path("server.key"), SSL_FILETYPE_PEM), 1);
	SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"ldbtest", 7);
	if (max_version != 0)
		SSL_CTX_set_max_proto_version(ctx, max_version);
	if (want_client_cert) {
		assert_int_equal(SSL_CTX_load_verify_file(ctx, path("ca.pem")), 1);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	}
	return ctx;
}

static SSL_CTX *server_ctx(int max_version, bool want_client_cert)
{
	return server_ctx_cert(max_version, want_client_cert, "server.pem");
}

struct pair {
	int fd[2];
	struct ldb_tls_conn c;
	SSL *s;
	int crc;    /* client's last handshake outcome */
	int srv_ok; /* 1 done, 0 pending, -1 failed */
	char err[512];
};

static void pair_open(struct pair *p, const struct ldb_tls *t, SSL_CTX *sctx, struct ldb_tls_session *slot)
{
	char err[256];

	memset(p, 0, sizeof *p);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p->fd), 0);
	assert_int_equal(ldb_tls_conn_open(&p->c, t, p->fd[0], slot, err, sizeof err), 0);
	p->s = SSL_new(sctx);
	assert_non_null(p->s);
	SSL_set_fd(p->s, p->fd[1]);
	SSL_set_accept_state(p->s);
}

static void pair_close(struct pair *p)
{
	ldb_tls_conn_close(&p->c);
	ldb_tls_conn_release(&p->c); /* its read-ahead buffer (GnuTLS) */
	SSL_free(p->s);
	close(p->fd[0]);
	close(p->fd[1]);
	ERR_clear_error();
}

/* Step both sides until each is done or has failed. */
static void drive(struct pair *p)
{
	p->crc = LDB_TLS_WANT_WRITE;
	for (int i = 0; i < 1000; i++) {
		if (p->crc == LDB_TLS_WANT_READ || p->crc == LDB_TLS_WANT_WRITE)
			p->crc = ldb_tls_handshake(&p->c, p->err, sizeof p->err);
		if (p->srv_ok == 0) {
			int r = SSL_do_handshake(p->s);

			if (r == 1) {
				p->srv_ok = 1;
			} else {
				int e = SSL_get_error(p->s, r);

				if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
					p->srv_ok = -1;
					ERR_clear_error();
				}
			}
		}
		bool cdone = p->crc == LDB_TLS_OK || p->crc == LDB_TLS_ERROR;

		if (cdone && p->srv_ok != 0)
			return;
		if (p->crc == LDB_TLS_ERROR && p->srv_ok == 0 && i > 10)
			return; /* the server waits for a peer that gave up */
	}
	fail_msg("handshake did not finish");
}

/* Client writes, server echoes back; the client reads it (and any TLS 1.3
 * tickets that came first). */
static void exchange(struct pair *p)
{
	const char msg[] = "0\x0c\x02\x01\x01\x60\x07\x02\x01\x03\x04\x00\x80\x00";
	char buf[64];
	size_t n = 0;
	int rc = 0;

	assert_int_equal(ldb_tls_write(&p->c, msg, sizeof msg, &n), LDB_TLS_OK);
	assert_int_equal(n, sizeof msg);
	for (int i = 0; i < 100; i++) {
		rc = SSL_read(p->s, buf, sizeof buf);
		if (rc > 0)
			break;
	}
	assert_int_equal(rc, (int)sizeof msg);
	assert_memory_equal(buf, msg, sizeof msg);
	assert_int_equal(SSL_write(p->s, buf, rc), rc);
	rc = LDB_TLS_WANT_READ;
	for (int i = 0; i < 100 && rc == LDB_TLS_WANT_READ; i++)
		rc = ldb_tls_read(&p->c, buf, 4, &n); /* small reads leave bytes pending */
	assert_int_equal(rc, LDB_TLS_OK);
	assert_int_equal(n, 4);
	assert_int_equal(ldb_tls_pending(&p->c), sizeof msg - 4);
	assert_int_equal(ldb_tls_read(&p->c, buf + 4, sizeof buf - 4, &n), LDB_TLS_OK);
	assert_int_equal(n, sizeof msg - 4);
	assert_memory_equal(buf, msg, sizeof msg);
	assert_int_equal(ldb_tls_read(&p->c, buf, sizeof buf, &n), LDB_TLS_WANT_READ);
	assert_int_equal(n, 0);
}

/* Handshake with a client context built from the config. */
static void handshake_with(struct ldb_config *c, SSL_CTX *sctx, struct pair *p)
{
	struct ldb_tls *t = NULL;
	char err[512] = "";

	if (tls_new_cfg(&t, c, err, sizeof err) != 0)
		fail_msg("ldb_tls_new: %s", err);
	pair_open(p, t, sctx, NULL);
	drive(p);
	ldb_tls_free(t); /* the SSL keeps its own reference to the context */
}

static void test_handshake_right_ca(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(0, false);
	const char *hosts[] = { "127.0.0.1", "localhost" };

	for (int i = 0; i < 2; i++) {
		struct ldb_config c;
		struct pair p;

		base_config(&c, hosts[i], path("ca.pem"));
		handshake_with(&c, sctx, &p);
		if (p.crc != LDB_TLS_OK)
			fail_msg("%s: %s", hosts[i], p.err);
		assert_int_equal(p.srv_ok, 1);
		assert_string_equal(ldb_tls_version(&p.c), "TLSv1.3");
		assert_false(ldb_tls_resumed(&p.c));
		exchange(&p);
		/* the server closes: the client sees it */
		SSL_shutdown(p.s);
		size_t n = 1;
		char b[8];

		assert_int_equal(ldb_tls_read(&p.c, b, sizeof b, &n), LDB_TLS_CLOSED);
		assert_int_equal(n, 0);
		pair_close(&p);
		ldb_config_free(&c);
	}
	SSL_CTX_free(sctx);
}

static void test_handshake_tls12_and_cipher(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(TLS1_2_VERSION, false);
	struct ldb_config c;
	struct pair p;

	base_config(&c, "127.0.0.1", path("ca.pem"));
	if (lib == LDB_TLS_LIB_OPENSSL)
		set(&c.tls_ciphers, "ECDHE-ECDSA-AES256-GCM-SHA384");
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	assert_string_equal(ldb_tls_version(&p.c), "TLSv1.2");
	if (lib == LDB_TLS_LIB_OPENSSL)
		assert_string_equal(SSL_CIPHER_get_name(SSL_get_current_cipher(p.s)), "ECDHE-ECDSA-AES256-GCM-SHA384");
	exchange(&p);
	pair_close(&p);
	ldb_config_free(&c);

	/* --tls-min 1.3 against a server that stops at 1.2 */
	base_config(&c, "127.0.0.1", path("ca.pem"));
	c.tls_min = 13;
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_ERROR);
	assert_non_null(strstr(p.err, "TLS handshake failed: "));
	pair_close(&p);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

static void test_handshake_other_ca(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(0, false);
	struct ldb_config c;
	struct pair p;

	base_config(&c, "127.0.0.1", path("other.pem"));
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_ERROR);
	assert_string_equal(p.err, "certificate verify failed: unable to get local issuer certificate");
	pair_close(&p);
	ldb_config_free(&c);

	/* insecure: the same unknown CA passes */
	base_config(&c, "127.0.0.1", path("other.pem"));
	c.tls_insecure = true;
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	exchange(&p);
	pair_close(&p);
	ldb_config_free(&c);

	/* insecure with no CA at all */
	base_config(&c, "example.org", NULL);
	c.tls_insecure = true;
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	pair_close(&p);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

static void test_handshake_wrong_host(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(0, false);
	struct ldb_config c;
	struct pair p;

	base_config(&c, "ldap.example.org", path("ca.pem"));
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_ERROR);
	assert_string_equal(p.err, "certificate verify failed: hostname mismatch "
	                           "(the certificate is not for ldap.example.org)");
	pair_close(&p);
	ldb_config_free(&c);

	/* an IP address is checked as an IP, not as a name */
	base_config(&c, "127.0.0.2", path("ca.pem"));
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_ERROR);
	assert_string_equal(p.err, "certificate verify failed: IP address mismatch "
	                           "(the certificate is not for 127.0.0.2)");
	pair_close(&p);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

static void resume_twice(int max_version)
{
	SSL_CTX *sctx = server_ctx(max_version, false);
	struct ldb_config c;
	struct ldb_tls *t = NULL;
	struct ldb_tls_session slot = { 0 };
	char err[512] = "";
	struct pair p;

	base_config(&c, "127.0.0.1", path("ca.pem"));
	c.tls_resume = true;
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);

	pair_open(&p, t, sctx, &slot);
	drive(&p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	assert_false(ldb_tls_resumed(&p.c));
	exchange(&p); /* TLS 1.3: the tickets arrive here */
	assert_non_null(slot.sess);
	/* OpenSSL keeps an SSL_SESSION, GnuTLS serialized data (whose memory a
	 * later one may reuse: compared by content) */
	void *first = slot.sess;
	unsigned char first_data[4096];
	size_t first_len = slot.len;

	assert_true(first_len <= sizeof first_data);
	if (first_len > 0)
		memcpy(first_data, slot.sess, first_len);
	pair_close(&p);

	for (int round = 0; round < 2; round++) {
		pair_open(&p, t, sctx, &slot);
		drive(&p);
		assert_int_equal(p.crc, LDB_TLS_OK);
		assert_true(ldb_tls_resumed(&p.c));
		assert_int_equal(SSL_session_reused(p.s), 1);
		exchange(&p);
		pair_close(&p);
	}
	if (max_version == 0 && first_len == 0)
		assert_ptr_not_equal(slot.sess, first); /* fresh tickets replaced the first */
	if (max_version == 0 && first_len > 0)
		assert_true(slot.len != first_len || memcmp(slot.sess, first_data, first_len) != 0);
	ldb_tls_session_free(&slot);
	assert_null(slot.sess);

	/* without a slot: no resumption */
	pair_open(&p, t, sctx, NULL);
	drive(&p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	assert_false(ldb_tls_resumed(&p.c));
	pair_close(&p);

	ldb_tls_free(t);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

static void test_resume_tls13(void **state)
{
	(void)state;
	resume_twice(0);
}

static void test_resume_tls12(void **state)
{
	(void)state;
	resume_twice(TLS1_2_VERSION);
}

/* Not asked for: a slot is ignored and nothing is stored. */
static void test_no_resume_without_option(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(0, false);
	struct ldb_config c;
	struct ldb_tls *t = NULL;
	struct ldb_tls_session slot = { 0 };
	char err[512];
	struct pair p;

	base_config(&c, "127.0.0.1", path("ca.pem"));
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	for (int i = 0; i < 2; i++) {
		pair_open(&p, t, sctx, &slot);
		drive(&p);
		assert_int_equal(p.crc, LDB_TLS_OK);
		exchange(&p);
		assert_false(ldb_tls_resumed(&p.c));
		pair_close(&p);
	}
	assert_null(slot.sess);
	ldb_tls_session_free(&slot); /* GnuTLS kept the verified chain there */
	ldb_tls_free(t);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

/* One handshake of a worker (its slot) with the server; @return the
 * client's outcome, the failure line in err. */
static int worker_handshake(const struct ldb_tls *t, SSL_CTX *sctx, struct ldb_tls_session *slot, char *err, size_t cap)
{
	struct pair p;
	int rc;

	pair_open(&p, t, sctx, slot);
	drive(&p);
	rc = p.crc;
	snprintf(err, cap, "%s", p.err);
	if (rc == LDB_TLS_OK)
		exchange(&p);
	pair_close(&p);
	return rc;
}

/* GnuTLS keeps the chain a worker verified: the same chain again is not
 * checked again until its first expiry; another chain (here: the same name
 * from an unknown CA) is checked, and refused.  OpenSSL keeps none. */
static void test_verified_chain_kept(void **state)
{
	(void)state;
	SSL_CTX *good = server_ctx(0, false), *bad = server_ctx_cert(0, false, "other-server.pem");
	struct ldb_tls_session slot = { 0 };
	struct ldb_config c;
	struct ldb_tls *t = NULL;
	char err[512] = "";

	base_config(&c, "127.0.0.1", path("ca.pem"));
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	assert_int_equal(worker_handshake(t, good, &slot, err, sizeof err), LDB_TLS_OK);
	if (lib == LDB_TLS_LIB_OPENSSL) {
		assert_null(slot.chain);
	} else {
		assert_non_null(slot.chain);
		assert_int_equal(slot.chain_n, 1);
		assert_true(slot.chain_until > (long)time(NULL)); /* -days 2 */
	}
	assert_int_equal(worker_handshake(t, good, &slot, err, sizeof err), LDB_TLS_OK);
	assert_int_equal(worker_handshake(t, bad, &slot, err, sizeof err), LDB_TLS_ERROR);
	assert_string_equal(err, "certificate verify failed: unable to get local issuer certificate");
	/* past the kept chain's expiry it is checked again (and kept anew) */
	slot.chain_until = 0;
	assert_int_equal(worker_handshake(t, good, &slot, err, sizeof err), LDB_TLS_OK);
	if (lib == LDB_TLS_LIB_GNUTLS)
		assert_true(slot.chain_until > (long)time(NULL));
	ldb_tls_session_free(&slot);
	assert_null(slot.chain);

	/* --tls-insecure: nothing is checked, nothing kept; the other CA passes */
	ldb_tls_free(t);
	c.tls_insecure = true;
	assert_int_equal(tls_new_cfg(&t, &c, err, sizeof err), 0);
	assert_int_equal(worker_handshake(t, bad, &slot, err, sizeof err), LDB_TLS_OK);
	assert_null(slot.chain);
	ldb_tls_free(t);
	ldb_config_free(&c);
	SSL_CTX_free(good);
	SSL_CTX_free(bad);
}

static void test_client_certificate(void **state)
{
	(void)state;
	SSL_CTX *sctx = server_ctx(0, true);
	struct ldb_config c;
	struct pair p;

	base_config(&c, "localhost", path("ca.pem"));
	set(&c.tls_cert, path("client.pem"));
	set(&c.tls_key, path("client.key"));
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.crc, LDB_TLS_OK);
	exchange(&p);
	assert_int_equal(p.srv_ok, 1);
	X509 *peer = SSL_get1_peer_certificate(p.s);

	assert_non_null(peer);
	char cn[64] = "";

	X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
	assert_string_equal(cn, "user00001");
	X509_free(peer);
	pair_close(&p);
	ldb_config_free(&c);

	/* without one, the server refuses (TLS 1.3: after the client is done) */
	base_config(&c, "localhost", path("ca.pem"));
	handshake_with(&c, sctx, &p);
	assert_int_equal(p.srv_ok, -1);
	pair_close(&p);
	ldb_config_free(&c);
	SSL_CTX_free(sctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctx_bad_files),
		cmocka_unit_test(test_ctx_good),
		cmocka_unit_test(test_handshake_right_ca),
		cmocka_unit_test(test_handshake_tls12_and_cipher),
		cmocka_unit_test(test_handshake_other_ca),
		cmocka_unit_test(test_handshake_wrong_host),
		cmocka_unit_test(test_resume_tls13),
		cmocka_unit_test(test_resume_tls12),
		cmocka_unit_test(test_no_resume_without_option),
		cmocka_unit_test(test_client_certificate),
		cmocka_unit_test(test_verified_chain_kept),
	};

	int failed;

	lib = LDB_TLS_LIB_OPENSSL;
	failed = cmocka_run_group_tests_name("tls with OpenSSL", tests, make_certs, remove_certs);
	lib = LDB_TLS_LIB_GNUTLS;
	failed += cmocka_run_group_tests_name("tls with GnuTLS", tests, make_certs, remove_certs);
	return failed;
}
