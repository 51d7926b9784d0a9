/* Request and response controls: see controls.h. */
#include "proto/controls.h"

#include <lber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/der.h"

bool ldb_ctl_oid_valid(const char *oid, size_t len)
{
	size_t arcs = 0, digits = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i == len || oid[i] == '.') {
			if (digits == 0)
				return false;
			arcs++;
			digits = 0;
			continue;
		}
		if (oid[i] < '0' || oid[i] > '9')
			return false;
		if (digits == 1 && oid[i - 1] == '0')
			return false; /* a leading zero */
		digits++;
	}
	return arcs >= 2;
}

static int fail(char *err, const char *what)
{
	if (err != NULL)
		snprintf(err, LDB_WIRE_ERRLEN, "%s", what);
	return -1;
}

/* Flatten ber (freed) and append its bytes to out. */
static int flush_ber(struct ldb_bytes *out, BerElement *ber, int rc)
{
	struct berval bv = { 0, NULL };
	if (rc != -1 && ber_flatten2(ber, &bv, 0) == 0 && ldb_bytes_append(out, bv.bv_val, bv.bv_len) == 0)
		rc = 0;
	else
		rc = -1;
	ber_free(ber, 1);
	return rc;
}

int ldb_ctl_encode(struct ldb_bytes *out, const char *oid, bool critical, const uint8_t *val, size_t vlen,
                   bool has_value, char *err)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	struct berval v = { vlen, (char *)val };
	int rc;

	if (ber == NULL)
		return fail(err, "out of memory");
	rc = ber_printf(ber, "{s", oid);
	if (rc != -1 && critical)
		rc = ber_printf(ber, "b", (ber_int_t)1);
	if (rc != -1 && has_value)
		rc = ber_printf(ber, "O", &v);
	if (rc != -1)
		rc = ber_printf(ber, "N}");
	if (flush_ber(out, ber, rc) != 0)
		return fail(err, "control: encoding failed");
	return 0;
}

/* Encode the value in ber (freed), then the control around it. */
static int encode_value(struct ldb_bytes *out, const char *oid, bool critical, BerElement *ber, int rc, char *err)
{
	struct ldb_bytes val = { 0 };
	if (flush_ber(&val, ber, rc) != 0) {
		ldb_bytes_free(&val);
		return fail(err, "control: encoding failed");
	}
	rc = ldb_ctl_encode(out, oid, critical, val.data, val.len, true, err);
	ldb_bytes_free(&val);
	return rc;
}

/* The next comma-separated item of *s into buf (cap bytes): its length, or
 * -1 when it is empty or too long; 0 at the end. */
static int next_item(const char **s, char *buf, size_t cap)
{
	const char *p = *s, *e = strchr(p, ',');
	size_t n = e != NULL ? (size_t)(e - p) : strlen(p);

	if (*p == '\0' && e == NULL)
		return 0;
	if (n == 0 || n >= cap)
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	*s = e != NULL ? e + 1 : p + n;
	if (e != NULL && e[1] == '\0')
		return -1; /* a trailing comma */
	return (int)n;
}

static int sort_key(BerElement *ber, char *key)
{
	bool reverse = key[0] == '-';
	char *attr = key[0] == '-' || key[0] == '+' ? key + 1 : key;
	char *rule = strchr(attr, ':');
	int rc;

	if (rule != NULL)
		*rule++ = '\0';
	if (attr[0] == '\0' || (rule != NULL && rule[0] == '\0'))
		return -1;
	rc = ber_printf(ber, "{s", attr);
	if (rc != -1 && rule != NULL)
		rc = ber_printf(ber, "ts", (ber_tag_t)0x80, rule);
	if (rc != -1 && reverse)
		rc = ber_printf(ber, "tb", (ber_tag_t)0x81, (ber_int_t)1);
	return rc == -1 || ber_printf(ber, "N}") == -1 ? -1 : 0;
}

int ldb_ctl_encode_sort(struct ldb_bytes *out, const char *keys, char *err)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	char key[512];
	int n, rc, nkeys = 0;

	if (ber == NULL)
		return fail(err, "out of memory");
	rc = ber_printf(ber, "{");
	while (rc != -1 && (n = next_item(&keys, key, sizeof key)) != 0) {
		if (n < 0 || sort_key(ber, key) != 0) {
			ber_free(ber, 1);
			return fail(err, "sort order: a key is empty or malformed ([+|-]ATTR[:RULE],...)");
		}
		nkeys++;
	}
	if (nkeys == 0) {
		ber_free(ber, 1);
		return fail(err, "sort order: no key");
	}
	if (rc != -1)
		rc = ber_printf(ber, "N}");
	return encode_value(out, LDB_CTL_SORT_OID, false, ber, rc, err);
}

