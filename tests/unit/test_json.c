/* Unit tests for the small JSON reader (src/report/json.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/json.h"

static struct ldb_json *parse(const char *s)
{
	char err[200];
	return ldb_json_parse(s, strlen(s), err, sizeof err);
}

/* Parsing must fail, and the message must contain `want`. */
static void expect_error(const char *s, const char *want)
{
	char err[200] = "";
	struct ldb_json *v = ldb_json_parse(s, strlen(s), err, sizeof err);
	if (v != NULL)
		fail_msg("'%s' parsed, expected an error with '%s'", s, want);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': error '%s' does not contain '%s'", s, err, want);
}

static void test_scalars(void **state)
{
	(void)state;
	struct ldb_json *v = parse(" true ");
	assert_non_null(v);
	assert_int_equal(v->type, LDB_JSON_BOOL);
	assert_true(v->boolean);
	ldb_json_free(v);
	v = parse("false");
	assert_int_equal(v->type, LDB_JSON_BOOL);
	assert_false(v->boolean);
	ldb_json_free(v);
	v = parse("null");
	assert_int_equal(v->type, LDB_JSON_NULL);
	ldb_json_free(v);
	v = parse("-12.5e2");
	assert_int_equal(v->type, LDB_JSON_NUMBER);
	double d;
	assert_int_equal(ldb_json_double(v, &d), 0);
	assert_true(d == -1250.0);
	assert_string_equal(v->text, "-12.5e2");
	uint64_t u;
	assert_int_equal(ldb_json_u64(v, &u), -1); /* not an integer */
	ldb_json_free(v);
}

static void test_u64_exact(void **state)
{
	(void)state;
	/* beyond 2^53: a double would lose the last digit */
	struct ldb_json *v = parse("[18446744073709551615, 9007199254740993, 18446744073709551616, -1, 0]");
	uint64_t u = 0;
	long long ll = 0;
	assert_non_null(v);
	assert_int_equal(v->type, LDB_JSON_ARRAY);
	assert_int_equal(v->count, 5);
	const struct ldb_json *e = v->child;
	assert_int_equal(ldb_json_u64(e, &u), 0);
	assert_true(u == UINT64_MAX);
	e = e->next;
	assert_int_equal(ldb_json_u64(e, &u), 0);
	assert_true(u == 9007199254740993ULL);
	e = e->next;
	assert_int_equal(ldb_json_u64(e, &u), -1); /* too large */
	e = e->next;
	assert_int_equal(ldb_json_u64(e, &u), -1); /* negative */
	assert_int_equal(ldb_json_ll(e, &ll), 0);
	assert_true(ll == -1);
	e = e->next;
	assert_int_equal(ldb_json_u64(e, &u), 0);
	assert_true(u == 0);
	ldb_json_free(v);
}

/* A header's seed is a random 64-bit value, half the time 2^63 or more (a
 * reader of signed 64-bit integers refuses it: docs/design.md, Dependencies). */
static void test_header_seed(void **state)
{
	(void)state;
	struct ldb_json *v =
	        parse("{\"type\":\"header\",\"schema\":1,\"seed\":15386475916231130888,\"seed_given\":false}");
	uint64_t u = 0;
	assert_non_null(v);
	assert_int_equal(ldb_json_u64(ldb_json_get(v, "seed"), &u), 0);
	assert_true(u == 15386475916231130888ULL);
	ldb_json_free(v);
}

