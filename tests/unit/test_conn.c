/* The client state machine (src/run/conn.c) against a scripted peer: the
 * real I/O thread runs one client whose connection goes to a listening
 * socket on 127.0.0.1 that this test serves by hand, byte by byte where it
 * matters.  Each case asserts the client's counters exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "run/clock.h"
#include "run/histogram.h"
#include "run/stats.h"
#include "run/run.h"

#define WAIT_MS 10000 /* a peer step that takes longer has failed */

/* ------------------------------------------------------------ the client */

struct client {
	struct ldb_config c;
	struct ldb_run run;
	struct ldb_thread_stats *st;
	struct ldb_client w;
	struct ldb_iothread r;
	char *argv[32];
	int argc;
};

static int listen_local(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* One client (-n 1) with the given options after the server's; its I/O
 * thread starts at once. */
static void client_start(struct client *k, int port, const char *const *opts)
{
	char portstr[16], err[256];
	const char *base[] = { "ldbench",
		               "-h",
		               "127.0.0.1",
		               "-p",
		               portstr,
		               "-b",
		               "dc=example,dc=com",
		               "-f",
		               "(uid=userXXXXX)",
		               "-e",
		               "esearch,random",
		               "-r1",
		               "-R9",
		               "-n",
		               "1" };
	memset(k, 0, sizeof *k);
	snprintf(portstr, sizeof portstr, "%d", port);
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
		k->argv[k->argc++] = strdup(base[i]);
	for (int i = 0; opts[i] != NULL; i++)
		k->argv[k->argc++] = strdup(opts[i]);
	ldb_config_init(&k->c);
	enum ldb_cli_result parsed = ldb_cli_parse(&k->c, k->argc, k->argv, err, sizeof err);
	if (parsed != LDB_CLI_RUN)
		fail_msg("%s", err);
	assert_int_equal(ldb_run_init(&k->run, &k->c, err, sizeof err), 0);
	k->run.measuring = 1; /* no warm-up */
	assert_int_equal(posix_memalign((void **)&k->st, 64, sizeof *k->st), 0);
	memset(k->st, 0, sizeof *k->st);
	assert_int_equal(ldb_client_init(&k->w, &k->run, 0, k->st), 0);
	k->r.w = &k->w;
	k->r.nw = 1;
	assert_int_equal(ldb_hist_init(&k->r.lat.op[LDB_OP_SEARCH]), 0);
	assert_int_equal(ldb_hist_init(&k->r.lat.uop[LDB_OP_SEARCH]), 0); /* --rate's */
	k->w.lat = &k->r.lat;
	assert_int_equal(pthread_create(&k->r.thread, NULL, ldb_iothread_main, &k->r), 0);
}

/* Wait for the client to end by itself (-T). */
static void client_join(struct client *k)
{
	assert_int_equal(pthread_join(k->r.thread, NULL), 0);
	assert_int_equal(k->st->dead, 1);
	assert_int_equal(k->st->status, 0);
	assert_string_equal(k->r.error, "");
}

static void client_free(struct client *k)
{
	ldb_client_free(&k->w);
	ldb_hist_free(&k->r.lat.op[LDB_OP_SEARCH]);
	ldb_hist_free(&k->r.lat.uop[LDB_OP_SEARCH]);
	ldb_run_free(&k->run);
	ldb_config_free(&k->c);
	free(k->st);
	for (int i = 0; i < k->argc; i++)
		free(k->argv[i]);
}

/* How many searches ended with client code rc. */
static uint64_t code(const struct client *k, int rc)
{
	return k->st->op[LDB_OP_SEARCH].codes[ldb_code_slot(rc)];
}

/* ------------------------------------------------------------ the peer */

struct peer {
	int fd;
	uint8_t buf[65536];
	size_t len;
};

static void wait_fd(int fd, short what)
{
	struct pollfd p = { .fd = fd, .events = what };
	assert_int_equal(poll(&p, 1, WAIT_MS), 1);
}

static void peer_accept(struct peer *p, int lfd)
{
	int one = 1;
	wait_fd(lfd, POLLIN);
	p->fd = accept(lfd, NULL, NULL);
	assert_true(p->fd >= 0);
	setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	p->len = 0;
}

/* The size of the LDAPMessage at the front of the buffer, 0 if not all in. */
static size_t message_size(const struct peer *p)
{
	if (p->len < 2)
		return 0;
	assert_int_equal(p->buf[0], 0x30);
	size_t hdr = 2, body = p->buf[1];
	if (body & 0x80) {
		size_t nb = body & 0x7f;
		if (p->len < 2 + nb)
			return 0;
		body = 0;
		for (size_t i = 0; i < nb; i++)
			body = body << 8 | p->buf[2 + i];
		hdr += nb;
	}
	return p->len >= hdr + body ? hdr + body : 0;
}

/* The next request: its protocolOp tag, its message id in *msgid; 0 when
 * the client closed the connection instead. */
static int peer_request(struct peer *p, int32_t *msgid)
{
	size_t n;
	while ((n = message_size(p)) == 0) {
		wait_fd(p->fd, POLLIN);
		ssize_t got = recv(p->fd, p->buf + p->len, sizeof p->buf - p->len, 0);
		assert_true(got >= 0);
		if (got == 0)
			return 0;
		p->len += (size_t)got;
	}
	size_t at = p->buf[1] & 0x80 ? 2 + (p->buf[1] & 0x7f) : 2;
	assert_int_equal(p->buf[at], 0x02);
	int32_t id = 0;
	for (size_t i = 0; i < p->buf[at + 1]; i++)
		id = id << 8 | p->buf[at + 2 + i];
	int op = p->buf[at + 2 + p->buf[at + 1]];
	memmove(p->buf, p->buf + n, p->len - n);
	p->len -= n;
	*msgid = id;
	return op;
}

/* The client's goodbye: an unbind (0x42), then the end of the stream. */
static void peer_expect_goodbye(struct peer *p)
{
	int32_t id;
	assert_int_equal(peer_request(p, &id), 0x42);
	assert_int_equal(peer_request(p, &id), 0);
	close(p->fd);
}

static void peer_send(struct peer *p, const uint8_t *b, size_t len)
{
	while (len > 0) {
		ssize_t n = send(p->fd, b, len, MSG_NOSIGNAL);
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

/* BER: tag, minimal length, contents (contents may already sit at dst+6:
 * memmove copes). */
static size_t tlv(uint8_t *dst, uint8_t tag, const uint8_t *v, size_t len)
{
	size_t h = 0;
	dst[h++] = tag;
	if (len < 128)
		dst[h++] = (uint8_t)len;
	else if (len < 256) {
		dst[h++] = 0x81;
		dst[h++] = (uint8_t)len;
	} else if (len < 65536) {
		dst[h++] = 0x82;
		dst[h++] = (uint8_t)(len >> 8);
		dst[h++] = (uint8_t)len;
	} else {
		dst[h++] = 0x83;
		dst[h++] = (uint8_t)(len >> 16);
		dst[h++] = (uint8_t)(len >> 8);
		dst[h++] = (uint8_t)len;
	}
	memmove(dst + h, v, len);
	return h + len;
}

/* LDAPMessage { id, op } with op's contents given. */
static size_t message(uint8_t *dst, int32_t id, uint8_t op, const uint8_t *v, size_t len)
{
	uint8_t *inner = malloc(len + 16);
	size_t n = 0;
	uint8_t idb[4] = { (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8), (uint8_t)id };
	int skip = 0;
	while (skip < 3 && idb[skip] == 0 && !(idb[skip + 1] & 0x80))
		skip++;
	n += tlv(inner + n, 0x02, idb + skip, 4 - (size_t)skip);
	n += tlv(inner + n, op, v, len);
	size_t out = tlv(dst, 0x30, inner, n);
	free(inner);
	return out;
}

/* searchResultDone with result code rc. */
static size_t done_msg(uint8_t *dst, int32_t id, int rc)
{
	const uint8_t v[] = { 0x0a, 0x01, (uint8_t)rc, 0x04, 0x00, 0x04, 0x00 };
	return message(dst, id, 0x65, v, sizeof v);
}

/* searchResultEntry "cn=x" with one value of vlen bytes. */
static size_t entry_msg(uint8_t *dst, int32_t id, size_t vlen)
{
	uint8_t *v = malloc(vlen + 64), *val = malloc(vlen);
	memset(val, 'v', vlen);
	size_t n = tlv(v, 0x04, val, vlen); /* the value */
	n = tlv(v, 0x31, v, n);             /* its set */
	uint8_t type[] = { 0x04, 0x02, 'c', 'n' };
	memmove(v + sizeof type, v, n);
	memcpy(v, type, sizeof type);
	n = tlv(v, 0x30, v, n + sizeof type); /* the attribute */
	n = tlv(v, 0x30, v, n);               /* the list */
	uint8_t dn[] = { 0x04, 0x04, 'c', 'n', '=', 'x' };
	memmove(v + sizeof dn, v, n);
	memcpy(v, dn, sizeof dn);
	size_t out = message(dst, id, 0x64, v, n + sizeof dn);
	free(v);
	free(val);
	return out;
}

/* ------------------------------------------------------------ the cases */

static void expect_search(const struct client *k, uint64_t attempted, uint64_t completed, uint64_t succeeded,
                          uint64_t entries)
{
	const struct ldb_opstats *o = &k->st->op[LDB_OP_SEARCH];
	assert_int_equal(o->attempted, attempted);
	assert_int_equal(o->completed, completed);
	assert_int_equal(o->succeeded, succeeded);
	assert_int_equal(o->entries, entries);
	assert_int_equal(o->counted, succeeded);
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		assert_int_equal(o->codes[i], 0); /* no error of any kind */
}

/* Each response one byte per write: every read holds a piece of one. */
static void test_split_byte_by_byte(void **state)
{
	struct client k;
	struct peer p;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "-T", "3", NULL };
	uint8_t b[256];

	(void)state;
	client_start(&k, port, opts);
	peer_accept(&p, lfd);
	for (int op = 0; op < 3; op++) {
		int32_t id;
		assert_int_equal(peer_request(&p, &id), 0x63);
		size_t n = entry_msg(b, id, 40);
		n += done_msg(b + n, id, 0);
		for (size_t i = 0; i < n; i++) {
			peer_send(&p, b + i, 1);
			usleep(200);
		}
	}
	peer_expect_goodbye(&p);
	client_join(&k);
	expect_search(&k, 3, 3, 3, 3);
	assert_int_equal(k.st->connects, 1);
	assert_int_equal(k.st->reconnects, 0);
	client_free(&k);
	close(lfd);
}

/* -a 4: four requests in flight, answered in one write in reverse order,
 * with an answer to a message id never sent among them (ignored). */
static void test_out_of_order_in_one_read(void **state)
{
	struct client k;
	struct peer p;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "-a", "4", "-T", "8", NULL };
	uint8_t b[1024];

	(void)state;
	client_start(&k, port, opts);
	peer_accept(&p, lfd);
	for (int round = 0; round < 2; round++) {
		int32_t id[4];
		for (int i = 0; i < 4; i++)
			assert_int_equal(peer_request(&p, &id[i]), 0x63);
		size_t n = done_msg(b, 0x7ffffff0, 0); /* nobody's */
		for (int i = 3; i >= 0; i--) {
			n += entry_msg(b + n, id[i], 10);
			n += done_msg(b + n, id[i], 0);
		}
		peer_send(&p, b, n);
	}
	peer_expect_goodbye(&p);
	client_join(&k);
	expect_search(&k, 8, 8, 8, 8);
	client_free(&k);
	close(lfd);
}

/* The peer closes halfway through a response: the search fails as server
 * down (-1), the connection comes back after its back-off and goes on. */
static void test_close_mid_response(void **state)
{
	struct client k;
	struct peer p;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "-T", "2", NULL };
	uint8_t b[256];
	int32_t id;

	(void)state;
	client_start(&k, port, opts);
	peer_accept(&p, lfd);
	assert_int_equal(peer_request(&p, &id), 0x63);
	peer_send(&p, b, done_msg(b, id, 0));
	assert_int_equal(peer_request(&p, &id), 0x63);
	size_t n = done_msg(b, id, 0);
	peer_send(&p, b, n / 2);
	usleep(20000);
	close(p.fd);
	peer_accept(&p, lfd); /* the reconnect */
	assert_int_equal(peer_request(&p, &id), 0x63);
	peer_send(&p, b, done_msg(b, id, 0));
	peer_expect_goodbye(&p);
	client_join(&k);
	const struct ldb_opstats *o = &k.st->op[LDB_OP_SEARCH];
	assert_int_equal(o->attempted, 3);
	assert_int_equal(o->completed, 2);
	assert_int_equal(o->succeeded, 2);
	assert_int_equal(o->counted, 2);
	assert_int_equal(code(&k, LDB_RC_SERVER_DOWN), 1);
	assert_int_equal(o->fails[LDB_FAIL_SERVER_DOWN], 1);
	assert_int_equal(o->fails[LDB_FAIL_TIMEOUT], 0);
	assert_int_equal(k.st->connects, 2);
	assert_int_equal(k.st->reconnects, 1);
	client_free(&k);
	close(lfd);
}

