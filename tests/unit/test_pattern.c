/* Unit tests for ldclt XXX patterns (src/values/pattern.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "values/pattern.h"

static void test_compile_first_run(void **state)
{
	struct ldb_pattern p;

	(void)state;
	assert_int_equal(ldb_pattern_compile(&p, "uid=userXXX,ou=people", true), 0);
	assert_string_equal(p.text, "uid=userXXX,ou=people");
	assert_int_equal(p.head_len, 8);
	assert_int_equal(p.width, 3);
	assert_int_equal(p.tail_len, strlen(",ou=people"));
	assert_memory_equal(p.tail, ",ou=people", p.tail_len);
	assert_true(p.zeropad);
	assert_true(ldb_pattern_has_var(&p));
	ldb_pattern_free(&p);
	assert_null(p.text);
	assert_int_equal(p.width, 0);

	/* only the first run counts; lowercase x is not a placeholder */
	assert_int_equal(ldb_pattern_compile(&p, "cn=xxXXaXXXX", false), 0);
	assert_int_equal(p.head_len, 5);
	assert_int_equal(p.width, 2);
	assert_int_equal(p.tail_len, 5);
	assert_memory_equal(p.tail, "aXXXX", 5);
	assert_false(p.zeropad);
	ldb_pattern_free(&p);

	/* placeholder at the very start and at the very end */
	assert_int_equal(ldb_pattern_compile(&p, "XXXX", true), 0);
	assert_int_equal(p.head_len, 0);
	assert_int_equal(p.width, 4);
	assert_int_equal(p.tail_len, 0);
	ldb_pattern_free(&p);
}

