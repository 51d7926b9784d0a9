/* bind (-e bindonly): the template of the bind that also opens connections;
 * the DN (and password) from randombinddn, or a line of randombinddnfromfile. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

#include "proto/der.h"
#include "values/pattern.h"

#define BAD_SUFFIX "\x01wrong" /* what --bad-password adds to the right password (as the login's) */
#define PW_MAX 512

/* A simple bind's state with --bad-password: whether it sent a wrong one. */
struct plain_state {
	bool bad;
};

static bool more_plain(const struct ldb_op_req *r, struct ldb_op_reply *rep);

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (c->bind_dn == NULL && c->binddn_file == NULL && c->sasl_mech == NULL) {
		snprintf(why, cap, "%s needs -D (or -e randombinddnfromfile, or -o mech=)",
		         mix ? "--mix bind" : "-e bindonly");
		return -1;
	}
	return 0;
}

/* The largest request of a multi-step SASL exchange: its credentials, the
 * mechanism's name and the envelope. */
#define SASL_ROOM (sizeof(((struct ldb_sasl_state *)0)->out) + 64)

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	const struct ldb_config *c = o->cfg;
	enum ldb_sasl_mech m = c->sasl_mech != NULL ? ldb_sasl_mech_lookup(c->sasl_mech) : LDB_SASL_NONE;
	if (m != LDB_SASL_NONE) {
		/* an exchange of several requests: each slot keeps its state */
		o->sasl = (struct ldb_sasl_conf){ .mech = m, .authzid = c->sasl_authzid, .realm = c->sasl_realm };
		o->state_size[LDB_OP_BIND] = sizeof(struct ldb_sasl_state);
		o->room[LDB_OP_BIND] = o->bind.maxlen = SASL_ROOM;
		return 0;
	}
	if (ldb_reqset_build_bind(&o->bind, o->cfg, err, cap) != 0)
		return -1;
	o->room[LDB_OP_BIND] = o->bind.maxlen + sizeof BAD_SUFFIX;
	/* --bad-password on the binds of the load (not the connections' own) */
	if (c->bad_password_bp > 0 && (c->weight[LDB_OP_BIND] > 0 || c->bindeach))
		o->state_size[LDB_OP_BIND] = sizeof(struct plain_state);
	return 0;
}

/* The simple bind just rendered at dst[0..n) again with a wrong password
 * (the right one and a suffix).  @return its length, 0 when it cannot. */
static size_t make_wrong(const struct ldb_op_req *r, uint8_t *dst, size_t n, size_t cap)
{
	const uint8_t *end = dst + n, *msg, *op, *ver, *dn, *pw;
	size_t len, dnlen, pwlen;
	uint8_t tag;
	char dnb[LDB_DN_MAX], pwb[PW_MAX + sizeof BAD_SUFFIX];
	if (ldb_der_tlv(dst, end, &tag, &msg, &len) == NULL || tag != 0x30)
		return 0;
	const uint8_t *p = ldb_der_tlv(msg, msg + len, &tag, &ver, &dnlen); /* the message id */
	if (p == NULL || ldb_der_tlv(p, msg + len, &tag, &op, &len) == NULL || tag != 0x60)
		return 0;
	p = ldb_der_tlv(op, op + len, &tag, &ver, &dnlen); /* the version */
	p = p != NULL ? ldb_der_tlv(p, op + len, &tag, &dn, &dnlen) : NULL;
	p = p != NULL && dnlen < sizeof dnb ? ldb_der_tlv(p, op + len, &tag, &pw, &pwlen) : NULL;
	if (p == NULL || tag != 0x80 || pwlen > PW_MAX)
		return 0;
	memcpy(dnb, dn, dnlen);
	memcpy(pwb, pw, pwlen);
	memcpy(pwb + pwlen, BAD_SUFFIX, sizeof BAD_SUFFIX - 1);
	size_t m = ldb_wire_put_bind_simple(dst, cap, r->msgid, dnb, dnlen, pwb, pwlen + sizeof BAD_SUFFIX - 1);
	explicit_bzero(pwb, sizeof pwb);
	return m;
}

/* The authentication ID and password of a new exchange: with randomauthid,
 * -o authid's XXX (and -w's, if it has one) from one random number. */
static int sasl_who(const struct ldb_op_req *r, char *user, size_t *ulen, char *pw, size_t *pwlen)
{
	const struct ldb_config *c = r->ops->cfg;
	size_t cap = LDB_SASL_FIELD_MAX + 1;
	bool var = c->randomauthid && ldb_pattern_has_var(&c->sasl_authid_pat);
	int64_t n = var ? ldb_rng_range(r->rng, c->binddn_low, c->binddn_high) : 0;
	const char *fixed_pw = c->password != NULL ? c->password : "";

	*ulen = var ? ldb_pattern_render(&c->sasl_authid_pat, n, user, cap) : strlen(c->sasl_authid);
	if (!var && *ulen < cap)
		memcpy(user, c->sasl_authid, *ulen);
	if (var && ldb_pattern_has_var(&c->password_pat))
		*pwlen = ldb_pattern_render(&c->password_pat, n, pw, cap);
	else if ((*pwlen = strlen(fixed_pw)) < cap)
		memcpy(pw, fixed_pw, *pwlen);
	return *ulen == 0 || *ulen >= cap || *pwlen >= cap ? -1 : 0;
}

