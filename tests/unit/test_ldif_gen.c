/* Unit tests of `ldbench gen users | groups | mod-load | tree` (src/cmd/ldif_gen.c),
 * through ldb_gen_main. */
#include <fcntl.h>
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
#include <openssl/evp.h>

#include "cmd/ldif_gen.h"

struct ctx {
	char dir[64];
	char ldif[128];
	char out[128];  /* captured stdout */
	char errf[128]; /* captured stderr */
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	strcpy(c->dir, "/tmp/test_ldif_gen.XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->ldif, sizeof(c->ldif), "%s/out.ldif", c->dir);
	snprintf(c->out, sizeof(c->out), "%s/stdout", c->dir);
	snprintf(c->errf, sizeof(c->errf), "%s/stderr", c->dir);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	unlink(c->ldif);
	unlink(c->out);
	unlink(c->errf);
	rmdir(c->dir);
	free(c);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

/* Run ldb_gen_main with stdout and stderr captured into the ctx files.
 * The argument list is NULL-terminated. */
static int run_gen(struct ctx *c, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;

	va_start(ap, c);
	for (const char *a; (a = va_arg(ap, const char *)) != NULL;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

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

	int rc = ldb_gen_main(argc, argv);

	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	return rc;
}

static size_t count_prefix_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	const char *p = text;

	while (*p) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

static const char expected_head[] = "dn: dc=example,dc=com\n"
                                    "objectClass: top\n"
                                    "objectClass: dcObject\n"
                                    "objectClass: organization\n"
                                    "dc: example\n"
                                    "o: example\n"
                                    "\n"
                                    "dn: ou=People,dc=example,dc=com\n"
                                    "objectClass: top\n"
                                    "objectClass: organizationalUnit\n"
                                    "ou: People\n"
                                    "\n"
                                    "dn: uid=user00001,ou=People,dc=example,dc=com\n"
                                    "objectClass: top\n"
                                    "objectClass: person\n"
                                    "objectClass: organizationalPerson\n"
                                    "objectClass: inetOrgPerson\n"
                                    "uid: user00001\n"
                                    "cn: user00001\n"
                                    "sn: user00001\n"
                                    "givenName: user00001\n"
                                    "mail: user00001@example.com\n"
                                    "userPassword: user00001\n"
                                    "\n"
                                    "dn: uid=user00002,ou=People,dc=example,dc=com\n";

static void test_first_entries_exact(void **state)
{
	struct ctx *c = *state;
	int rc = run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--parent", "ou=People,dc=example,dc=com",
	                 "--number", "3", "--ldif-file", c->ldif, NULL);
	assert_int_equal(rc, 0);

	size_t len;
	char *text = slurp(c->ldif, &len);
	assert_non_null(text);
	assert_true(len > sizeof(expected_head));
	assert_memory_equal(text, expected_head, sizeof(expected_head) - 1);
	assert_int_equal(count_prefix_lines(text, "dn: "), 5);
	assert_int_equal(count_prefix_lines(text, "dn: uid=user"), 3);
	assert_non_null(strstr(text, "dn: uid=user00003,ou=People,dc=example,dc=com\n"));
	assert_null(strstr(text, "user00004"));
	assert_null(strstr(text, "user00000"));
	/* the file ends with the blank line after the last entry */
	assert_string_equal(text + len - 25, "userPassword: user00003\n\n");
	free(text);

	char *out = slurp(c->out, NULL);
	char expect_out[256];
	snprintf(expect_out, sizeof(expect_out), "Successfully created LDIF file: %s\n", c->ldif);
	assert_string_equal(out, expect_out);
	free(out);
	/* stderr: only the note that 389 DS needs an ACI for these entries */
	char *err = slurp(c->errf, NULL);
	assert_ptr_equal(strstr(err, "ldbench gen users: note: these entries carry no ACI; on 389 DS"), err);
	assert_int_equal(count_prefix_lines(err, "ldbench gen users: note:"), 1);
	assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
	free(err);
}

static void test_stdout_and_default_parent(void **state)
{
	struct ctx *c = *state;
	/* no --parent: ou=People,SUFFIX; no --ldif-file: stdout */
	int rc = run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "2", NULL);
	assert_int_equal(rc, 0);
	char *out = slurp(c->out, NULL);
	assert_memory_equal(out, expected_head, sizeof(expected_head) - 1);
	assert_int_equal(count_prefix_lines(out, "dn: uid="), 2);
	assert_null(strstr(out, "Successfully"));
	free(out);
}

static void test_counts_and_start_idx(void **state)
{
	struct ctx *c = *state;
	int rc = run_gen(c, "gen", "users", "--suffix=dc=example,dc=com", "--parent=ou=People,dc=example,dc=com",
	                 "--number=1000", "--start-idx=500", "--ldif-file", c->ldif, NULL);
	assert_int_equal(rc, 0);
	char *text = slurp(c->ldif, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: uid=user"), 1000);
	assert_int_equal(count_prefix_lines(text, "dn: "), 1002);
	assert_int_equal(count_prefix_lines(text, "userPassword: "), 1000);
	assert_int_equal(count_prefix_lines(text, "mail: "), 1000);
	assert_null(strstr(text, "uid=user00499,"));
	assert_non_null(strstr(text, "dn: uid=user00500,ou=People,dc=example,dc=com\n"));
	assert_non_null(strstr(text, "dn: uid=user01499,ou=People,dc=example,dc=com\n"));
	assert_null(strstr(text, "uid=user01500,"));
	free(text);
}

static void test_width(void **state)
{
	struct ctx *c = *state;
	char *text;

	/* automatic width grows to the digits of the largest index */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "20", "--start-idx",
	                         "99990", "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	assert_non_null(strstr(text, "\nuid: user099990\n"));
	assert_non_null(strstr(text, "\nuid: user100009\n"));
	assert_null(strstr(text, "user100010"));
	assert_int_equal(count_prefix_lines(text, "uid: user"), 20);
	free(text);

	/* explicit width: larger pads, exact fit accepted */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "999", "--width", "3",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	assert_non_null(strstr(text, "\nuid: user001\n"));
	assert_non_null(strstr(text, "\nuid: user999\n"));
	free(text);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "2", "--width", "8",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	assert_non_null(strstr(text, "\nuid: user00000002\n"));
	free(text);

	/* too small for the largest index: refused, no file left behind */
	unlink(c->ldif);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "1000", "--width", "3",
	                         "--ldif-file", c->ldif, NULL),
	                 2);
	assert_int_equal(access(c->ldif, F_OK), -1);
	char *err = slurp(c->errf, NULL);
	assert_non_null(strstr(err, "--width 3 is too small"));
	assert_int_equal(count_char(err, '\n'), 1);
	free(err);
}

