/* wire: request encoders compared byte for byte with what libldap sends for the
 * same call (libldap writes into one end of a socketpair, we read the other),
 * ldb_wire_frame against liblber, and ldb_wire_parse on hand-built responses cut
 * at every byte, concatenated, corrupted and random. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>
#include <lber.h>
#include <ldap.h>
#include <openldap.h>

#include "proto/wire.h"
#include "ldap_capture.h"

/* ---- libldap as the reference client (ldap_capture.h) ---- */

/* libldap's message equals ldb_wire_frame(msgid, op); op is freed. */
static void expect_same(struct ldap_capture *r, int msgid, struct ldb_bytes *op)
{
	size_t m = ldb_wire_frame(r->mine, BIG, msgid, op->data, op->len);

	assert_true(m > 0);
	r->msgid = msgid;
	ldap_capture_expect(r, m, "framed request");
	ldb_bytes_free(op);
}

static char *repeat(char c, size_t n, const char *prefix, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	char *s = malloc(pl + n + sl + 1);

	assert_non_null(s);
	memcpy(s, prefix, pl);
	memset(s + pl, c, n);
	memcpy(s + pl + n, suffix, sl + 1);
	return s;
}

static void one_search(struct ldap_capture *r, const struct ldb_search_args *a)
{
	struct ldb_bytes op = { 0 };
	char err[LDB_WIRE_ERRLEN];
	struct timeval tv = { a->timelimit, 0 };
	int msgid = -1, deref = a->deref;

	assert_int_equal(ldap_set_option(r->ld, LDAP_OPT_DEREF, &deref), LDAP_OPT_SUCCESS);
	assert_int_equal(ldap_search_ext(r->ld, a->base, a->scope, a->filter, (char **)a->attrs, a->attrsonly, NULL,
	                                 NULL, a->timelimit > 0 ? &tv : NULL, a->sizelimit, &msgid),
	                 LDAP_SUCCESS);
	if (ldb_wire_encode_search(&op, a, err) != 0)
		fail_msg("filter %s: %s", a->filter, err);
	expect_same(r, msgid, &op);
}

static void test_search_filters(void **state)
{
	struct ldap_capture *r = *state;
	char *v200 = repeat('v', 200, "(description=", ")");
	char *v300 = repeat('w', 300, "(description=", "*)");
	char *v70k = repeat('x', 70000, "(description=", ")");
	char *s70k = repeat('y', 70000, "(cn=a*", "*z)");
	char *and_big, *p;
	const char *filters[] = {
		"(uid=user00042)",
		"uid=user00042",
		"(objectClass=*)",
		"objectclass=*",
		"(cn=Babs Jensen)",
		"(!(cn=Tim Howes))",
		"(&(objectClass=Person)(|(sn=Jensen)(cn=Babs J*)))",
		"(o=univ*of*mich*)",
		"(cn=*son)",
		"(cn=J*)",
		"(cn=*a*b*c*)",
		"(seeAlso=)",
		"(age>=21)",
		"(age<=65)",
		"(sn~=jensen)",
		"(cn:caseExactMatch:=Fred Flintstone)",
		"(cn:=Betty Rubble)",
		"(sn:dn:2.4.6.8.10:=Barney Rubble)",
		"(o:dn:=Ace Industry)",
		"(:1.2.3:=Wilma Flintstone)",
		"(:DN:2.4.6.8.10:=Dino)",
		"(o=Parens R Us \\28for all your parenthetical needs\\29)",
		"(cn=*\\2A*)",
		"(filename=C:\\5cMyFile)",
		"(bin=\\00\\00\\00\\04)",
		"(sn=Lu\\c4\\8di\\c4\\87)",
		"(1.3.6.1.4.1.1466.0=\\04\\02\\48\\69)",
		"(sn=Lu\xc4\x8di\xc4\x87)",
		"(cn;lang-en=x)",
		"(&)",
		"(|)",
		"(& (a=1) (b=2) )",
		"( ! (a=1))",
		"(a=\\*\\(\\)\\\\)",
		"(|(&(a=1)(!(b=2)))(c=*)(d>=4)(e:dn:=5))",
		"(!(!(!(!(uid=x)))))",
		"(uid=a b )",
		NULL,
	};
	const char *const attrs_some[] = { "cn", "sn", "mail", NULL };
	struct ldb_search_args a = { "dc=example,dc=com", LDB_SCOPE_SUB, 0, 0, 0, 0, NULL, NULL };
	size_t i, n = 0;

	for (i = 0; filters[i] != NULL; i++, n++) {
		a.filter = filters[i];
		one_search(r, &a);
	}
	/* values past 127, 255 and 65535 bytes: multi-byte lengths at every level */
	a.filter = v200;
	one_search(r, &a);
	a.filter = v300;
	one_search(r, &a);
	a.filter = v70k;
	one_search(r, &a);
	a.filter = s70k;
	a.attrs = attrs_some;
	one_search(r, &a);
	/* an AND with 5000 members (a SET longer than 65535 bytes) */
	and_big = malloc(5000 * 24 + 8);
	assert_non_null(and_big);
	p = and_big + sprintf(and_big, "(&");
	for (i = 0; i < 5000; i++)
		p += sprintf(p, "(uid=user%06zu)", i);
	strcpy(p, ")");
	a.filter = and_big;
	one_search(r, &a);
	n += 5;
	assert_true(n >= 30);
	free(v200);
	free(v300);
	free(v70k);
	free(s70k);
	free(and_big);
}

