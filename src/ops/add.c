/* add (-e add): an entry of one of ldclt's classes (person, emailPerson,
 * inetOrgPerson) or of an object= template; its missing parents on demand. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

#include "ldif/entry.h"

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix add" : "-e add";
	if (c->add_class == LDB_CLASS_NONE && c->object_file == NULL) {
		snprintf(why, cap, "%s needs the entries' shape: -e person, emailPerson, inetOrgPerson or object=FILE",
		         kw);
		return -1;
	}
	if (c->valmode == LDB_VAL_FIXED && c->rdn_spec == NULL) {
		snprintf(why, cap, "%s needs -e incr, -e random or -e rdn=", kw);
		return -1;
	}
	return 0;
}

/* The entry (ldif/entry: an object= template's values with the RDN's, or one
 * of ldclt's classes named by -f's RDN), its text in the client's aux. */
static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	struct ldb_obj_entry e;
	struct ldb_entry en;
	const char *a, *val;
	size_t alen, vlen;

	if (c->objtmpl != NULL) {
		int rc = ldb_objtmpl_render(c->objtmpl, &wc->cur, r->rng, wc->scratch, wc->scratch_cap, &e);
		if (rc == 0)
			return -1;
		if (rc < 0 || ldb_dn_build(c, r->v, r->bv, r->rng, wc, e.rdn_len > 0 ? e.rdn : NULL, e.rdn_len) != 0)
			return 0;
	} else if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0) {
		return 0;
	}
	ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
	if (c->rnd_string && c->objtmpl == NULL) { /* the value as the server reads the RDN's */
		val = wc->rawval;
		vlen = wc->rawlen;
	}
	ldb_entry_init(&en, wc->pv, (int)(sizeof wc->pv / sizeof wc->pv[0]), wc->aux, sizeof wc->aux);
	if (ldb_entry_add(&en, c->add_class, c->objtmpl != NULL ? &e : NULL, a, alen, val, vlen) < 0)
		return 0;
	return (long)ldb_wire_put_add(dst, cap, r->msgid, wc->dn, wc->dnlen, en.v, en.n);
}

size_t ldb_add_render_parent(const char *dn, size_t dnlen, int level, int32_t msgid, uint8_t *dst, size_t cap)
{
	/* skip `level` RDNs */
	size_t i = 0;
	for (int l = 0; l < level; l++) {
		while (i < dnlen && dn[i] != ',') {
			if (dn[i] == '\\' && i + 1 < dnlen)
				i++;
			i++;
		}
		if (i >= dnlen)
			return 0;
		i++; /* the comma */
	}
	const char *anc = dn + i, *a, *val;
	size_t anclen = dnlen - i, alen, vlen;
	struct ldb_put_value pv[LDB_ENTRY_CONTAINER_MAX];
	struct ldb_entry e;

	ldb_dn_split_rdn(anc, anclen, &a, &alen, &val, &vlen);
	ldb_entry_init(&e, pv, LDB_ENTRY_CONTAINER_MAX, NULL, 0);
	if (alen == 0 || vlen == 0 || ldb_entry_container(&e, a, alen, val, vlen) < 0)
		return 0; /* no such ancestor, or an RDN type we do not know how to create */
	return ldb_wire_put_add(dst, cap, msgid, anc, anclen, e.v, e.n);
}

const struct ldb_opdesc ldb_op_add = {
	.name = "add",
	.json = "add",
	.keyword = "add",
	.monitor = "Add",
	.snmp = "addentryops",
	.response = true,
	.parents = true,
	.pass_rank = 0,
	.print_rank = 2,
	.expected = { LDAP_ALREADY_EXISTS },
	.option_text = "-e add",
	.dn = LDB_OPDN_FILTER_OR_RDN,
	.check = check,
	.writes = true,
	.render = render,
	.mode = " add_entries",
};