int ldb_ctl_encode_assertion(struct ldb_bytes *out, const char *filter, char *err)
{
	struct ldb_bytes f = { 0 };
	int rc = ldb_filter_encode(&f, filter, err);
	if (rc == 0)
		rc = ldb_ctl_encode(out, LDB_CTL_ASSERTION_OID, true, f.data, f.len, true, err);
	ldb_bytes_free(&f);
	return rc;
}

int ldb_ctl_encode_read(struct ldb_bytes *out, bool post, const char *attrs, char *err)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	char attr[512];
	int n, rc;

	if (ber == NULL)
		return fail(err, "out of memory");
	rc = ber_printf(ber, "{");
	while (rc != -1 && (n = next_item(&attrs, attr, sizeof attr)) != 0) {
		if (n < 0) {
			ber_free(ber, 1);
			return fail(err, "read attributes: an attribute is empty");
		}
		rc = ber_printf(ber, "s", attr);
	}
	if (rc != -1)
		rc = ber_printf(ber, "N}");
	return encode_value(out, post ? LDB_CTL_POSTREAD_OID : LDB_CTL_PREREAD_OID, true, ber, rc, err);
}

int ldb_ctl_encode_subentries(struct ldb_bytes *out, bool visibility, char *err)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	if (ber == NULL)
		return fail(err, "out of memory");
	return encode_value(out, LDB_CTL_SUBENTRIES_OID, true, ber, ber_printf(ber, "b", (ber_int_t)visibility), err);
}

int ldb_ctl_encode_session(struct ldb_bytes *out, const char *ip, const char *name, const char *id, char *err)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	if (ber == NULL)
		return fail(err, "out of memory");
	return encode_value(out, LDB_CTL_SESSION_OID, false, ber,
	                    ber_printf(ber, "{ssss}", ip, name, LDB_CTL_SESSION_USERNAME_OID, id), err);
}

/* ---- hot path ---- */

/* Bytes of a DER length field for n. */
static size_t len_bytes(size_t n)
{
	return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x1000000 ? 4 : 5;
}

static uint8_t *put_len(uint8_t *p, size_t n)
{
	size_t k = len_bytes(n);
	if (k == 1) {
		*p++ = (uint8_t)n;
		return p;
	}
	*p++ = (uint8_t)(0x80 | (k - 1));
	for (size_t i = k - 1; i > 0; i--)
		*p++ = (uint8_t)(n >> (8 * (i - 1)));
	return p;
}

static const char proxy_oid[] = LDB_CTL_PROXY_OID;

static size_t proxy_inner(size_t idlen)
{
	return 2 + (sizeof proxy_oid - 1) + 3 + 1 + len_bytes(idlen) + idlen;
}

size_t ldb_ctl_proxy_len(size_t idlen)
{
	size_t in = proxy_inner(idlen);
	return 1 + len_bytes(in) + in;
}

static uint8_t *put_proxy(uint8_t *p, const char *id, size_t idlen)
{
	*p++ = 0x30;
	p = put_len(p, proxy_inner(idlen));
	*p++ = 0x04;
	*p++ = (uint8_t)(sizeof proxy_oid - 1);
	memcpy(p, proxy_oid, sizeof proxy_oid - 1);
	p += sizeof proxy_oid - 1;
	*p++ = 0x01;
	*p++ = 0x01;
	*p++ = 0xff;
	*p++ = 0x04;
	p = put_len(p, idlen);
	memcpy(p, id, idlen);
	return p + idlen;
}

/* Where one message's parts are: its contents [cs, end), the byte after its
 * protocolOp (q), its controls' contents [ec, end) (ec = end: none). */
struct msg_parts {
	const uint8_t *cs, *q, *ec, *end;
};

static bool msg_split(const uint8_t *p, const uint8_t *limit, struct msg_parts *m)
{
	const uint8_t *b, *next;
	uint8_t tag;
	size_t n;

	if ((next = ldb_der_tlv(p, limit, &tag, &b, &n)) == NULL || tag != 0x30)
		return false;
	m->cs = b;
	m->end = next;
	if ((next = ldb_der_tlv(b, m->end, &tag, &b, &n)) == NULL ||
	    (next = ldb_der_tlv(next, m->end, &tag, &b, &n)) == NULL)
		return false;
	m->q = next;
	m->ec = m->end;
	if (next == m->end)
		return true;
	if (ldb_der_tlv(next, m->end, &tag, &b, &n) != m->end || tag != 0xa0)
		return false;
	m->ec = b;
	return true;
}

