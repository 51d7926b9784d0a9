/* Unit tests for `ldbench compare`'s logic (src/cmd/compare_runs.c): --fail-if
 * expressions, medians and spreads of several runs, kinds on one side only,
 * and the verdict, on crafted summary records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/cmp_runs.h"
#include "cmd/compare_runs.h"

/* One kind's member of a crafted summary record; p50/p99 < 0 mean null. */
static int kind_json(char *buf, size_t cap, const char *kind, double rate, double p50, double p99, int attempted)
{
	char a[32], b[32];
	if (p50 < 0)
		snprintf(a, sizeof a, "null");
	else
		snprintf(a, sizeof a, "%.3f", p50);
	if (p99 < 0)
		snprintf(b, sizeof b, "null");
	else
		snprintf(b, sizeof b, "%.3f", p99);
	return snprintf(buf, cap,
	                "\"%s\":{\"attempted\":%d,\"completed\":%d,\"errors\":0,\"rate\":%.3f,"
	                "\"latency_us\":{\"count\":%d,\"p50\":%s,\"p99\":%s}}",
	                kind, attempted, attempted, rate, attempted, a, b);
}

/* A run with search (rate, p50, p99) and optionally bind. */
static void make_run(struct ldb_cmp_run *r, double rate, double p50, double p99, double bind_rate)
{
	char ops[1024], text[1200], err[200];
	int n = kind_json(ops, sizeof ops, "search", rate, p50, p99, 100);
	if (bind_rate >= 0) {
		ops[n++] = ',';
		kind_json(ops + n, sizeof ops - (size_t)n, "bind", bind_rate, 50, 90, 10);
	}
	snprintf(text, sizeof text, "{\"type\":\"summary\",\"schema\":1,\"ops\":{%s}}", ops);
	struct ldb_json *v = ldb_json_parse(text, strlen(text), err, sizeof err);
	if (v == NULL)
		fail_msg("crafted record does not parse: %s: %s", err, text);
	if (ldb_cmp_run_from_record(v, r, err, sizeof err) != 0)
		fail_msg("crafted record refused: %s", err);
	ldb_json_free(v);
}

static struct ldb_cmp_cond cond(const char *s)
{
	struct ldb_cmp_cond c;
	char err[300];
	if (ldb_cmp_parse_cond(s, &c, err, sizeof err) != 0)
		fail_msg("'%s' refused: %s", s, err);
	return c;
}

static void expect_bad_cond(const char *s, const char *want)
{
	struct ldb_cmp_cond c;
	char err[300] = "";
	if (ldb_cmp_parse_cond(s, &c, err, sizeof err) == 0)
		fail_msg("'%s' accepted", s);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': error '%s' does not contain '%s'", s, err, want);
	assert_null(strchr(err, '\n'));
}

static void test_parse_cond(void **state)
{
	(void)state;
	struct ldb_cmp_cond c = cond("rate<-5%");
	assert_int_equal(c.kind, -1);
	assert_int_equal(c.metric, LDB_CMP_RATE);
	assert_string_equal(c.op, "<");
	assert_true(c.pct == -5.0);
	c = cond("p99>+10%");
	assert_int_equal(c.metric, LDB_CMP_P99);
	assert_string_equal(c.op, ">");
	assert_true(c.pct == 10.0);
	c = cond("search.p50>=20%");
	assert_int_equal(c.kind, LDB_OP_SEARCH);
	assert_int_equal(c.metric, LDB_CMP_P50);
	assert_string_equal(c.op, ">=");
	assert_true(c.pct == 20.0);
	c = cond(" bind.rate <= -2.5 % ");
	assert_int_equal(c.kind, LDB_OP_BIND);
	assert_string_equal(c.op, "<=");
	assert_true(c.pct == -2.5);
	c = cond("p99>.5%");
	assert_true(c.pct == 0.5);

	expect_bad_cond("rate<5", "must end with '%'");
	expect_bad_cond("latency<5%", "METRIC rate, p50, p99, misses or hits");
	expect_bad_cond("p95>5%", "METRIC rate, p50, p99, misses or hits");
	expect_bad_cond("foo.bar.rate<5%", "unknown operation kind 'foo'");
	/* a first word that is no kind names a workload (checked against the files by compare) */
	c = cond("fg.search.p99>+10%");
	assert_string_equal(c.wl, "fg");
	assert_int_equal(c.kind, LDB_OP_SEARCH);
	assert_int_equal(c.metric, LDB_CMP_P99);
	assert_string_equal(cond("search.p99>+10%").wl, "");
	expect_bad_cond("rate=5%", "expected an operator");
	expect_bad_cond("rate<%", "expected a percentage");
	expect_bad_cond("rate<abc%", "expected a percentage");
	expect_bad_cond("rate<5%x", "unexpected 'x'");
	expect_bad_cond("", "METRIC");
}

