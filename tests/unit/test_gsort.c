/* Unit tests of the grouped sort (src/util/gsort.c): the same order as
 * qsort's on items nearly in order within their groups (the insertion
 * path), on items in random order (the qsort fallback per group), with
 * equal keys kept in their first order by the insertion path, with empty
 * groups, and with far more groups than items (qsort over the whole). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/gsort.h"

struct item {
	uint32_t group, key, seq;
};

static int cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static size_t group_of(const void *a)
{
	return ((const struct item *)a)->group;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* n items over `groups` groups; displace: how far keys stray from order
 * (0: in order, large: random). */
static void check(size_t n, uint32_t groups, uint32_t displace)
{
	struct item *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		a[i].group = next() % groups;
		a[i].key = (uint32_t)i + (displace ? next() % displace : 0);
		a[i].seq = (uint32_t)i;
	}
	memcpy(b, a, n * sizeof *a);
	ldb_gsort(a, n, sizeof *a, groups, group_of, cmp);
	qsort(b, n, sizeof *b, cmp);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].group, b[i].group);
		assert_int_equal(a[i].key, b[i].key);
		/* equal keys of a group keep their first order (insertion is stable) */
		if (i > 0 && displace <= 16 && cmp(&a[i - 1], &a[i]) == 0)
			assert_true(a[i - 1].seq < a[i].seq);
	}
	free(a);
	free(b);
}

static void test_nearly_in_order(void **state)
{
	(void)state;
	check(100000, 8, 0);
	check(100000, 8, 16);
	check(100000, 1000, 3);
}

static void test_random(void **state)
{
	(void)state;
	check(50000, 4, 1u << 30);
	check(50000, 1, 1u << 30);
}

static void test_groups_beyond_items(void **state)
{
	(void)state;
	check(10, 1u << 20, 5); /* qsort over the whole */
	check(3000, 100000, 1); /* most groups empty */
	check(1, 5, 0);
	check(0, 5, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearly_in_order),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_groups_beyond_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
