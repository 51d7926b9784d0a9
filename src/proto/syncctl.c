/* The listeners' controls and messages: see syncctl.h. */
#include "proto/syncctl.h"

#include <string.h>
#include <strings.h>

#include "proto/controls.h"
#include "proto/der.h"

/* RFC 4533 2.2: syncRequestValue ::= SEQUENCE { mode ENUMERATED
 * { refreshAndPersist (3) } } (no cookie, reloadHint FALSE: its default). */
static const uint8_t SYNC_PERSIST[] = { 0x30, 0x03, 0x0a, 0x01, 0x03 };
/* PersistentSearch ::= SEQUENCE { changeTypes INTEGER 15 (add, delete,
 * modify, modDN), changesOnly TRUE, returnECs TRUE } */
static const uint8_t PSEARCH_ALL[] = { 0x30, 0x09, 0x02, 0x01, 0x0f, 0x01, 0x01, 0xff, 0x01, 0x01, 0xff };

int ldb_listen_encode(struct ldb_bytes *op, struct ldb_bytes *ctl, bool psearch, const char *base, const char *filter,
                      const char *const *attrs, char *err)
{
	struct ldb_search_args a = { .base = base, .scope = LDB_SCOPE_SUB, .filter = filter, .attrs = attrs };
	if (ldb_wire_encode_search(op, &a, err) != 0)
		return -1;
	return psearch ? ldb_ctl_encode(ctl, LDB_PSEARCH_OID, true, PSEARCH_ALL, sizeof PSEARCH_ALL, true, err)
	               : ldb_ctl_encode(ctl, LDB_SYNC_REQUEST_OID, true, SYNC_PERSIST, sizeof SYNC_PERSIST, true, err);
}

bool ldb_entry_dn_value(const uint8_t *body, size_t len, const char *attr, size_t alen, const uint8_t **dn,
                        size_t *dnlen, const uint8_t **val, size_t *vlen)
{
	const uint8_t *end = body + len, *p, *b, *attrs;
	uint8_t tag;
	size_t n, na;
	*val = NULL;
	*vlen = 0;
	if ((p = ldb_der_tlv(body, end, &tag, dn, dnlen)) == NULL || tag != 0x04)
		return false;
	if (attr == NULL)
		return true;
	if (ldb_der_tlv(p, end, &tag, &attrs, &na) == NULL || tag != 0x30)
		return false;
	for (const uint8_t *q = attrs, *qe = attrs + na; q < qe;) {
		const uint8_t *pa, *t, *vals;
		size_t npa, nt, nv;
		if ((q = ldb_der_tlv(q, qe, &tag, &pa, &npa)) == NULL || tag != 0x30)
			return false;
		const uint8_t *r = ldb_der_tlv(pa, pa + npa, &tag, &t, &nt);
		if (r == NULL || tag != 0x04)
			return false;
		if (nt != alen || (memcmp(t, attr, alen) != 0 && strncasecmp((const char *)t, attr, alen) != 0))
			continue; /* the server's spelling is mostly the one asked for: memcmp first */
		if (ldb_der_tlv(r, pa + npa, &tag, &vals, &nv) == NULL || tag != 0x31)
			return false;
		if (nv > 0 && ldb_der_tlv(vals, vals + nv, &tag, &b, &n) != NULL && tag == 0x04) {
			*val = b;
			*vlen = n;
		}
		return true;
	}
	return true;
}

/* The first ENUMERATED of a SEQUENCE value: the state or change type. */
static int first_enum(const uint8_t *v, size_t vlen)
{
	const uint8_t *body, *e;
	size_t n, ne;
	uint8_t tag;
	if (ldb_der_tlv(v, v + vlen, &tag, &body, &n) == NULL || tag != 0x30)
		return -1;
	if (ldb_der_tlv(body, body + n, &tag, &e, &ne) == NULL || (tag != 0x0a && tag != 0x02) || ne != 1)
		return -1;
	return e[0];
}

static int sync_state(int v)
{
	switch (v) {
	case 0: return LDB_CHG_PRESENT;
	case 1: return LDB_CHG_ADD;
	case 2: return LDB_CHG_MODIFY;
	case 3: return LDB_CHG_DELETE;
	default: return LDB_CHG_NONE;
	}
}

