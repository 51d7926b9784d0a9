/* proto/syncctl: the listeners' search (the Sync Request control, mode
 * refreshAndPersist; the persistent search control, changesOnly), and the
 * readers of what a server sends, on messages liblber builds: an entry's DN
 * and one attribute's first value, the change of its Sync State control or
 * entry change notification, the Sync Info message's refreshDone (TRUE,
 * FALSE, absent: its default), and nothing read from messages cut short. */
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

#include "proto/syncctl.h"
#include "proto/wire.h"

static struct berval *flat(BerElement *ber)
{
	struct berval *bv = NULL;
	assert_int_equal(ber_flatten(ber, &bv), 0);
	ber_free(ber, 1);
	return bv;
}

/* A SearchResultEntry for dn with description=val and one control. */
static struct berval *entry(const char *dn, const char *val, const char *oid, struct berval *cv)
{
	BerElement *b = ber_alloc_t(LBER_USE_DER);
	assert_int_not_equal(
	        ber_printf(b, "{it{s{{s[s]}}}", 7, (ber_tag_t)LDAP_RES_SEARCH_ENTRY, dn, "Description", val), -1);
	if (oid != NULL)
		assert_int_not_equal(ber_printf(b, "t{{sO}}", (ber_tag_t)LDAP_TAG_CONTROLS, oid, cv), -1);
	assert_int_not_equal(ber_printf(b, "N}"), -1);
	return flat(b);
}

static struct berval *state_value(int state)
{
	BerElement *b = ber_alloc_t(LBER_USE_DER);
	assert_int_not_equal(ber_printf(b, "{eo}", (ber_int_t)state, "0123456789abcdef", (ber_len_t)16), -1);
	return flat(b);
}

static void test_request(void **state)
{
	(void)state;
	struct ldb_bytes op = { 0 }, ctl = { 0 };
	char err[LDB_WIRE_ERRLEN];
	const char *attrs[] = { "description", NULL };
	static const uint8_t persist[] = { 0x30, 0x03, 0x0a, 0x01, 0x03 };
	static const uint8_t changes[] = { 0x30, 0x09, 0x02, 0x01, 0x0f, 0x01, 0x01, 0xff, 0x01, 0x01, 0xff };
	assert_int_equal(ldb_listen_encode(&op, &ctl, false, "ou=x", "(objectClass=*)", attrs, err), 0);
	assert_true(op.len > 0 && op.data[0] == 0x63); /* SearchRequest */
	assert_non_null(memmem(ctl.data, ctl.len, LDB_SYNC_REQUEST_OID, strlen(LDB_SYNC_REQUEST_OID)));
	assert_non_null(memmem(ctl.data, ctl.len, persist, sizeof persist));
	assert_non_null(memmem(ctl.data, ctl.len, "\x01\x01\xff", 3)); /* critical */
	ldb_bytes_free(&op);
	ldb_bytes_free(&ctl);
	assert_int_equal(ldb_listen_encode(&op, &ctl, true, "ou=x", "(objectClass=*)", attrs, err), 0);
	assert_non_null(memmem(ctl.data, ctl.len, LDB_PSEARCH_OID, strlen(LDB_PSEARCH_OID)));
	assert_non_null(memmem(ctl.data, ctl.len, changes, sizeof changes));
	ldb_bytes_free(&op);
	ldb_bytes_free(&ctl);
	assert_int_equal(ldb_listen_encode(&op, &ctl, false, "ou=x", "(objectClass=*", attrs, err), -1);
	ldb_bytes_free(&op);
	ldb_bytes_free(&ctl);
}

