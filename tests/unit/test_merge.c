/* Unit tests for `ldbench merge`'s adding (src/cmd/merge.c) over the records
 * writer and reader (src/report/records.c): two summary records add into one
 * exactly (counts, error codes, client failures, connections, rates, the
 * longest time, histograms slot by slot), the merged record reads back the
 * same, and malformed members are refused with a clear line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/merge.h"

#define MS 1000000ULL

struct run {
	struct ldb_summary s;
	struct ldb_hist lat[LDB_OP_COUNT], ulat, stage;
};

static void run_free(struct run *r)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		ldb_hist_free(&r->lat[k]);
	ldb_hist_free(&r->ulat);
	ldb_hist_free(&r->stage);
}

static void kind(struct run *r, int k, uint64_t n, uint64_t first_ns, uint64_t step_ns)
{
	struct ldb_opstats *o = &r->s.tot.op[k];
	assert_int_equal(ldb_hist_init(&r->lat[k]), 0);
	for (uint64_t i = 0; i < n; i++)
		ldb_hist_record(&r->lat[k], first_ns + i * step_ns);
	o->attempted = n + 2;
	o->completed = n;
	o->succeeded = n - 1;
	o->counted = n;
	o->entries = 3 * n;
	o->exp_hits = n / 2;
	o->exp_misses = 1;
	r->s.lat[k] = &r->lat[k];
	r->s.counted += n;
}

/* A: 10 s, searches only (with an uncorrected histogram and a connect stage). */
static void run_a(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->s.seconds = 10;
	r->s.threads = 2;
	r->s.no_activity = 1;
	r->s.rate_target = 50;
	kind(r, LDB_OP_SEARCH, 100, 1 * MS, 10000);
	r->s.tot.op[LDB_OP_SEARCH].codes[ldb_code_slot(32)] = 3;
	r->s.tot.op[LDB_OP_SEARCH].codes[LDB_CODE_ILLEGAL] = 1;
	r->s.tot.op[LDB_OP_SEARCH].fails[LDB_FAIL_TIMEOUT] = 2;
	assert_int_equal(ldb_hist_init(&r->ulat), 0);
	ldb_hist_record_n(&r->ulat, 700000, 100);
	r->s.ulat[LDB_OP_SEARCH] = &r->ulat;
	assert_int_equal(ldb_hist_init(&r->stage), 0);
	ldb_hist_record_n(&r->stage, 50000, 4);
	r->s.stage[LDB_STAGE_CONNECT] = &r->stage;
	r->s.tot.connects = 4;
	r->s.tot.reconnects = 1;
	r->s.tot.setup_binds = 2;
	r->s.tot.counted = r->s.counted;
}

/* B: 12 s, searches and binds, a worse status. */
static void run_b(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->s.seconds = 12;
	r->s.threads = 3;
	r->s.dead = 1;
	r->s.status = 4;
	r->s.rate_target = 25;
	kind(r, LDB_OP_SEARCH, 96, 5 * MS, 20000);
	kind(r, LDB_OP_BIND, 24, 200000, 1000);
	r->s.tot.op[LDB_OP_SEARCH].codes[ldb_code_slot(32)] = 2;
	r->s.tot.op[LDB_OP_BIND].codes[ldb_code_slot(49)] = 5;
	r->s.tot.op[LDB_OP_BIND].codes[ldb_code_slot(-11)] = 1;
	r->s.tot.op[LDB_OP_BIND].fails[LDB_FAIL_CONNECT] = 1;
	assert_int_equal(ldb_hist_init(&r->stage), 0);
	ldb_hist_record_n(&r->stage, 80000, 6);
	r->s.stage[LDB_STAGE_CONNECT] = &r->stage;
	r->s.tot.connects = 3;
	r->s.tot.setup_binds = 3;
	r->s.tot.counted = r->s.counted;
}

