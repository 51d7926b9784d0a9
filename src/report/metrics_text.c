/* The live metrics' text (Prometheus exposition format 0.0.4) and the
 * reporter that renders it: see metrics.h and docs/metrics.md. */
#include "report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "report/records.h"
#include "report/replay_out.h"
#include "server/repl_watch.h"

/* Buckets: 12 a power of two (each 6 % above the last, so that
 * histogram_quantile's linear guess is within 6 % of the value) from 10 us
 * to 60 s, each bound the highest value of one of the run's own histogram
 * slots (run/histogram), so a bucket's count is exact. */
#define BUCKETS_PER_OCTAVE 12
#define BUCKET_LOW_NS 10000ULL
#define BUCKET_HIGH_NS 60000000000ULL
#define MAX_BUCKETS 300
#define MAX_CONSUMERS 64

/* -S: one consumer's figures summed over the samples' intervals. */
struct mrepl {
	char name[128];
	uint64_t checked, seen, unseen, superseded, dropped;
	struct ldb_hist delay;
};

/* A histogram as the exposition has it: counts per bucket (not cumulative;
 * the last is +Inf's) and the sum (ns). */
struct mbuckets {
	uint64_t n[MAX_BUCKETS + 1];
	uint64_t sum, total;
};

struct mtext {
	const struct ldb_config *c;
	struct ldb_totals cum;           /* the counters summed over the intervals */
	struct mbuckets h[LDB_OP_COUNT]; /* the latencies so far, in buckets (a sample's folded in: fold) */
	bool used[LDB_OP_COUNT];         /* kinds with latencies in this run */
	double cpu;                      /* the client's CPU seconds */
	double measured;                 /* the measured seconds (warm-up apart), as the counters count */
	struct ldb_hist late;            /* replay: its lateness so far (copied from the sampler's) */
	bool have_late;
	const struct ldb_rp_result *rp; /* replay: its result, at the end only */
	struct ldb_rp_live live;        /* replay: its counters so far (the sampler's, then the result's) */
	bool have_live;
	struct mrepl repl[MAX_CONSUMERS];
	int nrepl;
	double rate_target; /* the gauges */
	int threads;
	uint64_t le[MAX_BUCKETS];     /* bucket bounds (ns) */
	uint32_t le_idx[MAX_BUCKETS]; /* their histogram slots */
	char le_txt[MAX_BUCKETS][24]; /* their text (seconds, %.9g), formatted once */
	uint8_t le_len[MAX_BUCKETS];
	int nle;
};

static void bounds(struct mtext *m)
{
	m->nle = 0;
	for (int i = 0; m->nle < MAX_BUCKETS; i++) {
		double v = (double)BUCKET_LOW_NS * pow(2.0, (double)i / BUCKETS_PER_OCTAVE);
		uint32_t idx = ldb_hist_index((uint64_t)v);
		if (m->nle > 0 && idx <= m->le_idx[m->nle - 1])
			continue;
		m->le_idx[m->nle] = idx;
		m->le[m->nle] = ldb_hist_slot_high(idx);
		int n = snprintf(m->le_txt[m->nle], sizeof m->le_txt[0], "%.9g", (double)m->le[m->nle] / 1e9);
		m->le_len[m->nle++] = (uint8_t)(n > 0 && n < (int)sizeof m->le_txt[0] ? n : 0);
		if (v >= (double)BUCKET_HIGH_NS)
			break;
	}
}

static void add_totals(struct ldb_totals *t, const struct ldb_totals *d)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		t->op[k].attempted += d->op[k].attempted;
		t->op[k].completed += d->op[k].completed;
		for (int i = 0; i < LDB_CODE_SLOTS; i++)
			t->op[k].codes[i] += d->op[k].codes[i];
		for (int i = 0; i < LDB_FAIL_COUNT; i++)
			t->op[k].fails[i] += d->op[k].fails[i];
	}
	for (int i = 0; i < LDB_FAIL_COUNT; i++)
		t->setup.fails[i] += d->setup.fails[i];
	t->conns_up = d->conns_up;
	t->clients_up = d->clients_up;
}

