/* Unit tests for the join's verdict line (src/report/join.c's verdict, by
 * ldb_join_conclude): a part of the client's p99 (queue, processing,
 * outside) "dominates" only when it is at least twice the next; else the
 * line says that none does.  The parts are named as the per-sample table
 * names them, with the log's own name (qtime, wtime ...), and the line
 * gives the etime beside the client's p99 (never "high" against nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report/join.h"

/* A join of n operations, each with these figures in ms (every one the same). */
static void make(struct ldb_join *j, const char *server, double client, double etime, double queue, double proc,
                 double outside)
{
	memset(j, 0, sizeof *j);
	snprintf(j->server, sizeof j->server, "%s", server);
	struct ldb_join_kind *a = &j->all;
	for (int f = 0; f < LDB_JF_COUNT; f++)
		assert_int_equal(ldb_hist_init(&a->h[f]), 0);
	const double v[LDB_JF_COUNT] = { client, etime, queue, proc, outside };
	for (int f = 0; f < LDB_JF_COUNT; f++)
		ldb_hist_record_n(&a->h[f], (uint64_t)(v[f] * 1e6), 100);
	a->queue = a->proc = true;
	a->sent = a->joined = 100;
	j->measured = 100;
	j->conns = j->conns_tagged = 1;
	j->last_seen = true;
	ldb_join_conclude(j);
	printf("%s\n", j->verdict);
}

static void done(struct ldb_join *j)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		ldb_hist_free(&j->all.h[f]);
}

static void starts(const char *s, const char *head)
{
	if (strncmp(s, head, strlen(head)) != 0)
		fail_msg("'%s' does not start with '%s'", s, head);
}

/* queue level with outside, etime 7 ms: no part dominates */
static void test_level(void **state)
{
	(void)state;
	struct ldb_join j;
	make(&j, "openldap", 10, 7, 3, 1, 3.05);
	starts(j.verdict, "no part dominates at p99: outside 3.0");
	assert_non_null(strstr(j.verdict, " ms and queue (qtime) 3.0"));
	assert_non_null(strstr(j.verdict, " ms (1.0 times) of the client's 10.0"));
	assert_non_null(strstr(j.verdict, " ms p99, etime 7.0"));
	assert_null(strstr(j.verdict, "high"));
	done(&j);
	/* processing 1.3 times queue: no part dominates either */
	make(&j, "389ds", 10, 7, 3, 4, 3);
	starts(j.verdict, "no part dominates at p99: processing (optime) 4.0");
	assert_non_null(strstr(j.verdict, " ms and queue (wtime) 3.0"));
	assert_non_null(strstr(j.verdict, "(1.3 times)"));
	done(&j);
}

/* one part at least twice the next: it dominates, with the figures it is measured against */
static void test_dominates(void **state)
{
	(void)state;
	struct ldb_join j;
	make(&j, "openldap", 5.4, 0.4, 0.1, 0.25, 5);
	starts(j.verdict,
	       "the delay is outside the server (network or client handling): outside dominates at p99: 5.0");
	assert_non_null(strstr(j.verdict, " ms of the client's 5.4"));
	assert_non_null(strstr(j.verdict, ", etime 0.4"));
	assert_non_null(strstr(j.verdict, " times the next part"));
	done(&j);
	make(&j, "389ds", 9, 8.5, 0.1, 8, 0.5);
	starts(j.verdict,
	       "the server is spending time processing the operation: processing (optime) dominates at p99: 8.0");
	done(&j);
	make(&j, "openldap", 9, 8.5, 6, 2.5, 0.5);
	starts(j.verdict, "operations are waiting before execution: queue (qtime) dominates at p99: 6.0");
	assert_non_null(strstr(j.verdict, "2.4 times the next part"));
	done(&j);
	/* exactly twice the next: dominates */
	make(&j, "openldap", 9, 5, 2, 1, 4);
	starts(j.verdict,
	       "the delay is outside the server (network or client handling): outside dominates at p99: 4.0");
	assert_non_null(strstr(j.verdict, "2.0 times the next part"));
	done(&j);
	/* the others 0 */
	make(&j, "openldap", 9, 9, 0, 9, 0);
	starts(j.verdict, "the server is spending time processing the operation: processing (etime - qtime) dominates");
	assert_non_null(strstr(j.verdict, ", the other parts 0"));
	done(&j);
	/* every part 0: none dominates */
	make(&j, "openldap", 9, 9, 0, 0, 0);
	starts(j.verdict, "no part dominates at p99: queue, processing and outside are 0 of the client's 9.0");
	done(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level),
		cmocka_unit_test(test_dominates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
