/* rename (-e rename): the entry's number moved one range up, or (withnewparent)
 * the same RDN under --new-parent. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

static int check_numbered(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	return ldb_op_check_numbered(c, mix, "rename", why, cap);
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	size_t rdnlen = 0;
	const char *newsup = NULL;
	size_t newsuplen = 0;

	if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	if (c->withnewparent) {
		/* the same RDN under --new-parent */
		const char *a, *val;
		size_t alen, vlen;
		ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
		rdnlen = (size_t)(val + vlen - wc->dn);
		memcpy(wc->aux, wc->dn, rdnlen);
		newsup = c->new_parent;
		newsuplen = strlen(c->new_parent);
	} else {
		/* the number moved one range up: uid=user1042 -> uid=user2042 for -r1000 -R1999 */
		int64_t span = c->range_high - c->range_low + 1;
		rdnlen = ldb_dn_put_pattern(&c->filter_pat, r->v + span, wc->aux, sizeof wc->aux);
		if (rdnlen == 0)
			return 0;
		if (rdnlen >= 2 && wc->aux[0] == '(' && wc->aux[rdnlen - 1] == ')') {
			memmove(wc->aux, wc->aux + 1, rdnlen - 2);
			rdnlen -= 2;
		}
	}
	return (long)ldb_wire_put_modrdn(dst, cap, r->msgid, wc->dn, wc->dnlen, wc->aux, rdnlen, 1, newsup, newsuplen);
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	fputs(" rename_entries", out);
	if (c->withnewparent)
		fputs(" withnewparent", out);
}

static void print(const struct ldb_config *c, FILE *out)
{
	if (c->new_parent != NULL)
		fprintf(out, LDB_VKEY "%s\n", "New parent", c->new_parent);
}

const struct ldb_opdesc ldb_op_rename = {
	.name = "rename",
	.json = "rename",
	.keyword = "rename",
	.monitor = "Modrdn",
	.snmp = "modifyrdnops",
	.response = true,
	.pass_rank = 6,
	.print_rank = 4,
	.expected = { LDAP_ALREADY_EXISTS, LDAP_NO_SUCH_OBJECT, LDAP_PROTOCOL_ERROR },
	.option_text = "-e rename",
	.dn = LDB_OPDN_FILTER,
	.check = check_numbered,
	.writes = true,
	.render = render,
	.print_mode = print_mode,
	.print = print,
};
