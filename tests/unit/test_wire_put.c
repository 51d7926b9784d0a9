/* wire_put: the hot-path writers compared byte for byte with what libldap sends
 * for the same call (libldap writes into one end of a socketpair, we read the
 * other): adds with repeated types, modifies, deletes, renames and compares of
 * many shapes, extended requests (any OID, RFC 3062's password modify value),
 * message ids across every INTEGER length, and the cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <lber.h>
#include <ldap.h>
#include <openldap.h>

#include "proto/wire.h"
#include "ldap_capture.h"

static char *filled(char c, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *s = malloc(pl + n + 1);

	assert_non_null(s);
	memcpy(s, prefix, pl);
	memset(s + pl, c, n);
	s[pl + n] = '\0';
	return s;
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- add: libldap gets the values grouped the way the writer groups them ---- */

static void one_add(struct ldap_capture *r, const char *dn, const struct ldb_put_value *v, int n)
{
	LDAPMod mods[LDB_WIRE_PUT_MAX_VALUES], *lm[LDB_WIRE_PUT_MAX_VALUES + 1];
	struct berval bv[LDB_WIRE_PUT_MAX_VALUES];
	struct berval *bvp[2 * LDB_WIRE_PUT_MAX_VALUES];
	int used[LDB_WIRE_PUT_MAX_VALUES] = { 0 };
	int i, j, nm = 0, nb = 0;
	size_t m;

	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		mods[nm].mod_op = LDAP_MOD_ADD | LDAP_MOD_BVALUES;
		mods[nm].mod_type = (char *)v[i].type;
		mods[nm].mod_bvalues = &bvp[nb];
		for (j = i; j < n; j++)
			if (!used[j] && strcasecmp(v[j].type, v[i].type) == 0) {
				used[j] = 1;
				bv[j].bv_len = v[j].len;
				bv[j].bv_val = (char *)(v[j].val ? v[j].val : "");
				bvp[nb++] = &bv[j];
			}
		bvp[nb++] = NULL;
		lm[nm] = &mods[nm];
		nm++;
	}
	lm[nm] = NULL;
	assert_int_equal(ldap_add_ext(r->ld, dn, lm, NULL, NULL, &r->msgid), LDAP_SUCCESS);
	m = ldb_wire_put_add(r->mine, BIG, r->msgid, dn, strlen(dn), v, n);
	ldap_capture_expect(r, m, "add");
}

static void test_add_shapes(void **state)
{
	struct ldap_capture *r = *state;
	char *v200 = filled('d', 200, ""), *v70k = filled('e', 70000, "");
	char *dn200 = filled('x', 200, "cn="), *dn70k = filled('y', 70000, "cn=");
	struct ldb_put_value person[] = {
		{ "objectClass", "top", 3 },
		{ "cn", "user 1", 6 },
		{ "objectclass", "person", 6 },
		{ "sn", "", 0 },
		{ "OBJECTCLASS", "inetOrgPerson", 13 },
		{ "description", v200, 200 },
		{ "CN", "user one", 8 },
		{ "uid", "u1", 2 },
	};
	struct ldb_put_value bigv[] = {
		{ "objectClass", "top", 3 },
		{ "description", v70k, 70000 },
		{ "description", "short", 5 },
		{ "seeAlso", "", 0 },
	};
	struct ldb_put_value one[] = { { "cn", "x", 1 } };

	one_add(r, "uid=u1,ou=people,dc=example,dc=com", person, 8);
	one_add(r, "", person, 8);
	one_add(r, "", NULL, 0);
	one_add(r, "cn=x", NULL, 0);
	one_add(r, "cn=x", one, 1);
	one_add(r, dn200, person, 3);
	one_add(r, dn200, bigv, 4);
	one_add(r, dn70k, one, 1);
	one_add(r, dn70k, bigv, 4);
	one_add(r, "cn=x", bigv + 1, 1);
	free(v200);
	free(v70k);
	free(dn200);
	free(dn70k);
}

/* Lengths at every boundary of the length forms, sums that cross them, many
 * repeated types in several spellings. */
