/* Several workloads in one run ([workload NAME] sections of a scenario file,
 * cli/workloads): each workload its own run (templates, mix, rate), clients,
 * per-I/O-thread histograms and sampler; all clients dealt to the same I/O
 * threads; the load's own sampler (cmd/load) reads every client and
 * histogram for the total.  See docs/guide.md "Several workloads". */
#include "cmd/load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/iothread_plan.h"

/* Each workload's run and histogram plan; the load's plan the union. */
static int init_runs(struct load *l, int *depth)
{
	char err[512];
	*depth = 1;
	l->n = 0;
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		wl->cfg = &l->cfg->wl[j];
		if (ldb_run_init(&wl->run, wl->cfg, err, sizeof err) != 0) {
			fprintf(stderr, "%s: [workload %s]: %s\n", l->cfg->progname, wl->cfg->wl_name, err);
			return -1;
		}
		wl->inited = true;
		wl->run.line_fd = l->run.line_fd;
		wl->n = wl->cfg->threads;
		l->n += wl->n;
		if (wl->run.depth > *depth)
			*depth = wl->run.depth;
		ldb_load_plan(wl->cfg, &wl->run, wl->used);
		for (int h = 0; h < LDB_H_COUNT; h++)
			for (int k = 0; k < LDB_OP_COUNT; k++)
				l->used[h][k] |= wl->used[h][k];
	}
	return 0;
}

static int alloc_all(struct load *l)
{
	l->w = calloc((size_t)l->n, sizeof *l->w);
	l->st = calloc((size_t)l->n, sizeof *l->st);
	l->seen_dead = calloc((size_t)l->n, sizeof *l->seen_dead);
	l->r = calloc((size_t)l->nr, sizeof *l->r);
	l->lat = calloc((unsigned)(l->nr * l->nwl), sizeof *l->lat);
	if (!l->w || !l->st || !l->seen_dead || !l->r || !l->lat)
		return -1;
	for (int j = 0; j < l->nwl; j++) {
		l->wl[j].st = calloc((size_t)l->wl[j].n, sizeof *l->wl[j].st);
		l->wl[j].lat = calloc((size_t)l->nr, sizeof *l->wl[j].lat);
		if (!l->wl[j].st || !l->wl[j].lat)
			return -1;
	}
	for (int k = 0; k < l->nr && l->nwl > 1; k++) {
		l->r[k].nxlat = l->nwl - 1;
		if ((l->r[k].xlat = calloc((unsigned)l->r[k].nxlat, sizeof *l->r[k].xlat)) == NULL)
			return -1;
	}
	return 0;
}

/* I/O thread k carries a share of every workload's clients (contiguous in
 * l->w, workload by workload); a client's number is its number in its
 * workload (its value sequences, its RNG). */
static int deal(struct load *l)
{
	int i = 0, *filled = l->nwl > 0 ? calloc((unsigned)l->nwl, sizeof *filled) : NULL;
	if (filled == NULL)
		return -1;
	for (int k = 0; k < l->nr; k++) {
		struct ldb_iothread *r = &l->r[k];
		r->w = &l->w[i];
		for (int j = 0; j < l->nwl; j++) {
			struct ldb_wl *wl = &l->wl[j];
			struct ldb_lat *lat = j == 0 ? &r->lat : &r->xlat[j - 1];
			int first, cnt = ldb_io_share(wl->n, l->nr, k, &first);
			wl->lat[k] = lat;
			l->lat[k * l->nwl + j] = lat;
			if (ldb_load_init_lat(wl->cfg, &wl->run, (const bool(*)[LDB_OP_COUNT])wl->used, lat) != 0)
				goto fail;
			for (int q = 0; q < cnt; q++, i++) {
				if ((l->st[i] = ldb_thread_stats_new()) == NULL)
					goto fail;
				if (ldb_client_init(&l->w[i], &wl->run, first + q, l->st[i]) != 0)
					goto fail;
				l->w[i].lat = lat;
				wl->st[filled[j]++] = l->st[i];
			}
		}
		r->nw = (int)(&l->w[i] - r->w);
	}
	free(filled);
	return 0;
fail:
	free(filled);
	return -1;
}

