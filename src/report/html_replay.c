/* The report page's section of the replays (ldbench replay's records): see
 * html.h.  What a replay has, in place of a load's clients and seed: the
 * log (format, lines), its window, the sender threads, the connections and
 * the lateness against the schedule; then, from the summary's "replay"
 * member (docs/replay.md), per kind the requests read, sent, answered and
 * compared and the results that differ from the recorded ones (with the
 * examples), and the requests not sent per reason (with their first log
 * lines). */
#include <inttypes.h>
#include <string.h>

#include "report/html.h"
#include "report/svg.h"

bool ldb_html_is_replay(const struct ldb_html_run *r)
{
	const char *op = ldb_json_str(ldb_json_path(r->header, "config.operation"));
	return ldb_json_get(r->summary, "replay") != NULL || (op != NULL && strcmp(op, "replay") == 0);
}

/* A count of o (its member `path`), "-" when missing. */
static void count_cell(FILE *o, const struct ldb_json *v, const char *path, const char *col)
{
	uint64_t n;
	if (ldb_json_u64(ldb_json_path(v, path), &n) == 0)
		fprintf(o, "<td class=\"n\" data-col=\"%s\">%" PRIu64 "</td>", col, n);
	else
		fprintf(o, "<td class=\"n\" data-col=\"%s\">-</td>", col);
}

/* A figure of o with 3 decimals (seconds, ms), "-" when missing or when `shown` is false. */
static void fig_cell(FILE *o, const struct ldb_json *v, const char *path, const char *col, bool shown)
{
	double d;
	if (shown && ldb_json_double(ldb_json_path(v, path), &d) == 0)
		fprintf(o, "<td class=\"n\" data-col=\"%s\">%.3f</td>", col, d);
	else
		fprintf(o, "<td class=\"n\" data-col=\"%s\">-</td>", col);
}

static void text_cell(FILE *o, const char *s, const char *col)
{
	fprintf(o, "<td data-col=\"%s\">", col);
	ldb_html_escape(o, s != NULL ? s : "-");
	fputs("</td>", o);
}

/* The run's row of the replays' table. */
static void replay_row(FILE *o, const char *name, int color, const struct ldb_html_run *r)
{
	const struct ldb_json *x = ldb_json_get(r->summary, "replay");
	const char *timing = ldb_json_str(ldb_json_get(x, "timing"));
	uint64_t late = 0;
	bool recorded = timing != NULL && strcmp(timing, "recorded") == 0;
	bool lateness = recorded && ldb_json_u64(ldb_json_path(x, "lateness.count"), &late) == 0 && late > 0;
	fprintf(o, "<tr data-run=\"%d\"><td>", color);
	ldb_html_escape(o, name);
	fputs("</td>", o);
	text_cell(o, ldb_json_str(ldb_json_get(x, "format")), "format");
	count_cell(o, x, "lines", "lines");
	fig_cell(o, x, "window_s", "window", true);
	fig_cell(o, x, "elapsed_s", "elapsed", true);
	text_cell(o, timing, "timing");
	count_cell(o, r->header, "config.threads", "threads");
	count_cell(o, x, "connections.recorded", "conns-recorded");
	count_cell(o, x, "connections.opened", "conns-opened");
	count_cell(o, x, "connections.failed", "conns-failed");
	count_cell(o, x, "connections.lost", "conns-lost");
	count_cell(o, x, "unanswered", "unanswered");
	fig_cell(o, x, "lateness.p50_ms", "late-p50", lateness);
	fig_cell(o, x, "lateness.p99_ms", "late-p99", lateness);
	fig_cell(o, x, "lateness.max_ms", "late-max", lateness);
	fputs("</tr>\n", o);
}

/* Per kind of the log: read, sent, answered, compared, differ (by code, by entries). */
static void kinds_table(FILE *o, const char *name, const struct ldb_json *x)
{
	const struct ldb_json *kinds = ldb_json_get(x, "kinds");
	fputs("<table class=\"replay-kinds\" data-run-name=\"", o);
	ldb_html_escape(o, name);
	fputs("\"><tr><th>kind</th><th>read</th><th>sent</th><th>answered</th><th>compared</th>"
	      "<th>results that differ</th><th>by code</th><th>by entries</th></tr>\n",
	      o);
	for (const struct ldb_json *k = kinds != NULL ? kinds->child : NULL; k != NULL; k = k->next) {
		fputs("<tr data-kind=\"", o);
		ldb_html_escape(o, k->key);
		fputs("\"><td>", o);
		ldb_html_escape(o, k->key);
		fputs("</td>", o);
		static const char *const f[] = { "read",   "sent",        "answered",      "compared",
			                         "differ", "differ_code", "differ_entries" };
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			count_cell(o, k, f[i], f[i]);
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
}

/* The examples of results that differ: kind, conn, op, recorded and got (code, entries). */
static void differ_examples(FILE *o, const struct ldb_json *x)
{
	const struct ldb_json *kinds = ldb_json_get(x, "kinds");
	bool any = false;
	for (const struct ldb_json *k = kinds != NULL ? kinds->child : NULL; k != NULL; k = k->next) {
		const struct ldb_json *ex = ldb_json_get(k, "examples");
		for (const struct ldb_json *e = ex != NULL ? ex->child : NULL; e != NULL; e = e->next) {
			if (!any)
				fputs("<table class=\"replay-differ\"><tr><th>kind</th><th>conn</th><th>op</th>"
				      "<th>recorded code</th><th>got code</th><th>recorded entries</th>"
				      "<th>got entries</th></tr>\n",
				      o);
			any = true;
			fputs("<tr><td>", o);
			ldb_html_escape(o, k->key);
			fputs("</td>", o);
			static const char *const f[][2] = { { "conn", "conn" },
				                            { "op", "op" },
				                            { "recorded_err", "recorded-code" },
				                            { "got_err", "got-code" },
				                            { "recorded_entries", "recorded-entries" },
				                            { "got_entries", "got-entries" } };
			for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
				long long v = -1; /* entries -1: not known (a compare) */
				(void)ldb_json_ll(ldb_json_get(e, f[i][0]), &v);
				if (v < 0)
					fprintf(o, "<td class=\"n\" data-col=\"%s\">-</td>", f[i][1]);
				else
					fprintf(o, "<td class=\"n\" data-col=\"%s\">%lld</td>", f[i][1], v);
			}
			fputs("</tr>\n", o);
		}
	}
	if (any)
		fputs("</table>\n", o);
}

