/* Multi-step SASL mechanisms, client side: see sasl.h. */
#define OPENSSL_SUPPRESS_DEPRECATED /* the low-level digests: no allocation, unlike EVP's fetches */
#include "proto/sasl.h"

#include <openssl/md5.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/base64.h"

#define RC_IN_PROGRESS 14 /* saslBindInProgress */

/* What the next result answers. */
enum { PH_CHALLENGE, PH_SERVER_FIRST, PH_FINAL, PH_DONE };

static const char *const names[LDB_SASL_MECH_COUNT] = { "", "CRAM-MD5", "DIGEST-MD5", "SCRAM-SHA-1", "SCRAM-SHA-256" };

enum ldb_sasl_mech ldb_sasl_mech_lookup(const char *name)
{
	for (int m = 1; m < LDB_SASL_MECH_COUNT; m++)
		if (strcasecmp(name, names[m]) == 0)
			return (enum ldb_sasl_mech)m;
	return LDB_SASL_NONE;
}

const char *ldb_sasl_mech_name(enum ldb_sasl_mech m)
{
	return m > LDB_SASL_NONE && m < LDB_SASL_MECH_COUNT ? names[m] : "";
}

/* ------------------------------------------------ digests, HMAC, PBKDF2 */

enum halg { H_MD5, H_SHA1, H_SHA256 };
union hctx {
	MD5_CTX md5;
	SHA_CTX sha1;
	SHA256_CTX sha256;
};
#define HMAX 32

static size_t h_len(enum halg a)
{
	return a == H_MD5 ? 16 : a == H_SHA1 ? 20 : 32;
}

static void h_init(enum halg a, union hctx *c)
{
	if (a == H_MD5)
		MD5_Init(&c->md5);
	else if (a == H_SHA1)
		SHA1_Init(&c->sha1);
	else
		SHA256_Init(&c->sha256);
}

static void h_update(enum halg a, union hctx *c, const void *p, size_t n)
{
	if (a == H_MD5)
		MD5_Update(&c->md5, p, n);
	else if (a == H_SHA1)
		SHA1_Update(&c->sha1, p, n);
	else
		SHA256_Update(&c->sha256, p, n);
}

static void h_final(enum halg a, union hctx *c, uint8_t *out)
{
	if (a == H_MD5)
		MD5_Final(out, &c->md5);
	else if (a == H_SHA1)
		SHA1_Final(out, &c->sha1);
	else
		SHA256_Final(out, &c->sha256);
}

static void h_once(enum halg a, const void *p, size_t n, uint8_t *out)
{
	union hctx c;
	h_init(a, &c);
	h_update(a, &c, p, n);
	h_final(a, &c, out);
}

/* An HMAC key: the inner and outer contexts after their pads (RFC 2104). */
struct hmac {
	enum halg a;
	union hctx in, out;
};

static void hmac_key(struct hmac *k, enum halg a, const void *key, size_t keylen)
{
	uint8_t pad[64], kh[HMAX];
	k->a = a;
	if (keylen > 64) {
		h_once(a, key, keylen, kh);
		key = kh;
		keylen = h_len(a);
	}
	memset(pad, 0x36, sizeof pad);
	for (size_t i = 0; i < keylen; i++)
		pad[i] ^= ((const uint8_t *)key)[i];
	h_init(a, &k->in);
	h_update(a, &k->in, pad, 64);
	for (size_t i = 0; i < 64; i++)
		pad[i] ^= 0x36 ^ 0x5c;
	h_init(a, &k->out);
	h_update(a, &k->out, pad, 64);
}

/* HMAC of two pieces of message (b may be empty). */
static void hmac2(const struct hmac *k, const void *m, size_t n, const void *b, size_t bn, uint8_t *mac)
{
	union hctx c = k->in;
	uint8_t inner[HMAX];
	h_update(k->a, &c, m, n);
	if (bn > 0)
		h_update(k->a, &c, b, bn);
	h_final(k->a, &c, inner);
	c = k->out;
	h_update(k->a, &c, inner, h_len(k->a));
	h_final(k->a, &c, mac);
}

