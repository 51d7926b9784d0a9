/* Unit tests of the entries above the users (src/gen/containers.c) and gen's
 * LDIF lines (src/gen/out.c): container object classes by RDN, the mail
 * domain, base64 of unsafe values, long lines unfolded.  Through ldb_gen_main and
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
		cmocka_unit_test_setup_teardown(test_containers_and_domain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_value_base64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsafe_container_and_long_lines, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
