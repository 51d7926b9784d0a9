/* The sampler: snapshots of the clients' counters and the I/O threads'
 * histograms (relaxed reads, never a lock), their difference over each
 * interval, "no activity" per client, and the whole run's figures.  It turns
 * them into the samples and summaries the reporters print; rates are over
 * measured time, and a span of no time has rate 0, never nan.  The load
 * command (cmd/load) owns the threads and calls it from the main thread. */
#ifndef LDBENCH_REPORT_SAMPLER_H
#define LDBENCH_REPORT_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"
#include "report/reporter.h"
#include "run/histogram.h"
#include "run/stats.h"
#include "run/clientcpu.h"
#include "run/run.h"

/* Latencies kept per kind: the corrected (or plain) and, with --rate, the
 * uncorrected ones. */
enum { LDB_H_LAT, LDB_H_ULAT, LDB_H_COUNT };

/* What the sampler reads and where it writes. */
struct ldb_sampler_src {
	const struct ldb_config *cfg;
	struct ldb_thread_stats *const *st; /* per client */
	int n;
	struct ldb_lat *const *lat; /* per I/O thread */
	int nlat;
	bool used[LDB_H_COUNT][LDB_OP_COUNT]; /* the histograms in use (as the I/O threads have them) */
	bool stages;                          /* bindeach: the stage histograms too */
	bool rounds;                          /* multi-step operations: the round trips' stage histogram */
	struct ldb_text *text;
	const struct ldb_reporter *rep;
	int nrep;
	struct ldb_iothread *runners; /* the I/O threads, for their CPU clocks; may be NULL */
	bool lag;                     /* their lag histograms are in use */
	/* [workload] sections: the I/O threads in runners (nlat counts a
	 * histogram set per workload per thread; 0: nlat); a workload's own
	 * sampler: its name (its samples say it), no per-client lines */
	int nrunners;
	const char *workload;
};

/* The client's own counters at one moment, per I/O thread (docs/capacity.md). */
struct ldb_sampler_cpu {
	uint64_t *cpu, *wait; /* CPU time, run-queue wait (ns) */
	uint64_t thr_elapsed, thr_periods, thr_ns;
};

/* A kind's latencies summed over the I/O threads: the running total, the
 * total at the previous sample, and their difference (the interval). */
struct ldb_sampler_hset {
	struct ldb_hist agg, prev, delta;
};

struct ldb_sampler {
	struct ldb_sampler_src src;
	struct ldb_totals prev; /* counters at the previous sample */
	struct ldb_sampler_hset h[LDB_H_COUNT][LDB_OP_COUNT];
	struct ldb_hist stage[LDB_STAGE_COUNT];
	uint64_t *prev_counted; /* per client, for "no activity" */
	int *active;            /* samples left before "no activity" */
	long long *inact_row, *inact_tot;
	long long no_activity; /* "no activity" reports */
	int nsamples;
	uint64_t t_start, t_last; /* measurement started; last sample (ns) */
	/* the client's own figures: CPU, cgroup throttling, schedule lag */
	double rate_target;       /* this sample's target (the load sets it); cfg->rate at start */
	struct ldb_cgroup_cpu cg; /* its cgroup's cpu.stat, if found */
	struct ldb_sampler_cpu c_start, c_prev, c_now;
	struct ldb_sampler_hset lag; /* the schedule lag over the I/O threads */
	struct ldb_client_fig client, client_sum;
	double target_integral; /* sum of each sample's target x its seconds (--rate-profile) */
	/* [workload] sections: the run's counters for the next sample given as the
	 * sum of the workloads' own (read a moment before), so that each sample's
	 * workloads add up to its total exactly; NULL: read from the clients */
	const struct ldb_totals *given;
};

/* @return 0, or -1 when memory ran out; free with ldb_sampler_free either way. */
int ldb_sampler_init(struct ldb_sampler *s, const struct ldb_sampler_src *src);
void ldb_sampler_free(struct ldb_sampler *s);

/* Measurement starts at `now` (the run's start, or the end of warm-up once
 * the clients have restarted their figures): the previous snapshot is zero. */
void ldb_sampler_start(struct ldb_sampler *s, uint64_t now);

/* One sample for the time since the last one: the text's sample line (and
 * "no activity" lines), each reporter's sample. */
void ldb_sampler_take(struct ldb_sampler *s, uint64_t now);

/* The run's end at `now`, once its clients are done: what completed since the
 * last sample (the results drained after it, or the time up to a signal) as
 * a last, partial interval to the reporters, not to the text (ldclt prints no
 * such line), so that the records' intervals add up to the summary.  Nothing
 * when that span is empty. */
void ldb_sampler_final(struct ldb_sampler *s, uint64_t now);

/* The whole run's figures from its start to `now` into sum: seconds,
 * counters, latencies (pointing into s), threads, "no activity", --rate's
 * target.  The caller adds the status, the dead threads and the server's. */
void ldb_sampler_summary(struct ldb_sampler *s, uint64_t now, struct ldb_summary *sum);

/* d += a, counter by counter, states too (workloads' totals into the run's). */
void ldb_totals_add(struct ldb_totals *d, const struct ldb_totals *a);

/* d = a - b, counter by counter (d->dead is a's: it is a state, not a count). */
void ldb_sampler_diff(struct ldb_totals *d, const struct ldb_totals *a, const struct ldb_totals *b);

/* n per second over `seconds`; 0 when no time was measured. */
static inline double ldb_rate(uint64_t n, double seconds)
{
	return seconds > 0 ? (double)n / seconds : 0.0;
}

#endif
