/* Runs against runs (cmp_runs.h): medians, spreads and changes, the
 * conditions, the table. */
#include "report/cmp_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/records.h"
#include "cli/fail_if.h"
#include "ops/ops.h"

static const char *const metric_names[LDB_CMP_METRICS] = { "rate", "p50", "p99", "misses", "hits" };

const char *ldb_cmp_metric_name(enum ldb_cmp_metric m)
{
	return m < LDB_CMP_METRICS ? metric_names[m] : "?";
}

/* compare's metrics in the shared grammar's terms. */
static const enum ldb_metric shared_metric[LDB_CMP_METRICS] = { LDB_M_RATE, LDB_M_P50, LDB_M_P99, LDB_M_MISSES,
	                                                        LDB_M_HITS };
/* the table's labels, one per metric (the array's size and the check below keep them complete) */
static const char *const metric_label[] = { "rate /s", "p50 ms", "p99 ms", "misses", "hits" };
_Static_assert(sizeof metric_label / sizeof metric_label[0] == LDB_CMP_METRICS, "a label for every metric");

const char *ldb_cmp_metric_label(enum ldb_cmp_metric m)
{
	return m < LDB_CMP_METRICS ? metric_label[m] : "?";
}

double ldb_cmp_metric_value(enum ldb_cmp_metric m, double v)
{
	return m == LDB_CMP_P50 || m == LDB_CMP_P99 ? v / 1e3 : v; /* the records' us to the table's ms */
}

int ldb_cmp_metric_decimals(enum ldb_cmp_metric m)
{
	return m == LDB_CMP_RATE ? 2 : m >= LDB_CMP_MISSES ? 0 : 3;
}

/* "WORKLOAD.COND": the workload's name into c->wl, t from the rest.  @return 0 or -1. */
static int workload_cond(const char *expr, struct ldb_cmp_cond *c, struct ldb_threshold *t)
{
	const char *p = expr + strspn(expr, " \t"), *dot = strchr(p, '.');
	char why[300];
	size_t n = dot != NULL ? (size_t)(dot - p) : 0;
	if (n == 0 || n >= sizeof c->wl ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n ||
	    ldb_threshold_parse_form(t, dot + 1, &ldb_threshold_compare, why, sizeof why) != 0)
		return -1;
	memcpy(c->wl, p, n);
	c->wl[n] = '\0';
	return 0;
}

int ldb_cmp_parse_cond(const char *expr, struct ldb_cmp_cond *c, char *err, size_t cap)
{
	struct ldb_threshold t;
	memset(c, 0, sizeof *c);
	if (ldb_threshold_parse_form(&t, expr, &ldb_threshold_compare, err, cap) != 0 &&
	    workload_cond(expr, c, &t) != 0)
		return -1; /* the line the plain grammar gave */
	c->kind = t.source == LDB_TS_REPL ? LDB_CMP_REPL : t.kind;
	for (int m = 0; m < LDB_CMP_METRICS; m++)
		if (shared_metric[m] == t.metric)
			c->metric = (enum ldb_cmp_metric)m;
	c->cmp = t.cmp;
	snprintf(c->op, sizeof c->op, "%s", ldb_threshold_cmp_text(t.cmp));
	c->pct = t.value;
	c->count = !t.relative;
	c->listen = t.source == LDB_TS_LISTEN;
	c->lfig = c->listen ? ldb_cmp_listen_index(&t) : 0;
	snprintf(c->text, sizeof c->text, "%s", expr);
	return 0;
}

/* srchnentries' misses and hits, when the run made such checks */
static void expected_checks(const struct ldb_json *o, struct ldb_cmp_run *r, int k)
{
	uint64_t miss = 0, hit = 0;
	if (ldb_json_u64(ldb_json_get(o, "exp_misses"), &miss) != 0 ||
	    ldb_json_u64(ldb_json_get(o, "exp_hits"), &hit) != 0 || miss + hit == 0)
		return;
	r->v[k][LDB_CMP_MISSES] = (double)miss;
	r->v[k][LDB_CMP_HITS] = (double)hit;
	r->valid[k][LDB_CMP_MISSES] = r->valid[k][LDB_CMP_HITS] = true;
}

