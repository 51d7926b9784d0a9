/* ldbench-floor-probe: the least client CPU an operation can cost in ldclt's
 * closed-loop model, one request in flight per connection.
 *
 * bench/vs-ldclt.sh runs it beside ldbench and ldclt on the bindeach and add
 * workloads, so that each tool's client CPU per operation can be read against
 * a floor measured on the same server in the same run.  It is the plainest
 * client there is: one thread per client, blocking sockets, requests encoded
 * at start-up (bind) or written allocation-free (add) by ldbench's own
 * encoders, no latency timing, no counters beyond one per thread, no output
 * until the end.  Nothing a real load tool needs and that costs CPU is here,
 * and what is left is the kernel's work for each operation (system calls,
 * TCP on loopback) and the sleep and wake-up of waiting for it, which a tool
 * in the same model can approach but not go far below.
 *
 *   ldbench-floor-probe bindeach -p PORT -n CLIENTS -s SECONDS --people BASE --users N
 *       per operation: socket, connect, simple bind as uid=userNNNNN,BASE with
 *       password userNNNNN (NNNNN uniform in 1..N, five digits), read the
 *       result, unbind, close (as ldbench and ldclt with bindeach,bindonly)
 *   ldbench-floor-probe add -p PORT -n CLIENTS -s SECONDS --base BASE --bind-dn DN --first N
 *       one connection per client bound once as DN (password from
 *       LDBENCH_PASSWORD), then adds cn=aNNNNNNNN,BASE (eight digits, numbers
 *       from N up, shared by the clients) with ldbench's `person` entry, as
 *       `-f cn=aXXXXXXXX -e add,person,incr,commoncounter`
 *
 * The server is 127.0.0.1:PORT, nothing else.  Prints one line, "floor-probe:
 * MODE: C clients, S s: N operations, F failed, X us of client CPU per
 * operation", and exits 0, or 1 when an operation failed. */
#include "conf/config.h"
#include "ldif/entry.h"
#include "values/rng.h"
#include "proto/wire.h"

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

#define MAX_CLIENTS 1024
#define BUF_SIZE 4096

enum mode { MODE_BINDEACH, MODE_ADD };

struct probe {
	enum mode mode;
	int port, clients, seconds, users;
	long first;
	const char *people, *base, *bind_dn, *password;
	atomic_long next_number; /* add: the shared counter (commoncounter) */
	atomic_int stop;
};

struct client {
	struct probe *p;
	int index;
	long done, failed;
	uint8_t req[BUF_SIZE], resp[BUF_SIZE];
};