/* The controls already there are whole Control SEQUENCEs. */
static bool controls_whole(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *b;
	uint8_t tag;
	size_t n;
	while (p < end)
		if ((p = ldb_der_tlv(p, end, &tag, &b, &n)) == NULL || tag != 0x30)
			return false;
	return true;
}

/* The message at p (used: the bytes in the buffer from p on): its controls
 * extended by add bytes.  @return its growth, or -1 when it does not fit. */
static long append_one(uint8_t *p, size_t used, size_t room, const uint8_t *fixed, size_t flen, const char *proxy,
                       size_t plen)
{
	struct msg_parts m;
	if (!msg_split(p, p + used, &m) || !controls_whole(m.ec, m.end))
		return -1;
	size_t add = flen + (proxy != NULL ? ldb_ctl_proxy_len(plen) : 0);
	size_t el = (size_t)(m.end - m.ec), mlen = (size_t)(m.q - m.cs), old = (size_t)(m.end - p);
	size_t cl = el + add, content = mlen + 1 + len_bytes(cl) + cl;
	size_t total = 1 + len_bytes(content) + content;
	size_t grow = total - old, tail = used - old;
	if (used + grow > room)
		return -1;
	uint8_t *newop = p + 1 + len_bytes(content), *a0 = newop + mlen;
	uint8_t *ctl = a0 + 1 + len_bytes(cl);
	memmove(p + total, m.end, tail); /* the messages after this one */
	memmove(ctl, m.ec, el);          /* its controls so far */
	memmove(newop, m.cs, mlen);      /* messageID and protocolOp */
	*a0 = 0xa0;
	put_len(a0 + 1, cl);
	p[0] = 0x30;
	put_len(p + 1, content);
	if (flen > 0)
		memcpy(ctl + el, fixed, flen);
	if (proxy != NULL)
		put_proxy(ctl + el + flen, proxy, plen);
	return (long)grow;
}

size_t ldb_ctl_append(uint8_t *dst, size_t n, size_t cap, const uint8_t *fixed, size_t flen, const char *proxy,
                      size_t plen)
{
	size_t off = 0;
	while (off < n) {
		long grow = append_one(dst + off, n - off, cap - off, fixed, flen, proxy, plen);
		struct msg_parts m;
		if (grow < 0)
			return 0;
		n += (size_t)grow;
		if (!msg_split(dst + off, dst + n, &m))
			return 0;
		off = (size_t)(m.end - dst);
	}
	return n;
}

bool ldb_ctl_find(const uint8_t *msg, size_t len, const char *oid, const uint8_t **val, size_t *vlen)
{
	struct msg_parts m;
	size_t olen = strlen(oid);

	if (!msg_split(msg, msg + len, &m))
		return false;
	for (const uint8_t *c = m.ec; c < m.end;) {
		const uint8_t *b, *p, *cend;
		uint8_t tag;
		size_t n;
		if ((c = ldb_der_tlv(c, m.end, &tag, &b, &n)) == NULL || tag != 0x30)
			return false;
		cend = b + n;
		if ((p = ldb_der_tlv(b, cend, &tag, &b, &n)) == NULL || tag != 0x04 || n != olen ||
		    memcmp(b, oid, n) != 0)
			continue;
		*val = p;
		*vlen = 0;
		while (p != NULL && p < cend) {
			if ((p = ldb_der_tlv(p, cend, &tag, &b, &n)) != NULL && tag == 0x04) {
				*val = b;
				*vlen = n;
			}
		}
		if (p != NULL)
			return true; /* else not well formed: the next one may be */
	}
	return false;
}

int ldb_ctl_sort_result(const uint8_t *val, size_t vlen)
{
	const uint8_t *b = NULL, *end = val + vlen;
	uint8_t tag = 0;
	size_t n = 0;
	int code = 0;

	if (ldb_der_tlv(val, end, &tag, &b, &n) != end || tag != 0x30)
		return -1;
	if (ldb_der_tlv(b, b + n, &tag, &b, &n) == NULL || tag != 0x0a || n == 0 || n > 4 || (b[0] & 0x80))
		return -1;
	for (size_t i = 0; i < n; i++)
		code = (code << 8) | b[i];
	return code;
}

