/* filter: RFC 4515 strings to BER.  Exact bytes for the RFC's own examples and
 * every filter kind, one-line errors for bad filters, and a randomized
 * differential run against libldap (whatever libldap accepts we accept with the
 * same bytes, whatever it refuses we refuse; two documented exceptions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <lber.h>
#include <ldap.h>
#include <openldap.h>

#include "proto/wire.h"

static void expect_hex(const char *filter, const char *hex)
{
	struct ldb_bytes b = { 0 };
	char err[LDB_WIRE_ERRLEN], got[4096];
	size_t i, o = 0;

	if (ldb_filter_encode(&b, filter, err) != 0)
		fail_msg("%s: %s", filter, err);
	for (i = 0; i < b.len && o + 4 < sizeof(got); i++)
		o += (size_t)snprintf(got + o, sizeof(got) - o, i ? " %02x" : "%02x", b.data[i]);
	got[o] = '\0';
	if (strcmp(got, hex) != 0)
		fail_msg("%s\n  got  %s\n  want %s", filter, got, hex);
	ldb_bytes_free(&b);
}

static void test_kinds_exact(void **state)
{
	(void)state;
	/* equality, with and without the outer parentheses */
	expect_hex("(uid=x)", "a3 08 04 03 75 69 64 04 01 78");
	expect_hex("uid=x", "a3 08 04 03 75 69 64 04 01 78");
	/* presence */
	expect_hex("(cn=*)", "87 02 63 6e");
	/* substrings: initial, any, final */
	expect_hex("(cn=a*b*c)", "a4 0f 04 02 63 6e 30 09 80 01 61 81 01 62 82 01 63");
	expect_hex("(cn=*b*)", "a4 09 04 02 63 6e 30 03 81 01 62");
	expect_hex("(cn=a*)", "a4 09 04 02 63 6e 30 03 80 01 61");
	expect_hex("(cn=*c)", "a4 09 04 02 63 6e 30 03 82 01 63");
	/* >=, <=, ~= */
	expect_hex("(n>=5)", "a5 06 04 01 6e 04 01 35");
	expect_hex("(n<=5)", "a6 06 04 01 6e 04 01 35");
	expect_hex("(n~=5)", "a8 06 04 01 6e 04 01 35");
	/* and, or, not, empty and/or (RFC 4526) */
	expect_hex("(&(a=1)(b=2))", "a0 10 a3 06 04 01 61 04 01 31 a3 06 04 01 62 04 01 32");
	expect_hex("(|(a=1)(!(b=2)))", "a1 12 a3 06 04 01 61 04 01 31 a2 08 a3 06 04 01 62 04 01 32");
	expect_hex("(&)", "a0 00");
	expect_hex("(|)", "a1 00");
	/* extensible: type only, rule only, both, dn */
	expect_hex("(cn:=x)", "a9 07 82 02 63 6e 83 01 78");
	expect_hex("(:1.2:=x)", "a9 08 81 03 31 2e 32 83 01 78");
	expect_hex("(cn:1.2:=x)", "a9 0c 81 03 31 2e 32 82 02 63 6e 83 01 78");
	expect_hex("(cn:dn:=x)", "a9 0a 82 02 63 6e 83 01 78 84 01 ff");
	expect_hex("(:dn:1.2:=x)", "a9 0b 81 03 31 2e 32 83 01 78 84 01 ff");
	expect_hex("(cn:DN:caseExactMatch:=x)",
	           "a9 1a 81 0e 63 61 73 65 45 78 61 63 74 4d 61 74 63 68 82 02 63 6e 83 01 78 84 01 ff");
	/* escapes become raw bytes; LDAPv2 escapes too */
	expect_hex("(b=\\00\\ff\\2A\\28\\29\\5c)", "a3 0b 04 01 62 04 06 00 ff 2a 28 29 5c");
	expect_hex("(b=\\*\\(\\)\\\\)", "a3 09 04 01 62 04 04 2a 28 29 5c");
	expect_hex("(cn=*\\2a*)", "a4 09 04 02 63 6e 30 03 81 01 2a");
	/* UTF-8 bytes pass through */
	expect_hex("(sn=Lu\xc4\x8di\xc4\x87)", "a3 0d 04 02 73 6e 04 07 4c 75 c4 8d 69 c4 87");
	expect_hex("(sn=Lu\\c4\\8di\\c4\\87)", "a3 0d 04 02 73 6e 04 07 4c 75 c4 8d 69 c4 87");
	/* attribute options, numeric OIDs, empty value, '=' inside the value */
	expect_hex("(cn;lang-en=x)", "a3 0f 04 0a 63 6e 3b 6c 61 6e 67 2d 65 6e 04 01 78");
}

