/* The report page's section of the join with the server's log (--server-log):
 * see html.h.  Per run and kind, two horizontal stacked bars, p50 and p99,
 * each split into queue, processing and outside (each part at its own
 * percentile), drawn as inline SVG in the page's palette; then the run's
 * verdict line. */
#include <stdbool.h>
#include <string.h>

#include "ops/ops.h"
#include "report/html.h"
#include "report/svg.h"

#define JW 760.0   /* the chart's width */
#define JLEFT 48.0 /* room for "p50" / "p99" */
#define JRIGHT 210.0
#define JBAR 22.0

static const char *const part_key[3] = { "queue", "processing", "outside" };
static const char *const part_color[3] = { "#1f77b4", "#2ca02c", "#ff7f0e" };

static double fig(const struct ldb_json *kind, const char *figure, const char *at)
{
	double v;
	return ldb_json_double(ldb_json_get(ldb_json_get(kind, figure), at), &v) == 0 ? v : -1;
}

/* One bar: the parts at `at` ("p50_ms"), from x = JLEFT, scale px per ms. */
static void bar(FILE *o, const struct ldb_json *kind, const char *at, double y, double scale)
{
	double x = JLEFT, total = 0;
	fprintf(o, "<text class=\"label\" x=\"8\" y=\"%.1f\">%.3s</text>\n", y + JBAR * 0.7, at);
	for (int i = 0; i < 3; i++) {
		double v = fig(kind, part_key[i], at);
		if (v < 0)
			continue; /* not logged (an etime-only log has no queue) */
		double w = v * scale;
		fprintf(o,
		        "<rect class=\"part\" data-part=\"%s\" data-at=\"%.3s\" data-ms=\"%.3f\" x=\"%.1f\" "
		        "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %.3s %.3f ms</title></rect>\n",
		        part_key[i], at, v, x, y, w, JBAR, part_color[i], part_key[i], at, v);
		x += w;
		total += v;
	}
	fprintf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">parts %.3f, client %.3f ms</text>\n", x + 6,
	        y + JBAR * 0.7, total, fig(kind, "client", at));
}

static double bar_total(const struct ldb_json *kind, const char *at)
{
	double t = 0;
	for (int i = 0; i < 3; i++) {
		double v = fig(kind, part_key[i], at);
		t += v > 0 ? v : 0;
	}
	return t;
}

static void kind_chart(FILE *o, const char *run, const char *name, const struct ldb_json *kind)
{
	double top = bar_total(kind, "p99_ms"), t50 = bar_total(kind, "p50_ms");
	if (t50 > top)
		top = t50;
	double scale = top > 0 ? (JW - JLEFT - JRIGHT) / top : 0;
	fprintf(o, "<figure class=\"chart join\" data-kind=\"%s\" data-run=\"", name);
	ldb_html_escape(o, run);
	fprintf(o, "\">\n<svg class=\"bars\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", JW, 3 * JBAR + 30);
	fputs("<text class=\"title\" x=\"8\" y=\"16\">", o);
	ldb_html_escape(o, run);
	double sent = 0, joined = 0;
	(void)ldb_json_double(ldb_json_get(kind, "sent"), &sent);
	(void)ldb_json_double(ldb_json_get(kind, "joined"), &joined);
	fprintf(o, ": %s, %.0f of %.0f joined</text>\n", name, joined, sent);
	bar(o, kind, "p50_ms", 26, scale);
	bar(o, kind, "p99_ms", 26 + JBAR * 1.5, scale);
	fputs("</svg>\n<figcaption class=\"legend\">", o);
	for (int i = 0; i < 3; i++)
		fprintf(o,
		        "<span><svg width=\"14\" height=\"10\"><rect width=\"14\" height=\"10\" fill=\"%s\"/></svg> "
		        "%s</span>",
		        part_color[i], part_key[i]);
	fputs("</figcaption>\n</figure>\n", o);
}

static void run_join(FILE *o, const char *run, const struct ldb_json *j)
{
	const struct ldb_json *kinds = ldb_json_get(j, "kinds");
	fputs("<div class=\"grid-2\">\n", o);
	for (const struct ldb_json *k = kinds != NULL ? kinds->child : NULL; k != NULL; k = k->next)
		if (ldb_json_get(k, "client") != NULL)
			kind_chart(o, run, k->key, k);
	fputs("</div>\n<p class=\"verdict\" data-run=\"", o);
	ldb_html_escape(o, run);
	fputs("\">", o);
	ldb_html_escape(o, run);
	fputs(" (", o);
	const char *server = ldb_json_str(ldb_json_get(j, "server"));
	ldb_html_escape(o, server != NULL ? server : "?");
	fputs("): ", o);
	const char *v = ldb_json_str(ldb_json_get(j, "verdict"));
	ldb_html_escape(o, v != NULL ? v : "");
	fputs("</p>\n", o);
	const char *note = ldb_json_str(ldb_json_get(j, "note"));
	if (note != NULL && note[0] != '\0') {
		fputs("<p class=\"note\">", o);
		ldb_html_escape(o, note);
		fputs("</p>\n", o);
	}
}

void ldb_html_join(FILE *o, const struct ldb_html_file *files, int n)
{
	bool head = false;
	for (int fi = 0; fi < n; fi++)
		for (int ri = 0; ri < files[fi].nruns; ri++) {
			const struct ldb_json *j = ldb_json_get(files[fi].runs[ri].summary, "join");
			if (j == NULL)
				continue;
			if (!head)
				fputs("<h2 id=\"join\">Where the time went: the server's log</h2>\n<p "
				      "class=\"note\">Each "
				      "operation joined with the server's record of it: queue (389 DS wtime, OpenLDAP "
				      "qtime), processing (optime, or etime - qtime) and outside the server (client "
				      "latency - etime), each part at its own percentile (at p99 the parts need not "
				      "add "
				      "up to the client's p99).</p>\n",
				      o);
			head = true;
			char run[160];
			if (files[fi].nruns > 1)
				snprintf(run, sizeof run, "%s run %d", files[fi].label, ri + 1);
			else
				snprintf(run, sizeof run, "%s", files[fi].label);
			run_join(o, run, j);
		}
}
