/* `ldbench report` (report_page.h): records files to one HTML page. */
#include "cmd/report_page.h"

#include <stdlib.h>
#include <string.h>

#include "report/cmp_runs.h"
#include "report/html.h"
#include "report/records.h"
#include "report/svg.h"

#define PROG "ldbench report"

enum { R_HELP, R_OUT };

/* The command's options (util/optable.h): the parse and --help's lines. */
const struct ldb_opt ldb_report_options[] = { { "help", 'h', NULL, R_HELP, NULL, NULL },
	                                      { NULL, 'o', "OUT.html", R_OUT, "the page's file (default report.html)",
	                                        NULL },
	                                      LDB_OPT_END };

static void usage(FILE *out)
{
	fputs("usage: ldbench report [-o OUT.html] FILE.json... [-- CHANGE.json...]\n"
	      "One self-contained HTML page (inline SVG, no network) of --json records: run headers,\n"
	      "rate and latency per sample, the percentile spectrum, errors by code, --sweep curves,\n"
	      "a replay's results; several files overlaid, with compare's table (base: the files\n"
	      "before --, or the first; each run marked base or change).\n"
	      "Default output: report.html.  Exit status: 0 written, 2 bad input, 7 cannot write.\n",
	      out);
	ldb_opt_help(ldb_report_options, 15, 15, out);
}

/* One side's median and spread, in the unit of the metric's label (as the text's table). */
static void stat_cell(FILE *o, const struct ldb_cmp_stat *s, enum ldb_cmp_metric m)
{
	int prec = ldb_cmp_metric_decimals(m);
	if (s->runs == 0)
		fputs("<td class=\"n\">-</td><td class=\"n\"></td>", o);
	else
		fprintf(o, "<td class=\"n\">%.*f</td><td class=\"n\">%.*f..%.*f</td>", prec,
		        ldb_cmp_metric_value(m, s->median), prec, ldb_cmp_metric_value(m, s->min), prec,
		        ldb_cmp_metric_value(m, s->max));
}

/* The files of one side of the compare, by name: <span class="side-base">a.json</span>, ... */
static void side_files(FILE *o, const char *side, char **files, int from, int to)
{
	fprintf(o, "<p class=\"note\" data-side=\"%s\">%s: ", side, side);
	for (int i = from; i < to; i++) {
		const char *slash = strrchr(files[i], '/');
		fprintf(o, "%s<span class=\"side-%s\">", i > from ? ", " : "", side);
		ldb_html_escape(o, slash ? slash + 1 : files[i]);
		fputs("</span>", o);
	}
	fputs("</p>\n", o);
}

/* The rows of compare's table as HTML, from ldb_cmp_compute's result: the
 * rows, labels, units and decimals of the text's (ldb_cmp_print). */
static void cmp_rows(FILE *o, const struct ldb_cmp_result *res)
{
	fputs("<tr><th>kind</th><th>metric</th><th>base median</th><th>min..max</th>"
	      "<th>change median</th><th>min..max</th><th>change %</th></tr>\n",
	      o);
	for (int k = 0; k < LDB_CMP_ROWS; k++) {
		const struct ldb_cmp_row *row = &res->op[k];
		const char *kn = ldb_cmp_row_name(k);
		if (!row->in_base && !row->in_change)
			continue;
		if (!row->in_base || !row->in_change) {
			fprintf(o, "<tr><td>%s</td><td colspan=\"6\">only in the %s runs: not compared</td></tr>\n", kn,
			        row->in_base ? "base" : "change");
			continue;
		}
		for (int m = 0; m < LDB_CMP_METRICS; m++) {
			enum ldb_cmp_metric em = (enum ldb_cmp_metric)m;
			if (!ldb_cmp_row_shows(row, em))
				continue;
			fprintf(o, "<tr data-kind=\"%s\" data-metric=\"%s\"><td>%s</td><td>", kn,
			        ldb_cmp_metric_name(em), kn);
			ldb_html_escape(o, ldb_cmp_metric_label(em));
			fputs("</td>", o);
			stat_cell(o, &row->base[m], em);
			stat_cell(o, &row->change[m], em);
			if (row->has_pct[m])
				fprintf(o, "<td class=\"n\">%+.1f%%</td></tr>\n", row->pct[m]);
			else
				fputs("<td class=\"n\">n/a</td></tr>\n", o);
		}
	}
}

/* [workload] sections: a table per workload, matched by name (as compare's
 * text: ldb_cmp_print_workloads); one on one side only is said, not compared. */
static void cmp_workloads(FILE *o, char **files, int nb, int n)
{
	char names[16][32], seen[400];
	int nn = ldb_cmp_workload_names(files, n, names, 16);
	for (int j = 0; j < nn; j++) {
		struct ldb_cmp_result res;
		int got = ldb_cmp_compute_workload(files, nb, files + nb, n - nb, names[j], &res, seen, sizeof seen);
		fprintf(o, "<h3>workload %s</h3>\n", names[j]);
		if (got != 1) {
			fprintf(o,
			        "<p class=\"note\" data-workload=\"%s\">workload %s: only on one side: not "
			        "compared</p>\n",
			        names[j], names[j]);
			continue;
		}
		fprintf(o, "<table class=\"compare\" data-workload=\"%s\">", names[j]);
		cmp_rows(o, &res);
		fputs("</table>\n", o);
	}
}