/* ldbench_operations_total{kind,code}: code "0" for the successes (a
 * compare's true and false among them), the others as counted. */
static void put_operations(FILE *f, const struct ldb_totals *t)
{
	fputs("# HELP ldbench_operations_total Operations completed (results received), by kind and LDAP result "
	      "code.\n# TYPE ldbench_operations_total counter\n",
	      f);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opstats *o = &t->op[k];
		if (o->attempted == 0 && o->completed == 0) /* not a kind of this run */
			continue;
		const char *name = ldb_op_name((enum ldb_op)k);
		uint64_t err = ldb_opstats_errors(o);
		fprintf(f, "ldbench_operations_total{kind=\"%s\",code=\"0\"} %llu\n", name,
		        (unsigned long long)(o->completed - err));
		for (int i = 0; i < LDB_CODE_SLOTS; i++) {
			if (o->codes[i] == 0)
				continue;
			if (i == LDB_CODE_ILLEGAL)
				fprintf(f, "ldbench_operations_total{kind=\"%s\",code=\"illegal\"} %llu\n", name,
				        (unsigned long long)o->codes[i]);
			else
				fprintf(f, "ldbench_operations_total{kind=\"%s\",code=\"%d\"} %llu\n", name,
				        i + LDB_CODE_MIN, (unsigned long long)o->codes[i]);
		}
	}
}

/* v in decimal at p; returns the digits' count. */
static size_t put_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* Add h's counts and sum into b.  h is settled (a sampler's interval, a
 * summary's, a copy): ldb_hist_add and ldb_hist_sub keep its min and max in
 * its first and last non-empty slots, so only the slots between are read,
 * not all of its tens of thousands. */
static void fold(const struct mtext *m, struct mbuckets *b, const struct ldb_hist *h)
{
	if (ldb_hist_count(h) == 0)
		return;
	uint32_t i = ldb_hist_index(h->min), end = ldb_hist_index(h->max) + 1;
	if (end > h->counts_len)
		end = h->counts_len;
	int k = 0;
	while (k < m->nle && m->le_idx[k] < i)
		k++;
	while (i < end) { /* bucket k: the slots up to le_idx[k], summed in a loop the compiler vectorizes */
		uint32_t stop = k < m->nle && m->le_idx[k] + 1 < end ? m->le_idx[k] + 1 : end;
		uint64_t c = 0;
		for (uint32_t j = i; j < stop; j++)
			c += h->counts[j];
		b->n[k] += c;
		i = stop;
		if (k < m->nle)
			k++;
	}
	b->sum += h->sum;
	b->total += ldb_hist_count(h);
}

/* Histogram `metric` (seconds) of bucket counts b, labels lab
 * ("kind=\"search\",", or "").  Rendered at every sample: the ~270 bucket
 * lines are put together in one buffer from the bounds' text formatted once
 * (bounds) and the counts in decimal, one fwrite, not a printf of a double
 * per line (bench/metrics_counts.sh). */