static int init_samplers(struct load *l)
{
	bool stages = false, rounds = false, lag = false;
	double rate = 0;
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		wl->text = l->text;
		wl->text.cfg = wl->cfg;
		wl->text.tag = wl->cfg->wl_name;
		struct ldb_sampler_src src = { .cfg = wl->cfg,
			                       .st = wl->st,
			                       .n = wl->n,
			                       .lat = wl->lat,
			                       .nlat = l->nr,
			                       .stages = wl->cfg->bindeach,
			                       .rounds = ldb_load_multistep(&wl->run),
			                       .text = &wl->text,
			                       .rep = l->rep,
			                       .nrep = l->nrep,
			                       .lag = ldb_load_lag(wl->cfg),
			                       .workload = wl->cfg->wl_name };
		memcpy(src.used, wl->used, sizeof src.used);
		if (ldb_sampler_init(&wl->smp, &src) != 0)
			return -1;
		stages |= src.stages;
		rounds |= src.rounds;
		lag |= src.lag;
		/* the total's target: the sum, when every workload has one over the whole run */
		bool whole = wl->cfg->start_after_ms == 0 &&
		             (wl->cfg->duration_ms == 0 || wl->cfg->duration_ms == l->cfg->duration_ms);
		rate = rate >= 0 && wl->cfg->rate > 0 && whole ? rate + wl->cfg->rate : -1;
	}
	struct ldb_sampler_src src = { .cfg = l->cfg,
		                       .st = l->st,
		                       .n = l->n,
		                       .lat = l->lat,
		                       .nlat = l->nr * l->nwl,
		                       .stages = stages,
		                       .rounds = rounds,
		                       .text = &l->text,
		                       .rep = l->rep,
		                       .nrep = l->nrep,
		                       .runners = l->r,
		                       .nrunners = l->nr,
		                       .lag = lag };
	memcpy(src.used, l->used, sizeof src.used);
	if (ldb_sampler_init(&l->smp, &src) != 0)
		return -1;
	l->smp.rate_target = rate > 0 ? rate : 0; /* the total's target: every workload's, when each has one */
	return 0;
}

int ldb_wl_setup(struct load *l)
{
	int depth;
	l->nwl = l->cfg->nwl;
	if ((l->wl = calloc((unsigned)l->nwl, sizeof *l->wl)) == NULL)
		return -1;
	if (init_runs(l, &depth) != 0)
		return -2;
	l->nr = ldb_io_threads(l->cfg, l->n, depth, sysconf(_SC_NPROCESSORS_ONLN));
	if (alloc_all(l) != 0 || deal(l) != 0 || init_samplers(l) != 0)
		return -1;
	return 0;
}

void ldb_wl_teardown(struct load *l)
{
	for (int k = 0; l->r != NULL && k < l->nr; k++) {
		for (int j = 0; j < l->r[k].nxlat; j++)
			if (l->r[k].xlat != NULL) {
				struct ldb_lat *lat = &l->r[k].xlat[j];
				for (int q = 0; q < LDB_OP_COUNT; q++) {
					ldb_hist_free(&lat->op[q]);
					ldb_hist_free(&lat->uop[q]);
				}
				for (int q = 0; q < LDB_STAGE_COUNT; q++)
					ldb_hist_free(&lat->stage[q]);
				ldb_hist_free(&lat->lag);
			}
		free(l->r[k].xlat);
	}
	for (int j = 0; l->wl != NULL && j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		ldb_sampler_free(&wl->smp);
		free(wl->st);
		free(wl->lat);
		if (wl->inited)
			ldb_run_free(&wl->run);
	}
	free(l->wl);
	l->wl = NULL;
}

