/* Unit tests for the I/O thread's deadline heap (src/run/timers.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/timers.h"

/* The heap's invariant and every entry's place, checked from outside. */
static void check_heap(const struct ldb_timers *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		assert_int_equal(t->heap[i]->pos, i + 1);
		if (i > 0)
			assert_true(t->heap[(i - 1) / 2]->at <= t->heap[i]->at);
	}
}

/* Entries come out earliest first, only once due, each disarmed. */
static void test_order(void **state)
{
	static const uint64_t at[] = { 50, 10, 40, 30, 20, 60, 5 };
	static const uint64_t sorted[] = { 5, 10, 20, 30, 40, 50, 60 };
	struct ldb_timers t;
	struct ldb_timer e[7];

	(void)state;
	assert_int_equal(ldb_timers_init(&t, 7), 0);
	assert_int_equal(ldb_timers_next(&t), UINT64_MAX);
	for (int i = 0; i < 7; i++) {
		ldb_timer_set(&e[i], i, &e[i]);
		assert_false(ldb_timer_armed(&e[i]));
		assert_true(ldb_timer_arm(&t, &e[i], at[i]));
		assert_true(ldb_timer_armed(&e[i]));
		check_heap(&t);
	}
	assert_int_equal(ldb_timers_next(&t), 5);
	assert_null(ldb_timers_pop(&t, 4)); /* nothing due before 5 */
	for (int i = 0; i < 7; i++) {
		struct ldb_timer *x = ldb_timers_pop(&t, sorted[i]);
		assert_non_null(x);
		assert_int_equal(x->at, sorted[i]);
		assert_false(ldb_timer_armed(x));
		assert_ptr_equal(x->data, &e[x->tag]);
		assert_int_equal(at[x->tag], sorted[i]);
		check_heap(&t);
	}
	assert_null(ldb_timers_pop(&t, UINT64_MAX));
	assert_int_equal(ldb_timers_next(&t), UINT64_MAX);
	ldb_timers_free(&t);
}

/* A cancelled entry never comes out; cancelling twice, or an entry never
 * armed, is harmless; the hole is filled from below or above. */
static void test_cancel(void **state)
{
	struct ldb_timers t;
	struct ldb_timer e[8], never;

	(void)state;
	assert_int_equal(ldb_timers_init(&t, 8), 0);
	for (int i = 0; i < 8; i++) {
		ldb_timer_set(&e[i], i, NULL);
		assert_true(ldb_timer_arm(&t, &e[i], (uint64_t)(i + 1) * 10));
	}
	ldb_timer_set(&never, 99, NULL);
	ldb_timer_cancel(&t, &never);
	ldb_timer_cancel(&t, &e[0]); /* the root */
	ldb_timer_cancel(&t, &e[0]);
	ldb_timer_cancel(&t, &e[4]); /* a middle one */
	ldb_timer_cancel(&t, &e[7]); /* the last one */
	check_heap(&t);
	assert_int_equal(t.n, 5);
	static const int left[] = { 1, 2, 3, 5, 6 };
	for (int i = 0; i < 5; i++) {
		struct ldb_timer *x = ldb_timers_pop(&t, 1000);
		assert_non_null(x);
		assert_int_equal(x->tag, left[i]);
	}
	assert_null(ldb_timers_pop(&t, 1000));
	ldb_timers_free(&t);
}

/* Re-arming moves an entry, earlier or later, without a second copy;
 * ldb_timer_arm_before only ever moves it earlier. */
