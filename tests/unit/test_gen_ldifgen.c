/* Unit tests of the dsctl ldifgen dialect (src/gen/ldifgen.c): gen users
 * --generic and --shape ldifgen-random, groups and mod-load --generic.  Through ldb_gen_main and
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_generic_groups_modload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ldifgen_random_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_api_ldifgen, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
