/* compare (--compare ATTR=PATTERN): true and false are both successes. */
#include "ops/ops.h"

#include <ldap.h>

static bool asked(const struct ldb_config *c)
{
	return c->compare_attr != NULL;
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (mix && c->compare_attr == NULL) {
		snprintf(why, cap, "--mix compare needs --compare ATTR=PATTERN");
		return -1;
	}
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	size_t len = ldb_dn_put_value(&c->compare_val, r->v, wc, r->rng, wc->vals, sizeof wc->vals);
	if (len == 0 && c->compare_val.text != NULL && c->compare_val.text[0] != '\0')
		return 0;
	return (long)ldb_wire_put_compare(dst, cap, r->msgid, wc->dn, wc->dnlen, c->compare_attr, wc->vals, len);
}

static void print(const struct ldb_config *c, FILE *out)
{
	fprintf(out, LDB_VKEY "%s \"%s\"\n", "Compare", c->compare_attr,
	        c->compare_val.text ? c->compare_val.text : "");
}

/* with --mix, --compare needs compare in it */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (!mix || c->compare_attr == NULL)
		return 0;
	snprintf(why, cap, "--compare needs compare in --mix");
	return -1;
}

const struct ldb_opdesc ldb_op_compare = {
	.name = "compare",
	.controls = LDB_CTLF_ASSERTION | LDB_CTLF_PROXY | LDB_CTLF_MANAGEDSAIT | LDB_CTLF_SESSION,
	.json = "compare",
	.monitor = "Compare",
	.snmp = "compareops",
	.response = true,
	.pass_rank = 2,
	.print_rank = 6,
	.check_at = LDB_CHECK_MIX,
	.also_ok = { LDAP_COMPARE_FALSE, LDAP_COMPARE_TRUE },
	.expected = { LDAP_NO_SUCH_OBJECT },
	.asked = asked,
	.option_text = "--compare",
	.dn = LDB_OPDN_FILTER,
	.check = check,
	.writes = true,
	.render = render,
	.stray = stray,
	.print = print,
};
