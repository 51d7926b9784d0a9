/* gen tree: a tree of containers and leaves, parents before children. */
#include "gen/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "gen/gen.h"
#include "gen/out.h"
#include "ldif/entry.h"

/* Emission state: one DN buffer per level. */
struct tree_state {
	const struct gen_tree_plan *pl;
	struct gen_out *o;
	char *dn[GEN_MAX_DEPTH + 1];
	size_t dnl[GEN_MAX_DEPTH + 1];
	size_t dcap;   /* capacity of each dn[] */
	char *scratch; /* leaf DN */
	char *text;    /* the leaf entry's text (mail, telephoneNumber, description) */
	size_t text_cap;
	uint64_t next; /* next leaf number */
	uint64_t containers_done;
};

static void tree_leaves(struct tree_state *ts, int level)
{
	const struct gen_tree_plan *pl = ts->pl;
	struct gen_out *o = ts->o;
	const char *domain = pl->top.domain;
	size_t domlen = strlen(domain);
	char name[8 + 24 + GEN_MAX_WIDTH];
	struct ldb_put_value v[16];
	struct ldb_entry e;

	ldb_entry_init(&e, v, 16, ts->text, ts->text_cap);
	for (uint64_t k = 0; k < pl->entries && !o->failed; k++) {
		uint64_t num = ts->next++;
		memcpy(name, "entry", 5);
		size_t nl = 5 + gen_put_index(name + 5, num, pl->width);
		char *d = ts->scratch;
		memcpy(d, "cn=", 3);
		memcpy(d + 3, name, nl);
		size_t dl = 3 + nl;
		d[dl++] = ',';
		memcpy(d + dl, ts->dn[level], ts->dnl[level]);
		dl += ts->dnl[level];
		ldb_entry_reset(&e);
		if (ldb_entry_tree_leaf(&e, name, nl, domain, domlen, num, level) < 0) {
			gen_out_broken(o);
			return;
		}
		gen_out_attr(o, "dn", d, dl);
		gen_out_entry(o, &e);
		gen_out_mem(o, "\n", 1);
	}
}

/* The container at `level` (its DN already in ts->dn[level]), its leaves and
 * its sub-containers, parents before children. */
static void tree_container(struct tree_state *ts, int level, uint64_t k)
{
	const struct gen_tree_plan *pl = ts->pl;
	struct gen_out *o = ts->o;
	char unit[32], desc[64];

	if (level == 0) {
		gen_node_write(&pl->top.nodes[0], o, false);
	} else {
		gen_out_attr(o, "dn", ts->dn[level], ts->dnl[level]);
		int ul = snprintf(unit, sizeof(unit), "unit%llu", (unsigned long long)k);
		int dl = snprintf(desc, sizeof(desc), "tree container at level %d", level);
		gen_container_write(o, "ou", unit, (size_t)ul, desc, (size_t)dl);
	}
	ts->containers_done++;
	tree_leaves(ts, level);
	if (level == pl->depth)
		return;
	for (uint64_t c = 1; c <= pl->fanout && !o->failed; c++) {
		char *d = ts->dn[level + 1];
		int ll = snprintf(d, ts->dcap, "ou=unit%llu,", (unsigned long long)c);
		memcpy(d + ll, ts->dn[level], ts->dnl[level]);
		ts->dnl[level + 1] = (size_t)ll + ts->dnl[level];
		tree_container(ts, level + 1, c);
	}
}

int gen_tree_prepare(const struct gen_tree_opts *to, struct gen_tree_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (to->depth > GEN_MAX_DEPTH) {
		gen_err(err, cap, "--depth must be at most %d", GEN_MAX_DEPTH);
		return LDB_EXIT_PARAMS;
	}
	if (to->fanout < 1) {
		gen_err(err, cap, "--fanout must be at least 1");
		return LDB_EXIT_PARAMS;
	}
	/* containers = 1 + F + ... + F^D, entries = E * containers, all <= max */
	uint64_t level = 1, sum = 1, max = (uint64_t)LDB_GEN_MAX_INDEX;
	for (int d = 1; d <= to->depth; d++) {
		if (level > max / (uint64_t)to->fanout || sum > max - level * (uint64_t)to->fanout) {
			gen_err(err, cap, "--depth %lld with --fanout %lld makes more than %lld containers",
			        (long long)to->depth, (long long)to->fanout, (long long)LDB_GEN_MAX_INDEX);
			return LDB_EXIT_PARAMS;
		}
		level *= (uint64_t)to->fanout;
		sum += level;
	}
	if (to->entries > 0 && (sum > max / (uint64_t)to->entries || sum * (uint64_t)to->entries > max - sum)) {
		gen_err(err, cap, "--entries %lld in %llu containers makes more than %lld entries",
		        (long long)to->entries, (unsigned long long)sum, (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	pl->depth = (int)to->depth;
	pl->fanout = (uint64_t)to->fanout;
	pl->entries = (uint64_t)to->entries;
	pl->n_containers = sum;
	pl->n_entries = sum * pl->entries;
	int need = gen_digits(pl->n_entries);
	pl->width = need > LDB_GEN_DEFAULT_WIDTH ? need : LDB_GEN_DEFAULT_WIDTH;
	const char *s = to->suffix != NULL ? to->suffix : "dc=example,dc=com";
	if (gen_containers_build(&pl->top, s, s, "--suffix", err, cap) != 0)
		return LDB_EXIT_PARAMS;
	return 0;
}

int gen_tree_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_tree_plan *pl = plan;
	struct tree_state ts = { .pl = pl, .next = 1 };
	struct gen_out o;
	const char *top = pl->top.nodes[0].dn;
	size_t tl = strlen(top);
	/* every level adds at most "ou=unit" + 20 digits + "," */
	size_t dcap = tl + (size_t)pl->depth * 28 + 1;
	bool oom = gen_out_init(&o, f) != 0;

	ts.o = &o;
	ts.dcap = dcap;
	for (int d = 0; d <= pl->depth && !oom; d++)
		oom = (ts.dn[d] = malloc(dcap)) == NULL;
	ts.text_cap = 8 + 24 + GEN_MAX_WIDTH + 1 + strlen(pl->top.domain) + LDB_ENTRY_TREE_LEAF_TEXT;
	if (!oom)
		oom = (ts.scratch = malloc(dcap + 8 + 24 + GEN_MAX_WIDTH + tl)) == NULL;
	if (!oom)
		oom = (ts.text = malloc(ts.text_cap)) == NULL;
	if (oom) {
		for (int d = 0; d <= pl->depth; d++)
			free(ts.dn[d]);
		free(ts.scratch);
		if (o.buf != NULL)
			gen_out_finish(&o);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	memcpy(ts.dn[0], top, tl);
	ts.dnl[0] = tl;
	tree_container(&ts, 0, 0);
	for (int d = 0; d <= pl->depth; d++)
		free(ts.dn[d]);
	free(ts.scratch);
	free(ts.text);
	return gen_emit_finish(&o, false, err, cap);
}

void gen_tree_plan_free(struct gen_tree_plan *pl)
{
	gen_containers_free(&pl->top);
}