static void put_buckets(FILE *f, const struct mtext *m, const char *metric, const char *lab, const struct mbuckets *b)
{
	char pre[160];
	int np = snprintf(pre, sizeof pre, "%s_bucket{%sle=\"", metric, lab);
	size_t line_max = (size_t)np + sizeof m->le_txt[0] + 3 + 20 + 1;
	char *buf = np > 0 && (size_t)np < sizeof pre ? malloc(line_max * (size_t)m->nle) : NULL;
	size_t q = 0;
	uint64_t cum = 0;
	for (int k = 0; k < m->nle; k++) {
		cum += b->n[k];
		if (buf != NULL) {
			memcpy(buf + q, pre, (size_t)np);
			q += (size_t)np;
			memcpy(buf + q, m->le_txt[k], m->le_len[k]);
			q += m->le_len[k];
			memcpy(buf + q, "\"} ", 3);
			q += 3;
			q += put_u64(buf + q, cum);
			buf[q++] = '\n';
		} else {
			fprintf(f, "%s_bucket{%sle=\"%.9g\"} %llu\n", metric, lab, (double)m->le[k] / 1e9,
			        (unsigned long long)cum);
		}
	}
	if (buf != NULL)
		fwrite(buf, 1, q, f);
	free(buf);
	cum += b->n[m->nle];
	fprintf(f, "%s_bucket{%sle=\"+Inf\"} %llu\n", metric, lab, (unsigned long long)cum);
	int n = (int)strlen(lab) - 1; /* the labels without their trailing comma */
	const char *open = n > 0 ? "{" : "", *close = n > 0 ? "}" : "";
	fprintf(f, "%s_sum%s%.*s%s %.9f\n", metric, open, n > 0 ? n : 0, lab, close, (double)b->sum / 1e9);
	fprintf(f, "%s_count%s%.*s%s %llu\n", metric, open, n > 0 ? n : 0, lab, close, (unsigned long long)cum);
}

/* Histogram `metric` of a settled HDR histogram h (see fold). */
static void put_histogram(FILE *f, const struct mtext *m, const char *metric, const char *lab, const struct ldb_hist *h)
{
	struct mbuckets b = { 0 };
	fold(m, &b, h);
	put_buckets(f, m, metric, lab, &b);
}

static void put_failures(FILE *f, const struct ldb_totals *t)
{
	fputs("# HELP ldbench_client_failures_total Requests and connection set-ups the server never answered, by "
	      "reason.\n# TYPE ldbench_client_failures_total counter\n",
	      f);
	for (int i = 0; i < LDB_FAIL_COUNT; i++) {
		uint64_t n = t->setup.fails[i];
		for (int k = 0; k < LDB_OP_COUNT; k++)
			n += t->op[k].fails[i];
		fprintf(f, "ldbench_client_failures_total{reason=\"%s\"} %llu\n", ldb_records_fail_names[i],
		        (unsigned long long)n);
	}
}

static void put_gauges(FILE *f, const struct mtext *m, const struct ldb_totals *t)
{
	long long inflight = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opstats *o = &t->op[k];
		uint64_t done = o->completed;
		for (int i = 0; i < LDB_FAIL_COUNT; i++)
			done += o->fails[i];
		inflight += o->attempted > done ? (long long)(o->attempted - done) : 0;
	}
	fprintf(f,
	        "# HELP ldbench_requests_in_flight Requests sent and not yet answered.\n"
	        "# TYPE ldbench_requests_in_flight gauge\nldbench_requests_in_flight %lld\n"
	        "# HELP ldbench_connections_open LDAP connections up.\n"
	        "# TYPE ldbench_connections_open gauge\nldbench_connections_open %lld\n"
	        "# HELP ldbench_clients Clients (ldclt's threads) of the run.\n"
	        "# TYPE ldbench_clients gauge\nldbench_clients %d\n"
	        "# HELP ldbench_target_rate Target rate (operations per second; 0: closed loop).\n"
	        "# TYPE ldbench_target_rate gauge\nldbench_target_rate %.3f\n"
	        "# HELP ldbench_client_cpu_seconds_total CPU time of ldbench's I/O threads.\n"
	        "# TYPE ldbench_client_cpu_seconds_total counter\nldbench_client_cpu_seconds_total %.6f\n"
	        "# HELP ldbench_measured_seconds Measured time so far (warm-up apart), the counters' time base.\n"
	        "# TYPE ldbench_measured_seconds gauge\nldbench_measured_seconds %.6f\n",
	        inflight, (long long)t->conns_up, m->threads, m->rate_target, m->cpu, m->measured);
}

