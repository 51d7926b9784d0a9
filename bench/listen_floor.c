/* ldbench-listen-floor: the least client CPU a listener's notification can
 * cost, for bench/listen_counts.sh to set ldbench's listeners against.
 *
 * N RFC 4533 refreshAndPersist searches (the request ldbench's listeners
 * send: proto/syncctl's, one attribute asked for), each on its own
 * connection bound as --bind-dn (password from LDBENCH_PASSWORD), their
 * refreshes read with blocking reads; then one thread, one epoll set
 * (edge-triggered), non-blocking sockets: each wake-up reads what every
 * ready socket holds and frames each whole message (ldb_wire_parse) to
 * count the entries.  Nothing else: no DN or value read, no key, no ring,
 * no clock, no matcher.  Every notification still costs what the kernel
 * does to deliver a message that comes alone (epoll, one read, TCP on
 * loopback), which no client goes below.
 *
 *   ldbench-listen-floor -p PORT -n LISTENERS -s SECONDS --base BASE --bind-dn DN [--attr NAME]
 *
 * The server is 127.0.0.1:PORT.  Prints "ready" once every refresh is over,
 * then after SECONDS one line: "listen-floor: N listeners, S s:
 * M notifications, U us user and Y us system CPU per notification" (the
 * CPU counted from "ready" on: getrusage, user and system), and exits 0, or
 * 1 when a listener's connection ended.  The loop is floor_loop, for
 * callgrind's --toggle-collect. */
#include "proto/controls.h"
#include "proto/syncctl.h"
#include "proto/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_LISTENERS 1000
#define BUF_SIZE 65536

struct lsn {
	int fd;
	size_t have;
	uint8_t buf[BUF_SIZE];
};