/* SCRAM's Hi(): PBKDF2 with one block of output (RFC 5802 2.2). */
static void pbkdf2(enum halg a, const char *pw, size_t pwlen, const uint8_t *salt, size_t saltlen, uint32_t iter,
                   uint8_t *out)
{
	static const uint8_t one[4] = { 0, 0, 0, 1 };
	struct hmac k;
	uint8_t u[HMAX];
	size_t n = h_len(a);
	hmac_key(&k, a, pw, pwlen);
	hmac2(&k, salt, saltlen, one, 4, u);
	memcpy(out, u, n);
	for (uint32_t i = 1; i < iter; i++) {
		hmac2(&k, u, n, NULL, 0, u);
		for (size_t j = 0; j < n; j++)
			out[j] ^= u[j];
	}
}

/* ------------------------------------------------ text helpers */

/* @return the length written, 0 when cap is too small (n > 0). */
static size_t b64_encode(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	return ldb_base64_len(n) > cap ? 0 : ldb_base64_encode(src, n, dst);
}

static void hex(char *dst, const uint8_t *src, size_t n)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		dst[2 * i] = d[src[i] >> 4];
		dst[2 * i + 1] = d[src[i] & 15];
	}
}

/* A bounded writer into st->out. */
struct out {
	char *p;
	size_t len, cap;
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void puts0(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* DIGEST-MD5's quoted-string: '"' and '\' escaped. */
static void put_quoted(struct out *o, const char *s, size_t n)
{
	put(o, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			put(o, "\\", 1);
		put(o, s + i, 1);
	}
	put(o, "\"", 1);
}

/* SCRAM's saslname: ',' as =2C, '=' as =3D. */
static void put_saslname(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ',')
			put(o, "=2C", 3);
		else if (s[i] == '=')
			put(o, "=3D", 3);
		else
			put(o, s + i, 1);
}

/* A client nonce: n characters of the base64 alphabet (no ','). */
static void nonce(char *dst, size_t n, struct ldb_rng *rng)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i++)
		dst[i] = b64[ldb_rng_next(rng) >> 58];
}

/* ------------------------------------------------ CRAM-MD5 */

static bool cram_response(struct ldb_sasl_state *st, const uint8_t *chal, size_t n)
{
	struct hmac k;
	uint8_t mac[16];
	struct out o = { (char *)st->out, 0, sizeof st->out, false };
	hmac_key(&k, H_MD5, st->pw, st->pwlen);
	hmac2(&k, chal, n, NULL, 0, mac);
	put(&o, st->user, st->userlen);
	put(&o, " ", 1);
	if (!o.full && o.cap - o.len >= 32) {
		hex(o.p + o.len, mac, 16);
		o.len += 32;
	} else {
		o.full = true;
	}
	st->outlen = (uint16_t)o.len;
	return !o.full;
}

/* ------------------------------------------------ DIGEST-MD5 */

struct digest_chal {
	const char *realm, *nonce;
	size_t realmlen, noncelen;
	bool auth, md5sess;
};

/* One directive of a challenge at s[*i..n): its name and value (a quoted
 * value's escapes left in: realms and nonces have none in practice, and
 * then a mismatch only fails the bind).  @return false at the end or on
 * nonsense. */
