/* The dsctl ldifgen dialect: users, groups and mod-load as ldifgen writes them. */
#include "gen/ldifgen.h"

#include <ldap.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/config.h"
#include "gen/containers.h"
#include "gen/groups.h"
#include "gen/modload.h"
#include "gen/out.h"
#include "gen/users.h"
#include "util/util.h"
#include "values/rng.h"

/* An ldifgen-shaped emitter's output buffer and its random numbers (a fresh
 * seed, as dsctl's). */
static int lg_start(struct gen_out *o, struct ldb_rng *r, FILE *f, char *err, size_t cap)
{
	if (gen_out_init(o, f) != 0) {
		gen_err(err, cap, "out of memory");
		return -1;
	}
	ldb_rng_seed(r, ldb_rng_fresh_seed(), 0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* gen users --generic (--shape ldifgen): the tree of `dsctl ldifgen users
 * --generic`, entry for entry where a filter or a script can notice: the
 * suffix entry with the three ACIs ldifgen writes, its seven organizational
 * units, the parent (when it is not one of them), then users numbered
 * 1 + I .. N + I (I = --start-idx, default 0) zero-padded to the digits of N,
 * each with ldifgen's attribute set.  The random parts (given and family
 * names, l, title, the ou attribute) are our own lists; the certificate is a
 * throwaway self-signed one of about the same size. */

static const char *const lg_ous[] = {
	"accounting", "product development", "product testing", "human resources", "payroll", "people", "groups"
};
static const char *const lg_given[] = { "Ada",  "Boris", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro",
	                                "Ines", "Jonas", "Keiko", "Lars",   "Mira",  "Nuno",  "Olga",  "Pavel" };
static const char *const lg_family[] = { "Abbott", "Brandt", "Castro", "Dalton", "Eriksen",  "Fischer",
	                                 "Garcia", "Horvat", "Ivanov", "Jensen", "Kowalski", "Larsen",
	                                 "Moreau", "Novak",  "Okafor", "Petrov" };
static const char *const lg_places[] = { "Lisbon", "Oslo", "Tartu", "Ghent", "Porto", "Turku", "Bergen", "Graz" };
static const char *const lg_levels[] = { "Senior", "Junior", "Chief", "Associate", "Principal" };
static const char *const lg_jobs[] = { "Engineer", "Manager",  "Analyst", "Architect",
	                               "Clerk",    "Designer", "Tester",  "Writer" };
static const char lg_cert[] =
        "MIICMzCCAZygAwIBAgITKEm/a5jJoxgP0ubiTVsOrg5pCzANBgkqhkiG9w0BAQsFADAsMRAwDgYDVQQKDAdleGFtcGxlMRgw"
        "FgYDVQQDDA9sZGJlbmNoIFMxIENlcnQwHhcNMjYxMjAxMTAzOTM1WhcNMzYxMTI4MTAzOTM1WjAsMRAwDgYDVQQKDAdleGFt"
        "cGxlMRgwFgYDVQQDDA9sZGJlbmNoIFMxIENlcnQwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBANH4xZwTGLbnI+WzlFXe"
        "cjHrNEY1x/Kt4WLfU1wa/dy8UlKXLsU1gD4dx8om0sWIhdfTNreZwNK3FkxAzslPfhJHNJmkjGnVXGIAzhNOxW4YRwmZyB/F"
        "0olFRerf7cFumDHCyVA/bFHOoPbdNbmX93KGlRDDDL7nFGCvlFQqKW2jAgMBAAGjUzBRMB0GA1UdDgQWBBTD0qxJ5H7XIn5k"
        "veDQTJHDzArEmDAfBgNVHSMEGDAWgBTD0qxJ5H7XIn5kveDQTJHDzArEmDAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEB"
        "CwUAA4GBACPukyVtA9xCULnp2kfoyvz9mDNTSzn6M0EdMqpY1/nuyHQ3Sqdynnw7T6WKT/SWuxL/+nMTgSAjveXDg3ZbN4Hc"
        "EAvMU3tEpRusge3jRkhPTuGUeNWU4mzFsllTy6kSJgREpIwp7Av4XwXKazZRh/9CK8dn0zYygNmqk5baily2";

#define LG_PICK(r, a) ((a)[ldb_rng_range((r), 0, (int64_t)(sizeof(a) / sizeof((a)[0])) - 1)])

/* The suffix (or a parent) entry as ldifgen writes it: objectClass by the RDN
 * attribute, and three ACIs: self write, a Directory Administrators group's
 * write, anonymous read/search/compare. */
static void lg_node(struct gen_out *o, const char *dn, bool change_add)
{
	static const struct {
		const char *attr, *oc;
	} kinds[] = { { "c", "country" },
		      { "cn", "nscontainer" },
		      { "dc", "domain" },
		      { "o", "organization" },
		      { "ou", "organizationalunit" } };
	const char *eq = strchr(dn, '='), *comma = strchr(dn, ',');
	size_t al = eq ? (size_t)(eq - dn) : 0;
	size_t vl = eq ? (comma ? (size_t)(comma - eq - 1) : strlen(eq + 1)) : 0;
	const char *oc = NULL;
	char aci[1024];

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strlen(kinds[i].attr) == al && strncasecmp(dn, kinds[i].attr, al) == 0)
			oc = kinds[i].oc;
	gen_out_attr_str(o, "dn", dn);
	if (change_add)
		gen_out_str(o, "changetype: add\n");
	gen_out_str(o, "objectClass: top\n");
	gen_out_attr_str(o, "objectClass", oc ? oc : "organizationalunit");
	char attr[16];
	snprintf(attr, sizeof attr, "%.*s", (int)(al < sizeof attr ? al : sizeof attr - 1), dn);
	for (char *p = attr; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	gen_out_attr(o, attr, eq + 1, vl);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Self Write\"; allow(write) userdn = "
	         "\"ldap:///self\";)",
	         dn);
	gen_out_attr_str(o, "aci", aci);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Directory Admin Group\"; allow(write) groupdn "
	         "= \"ldap:///cn=Directory Administrators,ou=Groups,%s\";)",
	         dn, dn);
	gen_out_attr_str(o, "aci", aci);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Anonymous Access\"; allow(read, search, "
	         "compare) userdn = \"ldap:///anyone\";)",
	         dn);
	gen_out_attr_str(o, "aci", aci);
	gen_out_str(o, "\n");
}