/* -S: the "replication" array's worst consumer's p50 and p99 (the row "repl"). */
static int repl_from_record(const struct ldb_json *sum, struct ldb_cmp_run *r, char *err, size_t cap)
{
	const struct ldb_json *a = ldb_json_get(sum, "replication");
	if (a == NULL)
		return 0;
	for (const struct ldb_json *o = a->type == LDB_JSON_ARRAY ? a->child : NULL; o != NULL; o = o->next) {
		const struct ldb_json *lat = ldb_json_get(o, "latency_us");
		static const char *const pn[] = { "p50", "p99" };
		r->has[LDB_CMP_REPL] = true;
		for (int i = 0; i < 2; i++) {
			const struct ldb_json *pv = ldb_json_get(lat, pn[i]);
			double v;
			if (pv == NULL || pv->type == LDB_JSON_NULL)
				continue;
			if (ldb_json_double(pv, &v) != 0) {
				snprintf(err, cap, "summary record: replication latency_us.%s is not a number", pn[i]);
				return -1;
			}
			double *dst = &r->v[LDB_CMP_REPL][LDB_CMP_P50 + i];
			if (!r->valid[LDB_CMP_REPL][LDB_CMP_P50 + i] || v > *dst)
				*dst = v;
			r->valid[LDB_CMP_REPL][LDB_CMP_P50 + i] = true;
		}
	}
	return 0;
}

const char *ldb_cmp_row_name(int k)
{
	return k == LDB_CMP_REPL ? "repl" : ldb_op_name((enum ldb_op)k);
}

int ldb_cmp_run_from_record(const struct ldb_json *sum, struct ldb_cmp_run *r, char *err, size_t cap)
{
	const struct ldb_json *ops = ldb_json_get(sum, "ops");

	memset(r, 0, sizeof *r);
	if (ops == NULL || ops->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "summary record without an \"ops\" object");
		return -1;
	}
	for (const struct ldb_json *o = ops->child; o != NULL; o = o->next) {
		int k = ldb_records_row_kind(ops, o->key);
		uint64_t att = 0, comp = 0, errs = 0;
		if (k < 0) {
			snprintf(err, cap, "summary record: unknown operation kind \"%s\"", o->key);
			return -1;
		}
		if (ldb_json_double(ldb_json_get(o, "rate"), &r->v[k][LDB_CMP_RATE]) != 0) {
			snprintf(err, cap, "summary record: ops.%s.rate is missing or not a number", o->key);
			return -1;
		}
		r->valid[k][LDB_CMP_RATE] = true;
		const struct ldb_json *lat = ldb_json_get(o, "latency_us");
		static const char *const pn[] = { "p50", "p99" };
		for (int i = 0; i < 2; i++) {
			const struct ldb_json *pv = ldb_json_get(lat, pn[i]);
			if (pv == NULL) {
				snprintf(err, cap, "summary record: ops.%s.latency_us.%s is missing", o->key, pn[i]);
				return -1;
			}
			if (pv->type == LDB_JSON_NULL)
				continue;
			if (ldb_json_double(pv, &r->v[k][LDB_CMP_P50 + i]) != 0) {
				snprintf(err, cap, "summary record: ops.%s.latency_us.%s is not a number", o->key,
				         pn[i]);
				return -1;
			}
			r->valid[k][LDB_CMP_P50 + i] = true;
		}
		/* a kind that did nothing at all (the bind kind of an anonymous search run) is left out */
		(void)ldb_json_u64(ldb_json_get(o, "attempted"), &att);
		(void)ldb_json_u64(ldb_json_get(o, "completed"), &comp);
		(void)ldb_json_u64(ldb_json_get(o, "errors"), &errs);
		r->has[k] = att > 0 || comp > 0 || errs > 0;
		expected_checks(o, r, k);
	}
	ldb_cmp_join_from_record(sum, r);
	ldb_cmp_listen_from_record(sum, r);
	return repl_from_record(sum, r, err, cap);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double ldb_cmp_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void side_stat(const struct ldb_cmp_run *runs, int n, int k, int m, struct ldb_cmp_stat *st, bool *present)
{
	double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	int c = 0;
	memset(st, 0, sizeof *st);
	for (int i = 0; i < n; i++) {
		if (!runs[i].has[k])
			continue;
		*present = true;
		if (runs[i].valid[k][m] && v != NULL)
			v[c++] = runs[i].v[k][m];
	}
	if (c > 0) {
		st->runs = c;
		st->median = ldb_cmp_median(v, c);
		st->min = v[0]; /* sorted by the median */
		st->max = v[c - 1];
	}
	free(v);
}

void ldb_cmp_compute(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc,
                     struct ldb_cmp_result *res)
{
	memset(res, 0, sizeof *res);
	for (int k = 0; k < LDB_CMP_ROWS; k++) {
		struct ldb_cmp_row *row = &res->op[k];
		for (int m = 0; m < LDB_CMP_METRICS; m++) {
			side_stat(base, nb, k, m, &row->base[m], &row->in_base);
			side_stat(change, nc, k, m, &row->change[m], &row->in_change);
		}
		if (!row->in_base || !row->in_change)
			continue;
		for (int m = 0; m < LDB_CMP_METRICS; m++)
			if (row->base[m].runs > 0 && row->change[m].runs > 0 && row->base[m].median != 0) {
				row->has_pct[m] = true;
				row->pct[m] =
				        (row->change[m].median - row->base[m].median) / row->base[m].median * 100.0;
			}
	}
}