static bool digest_directive(const char *s, size_t n, size_t *i, const char **key, size_t *klen, const char **val,
                             size_t *vlen)
{
	size_t p = *i;
	while (p < n && (s[p] == ',' || s[p] == ' ' || s[p] == '\t'))
		p++;
	if (p >= n)
		return false;
	*key = s + p;
	while (p < n && s[p] != '=')
		p++;
	if (p >= n)
		return false;
	*klen = (size_t)(s + p - *key);
	p++;
	if (p < n && s[p] == '"') {
		*val = s + ++p;
		while (p < n && s[p] != '"')
			p += s[p] == '\\' ? 2 : 1;
		if (p >= n)
			return false;
		*vlen = (size_t)(s + p - *val);
		p++;
	} else {
		*val = s + p;
		while (p < n && s[p] != ',')
			p++;
		*vlen = (size_t)(s + p - *val);
	}
	*i = p;
	return true;
}

static bool digest_parse(const char *s, size_t n, struct digest_chal *c)
{
	const char *key, *val;
	size_t klen, vlen, i = 0;
	memset(c, 0, sizeof *c);
	while (digest_directive(s, n, &i, &key, &klen, &val, &vlen)) {
		if (klen == 5 && strncasecmp(key, "realm", 5) == 0 && c->realm == NULL) {
			c->realm = val;
			c->realmlen = vlen;
		} else if (klen == 5 && strncasecmp(key, "nonce", 5) == 0) {
			c->nonce = val;
			c->noncelen = vlen;
		} else if (klen == 3 && strncasecmp(key, "qop", 3) == 0) {
			for (size_t j = 0; j + 4 <= vlen; j++)
				if (strncasecmp(val + j, "auth", 4) == 0 && (j + 4 == vlen || val[j + 4] == ',') &&
				    (j == 0 || val[j - 1] == ',' || val[j - 1] == ' '))
					c->auth = true;
		} else if (klen == 9 && strncasecmp(key, "algorithm", 9) == 0) {
			c->md5sess = vlen == 8 && strncasecmp(val, "md5-sess", 8) == 0;
		}
	}
	return c->nonce != NULL && c->auth && c->md5sess;
}

/* hex(MD5(hex(HA1) ":" nonce ":00000001:" cnonce ":auth:" hex(MD5(a2 digest-uri)))) into out (32). */
static void digest_kd(const char *ha1hex, const struct digest_chal *c, const char *cnonce, const char *a2,
                      const struct ldb_sasl_conf *k, char *out)
{
	union hctx h;
	uint8_t d[16];
	char ha2hex[32];
	h_init(H_MD5, &h);
	h_update(H_MD5, &h, a2, strlen(a2));
	h_update(H_MD5, &h, "ldap/", 5);
	h_update(H_MD5, &h, k->host, strlen(k->host));
	h_final(H_MD5, &h, d);
	hex(ha2hex, d, 16);
	h_init(H_MD5, &h);
	h_update(H_MD5, &h, ha1hex, 32);
	h_update(H_MD5, &h, ":", 1);
	h_update(H_MD5, &h, c->nonce, c->noncelen);
	h_update(H_MD5, &h, ":00000001:", 10);
	h_update(H_MD5, &h, cnonce, 16);
	h_update(H_MD5, &h, ":auth:", 6);
	h_update(H_MD5, &h, ha2hex, 32);
	h_final(H_MD5, &h, d);
	hex(out, d, 16);
}

/* hex(HA1): MD5(MD5(user ":" realm ":" pw) ":" nonce ":" cnonce [":" authzid]). */
static void digest_ha1(const struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const char *realm,
                       size_t realmlen, const struct digest_chal *c, const char *cnonce, char *out)
{
	union hctx h;
	uint8_t d[16];
	h_init(H_MD5, &h);
	h_update(H_MD5, &h, st->user, st->userlen);
	h_update(H_MD5, &h, ":", 1);
	h_update(H_MD5, &h, realm, realmlen);
	h_update(H_MD5, &h, ":", 1);
	h_update(H_MD5, &h, st->pw, st->pwlen);
	h_final(H_MD5, &h, d);
	h_init(H_MD5, &h);
	h_update(H_MD5, &h, d, 16);
	h_update(H_MD5, &h, ":", 1);
	h_update(H_MD5, &h, c->nonce, c->noncelen);
	h_update(H_MD5, &h, ":", 1);
	h_update(H_MD5, &h, cnonce, 16);
	if (k->authzid != NULL) {
		h_update(H_MD5, &h, ":", 1);
		h_update(H_MD5, &h, k->authzid, strlen(k->authzid));
	}
	h_final(H_MD5, &h, d);
	hex(out, d, 16);
}