static void put_info(FILE *f, const struct ldb_config *c)
{
	fputs("# HELP ldbench_run_info The run: ldbench's version, the run id of its records, its command.\n"
	      "# TYPE ldbench_run_info gauge\n",
	      f);
	fprintf(f, "ldbench_run_info{version=\"%s\",run_id=\"%s\",command=\"%s\"} 1\n", LDBENCH_VERSION, ldb_run_id(),
	        c->replay          ? "replay"
	        : c->nfind_max > 0 ? "find-max"
	                           : "load");
}

/* The run's kind of log type t ("rename" for the log's modrdn), or NULL (unbinds, unknown types). */
static const char *replay_kind(int t)
{
	const char *n = t == LDB_SLOG_OP_MODRDN ? "rename" : ldb_slog_optype_name(t);
	int op = t == LDB_SLOG_OP_NONE ? -1 : ldb_op_from_name(n, strlen(n), false);
	return op < 0 ? NULL : ldb_op_name((enum ldb_op)op);
}

/* The replay's counters: sent and differing per kind (the kinds of the log
 * read or sent), the requests not sent per reason, unanswered. */
static void put_replay_counts(FILE *f, const struct ldb_rp_live *r)
{
	fputs("# HELP ldbench_replay_sent_total Requests of the log sent, by kind.\n"
	      "# TYPE ldbench_replay_sent_total counter\n",
	      f);
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++)
		if (replay_kind(t) != NULL && (r->read[t] > 0 || r->sent[t] > 0))
			fprintf(f, "ldbench_replay_sent_total{kind=\"%s\"} %llu\n", replay_kind(t),
			        (unsigned long long)r->sent[t]);
	fputs("# HELP ldbench_replay_differing_total Answers whose result code or entry count differ from the "
	      "log's, by kind.\n# TYPE ldbench_replay_differing_total counter\n",
	      f);
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++)
		if (replay_kind(t) != NULL && (r->read[t] > 0 || r->sent[t] > 0))
			fprintf(f, "ldbench_replay_differing_total{kind=\"%s\"} %llu\n", replay_kind(t),
			        (unsigned long long)r->differ[t]);
	fputs("# HELP ldbench_replay_not_sent_total Requests of the log not sent, by reason.\n"
	      "# TYPE ldbench_replay_not_sent_total counter\n",
	      f);
	for (int w = 1; w < LDB_RP_NSKIPS; w++)
		fprintf(f, "ldbench_replay_not_sent_total{reason=\"%s\"} %llu\n", ldb_rp_skip_name((enum ldb_rp_skip)w),
		        (unsigned long long)r->not_sent[w]);
	fprintf(f,
	        "# HELP ldbench_replay_unanswered_total Requests left unanswered (given up after --drain, or "
	        "their connection closed).\n"
	        "# TYPE ldbench_replay_unanswered_total counter\nldbench_replay_unanswered_total %llu\n",
	        (unsigned long long)r->unanswered);
}

/* A replay: its lateness and counters so far (from the sampler's copies),
 * and at the end the result's own. */
static void put_replay(FILE *f, struct mtext *m)
{
	const struct ldb_hist *late = m->rp != NULL ? &m->rp->late : m->have_late ? &m->late : NULL;
	if (late != NULL) {
		fputs("# HELP ldbench_replay_lateness_seconds How late each request was sent against the log's "
		      "schedule.\n# TYPE ldbench_replay_lateness_seconds histogram\n",
		      f);
		put_histogram(f, m, "ldbench_replay_lateness_seconds", "", late);
	}
	if (m->rp != NULL) {
		ldb_rp_live_read(&m->live, m->rp);
		m->have_live = true;
	}
	if (m->have_live)
		put_replay_counts(f, &m->live);
}

