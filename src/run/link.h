/* The one place where a connection of ldbench is opened, written to and read
 * from: struct ldb_link is a socket, its TLS session (run/tls.h) and its
 * input and output buffers.  Every connection of the engine (run/conn.h
 * embeds one), the load's and the replay's alike, goes through it; what a
 * connection sends and what it does with an answer is its request source's
 * (run/source.h).
 *
 *  - ldb_link_connect: a non-blocking TCP connect to a target's resolved
 *    address, registered edge-triggered in the caller's epoll set;
 *  - ldb_link_tls_begin / ldb_link_handshake: TLS from the first byte
 *    (ldaps) or after StartTLS (whose request, LDB_STARTTLS_OID, is encoded
 *    by proto/wire like any extended request), through the run's backend;
 *  - ldb_link_put / ldb_link_flush / ldb_link_send: framed requests into the
 *    output buffer, written in one send per batch;
 *  - ldb_link_fill / ldb_link_frame / ldb_link_consumed: large reads, whole
 *    LDAPMessages framed out of the input buffer.  A message longer than the
 *    link's in_max (the oversized-message rule) is not kept: its message id
 *    and protocolOp tag are handed over, its bytes are skipped as they come.
 *    Below in_max a full buffer that holds no whole message doubles (and stays
 *    grown).
 *
 * Nothing here allocates on the success path but for an input buffer that
 * grows for one unusually large message; nothing locks or prints. */
#ifndef LDBENCH_RUN_LINK_H
#define LDBENCH_RUN_LINK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "proto/wire.h"
#include "run/tls.h"

struct ldb_link {
	int fd;           /* -1 when closed */
	int sock_err;     /* the errno of its last failed send or receive */
	bool tls_on;      /* I/O goes through tc */
	bool rd_wants_wr; /* a TLS read waits for the socket to be writable */
	bool wr_wants_rd; /* a TLS write waits for it to be readable */
	bool out_armed;   /* EPOLLOUT is among the socket's events */
	int epfd;         /* the epoll set it is in */
	epoll_data_t tag; /* its events' data */
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	uint8_t *in;
	size_t in_len, in_cap;
	size_t in_max; /* the oversized-message rule: longer messages are skipped */
	uint64_t skip; /* bytes of an oversized message still to drop */
	struct ldb_tls_conn tc;
};

/* Off the hot path (link.c): TCP_NODELAY on a new socket; a connect step
 * that failed: fd closed, *what = step, @return the step's errno. */
void ldb_link_nodelay(int fd);
int ldb_link_connect_fail(int fd, const char *step, const char **what);

/** Open a non-blocking TCP connection to addr (from src when not NULL:
 *  --source-address) and put it in epfd with
 *  `events` (edge-triggered; EPOLLOUT among them: out_armed) and `tag`.
 *  nodelay: TCP_NODELAY.  @return 0 (the connect may still be under way),
 *  or an errno with *what naming the step that failed ("socket", "bind", "connect",
 *  "epoll"); the link stays closed.  Inlined: bindeach connects per
 *  operation. */
static inline int ldb_link_connect(struct ldb_link *l, const struct sockaddr_storage *addr, socklen_t addrlen,
                                   const struct sockaddr_storage *src, socklen_t srclen, bool nodelay, int epfd,
                                   uint32_t events, epoll_data_t tag, const char **what)
{
	l->sock_err = 0;
	l->skip = 0;
	l->in_len = l->out_len = l->out_off = 0;
	l->rd_wants_wr = l->wr_wants_rd = false;
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ldb_link_connect_fail(fd, "socket", what);
	if (nodelay)
		ldb_link_nodelay(fd);
	if (src != NULL && bind(fd, (const struct sockaddr *)src, srclen) != 0)
		return ldb_link_connect_fail(fd, "bind", what);
	if (connect(fd, (const struct sockaddr *)addr, addrlen) != 0 && errno != EINPROGRESS)
		return ldb_link_connect_fail(fd, "connect", what);
	/* edge-triggered, registered once; EPOLLRDHUP: the peer's close may
	 * come in the same edge as its last bytes */
	struct epoll_event ev = { .events = events | EPOLLET, .data = tag };
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return ldb_link_connect_fail(fd, "epoll", what);
	l->fd = fd;
	l->epfd = epfd;
	l->tag = tag;
	l->out_armed = (events & EPOLLOUT) != 0;
	return 0;
}

