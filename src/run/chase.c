/* -e referral=on|rebind: following a referral (see chase.h).  Everything
 * here is off the hot path: it runs only for a search reference or a result
 * 10 when following is asked, allocates its state at a client's first
 * chase, and blocks its I/O thread for at most a few bounded waits. */
#include "run/chase.h"

#include <errno.h>
#include <ldap.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ops/ops.h"
#include "proto/der.h"
#include "proto/deref.h"
#include "run/conn.h"
#include "run/stats.h"

#define CHASE_URL_MAX 1024
#define CHASE_WAIT_MS 1000 /* at most, per connect, send or receive */

struct ldb_chase {
	int fd;
	char host[256];
	int port;
	int32_t msgid;
	uint8_t *req, *op; /* the request rendered, and rebuilt */
	size_t req_cap;
	uint8_t *in; /* what the referred server sent */
	size_t in_cap, in_len, in_used;
};

/* A BER tag and definite length at *p (content follows).  @return 0, or -1. */
static int tlv(const uint8_t **p, const uint8_t *end, uint8_t *tag, size_t *len)
{
	const uint8_t *q = *p;
	if (end - q < 2)
		return -1;
	*tag = *q++;
	size_t n = *q++;
	if (n & 0x80) {
		size_t k = n & 0x7f;
		if (k == 0 || k > 4 || (size_t)(end - q) < k)
			return -1;
		for (n = 0; k > 0; k--)
			n = (n << 8) | *q++;
	}
	if ((size_t)(end - q) < n)
		return -1;
	*p = q;
	*len = n;
	return 0;
}

/* The first URL of a search reference (SEQUENCE OF LDAPURL) or of a result's
 * referral ([3] after the code, matchedDN and diagnosticMessage). */
static int first_url(const struct ldb_resp *r, char *url, size_t cap)
{
	const uint8_t *p = r->body, *end = r->body + r->bodylen;
	uint8_t tag;
	size_t n;

	if (r->op != LDAP_RES_SEARCH_REFERENCE) {
		for (int k = 0; k < 3; k++) { /* resultCode, matchedDN, diagnosticMessage */
			if (tlv(&p, end, &tag, &n) < 0)
				return -1;
			p += n;
		}
		if (tlv(&p, end, &tag, &n) < 0 || tag != 0xa3)
			return -1;
	}
	if (tlv(&p, end, &tag, &n) < 0 || tag != LBER_OCTETSTRING || n >= cap)
		return -1;
	memcpy(url, p, n);
	url[n] = '\0';
	return 0;
}

static void chase_close(struct ldb_chase *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	ch->fd = -1;
	ch->in_len = ch->in_used = 0;
}

static int chase_open(struct ldb_chase *ch, const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char sport[16];
	struct timeval tv = { CHASE_WAIT_MS / 1000, (CHASE_WAIT_MS % 1000) * 1000 };
	int one = 1;

	snprintf(sport, sizeof sport, "%d", port);
	if (getaddrinfo(host, sport, &hints, &ai) != 0)
		return -1;
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* Linux bounds a blocking connect by SO_SNDTIMEO */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
	    connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	ch->fd = fd;
	snprintf(ch->host, sizeof ch->host, "%s", host);
	ch->port = port;
	ch->msgid = 0;
	return 0;
}