static void test_compile_no_var(void **state)
{
	struct ldb_pattern p;
	char buf[64];

	(void)state;
	assert_int_equal(ldb_pattern_compile(&p, "cn=fixed", true), 0);
	assert_false(ldb_pattern_has_var(&p));
	assert_int_equal(p.head_len, 8);
	assert_int_equal(p.tail_len, 0);
	assert_int_equal(ldb_pattern_render_cstr(&p, 123, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "cn=fixed");
	ldb_pattern_free(&p);

	assert_int_equal(ldb_pattern_compile(&p, "", true), 0);
	assert_false(ldb_pattern_has_var(&p));
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ldb_pattern_render_cstr(&p, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	ldb_pattern_free(&p);
}

static void test_render(void **state)
{
	struct ldb_pattern p;
	char buf[64];

	(void)state;
	assert_int_equal(ldb_pattern_compile(&p, "uid=userXXXXX,dc=x", true), 0);
	assert_int_equal(ldb_pattern_render_cstr(&p, 42, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "uid=user00042,dc=x");
	assert_int_equal(ldb_pattern_render_cstr(&p, 0, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "uid=user00000,dc=x");
	assert_int_equal(ldb_pattern_render_cstr(&p, 99999, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "uid=user99999,dc=x");

	/* the raw form adds no NUL and writes exactly its length */
	memset(buf, '#', sizeof(buf));
	assert_int_equal(ldb_pattern_render(&p, 7, buf, 18), 18);
	assert_memory_equal(buf, "uid=user00007,dc=x", 18);
	assert_int_equal(buf[18], '#');
	/* one byte short: nothing */
	assert_int_equal(ldb_pattern_render(&p, 7, buf, 17), 0);
	assert_int_equal(ldb_pattern_render_cstr(&p, 7, buf, 18), 0);
	ldb_pattern_free(&p);

	/* nozeropad: the plain number */
	assert_int_equal(ldb_pattern_compile(&p, "cn=XXXX", false), 0);
	assert_int_equal(ldb_pattern_render_cstr(&p, 5, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "cn=5");
	assert_int_equal(ldb_pattern_render_cstr(&p, 1234, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "cn=1234");
	ldb_pattern_free(&p);
}

static void test_put_number(void **state)
{
	char buf[32];

	(void)state;
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ldb_put_number(buf, 0, 0), 1);
	assert_string_equal(buf, "0");
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ldb_put_number(buf, 42, 5), 5);
	assert_string_equal(buf, "00042");
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ldb_put_number(buf, 123456, 3), 6);
	assert_string_equal(buf, "123456");
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ldb_put_number(buf, INT64_MAX, 0), 19);
	assert_string_equal(buf, "9223372036854775807");
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ldb_put_number(buf, 9, 1), 1);
	assert_string_equal(buf, "9");
}

static void test_digits(void **state)
{
	(void)state;
	assert_int_equal(ldb_digits(0), 1);
	assert_int_equal(ldb_digits(9), 1);
	assert_int_equal(ldb_digits(10), 2);
	assert_int_equal(ldb_digits(999), 3);
	assert_int_equal(ldb_digits(1000), 4);
	assert_int_equal(ldb_digits(INT64_MAX), 19);
	assert_int_equal(ldb_digits(-5), 2);
	assert_int_equal(ldb_digits(INT64_MIN), 20);
}

static void test_check_range(void **state)
{
	struct ldb_pattern p, fixed;
	char err[256];

	(void)state;
	assert_int_equal(ldb_pattern_compile(&p, "uid=userXXX", true), 0);
	assert_int_equal(ldb_pattern_check_range(&p, 0, 999, "-R", err, sizeof(err)), 0);
	assert_int_equal(ldb_pattern_check_range(&p, 5, 5, "-R", err, sizeof(err)), 0);

	err[0] = '\0';
	assert_int_equal(ldb_pattern_check_range(&p, 0, 1000, "-R", err, sizeof(err)), -1);
	assert_string_equal(err, "-R 1000 needs 4 digits but the pattern 'uid=userXXX' has 3 X");

	err[0] = '\0';
	assert_int_equal(ldb_pattern_check_range(&p, -1, 10, "-R", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "negative"));
	assert_non_null(strstr(err, "uid=userXXX"));

	err[0] = '\0';
	assert_int_equal(ldb_pattern_check_range(&p, 10, 5, "randombasehigh", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "randombasehigh"));
	assert_non_null(strstr(err, "empty"));

	/* nozeropad still refuses values wider than the run */
	ldb_pattern_free(&p);
	assert_int_equal(ldb_pattern_compile(&p, "cn=X", false), 0);
	assert_int_equal(ldb_pattern_check_range(&p, 0, 9, "-R", err, sizeof(err)), 0);
	assert_int_equal(ldb_pattern_check_range(&p, 0, 10, "-R", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "has 1 X"));
	ldb_pattern_free(&p);

	/* nothing to fill: any range fits */
	assert_int_equal(ldb_pattern_compile(&fixed, "cn=fixed", true), 0);
	assert_int_equal(ldb_pattern_check_range(&fixed, 0, 1000000, "-R", err, sizeof(err)), 0);
	ldb_pattern_free(&fixed);
}

/* RNDS and attreplace: ldclt's printable set less the DN/filter specials,
 * every one of its 82 characters drawn */
static void test_printable(void **state)
{
	struct ldb_rng r;
	char buf[8192];
	bool seen[128] = { false };
	int n = 0;

	(void)state;
	ldb_rng_seed(&r, 1, 0);
	ldb_put_printable(buf, sizeof buf, &r);
	for (size_t i = 0; i < sizeof buf; i++) {
		unsigned char ch = (unsigned char)buf[i];
		assert_true(ch > ' ' && ch < 0x7f);
		assert_null(strchr("\"#()*+,;<=>\\", ch));
		if (!seen[ch])
			n++;
		seen[ch] = true;
	}
	assert_int_equal(n, 82);
}

/* -e string: bytes (7-bit printable with ascii), escaped per RFC 4514 */
static void test_string_bytes(void **state)
{
	struct ldb_rng r;
	uint8_t b[4096];
	char out[3 * 4096];
	const uint8_t special[] = { '#', 'a', ',', '+', '"', '\\', '<', '>', ';', '=', 0x01, 0xe9, ' ' };

	(void)state;
	ldb_rng_seed(&r, 2, 0);
	ldb_put_random_bytes(b, sizeof b, true, &r);
	for (size_t i = 0; i < sizeof b; i++)
		assert_true(b[i] >= 0x20 && b[i] < 0x7f);
	ldb_put_random_bytes(b, sizeof b, false, &r);
	bool high = false;
	for (size_t i = 0; i < sizeof b; i++) {
		assert_true(b[i] != 0);
		high |= b[i] >= 0x80;
	}
	assert_true(high);
	size_t n = ldb_escape_dn_value(out, special, sizeof special);
	out[n] = '\0';
	assert_string_equal(out, "\\#a\\,\\+\\\"\\\\\\<\\>\\;\\=\\01\\E9\\ ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compile_first_run),
		cmocka_unit_test(test_compile_no_var),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_put_number),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_check_range),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_string_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
