/* The join's figures per sample window: see join.h.  Exact percentiles (the
 * nearest rank of the window's values, found by selection): the run's
 * measured operations are held, and a window's figures are not merged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/join.h"
#include "util/gsort.h"
#include "util/util.h"

static int pt_cmp(const void *a, const void *b)
{
	const struct ldb_join_pt *x = a, *y = b;
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* The k-th smallest of v[0..n) (k < n), v reordered around it (selection
 * with a three-way partition, median-of-three pivot): linear on average,
 * where sorting a window's values was n log n; runs of equal values cost
 * one pass. */
static int64_t select_k(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* [lo, hi) holds the k-th */
	while (hi - lo > 1) {
		int64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		int64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < pivot, [lt, gt) = pivot, [gt, hi) > pivot */
		while (i < gt) {
			int64_t t = v[i];
			if (t < pivot) {
				v[i++] = v[lt];
				v[lt++] = t;
			} else if (t > pivot) {
				v[i] = v[--gt];
				v[gt] = t;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

/* The nearest-rank percentile pct of v[0..n) (reordered). */
static uint64_t rank(int64_t *v, size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;
	return (uint64_t)select_k(v, n, r > 0 ? r - 1 : 0);
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
		s->has[f] = true;
		s->p50[f] = rank(vals, m, 50);
		s->p99[f] = rank(vals, m, 99);
	}
}

static size_t pt_group(const void *a)
{
	const struct ldb_join_pt *p = a;
	return (size_t)(p->window - 1) * LDB_OP_COUNT + p->kind;
}

int ldb_join_samples(struct ldb_join *j, struct ldb_join_pt *pts, size_t n)
{
	if (n == 0 || j->interval_ns == 0)
		return 0;
	uint32_t windows = 0;
	for (size_t i = 0; i < n; i++)
		if (pts[i].window > windows)
			windows = pts[i].window;
	ldb_gsort(pts, n, sizeof *pts, (size_t)windows * LDB_OP_COUNT, pt_group, pt_cmp);
	size_t groups = 1;
	for (size_t i = 1; i < n; i++)
		groups += pt_cmp(&pts[i - 1], &pts[i]) != 0;
	int64_t *vals = malloc(n * sizeof *vals);
	ldb_hugepages(vals, n * sizeof *vals);
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
