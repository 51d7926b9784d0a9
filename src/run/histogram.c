/* Log-linear latency histogram (see histogram.h).
 *
 * Layout.  A value v lives in power-of-two bucket b = max(0, bitlen(v) - 11),
 * at sub-bucket s = v >> b.  Bucket 0 keeps every s in [0, 2047] at 1 ns
 * resolution; every later bucket keeps only its upper half s in [1024, 2047]
 * (the lower half is covered, at twice the resolution, by the bucket before).
 * Numbering the slots bucket after bucket gives the simple index b * 1024 + s,
 * and a slot of bucket b spans 2^b ns, so its width relative to its lowest
 * value is at most 2^b / (1024 * 2^b) = 1/1024: three significant digits.
 *
 * Threading.  Only the owning thread writes a histogram; each field it
 * changes is read with a relaxed atomic load and written back with a relaxed
 * atomic store (there is a single writer, so no read-modify-write atomic is
 * needed).  Readers use relaxed loads only.  Nothing orders the stores to the
 * different fields, so a reader of a live histogram may see the counts, total,
 * sum, min and max of slightly different moments; ldb_hist_add, ldb_hist_sub
 * and ldb_hist_encode therefore derive the total from the counts they
 * actually read, clamp min/max into the first/last non-empty slot and the sum
 * into the range those counts allow (struct extent below).  That leaves the
 * exact fields of a histogram whose writer has stopped untouched, and makes
 * every encoded text, even of a live histogram, pass ldb_hist_decode's checks.
 *
 * Value 0 has a slot of its own (index 0); the header's "from 1 ns" is the
 * lowest value distinguished from its neighbours, as in HdrHistogram.
 */
#include "run/histogram.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HALF_COUNT (1u << (LDB_HIST_SUB_BITS - 1)) /* 1024 */
#define SUB_MASK ((1ull << LDB_HIST_SUB_BITS) - 1) /* 2047 */

static inline uint64_t ld64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void st64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint32_t index_of(uint64_t v)
{
	/* v | SUB_MASK keeps the bit length >= 11 so that bucket 0 absorbs
	 * everything below 2048 and clzll never sees 0. */
	uint32_t bucket = (uint32_t)(64 - __builtin_clzll(v | SUB_MASK)) - LDB_HIST_SUB_BITS;
	return (bucket << (LDB_HIST_SUB_BITS - 1)) + (uint32_t)(v >> bucket);
}

static inline uint64_t clamp_value(uint64_t v)
{
	return v > LDB_HIST_HIGHEST ? LDB_HIST_HIGHEST : v;
}

static inline uint32_t slots_len(void)
{
	return index_of(LDB_HIST_HIGHEST) + 1;
}

uint32_t ldb_hist_index(uint64_t value_ns)
{
	return index_of(clamp_value(value_ns));
}

static inline uint32_t slot_bucket(uint32_t index)
{
	return index < 2 * HALF_COUNT ? 0 : (index >> (LDB_HIST_SUB_BITS - 1)) - 1;
}

uint64_t ldb_hist_slot_low(uint32_t index)
{
	uint32_t b = slot_bucket(index);

	if (b == 0)
		return index;
	return (uint64_t)((index & (HALF_COUNT - 1)) + HALF_COUNT) << b;
}

uint64_t ldb_hist_slot_high(uint32_t index)
{
	return ldb_hist_slot_low(index) + ((uint64_t)1 << slot_bucket(index)) - 1;
}

int ldb_hist_init(struct ldb_hist *h)
{
	uint32_t n = slots_len();

	h->counts = calloc(n, sizeof(*h->counts));
	if (h->counts == NULL) {
		h->counts_len = 0;
		return ENOMEM;
	}
	h->counts_len = n;
	h->total = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	return 0;
}

void ldb_hist_free(struct ldb_hist *h)
{
	free(h->counts);
	h->counts = NULL;
	h->counts_len = 0;
}

void ldb_hist_reset(struct ldb_hist *h)
{
	/* Relaxed stores rather than memset so that a concurrent reader of
	 * a histogram being reset is a benign race, not undefined behaviour. */
	/* Only slots in use are written: untouched pages of the calloc'ed
	 * counts stay unmapped (10,000 clients x 267 KB would not). */
	for (uint32_t i = 0; i < h->counts_len; i++)
		if (ld64(&h->counts[i]) != 0)
			st64(&h->counts[i], 0);
	st64(&h->total, 0);
	st64(&h->sum, 0);
	st64(&h->min, UINT64_MAX);
	st64(&h->max, 0);
}

