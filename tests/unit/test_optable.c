/* Unit tests of the option tables (src/util/optable.c): the words an option
 * is named by, getopt_long's arrays built from a table, --help's lines, and
 * the load's table against ldclt's short flags (their letters and which take
 * a value, as ldclt's getopt string had them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/ctx.h"
#include "util/optable.h"

enum { T_ALL = 256, T_JSON, T_NAP };

static const struct ldb_opt table[] = { { NULL, 'a', "N", 'a', "requests in flight", "Options:\n" },
	                                { NULL, 'q', NULL, 'q', "quiet", NULL },
	                                { "all", 0, NULL, T_ALL, "every kind", "Long:\n" },
	                                { "json", 0, "FILE", T_JSON, "records to FILE\n(- = stdout)", NULL },
	                                { "nap", 0, "DURATION", T_NAP, NULL, NULL }, /* not listed */
	                                LDB_OPT_END };

static void find_by_word(void **state)
{
	(void)state;
	assert_int_equal(ldb_opt_find(table, "-a")->id, 'a');
	assert_int_equal(ldb_opt_find(table, "--json")->id, T_JSON);
	assert_int_equal(ldb_opt_find(table, "--json=x")->id, T_JSON);
	assert_null(ldb_opt_find(table, "--js"));    /* no abbreviation */
	assert_null(ldb_opt_find(table, "--jsonx")); /* nor a longer word */
	assert_null(ldb_opt_find(table, "-aq"));     /* one letter, alone */
	assert_null(ldb_opt_find(table, "-"));
	assert_null(ldb_opt_find(table, "json"));
	assert_int_equal(ldb_opt_by_id(table, T_NAP)->id, T_NAP);
	assert_null(ldb_opt_by_id(table, 12345));
	assert_true(ldb_opt_valued(ldb_opt_find(table, "--nap")));
	assert_false(ldb_opt_valued(ldb_opt_find(table, "-q")));
}

static void getopt_arrays(void **state)
{
	(void)state;
	struct option lo[8];
	char shorts[16];
	assert_int_equal(ldb_opt_getopt(table, lo, 8, shorts, sizeof shorts), 0);
	assert_string_equal(shorts, ":a:q");
	assert_string_equal(lo[0].name, "all");
	assert_int_equal(lo[0].has_arg, no_argument);
	assert_int_equal(lo[0].val, T_ALL);
	assert_string_equal(lo[1].name, "json");
	assert_int_equal(lo[1].has_arg, required_argument);
	assert_string_equal(lo[2].name, "nap");
	assert_null(lo[3].name);
	/* too small: refused, not cut */
	assert_int_equal(ldb_opt_getopt(table, lo, 3, shorts, sizeof shorts), -1);
	assert_int_equal(ldb_opt_getopt(table, lo, 8, shorts, 4), -1);
}

static void help_lines(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	ldb_opt_help(table, 8, 14, f);
	fclose(f);
	assert_string_equal(buf, "Options:\n"
	                         "  -a N  requests in flight\n"
	                         "  -q    quiet\n"
	                         "Long:\n"
	                         "  --all       every kind\n"
	                         "  --json FILE  records to FILE\n"
	                         "              (- = stdout)\n");
	free(buf);
	f = open_memstream(&buf, &len);
	ldb_opt_dump("t", table, f);
	fclose(f);
	assert_string_equal(buf, "t\t-a\tN\trequests in flight\nt\t-q\t-\tquiet\n"
	                         "t\t--all\t-\tevery kind\nt\t--json\tFILE\trecords to FILE (- = stdout)\n");
	free(buf);
}

/* The load's short flags are ldclt's: the same letters, the same ones take a
 * value (ldclt's getopt string, whatever the table's order). */
static void load_short_flags_are_ldclt(void **state)
{
	(void)state;
	const char *ldclt = ":a:b:D:e:E:f:h:H:i:I:n:N:o:p:P:qQr:R:s:S:t:T:vVw:W:y:Z:";
	const char *ours = cli_short_options();
	assert_int_equal(ours[0], ':');
	assert_int_equal(strlen(ours), strlen(ldclt));
	for (const char *p = ldclt + 1; *p != '\0'; p++) {
		if (*p == ':')
			continue;
		const char *q = strchr(ours + 1, *p);
		assert_non_null(q);
		assert_int_equal(p[1] == ':', q[1] == ':');
	}
	/* every long option of the table is in getopt_long's array, with its value */
	const struct option *lo = cli_long_options();
	int n = 0;
	for (const struct ldb_opt *o = cli_options; o->name != NULL || o->letter != 0; o++) {
		if (o->name == NULL)
			continue;
		assert_string_equal(lo[n].name, o->name);
		assert_int_equal(lo[n].has_arg, ldb_opt_valued(o) ? required_argument : no_argument);
		assert_int_equal(lo[n].val, o->id);
		assert_string_equal(cli_long_name(o->id), o->name);
		n++;
	}
	assert_null(lo[n].name);
	assert_true(n >= 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_by_word),
		cmocka_unit_test(getopt_arrays),
		cmocka_unit_test(help_lines),
		cmocka_unit_test(load_short_flags_are_ldclt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
