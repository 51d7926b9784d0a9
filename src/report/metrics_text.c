/* The live metrics' text (Prometheus exposition format 0.0.4) and the
 * reporter that renders it: see metrics.h and docs/metrics.md.
 *
 * Rendered at each sample by the sampling thread, so it is kept cheap
 * (bench/metrics_counts.sh, docs/performance.md): the text goes into a
 * buffer of its own (no stdio stream), a histogram's ~270 bucket lines are
 * each a copy of a line head formatted once per series (name, labels,
 * bound) and the count in decimal, formatted once per run of equal counts;
 * numbers are formatted by hand, not by printf; the text published is
 * shared by the endpoint's responses, not copied per scrape (metrics.c). */
#include "report/metrics.h"

#include <math.h>
#include <stdarg.h>
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
/* A line head up to this long is copied in one fixed-size copy (inlined)
 * from a table padded by as much; a longer one (a long -S consumer) by memcpy. */
#define HEAD_PAD 96
#define DIGITS_PAD 24

/* A series' line heads: "NAME_bucket{LABELS,le=\"BOUND\"} " for each
 * bound and +Inf, then "NAME_sum{LABELS} " and "NAME_count{LABELS} "; head
 * k is txt[off[k]..off[k + 1]). */
struct mheads {
	uint32_t off[MAX_BUCKETS + 4];
	char *txt; /* HEAD_PAD bytes of padding after the last */
};

/* -S: one consumer's figures summed over the samples' intervals. */
struct mrepl {
	char name[128];
	char lab[300]; /* consumer="NAME", escaped, with a trailing comma */
	uint64_t checked, seen, unseen, superseded, dropped;
	struct ldb_hist delay;
	struct mheads *hd;
};

/* A histogram as the exposition has it: counts per bucket (not cumulative;
 * the last is +Inf's) and the sum (ns). */
struct mbuckets {
	uint64_t n[MAX_BUCKETS + 1];
	uint64_t sum, total;
};

/* [workload] sections: one workload's series (ldbench_workload_*, labelled
 * workload="NAME"), summed from its own samples; at the end its summary's. */
struct mwl {
	char name[64];
	char lab[96]; /* workload="NAME", escaped, with a trailing comma */
	struct ldb_totals cum;
	struct mbuckets h[LDB_OP_COUNT];
	bool used[LDB_OP_COUNT];
	struct mheads *hd[LDB_OP_COUNT];
	const struct ldb_summary *end; /* the last text's: its summary, or NULL */
};
#define MAX_WORKLOADS 16

struct mtext {
	const struct ldb_outputs *o;
	struct mwl *wl[MAX_WORKLOADS]; /* [workload] sections, first sampled first */
	int nwl;
	struct ldb_totals cum;           /* the counters summed over the intervals */
	struct mbuckets h[LDB_OP_COUNT]; /* the latencies so far, in buckets (a sample's folded in: fold) */
	bool used[LDB_OP_COUNT];         /* kinds with latencies in this run */
	struct mheads *hd[LDB_OP_COUNT]; /* their line heads, made at their first text */
	double cpu;                      /* the client's CPU seconds */
	double measured;                 /* the measured seconds (warm-up apart), as the counters count */
	struct mbuckets late;            /* replay: its lateness so far (folded from the sampler's) */
	struct mheads *late_hd;
	bool have_late;
	const struct ldb_rp_result *rp; /* replay: its result, at the end only */
	struct ldb_live_counts live;    /* replay: its counters so far (the sampler's, then the result's) */
	bool have_live;
	struct mrepl repl[MAX_CONSUMERS];
	int nrepl;
	double rate_target; /* the gauges */
	int threads;
	size_t last_len; /* the last text's length: the next one's buffer */
	char info[400];  /* ldbench_run_info's HELP, TYPE and line */
	size_t info_len;
	uint64_t le[MAX_BUCKETS];     /* bucket bounds (ns) */
	uint32_t le_idx[MAX_BUCKETS]; /* their histogram slots */
	char le_txt[MAX_BUCKETS][24]; /* their text (seconds, %.9g), formatted once */
	uint8_t le_len[MAX_BUCKETS];
	int nle;
};

/* ---------------- the text's buffer */

struct mb {
	char *p;
	size_t len, cap;
	bool bad; /* out of memory: the text is dropped */
};

