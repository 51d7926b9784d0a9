/* server/monitor: the delta of two reads less their own traffic, and the
 * per-kind agreement rule (client <= server <= client + in flight). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ops/ops.h"
#include "server/monitor.h"

static void snap389(struct ldb_monitor_snap *s, uint64_t search, uint64_t bind, bool bound)
{
	memset(s, 0, sizeof *s);
	s->kind = LDB_MON_389DS;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		s->have[k] = ldb_ops[k]->snmp != NULL;
	s->completed[LDB_OP_SEARCH] = search;
	s->completed[LDB_OP_BIND] = bind;
	s->probes = 1;
	s->bound = bound;
}

/* 389 DS: the cn=Operations probe is a search too; both reads' probes and
 * snmp searches are in searchops, the delta holds 1 + the second's probe */
static void delta_389ds_subtracts_probe(void **state)
{
	(void)state;
	struct ldb_monitor_snap b, a, d;
	snap389(&b, 100, 50, true);
	snap389(&a, 100 + 600 + 2, 50 + 2 + 1, true);
	ldb_monitor_delta(&b, &a, true, &d);
	assert_int_equal(d.kind, LDB_MON_389DS);
	assert_int_equal(d.completed[LDB_OP_SEARCH], 600);
	assert_int_equal(d.completed[LDB_OP_BIND], 2);
	assert_true(d.have[LDB_OP_SEARCH]);
	assert_false(d.have[LDB_OP_ABANDON]);
}

/* -D with an XXX: the reads are anonymous, no bind of theirs to subtract */
static void delta_unbound_read_keeps_binds(void **state)
{
	(void)state;
	struct ldb_monitor_snap b, a, d;
	snap389(&b, 10, 7, false);
	snap389(&a, 12, 7 + 302, false);
	ldb_monitor_delta(&b, &a, true, &d);
	assert_int_equal(d.completed[LDB_OP_BIND], 302);
	assert_int_equal(d.completed[LDB_OP_SEARCH], 0);
}

static void compare_agrees_within_in_flight(void **state)
{
	(void)state;
	struct ldb_monitor_snap d;
	struct ldb_totals tot;
	struct ldb_monitor_cmp m;
	memset(&tot, 0, sizeof tot);
	snap389(&d, 0, 0, true);
	tot.op[LDB_OP_SEARCH].attempted = 1064;
	tot.op[LDB_OP_SEARCH].completed = 1000;
	tot.setup_binds = 4;
	d.completed[LDB_OP_SEARCH] = 1030;
	d.completed[LDB_OP_BIND] = 4;
	assert_true(ldb_monitor_compare(&d, &tot, LDB_OP_SEARCH, &m));
	assert_int_equal(m.client, 1000);
	assert_int_equal(m.in_flight, 64);
	assert_true(m.agree);
	d.completed[LDB_OP_SEARCH] = 1065; /* more than was sent */
	assert_true(ldb_monitor_compare(&d, &tot, LDB_OP_SEARCH, &m));
	assert_false(m.agree);
	d.completed[LDB_OP_SEARCH] = 999; /* fewer than the client saw answered */
	assert_true(ldb_monitor_compare(&d, &tot, LDB_OP_SEARCH, &m));
	assert_false(m.agree);
	/* the binds that opened connections are the client's binds */
	assert_true(ldb_monitor_compare(&d, &tot, LDB_OP_BIND, &m));
	assert_int_equal(m.client, 4);
	assert_true(m.agree);
	/* 389 DS counts no abandon */
	assert_false(ldb_monitor_compare(&d, &tot, LDB_OP_ABANDON, &m));
	assert_string_equal(ldb_monitor_source(&d), "cn=snmp,cn=monitor");
}

static void json_member(void **state)
{
	(void)state;
	struct ldb_monitor_snap d;
	struct ldb_totals tot;
	bool used[LDB_OP_COUNT] = { false };
	char buf[512] = { 0 };
	memset(&tot, 0, sizeof tot);
	snap389(&d, 0, 0, true);
	d.completed[LDB_OP_SEARCH] = 5;
	tot.op[LDB_OP_SEARCH].attempted = tot.op[LDB_OP_SEARCH].completed = 5;
	used[LDB_OP_SEARCH] = true;
	FILE *f = fmemopen(buf, sizeof buf - 1, "w");
	assert_non_null(f);
	ldb_monitor_put_json(f, &d, &tot, used);
	fclose(f);
	assert_string_equal(
	        buf, ",\"server\":{\"source\":\"cn=snmp,cn=monitor\",\"ops\":{\"search\":{\"server_completed\":5,"
	             "\"client_completed\":5,\"in_flight\":0,\"agree\":true}}}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delta_389ds_subtracts_probe),
		cmocka_unit_test(delta_unbound_read_keeps_binds),
		cmocka_unit_test(compare_agrees_within_in_flight),
		cmocka_unit_test(json_member),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
