/* Per-thread pseudo-random generator (xoshiro256**), seeded with splitmix64.
 * One per worker; never shared, never locked. */
#ifndef LDBENCH_VALUES_RNG_H
#define LDBENCH_VALUES_RNG_H

#include <stdint.h>

struct ldb_rng {
	uint64_t s[4];
};

/** Seed from a run seed and a stream number (the thread index): distinct
 *  streams for distinct numbers, the same sequence for the same pair. */
void ldb_rng_seed(struct ldb_rng *r, uint64_t seed, uint64_t stream);
uint64_t ldb_rng_next(struct ldb_rng *r);
/** Uniform integer in [lo, hi] (inclusive), without modulo bias. */
int64_t ldb_rng_range(struct ldb_rng *r, int64_t lo, int64_t hi);
/** Uniform double in [0, 1). */
double ldb_rng_double(struct ldb_rng *r);
/** A seed for a run without --seed: from the clock, the pid and getrandom(). */
uint64_t ldb_rng_fresh_seed(void);

#endif
