/* sasl: the multi-step mechanisms' client side against the RFCs' examples
 * (CRAM-MD5: RFC 2195; SCRAM-SHA-1: RFC 5802 section 5; SCRAM-SHA-256:
 * RFC 7677 section 3), a server signature that does not verify, the server's
 * refusal passed through, the BindRequest writer byte for byte against the
 * start-up encoder, and serverSaslCreds read out of a BindResponse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/sasl.h"
#include "proto/wire.h"

static struct ldb_rng rng;

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(ldb_sasl_mech_lookup("scram-sha-256"), LDB_SASL_SCRAM_SHA256);
	assert_int_equal(ldb_sasl_mech_lookup("DIGEST-MD5"), LDB_SASL_DIGEST_MD5);
	assert_int_equal(ldb_sasl_mech_lookup("PLAIN"), LDB_SASL_NONE);
	assert_int_equal(ldb_sasl_mech_lookup("SCRAM-SHA-3"), LDB_SASL_NONE);
	assert_string_equal(ldb_sasl_mech_name(LDB_SASL_CRAM_MD5), "CRAM-MD5");
}

static void test_cram_md5(void **state)
{
	(void)state;
	static const char chal[] = "<1896.697170952@postoffice.reston.mci.net>";
	struct ldb_sasl_conf k = { .mech = LDB_SASL_CRAM_MD5 };
	struct ldb_sasl_state st;
	bool has;
	int rc = 14;
	assert_int_equal(ldb_sasl_start(&st, &k, "tim", 3, "tanstaaftanstaaf", 16, &rng, &has), 0);
	assert_false(has);
	assert_true(ldb_sasl_step(&st, &k, &rc, (const uint8_t *)chal, strlen(chal), &rng, &has));
	assert_int_equal(st.outlen, strlen("tim b913a602c7eda7a495b4e6e7334d3890"));
	assert_memory_equal(st.out, "tim b913a602c7eda7a495b4e6e7334d3890", st.outlen);
	rc = 0;
	assert_false(ldb_sasl_step(&st, &k, &rc, NULL, 0, &rng, &has));
	assert_int_equal(rc, 0);
}

/* One SCRAM exchange with the RFC's client nonce put in place of ours. */
static void scram(enum ldb_sasl_mech m, const char *first_bare, const char *server_first, const char *client_final,
                  const char *server_final)
{
	struct ldb_sasl_conf k = { .mech = m };
	struct ldb_sasl_state st;
	bool has;
	int rc = 14;
	assert_int_equal(ldb_sasl_start(&st, &k, "user", 4, "pencil", 6, &rng, &has), 0);
	assert_true(has);
	assert_memory_equal(st.out, "n,,n=user,r=", 12);
	strcpy(st.first, first_bare);
	st.firstlen = (uint16_t)strlen(first_bare);
	assert_true(ldb_sasl_step(&st, &k, &rc, (const uint8_t *)server_first, strlen(server_first), &rng, &has));
	assert_int_equal(st.outlen, strlen(client_final));
	assert_memory_equal(st.out, client_final, st.outlen);
	struct ldb_sasl_state kept = st;
	rc = 0;
	assert_false(ldb_sasl_step(&st, &k, &rc, (const uint8_t *)server_final, strlen(server_final), &rng, &has));
	assert_int_equal(rc, 0);
	/* a server that does not know the password: the client's code */
	rc = 0;
	assert_false(ldb_sasl_step(&kept, &k, &rc, (const uint8_t *)"v=AAAA", 6, &rng, &has));
	assert_int_equal(rc, LDB_SASL_RC_CLIENT);
}

static void test_scram_sha1(void **state)
{
	(void)state;
	scram(LDB_SASL_SCRAM_SHA1, "n=user,r=fyko+d2lbbFgONRv9qkxdawL",
	      "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
	      "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
	      "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");
}