static int die(const char *msg)
{
	fprintf(stderr, "floor-probe: %s\n", msg);
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

static int send_all(int fd, const uint8_t *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads one whole response; @return its result code, or -1. */
static int read_result(int fd, uint8_t *buf)
{
	size_t have = 0;
	struct ldb_resp r;

	for (;;) {
		int got = ldb_wire_parse(buf, have, &r, NULL);
		if (got == 1)
			return r.result;
		if (got < 0 || have == BUF_SIZE)
			return -1;
		ssize_t n = recv(fd, buf + have, BUF_SIZE - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
}

/* A simple bind framed with message id 1 into dst; @return its length or 0. */
static size_t bind_request(uint8_t *dst, const char *dn, const char *pw)
{
	struct ldb_bytes op = { 0 };
	size_t n = 0;

	if (ldb_wire_encode_bind_simple(&op, dn, pw, strlen(pw), NULL) == 0)
		n = ldb_wire_frame(dst, BUF_SIZE, 1, op.data, op.len);
	ldb_bytes_free(&op);
	return n;
}

/* bindeach: every bind request is encoded before the clock starts. */
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
		snprintf(dn, sizeof dn, "uid=user%05d,%s", u, p->people);
		snprintf(pw, sizeof pw, "user%05d", u);
		size_t n = bind_request(tmp, dn, pw);
		if (n == 0 || n > sizeof binds.req[0])
			return -1;
		memcpy(binds.req[u - 1], tmp, n);
		binds.len[u - 1] = n;
	}
	return 0;
}

static void run_bindeach(struct client *c)
{
	static const uint8_t unbind[] = { 0x30, 0x05, 0x02, 0x01, 0x02, 0x42, 0x00 };
	struct probe *p = c->p;
	struct ldb_rng rng;

	ldb_rng_seed(&rng, ldb_rng_fresh_seed(), (uint64_t)c->index);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		int64_t u = ldb_rng_range(&rng, 1, p->users);
		int fd = open_connection(p);
		if (fd < 0 || send_all(fd, binds.req[u - 1], binds.len[u - 1]) != 0 || read_result(fd, c->resp) != 0)
			c->failed++;
		else if (send_all(fd, unbind, sizeof unbind) != 0)
			c->failed++;
		else
			c->done++;
		if (fd >= 0)
			close(fd);
	}
}

static void run_add(struct client *c)
{
	struct probe *p = c->p;
	size_t baselen = strlen(p->base);
	int fd = open_connection(p);
	size_t n = fd < 0 ? 0 : bind_request(c->req, p->bind_dn, p->password);

	if (n == 0 || send_all(fd, c->req, n) != 0 || read_result(fd, c->resp) != 0) {
		c->failed++;
		if (fd >= 0)
			close(fd);
		return;
	}
	for (int32_t id = 2; !atomic_load_explicit(&p->stop, memory_order_relaxed); id = id == INT32_MAX ? 2 : id + 1) {
		long v = atomic_fetch_add_explicit(&p->next_number, 1, memory_order_relaxed);
		char dn[600], val[16];
		struct ldb_put_value attrs[8];
		struct ldb_entry e;
		int vlen = snprintf(val, sizeof val, "a%08ld", v);
		int dnlen = snprintf(dn, sizeof dn, "cn=%s,%.*s", val, (int)baselen, p->base);
		ldb_entry_init(&e, attrs, 8, NULL, 0);
		int na = ldb_entry_class(&e, LDB_ENTRY_PERSON, "cn", 2, val, (size_t)vlen) < 0 ? -1 : e.n;
		n = na < 0 ? 0 : ldb_wire_put_add(c->req, BUF_SIZE, id, dn, (size_t)dnlen, attrs, na);
		if (n == 0 || send_all(fd, c->req, n) != 0) {
			c->failed++;
			break;
		}
		if (read_result(fd, c->resp) != 0)
			c->failed++;
		else
			c->done++;
	}
	close(fd);
}

static void *client_main(void *arg)
{
	struct client *c = arg;

	if (c->p->mode == MODE_BINDEACH)
		run_bindeach(c);
	else
		run_add(c);
	return NULL;
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

static int parse_args(int argc, char **argv, struct probe *p)
{
	long v;

	if (argc < 2)
		return die(
		        "usage: ldbench-floor-probe bindeach|add -p PORT -n CLIENTS -s SECONDS ... (see the source)");
	if (strcmp(argv[1], "bindeach") == 0)
		p->mode = MODE_BINDEACH;
	else if (strcmp(argv[1], "add") == 0)
		p->mode = MODE_ADD;
	else
		return die("the mode must be bindeach or add");
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
		else if (strcmp(o, "--users") == 0 && parse_int(a, 1, 99999, &v) == 0)
			p->users = (int)v;
		else if (strcmp(o, "--first") == 0 && parse_int(a, 0, 90000000, &v) == 0)
			p->first = v;
		else if (strcmp(o, "--people") == 0)
			p->people = a;
		else if (strcmp(o, "--base") == 0)
			p->base = a;
		else if (strcmp(o, "--bind-dn") == 0)
			p->bind_dn = a;
		else
			return die("unknown option or bad number (see the source for the usage)");
	}
	if (p->port == 0 || p->clients == 0 || p->seconds == 0)
		return die("-p, -n and -s are required");
	if (p->mode == MODE_BINDEACH && (p->people == NULL || p->users == 0))
		return die("bindeach needs --people and --users");
	if (p->mode == MODE_ADD) {
		p->password = getenv("LDBENCH_PASSWORD");
		if (p->base == NULL || p->bind_dn == NULL || p->password == NULL)
			return die("add needs --base, --bind-dn and LDBENCH_PASSWORD");
		atomic_init(&p->next_number, p->first);
	}
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
	if (p.mode == MODE_BINDEACH && encode_binds(&p) != 0)
		return die("cannot encode the bind requests");
	for (int i = 0; i < p.clients; i++) {
		cl[i].p = &p;
		cl[i].index = i;
		if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0)
			return die("cannot start a thread");
	}
	struct timespec t = { .tv_sec = p.seconds };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
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
	printf("floor-probe: %s: %d clients, %d s: %ld operations, %ld failed, %.1f us of client CPU per operation\n",
	       argv[1], p.clients, p.seconds, done, failed, done > 0 ? cpu * 1e6 / (double)done : 0.0);
	free(binds.req);
	free(binds.len);
	return failed > 0 ? 1 : 0;
}
