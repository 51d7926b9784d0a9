/* `ldbench compare` (compare_runs.h): its command line, the runs read, the
 * table printed and the --fail-if verdict (report/cmp_runs). */
#include "cmd/compare_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cmp_runs.h"
#include "util/argv.h"

#define PROG "ldbench compare"

enum { C_HELP, C_FAIL_IF };

/* The command's options (util/optable.h): the parse and --help's lines. */
const struct ldb_opt ldb_compare_options[] = { { "help", 'h', NULL, C_HELP, NULL, NULL },
	                                       { "fail-if", 0, "COND", C_FAIL_IF, "exit 1 when COND holds (repeatable)",
	                                         NULL },
	                                       LDB_OPT_END };

static void usage(FILE *out)
{
	fputs("usage: ldbench compare [--fail-if COND]... BASE.json... -- CHANGE.json...\n"
	      "Per operation kind: the median rate, p50 and p99 of each side's runs, their\n"
	      "spread (min..max) and the change of the medians in percent (latencies in ms);\n"
	      "with -S records, a row \"repl\": the replication delay's p50 and p99 (the worst consumer's).\n"
	      "COND: [WORKLOAD.][KIND.]METRIC OP VALUE%  METRIC rate|p50|p99, OP < <= > >=,\n"
	      "      e.g. --fail-if 'rate<-5%' --fail-if 'p99>+10%' --fail-if 'fg.search.p99>+10%'\n"
	      "      (repeatable; WORKLOAD: a [workload] section's figures, matched by name)\n"
	      "Options may come anywhere on the line (GNU style); the first -- splits BASE\n"
	      "from CHANGE, a second -- ends the options (file names beginning with a dash).\n"
	      "Exit status: 0 no condition holds, 1 a condition holds, 2 bad command line or input.\n",
	      out);
	ldb_opt_help(ldb_compare_options, 18, 18, out);
}

/* The options (already sorted out by ldb_argv_sort) into conds.
 * @return -1 to go on, else the exit status (--help, a bad option). */