static void test_kinds_exact_more(void **state)
{
	(void)state;
	expect_hex("(2.5.4.3=x)", "a3 0c 04 07 32 2e 35 2e 34 2e 33 04 01 78");
	expect_hex("(seeAlso=)", "a3 0b 04 07 73 65 65 41 6c 73 6f 04 00");
	expect_hex("(a=1=2)", "a3 08 04 01 61 04 03 31 3d 32");
	/* white space libldap allows: after '(' and around '&'/'|' members */
	expect_hex("( & (a=1)\t(b=2) )", "a0 10 a3 06 04 01 61 04 01 31 a3 06 04 01 62 04 01 32");
	expect_hex("(! (a=1))", "a2 08 a3 06 04 01 61 04 01 31");
	/* a value's spaces are kept */
	expect_hex("(a= x )", "a3 08 04 01 61 04 03 20 78 20");
}

static void test_long_values(void **state)
{
	size_t n = 70000, i;
	char *f = malloc(n + 16);
	struct ldb_bytes b = { 0 };

	(void)state;
	assert_non_null(f);
	memcpy(f, "(cn=", 4);
	memset(f + 4, 'v', n);
	strcpy(f + 4 + n, ")");
	assert_int_equal(ldb_filter_encode(&b, f, NULL), 0);
	/* a3 83 01 11 79 | 04 02 63 6e | 04 83 01 11 70 | v... */
	assert_int_equal(b.len, 5 + 4 + 5 + n);
	assert_int_equal(b.data[0], 0xa3);
	assert_int_equal(b.data[1], 0x83);
	assert_int_equal((b.data[2] << 16) | (b.data[3] << 8) | b.data[4], 4 + 5 + n);
	assert_memory_equal(b.data + 5,
	                    "\x04\x02"
	                    "cn"
	                    "\x04\x83",
	                    6);
	assert_int_equal((b.data[11] << 16) | (b.data[12] << 8) | b.data[13], n);
	for (i = 14; i < b.len; i++)
		assert_int_equal(b.data[i], 'v');
	ldb_bytes_free(&b);
	free(f);
}

static void test_appends(void **state)
{
	struct ldb_bytes b = { 0 };

	(void)state;
	assert_int_equal(ldb_bytes_append(&b, "\x01\x02", 2), 0);
	assert_int_equal(ldb_filter_encode(&b, "(a=*)", NULL), 0);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data,
	                    "\x01\x02\x87\x01"
	                    "a",
	                    5);
	/* an error leaves the buffer as it was */
	assert_int_equal(ldb_filter_encode(&b, "(a=*", NULL), -1);
	assert_int_equal(b.len, 5);
	ldb_bytes_free(&b);
}

static void test_errors(void **state)
{
	static const struct {
		const char *filter, *why;
	} bad[] = {
		{ "", "empty filter" },
		{ "(uid=a", "missing ')'" },
		{ "(&(a=1)(b=2)", "missing ')'" },
		{ "(a=1))", "unexpected ')'" },
		{ "(a=1)(b=2)", "unexpected '(b=2)'" },
		{ "(a=1) ", "after the filter" },
		{ " (a=1)", "leading white space" },
		{ "()", "empty '()'" },
		{ "((a=1))", "unescaped '('" },
		{ "(uid)", "missing '='" },
		{ "uid", "missing '='" },
		{ "(=x)", "missing attribute" },
		{ "(a b=x)", "bad attribute description 'a b'" },
		{ "(a_b=x)", "bad attribute description" },
		{ "(1..2=x)", "bad attribute description" },
		{ "(a;=x)", "bad attribute description" },
		{ "(a=\\zz)", "bad escape '\\zz'" },
		{ "(a=\\2)", "bad escape" },
		{ "(a=x\\)", "missing ')'" },
		{ "a=x\\", "bad escape" },
		{ "(a=x(y)", "unescaped '('" },
		{ "a=x)", "unescaped ')'" },
		{ "(a=b**c)", "empty substring" },
		{ "(a=**)", "empty substring" },
		{ "(a>=x*)", "unescaped '*'" },
		{ "(a~=*)", "unescaped '*'" },
		{ "(a:=*)", "unescaped '*'" },
		{ "(!)", "'!' must be followed" },
		{ "(!(a=1)(b=2))", "exactly one filter" },
		{ "(!(a=1) )", "exactly one filter" },
		{ "(!a=1)", "'!' must be followed" },
		{ "(&a=1)", "expected '('" },
		{ "(&(a=1)x)", "expected '('" },
		{ "(:=x)", "needs an attribute or a matching rule" },
		{ "(:dn:=x)", "needs an attribute" },
		{ "(a:x:dn:=x)", "expected ':dn'" },
		{ "(a:dn:x:y:=x)", "bad matching rule" },
		{ "(a:1.2.:=x)", "bad matching rule" },
		{ "(a:-x:=x)", "bad matching rule" },
		{ "(a::=x)", "empty matching rule" },
		{ "(a:dn::=x)", "empty matching rule" },
		{ "(a b:=x)", "bad attribute description" },
	};
	char err[LDB_WIRE_ERRLEN];
	struct ldb_bytes b = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(err, 'X', sizeof(err));
		if (ldb_filter_encode(&b, bad[i].filter, err) != -1)
			fail_msg("'%s' was accepted", bad[i].filter);
		assert_int_equal(b.len, 0);
		assert_non_null(memchr(err, '\0', sizeof(err)));
		assert_null(strchr(err, '\n'));
		assert_true(strncmp(err, "bad filter '", 12) == 0);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("'%s': message \"%s\" lacks \"%s\"", bad[i].filter, err, bad[i].why);
	}
	assert_int_equal(ldb_filter_encode(&b, "(uid=a", err), -1);
	assert_string_equal(err, "bad filter '(uid=a': missing ')'");
	assert_int_equal(ldb_filter_encode(&b, NULL, err), -1);
	assert_int_equal(ldb_filter_encode(&b, "(uid=a", NULL), -1); /* err may be NULL */
	assert_null(b.data);
}

