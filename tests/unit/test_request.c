/* Request templates: what ldb_req_render writes must equal, byte for byte, the
 * request encoded directly (wire) from the strings with the number substituted,
 * for every field that varies and in both padding modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "values/pattern.h"
#include "ops/request.h"
#include "proto/wire.h"

static void set_pattern(struct ldb_pattern *p, char **keep, const char *text, bool zeropad)
{
	*keep = strdup(text);
	assert_int_equal(ldb_pattern_compile(p, text, zeropad), 0);
}

/* The reference: render the pattern's text ourselves, encode, frame. */
static size_t reference_search(const char *base, const char *filter, const char *const *attrs, int32_t msgid,
                               uint8_t *dst, size_t cap)
{
	struct ldb_bytes b = { 0 };
	struct ldb_search_args a = { .base = base, .scope = LDB_SCOPE_SUB, .filter = filter, .attrs = attrs };
	assert_int_equal(ldb_wire_encode_search(&b, &a, NULL), 0);
	size_t n = ldb_wire_frame(dst, cap, msgid, b.data, b.len);
	ldb_bytes_free(&b);
	return n;
}

static void render_value(const struct ldb_pattern *p, int64_t v, char *buf, size_t cap)
{
	assert_true(ldb_pattern_render_cstr(p, v, buf, cap) > 0);
}

static void check_search(bool zeropad, bool randombase)
{
	struct ldb_config c;
	ldb_config_init(&c);
	c.zeropad = zeropad;
	c.valmode = LDB_VAL_RANDOM;
	c.range_low = 1;
	c.range_high = 99999;
	set_pattern(&c.filter_pat, &c.filter, "(&(objectClass=person)(uid=userXXXXX))", zeropad);
	free(c.base);
	set_pattern(&c.base_pat, &c.base, "ou=XXX,dc=example,dc=com", zeropad);
	if (randombase) {
		c.randombase = true;
		c.base_low = 0;
		c.base_high = 999;
	}
	c.weight[LDB_OP_SEARCH] = 1;

	struct ldb_reqset rs;
	char err[256];
	assert_int_equal(ldb_reqset_build_search(&rs, &c, err, sizeof err), 0);

	static const int64_t values[] = { 1, 9, 10, 42, 999, 1000, 12345, 99999 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		int64_t v = values[i];
		int64_t b = randombase ? v % 1000 : 0;
		int64_t vals[LDB_FIELD_COUNT] = { [LDB_FIELD_FILTER] = v, [LDB_FIELD_BASE] = b };
		uint8_t got[512], want[512];
		char filter[128], base[128];
		render_value(&c.filter_pat, v, filter, sizeof filter);
		if (randombase)
			render_value(&c.base_pat, b, base, sizeof base);
		else
			snprintf(base, sizeof base, "%s", c.base);
		int32_t msgid = (int32_t)(i * 1000 + 1);
		size_t ng = ldb_req_render(&rs, 0, vals, msgid, got, sizeof got);
		size_t nw = reference_search(base, filter, NULL, msgid, want, sizeof want);
		assert_int_not_equal(ng, 0);
		assert_int_equal(ng, nw);
		assert_memory_equal(got, want, nw);
	}
	/* too small a buffer: nothing written */
	uint8_t tiny[8];
	int64_t vals[LDB_FIELD_COUNT] = { 5, 5, 0 };
	assert_int_equal(ldb_req_render(&rs, 0, vals, 1, tiny, sizeof tiny), 0);
	ldb_reqset_free(&rs);
	ldb_config_free(&c);
}

static void test_search_zeropad(void **state)
{
	(void)state;
	check_search(true, false);
}
static void test_search_nozeropad(void **state)
{
	(void)state;
	check_search(false, false);
}
static void test_search_randombase(void **state)
{
	(void)state;
	check_search(true, true);
}
static void test_search_randombase_nozeropad(void **state)
{
	(void)state;
	check_search(false, true);
}