/* The digest-response to a challenge (RFC 2831 2.1.2); the rspauth the
 * server must send back kept in st->expect. */
static bool digest_response(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const uint8_t *chal, size_t n,
                            struct ldb_rng *rng)
{
	struct digest_chal c;
	struct out o = { (char *)st->out, 0, sizeof st->out, false };
	char cnonce[16], ha1[32], resp[32];
	if (!digest_parse((const char *)chal, n, &c))
		return false;
	const char *realm = k->realm != NULL ? k->realm : c.realm != NULL ? c.realm : "";
	size_t realmlen = k->realm != NULL ? strlen(k->realm) : c.realm != NULL ? c.realmlen : 0;
	nonce(cnonce, sizeof cnonce, rng);
	digest_ha1(st, k, realm, realmlen, &c, cnonce, ha1);
	digest_kd(ha1, &c, cnonce, "AUTHENTICATE:", k, resp);
	digest_kd(ha1, &c, cnonce, ":", k, (char *)st->expect);
	st->expectlen = 32;
	puts0(&o, "username=");
	put_quoted(&o, st->user, st->userlen);
	if (realmlen > 0) {
		puts0(&o, ",realm=");
		put_quoted(&o, realm, realmlen);
	}
	puts0(&o, ",nonce=");
	put_quoted(&o, c.nonce, c.noncelen);
	puts0(&o, ",cnonce=");
	put_quoted(&o, cnonce, sizeof cnonce);
	puts0(&o, ",nc=00000001,qop=auth,digest-uri=\"ldap/");
	puts0(&o, k->host);
	puts0(&o, "\",response=");
	put(&o, resp, 32);
	puts0(&o, ",charset=utf-8");
	if (k->authzid != NULL) {
		puts0(&o, ",authzid=");
		put_quoted(&o, k->authzid, strlen(k->authzid));
	}
	st->outlen = (uint16_t)o.len;
	return !o.full;
}

/* "rspauth=HEX" from the server, against what was kept. */
static bool digest_verify(const struct ldb_sasl_state *st, const uint8_t *cred, size_t n)
{
	return n == 8 + 32 && memcmp(cred, "rspauth=", 8) == 0 && st->expectlen == 32 &&
	       memcmp(cred + 8, st->expect, 32) == 0;
}

/* ------------------------------------------------ SCRAM */

static enum halg scram_alg(const struct ldb_sasl_conf *k)
{
	return k->mech == LDB_SASL_SCRAM_SHA256 ? H_SHA256 : H_SHA1;
}

/* The GS2 header: "n,," or "n,a=AUTHZID,". */
static void scram_gs2(struct out *o, const struct ldb_sasl_conf *k)
{
	puts0(o, "n,");
	if (k->authzid != NULL) {
		puts0(o, "a=");
		put_saslname(o, k->authzid, strlen(k->authzid));
	}
	puts0(o, ",");
}

static bool scram_first(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, struct ldb_rng *rng)
{
	struct out f = { st->first, 0, sizeof st->first, false };
	struct out o = { (char *)st->out, 0, sizeof st->out, false };
	char cn[24];
	nonce(cn, sizeof cn, rng);
	puts0(&f, "n=");
	put_saslname(&f, st->user, st->userlen);
	puts0(&f, ",r=");
	put(&f, cn, sizeof cn);
	scram_gs2(&o, k);
	put(&o, f.p, f.len);
	st->firstlen = (uint16_t)f.len;
	st->outlen = (uint16_t)o.len;
	return !f.full && !o.full;
}

