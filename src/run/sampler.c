/* The sampler: see sampler.h. */
#include "run/sampler.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "out/report.h"
#include "run/clock.h"
#include "run/worker.h"

#define TICK_NS 20000000ULL       /* how often stop conditions are checked */
#define GLOBAL_STATS_EVERY 90     /* samples between ldclt's periodic summaries */
#define WORKER_STACK (256 * 1024)

/* Latency figures of one kind, summed over the clients: the running total,
 * the total at the previous sample, and their difference (the interval). */
struct hset {
	struct ldb_hist agg, prev, delta;
};
enum { H_LAT, H_ULAT, H_COUNT }; /* corrected (or plain) and uncorrected */

struct sampler {
	const struct ldb_config *cfg;
	struct ldb_run run;
	struct ldb_worker *w;
	struct ldb_runner *r;
	int nr;
	struct ldb_thread_stats **st;
	int n;
	struct ldb_text text;
	struct ldb_reporter rep[LDB_MAX_REPORTERS];
	int nrep;
	/* interval state */
	struct ldb_totals prev;
	struct hset h[H_COUNT][LDB_OP_COUNT];
	struct ldb_hist stage[LDB_STAGE_COUNT];
	bool used[H_COUNT][LDB_OP_COUNT];
	uint64_t *prev_counted;  /* per thread, for "no activity" */
	int *active;
	long long *inact_row, *inact_tot;
	long long no_activity;
	bool *seen_dead;         /* "thread is dead." printed */
	int ndead;               /* threads that ended by themselves */
	int nsamples;
	uint64_t t_start, t_last; /* measurement started; last sample */
	struct ldb_monitor_snap mon_before, mon_delta;
	bool have_mon;
};

/* Enough descriptors for every connection, raised up to the hard limit.
 * @return 0, or -1 with one line in err naming the limit. */
static int raise_nofile(long need, char *err, size_t cap)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
		snprintf(err, cap,
		         "%ld connections need about %ld file descriptors, but the limit is %llu (ulimit -n; the hard "
		         "limit %llu)",
		         need - 64, need, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = (rlim_t)need;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		snprintf(err, cap, "cannot raise the file descriptor limit to %ld: %s", need, strerror(errno));
		return -1;
	}
	return 0;
}

static struct ldb_hist *runner_hist(struct ldb_runner *r, int which, int k)
{
	return which == H_LAT ? &r->lat.op[k] : &r->lat.uop[k];
}

static void aggregate(struct sampler *s)
{
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (!s->used[which][k])
				continue;
			ldb_hist_reset(&s->h[which][k].agg);
			for (int i = 0; i < s->nr; i++)
				ldb_hist_add(&s->h[which][k].agg, runner_hist(&s->r[i], which, k));
		}
}

static void sub_totals(struct ldb_totals *d, const struct ldb_totals *a, const struct ldb_totals *b)
{
	const uint64_t *pa = (const uint64_t *)a->op, *pb = (const uint64_t *)b->op;
	uint64_t *pd = (uint64_t *)d->op;
	for (size_t i = 0; i < (sizeof a->op) / (sizeof(uint64_t)); i++)
		pd[i] = pa[i] - pb[i];
	d->counted = a->counted - b->counted;
	d->connects = a->connects - b->connects;
	d->reconnects = a->reconnects - b->reconnects;
	d->setup_binds = a->setup_binds - b->setup_binds;
	d->tls_handshakes = a->tls_handshakes - b->tls_handshakes;
	d->tls_resumed = a->tls_resumed - b->tls_resumed;
	d->parents_created = a->parents_created - b->parents_created;
	d->dead = a->dead;
}

