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
 *
 * A value may instead be a value pattern in UnboundID's syntax
 * (values/vpattern.h: "emp [1:1000%0000]", "[random:8:abc]@example.com"):
 * a value whose bracket expressions are all ldclt's (opening with one letter:
 * [A]..[H], [V=KIND(args)]) is ldclt's, one with any other bracket expression
 * is a pattern, and one with both is refused.  A pattern's sequences are shared
 * out among the clients as vpattern.h says (commoncounter does not apply).
 */
#ifndef LDBENCH_VALUES_OBJTMPL_H
#define LDBENCH_VALUES_OBJTMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"

struct ldb_objtmpl; /* opaque, immutable after compile */

/* Per-worker state for INCR* fields without a shared counter. */
#define LDB_OBJ_MAX_ATTRS 40

struct ldb_vp_state;
struct ldb_objtmpl_cursor {
	int64_t next[8]; /* per variable A-H */
	/* value patterns: a state per attribute line, the rdn's last (NULL
	 * when that line is not a pattern, or the cursor was only _init'ed) */
	struct ldb_vp_state *vst[LDB_OBJ_MAX_ATTRS + 1];
};

/* Compile a template file and an rdn spec (either may be NULL, not both).
 * common: INCR* counters are shared by all workers (commoncounter), through
 * one atomic counter per variable inside the template.
 * @return 0, or -1 with one line in err naming the file, line and problem. */
int ldb_objtmpl_compile(struct ldb_objtmpl **out, const char *path, const char *rdn_spec, bool common, char *err,
                        size_t cap);
void ldb_objtmpl_free(struct ldb_objtmpl *t);
/* A cursor without value pattern states: enough for a template without
 * patterns (rendering a pattern line through it fails, -1). */
void ldb_objtmpl_cursor_init(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur);
/* A cursor for client `client` of `nclients`, with its states of the
 * template's value patterns.  @return 0, or -1 with one line in err. */
int ldb_objtmpl_cursor_open(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur, unsigned client,
                            unsigned nclients, char *err, size_t cap);
void ldb_objtmpl_cursor_close(struct ldb_objtmpl_cursor *cur);
/* Does a value pattern of t stream a file ([streamfile:])?  Then the caller
 * tops up the cursor's stream buffers at its idle points with _prefetch. */
bool ldb_objtmpl_streams(const struct ldb_objtmpl *t);
void ldb_objtmpl_prefetch(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur);

/* One rendered entry: the RDN ("uid=user1042") and the attributes, each value
 * pointing into the caller's scratch buffer. */
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