/* A Sync State control's value's cookie (its third member).  @return true with *ck, *n. */
static bool state_cookie(const uint8_t *v, size_t vlen, const uint8_t **ck, size_t *n)
{
	const uint8_t *body, *e;
	size_t nb, ne;
	uint8_t tag;
	/* syncStateValue ::= SEQUENCE { state ENUMERATED, entryUUID OCTET STRING, cookie OCTET STRING OPTIONAL } */
	if (ldb_der_tlv(v, v + vlen, &tag, &body, &nb) == NULL || tag != 0x30)
		return false;
	const uint8_t *p = body, *end = body + nb;
	for (int k = 0; p < end; k++) {
		if ((p = ldb_der_tlv(p, end, &tag, &e, &ne)) == NULL)
			return false;
		if (k == 2 && tag == 0x04) {
			*ck = e;
			*n = ne;
			return true;
		}
	}
	return false;
}

static int ecn_type(int v)
{
	switch (v) {
	case 1: return LDB_CHG_ADD;
	case 2: return LDB_CHG_DELETE;
	case 4: return LDB_CHG_MODIFY;
	case 8: return LDB_CHG_MODDN;
	default: return LDB_CHG_NONE;
	}
}

/* A Control's value (its last OCTET STRING, after the criticality), or
 * NULL with *vlen 0 when it has none.  @return false when not well formed. */
static bool ctl_value(const uint8_t *p, const uint8_t *end, const uint8_t **v, size_t *vlen)
{
	const uint8_t *b;
	size_t n;
	uint8_t tag;
	*v = NULL;
	*vlen = 0;
	while (p < end) {
		if ((p = ldb_der_tlv(p, end, &tag, &b, &n)) == NULL)
			return false;
		if (tag == 0x04) {
			*v = b;
			*vlen = n;
		}
	}
	return true;
}

int ldb_entry_change_ctls(const uint8_t *p, const uint8_t *end, const uint8_t **ck, size_t *ckn)
{
	const uint8_t *cs = NULL, *b = NULL, *oid = NULL, *v = NULL;
	size_t nc = 0, n = 0, no = 0, vlen = 0;
	uint8_t tag = 0;
	int ecn = LDB_CHG_NONE;
	if (ck != NULL)
		*ckn = 0;
	if (ldb_der_tlv(p, end, &tag, &cs, &nc) != end || tag != 0xa0)
		return LDB_CHG_NONE;
	for (const uint8_t *c = cs; c < end;) {
		if ((c = ldb_der_tlv(c, end, &tag, &b, &n)) == NULL || tag != 0x30)
			return ecn;
		const uint8_t *q = ldb_der_tlv(b, b + n, &tag, &oid, &no);
		if (q == NULL || tag != 0x04)
			continue;
		/* constant lengths: the compilers compare in words, no call */
		bool state = no == sizeof LDB_SYNC_STATE_OID - 1 &&
		             memcmp(oid, LDB_SYNC_STATE_OID, sizeof LDB_SYNC_STATE_OID - 1) == 0;
		if (!state && (no != sizeof LDB_ECN_OID - 1 || memcmp(oid, LDB_ECN_OID, sizeof LDB_ECN_OID - 1) != 0))
			continue;
		if (!ctl_value(q, b + n, &v, &vlen))
			continue; /* not well formed: the next one may be */
		if (state) {      /* the Sync State control first */
			if (ck != NULL && !state_cookie(v, vlen, ck, ckn))
				*ckn = 0;
			return sync_state(first_enum(v, vlen));
		}
		if (ecn == LDB_CHG_NONE)
			ecn = ecn_type(first_enum(v, vlen));
	}
	return ecn;
}

int ldb_entry_change_cookie(const uint8_t *msg, size_t len, const uint8_t **ck, size_t *n)
{
	const uint8_t *end = msg + len, *p, *b = NULL;
	size_t nb = 0;
	uint8_t tag = 0;
	if (ck != NULL)
		*n = 0;
	/* LDAPMessage ::= SEQUENCE { messageID, protocolOp, controls [0] OPTIONAL } */
	if (ldb_der_tlv(msg, end, &tag, &b, &nb) != end || tag != 0x30)
		return LDB_CHG_NONE;
	if ((p = ldb_der_tlv(b, end, &tag, &b, &nb)) == NULL || (p = ldb_der_tlv(p, end, &tag, &b, &nb)) == NULL)
		return LDB_CHG_NONE;
	return ldb_entry_change_ctls(p, end, ck, n);
}

int ldb_entry_change(const uint8_t *msg, size_t len)
{
	return ldb_entry_change_cookie(msg, len, NULL, NULL);
}

