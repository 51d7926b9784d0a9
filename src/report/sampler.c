/* The sampler: see sampler.h. */
#include "report/sampler.h"

#include <stdlib.h>
#include <string.h>

static struct ldb_hist *lat_hist(struct ldb_lat *lat, int which, int k)
{
	return which == LDB_H_LAT ? &lat->op[k] : &lat->uop[k];
}

/* ------------------------------------------------------------ the client's own figures (docs/capacity.md) */

static void cpu_free(struct ldb_sampler_cpu *c)
{
	free(c->cpu);
	free(c->wait);
	c->cpu = c->wait = NULL;
}

static int client_init(struct ldb_sampler *s)
{
	if (s->src.runners == NULL)
		s->src.nrunners = 0;
	else if (s->src.nrunners == 0)
		s->src.nrunners = s->src.nlat;
	size_t n = (size_t)(s->src.runners ? s->src.nrunners : 0) + 1;
	struct ldb_sampler_cpu *c[] = { &s->c_start, &s->c_prev, &s->c_now };
	for (int i = 0; i < 3; i++) {
		c[i]->cpu = calloc(n, sizeof(uint64_t));
		c[i]->wait = calloc(n, sizeof(uint64_t));
		if (!c[i]->cpu || !c[i]->wait)
			return -1;
	}
	if (s->src.lag && (ldb_hist_init(&s->lag.agg) || ldb_hist_init(&s->lag.prev) || ldb_hist_init(&s->lag.delta)))
		return -1;
	(void)ldb_cgroup_find(&s->cg);
	s->rate_target = s->src.cfg->rate;
	return 0;
}

static void client_free(struct ldb_sampler *s)
{
	cpu_free(&s->c_start);
	cpu_free(&s->c_prev);
	cpu_free(&s->c_now);
	ldb_hist_free(&s->lag.agg);
	ldb_hist_free(&s->lag.prev);
	ldb_hist_free(&s->lag.delta);
}

/* Read every I/O thread's clocks into c_now (a thread not started yet keeps
 * what was read last; an ended one gives what it left as it ended), and the
 * cgroup's throttling. */
static void client_read(struct ldb_sampler *s)
{
	for (int i = 0; s->src.runners && i < s->src.nrunners; i++) {
		struct ldb_iothread *r = &s->src.runners[i];
		int tid = __atomic_load_n(&r->tid, __ATOMIC_ACQUIRE);
		uint64_t v;
		if (tid == 0)
			continue;
		if (__atomic_load_n(&r->lat.ended, __ATOMIC_ACQUIRE)) {
			if ((v = __atomic_load_n(&r->cpu_end_ns, __ATOMIC_RELAXED)) != 0)
				s->c_now.cpu[i] = v;
			if ((v = __atomic_load_n(&r->wait_end_ns, __ATOMIC_RELAXED)) != 0)
				s->c_now.wait[i] = v;
			continue;
		}
		if (ldb_thread_cpu_ns(r->thread, &v) == 0)
			s->c_now.cpu[i] = v;
		if (ldb_thread_run_delay_ns(tid, &v) == 0)
			s->c_now.wait[i] = v;
	}
	(void)ldb_cgroup_throttled(&s->cg, &s->c_now.thr_elapsed, &s->c_now.thr_periods, &s->c_now.thr_ns);
}

static void copy_cpu(struct ldb_sampler_cpu *d, const struct ldb_sampler_cpu *a, int n)
{
	memcpy(d->cpu, a->cpu, (size_t)n * sizeof(uint64_t));
	memcpy(d->wait, a->wait, (size_t)n * sizeof(uint64_t));
	d->thr_elapsed = a->thr_elapsed;
	d->thr_periods = a->thr_periods;
	d->thr_ns = a->thr_ns;
}

static void client_start(struct ldb_sampler *s)
{
	client_read(s);
	copy_cpu(&s->c_start, &s->c_now, s->src.nrunners);
	copy_cpu(&s->c_prev, &s->c_now, s->src.nrunners);
	if (s->src.lag)
		ldb_hist_reset(&s->lag.prev);
}

