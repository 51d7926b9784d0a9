/* Internal: the minimal definite (DER) forms of BER lengths and INTEGERs that
 * libldap sends, shared by the hot-path writers (wire.c's ldb_wire_frame and
 * wire_put.c).  No allocation, no bounds checks: callers size first. */
#ifndef LDBENCH_PROTO_DER_H
#define LDBENCH_PROTO_DER_H

#include <stddef.h>
#include <stdint.h>

#define LDB_DER_TAG_INT 0x02

/* Bytes of the minimal definite length form for n (n <= 2^32-1). */
static inline size_t ldb_der_len_size(uint64_t n)
{
	if (n < 0x80)
		return 1;
	if (n <= 0xff)
		return 2;
	if (n <= 0xffff)
		return 3;
	if (n <= 0xffffff)
		return 4;
	return 5;
}

/* Write tag and the minimal definite length of n at p; @return the byte after. */
static inline uint8_t *ldb_der_put_tl(uint8_t *p, uint8_t tag, uint64_t n)
{
	size_t size = ldb_der_len_size(n), i;

	*p++ = tag;
	if (size == 1) {
		*p++ = (uint8_t)n;
		return p;
	}
	*p++ = (uint8_t)(0x80 | (size - 1));
	for (i = size - 1; i > 0; i--)
		*p++ = (uint8_t)(n >> (8 * (i - 1)));
	return p;
}

/* Content bytes of the minimal two's complement INTEGER for v (1 to 4). */
static inline size_t ldb_der_int_size(int32_t v)
{
	uint32_t u = (uint32_t)v;
	size_t n = 4;

	/* drop a leading byte while it only repeats the sign */
	while (n > 1) {
		uint32_t top9 = (u >> (8 * n - 9)) & 0x1ffu;

		if (top9 != 0 && top9 != 0x1ffu)
			break;
		n--;
	}
	return n;
}

/* Write the whole INTEGER TLV for v at p; @return the byte after. */
static inline uint8_t *ldb_der_put_int(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	size_t n = ldb_der_int_size(v), i;

	*p++ = LDB_DER_TAG_INT;
	*p++ = (uint8_t)n;
	for (i = n; i > 0; i--)
		*p++ = (uint8_t)(u >> (8 * (i - 1)));
	return p;
}

/* One TLV at p[0..end): its tag, contents and length; the byte after it, or
 * NULL when it does not fit (definite lengths, at most 4 length bytes).  The
 * readers of what a server sent (response controls, -e deref's values). */
static inline const uint8_t *ldb_der_tlv(const uint8_t *p, const uint8_t *end, uint8_t *tag, const uint8_t **body,
                                         size_t *n)
{
	size_t len, k;

	if (p >= end || end - p < 2)
		return NULL;
	*tag = p[0];
	len = p[1];
	p += 2;
	if (len & 0x80) {
		k = len & 0x7f;
		if (k == 0 || k > 4 || (size_t)(end - p) < k)
			return NULL;
		for (len = 0; k > 0; k--)
			len = (len << 8) | *p++;
	}
	if ((size_t)(end - p) < len)
		return NULL;
	*body = p;
	*n = len;
	return p + len;
}

#endif