static void test_add_random_shapes(void **state)
{
	static const char *const types[] = {
		"objectClass", "objectclass", "OBJECTCLASS",     "cn",          "CN",          "sn", "mail",
		"Mail",        "description", "telephoneNumber", "x-a;lang-en", "X-A;LANG-EN", "o",
	};
	static const size_t lens[] = { 0, 1, 5, 60, 100, 126, 127, 128, 129, 200, 255, 256, 257, 1000, 4000 };
	static const size_t biglens[] = { 65534, 65535, 65536, 65537, 70000 };
	struct ldap_capture *r = *state;
	struct ldb_put_value v[64];
	char *pool = filled('v', 70016, ""), *dn = filled('d', 70000, "cn=");
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	int it, i, n;

	for (i = 0; i < 70016; i++)
		pool[i] = (char)(i * 7 % 251); /* any bytes, NULs included */

	for (it = 0; it < 400; it++) {
		size_t total = 0, dnlen;

		n = (int)(xs(&s) % 64);
		for (i = 0; i < n; i++) {
			v[i].type = types[xs(&s) % (sizeof(types) / sizeof(types[0]))];
			if (xs(&s) % 40 == 0 && total < 100000)
				v[i].len = biglens[xs(&s) % 5];
			else
				v[i].len = lens[xs(&s) % (sizeof(lens) / sizeof(lens[0]))];
			/* values differ in content too: start at varying places of a varied pool */
			v[i].val = pool + (xs(&s) % 16);
			total += v[i].len;
		}
		dnlen = (size_t)(xs(&s) % 300);
		if (it % 50 == 7)
			dnlen = 65533 + (size_t)(xs(&s) % 6);
		dn[dnlen + 3] = '\0';
		one_add(r, dn, v, n);
		dn[dnlen + 3] = 'd';
	}
	free(pool);
	free(dn);
}

/* ---- modify ---- */

static void one_modify(struct ldap_capture *r, const char *dn, const struct ldb_put_mod *pm, int n)
{
	LDAPMod mods[32], *lm[33];
	struct berval bv[32], *bvp[32][2];
	int i;
	size_t m;

	assert_true(n <= 32);
	for (i = 0; i < n; i++) {
		mods[i].mod_op = pm[i].op | LDAP_MOD_BVALUES;
		mods[i].mod_type = (char *)pm[i].type;
		if (pm[i].val != NULL) {
			bv[i].bv_len = pm[i].len;
			bv[i].bv_val = (char *)pm[i].val;
			bvp[i][0] = &bv[i];
			bvp[i][1] = NULL;
			mods[i].mod_bvalues = bvp[i];
		} else {
			mods[i].mod_bvalues = NULL;
		}
		lm[i] = &mods[i];
	}
	lm[n] = NULL;
	assert_int_equal(ldap_modify_ext(r->ld, dn, lm, NULL, NULL, &r->msgid), LDAP_SUCCESS);
	m = ldb_wire_put_modify(r->mine, BIG, r->msgid, dn, strlen(dn), pm, n);
	ldap_capture_expect(r, m, "modify");
}

static void test_modify_shapes(void **state)
{
	struct ldap_capture *r = *state;
	char *v200 = filled('d', 200, ""), *v70k = filled('e', 70000, "");
	char *dn200 = filled('x', 200, "cn="), *dn70k = filled('y', 70000, "cn=");
	struct ldb_put_mod mods[] = {
		{ LDB_MOD_REPLACE, "description", "new", 3 },
		{ LDB_MOD_ADD, "mail", "a@b", 3 },
		{ LDB_MOD_DELETE, "telephoneNumber", NULL, 0 },
		{ LDB_MOD_DELETE, "mail", "a@b", 3 },
		{ 3, "uidNumber", "1", 1 },
		{ LDB_MOD_REPLACE, "seeAlso", NULL, 0 },
		{ LDB_MOD_ADD, "description", "", 0 },
		{ LDB_MOD_REPLACE, "description", v200, 200 },
		{ LDB_MOD_REPLACE, "description", v70k, 70000 },
	};
	const char *dns[] = { "uid=u1,ou=people,dc=example,dc=com", "", dn200, dn70k };
	int d, i;

	for (d = 0; d < 4; d++) {
		for (i = 0; i < 9; i++)
			one_modify(r, dns[d], &mods[i], 1); /* each op alone, with and without a value */
		one_modify(r, dns[d], mods, 9);
		one_modify(r, dns[d], mods, 8);
		one_modify(r, dns[d], mods, 0);
	}
	free(v200);
	free(v70k);
	free(dn200);
	free(dn70k);
}

