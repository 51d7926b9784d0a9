/* proto/controls: requests with controls byte for byte as libldap sends them
 * (a search with sort, assertion, proxied authorization v2 and a generic
 * control; a modify with pre-read and post-read; a second message after the
 * first; a message already holding -e deref's controls), the OID check, and
 * the response controls read back (sort result, pre/post-read entries) and
 * refused safely when cut short. */
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

#include "proto/controls.h"
#include "proto/deref.h"
#include "proto/wire.h"
#include "ldap_capture.h"

static LDAPControl *make(const char *oid, int crit, const void *val, size_t len, int has)
{
	LDAPControl *c = NULL;
	struct berval v = { len, (char *)val };
	assert_int_equal(ldap_control_create(oid, crit, has ? &v : NULL, 1, &c), LDAP_SUCCESS);
	return c;
}

static void test_oid(void **state)
{
	(void)state;
	assert_true(ldb_ctl_oid_valid("1.2.840.113556.1.4.473", 22));
	assert_true(ldb_ctl_oid_valid("0.0", 3));
	assert_false(ldb_ctl_oid_valid("1", 1));
	assert_false(ldb_ctl_oid_valid("1..2", 4));
	assert_false(ldb_ctl_oid_valid("1.02", 4));
	assert_false(ldb_ctl_oid_valid("1.2.", 4));
	assert_false(ldb_ctl_oid_valid("1.2a", 4));
	assert_false(ldb_ctl_oid_valid("", 0));
}

/* A search with sort (-cn:caseIgnoreOrderingMatch, sn), an assertion, a
 * generic critical control with a value and proxied authorization. */
static void test_search_controls(void **state)
{
	struct ldap_capture *r = *state;
	char cn[] = "cn", rule[] = "caseIgnoreOrderingMatch", sn[] = "sn", af[] = "(sn=x)";
	LDAPSortKey k1 = { cn, rule, 1 }, k2 = { sn, NULL, 0 }, *keys[] = { &k1, &k2, NULL };
	LDAPControl *ctls[5] = { NULL };
	struct ldb_search_args a = { .base = "dc=x", .scope = LDAP_SCOPE_SUBTREE, .filter = "(cn=a)" };
	struct ldb_bytes op = { 0 }, fixed = { 0 };
	char err[LDB_WIRE_ERRLEN];
	const char *id = "dn:uid=user00042,ou=People,dc=example,dc=com";
	int msgid = -1;

	assert_int_equal(ldap_create_sort_control(r->ld, keys, 0, &ctls[0]), LDAP_SUCCESS);
	assert_int_equal(ldap_create_assertion_control(r->ld, af, 1, &ctls[1]), LDAP_SUCCESS);
	ctls[2] = make("1.2.3.4", 1, "abc", 3, 1);
	ctls[3] = make(LDB_CTL_PROXY_OID, 1, id, strlen(id), 1);
	assert_int_equal(ldap_search_ext(r->ld, a.base, a.scope, a.filter, NULL, 0, ctls, NULL, NULL, 0, &msgid),
	                 LDAP_SUCCESS);
	for (int i = 0; i < 4; i++)
		ldap_control_free(ctls[i]);
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), 0);
	assert_int_equal(ldb_ctl_encode_sort(&fixed, "-cn:caseIgnoreOrderingMatch,+sn", err), 0);
	assert_int_equal(ldb_ctl_encode_assertion(&fixed, "(sn=x)", err), 0);
	assert_int_equal(ldb_ctl_encode(&fixed, "1.2.3.4", true, (const uint8_t *)"abc", 3, true, err), 0);
	size_t m = ldb_wire_frame(r->mine, BIG, msgid, op.data, op.len);
	size_t room = m + fixed.len + ldb_ctl_proxy_len(strlen(id)) + LDB_CTL_GROWTH;
	assert_int_equal(ldb_ctl_append(r->mine, m, room - 1 - LDB_CTL_GROWTH, fixed.data, fixed.len, id, strlen(id)),
	                 0); /* one byte short */
	m = ldb_wire_frame(r->mine, BIG, msgid, op.data, op.len);
	m = ldb_ctl_append(r->mine, m, room, fixed.data, fixed.len, id, strlen(id));
	assert_true(m > 0);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "search with four controls");
	ldb_bytes_free(&op);
	ldb_bytes_free(&fixed);
}

/* A modify with pre-read (cn) and post-read (cn, sn), then a delete framed
 * after it in the same buffer: both get the controls. */