static void test_strings(void **state)
{
	(void)state;
	struct ldb_json *v = parse("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u20ac\\ud83d\\ude00\"");
	assert_non_null(v);
	assert_int_equal(v->type, LDB_JSON_STRING);
	assert_string_equal(ldb_json_str(v), "a\"b\\c/d\n\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_int_equal(v->len, strlen(v->text));
	ldb_json_free(v);
}

static void test_objects_and_paths(void **state)
{
	(void)state;
	struct ldb_json *v = parse("{\"type\":\"summary\",\"ops\":{\"search\":{\"rate\":12.5,\"latency_us\":"
	                           "{\"p50\":null}}},\"empty\":{},\"list\":[],\"dup\":1,\"dup\":2}");
	assert_non_null(v);
	assert_int_equal(v->type, LDB_JSON_OBJECT);
	assert_int_equal(v->count, 6);
	assert_string_equal(ldb_json_str(ldb_json_get(v, "type")), "summary");
	double d = 0;
	assert_int_equal(ldb_json_double(ldb_json_path(v, "ops.search.rate"), &d), 0);
	assert_true(d == 12.5);
	const struct ldb_json *p50 = ldb_json_path(v, "ops.search.latency_us.p50");
	assert_non_null(p50);
	assert_int_equal(p50->type, LDB_JSON_NULL);
	assert_int_equal(ldb_json_double(p50, &d), -1);
	assert_null(ldb_json_path(v, "ops.bind.rate"));
	assert_null(ldb_json_get(v, "missing"));
	assert_null(ldb_json_get(ldb_json_get(v, "type"), "x")); /* not an object */
	assert_int_equal(ldb_json_get(v, "empty")->count, 0);
	assert_int_equal(ldb_json_get(v, "list")->type, LDB_JSON_ARRAY);
	uint64_t u = 0;
	assert_int_equal(ldb_json_u64(ldb_json_get(v, "dup"), &u), 0);
	assert_true(u == 1); /* the first of duplicates */
	ldb_json_free(v);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "unexpected end");
	expect_error("{", "member name");
	expect_error("{\"a\" 1}", "expected ':'");
	expect_error("{\"a\":1,}", "member name");
	expect_error("[1,]", "unexpected character");
	expect_error("[1 2]", "expected ',' or ']'");
	expect_error("{\"a\":1} x", "after the value");
	expect_error("01", "after the value");
	expect_error("1.", "digits must follow '.'");
	expect_error("1e", "exponent");
	expect_error("-", "bad number");
	expect_error("\"abc", "unterminated");
	expect_error("\"a\tb\"", "control character");
	expect_error("\"\\x\"", "bad escape");
	expect_error("\"\\u12g4\"", "hex digit");
	expect_error("\"\\ud83d\"", "surrogate");
	expect_error("\"\\ude00\"", "surrogate");
	expect_error("\"\\u0000\"", "\\u0000");
	expect_error("tru", "unexpected character");
	expect_error("nul", "unexpected character");
	/* the column is given, 1-based */
	expect_error("{\"a\":?}", "column 6:");
}

/* An error is one line: a byte it names that is not printable is shown as \xNN. */
static void test_error_one_line(void **state)
{
	(void)state;
	expect_error("\"\\\n\"", "bad escape '\\\\x0a'");
	expect_error("\x01", "unexpected character '\\x01'");
	expect_error("[\xc3\xa9]", "unexpected character '\\xc3'");
	expect_error("{\"a\":1}\r\n}", "after the value");
}

static void test_depth_limit(void **state)
{
	(void)state;
	char deep[2 * LDB_JSON_MAX_DEPTH + 8], ok[2 * LDB_JSON_MAX_DEPTH + 8];
	int n = LDB_JSON_MAX_DEPTH + 1;
	memset(deep, '[', (size_t)n);
	memset(deep + n, ']', (size_t)n);
	deep[2 * n] = '\0';
	expect_error(deep, "nested deeper");
	n = LDB_JSON_MAX_DEPTH;
	memset(ok, '[', (size_t)n);
	memset(ok + n, ']', (size_t)n);
	ok[2 * n] = '\0';
	struct ldb_json *v = parse(ok);
	assert_non_null(v);
	ldb_json_free(v);
}

/* Written strings read back unchanged. */
static void test_put_string_roundtrip(void **state)
{
	(void)state;
	const char *src = "q\"b\\s\n\r\t\x01\x7f end (uid=user*) caf\xc3\xa9";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	ldb_json_put_string(f, src);
	fclose(f);
	assert_null(strchr(buf, '\n'));
	assert_non_null(strstr(buf, "\\u0001"));
	struct ldb_json *v = parse(buf);
	assert_non_null(v);
	assert_string_equal(ldb_json_str(v), src);
	ldb_json_free(v);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_u64_exact),
		cmocka_unit_test(test_header_seed),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_objects_and_paths),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_one_line),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_put_string_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