bool ldb_cmp_holds(const struct ldb_cmp_result *res, const struct ldb_cmp_cond *c, int *kind, double *pct)
{
	for (int k = 0; k < LDB_CMP_ROWS; k++) {
		const struct ldb_cmp_row *row = &res->op[k];
		bool have = c->count ? row->in_base && row->in_change && row->change[c->metric].runs > 0
		                     : row->has_pct[c->metric];
		if ((c->kind >= 0 && c->kind != k) || !have)
			continue;
		double v = c->count ? row->change[c->metric].median : row->pct[c->metric];
		struct ldb_threshold t = { .cmp = c->cmp, .value = c->pct, .relative = !c->count };
		if (ldb_threshold_holds(&t, v)) {
			if (kind)
				*kind = k;
			if (pct)
				*pct = v;
			return true;
		}
	}
	return false;
}

bool ldb_cmp_row_shows(const struct ldb_cmp_row *row, enum ldb_cmp_metric m)
{
	return m < LDB_CMP_MISSES || row->base[m].runs > 0 || row->change[m].runs > 0;
}

/* One side's median and spread, in the table's unit. */
static void put_stat(FILE *out, const struct ldb_cmp_stat *s, enum ldb_cmp_metric m)
{
	char spread[64];
	int prec = ldb_cmp_metric_decimals(m);
	if (s->runs == 0) {
		fprintf(out, " %12s  %-25s", "-", "");
		return;
	}
	snprintf(spread, sizeof spread, "[%.*f..%.*f]", prec, ldb_cmp_metric_value(m, s->min), prec,
	         ldb_cmp_metric_value(m, s->max));
	fprintf(out, " %12.*f  %-25s", prec, ldb_cmp_metric_value(m, s->median), spread);
}

void ldb_cmp_print(const struct ldb_cmp_result *res, int nb, int nc, FILE *out)
{
	fprintf(out, "%-8s %-8s %12s  %-25s %12s  %-25s %8s\n", "kind", "metric", "base", "(min..max)", "change",
	        "(min..max)", "change");
	fprintf(out, "%-8s %-8s %12s  %-25s %12s  %-25s %8s\n", "", "", "median", "", "median", "", "%");
	for (int k = 0; k < LDB_CMP_ROWS; k++) {
		const struct ldb_cmp_row *row = &res->op[k];
		const char *kn = ldb_cmp_row_name(k);
		if (!row->in_base && !row->in_change)
			continue;
		if (!row->in_base || !row->in_change) {
			fprintf(out, "%-8s only in the %s runs: not compared\n", kn, row->in_base ? "base" : "change");
			continue;
		}
		for (int m = 0; m < LDB_CMP_METRICS; m++) {
			if (!ldb_cmp_row_shows(row, (enum ldb_cmp_metric)m))
				continue; /* no srchnentries checks on either side */
			fprintf(out, "%-8s %-8s", kn, metric_label[m]);
			put_stat(out, &row->base[m], (enum ldb_cmp_metric)m);
			put_stat(out, &row->change[m], (enum ldb_cmp_metric)m);
			if (row->has_pct[m])
				fprintf(out, " %+7.1f%%\n", row->pct[m]);
			else
				fprintf(out, " %8s\n", "n/a");
		}
	}
	fprintf(out, "(%d base run%s, %d change run%s; medians over the runs that have the value)\n", nb,
	        nb == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
}

int ldb_cmp_load_runs(const char *prog, char **files, int n, struct ldb_cmp_run *runs)
{
	char err[700], e2[300];
	for (int i = 0; i < n; i++) {
		struct ldb_json *header, *sum;
		if (ldb_records_load(files[i], &header, &sum, err, sizeof err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err);
			return -1;
		}
		int rc = ldb_cmp_run_from_record(sum, &runs[i], e2, sizeof e2);
		ldb_json_free(header);
		ldb_json_free(sum);
		if (rc != 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, files[i], e2);
			return -1;
		}
	}
	return 0;
}

/* Every file's summary record (NULL where it cannot be read: main said why). */
static struct ldb_json **load_sums(char **files, int n)
{
	struct ldb_json **s = calloc((size_t)n + 1, sizeof *s);
	char err[700];
	for (int i = 0; s != NULL && i < n; i++) {
		struct ldb_json *header = NULL;
		if (ldb_records_load(files[i], &header, &s[i], err, sizeof err) != 0)
			s[i] = NULL;
		ldb_json_free(header);
	}
	return s;
}