static int parse_options(const struct ldb_argv *a, struct ldb_cmp_cond *conds, int *ncond)
{
	char err[400];
	for (int i = 0; i < a->nopt; i++) {
		const char *o = a->opt[i], *v;
		const struct ldb_opt *row;
		enum ldb_argv_got got = ldb_argv_next(a, &i, ldb_compare_options, &row, &v);
		if (got == LDB_ARGV_UNKNOWN) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			return 2;
		} else if (got == LDB_ARGV_NOT_VALUED) {
			fprintf(stderr, PROG ": --%s takes no value\n", row->name);
			return 2;
		} else if (row->id == C_HELP) {
			usage(stdout);
			return 0;
		} else if (v == NULL) {
			fprintf(stderr, PROG ": --fail-if needs a condition (e.g. 'rate<-5%%')\n");
			return 2;
		}
		if (ldb_cmp_parse_cond(v, &conds[*ncond], err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
		(*ncond)++;
	}
	return -1;
}

/* The figures condition i reads: the run's, or its workload's (-1: no run
 * has that workload, said on stderr; 0: on one side only).  @return 1, 0, -1. */
static int cond_result(const struct ldb_argv *a, int nb, const struct ldb_cmp_cond *c, const struct ldb_cmp_result *run,
                       struct ldb_cmp_result *wl, const struct ldb_cmp_result **use)
{
	char names[600];
	*use = run;
	if (c->wl[0] == '\0')
		return 1;
	int got = ldb_cmp_compute_workload(a->arg, nb, a->arg + nb, a->narg - nb, c->wl, wl, names, sizeof names);
	if (got < 0)
		fprintf(stderr, PROG ": --fail-if '%s': no workload '%s' in the runs (%s%s)\n", c->text, c->wl,
		        names[0] ? "their workloads: " : "they have no [workload] sections", names);
	*use = wl;
	return got;
}

/* Every condition's workload is in some run.  @return 0, or 2 (said). */
static int check_workloads(const struct ldb_argv *a, int nb, const struct ldb_cmp_cond *conds, int ncond,
                           const struct ldb_cmp_result *run)
{
	struct ldb_cmp_result *wl = malloc(sizeof *wl);
	const struct ldb_cmp_result *use;
	int status = wl == NULL ? 2 : 0;
	for (int i = 0; i < ncond && status == 0; i++)
		if (cond_result(a, nb, &conds[i], run, wl, &use) < 0)
			status = 2;
	free(wl);
	return status;
}

/* The verdict lines.  @return the exit status. */
static int verdict(const struct ldb_argv *a, int nb, const struct ldb_cmp_result *res, const struct ldb_cmp_cond *conds,
                   int ncond, const struct ldb_cmp_run *rb, const struct ldb_cmp_run *rc, int nc)
{
	struct ldb_cmp_result *wl = malloc(sizeof *wl);
	int status = 0;
	for (int i = 0; i < ncond && wl != NULL; i++) {
		int k;
		double pct;
		const struct ldb_cmp_result *use;
		const char *dot = conds[i].wl[0] ? "." : "", *label;
		if (conds[i].listen && ldb_cmp_listen_holds(rb, nb, rc, nc, &conds[i], &pct, &label)) {
			printf(conds[i].count ? "fail-if '%s': holds (listen %s %.0f)\n"
			                      : "fail-if '%s': holds (listen %s %+.1f%%)\n",
			       conds[i].text, label, pct);
			status = LDB_CMP_EXIT_HOLDS;
		} else if (conds[i].listen) {
			printf("fail-if '%s': does not hold\n", conds[i].text);
		} else if (cond_result(a, nb, &conds[i], res, wl, &use) > 0 &&
		           ldb_cmp_holds(use, &conds[i], &k, &pct)) {
			printf(conds[i].count ? "fail-if '%s': holds (%s%s%s %s %.0f)\n"
			                      : "fail-if '%s': holds (%s%s%s %s %+.1f%%)\n",
			       conds[i].text, conds[i].wl, dot, ldb_cmp_row_name(k),
			       ldb_cmp_metric_name(conds[i].metric), pct);
			status = LDB_CMP_EXIT_HOLDS;
		} else {
			printf("fail-if '%s': does not hold\n", conds[i].text);
		}
	}
	free(wl);
	return wl == NULL ? 2 : status;
}

int ldb_compare_main(int argc, char **argv)
{
	struct ldb_argv a;
	struct ldb_cmp_cond *conds = calloc((size_t)argc + 1, sizeof *conds);
	struct ldb_cmp_run *rb = NULL, *rc = NULL;
	int ncond = 0, status = 2;

	if (ldb_argv_sort(argc, argv, ldb_compare_options, true, &a) != 0 || conds == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	status = parse_options(&a, conds, &ncond);
	if (status >= 0)
		goto done;
	status = 2;
	int nb = a.split, nc = a.narg - a.split;
	if (a.split <= 0 || nc == 0) {
		fprintf(stderr, PROG ": need BASE files, then --, then CHANGE files "
		                     "(usage: ldbench compare [--fail-if COND]... BASE... -- CHANGE...)\n");
		goto done;
	}
	rb = calloc((size_t)nb, sizeof *rb);
	rc = calloc((size_t)nc, sizeof *rc);
	if (rb == NULL || rc == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	if (ldb_cmp_load_runs(PROG, a.arg, nb, rb) != 0 || ldb_cmp_load_runs(PROG, a.arg + nb, nc, rc) != 0)
		goto done;
	struct ldb_cmp_result res;
	ldb_cmp_compute(rb, nb, rc, nc, &res);
	if ((status = check_workloads(&a, nb, conds, ncond, &res)) != 0)
		goto done;
	ldb_cmp_print(&res, nb, nc, stdout);
	ldb_cmp_join_print(rb, nb, rc, nc, stdout);
	ldb_cmp_listen_print(rb, nb, rc, nc, stdout);
	ldb_cmp_print_workloads(a.arg, nb, a.arg + nb, nc, stdout); /* [workload] sections: each by name */
	status = verdict(&a, nb, &res, conds, ncond, rb, rc, nc);
	fflush(stdout);
done:
	ldb_argv_free(&a);
	free(conds);
	free(rb);
	free(rc);
	return status;
}
