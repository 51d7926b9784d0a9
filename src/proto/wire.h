/* LDAP messages in BER (RFC 4511), encoded with liblber.
 *
 * Two halves:
 *  - start-up encoders (ldb_wire_encode_*) turn one request's arguments into the
 *    BER of its protocolOp (the CHOICE inside LDAPMessage, without the envelope);
 *    they may allocate and they report bad input (a filter that is not RFC 4515,
 *    say) with a message;
 *  - hot-path helpers that allocate nothing: ldb_wire_frame() wraps a protocolOp
 *    in its LDAPMessage envelope with a message id, ldb_wire_parse() frames one
 *    response out of a read buffer and decodes what a load generator needs.
 * The bytes of ldb_wire_frame(id, ldb_wire_encode_X(args)) equal what libldap
 * sends for the same call with the same message id (tested byte for byte).
 */
#ifndef LDBENCH_PROTO_WIRE_H
#define LDBENCH_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer for start-up encoding. */
struct ldb_bytes {
	uint8_t *data;
	size_t len;
	size_t cap;
};
void ldb_bytes_free(struct ldb_bytes *b);
/* Append n bytes, growing the buffer (start-up only: it may allocate).
 * @return 0, or -1 when out of memory. */
int ldb_bytes_append(struct ldb_bytes *b, const void *p, size_t n);

#define LDB_WIRE_ERRLEN 256

/* Search scopes as on the wire. */
enum { LDB_SCOPE_BASE = 0, LDB_SCOPE_ONE = 1, LDB_SCOPE_SUB = 2 };

struct ldb_search_args {
	const char *base;
	int scope;     /* LDB_SCOPE_* */
	int deref;     /* 0 = never (libldap's default) */
	int sizelimit; /* 0 = none */
	int timelimit; /* seconds, 0 = none */
	int attrsonly;
	const char *filter;       /* RFC 4515 string, e.g. "(uid=user00042)" */
	const char *const *attrs; /* NULL-terminated, or NULL for all */
};

/* Each returns 0, or -1 with a one-line reason in err (err may be NULL).
 * The protocolOp bytes are appended to out. */
int ldb_wire_encode_search(struct ldb_bytes *out, const struct ldb_search_args *a, char *err);
/* Simple bind; dn and password may be "" (anonymous). */
int ldb_wire_encode_bind_simple(struct ldb_bytes *out, const char *dn, const char *pw, size_t pwlen, char *err);
/* The same with the protocol version (-e v2: 2; LDAPv2 binds are simple). */
int ldb_wire_encode_bind_simple_v(struct ldb_bytes *out, int version, const char *dn, const char *pw, size_t pwlen,
                                  char *err);
/* SASL bind with a mechanism and optional credentials (NULL = absent). */
int ldb_wire_encode_bind_sasl(struct ldb_bytes *out, const char *dn, const char *mech, const uint8_t *cred,
                              size_t credlen, int has_cred, char *err);
int ldb_wire_encode_unbind(struct ldb_bytes *out, char *err);
/* An attribute with its values, for add and modify. */
struct ldb_attr_values {
	const char *type;
	const char *const *values; /* NULL-terminated */
};
int ldb_wire_encode_add(struct ldb_bytes *out, const char *dn, const struct ldb_attr_values *attrs, size_t nattrs,
                        char *err);
enum { LDB_MOD_ADD = 0, LDB_MOD_DELETE = 1, LDB_MOD_REPLACE = 2 };
struct ldb_mod {
	int op;
	struct ldb_attr_values av;
};
int ldb_wire_encode_modify(struct ldb_bytes *out, const char *dn, const struct ldb_mod *mods, size_t nmods, char *err);
int ldb_wire_encode_delete(struct ldb_bytes *out, const char *dn, char *err);
int ldb_wire_encode_modrdn(struct ldb_bytes *out, const char *dn, const char *newrdn, int deleteoldrdn,
                           const char *newsuperior /* NULL = absent */, char *err);
int ldb_wire_encode_compare(struct ldb_bytes *out, const char *dn, const char *attr, const char *value, char *err);
int ldb_wire_encode_extended(struct ldb_bytes *out, const char *oid, const uint8_t *value, size_t vlen, int has_value,
                             char *err);

/* Encode an RFC 4515 filter string into out (start-up only).
 * The language is libldap's (ldap_search_ext): RFC 4515 plus a filter without
 * outer parentheses ("uid=x"), white space after '(' and around the members of
 * '&'/'|', LDAPv2 escapes (\( \) \* \\), and the empty "(&)"/"(|)" of
 * RFC 4526.  Rejected although libldap takes them: an empty filter (libldap sends
 * a request with no filter at all) and an empty matching rule ("(cn::=x)"). */
int ldb_filter_encode(struct ldb_bytes *out, const char *filter, char *err);
/* The same, written into a liblber element being built (BerElement *); the
 * search encoder uses it.  Start-up only. */
