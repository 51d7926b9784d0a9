/* Hot-path request writers (wire.h, "Hot-path writers"): each
 * builds a whole LDAPMessage straight into the caller's buffer.
 *
 * Two passes: first every nested length is computed (inner to outer), then the
 * bytes are written front to back, so nothing is moved and nothing is
 * allocated.  Lengths and INTEGERs use the minimal definite (DER) forms that
 * libldap sends (it encodes with LBER_USE_DER); BOOLEAN TRUE is 0xff as
 * liblber writes it.  A message that does not fit in cap is not written at
 * all: the function returns 0 before touching dst.  A single length above
 * 2^32-1 (4 length bytes, the most ldb_wire_parse reads back) is refused too.
 */
#include "proto/wire.h"

#include <string.h>

#include "proto/der.h"

/* Request tags (RFC 4511, as libldap's LDAP_REQ_*). */
#define TAG_MODIFY 0x66
#define TAG_ADD 0x68
#define TAG_DELETE 0x4a
#define TAG_MODDN 0x6c
#define TAG_COMPARE 0x6e
#define TAG_EXTENDED 0x77
#define TAG_EXT_NAME 0x80
#define TAG_EXT_VALUE 0x81
#define TAG_NEWSUP 0x80
#define TAG_SEQ 0x30
#define TAG_SET 0x31
#define TAG_OCTETS 0x04
#define TAG_BOOL 0x01
#define TAG_ENUM 0x0a

#define LEN_MAX 0xffffffffu
/* Above any length we send: tlv() returns it for contents over LEN_MAX and the
 * sums carry it up to msg_size(), which refuses.  Small enough that a few
 * hundred of them still add up without wrapping. */
#define TOO_BIG ((uint64_t)1 << 40)

/* Whole size of a TLV whose contents take n bytes (TOO_BIG when n is). */
static uint64_t tlv(uint64_t n)
{
	if (n > LEN_MAX)
		return TOO_BIG;
	return 1 + ldb_der_len_size(n) + n;
}

static inline uint8_t *put_tl(uint8_t *p, uint8_t tag, uint64_t n)
{
	return ldb_der_put_tl(p, tag, n);
}

static uint8_t *put_octets(uint8_t *p, uint8_t tag, const void *s, size_t n)
{
	p = put_tl(p, tag, n);
	if (n > 0)
		memcpy(p, s, n);
	return p + n;
}

/* Size of the whole message around a protocolOp of opsize bytes (tag and
 * length included), or 0 when it does not fit in cap or overflows. */
static size_t msg_size(size_t cap, int32_t msgid, uint64_t opsize, uint64_t *content)
{
	uint64_t c = 2 + ldb_der_int_size(msgid) + opsize;
	uint64_t total = tlv(c);

	if (opsize >= TOO_BIG || total >= TOO_BIG || total > cap)
		return 0;
	*content = c;
	return (size_t)total;
}

/* The envelope up to the protocolOp: SEQUENCE header and messageID. */
static uint8_t *put_envelope(uint8_t *p, int32_t msgid, uint64_t content)
{
	return ldb_der_put_int(put_tl(p, TAG_SEQ, content), msgid);
}

/* A string argument: NULL only with length 0 (then it is the empty string). */
static int bad_str(const char *s, size_t n)
{
	return s == NULL && n > 0;
}

/* ---- add ---- */

/* Values grouped by type: per value the index of the first value of its type
 * (lead), the next value of that type (next, -1 at the end); per group (at the
 * leader's index) the type length and the SET contents length. */
struct add_groups {
	int lead[LDB_WIRE_PUT_MAX_VALUES];
	int next[LDB_WIRE_PUT_MAX_VALUES];
	int last[LDB_WIRE_PUT_MAX_VALUES];
	size_t tlen[LDB_WIRE_PUT_MAX_VALUES];
	uint64_t setlen[LDB_WIRE_PUT_MAX_VALUES];
};

