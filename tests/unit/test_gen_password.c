/* Unit tests of `gen users --hash` (src/gen/password.c): salted SHA-1/256/512
 * values that verify against the uid, a fresh salt per user.  Through ldb_gen_main and
 * ldb_gen_users_write (src/gen/gen.h); helpers in gen_run.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "gen/gen.h"
#include "gen_run.h"

static const char expected_head[] = GEN_USERS_HEAD;

static size_t b64_decode(const char *in, unsigned char *out)
{
	size_t n = strlen(in);
	int len = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
	assert_true(len >= 0);
	while (n > 0 && in[n - 1] == '=') { /* EVP_DecodeBlock counts the padding */
		n--;
		len--;
	}
	return (size_t)len;
}

/* Check one "{TAG}base64" value: digest(password + salt) + 8-byte salt. */
static void check_salted(const char *value, const char *tag, const EVP_MD *md, const char *password,
                         unsigned char salt[8])
{
	unsigned char raw[256], dig[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	size_t tl = strlen(tag);

	assert_memory_equal(value, tag, tl);
	size_t n = b64_decode(value + tl, raw);
	size_t mdl = (size_t)EVP_MD_size(md);
	assert_int_equal(n, mdl + 8);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	assert_non_null(ctx);
	assert_int_equal(EVP_DigestInit_ex(ctx, md, NULL), 1);
	assert_int_equal(EVP_DigestUpdate(ctx, password, strlen(password)), 1);
	assert_int_equal(EVP_DigestUpdate(ctx, raw + mdl, 8), 1);
	assert_int_equal(EVP_DigestFinal_ex(ctx, dig, &dlen), 1);
	EVP_MD_CTX_free(ctx);
	assert_int_equal(dlen, mdl);
	assert_memory_equal(raw, dig, mdl);
	memcpy(salt, raw + mdl, 8);
}

/* The userPassword value of the k-th (0-based) user in text (static buffer). */
static const char *nth_password(const char *text, int k)
{
	static char buf[256];
	const char *p = text;
	for (int i = 0; i <= k; i++) {
		p = strstr(p, "\nuserPassword: ");
		assert_non_null(p);
		p += 15;
	}
	size_t n = strcspn(p, "\n");
	assert_true(n < sizeof(buf));
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

static void test_users_hash(void **state)
{
	struct ctx *c = *state;
	static const struct {
		const char *opt, *tag;
		const EVP_MD *(*md)(void);
	} kinds[] = {
		{ "ssha", "{SSHA}", EVP_sha1 },
		{ "SSHA256", "{SSHA256}", EVP_sha256 },
		{ "ssha512", "{SSHA512}", EVP_sha512 },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "3", "--hash",
		                         kinds[k].opt, "--ldif-file", c->ldif, NULL),
		                 0);
		char *text = slurp(c->ldif, NULL);
		/* everything else as without --hash */
		assert_memory_equal(text, expected_head, strstr(expected_head, "userPassword") - expected_head);
		assert_int_equal(count_prefix_lines(text, "userPassword: "), 3);
		unsigned char salts[3][8];
		char pw[16];
		for (int i = 0; i < 3; i++) {
			snprintf(pw, sizeof(pw), "user%05d", i + 1);
			check_salted(nth_password(text, i), kinds[k].tag, kinds[k].md(), pw, salts[i]);
		}
		/* a fresh salt per user */
		assert_memory_not_equal(salts[0], salts[1], 8);
		assert_memory_not_equal(salts[1], salts[2], 8);
		free(text);
	}

	/* a second run hashes with other salts */
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "ssha", NULL), 0);
	char *a = slurp(c->out, NULL);
	assert_int_equal(run_gen(c, "gen", "users", "--suffix", "dc=x", "--number", "1", "--hash", "ssha", NULL), 0);
	char *b = slurp(c->out, NULL);
	assert_string_not_equal(nth_password(a, 0), "");
	char first[256];
	strcpy(first, nth_password(a, 0));
	assert_string_not_equal(first, nth_password(b, 0));
	free(a);
	free(b);

	/* --hash clear: the password itself */
	assert_int_equal(
	        run_gen(c, "gen", "users", "--suffix", "dc=example,dc=com", "--number", "2", "--hash", "clear", NULL),
	        0);
	char *out = slurp(c->out, NULL);
	assert_memory_equal(out, expected_head, sizeof(expected_head) - 1);
	free(out);

	/* the write API */
	char *buf = NULL;
	size_t len = 0;
	char err[256] = "";
	FILE *f = open_memstream(&buf, &len);
	struct ldb_gen_users u = {
		.suffix = "dc=example,dc=com", .number = 1, .start_idx = 7, .hash = LDB_GEN_HASH_SSHA512
	};
	assert_int_equal(ldb_gen_users_write(&u, f, err, sizeof(err)), 0);
	fclose(f);
	unsigned char salt[8];
	check_salted(nth_password(buf, 0), "{SSHA512}", EVP_sha512(), "user00007", salt);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_users_hash, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
