/* --sweep: see sweep.h. */
#include "cmd/sweep.h"
#include "ops/ops.h"

#include <string.h>
#include <unistd.h>

#define MAX_SWEEP 64

void ldb_sweep_table(FILE *out, const char *progname, int pid, const struct ldb_result *res, int n)
{
	fprintf(out, "%s[%d]: Sweep of %d runs (%s latency):\n", progname, pid, n,
	        ldb_op_name(n > 0 ? (enum ldb_op)res[0].main_op : LDB_OPS_WITH(fallback)));
	fprintf(out, "Concurrency\tRate (ops/s)\tp50 (ms)\tp99 (ms)\tErrors\n");
	for (int i = 0; i < n; i++)
		fprintf(out, "%d\t%.2f\t%.3f\t%.3f\t%llu\n", res[i].threads, res[i].rate, (double)res[i].p50_ns / 1e6,
		        (double)res[i].p99_ns / 1e6, (unsigned long long)res[i].errors);
	fflush(out);
}

int ldb_sweep(struct ldb_config *c, FILE *out)
{
	struct ldb_result res[MAX_SWEEP];
	int worst = LDB_EXIT_OK, done = 0;
	for (int i = 0; i < c->nsweep && i < MAX_SWEEP; i++) {
		c->threads = c->sweep[i];
		memset(&res[i], 0, sizeof res[i]);
		int st = ldb_run_load(c, out, &res[i]);
		res[i].threads = c->sweep[i];
		done++;
		if (st > worst)
			worst = st;
		if (st == LDB_EXIT_INIT || st == LDB_EXIT_OTHER || st == LDB_EXIT_PREFLIGHT)
			break;
		c->no_preflight = true; /* one pre-flight check before the first level is enough */
		fputc('\n', out);
	}
	ldb_sweep_table(out, c->progname, (int)getpid(), res, done);
	return worst;
}
