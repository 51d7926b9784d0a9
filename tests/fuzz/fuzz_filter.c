/* libFuzzer target: the RFC 4515 filter encoder.
 *
 * The input (cut at the first NUL) is a filter string for ldb_filter_encode.
 * Aborts when it succeeds with no bytes or with a first byte that is not one of
 * the Filter CHOICE tags of RFC 4511, when the encoding's outer length does not
 * cover exactly the bytes written, or when it fails without a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Total size of the BER element at b[0..n) from its tag and length, or 0. */
static size_t ber_size(const uint8_t *b, size_t n)
{
	if (n < 2)
		return 0;
	size_t len = b[1], hdr = 2;
	if (len & 0x80) {
		size_t k = len & 0x7f;
		if (k == 0 || k > 4 || n < 2 + k)
			return 0;
		len = 0;
		for (size_t i = 0; i < k; i++)
			len = len << 8 | b[2 + i];
		hdr += k;
	}
	return hdr + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char *f = malloc(size + 1);
	if (f == NULL)
		return 0;
	memcpy(f, data, size);
	f[size] = '\0';
	struct ldb_bytes out = { 0 };
	char err[LDB_WIRE_ERRLEN];
	err[0] = '\0';
	int rc = ldb_filter_encode(&out, f, err);
	if (rc == 0) {
		if (out.len == 0 || out.data == NULL)
			abort();
		switch (out.data[0]) {
		case 0xa0:
		case 0xa1:
		case 0xa2:
		case 0xa3:
		case 0xa4:
		case 0xa5:
		case 0xa6:
		case 0x87:
		case 0xa8:
		case 0xa9: break;
		default: abort();
		}
		if (ber_size(out.data, out.len) != out.len)
			abort();
	} else if (rc != -1 || err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL) {
		abort();
	}
	ldb_bytes_free(&out);
	free(f);
	return 0;
}
