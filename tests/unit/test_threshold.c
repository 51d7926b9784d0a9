/* Unit tests for the one --fail-if grammar (src/cli/fail_if.c): the forms a
 * plain run takes (absolute values with units) and those compare takes
 * (relative changes in percent), every refusal's message in both, and the
 * check of a run's thresholds on a crafted summary (src/report/verdict.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "report/join.h"
#include "report/repl_lines.h"
#include "report/reporter.h"
#include "cli/fail_if.h"
#include "report/verdict.h"
#include "report/settings.h"

static struct ldb_threshold ok(const char *expr, const struct ldb_threshold_form *form)
{
	struct ldb_threshold t;
	char err[400];
	if (ldb_threshold_parse_form(&t, expr, form, err, sizeof err) != 0)
		fail_msg("'%s' refused: %s", expr, err);
	assert_string_equal(t.text, expr);
	return t;
}

/* The whole message, so that each refusal is pinned down. */
static void refused(const char *expr, const struct ldb_threshold_form *form, const char *want)
{
	struct ldb_threshold t;
	char err[400] = "";
	if (ldb_threshold_parse_form(&t, expr, form, err, sizeof err) == 0)
		fail_msg("'%s' accepted", expr);
	assert_string_equal(err, want);
}

static void test_run_forms(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	struct ldb_threshold t = ok("p99>5ms", r);
	assert_int_equal(t.kind, -1);
	assert_int_equal(t.metric, LDB_M_P99);
	assert_int_equal(t.cmp, LDB_GT);
	assert_false(t.relative);
	assert_true(t.value == 5e6);
	t = ok("errors>0", r);
	assert_int_equal(t.metric, LDB_M_ERRORS);
	assert_true(t.value == 0);
	t = ok("rate<1000", r);
	assert_int_equal(t.metric, LDB_M_RATE);
	assert_int_equal(t.cmp, LDB_LT);
	assert_true(t.value == 1000);
	t = ok("rate<=1000/s", r);
	assert_int_equal(t.cmp, LDB_LE);
	assert_true(t.value == 1000);
	/* p99.9 is one metric, not a kind "p99" */
	t = ok("p99.9>=20ms", r);
	assert_int_equal(t.kind, -1);
	assert_int_equal(t.metric, LDB_M_P999);
	assert_int_equal(t.cmp, LDB_GE);
	t = ok("search.p99.9>=20ms", r);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	assert_int_equal(t.metric, LDB_M_P999);
	t = ok("BIND.Mean<2", r);
	assert_int_equal(t.kind, LDB_OP_BIND);
	assert_int_equal(t.metric, LDB_M_MEAN);
	assert_true(t.value == 2e6);
	t = ok(" compare.max > +3 s ", r);
	assert_int_equal(t.kind, LDB_OP_COMPARE);
	assert_int_equal(t.metric, LDB_M_MAX);
	assert_true(t.value == 3e9);
	t = ok("search.errors>10", r);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	t = ok("min>.5", r);
	assert_int_equal(t.metric, LDB_M_MIN);
	assert_true(t.value == 5e5);
	const char *all[] = { "p50>1", "p90>1", "p95>1", "modify.p50>1", "add.p50>1", "delete.p50>1", "rename.p50>1" };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		(void)ok(all[i], r);
}

static void test_units(void **state)
{
	(void)state;
	static const struct {
		const char *expr;
		double ns;
	} u[] = { { "p99>7", 7e6 },     { "p99>7ns", 7 },        { "p99>7us", 7e3 },
		  { "p99>7µs", 7e3 },   { "p99>7ms", 7e6 },      { "p99>7s", 7e9 },
		  { "p99>0.001us", 1 }, { "p99>1.5 ms", 1.5e6 }, { "p99>2e3us", 2e6 } };
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		struct ldb_threshold t = ok(u[i].expr, &ldb_threshold_run);
		if (t.value != u[i].ns)
			fail_msg("'%s': %g ns, want %g", u[i].expr, t.value, u[i].ns);
	}
}

