/* Unit tests of the replay's passwords (src/run/replay_pw.c): the map's DN
 * comparison (ASCII case, spaces after commas), its bad lines, the rule
 * (REGEX=REPLACEMENT split at the last '=', groups), the named rule of
 * `ldbench gen users`, the default, and the order map > rule > default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/replay.h"

static const char *find(const struct ldb_rp_pw *pw, const char *dn)
{
	static char out[256];
	return ldb_rp_pw_find(pw, dn, strlen(dn), out, sizeof out) < 0 ? NULL : out;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_map(void **state)
{
	(void)state;
	char path[] = "/tmp/ldbench-pwmap-XXXXXX", err[600];
	close(mkstemp(path));
	write_file(path, "# comment\n\nUID=Jdoe, OU=People,dc=example,dc=com\tSecret One\r\ncn=admin\tx\n");
	struct ldb_rp_pw *pw = NULL;
	assert_int_equal(ldb_rp_pw_load(&pw, path, err, sizeof err), 0);
	assert_string_equal(find(pw, "uid=jdoe,ou=people,dc=example,dc=com"), "Secret One");
	assert_string_equal(find(pw, "uid=JDOE, ou=People, dc=example, dc=com"), "Secret One");
	assert_string_equal(find(pw, "CN=Admin"), "x");
	assert_null(find(pw, "uid=other,dc=example,dc=com"));
	write_file(path, "cn=admin x\n");
	assert_int_equal(ldb_rp_pw_load(&pw, path, err, sizeof err), -1);
	assert_non_null(strstr(err, ": line 1: not DN<TAB>password"));
	ldb_rp_pw_free(pw);
	unlink(path);
	pw = NULL;
	assert_int_equal(ldb_rp_pw_load(&pw, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "No such file"));
	ldb_rp_pw_free(pw);
}

static void test_rules(void **state)
{
	(void)state;
	char err[600];
	struct ldb_rp_pw *pw = NULL;
	assert_int_equal(ldb_rp_pw_rule(&pw, "uid=([^,]+),=\\1pw", err, sizeof err), 0);
	assert_string_equal(find(pw, "uid=JDoe,ou=People,dc=example,dc=com"), "JDoepw");
	assert_null(find(pw, "cn=admin,dc=example,dc=com"));
	assert_int_equal(ldb_rp_pw_default(&pw, "dflt"), 0);
	assert_string_equal(find(pw, "cn=admin,dc=example,dc=com"), "dflt");
	ldb_rp_pw_free(pw);
	pw = NULL;
	assert_int_equal(ldb_rp_pw_rule(&pw, "ldbench", err, sizeof err), 0);
	assert_string_equal(find(pw, "uid=user00042,ou=People,dc=example,dc=com"), "user00042");
	assert_null(find(pw, "cn=user00042,dc=example,dc=com"));
	ldb_rp_pw_free(pw);
	pw = NULL;
	assert_int_equal(ldb_rp_pw_rule(&pw, "no-equals-sign", err, sizeof err), -1);
	assert_non_null(strstr(err, "not REGEX=REPLACEMENT"));
	assert_int_equal(ldb_rp_pw_rule(&pw, "uid=([=x", err, sizeof err), -1);
	ldb_rp_pw_free(pw);
}

static void test_order(void **state)
{
	(void)state;
	char path[] = "/tmp/ldbench-pwmap-XXXXXX", err[600];
	close(mkstemp(path));
	write_file(path, "uid=user00001,ou=People,dc=example,dc=com\tfrom-map\n");
	struct ldb_rp_pw *pw = NULL;
	assert_int_equal(ldb_rp_pw_default(&pw, "dflt"), 0);
	assert_int_equal(ldb_rp_pw_rule(&pw, "ldbench", err, sizeof err), 0);
	assert_int_equal(ldb_rp_pw_load(&pw, path, err, sizeof err), 0);
	assert_string_equal(find(pw, "uid=user00001,ou=People,dc=example,dc=com"), "from-map");
	assert_string_equal(find(pw, "uid=user00002,ou=People,dc=example,dc=com"), "user00002");
	assert_string_equal(find(pw, "cn=admin,dc=example,dc=com"), "dflt");
	assert_null(find(NULL, "cn=admin"));
	ldb_rp_pw_free(pw);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
