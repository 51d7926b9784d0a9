/* --fail-if's grammar: see threshold.h. */
#include "cli/fail_if.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "util/num.h"

static const char *const metric_names[LDB_M_COUNT] = {
	[LDB_M_RATE] = "rate",
	[LDB_M_ERRORS] = "errors",
	[LDB_M_MIN] = "min",
	[LDB_M_MEAN] = "mean",
	[LDB_M_P50] = "p50",
	[LDB_M_P90] = "p90",
	[LDB_M_P95] = "p95",
	[LDB_M_P99] = "p99",
	[LDB_M_P999] = "p99.9",
	[LDB_M_MAX] = "max",
	[LDB_M_MISSES] = "misses",
	[LDB_M_HITS] = "hits",
	/* the replication check's */
	[LDB_M_UNSEEN] = "unseen",
	/* the join's */
	[LDB_M_UNINDEXED] = "unindexed",
	[LDB_M_UNINDEXED_SEARCHES] = "unindexed_searches",
	[LDB_M_UNINDEXED_COMPONENTS] = "unindexed_components",
	[LDB_M_COVERAGE] = "coverage",
	/* a replay's */
	[LDB_M_DIFFER] = "differ",
	[LDB_M_SKIPPED] = "skipped",
};

#define M(x) (1u << (x))
const struct ldb_threshold_form ldb_threshold_run = {
	.metrics = (M(LDB_M_COUNT) - 1) & ~(M(LDB_M_DIFFER) | M(LDB_M_SKIPPED)),
	.relative = false,
	.metric_help = "expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, min, mean, p50, p90, p95, p99, "
	               "p99.9, max, misses, hits (latencies in ns/us/ms/s, ms by default), OP one of < <= > >=",
};
const struct ldb_threshold_form ldb_threshold_compare = {
	.metrics = M(LDB_M_RATE) | M(LDB_M_P50) | M(LDB_M_P99) | M(LDB_M_MISSES) | M(LDB_M_HITS),
	.relative = true,
	.counts = M(LDB_M_MISSES) | M(LDB_M_HITS),
	.metric_help = "expected [KIND.]METRIC OP VALUE% with METRIC rate, p50, p99, misses or hits (e.g. "
	               "'rate<-5%'; misses and hits also take a count: 'misses>0')",
};
/* ldbench replay: the run's latencies, rate and errors per kind or over
 * every kind, the results that differ, the requests not sent, the lateness. */
const struct ldb_threshold_form ldb_threshold_replay = {
	.metrics = M(LDB_M_RATE) | M(LDB_M_ERRORS) | M(LDB_M_MIN) | M(LDB_M_MEAN) | M(LDB_M_P50) | M(LDB_M_P90) |
	           M(LDB_M_P95) | M(LDB_M_P99) | M(LDB_M_P999) | M(LDB_M_MAX) | M(LDB_M_DIFFER) | M(LDB_M_SKIPPED),
	.relative = false,
	.replay = true,
	.metric_help = "expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, differ, min, mean, p50, p90, "
	               "p95, p99, p99.9, max (latencies in ns/us/ms/s, ms by default), skipped, or late.LATENCY "
	               "(lateness against the schedule), OP one of < <= > >=",
};
/* ldbench join: the join's figures, per kind or over every kind. */
const struct ldb_threshold_form ldb_threshold_join = {
	.metrics = M(LDB_M_MIN) | M(LDB_M_MEAN) | M(LDB_M_P50) | M(LDB_M_P90) | M(LDB_M_P95) | M(LDB_M_P99) |
	           M(LDB_M_P999) | M(LDB_M_MAX) | M(LDB_M_UNINDEXED) | M(LDB_M_UNINDEXED_SEARCHES) |
	           M(LDB_M_UNINDEXED_COMPONENTS) | M(LDB_M_COVERAGE),
	.relative = false,
	.join = true,
	.metric_help = "ldbench join has the join's figures only: [KIND.][FIGURE.]METRIC OP VALUE, FIGURE client "
	               "(the default), server (etime), queue, processing or outside, METRIC a latency (min, mean, "
	               "p50 ... p99.9, max), unindexed, unindexed_searches, unindexed_components or coverage",
};
#undef M

