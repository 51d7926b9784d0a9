/* ldapproxy: a loopback LDAP stand-in for the saturation tests
 * (tests/integration/saturation.sh).
 *
 *   ldapproxy --delay-ms N --upstream PORT --port-file FILE
 *       forwards every connection to 127.0.0.1:PORT and holds each chunk of
 *       the server's answers N ms before passing it on: a slow server whose
 *       client stays idle;
 *   ldapproxy --answer [--capacity OPS] --port-file FILE
 *       answers every request itself at once with success and no entries
 *       (bind, search, modify, add, delete, rename, compare, extended; an
 *       unbind closes; an abandon gets nothing): a server faster than any
 *       client, so that the client is the limit.  With --capacity, a server
 *       with one worker instead: each request takes 1/OPS s of it, in the
 *       order they came over all connections, and is answered when its turn
 *       is done: below OPS a request waits 1/OPS s, above it the requests
 *       queue (a saturated server, whatever the client's CPU).
 *
 *   --report-outstanding (with --upstream)
 *       counts, per connection, the requests read from the client (all but
 *       unbind and abandon) less the responses passed back to it (each one
 *       that ends a request: all but search entries, references and
 *       intermediate responses; msgid 0 notices not counted), taken when the
 *       proxy lets the response go (before its bytes are written, so a
 *       client's next request cannot be counted before it); at the
 *       connection's end one line on stderr:
 *         "ldapproxy: connection N: requests R, responses A, max outstanding M"
 *       (N: accept order from 1).  With --delay-ms long enough that no answer
 *       comes back before the client sends what it sends without waiting, M
 *       is the client's pipelining depth.
 *
 * Binds 127.0.0.1 on an ephemeral port and writes it to FILE (via FILE.tmp
 * and a rename) once it listens.  A thread per connection and direction,
 * blocking I/O.  Exits on SIGTERM or SIGINT.
 */
#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int delay_ms, upstream_port;
static bool report_outstanding; /* --report-outstanding */
static atomic_uint conns_accepted;
static double capacity;         /* --capacity: requests a second, 0: none */
static uint64_t worker_free_ns; /* when the one worker is free */
static pthread_mutex_t worker = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* --report-outstanding: one connection's counts, shared by its two pumps. */
struct depth {
	atomic_int outstanding, max;
	atomic_uint requests, responses;
};

/* A stream of LDAP messages scanned for each one's protocolOp tag and msgid,
 * across chunk boundaries: the first bytes of a message kept, the rest
 * skipped. */
struct scan {
	uint8_t h[16];
	size_t hn;
	uint64_t left; /* bytes of the current message still to skip */
	bool broken;   /* not LDAP: no more counting */
};

/* The header in s->h: 1 once the op tag (and the message's length) is
 * known, 0 when more bytes are needed, -1 not an LDAP message. */
static int scan_header(struct scan *s, uint8_t *op, uint32_t *msgid)
{
	const uint8_t *h = s->h;
	if (h[0] != 0x30 || (s->hn >= 2 && (h[1] & 0x80) && (h[1] == 0x80 || (h[1] & 0x7f) > 4)))
		return -1;
	size_t k = s->hn >= 2 && (h[1] & 0x80) ? h[1] & 0x7f : 0, hl = 2 + k;
	if (s->hn < hl + 2)
		return 0;
	size_t len = k ? 0 : h[1], idlen = h[hl + 1];
	for (size_t i = 0; i < k; i++)
		len = len << 8 | h[2 + i];
	if (h[hl] != 0x02 || idlen < 1 || idlen > 4)
		return -1;
	if (s->hn < hl + 2 + idlen + 1)
		return 0;
	*msgid = 0;
	for (size_t i = 0; i < idlen; i++)
		*msgid = *msgid << 8 | h[hl + 2 + i];
	*op = h[hl + 2 + idlen];
	if (hl + len < s->hn)
		return -1;
	s->left = hl + len - s->hn;
	s->hn = 0;
	return 1;
}