/* ---- delete, rename, compare ---- */

static void one_delete(struct ldap_capture *r, const char *dn)
{
	size_t m;

	assert_int_equal(ldap_delete_ext(r->ld, dn, NULL, NULL, &r->msgid), LDAP_SUCCESS);
	m = ldb_wire_put_delete(r->mine, BIG, r->msgid, dn, strlen(dn));
	ldap_capture_expect(r, m, "delete");
}

static void one_rename(struct ldap_capture *r, const char *dn, const char *rdn, int del, const char *sup)
{
	size_t m;

	assert_int_equal(ldap_rename(r->ld, dn, rdn, sup, del, NULL, NULL, &r->msgid), LDAP_SUCCESS);
	m = ldb_wire_put_modrdn(r->mine, BIG, r->msgid, dn, strlen(dn), rdn, strlen(rdn), del, sup,
	                        sup ? strlen(sup) : 0);
	ldap_capture_expect(r, m, "modrdn");
}

static void one_compare(struct ldap_capture *r, const char *dn, const char *attr, const char *val, size_t vlen)
{
	struct berval bv = { vlen, (char *)val };
	size_t m;

	assert_int_equal(ldap_compare_ext(r->ld, dn, attr, &bv, NULL, NULL, &r->msgid), LDAP_SUCCESS);
	m = ldb_wire_put_compare(r->mine, BIG, r->msgid, dn, strlen(dn), attr, val, vlen);
	ldap_capture_expect(r, m, "compare");
}

static void test_delete_rename_compare(void **state)
{
	struct ldap_capture *r = *state;
	char *s[8];
	const char *dns[10];
	static const size_t sizes[] = { 124, 125, 200, 252, 253, 65530, 65531, 70000 };
	char bin[] = { 'a', 0, 'b', (char)0xff };
	int i, j, k;

	/* DN contents of 127/128/255/256/65535/65536 bytes around the "cn=" */
	for (i = 0; i < 8; i++)
		s[i] = filled((char)('a' + i), sizes[i], "cn=");
	dns[0] = "";
	dns[1] = "uid=u1,ou=people,dc=example,dc=com";
	for (i = 0; i < 8; i++)
		dns[i + 2] = s[i];
	for (i = 0; i < 10; i++) {
		one_delete(r, dns[i]);
		one_compare(r, dns[i], "cn", "user 1", 6);
		one_compare(r, dns[i], "userPassword", bin, sizeof(bin));
		one_compare(r, "cn=x", "description", dns[i], strlen(dns[i]));
		one_compare(r, dns[i], "description", "", 0);
		for (k = 0; k < 2; k++) {
			one_rename(r, dns[i], "uid=u2", k, NULL);
			one_rename(r, dns[i], "uid=u2", k, "ou=moved,dc=example,dc=com");
			one_rename(r, dns[i], "uid=u2", k, "");
			one_rename(r, "cn=x", dns[i], k, NULL);
			one_rename(r, "cn=x", "cn=y", k, dns[i]);
			for (j = 0; j < 10; j += 3)
				one_rename(r, dns[i], dns[(i + 1) % 10], k, dns[j]);
		}
	}
	for (i = 0; i < 8; i++)
		free(s[i]);
}

/* ---- extended requests: any OID with no value or a value, and RFC 3062's
 * password modify value (as ldap_passwd builds it) ---- */

static void one_extended(struct ldap_capture *r, const char *oid, const char *val, size_t vlen)
{
	struct berval bv = { vlen, (char *)val };
	size_t m;

	assert_int_equal(ldap_extended_operation(r->ld, oid, val != NULL ? &bv : NULL, NULL, NULL, &r->msgid),
	                 LDAP_SUCCESS);
	m = ldb_wire_put_extended(r->mine, BIG, r->msgid, oid, strlen(oid), val, vlen);
	ldap_capture_expect(r, m, "extended");
}

