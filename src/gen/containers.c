/* --suffix, --parent and the container entries between them. */
#include "gen/containers.h"

#include <ldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/out.h"
#include "ldif/entry.h"

/* DNs and the naming-context entries */

static int rdn_kind_of(LDAPRDN rdn, enum rdn_kind *kind, const char *what, char *err, size_t cap)
{
	if (rdn[0] == NULL || rdn[1] != NULL) {
		gen_err(err, cap, "%s: multi-valued RDNs are not supported", what);
		return -1;
	}
	LDAPAVA *ava = rdn[0];
	if (ava->la_flags & LDAP_AVA_BINARY) {
		gen_err(err, cap, "%s: #hex RDN values are not supported", what);
		return -1;
	}
	const char *a = ava->la_attr.bv_val;
	size_t n = ava->la_attr.bv_len;
	if (n == 2 && strncasecmp(a, "dc", 2) == 0)
		*kind = RDN_DC;
	else if (n == 1 && strncasecmp(a, "o", 1) == 0)
		*kind = RDN_O;
	else if (n == 2 && strncasecmp(a, "ou", 2) == 0)
		*kind = RDN_OU;
	else {
		gen_err(err, cap, "%s: RDN attribute '%.*s' is not one of dc, o, ou", what, (int)n, a);
		return -1;
	}
	if (ava->la_value.bv_len == 0 || memchr(ava->la_value.bv_val, '\0', ava->la_value.bv_len) != NULL) {
		gen_err(err, cap, "%s: empty or binary RDN value", what);
		return -1;
	}
	return 0;
}

static bool rdn_equal(LDAPRDN a, LDAPRDN b)
{
	LDAPAVA *x = a[0], *y = b[0];

	if (a[1] != NULL || b[1] != NULL)
		return false;
	return x->la_attr.bv_len == y->la_attr.bv_len &&
	       strncasecmp(x->la_attr.bv_val, y->la_attr.bv_val, x->la_attr.bv_len) == 0 &&
	       x->la_value.bv_len == y->la_value.bv_len &&
	       strncasecmp(x->la_value.bv_val, y->la_value.bv_val, x->la_value.bv_len) == 0;
}

static size_t dn_len(LDAPDN dn)
{
	size_t n = 0;

	while (dn != NULL && dn[n] != NULL)
		n++;
	return n;
}

void gen_containers_free(struct gen_containers *t)
{
	for (size_t i = 0; i < t->count; i++) {
		ldap_memfree(t->nodes[i].dn);
		free(t->nodes[i].value);
	}
	free(t->nodes);
	free(t->domain);
	memset(t, 0, sizeof(*t));
}

int gen_parse_dn(const char *opt, const char *s, LDAPDN *dn, char *err, size_t cap)
{
	*dn = NULL;
	if (s == NULL || *s == '\0') {
		gen_err(err, cap, "%s: empty DN", opt);
		return -1;
	}
	if (ldap_str2dn(s, dn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS || *dn == NULL) {
		if (*dn != NULL)
			ldap_dnfree(*dn);
		*dn = NULL;
		gen_err(err, cap, "%s: '%s' is not a valid DN", opt, s);
		return -1;
	}
	return 0;
}

/* The suffix's RDNs are single-valued, its first is dc, o or ou, and the
 * parent (np RDNs) ends with the suffix (ns RDNs).  @return 0 or -1 with err. */
static int containers_check(LDAPDN sdn, size_t ns, LDAPDN pdn, size_t np, const char *suffix, const char *parent,
                            const char *popt, char *err, size_t cap)
{
	for (size_t i = 0; i < ns; i++) {
		enum rdn_kind k;
		if (sdn[i][0] == NULL || sdn[i][1] != NULL) {
			gen_err(err, cap, "--suffix: multi-valued RDNs are not supported");
			return -1;
		}
		if (i == 0 && rdn_kind_of(sdn[i], &k, "--suffix", err, cap) != 0)
			return -1;
	}
	if (np < ns) {
		gen_err(err, cap, "%s '%s' is not under --suffix '%s'", popt, parent, suffix);
		return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		if (pdn[np - ns + i][1] != NULL || !rdn_equal(pdn[np - ns + i], sdn[i])) {
			gen_err(err, cap, "%s '%s' is not under --suffix '%s'", popt, parent, suffix);
			return -1;
		}
	}
	return 0;
}

/* t's nodes: the suffix (ns RDNs) and each entry down to the parent pdn.
 * @return 0 or -1 with err. */
static int containers_nodes(struct gen_containers *t, LDAPDN pdn, size_t np, size_t ns, const char *popt, char *err,
                            size_t cap)
{
	t->count = np - ns + 1;
	t->nodes = calloc(t->count, sizeof(*t->nodes));
	if (t->nodes == NULL) {
		gen_err(err, cap, "out of memory");
		t->count = 0;
		return -1;
	}
	/* node j (0 = suffix) is the DN made of pdn[np - ns - j ..]. */
	for (size_t j = 0; j < t->count; j++) {
		size_t first = np - ns - j;
		LDAPRDN rdn = pdn[first];
		struct gen_node *nd = &t->nodes[j];

		if (rdn_kind_of(rdn, &nd->kind, j == 0 ? "--suffix" : popt, err, cap) != 0)
			return -1;
		nd->value = strndup(rdn[0]->la_value.bv_val, rdn[0]->la_value.bv_len);
		if (nd->value == NULL ||
		    ldap_dn2str(pdn + first, &nd->dn, LDAP_DN_FORMAT_LDAPV3 | LDAP_DN_PRETTY) != LDAP_SUCCESS ||
		    nd->dn == NULL) {
			gen_err(err, cap, "cannot build the DN of the entry %zu below the suffix", j);
			return -1;
		}
	}
	return 0;
}

/* The mail domain: the dc= values of the suffix, in order, joined with dots;
 * example.com without any.  NULL when memory ran out. */
static char *containers_domain(LDAPDN sdn, size_t ns)
{
	size_t dlen = 0;

	for (size_t i = 0; i < ns; i++) {
		LDAPAVA *a = sdn[i][0];
		if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0)
			dlen += a->la_value.bv_len + 1;
	}
	if (dlen == 0)
		return strdup("example.com");
	char *d = malloc(dlen), *p = d;

	if (d == NULL)
		return NULL;
	for (size_t i = 0; i < ns; i++) {
		LDAPAVA *a = sdn[i][0];
		if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0) {
			if (p != d)
				*p++ = '.';
			memcpy(p, a->la_value.bv_val, a->la_value.bv_len);
			p += a->la_value.bv_len;
		}
	}
	*p = '\0';
	return d;
}