/* Scan p[0..n); each message's op tag and msgid go to count(d, op, msgid). */
static void scan_feed(struct scan *s, const uint8_t *p, size_t n, struct depth *d,
                      void (*count)(struct depth *, uint8_t, uint32_t))
{
	while (n > 0 && !s->broken) {
		if (s->left > 0) {
			size_t k = s->left < n ? (size_t)s->left : n;
			s->left -= k;
			p += k;
			n -= k;
			continue;
		}
		s->h[s->hn++] = *p++;
		n--;
		uint8_t op;
		uint32_t id;
		int got = scan_header(s, &op, &id);
		if (got > 0)
			count(d, op, id);
		s->broken = got < 0 || (got == 0 && s->hn == sizeof s->h);
	}
}

static void count_request(struct depth *d, uint8_t op, uint32_t msgid)
{
	(void)msgid;
	if (op == 0x42 || op == 0x50) /* unbind, abandon: no response */
		return;
	atomic_fetch_add(&d->requests, 1);
	int o = atomic_fetch_add(&d->outstanding, 1) + 1, m = atomic_load(&d->max);
	while (o > m && !atomic_compare_exchange_weak(&d->max, &m, o))
		;
}

static void count_response(struct depth *d, uint8_t op, uint32_t msgid)
{
	if (msgid == 0 || op == 0x64 || op == 0x73 || op == 0x79) /* entry, reference, intermediate */
		return;
	atomic_fetch_add(&d->responses, 1);
	atomic_fetch_sub(&d->outstanding, 1);
}

struct pair {
	int from, to;
	bool delay;
	struct depth *depth; /* --report-outstanding, else NULL */
	struct scan scan;
};