/* An entry five times the input buffer's first size, sent in pieces: the
 * buffer grows to hold it, and the result after it is read too. */
static void test_response_larger_than_buffer(void **state)
{
	struct client k;
	struct peer p;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "-T", "2", NULL };
	size_t big = 80 * 1024;
	uint8_t *b = malloc(big + 256);
	int32_t id;

	(void)state;
	client_start(&k, port, opts);
	peer_accept(&p, lfd);
	for (int op = 0; op < 2; op++) {
		assert_int_equal(peer_request(&p, &id), 0x63);
		size_t n = entry_msg(b, id, big);
		n += done_msg(b + n, id, 0);
		for (size_t at = 0; at < n; at += 7000) {
			peer_send(&p, b + at, n - at < 7000 ? n - at : 7000);
			usleep(1000);
		}
	}
	peer_expect_goodbye(&p);
	client_join(&k);
	expect_search(&k, 2, 2, 2, 2);
	free(b);
	client_free(&k);
	close(lfd);
}

/* A request never answered times out (-t 1) from the deadline heap: -5, a
 * timeout failure, and the connection comes back and goes on. */
static void test_timeout_then_reconnect(void **state)
{
	struct client k;
	struct peer p, silent;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "-t", "1", "-T", "1", NULL };
	uint8_t b[256];
	int32_t id;

	(void)state;
	client_start(&k, port, opts);
	peer_accept(&silent, lfd);
	assert_int_equal(peer_request(&silent, &id), 0x63);
	peer_accept(&p, lfd);                            /* after 1 s and the back-off */
	assert_int_equal(peer_request(&silent, &id), 0); /* the first one was closed */
	close(silent.fd);
	assert_int_equal(peer_request(&p, &id), 0x63);
	peer_send(&p, b, done_msg(b, id, 0));
	peer_expect_goodbye(&p);
	client_join(&k);
	const struct ldb_opstats *o = &k.st->op[LDB_OP_SEARCH];
	assert_int_equal(o->attempted, 2);
	assert_int_equal(o->completed, 1);
	assert_int_equal(o->succeeded, 1);
	assert_int_equal(code(&k, LDB_RC_TIMEOUT), 1);
	assert_int_equal(o->fails[LDB_FAIL_TIMEOUT], 1);
	/* the first connection never had an answer: the second is no reconnect */
	assert_int_equal(k.st->connects, 2);
	assert_int_equal(k.st->reconnects, 0);
	client_free(&k);
	close(lfd);
}