bool ldb_ctl_read_entry(const uint8_t *val, size_t vlen)
{
	const uint8_t *b, *end = val + vlen;
	uint8_t tag;
	size_t n;

	return vlen > 0 && ldb_der_tlv(val, end, &tag, &b, &n) == end && tag == 0x64;
}

static const char paged_oid[] = LDB_CTL_PAGED_OID;

size_t ldb_ctl_put_paged(uint8_t *out, size_t cap, uint32_t size, const uint8_t *cookie, size_t clen)
{
	uint8_t num[5];
	size_t k = 0;
	for (int sh = 24; sh >= 0; sh -= 8)
		if (k > 0 || (size >> sh) != 0 || sh == 0)
			num[k++] = (uint8_t)(size >> sh);
	if (num[0] & 0x80) { /* INTEGER: positive, a leading zero */
		memmove(num + 1, num, k++);
		num[0] = 0;
	}
	size_t seq = 2 + k + 1 + len_bytes(clen) + clen, val = 1 + len_bytes(seq) + seq;
	size_t inner = 2 + (sizeof paged_oid - 1) + 1 + len_bytes(val) + val, total = 1 + len_bytes(inner) + inner;
	if (total > cap)
		return 0;
	uint8_t *p = out;
	*p++ = 0x30;
	p = put_len(p, inner);
	*p++ = 0x04;
	*p++ = (uint8_t)(sizeof paged_oid - 1);
	memcpy(p, paged_oid, sizeof paged_oid - 1);
	p += sizeof paged_oid - 1;
	*p++ = 0x04;
	p = put_len(p, val);
	*p++ = 0x30;
	p = put_len(p, seq);
	*p++ = 0x02;
	*p++ = (uint8_t)k;
	memcpy(p, num, k);
	p += k;
	*p++ = 0x04;
	p = put_len(p, clen);
	memcpy(p, cookie, clen);
	return total;
}

bool ldb_ctl_paged_cookie(const uint8_t *val, size_t vlen, const uint8_t **cookie, size_t *clen)
{
	const uint8_t *b = NULL, *p, *end = val + vlen;
	uint8_t tag = 0;
	size_t n = 0;

	if (ldb_der_tlv(val, end, &tag, &b, &n) != end || tag != 0x30)
		return false;
	end = b + n;
	if ((p = ldb_der_tlv(b, end, &tag, &b, &n)) == NULL || tag != 0x02 ||
	    ldb_der_tlv(p, end, &tag, cookie, clen) != end || tag != 0x04)
		return false;
	return true;
}

const char *ldb_ppolicy_name(int i)
{
	static const char *const names[LDB_PP_COUNT] = {
		"timeBeforeExpiration", "graceAuthNsRemaining",  "passwordExpired",       "accountLocked",
		"changeAfterReset",     "passwordModNotAllowed", "mustSupplyOldPassword", "insufficientPasswordQuality",
		"passwordTooShort",     "passwordTooYoung",      "passwordInHistory",     "otherError",
	};
	return i >= 0 && i < LDB_PP_COUNT ? names[i] : "?";
}

/* PasswordPolicyResponseValue ::= SEQUENCE { warning [0] CHOICE {
 * timeBeforeExpiration [0] INTEGER, graceAuthNsRemaining [1] INTEGER }
 * OPTIONAL, error [1] ENUMERATED OPTIONAL } */
bool ldb_ctl_ppolicy(const uint8_t *val, size_t vlen, int *warning, int *error)
{
	const uint8_t *seq, *body, *end;
	size_t n, bn;
	uint8_t tag;

	*warning = *error = -1;
	if (ldb_der_tlv(val, val + vlen, &tag, &seq, &n) == NULL || tag != 0x30)
		return false;
	end = seq + n;
	for (const uint8_t *p = seq; p < end;) {
		p = ldb_der_tlv(p, end, &tag, &body, &bn);
		if (p == NULL)
			return false;
		if (tag == 0xa0) { /* warning: its choice's tag says which */
			const uint8_t *w;
			size_t wn;
			if (ldb_der_tlv(body, body + bn, &tag, &w, &wn) == NULL || (tag != 0x80 && tag != 0x81))
				return false;
			*warning = tag == 0x80 ? LDB_PP_EXPIRATION : LDB_PP_GRACE;
		} else if (tag == 0x81) { /* error */
			if (bn < 1 || bn > 4)
				return false;
			unsigned e = 0;
			for (size_t i = 0; i < bn; i++)
				e = e << 8 | body[i];
			*error = e <= 8 ? LDB_PP_ERROR + (int)e : LDB_PP_OTHER;
		} else {
			return false;
		}
	}
	return true;
}