static void test_two_messages(void **state)
{
	struct ldap_capture *r = *state;
	static const uint8_t pre[] = { 0x30, 0x04, 0x04, 0x02, 'c', 'n' };
	static const uint8_t post[] = { 0x30, 0x08, 0x04, 0x02, 'c', 'n', 0x04, 0x02, 's', 'n' };
	LDAPControl *ctls[3] = { make(LDB_CTL_PREREAD_OID, 1, pre, sizeof pre, 1),
		                 make(LDB_CTL_POSTREAD_OID, 1, post, sizeof post, 1), NULL };
	char sn[] = "sn", v[] = "y";
	char *vals[] = { v, NULL };
	LDAPMod mod = { LDAP_MOD_REPLACE, sn, { vals } }, *mods[] = { &mod, NULL };
	struct ldb_bytes fixed = { 0 };
	struct ldb_put_mod pm = { LDB_MOD_REPLACE, "sn", "y", 1 };
	char err[LDB_WIRE_ERRLEN];
	int id1 = -1, id2 = -1;

	assert_int_equal(ldap_modify_ext(r->ld, "cn=a,dc=x", mods, ctls, NULL, &id1), LDAP_SUCCESS);
	assert_int_equal(ldap_delete_ext(r->ld, "cn=b,dc=x", ctls, NULL, &id2), LDAP_SUCCESS);
	ldap_control_free(ctls[0]);
	ldap_control_free(ctls[1]);
	assert_int_equal(ldb_ctl_encode_read(&fixed, false, "cn", err), 0);
	assert_int_equal(ldb_ctl_encode_read(&fixed, true, "cn,sn", err), 0);
	size_t m = ldb_wire_put_modify(r->mine, BIG, id1, "cn=a,dc=x", 9, &pm, 1);
	m += ldb_wire_put_delete(r->mine + m, BIG - m, id2, "cn=b,dc=x", 9);
	m = ldb_ctl_append(r->mine, m, BIG, fixed.data, fixed.len, NULL, 0);
	assert_true(m > 0);
	r->msgid = id1;
	ldap_capture_expect(r, m, "modify and delete with pre-read and post-read");
	ldb_bytes_free(&fixed);
}

/* -e deref's template already holds [0] Controls: the new ones join them. */
static void test_merge_deref(void **state)
{
	struct ldap_capture *r = *state;
	char cn[] = "cn", sec[] = "secretary";
	char *attrs[] = { cn, NULL };
	LDAPDerefSpec ds[2] = { { sec, attrs }, { NULL, NULL } };
	LDAPControl *ctls[3] = { NULL };
	struct ldb_search_args a = { .base = "dc=x", .scope = LDAP_SCOPE_SUBTREE, .filter = "(cn=a)" };
	struct ldb_bytes op = { 0 }, fixed = { 0 };
	char err[LDB_WIRE_ERRLEN];
	int msgid = -1;

	assert_int_equal(ldap_create_deref_control(r->ld, ds, 0, &ctls[0]), LDAP_SUCCESS);
	ctls[1] = make(LDB_CTL_MANAGEDSAIT_OID, 0, NULL, 0, 0);
	assert_int_equal(ldap_search_ext(r->ld, a.base, a.scope, a.filter, NULL, 0, ctls, NULL, NULL, 0, &msgid),
	                 LDAP_SUCCESS);
	ldap_control_free(ctls[0]);
	ldap_control_free(ctls[1]);
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), 0);
	assert_int_equal(ldb_deref_encode_controls(&op, "secretary", "cn", err), 0);
	assert_int_equal(ldb_ctl_encode(&fixed, LDB_CTL_MANAGEDSAIT_OID, false, NULL, 0, false, err), 0);
	size_t m = ldb_wire_frame(r->mine, BIG, msgid, op.data, op.len);
	m = ldb_ctl_append(r->mine, m, BIG, fixed.data, fixed.len, NULL, 0);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "search with deref and ManageDsaIT");
	ldb_bytes_free(&op);
	ldb_bytes_free(&fixed);
}