static void test_containers_and_domain(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "o=Acme", "--parent", "ou=People,dc=lab,ou=Eng,o=Acme",
	                         "--number", "1", "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	static const char expect[] = "dn: o=Acme\n"
	                             "objectClass: top\n"
	                             "objectClass: organization\n"
	                             "o: Acme\n"
	                             "\n"
	                             "dn: ou=Eng,o=Acme\n"
	                             "objectClass: top\n"
	                             "objectClass: organizationalUnit\n"
	                             "ou: Eng\n"
	                             "\n"
	                             "dn: dc=lab,ou=Eng,o=Acme\n"
	                             "objectClass: top\n"
	                             "objectClass: dcObject\n"
	                             "objectClass: organization\n"
	                             "dc: lab\n"
	                             "o: lab\n"
	                             "\n"
	                             "dn: ou=People,dc=lab,ou=Eng,o=Acme\n"
	                             "objectClass: top\n"
	                             "objectClass: organizationalUnit\n"
	                             "ou: People\n"
	                             "\n"
	                             "dn: uid=user00001,ou=People,dc=lab,ou=Eng,o=Acme\n";
	assert_memory_equal(text, expect, sizeof(expect) - 1);
	/* no dc= in the suffix: example.com */
	assert_non_null(strstr(text, "\nmail: user00001@example.com\n"));
	free(text);

	/* users directly under the suffix; domain from three dc= parts; the
	 * suffix matches case-insensitively */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=lab,dc=example,dc=org", "--parent",
	                         "DC=Lab,dc=example,dc=ORG", "--number", "1", "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 2);
	assert_non_null(strstr(text, "\nmail: user00001@lab.example.org\n"));
	free(text);
}

static void test_unsafe_value_base64(void **state)
{
	struct ctx *c = *state;
	/* "o=Ächme": UTF-8 is not a SAFE-CHAR in LDIF, so dn and o go base64 */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix",
	                         "o=\xc3\x84"
	                         "chme",
	                         "--parent",
	                         "o=\xc3\x84"
	                         "chme",
	                         "--number", "1", "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	/* base64("o=\xc3\x84chme") = "bz3DhGNobWU=", base64("\xc3\x84chme") = "w4RjaG1l" */
	assert_non_null(strstr(text, "dn:: bz3DhGNobWU=\n"));
	assert_non_null(strstr(text, "\no:: w4RjaG1l\n"));
	assert_int_equal(count_prefix_lines(text, "dn:: "), 2);
	free(text);
}

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

static void test_write_api(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char err[256] = "";
	struct ldb_gen_users u = {
		.suffix = "dc=example,dc=com",
		.parent = "ou=People,dc=example,dc=com",
		.number = 2,
		.start_idx = 1,
		.width = 0,
	};
	assert_non_null(f);
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 0);
	fclose(f);
	assert_memory_equal(buf, expected_head, sizeof(expected_head) - 1);
	free(buf);

	u.width = 1;
	u.number = 10;
	f = open_memstream(&buf, &len);
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "too small"));
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The ldifgen shape: ldifgen's numbering (start-idx added to 1..N, padded
 * to the digits of N), its suffix ACIs, its seven OUs, the parent entry. */
static void test_write_api_ldifgen(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	char err[256] = "";
	struct ldb_gen_users u = {
		.suffix = "dc=example,dc=com",
		.parent = "ou=Bench,dc=example,dc=com",
		.number = 12,
		.start_idx = 1,
		.ldifgen = true,
	};
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 0);
	fclose(f);
	static const char head[] = "dn: dc=example,dc=com\nobjectClass: top\nobjectClass: domain\ndc: example\naci: ";
	assert_memory_equal(buf, head, sizeof head - 1);
	assert_int_equal(count_of(buf, "\naci: "), 6); /* the suffix's three, the parent's three */
	assert_non_null(strstr(buf, "\ndn: ou=product development,dc=example,dc=com\n"));
	assert_non_null(
	        strstr(buf, "\ndn: ou=Bench,dc=example,dc=com\nobjectClass: top\nobjectClass: organizationalunit\n"));
	assert_int_equal(count_of(buf, "\ndn: uid=user"), 12);
	assert_non_null(strstr(buf, "\ndn: uid=user02,ou=Bench,dc=example,dc=com\n"));
	assert_non_null(strstr(buf, "\ndn: uid=user13,ou=Bench,dc=example,dc=com\n"));
	assert_null(strstr(buf, "uid=user01,"));
	assert_non_null(strstr(buf, "\nuserPassword: user13\n"));
	assert_non_null(strstr(buf, "\nmail: 13@example.com\n"));
	free(buf);

	u.suffix = "uid=x,dc=com";
	f = open_memstream(&buf, &len);
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "ldifgen writes"));
	fclose(f);
	free(buf);
}