void ldb_hist_record_n(struct ldb_hist *h, uint64_t value_ns, uint64_t count)
{
	uint64_t v = clamp_value(value_ns);
	uint64_t *slot = &h->counts[index_of(v)];
	uint64_t lo = ld64(&h->min), hi = ld64(&h->max);

	if (count == 0)
		return;
	st64(slot, ld64(slot) + count);
	st64(&h->sum, ld64(&h->sum) + v * count);
	st64(&h->min, v < lo ? v : lo);
	st64(&h->max, v > hi ? v : hi);
	st64(&h->total, ld64(&h->total) + count);
}

void ldb_hist_record(struct ldb_hist *h, uint64_t value_ns)
{
	uint64_t v = clamp_value(value_ns);
	uint64_t *slot = &h->counts[index_of(v)];
	uint64_t lo = ld64(&h->min), hi = ld64(&h->max);

	st64(slot, ld64(slot) + 1);
	st64(&h->sum, ld64(&h->sum) + v);
	st64(&h->min, v < lo ? v : lo);
	st64(&h->max, v > hi ? v : hi);
	st64(&h->total, ld64(&h->total) + 1);
}

/* What the counts read from a histogram imply: the non-empty slots, the
 * number of values, and the least and greatest sum those values can have. */
__extension__ typedef unsigned __int128 u128;

struct extent {
	uint32_t first, last;
	uint64_t total;
	u128 sum_lo, sum_hi;
};

static inline uint64_t slot_top(uint32_t index)
{
	uint64_t hi = ldb_hist_slot_high(index);

	return hi > LDB_HIST_HIGHEST ? LDB_HIST_HIGHEST : hi;
}

static void extent_init(struct extent *e)
{
	e->first = e->last = 0;
	e->total = 0;
	e->sum_lo = e->sum_hi = 0;
}

/* Account `c` (> 0) values in slot `i`; slots come in rising order. */
static inline void extent_add(struct extent *e, uint32_t i, uint64_t c)
{
	if (e->total == 0)
		e->first = i;
	e->last = i;
	e->total += c;
	e->sum_lo += (u128)c * ldb_hist_slot_low(i);
	e->sum_hi += (u128)c * slot_top(i);
}

/* Bring min, max and sum read from a possibly live histogram into agreement
 * with the counts read (e->total > 0).  min must lie in the first non-empty
 * slot and max in the last; one that was stored before the count we saw is
 * replaced by that slot's far end (a safe bound), one whose count we did
 * not see yet is pulled into the slot.  The sum must lie between the least
 * and the greatest sum the counts allow, given that one value is min and
 * one is max.  Fields of a quiescent histogram come out unchanged. */
static void extent_fit(const struct extent *e, uint64_t *min, uint64_t *max, uint64_t *sum)
{
	uint64_t flo = ldb_hist_slot_low(e->first), ftop = slot_top(e->first);
	uint64_t llo = ldb_hist_slot_low(e->last), ltop = slot_top(e->last);
	u128 lo, hi;

	if (*min > ftop)
		*min = flo;
	else if (*min < flo)
		*min = flo;
	if (*max < llo)
		*max = ltop;
	else if (*max > ltop)
		*max = ltop;
	lo = e->sum_lo + (*min - flo);
	hi = e->sum_hi - (ltop - *max);
	if (lo <= UINT64_MAX) { /* else the true sum has wrapped */
		if (*sum < lo)
			*sum = (uint64_t)lo;
		if (*sum > hi)
			*sum = (uint64_t)(hi > UINT64_MAX ? UINT64_MAX : hi);
	}
}

void ldb_hist_add(struct ldb_hist *dst, const struct ldb_hist *src)
{
	uint32_t n = dst->counts_len < src->counts_len ? dst->counts_len : src->counts_len;
	uint64_t smin, smax, ssum;
	struct extent e;

	/* Bounds and sum are read before the counts: a value whose count we
	 * see may be missing from them, which extent_fit repairs. */
	smin = ld64(&src->min);
	smax = ld64(&src->max);
	ssum = ld64(&src->sum);
	extent_init(&e);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t c = ld64(&src->counts[i]);

		if (c == 0)
			continue;
		extent_add(&e, i, c);
		st64(&dst->counts[i], ld64(&dst->counts[i]) + c);
	}
	if (e.total == 0)
		return;
	extent_fit(&e, &smin, &smax, &ssum);
	st64(&dst->total, ld64(&dst->total) + e.total);
	st64(&dst->sum, ld64(&dst->sum) + ssum);
	if (smin < ld64(&dst->min))
		st64(&dst->min, smin);
	if (smax > ld64(&dst->max))
		st64(&dst->max, smax);
}

