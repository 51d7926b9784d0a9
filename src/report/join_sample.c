/* The join's figures per sample window: see join.h.  Exact percentiles (the
 * nearest rank of the window's sorted values): a window holds few enough
 * operations to sort, and its figures are not merged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/join.h"

static int pt_cmp(const void *a, const void *b)
{
	const struct ldb_join_pt *x = a, *y = b;
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The nearest-rank percentile of v[0..n) sorted. */
static uint64_t rank(const int64_t *v, size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;
	return (uint64_t)v[r > 0 ? r - 1 : 0];
}

/* The figures of pts[0..n) (one window, one kind) into *s; vals: room for n. */
static void one_sample(struct ldb_join_sample *s, const struct ldb_join_pt *pts, size_t n, int64_t *vals)
{
	memset(s, 0, sizeof *s);
	s->window = pts[0].window;
	s->kind = pts[0].kind;
	s->sent = n;
	for (int f = 0; f < LDB_JF_COUNT; f++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (pts[i].joined && pts[i].v[f] >= 0)
				vals[m++] = pts[i].v[f];
		if (f == LDB_JF_CLIENT)
			for (size_t i = 0; i < n; i++)
				s->joined += pts[i].joined;
		if (m == 0)
			continue;
		qsort(vals, m, sizeof *vals, i64_cmp);
		s->has[f] = true;
		s->p50[f] = rank(vals, m, 50);
		s->p99[f] = rank(vals, m, 99);
	}
}

int ldb_join_samples(struct ldb_join *j, struct ldb_join_pt *pts, size_t n)
{
	if (n == 0 || j->interval_ns == 0)
		return 0;
	qsort(pts, n, sizeof *pts, pt_cmp);
	size_t groups = 1;
	for (size_t i = 1; i < n; i++)
		groups += pt_cmp(&pts[i - 1], &pts[i]) != 0;
	int64_t *vals = malloc(n * sizeof *vals);
	j->samples = calloc(groups, sizeof *j->samples);
	if (vals == NULL || j->samples == NULL) {
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && pt_cmp(&pts[i], &pts[e]) == 0)
			e++;
		one_sample(&j->samples[j->nsamples++], pts + i, e - i, vals);
		i = e;
	}
	free(vals);
	return 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void ldb_join_samples_text(const struct ldb_join *j, FILE *out)
{
	if (j->nsamples == 0)
		return;
	fprintf(out,
	        "Server log (%s), per sample of %.3g s (by send time), ms p50/p99: sample kind joined/sent client "
	        "etime queue processing outside\n",
	        j->server, (double)j->interval_ns / 1e9);
	for (size_t i = 0; i < j->nsamples; i++) {
		const struct ldb_join_sample *s = &j->samples[i];
		fprintf(out, "Server log (%s), sample %" PRIu32 " %s %" PRIu64 "/%" PRIu64, j->server, s->window,
		        ldb_ops[s->kind]->name, s->joined, s->sent);
		for (int f = 0; f < LDB_JF_COUNT; f++)
			if (s->has[f])
				fprintf(out, " %.3f/%.3f", ms(s->p50[f]), ms(s->p99[f]));
			else
				fputs(" -", out);
		fputc('\n', out);
	}
}

void ldb_join_samples_json(FILE *f, const struct ldb_join *j)
{
	fprintf(f, ",\"interval_ms\":%.3f,\"samples\":[", (double)j->interval_ns / 1e6);
	for (size_t i = 0; i < j->nsamples; i++) {
		const struct ldb_join_sample *s = &j->samples[i];
		fprintf(f, "%s{\"sample\":%" PRIu32 ",\"kind\":\"%s\",\"sent\":%" PRIu64 ",\"joined\":%" PRIu64,
		        i ? "," : "", s->window, ldb_ops[s->kind]->name, s->sent, s->joined);
		for (int g = 0; g < LDB_JF_COUNT; g++)
			if (s->has[g])
				fprintf(f, ",\"%s\":{\"p50_ms\":%.6f,\"p99_ms\":%.6f}", ldb_jfig_name[g], ms(s->p50[g]),
				        ms(s->p99[g]));
		fputc('}', f);
	}
	fputc(']', f);
}

static void csv_fig(FILE *f, const char *sample, const char *kind, uint64_t sent, uint64_t joined, int fig,
                    const struct ldb_hist *h)
{
	fprintf(f, "%s,%s,%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%.3f,%.3f,%.3f,%.3f,%.3f\n", sample, kind, sent,
	        joined, ldb_jfig_name[fig], h->total, h->total ? (double)h->min / 1e3 : 0.0,
	        (double)ldb_hist_percentile(h, 50) / 1e3, (double)ldb_hist_percentile(h, 95) / 1e3,
	        (double)ldb_hist_percentile(h, 99) / 1e3, (double)h->max / 1e3);
}

static void csv_kind(FILE *f, const char *name, const struct ldb_join_kind *k)
{
	for (int g = 0; g < LDB_JF_COUNT; g++)
		if (k->joined > 0 && !(g == LDB_JF_QUEUE && !k->queue) && !(g == LDB_JF_PROC && !k->proc))
			csv_fig(f, "run", name, k->sent, k->joined, g, &k->h[g]);
}

void ldb_join_put_csv(FILE *f, const struct ldb_join *j)
{
	fputs(LDB_JOIN_CSV_HEADER "\n", f);
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k])
			csv_kind(f, ldb_ops[k]->name, &j->k[k]);
	csv_kind(f, "all", &j->all);
	for (size_t i = 0; i < j->nsamples; i++) {
		const struct ldb_join_sample *s = &j->samples[i];
		for (int g = 0; g < LDB_JF_COUNT; g++)
			if (s->has[g])
				fprintf(f, "%" PRIu32 ",%s,%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",,%.3f,,%.3f,\n",
				        s->window, ldb_ops[s->kind]->name, s->sent, s->joined, ldb_jfig_name[g],
				        s->joined, (double)s->p50[g] / 1e3, (double)s->p99[g] / 1e3);
	}
}
