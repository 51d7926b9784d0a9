/* gen groups' own shape: N groups cn=NAME-<k>,PARENT (groupOfUniqueNames or
 * groupOfNames) of M members uid=user<i>,MEMBER-PARENT, with --create-members
 * the containers and the member users first. */
#ifndef LDBENCH_GEN_GROUPS_H
#define LDBENCH_GEN_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/containers.h"
#include "gen/users.h"

/* Longest group NAME. */
#define GEN_MAX_NAME 256

/* gen groups' own shape, checked: the names, the member range, the trees. */
struct gen_groups_plan {
	const char *name;
	size_t name_len;
	uint64_t number;
	struct gen_idx members;
	bool create_members;
	bool unique;                 /* uniqueMember / groupOfUniqueNames */
	struct gen_containers gtree; /* suffix .. --parent */
	struct gen_containers mtree; /* suffix .. --member-parent */
};

/* gen groups' options as given (both shapes). */
struct gen_groups_opts {
	const char *name, *suffix, *parent, *member_parent, *member_attr;
	int64_t number, num_members, start_idx;
	int width;
	bool create_members;
};

/* Free what gen_groups_prepare made (also after it failed). */
void gen_groups_plan_free(struct gen_groups_plan *pl);

/* NAME becomes the cn of "cn=NAME-<i>": refuse what a DN would need escaped. */
int gen_group_name_check(const char *name, char *err, size_t cap);

/* Check g and fill pl; nothing is written.  @return 0, 2 or 99 with err. */
int gen_groups_prepare(const struct gen_groups_opts *g, struct gen_groups_plan *pl, char *err, size_t cap);

/* Write the groups of the gen_groups_plan plan (with --create-members the
 * containers and the members first) to f.  @return 0 or 99 with err. */
int gen_groups_emit(const void *plan, FILE *f, char *err, size_t cap);

#endif
