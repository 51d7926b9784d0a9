/* logs/audit: the audit logs slapd 2.5.13 (auditlog overlay) and 389 DS
 * 2.3.1 wrote while serving ldap-utils and python-ldap
 * (tests/data/audit, made by tests/fixture/record_traffic.sh): the changes
 * per kind, a folded value, base64 values, the operational attributes left
 * out, modify parts, renames; the protocolOp against libldap's encoders
 * (proto/wire's ldb_wire_encode_*); the matching (DN spelling, time window,
 * conn, consumed once, bounded window); rotated and gzip'd sets; and
 * hand-made bad input: a truncated record, bad base64, an unknown
 * changetype, garbage lines, a file of no audit format, formats mixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "logs/audit.h"
#include "proto/wire.h"

#define NS 1000000000LL

static char data_dir[1024];

static const char *data(const char *name)
{
	static char path[1200];
	if (!data_dir[0]) { /* tests/unit/test_audit.c -> tests/data/audit */
		const char *slash = strrchr(__FILE__, '/');
		snprintf(data_dir, sizeof data_dir, "%.*s/../data/audit", slash ? (int)(slash - __FILE__) : 1,
		         slash ? __FILE__ : ".");
	}
	snprintf(path, sizeof path, "%s/%s", data_dir, name);
	return path;
}

static struct ldb_audit *open1(const char *path)
{
	char err[512] = "";
	struct ldb_audit *a = ldb_audit_open(&path, 1, err, sizeof err);
	if (!a)
		fail_msg("%s", err);
	return a;
}