/* The CPU figures of the span from `a` to c_now, `wall` seconds. */
static void client_cpu_fig(struct ldb_sampler *s, const struct ldb_sampler_cpu *a, double wall,
                           struct ldb_client_fig *f)
{
	f->have = s->src.runners != NULL && wall > 0;
	f->seconds = wall;
	f->nthreads = s->src.nrunners;
	for (int i = 0; f->have && i < s->src.nrunners; i++) {
		double cpu = (double)(s->c_now.cpu[i] - a->cpu[i]) / 1e9;
		double wait = (double)(s->c_now.wait[i] - a->wait[i]) / 1e9;
		f->cpu_seconds += cpu;
		if ((cpu + wait) / wall > f->busy_max || i == 0) {
			f->busy_max = (cpu + wait) / wall;
			f->cpu_max = cpu / wall;
			f->busiest = i;
		}
		if (wait / wall > f->wait_max)
			f->wait_max = wait / wall;
	}
	f->have_cgroup = s->cg.path[0] != '\0';
	f->quota_periods = s->c_now.thr_elapsed - a->thr_elapsed;
	f->throttled_periods = s->c_now.thr_periods - a->thr_periods;
	f->throttled_seconds = (double)(s->c_now.thr_ns - a->thr_ns) / 1e9;
}

/* What the server did for the main kinds: latency from the real send. */
static void client_server_fig(struct ldb_sampler *s, const struct ldb_hist *const *lat,
                              const struct ldb_hist *const *ulat, struct ldb_client_fig *f)
{
	uint64_t n = 0;
	double sum = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_hist *h = ulat[k] ? ulat[k] : lat[k];
		if (h == NULL || ldb_hist_count(h) == 0)
			continue;
		uint64_t c = ldb_hist_count(h);
		sum += ldb_hist_mean(h) * (double)c;
		n += c;
		uint64_t p = ldb_hist_percentile(h, 99);
		if (p > f->server_p99_ns)
			f->server_p99_ns = p;
	}
	f->server_mean_ns = n ? sum / (double)n : 0;
	const struct ldb_config *c = s->src.cfg;
	f->inflight_cap = (long long)c->threads * c->conns_per_thread * (c->depth > 0 ? c->depth : 1);
}

static void client_ramp_fig(struct ldb_sampler *s, const struct ldb_totals *t, struct ldb_client_fig *f)
{
	f->conns_up = t->conns_up;
	f->conns_opening = t->conns_opening;
	f->clients = s->src.n;
	f->clients_up = t->clients_up;
	f->clients_waiting = t->clients_waiting;
}

static void client_lag_fig(const struct ldb_hist *h, struct ldb_client_fig *f)
{
	f->have_lag = h != NULL && ldb_hist_count(h) > 0;
	f->lag_p50_ns = f->have_lag ? ldb_hist_percentile(h, 50) : 0;
	f->lag_p99_ns = f->have_lag ? ldb_hist_percentile(h, 99) : 0;
	f->lag_max_ns = f->have_lag ? h->max : 0;
}

static void lag_aggregate(struct ldb_sampler *s)
{
	if (!s->src.lag)
		return;
	ldb_hist_reset(&s->lag.agg);
	for (int i = 0; i < s->src.nlat; i++)
		if (s->src.lat[i]->lag.counts != NULL)
			ldb_hist_add(&s->lag.agg, &s->src.lat[i]->lag);
}

/* A sample's client figures into s->client (smp's counters and latencies
 * are already there). */
static void client_sample(struct ldb_sampler *s, struct ldb_sample *smp, const struct ldb_totals *cur)
{
	struct ldb_client_fig *f = &s->client;
	memset(f, 0, sizeof *f);
	client_read(s);
	client_cpu_fig(s, &s->c_prev, smp->seconds, f);
	client_server_fig(s, smp->lat, smp->ulat, f);
	client_ramp_fig(s, cur, f);
	lag_aggregate(s);
	if (s->src.lag) {
		ldb_hist_sub(&s->lag.delta, &s->lag.agg, &s->lag.prev);
		client_lag_fig(&s->lag.delta, f);
		ldb_hist_reset(&s->lag.prev);
		ldb_hist_add(&s->lag.prev, &s->lag.agg);
	}
	f->rate_target = smp->rate_target;
	s->target_integral += smp->rate_target * smp->seconds;
	f->rate = smp->seconds > 0 ? (double)smp->counted / smp->seconds : 0;
	ldb_client_judge(f);
	copy_cpu(&s->c_prev, &s->c_now, s->src.nrunners);
	smp->client = f;
}

