/* Unit tests of `ldbench gen tree` (src/gen/tree.c).  Through ldb_gen_main and
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_counts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
