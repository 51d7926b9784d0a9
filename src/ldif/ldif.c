/* LDIF value lines: see ldif.h. */
#include "ldif/ldif.h"

#include <stdint.h>
#include <string.h>

bool ldb_ldif_safe(const char *v, size_t n)
{
	if (n == 0)
		return true;
	if (v[0] == ' ' || v[0] == ':' || v[0] == '<' || v[n - 1] == ' ')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch == 0 || ch == '\n' || ch == '\r' || ch >= 0x80)
			return false;
	}
	return true;
}

size_t ldb_ldif_put_line(char *dst, const char *type, size_t tlen, const char *v, size_t vlen)
{
	char *p = dst;

	memcpy(p, type, tlen);
	p += tlen;
	*p++ = ':';
	if (ldb_ldif_safe(v, vlen)) {
		*p++ = ' ';
		memcpy(p, v, vlen);
		p += vlen;
	} else {
		*p++ = ':';
		*p++ = ' ';
		p += ldb_base64_encode(v, vlen, p);
	}
	*p++ = '\n';
	return (size_t)(p - dst);
}

int ldb_ldif_fput_line(FILE *f, const char *type, size_t tlen, const char *v, size_t vlen)
{
	char chunk[4 * 256];
	bool safe = ldb_ldif_safe(v, vlen);

	fwrite(type, 1, tlen, f);
	fputs(safe ? ": " : ":: ", f);
	if (safe) {
		fwrite(v, 1, vlen, f);
	} else {
		/* 3 input bytes per 4 output: whole groups per chunk keep the padding at the end */
		for (size_t i = 0; i < vlen; i += 3 * 256) {
			size_t k = vlen - i < 3 * 256 ? vlen - i : 3 * 256;

			fwrite(chunk, 1, ldb_base64_encode(v + i, k, chunk), f);
		}
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}
