/* A run's verdict: see verdict.h. */
#include "report/verdict.h"

#include "conf/config.h"
#include "ops/ops.h"
#include "report/join.h"

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

/* repl.METRIC: the worst consumer's (unseen: the sum). */
static double repl_actual(const struct ldb_threshold *t, const struct ldb_summary *sum)
{
	double worst = 0;
	for (int i = 0; i < sum->nrepl; i++) {
		const struct ldb_repl_figs *f = &sum->repl[i];
		double a = t->metric == LDB_M_UNSEEN ? (double)f->unseen : ldb_hist_metric(&f->delay, t->metric);
		worst = t->metric == LDB_M_UNSEEN ? worst + a : (a > worst ? a : worst);
	}
	return worst;
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

/* ------------------------------------------------------------ on a join */

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

bool ldb_threshold_value(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind, double *v,
                         const char **why)
{
	*why = NULL;
	switch (t->source) {
	case LDB_TS_JOIN: return ldb_join_figure(t, sum->join, v, why);
	case LDB_TS_REPL:
		if (sum->nrepl == 0) {
			*v = 0;
			*why = "the run has no replication check";
			return false;
		}
		*v = repl_actual(t, sum);
		return true;
	case LDB_TS_RUN: *v = run_actual(t, sum, kind); return true;
	case LDB_TS_LATE: break;
	}
	*v = 0;
	*why = "a replay's figure";
	return false;
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
		snprintf(buf, cap, "%s", t->source == LDB_TS_REPL ? "repl" : ldb_op_name((enum ldb_op)kind));
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
		int kind = t->kind == LDB_KIND_ANY ? main_op : t->kind;
		double a;
		const char *why;
		char what[80];
		(void)ldb_threshold_value(t, sum, kind, &a, &why);
		what_of(t, kind, what, sizeof what);
		int r = ldb_threshold_verdict(t, a, why, what, c->verbose, text);
		held = held || r == 1;
		unknown = unknown || r == 2;
	}
	return ldb_verdict_status(status, held, unknown, c->nserver_log > 0 && ldb_join_unusable(sum->join) != NULL);
}