static bool is_unindexed(int m)
{
	return m == LDB_M_UNINDEXED || m == LDB_M_UNINDEXED_SEARCHES || m == LDB_M_UNINDEXED_COMPONENTS;
}

static bool is_count(enum ldb_metric m)
{
	return m == LDB_M_ERRORS || m == LDB_M_MISSES || m == LDB_M_HITS || m == LDB_M_UNSEEN || is_unindexed(m) ||
	       m == LDB_M_DIFFER || m == LDB_M_SKIPPED;
}

static bool is_latency(enum ldb_metric m)
{
	return m != LDB_M_RATE && m != LDB_M_COVERAGE && !is_count(m);
}

const char *ldb_threshold_metric_name(enum ldb_metric m)
{
	return (unsigned)m < LDB_M_COUNT ? metric_names[m] : "?";
}

const char *ldb_threshold_cmp_text(enum ldb_cmp c)
{
	static const char *const text[] = { "<", "<=", ">", ">=" };
	return (unsigned)c < 4 ? text[c] : "?";
}

static int metric_named(const char *name, size_t n)
{
	for (int m = 0; m < LDB_M_COUNT; m++)
		if (strlen(metric_names[m]) == n && strncasecmp(metric_names[m], name, n) == 0)
			return m;
	return -1;
}