/* A user's names: the RDN value, cn, givenName and sn. */
struct lg_names {
	const char *name, *cn, *first, *last;
};

/* One ldifgen user: n->name is the RDN value (user<idx>), num its index unpadded. */
static void lg_user(struct gen_out *o, struct ldb_rng *r, const char *rdn, const struct lg_names *n, uint64_t num,
                    const char *parent, bool change_add)
{
	const char *name = n->name, *first = n->first, *last = n->last, *ou = LG_PICK(r, lg_ous);
	char buf[1024];

	/* ldifgen's cn= RDN is the cn (the name, or "First Last" with random names) */
	snprintf(buf, sizeof buf, "%s=%s,%s", rdn, strcmp(rdn, "cn") == 0 ? n->cn : name, parent);
	gen_out_attr_str(o, "dn", buf);
	if (change_add)
		gen_out_str(o, "changetype: add\n");
	gen_out_str(o, "objectClass: top\nobjectClass: person\nobjectClass: organizationalPerson\n"
	               "objectClass: inetOrgPerson\nobjectclass: inetUser\n");
	gen_out_attr_str(o, "cn", n->cn);
	gen_out_attr_str(o, "sn", last);
	gen_out_attr_str(o, "uid", name);
	gen_out_attr_str(o, "givenName", first);
	snprintf(buf, sizeof buf, "2;%llu;CN=ldbench demo,O=Example,C=US [1] This is %s %s's description.",
	         (unsigned long long)num, first, last);
	gen_out_attr_str(o, "description", buf);
	gen_out_attr_str(o, "userPassword", name);
	gen_out_str(o, "departmentNumber: 1230\nemployeeType: Manager\nhomePhone: +1 555 010-1001\n");
	snprintf(buf, sizeof buf, "%c. %c", first[0], last[0]);
	gen_out_attr_str(o, "initials", buf);
	gen_out_str(o, "telephoneNumber: +1 555 010-1002\nfacsimileTelephoneNumber: +1 555 010-1003\n"
	               "mobile: +1 555 010-1004\npager: +1 555 010-1005\nroomNumber: 4242\ncarLicense: LDB1742\n");
	gen_out_attr_str(o, "l", LG_PICK(r, lg_places));
	gen_out_attr_str(o, "ou", ou);
	snprintf(buf, sizeof buf, "%s@example.com", name);
	gen_out_attr_str(o, "mail", buf);
	snprintf(buf, sizeof buf, "%llu@example.com", (unsigned long long)num);
	gen_out_attr_str(o, "mail", buf);
	snprintf(buf, sizeof buf, "518, Dept #851, Room#%s", ou);
	gen_out_attr_str(o, "postalAddress", buf);
	snprintf(buf, sizeof buf, "%s %s", LG_PICK(r, lg_levels), LG_PICK(r, lg_jobs));
	gen_out_attr_str(o, "title", buf);
	gen_out_str(o, "usercertificate;binary:: ");
	gen_out_str(o, lg_cert);
	gen_out_str(o, "\n\n");
}

