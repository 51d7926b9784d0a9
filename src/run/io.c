/* A connection's bytes: plain or TLS sends and receives, flushing the
 * output buffer, closing.  A TCP connection is confirmed by the first byte
 * that moves. */
#include "run/conn.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/clock.h"

/* graceful: a TLS close_notify first (after an unbind, or at the end). */
void ldb_conn_close(struct ldb_conn *cn, bool graceful)
{
	if (cn->tls_on) {
		if (graceful)
			ldb_tls_conn_close(&cn->tc);
		else
			ldb_tls_conn_free(&cn->tc);
		cn->tls_on = false;
	}
	if (cn->fd >= 0)
		close(cn->fd); /* leaves the epoll set with it: never dup'ed */
	cn->fd = -1;
	cn->out_len = cn->out_off = 0;
	cn->in_len = 0;
	cn->unconfirmed = false;
	cn->tls_read_wants_write = cn->tls_write_wants_read = false;
	for (int i = 0; i < cn->depth; i++)
		cn->slots[i].used = 0;
	cn->inflight = 0;
	cn->unsynced = 0;
	cn->syncing = false;
	ldb_bufs_give(cn);
}

/* Plain or TLS send: >0 bytes, 0 try later, -1 broken. */
ssize_t ldb_conn_send(struct ldb_conn *cn, const uint8_t *buf, size_t len)
{
	if (cn->tls_on) {
		size_t n = 0;
		int rc = ldb_tls_write(&cn->tc, buf, len, &n);
		if (rc == LDB_TLS_OK)
			return (ssize_t)n;
		if (rc == LDB_TLS_WANT_READ) {
			cn->tls_write_wants_read = true;
			return 0;
		}
		return rc == LDB_TLS_WANT_WRITE ? 0 : -1;
	}
	for (;;) {
		ssize_t n = send(cn->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0)
			return n > 0 ? n : -1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		cn->sock_err = errno; /* a connect that failed says why here, once */
		return -1;
	}
}

/* Plain or TLS receive: >0 bytes, 0 nothing now, -1 closed or broken. */
ssize_t ldb_conn_recv(struct ldb_conn *cn, uint8_t *buf, size_t cap)
{
	if (cn->tls_on) {
		size_t n = 0;
		int rc = ldb_tls_read(&cn->tc, buf, cap, &n);
		if (rc == LDB_TLS_OK)
			return (ssize_t)n;
		if (rc == LDB_TLS_WANT_READ)
			return 0;
		if (rc == LDB_TLS_WANT_WRITE) {
			cn->tls_read_wants_write = true; /* the next EPOLLOUT edge reads */
			arm_out(cn);
			return 0;
		}
		return -1;
	}
	for (;;) {
		ssize_t n = recv(cn->fd, buf, cap, MSG_DONTWAIT);
		if (n > 0)
			return n;
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		cn->sock_err = errno; /* a connect that failed says why here, once */
		return -1;
	}
}

/* The TCP connection proved to work (a byte moved, or the EPOLLOUT edge). */
void ldb_conn_confirm(struct ldb_conn *cn)
{
	struct ldb_client *w = cn->w;
	if (!cn->unconfirmed)
		return;
	cn->unconfirmed = false;
	ldb_add(&w->st->connects, 1);
	/* one reading ends the connect stage and starts what follows: the TLS
	 * stage, or the requests sent before the connection was known to be up */
	uint64_t now = ldb_now_ns();
	if (w->run->cfg->bindeach)
		ldb_hist_record(&w->lat->stage[LDB_STAGE_CONNECT], now > cn->t_connect ? now - cn->t_connect : 0);
	if (cn->state == CS_TLS)
		cn->t_tls = now;
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used || s->t_sent >= now)
			continue;
		if (s->t0 == s->t_sent)
			s->t0 = now; /* not an intended start (--rate) */
		s->t_sent = s->t_first = now;
	}
}

int ldb_conn_flush(struct ldb_conn *cn)
{
	cn->tls_write_wants_read = false;
	while (cn->out_off < cn->out_len) {
		ssize_t n = ldb_conn_send(cn, cn->out + cn->out_off, cn->out_len - cn->out_off);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (!cn->tls_write_wants_read)
				arm_out(cn);
			return 0; /* the next EPOLLOUT edge (or EPOLLIN, for TLS) writes the rest */
		}
		ldb_conn_confirm(cn);
		cn->out_off += (size_t)n;
	}
	cn->out_len = cn->out_off = 0;
	return 0;
}
