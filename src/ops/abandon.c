/* abandon (-e abandon): as ldclt, an asynchronous search abandoned at once
 * (RFC 4511 4.11), counted when sent.  The server answers the abandon with
 * nothing (and the search, if at all, before the abandon reached it: those
 * answers match no request in flight and are dropped), so the operation is
 * done once it is on the wire: the kind without a response.  Nothing then
 * slows a client but the server's progress: each connection waits for a
 * WhoAmI's answer after every 32 of them, and before its Unbind (SYNC_EVERY,
 * run/conn.h), so that slapd takes up every abandon counted. */
#include "ops/ops.h"

#include <ldap.h>

#define ABANDON_MAX (LDB_WIRE_ENVELOPE_MAX + 2 + 5)

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix abandon" : "-e abandon";
	if (c->filter == NULL) {
		snprintf(why, cap, "%s needs a filter (-f): it abandons a search", kw);
		return -1;
	}
	if (c->bindeach) {
		snprintf(why, cap, "%s and -e bindeach exclude each other: nothing answers an abandon", kw);
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	/* the search's template, unless the search kind has built it */
	if (!ldb_reqset_built(&o->search) && ldb_reqset_build_search(&o->search, o->cfg, err, cap) != 0)
		return -1;
	o->room[LDB_OP_ABANDON] = o->search.maxlen + ABANDON_MAX;
	return 0;
}

/* AbandonRequest ::= [APPLICATION 16] MessageID, framed with its own id. */
static size_t put_abandon(uint8_t *dst, size_t cap, int32_t msgid, int32_t victim)
{
	uint8_t op[2 + 5], be[4];
	size_t n = 0, skip = 0;

	for (int i = 0; i < 4; i++)
		be[i] = (uint8_t)((uint32_t)victim >> (24 - 8 * i));
	/* the shortest two's complement form (victim > 0) */
	while (skip < 3 && be[skip] == 0 && !(be[skip + 1] & 0x80))
		skip++;
	op[n++] = 0x50;
	op[n++] = (uint8_t)(4 - skip);
	for (size_t i = skip; i < 4; i++)
		op[n++] = be[i];
	return ldb_wire_frame(dst, cap, msgid, op, n);
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	/* the search kind's request, then the abandon of it */
	long n = ldb_op_search.render(r, dst, cap);
	if (n <= 0)
		return 0;
	size_t m = put_abandon(dst + n, cap - (size_t)n, r->msgid2, r->msgid);
	return m == 0 ? 0 : n + (long)m;
}

const struct ldb_opdesc ldb_op_abandon = {
	.name = "abandon",
	.json = "abandon",
	.keyword = "abandon",
	.monitor = "Abandon",
	.snmp = NULL, /* 389 DS's cn=snmp counts no abandon */
	.response = false,
	.msgids = 2,
	.filter = true,
	.pass_rank = 7,
	.print_rank = 7,
	.check_at = LDB_CHECK_FILTER,
	.option_text = "-e abandon",
	.check = check,
	.prepare = prepare,
	.render = render,
	.mode = " abandon",
};
