/* Unit tests of the number parser (src/util/num.c): every accepted and
 * refused form, and the exact messages the command lines print. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/num.h"

static void ll_ok(const char *s, long long want)
{
	long long v = 12345;

	assert_int_equal(ldb_num_ll(s, &v), LDB_NUM_OK);
	assert_true(v == want);
}

static void ll_rc(const char *s, int rc)
{
	long long v = 12345;

	assert_int_equal(ldb_num_ll(s, &v), rc);
	assert_true(v == 12345); /* untouched */
}

static void test_ll(void **state)
{
	(void)state;
	ll_ok("0", 0);
	ll_ok("-0", 0);
	ll_ok("42", 42);
	ll_ok("007", 7);
	ll_ok("-42", -42);
	ll_ok("9223372036854775807", LLONG_MAX);
	ll_ok("-9223372036854775808", LLONG_MIN);
	ll_rc("9223372036854775808", LDB_NUM_HIGH);
	ll_rc("99999999999999999999999", LDB_NUM_HIGH);
	ll_rc("-9223372036854775809", LDB_NUM_LOW);
	ll_rc(NULL, LDB_NUM_JUNK);
	ll_rc("", LDB_NUM_JUNK);
	ll_rc("-", LDB_NUM_JUNK);
	ll_rc("+1", LDB_NUM_JUNK);
	ll_rc(" 1", LDB_NUM_JUNK);
	ll_rc("1 ", LDB_NUM_JUNK);
	ll_rc("- 1", LDB_NUM_JUNK);
	ll_rc("--1", LDB_NUM_JUNK);
	ll_rc("1x", LDB_NUM_JUNK);
	ll_rc("0x10", LDB_NUM_JUNK);
	ll_rc("1.5", LDB_NUM_JUNK);
	ll_rc("1e3", LDB_NUM_JUNK);
	ll_rc("99999999999999999999x", LDB_NUM_JUNK);
}

