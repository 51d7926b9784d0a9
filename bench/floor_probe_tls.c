/* ldbench-floor-probe-tls: the least client CPU an LDAPS bind with a
 * connection of its own can cost, with each TLS library at hand.
 *
 * The TLS twin of bench/floor_probe.c's bindeach: one thread per client,
 * blocking sockets, bind requests encoded before the clock starts, nothing
 * measured but one counter per thread.  A cycle is: socket, connect, a full
 * TLS handshake, a simple bind as uid=userNNNNN,BASE with password userNNNNN
 * (NNNNN uniform in 1..N), its result read, an unbind, close (no
 * close_notify, no session resumption: every handshake is a full one).  What
 * it spends beside the kernel's work is the TLS library's client side of the
 * handshake, so its figure per bind is the floor a client using that library
 * can approach, and the figures of two libraries say which does the same
 * handshake for less on this machine.
 *
 *   ldbench-floor-probe-tls LIB -p PORT -n CLIENTS (-s SECONDS | -c CYCLES)
 *                           --people BASE --users N [--cacert FILE]
 *     LIB      openssl       OpenSSL 3 with its default library context
 *              openssl-lean  OpenSSL 3 with ldbench's lean context (run/tls_lean.h)
 *              gnutls        GnuTLS with its default priorities (as libldap)
 *     -s       stop after SECONDS; -c: each client stops after CYCLES cycles
 *              (a fixed amount of work, for instruction counts: valgrind
 *              --tool=callgrind at two counts, the difference divided)
 *     --cacert verify the server certificate against this CA and the address
 *              127.0.0.1; without it nothing is verified (as ldclt)
 *
 * The server is 127.0.0.1:PORT (ldaps), nothing else.  Prints one line,
 * "floor-probe-tls: LIB: C clients, S s: N operations, F failed, X us of
 * client CPU per operation", and exits 0, or 1 when an operation failed, 2 on
 * bad arguments (before any connection). */
#include "proto/wire.h"
#include "run/tls_lean.h"
#include "values/rng.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#ifdef LDB_PROBE_GNUTLS
#include <gnutls/gnutls.h>
#endif

#define MAX_CLIENTS 1024
#define BUF_SIZE 4096

enum lib { LIB_OPENSSL, LIB_OPENSSL_LEAN, LIB_GNUTLS };

struct probe {
	enum lib lib;
	const char *lib_name, *people, *cacert;
	int port, clients, seconds, users;
	long cycles;
	SSL_CTX *ssl_ctx;
	OSSL_LIB_CTX *lean;
#ifdef LDB_PROBE_GNUTLS
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
#endif
	atomic_int stop;
};

struct client {
	struct probe *p;
	int index;
	long done, failed;
	uint8_t resp[BUF_SIZE];
};

/* One TLS session of either library, behind two calls. */
struct session {
	SSL *ssl;
#ifdef LDB_PROBE_GNUTLS
	gnutls_session_t gs;
#endif
};

static int die(const char *msg)
{
	fprintf(stderr, "floor-probe-tls: %s\n", msg);
	return 2;
}

