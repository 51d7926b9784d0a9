/* The join's text (report/join.h's ldb_join_text): a line per kind and
 * figure, coverage, unindexed, the verdict, the per-sample table. */
#include <inttypes.h>
#include <string.h>

#include "report/join.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void fig_line(FILE *out, const char *name, const struct ldb_hist *h, const char *from)
{
	fprintf(out, "  %-11s min %.3f p50 %.3f p95 %.3f p99 %.3f max %.3f ms%s\n", name, ms(h->total ? h->min : 0),
	        ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
	        ms(h->max), from);
}

static void kind_text(const struct ldb_join *j, const char *name, const struct ldb_join_kind *k, FILE *out)
{
	fprintf(out, "Server log (%s), %s: %" PRIu64 " of %" PRIu64 " operations joined (%.1f %%)", j->server, name,
	        k->joined, k->sent, k->sent ? 100.0 * (double)k->joined / (double)k->sent : 0.0);
	for (int m = 0; m < LDB_JM_COUNT; m++)
		if (k->miss[m] > 0)
			fprintf(out, "; %" PRIu64 " %s", k->miss[m], ldb_jmiss_name[m]);
	fprintf(out, "; unindexed notes=U %" PRIu64 ", notes=A %" PRIu64 "\n", k->notes_u, k->notes_a);
	if (k->joined == 0)
		return;
	bool is389 = strcmp(j->server, "389ds") == 0;
	for (int f = 0; f < LDB_JF_COUNT; f++) {
		if ((f == LDB_JF_QUEUE && !k->queue) || (f == LDB_JF_PROC && !k->proc))
			continue;
		const char *from = f == LDB_JF_QUEUE  ? (is389 ? " (wtime)" : " (qtime)")
		                   : f == LDB_JF_PROC ? (is389 ? " (optime)" : " (etime - qtime)")
		                                      : "";
		fig_line(out, ldb_jfig_name[f], &k->h[f], from);
	}
}

void ldb_join_text(const struct ldb_join *j, FILE *out)
{
	int used = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k]) {
			kind_text(j, ldb_ops[k]->name, &j->k[k], out);
			used++;
		}
	if (used != 1)
		kind_text(j, "all", &j->all, out);
	fprintf(out,
	        "Server log (%s): connections %" PRIu64 ", tagged in the log %" PRIu64 "; log lines %" PRIu64
	        ", not used %" PRIu64 "; op-log records %" PRIu64 ", dropped %" PRIu64 "\n",
	        j->server, j->conns, j->conns_tagged, j->lines, j->skipped, j->records, j->dropped);
	if (!j->last_seen)
		fprintf(out, "Server log (%s): the run's last operation is not in the log (waited %.1f s)\n", j->server,
		        (double)j->waited_ms / 1000.0);
	if (j->int_etime > 0)
		fprintf(out,
		        "Server log (%s): %" PRIu64 " results with a whole-second etime: outside is an upper bound\n",
		        j->server, j->int_etime);
	if (j->note[0] != '\0')
		fprintf(out, "Server log (%s): %s\n", j->server, j->note);
	if (j->rate)
		fprintf(out,
		        "Server log (%s): --rate: client and outside are timed from the send (outside = client - "
		        "etime), not from the intended start: the schedule's lag is the client's, counted in the "
		        "run's corrected latency\n",
		        j->server);
	fprintf(out, "Server log (%s): %s\n", j->server, j->verdict);
	ldb_join_samples_text(j, out);
}