/* ldifgen's index: the digits of count, at least (more when idx has more). */
static void lg_name(char *dst, size_t cap, const char *prefix, uint64_t idx, uint64_t count)
{
	char num[LDB_U64_DEC_MAX + GEN_MAX_WIDTH];
	size_t n = gen_put_index(num, idx, gen_digits(count));
	snprintf(dst, cap, "%s%.*s", prefix, (int)n, num);
}

/* Whether parent's RDN value is one of the seven OUs ldifgen always writes. */
static bool lg_is_std_ou(const char *parent)
{
	const char *eq = strchr(parent, '='), *comma = strchr(parent, ',');
	if (eq == NULL)
		return false;
	size_t vl = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
	for (size_t i = 0; i < sizeof lg_ous / sizeof lg_ous[0]; i++)
		if (strlen(lg_ous[i]) == vl && strncasecmp(eq + 1, lg_ous[i], vl) == 0)
			return true;
	return false;
}

static int users_emit_ldifgen(const struct ldb_gen_users *u, FILE *f, char *err, size_t cap)
{
	struct gen_out o;
	struct ldb_rng r;
	char parent_buf[1024], name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH + 16], cn[64];

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	lg_node(&o, u->suffix, false);
	for (size_t i = 0; i < sizeof lg_ous / sizeof lg_ous[0]; i++) {
		snprintf(parent_buf, sizeof parent_buf, "ou=%s,%s", lg_ous[i], u->suffix);
		gen_out_attr_str(&o, "dn", parent_buf);
		gen_out_str(&o, "objectClass: top\nobjectClass: organizationalUnit\n");
		gen_out_attr_str(&o, "ou", lg_ous[i]);
		gen_out_str(&o, "\n");
	}
	const char *parent = u->parent;
	if (parent != NULL && !lg_is_std_ou(parent))
		lg_node(&o, parent, false);
	if (parent == NULL) { /* as ldifgen: every user below one OU picked at random */
		snprintf(parent_buf, sizeof parent_buf, "ou=%s,%s", LG_PICK(&r, lg_ous), u->suffix);
		parent = parent_buf;
	}
	for (uint64_t i = 1; i <= (uint64_t)u->number && !o.failed; i++) {
		uint64_t idx = i + (uint64_t)u->start_idx;
		struct lg_names nm = { name, name, LG_PICK(&r, lg_given), LG_PICK(&r, lg_family) };
		if (u->random_names) { /* ldifgen without --generic: uid JSmith<i>, cn "John Smith" */
			idx = i;
			snprintf(name, sizeof name, "%c%s%llu", nm.first[0], nm.last, (unsigned long long)i);
			snprintf(cn, sizeof cn, "%s %s", nm.first, nm.last);
			nm.cn = cn;
		} else {
			lg_name(name, sizeof name, "user", idx, (uint64_t)u->number);
		}
		lg_user(&o, &r, u->rdn_cn ? "cn" : "uid", &nm, idx, parent, false);
	}
	return gen_emit_finish(&o, false, err, cap);
}

