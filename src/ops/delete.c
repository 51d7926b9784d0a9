/* delete (-e delete): the entry whose RDN is -f with the operation's number. */
#include "ops/ops.h"

#include <ldap.h>

static int check_numbered(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	return ldb_op_check_numbered(c, mix, "delete", why, cap);
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct ldb_wctx *wc = r->wc;
	if (ldb_dn_build(r->ops->cfg, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	return (long)ldb_wire_put_delete(dst, cap, r->msgid, wc->dn, wc->dnlen);
}

const struct ldb_opdesc ldb_op_delete = {
	.name = "delete",
	.json = "delete",
	.keyword = "delete",
	.monitor = "Delete",
	.snmp = "removeentryops",
	.response = true,
	.pass_rank = 3,
	.print_rank = 3,
	.expected = { LDAP_NO_SUCH_OBJECT },
	.option_text = "-e delete",
	.dn = LDB_OPDN_FILTER,
	.check = check_numbered,
	.writes = true,
	.render = render,
	.mode = " delete_entries",
};
