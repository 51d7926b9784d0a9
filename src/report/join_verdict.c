/* The join's verdict and coverage note (report/join.h's ldb_join_conclude);
 * its --fail-if figures, and the join as a part of its run's summary. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report/join.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The name of a part of the client's latency in the verdict: queue and
 * processing with what the log calls them. */
static const char *part_name(const struct ldb_join *j, int part)
{
	bool is389 = strcmp(j->server, "389ds") == 0;
	static const char *const name[2][3] = { { "queue (qtime)", "processing (etime - qtime)", "outside" },
		                                { "queue (wtime)", "processing (optime)", "outside" } };
	return name[is389][part];
}

/* The verdict over the run's joined operations, at p99: the part that
 * dominates (at least twice the next), said with its figures against the
 * client's and the etime's; or that none does. */
static void verdict(struct ldb_join *j)
{
	const struct ldb_join_kind *a = &j->all;
	if (a->joined == 0) {
		snprintf(j->verdict, sizeof j->verdict, "no verdict: no operation of the run was found in the log");
		return;
	}
	static const char *const why[3] = { "operations are waiting before execution",
		                            "the server is spending time processing the operation",
		                            "the delay is outside the server (network or client handling)" };
	uint64_t part[3] = { a->queue ? ldb_hist_percentile(&a->h[LDB_JF_QUEUE], 99) : 0,
		             a->proc ? ldb_hist_percentile(&a->h[LDB_JF_PROC], 99) : 0,
		             ldb_hist_percentile(&a->h[LDB_JF_OUTSIDE], 99) };
	int top = 0, second = -1;
	for (int i = 1; i < 3; i++)
		if (part[i] > part[top])
			top = i;
	for (int i = 0; i < 3; i++)
		if (i != top && (second < 0 || part[i] > part[second]))
			second = i;
	uint64_t client = ldb_hist_percentile(&a->h[LDB_JF_CLIENT], 99);
	uint64_t etime = ldb_hist_percentile(&a->h[LDB_JF_ETIME], 99);
	double share = client > 0 ? 100.0 * (double)part[top] / (double)client : 0.0;
	double times = part[second] > 0 ? (double)part[top] / (double)part[second] : 0.0;
	if (part[top] == 0) {
		snprintf(j->verdict, sizeof j->verdict,
		         "no part dominates at p99: queue, processing and outside are 0 of the client's %.3f ms p99, "
		         "etime "
		         "%.3f ms",
		         ms(client), ms(etime));
		return;
	}
	if (part[second] > 0 && part[top] < 2 * part[second]) {
		snprintf(
		        j->verdict, sizeof j->verdict,
		        "no part dominates at p99: %s %.3f ms and %s %.3f ms (%.1f times) of the client's %.3f ms p99, "
		        "etime %.3f ms",
		        part_name(j, top), ms(part[top]), part_name(j, second), ms(part[second]), times, ms(client),
		        ms(etime));
		return;
	}
	char by[64];
	if (part[second] > 0)
		snprintf(by, sizeof by, "%.1f times the next part", times);
	else
		snprintf(by, sizeof by, "the other parts 0");
	snprintf(j->verdict, sizeof j->verdict,
	         "%s: %s dominates at p99: %.3f ms of the client's %.3f ms p99 (%.0f %%), etime %.3f ms, %s", why[top],
	         part_name(j, top), ms(part[top]), ms(client), share, ms(etime), by);
}

/* Why coverage is short, in one line. */
static void coverage_note(struct ldb_join *j)
{
	const struct ldb_join_kind *a = &j->all;
	uint64_t missing = a->miss[LDB_JM_NO_TAG] + a->miss[LDB_JM_NO_RESULT];
	j->note[0] = '\0';
	if (j->measured > 0 && j->conns_tagged == 0)
		snprintf(j->note, sizeof j->note,
		         "the log does not cover the run: none of its %" PRIu64 " connections' tags is in it%s",
		         j->conns, j->other_tags > 0 ? " (tags of other runs are)" : "");
	else if (missing > 0 && !j->last_seen)
		snprintf(j->note, sizeof j->note,
		         "the log ends before the run did: its last operation is not in it (buffered, or cut short)");
	else if (missing > 0)
		snprintf(j->note, sizeof j->note, "%" PRIu64 " operations not found in the log", missing);
	else if (a->miss[LDB_JM_MISMATCH] > 0)
		snprintf(j->note, sizeof j->note,
		         "%" PRIu64 " operations logged as another kind than the one sent: not joined (the order on "
		         "their connections is not the one sent)",
		         a->miss[LDB_JM_MISMATCH]);
}