static int open_connection(const struct probe *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p->port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The handshake on a connected fd; @return 0 or -1. */
static int session_open(const struct probe *p, struct session *s, int fd)
{
	memset(s, 0, sizeof *s);
	if (p->lib != LIB_GNUTLS) {
		s->ssl = SSL_new(p->ssl_ctx);
		return s->ssl != NULL && SSL_set_fd(s->ssl, fd) == 1 && SSL_connect(s->ssl) == 1 ? 0 : -1;
	}
#ifdef LDB_PROBE_GNUTLS
	int r;

	if (gnutls_init(&s->gs, GNUTLS_CLIENT | GNUTLS_NO_TICKETS) != GNUTLS_E_SUCCESS)
		return -1;
	gnutls_priority_set(s->gs, p->prio);
	gnutls_credentials_set(s->gs, GNUTLS_CRD_CERTIFICATE, p->cred);
	if (p->cacert != NULL)
		gnutls_session_set_verify_cert(s->gs, "127.0.0.1", 0);
	gnutls_transport_set_int(s->gs, fd);
	do
		r = gnutls_handshake(s->gs);
	while (r < 0 && gnutls_error_is_fatal(r) == 0);
	return r < 0 ? -1 : 0;
#else
	return -1;
#endif
}

static void session_free(struct session *s)
{
	if (s->ssl != NULL)
		SSL_free(s->ssl);
#ifdef LDB_PROBE_GNUTLS
	if (s->gs != NULL)
		gnutls_deinit(s->gs);
#endif
}

static int session_send(struct session *s, const uint8_t *b, size_t n)
{
	if (s->ssl != NULL) {
		size_t put = 0;
		return SSL_write_ex(s->ssl, b, n, &put) == 1 && put == n ? 0 : -1;
	}
#ifdef LDB_PROBE_GNUTLS
	return gnutls_record_send(s->gs, b, n) == (ssize_t)n ? 0 : -1;
#else
	return -1;
#endif
}

static ssize_t session_recv(struct session *s, uint8_t *b, size_t cap)
{
	if (s->ssl != NULL) {
		size_t got = 0;
		return SSL_read_ex(s->ssl, b, cap, &got) == 1 ? (ssize_t)got : -1;
	}
#ifdef LDB_PROBE_GNUTLS
	ssize_t n;

	do
		n = gnutls_record_recv(s->gs, b, cap);
	while (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED);
	return n;
#else
	return -1;
#endif
}

/* Reads one whole response; @return its result code, or -1. */
static int read_result(struct session *s, uint8_t *buf)
{
	size_t have = 0;
	struct ldb_resp r;

	for (;;) {
		int got = ldb_wire_parse(buf, have, &r, NULL);
		if (got == 1)
			return r.result;
		if (got < 0 || have == BUF_SIZE)
			return -1;
		ssize_t n = session_recv(s, buf + have, BUF_SIZE - have);
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
}

/* Every bind request, encoded before the clock starts. */
struct bind_set {
	uint8_t (*req)[256];
	size_t *len;
};

static struct bind_set binds;

static int encode_binds(const struct probe *p)
{
	binds.req = calloc((size_t)p->users, sizeof *binds.req);
	binds.len = calloc((size_t)p->users, sizeof *binds.len);
	if (binds.req == NULL || binds.len == NULL)
		return -1;
	for (int u = 1; u <= p->users; u++) {
		char dn[512], pw[16];
		uint8_t tmp[BUF_SIZE];
		struct ldb_bytes op = { 0 };
		size_t n = 0;
		snprintf(dn, sizeof dn, "uid=user%05d,%s", u, p->people);
		snprintf(pw, sizeof pw, "user%05d", u);
		if (ldb_wire_encode_bind_simple(&op, dn, pw, strlen(pw), NULL) == 0)
			n = ldb_wire_frame(tmp, BUF_SIZE, 1, op.data, op.len);
		ldb_bytes_free(&op);
		if (n == 0 || n > sizeof binds.req[0])
			return -1;
		memcpy(binds.req[u - 1], tmp, n);
		binds.len[u - 1] = n;
	}
	return 0;
}

static void *client_main(void *arg)
{
	static const uint8_t unbind[] = { 0x30, 0x05, 0x02, 0x01, 0x02, 0x42, 0x00 };
	struct client *c = arg;
	struct probe *p = c->p;
	struct ldb_rng rng;

	ldb_rng_seed(&rng, ldb_rng_fresh_seed(), (uint64_t)c->index);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed) &&
	       (p->cycles == 0 || c->done + c->failed < p->cycles)) {
		int64_t u = ldb_rng_range(&rng, 1, p->users);
		struct session s;
		int fd = open_connection(p);
		if (fd < 0 || session_open(p, &s, fd) != 0)
			c->failed++;
		else if (session_send(&s, binds.req[u - 1], binds.len[u - 1]) != 0 || read_result(&s, c->resp) != 0 ||
		         session_send(&s, unbind, sizeof unbind) != 0)
			c->failed++;
		else
			c->done++;
		if (fd >= 0) {
			session_free(&s);
			close(fd);
		}
	}
	return NULL;
}

