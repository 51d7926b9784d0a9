/* Unit tests of the subcommands' GNU-style command lines (src/util/argv.c):
 * options anywhere, valued options, "--" as the end of the options or, in
 * split mode, first as compare's BASE / CHANGE split. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/argv.h"

static const struct ldb_opt table[] = { { "fail-if", 0, "EXPR", 1, "a condition", NULL },
	                                { "json", 0, "FILE", 2, "records", NULL },
	                                { "help", 'h', NULL, 3, "this text", NULL },
	                                LDB_OPT_END };

/* Sort the words (argv[0] is "cmd") and check the two lists: each a
 * blank-separated string; split as expected. */
static void check(const char *line, bool split, const char *want_opt, const char *want_arg, int want_split)
{
	char buf[512], cmd[] = "cmd", empty[] = "", *argv[64] = { cmd }, *save = NULL;
	int argc = 1;
	snprintf(buf, sizeof buf, "%s", line);
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(w, "''") == 0 ? empty : w;
	struct ldb_argv a;
	assert_int_equal(ldb_argv_sort(argc, argv, table, split, &a), 0);
	char got[512] = "";
	for (int i = 0; i < a.nopt; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", a.opt[i]);
	assert_string_equal(got, want_opt);
	got[0] = '\0';
	for (int i = 0; i < a.narg; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", a.arg[i]);
	assert_string_equal(got, want_arg);
	assert_int_equal(a.split, want_split);
	ldb_argv_free(&a);
}

static void options_anywhere(void **state)
{
	(void)state;
	check("a.json --json out.json b.json", false, "--json out.json", "a.json b.json", -1);
	check("--json=o a b -h", false, "--json=o -h", "a b", -1);
	check("a - b", false, "", "a - b", -1); /* "-" alone is an operand */
	check("", false, "", "", -1);
}

static void valued_takes_the_next_word(void **state)
{
	(void)state;
	check("--json -x a", false, "--json -x", "a", -1); /* a value may begin with '-' */
	check("--json -- a", false, "--json --", "a", -1); /* even "--", as getopt_long does */
	check("a --json", false, "--json", "a", -1);       /* missing value: the caller says so */
	check("--unknown a", false, "--unknown", "a", -1); /* an unknown option is still an option */
}

static void double_dash_ends_options(void **state)
{
	(void)state;
	check("--json o -- -a.json --json", false, "--json o", "-a.json --json", -1);
	check("-- --", false, "", "--", -1);
}

static void split_mode(void **state)
{
	(void)state;
	/* README's compare: the options after the CHANGE files */
	check("b1 b2 -- c1 c2 --fail-if rate<-5% --fail-if p99>+10%", true, "--fail-if rate<-5% --fail-if p99>+10%",
	      "b1 b2 c1 c2", 2);
	check("--fail-if x b -- c", true, "--fail-if x", "b c", 1);
	/* a second "--" ends the options: a CHANGE file that begins with a dash */
	check("b -- c -- -d --fail-if", true, "", "b c -d --fail-if", 1);
	check("b -- -- -c", true, "", "b -c", 1);
	check("-- c", true, "", "c", 0);
	check("b c", true, "", "b c", -1);
}

/* The table says what an option is: its row, its value, or why not. */
static void next_option(void **state)
{
	(void)state;
	char cmd[] = "cmd", j[] = "--json", o[] = "out", f[] = "--fail-if=x", h[] = "--help=1", u[] = "--nope",
	     k[] = "-h", e[] = "--fail-if";
	char *argv[] = { cmd, j, o, f, h, u, k, e };
	struct ldb_argv a;
	const struct ldb_opt *row;
	const char *v;
	assert_int_equal(ldb_argv_sort(8, argv, table, false, &a), 0);
	int i = 0;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_OPT);
	assert_int_equal(row->id, 2);
	assert_string_equal(v, "out");
	assert_int_equal(i, 1);
	i++;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_OPT);
	assert_int_equal(row->id, 1);
	assert_string_equal(v, "x");
	i++;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_NOT_VALUED);
	i++;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_UNKNOWN);
	assert_null(row);
	i++;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_OPT);
	assert_int_equal(row->id, 3);
	assert_null(v);
	i++;
	assert_int_equal(ldb_argv_next(&a, &i, table, &row, &v), LDB_ARGV_NO_VALUE);
	ldb_argv_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options_anywhere),
		cmocka_unit_test(valued_takes_the_next_word),
		cmocka_unit_test(double_dash_ends_options),
		cmocka_unit_test(split_mode),
		cmocka_unit_test(next_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