/* Room for n more bytes.  @return false when memory ran out. */
static bool mb_room(struct mb *o, size_t n)
{
	if (o->bad)
		return false;
	if (o->len + n <= o->cap)
		return true;
	size_t cap = o->cap * 2 > o->len + n ? o->cap * 2 : o->len + n + 4096;
	char *p = realloc(o->p, cap);
	if (p == NULL) {
		o->bad = true;
		return false;
	}
	o->p = p;
	o->cap = cap;
	return true;
}

static void mb_put(struct mb *o, const char *s, size_t n)
{
	if (!mb_room(o, n))
		return;
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

#define MB_LIT(o, lit) mb_put((o), "" lit, sizeof(lit) - 1)

static void mb_str(struct mb *o, const char *s)
{
	mb_put(o, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void mb_printf(struct mb *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !mb_room(o, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(o->p + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	o->len += (size_t)n;
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

/* v / 10^dec with dec decimals ("12.000340") at p; returns its length. */
static size_t put_fixed(char *p, uint64_t v, int dec)
{
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };
	size_t n = put_u64(p, v / p10[dec]);
	uint64_t f = v % p10[dec];
	p[n++] = '.';
	for (int i = dec - 1; i >= 0; i--, f /= 10)
		p[n + (size_t)i] = (char)('0' + f % 10);
	return n + (size_t)dec;
}

static void mb_u64(struct mb *o, uint64_t v)
{
	if (mb_room(o, 20))
		o->len += put_u64(o->p + o->len, v);
}

/* x with dec (at most 9) decimals, as printf's %.*f; by hand where x is a
 * plain non-negative figure (printf's exact decimal conversion of a double
 * costs thousands of instructions). */
static void mb_fixed(struct mb *o, double x, int dec)
{
	static const double d10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	double scaled = dec >= 0 && dec <= 9 ? x * d10[dec] : -1;
	if (!(x >= 0) || !(scaled >= 0 && scaled < 1e18)) {
		mb_printf(o, "%.*f", dec, x);
		return;
	}
	if (mb_room(o, 32))
		o->len += put_fixed(o->p + o->len, (uint64_t)llround(scaled), dec);
}

/* ---------------- the series */

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

/* One line "ldbench_operations_total{kind="NAME",code="CODE"} N"; with a
 * workload's labels wlab, "ldbench_workload_operations_total{workload="W",kind=...". */
static void put_op_line(struct mb *o, const char *wlab, const char *name, const char *code, uint64_t n)
{
	if (wlab != NULL) {
		MB_LIT(o, "ldbench_workload_operations_total{");
		mb_str(o, wlab);
		MB_LIT(o, "kind=\"");
	} else {
		MB_LIT(o, "ldbench_operations_total{kind=\"");
	}
	mb_str(o, name);
	MB_LIT(o, "\",code=\"");
	mb_str(o, code);
	MB_LIT(o, "\"} ");
	mb_u64(o, n);
	MB_LIT(o, "\n");
}

/* ldbench_operations_total{kind,code}: code "0" for the successes (a
 * compare's true and false among them), the others as counted; with wlab
 * (a workload's labels) its lines of ldbench_workload_operations_total (the
 * HELP and TYPE the caller's). */
static void put_op_lines(struct mb *o, const struct ldb_totals *t, const char *wlab)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opstats *s = &t->op[k];
		if (s->attempted == 0 && s->completed == 0) /* not a kind of this run */
			continue;
		const char *name = ldb_op_name((enum ldb_op)k);
		put_op_line(o, wlab, name, "0", s->completed - ldb_opstats_errors(s));
		for (int i = 0; i < LDB_CODE_SLOTS; i++) {
			if (s->codes[i] == 0)
				continue;
			char code[16];
			if (i == LDB_CODE_ILLEGAL)
				snprintf(code, sizeof code, "illegal");
			else
				snprintf(code, sizeof code, "%d", i + LDB_CODE_MIN);
			put_op_line(o, wlab, name, code, s->codes[i]);
		}
	}
}

static void put_operations(struct mb *o, const struct ldb_totals *t)
{
	MB_LIT(o, "# HELP ldbench_operations_total Operations completed (results received), by kind and LDAP result "
	          "code.\n# TYPE ldbench_operations_total counter\n");
	put_op_lines(o, t, NULL);
}

/* c[i] + ... + c[end - 1], two slots to a vector add (SSE2, the x86-64
 * baseline), four vectors to a round: about 1.4 instructions a slot where
 * the plain loop took 5 (-O2 leaves it scalar). */
static uint64_t sum_slots(const uint64_t *c, uint32_t i, uint32_t end)
{
	typedef uint64_t v2 __attribute__((vector_size(16)));
	v2 a = { 0, 0 }, b = { 0, 0 }, x = { 0, 0 }, y = { 0, 0 };
	for (; i + 8 <= end; i += 8) {
		v2 p, q, r, s;
		memcpy(&p, c + i, sizeof p);
		memcpy(&q, c + i + 2, sizeof q);
		memcpy(&r, c + i + 4, sizeof r);
		memcpy(&s, c + i + 6, sizeof s);
		a += p;
		b += q;
		x += r;
		y += s;
	}
	a += b + x + y;
	uint64_t sum = a[0] + a[1];
	for (; i < end; i++)
		sum += c[i];
	return sum;
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
	while (i < end) { /* bucket k: the slots up to le_idx[k] */
		uint32_t stop = k < m->nle && m->le_idx[k] + 1 < end ? m->le_idx[k] + 1 : end;
		b->n[k] += sum_slots(h->counts, i, stop);
		i = stop;
		if (k < m->nle)
			k++;
	}
	b->sum += h->sum;
	b->total += ldb_hist_count(h);
}

/* The line heads of histogram `metric` with labels lab ("kind=\"search\",",
 * or ""), formatted once.  @return them, or NULL (out of memory). */
static struct mheads *heads_new(const struct mtext *m, const char *metric, const char *lab)
{
	struct mheads *hd = calloc(1, sizeof *hd);
	struct mb o = { 0 };
	if (hd == NULL)
		return NULL;
	int n = (int)strlen(lab) - 1; /* the labels without their trailing comma */
	for (int k = 0; k <= m->nle + 2; k++) {
		hd->off[k] = (uint32_t)o.len;
		if (k < m->nle)
			mb_printf(&o, "%s_bucket{%sle=\"%.*s\"} ", metric, lab, (int)m->le_len[k], m->le_txt[k]);
		else if (k == m->nle)
			mb_printf(&o, "%s_bucket{%sle=\"+Inf\"} ", metric, lab);
		else
			mb_printf(&o, "%s_%s%s%.*s%s ", metric, k == m->nle + 1 ? "sum" : "count", n > 0 ? "{" : "",
			          n > 0 ? n : 0, lab, n > 0 ? "}" : "");
	}
	hd->off[m->nle + 3] = (uint32_t)o.len;
	if (mb_room(&o, HEAD_PAD))
		memset(o.p + o.len, 0, HEAD_PAD);
	if (o.bad) {
		free(o.p);
		free(hd);
		return NULL;
	}
	hd->txt = o.p;
	return hd;
}

static void heads_free(struct mheads *hd)
{
	if (hd != NULL)
		free(hd->txt);
	free(hd);
}

/* Line head k at p.  @return the end. */
static char *put_head(char *p, const struct mheads *hd, int k)
{
	size_t hl = hd->off[k + 1] - hd->off[k];
	if (hl <= HEAD_PAD)
		memcpy(p, hd->txt + hd->off[k], HEAD_PAD); /* a fixed size: inlined */
	else
		memcpy(p, hd->txt + hd->off[k], hl);
	return p + hl;
}

/* The histogram of bucket counts b: its bucket lines (each the head and the
 * cumulative count, whose digits are made again only where it changed:
 * most buckets lie below the fastest value or above the slowest), +Inf,
 * _sum (seconds) and _count. */
static void put_buckets(struct mb *o, const struct mtext *m, const struct mheads *hd, const struct mbuckets *b)
{
	int n = m->nle;
	if (hd == NULL || !mb_room(o, hd->off[n + 3] + (size_t)(n + 3) * (DIGITS_PAD + 8) + HEAD_PAD))
		return;
	char *p = o->p + o->len;
	char dig[DIGITS_PAD + 8] = { 0 };
	size_t nd = 0;
	uint64_t cum = 0, shown = UINT64_MAX;
	for (int k = 0; k <= n; k++) { /* k == n: +Inf */
		cum += b->n[k];
		p = put_head(p, hd, k);
		if (cum != shown) {
			nd = put_u64(dig, cum);
			dig[nd++] = '\n';
			shown = cum;
		}
		memcpy(p, dig, DIGITS_PAD); /* a fixed size: inlined */
		p += nd;
	}
	p = put_head(p, hd, n + 1);
	p += put_fixed(p, b->sum, 9);
	*p++ = '\n';
	p = put_head(p, hd, n + 2);
	p += put_u64(p, cum);
	*p++ = '\n';
	o->len = (size_t)(p - o->p);
}

/* Histogram of a settled HDR histogram h (see fold). */
static void put_histogram(struct mb *o, const struct mtext *m, const struct mheads *hd, const struct ldb_hist *h)
{
	struct mbuckets b = { 0 };
	fold(m, &b, h);
	put_buckets(o, m, hd, &b);
}

static void put_failures(struct mb *o, const struct ldb_totals *t)
{
	MB_LIT(o, "# HELP ldbench_client_failures_total Requests and connection set-ups the server never answered, by "
	          "reason.\n# TYPE ldbench_client_failures_total counter\n");
	for (int i = 0; i < LDB_FAIL_COUNT; i++) {
		uint64_t n = t->setup.fails[i];
		for (int k = 0; k < LDB_OP_COUNT; k++)
			n += t->op[k].fails[i];
		MB_LIT(o, "ldbench_client_failures_total{reason=\"");
		mb_str(o, ldb_records_fail_names[i]);
		MB_LIT(o, "\"} ");
		mb_u64(o, n);
		MB_LIT(o, "\n");
	}
}

static void put_gauges(struct mb *o, const struct mtext *m, const struct ldb_totals *t)
{
	uint64_t inflight = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opstats *s = &t->op[k];
		uint64_t done = s->completed;
		for (int i = 0; i < LDB_FAIL_COUNT; i++)
			done += s->fails[i];
		inflight += s->attempted > done ? s->attempted - done : 0;
	}
	MB_LIT(o, "# HELP ldbench_requests_in_flight Requests sent and not yet answered.\n"
	          "# TYPE ldbench_requests_in_flight gauge\nldbench_requests_in_flight ");
	mb_u64(o, inflight);
	MB_LIT(o, "\n# HELP ldbench_connections_open LDAP connections up.\n"
	          "# TYPE ldbench_connections_open gauge\nldbench_connections_open ");
	if (t->conns_up < 0)
		MB_LIT(o, "-");
	mb_u64(o, t->conns_up < 0 ? 0 - (uint64_t)t->conns_up : (uint64_t)t->conns_up);
	MB_LIT(o, "\n# HELP ldbench_clients Clients (ldclt's threads) of the run.\n"
	          "# TYPE ldbench_clients gauge\nldbench_clients ");
	mb_u64(o, m->threads > 0 ? (uint64_t)m->threads : 0);
	MB_LIT(o, "\n# HELP ldbench_target_rate Target rate (operations per second; 0: closed loop).\n"
	          "# TYPE ldbench_target_rate gauge\nldbench_target_rate ");
	mb_fixed(o, m->rate_target, 3);
	MB_LIT(o, "\n# HELP ldbench_client_cpu_seconds_total CPU time of ldbench's I/O threads.\n"
	          "# TYPE ldbench_client_cpu_seconds_total counter\nldbench_client_cpu_seconds_total ");
	mb_fixed(o, m->cpu, 6);
	MB_LIT(o, "\n# HELP ldbench_measured_seconds Measured time so far (warm-up apart), the counters' time base.\n"
	          "# TYPE ldbench_measured_seconds gauge\nldbench_measured_seconds ");
	mb_fixed(o, m->measured, 6);
	MB_LIT(o, "\n");
}

/* ldbench_run_info's lines, formatted once (ldb_metrics_reporter). */
static void info_text(struct mtext *m)
{
	int n = snprintf(m->info, sizeof m->info,
	                 "# HELP ldbench_run_info The run: ldbench's version, the run id of its records, its command.\n"
	                 "# TYPE ldbench_run_info gauge\n"
	                 "ldbench_run_info{version=\"%s\",run_id=\"%s\",command=\"%s\"} 1\n",
	                 LDBENCH_VERSION, ldb_run_id(), m->o->command);
	m->info_len = n > 0 && (size_t)n < sizeof m->info ? (size_t)n : 0;
}

/* The run's kind of log type t ("rename" for the log's modrdn), or NULL (unbinds, unknown types). */
static const char *replay_kind(int t)
{
	const char *n = t == LDB_SLOG_OP_MODRDN ? "rename" : ldb_slog_optype_name(t);
	int op = t == LDB_SLOG_OP_NONE ? -1 : ldb_op_from_name(n, strlen(n), false);
	return op < 0 ? NULL : ldb_op_name((enum ldb_op)op);
}

/* "ldbench_replay_WHAT_total{kind="KIND"} N" for each kind of the log read or sent. */
static void put_replay_kinds(struct mb *o, const char *what, const struct ldb_live_counts *r, const uint64_t *v)
{
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		const char *kind = replay_kind(t);
		if (kind != NULL && (r->read[t] > 0 || r->sent[t] > 0))
			mb_printf(o, "ldbench_replay_%s_total{kind=\"%s\"} %llu\n", what, kind,
			          (unsigned long long)v[t]);
	}
}

/* The replay's counters: sent and differing per kind (the kinds of the log
 * read or sent), the requests not sent per reason, unanswered. */
static void put_replay_counts(struct mb *o, const struct ldb_live_counts *r)
{
	MB_LIT(o, "# HELP ldbench_replay_sent_total Requests of the log sent, by kind.\n"
	          "# TYPE ldbench_replay_sent_total counter\n");
	put_replay_kinds(o, "sent", r, r->sent);
	MB_LIT(o, "# HELP ldbench_replay_differing_total Answers whose result code or entry count differ from the "
	          "log's, by kind.\n# TYPE ldbench_replay_differing_total counter\n");
	put_replay_kinds(o, "differing", r, r->differ);
	MB_LIT(o, "# HELP ldbench_replay_not_sent_total Requests of the log not sent, by reason.\n"
	          "# TYPE ldbench_replay_not_sent_total counter\n");
	for (int w = 1; w < LDB_RP_NSKIPS; w++)
		mb_printf(o, "ldbench_replay_not_sent_total{reason=\"%s\"} %llu\n",
		          ldb_rp_skip_name((enum ldb_rp_skip)w), (unsigned long long)r->not_sent[w]);
	MB_LIT(o, "# HELP ldbench_replay_unanswered_total Requests left unanswered (given up after --drain, or "
	          "their connection closed).\n"
	          "# TYPE ldbench_replay_unanswered_total counter\nldbench_replay_unanswered_total ");
	mb_u64(o, r->unanswered);
	MB_LIT(o, "\n");
}

/* A replay: its lateness and counters so far (from the sampler's copies),
 * and at the end the result's own. */
static void put_replay(struct mb *o, struct mtext *m)
{
	if ((m->rp != NULL || m->have_late) && m->late_hd == NULL)
		m->late_hd = heads_new(m, "ldbench_replay_lateness_seconds", "");
	if (m->rp != NULL || m->have_late)
		MB_LIT(o, "# HELP ldbench_replay_lateness_seconds How late each request was sent against the log's "
		          "schedule.\n# TYPE ldbench_replay_lateness_seconds histogram\n");
	if (m->rp != NULL)
		put_histogram(o, m, m->late_hd, &m->rp->late);
	else if (m->have_late)
		put_buckets(o, m, m->late_hd, &m->late);
	if (m->rp != NULL) {
		ldb_replay_live_read(&m->live, m->rp);
		m->have_live = true;
	}
	if (m->have_live)
		put_replay_counts(o, &m->live);
}

/* s as a label value into out (cap): \, " and newlines escaped. */
static void label_value(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (; *s != '\0' && n + 3 < cap; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n')
			out[n++] = '\\';
		out[n++] = *s == '\n' ? 'n' : *s;
	}
	out[n] = '\0';
}

/* -S: consumer i named name (its labels and line heads made once). */
static int repl_add(struct mtext *m, int i, const char *name)
{
	struct mrepl *r = &m->repl[i];
	if (ldb_hist_init(&r->delay) != 0)
		return -1;
	snprintf(r->name, sizeof r->name, "%s", name != NULL ? name : "");
	char v[260];
	label_value(v, sizeof v, r->name);
	snprintf(r->lab, sizeof r->lab, "consumer=\"%s\",", v);
	r->hd = heads_new(m, "ldbench_replication_delay_seconds", r->lab);
	m->nrepl = i + 1;
	return 0;
}

/* -S: each consumer's delay histogram and counts. */
static void put_repl(struct mb *o, const struct mtext *m)
{
	static const char *const what[4][2] = {
		{ "checked", "Writes sampled for the replication check" },
		{ "unseen", "Sampled writes not visible on the consumer within --repl-timeout" },
		{ "superseded", "Sampled writes not seen whose entry was written again since" },
		{ "dropped", "Writes not checked (a full queue)" },
	};
	MB_LIT(o, "# HELP ldbench_replication_delay_seconds Delay until a sampled write was visible on the consumer.\n"
	          "# TYPE ldbench_replication_delay_seconds histogram\n");
	for (int i = 0; i < m->nrepl; i++)
		put_histogram(o, m, m->repl[i].hd, &m->repl[i].delay);
	for (int w = 0; w < 4; w++) {
		mb_printf(o, "# HELP ldbench_replication_%s_total %s.\n# TYPE ldbench_replication_%s_total counter\n",
		          what[w][0], what[w][1], what[w][0]);
		for (int i = 0; i < m->nrepl; i++) {
			const struct mrepl *r = &m->repl[i];
			uint64_t v = w == 0 ? r->checked : w == 1 ? r->unseen : w == 2 ? r->superseded : r->dropped;
			int n = (int)strlen(r->lab) - 1;
			mb_printf(o, "ldbench_replication_%s_total{%.*s} %llu\n", what[w][0], n, r->lab,
			          (unsigned long long)v);
		}
	}
}

/* [workload] sections: workload `name`'s series, made at its first sample (NULL: out of memory, or too many). */
static struct mwl *wl_of(struct mtext *m, const char *name)
{
	for (int i = 0; i < m->nwl; i++)
		if (strcmp(m->wl[i]->name, name) == 0)
			return m->wl[i];
	if (m->nwl == MAX_WORKLOADS)
		return NULL;
	struct mwl *w = calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	char v[64];
	snprintf(w->name, sizeof w->name, "%s", name);
	label_value(v, sizeof v, name);
	snprintf(w->lab, sizeof w->lab, "workload=\"%s\",", v);
	m->wl[m->nwl++] = w;
	return w;
}

/* Each workload's operations and latency histograms, as the run's but named
 * ldbench_workload_* and labelled workload="NAME" (the run's own series stay
 * its totals: a sum over a metric never counts an operation twice); from
 * its summary at the end, else from its samples so far. */
static void put_workloads(struct mb *o, struct mtext *m)
{
	MB_LIT(o, "# HELP ldbench_workload_operations_total A [workload] section's operations completed, by kind and "
	          "LDAP result code (ldbench_operations_total holds their sum).\n"
	          "# TYPE ldbench_workload_operations_total counter\n");
	for (int i = 0; i < m->nwl; i++)
		put_op_lines(o, m->wl[i]->end != NULL ? &m->wl[i]->end->tot : &m->wl[i]->cum, m->wl[i]->lab);
	MB_LIT(o, "# HELP ldbench_workload_operation_duration_seconds A [workload] section's operation latency (with "
	          "--rate from the intended start).\n# TYPE ldbench_workload_operation_duration_seconds histogram\n");
	for (int i = 0; i < m->nwl; i++) {
		struct mwl *w = m->wl[i];
		const struct ldb_totals *t = w->end != NULL ? &w->end->tot : &w->cum;
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			const struct ldb_hist *h = w->end != NULL ? w->end->lat[k] : NULL;
			bool at_end = h != NULL && (t->op[k].attempted > 0 || ldb_hist_count(h) > 0);
			bool so_far = w->end == NULL && w->used[k] && (t->op[k].attempted > 0 || w->h[k].total > 0);
			if (!at_end && !so_far)
				continue;
			if (w->hd[k] == NULL) {
				char lab[160];
				snprintf(lab, sizeof lab, "%skind=\"%s\",", w->lab, ldb_op_name((enum ldb_op)k));
				w->hd[k] = heads_new(m, "ldbench_workload_operation_duration_seconds", lab);
			}
			if (at_end)
				put_histogram(o, m, w->hd[k], h);
			else
				put_buckets(o, m, w->hd[k], &w->h[k]);
		}
	}
}