void ldb_hist_sub(struct ldb_hist *dst, const struct ldb_hist *a, const struct ldb_hist *b)
{
	uint32_t n = dst->counts_len;
	uint64_t amin, amax, asum, bsum, lo, hi, sum;
	struct extent e;

	if (a->counts_len < n)
		n = a->counts_len;
	if (b->counts_len < n)
		n = b->counts_len;
	/* Read everything of a and b before dst is written: dst may be a. */
	amin = ld64(&a->min);
	amax = ld64(&a->max);
	asum = ld64(&a->sum);
	bsum = ld64(&b->sum);
	extent_init(&e);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ca = ld64(&a->counts[i]), cb = ld64(&b->counts[i]);
		uint64_t d = ca > cb ? ca - cb : 0;

		st64(&dst->counts[i], d);
		if (d != 0)
			extent_add(&e, i, d);
	}
	for (uint32_t i = n; i < dst->counts_len; i++)
		st64(&dst->counts[i], 0);
	st64(&dst->total, e.total);
	if (e.total == 0) {
		st64(&dst->sum, 0);
		st64(&dst->min, UINT64_MAX);
		st64(&dst->max, 0);
		return;
	}
	/* None of the difference's values lies outside a's own [min, max]:
	 * where those fall into its end slots they are the tighter bounds,
	 * elsewhere extent_fit replaces them by the end slots' far ends. */
	lo = amin;
	hi = amax;
	sum = asum > bsum ? asum - bsum : 0;
	extent_fit(&e, &lo, &hi, &sum);
	st64(&dst->sum, sum);
	st64(&dst->min, lo);
	st64(&dst->max, hi);
}

uint64_t ldb_hist_count(const struct ldb_hist *h)
{
	return ld64(&h->total);
}

double ldb_hist_mean(const struct ldb_hist *h)
{
	uint64_t total = ld64(&h->total);

	return total == 0 ? 0.0 : (double)ld64(&h->sum) / (double)total;
}

uint64_t ldb_hist_percentile(const struct ldb_hist *h, double pct)
{
	uint64_t total = ld64(&h->total), max = ld64(&h->max);
	uint64_t want, seen = 0;
	double rank;

	if (total == 0)
		return 0;
	if (!(pct > 0.0)) { /* 0, negative or NaN: the minimum */
		uint64_t min = ld64(&h->min);
		return min == UINT64_MAX ? 0 : min;
	}
	if (pct > 100.0)
		pct = 100.0;
	/* Rank of the wanted value, 1-based: ceil(pct% of total).  The small
	 * downward nudge keeps e.g. 99.9% of 1000 at 999, not 1000, despite
	 * the rounding error of the product. */
	rank = pct / 100.0 * (double)total;
	rank -= rank * 1e-12;
	want = (uint64_t)ceil(rank);
	if (want < 1)
		want = 1;
	if (want > total)
		want = total;
	for (uint32_t i = 0; i < h->counts_len; i++) {
		seen += ld64(&h->counts[i]);
		if (seen >= want) {
			uint64_t v = ldb_hist_slot_high(i);
			return v < max ? v : max;
		}
	}
	return max; /* counts behind total on a live histogram */
}

/* ---- text form ----
 *
 *   v1;TOTAL;SUM;MIN;MAX;I:C,D:C,D:C...
 *
 * All numbers unsigned decimal.  TOTAL, SUM, MIN and MAX are the fields of
 * struct ldb_hist (MIN and MAX written as 0 when empty), so the mean and the
 * extremes survive exactly.  Then one I:C pair per non-empty slot in rising
 * slot order: I is the first slot's index, each D the distance from the
 * previous slot's index (>= 1), C the count (>= 1).  An empty histogram is
 * "v1;0;0;0;0;".
 */

struct sink {
	char *buf;
	size_t cap, len;
};

/* Append one character; past the capacity only the needed length grows. */
static void put_char(struct sink *s, char c)
{
	if (s->len + 1 < s->cap)
		s->buf[s->len] = c;
	s->len++;
}

/* Append v in decimal, then `sep` unless it is NUL. */
static void put_u64(struct sink *s, uint64_t v, char sep)
{
	char tmp[LDB_U64_DEC_MAX];
	size_t n = ldb_u64_dec(tmp, v);

	for (size_t i = 0; i < n; i++)
		put_char(s, tmp[i]);
	if (sep != '\0')
		put_char(s, sep);
}