/* server-first-message: "r=NONCE,s=SALT,i=ITER" (extensions after). */
struct scram_first {
	const char *r;
	size_t rlen;
	uint8_t salt[128];
	size_t saltlen;
	uint32_t iter;
};

static bool scram_parse_first(const char *s, size_t n, struct scram_first *f)
{
	const char *s_at = NULL, *end = s + n;
	size_t s_len = 0;
	memset(f, 0, sizeof *f);
	for (const char *p = s; p < end;) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		if (q == NULL)
			q = end;
		if (q - p >= 2 && p[1] == '=') {
			if (p[0] == 'r') {
				f->r = p + 2;
				f->rlen = (size_t)(q - p - 2);
			} else if (p[0] == 's') {
				s_at = p + 2;
				s_len = (size_t)(q - p - 2);
			} else if (p[0] == 'i') {
				unsigned long v = 0;
				for (const char *d = p + 2; d < q && v < 100000000; d++)
					v = *d >= '0' && *d <= '9' ? v * 10 + (unsigned long)(*d - '0') : 100000000;
				f->iter = v > 0 && v < 100000000 ? (uint32_t)v : 0;
			} else if (p[0] == 'm') {
				return false; /* a mandatory extension: none is known */
			}
		}
		p = q + 1;
	}
	long sl = s_at != NULL ? ldb_base64_decode(s_at, s_len, f->salt, sizeof f->salt) : -1;
	if (sl <= 0 || f->r == NULL || f->iter == 0)
		return false;
	f->saltlen = (size_t)sl;
	return true;
}

/* client-final-message for the server-first-message s; the
 * ServerSignature the server must send back kept in st->expect. */
static bool scram_final(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const uint8_t *s, size_t n)
{
	enum halg a = scram_alg(k);
	size_t hl = h_len(a);
	struct scram_first f;
	struct hmac key;
	char gs2[LDB_SASL_FIELD_MAX * 2 + 8], am[sizeof st->first + sizeof st->out];
	struct out g = { gs2, 0, sizeof gs2, false }, m = { am, 0, sizeof am, false };
	uint8_t salted[HMAX], ck[HMAX], sk[HMAX], stored[HMAX], sig[HMAX];
	const char *cn = memchr(st->first, ',', st->firstlen);
	size_t cnlen = st->firstlen - (size_t)(cn + 3 - st->first);
	if (!scram_parse_first((const char *)s, n, &f) || f.rlen < cnlen || memcmp(f.r, cn + 3, cnlen) != 0)
		return false;
	scram_gs2(&g, k);
	put(&m, st->first, st->firstlen); /* AuthMessage: first-bare "," server-first "," final-without-proof */
	put(&m, ",", 1);
	put(&m, (const char *)s, n);
	put(&m, ",c=", 3);
	size_t start = m.len - 2;
	if (g.full || m.full || m.cap - m.len < (g.len + 2) / 3 * 4)
		return false;
	m.len += b64_encode(m.p + m.len, m.cap - m.len, (const uint8_t *)gs2, g.len);
	put(&m, ",r=", 3);
	put(&m, f.r, f.rlen);
	pbkdf2(a, st->pw, st->pwlen, f.salt, f.saltlen, f.iter, salted);
	hmac_key(&key, a, salted, hl);
	hmac2(&key, "Client Key", 10, NULL, 0, ck);
	hmac2(&key, "Server Key", 10, NULL, 0, sk);
	h_once(a, ck, hl, stored);
	hmac_key(&key, a, stored, hl);
	hmac2(&key, am, m.len, NULL, 0, sig);
	for (size_t i = 0; i < hl; i++)
		ck[i] ^= sig[i]; /* ClientProof */
	hmac_key(&key, a, sk, hl);
	hmac2(&key, am, m.len, NULL, 0, st->expect);
	st->expectlen = (uint8_t)hl;
	struct out o = { (char *)st->out, 0, sizeof st->out, false };
	put(&o, am + start, m.len - start);
	put(&o, ",p=", 3);
	if (m.full || o.full || o.cap - o.len < (hl + 2) / 3 * 4)
		return false;
	o.len += b64_encode(o.p + o.len, o.cap - o.len, ck, hl);
	st->outlen = (uint16_t)o.len;
	return true;
}

