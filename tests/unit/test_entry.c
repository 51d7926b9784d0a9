/* Unit tests of the entry shapes (src/ldif/entry.c): ldclt's classes, the add
 * entry, the container shapes and gen's users, tree leaves and groups, each
 * attribute exactly and in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ldif/entry.h"

#define MAXV 48

struct fixture {
	struct ldb_put_value v[MAXV];
	char text[256];
	struct ldb_entry e;
};

static struct fixture fx;

static struct ldb_entry *fresh(int max, size_t cap)
{
	memset(&fx, 0, sizeof fx);
	ldb_entry_init(&fx.e, fx.v, max, fx.text, cap);
	return &fx.e;
}

/* e holds exactly the pairs type, value, ..., NULL. */
static void expect(const struct ldb_entry *e, ...)
{
	va_list ap;
	int i = 0;

	va_start(ap, e);
	for (const char *t; (t = va_arg(ap, const char *)) != NULL; i++) {
		const char *v = va_arg(ap, const char *);

		assert_true(i < e->n);
		assert_string_equal(e->v[i].type, t);
		assert_int_equal(e->v[i].len, strlen(v));
		assert_memory_equal(e->v[i].val, v, e->v[i].len);
	}
	va_end(ap);
	assert_int_equal(e->n, i);
}

static void test_person(void **state)
{
	static const char rdn[] = "uid=user42";
	struct ldb_entry *e = fresh(MAXV, sizeof fx.text);

	(void)state;
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_PERSON, rdn, 3, rdn + 4, 6), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "cn", "user42", "sn", "user42", "uid", "user42", NULL);
	/* the type is copied (rdn[3] is '='); the values point into the RDN */
	assert_ptr_equal(e->v[4].type, fx.text);
	assert_ptr_equal(e->v[2].val, rdn + 4);
	assert_int_equal(e->used, 4);

	/* a NUL-terminated type is used as it is: no text */
	static const char attr[] = "uid";
	e = fresh(MAXV, 0);
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_PERSON, attr, 3, "x", 1), 0);
	assert_ptr_equal(e->v[4].type, attr);

	/* cn or sn as the RDN, any case: not a third time */
	e = fresh(MAXV, 0);
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_PERSON, "SN", 2, "bob", 3), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "cn", "bob", "sn", "bob", NULL);
}

static void test_inetorgperson(void **state)
{
	static const char rdn[] = "cn=bob,dc=x";
	struct ldb_entry *e = fresh(MAXV, 0);

	(void)state;
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_INETORGPERSON, rdn, 2, rdn + 3, 3), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "objectClass", "organizationalPerson", "objectClass",
	       "inetOrgPerson", "cn", "bob", "sn", "bob", NULL);
}

static void test_emailperson(void **state)
{
	static const char rdn[] = "uid=user42";
	struct ldb_entry *e = fresh(MAXV, sizeof fx.text);

	(void)state;
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_EMAILPERSON, rdn, 3, rdn + 4, 6), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "objectClass", "organizationalPerson", "objectClass",
	       "inetOrgPerson", "cn", "user42", "sn", "user42", "uid", "user42", "mail", "user42@example.com", NULL);
	assert_int_equal(e->used, 4 + strlen("user42@example.com"));

	/* a value with '@' is the address itself */
	e = fresh(MAXV, sizeof fx.text);
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_EMAILPERSON, "cn", 2, "a@b.c", 5), 0);
	assert_int_equal(e->n, 7);
	expect(e, "objectClass", "top", "objectClass", "person", "objectClass", "organizationalPerson", "objectClass",
	       "inetOrgPerson", "cn", "a@b.c", "sn", "a@b.c", "mail", "a@b.c", NULL);
	/* mail as the RDN: once */
	e = fresh(MAXV, sizeof fx.text);
	assert_int_equal(ldb_entry_class(e, LDB_ENTRY_EMAILPERSON, "mail", 4, "x@y", 3), 0);
	assert_int_equal(e->n, 7);
	assert_string_equal(e->v[6].type, "mail");
	assert_int_equal(e->used, 0);
}

static void test_class_refusals(void **state)
{
	(void)state;
	assert_int_equal(ldb_entry_class(fresh(MAXV, 0), 0, "cn", 2, "x", 1), -1);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 0), 4, "cn", 2, "x", 1), -1);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 0), LDB_ENTRY_PERSON, "", 0, "x", 1), -1);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 0), LDB_ENTRY_PERSON, NULL, 0, "x", 1), -1);
	/* too few values: 4 for a person with a third attribute */
	assert_int_equal(ldb_entry_class(fresh(4, 0), LDB_ENTRY_PERSON, "cn", 2, "x", 1), 0);
	assert_int_equal(ldb_entry_class(fresh(4, 0), LDB_ENTRY_PERSON, "uid", 3, "x", 1), -1);
	/* no text for the type copy, or for the mail */
	assert_int_equal(ldb_entry_class(fresh(MAXV, 0), LDB_ENTRY_PERSON, "uid=x", 3, "x", 1), -1);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 4), LDB_ENTRY_PERSON, "uid=x", 3, "x", 1), 0);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 13), LDB_ENTRY_EMAILPERSON, "cn", 2, "x", 1), 0);
	assert_int_equal(ldb_entry_class(fresh(MAXV, 12), LDB_ENTRY_EMAILPERSON, "cn", 2, "x", 1), -1);
	/* the class entries fit LDB_ENTRY_CLASS_MAX */
	assert_int_equal(
	        ldb_entry_class(fresh(LDB_ENTRY_CLASS_MAX, sizeof fx.text), LDB_ENTRY_EMAILPERSON, "uid=u", 3, "u", 1),
	        0);
}

