/* The one transport (src/run/link.c) over a socket pair: framing whole
 * messages out of large reads, a partial message kept for the next read, the
 * oversized-message rule (a message past in_max: its id and tag handed over,
 * its bytes skipped, the next message whole), the input buffer's growth up to
 * in_max, and put/flush. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"
#include "run/link.h"

struct pair {
	struct ldb_link l;
	int peer;
	int ep;
};

static void pair_open(struct pair *p, size_t cap, size_t max)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	memset(&p->l, 0, sizeof p->l);
	p->l.fd = sv[0];
	p->peer = sv[1];
	p->ep = epoll_create1(0);
	assert_true(p->ep >= 0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	assert_int_equal(epoll_ctl(p->ep, EPOLL_CTL_ADD, sv[0], &ev), 0);
	p->l.epfd = p->ep;
	p->l.in = malloc(cap);
	p->l.in_cap = cap;
	p->l.in_max = max;
	p->l.out = malloc(256);
	p->l.out_cap = 256;
	assert_non_null(p->l.in);
	assert_non_null(p->l.out);
}

static void pair_close(struct pair *p)
{
	ldb_link_release(&p->l);
	free(p->l.in);
	free(p->l.out);
	close(p->peer);
	close(p->ep);
}

/* A SearchResultEntry of id with an attribute value of vlen bytes (long
 * form lengths), into buf: @return its length. */
static size_t entry(uint8_t *buf, int32_t id, size_t vlen)
{
	/* 30 82 LL LL 02 01 id 64 82 LL LL 04 00 30 82 LL LL 30 82 LL LL 04 01 'a' 31 82 LL LL 04 82 LL LL v... */
	/* each constructed element's content length */
	size_t set = 4 + vlen, attr = 3 + 4 + set, seq = 4 + attr, op = 2 + 4 + seq, msg = 3 + 4 + op;
	size_t k = 0;
	buf[k++] = 0x30, buf[k++] = 0x82, buf[k++] = (uint8_t)(msg >> 8), buf[k++] = (uint8_t)msg;
	buf[k++] = 0x02, buf[k++] = 0x01, buf[k++] = (uint8_t)id;
	buf[k++] = 0x64, buf[k++] = 0x82, buf[k++] = (uint8_t)(op >> 8), buf[k++] = (uint8_t)op;
	buf[k++] = 0x04, buf[k++] = 0x00;
	buf[k++] = 0x30, buf[k++] = 0x82, buf[k++] = (uint8_t)(seq >> 8), buf[k++] = (uint8_t)seq;
	buf[k++] = 0x30, buf[k++] = 0x82, buf[k++] = (uint8_t)(attr >> 8), buf[k++] = (uint8_t)attr;
	buf[k++] = 0x04, buf[k++] = 0x01, buf[k++] = 'a';
	buf[k++] = 0x31, buf[k++] = 0x82, buf[k++] = (uint8_t)(set >> 8), buf[k++] = (uint8_t)set;
	buf[k++] = 0x04, buf[k++] = 0x82, buf[k++] = (uint8_t)(vlen >> 8), buf[k++] = (uint8_t)vlen;
	memset(buf + k, 'x', vlen);
	return k + vlen;
}

/* A SearchResultDone of id with result code rc. */
static size_t done(uint8_t *buf, int32_t id, int rc)
{
	static const uint8_t t[] = {
		0x30, 0x0c, 0x02, 0x01, 0x00, 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00
	};
	memcpy(buf, t, sizeof t);
	buf[4] = (uint8_t)id;
	buf[9] = (uint8_t)rc;
	return sizeof t;
}

/* Everything the link can read now, framed: the messages' (id, op, kind)
 * into out.  @return how many. */
static int drain(struct pair *p, struct ldb_resp *out, int *kind, int max)
{
	int n = 0;
	for (int round = 0; round < 100; round++) {
		int more = ldb_link_fill(&p->l, false);
		size_t pos = 0;
		struct ldb_resp r;
		int rc;
		while ((rc = ldb_link_frame(&p->l, &pos, &r)) == LDB_LINK_MSG || rc == LDB_LINK_OVERSIZED) {
			assert_true(n < max);
			out[n] = r;
			kind[n++] = rc;
		}
		assert_int_equal(rc, LDB_LINK_PARTIAL);
		ldb_link_consumed(&p->l, pos);
		if (more == 0)
			break;
	}
	return n;
}