/* server-final-message: "v=SIGNATURE" against what was kept. */
static bool scram_verify(const struct ldb_sasl_state *st, const uint8_t *cred, size_t n)
{
	uint8_t v[HMAX + 3];
	const uint8_t *end = memchr(cred, ',', n);
	size_t len = end != NULL ? (size_t)(end - cred) : n;
	if (len < 2 || cred[0] != 'v' || cred[1] != '=')
		return false;
	long got = ldb_base64_decode((const char *)cred + 2, len - 2, v, sizeof v);
	return got == st->expectlen && memcmp(v, st->expect, (size_t)got) == 0;
}

/* ------------------------------------------------ the exchange */

int ldb_sasl_start(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const char *user, size_t ulen,
                   const char *pw, size_t pwlen, struct ldb_rng *rng, bool *has_cred)
{
	if (ulen > LDB_SASL_FIELD_MAX || pwlen > LDB_SASL_FIELD_MAX)
		return -1;
	memcpy(st->user, user, ulen);
	memcpy(st->pw, pw, pwlen);
	st->userlen = (uint16_t)ulen;
	st->pwlen = (uint16_t)pwlen;
	st->outlen = 0;
	st->expectlen = 0;
	*has_cred = false;
	if (k->mech == LDB_SASL_SCRAM_SHA1 || k->mech == LDB_SASL_SCRAM_SHA256) {
		st->phase = PH_SERVER_FIRST;
		*has_cred = true;
		return scram_first(st, k, rng) ? 0 : -1;
	}
	st->phase = PH_CHALLENGE;
	return 0;
}

/* The answer to a challenge (CRAM-MD5, DIGEST-MD5) or to SCRAM's
 * server-first-message: the next credentials, and what the next result answers. */
static bool answer(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const uint8_t *cred, size_t n,
                   struct ldb_rng *rng)
{
	switch (k->mech) {
	case LDB_SASL_CRAM_MD5: st->phase = PH_DONE; return cram_response(st, cred, n);
	case LDB_SASL_DIGEST_MD5: st->phase = PH_FINAL; return digest_response(st, k, cred, n, rng);
	default: st->phase = PH_FINAL; return scram_final(st, k, cred, n);
	}
}

bool ldb_sasl_step(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, int *rc, const uint8_t *cred,
                   size_t credlen, struct ldb_rng *rng, bool *has_cred)
{
	static const uint8_t none[1];
	*has_cred = false;
	if (cred == NULL)
		cred = none;
	if (st->phase == PH_CHALLENGE || st->phase == PH_SERVER_FIRST) {
		if (*rc != RC_IN_PROGRESS)
			return false; /* refused (49, an unsupported mechanism), or no challenge needed */
		if (!answer(st, k, cred, credlen, rng)) {
			*rc = LDB_SASL_RC_CLIENT;
			return false;
		}
		*has_cred = true;
		return true;
	}
	if (st->phase == PH_FINAL && (*rc == 0 || *rc == RC_IN_PROGRESS)) {
		bool ok = k->mech == LDB_SASL_DIGEST_MD5 ? digest_verify(st, cred, credlen)
		                                         : scram_verify(st, cred, credlen);
		if (!ok) {
			*rc = LDB_SASL_RC_CLIENT; /* the server did not prove it knows the password */
			return false;
		}
		if (*rc == 0)
			return false;
		st->phase = PH_DONE; /* the server wants an empty response before its result */
		st->outlen = 0;
		return true;
	}
	if (*rc == RC_IN_PROGRESS)
		*rc = LDB_SASL_RC_CLIENT; /* more than the mechanism has */
	return false;
}