static bool eq(struct ldb_audit_bytes b, const char *s)
{
	return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

static const struct ldb_audit_attr *attr(const struct ldb_audit_change *c, const char *type)
{
	for (size_t i = 0; i < c->nattrs; i++)
		if (eq(c->attrs[i].type, type))
			return &c->attrs[i];
	return NULL;
}

/* Every change of a real log, in order: the counts and the shapes both
 * servers share (DN suffix aside). */
static void check_real(const char *name, int64_t conn0)
{
	struct ldb_audit *a = open1(data(name));
	const struct ldb_audit_change *c;
	int n = 0;
	while ((c = ldb_audit_next(a)) != NULL) {
		n++;
		assert_int_equal(c->time_res_ns, NS);
		assert_int_equal(c->result, 0);
		assert_true(conn0 < 0 ? c->conn == -1 : c->conn >= conn0);
		for (size_t i = 0; i < c->nattrs; i++) /* none a client may not send */
			assert_false(eq(c->attrs[i].type, "creatorsName") || eq(c->attrs[i].type, "modifiersname") ||
			             eq(c->attrs[i].type, "modifyTimestamp") || eq(c->attrs[i].type, "entryCSN"));
		if (n == 2) { /* uid=rt1: the folded description, whole */
			const struct ldb_audit_attr *d = attr(c, "description");
			assert_non_null(d);
			assert_int_equal(d->nvalues, 1);
			assert_int_equal(d->values[0].n, 76 + 40 * 4);
			assert_memory_equal(d->values[0].p + 76 + 39 * 4, " 040", 4);
		}
		if (n == 3) { /* uid=rt2: sn in base64, UTF-8; two mails grouped */
			assert_true(eq(attr(c, "sn")->values[0],
			               "\xc5\xbdlu\xc5\xa5ou\xc4\x8dk\xc3\xbd k\xc5\xaf\xc5\x88"));
			assert_int_equal(attr(c, "mail")->nvalues, 2);
		}
		if (n == 9) { /* the modify of three parts, the second value in base64 */
			assert_int_equal(c->kind, LDB_AUDIT_MODIFY);
			assert_int_equal(c->nattrs, 3);
			assert_int_equal(c->attrs[0].op, LDB_AUDIT_MOD_ADD);
			assert_true(eq(c->attrs[0].values[1], "\xc2\xa1hola!"));
			assert_int_equal(c->attrs[1].op, LDB_AUDIT_MOD_REPLACE);
			assert_true(eq(c->attrs[1].values[1], "rt three"));
			assert_int_equal(c->attrs[2].op, LDB_AUDIT_MOD_ADD);
		}
		if (n == 8) { /* "delete: telephoneNumber" with no value */
			assert_int_equal(c->nattrs, 1);
			assert_int_equal(c->attrs[0].op, LDB_AUDIT_MOD_DELETE);
			assert_int_equal(c->attrs[0].nvalues, 0);
		}
		if (n >= 10 && n <= 12) {
			assert_int_equal(c->kind, LDB_AUDIT_MODRDN);
			assert_int_equal(c->deleteoldrdn, n != 11);
			assert_true(n == 12 ? c->newsuperior.p != NULL : c->newsuperior.p == NULL);
		}
	}
	assert_string_equal(ldb_audit_error(a), "");
	ldb_audit_finish(a);
	const struct ldb_audit_stats *st = ldb_audit_stats(a);
	assert_int_equal(n, 16);
	assert_int_equal(st->changes[LDB_AUDIT_ADD], 4);
	assert_int_equal(st->changes[LDB_AUDIT_MODIFY], 7);
	assert_int_equal(st->changes[LDB_AUDIT_DELETE], 2);
	assert_int_equal(st->changes[LDB_AUDIT_MODRDN], 3);
	for (int s = LDB_AUDIT_SKIP_GARBAGE; s < LDB_AUDIT_NSKIPS; s++)
		assert_int_equal(st->skipped[s], 0);
	assert_true(st->dropped_attrs > 16);
	ldb_audit_close(a);
}

static void test_real_389(void **state)
{
	(void)state;
	check_real("389ds-audit.log", -1);
}

static void test_real_openldap(void **state)
{
	(void)state;
	check_real("openldap-audit.ldif", 1000);
}

/* The protocolOp equals libldap's for the same request. */
static void same_as_libldap(const struct ldb_audit_change *c)
{
	uint8_t mine[8192];
	char err[256] = "", dn[512], a2[512];
	struct ldb_bytes ref = { 0 };
	const long n = ldb_audit_encode(c, mine, sizeof mine);
	assert_true(n > 0);
	assert_int_equal(ldb_audit_encode(c, NULL, 0), n);
	assert_int_equal(ldb_audit_encode(c, mine, (size_t)n - 1), -1);
	snprintf(dn, sizeof dn, "%.*s", (int)c->dn.n, (const char *)c->dn.p);
	const char *vals[64][16];
	char store[64][16][256];
	struct ldb_mod mods[64];
	struct ldb_attr_values av[64];
	char types[64][64];
	assert_true(c->nattrs <= 64);
	for (size_t i = 0; i < c->nattrs; i++) {
		snprintf(types[i], sizeof types[i], "%.*s", (int)c->attrs[i].type.n, (const char *)c->attrs[i].type.p);
		for (size_t j = 0; j < c->attrs[i].nvalues && j < 15; j++) {
			snprintf(store[i][j], sizeof store[i][j], "%.*s", (int)c->attrs[i].values[j].n,
			         (const char *)c->attrs[i].values[j].p);
			vals[i][j] = store[i][j];
		}
		vals[i][c->attrs[i].nvalues] = NULL;
		av[i] = (struct ldb_attr_values){ .type = types[i], .values = vals[i] };
		mods[i] = (struct ldb_mod){ .op = (int)c->attrs[i].op, .av = av[i] };
	}
	switch (c->kind) {
	case LDB_AUDIT_ADD: assert_int_equal(ldb_wire_encode_add(&ref, dn, av, c->nattrs, err), 0); break;
	case LDB_AUDIT_MODIFY: assert_int_equal(ldb_wire_encode_modify(&ref, dn, mods, c->nattrs, err), 0); break;
	case LDB_AUDIT_DELETE: assert_int_equal(ldb_wire_encode_delete(&ref, dn, err), 0); break;
	default:
		snprintf(a2, sizeof a2, "%.*s", (int)c->newsuperior.n,
		         c->newsuperior.p ? (const char *)c->newsuperior.p : "");
		char rdn[256];
		snprintf(rdn, sizeof rdn, "%.*s", (int)c->newrdn.n, (const char *)c->newrdn.p);
		assert_int_equal(
		        ldb_wire_encode_modrdn(&ref, dn, rdn, c->deleteoldrdn, c->newsuperior.p ? a2 : NULL, err), 0);
	}
	assert_int_equal(ref.len, (size_t)n);
	assert_memory_equal(ref.data, mine, (size_t)n);
	ldb_bytes_free(&ref);
}

static void test_encode(void **state)
{
	(void)state;
	const char *logs[] = { "389ds-audit.log", "openldap-audit.ldif" };
	for (int i = 0; i < 2; i++) {
		struct ldb_audit *a = open1(data(logs[i]));
		const struct ldb_audit_change *c;
		int n = 0;
		while ((c = ldb_audit_next(a)) != NULL)
			same_as_libldap(c), n++;
		assert_int_equal(n, 16);
		ldb_audit_close(a);
	}
	/* a value over 127 and over 255 bytes: long-form lengths */
	char big[300];
	memset(big, 'x', sizeof big);
	struct ldb_audit_bytes v = { (const uint8_t *)big, sizeof big };
	struct ldb_audit_attr at = { .type = { (const uint8_t *)"description", 11 }, .values = &v, .nvalues = 1 };
	struct ldb_audit_change c = {
		.kind = LDB_AUDIT_ADD, .dn = { (const uint8_t *)"cn=x", 4 }, .attrs = &at, .nattrs = 1
	};
	uint8_t buf[512];
	assert_int_equal(ldb_audit_encode(&c, buf, sizeof buf), 4 + 6 + 4 + 4 + 13 + 4 + 4 + 300);
	assert_memory_equal(buf, "\x68\x82\x01\x4f", 4);
	c.kind = LDB_AUDIT_NONE;
	assert_int_equal(ldb_audit_encode(&c, buf, sizeof buf), -1);
}

static void test_match_real(void **state)
{
	(void)state;
	/* OpenLDAP: conn=1011's first add at 1796204155 */
	struct ldb_audit *a = open1(data("openldap-audit.ldif"));
	const int64_t t = 1796204155LL * NS + 300000000;
	const char *dn = "OU=Moved, DC=example , dc=com";
	assert_null(ldb_audit_match(a, LDB_AUDIT_MODIFY, dn, strlen(dn), t, 1011, 1));       /* kind */
	assert_null(ldb_audit_match(a, LDB_AUDIT_ADD, dn, strlen(dn), t, 1012, 1));          /* conn */
	assert_null(ldb_audit_match(a, LDB_AUDIT_ADD, dn, strlen(dn), t + 5 * NS, 1011, 1)); /* time */
	const struct ldb_audit_change *c = ldb_audit_match(a, LDB_AUDIT_ADD, dn, strlen(dn), t, 1011, 1);
	assert_non_null(c);
	assert_int_equal(c->conn, 1011);
	assert_int_equal(c->line, 1);
	assert_null(ldb_audit_match(a, LDB_AUDIT_ADD, dn, strlen(dn), t, 1011, 1)); /* consumed */
	c = ldb_audit_match(a, LDB_AUDIT_ADD, "uid=rt1,ou=People,dc=example,dc=com", 35, t, UINT64_MAX, 2);
	assert_non_null(c); /* conn unknown on the access side */
	ldb_audit_finish(a);
	const struct ldb_audit_stats *st = ldb_audit_stats(a);
	assert_int_equal(st->matched[LDB_AUDIT_ADD], 2);
	assert_int_equal(st->not_found, 4);
	assert_int_equal(st->unmatched, 14);
	assert_int_equal(st->first_unmatched[0].line, 35); /* uid=rt2's add */
	ldb_audit_close(a);
}

/* A window of two changes: a match far ahead drops the older ones. */
static void test_window(void **state)
{
	(void)state;
	const char *log = "time: 20261202000000\ndn: cn=a\nchangetype: delete\n\n"
	                  "time: 20261202000001\ndn: cn=b\nchangetype: delete\n\n"
	                  "time: 20261202000100\ndn: cn=c\nchangetype: delete\n\n"
	                  "time: 20261202000101\ndn: cn=d\nchangetype: delete\n\n";
	struct ldb_audit_opts o = { .window = 2, .window_s = 5 };
	struct ldb_audit *a = ldb_audit_open_mem(log, strlen(log), "mem", &o);
	const int64_t t0 = 1796169600LL * NS;
	assert_non_null(ldb_audit_match(a, LDB_AUDIT_DELETE, "cn=b", 4, t0 + NS, UINT64_MAX, 0));
	assert_non_null(ldb_audit_match(a, LDB_AUDIT_DELETE, "cn=d", 4, t0 + 61 * NS, UINT64_MAX, 0));
	assert_null(ldb_audit_match(a, LDB_AUDIT_DELETE, "cn=a", 4, t0, UINT64_MAX, 0)); /* dropped */
	ldb_audit_finish(a);
	assert_int_equal(ldb_audit_stats(a)->unmatched, 2);
	assert_int_equal(ldb_audit_stats(a)->first_unmatched[0].line, 1);
	assert_int_equal(ldb_audit_stats(a)->first_unmatched[1].line, 9);
	ldb_audit_close(a);
}

/* Hand-made bad input: counted with the records' first lines. */
static void test_bad_input(void **state)
{
	(void)state;
	const char *log = "garbage before\n"
	                  "time: 20261202000000\ndn: cn=a\nresult: 0\nchangetype: modify\nreplace: sn\nsn:: !!!!\n-\n\n"
	                  "time: 20261202000000\ndn: cn=b\nresult: 0\nchangetype: frobnicate\n\n"
	                  "time: 2026120200000x\ndn: cn=c\nchangetype: delete\n\n"
	                  "time: 20261202000001\ndn: cn=d\nresult: 53\nchangetype: delete\n\n"
	                  "time: 20261202000002\ndn: cn=e\nchangetype: add\ncn: e\nsn: e";
	struct ldb_audit *a = ldb_audit_open_mem(log, strlen(log), "bad", NULL);
	const struct ldb_audit_change *c = ldb_audit_next(a);
	assert_non_null(c);
	assert_int_equal(c->result, 53);
	assert_int_equal(c->line, 19);
	assert_null(ldb_audit_next(a));
	const struct ldb_audit_stats *st = ldb_audit_stats(a);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_GARBAGE], 1);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_GARBAGE][0].line, 1);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_BAD_VALUE], 2);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_BAD_VALUE][0].line, 2);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_BAD_VALUE][1].line, 15);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_UNKNOWN_CHANGE], 1);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_UNKNOWN_CHANGE][0].line, 10);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_TRUNCATED], 1);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_TRUNCATED][0].line, 24);
	assert_int_equal(st->failed, 1);
	ldb_audit_close(a);
	/* times out of range (ns since the epoch in 64 bits), an empty record */
	const char *far = "time: 10130601000000\ndn: cn=a\nchangetype: delete\n\n"
	                  "# add 9999999999 dc=x cn=admin\ndn: cn=b\nchangetype: add\ncn: b\n# end add 9999999999\n";
	a = ldb_audit_open_mem(far, strlen(far), "far", NULL);
	assert_null(ldb_audit_next(a));
	assert_int_equal(ldb_audit_stats(a)->skipped[LDB_AUDIT_SKIP_BAD_VALUE], 1);
	assert_int_equal(ldb_audit_stats(a)->skipped[LDB_AUDIT_SKIP_GARBAGE], 5); /* no record: its lines */
	assert_null(ldb_audit_match(a, LDB_AUDIT_DELETE, "cn=a", 4, INT64_MAX, UINT64_MAX, 0));
	ldb_audit_close(a);
	const char *empty = "# add 1796204155 dc=x cn=admin conn=3\n# end add 1796204155\n";
	a = ldb_audit_open_mem(empty, strlen(empty), "empty", NULL);
	assert_null(ldb_audit_next(a));
	assert_int_equal(ldb_audit_stats(a)->skipped[LDB_AUDIT_SKIP_GARBAGE], 1);
	ldb_audit_close(a);
	/* OpenLDAP: a record without its "# end", one with a URL value */
	const char *ol =
	        "# add 1796204155 dc=example,dc=com cn=admin IP=127.0.0.1:1 conn=7\ndn: cn=a\nchangetype: add\n"
	        "cn: a\n# add 1796204156 dc=example,dc=com cn=admin\ndn: cn=b\nchangetype: add\n"
	        "jpegPhoto:< file:///etc/passwd\n# end add 1796204156\n";
	a = ldb_audit_open_mem(ol, strlen(ol), "ol", NULL);
	assert_null(ldb_audit_next(a));
	st = ldb_audit_stats(a);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_TRUNCATED], 1);
	assert_int_equal(st->skipped[LDB_AUDIT_SKIP_BAD_VALUE], 1);
	assert_int_equal(st->first_skipped[LDB_AUDIT_SKIP_BAD_VALUE][0].line, 5);
	ldb_audit_close(a);
}

