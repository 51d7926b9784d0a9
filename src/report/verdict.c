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
		if (t->kind < 0 || k == kind)
			n += t->metric == LDB_M_MISSES ? sum->tot.op[k].exp_misses : sum->tot.op[k].exp_hits;
	return (double)n;
}

/* repl.METRIC: the worst consumer's (unseen: the sum). */
static double repl_actual(const struct ldb_threshold *t, const struct ldb_summary *sum)
{
	static const double pct[LDB_M_COUNT] = {
		[LDB_M_P50] = 50, [LDB_M_P90] = 90, [LDB_M_P95] = 95, [LDB_M_P99] = 99, [LDB_M_P999] = 99.9
	};
	double worst = 0;
	for (int i = 0; i < sum->nrepl; i++) {
		const struct ldb_repl_figs *f = &sum->repl[i];
		const struct ldb_hist *h = &f->delay;
		double a = 0;
		if (t->metric == LDB_M_UNSEEN)
			a = (double)f->unseen;
		else if (ldb_hist_count(h) == 0)
			a = 0;
		else if (t->metric == LDB_M_MIN)
			a = (double)h->min;
		else if (t->metric == LDB_M_MAX)
			a = (double)h->max;
		else if (t->metric == LDB_M_MEAN)
			a = ldb_hist_mean(h);
		else
			a = (double)ldb_hist_percentile(h, pct[t->metric]);
		worst = t->metric == LDB_M_UNSEEN ? worst + a : (a > worst ? a : worst);
	}
	return worst;
}

/* server.METRIC, queue., processing., outside., unindexed: the join's
 * figures over the run (0 without --server-log's join). */
static double join_actual(const struct ldb_threshold *t, const struct ldb_summary *sum)
{
	const struct ldb_join *j = sum->join;
	if (j == NULL)
		return 0;
	if (t->metric == LDB_M_UNINDEXED)
		return (double)(j->all.notes_u + j->all.notes_a);
	if (t->metric == LDB_M_UNINDEXED_SEARCHES || t->metric == LDB_M_UNINDEXED_COMPONENTS)
		return (double)(t->metric == LDB_M_UNINDEXED_SEARCHES ? j->all.notes_a : j->all.notes_u);
	return ldb_hist_metric(&j->all.h[LDB_JF_ETIME + (LDB_THRESHOLD_JOIN_SERVER - t->kind)], t->metric);
}

double ldb_hist_metric(const struct ldb_hist *h, enum ldb_metric m)
{
	if (h == NULL || ldb_hist_count(h) == 0)
		return 0;
	switch (m) {
	case LDB_M_MIN: return (double)h->min;
	case LDB_M_MAX: return (double)h->max;
	case LDB_M_MEAN: return ldb_hist_mean(h);
	case LDB_M_P50: return (double)ldb_hist_percentile(h, 50);
	case LDB_M_P90: return (double)ldb_hist_percentile(h, 90);
	case LDB_M_P95: return (double)ldb_hist_percentile(h, 95);
	case LDB_M_P999: return (double)ldb_hist_percentile(h, 99.9);
	default: return (double)ldb_hist_percentile(h, 99);
	}
}

double ldb_threshold_actual(const struct ldb_threshold *t, const struct ldb_summary *sum, int kind)
{
	if (t->kind == LDB_THRESHOLD_REPL)
		return repl_actual(t, sum);
	if (t->kind <= LDB_THRESHOLD_JOIN_SERVER && t->kind >= LDB_THRESHOLD_JOIN_LAST)
		return join_actual(t, sum);
	const struct ldb_hist *h = sum->lat[kind];
	switch (t->metric) {
	case LDB_M_RATE: return sum->seconds > 0 ? (double)sum->tot.op[kind].counted / sum->seconds : 0;
	case LDB_M_ERRORS: {
		uint64_t n = 0;
		for (int k = 0; k < LDB_OP_COUNT; k++)
			n += ldb_opstats_errors(&sum->tot.op[k]);
		n += ldb_setup_errors(&sum->tot.setup); /* every error of the run: its set-ups' too */
		return t->kind < 0 ? (double)n : (double)ldb_opstats_errors(&sum->tot.op[kind]);
	}
	case LDB_M_MIN: return h && ldb_hist_count(h) ? (double)h->min : 0;
	case LDB_M_MEAN: return h ? ldb_hist_mean(h) : 0;
	case LDB_M_P50: return h ? (double)ldb_hist_percentile(h, 50) : 0;
	case LDB_M_P90: return h ? (double)ldb_hist_percentile(h, 90) : 0;
	case LDB_M_P95: return h ? (double)ldb_hist_percentile(h, 95) : 0;
	case LDB_M_P99: return h ? (double)ldb_hist_percentile(h, 99) : 0;
	case LDB_M_P999: return h ? (double)ldb_hist_percentile(h, 99.9) : 0;
	case LDB_M_MAX: return h ? (double)h->max : 0;
	case LDB_M_MISSES:
	case LDB_M_HITS: return expected_checks(t, sum, kind);
	case LDB_M_UNSEEN:
	case LDB_M_UNINDEXED:
	case LDB_M_UNINDEXED_SEARCHES:
	case LDB_M_UNINDEXED_COMPONENTS:
	case LDB_M_DIFFER:
	case LDB_M_SKIPPED:
	case LDB_M_COUNT: break;
	}
	return 0;
}

static const char *kind_name(int kind)
{
	static const char *const join[] = { "server log (etime)", "server log (queue)", "server log (processing)",
		                            "server log (outside)" };
	if (kind <= LDB_THRESHOLD_JOIN_SERVER && kind >= LDB_THRESHOLD_JOIN_LAST)
		return join[LDB_THRESHOLD_JOIN_SERVER - kind];
	return kind == LDB_THRESHOLD_REPL ? "repl" : ldb_op_name((enum ldb_op)kind);
}

int ldb_thresholds_check(const struct ldb_config *c, const struct ldb_summary *sum, int main_op, int status,
                         struct ldb_text *text)
{
	bool failed = false;
	for (int i = 0; i < c->nfail_if; i++) {
		const struct ldb_threshold *t = &c->fail_if[i];
		int kind = t->kind < 0 ? main_op : t->kind;
		if (t->kind == LDB_THRESHOLD_REPL ||
		    (t->kind <= LDB_THRESHOLD_JOIN_SERVER && t->kind >= LDB_THRESHOLD_JOIN_LAST))
			kind = t->kind;
		double a = ldb_threshold_actual(t, sum, kind);
		char shown[64];
		ldb_threshold_format(t, a, shown, sizeof shown);
		if (ldb_threshold_holds(t, a)) {
			failed = true;
			if (text)
				ldb_text_line(text, "Threshold failed: %s (%s is %s)", t->text, kind_name(kind), shown);
		} else if (text && c->verbose) {
			ldb_text_line(text, "Threshold passed: %s (%s is %s)", t->text, kind_name(kind), shown);
		}
	}
	return failed && status == LDB_EXIT_OK ? LDB_EXIT_THRESHOLD : status;
}
