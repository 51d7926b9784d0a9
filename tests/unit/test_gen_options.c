/* Unit tests of the gen subcommands' command lines (src/gen/gen.c,
 * src/gen/gen_options.c): every refused option with its one line and exit 2,
 * --help, the messages of the count options.  Through ldb_gen_main and
 * ldb_gen_users_write (src/gen/gen.h); helpers in gen_run.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen/gen.h"
#include "gen_run.h"

struct bad_case {
	const char *why;
	const char *args[20];
	const char *msg; /* expected substring of the stderr line */
};

static void test_bad_options(void **state)
{
	struct ctx *c = *state;
	static const struct bad_case cases[] = {
		{ "no subcommand", { "gen" }, "missing subcommand" },
		{ "unknown subcommand", { "gen", "people" }, "unknown subcommand 'people'" },
		{ "unknown option", { "gen", "users", "--suffix", "dc=x", "--number", "1", "--bogus" }, "'--bogus'" },
		{ "unknown short", { "gen", "users", "-q", "--suffix", "dc=x", "--number", "1" }, "'-q'" },
		{ "missing value", { "gen", "users", "--suffix", "dc=x", "--number" }, "--number needs a value" },
		{ "missing number", { "gen", "users", "--suffix", "dc=x" }, "--number is required" },
		{ "missing suffix", { "gen", "users", "--number", "1" }, "--suffix is required" },
		{ "junk number", { "gen", "users", "--suffix", "dc=x", "--number", "12x" }, "'12x' is not a decimal" },
		{ "blank number", { "gen", "users", "--suffix", "dc=x", "--number", " 12" }, "is not a decimal" },
		{ "plus sign", { "gen", "users", "--suffix", "dc=x", "--number", "+12" }, "is not a decimal" },
		{ "empty number", { "gen", "users", "--suffix", "dc=x", "--number", "" }, "--number: empty" },
		{ "negative number", { "gen", "users", "--suffix", "dc=x", "--number", "-5" }, "'-5' is negative" },
		{ "overflow",
		  { "gen", "users", "--suffix", "dc=x", "--number", "99999999999999999999999" },
		  "too large" },
		{ "negative start",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "--start-idx", "-1" },
		  "negative" },
		{ "range overflow",
		  { "gen", "users", "--suffix", "dc=x", "--number", "10", "--start-idx", "999999999999999995" },
		  "goes past" },
		{ "zero width",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "0" },
		  "--width must be" },
		{ "huge width", { "gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "99" }, "too large" },
		{ "width too small",
		  { "gen", "users", "--suffix", "dc=x", "--number", "100", "--width", "2" },
		  "too small" },
		{ "bad suffix DN", { "gen", "users", "--suffix", "dc=x,,", "--number", "1" }, "not a valid DN" },
		{ "bad suffix rdn", { "gen", "users", "--suffix", "cn=x", "--number", "1" }, "'cn' is not one of" },
		{ "bad container rdn",
		  { "gen", "users", "--suffix", "dc=x", "--parent", "cn=People,dc=x", "--number", "1" },
		  "'cn' is not one of" },
		{ "parent not under suffix",
		  { "gen", "users", "--suffix", "dc=x", "--parent", "ou=People,dc=y", "--number", "1" },
		  "is not under" },
		{ "multi-valued rdn",
		  { "gen", "users", "--suffix", "dc=x", "--parent", "ou=a+ou=b,dc=x", "--number", "1" },
		  "multi-valued" },
		{ "positional",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "extra" },
		  "unexpected argument 'extra'" },
		{ "unwritable file",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "--ldif-file", "/nonexistent-dir/x.ldif" },
		  "cannot create" },
		/* users --hash */
		{ "bad hash",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "md5" },
		  "'md5' is not one of" },
		{ "empty hash",
		  { "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "" },
		  "'' is not one of" },
		/* groups */
		{ "groups: no NAME", { "gen", "groups", "--suffix", "dc=x" }, "NAME is required" },
		{ "groups: two NAMEs", { "gen", "groups", "a", "b", "--suffix", "dc=x" }, "unexpected argument 'b'" },
		{ "groups: NAME after --",
		  { "gen", "groups", "a", "--suffix", "dc=x", "--", "b" },
		  "unexpected argument 'b'" },
		{ "groups: no suffix", { "gen", "groups", "g" }, "--suffix is required" },
		{ "groups: empty NAME", { "gen", "groups", "", "--suffix", "dc=x" }, "empty group name" },
		{ "groups: comma in NAME", { "gen", "groups", "a,b", "--suffix", "dc=x" }, "character ','" },
		{ "groups: = in NAME", { "gen", "groups", "a=b", "--suffix", "dc=x" }, "character '='" },
		{ "groups: # NAME", { "gen", "groups", "#a", "--suffix", "dc=x" }, "cannot start with '#'" },
		{ "groups: zero groups",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--number", "0" },
		  "--number must be at least 1" },
		{ "groups: zero members",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--num-members", "0", "--member-attr", "member" },
		  "groupOfNames requires a member" },
		{ "groups: junk members",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--num-members", "1e3" },
		  "not a decimal" },
		{ "groups: bad member attr",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--member-attr", "owner" },
		  "'owner'" },
		{ "groups: parent outside",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--parent", "ou=G,dc=y" },
		  "--parent 'ou=G,dc=y' is not under" },
		{ "groups: member parent outside",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--member-parent", "ou=P,dc=y" },
		  "--member-parent 'ou=P,dc=y' is not under" },
		{ "groups: member parent rdn",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--member-parent", "cn=P,dc=x" },
		  "--member-parent: RDN attribute 'cn'" },
		{ "groups: width too small",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--num-members", "1000", "--width", "3" },
		  "--width 3 is too small" },
		{ "groups: flag with value",
		  { "gen", "groups", "g", "--suffix", "dc=x", "--create-members=yes" },
		  "takes no value" },
		{ "groups: unknown option", { "gen", "groups", "g", "--suffix", "dc=x", "--nested" }, "'--nested'" },
		/* mod-load */
		{ "mod-load: no num-users", { "gen", "mod-load", "--parent", "ou=P,dc=x" }, "--num-users is required" },
		{ "mod-load: no parent", { "gen", "mod-load", "--num-users", "200" }, "--parent is required" },
		{ "mod-load: mod above num",
		  { "gen", "mod-load", "--num-users", "10", "--parent", "ou=P,dc=x", "--mod-users", "11",
		    "--modrdn-users", "0", "--del-users", "0" },
		  "--mod-users 11 is more than --num-users 10" },
		{ "mod-load: modrdn above num",
		  { "gen", "mod-load", "--num-users", "10", "--parent", "ou=P,dc=x", "--mod-users", "0",
		    "--modrdn-users", "11", "--del-users", "0" },
		  "--modrdn-users 11 is more than" },
		{ "mod-load: del above num",
		  { "gen", "mod-load", "--num-users", "10", "--parent", "ou=P,dc=x", "--mod-users", "0",
		    "--modrdn-users", "0", "--del-users", "11" },
		  "--del-users 11 is more than" },
		{ "mod-load: default above num",
		  { "gen", "mod-load", "--num-users", "99", "--parent", "ou=P,dc=x" },
		  "--mod-users 100 (the default) is more than --num-users 99" },
		{ "mod-load: uid attr",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--mod-attrs", "uid" },
		  "uid is the users' RDN" },
		{ "mod-load: objectClass attr",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--mod-attrs", "sn",
		    "objectclass" },
		  "objectClass cannot be replaced" },
		{ "mod-load: bad attr name",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--mod-attrs", "s n" },
		  "'s n' is not an attribute name" },
		{ "mod-load: attr twice",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--mod-attrs", "sn",
		    "--mod-attrs", "SN" },
		  "'SN' is given twice" },
		{ "mod-load: junk count",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--add-users", "-1" },
		  "'-1' is negative" },
		{ "mod-load --generic: suffix",
		  { "gen", "mod-load", "--generic", "--num-users", "2", "--parent", "ou=P,dc=x", "--suffix", "dc=x" },
		  "--suffix does not apply to --generic" },
		{ "mod-load: create-parent without generic",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--create-parent" },
		  "--create-parent needs --generic" },
		{ "mod-load: randomize without generic",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--randomize" },
		  "--randomize needs --generic" },
		{ "mod-load --generic: bad parent",
		  { "gen", "mod-load", "--generic", "--num-users", "2", "--parent", "uid=P,dc=x" },
		  "ldifgen writes c=, cn=, dc=, o= or ou= entries only" },
		{ "groups --generic: width",
		  { "gen", "groups", "g", "--generic", "--suffix", "dc=x", "--width", "3" },
		  "no --width, no --start-idx" },
		{ "groups --generic: bad member attr",
		  { "gen", "groups", "g", "--generic", "--suffix", "dc=x", "--member-attr", "a b" },
		  "'a b' is not an attribute name" },
		{ "mod-load: parent outside suffix",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,dc=x", "--suffix", "dc=y" },
		  "is not under --suffix" },
		{ "mod-load: bad parent",
		  { "gen", "mod-load", "--num-users", "200", "--parent", "ou=P,," },
		  "not a valid DN" },
		{ "mod-load: positional",
		  { "gen", "mod-load", "extra", "--num-users", "200", "--parent", "ou=P,dc=x" },
		  "unexpected argument 'extra'" },
		/* tree */
		{ "tree: no depth", { "gen", "tree", "--fanout", "2", "--entries", "1" }, "--depth is required" },
		{ "tree: no fanout", { "gen", "tree", "--depth", "2", "--entries", "1" }, "--fanout is required" },
		{ "tree: no entries", { "gen", "tree", "--depth", "2", "--fanout", "1" }, "--entries is required" },
		{ "tree: too deep",
		  { "gen", "tree", "--depth", "33", "--fanout", "1", "--entries", "1" },
		  "at most 32" },
		{ "tree: zero fanout",
		  { "gen", "tree", "--depth", "1", "--fanout", "0", "--entries", "1" },
		  "at least 1" },
		{ "tree: containers overflow",
		  { "gen", "tree", "--depth", "32", "--fanout", "4", "--entries", "0" },
		  "containers" },
		{ "tree: entries overflow",
		  { "gen", "tree", "--depth", "2", "--fanout", "10", "--entries", "999999999999999999" },
		  "makes more than 999999999999999999 entries" },
		{ "tree: junk",
		  { "gen", "tree", "--depth", "2x", "--fanout", "1", "--entries", "1" },
		  "'2x' is not a decimal" },
		{ "tree: bad suffix rdn",
		  { "gen", "tree", "--depth", "1", "--fanout", "1", "--entries", "1", "--suffix", "cn=x" },
		  "'cn' is not one of" },
		{ "tree: start-idx is not a tree option",
		  { "gen", "tree", "--depth", "1", "--fanout", "1", "--entries", "1", "--start-idx", "3" },
		  "'--start-idx'" },
		{ "tree: positional",
		  { "gen", "tree", "--depth", "1", "--fanout", "1", "--entries", "1", "x" },
		  "unexpected argument 'x'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *bc = &cases[i];
		char *argv[24];
		int argc = 0;
		while (bc->args[argc] != NULL) {
			argv[argc] = (char *)bc->args[argc];
			argc++;
		}
		/* every case also names an output file (unless it names one itself),
		 * which must not be created */
		bool has_file = false;
		for (int k = 0; k < argc; k++)
			has_file |= strcmp(argv[k], "--ldif-file") == 0;
		if (!has_file && argc >= 2 && strcmp(bc->why, "positional") != 0 &&
		    strcmp(bc->why, "missing value") != 0) {
			argv[argc++] = (char *)"--ldif-file";
			argv[argc++] = c->ldif;
		}
		argv[argc] = NULL;

		fflush(stdout);
		int save_out = dup(1), save_err = dup(2);
		int fo = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(c->errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fo, 1);
		dup2(fe, 2);
		close(fo);
		close(fe);
		int rc = ldb_gen_main(argc, argv);
		fflush(stdout);
		fflush(stderr);
		dup2(save_out, 1);
		dup2(save_err, 2);
		close(save_out);
		close(save_err);

		char *err = slurp(c->errf, NULL);
		char *out = slurp(c->out, NULL);
		if (rc != 2 || count_char(err, '\n') != 1 || strstr(err, bc->msg) == NULL || out[0] != '\0' ||
		    access(c->ldif, F_OK) == 0)
			fail_msg("case '%s': rc=%d stderr='%s' stdout='%s' file=%d", bc->why, rc, err, out,
			         access(c->ldif, F_OK) == 0);
		free(err);
		free(out);
	}
}