/* --rate: the client's pacing deadline, not a scan, starts each operation. */
static void test_rate_paces_from_the_heap(void **state)
{
	struct client k;
	struct peer p;
	int port, lfd = listen_local(&port);
	const char *opts[] = { "--rate", "50", "-T", "5", NULL };
	uint8_t b[256];
	int32_t id;

	(void)state;
	uint64_t start = ldb_now_ns();
	client_start(&k, port, opts);
	peer_accept(&p, lfd);
	for (int op = 0; op < 5; op++) {
		assert_int_equal(peer_request(&p, &id), 0x63);
		peer_send(&p, b, done_msg(b, id, 0));
	}
	/* intended starts 20 ms apart from the client's start: the fifth is not
	 * sent before 80 ms, however fast the answers (a lower bound only) */
	assert_true(ldb_now_ns() - start >= 80000000ULL);
	peer_expect_goodbye(&p);
	client_join(&k);
	expect_search(&k, 5, 5, 5, 0);
	client_free(&k);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_byte_by_byte),     cmocka_unit_test(test_out_of_order_in_one_read),
		cmocka_unit_test(test_close_mid_response),     cmocka_unit_test(test_response_larger_than_buffer),
		cmocka_unit_test(test_timeout_then_reconnect), cmocka_unit_test(test_rate_paces_from_the_heap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
