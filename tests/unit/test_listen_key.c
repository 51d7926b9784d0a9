/* run/listen_int.h: the listeners' keys.  The hash's tail (the last 1-7
 * bytes) is read as one 8-byte load from the end when the input has 8
 * bytes or more, as 4-, 2- and 1-byte loads below: both give what a plain
 * copy of the tail into a zeroed word gives (the reference here), for every
 * length and alignment; the case of ASCII letters does not change a key,
 * another byte does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/listen_int.h"

/* The hash as it was: the tail copied into a zeroed word. */
static uint64_t reference(uint64_t h, const uint8_t *p, size_t n)
{
	const uint64_t lower = 0x2020202020202020ULL;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ (w | lower)) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		uint64_t w = 0;
		for (size_t k = 0; k < n; k++)
			w |= (uint64_t)p[k] << (8 * k);
		h = (h ^ (w | (lower >> (8 * (8 - n)))) ^ n) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
	}
	return h;
}

static void test_tail(void **state)
{
	(void)state;
	uint8_t buf[80];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n + off <= 64; n++)
			assert_true(ldb_lk_hash(7, buf + off, n) == reference(7, buf + off, n));
}

static void test_case(void **state)
{
	(void)state;
	const char *a = "uid=user00042,ou=People,dc=example,dc=com";
	const char *b = "UID=User00042,OU=people,DC=Example,DC=COM";
	const char *c = "uid=user00043,ou=People,dc=example,dc=com";
	size_t n = strlen(a);
	uint64_t ka = ldb_lk_dn((const uint8_t *)a, n);
	assert_true(ka == ldb_lk_dn((const uint8_t *)b, n));
	assert_true(ka != ldb_lk_dn((const uint8_t *)c, n));
	assert_true(ldb_lk_key(ka, LK_VALUE, (const uint8_t *)"v1", 2) !=
	            ldb_lk_key(ka, LK_VALUE, (const uint8_t *)"v2", 2));
	assert_true(ldb_lk_key(ka, LK_THERE, NULL, 0) != ldb_lk_key(ka, LK_GONE, NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_case),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
