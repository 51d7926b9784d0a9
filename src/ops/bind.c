/* bind (-e bindonly): the template of the bind that also opens connections;
 * the DN (and password) from randombinddn, or a line of randombinddnfromfile. */
#include "ops/ops.h"

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->bind_dn == NULL && c->binddn_file == NULL && c->sasl_mech == NULL) {
		snprintf(why, cap, "%s needs -D (or -e randombinddnfromfile, or -o mech=)",
		         mix ? "--mix bind" : "-e bindonly");
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	if (ldb_reqset_build_bind(&o->bind, o->cfg, err, cap) != 0)
		return -1;
	o->room[LDB_OP_BIND] = o->bind.maxlen;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	int variant = 0;

	if (c->binddn_file_n > 0)
		variant = (int)ldb_rng_range(r->rng, 0, (int64_t)c->binddn_file_n - 1);
	else if (r->ops->bind.var[LDB_FIELD_BINDDN])
		vals[LDB_FIELD_BINDDN] = ldb_rng_range(r->rng, c->binddn_low, c->binddn_high);
	return (long)ldb_req_render(&r->ops->bind, variant, vals, r->msgid, dst, cap);
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	if (f->cfg->sasl_mech != NULL)
		return snprintf(out, cap, "Cannot ldap_sasl_bind_s, error=%d (%s)", f->code, f->text);
	/* ldclt prints the password here; ldbench never does */
	return snprintf(out, cap, "Cannot ldap_simple_bind_s (%s, *), error=%d (%s)",
	                f->cfg->bind_dn != NULL ? f->cfg->bind_dn : "", f->code, f->text);
}

const struct ldb_opdesc ldb_op_bind = {
	.name = "bind",
	.controls = LDB_CTLF_SESSION,
	.json = "bind",
	.keyword = "bindonly",
	.monitor = "Bind",
	.snmp = "simpleauthbinds",
	.snmp_also = "strongauthbinds",
	.config_word = true,
	.fatal = true,
	.response = true,
	.alone = true,
	.connect_bind = true,
	.pass_rank = 4,
	.print_rank = 0,
	.check_at = LDB_CHECK_BINDER,
	.expected_any = true,
	.option_text = "-e bindonly",
	.check = check,
	.prepare = prepare,
	.render = render,
	.errline = errline,
	.mode = " bindonly",
};
