/* ldbench-vpattern-cost: what rendering one value costs, ldclt's XXX against
 * a value pattern of the same shape, in nanoseconds per value.
 *
 *   ldbench-vpattern-cost [RENDERS]      (default 10,000,000 per case)
 *
 * Each case renders RENDERS values into one buffer, drawing from a seeded
 * per-client generator as the hot path does, in five rounds of RENDERS/5, and
 * prints the fastest round's cost per value (the least disturbed by other
 * work on the machine), one line per case: "CASE N ns/value".  The first pairs are the comparison the value patterns
 * promise (a random number into a DN, a sequential one); the other lines are
 * the price of the other kinds.  The numbers depend on the machine and on its
 * load: read them side by side from one run, never across runs.
 * Built on request: cmake --build build --target ldbench-vpattern-cost */
#include "values/pattern.h"
#include "values/rng.h"
#include "values/vpattern.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static char buf[4096];
static volatile uint64_t sink; /* keeps the renders from being optimised away */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ldclt's XXX: a random or an incremented number into the X run. */
static double xxx_round(const char *text, int sequential, long n)
{
	struct ldb_pattern p;
	struct ldb_rng rng;
	uint64_t sum = 0;
	int64_t next = 1;

	if (ldb_pattern_compile(&p, text, true) != 0)
		exit(1);
	ldb_rng_seed(&rng, 1, 0);
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		int64_t v = sequential ? next : ldb_rng_range(&rng, 1, 1000000);

		if (sequential && ++next > 1000000)
			next = 1;
		sum += ldb_pattern_render(&p, v, buf, sizeof(buf));
	}
	double t = (now_ns() - t0) / (double)n;

	sink += sum;
	ldb_pattern_free(&p);
	return t;
}

static double vp_round(const char *text, long n)
{
	struct ldb_vp *p;
	struct ldb_vp_state *st;
	struct ldb_rng rng;
	char err[512];
	uint64_t sum = 0;

	if (ldb_vp_compile(&p, text, err, sizeof(err)) != 0 || ldb_vp_state_new(p, 0, 1, &st, err, sizeof(err)) != 0) {
		fprintf(stderr, "vpattern_cost: %s\n", err);
		exit(1);
	}
	ldb_rng_seed(&rng, 1, 0);
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		sum += ldb_vp_render(p, st, &rng, buf, sizeof(buf));
	double t = (now_ns() - t0) / (double)n;

	sink += sum;
	ldb_vp_state_free(st);
	ldb_vp_free(p);
	return t;
}

/* The fastest of five rounds of n/5 renders. */
static double xxx_cost(const char *text, int sequential, long n)
{
	double best = xxx_round(text, sequential, n / 5);

	for (int r = 1; r < 5; r++) {
		double t = xxx_round(text, sequential, n / 5);

		best = t < best ? t : best;
	}
	return best;
}

static double vp_cost(const char *text, long n)
{
	double best = vp_round(text, n / 5);

	for (int r = 1; r < 5; r++) {
		double t = vp_round(text, n / 5);

		best = t < best ? t : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	static const char *const kinds[] = {
		"uid=user.[zipf:1-1000000:0.99],ou=people,dc=example,dc=com",
		"uid=user.[1-1000000],ou=people,dc=example,dc=com",
		"cn=[random:8:abcdef],ou=people,dc=example,dc=com",
		"entryUUID=[uuid]",
		"[timestamp]",
		"uid=user.[1-1000000],ou=org[ref:1],dc=example,dc=com",
	};

	if (n < 5)
		n = 10000000;
	printf("renders per case: %ld\n", n);
	printf("XXX random      (uid=userXXXXXXX,...):                 %.1f ns/value\n",
	       xxx_cost("uid=userXXXXXXX,ou=people,dc=example,dc=com", 0, n));
	printf("pattern random  (uid=user[1-1000000%%0000000],...):     %.1f ns/value\n",
	       vp_cost("uid=user[1-1000000%0000000],ou=people,dc=example,dc=com", n));
	printf("XXX incr        (uid=userXXXXXXX,...):                 %.1f ns/value\n",
	       xxx_cost("uid=userXXXXXXX,ou=people,dc=example,dc=com", 1, n));
	printf("pattern seq     (uid=user[1:1000000%%0000000],...):     %.1f ns/value\n",
	       vp_cost("uid=user[1:1000000%0000000],ou=people,dc=example,dc=com", n));
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		printf("%-55s %.1f ns/value\n", kinds[i], vp_cost(kinds[i], n));
	return sink == 0; /* never 0: every render writes bytes */
}