/* One refusal, always in the same shape. */
static int refuse(char *err, size_t cap, const char *expr, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(char *err, size_t cap, const char *expr, const char *fmt, ...)
{
	char why[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(err, cap, "--fail-if '%s': %s", expr, why);
	return -1;
}

static const char *skip_blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* The join's figures (--server-log): client., server. (etime), queue.,
 * processing., outside.  @return true when name is one (t's source and
 * figure set). */
static bool join_prefix(struct ldb_threshold *t, const char *name, size_t n)
{
	static const char *const fig[LDB_TF_COUNT] = { [LDB_TF_CLIENT] = "client",
		                                       [LDB_TF_SERVER] = "server",
		                                       [LDB_TF_QUEUE] = "queue",
		                                       [LDB_TF_PROC] = "processing",
		                                       [LDB_TF_OUTSIDE] = "outside" };
	for (int f = 0; f < LDB_TF_COUNT; f++)
		if (strlen(fig[f]) == n && strncasecmp(fig[f], name, n) == 0) {
			t->source = LDB_TS_JOIN;
			t->fig = (enum ldb_tfig)f;
			return true;
		}
	return false;
}

static size_t segment(const char *p, const char *end)
{
	const char *dot = memchr(p, '.', (size_t)(end - p));
	return (size_t)((dot != NULL ? dot : end) - p);
}

/* KIND.: a known operation kind, or an unknown one that is no source
 * either.  @return 0 (*pp past it when there is one), or -1. */
static int parse_kind(struct ldb_threshold *t, const char **pp, const char *end, const struct ldb_threshold_form *form,
                      const char *expr, char *err, size_t cap)
{
	const char *p = *pp;
	size_t n = segment(p, end);
	if (metric_named(p, (size_t)(end - p)) >= 0 || p + n == end)
		return 0;
	t->kind = ldb_op_from_name(p, n, true);
	if (t->kind >= 0) {
		*pp = p + n + 1;
		return 0;
	}
	t->kind = LDB_KIND_ANY;
	struct ldb_threshold probe = *t;
	bool source = (n == 4 && !form->replay && !form->join && strncasecmp(p, "repl", 4) == 0) ||
	              (n == 6 && strncasecmp(p, "listen", 6) == 0) ||
	              (n == 4 && form->replay && strncasecmp(p, "late", 4) == 0) ||
	              (!form->replay && join_prefix(&probe, p, n));
	if (source || metric_named(p, n) >= 0)
		return 0;
	char kinds[200] = "";
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (!ldb_ops[k]->unlisted) /* a flow's rows: named by the user */
			snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? ", " : "",
			         ldb_op_name((enum ldb_op)k));
	return refuse(err, cap, expr, "unknown operation kind '%.*s' (%s)", (int)n, p, kinds);
}

/* listen.FIGURE (p: FIGURE, up to end): a count, delay.LATENCY or
 * refresh.p50/max; compare takes delay p50, p99, max, refresh p50, max,
 * and the counts missing, dup and out_of_order (its listen table's).
 * @return 0, or -1. */
static int parse_listen(struct ldb_threshold *t, const char *p, const char *end, const struct ldb_threshold_form *form,
                        const char *expr, char *err, size_t cap)
{
	static const char *const counts[] = {
		[LDB_LF_MISSING] = "missing",     [LDB_LF_DUP] = "dup",   [LDB_LF_OOO] = "out_of_order",
		[LDB_LF_UNMATCHED] = "unmatched", [LDB_LF_LOST] = "lost", [LDB_LF_DOWN] = "down"
	};
	size_t n = (size_t)(end - p), seg = segment(p, end);
	t->source = LDB_TS_LISTEN;
	for (int f = 0; f <= LDB_LF_DOWN; f++)
		if ((strlen(counts[f]) == n && strncasecmp(counts[f], p, n) == 0) ||
		    (f == LDB_LF_DUP && n == 10 && strncasecmp(p, "duplicated", 10) == 0)) {
			t->lfig = (enum ldb_lfig)f;
			t->metric = LDB_M_UNSEEN; /* a count */
			if (form->relative && f > LDB_LF_OOO)
				break;
			return 0;
		}
	bool delay = seg == 5 && strncasecmp(p, "delay", 5) == 0,
	     refresh = seg == 7 && strncasecmp(p, "refresh", 7) == 0;
	int m = seg < n ? metric_named(p + seg + 1, n - seg - 1) : -1;
	bool ok = (delay || refresh) && m >= 0 && is_latency((enum ldb_metric)m);
	if (ok && (refresh || form->relative))
		ok = m == LDB_M_P50 || m == LDB_M_MAX || (delay && m == LDB_M_P99);
	if (!ok || form->replay || form->join)
		return refuse(err, cap, expr,
		              "unknown listeners' figure '%.*s' (listen.missing, dup, out_of_order%s, delay.p50, "
		              "delay.p99, delay.max%s, refresh.p50, refresh.max)",
		              (int)n, p, form->relative ? "" : ", unmatched, lost, down",
		              form->relative ? "" : ", ...");
	t->lfig = delay ? LDB_LF_DELAY : LDB_LF_REFRESH;
	t->metric = (enum ldb_metric)m;
	return 0;
}

/* SOURCE.METRIC: repl. (the replication check), late. (a replay's), the
 * join's figures, listen. (the listeners').  @return 1 when there was none, 0, or -1. */
static int parse_source(struct ldb_threshold *t, const char *p, const char *end, const struct ldb_threshold_form *form,
                        const char *expr, char *err, size_t cap)
{
	size_t n = segment(p, end);
	if (metric_named(p, (size_t)(end - p)) >= 0 || p + n == end)
		return 1;
	int m = metric_named(p + n + 1, (size_t)(end - p - (ptrdiff_t)n - 1));
	bool repl = !form->replay && !form->join && n == 4 && strncasecmp(p, "repl", 4) == 0;
	bool late = form->replay && n == 4 && strncasecmp(p, "late", 4) == 0;
	if (n == 6 && strncasecmp(p, "listen", 6) == 0 && t->kind == LDB_KIND_ANY)
		return parse_listen(t, p + n + 1, end, form, expr, err, cap);
	if (repl && t->kind == LDB_KIND_ANY) {
		t->source = LDB_TS_REPL;
		if (m < 0 || m == LDB_M_RATE || m == LDB_M_ERRORS || !(form->metrics & (1u << m)))
			return refuse(err, cap, expr, "%s",
			              form->relative ? "repl takes p50 or p99 (e.g. 'repl.p99>+10%')"
			                             : "repl takes a latency (min, mean, p50 ... max) or unseen");
	} else if (late && t->kind == LDB_KIND_ANY) {
		t->source = LDB_TS_LATE;
		if (m < 0 || !is_latency((enum ldb_metric)m))
			return refuse(err, cap, expr, "late takes a latency (e.g. 'late.p99>10ms')");
	} else if (!form->replay && join_prefix(t, p, n)) {
		if (m < 0 || !is_latency((enum ldb_metric)m) || !(form->metrics & (1u << m)) || form->relative)
			return refuse(err, cap, expr, "%.*s takes a latency of a run (e.g. '%.*s.p99>5ms')", (int)n, p,
			              (int)n, p);
	} else {
		return refuse(err, cap, expr, "%s", form->metric_help);
	}
	t->metric = (enum ldb_metric)m;
	return 0;
}

/* "[KIND.][SOURCE.]METRIC": letters, digits and dots up to the operator.  A
 * whole metric name comes first (p99.9 has a dot of its own). */
static int parse_name(struct ldb_threshold *t, const char **pp, const struct ldb_threshold_form *form, const char *expr,
                      char *err, size_t cap)
{
	const char *p = *pp, *end = p;
	while (isalnum((unsigned char)*end) || *end == '.' || *end == '_')
		end++;
	*pp = end;
	if (parse_kind(t, &p, end, form, expr, err, cap) != 0)
		return -1;
	int rc = parse_source(t, p, end, form, expr, err, cap);
	if (rc <= 0)
		return rc;
	int m = metric_named(p, (size_t)(end - p));
	if (m < 0 || !(form->metrics & (1u << m)) || m == LDB_M_UNSEEN || (is_unindexed(m) && t->kind >= 0))
		return refuse(err, cap, expr, "%s", form->metric_help);
	if (m == LDB_M_SKIPPED && t->kind >= 0)
		return refuse(err, cap, expr,
		              "skipped counts the requests not sent for every reason: no kind ('skipped>0')");
	t->metric = (enum ldb_metric)m;
	if (is_unindexed(m) || m == LDB_M_COVERAGE || form->join)
		t->source = LDB_TS_JOIN; /* without a figure: the client's */
	return 0;
}

static int parse_cmp(struct ldb_threshold *t, const char **pp, const char *expr, char *err, size_t cap)
{
	const char *p = *pp;
	if (*p != '<' && *p != '>')
		return refuse(err, cap, expr, "expected an operator (<, <=, > or >=) after %s",
		              metric_names[t->metric]);
	bool eq = p[1] == '=';
	t->cmp = *p == '<' ? (eq ? LDB_LE : LDB_LT) : (eq ? LDB_GE : LDB_GT);
	*pp = p + 1 + eq;
	return 0;
}

/* The number of a value: an optional sign, then digits or a point (util/num's
 * real).  @return 0, or -1 when there is none. */
static int parse_number(const char **pp, double *v)
{
	return ldb_num_real(*pp, pp, v);
}

/* An absolute value's unit: latencies ns/us/µs/ms/s (ms without one), a rate
 * per second, errors a plain count. */
static int apply_unit(struct ldb_threshold *t, const char *unit, size_t n, const char *expr, char *err, size_t cap)
{
	static const struct {
		const char *name;
		double scale;
	} lat[] = { { "", 1e6 }, { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	if (t->metric == LDB_M_COVERAGE) {
		if ((n == 0 || (n == 1 && unit[0] == '%')) && t->value <= 100)
			return 0;
		return refuse(err, cap, expr, "coverage is a percentage of the operations sent (e.g. 'coverage<100')");
	}
	if (n == 1 && unit[0] == '%')
		return refuse(err, cap, expr,
		              "a change in percent is for ldbench compare; a run's threshold is absolute "
		              "(e.g. 'p99>5ms', 'rate<1000')");
	if (t->value < 0)
		return refuse(err, cap, expr, "a negative value; a run's threshold is absolute (e.g. 'rate<1000')");
	if (t->metric == LDB_M_RATE) {
		if (n == 0 || (n == 2 && memcmp(unit, "/s", 2) == 0))
			return 0;
		return refuse(err, cap, expr,
		              "unknown unit '%.*s' (a rate is per second: 'rate<1000' or 'rate<1000/s')", (int)n, unit);
	}
	if (is_count(t->metric)) {
		if (n == 0)
			return 0;
		return refuse(err, cap, expr, "unexpected '%.*s' after the count (%s take a plain number)", (int)n,
		              unit, metric_names[t->metric]);
	}
	for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++)
		if (strlen(lat[i].name) == n && memcmp(lat[i].name, unit, n) == 0) {
			t->value *= lat[i].scale;
			return 0;
		}
	return refuse(err, cap, expr, "unknown unit '%.*s' (latencies take ns, us, ms or s; ms without a unit)", (int)n,
	              unit);
}

/* VALUE and its unit, then the end. */
static int parse_value(struct ldb_threshold *t, const char *p, const struct ldb_threshold_form *form, const char *expr,
                       char *err, size_t cap)
{
	const char *op = ldb_threshold_cmp_text(t->cmp);
	if (parse_number(&p, &t->value) != 0)
		return form->relative ? refuse(err, cap, expr, "expected a percentage after '%s' (e.g. -5%%)", op)
		                      : refuse(err, cap, expr, "expected a number after '%s' (e.g. 5ms)", op);
	p = skip_blanks(p);
	const char *unit = p;
	if (*p == '%')
		p++;
	else
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
	size_t n = (size_t)(p - unit);
	t->relative = n == 1 && unit[0] == '%' && t->metric != LDB_M_COVERAGE;
	bool count = form->relative && !t->relative &&
	             ((form->counts & (1u << t->metric)) || (t->source == LDB_TS_LISTEN && is_count(t->metric)));
	if (form->relative && !t->relative && !count)
		return refuse(err, cap, expr, "the value must end with '%%' (a change in percent)");
	if ((!form->relative || count) && apply_unit(t, unit, n, expr, err, cap) != 0)
		return -1;
	p = skip_blanks(p);
	if (*p != '\0')
		return refuse(err, cap, expr, "unexpected '%s' after the %s", p,
		              form->relative ? "percentage" : "value");
	return 0;
}

int ldb_threshold_parse_form(struct ldb_threshold *t, const char *expr, const struct ldb_threshold_form *form,
                             char *err, size_t cap)
{
	const char *p = skip_blanks(expr);
	memset(t, 0, sizeof *t);
	t->kind = LDB_KIND_ANY;
	snprintf(t->text, sizeof t->text, "%s", expr);
	if (parse_name(t, &p, form, expr, err, cap) != 0)
		return -1;
	p = skip_blanks(p);
	if (parse_cmp(t, &p, expr, err, cap) != 0)
		return -1;
	return parse_value(t, skip_blanks(p), form, expr, err, cap);
}

int ldb_threshold_parse(struct ldb_threshold *t, const char *expr, char *err, size_t cap)
{
	return ldb_threshold_parse_form(t, expr, &ldb_threshold_run, err, cap);
}

bool ldb_threshold_holds(const struct ldb_threshold *t, double a)
{
	switch (t->cmp) {
	case LDB_LT: return a < t->value;
	case LDB_LE: return a <= t->value;
	case LDB_GT: return a > t->value;
	case LDB_GE: return a >= t->value;
	}
	return false;
}

void ldb_threshold_format(const struct ldb_threshold *t, double a, char *buf, size_t cap)
{
	if (is_latency(t->metric))
		snprintf(buf, cap, "%.3f ms", a / 1e6);
	else if (t->metric == LDB_M_RATE)
		snprintf(buf, cap, "%.2f/s", a);
	else if (t->metric == LDB_M_COVERAGE)
		snprintf(buf, cap, "%.1f %%", a);
	else
		snprintf(buf, cap, "%.0f", a);
}

const char *ldb_threshold_needs(const struct ldb_threshold *t)
{
	switch (t->source) {
	case LDB_TS_JOIN: return "--server-log";
	case LDB_TS_REPL: return "-S";
	case LDB_TS_LISTEN: return "--listeners N";
	case LDB_TS_RUN:
	case LDB_TS_LATE: break;
	}
	return NULL;
}

int ldb_thresholds_sources(const struct ldb_threshold *t, int n, bool server_log, bool repl, bool listeners, char *err,
                           size_t cap)
{
	for (int i = 0; i < n; i++) {
		const char *need = ldb_threshold_needs(&t[i]);
		if (t[i].source == LDB_TS_LISTEN && !listeners)
			return refuse(err, cap, t[i].text, "needs --listeners N (its figure comes from the listeners)");
		if ((t[i].source == LDB_TS_JOIN && !server_log) || (t[i].source == LDB_TS_REPL && !repl))
			return refuse(err, cap, t[i].text, "needs %s (%s)", need,
			              t[i].source == LDB_TS_JOIN
			                      ? "its figure comes from the join with the server's access log"
			                      : "its figure comes from the replication check");
	}
	return 0;
}