static void tmpl_put(struct ldb_obj_entry *t, const char *type, const char *val)
{
	t->v[t->n++] = (struct ldb_obj_value){ type, val, strlen(val) };
}

static void test_add_entry(void **state)
{
	static const char rdn[] = "uid=u7";
	struct ldb_obj_entry t = { .rdn = rdn, .rdn_len = 6 };
	struct ldb_entry *e;

	(void)state;
	/* no template: the class entry */
	e = fresh(MAXV, sizeof fx.text);
	assert_int_equal(ldb_entry_add(e, LDB_ENTRY_PERSON, NULL, rdn, 3, rdn + 4, 2), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "cn", "u7", "sn", "u7", "uid", "u7", NULL);

	/* a template without the RDN's value: it is added last */
	tmpl_put(&t, "objectclass", "top");
	tmpl_put(&t, "objectclass", "person");
	tmpl_put(&t, "sn", "x7");
	tmpl_put(&t, "uid", "other");
	e = fresh(MAXV, sizeof fx.text);
	assert_int_equal(ldb_entry_add(e, LDB_ENTRY_PERSON, &t, rdn, 3, rdn + 4, 2), 0);
	expect(e, "objectclass", "top", "objectclass", "person", "sn", "x7", "uid", "other", "uid", "u7", NULL);
	assert_ptr_equal(e->v[4].type, fx.text);

	/* with it (type in another case): nothing more, no text */
	tmpl_put(&t, "UID", "u7");
	e = fresh(MAXV, 0);
	assert_int_equal(ldb_entry_add(e, LDB_ENTRY_PERSON, &t, rdn, 3, rdn + 4, 2), 0);
	assert_int_equal(e->n, 5);
	assert_string_equal(e->v[4].type, "UID");

	/* refusals: no room for the values, no text for the RDN type, no type */
	t.n = 4;
	assert_int_equal(ldb_entry_add(fresh(4, sizeof fx.text), 0, &t, rdn, 3, rdn + 4, 2), -1);
	assert_int_equal(ldb_entry_add(fresh(MAXV, 3), 0, &t, rdn, 3, rdn + 4, 2), -1);
	assert_int_equal(ldb_entry_add(fresh(MAXV, sizeof fx.text), 0, &t, "=u7", 0, "u7", 2), -1);
	assert_int_equal(ldb_entry_add(fresh(MAXV, sizeof fx.text), 0, NULL, rdn, 3, rdn + 4, 2), -1);
}

static void test_containers(void **state)
{
	struct ldb_entry *e;

	(void)state;
	e = fresh(LDB_ENTRY_CONTAINER_MAX, 0);
	assert_int_equal(ldb_entry_container(e, "ou", 2, "People", 6), 0);
	expect(e, "objectClass", "top", "objectClass", "organizationalUnit", "ou", "People", NULL);
	e = fresh(LDB_ENTRY_CONTAINER_MAX, 0);
	assert_int_equal(ldb_entry_container(e, "O", 1, "Acme", 4), 0);
	expect(e, "objectClass", "top", "objectClass", "organization", "o", "Acme", NULL);
	e = fresh(LDB_ENTRY_CONTAINER_MAX, 0);
	assert_int_equal(ldb_entry_container(e, "cn", 2, "admins", 6), 0);
	expect(e, "objectClass", "top", "objectClass", "organizationalRole", "cn", "admins", NULL);
	e = fresh(LDB_ENTRY_CONTAINER_MAX, 0);
	assert_int_equal(ldb_entry_container(e, "DC=example", 2, "example", 7), 0);
	expect(e, "objectClass", "top", "objectClass", "dcObject", "objectClass", "organization", "dc", "example", "o",
	       "example", NULL);
	assert_int_equal(e->n, LDB_ENTRY_CONTAINER_MAX);
	e = fresh(LDB_ENTRY_CONTAINER_MAX, 0);
	assert_int_equal(ldb_entry_container(e, "l", 1, "Paris", 5), 0);
	expect(e, "objectClass", "top", "objectClass", "locality", "l", "Paris", NULL);
	/* the types are static: the value points to the caller's */
	assert_int_equal(e->used, 0);

	/* no shape for other types, an empty value, or too few values */
	assert_int_equal(ldb_entry_container(fresh(MAXV, 0), "uid", 3, "x", 1), -1);
	assert_int_equal(ldb_entry_container(fresh(MAXV, 0), "oux", 3, "x", 1), -1);
	assert_int_equal(ldb_entry_container(fresh(MAXV, 0), "ou", 2, "", 0), -1);
	assert_int_equal(ldb_entry_container(fresh(4, 0), "dc", 2, "x", 1), -1);
}

