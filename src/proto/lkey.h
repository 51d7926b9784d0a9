/* The listeners' keys (run/listen.h): an entry's DN and a change's value
 * hashed as the listeners' notifications (run/listen_source.c), the matcher's
 * rebuilt writes (run/listen_match.c), another host's recorded writes
 * (cmd/listen_join.c) and a flow's write steps (ops/flow.c) have them. */
#ifndef LDBENCH_PROTO_LKEY_H
#define LDBENCH_PROTO_LKEY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What a write or a notification is about: the entry there (an add), a
 * modify's value, the entry gone (a delete). */
enum { LK_THERE = 0, LK_VALUE, LK_GONE };

/* A word loaded from memory as a little-endian host would see it. */
static inline uint64_t ldb_lk_le(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

/* n < 8 bytes as a little-endian word (zeroes above): 4, 2 and 1 bytes as
 * n has them, loads and no loop where the host is little-endian. */
static inline uint64_t ldb_lk_short(const uint8_t *p, size_t n)
{
	uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t k = 0;
	if (n & 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		w = x;
		k = 4;
	}
	if (n & 2) {
		uint16_t x;
		memcpy(&x, p + k, 2);
		w |= (uint64_t)x << (8 * k);
		k += 2;
	}
	if (n & 1)
		w |= (uint64_t)p[k] << (8 * k);
#else
	for (size_t k = 0; k < n; k++)
		w |= (uint64_t)p[k] << (8 * k);
#endif
	return w;
}

/* A hash of n bytes, eight at a time, each byte with its 0x20 bit set
 * (ASCII letters in lower case; digits and the DN's punctuation have it):
 * a word-at-a-time multiply and rotate per 8 bytes, from seed h. */
static inline uint64_t ldb_lk_hash(uint64_t h, const uint8_t *p, size_t n)
{
	const uint64_t lower = 0x2020202020202020ULL;
	const size_t all = n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ (w | lower)) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		uint64_t w = 0;
		if (all >= 8) { /* the last 8 bytes (a load, not a call), shifted to the tail's */
			memcpy(&w, p + n - 8, 8);
			w = ldb_lk_le(w) >> (8 * (8 - n));
		} else {
			w = ldb_lk_short(p, n);
		}
		h = (h ^ (w | (lower >> (8 * (8 - n)))) ^ n) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
	}
	return h;
}

/* A DN's key: its bytes as ldb_lk_hash takes them (a DN the load builds
 * has the spaces after its commas left out first: run/listen_match.c). */
static inline uint64_t ldb_lk_dn(const uint8_t *p, size_t n)
{
	return ldb_lk_hash(0xcbf29ce484222325ULL, p, n);
}

/* A change's key: its entry's, what it is (LK_*), and the value it carried. */
static inline uint64_t ldb_lk_key(uint64_t dnkey, int what, const uint8_t *v, size_t n)
{
	uint64_t h = ldb_lk_hash(dnkey ^ ((uint64_t)(what + 1) * 0xC2B2AE3D27D4EB4FULL), v, n);
	return h ? h : 1;
}

/* A DN as a server sends it: the spaces after its commas left out, into
 * out (cap bytes).  @return its length. */
static inline size_t ldb_lk_dn_plain(char *out, size_t cap, const char *dn, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && dn[i] != '\0' && k < cap; i++)
		if (!(dn[i] == ' ' && k > 0 && out[k - 1] == ','))
			out[k++] = dn[i];
	return k;
}

#endif
