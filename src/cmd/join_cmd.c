/* `ldbench join`: see join.h. */
#include "cmd/join_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fail_if.h"
#include "conf/config.h"
#include "report/join.h"
#include "report/reporter.h"
#include "report/verdict.h"
#include "util/argv.h"

#define PROG "ldbench join"
#define JOIN_EXIT_NOT_COVERED 5
#define MAX_THRESHOLDS 16

struct join_args {
	const char *oplog, *json;
	struct ldb_threshold t[MAX_THRESHOLDS];
	int nt;
};

enum { J_HELP, J_OP_LOG, J_JSON, J_FAIL_IF };

/* The command's options (util/optable.h): the parse and --help's lines. */
const struct ldb_opt ldb_join_options[] = {
	{ "help", 'h', NULL, J_HELP, NULL, NULL },
	{ "op-log", 0, "FILE", J_OP_LOG, "the run's --op-log FILE", NULL },
	{ "json", 0, "OUT", J_JSON, "also write the join as one JSON line to OUT (- = stdout)", NULL },
	{ "fail-if", 0, "EXPR", J_FAIL_IF,
	  "exit 10 when e.g. 'server.p99>5ms', 'search.outside.p99>1ms', 'p99>9ms'\n"
	  "(client), 'unindexed>0', 'coverage<100' holds: the join's figures only",
	  NULL },
	LDB_OPT_END
};

static void usage(FILE *out)
{
	fprintf(out, "usage: " PROG " --op-log FILE [--json OUT] [--fail-if EXPR]... LOG...\n"
	             "  join a run's --op-log FILE with the server's access log(s) LOG (389 DS access log,\n"
	             "  OpenLDAP stats log; several files of a rotated set in any order, .gz too):\n"
	             "  per kind client latency, etime, queue, processing, outside; coverage; the verdict\n");
	ldb_opt_help(ldb_join_options, 18, 18, out);
	fprintf(out, "exit status: 0 joined, 2 bad input, 5 the log does not cover the run, 10 a --fail-if held,\n"
	             "  13 a --fail-if could not be evaluated (the figure is not in the join)\n");
}

/* One option's value into j.  @return -1 to go on, else 2 (said). */
static int set_option(struct join_args *j, int id, const char *v)
{
	if (id == J_OP_LOG) {
		j->oplog = v;
	} else if (id == J_JSON) {
		j->json = v;
	} else {
		char why[400];
		if (j->nt == MAX_THRESHOLDS ||
		    ldb_threshold_parse_form(&j->t[j->nt], v, &ldb_threshold_join, why, sizeof why) != 0) {
			fprintf(stderr, PROG ": %s\n", j->nt == MAX_THRESHOLDS ? "--fail-if: at most 16" : why);
			return 2;
		}
		j->nt++;
	}
	return -1;
}

/* @return -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct join_args *j, struct ldb_argv *a)
{
	if (ldb_argv_sort(argc, argv, ldb_join_options, false, a) != 0)
		return 2;
	for (int i = 0; i < a->nopt; i++) {
		const char *o = a->opt[i], *v;
		const struct ldb_opt *row;
		enum ldb_argv_got got = ldb_argv_next(a, &i, ldb_join_options, &row, &v);
		if (got == LDB_ARGV_OPT && row->id == J_HELP) {
			usage(stdout);
			return 0;
		}
		if (got == LDB_ARGV_UNKNOWN) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			return 2;
		}
		if (got == LDB_ARGV_NOT_VALUED) {
			fprintf(stderr, PROG ": --%s takes no value\n", row->name);
			return 2;
		}
		if (got == LDB_ARGV_NO_VALUE || v[0] == '\0') {
			fprintf(stderr, PROG ": %s needs a value\n", o);
			return 2;
		}
		if (set_option(j, row->id, v) >= 0)
			return 2;
	}
	if (j->oplog == NULL || a->narg == 0) {
		fprintf(stderr, PROG ": %s (usage: " PROG " --op-log FILE LOG...)\n",
		        j->oplog == NULL ? "no --op-log FILE" : "no server log");
		return 2;
	}
	return -1;
}

static int write_json(const struct join_args *ja, const struct ldb_join *j)
{
	FILE *f = strcmp(ja->json, "-") == 0 ? stdout : fopen(ja->json, "w");
	if (f == NULL) {
		fprintf(stderr, PROG ": --json %s: cannot create\n", ja->json);
		return 2;
	}
	fputs("{\"type\":\"join\"", f);
	ldb_join_put_json(f, j);
	fputs("}\n", f);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, PROG ": --json %s: cannot write\n", ja->json);
		return 2;
	}
	return 0;
}

/* The thresholds, on the join's figures (per kind, or of every kind): a
 * line for each that holds or cannot be evaluated.  @return the status. */
static int check(const struct join_args *ja, const struct ldb_join *j, int status, FILE *out)
{
	bool held = false, unknown = false;
	for (int i = 0; i < ja->nt; i++) {
		const struct ldb_threshold *t = &ja->t[i];
		double v;
		const char *why;
		char shown[64];
		if (!ldb_join_figure(t, j, &v, &why)) {
			fprintf(out, "Threshold not evaluated: %s (%s)\n", t->text, why);
			unknown = true;
			continue;
		}
		ldb_threshold_format(t, v, shown, sizeof shown);
		if (ldb_threshold_holds(t, v)) {
			fprintf(out, "Threshold failed: %s (is %s)\n", t->text, shown);
			held = true;
		}
	}
	return ldb_verdict_status(status, held, unknown, false);
}

int ldb_join_main(int argc, char **argv)
{
	struct join_args ja;
	struct ldb_argv a = { 0 };
	memset(&ja, 0, sizeof ja);
	int status = parse_args(argc, argv, &ja, &a);
	if (status >= 0) {
		ldb_argv_free(&a);
		return status;
	}
	struct ldb_join j;
	char err[512];
	if (ldb_join_run(&j, ja.oplog, (const char *const *)a.arg, a.narg, 0, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		ldb_argv_free(&a);
		return 2;
	}
	FILE *out = ja.json != NULL && strcmp(ja.json, "-") == 0 ? stderr : stdout;
	ldb_join_text(&j, out);
	status = ja.json != NULL ? write_json(&ja, &j) : 0;
	if (status == 0 && j.measured > 0 && j.conns_tagged == 0)
		status = JOIN_EXIT_NOT_COVERED;
	status = check(&ja, &j, status, out);
	ldb_join_free(&j);
	ldb_argv_free(&a);
	return status;
}