/* The library's context, built once: verification only with --cacert. */
static int setup_openssl(struct probe *p)
{
	if (p->lib == LIB_OPENSSL_LEAN && (p->lean = ldb_tls_lean()) == NULL)
		return -1;
	p->ssl_ctx = SSL_CTX_new_ex(p->lean, NULL, TLS_client_method());
	if (p->ssl_ctx == NULL)
		return -1;
	SSL_CTX_set_session_cache_mode(p->ssl_ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(p->ssl_ctx, SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
	if (p->cacert == NULL) {
		SSL_CTX_set_verify(p->ssl_ctx, SSL_VERIFY_NONE, NULL);
		return 0;
	}
	SSL_CTX_set_verify(p->ssl_ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_load_verify_file(p->ssl_ctx, p->cacert) != 1)
		return -1;
	return X509_VERIFY_PARAM_set1_ip_asc(SSL_CTX_get0_param(p->ssl_ctx), "127.0.0.1") == 1 ? 0 : -1;
}

static int setup_gnutls(struct probe *p)
{
#ifdef LDB_PROBE_GNUTLS
	if (gnutls_global_init() != GNUTLS_E_SUCCESS || gnutls_certificate_allocate_credentials(&p->cred) != 0 ||
	    gnutls_priority_init(&p->prio, NULL, NULL) != GNUTLS_E_SUCCESS)
		return -1;
	if (p->cacert != NULL && gnutls_certificate_set_x509_trust_file(p->cred, p->cacert, GNUTLS_X509_FMT_PEM) <= 0)
		return -1;
	return 0;
#else
	(void)p;
	return -1;
#endif
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_lib(const char *name, struct probe *p)
{
	p->lib_name = name;
	if (strcmp(name, "openssl") == 0)
		p->lib = LIB_OPENSSL;
	else if (strcmp(name, "openssl-lean") == 0)
		p->lib = LIB_OPENSSL_LEAN;
#ifdef LDB_PROBE_GNUTLS
	else if (strcmp(name, "gnutls") == 0)
		p->lib = LIB_GNUTLS;
#endif
	else
		return die("the library must be openssl, openssl-lean or gnutls (if built with GnuTLS)");
	return 0;
}

static int parse_args(int argc, char **argv, struct probe *p)
{
	long v;

	if (argc < 2)
		return die(
		        "usage: ldbench-floor-probe-tls openssl|openssl-lean|gnutls -p PORT -n CLIENTS -s SECONDS|-c "
		        "CYCLES --people BASE --users N [--cacert FILE]");
	if (parse_lib(argv[1], p) != 0)
		return 2;
	for (int i = 2; i < argc; i += 2) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
		if (a == NULL)
			return die("an option lacks its value");
		if (strcmp(o, "-p") == 0 && parse_int(a, 1, 65535, &v) == 0)
			p->port = (int)v;
		else if (strcmp(o, "-n") == 0 && parse_int(a, 1, MAX_CLIENTS, &v) == 0)
			p->clients = (int)v;
		else if (strcmp(o, "-s") == 0 && parse_int(a, 1, 3600, &v) == 0)
			p->seconds = (int)v;
		else if (strcmp(o, "-c") == 0 && parse_int(a, 1, 100000000, &v) == 0)
			p->cycles = v;
		else if (strcmp(o, "--users") == 0 && parse_int(a, 1, 99999, &v) == 0)
			p->users = (int)v;
		else if (strcmp(o, "--people") == 0)
			p->people = a;
		else if (strcmp(o, "--cacert") == 0)
			p->cacert = a;
		else
			return die("unknown option or bad number (see the source for the usage)");
	}
	if (p->port == 0 || p->clients == 0 || (p->seconds == 0) == (p->cycles == 0))
		return die("-p, -n and one of -s and -c are required");
	if (p->people == NULL || p->users == 0)
		return die("--people and --users are required");
	if (p->cacert != NULL && access(p->cacert, R_OK) != 0)
		return die("--cacert: the file cannot be read");
	return 0;
}

int main(int argc, char **argv)
{
	static struct probe p;
	static struct client cl[MAX_CLIENTS];
	pthread_t th[MAX_CLIENTS];
	long done = 0, failed = 0;
	int rc = parse_args(argc, argv, &p);

	if (rc != 0)
		return rc;
	if (encode_binds(&p) != 0)
		return die("cannot encode the bind requests");
	if ((p.lib == LIB_GNUTLS ? setup_gnutls(&p) : setup_openssl(&p)) != 0)
		return die("cannot set up the TLS library (or read --cacert)");
	for (int i = 0; i < p.clients; i++) {
		cl[i].p = &p;
		cl[i].index = i;
		if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0)
			return die("cannot start a thread");
	}
	struct timespec t = { .tv_sec = p.seconds };
	while (p.seconds > 0 && nanosleep(&t, &t) != 0 && errno == EINTR)
		;
	if (p.seconds > 0)
		atomic_store(&p.stop, 1);
	for (int i = 0; i < p.clients; i++) {
		pthread_join(th[i], NULL);
		done += cl[i].done;
		failed += cl[i].failed;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu =
	        (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("floor-probe-tls: %s: %d clients, %d s: %ld operations, %ld failed, %.1f us of client CPU per "
	       "operation\n",
	       p.lib_name, p.clients, p.seconds, done, failed, done > 0 ? cpu * 1e6 / (double)done : 0.0);
	return failed > 0 ? 1 : 0;
}