/* The run's client figures (to the last sample: the threads may be gone). */
static void client_summary(struct ldb_sampler *s, struct ldb_summary *sum)
{
	struct ldb_client_fig *f = &s->client_sum;
	memset(f, 0, sizeof *f);
	client_cpu_fig(s, &s->c_start, (double)(s->t_last - s->t_start) / 1e9, f);
	client_server_fig(s, sum->lat, sum->ulat, f);
	client_ramp_fig(s, &sum->tot, f);
	lag_aggregate(s);
	if (s->src.lag)
		client_lag_fig(&s->lag.agg, f);
	f->rate_target = sum->rate_target;
	f->rate = sum->seconds > 0 ? (double)sum->counted / sum->seconds : 0;
	ldb_client_judge(f);
	sum->client = f;
}

int ldb_sampler_init(struct ldb_sampler *s, const struct ldb_sampler_src *src)
{
	const struct ldb_config *c = src->cfg;
	size_t n = (size_t)src->n;
	memset(s, 0, sizeof *s);
	s->src = *src;
	s->prev_counted = calloc(n, sizeof *s->prev_counted);
	s->active = calloc(n, sizeof *s->active);
	s->inact_row = calloc(n, sizeof *s->inact_row);
	s->inact_tot = calloc(n, sizeof *s->inact_tot);
	if (!s->prev_counted || !s->active || !s->inact_row || !s->inact_tot)
		return -1;
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			struct ldb_sampler_hset *h = &s->h[which][k];
			if (src->used[which][k] &&
			    (ldb_hist_init(&h->agg) || ldb_hist_init(&h->prev) || ldb_hist_init(&h->delta)))
				return -1;
		}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (ldb_stage_used(k, src->stages, src->rounds) && ldb_hist_init(&s->stage[k]))
			return -1;
	for (int i = 0; i < src->n; i++)
		s->active[i] = c->inactivity + 1;
	return client_init(s);
}

void ldb_sampler_free(struct ldb_sampler *s)
{
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			ldb_hist_free(&s->h[which][k].agg);
			ldb_hist_free(&s->h[which][k].prev);
			ldb_hist_free(&s->h[which][k].delta);
		}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		ldb_hist_free(&s->stage[k]);
	client_free(s);
	free(s->prev_counted);
	free(s->active);
	free(s->inact_row);
	free(s->inact_tot);
	s->prev_counted = NULL;
	s->active = NULL;
	s->inact_row = s->inact_tot = NULL;
}

void ldb_sampler_start(struct ldb_sampler *s, uint64_t now)
{
	memset(&s->prev, 0, sizeof s->prev);
	memset(s->prev_counted, 0, (size_t)s->src.n * sizeof *s->prev_counted);
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->src.used[which][k])
				ldb_hist_reset(&s->h[which][k].prev);
	s->t_start = s->t_last = now;
	s->target_integral = 0;
	client_start(s);
}

/* The running totals of every histogram in use, over the I/O threads. */
static void aggregate(struct ldb_sampler *s)
{
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (!s->src.used[which][k])
				continue;
			ldb_hist_reset(&s->h[which][k].agg);
			for (int i = 0; i < s->src.nlat; i++)
				ldb_hist_add(&s->h[which][k].agg, lat_hist(s->src.lat[i], which, k));
		}
}

void ldb_totals_add(struct ldb_totals *d, const struct ldb_totals *a)
{
	const uint64_t *pa = (const uint64_t *)a->op;
	uint64_t *pd = (uint64_t *)d->op;
	for (size_t i = 0; i < (sizeof a->op) / (sizeof(uint64_t)); i++)
		pd[i] += pa[i];
	d->counted += a->counted;
	d->connects += a->connects;
	d->reconnects += a->reconnects;
	d->setup_binds += a->setup_binds;
	d->setup_extended += a->setup_extended;
	d->tls_handshakes += a->tls_handshakes;
	d->tls_resumed += a->tls_resumed;
	d->parents_created += a->parents_created;
	d->parent_exists += a->parent_exists;
	d->parent_noparent += a->parent_noparent;
	d->parent_other += a->parent_other;
	d->parent_retries += a->parent_retries;
	d->dead += a->dead;
	d->conns_up += a->conns_up;
	d->conns_opening += a->conns_opening;
	d->clients_up += a->clients_up;
	d->clients_waiting += a->clients_waiting;
	d->conns_lost += a->conns_lost;
	d->all_up_ns = a->all_up_ns > d->all_up_ns ? a->all_up_ns : d->all_up_ns;
	d->clients_all_up += a->clients_all_up;
	d->clients_pending += a->clients_pending;
	d->clients_refused += a->clients_refused;
	d->clients_timed_out += a->clients_timed_out;
	d->clients_failed += a->clients_failed;
	for (int i = 0; i < LDB_FAIL_COUNT; i++)
		d->setup.fails[i] += a->setup.fails[i];
	d->setup.bind_refused += a->setup.bind_refused;
	for (int i = 0; i < LDB_CODE_SLOTS; i++) {
		d->setup.codes[i] += a->setup.codes[i];
		d->step_codes[i] += a->step_codes[i];
	}
}