static void test_entry(void **state)
{
	(void)state;
	struct berval *sv = state_value(2), *e = entry("uid=u1,ou=x", "m42", LDB_SYNC_STATE_OID, sv);
	struct ldb_resp r;
	size_t need;
	assert_int_equal(ldb_wire_parse((const uint8_t *)e->bv_val, e->bv_len, &r, &need), 1);
	const uint8_t *dn, *v;
	size_t dl, vl;
	assert_true(ldb_entry_dn_value(r.body, r.bodylen, "description", 11, &dn, &dl, &v, &vl));
	assert_int_equal(dl, 11);
	assert_memory_equal(dn, "uid=u1,ou=x", 11);
	assert_int_equal(vl, 3);
	assert_memory_equal(v, "m42", 3);
	assert_true(ldb_entry_dn_value(r.body, r.bodylen, "cn", 2, &dn, &dl, &v, &vl));
	assert_null(v);
	assert_int_equal(ldb_entry_change((const uint8_t *)e->bv_val, r.len), LDB_CHG_MODIFY);
	/* the hot path's: from the controls on */
	const uint8_t *end = (const uint8_t *)e->bv_val + r.len;
	assert_int_equal(ldb_entry_change_ctls(r.body + r.bodylen, end, NULL, NULL), LDB_CHG_MODIFY);
	assert_int_equal(ldb_entry_change_ctls(end, end, NULL, NULL), LDB_CHG_NONE);
	for (const uint8_t *cut = r.body + r.bodylen; cut < end; cut++) /* cut short: safe, nothing read */
		assert_int_equal(ldb_entry_change_ctls(r.body + r.bodylen, cut, NULL, NULL), LDB_CHG_NONE);
	/* the attribute's name in another case (the server's spelling) */
	assert_true(ldb_entry_dn_value(r.body, r.bodylen, "DESCRIPTION", 11, &dn, &dl, &v, &vl));
	assert_int_equal(vl, 3);
	assert_memory_equal(v, "m42", 3);
	/* cut short: not well formed, nothing read */
	for (size_t n = 1; n < r.bodylen; n += 3)
		(void)ldb_entry_dn_value(r.body, n, "description", 11, &dn, &dl, &v, &vl);
	assert_false(ldb_entry_dn_value(r.body, 3, "description", 11, &dn, &dl, &v, &vl));
	ber_bvfree(e);
	ber_bvfree(sv);
	for (int s = 0; s <= 3; s++) {
		static const int want[] = { LDB_CHG_PRESENT, LDB_CHG_ADD, LDB_CHG_MODIFY, LDB_CHG_DELETE };
		sv = state_value(s);
		e = entry("uid=u1,ou=x", "v", LDB_SYNC_STATE_OID, sv);
		assert_int_equal(ldb_entry_change((const uint8_t *)e->bv_val, e->bv_len), want[s]);
		ber_bvfree(e);
		ber_bvfree(sv);
	}
	e = entry("uid=u1,ou=x", "v", NULL, NULL);
	assert_int_equal(ldb_entry_change((const uint8_t *)e->bv_val, e->bv_len), LDB_CHG_NONE);
	ber_bvfree(e);
}

static void test_ecn(void **state)
{
	(void)state;
	static const int types[] = { 1, 2, 4, 8 };
	static const int want[] = { LDB_CHG_ADD, LDB_CHG_DELETE, LDB_CHG_MODIFY, LDB_CHG_MODDN };
	for (int i = 0; i < 4; i++) {
		BerElement *b = ber_alloc_t(LBER_USE_DER);
		assert_int_not_equal(ber_printf(b, "{e}", (ber_int_t)types[i]), -1);
		struct berval *cv = flat(b), *e = entry("uid=u1,ou=x", "v", LDB_ECN_OID, cv);
		assert_int_equal(ldb_entry_change((const uint8_t *)e->bv_val, e->bv_len), want[i]);
		struct ldb_resp r;
		size_t need;
		assert_int_equal(ldb_wire_parse((const uint8_t *)e->bv_val, e->bv_len, &r, &need), 1);
		assert_int_equal(
		        ldb_entry_change_ctls(r.body + r.bodylen, (const uint8_t *)e->bv_val + r.len, NULL, NULL),
		        want[i]);
		ber_bvfree(e);
		ber_bvfree(cv);
	}
}

