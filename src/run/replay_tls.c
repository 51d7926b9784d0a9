/* The replay's transport: plain, ldaps or StartTLS (run/replay_tls.h). */
#include "run/replay_tls.h"

#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "proto/wire.h"

/* StartTLS's message id: one the log's requests never take (their ids are
 * op % 2147483646 + 1). */
#define STARTTLS_ID 2147483647
#define STARTTLS_MAX 64

/* The request (the conf's ExtendedRequest, RFC 4511 4.14.1) written (partly,
 * on a full socket).  @return 1 all of it, 0 wait, -1 failed. */
static int starttls_send(struct ldb_rp_tls *t, const struct ldb_rp_tlsconf *tc, int fd, char *why, size_t whycap)
{
	uint8_t req[STARTTLS_MAX];
	size_t len = ldb_wire_frame(req, sizeof req, STARTTLS_ID, tc->starttls_op, tc->starttls_len);
	if (len == 0) {
		snprintf(why, whycap, "StartTLS: no request");
		return -1;
	}
	while (t->req_sent < len) {
		ssize_t n = send(fd, req + t->req_sent, len - t->req_sent, MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			snprintf(why, whycap, "StartTLS: %s", strerror(n < 0 ? errno : EPIPE));
			return -1;
		}
		t->req_sent = (uint8_t)(t->req_sent + n);
	}
	return 1;
}

/* Its answer, read into buf (t->ans_len bytes of it kept across events).
 * @return 1 success, 0 wait, -1 failed. */
static int starttls_answer(struct ldb_rp_tls *t, int fd, uint8_t *buf, size_t cap, char *why, size_t whycap)
{
	if (cap > UINT16_MAX)
		cap = UINT16_MAX;
	for (;;) {
		size_t len = t->ans_len;
		ssize_t n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			snprintf(why, whycap, "StartTLS: %s",
			         n == 0 ? "the server closed the connection" : strerror(errno));
			return -1;
		}
		len += (size_t)n;
		t->ans_len = (uint16_t)len;
		struct ldb_resp r;
		int rc = ldb_wire_parse(buf, len, &r, NULL);
		if (rc == 0 && len < cap)
			continue; /* the rest of it is on its way: recv says when */
		if (rc <= 0 || r.msgid != STARTTLS_ID || r.op != 0x78) {
			snprintf(why, whycap, "StartTLS: the answer is not an extended response to it");
			return -1;
		}
		if (r.result != LDAP_SUCCESS) {
			snprintf(why, whycap, "StartTLS refused, error=%d (%s)", r.result, ldap_err2string(r.result));
			return -1;
		}
		return 1;
	}
}

static int handshake(struct ldb_rp_tls *t, char *why, size_t whycap)
{
	int rc = ldb_tls_handshake(&t->tc, why, whycap);
	if (rc == LDB_TLS_OK) {
		t->phase = LDB_RP_PH_UP;
		return 1;
	}
	if (rc == LDB_TLS_WANT_READ || rc == LDB_TLS_WANT_WRITE)
		return 0; /* both edges are armed: the next one steps on */
	if (why[0] == '\0')
		snprintf(why, whycap, "TLS handshake failed");
	return -1;
}

int ldb_rp_tls_setup(struct ldb_rp_tls *t, const struct ldb_rp_tlsconf *tc, int fd, uint8_t *buf, size_t cap, char *why,
                     size_t whycap)
{
	int rc;
	why[0] = '\0';
	if (t->phase == LDB_RP_PH_TCP) {
		t->req_sent = 0;
		t->ans_len = 0;
		t->phase = tc->tls == NULL ? LDB_RP_PH_UP : tc->starttls ? LDB_RP_PH_STARTTLS : LDB_RP_PH_HANDSHAKE;
		if (t->phase == LDB_RP_PH_HANDSHAKE &&
		    ldb_tls_conn_open(&t->tc, tc->tls, fd, tc->slot, why, whycap) != 0)
			return -1;
		t->tls_on = t->phase == LDB_RP_PH_HANDSHAKE;
	}
	if (t->phase == LDB_RP_PH_STARTTLS) {
		if ((rc = starttls_send(t, tc, fd, why, whycap)) <= 0)
			return rc;
		t->phase = LDB_RP_PH_ANSWER;
	}
	if (t->phase == LDB_RP_PH_ANSWER) {
		if ((rc = starttls_answer(t, fd, buf, cap, why, whycap)) <= 0)
			return rc;
		if (ldb_tls_conn_open(&t->tc, tc->tls, fd, tc->slot, why, whycap) != 0)
			return -1;
		t->tls_on = true;
		t->phase = LDB_RP_PH_HANDSHAKE;
	}
	if (t->phase == LDB_RP_PH_HANDSHAKE)
		return handshake(t, why, whycap);
	return 1;
}

ssize_t ldb_rp_io_send(struct ldb_rp_tls *t, int fd, const void *buf, size_t len)
{
	t->wr_wants_rd = false;
	if (!t->tls_on)
		return send(fd, buf, len, MSG_NOSIGNAL);
	size_t n = 0;
	int rc = ldb_tls_write(&t->tc, buf, len, &n);
	if (rc == LDB_TLS_OK)
		return (ssize_t)n;
	errno = rc == LDB_TLS_ERROR ? ECONNRESET : EAGAIN;
	t->wr_wants_rd = rc == LDB_TLS_WANT_READ;
	return -1;
}

ssize_t ldb_rp_io_recv(struct ldb_rp_tls *t, int fd, void *buf, size_t cap)
{
	t->rd_wants_wr = false;
	if (!t->tls_on)
		return recv(fd, buf, cap, 0);
	size_t n = 0;
	int rc = ldb_tls_read(&t->tc, buf, cap, &n);
	if (rc == LDB_TLS_OK)
		return (ssize_t)n;
	if (rc == LDB_TLS_CLOSED)
		return 0;
	errno = rc == LDB_TLS_ERROR ? ECONNRESET : EAGAIN;
	t->rd_wants_wr = rc == LDB_TLS_WANT_WRITE;
	return -1;
}

void ldb_rp_tls_end(struct ldb_rp_tls *t, bool graceful)
{
	if (t->tls_on) {
		if (graceful)
			ldb_tls_conn_close(&t->tc);
		else
			ldb_tls_conn_free(&t->tc);
	}
	t->tls_on = false;
	t->phase = LDB_RP_PH_TCP;
	t->req_sent = 0;
	t->ans_len = 0;
	t->rd_wants_wr = t->wr_wants_rd = false;
}

void ldb_rp_tls_release(struct ldb_rp_tls *t)
{
	ldb_rp_tls_end(t, false);
	ldb_tls_conn_release(&t->tc);
}