static char *tmpfile_with(const char *text, size_t n, bool gz)
{
	static int k;
	char *path = malloc(256);
	assert_non_null(path);
	snprintf(path, 256, "/tmp/test_audit.%d.%d%s", (int)getpid(), k++, gz ? ".gz" : "");
	if (gz) {
		gzFile f = gzopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(gzwrite(f, text, (unsigned)n), (int)n);
		gzclose(f);
	} else {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, n, f), n);
		fclose(f);
	}
	return path;
}

/* The real 389 DS log cut in two, the later half gzip'd and given first. */
static void test_rotated(void **state)
{
	(void)state;
	FILE *f = fopen(data("389ds-audit.log"), "r");
	assert_non_null(f);
	static char text[65536];
	const size_t n = fread(text, 1, sizeof text, f);
	fclose(f);
	const char *cut = strstr(text, "\n\ntime: 20261202093550\n") + 2;
	char *p1 = tmpfile_with(text, (size_t)(cut - text), false);
	char *p2 = tmpfile_with(cut, n - (size_t)(cut - text), true);
	const char *files[] = { p2, p1 };
	char err[512];
	struct ldb_audit *a = ldb_audit_open(files, 2, err, sizeof err);
	assert_non_null(a);
	const struct ldb_audit_change *c = ldb_audit_next(a);
	assert_string_equal(c->file, p1);
	int k = 1;
	while ((c = ldb_audit_next(a)) != NULL)
		k++;
	assert_int_equal(k, 16);
	assert_int_equal(ldb_audit_stats(a)->files, 2);
	ldb_audit_close(a);
	/* no audit format, formats mixed, missing, empty */
	char *junk = tmpfile_with("hello\nworld\n", 12, false);
	char *empty = tmpfile_with("", 0, false);
	const char *ol = data("openldap-audit.ldif");
	assert_null(ldb_audit_open((const char *[]){ junk }, 1, err, sizeof err));
	assert_non_null(strstr(err, ": not a 389 DS audit log nor an OpenLDAP auditlog overlay file"));
	assert_null(ldb_audit_open((const char *[]){ p1, ol }, 2, err, sizeof err));
	assert_non_null(strstr(err, "an audit log of the other server"));
	assert_null(ldb_audit_open((const char *[]){ "/nonexistent/audit" }, 1, err, sizeof err));
	assert_string_equal(err, "/nonexistent/audit: No such file or directory");
	a = ldb_audit_open((const char *[]){ empty }, 1, err, sizeof err);
	assert_non_null(a);
	assert_null(ldb_audit_next(a));
	ldb_audit_close(a);
	char *paths[] = { p1, p2, junk, empty };
	for (int i = 0; i < 4; i++)
		unlink(paths[i]), free(paths[i]);
}

