/* A replay seen as a run (report/replay_out.h): its summary and sample for
 * the run's record writers, and its --fail-if verdict. */
#include "report/replay_out.h"

#include <stddef.h>
#include <string.h>

#include "conf/target.h"
#include "ops/ops.h"
#include "report/json.h"
#include "report/metrics.h"
#include "report/verdict.h"

/* The run's kind of each log type: by name (the log's modrdn is the run's
 * rename); unbinds and unknown types are none. */
static void map_kinds(int op_of[LDB_SLOG_NOPTYPES])
{
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		const char *n = t == LDB_SLOG_OP_MODRDN ? "rename" : ldb_slog_optype_name(t);
		op_of[t] = t == LDB_SLOG_OP_NONE ? -1 : ldb_op_from_name(n, strlen(n), false);
	}
}

/* One kind's counters from the replay's. */
static void kind_counts(struct ldb_opstats *o, const struct ldb_rp_kind_stats *k, int op)
{
	o->attempted = k->sent;
	o->completed = k->answered;
	for (int slot = 0; slot < LDB_CODE_SLOTS; slot++) {
		if (k->codes[slot] == 0)
			continue;
		int code = slot == LDB_CODE_ILLEGAL ? LDB_CODE_MAX + 1 : slot + LDB_CODE_MIN;
		if (ldb_op_succeeded((enum ldb_op)op, code))
			o->succeeded += k->codes[slot];
		else
			o->codes[slot] += k->codes[slot];
	}
	o->counted = o->succeeded;
}

/* ------------------------------------------------------------ a part of the summary */

static const struct ldb_replay_run *run_of(const struct ldb_summary_part *p)
{
	return (const struct ldb_replay_run *)(const void *)((const char *)p - offsetof(struct ldb_replay_run, part));
}

static void part_json(const struct ldb_summary_part *p, FILE *f)
{
	ldb_replay_put_json(f, run_of(p)->r, run_of(p)->recorded);
}

static void part_metrics(const struct ldb_summary_part *p, struct ldb_metrics_end *e)
{
	ldb_metrics_end_replay(e, run_of(p)->r);
}

static const struct ldb_part_ops replay_part_ops = { .json = part_json, .metrics = part_metrics };

int ldb_replay_run_init(struct ldb_replay_run *x, const struct ldb_rp_result *r, bool recorded, int status)
{
	memset(x, 0, sizeof *x);
	x->r = r;
	x->recorded = recorded;
	if (ldb_hist_init(&x->all) != 0)
		return -1;
	map_kinds(x->op_of);
	struct ldb_summary *s = &x->sum;
	s->seconds = (double)r->elapsed_ns / 1e9;
	s->threads = 1;
	s->status = status;
	s->tot.connects = r->conns_opened;
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		int op = x->op_of[t];
		const struct ldb_rp_kind_stats *k = &r->kind[t];
		if (op < 0 || (k->read == 0 && k->sent == 0))
			continue;
		kind_counts(&s->tot.op[op], k, op);
		s->counted += s->tot.op[op].counted;
		s->lat[op] = &k->lat;
		ldb_hist_add(&x->all, &k->lat);
	}
	x->part.ops = &replay_part_ops;
	ldb_summary_add(s, &x->part);
	x->sample = (struct ldb_sample){
		.index = 1, .t_end = s->seconds, .seconds = s->seconds, .counted = s->counted, .threads = 1
	};
	x->sample.delta = s->tot;
	memcpy(x->sample.lat, s->lat, sizeof s->lat);
	return 0;
}

void ldb_replay_run_free(struct ldb_replay_run *x)
{
	ldb_hist_free(&x->all);
}

/* The requests of the log not sent, every reason. */
static double skipped_all(const struct ldb_rp_result *r)
{
	uint64_t n = r->ops_conn_failed + r->ops_conn_lost;
	for (int w = 1; w < LDB_RP_NSKIPS; w++)
		n += r->skipped[w];
	return (double)n;
}

/* The value of t on the replay: of its kind, or of every kind (no kind). */
static double actual(const struct ldb_replay_run *x, const struct ldb_threshold *t)
{
	const struct ldb_summary *s = &x->sum;
	if (t->source == LDB_TS_LATE)
		return ldb_hist_metric(&x->r->late, t->metric);
	if (t->metric == LDB_M_SKIPPED)
		return skipped_all(x->r);
	if (t->metric == LDB_M_DIFFER) {
		uint64_t n = 0;
		for (int ty = 0; ty < LDB_SLOG_NOPTYPES; ty++)
			if (t->kind == LDB_KIND_ANY || x->op_of[ty] == t->kind)
				n += x->r->kind[ty].differ;
		return (double)n;
	}
	if (t->metric == LDB_M_RATE) {
		uint64_t n = t->kind == LDB_KIND_ANY ? s->counted : s->tot.op[t->kind].counted;
		return s->seconds > 0 ? (double)n / s->seconds : 0;
	}
	if (t->metric == LDB_M_ERRORS) {
		uint64_t n = 0;
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (t->kind == LDB_KIND_ANY || k == t->kind)
				n += ldb_opstats_errors(&s->tot.op[k]);
		return (double)n;
	}
	return ldb_hist_metric(t->kind == LDB_KIND_ANY ? &x->all : s->lat[t->kind], t->metric);
}

int ldb_replay_thresholds(const struct ldb_replay_run *x, const struct ldb_threshold *t, int n, int status,
                          struct ldb_text *text)
{
	bool failed = false;
	for (int i = 0; i < n; i++) {
		double a = actual(x, &t[i]);
		if (!ldb_threshold_holds(&t[i], a))
			continue;
		char shown[64];
		ldb_threshold_format(&t[i], a, shown, sizeof shown);
		const char *kind = t[i].source == LDB_TS_LATE  ? "late"
		                   : t[i].kind != LDB_KIND_ANY ? ldb_op_name((enum ldb_op)t[i].kind)
		                                               : "replay";
		ldb_text_line(text, "Threshold failed: %s (%s is %s)", t[i].text, kind, shown);
		failed = true;
	}
	return failed && status == LDB_EXIT_OK ? LDB_EXIT_THRESHOLD : status;
}

void ldb_replay_config_json(FILE *f, const struct ldb_outputs *o, int io_threads)
{
	const struct ldb_target *t = o->config_arg;
	fputs("\"server\":", f);
	char server[600];
	snprintf(server, sizeof server, "%s://%s:%d", t->ldaps ? "ldaps" : "ldap", t->host ? t->host : "", t->port);
	ldb_json_put_string(f, server);
	fputs(",\"operation\":\"replay\",\"bindeach\":false,\"bind_dn\":null,\"base\":null,\"filter\":null,"
	      "\"scope\":\"subtree\",\"attrs\":[],\"values\":\"fixed\",\"range_low\":null,\"range_high\":null,"
	      "\"expect_entries\":null",
	      f);
	fprintf(f, ",\"threads\":%d,\"io_threads\":%d,\"connections_per_thread\":1,\"depth\":1", o->threads,
	        io_threads);
	fprintf(f, ",\"interval_ms\":%llu", (unsigned long long)o->interval_ms);
	fputs(",\"samples\":null,\"ops_per_thread\":null,\"warmup_ms\":0,\"duration_ms\":0,\"rate\":0.000,"
	      "\"timeout_s\":30,\"max_errors\":1000",
	      f);
}
