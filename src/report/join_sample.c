/* The join's figures per sample window: see join.h.  Exact percentiles (the
 * nearest rank of the window's values, found by selection): the run's
 * measured operations are held, and a window's figures are not merged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/join.h"
#include "report/join_int.h"
#include "util/util.h"

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

/* The nearest-rank index (from 0) of percentile pct of n values. */
static size_t rank_of(size_t n, unsigned pct)
{
	size_t r = (n * pct + 99) / 100;
	return r > 0 ? r - 1 : 0;
}

/* The nearest-rank p50 of v[0..n) (reordered), and its p99 into *p99: the
 * second selected among the values at and above the first (the selection
 * leaves the greater ones there). */
static uint64_t two_ranks(int64_t *v, size_t n, uint64_t *p99)
{
	size_t k50 = rank_of(n, 50), k99 = rank_of(n, 99);
	uint64_t p50 = (uint64_t)select_k(v, n, k50);
	*p99 = (uint64_t)select_k(v + k50, n - k50, k99 - k50);
	return p50;
}

/* Record i's figure f in ns (-1: not logged). */
static int64_t figure(const struct ldb_join_view *v, size_t i, int f)
{
	const struct ldb_oprec *r = &v->rec[i];
	const struct ldb_join_res *x = &v->res[i];
	switch (f) {
	case LDB_JF_CLIENT: return (int64_t)r->lat;
	case LDB_JF_ETIME: return x->etime;
	case LDB_JF_QUEUE: return x->queue;
	case LDB_JF_PROC: return x->proc;
	default: return (int64_t)r->lat > x->etime ? (int64_t)r->lat - x->etime : 0;
	}
}

/* The sample group of record i, (window - 1) x LDB_OP_COUNT + kind, or
 * SIZE_MAX for a record not in the samples (not measured, no response). */
static size_t group_of(const struct ldb_join_view *v, size_t i)
{
	const struct ldb_oprec *r = &v->rec[i];
	if ((r->flags & (LDB_OPREC_MEASURED | LDB_OPREC_NORESPONSE)) != LDB_OPREC_MEASURED || r->kind >= LDB_OP_COUNT)
		return SIZE_MAX;
	uint32_t window = (uint32_t)((r->t_sent > v->t_measure ? r->t_sent - v->t_measure : 0) / v->interval_ns + 1);
	return (size_t)(uint32_t)(window - 1) * LDB_OP_COUNT + r->kind;
}

/* The figures of the records idx[0..n) (one window, one kind) into *s;
 * vals: room for n. */
static void one_sample(struct ldb_join_sample *s, const struct ldb_join_view *v, const uint32_t *idx, size_t n,
                       int64_t *vals)
{
	memset(s, 0, sizeof *s);
	size_t g = group_of(v, idx[0]);
	s->window = (uint32_t)(g / LDB_OP_COUNT + 1);
	s->kind = (uint8_t)(g % LDB_OP_COUNT);
	s->sent = n;
	for (size_t i = 0; i < n; i++)
		s->joined += v->res[idx[i]].joined;
	for (int f = 0; f < LDB_JF_COUNT; f++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t x = v->res[idx[i]].joined ? figure(v, idx[i], f) : -1;
			if (x >= 0)
				vals[m++] = x;
		}
		if (m == 0)
			continue;
		s->has[f] = true;
		s->p50[f] = two_ranks(vals, m, &s->p99[f]);
	}
}

/* A sample record and its group, for the sort of groups far apart. */
struct gi {
	size_t g;
	uint32_t i;
};

static int gi_cmp(const void *a, const void *b)
{
	const struct gi *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The sample records' indexes into idx[0..n) by group, sorted (records of
 * a group in their order) where groups are far apart.  at: room for n + 1.
 * @return 0, or -1 (memory). */
static int sort_groups(const struct ldb_join_view *v, uint32_t *idx, size_t n, size_t *at, size_t *ngr)
{
	struct gi *p = malloc((n > 0 ? n : 1) * sizeof *p);
	if (p == NULL)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < v->n; i++) {
		size_t g = group_of(v, i);
		if (g != SIZE_MAX)
			p[m++] = (struct gi){ g, (uint32_t)i };
	}
	qsort(p, m, sizeof *p, gi_cmp);
	*ngr = 0;
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || p[i].g != p[i - 1].g)
			at[(*ngr)++] = i;
		idx[i] = p[i].i;
	}
	at[*ngr] = m;
	free(p);
	return 0;
}

/* The sample records' indexes into idx by group, counted (ngroups groups,
 * records of a group in their order); at: room for ngroups + 1. */
static void count_groups(const struct ldb_join_view *v, uint32_t *idx, size_t *at, size_t ngroups, size_t *ngr)
{
	memset(at, 0, (ngroups + 1) * sizeof *at);
	for (size_t i = 0; i < v->n; i++) {
		size_t g = group_of(v, i);
		if (g != SIZE_MAX)
			at[g + 1]++;
	}
	for (size_t g = 1; g <= ngroups; g++)
		at[g] += at[g - 1];
	for (size_t i = 0; i < v->n; i++) {
		size_t g = group_of(v, i);
		if (g != SIZE_MAX)
			idx[at[g]++] = (uint32_t)i;
	}
	/* at[g]: group g's end; the non-empty groups' starts to the front */
	size_t from = 0, w = 0;
	for (size_t g = 0; g < ngroups; g++) {
		size_t end = at[g];
		if (end > from)
			at[w++] = from;
		from = end;
	}
	at[w] = from;
	*ngr = w;
}

int ldb_join_samples(struct ldb_join *j, const struct ldb_join_view *v)
{
	if (v->n == 0 || v->interval_ns == 0 || v->n > UINT32_MAX)
		return 0;
	size_t ngroups = 0, n = 0, ngr = 0, most = 0;
	for (size_t i = 0; i < v->n; i++) {
		size_t g = group_of(v, i);
		if (g != SIZE_MAX && g >= ngroups)
			ngroups = g + 1;
		n += g != SIZE_MAX;
	}
	bool sparse = ngroups > 4 * n + 4096; /* windows far apart: sorted, not counted */
	uint32_t *idx = malloc((n > 0 ? n : 1) * sizeof *idx);
	ldb_hugepages(idx, n * sizeof *idx);
	size_t *at = idx != NULL ? malloc(((sparse ? n : ngroups) + 1) * sizeof *at) : NULL;
	int rc = at == NULL ? -1 : 0;
	if (rc == 0 && sparse)
		rc = sort_groups(v, idx, n, at, &ngr);
	else if (rc == 0)
		count_groups(v, idx, at, ngroups, &ngr);
	for (size_t g = 0; rc == 0 && g < ngr; g++)
		most = at[g + 1] - at[g] > most ? at[g + 1] - at[g] : most;
	int64_t *vals = rc == 0 ? malloc((most > 0 ? most : 1) * sizeof *vals) : NULL;
	j->samples = vals != NULL ? calloc(ngr > 0 ? ngr : 1, sizeof *j->samples) : NULL;
	rc = j->samples == NULL ? -1 : 0;
	for (size_t g = 0; rc == 0 && g < ngr; g++)
		one_sample(&j->samples[j->nsamples++], v, idx + at[g], at[g + 1] - at[g], vals);
	free(vals);
	free(idx);
	free(at);
	return rc;
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