/* One sample line (and the latency lines) for the time since the last one. */
static void take_sample(struct sampler *s, uint64_t now)
{
	struct ldb_totals cur, d;
	ldb_totals_collect(&cur, s->st, s->n);
	sub_totals(&d, &cur, &s->prev);
	aggregate(s);
	struct ldb_sample smp = { .seconds = (double)(now - s->t_last) / 1e9, .counted = d.counted, .delta = d,
	                          .threads = s->n, .rate_target = s->cfg->rate };
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (!s->used[which][k])
				continue;
			struct hset *h = &s->h[which][k];
			ldb_hist_sub(&h->delta, &h->agg, &h->prev);
			if (which == H_LAT)
				smp.lat[k] = &h->delta;
			else
				smp.ulat[k] = &h->delta;
		}
	/* "no activity", per thread, as ldclt */
	const struct ldb_config *c = s->cfg;
	for (int i = 0; i < s->n; i++) {
		uint64_t counted = ldb_load(&s->st[i]->counted);
		bool dead = __atomic_load_n(&s->st[i]->dead, __ATOMIC_ACQUIRE);
		if (counted != s->prev_counted[i]) {
			s->active[i] = c->inactivity + 1;
			s->inact_row[i] = 0;
		} else if (--s->active[i] <= 0 && !dead) {
			s->inact_row[i]++;
			s->inact_tot[i]++;
			if (!c->super_quiet)
				ldb_text_line(&s->text, "T%03d: No activity for %d seconds -- %5lld in row, total %5lld", i,
				              (int)((uint64_t)(c->inactivity + 1) * c->interval_ms / 1000), s->inact_row[i],
				              s->inact_tot[i]);
			s->active[i] = c->inactivity + 1;
			s->no_activity++;
		}
		if (c->verbose > 1)
			ldb_text_line(&s->text, "T%03d: nbOpers = %llu", i,
			              (unsigned long long)(counted - s->prev_counted[i]));
		s->prev_counted[i] = counted;
	}
	smp.index = ++s->nsamples;
	smp.t_end = (double)(now - s->t_start) / 1e9;
	ldb_text_sample(&s->text, &smp);
	for (int i = 0; i < s->nrep; i++)
		if (s->rep[i].sample)
			s->rep[i].sample(s->rep[i].ctx, &smp);
	s->prev = cur;
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->used[which][k]) {
				ldb_hist_reset(&s->h[which][k].prev);
				ldb_hist_add(&s->h[which][k].prev, &s->h[which][k].agg);
			}
	s->t_last = now;
}

/* Threads that ended by themselves (-T, noloop, a fatal error): their last
 * word, then ldclt's line.  @return how many have ended so far. */
static int reap(struct sampler *s)
{
	for (int i = 0; i < s->n; i++) {
		if (s->seen_dead[i] || !__atomic_load_n(&s->st[i]->dead, __ATOMIC_ACQUIRE))
			continue;
		s->seen_dead[i] = true;
		s->ndead++;
		if (s->w[i].note[0] != '\0')
			ldb_text_line(&s->text, "%s", s->w[i].note);
		ldb_text_line(&s->text, "T%03d: thread is dead.", i);
	}
	return s->ndead;
}

static double metric_of(const struct ldb_summary *sum, const struct ldb_threshold *t, int kind)
{
	const struct ldb_hist *h = sum->lat[kind];
	switch (t->metric) {
	case LDB_M_RATE: return sum->seconds > 0 ? (double)sum->tot.op[kind].counted / sum->seconds : 0;
	case LDB_M_ERRORS: {
		uint64_t n = 0;
		for (int k = 0; k < LDB_OP_COUNT; k++)
			n += ldb_opstats_errors(&sum->tot.op[k]);
		return t->kind < 0 ? (double)n : (double)ldb_opstats_errors(&sum->tot.op[kind]);
	}
	case LDB_M_MIN: return h && ldb_hist_count(h) ? (double)h->min : 0;
	case LDB_M_MEAN: return h ? ldb_hist_mean(h) : 0;
	case LDB_M_P50: return h ? (double)ldb_hist_percentile(h, 50) : 0;
	case LDB_M_P90: return h ? (double)ldb_hist_percentile(h, 90) : 0;
	case LDB_M_P95: return h ? (double)ldb_hist_percentile(h, 95) : 0;
	case LDB_M_P99: return h ? (double)ldb_hist_percentile(h, 99) : 0;
	case LDB_M_P999: return h ? (double)ldb_hist_percentile(h, 99.9) : 0;
	case LDB_M_MAX: return h ? (double)h->max : 0;
	}
	return 0;
}