/* A large file: 200,000 users, every one there (speed is measured in bench/,
 * never asserted by a test). */
static void test_large_count(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "200000",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	struct stat st;
	assert_int_equal(stat(c->ldif, &st), 0);
	assert_true(st.st_size > 200000LL * 200); /* about 250 bytes a user */
	FILE *f = fopen(c->ldif, "r");
	assert_non_null(f);
	char line[512];
	long users = 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "dn: uid=user", 12) == 0)
			users++;
	fclose(f);
	assert_int_equal(users, 200000);
}

/* ------------------------------------------------------------------------ */
/* users --hash */

static size_t b64_decode(const char *in, unsigned char *out)
{
	size_t n = strlen(in);
	int len = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
	assert_true(len >= 0);
	while (n > 0 && in[n - 1] == '=') { /* EVP_DecodeBlock counts the padding */
		n--;
		len--;
	}
	return (size_t)len;
}

/* Check one "{TAG}base64" value: digest(password + salt) + 8-byte salt. */
static void check_salted(const char *value, const char *tag, const EVP_MD *md, const char *password,
                         unsigned char salt[8])
{
	unsigned char raw[256], dig[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	size_t tl = strlen(tag);

	assert_memory_equal(value, tag, tl);
	size_t n = b64_decode(value + tl, raw);
	size_t mdl = (size_t)EVP_MD_size(md);
	assert_int_equal(n, mdl + 8);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	assert_non_null(ctx);
	assert_int_equal(EVP_DigestInit_ex(ctx, md, NULL), 1);
	assert_int_equal(EVP_DigestUpdate(ctx, password, strlen(password)), 1);
	assert_int_equal(EVP_DigestUpdate(ctx, raw + mdl, 8), 1);
	assert_int_equal(EVP_DigestFinal_ex(ctx, dig, &dlen), 1);
	EVP_MD_CTX_free(ctx);
	assert_int_equal(dlen, mdl);
	assert_memory_equal(raw, dig, mdl);
	memcpy(salt, raw + mdl, 8);
}

/* The userPassword value of the k-th (0-based) user in text (static buffer). */
static const char *nth_password(const char *text, int k)
{
	static char buf[256];
	const char *p = text;
	for (int i = 0; i <= k; i++) {
		p = strstr(p, "\nuserPassword: ");
		assert_non_null(p);
		p += 15;
	}
	size_t n = strcspn(p, "\n");
	assert_true(n < sizeof(buf));
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static void test_users_hash(void **state)
{
	struct ctx *c = *state;
	static const struct {
		const char *opt, *tag;
		const EVP_MD *(*md)(void);
	} kinds[] = {
		{ "ssha", "{SSHA}", EVP_sha1 },
		{ "SSHA256", "{SSHA256}", EVP_sha256 },
		{ "ssha512", "{SSHA512}", EVP_sha512 },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "3", "--hash",
		                         kinds[k].opt, "--ldif-file", c->ldif, NULL),
		                 0);
		char *text = slurp(c->ldif, NULL);
		/* everything else as without --hash */
		assert_memory_equal(text, expected_head, strstr(expected_head, "userPassword") - expected_head);
		assert_int_equal(count_prefix_lines(text, "userPassword: "), 3);
		unsigned char salts[3][8];
		char pw[16];
		for (int i = 0; i < 3; i++) {
			snprintf(pw, sizeof(pw), "user%05d", i + 1);
			check_salted(nth_password(text, i), kinds[k].tag, kinds[k].md(), pw, salts[i]);
		}
		/* a fresh salt per user */
		assert_memory_not_equal(salts[0], salts[1], 8);
		assert_memory_not_equal(salts[1], salts[2], 8);
		free(text);
	}

	/* a second run hashes with other salts */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "ssha", NULL), 0);
	char *a = slurp(c->out, NULL);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "ssha", NULL), 0);
	char *b = slurp(c->out, NULL);
	assert_string_not_equal(nth_password(a, 0), "");
	char first[256];
	strcpy(first, nth_password(a, 0));
	assert_string_not_equal(first, nth_password(b, 0));
	free(a);
	free(b);

	/* --hash clear: the password itself */
	assert_int_equal(
	        run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "2", "--hash", "clear", NULL),
	        0);
	char *out = slurp(c->out, NULL);
	assert_memory_equal(out, expected_head, sizeof(expected_head) - 1);
	free(out);

	/* the write API */
	char *buf = NULL;
	size_t len = 0;
	char err[256] = "";
	FILE *f = open_memstream(&buf, &len);
	struct ldb_gen_users u = {
		.suffix = "dc=example,dc=com", .number = 1, .start_idx = 7, .hash = LDB_GEN_HASH_SSHA512
	};
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 0);
	fclose(f);
	unsigned char salt[8];
	check_salted(nth_password(buf, 0), "{SSHA512}", EVP_sha512(), "user00007", salt);
	free(buf);
}

/* ------------------------------------------------------------------------ */
/* groups */