/* What load_sums and the runs of both sides took. */
static void free_sides(struct ldb_json **sb, int nb, struct ldb_json **sc, int nc, struct ldb_cmp_run *rb,
                       struct ldb_cmp_run *rc)
{
	for (int i = 0; sb != NULL && i < nb; i++)
		ldb_json_free(sb[i]);
	for (int i = 0; sc != NULL && i < nc; i++)
		ldb_json_free(sc[i]);
	free(sb);
	free(sc);
	free(rb);
	free(rc);
}

/* The names of the workloads in sums[0..n), first seen first, into names. */
static int wl_names(struct ldb_json *const *sums, int n, char names[][32], int nn, int max)
{
	for (int i = 0; i < n; i++) {
		const struct ldb_json *w = sums[i] ? ldb_json_get(sums[i], "workloads") : NULL;
		for (const struct ldb_json *o = w && w->type == LDB_JSON_OBJECT ? w->child : NULL; o; o = o->next) {
			int j = 0;
			while (j < nn && strcmp(names[j], o->key) != 0)
				j++;
			if (j == nn && nn < max)
				snprintf(names[nn++], sizeof names[0], "%s", o->key);
		}
	}
	return nn;
}

/* Workload `name`'s figures of each summary that has it into runs.  @return how many. */
static int wl_runs(struct ldb_json *const *sums, int n, const char *name, struct ldb_cmp_run *runs)
{
	int got = 0;
	char err[300];
	for (int i = 0; i < n; i++) {
		const struct ldb_json *o = sums[i] ? ldb_json_get(ldb_json_get(sums[i], "workloads"), name) : NULL;
		if (o != NULL && ldb_cmp_run_from_record(o, &runs[got], err, sizeof err) == 0)
			got++;
	}
	return got;
}

void ldb_cmp_print_workloads(char **base, int nb, char **change, int nc, FILE *out)
{
	struct ldb_json **sb = load_sums(base, nb), **sc = load_sums(change, nc);
	struct ldb_cmp_run *rb = calloc((size_t)nb + 1, sizeof *rb), *rc = calloc((size_t)nc + 1, sizeof *rc);
	char names[16][32];
	int nn = 0;
	if (sb != NULL && sc != NULL && rb != NULL && rc != NULL)
		nn = wl_names(sc, nc, names, wl_names(sb, nb, names, 0, 16), 16);
	for (int j = 0; j < nn; j++) {
		memset(rb, 0, sizeof *rb * (size_t)nb);
		memset(rc, 0, sizeof *rc * (size_t)nc);
		int b = wl_runs(sb, nb, names[j], rb), c = wl_runs(sc, nc, names[j], rc);
		if (b == 0 || c == 0) {
			fprintf(out, "\nworkload %s: only in the %s runs: not compared\n", names[j],
			        b ? "base" : "change");
			continue;
		}
		struct ldb_cmp_result res;
		ldb_cmp_compute(rb, b, rc, c, &res);
		fprintf(out, "\nworkload %s:\n", names[j]);
		ldb_cmp_print(&res, b, c, out);
	}
	free_sides(sb, nb, sc, nc, rb, rc);
}

int ldb_cmp_compute_workload(char **base, int nb, char **change, int nc, const char *name, struct ldb_cmp_result *res,
                             char *names, size_t cap)
{
	struct ldb_json **sb = load_sums(base, nb), **sc = load_sums(change, nc);
	struct ldb_cmp_run *rb = calloc((size_t)nb + 1, sizeof *rb), *rc = calloc((size_t)nc + 1, sizeof *rc);
	char seen[16][32];
	int got = -1;
	if (sb != NULL && sc != NULL && rb != NULL && rc != NULL) {
		int b = wl_runs(sb, nb, name, rb), c = wl_runs(sc, nc, name, rc);
		got = b > 0 && c > 0 ? 1 : b > 0 || c > 0 ? 0 : -1;
		if (got == 1)
			ldb_cmp_compute(rb, b, rc, c, res);
		int nn = wl_names(sc, nc, seen, wl_names(sb, nb, seen, 0, 16), 16);
		names[0] = '\0';
		for (int j = 0; j < nn && cap > 0; j++)
			snprintf(names + strlen(names), cap - strlen(names), "%s%s", j ? ", " : "", seen[j]);
	}
	free_sides(sb, nb, sc, nc, rb, rc);
	return got;
}

int ldb_cmp_workload_names(char **files, int n, char names[][32], int max)
{
	struct ldb_json **s = load_sums(files, n);
	int nn = s != NULL ? wl_names(s, n, names, 0, max) : 0;
	free_sides(s, n, NULL, 0, NULL, NULL);
	return nn;
}
