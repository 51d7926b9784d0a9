/* The TLS and SASL options of the command line (src/cli/), and the SASL bind
 * templates they lead to (src/ops/request.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "ops/request.h"
#include "proto/wire.h"
#include "cli_run.h"

#define PARSE(t, ...) cli_run_parse((t), "ldbench", (const char *const[]){ __VA_ARGS__, NULL }, NULL, true)

static char nssdir[64];

static int setup(void **state)
{
	(void)state;
	unsetenv("LDBENCH_PASSWORD");
	strcpy(nssdir, "/tmp/ldbench_nss_XXXXXX");
	if (mkdtemp(nssdir) == NULL)
		return -1;
	char p[128];

	snprintf(p, sizeof p, "%s/cert9.db", nssdir);
	FILE *f = fopen(p, "w");

	if (f == NULL)
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char p[128];

	snprintf(p, sizeof p, "%s/cert9.db", nssdir);
	unlink(p);
	return rmdir(nssdir);
}

/* ------------------------------------------------------------------- TLS */

static void test_z_nss_db(void **state)
{
	(void)state;
	struct run t;
	char db[128];

	/* the db file itself, the directory, a file inside it */
	const char *forms[] = { "%s/cert9.db", "%s", "%s/anything" };

	for (int i = 0; i < 3; i++) {
		snprintf(db, sizeof db, forms[i], nssdir);
		assert_int_equal(PARSE(&t, "-h", "127.0.0.1", "-Z", db, "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
		assert_true(t.c.ldaps);
		assert_int_equal(t.c.port, 636);
		assert_true(t.c.tls_nssdb);
		assert_true(t.c.tls_insecure);
		assert_string_equal(t.c.tls_certdb, db);
		/* one line, naming the database and what it means */
		assert_non_null(strstr(t.warn, "warning: -Z "));
		assert_non_null(strstr(t.warn, "NSS database"));
		assert_non_null(strstr(t.warn, "NOT verified"));
		assert_ptr_equal(strchr(t.warn, '\n'), t.warn + strlen(t.warn) - 1);
		done(&t);
	}

	/* with a CA the certificate is verified and the NSS db ignored */
	assert_int_equal(
	        PARSE(&t, "-Z", nssdir, "-p", "1636", "--tls-cacert", "/ca.pem", "-e", "esearch", "-f", "uid=x"),
	        LDB_CLI_RUN);
	assert_int_equal(t.c.port, 1636);
	assert_false(t.c.tls_insecure);
	assert_non_null(strstr(t.warn, "it is ignored"));
	done(&t);

	/* not an NSS db: still ldclt's meaning (no verification), said once */
	assert_int_equal(PARSE(&t, "-Z", "/nonexistent/ca.pem", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_false(t.c.tls_nssdb);
	assert_true(t.c.tls_insecure);
	assert_string_equal(t.warn, "ldbench: warning: -Z: the server certificate is NOT verified (as with "
	                            "ldclt); give --tls-cacert FILE (PEM) to verify it\n");
	done(&t);

	/* -H ldap:// overrides -Z: no TLS, no warning */
	assert_int_equal(PARSE(&t, "-Z", db, "-H", "ldap://127.0.0.1", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_false(t.c.ldaps);
	assert_int_equal(t.c.port, 389);
	assert_string_equal(t.warn, "");
	done(&t);
}

static void test_ldaps_url_port(void **state)
{
	(void)state;
	struct run t;

	assert_int_equal(PARSE(&t, "-H", "ldaps://127.0.0.1", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_true(t.c.ldaps);
	assert_int_equal(t.c.port, 636);
	assert_false(t.c.tls_insecure); /* verified by default */
	assert_string_equal(t.warn, "");
	done(&t);
	assert_int_equal(PARSE(&t, "-H", "ldaps://localhost:1636/", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_int_equal(t.c.port, 1636);
	assert_string_equal(t.c.host, "localhost");
	done(&t);
}

static void test_tls_options(void **state)
{
	(void)state;
	struct run t;

	assert_int_equal(PARSE(&t, "-h", "localhost", "--starttls", "--tls-cacert", "/ca.pem", "--tls-cacertdir",
	                       "/etc/ssl/certs", "--tls-cert", "/c.pem", "--tls-key", "/c.key", "--tls-min", "1.3",
	                       "--tls-ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "--tls-resume", "-e", "bindeach,esearch",
	                       "-f", "uid=x"),
	                 LDB_CLI_RUN);
	assert_true(t.c.starttls);
	assert_false(t.c.ldaps);
	assert_int_equal(t.c.port, 389);
	assert_string_equal(t.c.tls_cacert, "/ca.pem");
	assert_string_equal(t.c.tls_cacertdir, "/etc/ssl/certs");
	assert_string_equal(t.c.tls_cert, "/c.pem");
	assert_string_equal(t.c.tls_key, "/c.key");
	assert_int_equal(t.c.tls_min, 13);
	assert_string_equal(t.c.tls_ciphers, "ECDHE-RSA-AES128-GCM-SHA256");
	assert_true(t.c.tls_resume);
	assert_false(t.c.tls_insecure);
	done(&t);

	assert_int_equal(
	        PARSE(&t, "-H", "ldaps://h", "--tls-insecure", "--tls-min", "1.2", "-e", "esearch", "-f", "uid=x"),
	        LDB_CLI_RUN);
	assert_true(t.c.tls_insecure);
	assert_int_equal(t.c.tls_min, 12);
	done(&t);
}

/* --tls-library, LDBENCH_TLS_LIBRARY, and --tls-ciphers's OpenSSL */
static void test_tls_library(void **state)
{
	(void)state;
	struct run t;

	unsetenv("LDBENCH_TLS_LIBRARY");
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_int_equal(t.c.tls_library, LDB_TLS_LIB_GNUTLS); /* the default */
	done(&t);
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "--tls-library", "openssl", "-e", "esearch", "-f", "uid=x"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.tls_library, LDB_TLS_LIB_OPENSSL);
	done(&t);
	assert_int_equal(
	        PARSE(&t, "-h", "h", "--starttls", "--tls-ciphers", "AES128-SHA", "-e", "esearch", "-f", "uid=x"),
	        LDB_CLI_RUN);
	assert_int_equal(t.c.tls_library, LDB_TLS_LIB_OPENSSL);
	done(&t);
	setenv("LDBENCH_TLS_LIBRARY", "openssl", 1);
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "-e", "esearch", "-f", "uid=x"), LDB_CLI_RUN);
	assert_int_equal(t.c.tls_library, LDB_TLS_LIB_OPENSSL);
	done(&t);
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "--tls-library", "gnutls", "-e", "esearch", "-f", "uid=x"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.tls_library, LDB_TLS_LIB_GNUTLS); /* the option wins */
	done(&t);
	setenv("LDBENCH_TLS_LIBRARY", "nss", 1);
	BAD("ldbench: LDBENCH_TLS_LIBRARY 'nss': must be openssl or gnutls", "-H", "ldaps://h", "-e", "esearch", "-f",
	    "uid=x");
	unsetenv("LDBENCH_TLS_LIBRARY");
	BAD("ldbench: --tls-library 'nss': must be openssl or gnutls", "-H", "ldaps://h", "--tls-library", "nss", "-e",
	    "esearch", "-f", "uid=x");
	BAD("ldbench: --tls-ciphers is an OpenSSL cipher list: not with --tls-library gnutls", "-H", "ldaps://h",
	    "--tls-library", "gnutls", "--tls-ciphers", "AES128-SHA", "-e", "esearch", "-f", "uid=x");
	BAD("ldbench: --tls-library needs TLS: give -Z, -H ldaps:// or --starttls", "--tls-library", "gnutls", "-e",
	    "esearch", "-f", "uid=x");
}

static void test_tls_bad(void **state)
{
	(void)state;
	BAD("ldbench: --starttls and ldaps (-Z, -H ldaps://) exclude each other: ldaps is TLS from the first byte",
	    "-H", "ldaps://h", "--starttls", "-e", "esearch", "-f", "uid=x");
	BAD("ldbench: --starttls and ldaps (-Z, -H ldaps://) exclude each other: ldaps is TLS from the first byte",
	    "-Z", "/db", "--starttls", "-e", "esearch", "-f", "uid=x");
	BAD("ldbench: --tls-cacert needs TLS: give -Z, -H ldaps:// or --starttls", "--tls-cacert", "/ca.pem", "-e",
	    "esearch", "-f", "uid=x");
	BAD("ldbench: --tls-insecure needs TLS: give -Z, -H ldaps:// or --starttls", "-H", "ldap://h", "--tls-insecure",
	    "-e", "esearch", "-f", "uid=x");
	BAD("ldbench: --tls-resume needs TLS: give -Z, -H ldaps:// or --starttls", "--tls-resume", "-e", "esearch",
	    "-f", "uid=x");
	BAD("ldbench: --tls-cert and --tls-key go together", "--starttls", "--tls-cert", "/c.pem", "-e", "esearch",
	    "-f", "uid=x");
	BAD("ldbench: --tls-cert and --tls-key go together", "--starttls", "--tls-key", "/c.key", "-e", "esearch", "-f",
	    "uid=x");
	BAD("ldbench: --tls-min '1.1': must be 1.2 or 1.3", "--starttls", "--tls-min", "1.1", "-e", "esearch");
	BAD("ldbench: --tls-cacert: empty value", "--starttls", "--tls-cacert", "", "-e", "esearch");
	BAD("ldbench: --tls-insecure takes no value", "--starttls", "--tls-insecure=yes", "-e", "esearch");
	BAD("ldbench: --tls-ciphers needs a value", "--starttls", "-e", "esearch", "--tls-ciphers");
}

/* ------------------------------------------------------------------ SASL */

static void test_sasl_good(void **state)
{
	(void)state;
	struct run t;

	/* keys: case-insensitive prefixes, in ldclt's order ("auth" is authzid) */
	assert_int_equal(PARSE(&t, "-o", "M=plain", "-o", "AUTHID=user00001", "-o", "auth=dn:uid=admin,dc=x", "-o",
	                       "re=EXAMPLE", "-o", "flags=q", "-o", "secProp=none", "-w", "secret", "-e", "bindonly"),
	                 LDB_CLI_RUN);
	assert_string_equal(t.c.sasl_mech, "PLAIN");
	assert_string_equal(t.c.sasl_authid, "user00001");
	assert_string_equal(t.c.sasl_authzid, "dn:uid=admin,dc=x");
	assert_string_equal(t.c.sasl_realm, "EXAMPLE");
	assert_null(t.c.bind_dn);
	done(&t);

	assert_int_equal(PARSE(&t, "-H", "ldaps://127.0.0.1", "--tls-cert", "/c.pem", "--tls-key", "/c.key", "-o",
	                       "mech=External", "-e", "esearch", "-f", "uid=x"),
	                 LDB_CLI_RUN);
	assert_string_equal(t.c.sasl_mech, "EXTERNAL");
	assert_null(t.c.sasl_authzid);
	done(&t);

	assert_int_equal(PARSE(&t, "-o", "mech=PLAIN", "-o", "authid=userXXXXX", "-w", "pwXXXXX", "-e",
	                       "bindonly,randomauthid,randomauthidlow=1,randomauthidhigh=99999"),
	                 LDB_CLI_RUN);
	assert_true(t.c.randomauthid);
	assert_int_equal(t.c.authid_low, 1);
	assert_int_equal(t.c.authid_high, 99999);
	assert_int_equal(t.c.binddn_low, 1); /* the worker's range for LDB_FIELD_BINDDN */
	assert_int_equal(t.c.binddn_high, 99999);
	assert_int_equal(t.c.sasl_authid_pat.width, 5);
	done(&t);
}

static void test_sasl_bad(void **state)
{
	(void)state;
	BAD("ldbench: -o mech=GSSAPI: not supported (EXTERNAL, PLAIN, CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1, "
	    "SCRAM-SHA-256)",
	    "-o", "mech=GSSAPI", "-o", "authid=u", "-w", "x", "-e", "bindonly");
	BAD("ldbench: -o mech=SCRAM-SHA-256 needs -o authid=USER", "-o", "mech=scram-sha-256", "-w", "x", "-e",
	    "bindonly");
	BAD("ldbench: -o mech=DIGEST-MD5 needs a password (-w, -y or LDBENCH_PASSWORD)", "-o", "mech=DIGEST-MD5", "-o",
	    "authid=u", "-e", "bindonly");
	BAD("ldbench: -o mech=PLAIN needs -o authid=USER", "-o", "mech=PLAIN", "-w", "x", "-e", "bindonly");
	BAD("ldbench: -o mech=PLAIN needs a password (-w, -y or LDBENCH_PASSWORD)", "-o", "mech=PLAIN", "-o",
	    "authid=u", "-e", "bindonly");
	BAD("ldbench: -o mech=EXTERNAL needs a client certificate (--tls-cert FILE --tls-key FILE)", "-H", "ldaps://h",
	    "-o", "mech=EXTERNAL", "-e", "bindonly");
	BAD("ldbench: -o authid is not used by EXTERNAL: the identity is the client certificate's "
	    "(-o authzid asks for another)",
	    "-H", "ldaps://h", "--tls-cert", "/c", "--tls-key", "/k", "-o", "mech=EXTERNAL", "-o", "authid=u", "-e",
	    "bindonly");
	BAD("ldbench: -o 'foo': unknown SASL setting (mech, authid, authzid, realm, secProp, flags)", "-o", "foo=bar",
	    "-e", "bindonly");
	BAD("ldbench: -o 'mech': expected KEY=VALUE (mech, authid, authzid, realm, secProp, flags)", "-o", "mech", "-e",
	    "bindonly");
	BAD("ldbench: -o '=x': expected KEY=VALUE (mech, authid, authzid, realm, secProp, flags)", "-o", "=x", "-e",
	    "bindonly");
	BAD("ldbench: -o mech given twice", "-o", "mech=PLAIN", "-o", "m=PLAIN", "-e", "bindonly");
	BAD("ldbench: -o authid=: empty value", "-o", "authid=", "-e", "bindonly");
	BAD("ldbench: -o flags=loud: must be automatic, interactive or quiet", "-o", "flags=loud", "-e", "bindonly");
	BAD("ldbench: -o authid needs -o mech= (EXTERNAL, PLAIN, CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1, SCRAM-SHA-256)",
	    "-o", "authid=u", "-w", "x", "-e", "bindonly", "-D", "cn=x");
	BAD("ldbench: -D and -o mech exclude each other (a SASL bind names its user with -o authid)", "-o",
	    "mech=PLAIN", "-o", "authid=u", "-w", "x", "-D", "cn=x", "-e", "bindonly");
	BAD("ldbench: -e bindonly needs -D (or -e randombinddnfromfile, or -o mech=)", "-e", "bindonly");
	BAD("ldbench: -e randomauthid needs -o mech= (not EXTERNAL) with an XXX in -o authid", "-D", "cn=x", "-w", "x",
	    "-e", "bindonly,randomauthid");
	BAD("ldbench: -e randomauthid needs an XXX placeholder in -o authid", "-o", "mech=PLAIN", "-o", "authid=u",
	    "-w", "x", "-e", "bindonly,randomauthid");
	BAD("ldbench: -e randomauthid needs randomauthidlow and randomauthidhigh", "-o", "mech=PLAIN", "-o",
	    "authid=uXXX", "-w", "x", "-e", "bindonly,randomauthid,randomauthidlow=1");
	BAD("ldbench: -e randomauthidhigh='x': not a whole number", "-o", "mech=PLAIN", "-o", "authid=uXXX", "-w", "x",
	    "-e", "bindonly,randomauthidhigh=x");
	/* the range must fit the X run, and the password's */
	{
		struct run t;

		assert_int_equal(PARSE(&t, "-o", "mech=PLAIN", "-o", "authid=uXXX", "-w", "x", "-e",
		                       "bindonly,randomauthid,randomauthidlow=1,randomauthidhigh=1000"),
		                 LDB_CLI_ERROR);
		assert_non_null(strstr(t.err, "randomauthidhigh"));
		assert_non_null(strstr(t.err, "1000"));
		done(&t);
	}
	BAD("ldbench: randomauthidhigh 1000 needs 4 digits but the XXX of the password (-w) has 3 X", "-o",
	    "mech=PLAIN", "-o", "authid=uXXXX", "-w", "pXXX", "-e",
	    "bindonly,randomauthid,randomauthidlow=1,randomauthidhigh=1000");
}

/* ------------------------------------------------------ SASL bind templates */

/* The bind a template renders for `v` must equal a direct encoding. */
static void expect_render(const struct ldb_config *c, int64_t v, const char *mech, const uint8_t *cred, size_t credlen,
                          int has_cred)
{
	struct ldb_reqset rs;
	struct ldb_bytes direct = { 0 };
	char err[256] = "";
	uint8_t a[1024], b[1024];
	int64_t vals[LDB_FIELD_COUNT] = { 0 };

	if (ldb_reqset_build_bind(&rs, c, err, sizeof err) != 0)
		fail_msg("build: %s", err);
	vals[LDB_FIELD_BINDDN] = v;
	size_t n = ldb_req_render(&rs, 0, vals, 7, a, sizeof a);

	assert_true(n > 0);
	assert_int_equal(ldb_wire_encode_bind_sasl(&direct, "", mech, cred, credlen, has_cred, err), 0);
	size_t m = ldb_wire_frame(b, sizeof b, 7, direct.data, direct.len);

	assert_int_equal(n, m);
	assert_memory_equal(a, b, n);
	ldb_bytes_free(&direct);
	ldb_reqset_free(&rs);
}

static void test_sasl_templates(void **state)
{
	(void)state;
	struct run t;

	/* PLAIN with randomauthid: the authid's and the password's XXX are patched */
	assert_int_equal(PARSE(&t, "-o", "mech=PLAIN", "-o", "authid=userXXXXX", "-w", "pw-XXXXX", "-e",
	                       "bindonly,randomauthid,randomauthidlow=1,randomauthidhigh=99999"),
	                 LDB_CLI_RUN);
	expect_render(&t.c, 42, "PLAIN", (const uint8_t *)"\0user00042\0pw-00042", 19, 1);
	expect_render(&t.c, 99999, "PLAIN", (const uint8_t *)"\0user99999\0pw-99999", 19, 1);
	done(&t);

	/* nozeropad: one template per digit count */
	assert_int_equal(PARSE(&t, "-o", "mech=PLAIN", "-o", "authid=uXXX", "-o", "authz=u:admin", "-w", "s3cr3t", "-e",
	                       "bindonly,nozeropad,randomauthid,randomauthidlow=5,randomauthidhigh=120"),
	                 LDB_CLI_RUN);
	expect_render(&t.c, 7, "PLAIN", (const uint8_t *)"u:admin\0u7\0s3cr3t", 17, 1);
	expect_render(&t.c, 120, "PLAIN", (const uint8_t *)"u:admin\0u120\0s3cr3t", 19, 1);
	done(&t);

	/* EXTERNAL: empty credentials (one round trip), or the authzid */
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "--tls-cert", "/c", "--tls-key", "/k", "-o", "mech=EXTERNAL",
	                       "-e", "bindonly"),
	                 LDB_CLI_RUN);
	expect_render(&t.c, 0, "EXTERNAL", (const uint8_t *)"", 0, 1);
	done(&t);
	assert_int_equal(PARSE(&t, "-H", "ldaps://h", "--tls-cert", "/c", "--tls-key", "/k", "-o", "mech=EXTERNAL",
	                       "-o", "authzid=dn:uid=user00002,ou=People,dc=example,dc=com", "-e", "bindonly"),
	                 LDB_CLI_RUN);
	const char *z = "dn:uid=user00002,ou=People,dc=example,dc=com";

	expect_render(&t.c, 0, "EXTERNAL", (const uint8_t *)z, strlen(z), 1);
	done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_z_nss_db),    cmocka_unit_test(test_ldaps_url_port),
		cmocka_unit_test(test_tls_options), cmocka_unit_test(test_tls_bad),
		cmocka_unit_test(test_tls_library), cmocka_unit_test(test_sasl_good),
		cmocka_unit_test(test_sasl_bad),    cmocka_unit_test(test_sasl_templates),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
