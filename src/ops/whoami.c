/* whoami (--whoami, --mix whoami): RFC 4532's "Who am I?" extended request,
 * no value; the server answers with the connection's authorization identity.
 * The connections' own WhoAmI (the abandons' sync, run/conn.h SETUP_SYNC) and
 * StartTLS are set-up requests, never counted as this kind; the server counts
 * them with it (setup_extended: --monitor adds them to the client's side). */
#include "ops/ops.h"

#include <string.h>

#define WHOAMI_OID "1.3.6.1.4.1.4203.1.11.3"
#define WHOAMI_MAX (LDB_WIRE_ENVELOPE_MAX + 2 + 2 + sizeof WHOAMI_OID)

static bool asked(const struct ldb_config *c)
{
	return c->whoami;
}

/* with --mix, --whoami is the mix's to say */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (!mix || !c->whoami)
		return 0;
	snprintf(why, cap, "--whoami and --mix: name whoami in --mix (e.g. --mix whoami:1,search:1)");
	return -1;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	(void)err;
	(void)cap;
	o->room[LDB_OP_WHOAMI] = WHOAMI_MAX;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	return (long)ldb_wire_put_extended(dst, cap, r->msgid, WHOAMI_OID, sizeof WHOAMI_OID - 1, NULL, 0);
}

static void print(const struct ldb_config *c, FILE *out)
{
	(void)c;
	fprintf(out, LDB_VKEY "%s\n", "Who am I?", WHOAMI_OID " (RFC 4532)");
}

const struct ldb_opdesc ldb_op_whoami = {
	.name = "whoami",
	.json = "whoami",
	.monitor = "Extended",
	.snmp = NULL, /* 389 DS's cn=snmp counts no extended operation */
	.setup_extended = true,
	.response = true,
	.pass_rank = 9,
	.print_rank = 9,
	.check_at = LDB_CHECK_BINDER,
	.asked = asked,
	.option_text = "--whoami",
	.stray = stray,
	.prepare = prepare,
	.render = render,
	.mode = " whoami",
	.print = print,
};