static unsigned lower(unsigned char c)
{
	return c + ((unsigned)(c - 'A') < 26u) * 32u;
}

/* ASCII case-insensitive equality of two NUL-terminated types; most unequal
 * pairs differ at the first byte.  Callers that pass the same pointer for
 * the same type (objtmpl does) skip the walk. */
static int type_eq(const char *a, const char *b)
{
	size_t i;

	if (a == b)
		return 1;
	for (i = 0; lower((unsigned char)a[i]) == lower((unsigned char)b[i]); i++)
		if (a[i] == '\0')
			return 1;
	return 0;
}

size_t ldb_wire_put_add(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen,
                        const struct ldb_put_value *v, int n)
{
	struct add_groups g;
	uint64_t attrs = 0, opc, content;
	size_t total;
	uint8_t *p;
	int i, j;

	if (dst == NULL || bad_str(dn, dnlen) || n < 0 || n > LDB_WIRE_PUT_MAX_VALUES || (n > 0 && v == NULL))
		return 0;
	for (i = 0; i < n; i++) {
		if (v[i].type == NULL || bad_str(v[i].val, v[i].len) || v[i].len > LEN_MAX)
			return 0;
		g.lead[i] = i;
		g.next[i] = -1;
		for (j = 0; j < i; j++)
			if (g.lead[j] == j && type_eq(v[j].type, v[i].type)) {
				g.lead[i] = j;
				break;
			}
		if (g.lead[i] == i) {
			g.tlen[i] = strlen(v[i].type);
			if (g.tlen[i] > LEN_MAX)
				return 0;
			g.setlen[i] = 0;
			g.last[i] = i;
		} else {
			j = g.lead[i];
			g.next[g.last[j]] = i;
			g.last[j] = i;
		}
		g.setlen[g.lead[i]] += tlv(v[i].len);
	}
	for (i = 0; i < n; i++)
		if (g.lead[i] == i)
			attrs += tlv(tlv(g.tlen[i]) + tlv(g.setlen[i]));
	opc = tlv(dnlen) + tlv(attrs);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;

	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_ADD, opc);
	p = put_octets(p, TAG_OCTETS, dn, dnlen);
	p = put_tl(p, TAG_SEQ, attrs);
	for (i = 0; i < n; i++) {
		if (g.lead[i] != i)
			continue;
		p = put_tl(p, TAG_SEQ, tlv(g.tlen[i]) + tlv(g.setlen[i]));
		p = put_octets(p, TAG_OCTETS, v[i].type, g.tlen[i]);
		p = put_tl(p, TAG_SET, g.setlen[i]);
		for (j = i; j >= 0; j = g.next[j])
			p = put_octets(p, TAG_OCTETS, v[j].val, v[j].len);
	}
	return (size_t)(p - dst) == total ? total : 0;
}

/* ---- modify ---- */

/* Contents of one change: SEQUENCE { operation ENUMERATED, SEQUENCE { type, SET } }. */
static uint64_t mod_len(const struct ldb_put_mod *m, size_t tl)
{
	uint64_t set = m->val != NULL ? tlv(m->len) : 0;

	return 3 + tlv(tlv(tl) + tlv(set));
}