static void test_groups_exact(void **state)
{
	struct ctx *c = *state;
	/* NAME after the options; defaults: --parent SUFFIX, --member-parent ou=People,SUFFIX */
	assert_int_equal(run_gen(c, "gen", "groups", "--suffix", "dc=example,dc=com", "--number", "2", "--num-members",
	                         "2", "--member-attr", "member", "team", "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	assert_string_equal(text, "dn: cn=team-1,dc=example,dc=com\n"
	                          "objectClass: top\n"
	                          "objectClass: groupOfNames\n"
	                          "cn: team-1\n"
	                          "member: uid=user00001,ou=People,dc=example,dc=com\n"
	                          "member: uid=user00002,ou=People,dc=example,dc=com\n"
	                          "\n"
	                          "dn: cn=team-2,dc=example,dc=com\n"
	                          "objectClass: top\n"
	                          "objectClass: groupOfNames\n"
	                          "cn: team-2\n"
	                          "member: uid=user00001,ou=People,dc=example,dc=com\n"
	                          "member: uid=user00002,ou=People,dc=example,dc=com\n"
	                          "\n");
	free(text);
	char *out = slurp(c->out, NULL);
	char expect_out[256];
	snprintf(expect_out, sizeof(expect_out), "Successfully created LDIF file: %s\n", c->ldif);
	assert_string_equal(out, expect_out);
	free(out);

	/* default attribute uniqueMember; --start-idx and --width shape the member names */
	assert_int_equal(run_gen(c, "gen", "groups", "g", "--suffix", "dc=example,dc=com", "--parent",
	                         "ou=Groups,dc=example,dc=com", "--num-members", "3", "--start-idx", "9", "--width",
	                         "3", NULL),
	                 0);
	out = slurp(c->out, NULL);
	assert_string_equal(out, "dn: cn=g-1,ou=Groups,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: groupOfUniqueNames\n"
	                         "cn: g-1\n"
	                         "uniqueMember: uid=user009,ou=People,dc=example,dc=com\n"
	                         "uniqueMember: uid=user010,ou=People,dc=example,dc=com\n"
	                         "uniqueMember: uid=user011,ou=People,dc=example,dc=com\n"
	                         "\n");
	free(out);

	/* dsctl's default of 10000 members; a NAME after "--" */
	assert_int_equal(
	        run_gen(c, "gen", "groups", "--suffix", "dc=example,dc=com", "--ldif-file", c->ldif, "--", "big", NULL),
	        0);
	text = slurp(c->ldif, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 1);
	assert_int_equal(count_prefix_lines(text, "uniqueMember: uid=user"), 10000);
	assert_non_null(strstr(text, "\nuniqueMember: uid=user10000,ou=People,dc=example,dc=com\n"));
	free(text);
}

static void test_groups_create_members(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(run_gen(c, "gen", "groups", "crew", "--number", "3", "--num-members", "4", "--create-members",
	                         "--suffix", "dc=example,dc=com", "--parent", "ou=Groups,dc=example,dc=com",
	                         "--member-parent", "ou=People,dc=example,dc=com", "--member-attr", "uniquemember",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	static const char head[] = "dn: dc=example,dc=com\n"
	                           "objectClass: top\n"
	                           "objectClass: dcObject\n"
	                           "objectClass: organization\n"
	                           "dc: example\n"
	                           "o: example\n"
	                           "\n"
	                           "dn: ou=Groups,dc=example,dc=com\n"
	                           "objectClass: top\n"
	                           "objectClass: organizationalUnit\n"
	                           "ou: Groups\n"
	                           "\n"
	                           "dn: ou=People,dc=example,dc=com\n"
	                           "objectClass: top\n"
	                           "objectClass: organizationalUnit\n"
	                           "ou: People\n"
	                           "\n"
	                           "dn: uid=user00001,ou=People,dc=example,dc=com\n"
	                           "objectClass: top\n"
	                           "objectClass: person\n"
	                           "objectClass: organizationalPerson\n"
	                           "objectClass: inetOrgPerson\n"
	                           "uid: user00001\n"
	                           "cn: user00001\n"
	                           "sn: user00001\n"
	                           "givenName: user00001\n"
	                           "mail: user00001@example.com\n"
	                           "userPassword: user00001\n"
	                           "\n"
	                           "dn: uid=user00002,ou=People,dc=example,dc=com\n";
	assert_memory_equal(text, head, sizeof(head) - 1);
	/* 3 containers (the suffix once), 4 users once each, 3 groups of 4 */
	assert_int_equal(count_prefix_lines(text, "dn: "), 3 + 4 + 3);
	assert_int_equal(count_prefix_lines(text, "dn: dc=example,dc=com"), 1);
	assert_int_equal(count_prefix_lines(text, "dn: uid=user"), 4);
	assert_int_equal(count_prefix_lines(text, "dn: cn=crew-"), 3);
	assert_int_equal(count_prefix_lines(text, "uniqueMember: "), 12);
	/* the groups come after every member */
	assert_true(strstr(text, "dn: cn=crew-1,") > strstr(text, "dn: uid=user00004,"));
	assert_non_null(strstr(text, "dn: cn=crew-3,ou=Groups,dc=example,dc=com\nobjectClass: top\n"
	                             "objectClass: groupOfUniqueNames\ncn: crew-3\n"
	                             "uniqueMember: uid=user00001,ou=People,dc=example,dc=com\n"));
	free(text);

	/* members and groups under the same parent: that container once */
	assert_int_equal(run_gen(c, "gen", "groups", "x", "--num-members", "2", "--create-members", "--suffix",
	                         "o=Acme", "--parent", "ou=All,o=Acme", "--member-parent", "OU=all,o=acme", NULL),
	                 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 2 + 2 + 1);
	assert_int_equal(count_prefix_lines(text, "dn: ou=All,o=Acme"), 1);
	assert_non_null(strstr(text, "\nmail: user00002@example.com\n"));
	free(text);
}

/* ------------------------------------------------------------------------ */
/* mod-load */

/* "add=N modify=N modrdn=N delete=N" of the changetype lines. */
static void changetype_counts(const char *text, char *out, size_t cap)
{
	snprintf(out, cap, "add=%zu modify=%zu modrdn=%zu delete=%zu", count_prefix_lines(text, "changetype: add\n"),
	         count_prefix_lines(text, "changetype: modify\n"), count_prefix_lines(text, "changetype: modrdn\n"),
	         count_prefix_lines(text, "changetype: delete\n"));
}

static void test_modload_exact(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "3", "--create-users", "--parent",
	                         "ou=W,dc=example,dc=com", "--add-users", "1", "--mod-users", "2", "--modrdn-users",
	                         "1", "--del-users", "1", "--delete-users", "--mod-attrs", "sn", "description",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	/* no --suffix: no container records; the users first */
	static const char first[] = "dn: uid=user00001,ou=W,dc=example,dc=com\n"
	                            "changetype: add\n"
	                            "objectClass: top\n"
	                            "objectClass: person\n"
	                            "objectClass: organizationalPerson\n"
	                            "objectClass: inetOrgPerson\n"
	                            "uid: user00001\n"
	                            "cn: user00001\n"
	                            "sn: user00001\n"
	                            "givenName: user00001\n"
	                            "mail: user00001@example.com\n"
	                            "userPassword: user00001\n"
	                            "\n"
	                            "dn: uid=user00002,ou=W,dc=example,dc=com\n";
	assert_memory_equal(text, first, sizeof(first) - 1);
	assert_non_null(strstr(text, "\ndn: uid=addUser00001,ou=W,dc=example,dc=com\nchangetype: add\n"));
	static const char rest[] = "dn: uid=user00001,ou=W,dc=example,dc=com\n"
	                           "changetype: modify\n"
	                           "replace: sn\n"
	                           "sn: user00001 modified\n"
	                           "-\n"
	                           "replace: description\n"
	                           "description: user00001 modified\n"
	                           "-\n"
	                           "\n"
	                           "dn: uid=user00002,ou=W,dc=example,dc=com\n"
	                           "changetype: modify\n"
	                           "replace: sn\n"
	                           "sn: user00002 modified\n"
	                           "-\n"
	                           "replace: description\n"
	                           "description: user00002 modified\n"
	                           "-\n"
	                           "\n"
	                           "dn: uid=user00001,ou=W,dc=example,dc=com\n"
	                           "changetype: modrdn\n"
	                           "newrdn: cn=user00001\n"
	                           "deleteoldrdn: 1\n"
	                           "\n"
	                           "dn: uid=user00003,ou=W,dc=example,dc=com\n"
	                           "changetype: delete\n"
	                           "\n"
	                           "dn: cn=user00001,ou=W,dc=example,dc=com\n"
	                           "changetype: delete\n"
	                           "\n"
	                           "dn: uid=user00002,ou=W,dc=example,dc=com\n"
	                           "changetype: delete\n"
	                           "\n"
	                           "dn: uid=addUser00001,ou=W,dc=example,dc=com\n"
	                           "changetype: delete\n"
	                           "\n";
	const char *mod = strstr(text, "dn: uid=user00001,ou=W,dc=example,dc=com\nchangetype: modify\n");
	assert_non_null(mod);
	assert_string_equal(mod, rest);
	char counts[128];
	changetype_counts(text, counts, sizeof(counts));
	assert_string_equal(counts, "add=4 modify=2 modrdn=1 delete=4");
	free(text);

	/* deletes of renamed users go to their new DN; --suffix adds the containers */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "4", "--parent", "ou=W,dc=example,dc=com",
	                         "--suffix", "dc=example,dc=com", "--add-users", "0", "--mod-users", "0",
	                         "--modrdn-users", "3", "--del-users", "2", NULL),
	                 0);
	text = slurp(c->out, NULL);
	static const char containers[] = "dn: dc=example,dc=com\n"
	                                 "changetype: add\n"
	                                 "objectClass: top\n"
	                                 "objectClass: dcObject\n"
	                                 "objectClass: organization\n"
	                                 "dc: example\n"
	                                 "o: example\n"
	                                 "\n"
	                                 "dn: ou=W,dc=example,dc=com\n"
	                                 "changetype: add\n"
	                                 "objectClass: top\n"
	                                 "objectClass: organizationalUnit\n"
	                                 "ou: W\n"
	                                 "\n"
	                                 "dn: uid=user00001,ou=W,dc=example,dc=com\n"
	                                 "changetype: modrdn\n";
	assert_memory_equal(text, containers, sizeof(containers) - 1);
	assert_non_null(strstr(text, "\ndn: cn=user00003,ou=W,dc=example,dc=com\nchangetype: delete\n\n"
	                             "dn: uid=user00004,ou=W,dc=example,dc=com\nchangetype: delete\n\n"));
	changetype_counts(text, counts, sizeof(counts));
	assert_string_equal(counts, "add=2 modify=0 modrdn=3 delete=2");
	free(text);
}

static void test_modload_counts(void **state)
{
	struct ctx *c = *state;
	char counts[128], *text;

	/* the guide's mixed file: 11 adds, 8 modifies, 1 modrdn, 1 delete */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "10", "--create-users", "--parent",
	                         "ou=WriteBench,dc=example,dc=com", "--mod-attrs", "sn", "--add-users", "1",
	                         "--mod-users", "8", "--modrdn-users", "1", "--del-users", "1", "--ldif-file", c->ldif,
	                         NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	changetype_counts(text, counts, sizeof(counts));
	assert_string_equal(counts, "add=11 modify=8 modrdn=1 delete=1");
	assert_int_equal(count_prefix_lines(text, "replace: sn\n"), 8);
	free(text);

	/* the guide's clean file: exactly 10 adds and 10 modifies */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "10", "--create-users", "--parent",
	                         "ou=WriteBench,dc=example,dc=com", "--mod-attrs", "sn", "--add-users", "0",
	                         "--mod-users", "10", "--modrdn-users", "0", "--del-users", "0", "--ldif-file", c->ldif,
	                         NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	changetype_counts(text, counts, sizeof(counts));
	assert_string_equal(counts, "add=10 modify=10 modrdn=0 delete=0");
	assert_int_equal(count_prefix_lines(text, "changetype: "), 20);
	free(text);

	/* dsctl's defaults (100 of each, description) and --delete-users */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "1000", "--create-users", "--delete-users",
	                         "--parent", "ou=People,dc=example,dc=com", "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	changetype_counts(text, counts, sizeof(counts));
	/* deletes: 100, then the other 900 users and the 100 added ones */
	assert_string_equal(counts, "add=1100 modify=100 modrdn=100 delete=1100");
	assert_int_equal(count_prefix_lines(text, "replace: description\n"), 100);
	assert_int_equal(count_prefix_lines(text, "dn: cn=user"), 100); /* renamed users deleted by cn= */
	free(text);

	/* without --create-users only the extra adds; --start-idx moves the users */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--num-users", "5", "--start-idx", "101", "--parent",
	                         "ou=People,dc=example,dc=com", "--add-users", "2", "--mod-users", "1",
	                         "--modrdn-users", "0", "--del-users", "1", "--mod-attrs", "title", NULL),
	                 0);
	text = slurp(c->out, NULL);
	changetype_counts(text, counts, sizeof(counts));
	assert_string_equal(counts, "add=2 modify=1 modrdn=0 delete=1");
	assert_non_null(strstr(text, "dn: uid=user00101,ou=People,dc=example,dc=com\nchangetype: modify\n"
	                             "replace: title\ntitle: user00101 modified\n-\n\n"));
	assert_non_null(strstr(text, "dn: uid=user00105,ou=People,dc=example,dc=com\nchangetype: delete\n"));
	free(text);
}