/* logs/lines' shapes through the audit reader: CRLF lines read alike; a
 * line over max_record (here longer than the whole read buffer's first
 * fill) skips its record as too long once, the next records read; a cut
 * gzip file's error names the file, not zlib's descriptor. */
static void test_lines(void **state)
{
	(void)state;
	const char *rec = "time: 20261202000000\ndn: cn=a\nresult: 0\nchangetype: delete\n\n";
	const size_t big = 300 * 1024, rn = strlen(rec);
	char *log = malloc(3 * rn + big + 64);
	assert_non_null(log);
	size_t n = 0;
	n += (size_t)sprintf(log + n, "%s", rec);
	n += (size_t)sprintf(log + n, "time: 20261202000001\ndn: cn=b\nresult: 0\nchangetype: add\ncn: ");
	memset(log + n, 'x', big), n += big;
	n += (size_t)sprintf(log + n, "\nsn: b\n\n%s", rec);
	struct ldb_audit_opts o = { .max_record = 4096 };
	struct ldb_audit *a = ldb_audit_open_mem(log, n, "long", &o);
	int k = 0;
	while (ldb_audit_next(a) != NULL)
		k++;
	assert_int_equal(k, 2);
	assert_int_equal(ldb_audit_stats(a)->skipped[LDB_AUDIT_SKIP_TOO_LONG], 1);
	assert_int_equal(ldb_audit_stats(a)->first_skipped[LDB_AUDIT_SKIP_TOO_LONG][0].line, 6);
	assert_int_equal(ldb_audit_stats(a)->lines, 17);
	ldb_audit_close(a);
	free(log);
	const char *crlf = "time: 20261202000000\r\ndn: cn=a\r\nresult: 0\r\nchangetype: delete\r\n\r\n";
	a = ldb_audit_open_mem(crlf, strlen(crlf), "crlf", NULL);
	const struct ldb_audit_change *c = ldb_audit_next(a);
	assert_non_null(c);
	assert_int_equal(c->kind, LDB_AUDIT_DELETE);
	assert_int_equal(c->dn.n, 4);
	ldb_audit_close(a);
	/* the real log gzip'd, cut after 300 bytes */
	FILE *f = fopen(data("389ds-audit.log"), "r");
	assert_non_null(f);
	static char text[65536];
	const size_t tn = fread(text, 1, sizeof text, f);
	fclose(f);
	char *gz = tmpfile_with(text, tn, true);
	assert_int_equal(truncate(gz, 300), 0);
	char err[512];
	a = ldb_audit_open((const char *[]){ gz }, 1, err, sizeof err);
	assert_non_null(a);
	while (ldb_audit_next(a) != NULL)
		;
	char want[600];
	snprintf(want, sizeof want, "%s: gzip: unexpected end of file", gz);
	assert_string_equal(ldb_audit_error(a), want);
	ldb_audit_close(a);
	unlink(gz), free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_389), cmocka_unit_test(test_real_openldap),
		cmocka_unit_test(test_encode),   cmocka_unit_test(test_match_real),
		cmocka_unit_test(test_window),   cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rotated),  cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