size_t ldb_hist_encode(const struct ldb_hist *h, char *buf, size_t cap)
{
	struct sink s = { buf, cap, 0 };
	uint64_t min = ld64(&h->min), max = ld64(&h->max), sum = ld64(&h->sum);
	uint64_t *snap;
	uint32_t prev = 0;
	struct extent e;

	/* One consistent copy of the counts, so that the header fields and the
	 * pairs agree even if the histogram has a live writer.  Without memory
	 * for the copy, read the counts twice (exact once the writer stopped). */
	snap = malloc((size_t)h->counts_len * sizeof(*snap));
	extent_init(&e);
	for (uint32_t i = 0; i < h->counts_len; i++) {
		uint64_t c = ld64(&h->counts[i]);

		if (snap != NULL)
			snap[i] = c;
		if (c != 0)
			extent_add(&e, i, c);
	}
	if (e.total == 0)
		sum = min = max = 0;
	else
		extent_fit(&e, &min, &max, &sum);

	put_char(&s, 'v');
	put_u64(&s, 1, ';');
	put_u64(&s, e.total, ';');
	put_u64(&s, sum, ';');
	put_u64(&s, min, ';');
	put_u64(&s, max, ';');
	if (e.total != 0) {
		uint64_t left = e.total;
		bool start = true;

		for (uint32_t i = e.first; i <= e.last && left > 0; i++) {
			uint64_t c = snap != NULL ? snap[i] : ld64(&h->counts[i]);

			if (c == 0)
				continue;
			if (c > left) /* only without a snapshot, live writer */
				c = left;
			left -= c;
			if (!start)
				put_char(&s, ',');
			put_u64(&s, start ? i : i - prev, ':');
			put_u64(&s, c, '\0');
			start = false;
			prev = i;
		}
	}
	free(snap);
	if (cap > 0)
		buf[s.len < cap ? s.len : cap - 1] = '\0';
	return s.len;
}

/* Parse an unsigned decimal (no sign, no blanks, no overflow) ending at `end`. */
static int get_u64(const char **pp, char end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		p++;
	}
	if (*p != end)
		return -1;
	*pp = end == '\0' ? p : p + 1;
	*out = v;
	return 0;
}

int ldb_hist_decode(struct ldb_hist *h, const char *text)
{
	const char *p = text;
	uint64_t total, sum, min, max, idx = 0;
	struct extent e;

	ldb_hist_reset(h);
	if (text == NULL || strncmp(p, "v1;", 3) != 0)
		return EINVAL;
	p += 3;
	if (get_u64(&p, ';', &total) != 0 || get_u64(&p, ';', &sum) != 0 || get_u64(&p, ';', &min) != 0 ||
	    get_u64(&p, ';', &max) != 0)
		return EINVAL;
	extent_init(&e);
	while (*p != '\0') {
		uint64_t d, c;
		const char *q;

		if (get_u64(&p, ':', &d) != 0)
			goto bad;
		/* The count ends at ',' or at the end of the text. */
		for (q = p; *q >= '0' && *q <= '9'; q++)
			;
		if (get_u64(&p, *q == ',' ? ',' : '\0', &c) != 0)
			goto bad;
		if (*q == ',' && *p == '\0')
			goto bad; /* trailing comma */
		if (d >= h->counts_len || c == 0 || c > UINT64_MAX - e.total)
			goto bad;
		if (e.total == 0)
			idx = d;
		else if (d == 0)
			goto bad;
		else
			idx += d;
		if (idx >= h->counts_len)
			goto bad;
		extent_add(&e, (uint32_t)idx, c);
		st64(&h->counts[idx], c);
	}
	if (e.total != total)
		goto bad;
	if (total == 0) {
		if (sum != 0 || min != 0 || max != 0)
			goto bad;
		return 0;
	}
	/* What an encoder writes agrees with its counts (extent_fit leaves
	 * it alone): min and max in the end slots, the sum within reach. */
	{
		uint64_t fmin = min, fmax = max, fsum = sum;

		extent_fit(&e, &fmin, &fmax, &fsum);
		if (fmin != min || fmax != max || fsum != sum || min > max)
			goto bad;
	}
	st64(&h->total, total);
	st64(&h->sum, sum);
	st64(&h->min, min);
	st64(&h->max, max);
	return 0;
bad:
	ldb_hist_reset(h);
	return EINVAL;
}

double ldb_hist_metric(const struct ldb_hist *h, enum ldb_metric m)
{
	if (h == NULL || ldb_hist_count(h) == 0)
		return 0;
	switch (m) {
	case LDB_M_MIN: return (double)h->min;
	case LDB_M_MAX: return (double)h->max;
	case LDB_M_MEAN: return ldb_hist_mean(h);
	case LDB_M_P50: return (double)ldb_hist_percentile(h, 50);
	case LDB_M_P90: return (double)ldb_hist_percentile(h, 90);
	case LDB_M_P95: return (double)ldb_hist_percentile(h, 95);
	case LDB_M_P999: return (double)ldb_hist_percentile(h, 99.9);
	default: return (double)ldb_hist_percentile(h, 99);
	}
}
