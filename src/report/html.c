/* The report page: see html.h. */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "report/svg.h"
#include "run/histogram.h"

/* ------------------------------------------------------------ reading */

static struct ldb_html_run *new_run(struct ldb_html_file *f)
{
	struct ldb_html_run *r = realloc(f->runs, sizeof *r * (size_t)(f->nruns + 1));
	if (r == NULL)
		return NULL;
	f->runs = r;
	memset(&r[f->nruns], 0, sizeof *r);
	return &r[f->nruns++];
}

/* A workload's sample into r->wsamples.  @return 0, or -1 (out of memory). */
static int keep_wsample(struct ldb_html_run *r, struct ldb_json *v)
{
	if (r->nwsamples == r->wcap) {
		int cap = r->wcap ? 2 * r->wcap : 64;
		struct ldb_json **s = realloc(r->wsamples, sizeof *s * (size_t)cap);
		if (s == NULL) {
			ldb_json_free(v);
			return -1;
		}
		r->wsamples = s;
		r->wcap = cap;
	}
	r->wsamples[r->nwsamples++] = v;
	return 0;
}

/* Put one record into its run: a header starts a run, and so does a sample
 * or summary after a summary.  @return 0, or -1 (out of memory). */
static int place(struct ldb_html_file *f, struct ldb_json *v, const char *type)
{
	struct ldb_html_run *r = f->nruns > 0 ? &f->runs[f->nruns - 1] : NULL;
	bool header = strcmp(type, "header") == 0, sample = strcmp(type, "sample") == 0;
	if (!header && !sample && strcmp(type, "summary") != 0) {
		ldb_json_free(v);
		return 0;
	}
	/* [workload] sections: a workload's own samples are kept apart (its charts, not the run's) */
	if (sample && ldb_json_get(v, "workload") != NULL)
		return r != NULL && r->summary == NULL ? keep_wsample(r, v) : (ldb_json_free(v), 0);
	if ((r == NULL || header || r->summary != NULL) && (r = new_run(f)) == NULL) {
		ldb_json_free(v);
		return -1;
	}
	if (header) {
		r->header = v;
	} else if (!sample) {
		r->summary = v;
	} else {
		if (r->nsamples == r->cap) {
			int cap = r->cap ? 2 * r->cap : 64;
			struct ldb_json **s = realloc(r->samples, sizeof *s * (size_t)cap);
			if (s == NULL) {
				ldb_json_free(v);
				return -1;
			}
			r->samples = s;
			r->cap = cap;
		}
		r->samples[r->nsamples++] = v;
	}
	return 0;
}