/* --fail-if: one line per threshold that holds; exit 10 unless worse. */
static int check_thresholds(struct sampler *s, const struct ldb_summary *sum, int status, bool print)
{
	const struct ldb_config *c = s->cfg;
	bool failed = false;
	for (int i = 0; i < c->nfail_if; i++) {
		const struct ldb_threshold *t = &c->fail_if[i];
		int kind = t->kind < 0 ? (int)s->run.main_op : t->kind;
		double a = metric_of(sum, t, kind);
		char shown[64];
		ldb_threshold_format(t, a, shown, sizeof shown);
		if (ldb_threshold_holds(t, a)) {
			failed = true;
			if (print)
				ldb_text_line(&s->text, "Threshold failed: %s (%s is %s)", t->text, ldb_op_name(kind), shown);
		} else if (print && c->verbose) {
			ldb_text_line(&s->text, "Threshold passed: %s (%s is %s)", t->text, ldb_op_name(kind), shown);
		}
	}
	return failed && status == LDB_EXIT_OK ? LDB_EXIT_THRESHOLD : status;
}

static int summary(struct sampler *s, uint64_t now, int status, bool last, struct ldb_result *res)
{
	struct ldb_summary sum = { .seconds = (double)(now - s->t_start) / 1e9, .threads = s->n,
	                           .no_activity = s->no_activity, .status = status, .rate_target = s->cfg->rate };
	ldb_totals_collect(&sum.tot, s->st, s->n);
	sum.counted = sum.tot.counted;
	if (last && s->have_mon)
		sum.server = &s->mon_delta;
	sum.dead = s->ndead;
	aggregate(s);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->used[H_LAT][k])
			sum.lat[k] = &s->h[H_LAT][k].agg;
		if (s->used[H_ULAT][k])
			sum.ulat[k] = &s->h[H_ULAT][k].agg;
	}
	if (s->cfg->bindeach)
		for (int k = 0; k < LDB_STAGE_COUNT; k++) {
			ldb_hist_reset(&s->stage[k]);
			for (int i = 0; i < s->nr; i++)
				ldb_hist_add(&s->stage[k], &s->r[i].lat.stage[k]);
			sum.stage[k] = &s->stage[k];
		}
	if (last)
		sum.status = status = check_thresholds(s, &sum, status, false);
	ldb_text_summary(&s->text, &sum);
	if (last)
		(void)check_thresholds(s, &sum, status, true);
	if (!last)
		return status;
	for (int i = 0; i < s->nrep; i++)
		if (s->rep[i].end)
			s->rep[i].end(s->rep[i].ctx, &sum);
	if (res != NULL) {
		enum ldb_op k = s->run.main_op;
		const struct ldb_hist *h = sum.lat[k];
		res->threads = s->n;
		res->main_op = (int)k;
		res->counted = sum.counted;
		res->seconds = sum.seconds;
		res->rate = sum.seconds > 0 ? (double)sum.counted / sum.seconds : 0;
		res->p50_ns = h ? ldb_hist_percentile(h, 50) : 0;
		res->p99_ns = h ? ldb_hist_percentile(h, 99) : 0;
		res->errors = 0;
		for (int j = 0; j < LDB_OP_COUNT; j++)
			res->errors += ldb_opstats_errors(&sum.tot.op[j]);
		res->status = status;
	}
	return status;
}