static void test_user(void **state)
{
	struct ldb_entry *e = fresh(MAXV, sizeof fx.text);

	(void)state;
	assert_int_equal(ldb_entry_user(e, "user00042", 9, "example.com", 11, "{SSHA}abc", 9), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "objectClass", "organizationalPerson", "objectClass",
	       "inetOrgPerson", "uid", "user00042", "cn", "user00042", "sn", "user00042", "givenName", "user00042",
	       "mail", "user00042@example.com", "userPassword", "{SSHA}abc", NULL);
	assert_int_equal(e->used, 21);
	assert_int_equal(ldb_entry_user(fresh(MAXV, 20), "user00042", 9, "example.com", 11, "pw", 2), -1);
	assert_int_equal(ldb_entry_user(fresh(9, sizeof fx.text), "u", 1, "d", 1, "pw", 2), -1);
}

static void test_tree_leaf(void **state)
{
	struct ldb_entry *e = fresh(MAXV, sizeof fx.text);

	(void)state;
	assert_int_equal(ldb_entry_tree_leaf(e, "entry00007", 10, "example.com", 11, 7, 3), 0);
	expect(e, "objectClass", "top", "objectClass", "person", "objectClass", "organizationalPerson", "objectClass",
	       "inetOrgPerson", "cn", "entry00007", "sn", "entry00007", "uid", "entry00007", "mail",
	       "entry00007@example.com", "telephoneNumber", "+1 555 0000007", "description", "tree entry 7 at level 3",
	       NULL);
	/* the number modulo 10^7 in the telephone number, whole in the description */
	e = fresh(MAXV, sizeof fx.text);
	assert_int_equal(ldb_entry_tree_leaf(e, "e", 1, "d", 1, 123456789012ULL, 32), 0);
	assert_memory_equal(e->v[8].val, "+1 555 6789012", e->v[8].len);
	assert_int_equal(e->v[9].len, strlen("tree entry 123456789012 at level 32"));
	assert_memory_equal(e->v[9].val, "tree entry 123456789012 at level 32", e->v[9].len);
	/* the text it needs fits LDB_ENTRY_TREE_LEAF_TEXT beyond the mail */
	e = fresh(MAXV, 1 + 1 + 1 + LDB_ENTRY_TREE_LEAF_TEXT);
	assert_int_equal(ldb_entry_tree_leaf(e, "e", 1, "d", 1, UINT64_MAX, 32), 0);
	assert_int_equal(ldb_entry_tree_leaf(fresh(MAXV, 30), "e", 1, "d", 1, 1, 1), -1);
}

static void test_group(void **state)
{
	struct ldb_entry *e = fresh(3, 0);

	(void)state;
	assert_int_equal(ldb_entry_group(e, 1, "G-1", 3), 0);
	expect(e, "objectClass", "top", "objectClass", "groupOfUniqueNames", "cn", "G-1", NULL);
	ldb_entry_reset(e);
	assert_int_equal(ldb_entry_group(e, 0, "G-2", 3), 0);
	expect(e, "objectClass", "top", "objectClass", "groupOfNames", "cn", "G-2", NULL);
	assert_int_equal(ldb_entry_group(fresh(2, 0), 0, "G", 1), -1);
}

static void test_put_and_text(void **state)
{
	struct ldb_entry *e = fresh(2, 10);

	(void)state;
	assert_int_equal(ldb_entry_put(e, "a", "1", 1), 0);
	assert_int_equal(ldb_entry_put(e, "b", "2", 1), 0);
	assert_int_equal(ldb_entry_put(e, "c", "3", 1), -1);
	assert_int_equal(e->n, 2);
	assert_ptr_equal(ldb_entry_text(e, 6), fx.text);
	assert_ptr_equal(ldb_entry_text(e, 4), fx.text + 6);
	assert_null(ldb_entry_text(e, 1));
	ldb_entry_reset(e);
	assert_int_equal(e->n, 0);
	assert_ptr_equal(ldb_entry_text(e, 10), fx.text);
	/* no text storage at all */
	ldb_entry_init(e, fx.v, 2, NULL, 99);
	assert_null(ldb_entry_text(e, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_person),      cmocka_unit_test(test_inetorgperson),
		cmocka_unit_test(test_emailperson), cmocka_unit_test(test_class_refusals),
		cmocka_unit_test(test_add_entry),   cmocka_unit_test(test_containers),
		cmocka_unit_test(test_user),        cmocka_unit_test(test_tree_leaf),
		cmocka_unit_test(test_group),       cmocka_unit_test(test_put_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