void ldb_sampler_diff(struct ldb_totals *d, const struct ldb_totals *a, const struct ldb_totals *b)
{
	const uint64_t *pa = (const uint64_t *)a->op, *pb = (const uint64_t *)b->op;
	uint64_t *pd = (uint64_t *)d->op;
	for (size_t i = 0; i < (sizeof a->op) / (sizeof(uint64_t)); i++)
		pd[i] = pa[i] - pb[i];
	d->counted = a->counted - b->counted;
	d->connects = a->connects - b->connects;
	d->reconnects = a->reconnects - b->reconnects;
	d->setup_binds = a->setup_binds - b->setup_binds;
	d->setup_extended = a->setup_extended - b->setup_extended;
	d->tls_handshakes = a->tls_handshakes - b->tls_handshakes;
	d->tls_resumed = a->tls_resumed - b->tls_resumed;
	d->parents_created = a->parents_created - b->parents_created;
	d->parent_exists = a->parent_exists - b->parent_exists;
	d->parent_noparent = a->parent_noparent - b->parent_noparent;
	d->parent_other = a->parent_other - b->parent_other;
	d->parent_retries = a->parent_retries - b->parent_retries;
	d->dead = a->dead;
	/* the ramp is a state, not a count */
	d->conns_up = a->conns_up;
	d->conns_opening = a->conns_opening;
	d->clients_up = a->clients_up;
	d->clients_waiting = a->clients_waiting;
	d->clients_pending = a->clients_pending;
	d->clients_refused = a->clients_refused;
	d->clients_timed_out = a->clients_timed_out;
	d->clients_failed = a->clients_failed;
	for (int i = 0; i < LDB_FAIL_COUNT; i++)
		d->setup.fails[i] = a->setup.fails[i] - b->setup.fails[i];
	d->setup.bind_refused = a->setup.bind_refused - b->setup.bind_refused;
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		d->setup.codes[i] = a->setup.codes[i] - b->setup.codes[i];
}

/* "No activity" per client, as ldclt: a client whose count has not moved for
 * -i samples is reported (the dead are not), and so every -i samples. */
static void watch_activity(struct ldb_sampler *s)
{
	const struct ldb_config *c = s->src.cfg;
	for (int i = 0; i < s->src.n; i++) {
		uint64_t counted = ldb_load(&s->src.st[i]->counted);
		bool dead = __atomic_load_n(&s->src.st[i]->dead, __ATOMIC_ACQUIRE);
		if (counted != s->prev_counted[i]) {
			s->active[i] = c->inactivity + 1;
			s->inact_row[i] = 0;
		} else if (--s->active[i] <= 0 && !dead) {
			s->inact_row[i]++;
			s->inact_tot[i]++;
			if (!c->super_quiet && s->src.workload == NULL)
				ldb_text_line(s->src.text,
				              "T%03d: No activity for %d seconds -- %5lld in row, total %5lld", i,
				              (int)((uint64_t)(c->inactivity + 1) * c->interval_ms / 1000),
				              s->inact_row[i], s->inact_tot[i]);
			s->active[i] = c->inactivity + 1;
			s->no_activity++;
		}
		if (c->verbose > 1 && s->src.workload == NULL)
			ldb_text_line(s->src.text, "T%03d: nbOpers = %llu", i,
			              (unsigned long long)(counted - s->prev_counted[i]));
		s->prev_counted[i] = counted;
	}
}

