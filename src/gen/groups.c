/* gen groups, ldbench's own shape. */
#include "gen/groups.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/config.h"
#include "gen/out.h"
#include "ldif/entry.h"

void gen_groups_plan_free(struct gen_groups_plan *pl)
{
	gen_containers_free(&pl->gtree);
	gen_containers_free(&pl->mtree);
}

int gen_group_name_check(const char *name, char *err, size_t cap)
{
	size_t n = strlen(name);

	if (n == 0) {
		gen_err(err, cap, "NAME: empty group name");
		return -1;
	}
	if (n > GEN_MAX_NAME) {
		gen_err(err, cap, "NAME: longer than %d bytes", GEN_MAX_NAME);
		return -1;
	}
	if (name[0] == '#' || name[0] == ' ' || name[n - 1] == ' ') {
		gen_err(err, cap, "NAME: '%s' cannot start with '#' or a space nor end with a space", name);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (ch < 0x20 || ch == 0x7f) {
			gen_err(err, cap, "NAME: control character in the group name");
			return -1;
		}
		if (strchr(",+\"\\<>;=", ch) != NULL) {
			gen_err(err, cap, "NAME: character '%c' in '%s' is not allowed in a group name", ch, name);
			return -1;
		}
	}
	return 0;
}

int gen_groups_prepare(const struct gen_groups_opts *g, struct gen_groups_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (gen_group_name_check(g->name, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	pl->name = g->name;
	pl->name_len = strlen(g->name);
	if (g->number < 1) {
		gen_err(err, cap, "--number must be at least 1");
		return LDB_EXIT_PARAMS;
	}
	if (g->num_members < 1) {
		gen_err(err, cap, "--num-members must be at least 1 (%s requires a member)",
		        g->member_attr != NULL && strcasecmp(g->member_attr, "member") == 0 ? "groupOfNames"
		                                                                            : "groupOfUniqueNames");
		return LDB_EXIT_PARAMS;
	}
	pl->number = (uint64_t)g->number;
	if (g->member_attr == NULL || strcasecmp(g->member_attr, "uniqueMember") == 0)
		pl->unique = true;
	else if (strcasecmp(g->member_attr, "member") == 0)
		pl->unique = false;
	else {
		gen_err(err, cap, "--member-attr: '%s' is not member or uniqueMember", g->member_attr);
		return LDB_EXIT_PARAMS;
	}
	if (gen_idx_prepare("--num-members", g->num_members, g->start_idx, g->width, &pl->members, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	pl->create_members = g->create_members;

	char *mp_default = NULL;
	const char *mp = gen_people_default(g->member_parent, g->suffix, &mp_default, err, cap);
	if (mp == NULL)
		return LDB_EXIT_OTHER;
	int rc = gen_containers_build(&pl->gtree, g->suffix, g->parent != NULL ? g->parent : g->suffix, "--parent", err,
	                              cap);
	if (rc == 0)
		rc = gen_containers_build(&pl->mtree, g->suffix, mp, "--member-parent", err, cap);
	free(mp_default);
	return rc == 0 ? 0 : LDB_EXIT_PARAMS;
}

int gen_groups_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_groups_plan *pl = plan;
	const char *gparent = gen_containers_bottom(&pl->gtree);
	const char *attr = pl->unique ? "uniqueMember" : "member";
	size_t gplen = strlen(gparent);
	struct gen_out o;
	struct gen_user_writer w;
	struct ldb_put_value hv[4];
	struct ldb_entry head;
	/* "cn=" NAME "-" index "," parent */
	char *gdn = malloc(3 + pl->name_len + 1 + 24 + 1 + gplen + 1);

	if (gdn == NULL) {
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	if (gen_emit_begin(&w, gen_containers_bottom(&pl->mtree), pl->gtree.domain, NULL, &o, f, err, cap) != 0) {
		free(gdn);
		return LDB_EXIT_OTHER;
	}
	if (pl->create_members) {
		gen_containers_write(&pl->gtree, &o, false);
		for (size_t i = 0; i < pl->mtree.count; i++) {
			bool seen = false;
			for (size_t j = 0; j < pl->gtree.count && !seen; j++)
				seen = strcasecmp(pl->mtree.nodes[i].dn, pl->gtree.nodes[j].dn) == 0;
			if (!seen)
				gen_node_write(&pl->mtree.nodes[i], &o, false);
		}
		for (uint64_t i = 0; i < pl->members.count && !o.failed; i++)
			gen_uw_entry(&w, &o, "user", pl->members.first + i, pl->members.width, false);
	}

	ldb_entry_init(&head, hv, 4, NULL, 0);
	memcpy(gdn, "cn=", 3);
	memcpy(gdn + 3, pl->name, pl->name_len);
	gdn[3 + pl->name_len] = '-';
	char *cn = gdn + 3;
	for (uint64_t g = 1; g <= pl->number && !o.failed; g++) {
		size_t cnl = pl->name_len + 1 + gen_put_index(cn + pl->name_len + 1, g, 1);
		size_t dl = 3 + cnl;
		gdn[dl++] = ',';
		memcpy(gdn + dl, gparent, gplen);
		dl += gplen;
		gen_out_attr(&o, "dn", gdn, dl);
		ldb_entry_reset(&head);
		if (ldb_entry_group(&head, pl->unique, cn, cnl) < 0)
			gen_out_broken(&o);
		gen_out_entry(&o, &head);
		for (uint64_t i = 0; i < pl->members.count && !o.failed; i++) {
			gen_uw_name(&w, "uid", "user", pl->members.first + i, pl->members.width);
			gen_out_attr(&o, attr, w.dn, w.dnl);
		}
		gen_out_mem(&o, "\n", 1);
	}
	free(gdn);
	return gen_emit_end(&w, &o, err, cap);
}