static void test_run_refusals(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	const char *metric =
	        "expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, min, mean, p50, p90, p95, "
	        "p99, p99.9, max, misses, hits (latencies in ns/us/ms/s, ms by default), OP one of < <= > >=";
	char want[400];
	snprintf(want, sizeof want, "--fail-if 'latency>5': %s", metric);
	refused("latency>5", r, want);
	snprintf(want, sizeof want, "--fail-if '': %s", metric);
	refused("", r, want);
	snprintf(want, sizeof want, "--fail-if 'search.p98>5': %s", metric);
	refused("search.p98>5", r, want);
	snprintf(want, sizeof want, "--fail-if 'p99.9x>5': %s", metric);
	refused("p99.9x>5", r, want);
	refused("foo.p99>5ms", r,
	        "--fail-if 'foo.p99>5ms': unknown operation kind 'foo' (search, bind, add, modify, delete, rename, "
	        "compare, abandon, passmod, whoami, extended, login)");
	refused("p99=5ms", r, "--fail-if 'p99=5ms': expected an operator (<, <=, > or >=) after p99");
	refused("p99", r, "--fail-if 'p99': expected an operator (<, <=, > or >=) after p99");
	refused("p99>ms", r, "--fail-if 'p99>ms': expected a number after '>' (e.g. 5ms)");
	refused("p99<=", r, "--fail-if 'p99<=': expected a number after '<=' (e.g. 5ms)");
	refused("p99>nan", r, "--fail-if 'p99>nan': expected a number after '>' (e.g. 5ms)");
	refused("p99>inf", r, "--fail-if 'p99>inf': expected a number after '>' (e.g. 5ms)");
	refused("p99>+10%", r,
	        "--fail-if 'p99>+10%': a change in percent is for ldbench compare; a run's threshold is absolute "
	        "(e.g. 'p99>5ms', 'rate<1000')");
	refused("rate<-1", r,
	        "--fail-if 'rate<-1': a negative value; a run's threshold is absolute (e.g. 'rate<1000')");
	refused("p99>5min", r,
	        "--fail-if 'p99>5min': unknown unit 'min' (latencies take ns, us, ms or s; ms without a unit)");
	refused("rate<5ms", r,
	        "--fail-if 'rate<5ms': unknown unit 'ms' (a rate is per second: 'rate<1000' or 'rate<1000/s')");
	refused("errors>1x", r, "--fail-if 'errors>1x': unexpected 'x' after the count (errors take a plain number)");
	refused("p99>5ms x", r, "--fail-if 'p99>5ms x': unexpected 'x' after the value");
	refused("misses>1ms", r,
	        "--fail-if 'misses>1ms': unexpected 'ms' after the count (misses take a plain number)");
	refused("hits<5%", r,
	        "--fail-if 'hits<5%': a change in percent is for ldbench compare; a run's threshold is absolute "
	        "(e.g. 'p99>5ms', 'rate<1000')");
}

/* srchnentries' checks: counts on a run, counts or changes in compare */
static void test_expected_metrics(void **state)
{
	(void)state;
	struct ldb_threshold t = ok("misses>0", &ldb_threshold_run);
	assert_int_equal(t.metric, LDB_M_MISSES);
	assert_int_equal(t.kind, -1);
	assert_int_equal(t.cmp, LDB_GT);
	assert_true(t.value == 0 && !t.relative);
	t = ok("search.hits < 100", &ldb_threshold_run);
	assert_int_equal(t.metric, LDB_M_HITS);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	assert_true(t.value == 100);
	t = ok("misses>0", &ldb_threshold_compare);
	assert_int_equal(t.metric, LDB_M_MISSES);
	assert_true(!t.relative && t.value == 0);
	t = ok("hits<-5%", &ldb_threshold_compare);
	assert_true(t.relative && t.value == -5);
	refused("rate<5", &ldb_threshold_compare,
	        "--fail-if 'rate<5': the value must end with '%' (a change in percent)");
}