int gen_containers_build(struct gen_containers *t, const char *suffix, const char *parent, const char *popt, char *err,
                         size_t cap)
{
	LDAPDN sdn = NULL, pdn = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (gen_parse_dn("--suffix", suffix, &sdn, err, cap) != 0 || gen_parse_dn(popt, parent, &pdn, err, cap) != 0)
		goto out;
	size_t ns = dn_len(sdn), np = dn_len(pdn);

	if (containers_check(sdn, ns, pdn, np, suffix, parent, popt, err, cap) != 0 ||
	    containers_nodes(t, pdn, np, ns, popt, err, cap) != 0)
		goto out;
	t->domain = containers_domain(sdn, ns);
	if (t->domain == NULL) {
		gen_err(err, cap, "out of memory");
		goto out;
	}
	rc = 0;
out:
	if (sdn != NULL)
		ldap_dnfree(sdn);
	if (pdn != NULL)
		ldap_dnfree(pdn);
	if (rc != 0)
		gen_containers_free(t);
	return rc;
}

void gen_container_write(struct gen_out *o, const char *attr, const char *val, size_t vlen, const char *extra,
                         size_t xlen)
{
	struct ldb_put_value v[LDB_ENTRY_CONTAINER_MAX];
	struct ldb_entry e;

	ldb_entry_init(&e, v, LDB_ENTRY_CONTAINER_MAX, NULL, 0);
	if (ldb_entry_container(&e, attr, strlen(attr), val, vlen) < 0) {
		gen_out_broken(o);
		return;
	}
	gen_out_entry(o, &e);
	if (extra != NULL)
		gen_out_attr(o, "description", extra, xlen);
	gen_out_mem(o, "\n", 1);
}

void gen_node_write(const struct gen_node *nd, struct gen_out *o, bool change_add)
{
	static const char *const kind_attr[] = { [RDN_DC] = "dc", [RDN_O] = "o", [RDN_OU] = "ou" };

	gen_out_attr_str(o, "dn", nd->dn);
	if (change_add)
		gen_out_str(o, "changetype: add\n");
	gen_container_write(o, kind_attr[nd->kind], nd->value, strlen(nd->value), NULL, 0);
}

void gen_containers_write(const struct gen_containers *t, struct gen_out *o, bool change_add)
{
	for (size_t i = 0; i < t->count; i++)
		gen_node_write(&t->nodes[i], o, change_add);
}

const char *gen_containers_bottom(const struct gen_containers *t)
{
	return t->nodes[t->count - 1].dn;
}

const char *gen_people_default(const char *given, const char *suffix, char **owned, char *err, size_t cap)
{
	*owned = NULL;
	if (given != NULL)
		return given;
	if (asprintf(owned, "ou=People,%s", suffix) < 0) {
		*owned = NULL;
		gen_err(err, cap, "out of memory");
		return NULL;
	}
	return *owned;
}