int gen_ldifgen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t cap)
{
	if (u->suffix == NULL)
		return gen_missing("--suffix", err, cap);
	if (u->number < 0 || u->start_idx < 0 || u->number > LDB_GEN_MAX_INDEX ||
	    u->start_idx > LDB_GEN_MAX_INDEX - u->number) {
		gen_err(err, cap, "--number and --start-idx must be between 0 and %lld together",
		        (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	if (!gen_ldifgen_dn_ok(u->suffix, "--suffix", err, cap) ||
	    (u->parent != NULL && !gen_ldifgen_dn_ok(u->parent, "--parent", err, cap)))
		return LDB_EXIT_PARAMS;
	return users_emit_ldifgen(u, out, err, cap);
}

bool gen_ldifgen_dn_ok(const char *s, const char *opt, char *err, size_t cap)
{
	static const char *const ok[] = { "c", "cn", "dc", "o", "ou" };
	LDAPDN dn = NULL;
	if (gen_parse_dn(opt, s, &dn, err, cap) != 0)
		return false;
	bool good = false;
	if (dn != NULL && dn[0] != NULL)
		for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
			good |= strlen(ok[i]) == dn[0][0]->la_attr.bv_len &&
			        strncasecmp(dn[0][0]->la_attr.bv_val, ok[i], dn[0][0]->la_attr.bv_len) == 0;
	if (dn != NULL)
		ldap_dnfree(dn);
	if (!good)
		gen_err(err, cap, "%s '%s': ldifgen writes c=, cn=, dc=, o= or ou= entries only", opt, s);
	return good;
}

/* ------------------------------------------------------------------------ */
/* groups and mod-load --generic: the records of `dsctl ldifgen groups` and
 * `dsctl ldifgen mod-load`, in their order, with their quirks (a group's cn
 * is its whole DN; a modrdn's newrdn is the whole new DN; mod-load counts
 * down).  Their users are ldifgen's "generic user": cn "NAME EMAN", sn the
 * name reversed, givenName the name. */

/* One generic user prefix<idx> (padded to the digits of count) below parent. */
static void lg_generic_user(struct gen_out *o, struct ldb_rng *r, const char *prefix, uint64_t idx, uint64_t count,
                            const char *parent, bool change_add)
{
	char name[GEN_MAX_NAME + LDB_U64_DEC_MAX + GEN_MAX_WIDTH + 16], rev[sizeof name], cn[2 * sizeof name + 2];

	lg_name(name, sizeof name, prefix, idx, count);
	size_t n = strlen(name);
	for (size_t i = 0; i < n; i++)
		rev[i] = name[n - 1 - i];
	rev[n] = '\0';
	snprintf(cn, sizeof cn, "%s %s", name, rev);
	const struct lg_names nm = { name, cn, name, rev };
	lg_user(o, r, "uid", &nm, idx, parent, change_add);
}

/* The group head and its member values; k is the group's number. */
static void lg_group(struct gen_out *o, const struct gen_groups_opts *g, const char *parent, const char *mparent,
                     uint64_t k)
{
	char dn[2 * GEN_MAX_NAME + 1024], name[GEN_MAX_NAME + 48];
	uint64_t m = (uint64_t)g->num_members;

	snprintf(dn, sizeof dn, "cn=%s-%llu,%s", g->name, (unsigned long long)k, parent);
	gen_out_attr_str(o, "dn", dn);
	gen_out_str(o, "objectclass: top\nobjectclass: groupOfUniqueNames\nobjectclass: groupOfNames\n"
	               "objectclass: inetAdmin\n");
	gen_out_attr_str(o, "cn", dn);
	for (uint64_t i = 1; i <= m && !o->failed; i++) {
		char pre[GEN_MAX_NAME + 32];
		if (g->create_members)
			snprintf(pre, sizeof pre, "group_entry%llu-", (unsigned long long)k);
		else
			snprintf(pre, sizeof pre, "user");
		lg_name(name, sizeof name, pre, i, m);
		snprintf(dn, sizeof dn, "uid=%s,%s", name, mparent);
		gen_out_attr_str(o, g->member_attr, dn);
	}
	gen_out_str(o, "\n");
}

int gen_ldifgen_groups_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_groups_opts *g = plan;
	const char *parent = g->parent != NULL ? g->parent : g->suffix;
	const char *mparent = g->member_parent != NULL ? g->member_parent : g->suffix;
	struct gen_out o;
	struct ldb_rng r;

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	lg_node(&o, g->suffix, false);
	/* as ldifgen: containers compared as strings, each written once */
	if (strcmp(parent, g->suffix) != 0)
		lg_node(&o, parent, false);
	if (strcmp(mparent, g->suffix) != 0 && strcmp(mparent, parent) != 0)
		lg_node(&o, mparent, false);
	for (uint64_t k = 1; k <= (uint64_t)g->number && !o.failed; k++) {
		char pre[GEN_MAX_NAME + 32];
		snprintf(pre, sizeof pre, "group_entry%llu-", (unsigned long long)k);
		for (uint64_t i = 1; g->create_members && i <= (uint64_t)g->num_members && !o.failed; i++)
			lg_generic_user(&o, &r, pre, i, (uint64_t)g->num_members, mparent, false);
		lg_group(&o, g, parent, mparent, k);
	}
	return gen_emit_finish(&o, false, err, cap);
}

int gen_ldifgen_groups_check(struct gen_groups_opts *g, char *err, size_t cap)
{
	if (g->member_attr == NULL)
		g->member_attr = "uniquemember";
	if (!gen_attr_desc_ok(g->member_attr)) {
		gen_err(err, cap, "--member-attr: '%s' is not an attribute name", g->member_attr);
		return LDB_EXIT_PARAMS;
	}
	if (gen_group_name_check(g->name, err, cap) != 0 || !gen_ldifgen_dn_ok(g->suffix, "--suffix", err, cap) ||
	    (g->parent != NULL && !gen_ldifgen_dn_ok(g->parent, "--parent", err, cap)) ||
	    (g->member_parent != NULL && !gen_ldifgen_dn_ok(g->member_parent, "--member-parent", err, cap)))
		return LDB_EXIT_PARAMS;
	return 0;
}

/* mod-load --generic's random modify value: 10 to 30 characters. */
static void lg_mod_value(struct ldb_rng *r, char *v)
{
	static const char chars[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_#@%&()?~$^*-=+{}|.,";
	int64_t n = ldb_rng_range(r, 10, 30);

	for (int64_t i = 0; i < n; i++)
		v[i] = chars[ldb_rng_range(r, 0, (int64_t)sizeof chars - 2)];
	v[n] = '\0';
}

enum lg_op { LG_ADD, LG_MOD, LG_MODRDN, LG_DEL };

/* One mod-load record of kind op for user (or addUser) k. */
static void lg_ml_record(struct gen_out *o, struct ldb_rng *r, const struct gen_modload_opts *m, enum lg_op op,
                         uint64_t k)
{
	char name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH], buf[1024], val[32];
	uint64_t n = (uint64_t)m->num_users;

	if (op == LG_ADD) {
		lg_generic_user(o, r, "addUser", k, (uint64_t)m->add, m->parent, true);
		return;
	}
	lg_name(name, sizeof name, "user", k, n);
	snprintf(buf, sizeof buf, "uid=%s,%s", name, m->parent);
	gen_out_attr_str(o, "dn", buf);
	if (op == LG_MOD) {
		const char *attr = m->attrs[ldb_rng_range(r, 0, (int64_t)m->nattrs - 1)];
		lg_mod_value(r, val);
		gen_out_str(o, "changetype: modify\n");
		gen_out_attr_str(o, "replace", attr);
		gen_out_attr_str(o, attr, val);
	} else if (op == LG_MODRDN) {
		snprintf(buf, sizeof buf, "cn=%s,%s", name, m->parent);
		gen_out_str(o, "changetype: modrdn\n");
		gen_out_attr_str(o, "newrdn", buf);
		gen_out_str(o, "deleteoldrdn: 1\n");
	} else {
		gen_out_str(o, "changetype: delete\n");
	}
	gen_out_str(o, "\n");
}

/* A delete record of rdn=<prefix><idx padded to count>,parent. */
static void lg_ml_delete(struct gen_out *o, const char *rdn, const char *prefix, uint64_t idx, uint64_t count,
                         const char *parent)
{
	char name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH], buf[1024];

	lg_name(name, sizeof name, prefix, idx, count);
	snprintf(buf, sizeof buf, "%s=%s,%s", rdn, name, parent);
	gen_out_attr_str(o, "dn", buf);
	gen_out_str(o, "changetype: delete\n\n");
}

/* The adds, modifies, modrdns and deletes, each kind counting down from its
 * count; in sequence, or (--randomize) each next record of a kind picked at
 * random among the kinds with records left.  seq (NULL: not kept) gets the
 * kinds of the adds and modrdns in their order, for lg_ml_cleanup. */
static void lg_ml_ops(struct gen_out *o, struct ldb_rng *r, const struct gen_modload_opts *m, unsigned char *seq)
{
	uint64_t left[4] = { (uint64_t)m->add, (uint64_t)m->mod, (uint64_t)m->modrdn, (uint64_t)m->del };

	if (!m->randomize) {
		for (int op = LG_ADD; op <= LG_DEL; op++)
			for (; left[op] > 0 && !o->failed; left[op]--)
				lg_ml_record(o, r, m, (enum lg_op)op, left[op]);
		return;
	}
	for (;;) {
		int kinds[4], nk = 0;
		for (int op = LG_ADD; op <= LG_DEL; op++)
			if (left[op] > 0)
				kinds[nk++] = op;
		if (nk == 0 || o->failed)
			return;
		int op = kinds[ldb_rng_range(r, 0, nk - 1)];
		if (seq != NULL && (op == LG_ADD || op == LG_MODRDN))
			*seq++ = (unsigned char)op;
		lg_ml_record(o, r, m, (enum lg_op)op, left[op]--);
	}
}

/* --delete-users at the end: what ldifgen's list of entries still holds,
 * in its order: the users neither renamed nor deleted, then the added users
 * (uid=addUser<k>) and the renamed ones (cn=user<k>) as they came: all adds
 * then all modrdns, or in the order seq kept (--randomize). */
static void lg_ml_cleanup(struct gen_out *o, const struct gen_modload_opts *m, const unsigned char *seq)
{
	uint64_t n = (uint64_t)m->num_users, gone = (uint64_t)(m->modrdn > m->del ? m->modrdn : m->del);
	uint64_t add = (uint64_t)m->add, mrdn = (uint64_t)m->modrdn;

	for (uint64_t k = gone + 1; k <= n && !o->failed; k++)
		lg_ml_delete(o, "uid", "user", k, n, m->parent);
	while ((add > 0 || mrdn > 0) && !o->failed) {
		bool is_add = seq != NULL ? *seq++ == LG_ADD : add > 0;
		if (is_add)
			lg_ml_delete(o, "uid", "addUser", add--, (uint64_t)m->add, m->parent);
		else
			lg_ml_delete(o, "cn", "user", mrdn--, n, m->parent);
	}
}

int gen_ldifgen_modload_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_modload_opts *m = plan;
	struct gen_out o;
	struct ldb_rng r;

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	if (m->create_parent) /* as ldifgen: a plain entry, no changetype */
		lg_node(&o, m->parent, false);
	for (uint64_t k = 1; m->create_users && k <= (uint64_t)m->num_users && !o.failed; k++)
		lg_generic_user(&o, &r, "user", k, (uint64_t)m->num_users, m->parent, true);
	unsigned char *seq = NULL;
	if (m->randomize && m->delete_users && (seq = malloc((size_t)(m->add + m->modrdn) + 1)) == NULL) {
		gen_out_finish(&o);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	lg_ml_ops(&o, &r, m, seq);
	if (m->delete_users && !o.failed)
		lg_ml_cleanup(&o, m, seq);
	free(seq);
	return gen_emit_finish(&o, false, err, cap);
}

int gen_ldifgen_modload_check(struct gen_modload_opts *m, char *err, size_t cap)
{
	if (m->suffix != NULL) {
		gen_err(err, cap, "--suffix does not apply to --generic (ldifgen writes the parent: --create-parent)");
		return LDB_EXIT_PARAMS;
	}
	if (!gen_ldifgen_dn_ok(m->parent, "--parent", err, cap))
		return LDB_EXIT_PARAMS;
	if (m->nattrs == 0) {
		m->attrs[0] = "description";
		m->nattrs = 1;
	}
	return 0;
}