size_t ldb_wire_put_modify(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen,
                           const struct ldb_put_mod *m, int n)
{
	uint64_t mods = 0, opc, content;
	size_t total, tl;
	uint8_t *p;
	int i;

	if (dst == NULL || bad_str(dn, dnlen) || n < 0 || (n > 0 && m == NULL))
		return 0;
	for (i = 0; i < n; i++) {
		/* 3 is increment (RFC 4525), as ldb_wire_encode_modify takes it */
		if (m[i].op < 0 || m[i].op > 3 || m[i].type == NULL || m[i].len > LEN_MAX ||
		    (m[i].val == NULL && m[i].len > 0))
			return 0;
		tl = strlen(m[i].type);
		mods += tlv(mod_len(&m[i], tl));
		if (mods >= TOO_BIG)
			return 0;
	}
	opc = tlv(dnlen) + tlv(mods);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;

	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_MODIFY, opc);
	p = put_octets(p, TAG_OCTETS, dn, dnlen);
	p = put_tl(p, TAG_SEQ, mods);
	for (i = 0; i < n; i++) {
		tl = strlen(m[i].type);
		p = put_tl(p, TAG_SEQ, mod_len(&m[i], tl));
		*p++ = TAG_ENUM;
		*p++ = 1;
		*p++ = (uint8_t)m[i].op;
		p = put_tl(p, TAG_SEQ, tlv(tl) + tlv(m[i].val != NULL ? tlv(m[i].len) : 0));
		p = put_octets(p, TAG_OCTETS, m[i].type, tl);
		if (m[i].val != NULL) {
			p = put_tl(p, TAG_SET, tlv(m[i].len));
			p = put_octets(p, TAG_OCTETS, m[i].val, m[i].len);
		} else {
			p = put_tl(p, TAG_SET, 0);
		}
	}
	return (size_t)(p - dst) == total ? total : 0;
}

/* ---- simple bind, equality search ---- */

#define TAG_BIND 0x60
#define TAG_SIMPLE 0x80
#define TAG_SEARCH 0x63
#define TAG_EQUALITY 0xa3

/* A TLV of one content byte. */
static uint8_t *put_byte(uint8_t *p, uint8_t tag, uint8_t v)
{
	p[0] = tag;
	p[1] = 1;
	p[2] = v;
	return p + 3;
}

size_t ldb_wire_put_bind_simple(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *pw,
                                size_t pwlen)
{
	uint64_t opc, content;
	size_t total;
	uint8_t *p;

	if (dst == NULL || bad_str(dn, dnlen) || bad_str(pw, pwlen))
		return 0;
	opc = 3 + tlv(dnlen) + tlv(pwlen);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_BIND, opc);
	p = ldb_der_put_int(p, 3);
	p = put_octets(p, TAG_OCTETS, dn, dnlen);
	p = put_octets(p, TAG_SIMPLE, pw, pwlen);
	return (size_t)(p - dst) == total ? total : 0;
}

size_t ldb_wire_put_search_eq(uint8_t *dst, size_t cap, int32_t msgid, const char *base, size_t baselen,
                              const char *attr, const char *val, size_t vlen, int sizelimit)
{
	static const char noattrs[] = "1.1";
	uint64_t ava, attrs, opc, content;
	size_t total, tl;
	uint8_t *p;

	if (dst == NULL || bad_str(base, baselen) || attr == NULL || bad_str(val, vlen) || sizelimit < 0)
		return 0;
	tl = strlen(attr);
	ava = tlv(tl) + tlv(vlen);
	attrs = tlv(sizeof noattrs - 1);
	/* base, scope, derefAliases, sizeLimit, timeLimit 0, typesOnly, filter, attributes */
	opc = tlv(baselen) + 3 + 3 + 2 + ldb_der_int_size(sizelimit) + 3 + 3 + tlv(ava) + tlv(attrs);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_SEARCH, opc);
	p = put_octets(p, TAG_OCTETS, base, baselen);
	p = put_byte(p, TAG_ENUM, 2); /* wholeSubtree */
	p = put_byte(p, TAG_ENUM, 0); /* neverDerefAliases */
	p = ldb_der_put_int(p, sizelimit);
	p = ldb_der_put_int(p, 0);
	p = put_byte(p, TAG_BOOL, 0x00);
	p = put_tl(p, TAG_EQUALITY, ava);
	p = put_octets(p, TAG_OCTETS, attr, tl);
	p = put_octets(p, TAG_OCTETS, val, vlen);
	p = put_tl(p, TAG_SEQ, attrs);
	p = put_octets(p, TAG_OCTETS, noattrs, sizeof noattrs - 1);
	return (size_t)(p - dst) == total ? total : 0;
}