/* A summary record as --json writes it, read back as merge reads it. */
static struct ldb_json *record(const struct ldb_summary *s, const struct ldb_records_rates *rates)
{
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(ldb_records_write_summary(f, s, rates, NULL), 0);
	fclose(f);
	assert_true(len > 0 && buf[len - 1] == '\n');
	struct ldb_json *v = ldb_json_parse(buf, len - 1, err, sizeof err);
	if (v == NULL)
		fail_msg("record does not parse: %s: %s", err, buf);
	free(buf);
	return v;
}

static void add(struct ldb_merged *m, const struct ldb_summary *s, const struct ldb_records_rates *rates)
{
	char err[400];
	struct ldb_json *v = record(s, rates);
	if (ldb_merge_add(m, v, "x.json", err, sizeof err) != 0)
		fail_msg("refused: %s", err);
	ldb_json_free(v);
}

static void assert_same_hist(const struct ldb_hist *a, const struct ldb_hist *b)
{
	char ea[4096], eb[4096];
	assert_true(ldb_hist_encode(a, ea, sizeof ea) < sizeof ea);
	assert_true(ldb_hist_encode(b, eb, sizeof eb) < sizeof eb);
	assert_string_equal(ea, eb);
}

static void test_two_add_into_one(void **state)
{
	(void)state;
	struct run a, b;
	struct ldb_merged m;
	run_a(&a);
	run_b(&b);
	assert_int_equal(ldb_merge_init(&m), 0);
	add(&m, &a.s, NULL);
	add(&m, &b.s, NULL);
	ldb_merge_finish(&m);

	assert_true(m.s.seconds == 12); /* the longest */
	assert_int_equal(m.s.threads, 5);
	assert_int_equal(m.s.dead, 1);
	assert_int_equal(m.s.no_activity, 1);
	assert_int_equal(m.s.status, 4); /* the worst */
	assert_true(m.s.rate_target == 75);
	assert_int_equal(m.s.counted, 220);
	assert_int_equal(m.s.tot.counted, 220);
	assert_true(m.rates.rate == 10.0 + 10.0); /* 100/10 s beside 120/12 s */
	assert_true(m.rates.op[LDB_OP_SEARCH] == 10.0 + 8.0);
	assert_true(m.rates.op[LDB_OP_BIND] == 2.0);
	assert_int_equal(m.s.tot.connects, 7);
	assert_int_equal(m.s.tot.reconnects, 1);
	assert_int_equal(m.s.tot.setup_binds, 5);

	const struct ldb_opstats *s = &m.s.tot.op[LDB_OP_SEARCH], *bd = &m.s.tot.op[LDB_OP_BIND];
	assert_int_equal(s->attempted, 102 + 98);
	assert_int_equal(s->completed, 196);
	assert_int_equal(s->succeeded, 99 + 95);
	assert_int_equal(s->counted, 196);
	assert_int_equal(s->entries, 588);
	assert_int_equal(s->exp_hits, 50 + 48);
	assert_int_equal(s->exp_misses, 2);
	assert_int_equal(s->codes[ldb_code_slot(32)], 5);
	assert_int_equal(s->codes[LDB_CODE_ILLEGAL], 1);
	assert_int_equal(s->fails[LDB_FAIL_TIMEOUT], 2);
	assert_int_equal(bd->codes[ldb_code_slot(49)], 5);
	assert_int_equal(bd->codes[ldb_code_slot(-11)], 1);
	assert_int_equal(bd->fails[LDB_FAIL_CONNECT], 1);
	assert_int_equal(ldb_opstats_errors(s), 6);

	/* histograms: exactly those of every value of both runs */
	struct ldb_hist both;
	assert_int_equal(ldb_hist_init(&both), 0);
	ldb_hist_add(&both, &a.lat[LDB_OP_SEARCH]);
	ldb_hist_add(&both, &b.lat[LDB_OP_SEARCH]);
	assert_non_null(m.s.lat[LDB_OP_SEARCH]);
	assert_same_hist(m.s.lat[LDB_OP_SEARCH], &both);
	assert_int_equal(ldb_hist_count(m.s.lat[LDB_OP_SEARCH]), 196);
	assert_int_equal(ldb_hist_percentile(m.s.lat[LDB_OP_SEARCH], 99), ldb_hist_percentile(&both, 99));
	assert_same_hist(m.s.lat[LDB_OP_BIND], &b.lat[LDB_OP_BIND]);
	assert_same_hist(m.s.ulat[LDB_OP_SEARCH], &a.ulat);
	assert_null(m.s.ulat[LDB_OP_BIND]);
	ldb_hist_reset(&both);
	ldb_hist_add(&both, &a.stage);
	ldb_hist_add(&both, &b.stage);
	assert_same_hist(m.s.stage[LDB_STAGE_CONNECT], &both);
	assert_null(m.s.stage[LDB_STAGE_TLS]);
	assert_null(m.s.lat[LDB_OP_ADD]);

	/* the merged record (with the summed rates) reads back the same */
	struct ldb_merged again;
	assert_int_equal(ldb_merge_init(&again), 0);
	add(&again, &m.s, &m.rates);
	ldb_merge_finish(&again);
	assert_int_equal(again.s.counted, 220);
	assert_true(again.rates.rate == 20.0);
	assert_int_equal(again.s.tot.op[LDB_OP_SEARCH].codes[ldb_code_slot(32)], 5);
	assert_same_hist(again.s.lat[LDB_OP_SEARCH], m.s.lat[LDB_OP_SEARCH]);
	assert_same_hist(again.s.stage[LDB_STAGE_CONNECT], m.s.stage[LDB_STAGE_CONNECT]);

	ldb_merge_free(&again);
	ldb_hist_free(&both);
	ldb_merge_free(&m);
	run_free(&a);
	run_free(&b);
}

