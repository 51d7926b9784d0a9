/* `ldbench compare`: the join's figures of the two sides (cmp_runs.h). */
#include <stdlib.h>
#include <string.h>

#include "report/cmp_runs.h"
#include "ops/ops.h"
#include "report/records.h"

static const char *const jkey[LDB_CMP_JFIGS] = { "etime", "outside", "queue", "processing" };
static const char *const jlabel[LDB_CMP_JFIGS] = { "server p99", "outside p99", "queue p99", "processing p99" };

static void kind_figs(const struct ldb_json *o, struct ldb_cmp_run *r, int k)
{
	for (int f = 0; f < LDB_CMP_JFIGS; f++)
		r->jhas[k][f] = ldb_json_double(ldb_json_path(ldb_json_get(o, jkey[f]), "p99_ms"), &r->jv[k][f]) == 0;
}

void ldb_cmp_join_from_record(const struct ldb_json *sum, struct ldb_cmp_run *r)
{
	const struct ldb_json *j = ldb_json_get(sum, "join");
	const struct ldb_json *kinds = ldb_json_get(j, "kinds");
	if (kinds == NULL || kinds->type != LDB_JSON_OBJECT)
		return;
	for (const struct ldb_json *o = kinds->child; o != NULL; o = o->next) {
		int k = ldb_records_kind(o->key);
		if (k >= 0)
			kind_figs(o, r, k);
	}
	kind_figs(ldb_json_get(j, "all"), r, LDB_OP_COUNT);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of one figure over the runs that have it.  @return false: none has. */
static bool median(const struct ldb_cmp_run *runs, int n, int k, int f, double *out)
{
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
	int m = 0;
	for (int i = 0; v != NULL && i < n; i++)
		if (runs[i].jhas[k][f])
			v[m++] = runs[i].jv[k][f];
	if (m > 0) {
		qsort(v, (size_t)m, sizeof *v, cmp_d);
		*out = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	}
	free(v);
	return m > 0;
}

void ldb_cmp_join_print(const struct ldb_cmp_run *base, int nb, const struct ldb_cmp_run *change, int nc, FILE *out)
{
	bool head = false;
	for (int k = 0; k <= LDB_OP_COUNT; k++)
		for (int f = 0; f < LDB_CMP_JFIGS; f++) {
			double b, c;
			if (!median(base, nb, k, f, &b) || !median(change, nc, k, f, &c))
				continue;
			if (!head)
				fprintf(out, "%-8s %-15s %12s %12s %10s %8s\n", "join", "figure", "base ms",
				        "change ms", "delta ms", "change %");
			head = true;
			fprintf(out, "%-8s %-15s %12.3f %12.3f %+10.3f", k < LDB_OP_COUNT ? ldb_ops[k]->name : "all",
			        jlabel[f], b, c, c - b);
			if (b > 0)
				fprintf(out, " %+7.1f%%\n", 100.0 * (c - b) / b);
			else
				fprintf(out, " %8s\n", "n/a");
		}
	if (head)
		fprintf(out, "(join with the servers' logs: medians of the runs' p99, server = etime)\n");
}