static int setup(struct sampler *s, const struct ldb_config *c, FILE *out)
{
	char err[512];
	memset(s, 0, sizeof *s);
	s->cfg = c;
	s->n = c->threads;
	s->text = (struct ldb_text){ .cfg = c, .out = out, .pid = getpid() };
	if (ldb_run_init(&s->run, c, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	s->nrep = ldb_reporters_open(c, s->rep, LDB_MAX_REPORTERS, err, sizeof err);
	if (s->nrep < 0) {
		s->nrep = 0;
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (s->run.load_kind[k])
			s->used[H_LAT][k] = true;
	if (s->run.bind_on_connect || c->bindeach)
		s->used[H_LAT][LDB_OP_BIND] = true;
	if (c->rate > 0)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			s->used[H_ULAT][k] = s->used[H_LAT][k];
	s->w = calloc((size_t)s->n, sizeof *s->w);
	s->st = calloc((size_t)s->n, sizeof *s->st);
	s->prev_counted = calloc((size_t)s->n, sizeof *s->prev_counted);
	s->active = calloc((size_t)s->n, sizeof *s->active);
	s->inact_row = calloc((size_t)s->n, sizeof *s->inact_row);
	s->inact_tot = calloc((size_t)s->n, sizeof *s->inact_tot);
	s->seen_dead = calloc((size_t)s->n, sizeof *s->seen_dead);
	if (!s->w || !s->st || !s->prev_counted || !s->active || !s->inact_row || !s->inact_tot || !s->seen_dead)
		goto oom;
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			struct hset *h = &s->h[which][k];
			if (s->used[which][k] &&
			    (ldb_hist_init(&h->agg) || ldb_hist_init(&h->prev) || ldb_hist_init(&h->delta)))
				goto oom;
		}
	if (c->bindeach)
		for (int k = 0; k < LDB_STAGE_COUNT; k++)
			if (ldb_hist_init(&s->stage[k]))
				goto oom;
	for (int i = 0; i < s->n; i++) {
		if (posix_memalign((void **)&s->st[i], 64, sizeof *s->st[i]) != 0)
			goto oom;
		memset(s->st[i], 0, sizeof *s->st[i]);
		if (ldb_worker_init(&s->w[i], &s->run, i, s->st[i]) != 0)
			goto oom;
		s->active[i] = c->inactivity + 1;
	}
	/* the -n clients over the I/O threads, in contiguous blocks */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (c->io_threads > 0) {
		s->nr = c->io_threads;
	} else {
		/* one I/O thread per CPU at most; with deep pipelines one per four
		 * connections is plenty, and fewer threads batch better.  A
		 * clear-text connection per operation (bindeach) is kernel work
		 * (handshake, teardown) that threads on several CPUs only make
		 * contend: half the CPUs (design.md) */
		long want = s->n;
		long most = cpus;
		if (s->run.depth >= 8)
			want = ((long)s->n * c->conns_per_thread + 3) / 4;
		if (c->bindeach && !c->ldaps && !c->starttls && cpus > 1)
			most = cpus / 2;
		if (most > 0 && want > most)
			want = most;
		s->nr = want < 1 ? 1 : (int)want;
	}
	if (s->nr > s->n)
		s->nr = s->n;
	s->r = calloc((size_t)s->nr, sizeof *s->r);
	if (s->r == NULL)
		goto oom;
	for (int k = 0, first = 0; k < s->nr; k++) {
		struct ldb_runner *r = &s->r[k];
		int count = s->n / s->nr + (k < s->n % s->nr ? 1 : 0);
		r->w = &s->w[first];
		r->nw = count;
		first += count;
		for (int which = 0; which < H_COUNT; which++)
			for (int j = 0; j < LDB_OP_COUNT; j++)
				if (s->used[which][j] && ldb_hist_init(runner_hist(r, which, j)))
					goto oom;
		if (c->bindeach)
			for (int j = 0; j < LDB_STAGE_COUNT; j++)
				if (ldb_hist_init(&r->lat.stage[j]))
					goto oom;
		for (int i = 0; i < count; i++)
			r->w[i].lat = &r->lat;
	}
	if (raise_nofile((long)s->n * c->conns_per_thread + 64, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	return 0;
oom:
	fprintf(stderr, "%s: out of memory for %d threads\n", c->progname, s->n);
	return -1;
}

static void teardown(struct sampler *s)
{
	for (int i = 0; s->w && i < s->n; i++)
		ldb_worker_free(&s->w[i]);
	for (int i = 0; s->st && i < s->n; i++) {
		if (s->st[i] == NULL)
			continue;
		free(s->st[i]);
	}
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			ldb_hist_free(&s->h[which][k].agg);
			ldb_hist_free(&s->h[which][k].prev);
			ldb_hist_free(&s->h[which][k].delta);
		}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		ldb_hist_free(&s->stage[k]);
	for (int i = 0; s->r && i < s->nr; i++) {
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			ldb_hist_free(&s->r[i].lat.op[k]);
			ldb_hist_free(&s->r[i].lat.uop[k]);
		}
		for (int k = 0; k < LDB_STAGE_COUNT; k++)
			ldb_hist_free(&s->r[i].lat.stage[k]);
	}
	free(s->w);
	free(s->r);
	free(s->st);
	free(s->prev_counted);
	free(s->active);
	free(s->inact_row);
	free(s->inact_tot);
	free(s->seen_dead);
	for (int i = 0; i < s->nrep; i++)
		if (s->rep[i].close)
			s->rep[i].close(s->rep[i].ctx);
	ldb_run_free(&s->run);
}

/* End of warm-up: every client restarts its figures, then measurement (and
 * its clock) starts from zero.  Clients that ended during warm-up are zeroed
 * here, their writers being gone. */
static void start_measuring(struct sampler *s, uint64_t warm_started)
{
	__atomic_store_n(&s->run.measuring, 1, __ATOMIC_RELEASE);
	uint64_t give_up = ldb_now_ns() + 2000000000ULL;
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < s->n; i++)
			if (!__atomic_load_n(&s->st[i]->measuring, __ATOMIC_ACQUIRE) &&
			    !__atomic_load_n(&s->st[i]->dead, __ATOMIC_ACQUIRE))
				waiting++;
		for (int i = 0; i < s->nr; i++)
			if (!__atomic_load_n(&s->r[i].lat.measuring, __ATOMIC_ACQUIRE) &&
			    !__atomic_load_n(&s->r[i].lat.ended, __ATOMIC_ACQUIRE))
				waiting++;
		if (waiting == 0 || ldb_now_ns() > give_up)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	uint64_t warm = 0;
	for (int i = 0; i < s->n; i++) {
		struct ldb_thread_stats *st = s->st[i];
		if (__atomic_load_n(&st->measuring, __ATOMIC_ACQUIRE)) {
			warm += st->warm_completed;
			continue;
		}
		/* ended during warm-up: its writer is gone */
		for (int k = 0; k < LDB_OP_COUNT; k++)
			warm += st->op[k].completed;
		memset(st->op, 0, sizeof st->op);
		st->counted = 0;
	}
	/* I/O threads that ended during warm-up: their writer is gone */
	for (int i = 0; i < s->nr; i++)
		if (!__atomic_load_n(&s->r[i].lat.measuring, __ATOMIC_ACQUIRE))
			ldb_lat_reset(&s->r[i].lat);
	memset(&s->prev, 0, sizeof s->prev);
	memset(s->prev_counted, 0, (size_t)s->n * sizeof *s->prev_counted);
	for (int which = 0; which < H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->used[which][k])
				ldb_hist_reset(&s->h[which][k].prev);
	if (s->cfg->monitor) {
		/* the server's counts start with the measurement too */
		char err[512];
		if (ldb_monitor_read(s->cfg, &s->mon_before, err, sizeof err) != 0)
			ldb_text_line(&s->text, "%s", err);
	}
	uint64_t now = ldb_now_ns();
	ldb_text_line(&s->text, "Warm-up done after %.3f s (%llu operations left out): measurement starts now.",
	              (double)(now - warm_started) / 1e9, (unsigned long long)warm);
	s->t_start = s->t_last = now;
}

/* --start-at: wait (on the wall clock) until the agreed second, so that runs
 * on several client hosts cover the same time.  -1 if a signal came first. */
static int wait_for_start(struct sampler *s, time_t at, const sigset_t *sigs)
{
	char when[64];
	struct tm tm;
	localtime_r(&at, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
	ldb_text_line(&s->text, "Waiting until %s to start (--start-at).", when);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec >= at)
			return 0;
		int64_t left_ns = ((int64_t)at - now.tv_sec) * 1000000000LL - now.tv_nsec;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = left_ns > 200000000 ? 200000000 : (long)left_ns };
		int sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return -1;
	}
}