static void frames_whole_and_partial(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p, 1024, 1024);
	uint8_t buf[256];
	size_t a = done(buf, 3, 0), b = done(buf + a, 4, 32);
	/* one and a half messages, then the rest */
	assert_int_equal(write(p.peer, buf, a + 5), (ssize_t)(a + 5));
	struct ldb_resp r[4];
	int kind[4];
	assert_int_equal(drain(&p, r, kind, 4), 1);
	assert_int_equal(r[0].msgid, 3);
	assert_int_equal(r[0].op, 0x65);
	assert_int_equal(p.l.in_len, 5); /* the partial one kept, at the front */
	assert_int_equal(write(p.peer, buf + a + 5, b - 5), (ssize_t)(b - 5));
	assert_int_equal(drain(&p, r, kind, 4), 1);
	assert_int_equal(r[0].msgid, 4);
	assert_int_equal(r[0].result, 32);
	assert_int_equal(p.l.in_len, 0);
	pair_close(&p);
}

static void oversized_is_skipped(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p, 64, 64); /* the replay's rule: nothing grows */
	uint8_t *buf = malloc(8192);
	assert_non_null(buf);
	size_t a = entry(buf, 7, 3000), b = done(buf + a, 7, 0);
	assert_int_equal(write(p.peer, buf, a + b), (ssize_t)(a + b));
	struct ldb_resp r[4];
	int kind[4];
	assert_int_equal(drain(&p, r, kind, 4), 2);
	assert_int_equal(kind[0], LDB_LINK_OVERSIZED);
	assert_int_equal(r[0].msgid, 7);
	assert_int_equal(r[0].op, 0x64);
	assert_int_equal(kind[1], LDB_LINK_MSG);
	assert_int_equal(r[1].msgid, 7);
	assert_int_equal(r[1].op, 0x65);
	assert_int_equal(p.l.in_cap, 64);
	assert_int_equal(p.l.skip, 0);
	free(buf);
	pair_close(&p);
}

static void grows_below_in_max(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p, 64, 1 << 20); /* the load's rule: the buffer doubles */
	uint8_t *buf = malloc(8192);
	assert_non_null(buf);
	size_t a = entry(buf, 9, 3000), b = done(buf + a, 9, 0);
	assert_int_equal(write(p.peer, buf, a + b), (ssize_t)(a + b));
	struct ldb_resp r[4];
	int kind[4];
	assert_int_equal(drain(&p, r, kind, 4), 2);
	assert_int_equal(kind[0], LDB_LINK_MSG);
	assert_int_equal(r[0].len, a);
	assert_int_equal(kind[1], LDB_LINK_MSG);
	assert_true(p.l.in_cap >= a);
	free(buf);
	pair_close(&p);
}

static void put_and_flush(void **state)
{
	(void)state;
	struct pair p;
	pair_open(&p, 64, 64);
	static const uint8_t unbind[] = { 0x42, 0x00 };
	assert_int_equal(ldb_link_put(&p.l, 5, unbind, sizeof unbind), 7);
	bool moved = false;
	assert_int_equal(ldb_link_flush(&p.l, &moved), 0);
	assert_true(moved);
	assert_int_equal(p.l.out_len, 0);
	uint8_t got[16];
	static const uint8_t want[] = { 0x30, 0x05, 0x02, 0x01, 0x05, 0x42, 0x00 };
	assert_int_equal(read(p.peer, got, sizeof got), (ssize_t)sizeof want);
	assert_memory_equal(got, want, sizeof want);
	close(p.peer);
	p.peer = -1;
	/* the peer gone: the next read says so */
	assert_int_equal(ldb_link_fill(&p.l, false), -1);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_whole_and_partial),
		cmocka_unit_test(oversized_is_skipped),
		cmocka_unit_test(grows_below_in_max),
		cmocka_unit_test(put_and_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
