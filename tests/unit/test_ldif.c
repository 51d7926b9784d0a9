/* Unit tests of the LDIF line writer (src/ldif/ldif.c): RFC 2849's safe
 * values, base64 against RFC 4648's vectors, lines, and no folding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ldif/ldif.h"

static bool safe(const char *s)
{
	return ldb_ldif_safe(s, strlen(s));
}

static void test_safe(void **state)
{
	(void)state;
	assert_true(ldb_ldif_safe("", 0));
	assert_true(safe("abc"));
	assert_true(safe("a b"));
	assert_true(safe("a:b"));
	assert_true(safe("a<b"));
	assert_true(safe("#a"));       /* only space, ':' and '<' may not start */
	assert_true(safe("\x01\x7f")); /* SAFE-CHAR is %x01-7F but LF and CR */
	assert_true(safe("uid=user1,ou=People,dc=example,dc=com"));
	assert_false(safe(" a"));
	assert_false(safe("a ")); /* RFC 2849's advice: no trailing space */
	assert_false(safe(" "));
	assert_false(safe(":a"));
	assert_false(safe("<a"));
	assert_false(safe("a\nb"));
	assert_false(safe("a\rb"));
	assert_false(ldb_ldif_safe("a\0b", 3));
	assert_false(safe("\x80"));
	assert_false(safe("P\xc3\xa9"));
	/* only the first n bytes count */
	assert_true(ldb_ldif_safe("ab ", 2));
}

static void b64(const char *in, size_t n, const char *expect)
{
	char out[64];

	assert_int_equal(ldb_base64_len(n), strlen(expect));
	size_t k = ldb_base64_encode(in, n, out);

	assert_int_equal(k, strlen(expect));
	assert_memory_equal(out, expect, k);
}

static void test_base64_rfc4648(void **state)
{
	(void)state;
	/* RFC 4648 section 10 */
	b64("", 0, "");
	b64("f", 1, "Zg==");
	b64("fo", 2, "Zm8=");
	b64("foo", 3, "Zm9v");
	b64("foob", 4, "Zm9vYg==");
	b64("fooba", 5, "Zm9vYmE=");
	b64("foobar", 6, "Zm9vYmFy");
	/* the last two letters of the alphabet and NUL bytes */
	b64("\xfb\xff", 2, "+/8=");
	b64("\xff\xff\xff", 3, "////");
	b64("\0\0\0\0", 4, "AAAAAA==");
	b64("\x14\xfb\x9c\x03\xd9\x7e", 6, "FPucA9l+");
}

static void line(const char *type, const char *v, size_t vlen, const char *expect)
{
	char out[256];
	size_t max = ldb_ldif_line_max(strlen(type), vlen);

	memset(out, '#', sizeof out);
	size_t n = ldb_ldif_put_line(out, type, strlen(type), v, vlen);

	assert_true(n <= max);
	assert_int_equal(n, strlen(expect));
	assert_memory_equal(out, expect, n);
	assert_int_equal(out[n], '#'); /* nothing written past the line */
}

static void test_lines(void **state)
{
	(void)state;
	line("cn", "bob", 3, "cn: bob\n");
	line("cn", "", 0, "cn: \n");
	line("description", " lead", 5, "description:: IGxlYWQ=\n");
	line("sn", "trail ", 6, "sn:: dHJhaWwg\n");
	line("o",
	     "\xc3\x84"
	     "chme",
	     6, "o:: w4RjaG1l\n");
	line("dn", "uid=:01,dc=x", 12, "dn: uid=:01,dc=x\n");
	line("cn", ":01", 3, "cn:: OjAx\n");
	line("cn", "a\0b", 3, "cn:: YQBi\n");
}

/* Lines are never folded: a long value stays on one line, in both writers. */
static void test_no_folding(void **state)
{
	char v[3000], out[4200];

	(void)state;
	for (size_t i = 0; i < sizeof v; i++)
		v[i] = (char)('a' + i % 26);
	size_t n = ldb_ldif_put_line(out, "description", 11, v, sizeof v);

	assert_int_equal(n, 11 + 2 + sizeof v + 1);
	assert_ptr_equal(memchr(out, '\n', n), out + n - 1);
	/* unsafe (a trailing space): one base64 line, padded once at the end */
	v[sizeof v - 1] = ' ';
	n = ldb_ldif_put_line(out, "description", 11, v, sizeof v);
	assert_int_equal(n, 11 + 3 + ldb_base64_len(sizeof v) + 1);
	assert_ptr_equal(memchr(out, '\n', n), out + n - 1);
	assert_null(memchr(out, '=', n)); /* 3000 bytes: no padding */
}

/* The FILE writer gives the same bytes as the buffer writer, across its
 * base64 chunks (768 input bytes each). */
static void test_fput_line(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 767, 768, 769, 2000, 2305 };
	char v[2305], want[3200], *got = NULL;
	size_t gotlen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof v; i++)
		v[i] = (char)(i * 7 + 1);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		for (int unsafe = 0; unsafe < 2; unsafe++) {
			char *val = unsafe ? v : memset(malloc(sizes[s] + 1), 'x', sizes[s] + 1);
			FILE *f = open_memstream(&got, &gotlen);

			assert_non_null(f);
			assert_int_equal(ldb_ldif_fput_line(f, "cn", 2, val, sizes[s]), 0);
			fclose(f);
			size_t n = ldb_ldif_put_line(want, "cn", 2, val, sizes[s]);

			assert_int_equal(gotlen, n);
			assert_memory_equal(got, want, n);
			free(got);
			got = NULL;
			if (!unsafe)
				free(val);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_safe),       cmocka_unit_test(test_base64_rfc4648), cmocka_unit_test(test_lines),
		cmocka_unit_test(test_no_folding), cmocka_unit_test(test_fput_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
