/* A general flow's search writer (ops/flow.h): the filter is a string a
 * step rendered from its parts per request (an earlier step's DN in it), so
 * it is encoded here, straight into the output buffer, with no allocation:
 * each constructed element's contents are written after room for its
 * longest header, then moved back once their length is known. */
#include "ops/flow.h"

#include <string.h>

#include "proto/der.h"

#define HDR 6 /* a tag and the longest length form */

/* The element whose contents were written at p + HDR .. q, tagged. */
static uint8_t *close_elem(uint8_t *p, uint8_t *q, uint8_t tag)
{
	size_t n = (size_t)(q - (p + HDR));
	size_t hl = 1 + ldb_der_len_size(n);
	memmove(p + hl, p + HDR, n);
	ldb_der_put_tl(p, tag, n);
	return p + hl + n;
}

static uint8_t *put_octets(uint8_t *p, const uint8_t *end, uint8_t tag, const void *v, size_t n)
{
	if ((size_t)(end - p) < n + HDR)
		return NULL;
	p = ldb_der_put_tl(p, tag, n);
	memcpy(p, v, n);
	return p + n;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* A value of s[0..n) with its \XX escapes undone, as an OCTET STRING of tag. */
static uint8_t *put_value(uint8_t *p, const uint8_t *end, uint8_t tag, const char *s, size_t n)
{
	if ((size_t)(end - p) < n + HDR)
		return NULL;
	uint8_t *v = p + HDR, *q = v;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
			int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
			if (lo < 0)
				return NULL;
			*q++ = (uint8_t)(hi << 4 | lo);
			i += 2;
		} else
			*q++ = (uint8_t)s[i];
	}
	return close_elem(p, q, tag);
}

/* attr=v with a '*' in v: SubstringFilter. */
static uint8_t *put_substrings(uint8_t *p, const uint8_t *end, const char *a, size_t an, const char *v, size_t vn)
{
	uint8_t *q = put_octets(p + HDR, end, 0x04, a, an);
	if (q == NULL || end - q < HDR)
		return NULL;
	uint8_t *seq = q, *r = seq + HDR;
	size_t start = 0;
	for (size_t i = 0; i <= vn && r != NULL; i++) {
		if (i < vn && v[i] != '*')
			continue;
		if (i > start) /* initial, any, final */
			r = put_value(r, end, start == 0 ? 0x80 : i == vn ? 0x82 : 0x81, v + start, i - start);
		start = i + 1;
	}
	if (r == NULL)
		return NULL;
	return close_elem(p, close_elem(seq, r, 0x30), 0xa4);
}

/* One item: attr op value, at s[0..n) (no parentheses). */
static uint8_t *put_item(uint8_t *p, const uint8_t *end, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	if (eq == NULL || eq == s)
		return NULL;
	size_t an = (size_t)(eq - s), vn = n - an - 1;
	const char *v = eq + 1;
	uint8_t tag = 0xa3;
	if (an > 1 && (s[an - 1] == '~' || s[an - 1] == '>' || s[an - 1] == '<')) {
		tag = s[an - 1] == '~' ? 0xa8 : s[an - 1] == '>' ? 0xa5 : 0xa6;
		an--;
	}
	if (memchr(s, ':', an) != NULL || an == 0)
		return NULL; /* extensible match: not written here */
	if (tag == 0xa3 && vn == 1 && v[0] == '*')
		return put_octets(p, end, 0x87, s, an);
	if (tag == 0xa3 && memchr(v, '*', vn) != NULL)
		return put_substrings(p, end, s, an, v, vn);
	uint8_t *q = put_octets(p + HDR, end, 0x04, s, an);
	q = q != NULL ? put_value(q, end, 0x04, v, vn) : NULL;
	return q != NULL ? close_elem(p, q, tag) : NULL;
}

/* The filter at *s (up to e), its closing parenthesis consumed. */
static uint8_t *put_filter(uint8_t *p, const uint8_t *end, const char **s, const char *e, int depth)
{
	const char *c = *s;
	if (depth > 16 || c >= e || *c != '(' || end - p < HDR)
		return NULL;
	c++;
	if (c < e && (*c == '&' || *c == '|' || *c == '!')) {
		uint8_t tag = *c == '&' ? 0xa0 : *c == '|' ? 0xa1 : 0xa2;
		uint8_t *q = p + HDR;
		int kids = 0;
		c++;
		while (q != NULL && c < e && *c == '(') {
			q = put_filter(q, end, &c, e, depth + 1);
			kids++;
		}
		if (q == NULL || c >= e || *c != ')' || (tag == 0xa2 && kids != 1))
			return NULL;
		*s = c + 1;
		return close_elem(p, q, tag);
	}
	const char *close = memchr(c, ')', (size_t)(e - c));
	if (close == NULL)
		return NULL;
	*s = close + 1;
	return put_item(p, end, c, (size_t)(close - c));
}

size_t ldb_flow_put_search(uint8_t *dst, size_t cap, int32_t msgid, const char *base, size_t blen, int scope,
                           int sizelimit, const char *filter, size_t flen, char *const *attrs, int nattrs)
{
	if (cap < LDB_WIRE_ENVELOPE_MAX + 64)
		return 0;
	uint8_t *op = dst + LDB_WIRE_ENVELOPE_MAX, *end = dst + cap;
	uint8_t *q = put_octets(op + HDR, end, 0x04, base, blen);
	if (q == NULL || end - q < 32)
		return 0;
	const uint8_t fixed[] = { 0x0a, 1, (uint8_t)scope, 0x0a, 1, 0 };
	memcpy(q, fixed, sizeof fixed);
	q = ldb_der_put_int(q + sizeof fixed, sizelimit);
	const uint8_t more[] = { 0x02, 1, 0, 0x01, 1, 0 }; /* no time limit, not types only */
	memcpy(q, more, sizeof more);
	q += sizeof more;
	const char *f = filter;
	q = put_filter(q, end, &f, filter + flen, 0);
	if (q == NULL || f != filter + flen || end - q < HDR)
		return 0;
	uint8_t *seq = q, *r = seq + HDR;
	for (int i = 0; i < nattrs && r != NULL; i++)
		r = put_octets(r, end, 0x04, attrs[i], strlen(attrs[i]));
	if (nattrs == 0)
		r = put_octets(r, end, 0x04, "1.1", 3);
	if (r == NULL)
		return 0;
	q = close_elem(op, close_elem(seq, r, 0x30), 0x63);
	return ldb_wire_frame(dst, cap, msgid, op, (size_t)(q - op));
}