static void test_long_error_is_one_bounded_line(void **state)
{
	char *f = malloc(100010);
	char err[LDB_WIRE_ERRLEN];
	struct ldb_bytes b = { 0 };

	(void)state;
	assert_non_null(f);
	memcpy(f, "(cn=", 4);
	memset(f + 4, 'q', 100000);
	f[100004] = '\0'; /* no ')' */
	assert_int_equal(ldb_filter_encode(&b, f, err), -1);
	assert_true(strlen(err) < LDB_WIRE_ERRLEN);
	assert_non_null(strstr(err, "...': missing ')'"));
	free(f);
}

static void test_nesting(void **state)
{
	char f[4096];
	struct ldb_bytes b = { 0 };
	char err[LDB_WIRE_ERRLEN];
	int d, i;

	(void)state;
	for (d = 200; d <= 300; d += 100) {
		size_t o = 0;

		for (i = 0; i < d; i++)
			f[o++] = '(', f[o++] = '!';
		memcpy(f + o, "(a=1)", 5);
		o += 5;
		for (i = 0; i < d; i++)
			f[o++] = ')';
		f[o] = '\0';
		if (d == 200) {
			assert_int_equal(ldb_filter_encode(&b, f, err), 0);
			assert_int_equal(b.data[0], 0xa2);
		} else {
			assert_int_equal(ldb_filter_encode(&b, f, err), -1);
			assert_non_null(strstr(err, "nested"));
		}
		ldb_bytes_free(&b);
	}
}

/* ---- differential run against libldap ---- */

struct ref {
	int fds[2];
	LDAP *ld;
	uint8_t buf[1 << 16];
};

static int ref_setup(void **state)
{
	struct ref *r = calloc(1, sizeof(*r));
	int v3 = LDAP_VERSION3;

	assert_non_null(r);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, r->fds), 0);
	assert_int_equal(ldap_init_fd(r->fds[0], LDAP_PROTO_TCP, "ldap://127.0.0.1", &r->ld), LDAP_SUCCESS);
	assert_int_equal(ldap_set_option(r->ld, LDAP_OPT_PROTOCOL_VERSION, &v3), LDAP_OPT_SUCCESS);
	*state = r;
	return 0;
}

static int ref_teardown(void **state)
{
	struct ref *r = *state;

	ldap_unbind_ext(r->ld, NULL, NULL);
	close(r->fds[1]);
	free(r);
	return 0;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)((rng_state >> 33) % n);
}

static const char *const attrs[] = { "cn", "uid", "o;lang-en", "1.2.3", "a-b", "x1", "cn;a;b", "objectClass" };
static const char *const vals[] = { "x",   "abc", "\\2a", "\\28\\29", "\xc3\xa9t\xc3\xa9", "a b", "\\5c\\00", "1=2",
	                            "\\*", "",    ":",    "x:y" };

static void cat(char *f, size_t cap, const char *s)
{
	size_t l = strlen(f);

	snprintf(f + l, cap - l, "%s", s);
}

