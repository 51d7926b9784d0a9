/* gen mod-load's own shape: ldapmodify records (adds, modifies, modrdns,
 * deletes of numbered users) counting up. */
#ifndef LDBENCH_GEN_MODLOAD_H
#define LDBENCH_GEN_MODLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/containers.h"
#include "gen/users.h"

#define GEN_MAX_MOD_ATTRS 32 /* --mod-attrs values */
#define GEN_MAX_ATTR_LEN 64  /* bytes of one attribute description */

/* gen mod-load's own shape, checked: how many records of each kind, of whom. */
struct gen_modload_plan {
	struct gen_containers tree; /* suffix .. parent (or parent alone) */
	bool containers;            /* --suffix given: add the tree */
	bool create_users, delete_users;
	struct gen_idx users; /* the N users */
	uint64_t add, mod, modrdn, del;
	int add_width; /* width of addUser<i> */
	const char *attrs[GEN_MAX_MOD_ATTRS];
	size_t nattrs;
};

/* gen mod-load's options as given (both shapes). */
struct gen_modload_opts {
	const char *suffix, *parent;
	int64_t num_users, add, mod, modrdn, del, start_idx;
	int width;
	bool have_num_users, create_users, delete_users;
	bool set_mod, set_modrdn, set_del; /* given on the command line */
	bool generic;                      /* --generic: ldifgen's records */
	bool create_parent, randomize;     /* --generic only */
	const char *attrs[GEN_MAX_MOD_ATTRS];
	size_t nattrs;
};

/* An attribute description: a name (letter, then letters, digits, '-') and
 * options (";" name). */
bool gen_attr_desc_ok(const char *a);

/* One --mod-attrs value: an attribute description, not uid nor objectClass,
 * not given before.  @return 0 or -1 with err. */
int gen_modload_add_attr(struct gen_modload_opts *m, const char *a, char *err, size_t cap);

/* Check m and fill pl; nothing is written.  @return 0 or 2 with err. */
int gen_modload_prepare(const struct gen_modload_opts *m, struct gen_modload_plan *pl, char *err, size_t cap);

/* Write the records of the gen_modload_plan plan to f.  @return 0 or 99 with err. */
int gen_modload_emit(const void *plan, FILE *f, char *err, size_t cap);

/* Free what gen_modload_prepare made (also after it failed). */
void gen_modload_plan_free(struct gen_modload_plan *pl);

#endif
