/* Requests from value patterns: see vreq.h. */
#include "ops/vreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/der.h"
#include "proto/wire.h"

int ldb_vpc_init(struct ldb_vpc *v, const struct ldb_config *c, unsigned client, unsigned nclients, char *err,
                 size_t cap)
{
	memset(v, 0, sizeof *v);
	v->n = c->nvpats;
	for (int s = 0; s < v->n; s++) {
		const struct ldb_vp *vp = c->vpats[s]->vp;
		if (ldb_vp_state_new(vp, client, nclients, &v->st[s], err, cap) != 0)
			return -1;
		v->off[s + 1] = v->off[s] + ldb_vp_max_len(vp) + 1;
		v->streams |= ldb_vp_streams(vp);
	}
	v->buf = malloc(v->off[v->n] + 1);
	if (v->buf == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	return 0;
}

void ldb_vpc_free(struct ldb_vpc *v)
{
	for (int s = 0; s < v->n; s++)
		ldb_vp_state_free(v->st[s]);
	free(v->buf);
	memset(v, 0, sizeof *v);
}

void ldb_vpc_prefetch(struct ldb_vpc *v, const struct ldb_config *c)
{
	if (!v->streams)
		return;
	for (int s = 0; s < v->n; s++)
		(void)ldb_vp_prefetch(c->vpats[s]->vp, v->st[s]); /* a failed read renders as a miss */
}

size_t ldb_vpc_render(struct ldb_vpc *v, const struct ldb_pattern *p, struct ldb_rng *rng, const char **out)
{
	int s = p->slot;
	char *at = v->buf + v->off[s];

	*out = at;
	return ldb_vp_render(p->vp, v->st[s], rng, at, v->off[s + 1] - v->off[s]);
}

bool ldb_vreq_any(const struct ldb_pattern *const *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] != NULL && p[i]->vp != NULL)
			return true;
	return false;
}

/* ---- reading the encoding back ---- */

struct bctx {
	struct ldb_vreq *q;
	const uint8_t *b;
	const struct ldb_config *c;
	int holes[LDB_VPATS_MAX];
	size_t extra; /* the most the holes and the lengths may add */
	int closed;   /* nodes below are inside closed elements: no literal joins them */
};

static int push(struct bctx *x, struct ldb_vnode nd)
{
	if (x->q->n == LDB_VREQ_NODES)
		return -1;
	x->q->node[x->q->n++] = nd;
	return 0;
}

static int lit(struct bctx *x, size_t off, size_t len)
{
	struct ldb_vreq *q = x->q;
	if (len == 0)
		return 0;
	if (q->n > x->closed && q->node[q->n - 1].kind == LDB_VN_LIT &&
	    q->node[q->n - 1].off + q->node[q->n - 1].len == off) {
		q->node[q->n - 1].len += (uint32_t)len;
		return 0;
	}
	return push(x, (struct ldb_vnode){ .kind = LDB_VN_LIT, .off = (uint32_t)off, .len = (uint32_t)len });
}

/* A marker at b[i] (within end): its slot and bracket, or -1. */
static int marker(const struct bctx *x, size_t i, size_t end, int *br)
{
	const uint8_t *b = x->b;
	if (i + LDB_VP_MARK_LEN > end || b[i] != (uint8_t)LDB_VP_MARK || b[i + 1] < 0x10 ||
	    b[i + 1] >= 0x10 + x->c->nvpats || b[i + 2] < 0x40)
		return -1;
	int s = b[i + 1] - 0x10;
	*br = b[i + 2] - 0x40;
	return *br < ldb_vp_brackets(x->c->vpats[s]->vp) ? s : -1;
}

/* A primitive's contents: literal runs and holes.  @return the holes, -1 on overflow. */
static int prim(struct bctx *x, size_t s, size_t e)
{
	size_t from = s;
	int n = 0, br, slot;

	for (size_t i = s; i < e;) {
		if ((slot = marker(x, i, e, &br)) < 0) {
			i++;
			continue;
		}
		if (lit(x, from, i - from) != 0 ||
		    push(x, (struct ldb_vnode){ .kind = LDB_VN_HOLE, .slot = (uint8_t)slot, .bracket = (uint8_t)br }) !=
		            0)
			return -1;
		x->holes[slot]++;
		x->extra += ldb_vp_max_len(x->c->vpats[slot]->vp);
		n++;
		i += LDB_VP_MARK_LEN;
		from = i;
	}
	return lit(x, from, e - from) != 0 ? -1 : n;
}

/* The tag and length at b[i] (within end): the contents [*cs, *ce). */
static int header(const uint8_t *b, size_t i, size_t end, size_t *cs, size_t *ce)
{
	size_t p = i + 2, n;
	if (i + 2 > end || (b[i] & 0x1f) == 0x1f)
		return -1;
	n = b[i + 1];
	if (n & 0x80) {
		size_t k = n & 0x7f;
		if (k == 0 || k > 4 || p + k > end)
			return -1;
		n = 0;
		for (size_t j = 0; j < k; j++)
			n = (n << 8) | b[p + j];
		p += k;
	}
	if (n > end - p)
		return -1;
	*cs = p;
	*ce = p + n;
	return 0;
}