/** Ask for the EPOLLOUT edge: only once a write could not go through. */
static inline void ldb_link_arm_out(struct ldb_link *l)
{
	if (l->out_armed || l->fd < 0)
		return;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data = l->tag };
	epoll_ctl(l->epfd, EPOLL_CTL_MOD, l->fd, &ev);
	l->out_armed = true;
}

/** TLS on the connected socket (tls: the run's context; slot: the thread's
 *  session slot).  @return 0, or -1 with one line in why. */
int ldb_link_tls_begin(struct ldb_link *l, const struct ldb_tls *tls, struct ldb_tls_session *slot, char *why,
                       size_t cap);
/** One handshake step: enum ldb_tls_rc (LDB_TLS_WANT_WRITE arms EPOLLOUT;
 *  LDB_TLS_ERROR with one line in why). */
int ldb_link_handshake(struct ldb_link *l, char *why, size_t cap);

/* Off the hot path (link.c): TLS's send and receive, and a plain socket's
 * errors (EINTR retried, EAGAIN 0, else -1 with sock_err). */
ssize_t ldb_link_tls_send(struct ldb_link *l, const uint8_t *buf, size_t len);
ssize_t ldb_link_tls_recv(struct ldb_link *l, uint8_t *buf, size_t cap);
ssize_t ldb_link_send_err(struct ldb_link *l, const uint8_t *buf, size_t len);
ssize_t ldb_link_recv_err(struct ldb_link *l, uint8_t *buf, size_t cap);

/** Plain or TLS send: >0 bytes, 0 try later, -1 broken.  Inlined: the plain
 *  send's success is the hot path. */