static void test_u64(void **state)
{
	uint64_t v = 5;

	(void)state;
	assert_int_equal(ldb_num_u64("0", &v), LDB_NUM_OK);
	assert_true(v == 0);
	assert_int_equal(ldb_num_u64("18446744073709551615", &v), LDB_NUM_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(ldb_num_u64("000042", &v), LDB_NUM_OK);
	assert_true(v == 42);
	v = 5;
	assert_int_equal(ldb_num_u64("18446744073709551616", &v), LDB_NUM_HIGH);
	assert_int_equal(ldb_num_u64("99999999999999999999999", &v), LDB_NUM_HIGH);
	static const char *const junk[] = { NULL, "",   "-1",  "+1",  " 1",
		                            "1 ", "1a", "0x1", "1.0", "99999999999999999999x" };
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
		assert_int_equal(ldb_num_u64(junk[i], &v), LDB_NUM_JUNK);
	assert_true(v == 5);
}

/* ldb_num_range refuses arg with exactly msg. */
static void range_bad(const char *opt, char sep, const char *arg, long long min, long long max, const char *what,
                      const char *msg)
{
	char err[256];
	long long v = 777;

	memset(err, 0, sizeof err);
	assert_int_equal(ldb_num_range(opt, sep, arg, min, max, what, &v, err, sizeof err), -1);
	assert_string_equal(err, msg);
	assert_true(v == 777);
}

static void test_range(void **state)
{
	long long v = 0;

	(void)state;
	assert_int_equal(ldb_num_range("-n", ' ', "10000", 1, 10000, "threads", &v, NULL, 0), 0);
	assert_true(v == 10000);
	assert_int_equal(ldb_num_range("-r", ' ', "-5", LLONG_MIN, LLONG_MAX, "the low bound", &v, NULL, 0), 0);
	assert_true(v == -5);
	/* not a number: quoted */
	range_bad("-n", ' ', "x", 1, 10000, "threads", "-n 'x': not a whole number");
	range_bad("-n", ' ', "", 1, 10000, "threads", "-n '': not a whole number");
	range_bad("-e incr", '=', "+2", 1, LLONG_MAX, "the step", "-e incr='+2': not a whole number");
	/* a closed range */
	range_bad("-n", ' ', "0", 1, 10000, "threads", "-n 0: threads must be between 1 and 10000");
	range_bad("-p", ' ', "65536", 1, 65535, "the port", "-p 65536: the port must be between 1 and 65535");
	range_bad("-p", ' ', "99999999999999999999", 1, 65535, "the port",
	          "-p 99999999999999999999: the port must be between 1 and 65535");
	range_bad("-p", ' ', "-99999999999999999999", 1, 65535, "the port",
	          "-p -99999999999999999999: the port must be between 1 and 65535");
	/* open ended (LLONG_MAX, INT_MAX, LLONG_MAX / 1000): at least / too large */
	range_bad("-T", ' ', "0", 1, LLONG_MAX, "operations per thread",
	          "-T 0: operations per thread must be at least 1");
	range_bad("-R", ' ', "-99999999999999999999", 0, LLONG_MAX, "the high bound",
	          "-R -99999999999999999999: the high bound must be at least 0");
	range_bad("-E", ' ', "99999999999999999999", 0, LLONG_MAX, "max errors",
	          "-E 99999999999999999999: max errors is too large");
	range_bad("-t", ' ', "2147483648", 1, INT_MAX, "the timeout (seconds)",
	          "-t 2147483648: the timeout (seconds) is too large");
	range_bad("-e sampinterval", '=', "9223372036854776", 1, LLONG_MAX / 1000, "the sampling interval (seconds)",
	          "-e sampinterval=9223372036854776: the sampling interval (seconds) is too large");
	/* below long long with no lower limit */
	range_bad("-r", ' ', "-99999999999999999999", LLONG_MIN, LLONG_MAX, "the low bound",
	          "-r -99999999999999999999: the low bound is too small");
	/* err may be NULL */
	assert_int_equal(ldb_num_range("-n", ' ', "0", 1, 2, "threads", &v, NULL, 0), -1);
}

static void count_bad(const char *opt, const char *s, int64_t max, const char *msg)
{
	char err[256] = "";
	int64_t v = 777;

	assert_int_equal(ldb_num_count(opt, s, max, &v, err, sizeof err), -1);
	assert_string_equal(err, msg);
	assert_true(v == 777);
}

static void test_count(void **state)
{
	int64_t v = -1;

	(void)state;
	assert_int_equal(ldb_num_count("--number", "0", 100, &v, NULL, 0), 0);
	assert_true(v == 0);
	assert_int_equal(ldb_num_count("--number", "100", 100, &v, NULL, 0), 0);
	assert_true(v == 100);
	assert_int_equal(ldb_num_count("--number", "0042", 100, &v, NULL, 0), 0);
	assert_true(v == 42);
	assert_int_equal(ldb_num_count("--number", "999999999999999999", 999999999999999999LL, &v, NULL, 0), 0);
	assert_true(v == 999999999999999999LL);
	assert_int_equal(ldb_num_count("--n", "9223372036854775807", INT64_MAX, &v, NULL, 0), 0);
	assert_true(v == INT64_MAX);
	count_bad("--n", "9223372036854775808", INT64_MAX,
	          "--n: '9223372036854775808' is too large (at most 9223372036854775807)");
	count_bad("--number", "", 100, "--number: empty value");
	count_bad("--number", "-5", 100, "--number: '-5' is negative");
	count_bad("--number", "-", 100, "--number: '-' is negative");
	count_bad("--number", "-x", 100, "--number: '-x' is negative");
	count_bad("--number", "12x", 100, "--number: '12x' is not a decimal number");
	count_bad("--number", " 12", 100, "--number: ' 12' is not a decimal number");
	count_bad("--number", "+12", 100, "--number: '+12' is not a decimal number");
	count_bad("--number", "1e3", 100000, "--number: '1e3' is not a decimal number");
	count_bad("--number", "101", 100, "--number: '101' is too large (at most 100)");
	count_bad("--width", "33", 32, "--width: '33' is too large (at most 32)");
	/* from the left: digits already too large win over junk after them */
	count_bad("--width", "999x", 32, "--width: '999x' is too large (at most 32)");
	count_bad("--width", "3x9", 32, "--width: '3x9' is not a decimal number");
	count_bad("--number", "99999999999999999999999", 999999999999999999LL,
	          "--number: '99999999999999999999999' is too large (at most 999999999999999999)");
	count_bad("--depth", "1", 0, "--depth: '1' is too large (at most 0)");
}

static void dur_ok(const char *s, uint64_t want)
{
	uint64_t ms = 1;

	assert_int_equal(ldb_parse_duration_ms(s, &ms), 0);
	assert_true(ms == want);
}

static void test_duration(void **state)
{
	static const char *const bad[] = {
		NULL,
		"",
		"s",
		"ms",
		"-1s",
		"+1s",
		" 1s",
		"1 s",
		"1s ",
		"1.5s",
		"10x",
		"1S",
		"1H",
		"1sec",
		"1min",
		"1hs",
		"1d",
		"0x10",
		"99999999999999999999",
		"9999999999999999h",
		"18446744073709551616ms",
		"18446744073709552s",
	};
	uint64_t ms = 7;

	(void)state;
	dur_ok("10", 10000);
	dur_ok("0", 0);
	dur_ok("1s", 1000);
	dur_ok("500ms", 500);
	dur_ok("2m", 120000);
	dur_ok("1h", 3600000);
	dur_ok("007s", 7000);
	dur_ok("18446744073709551615ms", UINT64_MAX);
	dur_ok("18446744073709551s", 18446744073709551000ULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(ldb_parse_duration_ms(bad[i], &ms), -1);
	assert_true(ms == 7);
}

static void real_ok(const char *s, double want, size_t used)
{
	const char *end = NULL;
	double v = -1;

	assert_int_equal(ldb_num_real(s, &end, &v), 0);
	assert_true(v == want);
	assert_ptr_equal(end, s + used);
}

static void test_real(void **state)
{
	static const char *const bad[] = { NULL, "",    ".",    "+",   "-",        "+.",   "e5",    ".e5",   " 5",
		                           "x",  "inf", "-inf", "nan", "infinity", "0x10", "0x1p3", "1e999", "-1e400" };
	const char *end = "unchanged";
	double v = 3;

	(void)state;
	real_ok("5", 5, 1);
	real_ok("-5%", -5, 2);
	real_ok("+5", 5, 2);
	real_ok(".5", 0.5, 2);
	real_ok("-.5", -0.5, 3);
	real_ok("5.", 5, 2);
	real_ok("2.25%", 2.25, 4);
	real_ok("1.5e2", 150, 5);
	real_ok("1E-1x", 0.1, 4);
	real_ok("1e+2", 100, 4);
	/* an exponent without digits is not part of the number */
	real_ok("1e", 1, 1);
	real_ok("1e+%", 1, 1);
	real_ok("10 %", 10, 2);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(ldb_num_real(bad[i], &end, &v), -1);
	assert_true(v == 3);
	assert_string_equal(end, "unchanged");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ll),    cmocka_unit_test(test_u64),      cmocka_unit_test(test_range),
		cmocka_unit_test(test_count), cmocka_unit_test(test_duration), cmocka_unit_test(test_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
