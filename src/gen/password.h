/* Salted password hashes of `gen users --hash`: {SSHA}, {SSHA256} and {SSHA512},
 * base64(digest(password + salt) + salt) with 8 random salt bytes per value
 * (RAND_bytes in bulk). */
#ifndef LDBENCH_GEN_PASSWORD_H
#define LDBENCH_GEN_PASSWORD_H

#include <stddef.h>
#include <openssl/evp.h>

#include "gen/gen.h"

#define GEN_HASH_MAX 128 /* "{SSHA512}" + base64(64 + 8 bytes) = 105 */

#define GEN_SALT_LEN 8 /* salt bytes per value */
/* salts drawn from RAND_bytes at a time */
#define GEN_SALT_POOL (GEN_SALT_LEN * 1024)

/* The digest of one --hash kind, its context, and a pool of random salts. */
struct gen_hasher {
	enum ldb_gen_hash kind;
	const EVP_MD *md;
	const char *tag;
	size_t taglen;
	EVP_MD_CTX *ctx;
	unsigned char salts[GEN_SALT_POOL]; /* RAND_bytes in bulk */
	size_t salt_pos;
};

/* --hash's value (clear, ssha, ssha256, ssha512; any case) into *out.
 * @return 0 or -1 with err. */
int gen_hash_parse(const char *s, enum ldb_gen_hash *out, char *err, size_t cap);

/* @return 0, or -1 with err (h is then safe to gen_hasher_free). */
int gen_hasher_init(struct gen_hasher *h, enum ldb_gen_hash kind, char *err, size_t cap);

/* Free what gen_hasher_init made. */
void gen_hasher_free(struct gen_hasher *h);

/* The userPassword value of pw into out (GEN_HASH_MAX bytes).
 * @return its length, or 0 when the digest or the random generator failed. */
size_t gen_hasher_value(struct gen_hasher *h, const char *pw, size_t n, char *out);

#endif