/* A random filter that is mostly valid. */
static void gen(char *f, size_t cap, int depth)
{
	const char *a = attrs[rnd(8)], *v = vals[rnd(12)];
	char t[256];
	unsigned k = rnd(depth > 3 ? 6 : 9), n, i;

	switch (k) {
	case 0:
	case 5: snprintf(t, sizeof(t), "(%s=%s)", a, v); break;
	case 1: snprintf(t, sizeof(t), "(%s=*)", a); break;
	case 2:
		snprintf(t, sizeof(t), "(%s=%s*%s*%s)", a, rnd(2) ? v : "", vals[rnd(11)], rnd(2) ? vals[rnd(11)] : "");
		break;
	case 3: snprintf(t, sizeof(t), "(%s%s=%s)", a, rnd(3) == 0 ? ">" : rnd(2) ? "<" : "~", v); break;
	case 4:
		snprintf(t, sizeof(t), "(%s%s%s:=%s)", rnd(3) ? a : "", rnd(2) ? ":dn" : "",
		         rnd(2) ? (rnd(2) ? ":1.2.3" : ":caseExactMatch") : "", v);
		break;
	default:
		n = k == 8 ? 1 : rnd(4);
		cat(f, cap, rnd(6) ? "(" : "( ");
		cat(f, cap, k == 6 ? "&" : k == 7 ? "|" : "!");
		for (i = 0; i < n; i++) {
			cat(f, cap, rnd(6) ? "" : rnd(2) ? " " : "\t");
			gen(f, cap, depth + 1);
		}
		cat(f, cap, (k != 8 && rnd(6) == 0) ? " )" : ")");
		return;
	}
	cat(f, cap, t);
}

static void mutate(char *f, size_t cap)
{
	static const char chars[] = "()*\\=:!&| a;-";
	size_t l = strlen(f), at = rnd((unsigned)l + 1);
	char c = chars[rnd(sizeof(chars) - 1)];

	switch (rnd(4)) {
	case 0:
		if (l > 0)
			memmove(f + at, f + at + 1, l - at);
		break;
	case 1:
		if (l + 2 < cap) {
			memmove(f + at + 1, f + at, l - at + 1);
			f[at] = c;
		}
		break;
	case 2:
		if (at < l)
			f[at] = c;
		break;
	default: /* drop the outer parentheses */
		if (l > 1 && f[0] == '(' && f[l - 1] == ')') {
			f[l - 1] = '\0';
			memmove(f, f + 1, l - 1);
		}
	}
}

static void test_differential(void **state)
{
	struct ref *r = *state;
	char f[2048], err[LDB_WIRE_ERRLEN];
	uint8_t mine[1 << 16];
	int it, accepted = 0, refused = 0;

	for (it = 0; it < 30000; it++) {
		struct ldb_search_args a = { "dc=x", LDB_SCOPE_SUB, 0, 0, 0, 0, f, NULL };
		struct ldb_bytes op = { 0 };
		int msgid = -1, lrc, mrc;
		ssize_t n;

		f[0] = '\0';
		gen(f, sizeof(f), 0);
		if (it % 2)
			mutate(f, sizeof(f));
		if (it % 5 == 0)
			mutate(f, sizeof(f));
		lrc = ldap_search_ext(r->ld, "dc=x", LDAP_SCOPE_SUBTREE, f, NULL, 0, NULL, NULL, NULL, 0, &msgid);
		n = recv(r->fds[1], r->buf, sizeof(r->buf), MSG_DONTWAIT);
		mrc = ldb_wire_encode_search(&op, &a, err);
		if (lrc == LDAP_SUCCESS && mrc == 0) {
			size_t m = ldb_wire_frame(mine, sizeof(mine), msgid, op.data, op.len);

			if (n < 0 || (size_t)n != m || memcmp(mine, r->buf, m) != 0)
				fail_msg("'%s': bytes differ from libldap's", f);
			accepted++;
		} else if (lrc == LDAP_SUCCESS) {
			/* our deliberate exceptions (wire.h); libldap sent its request */
			if (strstr(err, "empty matching rule") == NULL && strstr(err, "empty filter") == NULL)
				fail_msg("'%s': libldap accepts it, we say %s", f, err);
		} else if (mrc == 0) {
			fail_msg("'%s': libldap refuses it (%d), we accept it", f, lrc);
		} else {
			assert_int_equal(lrc, LDAP_FILTER_ERROR);
			assert_true(n < 0); /* nothing was sent */
			refused++;
		}
		ldb_bytes_free(&op);
	}
	/* both sides of the language were exercised */
	assert_true(accepted > 5000);
	assert_true(refused > 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_exact),
		cmocka_unit_test(test_kinds_exact_more),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_error_is_one_bounded_line),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test_setup_teardown(test_differential, ref_setup, ref_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
