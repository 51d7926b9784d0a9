/* Inline SVG line charts: see svg.h. */
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 640.0
#define H 320.0
#define ML 70.0 /* room for the y tick labels and the axis label */
#define MR 16.0
#define MT 34.0
#define MB 48.0

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
	                               "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };
static const char *const dashes[] = { "", "6 4", "2 3" };

void ldb_html_escape(FILE *out, const char *s)
{
	for (; s != NULL && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
}

struct ldb_svg_series *ldb_svg_add(struct ldb_svg_chart *c, int cap, int color, int dash, const char *kind,
                                   const char *metric, const char *name)
{
	if (c->ns >= LDB_SVG_MAX_SERIES)
		return NULL;
	struct ldb_svg_series *s = &c->s[c->ns];
	memset(s, 0, sizeof *s);
	s->x = malloc(sizeof(double) * (size_t)(cap > 0 ? cap : 1));
	s->y = malloc(sizeof(double) * (size_t)(cap > 0 ? cap : 1));
	if (s->x == NULL || s->y == NULL) {
		free(s->x);
		free(s->y);
		return NULL;
	}
	s->color = color;
	s->dash = dash;
	snprintf(s->kind, sizeof s->kind, "%s", kind);
	snprintf(s->metric, sizeof s->metric, "%s", metric);
	snprintf(s->name, sizeof s->name, "%s", name);
	c->ns++;
	return s;
}

void ldb_svg_point(struct ldb_svg_series *s, double x, double y)
{
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
}

void ldb_svg_free(struct ldb_svg_chart *c)
{
	for (int i = 0; i < c->ns; i++) {
		free(c->s[i].x);
		free(c->s[i].y);
	}
	c->ns = 0;
}

/* A step of 1, 2 or 5 times a power of ten giving about `want` ticks over span. */
static double nice_step(double span, int want)
{
	double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

struct axes {
	double x0, x1, y0, y1;
	bool ylog;
};

static double px(const struct axes *a, double x)
{
	return ML + (x - a->x0) / (a->x1 - a->x0) * (W - ML - MR);
}

static double py(const struct axes *a, double y)
{
	double v = a->ylog ? log10(y > 0 ? y : a->y0) : y;
	double lo = a->ylog ? log10(a->y0) : a->y0, hi = a->ylog ? log10(a->y1) : a->y1;
	return H - MB - (v - lo) / (hi - lo) * (H - MT - MB);
}

static void bounds(const struct ldb_svg_chart *c, struct axes *a)
{
	bool any = false;
	a->x0 = a->y0 = INFINITY;
	a->x1 = a->y1 = -INFINITY;
	for (int i = 0; i < c->ns; i++)
		for (int j = 0; j < c->s[i].n; j++) {
			double x = c->s[i].x[j], y = c->s[i].y[j];
			any = true;
			a->x0 = fmin(a->x0, x), a->x1 = fmax(a->x1, x);
			if (!c->ylog || y > 0)
				a->y0 = fmin(a->y0, y), a->y1 = fmax(a->y1, y);
		}
	if (!any || !isfinite(a->y0))
		a->x0 = 0, a->x1 = 1, a->y0 = c->ylog ? 1 : 0, a->y1 = c->ylog ? 10 : 1;
	a->ylog = c->ylog;
	if (c->xtime) /* from the start to a whole second past the last point */
		a->x0 = 0, a->x1 = fmax(1.0, ceil(a->x1 - 1e-9));
	if (c->xspectrum)
		a->x0 = log10(2.0), a->x1 = fmax(a->x1, 2.0);
	if (a->x1 <= a->x0)
		a->x1 = a->x0 + 1;
	if (c->ylog) {
		a->y0 = pow(10, floor(log10(a->y0)));
		a->y1 = pow(10, ceil(log10(a->y1 * 1.0001)));
	} else {
		a->y0 = a->y0 > 0 ? 0 : a->y0;
		a->y1 = a->y1 > a->y0 ? a->y0 + (a->y1 - a->y0) * 1.08 : a->y0 + 1;
	}
}

static void tick_label(FILE *out, double v)
{
	double a = fabs(v);
	if (a >= 1e6)
		fprintf(out, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		fprintf(out, "%.4gk", v / 1e3);
	else
		fprintf(out, "%.4g", v);
}

static void ytick(FILE *out, const struct axes *a, double v)
{
	double y = py(a, v);
	fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ML, y, W - MR, y);
	fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", ML - 6, y + 4);
	tick_label(out, v);
	fputs("</text>\n", out);
}

static void xtick(FILE *out, const struct axes *a, double v, const char *text)
{
	double x = px(a, v);
	fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, MT, x, H - MB);
	fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, H - MB + 16);
	if (text != NULL)
		fputs(text, out);
	else
		tick_label(out, v);
	fputs("</text>\n", out);
}