static void test_median(void **state)
{
	(void)state;
	double a[] = { 3, 1, 2 }, b[] = { 4, 1, 3, 2 }, c[] = { 7 };
	assert_true(ldb_cmp_median(a, 3) == 2.0);
	assert_true(ldb_cmp_median(b, 4) == 2.5);
	assert_true(ldb_cmp_median(c, 1) == 7.0);
}

/* 3 base runs against 3 change runs: medians, spreads and changes. */
static void test_three_vs_three(void **state)
{
	(void)state;
	struct ldb_cmp_run base[3], chg[3];
	struct ldb_cmp_result res;
	make_run(&base[0], 100, 200, 1000, -1);
	make_run(&base[1], 90, 220, 1200, -1);
	make_run(&base[2], 110, 180, 1100, -1);
	make_run(&chg[0], 94, 150, 1300, -1);
	make_run(&chg[1], 80, 210, 1221, -1);
	make_run(&chg[2], 200, 190, 1000, -1);
	ldb_cmp_compute(base, 3, chg, 3, &res);
	const struct ldb_cmp_row *r = &res.op[LDB_OP_SEARCH];
	assert_true(r->in_base && r->in_change);
	assert_int_equal(r->base[LDB_CMP_RATE].runs, 3);
	assert_true(r->base[LDB_CMP_RATE].median == 100);
	assert_true(r->base[LDB_CMP_RATE].min == 90);
	assert_true(r->base[LDB_CMP_RATE].max == 110);
	assert_true(r->change[LDB_CMP_RATE].median == 94);
	assert_true(r->change[LDB_CMP_RATE].min == 80);
	assert_true(r->change[LDB_CMP_RATE].max == 200);
	assert_true(r->has_pct[LDB_CMP_RATE]);
	assert_float_equal(r->pct[LDB_CMP_RATE], -6.0, 1e-9);
	assert_true(r->base[LDB_CMP_P50].median == 200);
	assert_true(r->change[LDB_CMP_P50].median == 190);
	assert_float_equal(r->pct[LDB_CMP_P50], -5.0, 1e-9);
	assert_true(r->base[LDB_CMP_P99].median == 1100);
	assert_true(r->change[LDB_CMP_P99].median == 1221);
	assert_float_equal(r->pct[LDB_CMP_P99], 11.0, 1e-9);
	assert_false(res.op[LDB_OP_BIND].in_base || res.op[LDB_OP_BIND].in_change);

	int k = -1;
	double pct = 0;
	struct ldb_cmp_cond c = cond("rate<-5%");
	assert_true(ldb_cmp_holds(&res, &c, &k, &pct));
	assert_int_equal(k, LDB_OP_SEARCH);
	assert_float_equal(pct, -6.0, 1e-9);
	c = cond("rate<-7%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("rate<=-6%");
	assert_true(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p99>+10%");
	assert_true(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p99>+12%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p50>=0%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p50<0%");
	assert_true(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("search.rate<-5%");
	assert_true(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("bind.rate<-5%"); /* no bind anywhere */
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));

	/* the same runs on both sides: 0% everywhere, no condition of a change holds */
	ldb_cmp_compute(base, 3, base, 3, &res);
	for (int m = 0; m < LDB_CMP_METRICS; m++)
		assert_true(res.op[LDB_OP_SEARCH].pct[m] == 0.0);
	c = cond("rate<-5%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p99>+10%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
}

/* A kind that only one side has is not compared and triggers nothing; a
 * kind-qualified condition looks only at its kind. */
static void test_missing_kinds(void **state)
{
	(void)state;
	struct ldb_cmp_run base[2], chg[2];
	struct ldb_cmp_result res;
	make_run(&base[0], 100, 200, 1000, 50);
	make_run(&base[1], 100, 200, 1000, 60);
	make_run(&chg[0], 100, 200, 1000, -1);
	make_run(&chg[1], 100, 200, 1000, -1);
	ldb_cmp_compute(base, 2, chg, 2, &res);
	const struct ldb_cmp_row *b = &res.op[LDB_OP_BIND];
	assert_true(b->in_base);
	assert_false(b->in_change);
	assert_true(b->base[LDB_CMP_RATE].median == 55); /* mean of the two middle values */
	for (int m = 0; m < LDB_CMP_METRICS; m++)
		assert_false(b->has_pct[m]);
	struct ldb_cmp_cond c = cond("rate<-5%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("bind.rate<-5%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));

	/* both have bind: bind's rate fell, search's did not */
	make_run(&chg[0], 100, 200, 1000, 40);
	make_run(&chg[1], 100, 200, 1000, 40);
	ldb_cmp_compute(base, 2, chg, 2, &res);
	int k = -1;
	double pct = 0;
	c = cond("rate<-5%");
	assert_true(ldb_cmp_holds(&res, &c, &k, &pct));
	assert_int_equal(k, LDB_OP_BIND);
	assert_float_equal(pct, (40.0 - 55.0) / 55.0 * 100.0, 1e-9);
	c = cond("search.rate<-5%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));

	/* the kind on only some runs of a side: medians over those that have it */
	make_run(&chg[0], 100, 200, 1000, 70);
	make_run(&chg[1], 100, 200, 1000, -1);
	ldb_cmp_compute(base, 2, chg, 2, &res);
	assert_int_equal(res.op[LDB_OP_BIND].change[LDB_CMP_RATE].runs, 1);
	assert_true(res.op[LDB_OP_BIND].change[LDB_CMP_RATE].median == 70);
}

/* Null latencies and a base median of 0 give no change (n/a), and no verdict. */
static void test_no_values(void **state)
{
	(void)state;
	struct ldb_cmp_run base[1], chg[1];
	struct ldb_cmp_result res;
	make_run(&base[0], 0, -1, -1, -1);
	make_run(&chg[0], 50, 100, 200, -1);
	ldb_cmp_compute(base, 1, chg, 1, &res);
	const struct ldb_cmp_row *r = &res.op[LDB_OP_SEARCH];
	assert_true(r->in_base && r->in_change);
	assert_false(r->has_pct[LDB_CMP_RATE]); /* base 0 */
	assert_false(r->has_pct[LDB_CMP_P50]);  /* base null */
	assert_int_equal(r->base[LDB_CMP_P50].runs, 0);
	struct ldb_cmp_cond c = cond("rate>0%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("p99>0%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
}

/* A search record with srchnentries' checks. */
static void make_checked(struct ldb_cmp_run *r, int hits, int misses)
{
	char text[400], err[200];
	snprintf(text, sizeof text,
	         "{\"type\":\"summary\",\"ops\":{\"search\":{\"attempted\":%d,\"completed\":%d,\"errors\":0,"
	         "\"exp_hits\":%d,\"exp_misses\":%d,\"rate\":100.000,\"latency_us\":{\"p50\":1.0,\"p99\":2.0}}}}",
	         hits + misses, hits + misses, hits, misses);
	struct ldb_json *v = ldb_json_parse(text, strlen(text), err, sizeof err);
	assert_non_null(v);
	assert_int_equal(ldb_cmp_run_from_record(v, r, err, sizeof err), 0);
	ldb_json_free(v);
}

/* misses and hits: valid only where checks ran; a count or a change */
static void test_expected_checks(void **state)
{
	(void)state;
	struct ldb_cmp_run base[1], chg[2], plain[1];
	struct ldb_cmp_result res;
	make_checked(&base[0], 100, 0);
	make_checked(&chg[0], 40, 60);
	make_checked(&chg[1], 50, 50);
	make_run(&plain[0], 100, 1, 2, -1);
	assert_false(plain[0].valid[LDB_OP_SEARCH][LDB_CMP_MISSES]);
	ldb_cmp_compute(base, 1, chg, 2, &res);
	const struct ldb_cmp_row *r = &res.op[LDB_OP_SEARCH];
	assert_true(r->change[LDB_CMP_MISSES].median == 55);
	assert_false(r->has_pct[LDB_CMP_MISSES]); /* base 0: no change in percent */
	assert_true(r->has_pct[LDB_CMP_HITS]);
	assert_float_equal(r->pct[LDB_CMP_HITS], -55.0, 1e-9);
	int k = -1;
	double v = 0;
	struct ldb_cmp_cond c = cond("misses>0");
	assert_true(c.count);
	assert_true(ldb_cmp_holds(&res, &c, &k, &v));
	assert_int_equal(k, LDB_OP_SEARCH);
	assert_true(v == 55);
	c = cond("search.hits<-50%");
	assert_true(ldb_cmp_holds(&res, &c, NULL, NULL));
	c = cond("misses>+10%");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	/* the same checked runs on both sides: no miss, no verdict */
	ldb_cmp_compute(base, 1, base, 1, &res);
	c = cond("misses>0");
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
	/* no checks on the change side: misses>0 cannot hold */
	ldb_cmp_compute(base, 1, plain, 1, &res);
	assert_false(ldb_cmp_holds(&res, &c, NULL, NULL));
}

/* A kind that did nothing (no attempt, no completion, no error) is absent. */
static void test_idle_kind(void **state)
{
	(void)state;
	const char *text = "{\"type\":\"summary\",\"ops\":{\"bind\":{\"attempted\":0,\"completed\":0,\"errors\":0,"
	                   "\"rate\":0.000,\"latency_us\":{\"count\":0,\"p50\":null,\"p99\":null}}}}";
	char err[200];
	struct ldb_cmp_run r;
	struct ldb_json *v = ldb_json_parse(text, strlen(text), err, sizeof err);
	assert_non_null(v);
	assert_int_equal(ldb_cmp_run_from_record(v, &r, err, sizeof err), 0);
	assert_false(r.has[LDB_OP_BIND]);
	ldb_json_free(v);
}

static void test_bad_records(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\"type\":\"summary\"}", "\"ops\"" },
		{ "{\"type\":\"summary\",\"ops\":{\"frobnicate\":{}}}", "unknown operation kind \"frobnicate\"" },
		{ "{\"type\":\"summary\",\"ops\":{\"search\":{\"latency_us\":{\"p50\":1,\"p99\":2}}}}",
		  "ops.search.rate" },
		{ "{\"type\":\"summary\",\"ops\":{\"search\":{\"rate\":1,\"latency_us\":{\"p50\":1}}}}",
		  "latency_us.p99 is missing" },
		{ "{\"type\":\"summary\",\"ops\":{\"search\":{\"rate\":1,\"latency_us\":{\"p50\":\"x\",\"p99\":2}}}}",
		  "p50 is not a number" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[300] = "";
		struct ldb_cmp_run r;
		struct ldb_json *v = ldb_json_parse(cases[i].text, strlen(cases[i].text), err, sizeof err);
		assert_non_null(v);
		assert_int_equal(ldb_cmp_run_from_record(v, &r, err, sizeof err), -1);
		if (strstr(err, cases[i].want) == NULL)
			fail_msg("case %zu: '%s' does not contain '%s'", i, err, cases[i].want);
		ldb_json_free(v);
	}
}

/* ldb_compare_main's exit status for a command line (words after "compare"). */
static int compare_cli(const char *const *words)
{
	char *argv[16] = { (char *)"compare" };
	int argc = 1;
	while (words[argc - 1] != NULL)
		argv[argc] = (char *)words[argc - 1], argc++;
	return ldb_compare_main(argc, argv);
}

/* The command line through util/argv, in a directory holding a.json, b.json
 * and -c.json (one search run each, the same figures). */
static void test_command_line(void **state)
{
	(void)state;
	static const char rec[] = "{\"type\":\"summary\",\"schema\":1,\"ops\":{\"search\":{\"attempted\":1,"
	                          "\"completed\":1,\"errors\":0,\"rate\":100.0,\"latency_us\":{\"count\":1,"
	                          "\"p50\":10,\"p99\":20}}}}\n";
	char dir[] = "/tmp/ldbench-test-compare.XXXXXX", cwd[4096];
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	static const char *const names[] = { "a.json", "b.json", "-c.json" };
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(names[i], "w");
		assert_non_null(f);
		fputs(rec, f);
		assert_int_equal(fclose(f), 0);
	}
	/* options after the files (README's form): read, and they decide */
	static const char *const after_ok[] = { "a.json", "--", "b.json", "--fail-if", "rate<-5%", NULL };
	static const char *const after_holds[] = { "a.json", "--", "b.json", "--fail-if", "rate<=0%", NULL };
	static const char *const between[] = { "a.json", "--fail-if=rate<=0%", "--", "b.json", NULL };
	assert_int_equal(compare_cli(after_ok), 0);
	assert_int_equal(compare_cli(after_holds), 1);
	assert_int_equal(compare_cli(between), 1);
	/* a second -- ends the options: -c.json is a CHANGE file */
	static const char *const ended[] = { "a.json", "--", "b.json", "--", "-c.json", NULL };
	static const char *const dash_file[] = { "a.json", "--", "b.json", "-c.json", NULL };
	assert_int_equal(compare_cli(ended), 0);
	assert_int_equal(compare_cli(dash_file), 2); /* without it, an unknown option */
	/* refusals, wherever the option stands */
	static const char *const no_value[] = { "a.json", "--", "b.json", "--fail-if", NULL };
	static const char *const bad_cond[] = { "a.json", "--", "b.json", "--fail-if", "p99>10", NULL };
	static const char *const no_split[] = { "a.json", "b.json", "--fail-if", "rate<-5%", NULL };
	static const char *const no_base[] = { "--", "b.json", NULL };
	static const char *const no_change[] = { "a.json", "--", "--fail-if=rate<-5%", NULL };
	assert_int_equal(compare_cli(no_value), 2);
	assert_int_equal(compare_cli(bad_cond), 2);
	assert_int_equal(compare_cli(no_split), 2);
	assert_int_equal(compare_cli(no_base), 2);
	assert_int_equal(compare_cli(no_change), 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(unlink(names[i]), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_line),  cmocka_unit_test(test_parse_cond),
		cmocka_unit_test(test_median),        cmocka_unit_test(test_three_vs_three),
		cmocka_unit_test(test_missing_kinds), cmocka_unit_test(test_no_values),
		cmocka_unit_test(test_idle_kind),     cmocka_unit_test(test_expected_checks),
		cmocka_unit_test(test_bad_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