/* Render everything and hand it to the endpoint: the latencies from lat
 * (settled histograms: the end's), or where that is NULL from the running
 * buckets m->h of the kinds in use (the samples'). */
static void publish(struct mtext *m, const struct ldb_totals *t, const struct ldb_hist *const *lat, bool final)
{
	/* the last text's length and the room put_buckets asks beyond what it
	 * writes: no realloc (and its copy) once the text has its size */
	struct mb o = { .cap = m->last_len + 16384 };
	o.p = malloc(o.cap);
	o.bad = o.p == NULL;
	mb_put(&o, m->info, m->info_len);
	put_operations(&o, t);
	put_failures(&o, t);
	MB_LIT(&o, "# HELP ldbench_operation_duration_seconds Operation latency (with --rate from the intended "
	           "start).\n# TYPE ldbench_operation_duration_seconds histogram\n");
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		bool at_end = lat != NULL && lat[k] != NULL && (t->op[k].attempted > 0 || ldb_hist_count(lat[k]) > 0);
		bool so_far = lat == NULL && m->used[k] && (t->op[k].attempted > 0 || m->h[k].total > 0);
		if (!at_end && !so_far)
			continue;
		if (m->hd[k] == NULL) {
			char lab[64];
			snprintf(lab, sizeof lab, "kind=\"%s\",", ldb_op_name((enum ldb_op)k));
			m->hd[k] = heads_new(m, "ldbench_operation_duration_seconds", lab);
		}
		if (at_end)
			put_histogram(&o, m, m->hd[k], lat[k]);
		else
			put_buckets(&o, m, m->hd[k], &m->h[k]);
	}
	if (m->nwl > 0)
		put_workloads(&o, m);
	put_gauges(&o, m, t);
	if (m->o->replay)
		put_replay(&o, m);
	if (m->nrepl > 0)
		put_repl(&o, m);
	if (o.bad) {
		free(o.p);
		return;
	}
	m->last_len = o.len;
	ldb_metrics_publish(o.p, o.len, final);
}

