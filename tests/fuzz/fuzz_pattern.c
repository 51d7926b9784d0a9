/* libFuzzer target: ldclt's XXX patterns.
 *
 * Input: 1 flag byte (bit 0: zeropad), 3 x 8 bytes (low, high, value, little
 * endian), then the pattern text (cut at the first NUL).  Compiles the text,
 * checks the range, and when the range is accepted renders low, high and a
 * value inside the range, into a buffer of exactly the needed size and into
 * one byte less.  Aborts when a rendering differs from what snprintf makes of
 * the same pattern and value, or when a too small buffer is written. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values/pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return (int64_t)v;
}

/* The rendering, the slow way. */
static size_t expected(const struct ldb_pattern *p, int64_t v, char *out, size_t cap)
{
	if (p->width == 0)
		return (size_t)snprintf(out, cap, "%.*s", (int)p->head_len, p->text);
	return (size_t)snprintf(out, cap, "%.*s%0*" PRId64 "%.*s", (int)p->head_len, p->text,
	                        p->zeropad ? (int)p->width : 0, v, (int)p->tail_len, p->tail);
}

static void render_and_check(const struct ldb_pattern *p, int64_t v)
{
	size_t cap = strlen(p->text) + 32;
	char *want = malloc(cap), *got;
	if (want == NULL)
		return;
	size_t n = expected(p, v, want, cap);
	if (n >= cap)
		abort();
	/* exactly the needed size, on the heap, so that ASan sees any overrun */
	got = malloc(n ? n : 1);
	if (got == NULL) {
		free(want);
		return;
	}
	size_t r = ldb_pattern_render(p, v, got, n);
	if (r != n || memcmp(got, want, n) != 0)
		abort();
	if (n > 0 && ldb_pattern_render(p, v, got, n - 1) != 0)
		abort();
	free(got);
	got = malloc(n + 1);
	if (got == NULL) {
		free(want);
		return;
	}
	r = ldb_pattern_render_cstr(p, v, got, n + 1);
	if (r != n || strcmp(got, want) != 0)
		abort();
	if (n > 0 && ldb_pattern_render_cstr(p, v, got, n) != 0)
		abort();
	free(got);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 25 || size > 4096)
		return 0;
	bool zeropad = data[0] & 1;
	int64_t lo = get64(data + 1), hi = get64(data + 9), v = get64(data + 17);
	size_t tlen = size - 25;
	char *text = malloc(tlen + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data + 25, tlen);
	text[tlen] = '\0';

	struct ldb_pattern p;
	if (ldb_pattern_compile(&p, text, zeropad) != 0) {
		free(text);
		return 0;
	}
	if (strcmp(p.text, text) != 0 || p.head_len + p.width + p.tail_len != strlen(text))
		abort();
	char err[256];
	err[0] = '\0';
	if (ldb_pattern_check_range(&p, lo, hi, "-R", err, sizeof err) == 0) {
		if (ldb_pattern_has_var(&p)) {
			if (lo < 0 || hi < lo || (size_t)ldb_digits(hi) > p.width)
				abort(); /* accepted a range that does not fit */
			uint64_t span = (uint64_t)hi - (uint64_t)lo;
			int64_t mid = lo + (int64_t)(span == UINT64_MAX ? (uint64_t)v : (uint64_t)v % (span + 1));
			render_and_check(&p, lo);
			render_and_check(&p, hi);
			render_and_check(&p, mid);
		} else {
			render_and_check(&p, 0);
		}
	} else if (err[0] == '\0') {
		abort(); /* refused without saying why */
	}
	char num[32];
	int64_t nv = v < 0 ? -(v + 1) : v;
	size_t w = (size_t)(data[0] >> 1) % 24;
	size_t nl = ldb_put_number(num, nv, w);
	char want[48];
	int wl = snprintf(want, sizeof want, "%0*" PRId64, (int)w, nv);
	if (nl != (size_t)wl || memcmp(num, want, nl) != 0)
		abort();
	ldb_pattern_free(&p);
	free(text);
	return 0;
}
