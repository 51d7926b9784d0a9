/* search (-e esearch): the request template encoded once, patched per operation. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

#include "proto/controls.h"

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->filter == NULL) {
		snprintf(why, cap, "%s needs a filter (-f)", mix ? "--mix search" : "-e esearch");
		return -1;
	}
	return 0;
}

/* --simple-page-size: a search is all its pages, each page's request the
 * same search with the server's cookie (RFC 2696), kept in the slot's step
 * state (the multi-step operations' hook, more).  The first page's request
 * is kept whole (after its message id: the protocolOp and the controls the
 * template holds, -e deref's) and every later page repeats those bytes,
 * whichever path wrote them: a template's numbers or a value pattern's
 * values are those of the search, not of a new operation. */
#define PAGE_COOKIE_MAX 4096
struct page_state {
	uint16_t clen;
	uint32_t rlen;
	uint8_t cookie[PAGE_COOKIE_MAX];
	uint8_t req[]; /* the first page's request after its message id */
};

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	if (ldb_reqset_build_search(&o->search, o->cfg, err, cap) != 0)
		return -1;
	o->room[LDB_OP_SEARCH] = o->search.maxlen;
	if (o->cfg->ctl.page_size > 0) {
		/* a multiple of 8: the slots' states lie one after another */
		o->state_size[LDB_OP_SEARCH] = (sizeof(struct page_state) + o->search.maxlen + 7) & ~(size_t)7;
		o->room[LDB_OP_SEARCH] += LDB_CTL_PAGED_MAX(PAGE_COOKIE_MAX) + LDB_CTL_GROWTH;
		o->want_paged = true;
	}
	return 0;
}

/* The request of one operation, as its path writes it: the program of a
 * value pattern, or ldclt's template patched with the numbers. */
static size_t render_request(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	int variant = 0;

	if (c->random_attrlist && c->nattrs > 0)
		variant = (int)ldb_rng_range(r->rng, 0, c->nattrs - 1);
	if (r->ops->search.vr != NULL)
		return ldb_vreq_render(&r->ops->search.vr[variant], r->vpc, r->rng, r->msgid, dst, cap);
	vals[LDB_FIELD_FILTER] = r->v;
	vals[LDB_FIELD_BASE] = r->bv;
	size_t n = ldb_req_render(&r->ops->search, variant, vals, r->msgid, dst, cap);
	if (n > 0 && c->rnd_string)
		ldb_req_fill_bytes(&r->ops->search, variant, LDB_FIELD_FILTER, dst, n, c->rnd_ascii, r->rng);
	return n;
}

/* Where the LDAPMessage m[0..n) goes on after its messageID, or 0. */
static size_t after_msgid(const uint8_t *m, size_t n)
{
	size_t i = 2;
	if (n < 2 || m[0] != 0x30)
		return 0;
	if (m[1] & 0x80)
		i += m[1] & 0x7f;
	if (i + 2 > n || m[i] != 0x02)
		return 0;
	i += 2 + (size_t)m[i + 1];
	return i <= n ? i : 0;
}

/* A page: the first one rendered by its path and kept, a later one the kept
 * request with a fresh message id; then the page's control. */
static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct page_state *ps = (struct page_state *)r->state;
	size_t n;

	if (ps == NULL)
		return (long)render_request(r, dst, cap);
	if (r->round > 0) {
		n = ldb_wire_frame(dst, cap, r->msgid, ps->req, ps->rlen);
	} else {
		n = render_request(r, dst, cap);
		size_t at = after_msgid(dst, n);
		if (at == 0 || n - at > r->ops->search.maxlen)
			return 0;
		ps->rlen = (uint32_t)(n - at);
		memcpy(ps->req, dst + at, ps->rlen);
		ps->clen = 0;
	}
	if (n == 0)
		return 0;
	uint8_t ctl[LDB_CTL_PAGED_MAX(PAGE_COOKIE_MAX)];
	size_t k = ldb_ctl_put_paged(ctl, sizeof ctl, (uint32_t)r->ops->cfg->ctl.page_size, ps->cookie, ps->clen);
	return (long)ldb_ctl_append(dst, n, cap, ctl, k, NULL, 0);
}

/* The next page, while the server's cookie is not empty.  A cookie longer
 * than the state holds ends the search as a client error. */
static bool more(const struct ldb_op_req *r, struct ldb_op_reply *rep)
{
	struct page_state *ps = (struct page_state *)r->state;
	const uint8_t *v, *cookie;
	size_t vlen, clen;

	if (rep->rc != LDAP_SUCCESS || rep->resp->op != LDAP_RES_SEARCH_RESULT ||
	    !ldb_ctl_find(rep->msg, rep->resp->len, LDB_CTL_PAGED_OID, &v, &vlen) ||
	    !ldb_ctl_paged_cookie(v, vlen, &cookie, &clen) || clen == 0)
		return false;
	if (clen > PAGE_COOKIE_MAX) {
		rep->rc = LDAP_NO_MEMORY;
		return false;
	}
	memcpy(ps->cookie, cookie, clen);
	ps->clen = (uint16_t)clen;
	return true;
}

static const char *scope_name(int scope)
{
	switch (scope) {
	case LDB_SCOPE_BASE: return "base";
	case LDB_SCOPE_ONE: return "one level";
	default: return "subtree";
	}
}

static void print(const struct ldb_config *c, FILE *out)
{
	fprintf(out, LDB_VKEY "%s\n", "Scope", scope_name(c->scope));
	fprintf(out, LDB_VKEY "%d\n", "Attrsonly", c->attrsonly);
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	return snprintf(out, cap, "Cannot ldap_search(), error=%d (%s)", f->code, f->text);
}

/* attrlist, srchnentries and deref are a search's (deref also an
 * inetOrgPerson add's) */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	(void)mix;
	if (c->nattrs > 0)
		snprintf(why, cap, "-e %s needs -e esearch", c->random_attrlist ? "randomattrlist" : "attrlist");
	else if (c->expect_entries >= 0)
		snprintf(why, cap, "-e srchnentries needs -e esearch");
	else if (c->deref_attr != NULL && c->weight[LDB_OP_ADD] == 0)
		snprintf(why, cap, "-e deref needs -e esearch (or -e add with inetOrgPerson)");
	else
		return 0;
	return -1;
}

const struct ldb_opdesc ldb_op_search = {
	.name = "search",
	.controls = LDB_CTLF_SORT | LDB_CTLF_ASSERTION | LDB_CTLF_PROXY | LDB_CTLF_MANAGEDSAIT | LDB_CTLF_SUBENTRIES |
	            LDB_CTLF_SESSION | LDB_CTLF_PAGED,
	.json = "search",
	.keyword = "esearch",
	.monitor = "Search",
	.snmp = "searchops",
	.response = true,
	.filter = true,
	.entries = true,
	.reads = true,
	.fallback = true,
	.config_word = true,
	.pass_rank = 5,
	.print_rank = 1,
	.check_at = LDB_CHECK_FILTER,
	.expected = { LDAP_NO_SUCH_OBJECT },
	.option_text = "-e esearch",
	.check = check,
	.prepare = prepare,
	.render = render,
	.more = more,
	.errline = errline,
	.stray = stray,
	.mode = " exact_search",
	.print_ldclt = print,
};
