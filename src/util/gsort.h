/* Sorting arrays whose items fall into numbered groups (a connection, a
 * sample window) and come nearly in order within each group, as an op-log's
 * records and a server log's requests do: a counting pass by group, then
 * each group put in order by insertion (few inversions: linear), or by
 * qsort where it has many.  O(n + groups) for such input, never worse than
 * qsort's O(n log n) by more than the counting pass. */
#ifndef LDBENCH_UTIL_GSORT_H
#define LDBENCH_UTIL_GSORT_H

#include <stddef.h>

/* base[0..n) of size-byte items sorted by group (0..ngroups-1, from
 * group()), then by cmp within a group; cmp must order by group first too
 * (qsort's fallback uses it alone).  Falls back to qsort when ngroups is far
 * larger than n or memory is short.  Allocates n items and ngroups counters
 * for the time of the call. */
void ldb_gsort(void *base, size_t n, size_t size, size_t ngroups, size_t (*group)(const void *),
               int (*cmp)(const void *, const void *));

/* The second half alone, for items a caller already placed by group (a
 * counting scatter straight from a file, no copy): group g is
 * base[at[g]..at[g + 1]) for g < ngroups (at[0] = 0), each put in order by
 * cmp (insertion, qsort where it has many inversions).  Allocates nothing.
 * Equal items keep their order unless qsort took the group. */
void ldb_gsort_groups(void *base, size_t size, const size_t *at, size_t ngroups,
                      int (*cmp)(const void *, const void *));

#endif
