/* Unit tests of `ldbench gen mod-load`, ldbench's own shape (src/gen/modload.c).  Through ldb_gen_main and
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_modload_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modload_counts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
