/* The dereference control: see deref.h. */
#include "proto/deref.h"

#include <lber.h>
#include <stdio.h>
#include <string.h>

#include "proto/der.h"

int ldb_deref_encode_controls(struct ldb_bytes *out, const char *attr, const char *target, char *err)
{
	BerElement *val = ber_alloc_t(LBER_USE_DER), *ctl = ber_alloc_t(LBER_USE_DER);
	struct berval v = { 0, NULL }, c = { 0, NULL };
	int rc = -1;

	/* controlValue ::= SEQUENCE OF DerefSpec { derefAttr, attributes SEQUENCE OF } */
	if (val != NULL && ctl != NULL && ber_printf(val, "{{s{s}}}", attr, target) != -1 &&
	    ber_flatten2(val, &v, 0) == 0 && ber_printf(ctl, "t{{sO}}", (ber_tag_t)0xa0, LDB_DEREF_OID, &v) != -1 &&
	    ber_flatten2(ctl, &c, 0) == 0 && ldb_bytes_append(out, c.bv_val, c.bv_len) == 0)
		rc = 0;
	else if (err != NULL)
		snprintf(err, LDB_WIRE_ERRLEN, "deref control: encoding failed");
	if (val != NULL)
		ber_free(val, 1);
	if (ctl != NULL)
		ber_free(ctl, 1);
	return rc;
}

/* The DerefRes in one Control's contents, when it is the deref control. */
static uint64_t count_control(const uint8_t *p, const uint8_t *end)
{
	static const char oid[] = LDB_DEREF_OID;
	const uint8_t *b, *next;
	uint8_t tag;
	size_t n;
	uint64_t count = 0;

	next = ldb_der_tlv(p, end, &tag, &b, &n);
	if (next == NULL || tag != 0x04 || n != sizeof oid - 1 || memcmp(b, oid, n) != 0)
		return 0;
	for (p = next; p < end; p = next) {
		if ((next = ldb_der_tlv(p, end, &tag, &b, &n)) == NULL)
			return 0;
		if (tag != 0x04) /* criticality */
			continue;
		/* controlValue: SEQUENCE OF DerefRes */
		const uint8_t *s, *vend = b + n;
		if (ldb_der_tlv(b, vend, &tag, &s, &n) == NULL || tag != 0x30)
			return 0;
		for (const uint8_t *q = s, *qend = s + n; q < qend; count++)
			if ((q = ldb_der_tlv(q, qend, &tag, &b, &n)) == NULL)
				return 0;
	}
	return count;
}

uint64_t ldb_deref_count(const uint8_t *msg, size_t len)
{
	const uint8_t *end = msg + len, *b, *p;
	uint8_t tag;
	size_t n;
	uint64_t count = 0;

	/* LDAPMessage { messageID, protocolOp, [0] Controls } */
	if (ldb_der_tlv(msg, end, &tag, &b, &n) == NULL || tag != 0x30)
		return 0;
	end = b + n;
	if ((p = ldb_der_tlv(b, end, &tag, &b, &n)) == NULL || (p = ldb_der_tlv(p, end, &tag, &b, &n)) == NULL)
		return 0;
	if (p >= end || ldb_der_tlv(p, end, &tag, &b, &n) == NULL || tag != 0xa0)
		return 0;
	for (const uint8_t *q = b, *qend = b + n; q < qend;) {
		const uint8_t *cb;
		if ((q = ldb_der_tlv(q, qend, &tag, &cb, &n)) == NULL || tag != 0x30)
			return count;
		count += count_control(cb, cb + n);
	}
	return count;
}
