/* Salted password hashes (OpenSSL digests). */
#include "gen/password.h"

#include <string.h>
#include <strings.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "gen/out.h"
#include "ldif/ldif.h"

static const char *hash_name(enum ldb_gen_hash kind)
{
	switch (kind) {
	case LDB_GEN_HASH_SSHA: return "ssha";
	case LDB_GEN_HASH_SSHA256: return "ssha256";
	case LDB_GEN_HASH_SSHA512: return "ssha512";
	case LDB_GEN_HASH_CLEAR: break;
	}
	return "clear";
}

int gen_hash_parse(const char *s, enum ldb_gen_hash *out, char *err, size_t cap)
{
	static const enum ldb_gen_hash all[] = { LDB_GEN_HASH_CLEAR, LDB_GEN_HASH_SSHA, LDB_GEN_HASH_SSHA256,
		                                 LDB_GEN_HASH_SSHA512 };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcasecmp(s, hash_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	}
	gen_err(err, cap, "--hash: '%s' is not one of clear, ssha, ssha256, ssha512", s);
	return -1;
}

int gen_hasher_init(struct gen_hasher *h, enum ldb_gen_hash kind, char *err, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	switch (kind) {
	case LDB_GEN_HASH_SSHA:
		h->md = EVP_sha1();
		h->tag = "{SSHA}";
		break;
	case LDB_GEN_HASH_SSHA256:
		h->md = EVP_sha256();
		h->tag = "{SSHA256}";
		break;
	case LDB_GEN_HASH_SSHA512:
		h->md = EVP_sha512();
		h->tag = "{SSHA512}";
		break;
	case LDB_GEN_HASH_CLEAR: return 0;
	}
	h->taglen = strlen(h->tag);
	h->ctx = EVP_MD_CTX_new();
	h->salt_pos = GEN_SALT_POOL; /* empty: filled on first use */
	if (h->md == NULL || h->ctx == NULL) {
		gen_err(err, cap, "--hash %s: digest not available", hash_name(kind));
		return -1;
	}
	return 0;
}

void gen_hasher_free(struct gen_hasher *h)
{
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

size_t gen_hasher_value(struct gen_hasher *h, const char *pw, size_t n, char *out)
{
	unsigned char buf[EVP_MAX_MD_SIZE + GEN_SALT_LEN];
	unsigned int dlen = 0;

	if (h->salt_pos + GEN_SALT_LEN > GEN_SALT_POOL) {
		if (RAND_bytes(h->salts, GEN_SALT_POOL) != 1)
			return 0;
		h->salt_pos = 0;
	}
	const unsigned char *salt = h->salts + h->salt_pos;
	h->salt_pos += GEN_SALT_LEN;
	if (EVP_DigestInit_ex(h->ctx, h->md, NULL) != 1 || EVP_DigestUpdate(h->ctx, pw, n) != 1 ||
	    EVP_DigestUpdate(h->ctx, salt, GEN_SALT_LEN) != 1 || EVP_DigestFinal_ex(h->ctx, buf, &dlen) != 1)
		return 0;
	memcpy(buf + dlen, salt, GEN_SALT_LEN);
	memcpy(out, h->tag, h->taglen);
	return h->taglen + ldb_base64_encode(buf, dlen + GEN_SALT_LEN, out + h->taglen);
}