static void test_compare_forms(void **state)
{
	(void)state;
	const struct ldb_threshold_form *c = &ldb_threshold_compare;
	struct ldb_threshold t = ok("rate<-5%", c);
	assert_int_equal(t.kind, -1);
	assert_int_equal(t.metric, LDB_M_RATE);
	assert_int_equal(t.cmp, LDB_LT);
	assert_true(t.relative);
	assert_true(t.value == -5);
	t = ok("p99>+10%", c);
	assert_int_equal(t.metric, LDB_M_P99);
	assert_true(t.value == 10);
	t = ok("search.p50>=20%", c);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	assert_int_equal(t.metric, LDB_M_P50);
	assert_int_equal(t.cmp, LDB_GE);
	t = ok(" bind.rate <= -2.5 % ", c);
	assert_int_equal(t.kind, LDB_OP_BIND);
	assert_int_equal(t.cmp, LDB_LE);
	assert_true(t.value == -2.5);
	t = ok("p99>.5%", c);
	assert_true(t.value == 0.5);
	t = ok("p99>-.5%", c);
	assert_true(t.value == -0.5);
}

static void test_compare_refusals(void **state)
{
	(void)state;
	const struct ldb_threshold_form *c = &ldb_threshold_compare;
	const char *metric = "expected [KIND.]METRIC OP VALUE% with METRIC rate, p50, p99, misses or hits (e.g. "
	                     "'rate<-5%'; misses and hits also take a count: 'misses>0')";
	char want[400];
	/* a metric of the grammar that compare does not take */
	const char *not_taken[] = { "p95>5%", "errors>1%", "p99.9>5%", "latency<5%", "" };
	for (size_t i = 0; i < sizeof not_taken / sizeof not_taken[0]; i++) {
		snprintf(want, sizeof want, "--fail-if '%s': %s", not_taken[i], metric);
		refused(not_taken[i], c, want);
	}
	refused("foo.rate<5%", c,
	        "--fail-if 'foo.rate<5%': unknown operation kind 'foo' (search, bind, add, modify, delete, rename, "
	        "compare, abandon, passmod, whoami, extended, login)");
	refused("rate=5%", c, "--fail-if 'rate=5%': expected an operator (<, <=, > or >=) after rate");
	refused("rate<%", c, "--fail-if 'rate<%': expected a percentage after '<' (e.g. -5%)");
	refused("rate<abc%", c, "--fail-if 'rate<abc%': expected a percentage after '<' (e.g. -5%)");
	refused("rate<+%", c, "--fail-if 'rate<+%': expected a percentage after '<' (e.g. -5%)");
	refused("rate<5", c, "--fail-if 'rate<5': the value must end with '%' (a change in percent)");
	refused("p99>10ms", c, "--fail-if 'p99>10ms': the value must end with '%' (a change in percent)");
	refused("rate<5%x", c, "--fail-if 'rate<5%x': unexpected 'x' after the percentage");
}

static void test_holds(void **state)
{
	(void)state;
	struct ldb_threshold t = ok("p99>5ms", &ldb_threshold_run);
	assert_false(ldb_threshold_holds(&t, 5e6));
	assert_true(ldb_threshold_holds(&t, 5e6 + 1));
	t = ok("p99>=5ms", &ldb_threshold_run);
	assert_true(ldb_threshold_holds(&t, 5e6));
	t = ok("rate<-5%", &ldb_threshold_compare);
	assert_true(ldb_threshold_holds(&t, -5.1));
	assert_false(ldb_threshold_holds(&t, -5));
	t = ok("rate<=-5%", &ldb_threshold_compare);
	assert_true(ldb_threshold_holds(&t, -5));
	char buf[64];
	t = ok("p99>5ms", &ldb_threshold_run);
	ldb_threshold_format(&t, 7412000, buf, sizeof buf);
	assert_string_equal(buf, "7.412 ms");
	t = ok("rate<1", &ldb_threshold_run);
	ldb_threshold_format(&t, 1520.333, buf, sizeof buf);
	assert_string_equal(buf, "1520.33/s");
	t = ok("errors>0", &ldb_threshold_run);
	ldb_threshold_format(&t, 3, buf, sizeof buf);
	assert_string_equal(buf, "3");
}

/* A summary of 2 s: 1000 searches of 1..1000 us, 3 of them errors (code 32),
 * and 10 binds with one error (code 49). */
struct fixture {
	struct ldb_summary sum;
	struct ldb_hist search;
};

