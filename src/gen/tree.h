/* gen tree: the top entry and F sub-containers ou=unit<k> per container down
 * to level D, E inetOrgPerson leaves cn=entry<n> in every container. */
#ifndef LDBENCH_GEN_TREE_H
#define LDBENCH_GEN_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/containers.h"

/* Deepest --depth. */
#define GEN_MAX_DEPTH 32

/* gen tree, checked: the shape and its counts. */
struct gen_tree_plan {
	struct gen_containers top; /* the top entry alone */
	int depth;
	uint64_t fanout, entries;
	uint64_t n_containers, n_entries;
	int width; /* of the entry numbers */
};

/* gen tree's options as given. */
struct gen_tree_opts {
	const char *suffix;
	int64_t depth, fanout, entries;
	bool have_depth, have_fanout, have_entries;
};

/* Check to (the counts stay within LDB_GEN_MAX_INDEX) and fill pl.
 * @return 0 or 2 with err. */
int gen_tree_prepare(const struct gen_tree_opts *to, struct gen_tree_plan *pl, char *err, size_t cap);

/* Write the tree of the gen_tree_plan plan to f, parents before children.
 * @return 0 or 99 with err. */
int gen_tree_emit(const void *plan, FILE *f, char *err, size_t cap);

/* Free what gen_tree_prepare made (also after it failed). */
void gen_tree_plan_free(struct gen_tree_plan *pl);

#endif
