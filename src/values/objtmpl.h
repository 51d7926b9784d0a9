/* ldclt's entry templates (-e object=FILE, rdn=attr:value): compiled once at
 * start-up, rendered per operation into a caller's scratch buffer with no
 * allocation.
 *
 * File syntax (ldclt): one "attr: value" line each (at most 40 attributes),
 * where a value may hold variant fields [VAR=KIND(args)] defining variable VAR
 * (a letter A-H) and [VAR] back-references.  Kinds: RNDN(low;high;ndigits),
 * RNDS(len), INCRN(low;high;ndigits), INCRNNOLOOP(low;high;ndigits),
 * RNDFROMFILE(file), INCRFROMFILE(file), INCRFROMFILENOLOOP(file).
 * The rdn spec "attr:value" uses the same syntax.
 */
#ifndef LDBENCH_VALUES_OBJTMPL_H
#define LDBENCH_VALUES_OBJTMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"

struct ldb_objtmpl; /* opaque, immutable after compile */

/* Per-worker state for INCR* fields without a shared counter. */
struct ldb_objtmpl_cursor {
	int64_t next[8]; /* per variable A-H */
};

/* Compile a template file and an rdn spec (either may be NULL, not both).
 * common: INCR* counters are shared by all workers (commoncounter), through
 * one atomic counter per variable inside the template.
 * @return 0, or -1 with one line in err naming the file, line and problem. */
int ldb_objtmpl_compile(struct ldb_objtmpl **out, const char *path, const char *rdn_spec, bool common, char *err,
                        size_t cap);
void ldb_objtmpl_free(struct ldb_objtmpl *t);
void ldb_objtmpl_cursor_init(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur);

/* One rendered entry: the RDN ("uid=user1042") and the attributes, each value
 * pointing into the caller's scratch buffer. */
#define LDB_OBJ_MAX_ATTRS 40
struct ldb_obj_value {
	const char *type; /* points into the template; lines whose types differ only
	                     * in case share one pointer (the first line's spelling) */
	const char *val;  /* points into scratch */
	size_t len;
};
struct ldb_obj_entry {
	const char *rdn; /* "attr=value", NUL-terminated, in scratch */
	size_t rdn_len;
	struct ldb_obj_value v[LDB_OBJ_MAX_ATTRS];
	int n;
};

/* Hot path: render the next entry.
 * @return 1 rendered; 0 a NOLOOP field has passed its top (the worker ends);
 *        -1 scratch too small. */
int ldb_objtmpl_render(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur, struct ldb_rng *rng, char *scratch,
                       size_t cap, struct ldb_obj_entry *e);

/* The largest entry it can render (bytes of scratch needed). */
size_t ldb_objtmpl_max_size(const struct ldb_objtmpl *t);

#endif
