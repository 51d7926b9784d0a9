/* Unit tests of `ldbench gen groups`, ldbench's own shape (src/gen/groups.c).  Through ldb_gen_main and
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_groups_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_create_members, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