static void test_random_attrlist(void **state)
{
	(void)state;
	struct ldb_config c;
	ldb_config_init(&c);
	set_pattern(&c.filter_pat, &c.filter, "(uid=user1)", true);
	assert_int_equal(ldb_pattern_compile(&c.base_pat, c.base, true), 0);
	c.weight[LDB_OP_SEARCH] = 1;
	c.random_attrlist = true;
	c.attrs[0] = strdup("cn");
	c.attrs[1] = strdup("mail");
	c.attrs[2] = strdup("sn");
	c.nattrs = 3;
	struct ldb_reqset rs;
	char err[256];
	assert_int_equal(ldb_reqset_build_search(&rs, &c, err, sizeof err), 0);
	assert_int_equal(rs.nvariants, 3);
	for (int v = 0; v < 3; v++) {
		const char *one[2] = { c.attrs[v], NULL };
		int64_t vals[LDB_FIELD_COUNT] = { 0 };
		uint8_t got[256], want[256];
		size_t ng = ldb_req_render(&rs, v, vals, 7, got, sizeof got);
		size_t nw = reference_search(c.base, c.filter, one, 7, want, sizeof want);
		assert_int_equal(ng, nw);
		assert_memory_equal(got, want, nw);
	}
	ldb_reqset_free(&rs);
	ldb_config_free(&c);
}

static void test_bind_randombinddn(void **state)
{
	(void)state;
	struct ldb_config c;
	ldb_config_init(&c);
	set_pattern(&c.bind_dn_pat, &c.bind_dn, "uid=userXXXXX,ou=People,dc=example,dc=com", true);
	set_pattern(&c.password_pat, &c.password, "pwXXXXX!", true);
	c.randombinddn = true;
	c.binddn_low = 1;
	c.binddn_high = 10000;
	struct ldb_reqset rs;
	char err[256];
	assert_int_equal(ldb_reqset_build_bind(&rs, &c, err, sizeof err), 0);
	for (int64_t v = 1; v <= 10000; v += 1111) {
		int64_t vals[LDB_FIELD_COUNT] = { [LDB_FIELD_BINDDN] = v };
		char dn[128], pw[64];
		render_value(&c.bind_dn_pat, v, dn, sizeof dn);
		render_value(&c.password_pat, v, pw, sizeof pw);
		struct ldb_bytes b = { 0 };
		assert_int_equal(ldb_wire_encode_bind_simple(&b, dn, pw, strlen(pw), NULL), 0);
		uint8_t got[256], want[256];
		size_t nw = ldb_wire_frame(want, sizeof want, 3, b.data, b.len);
		size_t ng = ldb_req_render(&rs, 0, vals, 3, got, sizeof got);
		ldb_bytes_free(&b);
		assert_int_equal(ng, nw);
		assert_memory_equal(got, want, nw);
	}
	ldb_reqset_free(&rs);
	ldb_config_free(&c);
}

static void test_bind_widths_must_match(void **state)
{
	(void)state;
	struct ldb_config c;
	ldb_config_init(&c);
	set_pattern(&c.bind_dn_pat, &c.bind_dn, "uid=userXXXXX,dc=example,dc=com", true);
	set_pattern(&c.password_pat, &c.password, "pwXXX", true);
	c.randombinddn = true;
	c.binddn_low = 1;
	c.binddn_high = 999;
	struct ldb_reqset rs;
	char err[256] = "";
	assert_int_equal(ldb_reqset_build_bind(&rs, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "same width"));
	ldb_reqset_free(&rs);
	ldb_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_zeropad),         cmocka_unit_test(test_search_nozeropad),
		cmocka_unit_test(test_search_randombase),      cmocka_unit_test(test_search_randombase_nozeropad),
		cmocka_unit_test(test_random_attrlist),        cmocka_unit_test(test_bind_randombinddn),
		cmocka_unit_test(test_bind_widths_must_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
