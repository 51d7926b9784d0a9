/* Unit tests for --hdr-log's encoding (src/report/hdrlog.c) and the report
 * page's reader and writer (src/report/html.c): an encoded histogram, taken apart
 * again by hand (base64, the 8-byte compressed header, zlib, the 40-byte V2
 * header, ZigZag LEB128 counts with zero runs), gives back every count at its
 * index; records group into runs (a --sweep file into several); the page holds
 * one polyline point per sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "report/hdrlog.h"
#include "report/html.h"

static size_t unbase64(const char *s, unsigned char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (; *s && *s != '='; s++) {
		acc = acc << 6 | (uint32_t)(strchr(tab, *s) - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int64_t varint(const unsigned char **p)
{
	uint64_t z = 0;
	for (int i = 0; i < 9; i++) {
		unsigned char b = *(*p)++;
		z |= (uint64_t)(i == 8 ? b : (b & 0x7f)) << (7 * i);
		if (i == 8 || !(b & 0x80))
			break;
	}
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static void encoding_round_trip(void **state)
{
	(void)state;
	struct ldb_hist h, back;
	assert_int_equal(ldb_hist_init(&h), 0);
	assert_int_equal(ldb_hist_init(&back), 0);
	ldb_hist_record_n(&h, 0, 2);          /* slot 0 */
	ldb_hist_record_n(&h, 1, 1);          /* a lone slot right after: no zero run */
	ldb_hist_record_n(&h, 2047, 5);       /* last of bucket 0 */
	ldb_hist_record_n(&h, 65000, 300);    /* 65 us */
	ldb_hist_record_n(&h, 3000000000, 1); /* 3 s, far up */
	char *text = ldb_hdrlog_encode(&h);
	assert_non_null(text);
	assert_memory_equal(text, "HISTFAA", 7); /* the cookie 0x1c849314 in base64 */

	unsigned char *raw = malloc(strlen(text)), *plain = malloc(1 << 20);
	size_t n = unbase64(text, raw);
	assert_int_equal(be(raw, 4), 0x1c849314);
	assert_int_equal(be(raw + 4, 4), n - 8);
	uLongf plen = 1 << 20;
	assert_int_equal(uncompress(plain, &plen, raw + 8, (uLong)(n - 8)), Z_OK);
	assert_int_equal(be(plain, 4), 0x1c849313);
	assert_int_equal(be(plain + 4, 4), plen - 40); /* payload length */
	assert_int_equal(be(plain + 8, 4), 0);         /* normalizing index offset */
	assert_int_equal(be(plain + 12, 4), 3);        /* significant digits */
	assert_int_equal(be(plain + 16, 8), 1);        /* lowest discernible value */
	assert_int_equal(be(plain + 24, 8), LDB_HIST_HIGHEST);
	double ratio;
	uint64_t bits = be(plain + 32, 8);
	memcpy(&ratio, &bits, sizeof ratio);
	assert_true(ratio == 1.0);
	const unsigned char *p = plain + 40;
	uint32_t idx = 0;
	while (p < plain + plen) {
		int64_t v = varint(&p);
		if (v < 0) {
			idx += (uint32_t)-v;
		} else {
			assert_true(idx < back.counts_len);
			back.counts[idx++] = (uint64_t)v;
		}
	}
	assert_int_equal(idx, ldb_hist_index(3000000000) + 1); /* counts end at the last non-empty slot */
	for (uint32_t i = 0; i < h.counts_len; i++)
		assert_int_equal(back.counts[i], h.counts[i]);
	free(raw);
	free(plain);
	free(text);
	ldb_hist_free(&h);
	ldb_hist_free(&back);
}

static const char sweep_records[] =
        "{\"type\":\"header\",\"schema\":1,\"config\":{\"threads\":1,\"rate\":0}}\n"
        "{\"type\":\"sample\",\"index\":1,\"t\":0.5,\"ops\":{\"search\":{\"attempted\":5,\"completed\":5,"
        "\"rate\":10,\"errors_by_code\":{\"32\":1},\"latency_us\":{\"count\":5,\"p50\":50,\"p99\":90}}}}\n"
        "{\"type\":\"sample\",\"index\":2,\"t\":1.0,\"ops\":{\"search\":{\"attempted\":5,\"completed\":5,"
        "\"rate\":10,\"errors_by_code\":{},\"latency_us\":{\"count\":5,\"p50\":60,\"p99\":95}}}}\n"
        "{\"type\":\"summary\",\"schema\":1,\"threads\":1,\"rate\":10,\"ops\":{\"search\":{\"attempted\":10,"
        "\"completed\":10,\"latency_us\":{\"p99\":95}}}}\n"
        "{\"type\":\"header\",\"schema\":1,\"config\":{\"threads\":2,\"rate\":0}}\n"
        "{\"type\":\"sample\",\"index\":1,\"t\":0.5,\"ops\":{\"search\":{\"attempted\":9,\"completed\":9,"
        "\"rate\":18,\"errors_by_code\":{},\"latency_us\":{\"count\":9,\"p50\":55,\"p99\":99}}}}\n"
        "{\"type\":\"summary\",\"schema\":1,\"threads\":2,\"rate\":18,\"ops\":{\"search\":{\"attempted\":9,"
        "\"completed\":9,\"latency_us\":{\"p99\":99}}}}\n";

static void page_from_sweep(void **state)
{
	(void)state;
	struct ldb_html_file f;
	char err[200], *page = NULL;
	size_t len;
	FILE *in = fmemopen((void *)sweep_records, sizeof sweep_records - 1, "r");
	assert_int_equal(ldb_html_read(&f, "dir/s.json", in, err, sizeof err), 0);
	fclose(in);
	assert_string_equal(f.label, "s.json");
	assert_int_equal(f.nruns, 2);
	assert_int_equal(f.runs[0].nsamples, 2);
	assert_int_equal(f.runs[1].nsamples, 1);
	FILE *out = open_memstream(&page, &len);
	assert_int_equal(ldb_html_write(out, &f, 1, "<p id=\"extra\"></p>"), 0);
	fclose(out);
	assert_non_null(
	        strstr(page, "data-name=\"s.json n=1\" data-kind=\"search\" data-metric=\"rate\" data-points=\"2\""));
	assert_non_null(
	        strstr(page, "data-name=\"s.json n=2\" data-kind=\"search\" data-metric=\"rate\" data-points=\"1\""));
	assert_non_null(strstr(page, "data-kind=\"sweep\" data-metric=\"rate\" data-points=\"2\""));
	assert_non_null(strstr(
	        page, "data-name=\"s.json n=1 code 32\" data-kind=\"errors\" data-metric=\"32\" data-points=\"2\""));
	assert_non_null(strstr(page, "<p id=\"extra\"></p>"));
	assert_null(strstr(page, "://")); /* nothing to fetch */
	free(page);
	ldb_html_file_free(&f);
}

static void bad_records(void **state)
{
	(void)state;
	struct ldb_html_file f;
	char err[200];
	static const char text[] = "{\"type\":\"header\"}\nnot json\n";
	FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
	assert_int_equal(ldb_html_read(&f, "x.json", in, err, sizeof err), -1);
	fclose(in);
	assert_non_null(strstr(err, "x.json:2: not JSON"));
	ldb_html_file_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encoding_round_trip),
		cmocka_unit_test(page_from_sweep),
		cmocka_unit_test(bad_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
