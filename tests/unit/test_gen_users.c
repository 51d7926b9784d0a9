/* Unit tests of `ldbench gen users`, ldbench's own shape (src/gen/users.c): the
 * entries byte for byte, the default parent, counts and --start-idx, --width,
 * the ldb_gen_users_write API, a large file.  Through ldb_gen_main and
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

static const char expected_head[] = GEN_USERS_HEAD;

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

	char *out = slurp(c->out, NULL);
	char expect_out[256];
	snprintf(expect_out, sizeof(expect_out), "Successfully created LDIF file: %s\n", c->ldif);
	assert_string_equal(out, expect_out);
	free(out);
	/* stderr: nothing (the 389 DS note is for --shape simple named) */
	char *err = slurp(c->errf, NULL);
	assert_string_equal(err, "");
	free(err);

	/* --shape simple named: the same file, and on stderr only the note that
	 * 389 DS needs an ACI for these entries */
	rc = run_gen(c, "gen", "users", "--shape", "simple", "--suffix", "dc=example,dc=com", "--parent",
	             "ou=People,dc=example,dc=com", "--number", "3", "--ldif-file", c->ldif, NULL);
	assert_int_equal(rc, 0);
	size_t len2;
	char *text2 = slurp(c->ldif, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(text2, text, len);
	free(text2);
	free(text);
	err = slurp(c->errf, NULL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_entries_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout_and_default_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_start_idx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_count, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