static void on_begin(void *ctx, const struct ldb_run_info *info)
{
	struct mtext *m = ctx;
	(void)info;
	m->threads = m->o->threads;
	m->rate_target = m->o->rate;
	publish(m, &m->cum, NULL, false);
}

static void on_sample(void *ctx, const struct ldb_sample *s)
{
	struct mtext *m = ctx;
	if (s->workload != NULL) { /* [workload] sections: its own series; the run's sample (the total) follows */
		struct mwl *w = wl_of(m, s->workload);
		if (w == NULL)
			return;
		add_totals(&w->cum, &s->delta);
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (s->lat[k] != NULL) {
				w->used[k] = true;
				fold(m, &w->h[k], s->lat[k]);
			}
		return;
	}
	add_totals(&m->cum, &s->delta);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		m->used[k] = true;
		fold(m, &m->h[k], s->lat[k]); /* the sampler's interval: its slots in use only */
	}
	if (s->late != NULL) { /* the whole replay's so far, settled (the sampler's copy) */
		memset(&m->late, 0, sizeof m->late);
		fold(m, &m->late, s->late);
		m->have_late = true;
	}
	if (s->live != NULL) {
		m->live = *s->live;
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
		if (i >= m->nrepl && repl_add(m, i, f[i].consumer) != 0)
			break;
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
		const struct ldb_repl_figs *g = &f[i];
		if (i >= m->nrepl && repl_add(m, i, g->consumer) != 0)
			break;
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
	for (int i = 0; i < s->nworkloads; i++) { /* [workload] sections: each one's summary */
		struct mwl *w = s->workloads[i].workload != NULL ? wl_of(m, s->workloads[i].workload) : NULL;
		if (w != NULL)
			w->end = &s->workloads[i];
	}
	publish(m, &s->tot, s->lat, true);
	for (int i = 0; i < m->nwl; i++)
		m->wl[i]->end = NULL; /* not kept past the end */
	m->rp = NULL;                 /* not kept past the end */
}

static void on_close(void *ctx)
{
	struct mtext *m = ctx;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		heads_free(m->hd[k]);
	heads_free(m->late_hd);
	for (int i = 0; i < m->nrepl; i++) {
		ldb_hist_free(&m->repl[i].delay);
		heads_free(m->repl[i].hd);
	}
	for (int i = 0; i < m->nwl; i++) {
		for (int k = 0; k < LDB_OP_COUNT; k++)
			heads_free(m->wl[i]->hd[k]);
		free(m->wl[i]);
	}
	free(m);
}

int ldb_metrics_reporter(const struct ldb_outputs *c, struct ldb_reporter *out)
{
	struct mtext *m = calloc(1, sizeof *m);
	if (m == NULL)
		return -1;
	m->o = c;
	bounds(m);
	info_text(m);
	*out = (struct ldb_reporter){
		.ctx = m, .begin = on_begin, .sample = on_sample, .end = on_end, .close = on_close, .repl = on_repl
	};
	return 0;
}