/* An IntermediateResponse named oid with the value v (NULL: none). */
static struct berval *intermediate(const char *oid, struct berval *v)
{
	BerElement *b = ber_alloc_t(LBER_USE_DER);
	assert_int_not_equal(ber_printf(b, "{it{ts", 3, (ber_tag_t)LDAP_RES_INTERMEDIATE, (ber_tag_t)0x80, oid), -1);
	if (v != NULL)
		assert_int_not_equal(ber_printf(b, "tO", (ber_tag_t)0x81, v), -1);
	assert_int_not_equal(ber_printf(b, "N}N}"), -1);
	return flat(b);
}

static int info_done(const char *oid, const char *fmt, ...)
{
	BerElement *b = ber_alloc_t(LBER_USE_DER);
	va_list ap;
	va_start(ap, fmt);
	ber_tag_t tag = va_arg(ap, ber_tag_t);
	int arg = va_arg(ap, int); /* in order: a call's arguments are evaluated in any */
	va_end(ap);
	int rc = ber_printf(b, fmt, tag, arg);
	assert_int_not_equal(rc, -1);
	struct berval *v = flat(b), *m = intermediate(oid, v);
	struct ldb_resp r;
	size_t need;
	assert_int_equal(ldb_wire_parse((const uint8_t *)m->bv_val, m->bv_len, &r, &need), 1);
	assert_int_equal(r.op, 0x79);
	int done = ldb_sync_info_done(r.body, r.bodylen);
	ber_bvfree(m);
	ber_bvfree(v);
	return done;
}

static void test_sync_info(void **state)
{
	(void)state;
	assert_int_equal(info_done(LDB_SYNC_INFO_OID, "t{b}", (ber_tag_t)0xa2, 1), 1); /* refreshPresent, done */
	assert_int_equal(info_done(LDB_SYNC_INFO_OID, "t{b}", (ber_tag_t)0xa1, 0), 0); /* refreshDelete, not done */
	assert_int_equal(info_done(LDB_SYNC_INFO_OID, "t{}", (ber_tag_t)0xa2, 0), 1);  /* refreshDone absent: TRUE */
	assert_int_equal(info_done(LDB_SYNC_INFO_OID, "ti", (ber_tag_t)0x80, 5), 0);   /* newcookie */
	assert_int_equal(info_done("1.2.3.4", "t{b}", (ber_tag_t)0xa2, 1), -1);        /* another message */
	struct berval *m = intermediate(LDB_SYNC_INFO_OID, NULL);
	struct ldb_resp r;
	size_t need;
	assert_int_equal(ldb_wire_parse((const uint8_t *)m->bv_val, m->bv_len, &r, &need), 1);
	assert_int_equal(ldb_sync_info_done(r.body, r.bodylen), -1); /* no value */
	ber_bvfree(m);
}

/* Cookies: the Sync State control's, a Sync Info message's (newcookie,
 * refreshPresent's), none without one; the Sync Request control with a
 * cookie, the same as ldb_listen_encode's without one, and a long cookie
 * (a long DER length), none when it does not fit. */
