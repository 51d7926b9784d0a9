/* `ldbench compare`: the listeners' figures of the two sides (cmp_runs.h),
 * from the summary records' "listeners" object (listen_lines.c). */
#include <stdlib.h>
#include <string.h>

#include "cli/fail_if.h"
#include "report/cmp_runs.h"
#include "report/records.h"

/* Each figure: its path in the "listeners" object, its label, its decimals. */
static const struct {
	const char *path, *label;
	int prec;
} lfig[LDB_CMP_LFIGS] = {
	{ "refresh_p50_ms", "refresh p50 ms", 3 },  { "refresh_max_ms", "refresh max ms", 3 },
	{ "delay.p50_ms", "delay p50 ms", 3 },      { "delay.p99_ms", "delay p99 ms", 3 },
	{ "delay.max_ms", "delay max ms", 3 },      { "missing", "missing", 0 },
	{ "duplicated", "duplicated", 0 },          { "out_of_order", "out of order", 0 },
	{ "baseline.rate_ratio", "rate ratio", 4 }, { "baseline.p99_ratio", "p99 ratio", 4 },
};

void ldb_cmp_listen_from_record(const struct ldb_json *sum, struct ldb_cmp_run *r)
{
	const struct ldb_json *l = ldb_json_get(sum, "listeners");
	if (l == NULL || l->type != LDB_JSON_OBJECT)
		return;
	for (int f = 0; f < LDB_CMP_LFIGS; f++)
		r->lhas[f] = ldb_json_double(ldb_json_path(l, lfig[f].path), &r->lv[f]) == 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of one figure over the runs that have it.  @return false: none has. */
static bool median(const struct ldb_cmp_run *runs, int n, int f, double *out)
{
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
	int m = 0;
	for (int i = 0; v != NULL && i < n; i++)
		if (runs[i].lhas[f])
			v[m++] = runs[i].lv[f];
	if (m > 0) {
		qsort(v, (size_t)m, sizeof *v, cmp_d);
		*out = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	}
	free(v);
	return m > 0;
}

void ldb_cmp_listen_print(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc, FILE *out)
{
	bool head = false;
	for (int f = 0; f < LDB_CMP_LFIGS; f++) {
		double b, c;
		if (!median(base, nb, f, &b) || !median(change, nc, f, &c))
			continue;
		if (!head)
			fprintf(out, "%-8s %-15s %12s %12s %12s %8s\n", "listen", "figure", "base", "change", "delta",
			        "change %");
		head = true;
		int p = lfig[f].prec;
		fprintf(out, "%-8s %-15s %12.*f %12.*f %+12.*f", "listen", lfig[f].label, p, b, p, c, p, c - b);
		if (b > 0)
			fprintf(out, " %+7.1f%%\n", 100.0 * (c - b) / b);
		else
			fprintf(out, " %8s\n", "n/a");
	}
	if (head)
		fprintf(out, "(listeners: medians of the runs' figures; delay from the write's confirmation to its "
		             "arrival)\n");
}

int ldb_cmp_listen_index(const struct ldb_threshold *t)
{
	switch (t->lfig) {
	case LDB_LF_REFRESH: return t->metric == LDB_M_MAX ? 1 : 0;
	case LDB_LF_DELAY: return t->metric == LDB_M_P50 ? 2 : t->metric == LDB_M_P99 ? 3 : 4;
	case LDB_LF_MISSING: return 5;
	case LDB_LF_DUP: return 6;
	case LDB_LF_OOO: return 7;
	default: return 5; /* the parser takes no other in compare */
	}
}

bool ldb_cmp_listen_holds(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc,
                          const struct ldb_cmp_cond *c, double *v, const char **label)
{
	double b = 0, ch;
	*label = lfig[c->lfig].label;
	if (!median(change, nc, c->lfig, &ch) || (!c->count && (!median(base, nb, c->lfig, &b) || !(b > 0))))
		return false;
	*v = c->count ? ch : 100.0 * (ch - b) / b;
	struct ldb_threshold t = { .cmp = c->cmp, .value = c->pct, .relative = !c->count };
	return ldb_threshold_holds(&t, *v);
}
