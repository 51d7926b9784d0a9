/* A connection's transport (run/link.h): connect, TLS, bytes in and out,
 * framing. */
#include "run/link.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <unistd.h>

void ldb_link_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int ldb_link_connect_fail(int fd, const char *step, const char **what)
{
	int e = errno;
	if (fd >= 0)
		close(fd);
	*what = step;
	return e;
}

int ldb_link_tls_begin(struct ldb_link *l, const struct ldb_tls *tls, struct ldb_tls_session *slot, char *why,
                       size_t cap)
{
	if (ldb_tls_conn_open(&l->tc, tls, l->fd, slot, why, cap) != 0)
		return -1;
	l->tls_on = true;
	return 0;
}

int ldb_link_handshake(struct ldb_link *l, char *why, size_t cap)
{
	int rc = ldb_tls_handshake(&l->tc, why, cap);
	if (rc == LDB_TLS_WANT_WRITE)
		ldb_link_arm_out(l);
	return rc;
}

ssize_t ldb_link_tls_send(struct ldb_link *l, const uint8_t *buf, size_t len)
{
	size_t n = 0;
	int rc = ldb_tls_write(&l->tc, buf, len, &n);
	if (rc == LDB_TLS_OK)
		return (ssize_t)n;
	if (rc == LDB_TLS_WANT_READ) {
		l->wr_wants_rd = true;
		return 0;
	}
	return rc == LDB_TLS_WANT_WRITE ? 0 : -1;
}

/* A plain send or receive that did not move a byte (n <= 0 in
 * ldb_link_send, n < 0 in ldb_link_recv): EINTR tried again, EAGAIN 0, a
 * closed peer or another error broken (-1). */
static ssize_t io_again(struct ldb_link *l, uint8_t *buf, size_t len, bool out)
{
	for (;;) {
		if (errno == EINTR) {
			ssize_t n = out ? send(l->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)
			                : recv(l->fd, buf, len, MSG_DONTWAIT);
			if (n > 0)
				return n;
			if (n == 0)
				return -1;
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		l->sock_err = errno; /* a connect that failed says why here, once */
		return -1;
	}
}

ssize_t ldb_link_send_err(struct ldb_link *l, const uint8_t *buf, size_t len)
{
	return io_again(l, (uint8_t *)(uintptr_t)buf, len, true); /* send only reads it */
}

ssize_t ldb_link_tls_recv(struct ldb_link *l, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	int rc = ldb_tls_read(&l->tc, buf, cap, &n);
	if (rc == LDB_TLS_OK)
		return (ssize_t)n;
	if (rc == LDB_TLS_WANT_READ)
		return 0;
	if (rc == LDB_TLS_WANT_WRITE) {
		l->rd_wants_wr = true; /* the next EPOLLOUT edge reads */
		ldb_link_arm_out(l);
		return 0;
	}
	return -1;
}

ssize_t ldb_link_recv_err(struct ldb_link *l, uint8_t *buf, size_t cap)
{
	return io_again(l, buf, cap, false);
}

int ldb_link_flush_rest(struct ldb_link *l, ssize_t n, bool *moved)
{
	for (;;) {
		if (n < 0)
			return -1;
		if (n == 0) {
			if (!l->wr_wants_rd)
				ldb_link_arm_out(l);
			return 0; /* the next EPOLLOUT edge (or EPOLLIN, for TLS) writes the rest */
		}
		*moved = true;
		l->out_off += (size_t)n;
		if (l->out_off >= l->out_len)
			break;
		n = ldb_link_send(l, l->out + l->out_off, l->out_len - l->out_off);
	}
	l->out_len = l->out_off = 0;
	return 0;
}

/* Room to read into: a full buffer that holds no whole message (one larger
 * than the buffer, up to in_max) doubles; it stays grown. */
int ldb_link_room(struct ldb_link *l)
{
	if (l->in_len < l->in_cap)
		return 0;
	if (l->in_cap >= l->in_max)
		return -1;
	size_t cap = l->in_cap * 2 > l->in_max ? l->in_max : l->in_cap * 2;
	uint8_t *bigger = realloc(l->in, cap);
	if (bigger == NULL)
		return -1;
	l->in = bigger;
	l->in_cap = cap;
	return 0;
}

/* The rest of an oversized message, read and dropped.  @return as fill. */
int ldb_link_skip(struct ldb_link *l)
{
	size_t room = l->in_cap - l->in_len;
	if (room > l->skip)
		room = (size_t)l->skip;
	ssize_t n = ldb_link_recv(l, l->in + l->in_len, room);
	if (n <= 0)
		return (int)n;
	l->skip -= (uint64_t)n;
	return 1;
}

/* An oversized message's id and protocolOp tag from its first bytes.
 * @return 0, or -1 not LDAP. */
static int oversized_head(const uint8_t *b, size_t n, struct ldb_resp *r)
{
	size_t i = 1;
	if (n < 2 || b[0] != 0x30)
		return -1;
	i += (b[1] & 0x80) ? 1 + (b[1] & 0x7f) : 1;
	if (i + 2 > n || b[i] != 0x02 || b[i + 1] > 4 || i + 2 + b[i + 1] >= n)
		return -1;
	int32_t id = 0;
	for (size_t k = 0; k < b[i + 1]; k++)
		id = (int32_t)((uint32_t)id << 8 | b[i + 2 + k]);
	r->msgid = id;
	r->op = b[i + 2 + b[i + 1]];
	r->result = 0;
	r->len = n;
	r->body = NULL;
	r->bodylen = 0;
	return 0;
}

int ldb_link_oversized(struct ldb_link *l, size_t *pos, struct ldb_resp *r, size_t need)
{
	size_t have = l->in_len - *pos;
	/* its id and tag are within its first 13 bytes */
	if (have < 16 && have < l->in_cap)
		return LDB_LINK_PARTIAL;
	if (oversized_head(l->in + *pos, have, r) != 0)
		return LDB_LINK_BROKEN;
	l->skip = need - have;
	*pos += have;
	return LDB_LINK_OVERSIZED;
}

void ldb_link_close(struct ldb_link *l, bool graceful)
{
	if (l->tls_on) {
		if (graceful)
			ldb_tls_conn_close(&l->tc);
		else
			ldb_tls_conn_free(&l->tc);
		l->tls_on = false;
	}
	if (l->fd >= 0)
		close(l->fd); /* leaves the epoll set with it: never dup'ed */
	l->fd = -1;
	l->out_len = l->out_off = 0;
	l->in_len = 0;
	l->skip = 0;
	l->rd_wants_wr = l->wr_wants_rd = false;
}

void ldb_link_release(struct ldb_link *l)
{
	ldb_link_close(l, false);
	ldb_tls_conn_release(&l->tc);
}
