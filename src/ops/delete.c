/* delete (-e delete): the entry whose RDN is -f with the operation's number. */
#include "ops/ops.h"

#include <ldap.h>

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->valmode == LDB_VAL_FIXED) {
		snprintf(why, cap, "%s needs -e incr or -e random (the XXX of -f numbers the entries)",
		         mix ? "--mix delete" : "-e delete");
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	(void)err;
	(void)cap;
	o->room[LDB_OP_DELETE] = LDB_OP_WRITE_ROOM;
	o->scratch = true;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct ldb_wctx *wc = r->wc;
	if (ldb_dn_build(r->ops->cfg, r->v, r->bv, wc, NULL, 0) != 0)
		return 0;
	return (long)ldb_wire_put_delete(dst, cap, r->msgid, wc->dn, wc->dnlen);
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	(void)c;
	fputs(" delete_entries", out);
}

static const char *option(const struct ldb_config *c)
{
	(void)c;
	return "-e delete";
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
	.option = option,
	.dn = LDB_OPDN_FILTER,
	.check = check,
	.prepare = prepare,
	.render = render,
	.print_mode = print_mode,
};
