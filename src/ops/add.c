/* add (-e add): an entry of one of ldclt's classes (person, emailPerson,
 * inetOrgPerson) or of an object= template; its missing parents on demand. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

#include "ldif/genldif.h"

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix add" : "-e add";
	if (c->add_class == LDB_CLASS_NONE && c->object_file == NULL) {
		snprintf(why, cap, "%s needs the entries' shape: -e person, emailPerson, inetOrgPerson or object=FILE", kw);
		return -1;
	}
	if (c->valmode == LDB_VAL_FIXED && c->rdn_spec == NULL) {
		snprintf(why, cap, "%s needs -e incr, -e random or -e rdn=", kw);
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	(void)err;
	(void)cap;
	o->room[LDB_OP_ADD] = LDB_OP_WRITE_ROOM;
	o->scratch = true;
	return 0;
}

/* the entry of an object= template; -1 past a NOLOOP top, 0 no room */
static int template_entry(const struct ldb_op_req *r, int *n)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	struct ldb_obj_entry e;
	int rc = ldb_objtmpl_render(c->objtmpl, &wc->cur, r->rng, wc->scratch, wc->scratch_cap, &e);
	if (rc == 0)
		return -1;
	if (rc < 0)
		return 0;
	if (ldb_dn_build(c, r->v, r->bv, wc, e.rdn_len > 0 ? e.rdn : NULL, e.rdn_len) != 0)
		return 0;
	bool has_rdn = false;
	const char *a, *val;
	size_t alen, vlen;
	ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
	*n = 0;
	for (int i = 0; i < e.n; i++) {
		wc->pv[(*n)++] = (struct ldb_put_value){ e.v[i].type, e.v[i].val, e.v[i].len };
		if (ldb_dn_same_attr(a, alen, e.v[i].type) && e.v[i].len == vlen && memcmp(e.v[i].val, val, vlen) == 0)
			has_rdn = true;
	}
	/* the RDN's value must be in the entry (OpenLDAP refuses it otherwise) */
	if (!has_rdn && alen + 1 <= 64 && *n < (int)(sizeof wc->pv / sizeof wc->pv[0])) {
		memcpy(wc->aux, a, alen);
		wc->aux[alen] = '\0';
		wc->pv[(*n)++] = (struct ldb_put_value){ wc->aux, val, vlen };
	}
	return 1;
}

/* the entry of a class, named by -f's RDN */
static int class_entry(const struct ldb_op_req *r, int *n)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	if (ldb_dn_build(c, r->v, r->bv, wc, NULL, 0) != 0)
		return 0;
	const char *a, *val;
	size_t alen, vlen;
	ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
	/* a NUL-terminated copy of the RDN's type */
	if (alen + 1 > 64)
		return 0;
	memcpy(wc->aux, a, alen);
	wc->aux[alen] = '\0';
	*n = ldb_class_entry(c->add_class, wc->aux, alen, val, vlen, wc->pv, (int)(sizeof wc->pv / sizeof wc->pv[0]));
	return *n < 0 ? 0 : 1;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct ldb_wctx *wc = r->wc;
	int n = 0;
	int rc = r->ops->cfg->objtmpl != NULL ? template_entry(r, &n) : class_entry(r, &n);
	if (rc <= 0)
		return rc;
	return (long)ldb_wire_put_add(dst, cap, r->msgid, wc->dn, wc->dnlen, wc->pv, n);
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
	ldb_dn_split_rdn(anc, anclen, &a, &alen, &val, &vlen);
	if (alen == 0 || vlen == 0)
		return 0;
	/* type, its object class(es); dc= is also an organization, which needs o: */
	static const struct { const char *type, *oc, *oc2, *also; } shapes[] = {
		{ "ou", "organizationalUnit", NULL, NULL }, { "o", "organization", NULL, NULL },
		{ "cn", "organizationalRole", NULL, NULL }, { "dc", "dcObject", "organization", "o" },
		{ "l", "locality", NULL, NULL },
	};
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		if (!ldb_dn_same_attr(a, alen, shapes[s].type))
			continue;
		struct ldb_put_value pv[5];
		int n = 0;
		pv[n++] = (struct ldb_put_value){ "objectClass", "top", 3 };
		pv[n++] = (struct ldb_put_value){ "objectClass", shapes[s].oc, strlen(shapes[s].oc) };
		if (shapes[s].oc2 != NULL)
			pv[n++] = (struct ldb_put_value){ "objectClass", shapes[s].oc2, strlen(shapes[s].oc2) };
		pv[n++] = (struct ldb_put_value){ shapes[s].type, val, vlen };
		if (shapes[s].also != NULL)
			pv[n++] = (struct ldb_put_value){ shapes[s].also, val, vlen };
		return ldb_wire_put_add(dst, cap, msgid, anc, anclen, pv, n);
	}
	return 0; /* an RDN type we do not know how to create */
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	(void)c;
	fputs(" add_entries", out);
}

static const char *option(const struct ldb_config *c)
{
	(void)c;
	return "-e add";
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
	.option = option,
	.dn = LDB_OPDN_FILTER_OR_RDN,
	.check = check,
	.prepare = prepare,
	.render = render,
	.print_mode = print_mode,
};