static void axes_write(FILE *out, const struct ldb_svg_chart *c, const struct axes *a)
{
	if (a->ylog) {
		bool fine = a->y1 / a->y0 <= 1000.5; /* few decades: 2 and 5 between them too */
		for (double v = a->y0; v <= a->y1 * 1.0001; v *= 10) {
			ytick(out, a, v);
			for (int m = 2; fine && m <= 5; m += 3)
				if (v * m < a->y1)
					ytick(out, a, v * m);
		}
	} else {
		double st = nice_step(a->y1 - a->y0, 5);
		for (double v = ceil(a->y0 / st) * st; v <= a->y1 + st * 1e-9; v += st)
			ytick(out, a, v);
	}
	if (c->xspectrum) {
		static const char *const pl[] = { "50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%" };
		xtick(out, a, log10(2.0), pl[0]);
		for (int d = 1; d < 7 && d <= a->x1 + 1e-9; d++)
			xtick(out, a, d, pl[d]);
	} else {
		double st = nice_step(a->x1 - a->x0, 6);
		if ((c->xint || c->xtime) && st < 1)
			st = 1;
		for (double v = ceil(a->x0 / st) * st; v <= a->x1 + st * 1e-9; v += st)
			xtick(out, a, v, NULL);
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ML, H - MB, W - MR,
	        H - MB);
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, MT, ML, H - MB);
	fprintf(out, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (ML + W - MR) / 2, H - 8);
	ldb_html_escape(out, c->xlabel);
	fprintf(out,
	        "</text>\n<text class=\"label\" transform=\"translate(16,%.1f) rotate(-90)\" "
	        "text-anchor=\"middle\">",
	        (MT + H - MB) / 2);
	ldb_html_escape(out, c->ylabel);
	fputs("</text>\n", out);
}

/* Few points: each gets a marker, large enough to see alone. */
static bool sparse(const struct ldb_svg_series *s)
{
	return s->n <= 12;
}

/* A marker's look: filled with the series' colour (hollow for a dashed or
 * dotted series, so that p50 and p99 at one point stay apart), a white rim. */
static void mark_style(FILE *out, const struct ldb_svg_series *s)
{
	const char *col = palette[s->color % 8];
	fprintf(out, "r=\"%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%.1f\"", s->n == 1 ? 5.0 : 4.0,
	        s->dash > 0 ? "#fff" : col, s->dash > 0 ? col : "#fff", s->dash > 0 ? 2.0 : 1.0);
}

static void series_write(FILE *out, const struct ldb_svg_series *s, const struct axes *a)
{
	fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"",
	        palette[s->color % 8]);
	if (s->dash > 0)
		fprintf(out, " stroke-dasharray=\"%s\"", dashes[s->dash % 3]);
	fputs(" data-name=\"", out);
	ldb_html_escape(out, s->name);
	fputs("\" data-kind=\"", out);
	ldb_html_escape(out, s->kind);
	fputs("\" data-metric=\"", out);
	ldb_html_escape(out, s->metric);
	fprintf(out, "\" data-points=\"%d\" points=\"", s->n);
	for (int j = 0; j < s->n; j++)
		fprintf(out, "%s%.1f,%.1f", j ? " " : "", px(a, s->x[j]), py(a, s->y[j]));
	fputs("\"/>\n", out);
	/* markers where points are few (a sweep's runs; a lone point draws no line) */
	for (int j = 0; sparse(s) && j < s->n; j++) {
		fprintf(out, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" ", px(a, s->x[j]), py(a, s->y[j]));
		mark_style(out, s);
		fputs(" data-name=\"", out);
		ldb_html_escape(out, s->name);
		fputs("\"/>\n", out);
	}
}

static void legend_write(FILE *out, const struct ldb_svg_chart *c)
{
	fputs("<figcaption class=\"legend\">", out);
	for (int i = 0; i < c->ns; i++) {
		const struct ldb_svg_series *s = &c->s[i];
		fprintf(out,
		        "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"26\" y2=\"5\" "
		        "stroke=\"%s\" stroke-width=\"2\"",
		        palette[s->color % 8]);
		if (s->dash > 0)
			fprintf(out, " stroke-dasharray=\"%s\"", dashes[s->dash % 3]);
		fputs("/>", out);
		if (sparse(s)) {
			fputs("<circle cx=\"13\" cy=\"5\" ", out);
			mark_style(out, s);
			fputs("/>", out);
		}
		fputs("</svg> ", out);
		ldb_html_escape(out, s->name);
		fputs("</span>\n", out);
	}
	fputs("</figcaption>\n", out);
}

void ldb_svg_write(FILE *out, const struct ldb_svg_chart *c)
{
	struct axes a;
	bounds(c, &a);
	fputs("<figure class=\"chart\">\n<svg class=\"chart\" viewBox=\"0 0 640 320\" role=\"img\">\n<title>", out);
	ldb_html_escape(out, c->title);
	fprintf(out, "</title>\n<text class=\"title\" x=\"%.1f\" y=\"20\" text-anchor=\"middle\">", W / 2);
	ldb_html_escape(out, c->title);
	fputs("</text>\n", out);
	axes_write(out, c, &a);
	for (int i = 0; i < c->ns; i++)
		series_write(out, &c->s[i], &a);
	fputs("</svg>\n", out);
	legend_write(out, c);
	fputs("</figure>\n", out);
}