/* s as a label value: \, " and newlines escaped. */
static void put_label(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* -S: each consumer's delay histogram and counts. */
static void put_repl(FILE *f, const struct mtext *m)
{
	static const char *const what[4][2] = {
		{ "checked", "Writes sampled for the replication check" },
		{ "unseen", "Sampled writes not visible on the consumer within --repl-timeout" },
		{ "superseded", "Sampled writes not seen whose entry was written again since" },
		{ "dropped", "Writes not checked (a full queue)" },
	};
	fputs("# HELP ldbench_replication_delay_seconds Delay until a sampled write was visible on the consumer.\n"
	      "# TYPE ldbench_replication_delay_seconds histogram\n",
	      f);
	for (int i = 0; i < m->nrepl; i++) {
		char lab[300];
		char *b = NULL;
		size_t n = 0;
		FILE *lf = open_memstream(&b, &n);
		if (lf == NULL)
			return;
		put_label(lf, m->repl[i].name);
		fclose(lf);
		snprintf(lab, sizeof lab, "consumer=\"%s\",", b != NULL ? b : "");
		free(b);
		put_histogram(f, m, "ldbench_replication_delay_seconds", lab, &m->repl[i].delay);
	}
	for (int w = 0; w < 4; w++) {
		fprintf(f, "# HELP ldbench_replication_%s_total %s.\n# TYPE ldbench_replication_%s_total counter\n",
		        what[w][0], what[w][1], what[w][0]);
		for (int i = 0; i < m->nrepl; i++) {
			const struct mrepl *r = &m->repl[i];
			uint64_t v = w == 0 ? r->checked : w == 1 ? r->unseen : w == 2 ? r->superseded : r->dropped;
			fprintf(f, "ldbench_replication_%s_total{consumer=\"", what[w][0]);
			put_label(f, r->name);
			fprintf(f, "\"} %llu\n", (unsigned long long)v);
		}
	}
}

/* Render everything and hand it to the endpoint: the latencies from lat
 * (settled histograms: the end's), or where that is NULL from the running
 * buckets m->h of the kinds in use (the samples'). */
static void publish(struct mtext *m, const struct ldb_totals *t, const struct ldb_hist *const *lat, bool final)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL)
		return;
	put_info(f, m->c);
	put_operations(f, t);
	put_failures(f, t);
	fputs("# HELP ldbench_operation_duration_seconds Operation latency (with --rate from the intended start).\n"
	      "# TYPE ldbench_operation_duration_seconds histogram\n",
	      f);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		char lab[64];
		snprintf(lab, sizeof lab, "kind=\"%s\",", ldb_op_name((enum ldb_op)k));
		if (lat != NULL && lat[k] != NULL && (t->op[k].attempted > 0 || ldb_hist_count(lat[k]) > 0))
			put_histogram(f, m, "ldbench_operation_duration_seconds", lab, lat[k]);
		else if (lat == NULL && m->used[k] && (t->op[k].attempted > 0 || m->h[k].total > 0))
			put_buckets(f, m, "ldbench_operation_duration_seconds", lab, &m->h[k]);
	}
	put_gauges(f, m, t);
	if (m->c->replay)
		put_replay(f, m);
	if (m->nrepl > 0)
		put_repl(f, m);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	ldb_metrics_publish(buf, len, final);
}

static void on_begin(void *ctx, const struct ldb_run_info *info)
{
	struct mtext *m = ctx;
	m->threads = info->cfg->threads;
	m->rate_target = info->cfg->rate;
	publish(m, &m->cum, NULL, false);
}

static void on_sample(void *ctx, const struct ldb_sample *s)
{
	struct mtext *m = ctx;
	add_totals(&m->cum, &s->delta);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		m->used[k] = true;
		fold(m, &m->h[k], s->lat[k]); /* the sampler's interval: its slots in use only */
	}
	if (s->late != NULL && (m->have_late || ldb_hist_init(&m->late) == 0)) {
		m->have_late = true;
		ldb_hist_reset(&m->late);
		ldb_hist_add(&m->late, s->late);
	}
	if (s->rp_live != NULL) {
		m->live = *s->rp_live;
		m->have_live = true;
	}
	if (s->client != NULL && s->client->have)
		m->cpu += s->client->cpu_seconds;
	m->measured += s->seconds;
	m->threads = s->threads;
	m->rate_target = s->rate_target;
	publish(m, &m->cum, NULL, false);
}

