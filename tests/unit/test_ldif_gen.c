/* Unit tests of `ldbench gen users` (src/ldif_gen.c), through ldb_gen_main. */
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

#include "ldbench/ldif_gen.h"

struct ctx {
	char dir[64];
	char ldif[128];
	char out[128];  /* captured stdout */
	char errf[128]; /* captured stderr */
};

static int
setup(void **state)
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

static int
teardown(void **state)
{
	struct ctx *c = *state;

	unlink(c->ldif);
	unlink(c->out);
	unlink(c->errf);
	rmdir(c->dir);
	free(c);
	return 0;
}

static char *
slurp(const char *path, size_t *len)
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
static int
run_gen(struct ctx *c, ...)
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

static size_t
count_prefix_lines(const char *text, const char *prefix)
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

static size_t
count_char(const char *s, char ch)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

static const char expected_head[] =
	"dn: dc=example,dc=com\n"
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

static void
test_first_entries_exact(void **state)
{
	struct ctx *c = *state;
	int rc = run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--parent",
	                 "ou=People,dc=example,dc=com", "--number", "3", "--ldif-file", c->ldif, NULL);
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
	char *err = slurp(c->errf, NULL);
	assert_string_equal(err, "");
	free(err);
}

static void
test_stdout_and_default_parent(void **state)
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

static void
test_counts_and_start_idx(void **state)
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

static void
test_width(void **state)
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

static void
test_containers_and_domain(void **state)
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

static void
test_unsafe_value_base64(void **state)
{
	struct ctx *c = *state;
	/* "o=Ächme": UTF-8 is not a SAFE-CHAR in LDIF, so dn and o go base64 */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "o=\xc3\x84" "chme", "--parent", "o=\xc3\x84" "chme",
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
	const char *args[12];
	const char *msg; /* expected substring of the stderr line */
};

static void
test_bad_options(void **state)
{
	struct ctx *c = *state;
	static const struct bad_case cases[] = {
		{"no subcommand", {"gen"}, "missing subcommand"},
		{"unknown subcommand", {"gen", "people"}, "unknown subcommand 'people'"},
		{"unknown option", {"gen", "users", "--suffix", "dc=x", "--number", "1", "--bogus"}, "'--bogus'"},
		{"unknown short", {"gen", "users", "-q", "--suffix", "dc=x", "--number", "1"}, "'-q'"},
		{"missing value", {"gen", "users", "--suffix", "dc=x", "--number"}, "--number needs a value"},
		{"missing number", {"gen", "users", "--suffix", "dc=x"}, "--number is required"},
		{"missing suffix", {"gen", "users", "--number", "1"}, "--suffix is required"},
		{"junk number", {"gen", "users", "--suffix", "dc=x", "--number", "12x"}, "'12x' is not a decimal"},
		{"blank number", {"gen", "users", "--suffix", "dc=x", "--number", " 12"}, "is not a decimal"},
		{"plus sign", {"gen", "users", "--suffix", "dc=x", "--number", "+12"}, "is not a decimal"},
		{"empty number", {"gen", "users", "--suffix", "dc=x", "--number", ""}, "--number: empty"},
		{"negative number", {"gen", "users", "--suffix", "dc=x", "--number", "-5"}, "'-5' is negative"},
		{"overflow", {"gen", "users", "--suffix", "dc=x", "--number", "99999999999999999999999"}, "too large"},
		{"negative start", {"gen", "users", "--suffix", "dc=x", "--number", "1", "--start-idx", "-1"}, "negative"},
		{"range overflow",
		 {"gen", "users", "--suffix", "dc=x", "--number", "10", "--start-idx", "999999999999999995"},
		 "goes past"},
		{"zero width", {"gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "0"}, "--width must be"},
		{"huge width", {"gen", "users", "--suffix", "dc=x", "--number", "1", "--width", "99"}, "too large"},
		{"width too small", {"gen", "users", "--suffix", "dc=x", "--number", "100", "--width", "2"}, "too small"},
		{"bad suffix DN", {"gen", "users", "--suffix", "dc=x,,", "--number", "1"}, "not a valid DN"},
		{"bad suffix rdn", {"gen", "users", "--suffix", "cn=x", "--number", "1"}, "'cn' is not one of"},
		{"bad container rdn",
		 {"gen", "users", "--suffix", "dc=x", "--parent", "cn=People,dc=x", "--number", "1"},
		 "'cn' is not one of"},
		{"parent not under suffix",
		 {"gen", "users", "--suffix", "dc=x", "--parent", "ou=People,dc=y", "--number", "1"},
		 "is not under"},
		{"multi-valued rdn",
		 {"gen", "users", "--suffix", "dc=x", "--parent", "ou=a+ou=b,dc=x", "--number", "1"},
		 "multi-valued"},
		{"positional", {"gen", "users", "--suffix", "dc=x", "--number", "1", "extra"}, "unexpected argument 'extra'"},
		{"unwritable file",
		 {"gen", "users", "--suffix", "dc=x", "--number", "1", "--ldif-file", "/nonexistent-dir/x.ldif"},
		 "cannot create"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *bc = &cases[i];
		char *argv[16];
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
		if (!has_file && argc >= 2 && strcmp(argv[1], "users") == 0 && strcmp(bc->why, "positional") != 0 &&
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

static void
test_help(void **state)
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

static void
test_write_api(void **state)
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

/* 1,000,000 users must take a second or two. */
static void
test_speed_million(void **state)
{
	struct ctx *c = *state;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "1000000",
	                         "--ldif-file", c->ldif, NULL),
	                 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	struct stat st;
	assert_int_equal(stat(c->ldif, &st), 0);
	/* a user entry is 275 bytes with 5-digit indexes, 281 with 7 */
	assert_true(st.st_size > 1000000LL * 275);
	print_message("1,000,000 users: %.2f s, %lld bytes\n", s, (long long)st.st_size);
	/* generous for sanitizer builds; a release build takes well under a second */
	assert_true(s < 20.0);
}

int
main(void)
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
		cmocka_unit_test_setup_teardown(test_speed_million, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