/* The requests not sent, per reason (those of a count above 0), with their first log lines. */
static void not_sent(FILE *o, const struct ldb_json *x)
{
	const struct ldb_json *sk = ldb_json_get(x, "skipped");
	bool any = false;
	for (const struct ldb_json *w = sk != NULL ? sk->child : NULL; w != NULL; w = w->next) {
		uint64_t n = 0;
		if (ldb_json_u64(ldb_json_get(w, "count"), &n) != 0 || n == 0)
			continue;
		if (!any)
			fputs("<table class=\"replay-not-sent\"><tr><th>requests not sent: reason</th><th>count</th>"
			      "<th>first log lines</th></tr>\n",
			      o);
		any = true;
		fputs("<tr data-reason=\"", o);
		ldb_html_escape(o, w->key);
		fputs("\"><td>", o);
		ldb_html_escape(o, w->key);
		fprintf(o, "</td><td class=\"n\" data-col=\"count\">%" PRIu64 "</td><td data-col=\"lines\">", n);
		const struct ldb_json *fl = ldb_json_get(w, "first_lines");
		for (const struct ldb_json *l = fl != NULL ? fl->child : NULL; l != NULL; l = l->next)
			fprintf(o, "%s%s", l == fl->child ? "" : ", ", l->type == LDB_JSON_NUMBER ? l->text : "?");
		fputs("</td></tr>\n", o);
	}
	if (any)
		fputs("</table>\n", o);
	else
		fputs("<p class=\"note replay-all-sent\">Every request of the log's window was sent.</p>\n", o);
}

static void replay_details(FILE *o, const char *name, const struct ldb_html_run *r)
{
	const struct ldb_json *x = ldb_json_get(r->summary, "replay");
	fputs("<h3>", o);
	ldb_html_escape(o, name);
	fputs("</h3>\n", o);
	if (x == NULL) {
		fputs("<p class=\"note\">No fidelity report in these records (no summary, or a merged one: merge "
		      "does not carry the summary's \"replay\" member).</p>\n",
		      o);
		return;
	}
	const struct ldb_json *intr = ldb_json_get(x, "interrupted");
	if (intr != NULL && intr->type == LDB_JSON_BOOL && intr->boolean)
		fputs("<p class=\"note\">Interrupted by a signal: the replay stopped part way.</p>\n", o);
	kinds_table(o, name, x);
	differ_examples(o, x);
	not_sent(o, x);
}

void ldb_html_replay(FILE *o, const struct ldb_html_file *files, int n)
{
	bool head = false;
	char name[160];
	for (int fi = 0, color = 0; fi < n; fi++)
		for (int ri = 0; ri < files[fi].nruns; ri++, color++) {
			if (!ldb_html_is_replay(&files[fi].runs[ri]))
				continue;
			if (!head)
				fputs("<h2 id=\"replay\">Replay</h2>\n<p class=\"note\">What each replay sent of its "
				      "log "
				      "and what came back (docs/replay.md): the log's window, the sender threads, the "
				      "connections, the lateness against the log's schedule (with --timing recorded), "
				      "per kind the requests and the results that differ from the recorded ones, and "
				      "the requests not sent.</p>\n<div class=\"wide\"><table class=\"replay\"><tr>"
				      "<th>run</th><th>log</th><th>lines</th><th>window s</th><th>elapsed s</th>"
				      "<th>timing</th><th>threads</th><th>connections recorded</th><th>opened</th>"
				      "<th>failed</th><th>lost</th><th>unanswered</th><th>late p50 ms</th>"
				      "<th>late p99 ms</th><th>late max ms</th></tr>\n",
				      o);
			head = true;
			ldb_html_run_name(&files[fi], ri, name, sizeof name);
			replay_row(o, name, color, &files[fi].runs[ri]);
		}
	if (!head)
		return;
	fputs("</table></div>\n", o);
	for (int fi = 0; fi < n; fi++)
		for (int ri = 0; ri < files[fi].nruns; ri++)
			if (ldb_html_is_replay(&files[fi].runs[ri])) {
				ldb_html_run_name(&files[fi], ri, name, sizeof name);
				replay_details(o, name, &files[fi].runs[ri]);
			}
}
