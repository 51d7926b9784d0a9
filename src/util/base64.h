/* Base64 (RFC 4648: the standard alphabet, '=' padding, no white space),
 * one encoder and one strict decoder for every caller: LDIF's "attr::"
 * lines, SASL exchanges, --control's and --extended's ::BASE64 values. */
#ifndef LDBENCH_UTIL_BASE64_H
#define LDBENCH_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

/** Bytes of the base64 form of n bytes (with padding). */
static inline size_t ldb_base64_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

/** The base64 form of in[0..n) at out (ldb_base64_len(n) bytes, no NUL).
 *  @return the bytes written. */
size_t ldb_base64_encode(const void *in, size_t n, char *out);

/** Decode s[0..n): whole groups of four, padding only in the last.  out may
 *  be NULL (the length only).  @return the bytes decoded, or -1 when s is not
 *  base64 or they are more than cap. */
long ldb_base64_decode(const char *s, size_t n, uint8_t *out, size_t cap);

#endif
