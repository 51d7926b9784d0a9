/* The report page's section of the listeners (--listeners): see html.h.  One
 * row per run that had listeners, from its summary's "listeners" object
 * (report/listen_lines.c): the refresh, the notifications (missing,
 * duplicated, out of order), the delay from the write's confirmation to its
 * arrival at p50, p99 and max, and --listeners-baseline's ratios when the run
 * has them.  The numbers are the records' own text. */
#include <stdbool.h>
#include <string.h>

#include "report/html.h"
#include "report/svg.h"

/* The columns: the path in the "listeners" object, the data-col name, the header. */
static const char *const col[][3] = {
	{ "n", "listeners", "listeners" },
	{ "kind", "kind", "kind" },
	{ "refreshed", "refreshed", "refreshed" },
	{ "refresh_p50_ms", "refresh-p50", "refresh p50 ms" },
	{ "refresh_max_ms", "refresh-max", "refresh max ms" },
	{ "entries_max", "entries", "entries" },
	{ "writes", "writes", "writes" },
	{ "expected", "expected", "expected" },
	{ "seen", "seen", "received" },
	{ "missing", "missing", "missing" },
	{ "duplicated", "duplicated", "duplicated" },
	{ "out_of_order", "out-of-order", "out of order" },
	{ "behind_max", "behind", "most behind" },
	{ "lost", "lost", "lost" },
	{ "reconnected", "reconnected", "reconnected" },
	{ "down", "down", "down at the end" },
	{ "away_max_ms", "away-max", "away max ms" },
	{ "delay.p50_ms", "delay-p50", "delay p50 ms" },
	{ "delay.p99_ms", "delay-p99", "delay p99 ms" },
	{ "delay.max_ms", "delay-max", "delay max ms" },
	{ "baseline.rate_ratio", "rate-ratio", "write rate ratio" },
	{ "baseline.p99_ratio", "p99-ratio", "write p99 ratio" },
};
#define NCOL (sizeof col / sizeof col[0])

static void row(FILE *o, const char *name, const struct ldb_json *l)
{
	fputs("<tr data-run=\"", o);
	ldb_html_escape(o, name);
	fputs("\"><td>", o);
	ldb_html_escape(o, name);
	fputs("</td>", o);
	for (size_t i = 0; i < NCOL; i++) {
		const struct ldb_json *v = ldb_json_path(l, col[i][0]);
		fprintf(o, "<td class=\"n\" data-col=\"%s\">", col[i][1]);
		if (v != NULL && v->type == LDB_JSON_NUMBER)
			ldb_html_escape(o, v->text);
		else if (v != NULL && v->type == LDB_JSON_STRING)
			ldb_html_escape(o, ldb_json_str(v));
		else
			fputs("-", o);
		fputs("</td>", o);
	}
	fputs("</tr>\n", o);
}

static void head(FILE *o)
{
	fputs("<h2 id=\"listeners\">Listeners</h2>\n<p class=\"note\">The listeners' sync or persistent "
	      "searches (--listeners, docs/guide.md \"Listeners\"): the initial refresh (time, entries), "
	      "the notifications expected of the run's writes and received, missing, duplicated or out of "
	      "order, the most writes one listener had not yet received, the listeners lost and back (their "
	      "longest time away), the delay from the write's "
	      "confirmation to its arrival, and with --listeners-baseline the write rate and p99 with the "
	      "listeners over those without.</p>\n<div class=\"wide\"><table class=\"listeners\"><tr><th>run</th>",
	      o);
	for (size_t i = 0; i < NCOL; i++)
		fprintf(o, "<th>%s</th>", col[i][2]);
	fputs("</tr>\n", o);
}

void ldb_html_listen(FILE *o, const struct ldb_html_file *files, int n)
{
	bool any = false;
	char name[160];
	for (int fi = 0; fi < n; fi++)
		for (int ri = 0; ri < files[fi].nruns; ri++) {
			const struct ldb_json *l = ldb_json_get(files[fi].runs[ri].summary, "listeners");
			if (l == NULL || l->type != LDB_JSON_OBJECT)
				continue;
			if (!any)
				head(o);
			any = true;
			ldb_html_run_name(&files[fi], ri, name, sizeof name);
			row(o, name, l);
		}
	if (any)
		fputs("</table></div>\n", o);
}
