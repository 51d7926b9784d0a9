/* Unit tests for the log-linear latency histogram (src/run/histogram.c). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/histogram.h"

#define US 1000ULL
#define MS 1000000ULL

/* A local generator (splitmix64) keeps these tests independent of rng.c. */
static uint64_t next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Log-uniform-ish value in [1, LDB_HIST_HIGHEST]: a random bit length,
 * then random bits below the leading one. */
static uint64_t rand_value(uint64_t *x)
{
	uint64_t r = next_rand(x);
	unsigned k = (unsigned)(r % 42); /* 2^41 < 1 h < 2^42 */
	uint64_t v = (1ULL << k) | (next_rand(x) & ((1ULL << k) - 1));

	return v > LDB_HIST_HIGHEST ? LDB_HIST_HIGHEST : v;
}

static int setup(void **state)
{
	struct ldb_hist *h = calloc(4, sizeof(*h));

	if (h == NULL)
		return -1;
	for (int i = 0; i < 4; i++)
		if (ldb_hist_init(&h[i]) != 0)
			return -1;
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct ldb_hist *h = *state;

	for (int i = 0; i < 4; i++)
		ldb_hist_free(&h[i]);
	free(h);
	return 0;
}

static void assert_hist_equal(const struct ldb_hist *a, const struct ldb_hist *b)
{
	assert_int_equal(a->counts_len, b->counts_len);
	assert_int_equal(a->total, b->total);
	assert_int_equal(a->sum, b->sum);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_memory_equal(a->counts, b->counts, a->counts_len * sizeof(*a->counts));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- layout ---- */

static void test_layout_constants(void **state)
{
	struct ldb_hist *h = *state;
	uint32_t last = ldb_hist_index(LDB_HIST_HIGHEST);

	assert_int_equal(h->counts_len, last + 1);
	/* 32 buckets: 2048 slots for the first, 1024 for each later one; 1 h
	 * falls in bucket 31 at sub-bucket 3.6e12 >> 31 = 1676. */
	assert_int_equal(last, 31 * 1024 + 1676);
	assert_int_equal(ldb_hist_index(LDB_HIST_HIGHEST + 1), last);
	assert_int_equal(ldb_hist_index(UINT64_MAX), last);
	assert_int_equal(ldb_hist_index(0), 0);
	assert_int_equal(ldb_hist_slot_low(0), 0);
	assert_int_equal(ldb_hist_slot_high(0), 0);
	assert_true(ldb_hist_slot_low(last) <= LDB_HIST_HIGHEST);
	assert_true(ldb_hist_slot_high(last) >= LDB_HIST_HIGHEST);
	/* Below 2048 every value has its own slot. */
	for (uint64_t v = 0; v < 2048; v++) {
		assert_int_equal(ldb_hist_index(v), v);
		assert_int_equal(ldb_hist_slot_low((uint32_t)v), v);
		assert_int_equal(ldb_hist_slot_high((uint32_t)v), v);
	}
	/* Then pairs, then fours. */
	assert_int_equal(ldb_hist_index(2048), 2048);
	assert_int_equal(ldb_hist_index(2049), 2048);
	assert_int_equal(ldb_hist_index(2050), 2049);
	assert_int_equal(ldb_hist_slot_high(2048), 2049);
	assert_int_equal(ldb_hist_index(4096), 3072);
	assert_int_equal(ldb_hist_index(4099), 3072);
	assert_int_equal(ldb_hist_index(4100), 3073);
}

/* Every slot, exhaustively: contiguous, round-tripping, and no wider than
 * 1/1024 of its lowest value. */
static void test_every_slot(void **state)
{
	struct ldb_hist *h = *state;

	for (uint32_t i = 0; i < h->counts_len; i++) {
		uint64_t lo = ldb_hist_slot_low(i), hi = ldb_hist_slot_high(i);

		assert_true(lo <= hi);
		assert_int_equal(ldb_hist_index(lo), i);
		if (hi <= LDB_HIST_HIGHEST)
			assert_int_equal(ldb_hist_index(hi), i);
		if (i > 0) {
			assert_int_equal(ldb_hist_slot_high(i - 1) + 1, lo);
			assert_int_equal(ldb_hist_index(lo - 1), i - 1);
		}
		if (lo > 0)
			assert_true((hi - lo) * 1024 < lo);
		else
			assert_int_equal(hi, 0);
	}
}

/* Bucket edges: 2^k - 1, 2^k, 2^k + 1 for every k up to 1 h, and random
 * values: each inside its slot, the slot within 1/1024 of the value. */
static void test_precision_bound(void **state)
{
	uint64_t x = 1;

	(void)state;
	for (unsigned k = 0; k < 42; k++) {
		for (int d = -1; d <= 1; d++) {
			uint64_t v = (1ULL << k) + (uint64_t)(int64_t)d;
			uint32_t i;

			if (v == 0 || v > LDB_HIST_HIGHEST)
				continue;
			i = ldb_hist_index(v);
			assert_true(ldb_hist_slot_low(i) <= v && v <= ldb_hist_slot_high(i));
			assert_true((ldb_hist_slot_high(i) - ldb_hist_slot_low(i)) * 1024 <= v);
		}
	}
	for (int n = 0; n < 1000000; n++) {
		uint64_t v = rand_value(&x);
		uint32_t i = ldb_hist_index(v);
		uint64_t lo = ldb_hist_slot_low(i), hi = ldb_hist_slot_high(i);

		assert_true(lo <= v && v <= hi);
		/* Any value reported for this slot is within v/1024 of v. */
		assert_true((hi - lo) * 1024 <= v);
	}
}

/* ---- statistics ---- */

static void test_empty(void **state)
{
	struct ldb_hist *h = *state;

	assert_int_equal(ldb_hist_count(h), 0);
	assert_int_equal(h->min, UINT64_MAX);
	assert_int_equal(h->max, 0);
	assert_int_equal(ldb_hist_percentile(h, 0.0), 0);
	assert_int_equal(ldb_hist_percentile(h, 50.0), 0);
	assert_int_equal(ldb_hist_percentile(h, 100.0), 0);
	assert_true(ldb_hist_mean(h) == 0.0);
}

static void test_single_value(void **state)
{
	struct ldb_hist *h = *state;
	const double pcts[] = { 0.0, 1.0, 50.0, 99.0, 99.999, 100.0 };

	ldb_hist_record(h, 123456789); /* a slot 65536 ns wide */
	assert_int_equal(ldb_hist_count(h), 1);
	assert_true(ldb_hist_mean(h) == 123456789.0);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		assert_int_equal(ldb_hist_percentile(h, pcts[i]), 123456789);
}

/* 1, 2, ..., 100000 µs. */
static void test_uniform_percentiles(void **state)
{
	struct ldb_hist *h = *state;

	for (uint64_t i = 1; i <= 100000; i++)
		ldb_hist_record(h, i * US);
	assert_int_equal(ldb_hist_count(h), 100000);
	assert_int_equal(h->min, 1 * US);
	assert_int_equal(h->max, 100000 * US);
	assert_true(ldb_hist_mean(h) == 50000.5 * US);

	/* Within 0.1% of the exact order statistics... */
	assert_true(llabs((long long)ldb_hist_percentile(h, 50.0) - (long long)(50000 * US)) <= 50 * (long long)US);
	assert_true(llabs((long long)ldb_hist_percentile(h, 99.0) - (long long)(99000 * US)) <= 99 * (long long)US);
	assert_true(llabs((long long)ldb_hist_percentile(h, 99.9) - (long long)(99900 * US)) <= 100 * (long long)US);
	/* ...and exactly the top of the slot holding the order statistic. */
	assert_int_equal(ldb_hist_percentile(h, 50.0), ldb_hist_slot_high(ldb_hist_index(50000 * US)));
	assert_int_equal(ldb_hist_percentile(h, 99.0), ldb_hist_slot_high(ldb_hist_index(99000 * US)));
	assert_int_equal(ldb_hist_percentile(h, 99.9), ldb_hist_slot_high(ldb_hist_index(99900 * US)));
	assert_true(ldb_hist_percentile(h, 50.0) >= 50000 * US);
	assert_int_equal(ldb_hist_percentile(h, 100.0), 100000 * US);
	assert_int_equal(ldb_hist_percentile(h, 150.0), 100000 * US);
	assert_int_equal(ldb_hist_percentile(h, 0.0), 1 * US);
	/* 0.001% of 100000 is the first value: its slot, 1 µs = 1000 ns exact. */
	assert_int_equal(ldb_hist_percentile(h, 0.001), 1 * US);
}

/* 9000 values of 1 ms and 1000 of 100 ms. */
static void test_bimodal_percentiles(void **state)
{
	struct ldb_hist *h = *state;
	uint64_t low_top = ldb_hist_slot_high(ldb_hist_index(1 * MS));

	ldb_hist_record_n(h, 1 * MS, 9000);
	for (int i = 0; i < 1000; i++)
		ldb_hist_record(h, 100 * MS);
	assert_int_equal(ldb_hist_count(h), 10000);
	assert_true(ldb_hist_mean(h) == (9000.0 * MS + 1000.0 * 100 * MS) / 10000.0);
	assert_int_equal(ldb_hist_percentile(h, 0.0), 1 * MS);
	assert_int_equal(ldb_hist_percentile(h, 50.0), low_top);
	assert_int_equal(ldb_hist_percentile(h, 90.0), low_top);   /* rank 9000 */
	assert_int_equal(ldb_hist_percentile(h, 90.01), 100 * MS); /* rank 9001, capped */
	assert_int_equal(ldb_hist_percentile(h, 99.0), 100 * MS);
	assert_int_equal(ldb_hist_percentile(h, 100.0), 100 * MS);
	assert_true(low_top > 1 * MS && low_top - 1 * MS < 1 * MS / 1024);
}

/* Random data against exactly computed order statistics. */
static void test_percentiles_match_sorted(void **state)
{
	enum { N = 10007 };
	static uint64_t v[N];
	const double pcts[] = { 0.01, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0 };
	struct ldb_hist *h = *state;
	uint64_t x = 77;

	for (int i = 0; i < N; i++) {
		v[i] = rand_value(&x);
		ldb_hist_record(h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[N - 1]);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		/* rank = ceil(pct% of N), computed in integers (pct * 100 is whole) */
		uint64_t p100 = (uint64_t)(pcts[i] * 100.0 + 0.5);
		uint64_t rank = (p100 * N + 9999) / 10000;
		uint64_t want = ldb_hist_slot_high(ldb_hist_index(v[rank - 1]));

		if (want > v[N - 1])
			want = v[N - 1];
		assert_int_equal(ldb_hist_percentile(h, pcts[i]), want);
	}
}

/* ceil(pct% of N) despite floating-point error: 99.9 / 100 * 1000 is
 * 999.0000000000001 in doubles, yet the 99.9th percentile of 1..1000 is 999. */
static void test_percentile_rank_rounding(void **state)
{
	struct ldb_hist *h = *state;

	for (uint64_t i = 1; i <= 1000; i++)
		ldb_hist_record(h, i);
	assert_int_equal(ldb_hist_percentile(h, 99.9), 999);
	assert_int_equal(ldb_hist_percentile(h, 99.91), 1000);
	assert_int_equal(ldb_hist_percentile(h, 0.1), 1);
	assert_int_equal(ldb_hist_percentile(h, 0.11), 2);
	assert_int_equal(ldb_hist_percentile(h, 57.0), 570);
	assert_int_equal(ldb_hist_percentile(h, 33.3), 333);
}

static void test_mean_and_record_n(void **state)
{
	struct ldb_hist *h = *state, *g = &h[1];

	for (uint64_t i = 1; i <= 1000; i++)
		ldb_hist_record(h, i);
	assert_true(ldb_hist_mean(h) == 500.5);
	assert_int_equal(h->sum, 500500);

	for (int i = 0; i < 7; i++)
		ldb_hist_record(&h[2], 987654321);
	ldb_hist_record_n(g, 987654321, 7);
	ldb_hist_record_n(g, 5, 0); /* no-op */
	assert_hist_equal(g, &h[2]);
}

static void test_clamp(void **state)
{
	struct ldb_hist *h = *state;
	uint32_t last = h->counts_len - 1;

	ldb_hist_record(h, 2 * LDB_HIST_HIGHEST);
	ldb_hist_record(h, UINT64_MAX);
	ldb_hist_record(h, LDB_HIST_HIGHEST);
	assert_int_equal(ldb_hist_count(h), 3);
	assert_int_equal(h->counts[last], 3);
	assert_int_equal(h->max, LDB_HIST_HIGHEST);
	assert_int_equal(h->min, LDB_HIST_HIGHEST);
	assert_int_equal(h->sum, 3 * LDB_HIST_HIGHEST);
	assert_int_equal(ldb_hist_percentile(h, 100.0), LDB_HIST_HIGHEST);
	assert_int_equal(ldb_hist_percentile(h, 50.0), LDB_HIST_HIGHEST);
}

static void test_reset(void **state)
{
	struct ldb_hist *h = *state;

	ldb_hist_record(h, 42);
	ldb_hist_record(h, 4242424242);
	ldb_hist_reset(h);
	assert_hist_equal(h, &h[1]); /* h[1] untouched: empty */
	assert_int_equal(ldb_hist_count(h), 0);
	assert_int_equal(h->min, UINT64_MAX);
}

/* ---- merge and difference ---- */

static void test_add(void **state)
{
	struct ldb_hist *h = *state;
	struct ldb_hist *a = &h[0], *b = &h[1], *both = &h[2], *sum = &h[3];
	uint64_t x = 5;

	for (int i = 0; i < 50000; i++) {
		uint64_t v = rand_value(&x);

		ldb_hist_record(a, v);
		ldb_hist_record(both, v);
	}
	for (int i = 0; i < 30000; i++) {
		uint64_t v = rand_value(&x) / 7 + 3;

		ldb_hist_record(b, v);
		ldb_hist_record(both, v);
	}
	ldb_hist_add(sum, a);
	ldb_hist_add(sum, b);
	assert_hist_equal(sum, both);
	assert_int_equal(ldb_hist_count(sum), 80000);

	/* Adding an empty histogram changes nothing. */
	ldb_hist_reset(a);
	ldb_hist_add(sum, a);
	assert_hist_equal(sum, both);
	/* Adding into an empty one copies. */
	ldb_hist_add(a, both);
	assert_hist_equal(a, both);
}

static void test_sub(void **state)
{
	struct ldb_hist *h = *state;
	struct ldb_hist *live = &h[0], *snap = &h[1], *between = &h[2], *diff = &h[3];
	uint64_t x = 9, lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < 20000; i++)
		ldb_hist_record(live, rand_value(&x));
	ldb_hist_add(snap, live); /* earlier snapshot */
	for (int i = 0; i < 15000; i++) {
		uint64_t v = 1000 + rand_value(&x) % 5000000;

		ldb_hist_record(live, v);
		ldb_hist_record(between, v);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	ldb_hist_sub(diff, live, snap);
	assert_int_equal(diff->total, 15000);
	assert_int_equal(diff->sum, between->sum);
	assert_memory_equal(diff->counts, between->counts, diff->counts_len * sizeof(*diff->counts));
	/* min/max come from the counts: bounds in the right slots. */
	assert_true(diff->min <= lo && ldb_hist_index(diff->min) == ldb_hist_index(lo));
	assert_true(diff->max >= hi && ldb_hist_index(diff->max) == ldb_hist_index(hi));
	assert_int_equal(ldb_hist_percentile(diff, 100.0), diff->max);

	/* Nothing recorded in between: an empty difference. */
	ldb_hist_sub(diff, live, live);
	assert_int_equal(ldb_hist_count(diff), 0);
	assert_int_equal(diff->sum, 0);
	assert_int_equal(diff->min, UINT64_MAX);
	assert_int_equal(diff->max, 0);
	assert_int_equal(ldb_hist_percentile(diff, 50.0), 0);
}

/* When a's extremes fall in the difference's end slots, they are exact;
 * dst may be a. */
static void test_sub_exact_max_in_place(void **state)
{
	struct ldb_hist *h = *state;
	struct ldb_hist *live = &h[0], *snap = &h[1];

	ldb_hist_record(live, 10 * MS);
	ldb_hist_add(snap, live);
	ldb_hist_record(live, 123456789);
	ldb_hist_record(live, 5 * MS);
	ldb_hist_sub(live, live, snap);
	assert_int_equal(ldb_hist_count(live), 2);
	assert_int_equal(live->sum, 123456789 + 5 * MS);
	assert_int_equal(live->max, 123456789);
	/* a's own minimum lies in the difference's first slot: a lower bound
	 * of everything there, here the exact value. */
	assert_int_equal(live->min, 5 * MS);
	assert_int_equal(live->counts[ldb_hist_index(10 * MS)], 0);
	assert_int_equal(ldb_hist_percentile(live, 100.0), 123456789);
}

/* A reader of a live histogram can see a count before the min/max stores
 * that go with it.  Simulate that state by hand: snapshots and the text
 * form must still bound the values by the slots that hold them. */
static void test_stale_bounds_repaired(void **state)
{
	struct ldb_hist *h = *state;
	struct ldb_hist *live = &h[0], *snap = &h[1], *decoded = &h[2], *diff = &h[3];
	uint32_t i7 = ldb_hist_index(7 * MS), i9 = ldb_hist_index(9 * MS);
	char buf[128];

	ldb_hist_record(live, 7 * MS);
	live->counts[i9]++; /* 9 ms counted, max and sum not yet */
	live->total++;
	ldb_hist_add(snap, live);
	assert_int_equal(ldb_hist_count(snap), 2);
	assert_int_equal(snap->min, 7 * MS);
	assert_int_equal(ldb_hist_index(snap->max), i9);
	assert_int_equal(snap->sum, 7 * MS + ldb_hist_slot_low(i9));
	assert_int_equal(ldb_hist_percentile(snap, 100.0), snap->max);
	ldb_hist_encode(live, buf, sizeof(buf));
	assert_int_equal(ldb_hist_decode(decoded, buf), 0);
	assert_int_equal(ldb_hist_index(decoded->max), i9);
	ldb_hist_sub(diff, live, &h[3]); /* minus an empty histogram */
	assert_int_equal(ldb_hist_index(diff->max), i9);
	assert_int_equal(diff->min, 7 * MS);

	/* The other way: min still empty (UINT64_MAX), max stale at 0. */
	ldb_hist_reset(live);
	ldb_hist_reset(snap);
	live->counts[i7] = 3;
	live->total = 3;
	live->sum = 1; /* a stale sum far too small */
	ldb_hist_add(snap, live);
	assert_int_equal(ldb_hist_index(snap->min), i7);
	assert_int_equal(ldb_hist_index(snap->max), i7);
	assert_true(snap->min <= snap->max);
	assert_int_equal(snap->sum, 3 * ldb_hist_slot_low(i7));
	ldb_hist_encode(live, buf, sizeof(buf));
	assert_int_equal(ldb_hist_decode(decoded, buf), 0);
	assert_int_equal(ldb_hist_index(decoded->min), i7);
}

/* ---- text form ---- */

static void test_encode_format(void **state)
{
	struct ldb_hist *h = *state;
	char buf[64];
	size_t n;

	n = ldb_hist_encode(h, buf, sizeof(buf));
	assert_string_equal(buf, "v1;0;0;0;0;");
	assert_int_equal(n, strlen("v1;0;0;0;0;"));

	ldb_hist_record(h, 5);
	ldb_hist_record(h, 5);
	ldb_hist_record(h, 3000); /* slot 1024 + 1500 = 2524 */
	n = ldb_hist_encode(h, buf, sizeof(buf));
	assert_string_equal(buf, "v1;3;3010;5;3000;5:2,2519:1");
	assert_int_equal(n, strlen(buf));

	/* Like snprintf: the needed length, a truncated NUL-terminated text. */
	assert_int_equal(ldb_hist_encode(h, NULL, 0), n);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(ldb_hist_encode(h, buf, 8), n);
	assert_string_equal(buf, "v1;3;30");
	assert_int_equal(buf[8], 'x');
}

static char *encode_alloc(const struct ldb_hist *h)
{
	size_t n = ldb_hist_encode(h, NULL, 0);
	char *s = malloc(n + 1);

	assert_non_null(s);
	assert_int_equal(ldb_hist_encode(h, s, n + 1), n);
	assert_int_equal(strlen(s), n);
	return s;
}

static void test_encode_decode_round_trip(void **state)
{
	struct ldb_hist *h = *state;
	struct ldb_hist *a = &h[0], *b = &h[1], *direct = &h[2], *merged = &h[3];
	struct ldb_hist tmp;
	char *ta, *tb;
	uint64_t x = 3;

	/* Empty round trip. */
	ta = encode_alloc(a);
	assert_int_equal(ldb_hist_decode(merged, ta), 0);
	assert_hist_equal(merged, a);
	free(ta);

	for (int i = 0; i < 100000; i++) {
		uint64_t v = rand_value(&x);

		ldb_hist_record(i % 3 ? a : b, v);
		ldb_hist_record(direct, v);
	}
	ldb_hist_record(b, 0);
	ldb_hist_record(direct, 0);
	ldb_hist_record(a, LDB_HIST_HIGHEST + 1);
	ldb_hist_record(direct, LDB_HIST_HIGHEST + 1);
	ta = encode_alloc(a);
	tb = encode_alloc(b);

	/* Round trip of one. */
	assert_int_equal(ldb_hist_decode(merged, ta), 0);
	assert_hist_equal(merged, a);

	/* Merge of result files: decode each, add, equals recording all. */
	assert_int_equal(ldb_hist_init(&tmp), 0);
	assert_int_equal(ldb_hist_decode(&tmp, tb), 0);
	assert_hist_equal(&tmp, b);
	ldb_hist_add(merged, &tmp);
	assert_hist_equal(merged, direct);

	/* Decoding clears what the target held. */
	assert_int_equal(ldb_hist_decode(merged, tb), 0);
	assert_hist_equal(merged, b);
	ldb_hist_free(&tmp);
	free(ta);
	free(tb);
}

static void test_decode_rejects_garbage(void **state)
{
	struct ldb_hist *h = *state;
	static const char *bad[] = {
		"",
		"v1",
		"v1;",
		"v2;0;0;0;0;",
		"V1;0;0;0;0;",
		"v1;0;0;0;0", /* missing ';' */
		"v1;0;0;0;0;;",
		"v1;1;5;5;5;",         /* total without pairs */
		"v1;1;5;5;5;5:2",      /* counts sum to 2 */
		"v1;2;10;5;5;5:2,",    /* trailing comma */
		"v1;2;10;5;5;5:1,0:1", /* delta 0 */
		"v1;1;5;5;5;5:0,1:1",  /* zero count */
		"v1;1;5;5;5;5",        /* pair without count */
		"v1;1;5;5;5;5:",
		"v1;1;5;5;5;:1",
		"v1;1;5;5;5;5:1;",
		"v1;1;5;5;5;5:1 ",
		"v1;1;5;5;5; 5:1",
		"v1;1;5;5;5;-5:1",
		"v1;1;5;5;5;+5:1",
		"v1;1;5;5;5;0x5:1",
		"v1;1;5;5;5;5:1,",
		"v1;-1;5;5;5;5:1",
		"v1;1;5;6;5;5:1",      /* min above max */
		"v1;1;5;4;5;5:1",      /* min outside its slot */
		"v1;1;5;5;6;5:1",      /* max outside its slot */
		"v1;2;10;4;5;4:1,1:1", /* valid but for the sum */
		"v1;2;8;4;5;4:1,1:1",
		"v1;2;2000000;1000000;1000000;1000000:2", /* no such slot index */
		"v1;1;5;5;5;99999:1",                     /* index past the end */
		"v1;1;5;5;5;5:99999999999999999999",      /* overflow */
		"v1;18446744073709551616;0;0;0;",         /* overflow */
		"v1;0;1;0;0;",                            /* empty but a sum */
		"v1;0;0;0;7;",                            /* empty but a max */
		"garbage",
		NULL,
	};

	/* A hand-written valid text first: slots 3 and 5. */
	assert_int_equal(ldb_hist_decode(h, "v1;2;8;3;5;3:1,2:1"), 0);
	assert_int_equal(ldb_hist_count(h), 2);
	assert_int_equal(h->counts[3], 1);
	assert_int_equal(h->counts[5], 1);
	assert_int_equal(ldb_hist_percentile(h, 100.0), 5);
	/* Slot 2524 holds 3000 and 3001: sums 6000..6002 are possible. */
	assert_int_equal(ldb_hist_decode(h, "v1;2;6001;3000;3001;2524:2"), 0);
	assert_int_equal(ldb_hist_decode(h, "v1;2;6003;3000;3001;2524:2"), EINVAL);
	assert_int_equal(ldb_hist_decode(h, "v1;2;5999;3000;3001;2524:2"), EINVAL);
	/* Both 3000: the sum is at most 6001 (one value is the max). */
	assert_int_equal(ldb_hist_decode(h, "v1;2;6001;3000;3000;2524:2"), 0);
	assert_int_equal(ldb_hist_decode(h, "v1;2;6002;3000;3000;2524:2"), EINVAL);
	/* Both 3001: at least 6001. */
	assert_int_equal(ldb_hist_decode(h, "v1;2;6000;3001;3001;2524:2"), EINVAL);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc;

		ldb_hist_record(h, 777); /* must be gone afterwards */
		rc = ldb_hist_decode(h, bad[i]);
		if (rc != EINVAL)
			fail_msg("accepted \"%s\"", bad[i] != NULL ? bad[i] : "(null)");
		assert_int_equal(ldb_hist_count(h), 0);
		assert_int_equal(h->counts[777], 0);
		assert_int_equal(h->min, UINT64_MAX);
	}
}

