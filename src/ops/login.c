/* login (--login, --mix login): a login as applications make it, one
 * operation of the load in up to three requests on one slot (the
 * multi-step operations' hook, more):
 *
 *   step 1  a subtree search below -b with -f (ldclt's XXX or a value
 *           pattern), size limit 2, asking for no attribute ("1.1") or for
 *           --login-password-attr's; the DN of the entry it returns is kept
 *           (entry); no entry ends the flow as "no entry" (-14, libldap's
 *           LDAP_NO_RESULTS_RETURNED), two as "more than one entry" (-15,
 *           LDAP_MORE_RESULTS_TO_RETURN), the password attribute missing as
 *           16 (noSuchAttribute): no bind is sent;
 *   step 2  a simple bind as that DN, the password --login-password's (a
 *           fixed value or a value pattern) or the entry's
 *           --login-password-attr value; with --bad-password PCT% that
 *           share of them sends a wrong one (the right one and a suffix):
 *           its 49 is the expected end (the flow succeeds, no group step),
 *           noted for the I/O thread's count; with --ppolicy it carries
 *           the password policy request control;
 *   step 3  with --login-groups BASE: a subtree search below BASE for
 *           (member=DN), no attributes.
 *
 * A failing step ends the flow with its code.  The flow is counted under
 * this kind (its latency from the first request to the last answer); each
 * step as its own kind too (search, bind, search: the row's step_kind),
 * with its own latency (run/issue.c ldb_record_step). */
#include "ops/ops.h"

#include <ldap.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/controls.h"
#include "proto/der.h"
#include "values/vpattern.h"

#define PW_MAX 512
#define SIZE_LIMIT 2
#define BAD_SUFFIX "\x01wrong" /* what --bad-password adds to the right password */

struct login_state {
	uint16_t dnlen, pwlen;
	uint8_t nentries; /* step 1's entries, up to 255 */
	bool too_long;    /* the DN or the password did not fit */
	bool bad;         /* --bad-password: this flow's bind sends a wrong password */
	char dn[LDB_DN_MAX];
	char pw[PW_MAX];
};

static bool asked(const struct ldb_config *c)
{
	return c->login;
}

static bool fixed_password(const struct ldb_config *c)
{
	return c->login_password != NULL && !ldb_vp_has_brackets(c->login_password);
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix login" : "--login";
	if (c->filter == NULL)
		snprintf(why, cap, "%s needs a filter (-f) to find the user", kw);
	else if (c->login_password == NULL && c->login_password_attr == NULL)
		snprintf(why, cap, "%s needs --login-password VALUE or --login-password-attr ATTR", kw);
	else if (c->login_password != NULL && c->login_password_attr != NULL)
		snprintf(why, cap, "--login-password and --login-password-attr exclude each other");
	else if (c->login_password != NULL && strlen(c->login_password) >= PW_MAX)
		snprintf(why, cap, "--login-password: longer than %d bytes", PW_MAX - 1);
	else if (c->login_groups != NULL && strlen(c->login_groups) >= LDB_DN_MAX)
		snprintf(why, cap, "--login-groups: longer than %d bytes", LDB_DN_MAX - 1);
	else if (c->login_password != NULL && !fixed_password(c)) {
		struct ldb_vp *p = NULL;
		char err[256];
		int rc = 0;
		if (ldb_vp_compile(&p, c->login_password, err, sizeof err) != 0) {
			snprintf(why, cap, "--login-password: %s", err);
			rc = -1;
		} else if (ldb_vp_max_len(p) >= PW_MAX) {
			snprintf(why, cap, "--login-password: its values may pass %d bytes", PW_MAX - 1);
			rc = -1;
		}
		ldb_vp_free(p);
		return rc;
	} else
		return 0;
	return -1;
}

static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *opt = c->login_password != NULL        ? "--login-password"
	                  : c->login_password_attr != NULL ? "--login-password-attr"
	                  : c->login_groups != NULL        ? "--login-groups"
	                  : c->bad_password_bp > 0 && !c->bindeach && c->weight[LDB_OP_BIND] == 0 && c->flow_nsteps == 0
	                          ? "--bad-password"
	                          : NULL;
	if (opt != NULL) {
		snprintf(why, cap, "%s needs %s", opt,
		         strcmp(opt, "--bad-password") == 0
		                 ? "binds to send: --login, a flow's bind step, -e bindonly or -e bindeach"
		         : mix ? "login in --mix"
		               : "--login");
		return -1;
	}
	if (mix && c->login) {
		snprintf(why, cap, "--login and --mix: name login in --mix (e.g. --mix login:1,search:1)");
		return -1;
	}
	return 0;
}

/* Step 1's search: -b and -f as the search kind takes them, size limit 2,
 * the password attribute or none; built from a copy of the configuration
 * (kept in o, freed with it: the value patterns' programs point into it). */
