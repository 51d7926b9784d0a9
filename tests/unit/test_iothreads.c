/* Unit tests for the I/O-thread policy and the descriptor need
 * (src/run/iothread_plan.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "run/iothread_plan.h"

static void test_policy(void **state)
{
	(void)state;
	struct ldb_config c;
	ldb_config_init(&c);
	/* one per client, at most one per CPU */
	assert_int_equal(ldb_io_threads(&c, 4, 1, 8), 4);
	assert_int_equal(ldb_io_threads(&c, 10, 1, 2), 2);
	assert_int_equal(ldb_io_threads(&c, 10, 1, 0), 10); /* CPUs unknown: no cap */
	/* deep pipelines: one per four connections */
	assert_int_equal(ldb_io_threads(&c, 16, 8, 64), 4);
	assert_int_equal(ldb_io_threads(&c, 17, 8, 64), 5);
	assert_int_equal(ldb_io_threads(&c, 16, 7, 64), 16);
	c.conns_per_thread = 2;
	assert_int_equal(ldb_io_threads(&c, 16, 8, 64), 8);
	c.conns_per_thread = 1;
	/* clear-text bindeach: half the CPUs; over TLS all of them */
	c.bindeach = true;
	assert_int_equal(ldb_io_threads(&c, 10, 1, 4), 2);
	assert_int_equal(ldb_io_threads(&c, 10, 1, 1), 1);
	c.ldaps = true;
	assert_int_equal(ldb_io_threads(&c, 10, 1, 4), 4);
	c.ldaps = false;
	c.bindeach = false;
	/* --io-threads, but never more threads than clients */
	c.io_threads = 3;
	assert_int_equal(ldb_io_threads(&c, 10, 1, 64), 3);
	assert_int_equal(ldb_io_threads(&c, 2, 1, 64), 2);
	assert_int_equal(ldb_io_threads(&c, 1, 1, 1), 1);
	ldb_config_free(&c);
}

static void test_share(void **state)
{
	(void)state;
	static const int cases[][2] = { { 10, 3 }, { 3, 3 }, { 7, 1 }, { 64, 5 }, { 5, 4 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int clients = cases[i][0], nr = cases[i][1], next = 0;
		for (int k = 0; k < nr; k++) {
			int first, n = ldb_io_share(clients, nr, k, &first);
			assert_int_equal(first, next); /* contiguous */
			assert_true(n == clients / nr || n == clients / nr + 1);
			next = first + n;
		}
		assert_int_equal(next, clients); /* every client once */
	}
	int first;
	assert_int_equal(ldb_io_share(10, 3, 0, &first), 4);
	assert_int_equal(ldb_io_share(10, 3, 2, &first), 3);
	assert_int_equal(first, 7);
}

static void test_descriptors(void **state)
{
	(void)state;
	struct ldb_config c;
	char err[300] = "";
	ldb_config_init(&c);
	c.conns_per_thread = 3;
	assert_int_equal(ldb_fd_need(&c, 100), 364);
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(ldb_fd_raise(16, err, sizeof err), 0); /* already enough */
	if (rl.rlim_max != RLIM_INFINITY) {
		long need = (long)rl.rlim_max + 1;
		assert_int_equal(ldb_fd_raise(need, err, sizeof err), -1);
		char want[300];
		snprintf(want, sizeof want,
		         "%ld connections need about %ld file descriptors, but the limit is %llu (ulimit -n; the hard "
		         "limit %llu)",
		         need - 64, need, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
		assert_string_equal(err, want);
	}
	ldb_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