static void make_summary(struct fixture *f)
{
	memset(f, 0, sizeof *f);
	assert_int_equal(ldb_hist_init(&f->search), 0);
	for (uint64_t i = 1; i <= 1000; i++)
		ldb_hist_record(&f->search, i * 1000);
	f->sum.seconds = 2;
	f->sum.tot.op[LDB_OP_SEARCH].counted = 1000;
	f->sum.tot.op[LDB_OP_SEARCH].codes[ldb_code_slot(32)] = 3;
	f->sum.tot.op[LDB_OP_BIND].counted = 10;
	f->sum.tot.op[LDB_OP_BIND].codes[ldb_code_slot(49)] = 1;
	f->sum.lat[LDB_OP_SEARCH] = &f->search;
}

static void test_actual(void **state)
{
	(void)state;
	struct fixture f;
	make_summary(&f);
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	struct ldb_threshold t = ok("rate<1", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 500);
	t = ok("errors>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 4); /* no kind: every kind's errors */
	t = ok("search.errors>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 3);
	t = ok("min>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == (double)f.search.min);
	t = ok("p50>0", r);
	double p50 = ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH);
	assert_true(p50 >= 499000 && p50 <= 501000);
	t = ok("max>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == (double)f.search.max);
	/* a kind without a histogram, and a run of no measured time: 0, never nan */
	t = ok("bind.p99>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_BIND) == 0);
	t = ok("bind.mean>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_BIND) == 0);
	f.sum.tot.op[LDB_OP_SEARCH].exp_misses = 7;
	f.sum.tot.op[LDB_OP_SEARCH].exp_hits = 993;
	t = ok("misses>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 7);
	t = ok("search.hits<1000", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 993);
	t = ok("bind.misses>0", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_BIND) == 0);
	f.sum.seconds = 0;
	t = ok("rate<1", r);
	assert_true(ldb_threshold_actual(&t, &f.sum, LDB_OP_SEARCH) == 0);
	ldb_hist_free(&f.search);
}

/* The replication check's thresholds (-S): repl.LATENCY is the worst
 * consumer's, repl.unseen the sum; compare refuses them. */
/* The join's keys (--server-log): server., queue., processing., outside., unindexed. */
static void test_join(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	struct ldb_threshold t = ok("server.p99>5ms", r);
	assert_int_equal(t.source, LDB_TS_JOIN);
	assert_int_equal(t.fig, LDB_TF_SERVER);
	assert_int_equal(t.kind, LDB_KIND_ANY);
	assert_int_equal(t.metric, LDB_M_P99);
	assert_true(t.value == 5e6);
	t = ok("outside.p99>1ms", r);
	assert_int_equal(t.source, LDB_TS_JOIN);
	assert_int_equal(t.fig, LDB_TF_OUTSIDE);
	t = ok("search.queue.p50>1ms", r);
	assert_int_equal(t.source, LDB_TS_JOIN);
	assert_int_equal(t.fig, LDB_TF_QUEUE);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	t = ok("unindexed>0", r);
	assert_int_equal(t.metric, LDB_M_UNINDEXED);
	assert_int_equal(t.source, LDB_TS_JOIN);
	t = ok("coverage<99.5", r);
	assert_int_equal(t.metric, LDB_M_COVERAGE);
	assert_int_equal(t.source, LDB_TS_JOIN);
	assert_true(t.value == 99.5 && !t.relative);
	t = ok("coverage<100%", r);
	assert_true(t.value == 100 && !t.relative);
	refused("coverage<101", r,
	        "--fail-if 'coverage<101': coverage is a percentage of the operations sent (e.g. 'coverage<100')");
	refused("outside.rate<5", r,
	        "--fail-if 'outside.rate<5': outside takes a latency of a run (e.g. 'outside.p99>5ms')");
	refused("search.unindexed>0", r,
	        "--fail-if 'search.unindexed>0': expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, min, "
	        "mean, "
	        "p50, p90, p95, p99, p99.9, max, misses, hits (latencies in ns/us/ms/s, ms by default), OP one of < <= "
	        "> >=");
	/* no join: not evaluated, never a value */
	struct ldb_summary sum;
	memset(&sum, 0, sizeof sum);
	t = ok("server.p99>5ms", r);
	double v = -1;
	const char *why = NULL;
	assert_false(ldb_threshold_value(&t, &sum, 0, &v, &why));
	assert_string_equal(why, "the server's log could not be joined");
	/* the run's own figures need nothing; the others their option */
	char err[400];
	struct ldb_threshold ts[3] = { ok("p99>5ms", r), ok("server.p99>5ms", r), ok("repl.p99>1s", r) };
	assert_int_equal(ldb_thresholds_sources(ts, 1, false, false, false, err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_sources(ts, 3, true, true, false, err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_sources(ts, 3, false, true, false, err, sizeof err), -1);
	assert_string_equal(err, "--fail-if 'server.p99>5ms': needs --server-log (its figure comes from the join "
	                         "with the server's access log)");
	assert_int_equal(ldb_thresholds_sources(ts, 3, true, false, false, err, sizeof err), -1);
	assert_string_equal(err, "--fail-if 'repl.p99>1s': needs -S (its figure comes from the replication check)");
	struct ldb_threshold u = ok("unindexed>0", r);
	assert_int_equal(ldb_thresholds_sources(&u, 1, false, false, false, err, sizeof err), -1);
	assert_string_equal(ldb_threshold_needs(&u), "--server-log");
}

/* The listeners' figures (listen.FIGURE): a run's, compare's, refusals,
 * and the option they need. */
static void test_listen(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run, *c = &ldb_threshold_compare;
	struct ldb_threshold t = ok("listen.missing>0", r);
	assert_int_equal(t.source, LDB_TS_LISTEN);
	assert_int_equal(t.lfig, LDB_LF_MISSING);
	assert_int_equal(t.kind, LDB_KIND_ANY);
	assert_true(ldb_threshold_holds(&t, 1) && !ldb_threshold_holds(&t, 0));
	t = ok("listen.duplicated>=2", r);
	assert_int_equal(t.lfig, LDB_LF_DUP);
	t = ok("listen.delay.p99>500ms", r);
	assert_int_equal(t.lfig, LDB_LF_DELAY);
	assert_int_equal(t.metric, LDB_M_P99);
	assert_true(t.value == 500e6);
	t = ok("listen.refresh.max>2s", r);
	assert_int_equal(t.lfig, LDB_LF_REFRESH);
	assert_int_equal(t.metric, LDB_M_MAX);
	t = ok("listen.delay.p99>+20%", c);
	assert_true(t.relative);
	t = ok("listen.missing>0", c);
	assert_false(t.relative);
	refused("listen.late>0", r,
	        "--fail-if 'listen.late>0': unknown listeners' figure 'late' (listen.missing, dup, out_of_order, "
	        "unmatched, lost, down, delay.p50, delay.p99, delay.max, ..., refresh.p50, refresh.max)");
	refused("listen.refresh.p99>1s", r,
	        "--fail-if 'listen.refresh.p99>1s': unknown listeners' figure 'refresh.p99' (listen.missing, dup, "
	        "out_of_order, unmatched, lost, down, delay.p50, delay.p99, delay.max, ..., refresh.p50, refresh.max)");
	refused("listen.lost>0", c,
	        "--fail-if 'listen.lost>0': unknown listeners' figure 'lost' (listen.missing, dup, out_of_order, "
	        "delay.p50, delay.p99, delay.max, refresh.p50, refresh.max)");
	refused("listen.delay.p99>5ms", c,
	        "--fail-if 'listen.delay.p99>5ms': the value must end with '%' (a change in percent)");
	char err[400];
	t = ok("listen.dup>0", r);
	assert_int_equal(ldb_thresholds_sources(&t, 1, false, false, true, err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_sources(&t, 1, true, true, false, err, sizeof err), -1);
	assert_string_equal(err, "--fail-if 'listen.dup>0': needs --listeners N (its figure comes from the listeners)");
}

/* ldbench join's form: the join's figures only. */
static void test_join_form(void **state)
{
	(void)state;
	const struct ldb_threshold_form *j = &ldb_threshold_join;
	struct ldb_threshold t = ok("p99>5ms", j);
	assert_int_equal(t.source, LDB_TS_JOIN);
	assert_int_equal(t.fig, LDB_TF_CLIENT);
	assert_int_equal(t.kind, LDB_KIND_ANY);
	t = ok("search.p99>5ms", j);
	assert_int_equal(t.fig, LDB_TF_CLIENT);
	assert_int_equal(t.kind, LDB_OP_SEARCH);
	t = ok("bind.server.max>1s", j);
	assert_int_equal(t.fig, LDB_TF_SERVER);
	assert_int_equal(t.kind, LDB_OP_BIND);
	assert_int_equal(t.metric, LDB_M_MAX);
	t = ok("search.coverage<100", j);
	assert_int_equal(t.metric, LDB_M_COVERAGE);
	const char *others[] = { "rate<1000", "errors>0", "search.misses>0", "repl.p99>1s", "late.p99>1ms" };
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		struct ldb_threshold x;
		char err[400];
		if (ldb_threshold_parse_form(&x, others[i], j, err, sizeof err) == 0)
			fail_msg("'%s' accepted by ldbench join", others[i]);
		if (strstr(err, "ldbench join has the join's figures only") == NULL &&
		    strstr(err, "unknown operation kind") == NULL)
			fail_msg("'%s': %s", others[i], err);
	}
}

/* unindexed_searches (notes=A) and unindexed_components (notes=U): the
 * join's two figures apart, as logconv tells them. */
static void test_join_unindexed(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	struct ldb_threshold t;
	t = ok("unindexed_searches>0", r);
	assert_int_equal(t.metric, LDB_M_UNINDEXED_SEARCHES);
	assert_int_equal(t.source, LDB_TS_JOIN);
	t = ok("Unindexed_Components>=2", r);
	assert_int_equal(t.metric, LDB_M_UNINDEXED_COMPONENTS);
	struct ldb_join *j = calloc(1, sizeof *j);
	assert_non_null(j);
	j->all.notes_u = 2, j->all.notes_a = 5;
	j->all.sent = j->all.joined = 10; /* a join that gives figures: its searches joined, the run's end seen */
	j->last_seen = true;
	struct ldb_summary sum;
	memset(&sum, 0, sizeof sum);
	ldb_summary_add(&sum, ldb_join_part(j));
	assert_true(ldb_threshold_actual(&t, &sum, LDB_OP_SEARCH) == 2);
	t = ok("unindexed_searches>0", r);
	assert_true(ldb_threshold_actual(&t, &sum, LDB_OP_SEARCH) == 5);
	t = ok("unindexed>0", r);
	assert_true(ldb_threshold_actual(&t, &sum, LDB_OP_SEARCH) == 7);
	free(j);
	refused("search.unindexed_searches>0", r,
	        "--fail-if 'search.unindexed_searches>0': expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, "
	        "min, mean, p50, p90, p95, p99, p99.9, max, misses, hits (latencies in ns/us/ms/s, ms by default), OP "
	        "one of < <= > >=");
}

static void test_repl(void **state)
{
	(void)state;
	const struct ldb_threshold_form *r = &ldb_threshold_run;
	struct ldb_threshold t = ok("repl.p99>2s", r);
	assert_int_equal(t.source, LDB_TS_REPL);
	assert_int_equal(t.metric, LDB_M_P99);
	assert_true(t.value == 2e9);
	t = ok("repl.unseen>0", r);
	assert_int_equal(t.metric, LDB_M_UNSEEN);
	refused("repl.rate<5", r, "--fail-if 'repl.rate<5': repl takes a latency (min, mean, p50 ... max) or unseen");
	t = ok("repl.p99>+5%", &ldb_threshold_compare);
	assert_int_equal(t.source, LDB_TS_REPL);
	refused("repl.rate<-5%", &ldb_threshold_compare,
	        "--fail-if 'repl.rate<-5%': repl takes p50 or p99 (e.g. 'repl.p99>+10%')");
	refused("search.unseen>0", r,
	        "--fail-if 'search.unseen>0': expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, min, mean, "
	        "p50, p90, p95, p99, p99.9, max, misses, hits (latencies in ns/us/ms/s, ms by default), OP one of < <= "
	        "> >=");
	refused("repl.unseen>1ms", r,
	        "--fail-if 'repl.unseen>1ms': unexpected 'ms' after the count (unseen take a plain number)");

	struct ldb_summary sum;
	memset(&sum, 0, sizeof sum);
	struct ldb_repl_figs f[2];
	memset(f, 0, sizeof f);
	assert_int_equal(ldb_hist_init(&f[0].delay), 0);
	assert_int_equal(ldb_hist_init(&f[1].delay), 0);
	ldb_hist_record(&f[0].delay, 3000000);    /* 3 ms */
	ldb_hist_record(&f[1].delay, 2500000000); /* 2.5 s */
	f[0].unseen = 2;
	f[1].unseen = 3;
	struct ldb_repl_part part;
	ldb_summary_add(&sum, ldb_repl_part(&part, f, 2));
	t = ok("repl.max>2s", r);
	double a = ldb_threshold_actual(&t, &sum, LDB_KIND_ANY);
	assert_true(a >= 2.49e9 && a <= 2.51e9);
	assert_true(ldb_threshold_holds(&t, a));
	t = ok("repl.unseen>0", r);
	assert_true(ldb_threshold_actual(&t, &sum, LDB_KIND_ANY) == 5);
	ldb_hist_free(&f[0].delay);
	ldb_hist_free(&f[1].delay);
}

static void test_check(void **state)
{
	(void)state;
	struct fixture f;
	struct ldb_config c;
	char err[400];
	make_summary(&f);
	ldb_config_init(&c);
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, NULL), LDB_EXIT_OK);
	assert_int_equal(ldb_threshold_parse(&c.fail_if[c.nfail_if++], "p99>10ms", err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, NULL), LDB_EXIT_OK);
	assert_int_equal(ldb_threshold_parse(&c.fail_if[c.nfail_if++], "search.errors>2", err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, NULL), LDB_EXIT_THRESHOLD);
	/* a worse status stays */
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_MAX_ERRORS, NULL),
	                 LDB_EXIT_MAX_ERRORS);

	/* the lines: the failed one always, the passed one with -v */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	c.verbose = 1;
	struct ldb_outputs o;
	ldb_outputs_of_config(&o, &c);
	struct ldb_text text = { .o = &o, .cfg = &c, .out = out, .pid = 42 };
	(void)ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, &text);
	fclose(out);
	assert_non_null(strstr(buf, "Threshold passed: p99>10ms (search is "));
	assert_non_null(strstr(buf, "Threshold failed: search.errors>2 (search is 3)\n"));
	free(buf);

	/* --server-log whose join failed: a join threshold is not evaluated, never passed; without one, the
	 * status still says the join failed; a threshold that held comes first */
	c.nfail_if = 0;
	c.verbose = 0;
	c.nserver_log = 1;
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, NULL), LDB_EXIT_NO_JOIN);
	assert_int_equal(ldb_threshold_parse(&c.fail_if[c.nfail_if++], "server.p99>3600s", err, sizeof err), 0);
	buf = NULL;
	out = open_memstream(&buf, &len);
	text.out = out;
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, &text), LDB_EXIT_NOT_EVALUATED);
	fclose(out);
	assert_non_null(strstr(buf, "Threshold not evaluated: server.p99>3600s (server log (etime): the server's log "
	                            "could not be joined)\n"));
	free(buf);
	assert_int_equal(ldb_threshold_parse(&c.fail_if[c.nfail_if++], "search.errors>2", err, sizeof err), 0);
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_OK, NULL), LDB_EXIT_THRESHOLD);
	assert_int_equal(ldb_thresholds_check(&c, &f.sum, LDB_OP_SEARCH, LDB_EXIT_CANNOT_BIND, NULL),
	                 LDB_EXIT_CANNOT_BIND);
	c.nserver_log = 0;
	ldb_config_free(&c);
	ldb_hist_free(&f.search);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_forms),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_run_refusals),
		cmocka_unit_test(test_compare_forms),
		cmocka_unit_test(test_compare_refusals),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_actual),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_join_form),
		cmocka_unit_test(test_expected_metrics),
		cmocka_unit_test(test_repl),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_unindexed),
		cmocka_unit_test(test_listen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