static void one_passwd(struct ldap_capture *r, const char *user, const char *old, const char *new)
{
	struct berval bu = { user ? strlen(user) : 0, (char *)user }, bo = { old ? strlen(old) : 0, (char *)old },
	              bn = { new ? strlen(new) : 0, (char *)new };
	const char *v[3] = { user, old, new };
	size_t len[3] = { bu.bv_len, bo.bv_len, bn.bv_len };
	uint8_t value[200000];
	size_t n = ldb_wire_put_tagged_seq(value, sizeof value, v, len, 3), m;

	assert_true(n > 0);
	assert_int_equal(
	        ldap_passwd(r->ld, user ? &bu : NULL, old ? &bo : NULL, new ? &bn : NULL, NULL, NULL, &r->msgid),
	        LDAP_SUCCESS);
	m = ldb_wire_put_extended(r->mine, BIG, r->msgid, LDAP_EXOP_MODIFY_PASSWD, strlen(LDAP_EXOP_MODIFY_PASSWD),
	                          value, n);
	ldap_capture_expect(r, m, "password modify");
}

static void test_extended(void **state)
{
	struct ldap_capture *r = *state;
	static const size_t sizes[] = { 0, 1, 120, 127, 128, 255, 256, 65535, 65536, 70000 };
	char bin[] = { 'a', 0, 'b', (char)0xff };

	one_extended(r, LDAP_EXOP_WHO_AM_I, NULL, 0);
	one_extended(r, "1.2.3.4.5", "", 0);
	one_extended(r, "1.2.3.4.5", bin, sizeof bin);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *val = filled('v', sizes[i], "");
		char *dn = filled('d', sizes[i], "uid=");
		one_extended(r, "1.3.6.1.4.1.4203.1.11.3", val, sizes[i]);
		one_passwd(r, dn, NULL, NULL);
		one_passwd(r, NULL, val, "new");
		one_passwd(r, dn, "old", val);
		one_passwd(r, NULL, NULL, val);
		free(val);
		free(dn);
	}
	/* (with no field at all libldap sends no value; passmod always has newPasswd) */
	one_passwd(r, "", "", "");
}

/* ---- message ids ---- */

/* libldap counts 1, 2, ...: every writer in turn through 1..66000, which crosses
 * the 1/2/3-byte INTEGER boundaries (128, 256, 32768, 65536) on every kind. */
static void test_msgids_libldap(void **state)
{
	struct ldap_capture *r = *state;
	struct ldb_put_value v[] = { { "objectClass", "top", 3 }, { "cn", "x", 1 } };
	struct ldb_put_mod md = { LDB_MOD_REPLACE, "cn", "y", 1 };
	int i, last = 0;

	for (i = 0; i < 66000; i++) {
		switch (i % 5) {
		case 0: one_delete(r, "cn=x"); break;
		case 1: one_add(r, "cn=x", v, 2); break;
		case 2: one_modify(r, "cn=x", &md, 1); break;
		case 3: one_rename(r, "cn=x", "cn=y", i & 1, (i & 2) ? "o=z" : NULL); break;
		default: one_compare(r, "cn=x", "cn", "x", 1); break;
		}
		assert_int_equal(r->msgid, last + 1);
		last = r->msgid;
	}
	assert_true(last >= 66000);
}

/* Past what libldap reaches in a test: against ldb_wire_frame() around the
 * start-up encoders, which test_wire proves equal to libldap. */
