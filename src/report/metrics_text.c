/* The live metrics' text (Prometheus exposition format 0.0.4) and the
 * reporter that renders it: see metrics.h and docs/metrics.md. */
#include "report/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "report/records.h"

/* Buckets: 12 a power of two (each 6 % above the last, so that
 * histogram_quantile's linear guess is within 6 % of the value) from 10 us
 * to 60 s, each bound the highest value of one of the run's own histogram
 * slots (run/histogram), so a bucket's count is exact. */
#define BUCKETS_PER_OCTAVE 12
#define BUCKET_LOW_NS 10000ULL
#define BUCKET_HIGH_NS 60000000000ULL
#define MAX_BUCKETS 300

struct mtext {
	const struct ldb_config *c;
	struct ldb_totals cum;           /* the counters summed over the intervals */
	struct ldb_hist h[LDB_OP_COUNT]; /* the latencies so far */
	bool used[LDB_OP_COUNT];         /* kinds with latencies in this run */
	double cpu;                      /* the client's CPU seconds */
	double rate_target;              /* the gauges */
	int threads;
	uint64_t le[MAX_BUCKETS];     /* bucket bounds (ns) */
	uint32_t le_idx[MAX_BUCKETS]; /* their histogram slots */
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
		m->le[m->nle++] = ldb_hist_slot_high(idx);
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

static void put_histogram(FILE *f, const struct mtext *m, const char *name, const struct ldb_hist *h)
{
	uint64_t cum = 0;
	uint32_t i = 0;
	for (int b = 0; b < m->nle; b++) {
		for (; i < h->counts_len && i <= m->le_idx[b]; i++)
			cum += h->counts[i];
		fprintf(f, "ldbench_operation_duration_seconds_bucket{kind=\"%s\",le=\"%.9g\"} %llu\n", name,
		        (double)m->le[b] / 1e9, (unsigned long long)cum);
	}
	for (; i < h->counts_len; i++)
		cum += h->counts[i];
	fprintf(f, "ldbench_operation_duration_seconds_bucket{kind=\"%s\",le=\"+Inf\"} %llu\n", name,
	        (unsigned long long)cum);
	fprintf(f, "ldbench_operation_duration_seconds_sum{kind=\"%s\"} %.9f\n", name, (double)h->sum / 1e9);
	fprintf(f, "ldbench_operation_duration_seconds_count{kind=\"%s\"} %llu\n", name, (unsigned long long)cum);
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
	        "# TYPE ldbench_client_cpu_seconds_total counter\nldbench_client_cpu_seconds_total %.6f\n",
	        inflight, (long long)t->conns_up, m->threads, m->rate_target, m->cpu);
}

static void put_info(FILE *f, const struct ldb_config *c)
{
	fputs("# HELP ldbench_run_info The run: ldbench's version, the run id of its records, its command.\n"
	      "# TYPE ldbench_run_info gauge\n",
	      f);
	fprintf(f, "ldbench_run_info{version=\"%s\",run_id=\"%s\",command=\"%s\"} 1\n", LDBENCH_VERSION, ldb_run_id(),
	        c->nfind_max > 0 ? "find-max" : "load");
}

/* Render everything and hand it to the endpoint. */
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
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (lat[k] != NULL && (t->op[k].attempted > 0 || ldb_hist_count(lat[k]) > 0))
			put_histogram(f, m, ldb_op_name((enum ldb_op)k), lat[k]);
	put_gauges(f, m, t);
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
	const struct ldb_hist *lat[LDB_OP_COUNT] = { 0 };
	publish(m, &m->cum, lat, false);
}

static void on_sample(void *ctx, const struct ldb_sample *s)
{
	struct mtext *m = ctx;
	const struct ldb_hist *lat[LDB_OP_COUNT] = { 0 };
	add_totals(&m->cum, &s->delta);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		if (!m->used[k] && ldb_hist_init(&m->h[k]) != 0)
			continue;
		m->used[k] = true;
		ldb_hist_add(&m->h[k], s->lat[k]);
		lat[k] = &m->h[k];
	}
	if (s->client != NULL && s->client->have)
		m->cpu += s->client->cpu_seconds;
	m->threads = s->threads;
	m->rate_target = s->rate_target;
	publish(m, &m->cum, lat, false);
}

/* The summary's own figures: the last scrape equals it. */
static void on_end(void *ctx, const struct ldb_summary *s)
{
	struct mtext *m = ctx;
	if (s->client != NULL && s->client->have)
		m->cpu = s->client->cpu_seconds;
	m->threads = s->threads;
	m->rate_target = s->rate_target;
	publish(m, &s->tot, s->lat, true);
}

static void on_close(void *ctx)
{
	struct mtext *m = ctx;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (m->used[k])
			ldb_hist_free(&m->h[k]);
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
		.ctx = m, .begin = on_begin, .sample = on_sample, .end = on_end, .close = on_close
	};
	return 0;
}