struct berelement;
int ldb_filter_put(struct berelement *ber, const char *filter, char *err);

/* Hot path: write the LDAPMessage envelope (SEQUENCE, messageID) followed by the
 * protocolOp bytes `op` (oplen) into dst.  @return bytes written, or 0 if cap is
 * too small.  At most LDB_WIRE_ENVELOPE_MAX + oplen bytes are written.
 * Lengths and the INTEGER are in the minimal (DER) form libldap sends.  op may
 * overlap dst (e.g. encoded in place at dst + LDB_WIRE_ENVELOPE_MAX).  No
 * allocation, no locks, no stdio. */
#define LDB_WIRE_ENVELOPE_MAX 12
size_t ldb_wire_frame(uint8_t *dst, size_t cap, int32_t msgid, const uint8_t *op, size_t oplen);

/* One response, decoded. */
struct ldb_resp {
	int32_t msgid;
	uint8_t op;          /* protocolOp tag, e.g. 0x65 search result (LDAP_RES_*) */
	int result;          /* resultCode for result messages, else -1 */
	size_t len;          /* bytes the whole message takes in the buffer */
	const uint8_t *body; /* the protocolOp contents (after its tag and length) */
	size_t bodylen;
};
/* Frame and decode the message at buf[0..len).  Hot path: no allocation, and
 * safe on any bytes (it never reads outside buf[0..len)).  Definite lengths
 * only, long form up to 4 length bytes; message id and result code must be
 * non-negative INTEGER/ENUMERATED of at most 4 significant bytes; controls
 * after the protocolOp are skipped unread.
 * @return  1 a whole message was decoded into r (r->len bytes consumed);
 *          0 more bytes are needed (*need, if not NULL, gets the total size once
 *            the outer tag and length are in, else 0);
 *         -1 not a valid LDAPMessage (the connection must be dropped). */
int ldb_wire_parse(const uint8_t *buf, size_t len, struct ldb_resp *r, size_t *need);

/* ---- Hot-path writers for requests whose values change in length per
 * operation (adds from entry templates, modifies, deletes, renames, compares).
 * Each writes a whole LDAPMessage (envelope + protocolOp) straight into dst,
 * minimal DER lengths, byte-identical to what libldap sends for the same call;
 * no allocation.  @return bytes written, or 0 when cap is too small. */
struct ldb_put_value {
	const char *type; /* attribute type */
	const char *val;
	size_t len;
};
/* Values whose types are equal (ASCII case-insensitive) form one attribute, in
 * the order of their type's first appearance (as an LDAPMod array built that
 * way would be sent), spelled as at that first appearance.  At most
 * LDB_WIRE_PUT_MAX_VALUES values (more: returns 0). */
#define LDB_WIRE_PUT_MAX_VALUES 256
size_t ldb_wire_put_add(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen,
                        const struct ldb_put_value *v, int n);
struct ldb_put_mod {
	int op; /* LDB_MOD_ADD / DELETE / REPLACE */
	const char *type;
	const char *val; /* NULL: no value (delete the attribute) */
	size_t len;
};
size_t ldb_wire_put_modify(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen,
                           const struct ldb_put_mod *m, int n);
/* A simple bind (version 3) as dn with the password pw[0..pwlen). */
size_t ldb_wire_put_bind_simple(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *pw,
                                size_t pwlen);
/* A subtree search below base for (attr=val), no attributes ("1.1"), no
 * time limit, the size limit given (0: none). */
size_t ldb_wire_put_search_eq(uint8_t *dst, size_t cap, int32_t msgid, const char *base, size_t baselen,
                              const char *attr, const char *val, size_t vlen, int sizelimit);
size_t ldb_wire_put_delete(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen);
size_t ldb_wire_put_modrdn(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *newrdn,
                           size_t newrdnlen, int deleteoldrdn, const char *newsup /* NULL = absent */,
                           size_t newsuplen);
size_t ldb_wire_put_compare(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *attr,
                            const char *val, size_t vlen);
/* ExtendedRequest (RFC 4511 4.12): requestName oid[0..oidlen), requestValue
 * val[0..vlen) when val is not NULL (absent when NULL). */
size_t ldb_wire_put_extended(uint8_t *dst, size_t cap, int32_t msgid, const char *oid, size_t oidlen, const void *val,
                             size_t vlen);
/* Not a whole message: SEQUENCE { [0] v[0], [1] v[1], ... } of context-tagged
 * (IMPLICIT) OCTET STRINGs, v[i] left out when NULL (n <= 31), as an extended
 * request's value (RFC 3062's PasswdModifyRequestValue).  @return bytes
 * written at dst, or 0 when cap is too small. */
size_t ldb_wire_put_tagged_seq(uint8_t *dst, size_t cap, const char *const *v, const size_t *len, int n);

#endif