int ldb_html_read(struct ldb_html_file *f, const char *name, FILE *in, char *err, size_t cap)
{
	char *line = NULL, perr[200];
	size_t lcap = 0;
	ssize_t n;
	long lineno = 0;
	const char *base = strrchr(name, '/');

	memset(f, 0, sizeof *f);
	snprintf(f->label, sizeof f->label, "%s", base ? base + 1 : name);
	while ((n = getline(&line, &lcap, in)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		struct ldb_json *v = ldb_json_parse(line, (size_t)n, perr, sizeof perr);
		const char *type = ldb_json_str(ldb_json_get(v, "type"));
		if (v == NULL || type == NULL) {
			snprintf(err, cap, "%s:%ld: %s%s", name, lineno,
			         v ? "not an ldbench record" : "not JSON: ", v ? "" : perr);
			ldb_json_free(v);
			break;
		}
		if (place(f, v, type) != 0) {
			snprintf(err, cap, "out of memory");
			break;
		}
	}
	free(line);
	if (n >= 0 || f->nruns == 0) { /* stopped early, or nothing read */
		if (n < 0)
			snprintf(err, cap, "%s: no records", name);
		ldb_html_file_free(f);
		return -1;
	}
	return 0;
}

void ldb_html_file_free(struct ldb_html_file *f)
{
	for (int i = 0; i < f->nruns; i++) {
		struct ldb_html_run *r = &f->runs[i];
		ldb_json_free(r->header);
		ldb_json_free(r->summary);
		for (int j = 0; j < r->nsamples; j++)
			ldb_json_free(r->samples[j]);
		free(r->samples);
		for (int j = 0; j < r->nwsamples; j++)
			ldb_json_free(r->wsamples[j]);
		free(r->wsamples);
	}
	free(f->runs);
	memset(f, 0, sizeof *f);
}

/* ------------------------------------------------------------ helpers */

/* Each run of each file: its colour and its legend name. */
struct page {
	FILE *out;
	const struct ldb_html_file *files;
	int n;
};

#define FOR_RUNS(p, fi, ri, color)                     \
	for (int fi = 0, color = 0; fi < (p)->n; fi++) \
		for (int ri = 0; ri < (p)->files[fi].nruns; ri++, color++)

static double num(const struct ldb_json *v, const char *path, double dflt)
{
	double d;
	return ldb_json_double(ldb_json_path(v, path), &d) == 0 ? d : dflt;
}

static int run_threads(const struct ldb_html_run *r)
{
	return (int)num(r->summary, "threads", num(r->header, "config.threads", 0));
}

void ldb_html_run_name(const struct ldb_html_file *f, int ri, char *buf, size_t cap)
{
	if (f->nruns > 1)
		snprintf(buf, cap, "%s n=%d", f->label, run_threads(&f->runs[ri]));
	else
		snprintf(buf, cap, "%s", f->label);
}

/* The records' latencies are in microseconds; the whole page says them in
 * milliseconds, as the text does: a latency chart's values to ms, and its
 * axis label saying so. */
static const char *latency_ms(struct ldb_svg_chart *c, const char *what, char *buf, size_t cap)
{
	for (int i = 0; i < c->ns; i++)
		for (int j = 0; j < c->s[i].n; j++)
			c->s[i].y[j] /= 1e3;
	snprintf(buf, cap, "%s (ms%s)", what, c->ylog ? ", log scale" : "");
	return buf;
}

static bool kind_used(const struct page *p, int k)
{
	const char *kn = ldb_op_name((enum ldb_op)k);
	FOR_RUNS(p, fi, ri, color)
	{
		(void)color;
		const struct ldb_html_run *r = &p->files[fi].runs[ri];
		const struct ldb_json *o = ldb_json_get(ldb_json_get(r->summary, "ops"), kn);
		if (o != NULL && (num(o, "attempted", 0) > 0 || num(o, "completed", 0) > 0))
			return true;
		for (int j = 0; j < r->nsamples; j++) {
			o = ldb_json_get(ldb_json_get(r->samples[j], "ops"), kn);
			if (o != NULL && (num(o, "attempted", 0) > 0 || num(o, "completed", 0) > 0))
				return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------ sections */

static const char css[] =
        "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;background:#fff}"
        "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:24px 0 8px;border-bottom:1px solid #ddd}"
        "table{border-collapse:collapse;font-size:13px;margin:4px 0 12px}"
        "td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
        "th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
        ".grid-2{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:12px}"
        "figure.chart{margin:0;border:1px solid #e3e3e3;padding:4px;max-width:760px}"
        ".wide{overflow-x:auto}td.w{max-width:20em;overflow-wrap:anywhere}"
        "svg.chart,svg.bars{width:100%;height:auto;display:block}"
        "svg.bars .tick{font-size:11px;fill:#444}svg.bars .label{font-size:12px;fill:#222}"
        "svg.bars .title{font-size:14px;font-weight:600;fill:#222}"
        "svg.chart .grid{stroke:#eee}svg.chart .axis{stroke:#555}"
        "svg.chart .tick{font-size:11px;fill:#444}svg.chart .label{font-size:12px;fill:#222}"
        "svg.chart .title{font-size:14px;font-weight:600;fill:#222}"
        ".legend{font-size:12px;display:flex;flex-wrap:wrap;gap:4px 14px;padding:2px 6px}"
        ".note{color:#555;font-size:13px}pre{font-size:12px;overflow-x:auto}";

static void head(struct page *p)
{
	FILE *o = p->out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>ldbench report</title>\n<style>",
	      o);
	fputs(css, o);
	/* a script error becomes visible in the page (the browser test reads it) */
	fputs("</style>\n<script>window.onerror=function(m){var e=document.getElementById('js-errors');"
	      "if(e){e.textContent+=m+'\\n';}};</script>\n</head>\n<body>\n<pre id=\"js-errors\"></pre>\n"
	      "<h1>ldbench report</h1>\n",
	      o);
}

static void cell(FILE *o, const struct ldb_json *v, const char *path, const char *col)
{
	const struct ldb_json *x = ldb_json_path(v, path);
	/* long strings (URL, DN, filter) may wrap anywhere */
	bool wrap = strncmp(path, "config.", 7) == 0 && x && x->type == LDB_JSON_STRING && x->len > 16;
	fprintf(o, "<td%s data-col=\"%s\">", wrap ? " class=\"w\"" : "", col);
	if (x == NULL || x->type == LDB_JSON_NULL)
		fputs("-", o);
	else
		ldb_html_escape(o, x->type == LDB_JSON_BOOL ? (x->boolean ? "true" : "false") : x->text);
	fputs("</td>", o);
}

/* The run's target rate as the text's summary says it: the mean target over
 * the run (with --rate-profile, the profile's mean; the header's config.rate
 * is its peak, shown too, labelled); "-" for a closed-loop run. */
static void rate_target_cell(FILE *o, const struct ldb_html_run *r)
{
	double peak = num(r->header, "config.rate", 0), mean = num(r->summary, "rate_target", peak);
	if (mean <= 0) {
		fputs("<td class=\"n\" data-col=\"rate-target\">-</td>", o);
		return;
	}
	fprintf(o, "<td class=\"n\" data-col=\"rate-target\">%.2f", mean);
	if (peak > 0 && fabs(peak - mean) >= 0.005)
		fprintf(o, " (mean; peak %.2f)", peak);
	fputs("</td>", o);
}

/* The Runs table's cells of run r after its name (a replay has no clients,
 * depth or seed: "-", its own figures in the Replay section). */
static void run_cells(FILE *o, const struct ldb_html_run *r)
{
	static const struct {
		const char *col, *path; /* path NULL: rate_target_cell */
		bool load_only;         /* "-" for a replay */
	} cols[] = {
		{ "start", "start", false },           { "host", "host", false },
		{ "server", "config.server", false },  { "operation", "config.operation", false },
		{ "base", "config.base", false },      { "filter", "config.filter", false },
		{ "clients", "config.threads", true }, { "depth", "config.depth", true },
		{ "rate-target", NULL, false },        { "seed", "seed", true },
		{ "ldbench", "ldbench", false },
	};
	bool replay = ldb_html_is_replay(r);
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		if (cols[i].path == NULL)
			rate_target_cell(o, r);
		else if (replay && cols[i].load_only)
			fprintf(o, "<td data-col=\"%s\">-</td>", cols[i].col);
		else
			cell(o, r->header, cols[i].path, cols[i].col);
	cell(o, r->summary, "seconds", "seconds");
	cell(o, r->summary, "status", "status");
}

static void run_headers(struct page *p)
{
	static const char *const heads[] = { "start",   "host",  "server",         "operation", "base",   "filter",
		                             "clients", "depth", "rate target /s", "seed",      "ldbench" };
	FILE *o = p->out;
	bool sides = p->n > 0 && p->files[0].side != NULL;
	fputs("<h2>Runs</h2>\n<div class=\"wide\"><table class=\"runs\"><tr><th>run</th>", o);
	if (sides)
		fputs("<th>compare</th>", o);
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
		fprintf(o, "<th>%s</th>", heads[i]);
	fputs("<th>seconds</th><th>status</th></tr>\n", o);
	FOR_RUNS(p, fi, ri, color)
	{
		const struct ldb_html_file *f = &p->files[fi];
		char name[160];
		ldb_html_run_name(f, ri, name, sizeof name);
		fprintf(o, "<tr data-run=\"%d\"", color);
		if (sides)
			fprintf(o, " data-side=\"%s\"", f->side);
		fputs("><td>", o);
		ldb_html_escape(o, name);
		fputs("</td>", o);
		if (sides)
			fprintf(o, "<td data-col=\"side\">%s</td>", f->side);
		run_cells(o, &f->runs[ri]);
		fputs("</tr>\n", o);
	}
	fputs("</table></div>\n", o);
}

static void summary_rows(FILE *o, const char *name, const struct ldb_json *ops)
{
	for (const struct ldb_json *k = ops ? ops->child : NULL; k != NULL; k = k->next) {
		if (num(k, "attempted", 0) == 0 && num(k, "completed", 0) == 0)
			continue;
		fputs("<tr><td>", o);
		ldb_html_escape(o, name);
		fputs("</td><td>", o);
		ldb_html_escape(o, k->key);
		fputs("</td>", o);
		static const char *const f[] = {
			"counted",          "rate",           "latency_us.p50", "latency_us.p99",
			"latency_us.p99.9", "latency_us.max", "errors"
		};
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
			/* p99.9 holds a dot: reach it by hand */
			const struct ldb_json *v =
			        i == 4 ? ldb_json_get(ldb_json_get(k, "latency_us"), "p99.9") : ldb_json_path(k, f[i]);
			double d;
			if (v == NULL || v->type != LDB_JSON_NUMBER)
				fputs("<td class=\"n\">-</td>", o);
			else if (i >= 2 && i <= 5 && ldb_json_double(v, &d) == 0) /* latencies: us to ms, as the text */
				fprintf(o, "<td class=\"n\">%.3f</td>", d / 1e3);
			else
				fprintf(o, "<td class=\"n\">%s</td>", v->text);
		}
		fputs("</tr>\n", o);
	}
}

static void summaries(struct page *p)
{
	FILE *o = p->out;
	fputs("<h2>Totals</h2>\n<table class=\"totals\"><tr><th>run</th><th>kind</th><th>counted</th>"
	      "<th>rate /s</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th>"
	      "<th>max ms</th><th>errors</th></tr>\n",
	      o);
	FOR_RUNS(p, fi, ri, color)
	{
		(void)color;
		char name[160];
		ldb_html_run_name(&p->files[fi], ri, name, sizeof name);
		summary_rows(o, name, ldb_json_get(p->files[fi].runs[ri].summary, "ops"));
	}
	fputs("</table>\n", o);
}

#define MAX_WL 16

/* The workloads' names over every run, first seen first (at most MAX_WL). */
static int wl_names(const struct page *p, const char *names[MAX_WL])
{
	int n = 0;
	FOR_RUNS(p, fi, ri, color)
	{
		(void)color;
		const struct ldb_json *w = ldb_json_get(p->files[fi].runs[ri].summary, "workloads");
		for (const struct ldb_json *one = w != NULL ? w->child : NULL; one != NULL; one = one->next) {
			int j = 0;
			while (j < n && strcmp(names[j], one->key) != 0)
				j++;
			if (j == n && n < MAX_WL)
				names[n++] = one->key;
		}
	}
	return n;
}

/* Workload wl's figures of run r per sample (its own samples), a series per
 * kind of its summary (ops): the rate into rc; p50 and p99 (with a target
 * rate, the uncorrected p99 too) into lc.  One run: a colour per kind, the
 * series "WL KIND"; several: the run's name first and a colour per run and kind. */
static void workload_series(struct ldb_svg_chart *rc, struct ldb_svg_chart *lc, const struct ldb_html_run *r,
                            const char *wl, const struct ldb_json *ops, const char *run, int color, int nruns)
{
	static const char *const met[] = { "p50", "p99", "p99-uncorrected" };
	static const char *const path[] = { "latency_us.p50", "latency_us.p99", "uncorrected.latency_us.p99" };
	int ki = 0;
	for (const struct ldb_json *k = ops != NULL ? ops->child : NULL; k != NULL; k = k->next, ki++) {
		char nm[400];
		int c = color + ki * nruns;
		if (nruns > 1)
			snprintf(nm, sizeof nm, "%s %s %s", run, wl, k->key);
		else
			snprintf(nm, sizeof nm, "%s %s", wl, k->key);
		struct ldb_svg_series *s = ldb_svg_add(rc, r->nwsamples, c, 0, k->key, "rate", nm), *sl[3] = { 0 };
		bool rated = ldb_json_get(k, "uncorrected") != NULL;
		for (int m = 0; m < (rated ? 3 : 2); m++) {
			char ln[460];
			snprintf(ln, sizeof ln, "%s %s%s", nm, met[m], m == 1 && rated ? " (corrected)" : "");
			sl[m] = ldb_svg_add(lc, r->nwsamples, c, m, k->key, met[m], ln);
		}
		for (int j = 0; j < r->nwsamples; j++) {
			const struct ldb_json *x = r->wsamples[j], *n = ldb_json_get(x, "workload");
			const struct ldb_json *o1 = ldb_json_get(ldb_json_get(x, "ops"), k->key);
			double v;
			if (n == NULL || n->type != LDB_JSON_STRING || strcmp(n->text, wl) != 0 || o1 == NULL)
				continue;
			if (s != NULL)
				ldb_svg_point(s, num(x, "t", 0), num(o1, "rate", 0));
			for (int m = 0; m < 3; m++)
				if (sl[m] != NULL && ldb_json_double(ldb_json_path(o1, path[m]), &v) == 0)
					ldb_svg_point(sl[m], num(x, "t", 0), v);
		}
	}
}

/* Workload wl's section: per run that has it, its clients, time and totals
 * (as the run's); then its rate and latency per sample, every run's series
 * on one chart each (one colour per run, as the page's other charts). */
static void workload_section(struct page *p, const char *wl, int nruns)
{
	FILE *o = p->out;
	char title[160], title2[160], ylab[64];
	struct ldb_svg_chart rc = { .xlabel = "time since start (s)", .ylabel = "rate (ops/s)", .xtime = true };
	struct ldb_svg_chart lc = { .xlabel = "time since start (s)", .ylog = true, .xtime = true };
	snprintf(title, sizeof title, "%s: rate per sample", wl);
	snprintf(title2, sizeof title2, "%s: latency per sample", wl);
	rc.title = title;
	lc.title = title2;
	bool samples = false;
	FOR_RUNS(p, fi, ri, color)
	{
		const struct ldb_html_run *r = &p->files[fi].runs[ri];
		const struct ldb_json *one = ldb_json_get(ldb_json_get(r->summary, "workloads"), wl);
		char name[160];
		if (one == NULL)
			continue;
		ldb_html_run_name(&p->files[fi], ri, name, sizeof name);
		fputs("<h3>", o);
		ldb_html_escape(o, wl);
		fputs(" (", o);
		ldb_html_escape(o, name);
		fprintf(o, "): %d clients, %.3f s</h3>\n", (int)num(one, "threads", 0), num(one, "seconds", 0));
		fputs("<table class=\"totals\"><tr><th>workload</th><th>kind</th><th>counted</th><th>rate /s</th>"
		      "<th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>errors</th></tr>\n",
		      o);
		summary_rows(o, wl, ldb_json_get(one, "ops"));
		fputs("</table>\n", o);
		workload_series(&rc, &lc, r, wl, ldb_json_get(one, "ops"), name, color, nruns);
		samples |= r->nwsamples > 0;
	}
	if (samples) {
		fputs("<div class=\"grid-2\">\n", o);
		ldb_svg_write(o, &rc);
		lc.ylabel = latency_ms(&lc, "latency", ylab, sizeof ylab);
		ldb_svg_write(o, &lc);
		fputs("</div>\n", o);
	}
	ldb_svg_free(&rc);
	ldb_svg_free(&lc);
}

/* [workload] sections: a section per workload (by name, over every run that
 * has it), each run's totals of it, and its rate and latency from its own samples. */
static void workloads(struct page *p)
{
	const char *names[MAX_WL];
	int n = wl_names(p, names), nruns = 0;
	FOR_RUNS(p, fi, ri, color)
	{
		(void)fi, (void)ri;
		nruns = color + 1;
	}
	if (n == 0)
		return;
	fputs("<h2 id=\"workloads\">Workloads</h2>\n", p->out);
	for (int i = 0; i < n; i++)
		workload_section(p, names[i], nruns);
}

/* Per kind over time: the rate, and p50/p99 (and uncorrected p99 with --rate). */
static void over_time(struct page *p, int k)
{
	const char *kn = ldb_op_name((enum ldb_op)k);
	char title[96], ylab[64];
	struct ldb_svg_chart rate = { .xlabel = "time since start (s)", .ylabel = "rate (ops/s)", .xtime = true };
	struct ldb_svg_chart lat = { .xlabel = "time since start (s)", .ylog = true, .xtime = true };
	snprintf(title, sizeof title, "%s: rate per sample", kn);
	rate.title = title;
	FOR_RUNS(p, fi, ri, color)
	{
		const struct ldb_html_run *r = &p->files[fi].runs[ri];
		char name[160], nm[400];
		ldb_html_run_name(&p->files[fi], ri, name, sizeof name);
		struct ldb_svg_series *sr = ldb_svg_add(&rate, r->nsamples, color, 0, kn, "rate", name);
		static const char *const met[] = { "p50", "p99", "p99-uncorrected" };
		static const char *const path[] = { "latency_us.p50", "latency_us.p99", "uncorrected.latency_us.p99" };
		struct ldb_svg_series *sl[3] = { NULL, NULL, NULL };
		bool rated = num(r->header, "config.rate", 0) > 0;
		for (int m = 0; m < (rated ? 3 : 2); m++) {
			snprintf(nm, sizeof nm, "%s %s%s", name, met[m], m == 1 && rated ? " (corrected)" : "");
			sl[m] = ldb_svg_add(&lat, r->nsamples, color, m, kn, met[m], nm);
		}
		for (int j = 0; j < r->nsamples; j++) {
			const struct ldb_json *s = r->samples[j], *o = ldb_json_get(ldb_json_get(s, "ops"), kn);
			double t = num(s, "t", 0), v;
			if (o == NULL)
				continue;
			if (sr != NULL)
				ldb_svg_point(sr, t, num(o, "rate", 0));
			for (int m = 0; m < 3; m++)
				if (sl[m] != NULL && ldb_json_double(ldb_json_path(o, path[m]), &v) == 0)
					ldb_svg_point(sl[m], t, v);
		}
	}
	snprintf(title, sizeof title, "%s: rate per sample", kn);
	fputs("<div class=\"grid-2\">\n", p->out);
	ldb_svg_write(p->out, &rate);
	snprintf(title, sizeof title, "%s: latency per sample", kn);
	lat.title = title;
	lat.ylabel = latency_ms(&lat, "latency", ylab, sizeof ylab);
	ldb_svg_write(p->out, &lat);
	fputs("</div>\n", p->out);
	ldb_svg_free(&rate);
	ldb_svg_free(&lat);
}

/* The spectrum of one histogram text (nanoseconds): p50 to max on the 1/(1-p)
 * log axis, in microseconds as the records' other latencies. */
static void spectrum_series(struct ldb_svg_series *s, const char *text, struct ldb_hist *h)
{
	ldb_hist_reset(h);
	if (text == NULL || ldb_hist_decode(h, text) != 0)
		return;
	uint64_t n = ldb_hist_count(h);
	if (n < 2)
		return;
	double xmax = fmin(log10((double)n), 6.0);
	for (double x = log10(2.0); x < xmax; x += 0.05)
		ldb_svg_point(s, x, (double)ldb_hist_percentile(h, 100.0 * (1.0 - pow(10, -x))) / 1e3);
	ldb_svg_point(s, xmax, (double)h->max / 1e3);
}

static void spectrum(struct page *p, int k, struct ldb_hist *h)
{
	const char *kn = ldb_op_name((enum ldb_op)k);
	char title[96], ylab[64];
	struct ldb_svg_chart c = { .xlabel = "percentile (log scale of 1/(1-p))", .xspectrum = true, .ylog = true };
	snprintf(title, sizeof title, "%s: latency by percentile, whole run", kn);
	c.title = title;
	FOR_RUNS(p, fi, ri, color)
	{
		const struct ldb_json *o = ldb_json_get(ldb_json_get(p->files[fi].runs[ri].summary, "ops"), kn);
		char name[160], nm[400];
		if (o == NULL)
			continue;
		ldb_html_run_name(&p->files[fi], ri, name, sizeof name);
		const struct ldb_json *u = ldb_json_get(o, "uncorrected");
		snprintf(nm, sizeof nm, "%s%s", name, u ? " (corrected)" : "");
		struct ldb_svg_series *s = ldb_svg_add(&c, 140, color, 0, kn, "spectrum", nm);
		if (s != NULL)
			spectrum_series(s, ldb_json_str(ldb_json_get(o, "histogram")), h);
		snprintf(nm, sizeof nm, "%s uncorrected", name);
		if (u != NULL && (s = ldb_svg_add(&c, 140, color, 2, kn, "spectrum-uncorrected", nm)) != NULL)
			spectrum_series(s, ldb_json_str(ldb_json_get(u, "histogram")), h);
	}
	c.ylabel = latency_ms(&c, "latency", ylab, sizeof ylab);
	ldb_svg_write(p->out, &c);
	ldb_svg_free(&c);
}

#define MAX_CODES 12

/* The first member of v's object `key`, or NULL. */
static const struct ldb_json *members(const struct ldb_json *v, const char *key)
{
	const struct ldb_json *o = ldb_json_get(v, key);
	return o != NULL && o->type == LDB_JSON_OBJECT ? o->child : NULL;
}

/* The result codes of a run's samples (all kinds), at most MAX_CODES. */
static int run_codes(const struct ldb_html_run *r, char codes[MAX_CODES][16])
{
	int n = 0;
	for (int j = 0; j < r->nsamples; j++)
		for (const struct ldb_json *o = members(r->samples[j], "ops"); o; o = o->next)
			for (const struct ldb_json *c = members(o, "errors_by_code"); c; c = c->next) {
				int i = 0;
				while (i < n && strcmp(codes[i], c->key) != 0)
					i++;
				if (i == n && n < MAX_CODES)
					snprintf(codes[n++], sizeof codes[0], "%s", c->key);
			}
	return n;
}

static double code_count(const struct ldb_json *sample, const char *code)
{
	double sum = 0;
	for (const struct ldb_json *o = members(sample, "ops"); o; o = o->next)
		sum += num(ldb_json_get(o, "errors_by_code"), code, 0);
	return sum;
}

static void errors_over_time(struct page *p)
{
	struct ldb_svg_chart c = { .title = "errors by result code, per sample",
		                   .xlabel = "time since start (s)",
		                   .ylabel = "errors per sample (count)",
		                   .xtime = true };
	fputs("<h2>Errors</h2>\n", p->out);
	FOR_RUNS(p, fi, ri, color)
	{
		const struct ldb_html_run *r = &p->files[fi].runs[ri];
		char codes[MAX_CODES][16], name[160], nm[400];
		int nc = run_codes(r, codes);
		ldb_html_run_name(&p->files[fi], ri, name, sizeof name);
		for (int i = 0; i < nc; i++) {
			snprintf(nm, sizeof nm, "%s code %s", name, codes[i]);
			struct ldb_svg_series *s =
			        ldb_svg_add(&c, r->nsamples, color + i, i % 3, "errors", codes[i], nm);
			for (int j = 0; s != NULL && j < r->nsamples; j++)
				ldb_svg_point(s, num(r->samples[j], "t", 0), code_count(r->samples[j], codes[i]));
		}
	}
	if (c.ns == 0)
		fputs("<p class=\"note\" id=\"no-errors\">No errors in any sample.</p>\n", p->out);
	else
		ldb_svg_write(p->out, &c);
	ldb_svg_free(&c);
}

/* The kind a run's p99 is read from: the first with completed results. */
static const struct ldb_json *main_kind(const struct ldb_json *summary)
{
	const struct ldb_json *ops = ldb_json_get(summary, "ops");
	for (const struct ldb_json *o = ops ? ops->child : NULL; o; o = o->next)
		if (num(o, "completed", 0) > 0)
			return o;
	return ops ? ops->child : NULL;
}

static void sweep(struct page *p)
{
	struct ldb_svg_chart rate = { .title = "sweep: rate by concurrency",
		                      .xlabel = "concurrency (clients, -n)",
		                      .ylabel = "rate (ops/s)",
		                      .xint = true };
	struct ldb_svg_chart lat = { .title = "sweep: p99 latency by concurrency",
		                     .xlabel = "concurrency (clients, -n)",
		                     .xint = true };
	char ylab[64];
	for (int fi = 0; fi < p->n; fi++) {
		const struct ldb_html_file *f = &p->files[fi];
		if (f->nruns < 2)
			continue;
		struct ldb_svg_series *sr = ldb_svg_add(&rate, f->nruns, fi, 0, "sweep", "rate", f->label);
		struct ldb_svg_series *sl = ldb_svg_add(&lat, f->nruns, fi, 0, "sweep", "p99", f->label);
		for (int ri = 0; ri < f->nruns && sr && sl; ri++) {
			const struct ldb_json *s = f->runs[ri].summary, *o = main_kind(s);
			double v;
			if (s == NULL)
				continue;
			ldb_svg_point(sr, run_threads(&f->runs[ri]), num(s, "rate", 0));
			if (ldb_json_double(ldb_json_path(o, "latency_us.p99"), &v) == 0)
				ldb_svg_point(sl, run_threads(&f->runs[ri]), v);
		}
	}
	if (rate.ns > 0) {
		fputs("<h2>Sweep</h2>\n<div class=\"grid-2\">\n", p->out);
		ldb_svg_write(p->out, &rate);
		lat.ylabel = latency_ms(&lat, "p99 latency", ylab, sizeof ylab);
		ldb_svg_write(p->out, &lat);
		fputs("</div>\n", p->out);
	}
	ldb_svg_free(&rate);
	ldb_svg_free(&lat);
}

int ldb_html_write(FILE *out, const struct ldb_html_file *files, int n, const char *extra)
{
	struct page p = { .out = out, .files = files, .n = n };
	struct ldb_hist h;
	if (ldb_hist_init(&h) != 0)
		return -1;
	head(&p);
	run_headers(&p);
	if (extra != NULL)
		fputs(extra, out);
	summaries(&p);
	workloads(&p);
	ldb_html_replay(out, files, n);
	sweep(&p);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (!kind_used(&p, k))
			continue;
		fprintf(out, "<h2 id=\"kind-%s\">%s</h2>\n", ldb_op_name((enum ldb_op)k), ldb_op_name((enum ldb_op)k));
		over_time(&p, k);
		spectrum(&p, k, &h);
	}
	errors_over_time(&p);
	ldb_html_join(out, files, n);
	ldb_html_listen(out, files, n);
	fputs("<p class=\"note\">Written by ldbench " LDBENCH_VERSION
	      ". Rates are over measured time; latencies in milliseconds (the records hold microseconds); with a "
	      "target rate, corrected latency is timed from the intended start and uncorrected from the "
	      "real send.</p>\n</body>\n</html>\n",
	      out);
	ldb_hist_free(&h);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------ --html */

/* The records of every run of the process (a --sweep makes several), kept
 * for the page; reachable until the process ends. */
static FILE *mem;
static char *membuf;
static size_t memlen;

struct html_rep {
	const struct ldb_outputs *o;
	struct ldb_reporter inner; /* the JSON reporter, writing into mem */
};

static void hr_begin(void *ctx, const struct ldb_run_info *info)
{
	struct html_rep *r = ctx;
	r->inner.begin(r->inner.ctx, info);
}

static void hr_sample(void *ctx, const struct ldb_sample *s)
{
	struct html_rep *r = ctx;
	r->inner.sample(r->inner.ctx, s);
}

/* After each run: read the records back and write the whole page again. */
static void hr_end(void *ctx, const struct ldb_summary *s)
{
	struct html_rep *r = ctx;
	struct ldb_html_file f;
	char err[300];
	r->inner.end(r->inner.ctx, s);
	if (fflush(mem) != 0) {
		fprintf(stderr, "%s: --html: out of memory\n", r->o->progname);
		return;
	}
	FILE *in = fmemopen(membuf, memlen, "r");
	if (in == NULL || ldb_html_read(&f, r->o->html_path, in, err, sizeof err) != 0) {
		fprintf(stderr, "%s: --html: %s\n", r->o->progname, in ? err : "out of memory");
		if (in)
			fclose(in);
		return;
	}
	fclose(in);
	snprintf(f.label, sizeof f.label, "this run");
	FILE *out = fopen(r->o->html_path, "w");
	int rc = out ? ldb_html_write(out, &f, 1, NULL) : -1;
	if (out != NULL && fclose(out) != 0)
		rc = -1;
	if (rc != 0)
		fprintf(stderr, "%s: --html %s: writing failed\n", r->o->progname, r->o->html_path);
	ldb_html_file_free(&f);
}

static void hr_close(void *ctx)
{
	struct html_rep *r = ctx;
	if (r == NULL)
		return;
	r->inner.close(r->inner.ctx);
	free(r);
}

int ldb_html_open(const struct ldb_outputs *c, struct ldb_reporter *out, char *err, size_t cap)
{
	struct html_rep *r = calloc(1, sizeof *r);
	FILE *probe = fopen(c->html_path, "w"); /* a file that cannot be created stops the run now */
	if (probe == NULL) {
		snprintf(err, cap, "--html %s: cannot create: %s", c->html_path, strerror(errno));
		free(r);
		return -1;
	}
	fclose(probe);
	if (mem == NULL)
		mem = open_memstream(&membuf, &memlen);
	if (r == NULL || mem == NULL || ldb_records_json_reporter(c, mem, &r->inner) != 0) {
		snprintf(err, cap, "out of memory");
		free(r);
		return -1;
	}
	r->o = c;
	*out = (struct ldb_reporter){
		.ctx = r, .begin = hr_begin, .sample = hr_sample, .end = hr_end, .close = hr_close
	};
	return 0;
}