/* A record written, one member changed by hand, then refused. */
static void refused(const char *from, const char *to, const char *want)
{
	struct run a;
	struct ldb_merged m;
	char *buf = NULL, err[400] = "", perr[200];
	size_t len = 0;
	run_a(&a);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(ldb_records_write_summary(f, &a.s, NULL, NULL), 0);
	fclose(f);
	char *at = strstr(buf, from);
	if (at == NULL)
		fail_msg("'%s' not in %s", from, buf);
	size_t nf = strlen(from), nt = strlen(to);
	char *text = malloc(len + nt + 1);
	assert_non_null(text);
	snprintf(text, len + nt + 1, "%.*s%s%s", (int)(at - buf), buf, to, at + nf);
	struct ldb_json *v = ldb_json_parse(text, strlen(text) - 1, perr, sizeof perr);
	if (v == NULL)
		fail_msg("does not parse: %s: %s", perr, text);
	assert_int_equal(ldb_merge_init(&m), 0);
	assert_int_equal(ldb_merge_add(&m, v, "a.json", err, sizeof err), -1);
	assert_string_equal(err, want);
	ldb_merge_free(&m);
	ldb_json_free(v);
	free(text);
	free(buf);
	run_free(&a);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("\"32\":3", "\"abc\":3", "a.json: summary record: search.errors_by_code: bad member \"abc\"");
	refused("\"32\":3", "\"123\":3", "a.json: summary record: search.errors_by_code: bad member \"123\"");
	refused("\"32\":3", "\"32\":-3", "a.json: summary record: search.errors_by_code: bad member \"32\"");
	refused("\"ops\":{\"search\"", "\"ops\":{\"frob\"", "a.json: summary record: unknown operation kind \"frob\"");
	refused("\"completed\":100", "\"completed\":\"x\"",
	        "a.json: summary record: search.completed is missing or not a count");
	refused("\"timeout\":2", "\"timeout\":-2",
	        "a.json: summary record: search.client_failures.timeout is missing or not a count");
	refused(",\"histogram\":\"v1", ",\"histogram\":\"v9",
	        "a.json: summary record: search.histogram is not a valid histogram text");
	refused("\"seconds\":", "\"secs\":",
	        "a.json: summary record: seconds, rate, threads, status, dead_threads or no_activity missing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_add_into_one),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
