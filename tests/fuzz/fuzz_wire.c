/* libFuzzer target: the response parser (and the envelope writer).
 *
 * 1. The whole input is a read buffer, as a connection would hold it (copied
 *    to a heap block of exactly its size, so that ASan sees any read past it):
 *    ldb_wire_parse frames message after message, as the worker does, until it
 *    needs more bytes or refuses.  Aborts when a decoded message claims bytes
 *    outside the buffer or a zero length, or when "need more" names a size the
 *    buffer already holds.  Every prefix of a decoded message must be "need
 *    more", never a different message.
 *    Each decoded message also goes through ldb_deref_count (-e deref) and
 *    the response control parser (proto/controls: the sort result, pre/post-read
 *    entries); a control appended to it (ldb_ctl_append, into a buffer of
 *    exactly the room it needs) must then be found with its value.
 * 2. The first bytes also give a message id and a result code: a
 *    SearchResultDone built with ldb_wire_frame must parse back to them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/controls.h"
#include "proto/deref.h"
#include "proto/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const uint8_t *data, size_t size)
{
	if (size < 5)
		return;
	int32_t msgid =
	        (int32_t)(((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]) &
	                  0x7fffffff);
	int code = data[4] % 123;
	/* SearchResultDone: resultCode, matchedDN "", diagnosticMessage "" */
	const uint8_t op[] = { 0x65, 0x07, 0x0a, 0x01, (uint8_t)code, 0x04, 0x00, 0x04, 0x00 };
	uint8_t msg[LDB_WIRE_ENVELOPE_MAX + sizeof op];
	size_t n = ldb_wire_frame(msg, sizeof msg, msgid, op, sizeof op);
	if (n == 0 || n > sizeof msg)
		abort();
	struct ldb_resp r;
	int rc = ldb_wire_parse(msg, n, &r, NULL);
	if (msgid == 0) /* 0 is a valid INTEGER: both answers are acceptable */
		return;
	if (rc != 1 || r.msgid != msgid || r.result != code || r.len != n || r.op != 0x65)
		abort();
	if (ldb_wire_frame(msg, n - 1, msgid, op, sizeof op) != 0)
		abort(); /* too small a buffer must be refused */
}

/* The response controls of msg[0..len): read without reading outside it;
 * then one more control appended and found again. */
static void check_controls(const uint8_t *msg, size_t len)
{
	static const uint8_t ctl[] = { 0x30, 0x0b, 0x04, 0x03, '1', '.', '2', 0x04, 0x04, 'v', 'a', 'l', 'u' };
	const uint8_t *v;
	size_t vlen;
	if (ldb_ctl_find(msg, len, LDB_CTL_SORT_RESP_OID, &v, &vlen) && (v < msg || v + vlen > msg + len))
		abort();
	if (ldb_ctl_find(msg, len, LDB_CTL_SORT_RESP_OID, &v, &vlen))
		(void)ldb_ctl_sort_result(v, vlen);
	if (ldb_ctl_find(msg, len, LDB_CTL_PREREAD_OID, &v, &vlen))
		(void)ldb_ctl_read_entry(v, vlen);
	if (ldb_ctl_find(msg, len, "1.2", &v, &vlen))
		return; /* it holds one already: the first one is found */
	size_t cap = len + sizeof ctl + LDB_CTL_GROWTH;
	uint8_t *big = malloc(cap);
	if (big == NULL)
		return;
	memcpy(big, msg, len);
	size_t n = ldb_ctl_append(big, len, cap, ctl, sizeof ctl, NULL, 0);
	if (n > cap || (n > 0 && (!ldb_ctl_find(big, n, "1.2", &v, &vlen) || vlen != 4 || memcmp(v, "valu", 4) != 0)))
		abort();
	free(big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	uint8_t *buf = malloc(size ? size : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	size_t pos = 0;
	for (int k = 0; k < 1000 && pos < size; k++) {
		struct ldb_resp r;
		size_t need = 0;
		int rc = ldb_wire_parse(buf + pos, size - pos, &r, &need);
		if (rc < 0)
			break;
		if (rc == 0) {
			if (need != 0 && need <= size - pos)
				abort(); /* "need more" although the bytes are there */
			break;
		}
		if (rc != 1 || r.len == 0 || r.len > size - pos)
			abort();
		if (r.body < buf + pos || r.bodylen > r.len || r.body + r.bodylen > buf + pos + r.len)
			abort();
		/* any strict prefix of this message is incomplete, never a message */
		size_t cut = r.len - 1 - (size_t)data[0] % r.len;
		if (cut < r.len) {
			uint8_t *pre = malloc(cut ? cut : 1);
			if (pre != NULL) {
				memcpy(pre, buf + pos, cut);
				struct ldb_resp r2;
				size_t need2 = 0;
				int rc2 = ldb_wire_parse(pre, cut, &r2, &need2);
				if (rc2 == 1)
					abort();
				if (rc2 == 0 && need2 != 0 && need2 != r.len)
					abort();
				free(pre);
			}
		}
		/* -e deref's count reads the same message in the hot path: any
		 * bytes, nothing read outside it, at most one per byte */
		if (ldb_deref_count(buf + pos, r.len) > r.len)
			abort();
		check_controls(buf + pos, r.len);
		pos += r.len;
	}
	free(buf);
	check_roundtrip(data, size);
	return 0;
}
