/* vreq: a request encoded once with value pattern markers, its holes filled
 * per operation, equals byte for byte the encoder's request for the same
 * values (filters with holes first, last, nested, several per value; a base
 * and a filter together; values longer than 127 bytes, so that lengths
 * change form), and a filter a bracket makes whole is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ops/vreq.h"
#include "proto/wire.h"

static struct ldb_config cfg;

static void setup_cfg(const char *filter, const char *base)
{
	char err[512];
	memset(&cfg, 0, sizeof cfg);
	assert_int_equal(ldb_value_compile(&cfg.filter_pat, filter, true, "-f", err, sizeof err), 0);
	assert_int_equal(ldb_value_compile(&cfg.base_pat, base, true, "-b", err, sizeof err), 0);
	if (cfg.filter_pat.vp != NULL) {
		cfg.filter_pat.slot = cfg.nvpats;
		cfg.vpats[cfg.nvpats++] = &cfg.filter_pat;
	}
	if (cfg.base_pat.vp != NULL) {
		cfg.base_pat.slot = cfg.nvpats;
		cfg.vpats[cfg.nvpats++] = &cfg.base_pat;
	}
}

static void text_of(const struct ldb_pattern *p, char *buf, size_t cap)
{
	if (p->vp != NULL)
		assert_true(ldb_vp_skeleton(p->vp, buf, cap, (uint8_t)(0x10 + p->slot)) > 0);
	else
		snprintf(buf, cap, "%s", p->text);
}

static void encode(struct ldb_bytes *b, const char *base, const char *filter)
{
	char err[LDB_WIRE_ERRLEN];
	struct ldb_search_args a = { .base = base, .scope = 2, .filter = filter };
	b->len = 0;
	assert_int_equal(ldb_wire_encode_search(b, &a, err), 0);
}

/* n operations: the program's bytes against the encoder's for the values the
 * client's buffer holds after each render. */
static void check_same(const char *filter, const char *base, int n)
{
	char f[4096], bs[4096], err[256];
	struct ldb_bytes b = { 0 };
	struct ldb_vreq q;
	struct ldb_vpc v;
	struct ldb_rng rng;
	static uint8_t got[1 << 16], want[1 << 16];

	setup_cfg(filter, base);
	text_of(&cfg.filter_pat, f, sizeof f);
	text_of(&cfg.base_pat, bs, sizeof bs);
	encode(&b, bs, f);
	assert_int_equal(ldb_vreq_build(&q, b.data, b.len, &cfg, err, sizeof err), 0);
	assert_int_equal(ldb_vpc_init(&v, &cfg, 0, 1, err, sizeof err), 0);
	ldb_rng_seed(&rng, 3, 0);
	for (int i = 0; i < n; i++) {
		size_t len = ldb_vreq_render(&q, &v, &rng, 1000 + i, got, sizeof got);
		assert_true(len > 0 && len <= q.maxlen);
		const struct ldb_pattern *fp = &cfg.filter_pat, *bp = &cfg.base_pat;
		if (fp->vp != NULL)
			snprintf(f, sizeof f, "%.*s", (int)v.len[fp->slot], v.buf + v.off[fp->slot]);
		if (bp->vp != NULL)
			snprintf(bs, sizeof bs, "%.*s", (int)v.len[bp->slot], v.buf + v.off[bp->slot]);
		encode(&b, bs, f);
		size_t wl = ldb_wire_frame(want, sizeof want, 1000 + i, b.data, b.len);
		if (len != wl)
			fprintf(stderr, "%s %s: %zu bytes, the encoder's %zu\n", filter, base, len, wl);
		assert_int_equal(len, wl);
		if (memcmp(got, want, wl) != 0) {
			fprintf(stderr, "%s %s: differ\n got  ", filter, base);
			for (size_t k = 0; k < wl; k++)
				fprintf(stderr, "%02x", got[k]);
			fprintf(stderr, "\n want ");
			for (size_t k = 0; k < wl; k++)
				fprintf(stderr, "%02x", want[k]);
			fprintf(stderr, "\n");
		}
		assert_memory_equal(got, want, wl);
	}
	ldb_vpc_free(&v);
	ldb_vreq_free(&q);
	ldb_bytes_free(&b);
	ldb_pattern_free(&cfg.filter_pat);
	ldb_pattern_free(&cfg.base_pat);
}

static void test_holes(void **state)
{
	(void)state;
	check_same("(uid=user[1-100000])", "dc=example,dc=com", 50);
	check_same("(uid=[1:9]x)", "dc=example,dc=com", 20);
	check_same("(|(description=[uuid])(cn=v))", "dc=example,dc=com", 20);
	check_same("(&(cn=v[1-999])(description=x))", "dc=example,dc=com", 20);
	check_same("(|(description=[uuid])(cn=v[1-999]-[ref:2]-[[x]]))", "dc=example,dc=com", 20);
	check_same("(&(!(cn=a[1-9]b[1-9]c))(|(sn=[random:3:xy]*)(uid=*[1:3])))", "ou=[1:4],dc=example", 20);
}

static void test_long_values(void **state)
{
	(void)state;
	/* 0 to 300 bytes: the lengths go from one octet to two and back */
	check_same("(description=[random:1:a][random:150:b][random:150:c])", "dc=x", 5);
	check_same("(&(cn=[zipf:1-1000:1.1])(description=[random:200:q]))", "cn=[random:130:z]", 5);
}

static void test_refused(void **state)
{
	(void)state;
	char err[512];
	struct ldb_vreq q;
	struct ldb_bytes b = { 0 };

	/* a bracket that stands for the whole filter: its marker is no filter */
	setup_cfg("(cn=[1-9][1-9])", "dc=x");
	encode(&b, "dc=x",
	       "(cn=\x01\x10@\x01\x10"
	       "A)");
	b.data[b.len - 3] = 'Q'; /* the second marker spoilt: the hole count differs */
	assert_int_equal(ldb_vreq_build(&q, b.data, b.len, &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "must stand inside one value"));
	ldb_vreq_free(&q);
	ldb_bytes_free(&b);
	ldb_pattern_free(&cfg.filter_pat);
	ldb_pattern_free(&cfg.base_pat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