/* ------------------------------------------------ BER */

static size_t len_size(size_t n)
{
	return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 4;
}

static uint8_t *put_tl(uint8_t *p, uint8_t tag, size_t n)
{
	*p++ = tag;
	if (n < 0x80) {
		*p++ = (uint8_t)n;
	} else if (n < 0x100) {
		*p++ = 0x81;
		*p++ = (uint8_t)n;
	} else if (n < 0x10000) {
		*p++ = 0x82;
		*p++ = (uint8_t)(n >> 8);
		*p++ = (uint8_t)n;
	} else {
		*p++ = 0x83;
		*p++ = (uint8_t)(n >> 16);
		*p++ = (uint8_t)(n >> 8);
		*p++ = (uint8_t)n;
	}
	return p;
}

static size_t int_size(int32_t v)
{
	return v < 0x80 ? 1 : v < 0x8000 ? 2 : v < 0x800000 ? 3 : 4;
}

size_t ldb_sasl_put_bind(uint8_t *dst, size_t cap, int32_t msgid, const char *mech, const uint8_t *cred, size_t credlen,
                         bool has_cred)
{
	size_t ml = strlen(mech), il = int_size(msgid);
	size_t sasl = 1 + len_size(ml) + ml + (has_cred ? 1 + len_size(credlen) + credlen : 0);
	size_t bind = 3 + 2 + 1 + len_size(sasl) + sasl; /* version, empty name, [3] */
	size_t msg = 2 + il + 1 + len_size(bind) + bind;
	if (credlen >= 0x1000000 || 1 + len_size(msg) + msg > cap)
		return 0;
	uint8_t *p = put_tl(dst, 0x30, msg);
	p = put_tl(p, 0x02, il);
	for (size_t i = il; i-- > 0;)
		*p++ = (uint8_t)((uint32_t)msgid >> (8 * i));
	p = put_tl(p, 0x60, bind);
	p = put_tl(p, 0x02, 1);
	*p++ = 3;
	p = put_tl(p, 0x04, 0);
	p = put_tl(p, 0xa3, sasl);
	p = put_tl(p, 0x04, ml);
	memcpy(p, mech, ml);
	p += ml;
	if (has_cred) {
		p = put_tl(p, 0x04, credlen);
		memcpy(p, cred, credlen);
		p += credlen;
	}
	return (size_t)(p - dst);
}

/* One element at b[*i..n): its tag, contents.  @return false when it does not fit. */
static bool ber_next(const uint8_t *b, size_t n, size_t *i, uint8_t *tag, const uint8_t **val, size_t *vlen)
{
	size_t p = *i, len = 0;
	if (p + 2 > n)
		return false;
	*tag = b[p++];
	if (b[p] < 0x80) {
		len = b[p++];
	} else {
		size_t nb = b[p++] & 0x7f;
		if (nb == 0 || nb > 4 || p + nb > n)
			return false;
		while (nb-- > 0)
			len = len << 8 | b[p++];
	}
	if (len > n - p)
		return false;
	*val = b + p;
	*vlen = len;
	*i = p + len;
	return true;
}

int ldb_sasl_server_creds(const uint8_t *body, size_t len, const uint8_t **cred, size_t *credlen)
{
	size_t i = 0;
	uint8_t tag;
	const uint8_t *v;
	size_t vl;
	/* resultCode, matchedDN, diagnosticMessage */
	for (int k = 0; k < 3; k++)
		if (!ber_next(body, len, &i, &tag, &v, &vl))
			return -1;
	while (i < len) {
		if (!ber_next(body, len, &i, &tag, &v, &vl))
			return -1;
		if (tag == 0x87) { /* serverSaslCreds [7] */
			*cred = v;
			*credlen = vl;
			return 1;
		}
	}
	return 0;
}