/* --shape ldifgen-random: ldifgen users without --generic, uid <initial><family><i> */
static void test_ldifgen_random_names(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(run_gen(c, "gen", "users", "--shape", "ldifgen-random", "--number", "12", "--suffix", "o=corp",
	                         "--parent", "ou=people,o=corp", "--start-idx", "5", NULL),
	                 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: uid="), 12);
	/* the 12th user: uid = first initial + family name + 12, cn "Given Family" */
	const char *p = strstr(text, "\nmail: 12@example.com\n");
	assert_non_null(p);
	while (p > text && strncmp(p, "\ndn: uid=", 9) != 0)
		p--;
	char uid[64], given[64], sn[64], cn[160], want[256];
	assert_int_equal(sscanf(strstr(p, "\nuid: "), "\nuid: %63s", uid), 1);
	assert_int_equal(sscanf(strstr(p, "\ngivenName: "), "\ngivenName: %63s", given), 1);
	assert_int_equal(sscanf(strstr(p, "\nsn: "), "\nsn: %63s", sn), 1);
	snprintf(want, sizeof want, "%c%s12", given[0], sn);
	assert_string_equal(uid, want);
	snprintf(cn, sizeof cn, "\ncn: %s %s\n", given, sn);
	assert_non_null(strstr(p, cn));
	snprintf(want, sizeof want, "\ndn: uid=%s,ou=people,o=corp\n", uid);
	assert_true(strncmp(p, want, strlen(want)) == 0);
	free(text);

	assert_int_equal(run_gen(c, "gen", "users", "--shape", "ldifgen-random", "--generic", "--number", "1",
	                         "--suffix", "o=corp", NULL),
	                 2);
}

/* groups and mod-load --generic: the records of dsctl ldifgen (lib389
 * dbgen_groups, dbgen_mod_load), their order and their quirks */
static void test_generic_groups_modload(void **state)
{
	struct ctx *c = *state;
	char *text;

	assert_int_equal(run_gen(c, "gen", "groups", "g", "--generic", "--suffix", "o=corp", "--num-members", "2",
	                         "--number", "2", NULL),
	                 0);
	text = slurp(c->out, NULL);
	/* the suffix as ldifgen writes it (ACIs), groups below it, members too */
	static const char head[] = "dn: o=corp\nobjectClass: top\nobjectClass: organization\no: corp\naci: ";
	assert_true(strncmp(text, head, sizeof head - 1) == 0);
	assert_non_null(strstr(text, "\n\ndn: cn=g-1,o=corp\nobjectclass: top\nobjectclass: groupOfUniqueNames\n"
	                             "objectclass: groupOfNames\nobjectclass: inetAdmin\ncn: cn=g-1,o=corp\n"
	                             "uniquemember: uid=user1,o=corp\nuniquemember: uid=user2,o=corp\n\n"
	                             "dn: cn=g-2,o=corp\n"));
	free(text);

	assert_int_equal(run_gen(c, "gen", "groups", "g", "--generic", "--suffix", "o=corp", "--num-members", "10",
	                         "--create-members", "--member-parent", "ou=people,o=corp", "--member-attr", "member",
	                         NULL),
	                 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: ou=people,o=corp\n"), 1);
	/* ldifgen's generic user: cn "NAME EMAN", sn the name reversed */
	assert_non_null(strstr(text, "dn: uid=group_entry1-01,ou=people,o=corp\nobjectClass: top\n"));
	assert_non_null(strstr(text, "\ncn: group_entry1-01 10-1yrtne_puorg\nsn: 10-1yrtne_puorg\n"
	                             "uid: group_entry1-01\ngivenName: group_entry1-01\n"));
	assert_non_null(strstr(text, "\nmember: uid=group_entry1-10,ou=people,o=corp\n\n"));
	assert_int_equal(count_prefix_lines(text, "member: "), 10);
	free(text);

	/* mod-load: each kind counting down, deletes of users D..1 */
	assert_int_equal(run_gen(c, "gen", "mod-load", "--generic", "--num-users", "12", "--parent", "ou=p,o=corp",
	                         "--add-users", "2", "--mod-users", "2", "--modrdn-users", "2", "--del-users", "3",
	                         "--delete-users", NULL),
	                 0);
	text = slurp(c->out, NULL);
	const char *a2 = strstr(text, "dn: uid=addUser2,ou=p,o=corp\nchangetype: add\n");
	const char *a1 = strstr(text, "dn: uid=addUser1,ou=p,o=corp\nchangetype: add\n");
	const char *m2 = strstr(text, "dn: uid=user02,ou=p,o=corp\nchangetype: modify\nreplace: description\n");
	const char *r1 = strstr(text, "dn: uid=user01,ou=p,o=corp\nchangetype: modrdn\n"
	                              "newrdn: cn=user01,ou=p,o=corp\ndeleteoldrdn: 1\n\n");
	const char *d3 = strstr(text, "dn: uid=user03,ou=p,o=corp\nchangetype: delete\n\n"
	                              "dn: uid=user02,ou=p,o=corp\nchangetype: delete\n\n"
	                              "dn: uid=user01,ou=p,o=corp\nchangetype: delete\n\n"
	                              "dn: uid=user04,ou=p,o=corp\nchangetype: delete\n\n");
	assert_true(a2 != NULL && a1 > a2 && m2 > a1 && r1 > m2 && d3 > r1);
	/* the cleanup: users 4..12, the added users, then the renamed ones */
	assert_non_null(strstr(text, "dn: uid=user12,ou=p,o=corp\nchangetype: delete\n\n"
	                             "dn: uid=addUser2,ou=p,o=corp\nchangetype: delete\n\n"
	                             "dn: uid=addUser1,ou=p,o=corp\nchangetype: delete\n\n"
	                             "dn: cn=user02,ou=p,o=corp\nchangetype: delete\n\n"
	                             "dn: cn=user01,ou=p,o=corp\nchangetype: delete\n\n"));
	assert_int_equal(count_prefix_lines(text, "changetype: delete"), 3 + 9 + 2 + 2);
	free(text);
}

/* ------------------------------------------------------------------------ */
/* tree */

static void test_tree_exact(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(run_gen(c, "gen", "tree", "--depth", "1", "--fanout", "2", "--entries", "1", "--suffix",
	                         "ou=Tree,dc=example,dc=com", NULL),
	                 0);
	char *out = slurp(c->out, NULL);
	assert_string_equal(out, "dn: ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: organizationalUnit\n"
	                         "ou: Tree\n"
	                         "\n"
	                         "dn: cn=entry00001,ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: person\n"
	                         "objectClass: organizationalPerson\n"
	                         "objectClass: inetOrgPerson\n"
	                         "cn: entry00001\n"
	                         "sn: entry00001\n"
	                         "uid: entry00001\n"
	                         "mail: entry00001@example.com\n"
	                         "telephoneNumber: +1 555 0000001\n"
	                         "description: tree entry 1 at level 0\n"
	                         "\n"
	                         "dn: ou=unit1,ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: organizationalUnit\n"
	                         "ou: unit1\n"
	                         "description: tree container at level 1\n"
	                         "\n"
	                         "dn: cn=entry00002,ou=unit1,ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: person\n"
	                         "objectClass: organizationalPerson\n"
	                         "objectClass: inetOrgPerson\n"
	                         "cn: entry00002\n"
	                         "sn: entry00002\n"
	                         "uid: entry00002\n"
	                         "mail: entry00002@example.com\n"
	                         "telephoneNumber: +1 555 0000002\n"
	                         "description: tree entry 2 at level 1\n"
	                         "\n"
	                         "dn: ou=unit2,ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: organizationalUnit\n"
	                         "ou: unit2\n"
	                         "description: tree container at level 1\n"
	                         "\n"
	                         "dn: cn=entry00003,ou=unit2,ou=Tree,dc=example,dc=com\n"
	                         "objectClass: top\n"
	                         "objectClass: person\n"
	                         "objectClass: organizationalPerson\n"
	                         "objectClass: inetOrgPerson\n"
	                         "cn: entry00003\n"
	                         "sn: entry00003\n"
	                         "uid: entry00003\n"
	                         "mail: entry00003@example.com\n"
	                         "telephoneNumber: +1 555 0000003\n"
	                         "description: tree entry 3 at level 1\n"
	                         "\n");
	free(out);
	char *err = slurp(c->errf, NULL);
	assert_string_equal(
	        err, "ldbench gen tree: 3 containers (levels 0-1, the top entry included), 3 entries, 6 in all\n");
	free(err);
}

/* Every DN's parent appears earlier in the file (ldapadd order). */
static void check_parents_first(const char *text, const char *top)
{
	size_t cap = 4096, n = 0;
	char **seen = calloc(cap, sizeof(*seen));
	assert_non_null(seen);
	for (const char *p = text; (p = strstr(p, "dn: ")) != NULL; p += 4) {
		if (p != text && p[-1] != '\n')
			continue;
		size_t len = strcspn(p + 4, "\n");
		char *dn = strndup(p + 4, len);
		if (strcmp(dn, top) != 0) {
			const char *parent = strchr(dn, ',') + 1;
			bool found = false;
			for (size_t i = 0; i < n && !found; i++)
				found = strcmp(seen[i], parent) == 0;
			if (!found)
				fail_msg("%s comes before its parent", dn);
		}
		assert_true(n < cap);
		seen[n++] = dn;
	}
	for (size_t i = 0; i < n; i++)
		free(seen[i]);
	free(seen);
}

static void test_tree_counts(void **state)
{
	struct ctx *c = *state;

	/* seed 002: depth 5, fanout 5, 5 entries */
	assert_int_equal(run_gen(c, "gen", "tree", "--depth", "5", "--fanout", "5", "--entries", "5", "--ldif-file",
	                         c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: dc=example,dc=com\n"), 1);
	assert_int_equal(count_prefix_lines(text, "objectClass: organizationalUnit\n"), 3905); /* 5+25+...+3125 */
	assert_int_equal(count_prefix_lines(text, "objectClass: inetOrgPerson\n"), 19530);
	assert_int_equal(count_prefix_lines(text, "dn: "), 3906 + 19530);
	assert_int_equal(
	        count_prefix_lines(text, "dn: ou=unit5,ou=unit5,ou=unit5,ou=unit5,ou=unit5,dc=example,dc=com\n"), 1);
	assert_int_equal(count_prefix_lines(text, "dn: ou=unit1,ou=unit1,ou=unit1,ou=unit1,ou=unit1,ou=unit1,"), 0);
	assert_non_null(strstr(text, "\ndn: cn=entry19530,"));
	assert_null(strstr(text, "entry19531"));
	free(text);
	char *err = slurp(c->errf, NULL);
	assert_string_equal(err,
	                    "ldbench gen tree: 3906 containers (levels 0-5, the top entry included), 19530 entries, "
	                    "23436 in all\n");
	free(err);

	/* depth 3, fanout 3, 3 entries: 40 containers, 120 entries, parents first */
	assert_int_equal(run_gen(c, "gen", "tree", "--depth", "3", "--fanout", "3", "--entries", "3", "--suffix",
	                         "o=Acme", NULL),
	                 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 160);
	assert_int_equal(count_prefix_lines(text, "dn: cn=entry"), 120);
	check_parents_first(text, "o=Acme");
	free(text);

	/* depth 0: the top and its entries; entries 0: containers only */
	assert_int_equal(run_gen(c, "gen", "tree", "--depth", "0", "--fanout", "7", "--entries", "4", NULL), 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 5);
	free(text);
	assert_int_equal(run_gen(c, "gen", "tree", "--depth", "2", "--fanout", "2", "--entries", "0", NULL), 0);
	text = slurp(c->out, NULL);
	assert_int_equal(count_prefix_lines(text, "dn: "), 7);
	assert_int_equal(count_prefix_lines(text, "dn: cn="), 0);
	free(text);
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

/* Unsafe container and user values go base64 (a leading space in an ou=
 * value, an escaped comma), long DNs stay on one line (no folding). */
static void test_unsafe_container_and_long_lines(void **state)
{
	struct ctx *c = *state;
	char parent[400];

	/* "ou=\ x" is the RDN value " x": the ou: line is base64 "IHg=" */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "o=Ex Corp", "--parent", "ou=\\ x,o=Ex Corp",
	                         "--number", "1", "--ldif-file", c->ldif, NULL),
	                 0);
	char *text = slurp(c->ldif, NULL);
	static const char expect[] = "dn: o=Ex Corp\n"
	                             "objectClass: top\n"
	                             "objectClass: organization\n"
	                             "o: Ex Corp\n"
	                             "\n"
	                             "dn: ou=\\20x,o=Ex Corp\n"
	                             "objectClass: top\n"
	                             "objectClass: organizationalUnit\n"
	                             "ou:: IHg=\n"
	                             "\n"
	                             "dn: uid=user00001,ou=\\20x,o=Ex Corp\n";
	assert_memory_equal(text, expect, sizeof(expect) - 1);
	free(text);

	/* a 300-byte ou value: the dn and ou lines are whole */
	char val[301];
	memset(val, 'v', 300);
	val[300] = '\0';
	snprintf(parent, sizeof(parent), "ou=%s,dc=example,dc=com", val);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--parent", parent, "--number",
	                         "1", "--ldif-file", c->ldif, NULL),
	                 0);
	text = slurp(c->ldif, NULL);
	char line[sizeof(parent) + 64];
	snprintf(line, sizeof(line), "\ndn: uid=user00001,%s\nobjectClass: top\n", parent);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line), "\nou: %s\n\n", val);
	assert_non_null(strstr(text, line));
	assert_int_equal(count_prefix_lines(text, " "), 0); /* no continuation lines */
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_entries_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout_and_default_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_start_idx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_containers_and_domain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_value_base64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_users_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_create_members, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modload_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modload_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_generic_groups_modload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ldifgen_random_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_api_ldifgen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_number_messages_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_container_and_long_lines, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