int ldb_run_load(const struct ldb_config *c, FILE *out, struct ldb_result *res)
{
	struct sampler s;
	int status = LDB_EXIT_OK;
	sigset_t sigs, old;

	if (setup(&s, c, out) != 0) {
		teardown(&s);
		return LDB_EXIT_INIT;
	}
	/* Workers never see SIGINT/SIGTERM: the main thread takes them here. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	signal(SIGPIPE, SIG_IGN);

	if (c->monitor) {
		char err[512];
		if (ldb_monitor_read(c, &s.mon_before, err, sizeof err) != 0) {
			fprintf(stderr, "%s: %s\n", c->progname, err);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			teardown(&s);
			return LDB_EXIT_INIT;
		}
	}
	ldb_text_banner(&s.text);
	struct ldb_run_info info = { .cfg = c, .seed = c->seed, .started = time(NULL), .io_threads = s.nr };
	for (int i = 0; i < s.nrep; i++)
		if (s.rep[i].begin)
			s.rep[i].begin(s.rep[i].ctx, &info);
	uint64_t interval = c->interval_ms * 1000000ULL;
	uint64_t warmup = c->warmup_ms * 1000000ULL + (uint64_t)(c->warmup_samples > 0 ? c->warmup_samples : 0) * interval;
	bool warming = warmup > 0;

	if (c->start_at > 0 && wait_for_start(&s, c->start_at, &sigs) != 0) {
		/* interrupted before the start: nothing ran */
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		ldb_text_end(&s.text, LDB_EXIT_OK);
		teardown(&s);
		return LDB_EXIT_OK;
	}
	ldb_text_started(&s.text);
	if (warming)
		ldb_text_line(&s.text, "Warm-up for %.3f s: operations run but are left out of every figure.",
		              (double)warmup / 1e9);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	int started = 0;
	uint64_t t_run = ldb_now_ns();
	s.t_start = s.t_last = t_run;
	for (; started < s.nr; started++) {
		int rc = pthread_create(&s.r[started].thread, &attr, ldb_runner_main, &s.r[started]);
		if (rc != 0) {
			fprintf(stderr, "%s: cannot start I/O thread %d of %d: %s\n", c->progname, started + 1, s.nr,
			        strerror(rc));
			__atomic_store_n(&s.run.stop, LDB_STOP_DONE, __ATOMIC_RELAXED);
			status = LDB_EXIT_OTHER;
			break;
		}
	}
	pthread_attr_destroy(&attr);

	uint64_t next = warming ? t_run + warmup : t_run + interval;
	long long samples = 0;
	int global_cnt = GLOBAL_STATS_EVERY;
	bool signalled = false;
	const char *why = NULL;
	while (status == LDB_EXIT_OK) {
		uint64_t now = ldb_now_ns();
		uint64_t until = next;
		if (!warming && c->duration_ms > 0 && s.t_start + c->duration_ms * 1000000ULL < until)
			until = s.t_start + c->duration_ms * 1000000ULL;
		uint64_t wait = until > now ? until - now : 0;
		if (wait > TICK_NS)
			wait = TICK_NS;
		struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000ULL), .tv_nsec = (long)(wait % 1000000000ULL) };
		int sig = sigtimedwait(&sigs, NULL, &ts);
		now = ldb_now_ns();
		if (sig == SIGINT || sig == SIGTERM) {
			signalled = true;
			__atomic_store_n(&s.run.stop, LDB_STOP_SIGNAL, __ATOMIC_RELAXED);
			break;
		}
		if (__atomic_load_n(&s.run.stop, __ATOMIC_RELAXED) == LDB_STOP_MAX_ERRORS)
			break;
		if (reap(&s) == s.n) {
			/* -T, noloop, or every thread failed: a last, shorter sample */
			if (warming)
				start_measuring(&s, t_run);
			take_sample(&s, now);
			why = "All threads are dead - exit.";
			break;
		}
		if (warming) {
			if (now >= next) {
				start_measuring(&s, t_run);
				warming = false;
				next = s.t_start + interval;
			}
			continue;
		}
		if (c->duration_ms > 0 && now >= s.t_start + c->duration_ms * 1000000ULL) {
			if (now > s.t_last)
				take_sample(&s, now);
			ldb_text_line(&s.text, "Duration reached. Bye-bye...");
			why = "All threads are dead - exit.";
			break;
		}
		if (now >= next) {
			take_sample(&s, now);
			samples++;
			next += interval;
			if (next <= now)
				next = now + interval;
			if (c->samples > 0 && samples >= c->samples) {
				ldb_text_line(&s.text, "Number of samples achieved. Bye-bye...");
				why = "All threads are dead - exit.";
				break;
			}
			if (!c->noglobalstats && --global_cnt == 0) {
				summary(&s, now, status, false, NULL);
				global_cnt = GLOBAL_STATS_EVERY;
			}
		}
	}
	uint64_t t_end = ldb_now_ns();
	int stop = __atomic_load_n(&s.run.stop, __ATOMIC_RELAXED);
	if (stop == LDB_STOP_NONE)
		__atomic_store_n(&s.run.stop, LDB_STOP_DONE, __ATOMIC_RELAXED);
	for (int i = 0; i < started; i++) {
		pthread_join(s.r[i].thread, NULL);
		if (s.r[i].error[0] != '\0')
			fprintf(stderr, "%s: %s\n", c->progname, s.r[i].error);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	for (int i = 0; i < s.n; i++)
		if (s.st[i]->status > status)
			status = s.st[i]->status;
	if (stop == LDB_STOP_MAX_ERRORS) {
		ldb_text_line(&s.text, "Max error limit reached - exiting.");
		status = LDB_EXIT_MAX_ERRORS;
	}
	if (why != NULL)
		ldb_text_line(&s.text, "%s", why);
	if (c->monitor) {
		char err[512];
		struct ldb_monitor_snap after;
		if (ldb_monitor_read(c, &after, err, sizeof err) == 0) {
			ldb_monitor_delta(&s.mon_before, &after, c->bind_dn != NULL, &s.mon_delta);
			s.have_mon = true;
		} else {
			ldb_text_line(&s.text, "%s", err);
		}
	}
	if (signalled)
		fputc('\n', out);
	status = summary(&s, t_end, status, true, res);
	if (signalled)
		fprintf(out, "Catch SIGINT - exit...\n");
	ldb_text_end(&s.text, status);
	teardown(&s);
	return status;
}