/* -S: a sample's figures (each consumer's in the interval), added up and published. */
static void on_repl(void *ctx, int index, double t_end, const struct ldb_repl_figs *f, int n)
{
	struct mtext *m = ctx;
	(void)t_end;
	if (index == 0)
		return; /* the whole run's: the summary's, published by on_end */
	for (int i = 0; i < n && i < MAX_CONSUMERS; i++) {
		struct mrepl *r = &m->repl[i];
		if (i >= m->nrepl) {
			if (ldb_hist_init(&r->delay) != 0)
				break;
			snprintf(r->name, sizeof r->name, "%s", f[i].consumer != NULL ? f[i].consumer : "");
			m->nrepl = i + 1;
		}
		r->checked += f[i].checked;
		r->seen += f[i].seen;
		r->unseen += f[i].unseen;
		r->superseded += f[i].superseded;
		r->dropped += f[i].dropped;
		ldb_hist_add(&r->delay, &f[i].delay);
	}
	publish(m, &m->cum, NULL, false);
}

/* The last text's view of the mtext, for the summary's parts. */
struct ldb_metrics_end {
	struct mtext *m;
};

void ldb_metrics_end_replay(struct ldb_metrics_end *e, const struct ldb_rp_result *r)
{
	e->m->rp = r;
}

void ldb_metrics_end_repl(struct ldb_metrics_end *e, const struct ldb_repl_figs *f, int n)
{
	struct mtext *m = e->m;
	for (int i = 0; i < n && i < MAX_CONSUMERS; i++) { /* -S: the whole run's, after the last checks */
		struct mrepl *r = &m->repl[i];
		if (i >= m->nrepl && ldb_hist_init(&r->delay) != 0)
			break;
		m->nrepl = i >= m->nrepl ? i + 1 : m->nrepl;
		const struct ldb_repl_figs *g = &f[i];
		snprintf(r->name, sizeof r->name, "%s", g->consumer != NULL ? g->consumer : "");
		r->checked = g->checked;
		r->seen = g->seen;
		r->unseen = g->unseen;
		r->superseded = g->superseded;
		r->dropped = g->dropped;
		ldb_hist_reset(&r->delay);
		ldb_hist_add(&r->delay, &g->delay);
	}
}

/* The summary's own figures: the last scrape equals it. */
static void on_end(void *ctx, const struct ldb_summary *s)
{
	struct mtext *m = ctx;
	if (s->client != NULL && s->client->have)
		m->cpu = s->client->cpu_seconds;
	m->measured = s->seconds;
	m->threads = s->threads;
	m->rate_target = s->rate_target;
	struct ldb_metrics_end e = { m };
	for (int i = 0; i < s->nparts; i++) /* a replay's result, -S's figures */
		if (s->part[i]->ops->metrics != NULL)
			s->part[i]->ops->metrics(s->part[i], &e);
	publish(m, &s->tot, s->lat, true);
	m->rp = NULL; /* not kept past the end */
}

static void on_close(void *ctx)
{
	struct mtext *m = ctx;
	if (m->have_late)
		ldb_hist_free(&m->late);
	for (int i = 0; i < m->nrepl; i++)
		ldb_hist_free(&m->repl[i].delay);
	free(m);
}

int ldb_metrics_reporter(const struct ldb_config *c, struct ldb_reporter *out)
{
	struct mtext *m = calloc(1, sizeof *m);
	if (m == NULL)
		return -1;
	m->c = c;
	bounds(m);
	*out = (struct ldb_reporter){
		.ctx = m, .begin = on_begin, .sample = on_sample, .end = on_end, .close = on_close, .repl = on_repl
	};
	return 0;
}