static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	const struct ldb_config *c = o->cfg;
	struct ldb_config *lc = malloc(sizeof *lc);
	if (lc == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	*lc = *c;
	memset(lc->attrs, 0, sizeof lc->attrs);
	lc->attrs[0] = c->login_password_attr != NULL ? c->login_password_attr : (char *)"1.1";
	lc->nattrs = 1;
	lc->random_attrlist = false;
	lc->attrsonly = 0;
	lc->deref_attr = NULL;
	lc->search_sizelimit = SIZE_LIMIT;
	o->login_cfg = lc;
	if (ldb_reqset_build_search(&o->login_search, lc, err, cap) != 0)
		return -1;
	if (c->login_password != NULL && !fixed_password(c)) {
		if (ldb_vp_compile(&o->vp[LDB_VP_LOGIN_PW], c->login_password, err, cap) != 0)
			return -1;
		o->scratch = true;
	}
	if ((c->ctl.named & LDB_CTLF_PPOLICY) &&
	    ldb_ctl_encode(&o->login_ppolicy, LDB_CTL_PPOLICY_OID, false, NULL, 0, false, err) != 0)
		return -1;
	size_t bind = LDB_DN_MAX + PW_MAX + 64 + o->login_ppolicy.len + LDB_CTL_GROWTH;
	size_t groups = (c->login_groups != NULL ? strlen(c->login_groups) : 0) + LDB_DN_MAX + 96;
	size_t room = o->login_search.maxlen;
	room = bind > room ? bind : room;
	o->room[LDB_OP_LOGIN] = groups > room ? groups : room;
	o->state_size[LDB_OP_LOGIN] = (sizeof(struct login_state) + 7) & ~(size_t)7;
	return 0;
}

static long render_search(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_ops_run *o = r->ops;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	if (o->login_search.vr != NULL)
		return (long)ldb_vreq_render(&o->login_search.vr[0], r->vpc, r->rng, r->msgid, dst, cap);
	vals[LDB_FIELD_FILTER] = r->v;
	vals[LDB_FIELD_BASE] = r->bv;
	size_t n = ldb_req_render(&o->login_search, 0, vals, r->msgid, dst, cap);
	if (n > 0 && o->cfg->rnd_string)
		ldb_req_fill_bytes(&o->login_search, 0, LDB_FIELD_FILTER, dst, n, o->cfg->rnd_ascii, r->rng);
	return (long)n;
}

static long render_bind(const struct ldb_op_req *r, struct login_state *st, uint8_t *dst, size_t cap)
{
	const struct ldb_ops_run *o = r->ops;
	const struct ldb_config *c = o->cfg;
	char buf[PW_MAX + sizeof BAD_SUFFIX];
	const char *pw = st->pw;
	size_t pwlen = st->pwlen;

	if (o->vp[LDB_VP_LOGIN_PW] != NULL) {
		pw = buf;
		pwlen = ldb_vp_render(o->vp[LDB_VP_LOGIN_PW], r->wc->vps[LDB_VP_LOGIN_PW], r->rng, buf, PW_MAX);
	} else if (c->login_password != NULL) {
		pw = c->login_password;
		pwlen = strlen(pw);
	}
	st->bad = c->bad_password_bp > 0 && ldb_rng_range(r->rng, 0, 9999) < c->bad_password_bp;
	if (st->bad) { /* the right one with a suffix: never the right one */
		if (pw != buf)
			memcpy(buf, pw, pwlen);
		memcpy(buf + pwlen, BAD_SUFFIX, sizeof BAD_SUFFIX - 1);
		pw = buf;
		pwlen += sizeof BAD_SUFFIX - 1;
	}
	size_t n = ldb_wire_put_bind_simple(dst, cap, r->msgid, st->dn, st->dnlen, pw, pwlen);
	if (pw == buf)
		explicit_bzero(buf, pwlen);
	if (n > 0 && o->login_ppolicy.len > 0)
		n = ldb_ctl_append(dst, n, cap, o->login_ppolicy.data, o->login_ppolicy.len, NULL, 0);
	return (long)n;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct login_state *st = (struct login_state *)(void *)r->state;
	if (r->round == 0) {
		st->dnlen = st->pwlen = 0;
		st->nentries = 0;
		st->too_long = st->bad = false;
		return render_search(r, dst, cap);
	}
	if (r->round == 1)
		return render_bind(r, st, dst, cap);
	const char *g = r->ops->cfg->login_groups;
	return (long)ldb_wire_put_search_eq(dst, cap, r->msgid, g, strlen(g), "member", st->dn, st->dnlen, 0);
}

/* The first value of attribute `want` among a SearchResultEntry's
 * attributes a[0..end), into st->pw. */
static void take_password(struct login_state *st, const char *want, const uint8_t *a, const uint8_t *end)
{
	size_t wl = strlen(want), n, tn, vn;
	const uint8_t *attr, *type, *vals, *v;
	uint8_t tag;

	while (a != NULL && a < end) {
		a = ldb_der_tlv(a, end, &tag, &attr, &n);
		if (a == NULL || tag != 0x30)
			return;
		const uint8_t *p = ldb_der_tlv(attr, attr + n, &tag, &type, &tn);
		if (p == NULL || tag != 0x04 || tn != wl || strncasecmp((const char *)type, want, wl) != 0)
			continue;
		if (ldb_der_tlv(p, attr + n, &tag, &vals, &vn) == NULL || tag != 0x31 ||
		    ldb_der_tlv(vals, vals + vn, &tag, &v, &n) == NULL || tag != 0x04)
			return;
		if (n >= PW_MAX) {
			st->too_long = true;
			return;
		}
		memcpy(st->pw, v, n);
		st->pwlen = (uint16_t)n;
		return;
	}
}

