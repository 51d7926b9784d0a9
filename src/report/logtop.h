/* Bounded "top N" tables for a log's profile (filter shapes, search bases,
 * bind DNs), and the masking of a search filter into its shape.
 *
 * A table keeps at most `cap` keys, whatever the number of distinct keys the
 * log holds: the Space-Saving heavy-hitters algorithm (Metwally, Agrawal, El
 * Abbadi, 2005).  A key already kept counts one more; a new key takes a free
 * slot, or, when the table is full, the slot of the key with the lowest count
 * c, starting at c + 1 with an error bound of c (its true count lies in
 * [count - error, count]).  Any key seen more than total/cap times is kept;
 * while nothing was evicted every count is exact.  The slots form a min-heap
 * by count (the eviction victim at its root, O(log cap) per update) with a
 * chained hash index over them; everything is allocated once at init.
 * Keys longer than LDB_LTOP_KEY - 1 bytes are cut, ending in "...".
 *
 * Filter shapes: each assertion value is masked.  The attribute description
 * is kept (ASCII letters lowered) with its operator (=, ~=, >=, <=, and an
 * extensible match's :dn:rule:=); the value becomes "?", except that a
 * presence test stays "(attr=*)" and a substring value keeps its stars with
 * each piece between them masked: (cn=ab*cd*) becomes (cn=?*?*), (cn=*x)
 * becomes (cn=*?).  &, |, ! and the parentheses are kept, so
 * (&(objectClass=person)(uid=user42)) becomes (&(objectclass=?)(uid=?)).
 * An entry also keeps the first filter it was seen with (its example) and,
 * for the first run of decimal digits in that filter's values, the lowest
 * and highest number and the narrowest and widest run seen in later filters
 * of the shape: what a scenario's filter template (XXX, -r, -R) needs.
 */
#ifndef LDBENCH_REPORT_LOGTOP_H
#define LDBENCH_REPORT_LOGTOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDB_LTOP_KEY 256

struct ldb_ltop_ent {
	uint64_t count, error;
	int next; /* hash chain: next slot, -1 */
	int heap; /* its place in the heap */
	uint16_t len, exlen;
	char key[LDB_LTOP_KEY];
	char ex[LDB_LTOP_KEY]; /* the example (filters only) */
	int run_off, run_len;  /* first digit run in ex (-1: none) */
	int64_t lo, hi;        /* its lowest and highest value seen */
	int wmin, wmax;        /* its narrowest and widest run seen */
};

struct ldb_ltop {
	struct ldb_ltop_ent *ent; /* cap slots */
	int *heap;                /* n slot numbers, a min-heap by count */
	int *bucket;              /* nbucket chain heads, -1 */
	int cap, n, nbucket;
	uint64_t total, evictions;
};

/** @return 0, or -1 (out of memory); free with ldb_ltop_free either way. */
int ldb_ltop_init(struct ldb_ltop *t, int cap);
void ldb_ltop_free(struct ldb_ltop *t);

/** Count key[0..len) once.  @return its entry; *fresh: it has just taken its
 *  slot (its example is the caller's to set). */
struct ldb_ltop_ent *ldb_ltop_add(struct ldb_ltop *t, const char *key, size_t len, bool *fresh);

/** The kept entries, highest count first (ties: by key), into out[0..max).
 *  @return how many. */
int ldb_ltop_sorted(const struct ldb_ltop *t, const struct ldb_ltop_ent **out, int max);

/* Where the first digit run of a filter's values lies (filter masking). */
struct ldb_ltop_run {
	int off, len; /* -1, 0: none */
};

/** The shape of filter f[0..n) into out (at most cap - 1 bytes and a NUL;
 *  cut with "..." when longer), and the first digit run of its values.
 *  @return the shape's length. */
size_t ldb_filter_shape(const char *f, size_t n, char *out, size_t cap, struct ldb_ltop_run *run);

/** Count filter f[0..n) under its shape in t, keeping its example and digit
 *  run figures. */
void ldb_ltop_add_filter(struct ldb_ltop *t, const char *f, size_t n);

#endif
