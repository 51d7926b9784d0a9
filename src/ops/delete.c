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

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	if (f->dn_known)
		return snprintf(out, cap, "Cannot ldap_delete (%.*s), error=%d (%s)", f->dnlen, f->dn, f->code,
		                f->text);
	return snprintf(out, cap, "Cannot ldap_delete(), error=%d (%s)", f->code, f->text);
}

/* -S: the entry is gone */
static int repl_looks(const struct ldb_config *c, const struct ldb_repl_change *ch, struct ldb_repl_view *v)
{
	if (ldb_dn_build(c, ch->v, ch->bv, NULL, &v->wc, NULL, 0) != 0)
		return -1;
	v->look[0] = (struct ldb_repl_look){ .dn = v->wc.dn, .present = false };
	return 1;
}

const struct ldb_opdesc ldb_op_delete = {
	.name = "delete",
	.controls = LDB_CTLF_ASSERTION | LDB_CTLF_PROXY | LDB_CTLF_PREREAD | LDB_CTLF_MANAGEDSAIT | LDB_CTLF_SESSION,
	.json = "delete",
	.keyword = "delete",
	.monitor = "Delete",
	.snmp = "removeentryops",
	.response = true,
	.changes = LDB_CHANGES_ENTRIES,
	.seen = LDB_SEEN_GONE,
	.pass_rank = 3,
	.print_rank = 3,
	.expected = { LDAP_NO_SUCH_OBJECT },
	.option_text = "-e delete",
	.dn = LDB_OPDN_FILTER,
	.check = check_numbered,
	.writes = true,
	.render = render,
	.errline = errline,
	.repl_looks = repl_looks,
	.mode = " delete_entries",
};