int ldb_sweep(struct ldb_config *c, FILE *out)
{
	struct ldb_result res[64];
	int worst = LDB_EXIT_OK, done = 0;
	for (int i = 0; i < c->nsweep; i++) {
		c->threads = c->sweep[i];
		memset(&res[i], 0, sizeof res[i]);
		int st = ldb_run_load(c, out, &res[i]);
		res[i].threads = c->sweep[i];
		done++;
		if (st > worst)
			worst = st;
		if (st == LDB_EXIT_INIT || st == LDB_EXIT_OTHER)
			break;
		fputc('\n', out);
	}
	fprintf(out, "%s[%d]: Sweep of %d runs (%s latency):\n", c->progname, (int)getpid(), done,
	        ldb_op_name(done > 0 ? res[0].main_op : LDB_OP_SEARCH));
	fprintf(out, "Concurrency\tRate (ops/s)\tp50 (ms)\tp99 (ms)\tErrors\n");
	for (int i = 0; i < done; i++)
		fprintf(out, "%d\t%.2f\t%.3f\t%.3f\t%llu\n", res[i].threads, res[i].rate, (double)res[i].p50_ns / 1e6,
		        (double)res[i].p99_ns / 1e6, (unsigned long long)res[i].errors);
	fflush(out);
	return worst;
}
