/* Grouped sort: see gsort.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/gsort.h"
#include "util/util.h"

/* Insertion sort of a[0..n), giving up (false) after `budget` moves. */
static bool insertion(char *a, size_t n, size_t size, int (*cmp)(const void *, const void *), size_t budget, char *hold)
{
	for (size_t i = 1; i < n; i++) {
		if (cmp(a + (i - 1) * size, a + i * size) <= 0)
			continue;
		memcpy(hold, a + i * size, size);
		size_t j = i;
		while (j > 0 && cmp(a + (j - 1) * size, hold) > 0) {
			if (budget-- == 0) {
				memcpy(a + j * size, hold, size);
				return false;
			}
			memcpy(a + j * size, a + (j - 1) * size, size);
			j--;
		}
		memcpy(a + j * size, hold, size);
	}
	return true;
}

void ldb_gsort(void *base, size_t n, size_t size, size_t ngroups, size_t (*group)(const void *),
               int (*cmp)(const void *, const void *))
{
	if (n < 2)
		return;
	size_t *at = ngroups <= 4 * n + 4096 ? calloc(ngroups + 1, sizeof *at) : NULL;
	char *tmp = at != NULL ? malloc(n * size + size) : NULL;
	ldb_hugepages(tmp, n * size);
	if (tmp == NULL) {
		free(at);
		qsort(base, n, size, cmp);
		return;
	}
	char *a = base;
	for (size_t i = 0; i < n; i++)
		at[group(a + i * size) + 1]++;
	for (size_t g = 1; g <= ngroups; g++)
		at[g] += at[g - 1];
	for (size_t i = 0; i < n; i++) /* at[g]: the next place of group g; ends at group g + 1's start */
		memcpy(tmp + at[group(a + i * size)]++ * size, a + i * size, size);
	/* at[g] is now group g's end: group g + 1's start */
	memmove(at + 1, at, ngroups * sizeof *at);
	at[0] = 0;
	ldb_gsort_groups(tmp, size, at, ngroups, cmp);
	memcpy(base, tmp, n * size);
	free(tmp);
	free(at);
}

void ldb_gsort_groups(void *base, size_t size, const size_t *at, size_t ngroups, int (*cmp)(const void *, const void *))
{
	char hold[256];
	char *held = size <= sizeof hold ? hold : malloc(size);
	char *a = base;
	for (size_t g = 0; g < ngroups; g++) {
		size_t k = at[g + 1] - at[g];
		char *b = a + at[g] * size;
		if (k > 1 && (held == NULL || !insertion(b, k, size, cmp, 8 * k, held)))
			qsort(b, k, size, cmp);
	}
	if (held != hold)
		free(held);
}