static int die(const char *msg)
{
	fprintf(stderr, "listen-floor: %s\n", msg);
	return 2;
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

/* Blocking: the next whole message into r (its bytes consumed from l->buf
 * before the next call).  @return 0, or -1. */
static int next_msg(struct lsn *l, size_t *used, struct ldb_resp *r)
{
	if (*used > 0) {
		memmove(l->buf, l->buf + *used, l->have - *used);
		l->have -= *used;
		*used = 0;
	}
	for (;;) {
		int got = ldb_wire_parse(l->buf, l->have, r, NULL);
		if (got == 1) {
			*used = r->len;
			return 0;
		}
		if (got < 0 || l->have == BUF_SIZE)
			return -1;
		ssize_t n = recv(l->fd, l->buf + l->have, BUF_SIZE - l->have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		l->have += (size_t)n;
	}
}

/* Connect, bind, send the sync search and read its refresh (to refreshDone). */
static int start(struct lsn *l, int port, const uint8_t *bind, size_t blen, const uint8_t *search, size_t slen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct ldb_resp r;
	size_t used = 0;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	l->have = 0;
	if (l->fd < 0 || connect(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || send_all(l->fd, bind, blen) != 0 ||
	    next_msg(l, &used, &r) != 0 || r.result != 0 || send_all(l->fd, search, slen) != 0)
		return -1;
	for (;;) {
		if (next_msg(l, &used, &r) != 0 || r.op == 0x65)
			return -1; /* the search ended */
		if (r.op == 0x79 && ldb_sync_info_done(r.body, r.bodylen) == 1)
			break;
	}
	memmove(l->buf, l->buf + used, l->have - used);
	l->have -= used;
	return fcntl(l->fd, F_SETFL, O_NONBLOCK);
}

/* What one ready socket holds, read and framed: entries counted.  @return
 * the entries, or -1 when the connection ended. */
static long drain(struct lsn *l)
{
	long entries = 0;
	for (;;) {
		size_t room = BUF_SIZE - l->have;
		ssize_t n = recv(l->fd, l->buf + l->have, room, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n < 0)
			return entries;
		l->have += (size_t)n;
		size_t pos = 0;
		struct ldb_resp r;
		while (pos < l->have && ldb_wire_parse(l->buf + pos, l->have - pos, &r, NULL) == 1) {
			pos += r.len;
			entries += r.op == 0x64;
		}
		if (pos > 0 && pos < l->have)
			memmove(l->buf, l->buf + pos, l->have - pos);
		l->have -= pos;
		if (l->have == BUF_SIZE)
			return -1; /* a message larger than the buffer: not what this probe is for */
		if ((size_t)n < room)
			return entries; /* a short read drained the socket (edge-triggered) */
	}
}

static __attribute__((noinline)) long floor_loop(int ep, struct lsn *ls, int seconds, int *lost)
{
	struct epoll_event evs[64];
	struct timespec t0, now;
	long notes = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = epoll_wait(ep, evs, 64, 100);
		for (int i = 0; i < n; i++) {
			long e = drain(&ls[evs[i].data.u32]);
			if (e < 0) {
				*lost = 1;
				return notes;
			}
			notes += e;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= seconds)
			return notes;
	}
}

static size_t request(uint8_t *dst, size_t cap, int32_t id, const struct ldb_bytes *op, const struct ldb_bytes *ctl)
{
	size_t n = ldb_wire_frame(dst, cap, id, op->data, op->len);
	return n > 0 && ctl != NULL ? ldb_ctl_append(dst, n, cap, ctl->data, ctl->len, NULL, 0) : n;
}

static double cpu_us(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e6 + (double)tv->tv_usec;
}

int main(int argc, char **argv)
{
	int port = 0, nl = 0, seconds = 0;
	const char *base = NULL, *dn = NULL, *attr = "description", *pw = getenv("LDBENCH_PASSWORD");
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-p") == 0)
			port = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-n") == 0)
			nl = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "-s") == 0)
			seconds = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--base") == 0)
			base = argv[i + 1];
		else if (strcmp(argv[i], "--bind-dn") == 0)
			dn = argv[i + 1];
		else if (strcmp(argv[i], "--attr") == 0)
			attr = argv[i + 1];
		else
			return die("unknown option (see the source for the usage)");
	}
	if (port <= 0 || port > 65535 || nl <= 0 || nl > MAX_LISTENERS || seconds <= 0 || base == NULL || dn == NULL ||
	    pw == NULL)
		return die("-p, -n (1-1000), -s, --base, --bind-dn and LDBENCH_PASSWORD are required");
	static uint8_t bind[4096], search[4096];
	struct ldb_bytes bop = { 0 }, op = { 0 }, ctl = { 0 };
	char err[LDB_WIRE_ERRLEN];
	const char *attrs[] = { attr, NULL };
	if (ldb_wire_encode_bind_simple(&bop, dn, pw, strlen(pw), NULL) != 0 ||
	    ldb_listen_encode(&op, &ctl, false, base, "(objectClass=*)", attrs, err) != 0)
		return die("cannot encode the requests");
	size_t blen = request(bind, sizeof bind, 1, &bop, NULL), slen = request(search, sizeof search, 2, &op, &ctl);
	struct lsn *ls = calloc((size_t)nl, sizeof *ls);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (blen == 0 || slen == 0 || ls == NULL || ep < 0)
		return die("out of memory");
	for (int k = 0; k < nl; k++) {
		struct epoll_event e = { .events = EPOLLIN | EPOLLET, .data.u32 = (uint32_t)k };
		if (start(&ls[k], port, bind, blen, search, slen) != 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, ls[k].fd, &e) != 0)
			return die("a listener could not start (connect, bind, search or its refresh)");
	}
	printf("ready\n");
	fflush(stdout);
	struct rusage r0, r1;
	int lost = 0;
	getrusage(RUSAGE_SELF, &r0);
	long notes = floor_loop(ep, ls, seconds, &lost);
	getrusage(RUSAGE_SELF, &r1);
	double u = cpu_us(&r1.ru_utime) - cpu_us(&r0.ru_utime), s = cpu_us(&r1.ru_stime) - cpu_us(&r0.ru_stime);
	printf("listen-floor: %d listeners, %d s: %ld notifications, %.2f us user and %.2f us system CPU per "
	       "notification\n",
	       nl, seconds, notes, notes > 0 ? u / (double)notes : 0.0, notes > 0 ? s / (double)notes : 0.0);
	for (int k = 0; k < nl; k++)
		close(ls[k].fd);
	close(ep);
	free(ls);
	ldb_bytes_free(&bop);
	ldb_bytes_free(&op);
	ldb_bytes_free(&ctl);
	return lost ? 1 : 0;
}