static void test_cookie(void **state)
{
	(void)state;
	const uint8_t *ck;
	size_t n;
	BerElement *b = ber_alloc_t(LBER_USE_DER);
	assert_int_not_equal(
	        ber_printf(b, "{eoo}", (ber_int_t)2, "0123456789abcdef", (ber_len_t)16, "rid=1,csn=7", (ber_len_t)11),
	        -1);
	struct berval *sv = flat(b), *e = entry("uid=u1,ou=x", "v", LDB_SYNC_STATE_OID, sv);
	assert_true(ldb_sync_state_cookie((const uint8_t *)e->bv_val, e->bv_len, &ck, &n));
	assert_int_equal(n, 11);
	assert_memory_equal(ck, "rid=1,csn=7", 11);
	n = 99;
	assert_int_equal(ldb_entry_change_cookie((const uint8_t *)e->bv_val, e->bv_len, &ck, &n), LDB_CHG_MODIFY);
	assert_int_equal(n, 11);
	assert_memory_equal(ck, "rid=1,csn=7", 11);
	ber_bvfree(e);
	ber_bvfree(sv);
	sv = state_value(1); /* no cookie */
	e = entry("uid=u1,ou=x", "v", LDB_SYNC_STATE_OID, sv);
	assert_false(ldb_sync_state_cookie((const uint8_t *)e->bv_val, e->bv_len, &ck, &n));
	assert_int_equal(ldb_entry_change_cookie((const uint8_t *)e->bv_val, e->bv_len, &ck, &n), LDB_CHG_ADD);
	assert_int_equal(n, 0);
	ber_bvfree(e);
	ber_bvfree(sv);
	static const char *const fmt[] = { "to", "t{ob}", "t{b}" };
	static const ber_tag_t tag[] = { 0x80, 0xa2, 0xa2 };
	for (int i = 0; i < 3; i++) {
		b = ber_alloc_t(LBER_USE_DER);
		int rc = i == 2   ? ber_printf(b, fmt[i], tag[i], 1)
		         : i == 1 ? ber_printf(b, fmt[i], tag[i], "ck", (ber_len_t)2, 1)
		                  : ber_printf(b, fmt[i], tag[i], "ck", (ber_len_t)2);
		assert_int_not_equal(rc, -1);
		struct berval *v = flat(b), *m = intermediate(LDB_SYNC_INFO_OID, v);
		struct ldb_resp r;
		size_t need;
		assert_int_equal(ldb_wire_parse((const uint8_t *)m->bv_val, m->bv_len, &r, &need), 1);
		bool has = ldb_sync_info_cookie(r.body, r.bodylen, &ck, &n);
		assert_int_equal(has, i < 2);
		if (has) {
			assert_int_equal(n, 2);
			assert_memory_equal(ck, "ck", 2);
		}
		ber_bvfree(m);
		ber_bvfree(v);
	}
	struct ldb_bytes op = { 0 }, ctl = { 0 };
	char err[LDB_WIRE_ERRLEN];
	const char *attrs[] = { "description", NULL };
	assert_int_equal(ldb_listen_encode(&op, &ctl, false, "ou=x", "(objectClass=*)", attrs, err), 0);
	uint8_t out[600], cookie[300];
	assert_int_equal(ldb_sync_request_cookie(out, sizeof out, NULL, 0), ctl.len);
	assert_memory_equal(out, ctl.data, ctl.len);
	memset(cookie, 'c', sizeof cookie);
	size_t len = ldb_sync_request_cookie(out, sizeof out, cookie, sizeof cookie);
	assert_true(len > sizeof cookie);
	assert_non_null(memmem(out, len, cookie, sizeof cookie));
	assert_int_equal(ldb_sync_request_cookie(out, 100, cookie, sizeof cookie), 0);
	BerElement *rb = ber_init(&(struct berval){ len, (char *)out });
	char *oid = NULL;
	struct berval val = { 0 };
	ber_int_t crit = 0, mode = 0;
	assert_int_not_equal(ber_scanf(rb, "{abm}", &oid, &crit, &val), LBER_ERROR);
	assert_string_equal(oid, LDB_SYNC_REQUEST_OID);
	assert_true(crit != 0);
	BerElement *vb = ber_init(&val);
	struct berval got = { 0 };
	assert_int_not_equal(ber_scanf(vb, "{eo}", &mode, &got), LBER_ERROR);
	assert_int_equal(got.bv_len, sizeof cookie);
	ber_memfree(got.bv_val);
	assert_int_equal(mode, 3);
	ber_memfree(oid);
	ber_free(vb, 1);
	ber_free(rb, 1);
	ldb_bytes_free(&op);
	ldb_bytes_free(&ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),   cmocka_unit_test(test_entry),  cmocka_unit_test(test_ecn),
		cmocka_unit_test(test_sync_info), cmocka_unit_test(test_cookie),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
