/* Line charts as inline SVG for the report page (report/html.c): axes with
 * ticks and labels, one polyline per series, a legend.  Each series is
 * written as <polyline class="series" data-name=... data-points=N>, so a test
 * can count the points against the records.  A sparse series (a few points,
 * which draw little or no line) also gets a marker on each point,
 * <circle class="mark" data-name=...>, and one in its legend entry. */
#ifndef LDBENCH_REPORT_SVG_H
#define LDBENCH_REPORT_SVG_H

#include <stdbool.h>
#include <stdio.h>

#define LDB_SVG_MAX_SERIES 64

struct ldb_svg_series {
	char name[400];  /* legend text */
	char kind[32];   /* data-kind: operation kind, "errors", "sweep"... */
	char metric[32]; /* data-metric: rate, p50, p99, p99-uncorrected, code 49 ... */
	int color;       /* palette index */
	int dash;        /* 0 solid, 1 dashed, 2 dotted */
	int n;
	double *x, *y; /* malloc'ed by ldb_svg_add, freed by ldb_svg_free */
};

struct ldb_svg_chart {
	const char *title, *xlabel, *ylabel;
	bool xspectrum; /* x holds log10(1 / (1 - p)); ticks read 50%, 90%, 99%, ... */
	bool ylog;      /* logarithmic y axis (values must be > 0) */
	bool xint;      /* x holds whole numbers (clients): ticks too */
	bool xtime;     /* x holds seconds since the start: the axis starts at 0 and ends on a whole
	                 * second (at least 1), its ticks on whole seconds */
	int ns;
	struct ldb_svg_series s[LDB_SVG_MAX_SERIES];
};

/** A new series with room for `cap` points; NULL when the chart is full or memory ran out. */
struct ldb_svg_series *ldb_svg_add(struct ldb_svg_chart *c, int cap, int color, int dash, const char *kind,
                                   const char *metric, const char *name);
void ldb_svg_point(struct ldb_svg_series *s, double x, double y);
/** Write the chart (an <svg> element inside a <figure>). */
void ldb_svg_write(FILE *out, const struct ldb_svg_chart *c);
void ldb_svg_free(struct ldb_svg_chart *c);

/** Write s with &, <, >, " escaped. */
void ldb_html_escape(FILE *out, const char *s);

#endif