/* ---- one writer, one concurrent reader ---- */

enum { WRITES = 1000000 };

struct race {
	struct ldb_hist live;
	struct ldb_hist reference; /* the same values, recorded after join */
	uint64_t seed;
	uint64_t sum;    /* computed by the writer */
	int ready, done; /* accessed atomically */
	unsigned long reads, partial_reads;
	int failed;
};

static void *writer_main(void *arg)
{
	struct race *r = arg;
	uint64_t x = r->seed, sum = 0;

	while (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < WRITES; i++) {
		uint64_t v = rand_value(&x) % (10 * MS) + 1;

		ldb_hist_record(&r->live, v);
		sum += v;
	}
	r->sum = sum;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader_main(void *arg)
{
	struct race *r = arg;
	struct ldb_hist scratch, earlier, diff, decoded;
	uint64_t prev = 0;

	if (ldb_hist_init(&scratch) || ldb_hist_init(&earlier) || ldb_hist_init(&diff) || ldb_hist_init(&decoded)) {
		r->failed = 1;
		__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		uint64_t n;

		ldb_hist_reset(&scratch);
		ldb_hist_add(&scratch, &r->live);
		n = ldb_hist_count(&scratch);
		/* Counts only grow, and never beyond what is written. */
		if (n < prev || n > WRITES)
			r->failed = 2;
		if (n > 0 && n < WRITES)
			r->partial_reads++;
		/* A max not yet stored is bounded by its slot: the top of the
		 * slot of 10 ms at most. */
		if (n > 0 && (scratch.min > scratch.max || scratch.min < 1 ||
		              scratch.max > ldb_hist_slot_high(ldb_hist_index(10 * MS)) ||
		              ldb_hist_percentile(&scratch, 100.0) != scratch.max))
			r->failed = 3;
		(void)ldb_hist_percentile(&r->live, 99.0);
		(void)ldb_hist_mean(&r->live);
		if (r->reads % 16 == 0) {
			/* Interval difference and the text form of a live histogram. */
			size_t len = 0, cap = 0;
			char *text = NULL;

			ldb_hist_sub(&diff, &scratch, &earlier);
			if (ldb_hist_count(&diff) != n - ldb_hist_count(&earlier))
				r->failed = 4;
			ldb_hist_reset(&earlier);
			ldb_hist_add(&earlier, &scratch);
			/* The writer may add slots between two calls: retry. */
			do {
				char *t;

				cap = len + 1024;
				t = realloc(text, cap);
				if (t == NULL)
					break;
				text = t;
				len = ldb_hist_encode(&r->live, text, cap);
			} while (len >= cap);
			if (text != NULL && len < cap && ldb_hist_decode(&decoded, text) != 0)
				r->failed = 5;
			free(text);
		}
		prev = n;
		r->reads++;
	}
	ldb_hist_free(&scratch);
	ldb_hist_free(&earlier);
	ldb_hist_free(&diff);
	ldb_hist_free(&decoded);
	return NULL;
}

static void test_concurrent_reader(void **state)
{
	struct race *r = calloc(1, sizeof(*r));
	struct ldb_hist *h = *state;
	pthread_t w, rd;
	uint64_t x;

	assert_non_null(r);
	assert_int_equal(ldb_hist_init(&r->live), 0);
	assert_int_equal(ldb_hist_init(&r->reference), 0);
	r->seed = 2718;
	assert_int_equal(pthread_create(&rd, NULL, reader_main, r), 0);
	assert_int_equal(pthread_create(&w, NULL, writer_main, r), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(pthread_join(rd, NULL), 0);
	print_message("reader: %lu snapshots, %lu taken mid-run\n", r->reads, r->partial_reads);
	assert_int_equal(r->failed, 0);

	/* After the join, a snapshot is exact. */
	x = r->seed;
	for (int i = 0; i < WRITES; i++)
		ldb_hist_record(&r->reference, rand_value(&x) % (10 * MS) + 1);
	ldb_hist_add(&h[0], &r->live);
	assert_int_equal(ldb_hist_count(&h[0]), WRITES);
	assert_int_equal(h[0].sum, r->sum);
	assert_hist_equal(&h[0], &r->reference);
	assert_hist_equal(&r->live, &r->reference);

	ldb_hist_free(&r->live);
	ldb_hist_free(&r->reference);
	free(r);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_layout_constants),
		T(test_every_slot),
		T(test_precision_bound),
		T(test_empty),
		T(test_single_value),
		T(test_uniform_percentiles),
		T(test_bimodal_percentiles),
		T(test_percentiles_match_sorted),
		T(test_percentile_rank_rounding),
		T(test_mean_and_record_n),
		T(test_clamp),
		T(test_reset),
		T(test_add),
		T(test_sub),
		T(test_sub_exact_max_in_place),
		T(test_stale_bounds_repaired),
		T(test_encode_format),
		T(test_encode_decode_round_trip),
		T(test_decode_rejects_garbage),
		T(test_concurrent_reader),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