/* compare's table as HTML (cmp_rows), and a table per workload; above
 * them, which files are the base (files[0..nb)) and which the change (files[nb..n)). */
static void cmp_table(FILE *o, const struct ldb_cmp_result *res, char **files, int nb, int n)
{
	int nc = n - nb;
	fprintf(o,
	        "<h2>Compare</h2>\n<p class=\"note\">%d base run%s against %d change run%s: medians, their "
	        "spread and the change of the medians (as <code>ldbench compare</code>).</p>\n",
	        nb, nb == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
	side_files(o, "base", files, 0, nb);
	side_files(o, "change", files, nb, n);
	fputs("<table class=\"compare\">", o);
	cmp_rows(o, res);
	fputs("</table>\n", o);
	cmp_workloads(o, files, nb, n);
}

/* The compare fragment (malloc'ed) for base files[0..nb) and change files[nb..n). */
static int compare_fragment(char **files, int nb, int n, char **frag)
{
	struct ldb_cmp_run *runs = calloc((size_t)n, sizeof *runs);
	size_t len;
	*frag = NULL;
	if (runs == NULL || ldb_cmp_load_runs(PROG, files, n, runs) != 0) {
		free(runs);
		return -1;
	}
	struct ldb_cmp_result res;
	ldb_cmp_compute(runs, nb, runs + nb, n - nb, &res);
	FILE *m = open_memstream(frag, &len);
	if (m != NULL) {
		cmp_table(m, &res, files, nb, n);
		fclose(m);
	}
	free(runs);
	return 0;
}

static int read_files(char **names, int n, struct ldb_html_file *files)
{
	char err[700];
	for (int i = 0; i < n; i++) {
		FILE *in = fopen(names[i], "r");
		if (in == NULL) {
			fprintf(stderr, PROG ": %s: cannot read\n", names[i]);
			return -1;
		}
		int rc = ldb_html_read(&files[i], names[i], in, err, sizeof err);
		fclose(in);
		if (rc != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* argv to the output name, the files (in order) and where the change begins. */
static int parse_args(int argc, char **argv, const char **out, char **names, int *n, int *nb)
{
	bool sep = false;
	*nb = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct ldb_opt *row = sep ? NULL : ldb_opt_find(ldb_report_options, a);
		if (row != NULL && !ldb_opt_valued(row) && strchr(a, '=') != NULL) {
			fprintf(stderr, PROG ": --%s takes no value\n", row->name);
			return 2;
		} else if (row != NULL && row->id == R_HELP) {
			usage(stdout);
			return 0;
		} else if (row != NULL && ldb_opt_valued(row)) { /* -o */
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				fprintf(stderr, PROG ": -o needs a file name\n");
				return 2;
			}
			*out = argv[++i];
		} else if (!sep && !strcmp(a, "--")) {
			sep = true;
			*nb = *n;
		} else if (!sep && a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", a);
			return 2;
		} else {
			names[(*n)++] = argv[i];
		}
	}
	if (*n == 0 || (sep && (*nb == 0 || *nb == *n))) {
		fprintf(stderr, PROG ": need records files (usage: ldbench report [-o OUT] FILE... [-- CHANGE...])\n");
		return 2;
	}
	if (*nb < 0)
		*nb = 1;
	return -1;
}

int ldb_report_main(int argc, char **argv)
{
	const char *outp = "report.html";
	char **names = calloc((size_t)argc + 1, sizeof *names), *frag = NULL;
	struct ldb_html_file *files = calloc((size_t)argc + 1, sizeof *files);
	int n = 0, nb = 1, status = 2;
	if (names == NULL || files == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	if ((status = parse_args(argc, argv, &outp, names, &n, &nb)) >= 0)
		goto done;
	status = 2;
	if (read_files(names, n, files) != 0 || (n > 1 && compare_fragment(names, nb, n, &frag) != 0))
		goto done;
	for (int i = 0; n > 1 && i < n; i++) /* the Runs table marks each side */
		files[i].side = i < nb ? "base" : "change";
	FILE *out = fopen(outp, "w");
	int rc = out ? ldb_html_write(out, files, n, frag) : -1;
	if (out != NULL && fclose(out) != 0)
		rc = -1;
	if (rc != 0) {
		fprintf(stderr, PROG ": %s: cannot write\n", outp);
		status = 7;
		goto done;
	}
	printf("%s: %d file%s, written to %s\n", PROG, n, n == 1 ? "" : "s", outp);
	status = 0;
done:
	for (int i = 0; files && i < n; i++)
		ldb_html_file_free(&files[i]);
	free(files);
	free(names);
	free(frag);
	return status;
}