static void test_msgids_vs_encoders(void **state)
{
	static const int32_t ids[] = {
		0,       1,        127,      128,           255,       256, 32767, 32768, 65535,  65536,  8388607,
		8388608, 16777215, 16777216, INT32_MAX - 1, INT32_MAX, -1,  -128,  -129,  -32768, -32769, INT32_MIN,
	};
	static const char *const oc[] = { "top", "person", NULL };
	static const char *const cn[] = { "x", NULL };
	struct ldb_attr_values av[] = { { "objectClass", oc }, { "cn", cn } };
	struct ldb_put_value pv[] = { { "objectClass", "top", 3 }, { "cn", "x", 1 }, { "objectclass", "person", 6 } };
	struct ldb_mod mods[] = { { LDB_MOD_DELETE, { "mail", NULL } } };
	struct ldb_put_mod pm[] = { { LDB_MOD_DELETE, "mail", NULL, 0 } };
	uint8_t a[512], b[512];
	size_t i, k, na, nb;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (k = 0; k < 5; k++) {
			struct ldb_bytes op = { 0 };

			switch (k) {
			case 0:
				assert_int_equal(ldb_wire_encode_add(&op, "cn=x", av, 2, NULL), 0);
				na = ldb_wire_put_add(a, sizeof(a), ids[i], "cn=x", 4, pv, 3);
				break;
			case 1:
				assert_int_equal(ldb_wire_encode_modify(&op, "cn=x", mods, 1, NULL), 0);
				na = ldb_wire_put_modify(a, sizeof(a), ids[i], "cn=x", 4, pm, 1);
				break;
			case 2:
				assert_int_equal(ldb_wire_encode_delete(&op, "cn=x", NULL), 0);
				na = ldb_wire_put_delete(a, sizeof(a), ids[i], "cn=x", 4);
				break;
			case 3:
				assert_int_equal(ldb_wire_encode_modrdn(&op, "cn=x", "cn=y", 1, "o=z", NULL), 0);
				na = ldb_wire_put_modrdn(a, sizeof(a), ids[i], "cn=x", 4, "cn=y", 4, 1, "o=z", 3);
				break;
			default:
				assert_int_equal(ldb_wire_encode_compare(&op, "cn=x", "cn", "x", NULL), 0);
				na = ldb_wire_put_compare(a, sizeof(a), ids[i], "cn=x", 4, "cn", "x", 1);
				break;
			}
			nb = ldb_wire_frame(b, sizeof(b), ids[i], op.data, op.len);
			ldb_bytes_free(&op);
			assert_true(nb > 0);
			assert_int_equal(na, nb);
			assert_memory_equal(a, b, na);
		}
	/* the 4-byte id of INT32_MAX on a delete, by hand */
	{
		static const uint8_t want[] = { 0x30, 0x0a, 0x02, 0x04, 0x7f, 0xff, 0xff, 0xff, 0x4a, 0x02, 'o', '=' };

		assert_int_equal(ldb_wire_put_delete(a, sizeof(a), INT32_MAX, "o=", 2), sizeof(want));
		assert_memory_equal(a, want, sizeof(want));
	}
}

/* ---- cap ---- */

/* With cap = size - 1: returns 0 and dst is untouched; with cap = size: size. */
static void check_cap(uint8_t *buf, size_t bufsz, size_t size, size_t (*call)(uint8_t *, size_t, const void *),
                      const void *arg)
{
	uint8_t *ref = malloc(bufsz);
	size_t i;

	assert_non_null(ref);
	assert_true(size > 0 && size + 16 <= bufsz);
	memset(buf, 0xa5, bufsz);
	assert_int_equal(call(buf, size - 1, arg), 0);
	for (i = 0; i < bufsz; i++)
		if (buf[i] != 0xa5)
			fail_msg("byte %zu written with cap %zu", i, size - 1);
	assert_int_equal(call(buf, 0, arg), 0);
	assert_int_equal(call(buf, size, arg), size);
	memcpy(ref, buf, size);
	for (i = size; i < bufsz; i++)
		if (buf[i] != 0xa5)
			fail_msg("byte %zu written past the message of %zu", i, size);
	assert_int_equal(call(buf, bufsz, arg), size);
	assert_memory_equal(buf, ref, size);
	free(ref);
}

struct cap_args {
	const char *dn;
	size_t dnlen;
	const struct ldb_put_value *v;
	int n;
	const struct ldb_put_mod *m;
	int nm;
};

static size_t cap_add(uint8_t *b, size_t cap, const void *p)
{
	const struct cap_args *a = p;

	return ldb_wire_put_add(b, cap, 300, a->dn, a->dnlen, a->v, a->n);
}

static size_t cap_modify(uint8_t *b, size_t cap, const void *p)
{
	const struct cap_args *a = p;

	return ldb_wire_put_modify(b, cap, 70000, a->dn, a->dnlen, a->m, a->nm);
}

static size_t cap_delete(uint8_t *b, size_t cap, const void *p)
{
	const struct cap_args *a = p;

	return ldb_wire_put_delete(b, cap, 1, a->dn, a->dnlen);
}

static size_t cap_modrdn(uint8_t *b, size_t cap, const void *p)
{
	const struct cap_args *a = p;

	return ldb_wire_put_modrdn(b, cap, 2, a->dn, a->dnlen, "cn=y", 4, 1, a->dn, a->dnlen);
}

static size_t cap_compare(uint8_t *b, size_t cap, const void *p)
{
	const struct cap_args *a = p;

	return ldb_wire_put_compare(b, cap, 128, a->dn, a->dnlen, "cn", a->dn, a->dnlen);
}