/* ---- delete, modify DN, compare ---- */

size_t ldb_wire_put_delete(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen)
{
	uint64_t content;
	size_t total;
	uint8_t *p;

	if (dst == NULL || bad_str(dn, dnlen))
		return 0;
	if ((total = msg_size(cap, msgid, tlv(dnlen), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_octets(p, TAG_DELETE, dn, dnlen);
	return (size_t)(p - dst) == total ? total : 0;
}

size_t ldb_wire_put_modrdn(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *newrdn,
                           size_t newrdnlen, int deleteoldrdn, const char *newsup, size_t newsuplen)
{
	uint64_t opc, content;
	size_t total;
	uint8_t *p;

	if (dst == NULL || bad_str(dn, dnlen) || bad_str(newrdn, newrdnlen))
		return 0;
	opc = tlv(dnlen) + tlv(newrdnlen) + 3;
	if (newsup != NULL)
		opc += tlv(newsuplen);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_MODDN, opc);
	p = put_octets(p, TAG_OCTETS, dn, dnlen);
	p = put_octets(p, TAG_OCTETS, newrdn, newrdnlen);
	*p++ = TAG_BOOL;
	*p++ = 1;
	*p++ = deleteoldrdn ? 0xff : 0x00;
	if (newsup != NULL)
		p = put_octets(p, TAG_NEWSUP, newsup, newsuplen);
	return (size_t)(p - dst) == total ? total : 0;
}

size_t ldb_wire_put_compare(uint8_t *dst, size_t cap, int32_t msgid, const char *dn, size_t dnlen, const char *attr,
                            const char *val, size_t vlen)
{
	uint64_t ava, opc, content;
	size_t total, tl;
	uint8_t *p;

	if (dst == NULL || bad_str(dn, dnlen) || attr == NULL || bad_str(val, vlen))
		return 0;
	tl = strlen(attr);
	ava = tlv(tl) + tlv(vlen);
	opc = tlv(dnlen) + tlv(ava);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_COMPARE, opc);
	p = put_octets(p, TAG_OCTETS, dn, dnlen);
	p = put_tl(p, TAG_SEQ, ava);
	p = put_octets(p, TAG_OCTETS, attr, tl);
	p = put_octets(p, TAG_OCTETS, val, vlen);
	return (size_t)(p - dst) == total ? total : 0;
}

size_t ldb_wire_put_extended(uint8_t *dst, size_t cap, int32_t msgid, const char *oid, size_t oidlen, const void *val,
                             size_t vlen)
{
	uint64_t opc, content;
	size_t total;
	uint8_t *p;

	if (dst == NULL || bad_str(oid, oidlen))
		return 0;
	opc = tlv(oidlen) + (val != NULL ? tlv(vlen) : 0);
	if ((total = msg_size(cap, msgid, tlv(opc), &content)) == 0)
		return 0;
	p = put_envelope(dst, msgid, content);
	p = put_tl(p, TAG_EXTENDED, opc);
	p = put_octets(p, TAG_EXT_NAME, oid, oidlen);
	if (val != NULL)
		p = put_octets(p, TAG_EXT_VALUE, val, vlen);
	return (size_t)(p - dst) == total ? total : 0;
}

size_t ldb_wire_put_tagged_seq(uint8_t *dst, size_t cap, const char *const *v, const size_t *len, int n)
{
	uint64_t seq = 0;
	uint8_t *p;

	if (dst == NULL || n < 0 || n > 31)
		return 0;
	for (int i = 0; i < n; i++)
		seq += v[i] != NULL ? tlv(len[i]) : 0;
	if (tlv(seq) >= TOO_BIG || tlv(seq) > cap)
		return 0;
	p = put_tl(dst, TAG_SEQ, seq);
	for (int i = 0; i < n; i++)
		if (v[i] != NULL)
			p = put_octets(p, (uint8_t)(0x80 | i), v[i], len[i]);
	return (size_t)(p - dst);
}
