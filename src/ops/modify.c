/* modify: --modify OP:ATTR=PATTERN..., or ldclt's attreplace=ATTR:MASK (the
 * mask's X run random per operation) or attreplacefile=ATTR:FILE. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

static bool asked(const struct ldb_config *c)
{
	return c->nmods > 0 || c->attreplace_attr != NULL || c->attreplacefile_attr != NULL;
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (mix && !asked(c)) {
		snprintf(why, cap, "--mix modify needs --modify, -e attreplace or -e attreplacefile");
		return -1;
	}
	return 0;
}

/* --modify's list, each value the pattern with the operation's number */
static int spec_mods(const struct ldb_config *c, int64_t v, struct ldb_wctx *wc)
{
	int n = 0;
	size_t used = 0;
	for (int i = 0; i < c->nmods; i++) {
		const struct ldb_modspec *m = &c->mods[i];
		if (m->val.text == NULL || m->val.text[0] == '\0') {
			wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, NULL, 0 };
			continue;
		}
		size_t len = ldb_dn_put_pattern(&m->val, v, wc->vals + used, sizeof wc->vals - used);
		if (len == 0)
			return -1;
		wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, wc->vals + used, len };
		used += len;
	}
	return n;
}

/* ldclt's attreplace: the mask's X run becomes a random string (ldclt's
 * printable set, values/pattern) */
static int attreplace_mod(const struct ldb_config *c, struct ldb_rng *rng, struct ldb_wctx *wc)
{
	const struct ldb_pattern *p = &c->attreplace_mask;
	size_t len = p->head_len + p->width + p->tail_len;
	if (len > sizeof wc->vals)
		return -1;
	memcpy(wc->vals, p->text, p->head_len);
	ldb_put_printable(wc->vals + p->head_len, p->width, rng);
	memcpy(wc->vals + p->head_len + p->width, p->tail, p->tail_len);
	wc->pm[0] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplace_attr, wc->vals, len };
	return 1;
}

/* The form: --modify wins, then attreplace, then attreplacefile. */
static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	int n;

	if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	if (c->nmods > 0)
		n = spec_mods(c, r->v, wc);
	else if (c->attreplace_attr != NULL)
		n = attreplace_mod(c, r->rng, wc);
	else {
		wc->pm[0] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplacefile_attr, c->attreplacefile_data,
			                          c->attreplacefile_len };
		n = 1;
	}
	if (n < 0)
		return 0;
	return (long)ldb_wire_put_modify(dst, cap, r->msgid, wc->dn, wc->dnlen, wc->pm, n);
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	if (c->attreplace_attr != NULL)
		fputs(" attreplace_entries", out);
	if (c->attreplacefile_attr != NULL)
		fputs(" attreplacefile_entries", out);
}

static void print(const struct ldb_config *c, FILE *out)
{
	if (c->attreplace_attr != NULL)
		fprintf(out, LDB_VKEY "%s: \"%s\"\n", "Attreplace", c->attreplace_attr,
		        c->attreplace_mask.text ? c->attreplace_mask.text : "");
	if (c->attreplacefile_attr != NULL)
		fprintf(out, LDB_VKEY "%s: %zu bytes\n", "Attreplacefile", c->attreplacefile_attr,
		        c->attreplacefile_len);
	for (int i = 0; i < c->nmods; i++)
		fprintf(out, LDB_VKEY "%s %s \"%s\"\n", "Modify",
		        c->mods[i].op == LDB_MOD_ADD      ? "add"
		        : c->mods[i].op == LDB_MOD_DELETE ? "delete"
		                                          : "replace",
		        c->mods[i].attr, c->mods[i].val.text ? c->mods[i].val.text : "");
}

static const char *option(const struct ldb_config *c)
{
	return c->attreplace_attr != NULL       ? "-e attreplace"
	       : c->attreplacefile_attr != NULL ? "-e attreplacefile"
	                                        : "--modify";
}

const struct ldb_opdesc ldb_op_modify = {
	.name = "modify",
	.json = "modify",
	.monitor = "Modify",
	.snmp = "modifyentryops",
	.response = true,
	.pass_rank = 1,
	.print_rank = 5,
	.check_at = LDB_CHECK_MIX,
	.expected = { LDAP_NO_SUCH_OBJECT },
	.asked = asked,
	.option = option,
	.dn = LDB_OPDN_FILTER,
	.check = check,
	.writes = true,
	.render = render,
	.print_mode = print_mode,
	.print = print,
};