/* The elements in [s, e).  @return the holes found, -1 on bad input. */
static int walk(struct bctx *x, size_t s, size_t e)
{
	int total = 0;

	for (size_t i = s; i < e;) {
		size_t cs, ce;
		int n0 = x->q->n, h;
		if (header(x->b, i, e, &cs, &ce) != 0 ||
		    push(x, (struct ldb_vnode){ .kind = LDB_VN_ELEM, .tag = x->b[i] }) != 0)
			return -1;
		h = (x->b[i] & 0x20) ? walk(x, cs, ce) : prim(x, cs, ce);
		if (h < 0)
			return -1;
		if (h == 0) {
			x->q->n = n0;
			if (lit(x, i, ce - i) != 0)
				return -1;
		} else {
			x->q->node[n0].end = (uint16_t)x->q->n;
			x->closed = x->q->n;
			x->extra += 4; /* a longer length */
		}
		total += h;
		i = ce;
	}
	return total;
}

int ldb_vreq_build(struct ldb_vreq *q, const uint8_t *body, size_t len, const struct ldb_config *c, char *err,
                   size_t cap)
{
	struct bctx x = { .q = q, .b = body, .c = c };

	memset(q, 0, sizeof *q);
	q->body = malloc(len ? len : 1);
	q->node = calloc(LDB_VREQ_NODES, sizeof *q->node);
	if (q->body == NULL || q->node == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	memcpy(q->body, body, len);
	x.b = q->body;
	if (walk(&x, 0, len) < 0) {
		snprintf(err, cap, "value patterns: the request is too complex to template");
		return -1;
	}
	for (int s = 0; s < c->nvpats; s++) {
		if (x.holes[s] == 0)
			continue;
		if (x.holes[s] != ldb_vp_brackets(c->vpats[s]->vp)) {
			snprintf(err, cap, "value pattern '%s': a bracket expression must stand inside one value",
			         ldb_vp_text(c->vpats[s]->vp));
			return -1;
		}
		q->pat[q->npat++] = c->vpats[s];
	}
	q->maxlen = len + x.extra + LDB_WIRE_ENVELOPE_MAX;
	return 0;
}

void ldb_vreq_free(struct ldb_vreq *q)
{
	free(q->body);
	free(q->node);
	memset(q, 0, sizeof *q);
}

/* ---- per operation ---- */

/* The bytes of nodes [i, end); an element's content length goes to clen[]. */
static size_t measure(const struct ldb_vreq *q, struct ldb_vpc *v, int i, int end)
{
	size_t n = 0;

	while (i < end) {
		const struct ldb_vnode *nd = &q->node[i];
		if (nd->kind == LDB_VN_LIT) {
			n += nd->len;
			i++;
		} else if (nd->kind == LDB_VN_HOLE) {
			n += v->span[nd->slot][nd->bracket][1];
			i++;
		} else {
			size_t c = measure(q, v, i + 1, nd->end);
			v->clen[i] = (uint32_t)c;
			n += 1 + ldb_der_len_size(c) + c;
			i = nd->end;
		}
	}
	return n;
}

static uint8_t *emit(const struct ldb_vreq *q, const struct ldb_vpc *v, int i, int end, uint8_t *o)
{
	while (i < end) {
		const struct ldb_vnode *nd = &q->node[i];
		if (nd->kind == LDB_VN_LIT) {
			memcpy(o, q->body + nd->off, nd->len);
			o += nd->len;
			i++;
		} else if (nd->kind == LDB_VN_HOLE) {
			const uint32_t *sp = v->span[nd->slot][nd->bracket];
			memcpy(o, v->buf + v->off[nd->slot] + sp[0], sp[1]);
			o += sp[1];
			i++;
		} else {
			o = ldb_der_put_tl(o, nd->tag, v->clen[i]);
			o = emit(q, v, i + 1, nd->end, o);
			i = nd->end;
		}
	}
	return o;
}

size_t ldb_vreq_render(const struct ldb_vreq *q, struct ldb_vpc *v, struct ldb_rng *rng, int32_t msgid, uint8_t *dst,
                       size_t cap)
{
	for (int i = 0; i < q->npat; i++) {
		int s = q->pat[i]->slot;
		v->len[s] = (uint32_t)ldb_vp_render_spans(q->pat[i]->vp, v->st[s], rng, v->buf + v->off[s],
		                                          v->off[s + 1] - v->off[s], v->span[s]);
	}
	size_t body = measure(q, v, 0, q->n);
	size_t idlen = ldb_der_int_size(msgid), content = 2 + idlen + body;
	size_t total = 1 + ldb_der_len_size(content) + content;
	if (total > cap)
		return 0;
	/* the envelope (as ldb_wire_frame writes it), then the body in place */
	emit(q, v, 0, q->n, ldb_der_put_int(ldb_der_put_tl(dst, 0x30, content), msgid));
	return total;
}