/* Step 1's entries: the first one's DN (and password) kept, all counted. */
static void entry(const struct ldb_op_req *r, const uint8_t *body, size_t bodylen)
{
	struct login_state *st = (struct login_state *)(void *)r->state;
	const uint8_t *end = body + bodylen, *dn, *attrs;
	size_t n, an;
	uint8_t tag;

	if (r->round != 0)
		return;
	if (st->nentries < 255)
		st->nentries++;
	if (st->nentries > 1)
		return;
	const uint8_t *p = ldb_der_tlv(body, end, &tag, &dn, &n);
	if (p == NULL || tag != 0x04 || n >= LDB_DN_MAX) {
		st->too_long = true;
		return;
	}
	memcpy(st->dn, dn, n);
	st->dnlen = (uint16_t)n;
	const char *want = r->ops->cfg->login_password_attr;
	if (want != NULL && ldb_der_tlv(p, end, &tag, &attrs, &an) != NULL && tag == 0x30)
		take_password(st, want, attrs, attrs + an);
}

/* After each step: the next one, or the flow's end with its result. */
static bool more(const struct ldb_op_req *r, struct ldb_op_reply *rep)
{
	struct login_state *st = (struct login_state *)(void *)r->state;
	const struct ldb_config *c = r->ops->cfg;

	if (r->round == 1 && st->bad) { /* a wrong password on purpose: its refusal is the expected end */
		ldb_note_bad_password(rep);
		return false;
	}
	if (r->round >= 1)
		return r->round == 1 && rep->rc == LDAP_SUCCESS && c->login_groups != NULL;
	if (st->nentries > 1) {
		rep->rc = LDAP_MORE_RESULTS_TO_RETURN;
		return false;
	}
	if (rep->rc != LDAP_SUCCESS)
		return false;
	if (st->nentries == 0)
		rep->rc = LDAP_NO_RESULTS_RETURNED;
	else if (st->too_long)
		rep->rc = LDAP_NO_MEMORY;
	else if (c->login_password_attr != NULL && st->pwlen == 0)
		rep->rc = LDAP_NO_SUCH_ATTRIBUTE;
	else
		return true;
	return false;
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	const char *why = f->code == LDAP_NO_RESULTS_RETURNED      ? "no entry"
	                  : f->code == LDAP_MORE_RESULTS_TO_RETURN ? "more than one entry"
	                                                           : f->text;
	return snprintf(out, cap, "Cannot log in, error=%d (%s)", f->code, why);
}

/* the password is never printed, a pattern's text is */
static void print(const struct ldb_config *c, FILE *out)
{
	const char *pw = c->login_password_attr != NULL ? "from the entry's attribute"
	                 : fixed_password(c)            ? "--login-password's (not shown)"
	                                                : c->login_password;
	fprintf(out, LDB_VKEY "%s\n", "Login", "search -b/-f (size limit 2), bind as the DN found");
	if (c->login_password_attr != NULL)
		fprintf(out, LDB_VKEY "%s (%s)\n", "  password", pw, c->login_password_attr);
	else
		fprintf(out, LDB_VKEY "%s\n", "  password", pw);
	fprintf(out, LDB_VKEY "%s\n", "  groups", c->login_groups != NULL ? c->login_groups : "(no group step)");
}

const struct ldb_opdesc ldb_op_login = {
	.name = "login",
	.json = "login",
	.controls = LDB_CTLF_PPOLICY, /* on its bind only (render_bind) */
	.response = true,
	.alone = true, /* its second step is a bind (RFC 4511 4.2.1) */
	.filter = true,
	.pass_rank = 11,
	.print_rank = 11,
	.check_at = LDB_CHECK_FILTER,
	.asked = asked,
	.option_text = "--login",
	.check = check,
	.stray = stray,
	.prepare = prepare,
	.render = render,
	.more = more,
	.entry = entry,
	.nsteps = 3,
	.step_kind = { LDB_OP_SEARCH, LDB_OP_BIND, LDB_OP_SEARCH },
	.step_also = { 0, 0, LDB_OP_LOGIN_GROUPS },
	.errline = errline,
	.mode = " login",
	.print = print,
};

/* Never sent alone: the login's group step, on a row of its own. */
static long render_groups(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	(void)r;
	(void)dst;
	(void)cap;
	return 0;
}

/* The login's group step (--login-groups) also on its own row, apart from
 * the user's search (both stay under search, the server's count). */
const struct ldb_opdesc ldb_op_login_groups = {
	.name = "login.groups",
	.json = "login.groups",
	.response = true,
	.pass_rank = 21,
	.print_rank = 21,
	.render = render_groups,
	.unlisted = true,
};