/* The interval from the last sample to `now` into smp (cur: the counters now). */
static void interval(struct ldb_sampler *s, uint64_t now, struct ldb_totals *cur, struct ldb_sample *smp)
{
	struct ldb_totals d;
	if (s->given != NULL)
		*cur = *s->given;
	else
		ldb_totals_collect(cur, s->src.st, s->src.n);
	ldb_sampler_diff(&d, cur, &s->prev);
	aggregate(s);
	*smp = (struct ldb_sample){ .seconds = (double)(now - s->t_last) / 1e9,
		                    .counted = d.counted,
		                    .delta = d,
		                    .threads = s->src.n,
		                    .rate_target = s->rate_target,
		                    .workload = s->src.workload };
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (!s->src.used[which][k])
				continue;
			struct ldb_sampler_hset *h = &s->h[which][k];
			ldb_hist_sub(&h->delta, &h->agg, &h->prev);
			if (which == LDB_H_LAT)
				smp->lat[k] = &h->delta;
			else
				smp->ulat[k] = &h->delta;
		}
}

/* The interval is over: the next starts from here. */
static void interval_done(struct ldb_sampler *s, uint64_t now, const struct ldb_totals *cur)
{
	s->prev = *cur;
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->src.used[which][k]) {
				ldb_hist_reset(&s->h[which][k].prev);
				ldb_hist_add(&s->h[which][k].prev, &s->h[which][k].agg);
			}
	s->t_last = now;
}

static void to_reporters(struct ldb_sampler *s, const struct ldb_sample *smp)
{
	for (int i = 0; i < s->src.nrep; i++)
		if (s->src.rep[i].sample)
			s->src.rep[i].sample(s->src.rep[i].ctx, smp);
}

void ldb_sampler_take(struct ldb_sampler *s, uint64_t now)
{
	struct ldb_totals cur;
	struct ldb_sample smp;
	if (now < s->t_last) /* a clock read before ldb_sampler_start: an empty span, not 584 years */
		now = s->t_last;
	interval(s, now, &cur, &smp);
	watch_activity(s);
	client_sample(s, &smp, &cur);
	smp.index = ++s->nsamples;
	smp.t_end = (double)(now - s->t_start) / 1e9;
	ldb_text_sample(s->src.text, &smp);
	to_reporters(s, &smp);
	interval_done(s, now, &cur);
}

void ldb_sampler_final(struct ldb_sampler *s, uint64_t now)
{
	struct ldb_totals cur;
	struct ldb_sample smp;
	if (now < s->t_last)
		now = s->t_last;
	interval(s, now, &cur, &smp);
	bool moved = memcmp(cur.op, s->prev.op, sizeof cur.op) != 0 || cur.counted != s->prev.counted;
	if (now == s->t_last && !moved)
		return;
	client_sample(s, &smp, &cur);
	smp.index = ++s->nsamples;
	smp.t_end = (double)(now - s->t_start) / 1e9;
	smp.final = true;
	to_reporters(s, &smp);
	interval_done(s, now, &cur);
}

void ldb_sampler_summary(struct ldb_sampler *s, uint64_t now, struct ldb_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	if (now < s->t_start)
		now = s->t_start;
	sum->seconds = (double)(now - s->t_start) / 1e9;
	sum->threads = s->src.n;
	sum->workload = s->src.workload;
	const struct ldb_config *c = s->src.cfg;
	if (c->held > 0 || c->connect_rate > 0)
		sum->held = c->held > 0 ? c->held : (long long)c->threads * c->conns_per_thread;
	sum->no_activity = s->no_activity;
	sum->rate_target = s->src.cfg->rate;
	if (s->src.cfg->nrate_profile > 0 && s->t_last > s->t_start)
		sum->rate_target = s->target_integral / ((double)(s->t_last - s->t_start) / 1e9);
	ldb_totals_collect(&sum->tot, s->src.st, s->src.n);
	sum->counted = sum->tot.counted;
	aggregate(s);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->src.used[LDB_H_LAT][k])
			sum->lat[k] = &s->h[LDB_H_LAT][k].agg;
		if (s->src.used[LDB_H_ULAT][k])
			sum->ulat[k] = &s->h[LDB_H_ULAT][k].agg;
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (ldb_stage_used(k, s->src.stages, s->src.rounds)) {
			ldb_hist_reset(&s->stage[k]);
			for (int i = 0; i < s->src.nlat; i++)
				ldb_hist_add(&s->stage[k], &s->src.lat[i]->stage[k]);
			sum->stage[k] = &s->stage[k];
		}
	client_summary(s, sum);
}