static void test_scram_sha256(void **state)
{
	(void)state;
	scram(LDB_SASL_SCRAM_SHA256, "n=user,r=rOprNGfwEbeRWgbNEkqO",
	      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
	      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
	      "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
	      "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

static void test_refusals(void **state)
{
	(void)state;
	struct ldb_sasl_conf k = { .mech = LDB_SASL_SCRAM_SHA1 };
	struct ldb_sasl_state st;
	bool has;
	int rc = 49;
	/* the server's refusal (a wrong password, an unknown user) ends it as is */
	assert_int_equal(ldb_sasl_start(&st, &k, "user", 4, "pencil", 6, &rng, &has), 0);
	assert_false(ldb_sasl_step(&st, &k, &rc, NULL, 0, &rng, &has));
	assert_int_equal(rc, 49);
	/* a server nonce that does not extend ours, or nonsense: the client's code */
	rc = 14;
	assert_int_equal(ldb_sasl_start(&st, &k, "user", 4, "pencil", 6, &rng, &has), 0);
	assert_false(ldb_sasl_step(&st, &k, &rc, (const uint8_t *)"r=abc,s=QSXCR+Q6sek8bf92,i=4096", 31, &rng, &has));
	assert_int_equal(rc, LDB_SASL_RC_CLIENT);
	k.mech = LDB_SASL_DIGEST_MD5;
	rc = 14;
	assert_int_equal(ldb_sasl_start(&st, &k, "user", 4, "pencil", 6, &rng, &has), 0);
	assert_false(ldb_sasl_step(&st, &k, &rc, (const uint8_t *)"realm=\"x\"", 9, &rng, &has));
	assert_int_equal(rc, LDB_SASL_RC_CLIENT);
	/* too long a user for the state */
	char big[LDB_SASL_FIELD_MAX + 2];
	memset(big, 'u', sizeof big);
	assert_int_equal(ldb_sasl_start(&st, &k, big, sizeof big, "pw", 2, &rng, &has), -1);
}

static void test_put_bind(void **state)
{
	(void)state;
	static const uint8_t cred[] = "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL";
	const int32_t ids[] = { 1, 127, 128, 40000, 9000000, 0x7ffffff0 };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		for (int has = 0; has < 2; has++) {
			struct ldb_bytes op = { 0 };
			uint8_t want[256], got[256];
			char err[LDB_WIRE_ERRLEN];
			assert_int_equal(
			        ldb_wire_encode_bind_sasl(&op, "", "SCRAM-SHA-1", cred, sizeof cred - 1, has, err), 0);
			size_t n = ldb_wire_frame(want, sizeof want, ids[i], op.data, op.len);
			size_t m =
			        ldb_sasl_put_bind(got, sizeof got, ids[i], "SCRAM-SHA-1", cred, sizeof cred - 1, has);
			assert_int_equal(m, n);
			assert_memory_equal(got, want, n);
			assert_int_equal(
			        ldb_sasl_put_bind(got, n - 1, ids[i], "SCRAM-SHA-1", cred, sizeof cred - 1, has), 0);
			ldb_bytes_free(&op);
		}
}

static void test_server_creds(void **state)
{
	(void)state;
	/* BindResponse contents: saslBindInProgress, "", "", serverSaslCreds "abc" */
	static const uint8_t with[] = { 0x0a, 0x01, 0x0e, 0x04, 0x00, 0x04, 0x00, 0x87, 0x03, 'a', 'b', 'c' };
	static const uint8_t without[] = { 0x0a, 0x01, 0x31, 0x04, 0x00, 0x04, 0x00 };
	const uint8_t *c = NULL;
	size_t n = 0;
	assert_int_equal(ldb_sasl_server_creds(with, sizeof with, &c, &n), 1);
	assert_int_equal(n, 3);
	assert_memory_equal(c, "abc", 3);
	assert_int_equal(ldb_sasl_server_creds(without, sizeof without, &c, &n), 0);
	assert_int_equal(ldb_sasl_server_creds(with, sizeof with - 1, &c, &n), -1);
}

int main(void)
{
	ldb_rng_seed(&rng, 1, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),        cmocka_unit_test(test_cram_md5), cmocka_unit_test(test_scram_sha1),
		cmocka_unit_test(test_scram_sha256), cmocka_unit_test(test_refusals), cmocka_unit_test(test_put_bind),
		cmocka_unit_test(test_server_creds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