/* A long request (its envelope's length field grows from one byte to three). */
static void test_long_request(void **state)
{
	struct ldap_capture *r = *state;
	static char big[300];
	LDAPControl *ctls[2] = { NULL, NULL };
	struct ldb_bytes fixed = { 0 };
	char err[LDB_WIRE_ERRLEN];
	int msgid = -1;

	memset(big, 'v', sizeof big);
	ctls[0] = make("1.2.3.4", 0, big, sizeof big, 1);
	assert_int_equal(ldap_delete_ext(r->ld, "cn=b,dc=x", ctls, NULL, &msgid), LDAP_SUCCESS);
	ldap_control_free(ctls[0]);
	assert_int_equal(ldb_ctl_encode(&fixed, "1.2.3.4", false, (const uint8_t *)big, sizeof big, true, err), 0);
	size_t m = ldb_wire_put_delete(r->mine, BIG, msgid, "cn=b,dc=x", 9);
	m = ldb_ctl_append(r->mine, m, BIG, fixed.data, fixed.len, NULL, 0);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "delete with a 300-byte control value");
	ldb_bytes_free(&fixed);
}

/* Responses: a SearchResultDone with a sort response (code 0, then 18), a
 * ModifyResponse with a post-read entry; every cut-short prefix refused. */
static void test_responses(void **state)
{
	(void)state;
	uint8_t msg[256];
	const uint8_t *v;
	size_t vlen;
	char err[LDB_WIRE_ERRLEN];
	struct ldb_bytes b = { 0 };

	/* built with our encoder: a control whose value is a SortResult of 18 */
	static const uint8_t sortres[] = { 0x30, 0x03, 0x0a, 0x01, 0x12 };
	static const uint8_t rdone[] = { 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00 };
	assert_int_equal(ldb_ctl_encode(&b, LDB_CTL_SORT_RESP_OID, false, sortres, sizeof sortres, true, err), 0);
	size_t n = ldb_wire_frame(msg, sizeof msg, 5, rdone, sizeof rdone);
	n = ldb_ctl_append(msg, n, sizeof msg, b.data, b.len, NULL, 0);
	assert_true(n > 0);
	assert_true(ldb_ctl_find(msg, n, LDB_CTL_SORT_RESP_OID, &v, &vlen));
	assert_int_equal(ldb_ctl_sort_result(v, vlen), 18);
	assert_false(ldb_ctl_find(msg, n, LDB_CTL_PREREAD_OID, &v, &vlen));
	for (size_t cut = 0; cut < n; cut++)
		assert_false(ldb_ctl_find(msg, cut, LDB_CTL_SORT_RESP_OID, &v, &vlen));
	ldb_bytes_free(&b);

	/* a post-read entry: SearchResultEntry { "cn=a", { { "cn", { "a" } } } } */
	static const uint8_t entry[] = { 0x64, 0x13, 0x04, 0x04, 'c', 'n',  '=',  'a',  0x30, 0x0b, 0x30,
		                         0x09, 0x04, 0x02, 'c',  'n', 0x31, 0x03, 0x04, 0x01, 'a' };
	static const uint8_t rmod[] = { 0x67, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00 };
	assert_int_equal(ldb_ctl_encode(&b, LDB_CTL_POSTREAD_OID, false, entry, sizeof entry, true, err), 0);
	n = ldb_wire_frame(msg, sizeof msg, 6, rmod, sizeof rmod);
	n = ldb_ctl_append(msg, n, sizeof msg, b.data, b.len, NULL, 0);
	assert_true(ldb_ctl_find(msg, n, LDB_CTL_POSTREAD_OID, &v, &vlen));
	assert_true(ldb_ctl_read_entry(v, vlen));
	assert_false(ldb_ctl_read_entry(v, vlen - 1));
	assert_int_equal(ldb_ctl_sort_result(v, vlen), -1);
	ldb_bytes_free(&b);
}

static void test_encode_errors(void **state)
{
	(void)state;
	struct ldb_bytes b = { 0 };
	char err[LDB_WIRE_ERRLEN];
	assert_int_equal(ldb_ctl_encode_sort(&b, "", err), -1);
	assert_int_equal(ldb_ctl_encode_sort(&b, "cn,", err), -1);
	assert_int_equal(ldb_ctl_encode_sort(&b, "-", err), -1);
	assert_int_equal(ldb_ctl_encode_sort(&b, "cn:", err), -1);
	assert_int_equal(ldb_ctl_encode_assertion(&b, "(cn=x", err), -1);
	assert_int_equal(ldb_ctl_encode_read(&b, true, "cn,,sn", err), -1);
	ldb_bytes_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oid),           cmocka_unit_test(test_search_controls),
		cmocka_unit_test(test_two_messages),  cmocka_unit_test(test_merge_deref),
		cmocka_unit_test(test_long_request),  cmocka_unit_test(test_responses),
		cmocka_unit_test(test_encode_errors),
	};
	return cmocka_run_group_tests(tests, ldap_capture_setup, ldap_capture_teardown);
}