void ldb_wl_store_stop(struct load *l, int stop)
{
	for (int j = 0; j < l->nwl; j++)
		__atomic_store_n(&l->wl[j].run.stop, stop, __ATOMIC_RELAXED);
}

/* -E in a workload (its clients set it): the whole run stops.  A workload's
 * own end (ldb_wl_tick) is not the run's. */
int ldb_wl_load_stop(const struct load *l)
{
	for (int j = 0; j < l->nwl; j++)
		if (__atomic_load_n(&l->wl[j].run.stop, __ATOMIC_RELAXED) == LDB_STOP_MAX_ERRORS)
			return LDB_STOP_MAX_ERRORS;
	return LDB_STOP_NONE;
}

void ldb_wl_begin(struct load *l, uint64_t t_run)
{
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		wl->begin_ns = t_run + wl->cfg->start_after_ms * 1000000ULL;
		wl->end_ns = wl->cfg->duration_ms > 0 ? wl->begin_ns + wl->cfg->duration_ms * 1000000ULL : 0;
	}
}

void ldb_wl_start(struct load *l, uint64_t now)
{
	for (int j = 0; j < l->nwl; j++)
		if (l->wl[j].begin_ns <= now) {
			ldb_sampler_start(&l->wl[j].smp, now);
			l->wl[j].started = true;
		}
}

void ldb_wl_tick(struct load *l, uint64_t now)
{
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		if (wl->end_ns != 0 && now >= wl->end_ns && !wl->stopped) {
			wl->stopped = true;
			__atomic_store_n(&wl->run.stop, LDB_STOP_DONE, __ATOMIC_RELAXED);
		}
	}
}

/* The end of a workload's time by `now`. */
static uint64_t wl_now(const struct ldb_wl *wl, uint64_t now)
{
	return wl->end_ns != 0 && now > wl->end_ns ? wl->end_ns : now;
}

void ldb_wl_zero(struct load *l, int thread)
{
	for (int j = 0; j < l->r[thread].nxlat; j++)
		ldb_lat_reset(&l->r[thread].xlat[j]);
}

void ldb_wl_sample(struct load *l, uint64_t now, bool final)
{
	if (l->nwl == 0)
		return;
	memset(&l->wtot, 0, sizeof l->wtot);
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		if (!wl->started && now >= wl->begin_ns) { /* --start-after: its time starts now */
			ldb_sampler_start(&wl->smp, wl->begin_ns);
			wl->started = true;
		}
		if (!wl->started || (!final && wl->end_ns != 0 && wl->smp.t_last >= wl->end_ns))
			continue; /* not begun yet, or its time is over (its last sample taken) */
		if (final)
			ldb_sampler_final(&wl->smp, wl_now(wl, now));
		else
			ldb_sampler_take(&wl->smp, wl_now(wl, now));
	}
	/* the total's sample: these counters added (a workload not begun has none) */
	for (int j = 0; j < l->nwl; j++)
		if (l->wl[j].started)
			ldb_totals_add(&l->wtot, &l->wl[j].smp.prev);
	l->smp.given = &l->wtot;
}

void ldb_wl_summaries(struct load *l, uint64_t now, bool print, struct ldb_summary *sums)
{
	for (int j = 0; j < l->nwl; j++) {
		struct ldb_wl *wl = &l->wl[j];
		if (!wl->started) { /* never begun: nothing, over no time */
			ldb_sampler_start(&wl->smp, now);
			wl->started = true;
		}
		ldb_sampler_summary(&wl->smp, wl_now(wl, now), &sums[j]);
		sums[j].main_op = (int)wl->run.main_op;
		if (print)
			ldb_text_summary(&wl->text, &sums[j]);
	}
}

bool ldb_wl_connect_error(const struct load *l, char *where, size_t wcap, char *why, size_t ycap)
{
	for (int j = 0; j < l->nwl; j++)
		if (ldb_run_connect_error(&l->wl[j].run, where, wcap, why, ycap))
			return true;
	return false;
}
