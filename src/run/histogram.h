/* Log-linear latency histogram after HdrHistogram's published design.
 *
 * Values are nanoseconds, tracked from 1 ns to 1 hour with 3 significant decimal
 * digits: buckets of powers of two, each split into 2048 linear sub-buckets (the
 * lower half of every bucket but the first overlaps the previous one and is not
 * used, as in HdrHistogram).  Values above the highest trackable are clamped.
 *
 * Threading: a histogram has one writer (ldb_hist_record); any other thread may
 * read it at any time (ldb_hist_add into a private copy, ldb_hist_sub,
 * ldb_hist_encode, ldb_hist_percentile) through relaxed atomic loads, so a
 * sampler never takes a lock and never blocks the writer.
 * A reader sees every count that was stored before its load, possibly not the
 * newest few: good enough for interval reports, exact after the writer joined.
 */
#ifndef LDBENCH_RUN_HISTOGRAM_H
#define LDBENCH_RUN_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/fail_if_types.h"

#define LDB_HIST_SUB_BITS 11              /* 2048 sub-buckets: 3 digits */
#define LDB_HIST_HIGHEST 3600000000000ULL /* 1 h in ns */

struct ldb_hist {
	uint64_t *counts; /* counts_len slots, calloc'ed by ldb_hist_init */
	uint32_t counts_len;
	uint64_t total; /* number of values recorded */
	uint64_t sum;   /* sum of recorded values (ns), for the mean */
	uint64_t min;   /* UINT64_MAX while empty */
	uint64_t max;   /* 0 while empty */
};

/** Allocate the counts (zeroed). @return 0, or ENOMEM. */
int ldb_hist_init(struct ldb_hist *h);
void ldb_hist_free(struct ldb_hist *h);
/** Zero every count (not thread-safe against a writer). */
void ldb_hist_reset(struct ldb_hist *h);

/** Single writer: record one value (ns). No allocation, no lock. */
void ldb_hist_record(struct ldb_hist *h, uint64_t value_ns);
/** Record `count` occurrences of one value. */
void ldb_hist_record_n(struct ldb_hist *h, uint64_t value_ns, uint64_t count);

/** dst += src, reading src with relaxed atomic loads (src may have a live writer). */
void ldb_hist_add(struct ldb_hist *dst, const struct ldb_hist *src);
/** dst = a - b, slot by slot (b an earlier snapshot of a); min/max of the
 *  difference are recomputed from the counts. */
void ldb_hist_sub(struct ldb_hist *dst, const struct ldb_hist *a, const struct ldb_hist *b);

/** Smallest value v such that at least `pct` percent of recorded values are <= v
 *  (reported as the highest value equivalent to that slot, capped at max).
 *  0 for an empty histogram.  pct in [0, 100]. */
uint64_t ldb_hist_percentile(const struct ldb_hist *h, double pct);
double ldb_hist_mean(const struct ldb_hist *h);
uint64_t ldb_hist_count(const struct ldb_hist *h);
/** A latency metric of h (--fail-if's): min, max, mean or a percentile
 *  (0 when h is NULL or holds nothing); a metric that is no latency: p99. */
double ldb_hist_metric(const struct ldb_hist *h, enum ldb_metric m);

/** Index of the slot that holds `value_ns`, and the lowest/highest value it covers. */
uint32_t ldb_hist_index(uint64_t value_ns);
uint64_t ldb_hist_slot_low(uint32_t index);
uint64_t ldb_hist_slot_high(uint32_t index);

/** Compact lossless text form: "v1;" then total;sum;min;max; (min and max 0
 *  when empty), then "index:count" pairs of the non-empty slots, comma
 *  separated, indexes delta-coded: "v1;3;3010;5;3000;5:2,2519:1".
 *  Written into buf (NUL-terminated);
 *  @return the length needed, excluding the NUL (as snprintf). */
size_t ldb_hist_encode(const struct ldb_hist *h, char *buf, size_t cap);
/** Parse ldb_hist_encode's form into an initialised, empty histogram. @return 0 or EINVAL. */
int ldb_hist_decode(struct ldb_hist *h, const char *text);

#endif