void ldb_join_conclude(struct ldb_join *j)
{
	verdict(j);
	coverage_note(j);
}

/* ------------------------------------------------------------ --fail-if */

/* The join's histogram of each --fail-if figure. */
static const enum ldb_jfig jfig_of[LDB_TF_COUNT] = { [LDB_TF_CLIENT] = LDB_JF_CLIENT,
	                                             [LDB_TF_SERVER] = LDB_JF_ETIME,
	                                             [LDB_TF_QUEUE] = LDB_JF_QUEUE,
	                                             [LDB_TF_PROC] = LDB_JF_PROC,
	                                             [LDB_TF_OUTSIDE] = LDB_JF_OUTSIDE };

const char *ldb_join_unusable(const struct ldb_join *j)
{
	if (j == NULL)
		return "the server's log could not be joined";
	if (j->measured > 0 && j->conns_tagged == 0)
		return "the log does not cover the run";
	if (!j->last_seen)
		return "the log ends before the run did";
	return NULL;
}

bool ldb_join_figure(const struct ldb_threshold *t, const struct ldb_join *j, double *v, const char **why)
{
	*v = 0;
	if ((*why = ldb_join_unusable(j)) != NULL)
		return false;
	const struct ldb_join_kind *k = t->kind == LDB_KIND_ANY                           ? &j->all
	                                : t->kind < LDB_OP_COUNT && j->kind_used[t->kind] ? &j->k[t->kind]
	                                                                                  : NULL;
	if (k == NULL || k->sent == 0)
		*why = "the run measured no operation of the kind";
	else if (t->metric == LDB_M_COVERAGE)
		*v = 100.0 * (double)k->joined / (double)k->sent;
	else if (k->joined == 0)
		*why = "no operation of the kind was joined";
	else if (t->metric == LDB_M_UNINDEXED)
		*v = (double)(k->notes_u + k->notes_a);
	else if (t->metric == LDB_M_UNINDEXED_SEARCHES) /* notes=A */
		*v = (double)k->notes_a;
	else if (t->metric == LDB_M_UNINDEXED_COMPONENTS) /* notes=U */
		*v = (double)k->notes_u;
	else if ((t->fig == LDB_TF_QUEUE && !k->queue) || (t->fig == LDB_TF_PROC && !k->proc))
		*why = t->fig == LDB_TF_QUEUE ? "the log gives no queue time" : "the log gives no processing time";
	else
		*v = ldb_hist_metric(&k->h[jfig_of[t->fig]], t->metric);
	return *why == NULL;
}

/* ------------------------------------------------------------ a part of the summary */

static const struct ldb_join *join_of(const struct ldb_summary_part *p)
{
	return (const struct ldb_join *)(const void *)((const char *)p - offsetof(struct ldb_join, part));
}

static void part_json(const struct ldb_summary_part *p, FILE *f)
{
	ldb_join_put_json(f, join_of(p));
}

static void part_csv(const struct ldb_summary_part *p, FILE *f)
{
	ldb_join_put_csv(f, join_of(p));
}

static bool part_figure(const struct ldb_summary_part *p, const struct ldb_threshold *t, double *v, const char **why)
{
	return ldb_join_figure(t, join_of(p), v, why);
}

static const char *part_unusable(const struct ldb_summary_part *p)
{
	return ldb_join_unusable(join_of(p));
}

static const struct ldb_part_ops join_part_ops = {
	.json = part_json,
	.csv = part_csv,
	.source = LDB_TS_JOIN,
	.figure = part_figure,
	.unusable = part_unusable,
};

const struct ldb_summary_part *ldb_join_part(struct ldb_join *j)
{
	j->part.ops = &join_part_ops;
	return &j->part;
}
