/* gen mod-load, ldbench's own shape. */
#include "gen/modload.h"

#include <string.h>
#include <strings.h>

#include "conf/config.h"
#include "gen/out.h"

/* gen mod-load */

bool gen_attr_desc_ok(const char *a)
{
	size_t n = strlen(a);

	if (n == 0 || n > GEN_MAX_ATTR_LEN)
		return false;
	bool start = true;
	for (size_t i = 0; i < n; i++) {
		char ch = a[i];
		bool alpha = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
		bool digit = ch >= '0' && ch <= '9';
		if (start) {
			if (!alpha && !(digit && i > 0))
				return false;
			start = false;
		} else if (ch == ';') {
			start = true;
		} else if (!alpha && !digit && ch != '-') {
			return false;
		}
	}
	return !start;
}

int gen_modload_add_attr(struct gen_modload_opts *m, const char *a, char *err, size_t cap)
{
	if (!gen_attr_desc_ok(a)) {
		gen_err(err, cap, "--mod-attrs: '%s' is not an attribute name", a);
		return -1;
	}
	if (strcasecmp(a, "uid") == 0 || strncasecmp(a, "uid;", 4) == 0) {
		gen_err(err, cap, "--mod-attrs: uid is the users' RDN attribute and cannot be replaced");
		return -1;
	}
	if (strcasecmp(a, "objectClass") == 0 || strncasecmp(a, "objectClass;", 12) == 0) {
		gen_err(err, cap, "--mod-attrs: objectClass cannot be replaced");
		return -1;
	}
	for (size_t i = 0; i < m->nattrs; i++) {
		if (strcasecmp(m->attrs[i], a) == 0) {
			gen_err(err, cap, "--mod-attrs: '%s' is given twice", a);
			return -1;
		}
	}
	if (m->nattrs == GEN_MAX_MOD_ATTRS) {
		gen_err(err, cap, "--mod-attrs: more than %d attributes", GEN_MAX_MOD_ATTRS);
		return -1;
	}
	m->attrs[m->nattrs++] = a;
	return 0;
}

int gen_modload_prepare(const struct gen_modload_opts *m, struct gen_modload_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (gen_idx_prepare("--num-users", m->num_users, m->start_idx, m->width, &pl->users, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	const struct {
		const char *opt;
		int64_t v;
		bool set;
	} counts[] = {
		{ "--mod-users", m->mod, m->set_mod },
		{ "--modrdn-users", m->modrdn, m->set_modrdn },
		{ "--del-users", m->del, m->set_del },
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (counts[i].v > m->num_users) {
			gen_err(err, cap,
			        "%s %lld%s is more than --num-users %lld (only existing users can be changed)",
			        counts[i].opt, (long long)counts[i].v, counts[i].set ? "" : " (the default)",
			        (long long)m->num_users);
			return LDB_EXIT_PARAMS;
		}
	}
	if (m->add < 0 || m->add > LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "--add-users must be between 0 and %lld", (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	pl->add = (uint64_t)m->add;
	pl->mod = (uint64_t)m->mod;
	pl->modrdn = (uint64_t)m->modrdn;
	pl->del = (uint64_t)m->del;
	int aw = gen_digits(pl->add);
	pl->add_width = aw > pl->users.width || m->generic ? aw : pl->users.width;
	pl->create_users = m->create_users;
	pl->delete_users = m->delete_users;
	if (m->nattrs == 0) {
		pl->attrs[0] = "description";
		pl->nattrs = 1;
	} else {
		memcpy(pl->attrs, m->attrs, m->nattrs * sizeof(m->attrs[0]));
		pl->nattrs = m->nattrs;
	}
	pl->containers = m->suffix != NULL;
	if (gen_containers_build(&pl->tree, m->suffix != NULL ? m->suffix : m->parent, m->parent, "--parent", err,
	                         cap) != 0)
		return LDB_EXIT_PARAMS;
	return 0;
}

/* "dn: ...\nchangetype: <ct>\n" */
static void change_head(struct gen_out *o, const char *dn, size_t dnl, const char *ct)
{
	gen_out_attr(o, "dn", dn, dnl);
	gen_out_str(o, "changetype: ");
	gen_out_str(o, ct);
	gen_out_mem(o, "\n", 1);
}

/* The delete record of the user rdn=<prefix><idx>. */
static void delete_record(struct gen_user_writer *w, struct gen_out *o, const char *rdn, const char *prefix,
                          uint64_t idx, int width)
{
	gen_uw_name(w, rdn, prefix, idx, width);
	change_head(o, w->dn, w->dnl, "delete");
	gen_out_mem(o, "\n", 1);
}

int gen_modload_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_modload_plan *pl = plan;
	const struct gen_containers *t = &pl->tree;
	const uint64_t n = pl->users.count, first = pl->users.first;
	const int width = pl->users.width;
	struct gen_out o;
	struct gen_user_writer w;
	char val[GEN_PREFIX_MAX + GEN_MAX_WIDTH + 24 + 16];

	if (gen_emit_begin(&w, gen_containers_bottom(t), t->domain, NULL, &o, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	if (pl->containers)
		gen_containers_write(t, &o, true);
	if (pl->create_users)
		for (uint64_t i = 0; i < n && !o.failed; i++)
			gen_uw_entry(&w, &o, "user", first + i, width, true);
	for (uint64_t i = 1; i <= pl->add && !o.failed; i++)
		gen_uw_entry(&w, &o, "addUser", i, pl->add_width, true);

	/* modifies: users 1..M, one replace per attribute */
	for (uint64_t i = 0; i < pl->mod && !o.failed; i++) {
		gen_uw_name(&w, "uid", "user", first + i, width);
		memcpy(val, w.name, w.nlen);
		memcpy(val + w.nlen, " modified", 9);
		size_t vl = w.nlen + 9;
		change_head(&o, w.dn, w.dnl, "modify");
		for (size_t a = 0; a < pl->nattrs; a++) {
			gen_out_attr_str(&o, "replace", pl->attrs[a]);
			gen_out_attr(&o, pl->attrs[a], val, vl);
			gen_out_mem(&o, "-\n", 2);
		}
		gen_out_mem(&o, "\n", 1);
	}
	/* modrdns: users 1..R become cn=<uid> */
	for (uint64_t i = 0; i < pl->modrdn && !o.failed; i++) {
		gen_uw_name(&w, "uid", "user", first + i, width);
		change_head(&o, w.dn, w.dnl, "modrdn");
		memcpy(val, "cn=", 3);
		memcpy(val + 3, w.name, w.nlen);
		gen_out_attr(&o, "newrdn", val, 3 + w.nlen);
		gen_out_str(&o, "deleteoldrdn: 1\n\n");
	}
	/* deletes: users N-D+1..N, by their new DN when renamed; then the rest */
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the D deletes; pass 1 (--delete-users): users 1..N-D */
		uint64_t a = pass == 0 ? n - pl->del : 0, b = pass == 0 ? n : n - pl->del;
		if (pass == 1 && !pl->delete_users)
			break;
		for (uint64_t i = a; i < b && !o.failed; i++)
			delete_record(&w, &o, i < pl->modrdn ? "cn" : "uid", "user", first + i, width);
	}
	if (pl->delete_users) {
		for (uint64_t i = 1; i <= pl->add && !o.failed; i++)
			delete_record(&w, &o, "uid", "addUser", i, pl->add_width);
	}
	return gen_emit_end(&w, &o, err, cap);
}

void gen_modload_plan_free(struct gen_modload_plan *pl)
{
	gen_containers_free(&pl->tree);
}
