/* ldclt XXX patterns: compile once, render allocation-free. */
#include "values/pattern.h"
#include "values/vpattern.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ldb_pattern_compile(struct ldb_pattern *p, const char *text, bool zeropad)
{
	size_t len = strlen(text);
	char *copy = malloc(len + 1);

	if (copy == NULL)
		return -1;
	memcpy(copy, text, len + 1);

	const char *x = strchr(copy, 'X');
	size_t head = x ? (size_t)(x - copy) : len;
	size_t width = 0;

	while (head + width < len && copy[head + width] == 'X')
		width++;
	p->text = copy;
	p->vp = NULL;
	p->slot = 0;
	p->head_len = head;
	p->width = width;
	p->tail = copy + head + width;
	p->tail_len = len - head - width;
	p->zeropad = zeropad;
	return 0;
}

int ldb_value_compile(struct ldb_pattern *p, const char *text, bool zeropad, const char *opt, char *err, size_t cap)
{
	char verr[512], *skel;
	size_t n = strlen(text) + 1;

	if (!ldb_vp_has_brackets(text)) {
		if (ldb_pattern_compile(p, text, zeropad) == 0)
			return 0;
		snprintf(err, cap, "out of memory");
		return -1;
	}
	p->vp = NULL;
	if (ldb_vp_compile(&p->vp, text, verr, sizeof verr) != 0) {
		snprintf(err, cap, "%s: %s", opt, verr);
		return -1;
	}
	skel = malloc(n);
	if (skel == NULL || ldb_vp_skeleton(p->vp, skel, n, 0x10) == 0) {
		free(skel);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	bool x = strchr(skel, 'X') != NULL;
	free(skel);
	if (x) {
		snprintf(err, cap,
		         "%s '%s': ldclt's XXX and a value pattern's brackets in one value; write one or the other "
		         "(an X that is text: [random:1:X])",
		         opt, text);
		return -1;
	}
	p->text = strdup(text);
	if (p->text == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	p->zeropad = zeropad;
	p->tail = p->text + strlen(text);
	p->head_len = strlen(text);
	return 0;
}

void ldb_pattern_free(struct ldb_pattern *p)
{
	ldb_vp_free(p->vp);
	if (p->text != NULL) {
		/* A pattern may hold a password (-w with randombinddn). */
		explicit_bzero(p->text, strlen(p->text));
		free(p->text);
	}
	memset(p, 0, sizeof(*p));
}

/* Digits of an unsigned magnitude (1 for 0). */
static int digits_u64(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

int ldb_digits(int64_t v)
{
	if (v >= 0)
		return digits_u64((uint64_t)v);
	/* a negative value: its magnitude plus the sign */
	return digits_u64((uint64_t)0 - (uint64_t)v) + 1;
}

int ldb_pattern_check_range(const struct ldb_pattern *p, int64_t lo, int64_t hi, const char *what, char *err,
                            size_t cap)
{
	if (!ldb_pattern_has_var(p))
		return 0;
	if (lo < 0 || hi < 0) {
		snprintf(err, cap,
		         "%s: the range [%" PRId64 ", %" PRId64 "] has negative values; "
		         "the pattern '%s' needs values >= 0",
		         what, lo, hi, p->text);
		return -1;
	}
	if (lo > hi) {
		snprintf(err, cap, "%s: the range [%" PRId64 ", %" PRId64 "] is empty (low > high)", what, lo, hi);
		return -1;
	}
	/* digits grow with the value, so the high end is the widest */
	int need = ldb_digits(hi);

	if ((size_t)need > p->width) {
		snprintf(err, cap, "%s %" PRId64 " needs %d digits but the pattern '%s' has %zu X", what, hi, need,
		         p->text, p->width);
		return -1;
	}
	return 0;
}

size_t ldb_put_number(char *dst, int64_t v, size_t width)
{
	char tmp[24];
	size_t n = 0;
	uint64_t u = v < 0 ? 0 : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	size_t len = n > width ? n : width;
	size_t pad = len - n;

	for (size_t i = 0; i < pad; i++)
		dst[i] = '0';
	for (size_t i = 0; i < n; i++)
		dst[pad + i] = tmp[n - 1 - i];
	return len;
}

size_t ldb_pattern_render(const struct ldb_pattern *p, int64_t value, char *buf, size_t cap)
{
	if (!ldb_pattern_has_var(p)) {
		size_t len = p->head_len;

		if (len == 0)
			return 0;
		if (len > cap)
			return 0;
		memcpy(buf, p->text, len);
		return len;
	}
	size_t width = p->zeropad ? p->width : 0;
	size_t nd = (size_t)ldb_digits(value < 0 ? 0 : value);
	size_t numlen = nd > width ? nd : width;
	size_t total = p->head_len + numlen + p->tail_len;

	if (total > cap)
		return 0;
	memcpy(buf, p->text, p->head_len);
	ldb_put_number(buf + p->head_len, value, width);
	memcpy(buf + p->head_len + numlen, p->tail, p->tail_len);
	return total;
}

size_t ldb_pattern_render_cstr(const struct ldb_pattern *p, int64_t value, char *buf, size_t cap)
{
	if (cap == 0)
		return 0;
	size_t n = ldb_pattern_render(p, value, buf, cap - 1);

	if (n == 0 && cap > 0) {
		/* 0 is also the length of an empty pattern: tell the cases apart */
		bool empty = p->text == NULL || (p->head_len == 0 && p->width == 0);

		if (!empty)
			return 0;
	}
	buf[n] = '\0';
	return n;
}

/* ldclt's printable set less the characters DNs and filters escape. */
static const char printable[] = "!$%&'-./0123456789:?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
                                "abcdefghijklmnopqrstuvwxyz{|}~";

void ldb_put_printable(char *dst, size_t n, struct ldb_rng *rng)
{
	const uint64_t m = sizeof printable - 1;
	size_t i = 0;

	/* two characters per draw, each by multiply-shift on 32 bits */
	while (i < n) {
		uint64_t x = ldb_rng_next(rng);

		dst[i++] = printable[((x & 0xffffffffu) * m) >> 32];
		if (i < n)
			dst[i++] = printable[((x >> 32) * m) >> 32];
	}
}

void ldb_put_random_bytes(uint8_t *dst, size_t n, bool ascii, struct ldb_rng *rng)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = ldb_rng_next(rng) & 0xffffffffu;

		/* 95 printable ASCII characters, or the 255 bytes 1-255 */
		dst[i] = ascii ? (uint8_t)(0x20 + ((x * 95) >> 32)) : (uint8_t)(1 + ((x * 255) >> 32));
	}
}

size_t ldb_escape_dn_value(char *dst, const uint8_t *src, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t b = src[i];
		bool edge = (i == 0 && (b == '#' || b == ' ')) || (i + 1 == n && b == ' ');

		if (b < 0x20 || b >= 0x7f) {
			dst[o++] = '\\';
			dst[o++] = hex[b >> 4];
			dst[o++] = hex[b & 15];
			continue;
		}
		if (edge || strchr("\"+,;<>\\=", b) != NULL)
			dst[o++] = '\\';
		dst[o++] = (char)b;
	}
	return o;
}