static void test_rearm(void **state)
{
	struct ldb_timers t;
	struct ldb_timer a, b, c;

	(void)state;
	assert_int_equal(ldb_timers_init(&t, 3), 0);
	ldb_timer_set(&a, 0, NULL);
	ldb_timer_set(&b, 1, NULL);
	ldb_timer_set(&c, 2, NULL);
	assert_true(ldb_timer_arm(&t, &a, 100));
	assert_true(ldb_timer_arm(&t, &b, 200));
	assert_true(ldb_timer_arm(&t, &c, 300));
	assert_true(ldb_timer_arm(&t, &a, 400)); /* later */
	assert_true(ldb_timer_arm(&t, &c, 50));  /* earlier */
	assert_int_equal(t.n, 3);
	check_heap(&t);
	assert_true(ldb_timer_arm_before(&t, &b, 250)); /* no: 200 is earlier */
	assert_int_equal(b.at, 200);
	assert_true(ldb_timer_arm_before(&t, &b, 150)); /* yes */
	assert_int_equal(b.at, 150);
	assert_ptr_equal(ldb_timers_pop(&t, 1000), &c);
	assert_ptr_equal(ldb_timers_pop(&t, 1000), &b);
	assert_ptr_equal(ldb_timers_pop(&t, 1000), &a);
	/* a disarmed entry arms again; arm_before arms an unarmed one */
	assert_true(ldb_timer_arm_before(&t, &a, 7));
	assert_int_equal(ldb_timers_next(&t), 7);
	ldb_timers_free(&t);
	assert_false(ldb_timer_armed(&a)); /* freeing disarms what was left */
}

/* The heap holds what it was sized for and refuses more; every place is
 * used again after it drained, for deadlines anywhere in the clock's range
 * (near its end too: no arithmetic on deadlines that could wrap). */
static void test_full_and_wrap(void **state)
{
	struct ldb_timers t;
	struct ldb_timer e[4], extra;
	static const uint64_t far[] = { UINT64_MAX - 1, 0, UINT64_MAX - 3, UINT64_MAX - 2 };

	(void)state;
	assert_int_equal(ldb_timers_init(&t, 4), 0);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++) {
			ldb_timer_set(&e[i], i, NULL);
			assert_true(ldb_timer_arm(&t, &e[i], far[i]));
		}
		ldb_timer_set(&extra, 9, NULL);
		assert_false(ldb_timer_arm(&t, &extra, 1));
		assert_false(ldb_timer_armed(&extra));
		assert_true(ldb_timer_arm(&t, &e[2], 5)); /* re-arming when full is fine */
		assert_int_equal(ldb_timers_pop(&t, UINT64_MAX)->tag, 1);
		assert_int_equal(ldb_timers_pop(&t, UINT64_MAX)->tag, 2);
		assert_null(ldb_timers_pop(&t, UINT64_MAX - 3));
		assert_int_equal(ldb_timers_pop(&t, UINT64_MAX - 2)->tag, 3);
		assert_int_equal(ldb_timers_pop(&t, UINT64_MAX)->tag, 0);
		assert_int_equal(t.n, 0);
	}
	ldb_timers_free(&t);
}

/* Many entries, armed, moved and cancelled at random, against a plain
 * array: what comes out is exactly the armed ones, in order. */
static void test_many(void **state)
{
	enum { N = 20000 };
	struct ldb_timers t;
	struct ldb_timer *e = calloc(N, sizeof *e);
	uint64_t x = 88172645463325252ULL;

	(void)state;
	assert_non_null(e);
	assert_int_equal(ldb_timers_init(&t, N), 0);
	for (int i = 0; i < N; i++)
		ldb_timer_set(&e[i], i, NULL);
	for (int step = 0; step < 5 * N; step++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		struct ldb_timer *p = &e[x % N];
		if ((x >> 32) % 4 == 0)
			ldb_timer_cancel(&t, p);
		else
			assert_true(ldb_timer_arm(&t, p, (x >> 20) % 1000000));
	}
	check_heap(&t);
	uint32_t armed = 0;
	for (int i = 0; i < N; i++)
		armed += ldb_timer_armed(&e[i]);
	assert_int_equal(t.n, armed);
	uint64_t last = 0;
	uint32_t out = 0;
	struct ldb_timer *p;
	while ((p = ldb_timers_pop(&t, UINT64_MAX)) != NULL) {
		assert_true(p->at >= last);
		last = p->at;
		out++;
	}
	assert_int_equal(out, armed);
	for (int i = 0; i < N; i++)
		assert_false(ldb_timer_armed(&e[i]));
	ldb_timers_free(&t);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),         cmocka_unit_test(test_cancel), cmocka_unit_test(test_rearm),
		cmocka_unit_test(test_full_and_wrap), cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
