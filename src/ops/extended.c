/* extended (--extended OID[:value|::base64], --mix extended): any extended
 * request (RFC 4511 4.12) by its OID, with no value, a value (a value
 * pattern: rendered per request, values/vpattern) or a value given in base64
 * (decoded once).  Whatever the server answers is the result: an OID it does
 * not know is its result code (OpenLDAP and 389 DS: 2, protocolError), counted
 * as any failure. */
#include "ops/ops.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"

/* The longest value: a pattern renders into the client's scratch
 * (struct ldb_wctx's vals), a decoded base64 value goes into the request as
 * it is, within the write kinds' room. */
#define EXT_PATTERN_MAX (sizeof(((struct ldb_wctx *)0)->vals))
#define EXT_BASE64_MAX (LDB_OP_WRITE_ROOM - 1024)

static bool asked(const struct ldb_config *c)
{
	return c->ext_oid != NULL;
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->ext_oid == NULL) {
		snprintf(why, cap, "--mix extended needs --extended OID[:value|::base64]");
		return -1;
	}
	(void)mix;
	if (c->ext_value == NULL)
		return 0;
	if (c->ext_value_base64) {
		long n = ldb_base64_decode(c->ext_value, strlen(c->ext_value), NULL, SIZE_MAX);
		if (n < 0)
			snprintf(why, cap, "--extended '%s::%s': the value is not base64 (RFC 4648, with its padding)",
			         c->ext_oid, c->ext_value);
		else if (n > (long)EXT_BASE64_MAX)
			snprintf(why, cap, "--extended %s: the value takes %ld bytes, more than %zu", c->ext_oid, n,
			         (size_t)EXT_BASE64_MAX);
		return n < 0 || n > (long)EXT_BASE64_MAX ? -1 : 0;
	}
	struct ldb_vp *p = NULL;
	char err[512];
	int rc = ldb_vp_compile(&p, c->ext_value, err, sizeof err);
	if (rc != 0)
		snprintf(why, cap, "--extended %s: %s", c->ext_oid, err);
	else if (ldb_vp_max_len(p) > EXT_PATTERN_MAX) {
		snprintf(why, cap, "--extended %s: the value '%s' renders up to %zu bytes, more than %zu", c->ext_oid,
		         c->ext_value, ldb_vp_max_len(p), (size_t)EXT_PATTERN_MAX);
		rc = -1;
	}
	ldb_vp_free(p);
	return rc;
}

/* with --mix, --extended needs extended in it */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (!mix || c->ext_oid == NULL)
		return 0;
	snprintf(why, cap, "--extended needs extended in --mix");
	return -1;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	const struct ldb_config *c = o->cfg;
	if (c->ext_value == NULL)
		return 0;
	if (!c->ext_value_base64)
		return ldb_vp_compile(&o->vp[LDB_VP_EXTENDED], c->ext_value, err, cap);
	o->ext_value = malloc(strlen(c->ext_value) / 4 * 3 + 1);
	long n = o->ext_value != NULL ? ldb_base64_decode(c->ext_value, strlen(c->ext_value), o->ext_value, SIZE_MAX)
	                              : -1;
	if (n < 0) {
		snprintf(err, cap, "--extended %s: cannot decode the value", c->ext_oid);
		return -1;
	}
	o->ext_len = (size_t)n;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_ops_run *o = r->ops;
	const struct ldb_config *c = o->cfg;
	const void *val = o->ext_value;
	size_t len = o->ext_len;
	if (o->vp[LDB_VP_EXTENDED] != NULL) {
		struct ldb_wctx *wc = r->wc;
		len = ldb_vp_render(o->vp[LDB_VP_EXTENDED], wc->vps[LDB_VP_EXTENDED], r->rng, wc->vals,
		                    sizeof wc->vals);
		val = wc->vals;
	}
	return (long)ldb_wire_put_extended(dst, cap, r->msgid, c->ext_oid, strlen(c->ext_oid), val, len);
}

static void print(const struct ldb_config *c, FILE *out)
{
	if (c->ext_value == NULL)
		fprintf(out, LDB_VKEY "%s (no value)\n", "Extended request", c->ext_oid);
	else
		fprintf(out, LDB_VKEY "%s value%s \"%s\"\n", "Extended request", c->ext_oid,
		        c->ext_value_base64 ? " (base64)" : "", c->ext_value);
}

const struct ldb_opdesc ldb_op_extended = {
	.name = "extended",
	.json = "extended",
	.monitor = "Extended",
	.snmp = NULL, /* 389 DS's cn=snmp counts no extended operation */
	.setup_extended = true,
	.response = true,
	.pass_rank = 10,
	.print_rank = 10,
	.check_at = LDB_CHECK_BINDER,
	.asked = asked,
	.option_text = "--extended",
	.check = check,
	.stray = stray,
	.prepare = prepare,
	.writes = true,
	.render = render,
	.mode = " extended",
	.print = print,
};
