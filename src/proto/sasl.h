/* The client side of the multi-step SASL mechanisms a bind can use
 * (-o mech=): CRAM-MD5 (RFC 2195), DIGEST-MD5 (RFC 2831, authentication
 * only: qop=auth) and SCRAM-SHA-1 / SCRAM-SHA-256 (RFC 5802, RFC 7677,
 * without channel binding: gs2 header "n,").  Each exchange lives in a
 * fixed-size state (struct ldb_sasl_state, one per slot, allocated when a
 * connection is set up): starting it, taking the server's challenge and
 * writing the next bind request allocate nothing (MD5, SHA-1 and SHA-256
 * are OpenSSL's low-level functions on stack contexts; HMAC and PBKDF2 are
 * built on them here).  docs/design.md ("SASL binds") says why this and not
 * Cyrus SASL's client library. */
#ifndef LDBENCH_PROTO_SASL_H
#define LDBENCH_PROTO_SASL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"

enum ldb_sasl_mech {
	LDB_SASL_NONE,
	LDB_SASL_CRAM_MD5,
	LDB_SASL_DIGEST_MD5,
	LDB_SASL_SCRAM_SHA1,
	LDB_SASL_SCRAM_SHA256,
	LDB_SASL_MECH_COUNT
};

/* The mechanism named name (as IANA spells it, upper case), or LDB_SASL_NONE. */
enum ldb_sasl_mech ldb_sasl_mech_lookup(const char *name);
const char *ldb_sasl_mech_name(enum ldb_sasl_mech m);

/* The longest authentication ID, password, authorization ID and realm an
 * exchange takes (the command line refuses longer ones). */
#define LDB_SASL_FIELD_MAX 255

/* The code an exchange ends with when the client gives up on what the server
 * sent (a challenge it cannot read, a server signature or rspauth that does
 * not verify): libldap's LDAP_AUTH_UNKNOWN, as a Cyrus SASL client's failed
 * step comes out of ldap_sasl_interactive_bind. */
#define LDB_SASL_RC_CLIENT (-6)

/* The settings of a run's exchanges (read-only once the run starts). */
struct ldb_sasl_conf {
	enum ldb_sasl_mech mech;
	const char *authzid; /* NULL: none */
	const char *realm;   /* DIGEST-MD5's realm, NULL: the server's first */
	char host[256];      /* DIGEST-MD5's digest-uri "ldap/HOST": the server's name, as libldap finds it */
};

/* One exchange. */
struct ldb_sasl_state {
	uint8_t phase; /* what the next result of the server answers (sasl.c) */
	uint16_t userlen, pwlen, outlen;
	uint16_t firstlen; /* SCRAM: client-first-message-bare's length */
	char user[LDB_SASL_FIELD_MAX + 1];
	char pw[LDB_SASL_FIELD_MAX + 1];
	char first[LDB_SASL_FIELD_MAX * 2 + 64]; /* SCRAM: client-first-message-bare */
	uint8_t expect[64];                      /* what the server must prove: SCRAM's ServerSignature,
	                                          * DIGEST-MD5's rspauth (hex) */
	uint8_t expectlen;
	uint8_t out[2048]; /* the credentials of the next request */
};

/* Start an exchange for user/pw (the first request's credentials in st->out,
 * outlen; none for CRAM-MD5 and DIGEST-MD5: *has_cred false).  rng draws
 * SCRAM's client nonce.  Hot path.  @return 0, or -1 when a field is too long. */
int ldb_sasl_start(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, const char *user, size_t ulen,
                   const char *pw, size_t pwlen, struct ldb_rng *rng, bool *has_cred);

/* The server's answer to the exchange's last request: its result code *rc and
 * its serverSaslCreds (cred, NULL when absent).  Hot path.
 * @return true: the exchange goes on, the next request's credentials in
 * st->out (*has_cred false: none); false: it is over with *rc (the server's,
 * or LDB_SASL_RC_CLIENT when what the server sent does not verify). */
bool ldb_sasl_step(struct ldb_sasl_state *st, const struct ldb_sasl_conf *k, int *rc, const uint8_t *cred,
                   size_t credlen, struct ldb_rng *rng, bool *has_cred);

/* Hot path: a whole SASL BindRequest (LDAPv3, empty name) with mechanism
 * mech and credentials (absent unless has_cred), minimal DER lengths as
 * libldap sends them.  @return bytes written, 0 when cap is too small. */
size_t ldb_sasl_put_bind(uint8_t *dst, size_t cap, int32_t msgid, const char *mech, const uint8_t *cred, size_t credlen,
                         bool has_cred);

/* A BindResponse's serverSaslCreds (body: the protocolOp's contents, as
 * ldb_wire_parse gives them).  @return 1 found (*cred, *len), 0 absent, -1
 * not a BindResponse. */
int ldb_sasl_server_creds(const uint8_t *body, size_t len, const uint8_t **cred, size_t *credlen);

#endif
