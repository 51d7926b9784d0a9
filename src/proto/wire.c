/* LDAP messages in BER: request encoders (liblber), the LDAPMessage envelope and
 * the response parser.
 *
 * Length encoding: libldap builds its requests with LBER_USE_DER, i.e. definite
 * lengths in their minimal form (short form below 128, else 0x81..0x84 and the
 * big-endian length), and INTEGERs in minimal two's complement.  Checked on the
 * wire: ldap_search_ext() with message id 1 sends 30 33 02 01 01 63 2e ...
 * The encoders use the same liblber mode and ldb_wire_frame() writes the same
 * forms, so the bytes match libldap's (tests/unit/test_wire.c compares them).
 */
#include "proto/wire.h"

#include <lber.h>
#include <ldap.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/der.h"

/* ---- growable bytes (start-up) ---- */

void ldb_bytes_free(struct ldb_bytes *b)
{
	if (b == NULL)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

int ldb_bytes_append(struct ldb_bytes *b, const void *p, size_t n)
{
	if (b == NULL || (p == NULL && n > 0))
		return -1;
	if (n > SIZE_MAX - b->len)
		return -1;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		uint8_t *d;

		while (cap < b->len + n)
			cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
		d = realloc(b->data, cap);
		if (d == NULL)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/* ---- encoders (start-up; they allocate) ---- */

static int wire_fail(char *err, const char *what, const char *why)
{
	if (err != NULL)
		snprintf(err, LDB_WIRE_ERRLEN, "%s: %s", what, why);
	return -1;
}

static BerElement *enc_begin(char *err, const char *what)
{
	BerElement *ber;

	if (err != NULL)
		err[0] = '\0';
	ber = ber_alloc_t(LBER_USE_DER);
	if (ber == NULL)
		wire_fail(err, what, "out of memory");
	return ber;
}

/* Append the element's bytes to out and free it; rc is the encoding's status
 * so far (a non-zero rc just frees). */
static int enc_end(BerElement *ber, int rc, struct ldb_bytes *out, char *err, const char *what)
{
	struct berval bv;

	if (rc == 0) {
		if (ber_flatten2(ber, &bv, 0) != 0 || ldb_bytes_append(out, bv.bv_val, bv.bv_len) != 0)
			rc = wire_fail(err, what, "out of memory");
	} else if (err != NULL && err[0] == '\0') {
		wire_fail(err, what, "encoding failed");
	}
	ber_free(ber, 1);
	return rc;
}

static int put_attr_values(BerElement *ber, const struct ldb_attr_values *av)
{
	const char *const *v;

	if (ber_printf(ber, "{s[", av->type) == -1)
		return -1;
	for (v = av->values; v != NULL && *v != NULL; v++)
		if (ber_printf(ber, "s", *v) == -1)
			return -1;
	return ber_printf(ber, "]}") == -1 ? -1 : 0;
}

int ldb_wire_encode_search(struct ldb_bytes *out, const struct ldb_search_args *a, char *err)
{
	static const char what[] = "search request";
	const char *const *at;
	BerElement *ber;
	int rc = -1;

	if (out == NULL || a == NULL)
		return wire_fail(err, what, "no arguments");
	if (a->scope < 0 || a->scope > 3)
		return wire_fail(err, what, "scope must be base, one, sub or children (0-3)");
	if (a->deref < 0 || a->deref > 3)
		return wire_fail(err, what, "deref must be 0-3");
	if (a->sizelimit < 0 || a->timelimit < 0)
		return wire_fail(err, what, "size and time limits must not be negative");
	if (a->attrs != NULL)
		for (at = a->attrs; *at != NULL; at++)
			if ((*at)[0] == '\0')
				return wire_fail(err, what, "empty attribute name in the attribute list");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{seeiib", LDAP_REQ_SEARCH, a->base ? a->base : "", (ber_int_t)a->scope,
	               (ber_int_t)a->deref, (ber_int_t)a->sizelimit, (ber_int_t)a->timelimit,
	               (ber_int_t)(a->attrsonly != 0)) == -1)
		goto done;
	/* libldap's default filter when none is given */
	if (ldb_filter_put(ber, a->filter ? a->filter : "(objectclass=*)", err) != 0)
		goto done;
	if (ber_printf(ber, "{") == -1)
		goto done;
	for (at = a->attrs; at != NULL && *at != NULL; at++)
		if (ber_printf(ber, "s", *at) == -1)
			goto done;
	if (ber_printf(ber, "}}") == -1)
		goto done;
	rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_bind_simple(struct ldb_bytes *out, const char *dn, const char *pw, size_t pwlen, char *err)
{
	return ldb_wire_encode_bind_simple_v(out, LDAP_VERSION3, dn, pw, pwlen, err);
}

int ldb_wire_encode_bind_simple_v(struct ldb_bytes *out, int version, const char *dn, const char *pw, size_t pwlen,
                                  char *err)
{
	static const char what[] = "simple bind request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL)
		return wire_fail(err, what, "no output buffer");
	if (pw == NULL && pwlen > 0)
		return wire_fail(err, what, "password length without a password");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{isto}", LDAP_REQ_BIND, (ber_int_t)version, dn ? dn : "", LDAP_AUTH_SIMPLE, pw ? pw : "",
	               (ber_len_t)pwlen) != -1)
		rc = 0;
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_bind_sasl(struct ldb_bytes *out, const char *dn, const char *mech, const uint8_t *cred,
                              size_t credlen, int has_cred, char *err)
{
	static const char what[] = "SASL bind request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL)
		return wire_fail(err, what, "no output buffer");
	if (mech == NULL || mech[0] == '\0')
		return wire_fail(err, what, "no SASL mechanism");
	if (has_cred && cred == NULL && credlen > 0)
		return wire_fail(err, what, "credential length without credentials");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{ist{s", LDAP_REQ_BIND, (ber_int_t)LDAP_VERSION3, dn ? dn : "", LDAP_AUTH_SASL, mech) ==
	    -1)
		goto done;
	if (has_cred && ber_printf(ber, "o", cred ? (const char *)cred : "", (ber_len_t)credlen) == -1)
		goto done;
	if (ber_printf(ber, "}}") != -1)
		rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_unbind(struct ldb_bytes *out, char *err)
{
	static const char what[] = "unbind request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL)
		return wire_fail(err, what, "no output buffer");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "tn", LDAP_REQ_UNBIND) != -1)
		rc = 0;
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_add(struct ldb_bytes *out, const char *dn, const struct ldb_attr_values *attrs, size_t nattrs,
                        char *err)
{
	static const char what[] = "add request";
	BerElement *ber;
	size_t i;
	int rc = -1;

	if (out == NULL || dn == NULL)
		return wire_fail(err, what, "no entry DN");
	if (nattrs > 0 && attrs == NULL)
		return wire_fail(err, what, "attribute count without attributes");
	for (i = 0; i < nattrs; i++)
		if (attrs[i].type == NULL || attrs[i].type[0] == '\0')
			return wire_fail(err, what, "attribute without a type");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{s{", LDAP_REQ_ADD, dn) == -1)
		goto done;
	for (i = 0; i < nattrs; i++)
		if (put_attr_values(ber, &attrs[i]) != 0)
			goto done;
	if (ber_printf(ber, "}}") != -1)
		rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_modify(struct ldb_bytes *out, const char *dn, const struct ldb_mod *mods, size_t nmods, char *err)
{
	static const char what[] = "modify request";
	BerElement *ber;
	size_t i;
	int rc = -1;

	if (out == NULL || dn == NULL)
		return wire_fail(err, what, "no entry DN");
	if (nmods > 0 && mods == NULL)
		return wire_fail(err, what, "modification count without modifications");
	for (i = 0; i < nmods; i++) {
		/* 3 is increment (RFC 4525) */
		if (mods[i].op < 0 || mods[i].op > 3)
			return wire_fail(err, what, "modification operation must be add, delete, replace or increment");
		if (mods[i].av.type == NULL || mods[i].av.type[0] == '\0')
			return wire_fail(err, what, "modification without an attribute type");
	}
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{s{", LDAP_REQ_MODIFY, dn) == -1)
		goto done;
	for (i = 0; i < nmods; i++) {
		if (ber_printf(ber, "{e", (ber_int_t)mods[i].op) == -1)
			goto done;
		if (put_attr_values(ber, &mods[i].av) != 0)
			goto done;
		if (ber_printf(ber, "}") == -1)
			goto done;
	}
	if (ber_printf(ber, "}}") != -1)
		rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_delete(struct ldb_bytes *out, const char *dn, char *err)
{
	static const char what[] = "delete request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL || dn == NULL)
		return wire_fail(err, what, "no entry DN");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "ts", LDAP_REQ_DELETE, dn) != -1)
		rc = 0;
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_modrdn(struct ldb_bytes *out, const char *dn, const char *newrdn, int deleteoldrdn,
                           const char *newsuperior, char *err)
{
	static const char what[] = "modify DN request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL || dn == NULL || newrdn == NULL)
		return wire_fail(err, what, "no entry DN or new RDN");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{ssb", LDAP_REQ_MODDN, dn, newrdn, (ber_int_t)(deleteoldrdn != 0)) == -1)
		goto done;
	if (newsuperior != NULL && ber_printf(ber, "ts", LDAP_TAG_NEWSUPERIOR, newsuperior) == -1)
		goto done;
	if (ber_printf(ber, "}") != -1)
		rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_compare(struct ldb_bytes *out, const char *dn, const char *attr, const char *value, char *err)
{
	static const char what[] = "compare request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL || dn == NULL || attr == NULL || value == NULL)
		return wire_fail(err, what, "needs a DN, an attribute and a value");
	if (attr[0] == '\0')
		return wire_fail(err, what, "empty attribute type");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{s{ss}}", LDAP_REQ_COMPARE, dn, attr, value) != -1)
		rc = 0;
	return enc_end(ber, rc, out, err, what);
}

int ldb_wire_encode_extended(struct ldb_bytes *out, const char *oid, const uint8_t *value, size_t vlen, int has_value,
                             char *err)
{
	static const char what[] = "extended request";
	BerElement *ber;
	int rc = -1;

	if (out == NULL || oid == NULL || oid[0] == '\0')
		return wire_fail(err, what, "no request OID");
	if (has_value && value == NULL && vlen > 0)
		return wire_fail(err, what, "value length without a value");
	if ((ber = enc_begin(err, what)) == NULL)
		return -1;
	if (ber_printf(ber, "t{ts", LDAP_REQ_EXTENDED, LDAP_TAG_EXOP_REQ_OID, oid) == -1)
		goto done;
	if (has_value &&
	    ber_printf(ber, "to", LDAP_TAG_EXOP_REQ_VALUE, value ? (const char *)value : "", (ber_len_t)vlen) == -1)
		goto done;
	if (ber_printf(ber, "}") != -1)
		rc = 0;
done:
	return enc_end(ber, rc, out, err, what);
}

/* ---- hot path: no allocation, no stdio ---- */

size_t ldb_wire_frame(uint8_t *dst, size_t cap, int32_t msgid, const uint8_t *op, size_t oplen)
{
	size_t idlen = ldb_der_int_size(msgid), content, total;
	uint8_t *p;

	if (dst == NULL || (op == NULL && oplen > 0))
		return 0;
	if (oplen > (size_t)0xffffffffu - 2 - idlen)
		return 0;
	content = 2 + idlen + oplen;
	total = 1 + ldb_der_len_size(content) + content;
	if (cap < total)
		return 0;
	/* the op first: callers may have encoded it in place just after the envelope room */
	if (oplen > 0)
		memmove(dst + total - oplen, op, oplen);
	p = ldb_der_put_tl(dst, 0x30, content);
	ldb_der_put_int(p, msgid);
	return total;
}

/* Read a tag and a definite length at buf[*pos], within end (inlined: a
 * message's framing runs it three times, once per message received).
 * @return 1 read (*pos moves to the contents, *clen their length, which fits
 *         before end), 0 the header is cut short by end, -1 invalid. */
static inline __attribute__((always_inline)) int read_tl(const uint8_t *buf, size_t end, size_t *pos, uint8_t *tag,
                                                         size_t *clen)
{
	size_t p = *pos, n, i;
	uint64_t l = 0;

	if (p >= end)
		return 0;
	*tag = buf[p++];
	if ((*tag & 0x1f) == 0x1f) /* multi-byte tags: none in LDAP */
		return -1;
	if (p >= end)
		return 0;
	if (buf[p] < 0x80) {
		l = buf[p++];
	} else {
		n = buf[p++] & 0x7fu;
		if (n == 0 || n > 4) /* indefinite or too long */
			return -1;
		if (end - p < n)
			return 0;
		for (i = 0; i < n; i++)
			l = (l << 8) | buf[p++];
	}
	if (l > SIZE_MAX - p)
		return -1;
	*pos = p;
	*clen = (size_t)l;
	return 1;
}

/* A non-negative INTEGER/ENUMERATED of 1..4 content bytes (5 with a leading 0). */
static inline __attribute__((always_inline)) int read_uint31(const uint8_t *c, size_t n, int32_t *v)
{
	uint32_t u = 0;
	size_t i;

	if (n == 0 || n > 5 || (c[0] & 0x80))
		return -1;
	if (n == 5) {
		if (c[0] != 0)
			return -1;
		c++;
		n--;
	}
	for (i = 0; i < n; i++)
		u = (u << 8) | c[i];
	if (u > INT32_MAX)
		return -1;
	*v = (int32_t)u;
	return 0;
}

static int is_result_op(uint8_t op)
{
	switch (op) {
	case 0x61:
	case 0x65:
	case 0x67:
	case 0x69:
	case 0x6b:
	case 0x6d:
	case 0x6f:
	case 0x78: return 1;
	default: return 0;
	}
}

int ldb_wire_parse(const uint8_t *buf, size_t len, struct ldb_resp *r, size_t *need)
{
	size_t pos = 0, clen, total, end, idpos, idlen, body, bodylen;
	uint8_t tag;
	int32_t msgid, code;
	int rc;

	if (need != NULL)
		*need = 0;
	if (buf == NULL || r == NULL)
		return len == 0 && r != NULL ? 0 : -1;
	rc = read_tl(buf, len, &pos, &tag, &clen);
	if (rc < 0 || (len > 0 && buf[0] != 0x30))
		return -1;
	if (rc == 0)
		return 0;
	total = pos + clen;
	if (need != NULL)
		*need = total;
	if (len < total)
		return 0;
	end = total;

	/* messageID */
	if (read_tl(buf, end, &pos, &tag, &clen) != 1 || tag != 0x02 || clen > end - pos)
		return -1;
	idpos = pos;
	idlen = clen;
	if (read_uint31(buf + idpos, idlen, &msgid) != 0)
		return -1;
	pos += clen;

	/* protocolOp */
	if (read_tl(buf, end, &pos, &tag, &clen) != 1 || clen > end - pos)
		return -1;
	body = pos;
	bodylen = clen;

	code = -1;
	if (is_result_op(tag)) {
		size_t rpos = body;
		uint8_t rtag;

		if (read_tl(buf, body + bodylen, &rpos, &rtag, &clen) != 1 || rtag != 0x0a ||
		    clen > body + bodylen - rpos || read_uint31(buf + rpos, clen, &code) != 0)
			return -1;
	}
	r->msgid = msgid;
	r->op = tag;
	r->result = code;
	r->len = total;
	r->body = buf + body;
	r->bodylen = bodylen;
	return 1;
}
