/* A run's verdict: see verdict.h. */
#include "report/verdict.h"

#include "conf/config.h"
#include "ops/ops.h"

/* ------------------------------------------------------------ on a run */

/* misses or hits of srchnentries: of one kind, or without a kind of all the
 * kinds (only searches have them) */
static double expected_checks(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind)
{
	uint64_t n = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (t->kind == LDB_KIND_ANY || k == kind)
			n += t->metric == LDB_M_MISSES ? sum->tot.op[k].exp_misses : sum->tot.op[k].exp_hits;
	return (double)n;
}

/* The run's own figure of t for the operation kind `kind`. */
static double run_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind)
{
	switch (t->metric) {
	case LDB_M_RATE: return sum->seconds > 0 ? (double)sum->tot.op[kind].counted / sum->seconds : 0;
	case LDB_M_ERRORS: {
		uint64_t n = 0;
		for (int k = 0; k < LDB_OP_COUNT; k++)
			n += ldb_opstats_errors(&sum->tot.op[k]);
		n += ldb_setup_errors(&sum->tot.setup); /* every error of the run: its set-ups' too */
		return t->kind == LDB_KIND_ANY ? (double)n : (double)ldb_opstats_errors(&sum->tot.op[kind]);
	}
	case LDB_M_MISSES:
	case LDB_M_HITS: return expected_checks(t, sum, kind);
	default: return ldb_hist_metric(sum->lat[kind], t->metric);
	}
}

/* ------------------------------------------------------------ on a part */

/* The part of sum that gives the figures of source src, or NULL. */
static const struct ldb_summary_part *part_of(const struct ldb_summary *sum, enum ldb_tsource src)
{
	for (int i = 0; i < sum->nparts; i++)
		if (sum->part[i]->ops->figure != NULL && sum->part[i]->ops->source == src)
			return sum->part[i];
	return NULL;
}

/* Why a source's figure is missing when no part of the summary gives it. */
static const char *const no_part[] = {
	[LDB_TS_RUN] = "",
	[LDB_TS_REPL] = "the run has no replication check",
	[LDB_TS_JOIN] = "the server's log could not be joined",
	[LDB_TS_LATE] = "a replay's figure",
	[LDB_TS_LISTEN] = "the run has no listeners",
};

bool ldb_threshold_value(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind, double *v,
                         const char **why)
{
	*why = NULL;
	if (t->source == LDB_TS_RUN) {
		*v = run_actual(t, sum, kind);
		return true;
	}
	const struct ldb_summary_part *p = part_of(sum, t->source);
	if (p == NULL) {
		*v = 0;
		*why = no_part[t->source];
		return false;
	}
	return p->ops->figure(p, t, v, why);
}

double ldb_threshold_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind)
{
	double v;
	const char *why;
	return ldb_threshold_value(t, sum, kind, &v, &why) ? v : 0;
}

/* What the line names: "search", "repl", "server log (search etime)". */
static void what_of(const struct ldb_threshold *t, int kind, char *buf, size_t cap)
{
	static const char *const fig[LDB_TF_COUNT] = { "client", "etime", "queue", "processing", "outside" };
	bool latency = t->metric != LDB_M_UNINDEXED && t->metric != LDB_M_UNINDEXED_SEARCHES &&
	               t->metric != LDB_M_UNINDEXED_COMPONENTS && t->metric != LDB_M_COVERAGE;
	const char *f = latency ? fig[t->fig] : ldb_threshold_metric_name(t->metric);
	if (t->source == LDB_TS_JOIN)
		snprintf(buf, cap, "server log (%s%s%s)", t->kind == LDB_KIND_ANY ? "" : ldb_op_name((enum ldb_op)kind),
		         t->kind == LDB_KIND_ANY ? "" : " ", f);
	else
		snprintf(buf, cap, "%s",
		         t->source == LDB_TS_REPL     ? "repl"
		         : t->source == LDB_TS_LISTEN ? "listen"
		                                      : ldb_op_name((enum ldb_op)kind));
}

int ldb_threshold_verdict(const struct ldb_threshold *t, double a, const char *why, const char *what, bool verbose,
                          struct ldb_text *text)
{
	char shown[64];
	ldb_threshold_format(t, a, shown, sizeof shown);
	int held = why != NULL ? 2 : ldb_threshold_holds(t, a) ? 1 : 0;
	if (text == NULL)
		return held;
	if (held == 2)
		ldb_text_line(text, "Threshold not evaluated: %s (%s: %s)", t->text, what, why);
	else if (held == 1)
		ldb_text_line(text, "Threshold failed: %s (%s is %s)", t->text, what, shown);
	else if (verbose)
		ldb_text_line(text, "Threshold passed: %s (%s is %s)", t->text, what, shown);
	return held;
}

int ldb_verdict_status(int status, bool held, bool not_evaluated, bool no_join)
{
	if (status != LDB_EXIT_OK)
		return status;
	return held ? LDB_EXIT_THRESHOLD : not_evaluated ? LDB_EXIT_NOT_EVALUATED : no_join ? LDB_EXIT_NO_JOIN : status;
}

int ldb_thresholds_check(const struct ldb_config *c, const struct ldb_summary *sum, int main_op, int status,
                         struct ldb_text *text)
{
	bool held = false, unknown = false;
	for (int i = 0; i < c->nfail_if; i++) {
		const struct ldb_threshold *t = &c->fail_if[i];
		/* [workload] sections: a threshold that names a workload reads its figures */
		const struct ldb_summary *s = t->wl > 0 && t->wl <= sum->nworkloads ? &sum->workloads[t->wl - 1] : sum;
		int kind = t->kind != LDB_KIND_ANY ? t->kind : s != sum ? s->main_op : main_op;
		double a;
		const char *why;
		char what[80];
		(void)ldb_threshold_value(t, s, kind, &a, &why);
		what_of(t, kind, what, sizeof what);
		int r = ldb_threshold_verdict(t, a, why, what, c->verbose, text);
		held = held || r == 1;
		unknown = unknown || r == 2;
	}
	const struct ldb_summary_part *j = part_of(sum, LDB_TS_JOIN);
	bool no_join = c->nserver_log > 0 && (j == NULL || (j->ops->unusable != NULL && j->ops->unusable(j) != NULL));
	return ldb_verdict_status(status, held, unknown, no_join);
}