static inline ssize_t ldb_link_send(struct ldb_link *l, const uint8_t *buf, size_t len)
{
	if (l->tls_on)
		return ldb_link_tls_send(l, buf, len);
	ssize_t n = send(l->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	return n > 0 ? n : n == 0 ? -1 : ldb_link_send_err(l, buf, len);
}

/** Plain or TLS receive: >0 bytes, 0 nothing now, -1 closed or broken.
 *  Inlined as the send. */
static inline ssize_t ldb_link_recv(struct ldb_link *l, uint8_t *buf, size_t cap)
{
	if (l->tls_on)
		return ldb_link_tls_recv(l, buf, cap);
	ssize_t n = recv(l->fd, buf, cap, MSG_DONTWAIT);
	return n > 0 ? n : n == 0 ? -1 : ldb_link_recv_err(l, buf, cap);
}

/** One LDAPMessage (id, protocolOp op[0..oplen)) appended to the output
 *  buffer.  @return its bytes, 0 when there is no room. */
static inline size_t ldb_link_put(struct ldb_link *l, int32_t msgid, const uint8_t *op, size_t oplen)
{
	size_t n = ldb_wire_frame(l->out + l->out_len, l->out_cap - l->out_len, msgid, op, oplen);
	l->out_len += n;
	return n;
}

/* Off the hot path (link.c): a first send of the output buffer that took
 * n >= 0 bytes, not all: the rest, or EPOLLOUT armed when it must wait. */
int ldb_link_flush_rest(struct ldb_link *l, ssize_t n, bool *moved);

/** Write the output buffer; what cannot go now waits for the EPOLLOUT edge
 *  (armed) or, for TLS, the next read.  *moved: a byte went out.
 *  @return 0, or -1 broken.  Inlined: one send that takes it all is the hot
 *  path. */
static inline int ldb_link_flush(struct ldb_link *l, bool *moved)
{
	l->wr_wants_rd = false;
	if (l->out_off < l->out_len) {
		size_t len = l->out_len - l->out_off;
		ssize_t n = ldb_link_send(l, l->out + l->out_off, len);
		if (n < 0)
			return -1;
		if ((size_t)n < len)
			return ldb_link_flush_rest(l, n, moved);
		*moved = true;
	}
	l->out_len = l->out_off = 0;
	return 0;
}

/* Off the hot path (link.c): a full input buffer grown, or the rest of an
 * oversized message dropped; an oversized message's head. */
int ldb_link_room(struct ldb_link *l);
int ldb_link_skip(struct ldb_link *l);
int ldb_link_oversized(struct ldb_link *l, size_t *pos, struct ldb_resp *r, size_t need);

/** Read what the socket holds, at most a full input buffer; with `eof` (the
 *  peer closed its side) on to the end of the stream.  The rest of an
 *  oversized message is dropped as it comes.  @return 1 when the buffer
 *  filled (more may wait), 0 when drained, -1 when closed or broken.
 *  Inlined: it runs once per readable edge. */
static inline int ldb_link_fill(struct ldb_link *l, bool eof)
{
	l->rd_wants_wr = false;
	for (;;) {
		if (l->skip > 0) {
			int rc = ldb_link_skip(l);
			if (rc <= 0)
				return rc;
			continue;
		}
		if (l->in_len == l->in_cap && ldb_link_room(l) != 0)
			return -1;
		ssize_t n = ldb_link_recv(l, l->in + l->in_len, l->in_cap - l->in_len);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		l->in_len += (size_t)n;
		if (l->in_len == l->in_cap)
			return 1;
		/* edge-triggered: a short plain read drained the socket; TLS reads
		 * go on until the library wants more bytes */
		if (!l->tls_on && !eof)
			return 0;
	}
}

enum { LDB_LINK_BROKEN = -1, LDB_LINK_PARTIAL = 0, LDB_LINK_MSG = 1, LDB_LINK_OVERSIZED = 2 };

/** The message at in + *pos: LDB_LINK_MSG (r decoded, *pos past it),
 *  LDB_LINK_PARTIAL (more bytes needed), LDB_LINK_BROKEN (not LDAP), or
 *  LDB_LINK_OVERSIZED (longer than in_max: r->msgid and r->op from its
 *  first bytes, r->result 0, its bytes in the buffer consumed and the rest
 *  skipped by the next fills).  Inlined: it runs once per message. */
static inline int ldb_link_frame(struct ldb_link *l, size_t *pos, struct ldb_resp *r)
{
	if (*pos >= l->in_len)
		return LDB_LINK_PARTIAL; /* all handed over (the usual end of a read): nothing to parse */
	size_t need = 0;
	int rc = ldb_wire_parse(l->in + *pos, l->in_len - *pos, r, &need);
	if (rc > 0) {
		*pos += r->len;
		return LDB_LINK_MSG;
	}
	if (rc < 0)
		return LDB_LINK_BROKEN;
	if (need <= l->in_max)
		return LDB_LINK_PARTIAL;
	return ldb_link_oversized(l, pos, r, need);
}

/** The first pos bytes of the input handed over: what is left of a partial
 *  message moves to the front. */
static inline void ldb_link_consumed(struct ldb_link *l, size_t pos)
{
	if (pos == 0)
		return;
	if (pos < l->in_len)
		memmove(l->in, l->in + pos, l->in_len - pos);
	l->in_len -= pos;
}

/** Close (graceful: a TLS close_notify first); the buffers are emptied and
 *  kept for the next connection. */
void ldb_link_close(struct ldb_link *l, bool graceful);
/** For good: also the TLS buffers kept across connections (not the link's
 *  own buffers, which are the caller's). */
void ldb_link_release(struct ldb_link *l);

#endif
