/* The sampler: see sampler.h. */
#include "out/sampler.h"

#include <stdlib.h>
#include <string.h>

static struct ldb_hist *lat_hist(struct ldb_lat *lat, int which, int k)
{
	return which == LDB_H_LAT ? &lat->op[k] : &lat->uop[k];
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
	if (src->stages)
		for (int k = 0; k < LDB_STAGE_COUNT; k++)
			if (ldb_hist_init(&s->stage[k]))
				return -1;
	for (int i = 0; i < src->n; i++)
		s->active[i] = c->inactivity + 1;
	return 0;
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
	d->tls_handshakes = a->tls_handshakes - b->tls_handshakes;
	d->tls_resumed = a->tls_resumed - b->tls_resumed;
	d->parents_created = a->parents_created - b->parents_created;
	d->parent_exists = a->parent_exists - b->parent_exists;
	d->parent_noparent = a->parent_noparent - b->parent_noparent;
	d->parent_other = a->parent_other - b->parent_other;
	d->parent_retries = a->parent_retries - b->parent_retries;
	d->dead = a->dead;
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
			if (!c->super_quiet)
				ldb_text_line(s->src.text,
				              "T%03d: No activity for %d seconds -- %5lld in row, total %5lld", i,
				              (int)((uint64_t)(c->inactivity + 1) * c->interval_ms / 1000),
				              s->inact_row[i], s->inact_tot[i]);
			s->active[i] = c->inactivity + 1;
			s->no_activity++;
		}
		if (c->verbose > 1)
			ldb_text_line(s->src.text, "T%03d: nbOpers = %llu", i,
			              (unsigned long long)(counted - s->prev_counted[i]));
		s->prev_counted[i] = counted;
	}
}

void ldb_sampler_take(struct ldb_sampler *s, uint64_t now)
{
	struct ldb_totals cur, d;
	if (now < s->t_last) /* a clock read before ldb_sampler_start: an empty span, not 584 years */
		now = s->t_last;
	ldb_totals_collect(&cur, s->src.st, s->src.n);
	ldb_sampler_diff(&d, &cur, &s->prev);
	aggregate(s);
	struct ldb_sample smp = { .seconds = (double)(now - s->t_last) / 1e9,
		                  .counted = d.counted,
		                  .delta = d,
		                  .threads = s->src.n,
		                  .rate_target = s->src.cfg->rate };
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (!s->src.used[which][k])
				continue;
			struct ldb_sampler_hset *h = &s->h[which][k];
			ldb_hist_sub(&h->delta, &h->agg, &h->prev);
			if (which == LDB_H_LAT)
				smp.lat[k] = &h->delta;
			else
				smp.ulat[k] = &h->delta;
		}
	watch_activity(s);
	smp.index = ++s->nsamples;
	smp.t_end = (double)(now - s->t_start) / 1e9;
	ldb_text_sample(s->src.text, &smp);
	for (int i = 0; i < s->src.nrep; i++)
		if (s->src.rep[i].sample)
			s->src.rep[i].sample(s->src.rep[i].ctx, &smp);
	s->prev = cur;
	for (int which = 0; which < LDB_H_COUNT; which++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->src.used[which][k]) {
				ldb_hist_reset(&s->h[which][k].prev);
				ldb_hist_add(&s->h[which][k].prev, &s->h[which][k].agg);
			}
	s->t_last = now;
}

void ldb_sampler_summary(struct ldb_sampler *s, uint64_t now, struct ldb_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	if (now < s->t_start)
		now = s->t_start;
	sum->seconds = (double)(now - s->t_start) / 1e9;
	sum->threads = s->src.n;
	sum->no_activity = s->no_activity;
	sum->rate_target = s->src.cfg->rate;
	ldb_totals_collect(&sum->tot, s->src.st, s->src.n);
	sum->counted = sum->tot.counted;
	aggregate(s);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->src.used[LDB_H_LAT][k])
			sum->lat[k] = &s->h[LDB_H_LAT][k].agg;
		if (s->src.used[LDB_H_ULAT][k])
			sum->ulat[k] = &s->h[LDB_H_ULAT][k].agg;
	}
	if (s->src.stages)
		for (int k = 0; k < LDB_STAGE_COUNT; k++) {
			ldb_hist_reset(&s->stage[k]);
			for (int i = 0; i < s->src.nlat; i++)
				ldb_hist_add(&s->stage[k], &s->src.lat[i]->stage[k]);
			sum->stage[k] = &s->stage[k];
		}
}