static void test_search_params(void **state)
{
	struct ldap_capture *r = *state;
	const char *const none[] = { NULL };
	const char *const some[] = { "cn", "uid", "objectClass", NULL };
	const char *const noattrs[] = { "1.1", NULL };
	const char *const all[] = { "*", NULL };
	const char *const allop[] = { "*", "+", NULL };
	const char *const *lists[] = { NULL, none, some, noattrs, all, allop };
	const char *bases[] = { "", "dc=example,dc=com", "uid=user1,ou=people,dc=example,dc=com" };
	struct ldb_search_args a = { 0 };
	int scope, li, k = 0;

	for (scope = 0; scope <= 2; scope++)
		for (li = 0; li < 6; li++, k++) {
			a.base = bases[k % 3];
			a.scope = scope;
			a.deref = k % 4;
			a.attrs = lists[li];
			a.attrsonly = k % 2;
			a.sizelimit = (k % 3 == 0) ? 0 : (k % 3 == 1 ? 1 : 100000);
			a.timelimit = (k % 4 == 0) ? 0 : (k % 4 == 1 ? 1 : 3600);
			a.filter = (k % 2) ? "(uid=user1)" : NULL; /* NULL: libldap's (objectclass=*) */
			one_search(r, &a);
		}
}

static void test_binds(void **state)
{
	struct ldap_capture *r = *state;
	struct ldb_bytes op = { 0 };
	struct berval empty = { 0, (char *)"" };
	char pwbin[] = { 's', 0, 'e', 'c', 'r', 'e', 't' };
	struct berval bin = { sizeof(pwbin), pwbin };
	char *longpw = repeat('p', 300, "", "");
	struct berval lpw = { 300, longpw };
	char plain[] = "\0user\0secret";
	struct berval pcred = { sizeof(plain) - 1, plain };
	int msgid;

	/* anonymous: NULL DN, empty password */
	assert_int_equal(ldap_sasl_bind(r->ld, NULL, LDAP_SASL_SIMPLE, &empty, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_bind_simple(&op, "", "", 0, NULL), 0);
	expect_same(r, msgid, &op);
	assert_int_equal(ldb_wire_encode_bind_simple(&op, NULL, NULL, 0, NULL), 0);
	assert_int_equal(op.len, 9); /* NULLs mean anonymous too */
	assert_memory_equal(op.data, "\x60\x07\x02\x01\x03\x04\x00\x80\x00", 9);
	ldb_bytes_free(&op);

	assert_int_equal(ldap_sasl_bind(r->ld, "cn=Directory Manager", LDAP_SASL_SIMPLE, &bin, NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_bind_simple(&op, "cn=Directory Manager", pwbin, sizeof(pwbin), NULL), 0);
	expect_same(r, msgid, &op);

	assert_int_equal(ldap_sasl_bind(r->ld, "uid=user00001,ou=people,dc=example,dc=com", LDAP_SASL_SIMPLE, &lpw,
	                                NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(
	        ldb_wire_encode_bind_simple(&op, "uid=user00001,ou=people,dc=example,dc=com", longpw, 300, NULL), 0);
	expect_same(r, msgid, &op);

	/* SASL: no credentials, credentials, empty credentials */
	assert_int_equal(ldap_sasl_bind(r->ld, NULL, "EXTERNAL", NULL, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_bind_sasl(&op, "", "EXTERNAL", NULL, 0, 0, NULL), 0);
	expect_same(r, msgid, &op);
	assert_int_equal(ldap_sasl_bind(r->ld, "", "PLAIN", &pcred, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(
	        ldb_wire_encode_bind_sasl(&op, NULL, "PLAIN", (const uint8_t *)plain, sizeof(plain) - 1, 1, NULL), 0);
	expect_same(r, msgid, &op);
	assert_int_equal(ldap_sasl_bind(r->ld, "cn=x", "DIGEST-MD5", &empty, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_bind_sasl(&op, "cn=x", "DIGEST-MD5", NULL, 0, 1, NULL), 0);
	expect_same(r, msgid, &op);
	free(longpw);
}

static void test_anonymous_bind_bytes(void **state)
{
	static const uint8_t want[] = { 0x30, 0x0c, 0x02, 0x01, 0x05, 0x60, 0x07,
		                        0x02, 0x01, 0x03, 0x04, 0x00, 0x80, 0x00 };
	struct ldb_bytes op = { 0 };
	uint8_t buf[64];
	size_t n;

	(void)state;
	assert_int_equal(ldb_wire_encode_bind_simple(&op, NULL, NULL, 0, NULL), 0);
	n = ldb_wire_frame(buf, sizeof(buf), 5, op.data, op.len);
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(buf, want, n);
	ldb_bytes_free(&op);
}

static LDAPMod *mk_mod(int op, const char *type, char **values)
{
	LDAPMod *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->mod_op = op;
	m->mod_type = (char *)type;
	m->mod_values = values;
	return m;
}

static void test_add_modify(void **state)
{
	struct ldap_capture *r = *state;
	struct ldb_bytes op = { 0 };
	static const char *oc[] = { "top", "person", "organizationalPerson", "inetOrgPerson", NULL };
	static const char *cn[] = { "user 1", NULL };
	static const char *sn[] = { "One", NULL };
	static const char *two[] = { "a", "b", NULL };
	char *bigv = repeat('d', 70000, "", "");
	const char *desc[] = { bigv, NULL };
	struct ldb_attr_values av[] = { { "objectClass", oc }, { "cn", cn }, { "sn", sn }, { "description", desc } };
	struct ldb_mod mods[] = {
		{ LDB_MOD_REPLACE, { "description", cn } },
		{ LDB_MOD_ADD, { "mail", two } },
		{ LDB_MOD_DELETE, { "telephoneNumber", NULL } },
		{ LDB_MOD_DELETE, { "mail", sn } },
		{ 3, { "uidNumber", sn } },
	};
	LDAPMod *lm[6], *owned[6];
	size_t i;
	int msgid;

	for (i = 0; i < 4; i++)
		owned[i] = lm[i] = mk_mod(LDAP_MOD_ADD, av[i].type, (char **)av[i].values);
	lm[4] = NULL;
	assert_int_equal(ldap_add_ext(r->ld, "uid=u1,ou=people,dc=example,dc=com", lm, NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_add(&op, "uid=u1,ou=people,dc=example,dc=com", av, 4, NULL), 0);
	expect_same(r, msgid, &op);
	/* small add (short lengths throughout) */
	lm[1] = NULL;
	assert_int_equal(ldap_add_ext(r->ld, "cn=x", lm, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_add(&op, "cn=x", av, 1, NULL), 0);
	expect_same(r, msgid, &op);
	for (i = 0; i < 4; i++)
		free(owned[i]);

	for (i = 0; i < 5; i++)
		lm[i] = mk_mod(mods[i].op, mods[i].av.type, (char **)mods[i].av.values);
	lm[5] = NULL;
	assert_int_equal(ldap_modify_ext(r->ld, "uid=u1,ou=people,dc=example,dc=com", lm, NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_modify(&op, "uid=u1,ou=people,dc=example,dc=com", mods, 5, NULL), 0);
	expect_same(r, msgid, &op);
	for (i = 0; i < 5; i++)
		free(lm[i]);
	free(bigv);
}

static void test_delete_rename_compare_extended_unbind(void **state)
{
	struct ldap_capture *r = *state;
	struct ldb_bytes op = { 0 };
	uint8_t pm[] = { 0x30, 0x05, 0x80, 0x03, 'u', 'i', 'd' };
	struct berval pmv = { sizeof(pm), (char *)pm }, ev = { 0, (char *)"" }, cv = { 6, (char *)"user 1" };
	int msgid, i;

	assert_int_equal(ldap_delete_ext(r->ld, "uid=u1,ou=people,dc=example,dc=com", NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_delete(&op, "uid=u1,ou=people,dc=example,dc=com", NULL), 0);
	expect_same(r, msgid, &op);

	for (i = 0; i < 4; i++) {
		const char *sup = (i & 1) ? "ou=moved,dc=example,dc=com" : NULL;

		assert_int_equal(ldap_rename(r->ld, "uid=u1,ou=people,dc=example,dc=com", "uid=u2", sup, i >> 1, NULL,
		                             NULL, &msgid),
		                 LDAP_SUCCESS);
		assert_int_equal(
		        ldb_wire_encode_modrdn(&op, "uid=u1,ou=people,dc=example,dc=com", "uid=u2", i >> 1, sup, NULL),
		        0);
		expect_same(r, msgid, &op);
	}

	assert_int_equal(ldap_compare_ext(r->ld, "uid=u1,ou=people,dc=example,dc=com", "cn", &cv, NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_compare(&op, "uid=u1,ou=people,dc=example,dc=com", "cn", "user 1", NULL), 0);
	expect_same(r, msgid, &op);

	assert_int_equal(ldap_extended_operation(r->ld, LDAP_EXOP_WHO_AM_I, NULL, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_extended(&op, LDAP_EXOP_WHO_AM_I, NULL, 0, 0, NULL), 0);
	expect_same(r, msgid, &op);
	assert_int_equal(ldap_extended_operation(r->ld, LDAP_EXOP_MODIFY_PASSWD, &pmv, NULL, NULL, &msgid),
	                 LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_extended(&op, LDAP_EXOP_MODIFY_PASSWD, pm, sizeof(pm), 1, NULL), 0);
	expect_same(r, msgid, &op);
	assert_int_equal(ldap_extended_operation(r->ld, "1.2.3.4", &ev, NULL, NULL, &msgid), LDAP_SUCCESS);
	assert_int_equal(ldb_wire_encode_extended(&op, "1.2.3.4", NULL, 0, 1, NULL), 0);
	expect_same(r, msgid, &op);

	/* unbind takes the next message id */
	assert_int_equal(ldap_unbind_ext(r->ld, NULL, NULL), LDAP_SUCCESS);
	r->ld = NULL;
	assert_int_equal(ldb_wire_encode_unbind(&op, NULL), 0);
	expect_same(r, msgid + 1, &op);
}

/* Message ids 1..300 as libldap numbers them: one- and two-byte INTEGERs,
 * and 128/256 which need a leading zero or a second byte. */
static void test_msgid_sequence(void **state)
{
	struct ldap_capture *r = *state;
	struct ldb_bytes op = { 0 };
	int i, msgid, last = 0;

	for (i = 0; i < 300; i++) {
		assert_int_equal(ldap_delete_ext(r->ld, "cn=x", NULL, NULL, &msgid), LDAP_SUCCESS);
		assert_true(msgid > last);
		last = msgid;
		assert_int_equal(ldb_wire_encode_delete(&op, "cn=x", NULL), 0);
		expect_same(r, msgid, &op);
	}
	assert_true(last >= 300);
}

/* ---- ldb_wire_frame against liblber ---- */

static void test_frame_vs_liblber(void **state)
{
	static const int32_t ids[] = { 0,         1,     127,   128,     255,     256,      32767,
		                       32768,     65535, 65536, 8388607, 8388608, 16777215, 16777216,
		                       INT32_MAX, -1,    -128,  -129,    -32768,  -32769,   INT32_MIN };
	static const size_t dnlens[] = { 0,     1,     100,   118,   119,   120,      121,     122,
		                         123,   124,   125,   250,   251,   252,      253,     254,
		                         255,   256,   65520, 65525, 65526, 65527,    65528,   65529,
		                         65530, 65531, 65535, 65536, 70000, 16777200, 16777216 };
	size_t ii, di;
	uint8_t *buf = malloc(16777216 + 64);

	(void)state;
	assert_non_null(buf);
	for (di = 0; di < sizeof(dnlens) / sizeof(dnlens[0]); di++) {
		char *dn = repeat('d', dnlens[di], "", "");
		struct ldb_bytes op = { 0 };

		assert_int_equal(ldb_wire_encode_delete(&op, dn, NULL), 0);
		for (ii = 0; ii < sizeof(ids) / sizeof(ids[0]); ii++) {
			BerElement *ber;
			struct berval *bv = NULL;
			size_t n;

			if (dnlens[di] > 70000 && ii > 2)
				break; /* the big ones with a few ids is enough */
			ber = ber_alloc_t(LBER_USE_DER);
			assert_non_null(ber);
			assert_int_not_equal(ber_printf(ber, "{its}", (ber_int_t)ids[ii], LDAP_REQ_DELETE, dn), -1);
			assert_int_equal(ber_flatten(ber, &bv), 0);
			n = ldb_wire_frame(buf, 16777216 + 64, ids[ii], op.data, op.len);
			assert_int_equal(n, bv->bv_len);
			assert_memory_equal(buf, bv->bv_val, n);
			assert_true(n <= op.len + LDB_WIRE_ENVELOPE_MAX);
			/* one byte short: nothing written, 0 returned */
			assert_int_equal(ldb_wire_frame(buf, n - 1, ids[ii], op.data, op.len), 0);
			ber_bvfree(bv);
			ber_free(ber, 1);
		}
		ldb_bytes_free(&op);
		free(dn);
	}
	free(buf);
}

static void test_frame_in_place(void **state)
{
	struct ldb_bytes op = { 0 };
	uint8_t buf[256], want[256];
	size_t n, m;

	(void)state;
	assert_int_equal(ldb_wire_encode_delete(&op, "cn=in place,dc=example", NULL), 0);
	n = ldb_wire_frame(want, sizeof(want), 70000, op.data, op.len);
	assert_true(n > 0);
	/* the op already sits where the envelope ends: no copy needed, result identical */
	memcpy(buf + LDB_WIRE_ENVELOPE_MAX, op.data, op.len);
	m = ldb_wire_frame(buf, sizeof(buf), 70000, buf + LDB_WIRE_ENVELOPE_MAX, op.len);
	assert_int_equal(m, n);
	assert_memory_equal(buf, want, n);
	assert_int_equal(ldb_wire_frame(NULL, 10, 1, op.data, op.len), 0);
	assert_int_equal(ldb_wire_frame(buf, sizeof(buf), 1, NULL, 3), 0);
	ldb_bytes_free(&op);
}

/* ---- encoders: argument errors, append semantics ---- */

static void test_encoder_errors(void **state)
{
	struct ldb_bytes op = { 0 };
	char err[LDB_WIRE_ERRLEN];
	struct ldb_search_args a = { "dc=x", LDB_SCOPE_SUB, 0, 0, 0, 0, "(uid=a", NULL };
	const char *const badattrs[] = { "cn", "", NULL };
	struct ldb_mod badmod = { 7, { "cn", NULL } };

	(void)state;
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), -1);
	assert_string_equal(err, "bad filter '(uid=a': missing ')'");
	assert_int_equal(op.len, 0);
	a.filter = "(uid=a)";
	a.scope = 9;
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), -1);
	assert_non_null(strstr(err, "scope"));
	a.scope = LDB_SCOPE_ONE;
	a.sizelimit = -1;
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), -1);
	a.sizelimit = 0;
	a.attrs = badattrs;
	assert_int_equal(ldb_wire_encode_search(&op, &a, err), -1);
	assert_int_equal(ldb_wire_encode_search(&op, NULL, err), -1);
	assert_int_equal(ldb_wire_encode_modify(&op, "cn=x", &badmod, 1, err), -1);
	assert_non_null(strstr(err, "modify"));
	assert_int_equal(ldb_wire_encode_bind_sasl(&op, "", "", NULL, 0, 0, err), -1);
	assert_int_equal(ldb_wire_encode_extended(&op, NULL, NULL, 0, 0, err), -1);
	assert_int_equal(ldb_wire_encode_compare(&op, "cn=x", "", "v", err), -1);
	assert_int_equal(ldb_wire_encode_delete(&op, NULL, err), -1);
	assert_int_equal(ldb_wire_encode_add(&op, "cn=x", NULL, 2, err), -1);
	assert_int_equal(op.len, 0);
	assert_null(op.data);
	assert_int_equal(ldb_wire_encode_delete(&op, NULL, NULL), -1); /* err may be NULL */

	/* encoders append */
	assert_int_equal(ldb_wire_encode_unbind(&op, err), 0);
	assert_int_equal(ldb_wire_encode_delete(&op, "cn=a", err), 0);
	assert_int_equal(op.len, 2 + 6);
	assert_memory_equal(op.data,
	                    "\x42\x00\x4a\x04"
	                    "cn=a",
	                    8);
	ldb_bytes_free(&op);
	ldb_bytes_free(&op); /* twice is harmless */
}

/* ---- ldb_wire_parse ---- */

struct msg {
	uint8_t *p;
	size_t n;
	int32_t msgid;
	uint8_t op;
	int result;
};

static struct msg mk_result(int32_t msgid, ber_tag_t tag, int code, const char *text)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	struct berval *bv;
	struct msg m;

	assert_non_null(ber);
	assert_int_not_equal(ber_printf(ber, "{it{ess}}", (ber_int_t)msgid, tag, (ber_int_t)code, "", text), -1);
	assert_int_equal(ber_flatten(ber, &bv), 0);
	m.p = malloc(bv->bv_len);
	assert_non_null(m.p);
	memcpy(m.p, bv->bv_val, bv->bv_len);
	m.n = bv->bv_len;
	m.msgid = msgid;
	m.op = (uint8_t)tag;
	m.result = code;
	ber_bvfree(bv);
	ber_free(ber, 1);
	return m;
}

static struct msg mk_entry(int32_t msgid, const char *dn, size_t vlen)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	char *v = repeat('e', vlen, "", "");
	struct berval *bv;
	struct msg m;

	assert_non_null(ber);
	assert_int_not_equal(ber_printf(ber, "{it{s{{s[ss]}}}}", (ber_int_t)msgid, LDAP_RES_SEARCH_ENTRY, dn,
	                                "description", v, "second"),
	                     -1);
	assert_int_equal(ber_flatten(ber, &bv), 0);
	m.p = malloc(bv->bv_len);
	assert_non_null(m.p);
	memcpy(m.p, bv->bv_val, bv->bv_len);
	m.n = bv->bv_len;
	m.msgid = msgid;
	m.op = 0x64;
	m.result = -1;
	ber_bvfree(bv);
	ber_free(ber, 1);
	free(v);
	return m;
}

static void check_whole(const struct msg *m)
{
	struct ldb_resp r;
	size_t need = 12345;

	assert_int_equal(ldb_wire_parse(m->p, m->n, &r, &need), 1);
	assert_int_equal(need, m->n);
	assert_int_equal(r.msgid, m->msgid);
	assert_int_equal(r.op, m->op);
	assert_int_equal(r.result, m->result);
	assert_int_equal(r.len, m->n);
	assert_true(r.body > m->p && r.body + r.bodylen <= m->p + m->n);
}

/* Every prefix is incomplete; need is 0 until the header is in, then the total. */
static void check_splits(const struct msg *m)
{
	struct ldb_resp r;
	size_t k, need, hdr;

	hdr = (m->p[1] < 0x80) ? 2 : 2 + (m->p[1] & 0x7f);
	for (k = 0; k < m->n; k++) {
		need = 99;
		assert_int_equal(ldb_wire_parse(m->p, k, &r, &need), 0);
		assert_int_equal(need, k < hdr ? 0 : m->n);
	}
}

static void test_parse_hand_built(void **state)
{
	/* search result done, msgid 2, success: by hand */
	static uint8_t done[] = { 0x30, 0x0c, 0x02, 0x01, 0x02, 0x65, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00 };
	/* bind response 49 with msgid 300 and a long-form outer length (0x81) */
	static uint8_t bind49[] = { 0x30, 0x81, 0x0d, 0x02, 0x02, 0x01, 0x2c, 0x61,
		                    0x07, 0x0a, 0x01, 0x31, 0x04, 0x00, 0x04, 0x00 };
	/* search result reference */
	static uint8_t ref[] = { 0x30, 0x19, 0x02, 0x01, 0x07, 0x73, 0x14, 0x04, 0x12, 'l', 'd', 'a', 'p', ':',
		                 '/',  '/',  'h',  'o',  's',  't',  '/',  'd',  'c',  '=', 'x', '?', '?' };
	/* result with controls after the op: [0] { control } */
	static uint8_t withctl[] = { 0x30, 0x16, 0x02, 0x01, 0x03, 0x65, 0x07, 0x0a, 0x01, 0x04, 0x04, 0x00,
		                     0x04, 0x00, 0xa0, 0x08, 0x30, 0x06, 0x04, 0x04, '1',  '.',  '2',  '3' };
	/* 4-byte long form length, 4-byte msgid, compare true */
	static uint8_t cmp[] = { 0x30, 0x84, 0x00, 0x00, 0x00, 0x0f, 0x02, 0x04, 0x7f, 0xff, 0xff,
		                 0xff, 0x6f, 0x07, 0x0a, 0x01, 0x06, 0x04, 0x00, 0x04, 0x00 };
	struct msg hb[] = {
		{ done, sizeof(done), 2, 0x65, 0 },       { bind49, sizeof(bind49), 300, 0x61, 49 },
		{ ref, sizeof(ref), 7, 0x73, -1 },        { withctl, sizeof(withctl), 3, 0x65, 4 },
		{ cmp, sizeof(cmp), INT32_MAX, 0x6f, 6 },
	};
	struct ldb_resp r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hb) / sizeof(hb[0]); i++) {
		check_whole(&hb[i]);
		check_splits(&hb[i]);
	}
	assert_int_equal(ldb_wire_parse(done, sizeof(done), &r, NULL), 1);
	assert_int_equal(r.bodylen, 7);
	assert_int_equal(r.body[0], 0x0a);
	assert_int_equal(ldb_wire_parse(withctl, sizeof(withctl), &r, NULL), 1);
	assert_int_equal(r.len, sizeof(withctl));
	assert_int_equal(r.bodylen, 7);
	/* a bigger buffer: only the first message is consumed */
	assert_int_equal(ldb_wire_parse(cmp, sizeof(cmp), &r, NULL), 1);
	assert_int_equal(ldb_wire_parse(NULL, 0, &r, NULL), 0);
}

static void test_parse_liblber_built(void **state)
{
	static const ber_tag_t results[] = { LDAP_RES_BIND,    LDAP_RES_SEARCH_RESULT, LDAP_RES_MODIFY,
		                             LDAP_RES_ADD,     LDAP_RES_DELETE,        LDAP_RES_MODDN,
		                             LDAP_RES_COMPARE, LDAP_RES_EXTENDED };
	static const int codes[] = { 0, 1, 32, 49, 68, 80, 127, 128, 4096, 65535 };
	static const int32_t ids[] = { 1, 127, 128, 255, 65536, INT32_MAX };
	struct msg all[200];
	size_t na = 0, i, j, total = 0, pos;
	uint8_t *cat;
	char *text = repeat('t', 300, "", "");
	struct ldb_resp r;

	(void)state;
	for (i = 0; i < 8; i++)
		all[na++] = mk_result(ids[i % 6], results[i], codes[i], i % 2 ? "" : text);
	for (i = 0; i < 10; i++)
		all[na++] = mk_result(ids[i % 6], LDAP_RES_SEARCH_RESULT, codes[i], "");
	all[na++] = mk_entry(5, "uid=u1,ou=people,dc=example,dc=com", 10);
	all[na++] = mk_entry(128, "uid=u2,ou=people,dc=example,dc=com", 200);
	all[na++] = mk_entry(70000, "uid=u3,ou=people,dc=example,dc=com", 70000);
	all[na++] = mk_entry(9, "", 17000000); /* 4-byte length */
	for (i = 0; i < na; i++) {
		check_whole(&all[i]);
		if (all[i].n < 100000)
			check_splits(&all[i]);
		total += all[i].n;
	}
	/* concatenated: each consumed in turn, whatever follows */
	cat = malloc(total);
	assert_non_null(cat);
	for (i = 0, pos = 0; i < na; i++) {
		memcpy(cat + pos, all[i].p, all[i].n);
		pos += all[i].n;
	}
	for (i = 0, pos = 0; i < na; i++) {
		assert_int_equal(ldb_wire_parse(cat + pos, total - pos, &r, NULL), 1);
		assert_int_equal(r.msgid, all[i].msgid);
		assert_int_equal(r.op, all[i].op);
		assert_int_equal(r.result, all[i].result);
		pos += r.len;
	}
	assert_int_equal(pos, total);
	/* the same stream fed in ragged chunks: a reader that keeps the tail */
	for (j = 1; j < 4; j++) {
		size_t have = 0, fed = 0, got = 0, need;
		int rc;

		pos = 0;
		while (got < na) {
			rc = ldb_wire_parse(cat + pos, have, &r, &need);
			assert_int_not_equal(rc, -1);
			if (rc == 1) {
				assert_int_equal(r.msgid, all[got].msgid);
				got++;
				pos += r.len;
				have -= r.len;
				continue;
			}
			/* feed 1, 7, 13 ... bytes at a time, or jump to need when known */
			{
				size_t add = (need > have && j == 3) ? need - have : 1 + 6 * (j - 1);

				if (add > total - fed)
					add = total - fed;
				assert_true(add > 0);
				have += add;
				fed += add;
			}
		}
	}
	for (i = 0; i < na; i++)
		free(all[i].p);
	free(cat);
	free(text);
}

static void test_parse_garbage(void **state)
{
	static const struct {
		const char *name;
		uint8_t b[24];
		size_t n;
	} bad[] = {
		{ "not a SEQUENCE", { 0x31, 0x03, 0x02, 0x01, 0x01 }, 5 },
		{ "first byte alone", { 0x04 }, 1 },
		{ "indefinite length", { 0x30, 0x80, 0x02, 0x01, 0x01, 0x42, 0x00, 0x00, 0x00 }, 9 },
		{ "5-byte length", { 0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x05 }, 7 },
		{ "0xff length", { 0x30, 0xff }, 2 },
		{ "empty message", { 0x30, 0x00 }, 2 },
		{ "msgid not INTEGER", { 0x30, 0x05, 0x04, 0x01, 0x01, 0x42, 0x00 }, 7 },
		{ "msgid empty", { 0x30, 0x04, 0x02, 0x00, 0x42, 0x00 }, 6 },
		{ "msgid negative", { 0x30, 0x05, 0x02, 0x01, 0xff, 0x42, 0x00 }, 7 },
		{ "msgid too long", { 0x30, 0x0a, 0x02, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x42, 0x00 }, 12 },
		{ "msgid over maxInt", { 0x30, 0x09, 0x02, 0x05, 0x00, 0x80, 0x00, 0x00, 0x00, 0x42, 0x00 }, 11 },
		{ "msgid past the end", { 0x30, 0x03, 0x02, 0x05, 0x01 }, 5 },
		{ "no protocolOp", { 0x30, 0x03, 0x02, 0x01, 0x01 }, 5 },
		{ "op longer than message", { 0x30, 0x07, 0x02, 0x01, 0x01, 0x65, 0x09, 0x0a, 0x01 }, 9 },
		{ "op multi-byte tag", { 0x30, 0x07, 0x02, 0x01, 0x01, 0x7f, 0x81, 0x01, 0x00 }, 9 },
		{ "result without code", { 0x30, 0x07, 0x02, 0x01, 0x01, 0x65, 0x02, 0x04, 0x00 }, 9 },
		{ "result code not ENUMERATED", { 0x30, 0x08, 0x02, 0x01, 0x01, 0x65, 0x03, 0x02, 0x01, 0x00 }, 10 },
		{ "result code past op", { 0x30, 0x08, 0x02, 0x01, 0x01, 0x65, 0x03, 0x0a, 0x02, 0x00, 0x00 }, 11 },
		{ "result code negative", { 0x30, 0x08, 0x02, 0x01, 0x01, 0x61, 0x03, 0x0a, 0x01, 0x80 }, 10 },
		{ "empty result body", { 0x30, 0x05, 0x02, 0x01, 0x01, 0x6f, 0x00 }, 7 },
	};
	struct ldb_resp r;
	size_t i, need;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = ldb_wire_parse(bad[i].b, bad[i].n, &r, &need);

		if (rc != -1)
			fail_msg("%s: parse returned %d, want -1", bad[i].name, rc);
	}
	/* but a search entry with an odd body is fine: only its envelope is checked */
	{
		static const uint8_t entry[] = { 0x30, 0x05, 0x02, 0x01, 0x01, 0x64, 0x00 };

		assert_int_equal(ldb_wire_parse(entry, sizeof(entry), &r, NULL), 1);
		assert_int_equal(r.result, -1);
		assert_int_equal(r.bodylen, 0);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return (uint32_t)(x >> 32);
}

/* Random and mutated buffers, each in an exactly-sized heap block so ASan sees
 * any read past the end; the answer must be consistent. */
static void test_parse_random(void **state)
{
	struct msg seeds[4];
	struct ldb_resp r;
	int it;

	(void)state;
	seeds[0] = mk_result(3, LDAP_RES_SEARCH_RESULT, 0, "ok");
	seeds[1] = mk_entry(200, "uid=x,dc=example", 150);
	seeds[2] = mk_result(70000, LDAP_RES_EXTENDED, 2, "protocol error");
	seeds[3] = mk_entry(1, "cn=y", 3);
	for (it = 0; it < 400000; it++) {
		size_t n, i, need = 7;
		uint8_t *b;
		int rc;

		if (it % 2) {
			const struct msg *s = &seeds[rnd() % 4];
			int k, flips = 1 + (int)(rnd() % 4);

			n = s->n;
			if (rnd() % 4 == 0)
				n = rnd() % (n + 1); /* truncated */
			b = malloc(n ? n : 1);
			assert_non_null(b);
			memcpy(b, s->p, n);
			for (k = 0; k < flips && n > 0; k++)
				b[rnd() % ((rnd() % 2 && n > 16) ? 16 : n)] = (uint8_t)rnd(); /* headers more often */
		} else {
			n = rnd() % 40;
			b = malloc(n ? n : 1);
			assert_non_null(b);
			for (i = 0; i < n; i++)
				b[i] = (uint8_t)rnd();
			if (n > 0 && rnd() % 2)
				b[0] = 0x30; /* get past the first check more often */
			if (n > 4 && rnd() % 2)
				b[2] = 0x02;
		}
		rc = ldb_wire_parse(b, n, &r, &need);
		assert_true(rc >= -1 && rc <= 1);
		if (rc == 1) {
			assert_true(r.len >= 7 && r.len <= n);
			assert_true(r.body >= b && r.body + r.bodylen <= b + r.len);
			assert_true(r.msgid >= 0);
			assert_true(r.result >= -1);
		} else if (rc == 0) {
			assert_true(need == 0 || need > n);
		}
		free(b);
	}
	for (it = 0; it < 4; it++)
		free(seeds[it].p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_search_filters, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_search_params, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_binds, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test(test_anonymous_bind_bytes),
		cmocka_unit_test_setup_teardown(test_add_modify, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_delete_rename_compare_extended_unbind, ldap_capture_setup,
		                                ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_msgid_sequence, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test(test_frame_vs_liblber),
		cmocka_unit_test(test_frame_in_place),
		cmocka_unit_test(test_encoder_errors),
		cmocka_unit_test(test_parse_hand_built),
		cmocka_unit_test(test_parse_liblber_built),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_parse_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
