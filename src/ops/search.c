/* search (-e esearch): the request template encoded once, patched per operation. */
#include "ops/ops.h"

#include <ldap.h>

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->filter == NULL) {
		snprintf(why, cap, "%s needs a filter (-f)", mix ? "--mix search" : "-e esearch");
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	if (ldb_reqset_build_search(&o->search, o->cfg, err, cap) != 0)
		return -1;
	o->room[LDB_OP_SEARCH] = o->search.maxlen;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	int variant = 0;

	vals[LDB_FIELD_FILTER] = r->v;
	vals[LDB_FIELD_BASE] = r->bv;
	if (c->random_attrlist && c->nattrs > 0)
		variant = (int)ldb_rng_range(r->rng, 0, c->nattrs - 1);
	size_t n = ldb_req_render(&r->ops->search, variant, vals, r->msgid, dst, cap);
	if (n > 0 && c->rnd_string)
		ldb_req_fill_bytes(&r->ops->search, variant, LDB_FIELD_FILTER, dst, n, c->rnd_ascii, r->rng);
	return (long)n;
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
	            LDB_CTLF_SESSION,
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
	.errline = errline,
	.stray = stray,
	.mode = " exact_search",
	.print_ldclt = print,
};
