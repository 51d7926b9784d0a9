/* Per-thread pseudo-random generator: xoshiro256** (Blackman and Vigna),
 * its 256-bit state filled by splitmix64 (see rng.h). */
#include "values/rng.h"

#include <errno.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define GOLDEN_GAMMA 0x9e3779b97f4a7c15ULL

__extension__ typedef unsigned __int128 u128;

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* splitmix64's output function: a bijection of 64-bit words with good
 * avalanche, so distinct inputs always give distinct outputs. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t splitmix64_next(uint64_t *x)
{
	*x += GOLDEN_GAMMA;
	return mix64(*x);
}

void ldb_rng_seed(struct ldb_rng *r, uint64_t seed, uint64_t stream)
{
	/* For a fixed seed, distinct streams give distinct splitmix starting
	 * points (mix64 is a bijection), hence distinct first state words.
	 * The state cannot be all zero: four consecutive splitmix outputs are
	 * images of four distinct inputs under a bijection. */
	uint64_t x = seed ^ mix64(stream + GOLDEN_GAMMA);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64_next(&x);
}

uint64_t ldb_rng_next(struct ldb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

int64_t ldb_rng_range(struct ldb_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span, n, x, low;
	u128 m;

	if (hi < lo) { /* reversed bounds: the same interval */
		int64_t t = lo;
		lo = hi;
		hi = t;
	}
	span = (uint64_t)hi - (uint64_t)lo; /* modulo 2^64: never overflows */
	if (span == UINT64_MAX)
		return (int64_t)((uint64_t)lo + ldb_rng_next(r));
	n = span + 1;
	/* Lemire's multiply-and-reject: the high word of x * n is uniform over
	 * [0, n) once the (2^64 mod n) low words that would bias it are
	 * rejected.  The division only runs on the rare near-rejection path. */
	x = ldb_rng_next(r);
	m = (u128)x * n;
	low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = (0 - n) % n; /* 2^64 mod n */

		while (low < threshold) {
			x = ldb_rng_next(r);
			m = (u128)x * n;
			low = (uint64_t)m;
		}
	}
	return (int64_t)((uint64_t)lo + (uint64_t)(m >> 64));
}

double ldb_rng_double(struct ldb_rng *r)
{
	/* The top 53 bits, scaled by 2^-53: every double in [0, 1) that is a
	 * multiple of 2^-53, each equally likely. */
	return (double)(ldb_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t ldb_rng_fresh_seed(void)
{
	static uint64_t calls;
	uint64_t entropy = 0, n;
	struct timespec ts = { 0, 0 };
	ssize_t got;

	do {
		got = getrandom(&entropy, sizeof(entropy), GRND_NONBLOCK);
	} while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof(entropy))
		return entropy;
	/* No kernel entropy (old kernel, seccomp filter, early boot): the
	 * clock, the pid and a per-process call counter, so that two calls
	 * never return the same seed even within one clock tick. */
	clock_gettime(CLOCK_REALTIME, &ts);
	n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return mix64((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       mix64(((uint64_t)getpid() << 32) ^ (n * GOLDEN_GAMMA));
}