static void test_cap(void **state)
{
	size_t (*const calls[])(uint8_t *, size_t, const void *) = { cap_add, cap_modify, cap_delete, cap_modrdn,
		                                                     cap_compare };
	char *v300 = filled('q', 300, ""), *dn70k = filled('z', 70000, "cn=");
	struct ldb_put_value v[] = { { "objectClass", "top", 3 },
		                     { "description", v300, 300 },
		                     { "OBJECTCLASS", "person", 6 } };
	struct ldb_put_mod m[] = { { LDB_MOD_REPLACE, "description", v300, 300 }, { LDB_MOD_DELETE, "cn", NULL, 0 } };
	struct cap_args args[] = {
		{ "cn=x", 4, v, 3, m, 2 },
		{ "", 0, v, 0, m, 0 },
		{ dn70k, 70003, v, 3, m, 2 },
	};
	size_t bufsz = 300000, a, k, size;
	uint8_t *buf = malloc(bufsz);

	(void)state;
	assert_non_null(buf);
	for (a = 0; a < 3; a++)
		for (k = 0; k < 5; k++) {
			size = calls[k](buf, bufsz, &args[a]);
			assert_true(size > 0);
			check_cap(buf, bufsz, size, calls[k], &args[a]);
		}
	free(buf);
	free(v300);
	free(dn70k);
}

/* ---- refusals ---- */

static void test_bad_arguments(void **state)
{
	static struct ldb_put_value many[LDB_WIRE_PUT_MAX_VALUES + 1];
	struct ldb_put_value nul[] = { { NULL, "x", 1 } }, novalue[] = { { "cn", NULL, 3 } };
	struct ldb_put_mod badop[] = { { 4, "cn", "x", 1 } }, notype[] = { { LDB_MOD_ADD, NULL, "x", 1 } };
	uint8_t buf[64 * 1024];
	int i;

	(void)state;
	for (i = 0; i <= LDB_WIRE_PUT_MAX_VALUES; i++) {
		many[i].type = "cn";
		many[i].val = "x";
		many[i].len = 1;
	}
	assert_true(ldb_wire_put_add(buf, sizeof(buf), 1, "cn=x", 4, many, LDB_WIRE_PUT_MAX_VALUES) > 0);
	assert_int_equal(ldb_wire_put_add(buf, sizeof(buf), 1, "cn=x", 4, many, LDB_WIRE_PUT_MAX_VALUES + 1), 0);
	assert_int_equal(ldb_wire_put_add(buf, sizeof(buf), 1, "cn=x", 4, many, -1), 0);
	assert_int_equal(ldb_wire_put_add(buf, sizeof(buf), 1, "cn=x", 4, nul, 1), 0);
	assert_int_equal(ldb_wire_put_add(buf, sizeof(buf), 1, "cn=x", 4, novalue, 1), 0);
	assert_int_equal(ldb_wire_put_add(buf, sizeof(buf), 1, NULL, 4, many, 1), 0);
	assert_int_equal(ldb_wire_put_add(NULL, sizeof(buf), 1, "cn=x", 4, many, 1), 0);
	assert_int_equal(ldb_wire_put_modify(buf, sizeof(buf), 1, "cn=x", 4, badop, 1), 0);
	assert_int_equal(ldb_wire_put_modify(buf, sizeof(buf), 1, "cn=x", 4, notype, 1), 0);
	assert_int_equal(ldb_wire_put_compare(buf, sizeof(buf), 1, "cn=x", 4, NULL, "x", 1), 0);
	assert_int_equal(ldb_wire_put_modrdn(buf, sizeof(buf), 1, "cn=x", 4, NULL, 3, 0, NULL, 0), 0);
	/* NULL with length 0 is the empty string */
	assert_int_equal(ldb_wire_put_delete(buf, sizeof(buf), 1, NULL, 0), 7);
	assert_memory_equal(buf, "\x30\x05\x02\x01\x01\x4a\x00", 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_shapes, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_add_random_shapes, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_modify_shapes, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_delete_rename_compare, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_extended, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test_setup_teardown(test_msgids_libldap, ldap_capture_setup, ldap_capture_teardown),
		cmocka_unit_test(test_msgids_vs_encoders),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
