/* --fail-if thresholds: see threshold.h. */
#include "out/threshold.h"

#include "cli/config.h"
#include "ops/ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	enum ldb_metric m;
} metrics[] = {
	{ "rate", LDB_M_RATE }, { "errors", LDB_M_ERRORS }, { "min", LDB_M_MIN },   { "mean", LDB_M_MEAN },
	{ "p50", LDB_M_P50 },   { "p90", LDB_M_P90 },       { "p95", LDB_M_P95 },   { "p99.9", LDB_M_P999 },
	{ "p99", LDB_M_P99 },   { "max", LDB_M_MAX },
};

static bool is_latency(enum ldb_metric m) { return m != LDB_M_RATE && m != LDB_M_ERRORS; }

int ldb_threshold_parse(struct ldb_threshold *t, const char *expr, char *err, size_t cap)
{
	memset(t, 0, sizeof *t);
	t->kind = -1;
	snprintf(t->text, sizeof t->text, "%s", expr);
	const char *p = expr;
	/* optional "kind." prefix */
	const char *dot = strchr(p, '.');
	int kind = dot != NULL ? ldb_op_from_name(p, (size_t)(dot - p), true) : -1;
	if (kind >= 0) {
		t->kind = kind;
		p = dot + 1;
	}
	size_t i, best = 0;
	int found = -1;
	for (i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
		size_t n = strlen(metrics[i].name);
		if (strncasecmp(p, metrics[i].name, n) == 0 && n > best) {
			best = n;
			found = (int)i;
		}
	}
	if (found < 0)
		goto bad;
	t->metric = metrics[found].m;
	p += best;
	if (p[0] == '<' && p[1] == '=') {
		t->cmp = LDB_LE;
		p += 2;
	} else if (p[0] == '>' && p[1] == '=') {
		t->cmp = LDB_GE;
		p += 2;
	} else if (p[0] == '<') {
		t->cmp = LDB_LT;
		p++;
	} else if (p[0] == '>') {
		t->cmp = LDB_GT;
		p++;
	} else {
		goto bad;
	}
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno != 0 || v < 0)
		goto bad;
	if (is_latency(t->metric)) {
		double scale;
		if (strcmp(end, "ns") == 0)
			scale = 1;
		else if (strcmp(end, "us") == 0 || strcmp(end, "µs") == 0)
			scale = 1e3;
		else if (strcmp(end, "ms") == 0 || *end == '\0')
			scale = 1e6;
		else if (strcmp(end, "s") == 0)
			scale = 1e9;
		else
			goto bad;
		v *= scale;
	} else if (*end != '\0' && !(t->metric == LDB_M_RATE && strcmp(end, "/s") == 0)) {
		goto bad;
	}
	t->value = v;
	return 0;
bad:
	snprintf(err, cap,
	         "--fail-if '%s': expected [KIND.]METRIC OP VALUE, METRIC one of rate, errors, min, mean, p50, p90, "
	         "p95, p99, p99.9, max (latencies in ns/us/ms/s, ms by default), OP one of < <= > >=",
	         expr);
	return -1;
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
	else
		snprintf(buf, cap, "%.0f", a);
}