/* Copy one direction; with delay, each chunk goes out delay_ms after it came. */
static void *pump(void *arg)
{
	struct pair *p = arg;
	static __thread uint8_t buf[65536];
	for (;;) {
		ssize_t n = recv(p->from, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (p->delay) {
			uint64_t due = now_ns() + (uint64_t)delay_ms * 1000000ULL;
			struct timespec ts = { (time_t)(due / 1000000000ULL), (long)(due % 1000000000ULL) };
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
		if (p->depth != NULL)
			scan_feed(&p->scan, buf, (size_t)n, p->depth, p->delay ? count_response : count_request);
		if (write_all(p->to, buf, (size_t)n) != 0)
			break;
	}
	shutdown(p->to, SHUT_WR);
	shutdown(p->from, SHUT_RD);
	return NULL;
}

static void *forward(void *arg)
{
	int c = (int)(intptr_t)arg;
	int u = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons((uint16_t)upstream_port),
		                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (u < 0 || connect(u, (struct sockaddr *)&a, sizeof a) != 0) {
		close(c);
		if (u >= 0)
			close(u);
		return NULL;
	}
	unsigned no = atomic_fetch_add(&conns_accepted, 1) + 1;
	struct depth d = { 0 };
	struct pair up = { .from = c, .to = u, .depth = report_outstanding ? &d : NULL },
	            down = { .from = u, .to = c, .delay = true, .depth = up.depth };
	pthread_t t;
	if (pthread_create(&t, NULL, pump, &up) != 0) {
		close(c);
		close(u);
		return NULL;
	}
	pump(&down);
	pthread_join(t, NULL);
	close(c);
	close(u);
	if (report_outstanding) {
		char line[160];
		int n = snprintf(line, sizeof line,
		                 "ldapproxy: connection %u: requests %u, responses %u, max outstanding %d\n", no,
		                 atomic_load(&d.requests), atomic_load(&d.responses), atomic_load(&d.max));
		if (write(2, line, (size_t)n) != n)
			return NULL;
	}
	return NULL;
}

/* One whole message at p[0..n): its length, or 0 when more is needed. */
static size_t message_len(const uint8_t *p, size_t n)
{
	if (n < 2)
		return 0;
	size_t len = p[1], hdr = 2;
	if (len & 0x80) {
		int k = len & 0x7f;
		if (k == 0 || k > 4 || n < 2 + (size_t)k)
			return 0;
		len = 0;
		for (int i = 0; i < k; i++)
			len = len << 8 | p[2 + i];
		hdr += (size_t)k;
	}
	return n >= hdr + len ? hdr + len : 0;
}

/* The answer to one request into out: @return its length, 0 for none, -1 to close. */
static int answer(const uint8_t *m, size_t n, uint8_t *out)
{
	size_t hdr = (m[1] & 0x80) ? 2 + (m[1] & 0x7f) : 2;
	if (n < hdr + 3 || m[hdr] != 0x02 || m[hdr + 1] > 4 || n < hdr + 3 + m[hdr + 1])
		return -1;
	size_t idlen = m[hdr + 1];
	uint8_t op = m[hdr + 2 + idlen], rsp;
	switch (op) {
	case 0x42: return -1; /* unbind */
	case 0x50: return 0;  /* abandon */
	case 0x60: rsp = 0x61; break;
	case 0x63: rsp = 0x65; break;
	case 0x4a: rsp = 0x6b; break;
	case 0x77: rsp = 0x78; break;
	default: rsp = (uint8_t)(op + 1); break;
	}
	uint8_t *o = out;
	*o++ = 0x30;
	*o++ = (uint8_t)(2 + idlen + 9);
	*o++ = 0x02;
	*o++ = (uint8_t)idlen;
	memcpy(o, m + hdr + 2, idlen);
	o += idlen;
	static const uint8_t done[] = { 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00 };
	*o++ = rsp;
	memcpy(o, done, sizeof done);
	o += sizeof done;
	return (int)(o - out);
}

/* --capacity: the worker's turn for one more request; when it is done. */
static uint64_t take_turn(void)
{
	uint64_t now = now_ns(), per = (uint64_t)(1e9 / capacity);
	pthread_mutex_lock(&worker);
	uint64_t done = (worker_free_ns > now ? worker_free_ns : now) + per;
	worker_free_ns = done;
	pthread_mutex_unlock(&worker);
	return done;
}

static void sleep_until(uint64_t due)
{
	struct timespec ts = { (time_t)(due / 1000000000ULL), (long)(due % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Answer mode: read what came, answer every whole message in one send. */
static void *serve(void *arg)
{
	int c = (int)(intptr_t)arg;
	size_t cap = 1 << 20, len = 0;
	uint8_t *in = malloc(cap), *out = malloc(cap);
	while (in && out) {
		ssize_t r = recv(c, in + len, cap - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		size_t off = 0, olen = 0, m;
		int a = 0;
		uint64_t due = 0;
		while ((m = message_len(in + off, len - off)) > 0 && olen + 64 < cap) {
			a = answer(in + off, m, out + olen);
			if (a < 0)
				break;
			if (a > 0 && capacity > 0)
				due = take_turn();
			olen += (size_t)a;
			off += m;
		}
		if (due > 0)
			sleep_until(due);
		if ((olen > 0 && write_all(c, out, olen) != 0) || a < 0 || (off == 0 && len == cap))
			break;
		memmove(in, in + off, len - off);
		len -= off;
	}
	free(in);
	free(out);
	close(c);
	return NULL;
}

static int write_port_file(const char *path, int port)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "%d\n", port);
	return fclose(f) == 0 ? rename(tmp, path) : -1;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	bool answer_mode = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc)
			delay_ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--upstream") == 0 && i + 1 < argc)
			upstream_port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--port-file") == 0 && i + 1 < argc)
			port_file = argv[++i];
		else if (strcmp(argv[i], "--answer") == 0)
			answer_mode = true;
		else if (strcmp(argv[i], "--capacity") == 0 && i + 1 < argc)
			capacity = atof(argv[++i]);
		else if (strcmp(argv[i], "--report-outstanding") == 0)
			report_outstanding = true;
	}
	if (port_file == NULL || (!answer_mode && upstream_port <= 0)) {
		fprintf(stderr, "usage: ldapproxy (--delay-ms N --upstream PORT [--report-outstanding] | --answer "
		                "[--capacity OPS]) --port-file FILE\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof a;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1024) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) != 0 || write_port_file(port_file, ntohs(a.sin_port)) != 0) {
		perror("ldapproxy");
		return 1;
	}
	for (;;) {
		int c = accept(l, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		pthread_t t;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, answer_mode ? serve : forward, (void *)(intptr_t)c) != 0)
			close(c);
		pthread_attr_destroy(&at);
	}
	return 0;
}
