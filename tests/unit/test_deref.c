/* proto/deref: the -e deref search (template + Controls) byte for byte as
 * libldap sends it with ldap_create_deref_control (not critical); the
 * dereferenced values counted in hand-built entries (libldap's own response
 * parser agrees), and nothing counted in entries cut short, without controls
 * or with another control.  Also -e v2's bind against libldap's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lber.h>
#include <ldap.h>

#include "proto/deref.h"
#include "proto/wire.h"
#include "ldap_capture.h"

static void test_request_control(void **state)
{
	struct ldap_capture *r = *state;
	char cn[] = "cn", sec[] = "secretary";
	char *attrs[] = { cn, NULL };
	LDAPDerefSpec ds[2] = { { sec, attrs }, { NULL, NULL } };
	LDAPControl *ctl = NULL, *ctls[2] = { NULL, NULL };
	struct ldb_search_args a = { .base = "dc=x", .scope = LDAP_SCOPE_SUBTREE, .filter = "(cn=a)" };
	struct ldb_bytes op = { 0 };
	char err[LDB_WIRE_ERRLEN];
	int msgid = -1;

	assert_int_equal(ldap_create_deref_control(r->ld, ds, 0, &ctl), LDAP_SUCCESS);
	ctls[0] = ctl;
	assert_int_equal(ldap_search_ext(r->ld, a.base, a.scope, a.filter, NULL, 0, ctls, NULL, NULL, 0, &msgid),
	                 LDAP_SUCCESS);
	ldap_control_free(ctl);
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), 0);
	assert_int_equal(ldb_deref_encode_controls(&op, "secretary", "cn", err), 0);
	size_t m = ldb_wire_frame(r->mine, BIG, msgid, op.data, op.len);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "search with the deref control");
	ldb_bytes_free(&op);
}

static void test_bind_v2(void **state)
{
	struct ldap_capture *r = *state;
	char pwtext[] = "pw";
	struct berval pw = { 2, pwtext };
	struct ldb_bytes op = { 0 };
	char err[LDB_WIRE_ERRLEN];
	int v2 = LDAP_VERSION2, v3 = LDAP_VERSION3, msgid = -1;

	assert_int_equal(ldap_set_option(r->ld, LDAP_OPT_PROTOCOL_VERSION, &v2), LDAP_OPT_SUCCESS);
	assert_int_equal(ldap_sasl_bind(r->ld, "cn=a", LDAP_SASL_SIMPLE, &pw, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldap_set_option(r->ld, LDAP_OPT_PROTOCOL_VERSION, &v3), LDAP_OPT_SUCCESS);
	assert_int_equal(ldb_wire_encode_bind_simple_v(&op, 2, "cn=a", "pw", 2, err), 0);
	size_t m = ldb_wire_frame(r->mine, BIG, msgid, op.data, op.len);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "LDAPv2 bind");
	ldb_bytes_free(&op);
}

/* A SearchResultEntry for cn=e with a control of `oid` whose DerefRes are
 * nres values of secretary (none: no controls at all). */
static struct berval *entry(const char *oid, int nres)
{
	BerElement *v = ber_alloc_t(LBER_USE_DER), *m = ber_alloc_t(LBER_USE_DER);
	struct berval val = { 0, NULL }, *out = NULL;

	assert_int_equal(ber_printf(v, "{") == -1, 0);
	for (int i = 0; i < nres; i++)
		assert_int_equal(
		        ber_printf(v, "{sst{{s[s]}}}", "secretary", "cn=s,dc=x", (ber_tag_t)0xa0, "cn", "s") == -1, 0);
	assert_int_equal(ber_printf(v, "}") == -1, 0);
	assert_int_equal(ber_flatten2(v, &val, 0), 0);
	assert_int_equal(ber_printf(m, "{it{s{}}", 7, (ber_tag_t)LDAP_RES_SEARCH_ENTRY, "cn=e,dc=x") == -1, 0);
	if (oid != NULL)
		assert_int_equal(ber_printf(m, "t{{sO}}", (ber_tag_t)0xa0, oid, &val) == -1, 0);
	assert_int_equal(ber_printf(m, "}") == -1, 0);
	assert_int_equal(ber_flatten(m, &out), 0);
	ber_free(v, 1);
	ber_free(m, 1);
	return out;
}

/* libldap's parser counts the same DerefRes in the same control value. */
static int libldap_count(int nres)
{
	BerElement *v = ber_alloc_t(LBER_USE_DER);
	struct berval val = { 0, NULL };
	char oid[] = LDB_DEREF_OID;
	LDAPControl ctl = { oid, { 0, NULL }, 0 };
	LDAPDerefRes *dr = NULL;
	int n = 0;

	assert_int_equal(ber_printf(v, "{") == -1, 0);
	for (int i = 0; i < nres; i++)
		assert_int_equal(
		        ber_printf(v, "{sst{{s[s]}}}", "secretary", "cn=s,dc=x", (ber_tag_t)0xa0, "cn", "s") == -1, 0);
	assert_int_equal(ber_printf(v, "}") == -1, 0);
	assert_int_equal(ber_flatten2(v, &val, 0), 0);
	ctl.ldctl_value = val;
	LDAP *ld = NULL;
	assert_int_equal(ldap_initialize(&ld, "ldap://127.0.0.1"), LDAP_SUCCESS);
	assert_int_equal(ldap_parse_derefresponse_control(ld, &ctl, &dr), LDAP_SUCCESS);
	for (LDAPDerefRes *p = dr; p != NULL; p = p->next)
		n++;
	ldap_derefresponse_free(dr);
	ldap_unbind_ext(ld, NULL, NULL);
	ber_free(v, 1);
	return n;
}

static void test_response_count(void **state)
{
	(void)state;
	for (int nres = 0; nres <= 3; nres++) {
		struct berval *e = entry(LDB_DEREF_OID, nres);
		const uint8_t *b = (const uint8_t *)e->bv_val;

		assert_int_equal(ldb_deref_count(b, e->bv_len), nres);
		if (nres > 0)
			assert_int_equal(libldap_count(nres), nres);
		/* cut short anywhere: nothing counted, nothing read outside */
		for (size_t k = 0; k < e->bv_len; k++) {
			uint8_t *cut = malloc(k ? k : 1);
			memcpy(cut, b, k);
			assert_true(ldb_deref_count(cut, k) <= (uint64_t)nres);
			free(cut);
		}
		ber_bvfree(e);
	}
	struct berval *none = entry(NULL, 0), *other = entry("1.2.3.4", 2);
	assert_int_equal(ldb_deref_count((const uint8_t *)none->bv_val, none->bv_len), 0);
	assert_int_equal(ldb_deref_count((const uint8_t *)other->bv_val, other->bv_len), 0);
	ber_bvfree(none);
	ber_bvfree(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_control),
		cmocka_unit_test(test_bind_v2),
		cmocka_unit_test(test_response_count),
	};

	return cmocka_run_group_tests(tests, ldap_capture_setup, ldap_capture_teardown);
}