static int chase_send(struct ldb_chase *ch, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(ch->fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The next whole message from the referred server into *r.  @return 0, or -1. */
static int chase_recv(struct ldb_chase *ch, struct ldb_resp *r)
{
	for (;;) {
		size_t need = 0;
		int rc = ldb_wire_parse(ch->in + ch->in_used, ch->in_len - ch->in_used, r, &need);
		if (rc < 0)
			return -1;
		if (rc == 1) {
			ch->in_used += r->len;
			return 0;
		}
		memmove(ch->in, ch->in + ch->in_used, ch->in_len - ch->in_used);
		ch->in_len -= ch->in_used;
		ch->in_used = 0;
		if (need > ch->in_cap || ch->in_len == ch->in_cap) {
			size_t cap = need > ch->in_cap * 2 ? need : ch->in_cap * 2;
			if (cap > (64u << 20))
				return -1; /* as the load's connections: no message beyond 64 MiB */
			uint8_t *bigger = realloc(ch->in, cap);
			if (bigger == NULL)
				return -1;
			ch->in = bigger;
			ch->in_cap = cap;
		}
		ssize_t k = recv(ch->fd, ch->in + ch->in_len, ch->in_cap - ch->in_len, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1; /* closed, broken, or the wait passed */
		ch->in_len += (size_t)k;
	}
}

static int32_t chase_msgid(struct ldb_chase *ch)
{
	ch->msgid = ch->msgid >= 0x7ffffff0 ? 1 : ch->msgid + 1;
	return ch->msgid;
}

/* Bind the new connection: anonymous (on) or -D/-w (rebind).  @return the
 * bind's result code, or -1. */
static int chase_bind(struct ldb_chase *ch, const struct ldb_config *c)
{
	struct ldb_bytes op = { 0 };
	bool rebind = c->referral_follow == LDB_REFERRAL_REBIND;
	const char *dn = rebind ? c->bind_dn : "", *pw = rebind ? c->password : "";
	struct ldb_resp r;
	int32_t id = chase_msgid(ch);
	int rc = -1;

	if (ldb_wire_encode_bind_simple_v(&op, c->ldap_v2 ? 2 : 3, dn, pw, strlen(pw), NULL) == 0) {
		size_t cap = op.len + LDB_WIRE_ENVELOPE_MAX;
		uint8_t *msg = malloc(cap);
		size_t n = msg != NULL ? ldb_wire_frame(msg, cap, id, op.data, op.len) : 0;
		if (n > 0 && chase_send(ch, msg, n) == 0 && chase_recv(ch, &r) == 0 && r.msgid == id)
			rc = r.result;
		free(msg);
	}
	ldb_bytes_free(&op);
	return rc;
}

/* The slot's request rendered again (its kind, its numbers) with message id
 * id into ch->req.  @return its bytes, or <= 0. */
static long render_again(struct ldb_conn *cn, const struct ldb_slot *s, struct ldb_chase *ch, int32_t id)
{
	struct ldb_run *run = cn->w->run;
	size_t cap = run->ops.room[s->kind] + LDB_WIRE_ENVELOPE_MAX;

	if (ch->req_cap < cap) {
		free(ch->req);
		free(ch->op);
		ch->req = malloc(cap);
		ch->op = malloc(cap + CHASE_URL_MAX + 2 * LDB_WIRE_ENVELOPE_MAX);
		ch->req_cap = ch->req != NULL && ch->op != NULL ? cap : 0;
		if (ch->req_cap == 0)
			return -1;
	}
	struct ldb_op_req q = { &run->ops, cn->w->wctx, &cn->w->rng, s->v, s->bv, id, 0, cn->w->vpc };
	if (ldb_ops[s->kind]->msgids > 1)
		q.msgid2 = chase_msgid(ch);
	return ldb_ops[s->kind]->render(&q, ch->req, ch->req_cap);
}

/* A search sent on with the URL's DN as its base and, for a reference out
 * of a one-level search, scope base (RFC 4511 4.5.3), its controls kept.
 * @return the bytes of the new message in ch->op; 0: send ch->req as it is. */
static size_t retarget(struct ldb_chase *ch, size_t n, const char *dn, bool ref, int32_t id)
{
	struct ldb_resp q;
	const uint8_t *p, *end;
	uint8_t tag;
	size_t blen;

	if (ldb_wire_parse(ch->req, n, &q, NULL) != 1 || q.op != LDAP_REQ_SEARCH)
		return 0;
	p = q.body;
	end = q.body + q.bodylen;
	if (tlv(&p, end, &tag, &blen) < 0 || tag != LBER_OCTETSTRING)
		return 0;
	size_t dnlen = strlen(dn);
	if (dnlen > CHASE_URL_MAX)
		return 0;
	const uint8_t *rest = p + blen;
	size_t restlen = (size_t)(end - rest), ctrlen = (size_t)(ch->req + q.len - end);
	size_t body = ldb_der_len_size(dnlen) + 1 + dnlen + restlen;
	uint8_t *o = ch->op + LDB_WIRE_ENVELOPE_MAX, *x;

	x = ldb_der_put_tl(o, LDAP_REQ_SEARCH, body);
	x = ldb_der_put_tl(x, LBER_OCTETSTRING, dnlen);
	memcpy(x, dn, dnlen);
	x += dnlen;
	memcpy(x, rest, restlen);
	if (ref && restlen >= 3 && x[0] == LBER_ENUMERATED && x[1] == 1 && x[2] == LDB_SCOPE_ONE)
		x[2] = LDB_SCOPE_BASE;
	memcpy(x + restlen, end, ctrlen); /* the controls, after the protocolOp */
	x += restlen + ctrlen;
	return ldb_wire_frame(ch->op, ch->req_cap + CHASE_URL_MAX + 2 * LDB_WIRE_ENVELOPE_MAX, id, o, (size_t)(x - o));
}

/* The referred server's answer to message id: its entries counted as the
 * slot's; references there are not followed again (one hop).
 * @return its result code, or -1. */
static int chase_answer(struct ldb_conn *cn, struct ldb_slot *s, struct ldb_chase *ch, int32_t id)
{
	struct ldb_resp r;

	for (;;) {
		if (chase_recv(ch, &r) < 0) {
			chase_close(ch);
			return -1;
		}
		if (r.msgid != id)
			continue;
		if (r.op == LDAP_RES_SEARCH_ENTRY) {
			struct ldb_opstats *os = &cn->w->st->op[s->kind];
			s->entries++;
			ldb_add(&os->entries, 1);
			if (cn->w->run->cfg->deref_attr != NULL)
				ldb_add(&os->deref_values, ldb_deref_count(ch->in + ch->in_used - r.len, r.len));
			continue;
		}
		if (r.result >= 0)
			return r.result;
	}
}

/* The connection to the URL's server (the kept one if it is that server's),
 * the request, its answer.  @return the result code, or -1. */
static int chase_once(struct ldb_conn *cn, struct ldb_slot *s, struct ldb_chase *ch, const LDAPURLDesc *lud, bool ref)
{
	int port = lud->lud_port > 0 ? lud->lud_port : LDAP_PORT;

	if (ch->fd < 0) {
		if (chase_open(ch, lud->lud_host, port) < 0)
			return -1;
		int b = chase_bind(ch, cn->w->run->cfg);
		if (b != 0) {
			chase_close(ch);
			return b; /* a refused bind's code is the operation's, as libldap's */
		}
	}
	int32_t id = chase_msgid(ch);
	long n = render_again(cn, s, ch, id);
	if (n <= 0)
		return -1;
	const uint8_t *msg = ch->req;
	size_t len = (size_t)n, moved = 0;
	if (lud->lud_dn != NULL && lud->lud_dn[0] != '\0')
		moved = retarget(ch, len, lud->lud_dn, ref, id);
	if (moved > 0) {
		msg = ch->op;
		len = moved;
	}
	if (chase_send(ch, msg, len) < 0) {
		chase_close(ch);
		return -1;
	}
	return chase_answer(cn, s, ch, id);
}

/* A kept connection the server has closed meanwhile (its idle timeout) fails
 * at once: then once more on a new one. */
static int chase_url(struct ldb_conn *cn, struct ldb_slot *s, struct ldb_chase *ch, const LDAPURLDesc *lud, bool ref)
{
	int port = lud->lud_port > 0 ? lud->lud_port : LDAP_PORT;

	if (ch->fd >= 0 && (ch->port != port || strcmp(ch->host, lud->lud_host) != 0))
		chase_close(ch);
	bool kept = ch->fd >= 0;
	uint64_t entries = s->entries;
	int rc = chase_once(cn, s, ch, lud, ref);
	if (rc < 0 && kept && s->entries == entries)
		rc = chase_once(cn, s, ch, lud, ref);
	return rc;
}

static struct ldb_chase *chase_get(struct ldb_client *w)
{
	if (w->chase != NULL)
		return w->chase;
	struct ldb_chase *ch = calloc(1, sizeof *ch);
	if (ch == NULL)
		return NULL;
	ch->fd = -1;
	ch->in_cap = 16384;
	ch->in = malloc(ch->in_cap);
	if (ch->in == NULL) {
		free(ch);
		return NULL;
	}
	w->chase = ch;
	return ch;
}

int ldb_chase(struct ldb_conn *cn, int i, const struct ldb_resp *r)
{
	struct ldb_client *w = cn->w;
	struct ldb_slot *s = &cn->slots[i];
	struct ldb_opstats *os = &w->st->op[s->kind];
	struct ldb_chase *ch;
	char url[CHASE_URL_MAX];
	LDAPURLDesc *lud = NULL;
	int rc = -1;

	if (s->setup != 0 || s->aux != 0 || !ldb_ops[s->kind]->response)
		return -1; /* not an operation of the load */
	ldb_add(&os->referrals_followed, 1);
	ch = chase_get(w);
	if (ch != NULL && first_url(r, url, sizeof url) == 0 && ldap_url_parse(url, &lud) == LDAP_URL_SUCCESS &&
	    strcmp(lud->lud_scheme, "ldap") == 0 && lud->lud_host != NULL && lud->lud_host[0] != '\0')
		rc = chase_url(cn, s, ch, lud, r->op == LDAP_RES_SEARCH_REFERENCE);
	if (lud != NULL)
		ldap_free_urldesc(lud);
	if (rc >= 0 && ldb_op_succeeded((enum ldb_op)s->kind, rc))
		ldb_add(&os->referrals_followed_ok, 1);
	return rc;
}

void ldb_chase_free(struct ldb_client *w)
{
	struct ldb_chase *ch = w->chase;
	if (ch == NULL)
		return;
	chase_close(ch);
	free(ch->req);
	free(ch->op);
	free(ch->in);
	free(ch);
	w->chase = NULL;
}