int ldb_sync_info_done(const uint8_t *body, size_t len)
{
	const uint8_t *end = body + len, *p = body, *b, *val = NULL;
	size_t n, vlen = 0;
	uint8_t tag;
	bool named = false;
	while (p < end) {
		if ((p = ldb_der_tlv(p, end, &tag, &b, &n)) == NULL)
			return -1;
		if (tag == 0x80) { /* responseName [0] */
			if (n != sizeof LDB_SYNC_INFO_OID - 1 || memcmp(b, LDB_SYNC_INFO_OID, n) != 0)
				return -1;
			named = true;
		} else if (tag == 0x81) { /* responseValue [1] */
			val = b;
			vlen = n;
		}
	}
	if (!named || val == NULL)
		return -1;
	/* syncInfoValue: refreshDelete [1] or refreshPresent [2] SEQUENCE
	 * { cookie OPTIONAL, refreshDone BOOLEAN DEFAULT TRUE } */
	if (ldb_der_tlv(val, val + vlen, &tag, &b, &n) == NULL)
		return -1;
	if (tag != 0xa1 && tag != 0xa2)
		return 0;
	for (const uint8_t *q = b, *qe = b + n; q < qe;) {
		const uint8_t *e;
		size_t ne;
		if ((q = ldb_der_tlv(q, qe, &tag, &e, &ne)) == NULL)
			return -1;
		if (tag == 0x01 && ne == 1)
			return e[0] != 0;
	}
	return 1;
}

bool ldb_sync_state_cookie(const uint8_t *msg, size_t len, const uint8_t **ck, size_t *n)
{
	const uint8_t *v;
	size_t vlen;
	return ldb_ctl_find(msg, len, LDB_SYNC_STATE_OID, &v, &vlen) && state_cookie(v, vlen, ck, n);
}

bool ldb_sync_info_cookie(const uint8_t *body, size_t len, const uint8_t **ck, size_t *n)
{
	const uint8_t *end = body + len, *p = body, *b, *val = NULL;
	size_t nb, vlen = 0;
	uint8_t tag;
	while (p < end) {
		if ((p = ldb_der_tlv(p, end, &tag, &b, &nb)) == NULL)
			return false;
		if (tag == 0x81) {
			val = b;
			vlen = nb;
		}
	}
	if (val == NULL || ldb_der_tlv(val, val + vlen, &tag, &b, &nb) == NULL)
		return false;
	if (tag == 0x80) { /* newcookie [0] syncCookie */
		*ck = b;
		*n = nb;
		return true;
	}
	if (tag != 0xa1 && tag != 0xa2 && tag != 0xa3)
		return false;
	/* refreshDelete [1], refreshPresent [2], syncIdSet [3]: SEQUENCE { cookie OPTIONAL, ... } */
	const uint8_t *e;
	size_t ne;
	if (nb == 0 || ldb_der_tlv(b, b + nb, &tag, &e, &ne) == NULL || tag != 0x04)
		return false;
	*ck = e;
	*n = ne;
	return true;
}

size_t ldb_sync_request_cookie(uint8_t *out, size_t cap, const uint8_t *ck, size_t n)
{
	static const char oid[] = LDB_SYNC_REQUEST_OID;
	size_t olen = sizeof oid - 1;
	size_t ckpart = n > 0 ? 1 + ldb_der_len_size(n) + n : 0;
	size_t seq = 3 + ckpart;                      /* ENUMERATED 3, the cookie */
	size_t val = 1 + ldb_der_len_size(seq) + seq; /* the SEQUENCE */
	size_t body = 2 + olen + 3 + 1 + ldb_der_len_size(val) + val;
	size_t total = 1 + ldb_der_len_size(body) + body;
	if (total > cap)
		return 0;
	uint8_t *p = ldb_der_put_tl(out, 0x30, body);
	p = ldb_der_put_tl(p, 0x04, olen);
	memcpy(p, oid, olen);
	p += olen;
	*p++ = 0x01; /* critical */
	*p++ = 0x01;
	*p++ = 0xff;
	p = ldb_der_put_tl(p, 0x04, val);
	p = ldb_der_put_tl(p, 0x30, seq);
	*p++ = 0x0a; /* refreshAndPersist */
	*p++ = 0x01;
	*p++ = 0x03;
	if (n > 0) {
		p = ldb_der_put_tl(p, 0x04, n);
		memcpy(p, ck, n);
		p += n;
	}
	return (size_t)(p - out);
}