/* A request of a multi-step SASL exchange: the first starts it (the state
 * over), the others carry the answer more() computed. */
static long render_sasl(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	struct ldb_sasl_state *st = (struct ldb_sasl_state *)(void *)r->state;
	if (r->round == 0) {
		char user[LDB_SASL_FIELD_MAX + 1], pw[LDB_SASL_FIELD_MAX + 1];
		size_t ulen, pwlen;
		bool has;
		int rc = sasl_who(r, user, &ulen, pw, &pwlen);
		if (rc == 0)
			rc = ldb_sasl_start(st, &r->ops->sasl, user, ulen, pw, pwlen, r->rng, &has);
		explicit_bzero(pw, sizeof pw);
		if (rc != 0)
			return 0;
	}
	return (long)ldb_sasl_put_bind(dst, cap, r->msgid, r->ops->cfg->sasl_mech, st->out, st->outlen, st->outlen > 0);
}

/* After each result of a multi-step SASL exchange: the server's challenge
 * answered (another request), or the exchange over with its result. */
static bool more(const struct ldb_op_req *r, struct ldb_op_reply *rep)
{
	if (r->ops->sasl.mech == LDB_SASL_NONE)
		return more_plain(r, rep);
	struct ldb_sasl_state *st = (struct ldb_sasl_state *)(void *)r->state;
	const uint8_t *cred = NULL;
	size_t n = 0;
	bool has;
	int found = ldb_sasl_server_creds(rep->resp->body, rep->resp->bodylen, &cred, &n);
	if (found < 0) {
		rep->rc = LDB_SASL_RC_CLIENT;
		return false;
	}
	return ldb_sasl_step(st, &r->ops->sasl, &rep->rc, found > 0 ? cred : NULL, n, r->rng, &has);
}

/* A simple bind's result with --bad-password: a wrong password's 49 is the
 * expected answer, noted for the I/O thread's count (not an error). */
static bool more_plain(const struct ldb_op_req *r, struct ldb_op_reply *rep)
{
	const struct plain_state *st = (const struct plain_state *)(const void *)r->state;
	if (!st->bad)
		return false;
	ldb_note_bad_password(rep);
	return false;
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	int variant = 0;

	if (r->state != NULL && r->ops->sasl.mech != LDB_SASL_NONE)
		return render_sasl(r, dst, cap);

	size_t n;
	if (r->ops->bind.vr != NULL)
		n = ldb_vreq_render(&r->ops->bind.vr[0], r->vpc, r->rng, r->msgid, dst, cap);
	else {
		if (c->binddn_file_n > 0)
			variant = (int)ldb_rng_range(r->rng, 0, (int64_t)c->binddn_file_n - 1);
		else if (r->ops->bind.var[LDB_FIELD_BINDDN])
			vals[LDB_FIELD_BINDDN] = ldb_rng_range(r->rng, c->binddn_low, c->binddn_high);
		n = ldb_req_render(&r->ops->bind, variant, vals, r->msgid, dst, cap);
	}
	if (r->state != NULL) { /* --bad-password: a share of the load's binds (never a connection's own) */
		struct plain_state *st = (struct plain_state *)(void *)r->state;
		st->bad = !r->setup && n > 0 && ldb_rng_range(r->rng, 0, 9999) < c->bad_password_bp;
		if (st->bad)
			n = make_wrong(r, dst, n, cap);
	}
	return (long)n;
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	if (f->cfg->sasl_mech != NULL)
		return snprintf(out, cap, "Cannot ldap_sasl_bind_s, error=%d (%s)", f->code, f->text);
	/* ldclt prints the password here; ldbench never does */
	return snprintf(out, cap, "Cannot ldap_simple_bind_s (%s, *), error=%d (%s)",
	                f->cfg->bind_dn != NULL ? f->cfg->bind_dn : "", f->code, f->text);
}

const struct ldb_opdesc ldb_op_bind = {
	.name = "bind",
	.controls = LDB_CTLF_SESSION | LDB_CTLF_PPOLICY,
	.json = "bind",
	.keyword = "bindonly",
	.monitor = "Bind",
	.snmp = "simpleauthbinds",
	.snmp_also = "strongauthbinds",
	.config_word = true,
	.fatal = true,
	.response = true,
	.alone = true,
	.connect_bind = true,
	.pass_rank = 4,
	.print_rank = 0,
	.check_at = LDB_CHECK_BINDER,
	.expected_any = true,
	.option_text = "-e bindonly",
	.check = check,
	.prepare = prepare,
	.render = render,
	.more = more,
	.errline = errline,
	.mode = " bindonly",
};
