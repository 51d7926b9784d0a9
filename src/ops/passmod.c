/* passmod (--passmod, --mix passmod): RFC 3062's password modify extended
 * request, a user changing its password: the workload password policies are
 * tested with.  Its value holds three optional fields, each from an option
 * that takes a value pattern (values/vpattern, rendered per request):
 *
 *   userIdentity  --passmod-user; default: none, the connection's own
 *                 identity (-D, or -o authid=) changes its password;
 *   oldPasswd     --passmod-old; default: -w when it is one fixed value (no
 *                 XXX, no bracket expression) and --passmod-user is not
 *                 given; else none (an administrator's reset);
 *   newPasswd     --passmod-new; default: the old password again, so that a
 *                 run leaves every password as it found it and never locks
 *                 its own users out (a server that keeps a password history
 *                 refuses it: a counted result code, 19).
 *
 * Without an old password to set again, --passmod-new must be given (the
 * server would otherwise make up a password nobody knows). */
#include "ops/ops.h"

#include <string.h>

#define PASSMOD_OID "1.3.6.1.4.1.4203.1.11.1"
/* The longest field a pattern may render: the three and the value's
 * SEQUENCE fit the client's scratch (struct ldb_wctx's vals, then aux). */
#define PART_MAX 1024

enum { USER, OLD, NEW, PARTS };
static const char *const opt_name[PARTS] = { "--passmod-user", "--passmod-old", "--passmod-new" };

static const char *given(const struct ldb_config *c, int part)
{
	return part == USER ? c->passmod_user : part == OLD ? c->passmod_old : c->passmod_new;
}

/* -w is the default old password: one fixed value, the user's own */
static bool old_from_w(const struct ldb_config *c)
{
	return c->passmod_old == NULL && c->passmod_user == NULL && c->password != NULL &&
	       strstr(c->password, "XXX") == NULL && !ldb_vp_has_brackets(c->password);
}

static bool asked(const struct ldb_config *c)
{
	return c->passmod;
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix passmod" : "--passmod";
	for (int i = 0; i < PARTS; i++) {
		struct ldb_vp *p = NULL;
		char err[512];
		if (given(c, i) == NULL)
			continue;
		int rc = ldb_vp_compile(&p, given(c, i), err, sizeof err);
		if (rc != 0)
			snprintf(why, cap, "%s: %s", opt_name[i], err);
		else if (ldb_vp_max_len(p) > PART_MAX) {
			snprintf(why, cap, "%s: renders up to %zu bytes, more than %d", opt_name[i], ldb_vp_max_len(p),
			         PART_MAX);
			rc = -1;
		}
		ldb_vp_free(p);
		if (rc != 0)
			return -1;
	}
	if (c->passmod_user == NULL && c->bind_dn == NULL && c->sasl_mech == NULL) {
		snprintf(why, cap, "%s needs -D (the bound user changes its own password) or --passmod-user", kw);
		return -1;
	}
	if (c->passmod_new == NULL && c->passmod_old == NULL && !old_from_w(c)) {
		snprintf(why, cap,
		         "%s needs --passmod-new PATTERN: there is no old password to set again (-w is not one fixed "
		         "value, or --passmod-user names another user)",
		         kw);
		return -1;
	}
	return 0;
}

/* its options given while the run does not do it */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	for (int i = 0; i < PARTS; i++)
		if (given(c, i) != NULL) {
			snprintf(why, cap, "%s needs %s", opt_name[i], mix ? "passmod in --mix" : "--passmod");
			return -1;
		}
	if (mix && c->passmod) {
		snprintf(why, cap, "--passmod and --mix: name passmod in --mix (e.g. --mix passmod:1,search:1)");
		return -1;
	}
	return 0;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	for (int i = 0; i < PARTS; i++)
		if (given(o->cfg, i) != NULL &&
		    ldb_vp_compile(&o->vp[LDB_VP_PASSMOD_USER + i], given(o->cfg, i), err, cap) != 0)
			return -1;
	return 0;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_ops_run *o = r->ops;
	const struct ldb_config *c = o->cfg;
	struct ldb_wctx *wc = r->wc;
	const char *v[PARTS] = { NULL, NULL, NULL };
	size_t len[PARTS] = { 0, 0, 0 }, used = 0;

	for (int i = 0; i < PARTS; i++) {
		const struct ldb_vp *p = o->vp[LDB_VP_PASSMOD_USER + i];
		if (p == NULL)
			continue;
		v[i] = wc->vals + used;
		len[i] = ldb_vp_render(p, wc->vps[LDB_VP_PASSMOD_USER + i], r->rng, wc->vals + used,
		                       sizeof wc->vals - used);
		used += len[i];
	}
	if (v[OLD] == NULL && old_from_w(c)) {
		v[OLD] = c->password;
		len[OLD] = strlen(c->password);
	}
	if (v[NEW] == NULL) {
		v[NEW] = v[OLD];
		len[NEW] = len[OLD];
	}
	size_t n = ldb_wire_put_tagged_seq((uint8_t *)wc->aux, sizeof wc->aux, v, len, PARTS);
	if (n == 0)
		return 0;
	return (long)ldb_wire_put_extended(dst, cap, r->msgid, PASSMOD_OID, sizeof PASSMOD_OID - 1, wc->aux, n);
}

/* the passwords are never printed, the patterns of generated ones are */
static void print(const struct ldb_config *c, FILE *out)
{
	const char *old = c->passmod_old != NULL ? "--passmod-old's (not shown)"
	                  : old_from_w(c)        ? "-w's (not shown)"
	                                         : "(none)";
	const char *new = c->passmod_new == NULL                ? "the old one again"
	                  : ldb_vp_has_brackets(c->passmod_new) ? c->passmod_new
	                                                        : "--passmod-new's (not shown)";
	fprintf(out, LDB_VKEY "%s\n", "Password modify", PASSMOD_OID " (RFC 3062)");
	fprintf(out, LDB_VKEY "%s\n", "  userIdentity",
	        c->passmod_user != NULL ? c->passmod_user : "(none: the connection's own identity)");
	fprintf(out, LDB_VKEY "%s\n", "  oldPasswd", old);
	fprintf(out, LDB_VKEY "%s\n", "  newPasswd", new);
}

const struct ldb_opdesc ldb_op_passmod = {
	.name = "passmod",
	.json = "passmod",
	.monitor = "Extended",
	.snmp = NULL, /* 389 DS's cn=snmp counts no extended operation */
	.setup_extended = true,
	/* userPassword changes (or is set again), but -S has nothing to look for on a
	 * consumer: for -S it changes nothing, and is not followed */
	.changes = LDB_CHANGES_NOTHING,
	.response = true,
	.pass_rank = 8,
	.print_rank = 8,
	.check_at = LDB_CHECK_BINDER,
	.asked = asked,
	.option_text = "--passmod",
	.check = check,
	.stray = stray,
	.prepare = prepare,
	.writes = true,
	.render = render,
	.mode = " passmod",
	.print = print,
};
