/* Base64: see base64.h. */
#include "util/base64.h"

#include <stdbool.h>

static const char b64_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t ldb_base64_encode(const void *in, size_t n, char *out)
{
	const unsigned char *p = in;
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t x = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? (uint32_t)p[i + 2] : 0);
		out[o++] = b64_tab[x >> 18];
		out[o++] = b64_tab[(x >> 12) & 63];
		out[o++] = i + 1 < n ? b64_tab[(x >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? b64_tab[x & 63] : '=';
	}
	return o;
}

static int b64_digit(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

long ldb_base64_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	size_t len = 0;
	if (n % 4 != 0)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int d[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			bool last = i + 4 == n;
			if (s[i + k] == '=' && last && k >= 2 && (k == 3 || s[i + 3] == '=')) {
				d[k] = 0;
				pad++;
			} else if ((d[k] = b64_digit((unsigned char)s[i + k])) < 0 || pad > 0) {
				return -1;
			}
		}
		uint32_t v = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 | (uint32_t)d[3];
		size_t got = (size_t)(3 - pad);
		if (len + got > cap)
			return -1;
		for (size_t k = 0; out != NULL && k < got; k++)
			out[len + k] = (uint8_t)(v >> (16 - 8 * k));
		len += got;
	}
	return (long)len;
}