static void test_help(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(run_gen(c, "gen", "--help", NULL), 0);
	char *out = slurp(c->out, NULL);
	assert_non_null(strstr(out, "ldbench gen users --suffix"));
	free(out);
	assert_int_equal(run_gen(c, "gen", "users", "--help", NULL), 0);
	out = slurp(c->out, NULL);
	assert_non_null(strstr(out, "--start-idx"));
	free(out);
}

/* The count options' messages, whole lines as printed (util/num.h). */
static void test_number_messages_exact(void **state)
{
	struct ctx *c = *state;
	static const struct {
		const char *args[12];
		const char *line;
	} cases[] = {
		{ { "gen", "users", "--suffix", "dc=x", "--number", "99999999999999999999" },
		  "ldbench gen users: --number: '99999999999999999999' is too large (at most 999999999999999999)\n" },
		{ { "gen", "users", "--suffix", "dc=x", "--number", "-1" },
		  "ldbench gen users: --number: '-1' is negative\n" },
		{ { "gen", "users", "--suffix", "dc=x", "--number", "1x" },
		  "ldbench gen users: --number: '1x' is not a decimal number\n" },
		{ { "gen", "users", "--suffix", "dc=x", "--number", "" },
		  "ldbench gen users: --number: empty value\n" },
		{ { "gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "0" },
		  "ldbench gen users: --width must be between 1 and 32\n" },
		{ { "gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "33" },
		  "ldbench gen users: --width: '33' is too large (at most 32)\n" },
		{ { "gen", "tree", "--depth", "33", "--fanout", "1", "--entries", "1" },
		  "ldbench gen tree: --depth: '33' is too large (at most 32)\n" },
		{ { "gen", "groups", "g", "--suffix", "dc=x", "--num-members", "1e3" },
		  "ldbench gen groups: --num-members: '1e3' is not a decimal number\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[13] = { 0 };
		size_t n = 0;
		for (; n < 12 && cases[i].args[n] != NULL; n++)
			argv[n] = (char *)cases[i].args[n];
		fflush(stdout);
		fflush(stderr);
		int save_out = dup(1), save_err = dup(2);
		int fo = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(c->errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		assert_true(save_out >= 0 && save_err >= 0 && fo >= 0 && fe >= 0);
		dup2(fo, 1);
		dup2(fe, 2);
		close(fo);
		close(fe);
		int rc = ldb_gen_main((int)n, argv);
		fflush(stdout);
		fflush(stderr);
		dup2(save_out, 1);
		dup2(save_err, 2);
		close(save_out);
		close(save_err);
		assert_int_equal(rc, 2);
		char *err = slurp(c->errf, NULL);
		assert_string_equal(err, cases[i].line);
		free(err);
		char *out = slurp(c->out, NULL);
		assert_string_equal(out, "");
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_number_messages_exact, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
