/* A general flow (--flow NAME, --step 'KIND key=value ...', docs/guide.md
 * "Flows"): each operation of the load is a sequence of steps, each an
 * operation of its own kind (search, bind, compare, modify, add, delete, rename,
 * whoami, extended), sent in order on one slot through the multi-step hook;
 * a step's arguments may use what an earlier search step returned (its first
 * entry's DN, a value of it, its count: ops/flow_parse.c).  A failing step
 * ends the flow with its code; a search whose entry a later step reads and
 * that finds none ends it as "no entry" (-14), a kept attribute missing as 16.
 * The flow is counted under its row (named by --flow: flows, their latency
 * from the first request to the last answer); each step under a row of its
 * own (its slot's step rows: "NAME.N.KIND" or "NAME.STEPNAME"), with the reason
 * that ended a flow at it.  --bad-password makes a share of the bind steps
 * send a wrong password, its 49 the flow's expected end (as the login's).
 *
 * The rows' names, step count and entries flags come from the options (one
 * flow per workload, in its slot: struct ldb_config's flow_slot), set by
 * check and prepare before any I/O thread starts. */
#include "ops/flow.h"

#include <ldap.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/der.h"
#include "proto/lkey.h"
#include "values/vpattern.h"

#define BAD_SUFFIX "\x01wrong"
#define WHOAMI_OID "1.3.6.1.4.1.4203.1.11.3"

/* Per slot (a run's flow takes slot 0; with [workload] sections each other
 * workload's flow a slot of its own, rows LDB_OP_FLOW_ROW(slot)...): the
 * rows' names, "flow", "flow-b", ... and "NAME.1", ... until named. */
static char flow_name[LDB_FLOW_SLOTS][FLOW_NAME_MAX];
static char step_name[LDB_FLOW_SLOTS][LDB_FLOW_STEPS][FLOW_NAME_MAX];

/* A results file's flow rows in a process that did not run them (compare,
 * merge): a name no row has takes a slot not yet taken, its steps (NAME.*)
 * the slot's next step rows, in the order the records name them. */
static bool adopted[LDB_FLOW_SLOTS];
static int adopted_steps[LDB_FLOW_SLOTS];

int ldb_flow_adopt_row(const char *name)
{
	size_t plen = strcspn(name, "."), len = strlen(name);
	if (plen == 0 || len >= FLOW_NAME_MAX)
		return -1;
	int sl = -1;
	for (int i = 0; i < LDB_FLOW_SLOTS && sl < 0; i++)
		if (adopted[i] && strlen(flow_name[i]) == plen && strncmp(flow_name[i], name, plen) == 0)
			sl = i;
	for (int i = 0; i < LDB_FLOW_SLOTS && sl < 0; i++)
		if (!adopted[i]) {
			adopted[i] = true;
			snprintf(flow_name[i], sizeof flow_name[i], "%.*s", (int)plen, name);
			sl = i;
		}
	if (sl < 0)
		return -1;
	if (plen == len)
		return LDB_OP_FLOW_ROW(sl);
	if (adopted_steps[sl] >= LDB_FLOW_STEPS)
		return -1;
	int i = adopted_steps[sl]++;
	snprintf(step_name[sl][i], sizeof step_name[sl][i], "%s", name);
	return LDB_OP_FLOW_STEP(sl, i);
}

static int slot_of(const struct ldb_config *c)
{
	return c->flow_slot > 0 && c->flow_slot < LDB_FLOW_SLOTS ? c->flow_slot : 0;
}

static struct ldb_opdesc *row_of(int sl)
{
	return &ldb_op_flows[LDB_OP_FLOW_ROW(sl) - LDB_OP_FLOW];
}

/* The rows named as the options say. */
static void name_rows(const struct ldb_flow *f, const struct ldb_config *c)
{
	int sl = slot_of(c);
	struct ldb_opdesc *row = row_of(sl), *steps = row + 1;
	snprintf(flow_name[sl], sizeof flow_name[sl], "%s", c->flow_name != NULL ? c->flow_name : "flow");
	row->nsteps = (uint8_t)f->n;
	for (int i = 0; i < f->n; i++) {
		memcpy(step_name[sl][i], f->step[i].name, sizeof step_name[sl][i]);
		steps[i].entries = f->step[i].kind == LDB_OP_SEARCH;
	}
}

static bool asked_any(const struct ldb_config *c)
{
	return c->flow_name != NULL || c->flow_nsteps > 0;
}

/* row k is the flow of c's slot */
static bool asked(const struct ldb_config *c, int k)
{
	return asked_any(c) && k == LDB_OP_FLOW_ROW(slot_of(c));
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	struct ldb_flow *f = malloc(sizeof *f);
	(void)mix;
	if (f == NULL) {
		snprintf(why, cap, "out of memory");
		return -1;
	}
	int rc = ldb_flow_parse(f, c, why, cap);
	if (rc == 0)
		name_rows(f, c);
	ldb_flow_free(f);
	free(f);
	return rc;
}

/* --flow or --step while the run does not do the flow: a --mix that does not name it */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (!asked_any(c) || c->weight[LDB_OP_FLOW_ROW(slot_of(c))] > 0)
		return 0;
	snprintf(why, cap, "%s with --mix: name the flow in --mix (--mix flow:1,...)",
	         c->flow_name != NULL ? "--flow" : "--step");
	(void)mix;
	return -1;
}

static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	struct ldb_flow *f = calloc(1, sizeof *f);
	if (f == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	o->flow = f;
	if (ldb_flow_parse(f, o->cfg, err, cap) != 0) {
		ldb_flow_free(f);
		return -1;
	}
	name_rows(f, o->cfg);
	for (int v = 0; v < f->nvp; v++)
		o->vp[LDB_VP_FLOW + v] = f->vp[v]; /* the clients' states: ldb_ops_client_init */
	if (f->nvp > 0)
		o->scratch = true;
	const char *la = ldb_listen_value_attr(o->cfg, o);
	for (int i = 0; i < f->n; i++) {
		struct flow_step *s = &f->step[i];
		s->lk_val = s->kind == LDB_OP_MODIFY && s->modop == LDB_MOD_REPLACE && s->f[FF_VALUE].given &&
		            la != NULL && strcasecmp(s->attr, la) == 0;
	}
	int row = LDB_OP_FLOW_ROW(slot_of(o->cfg));
	o->room[row] = f->room;
	o->state_size[row] = f->state_size;
	return 0;
}

static char *kept_dn(const struct ldb_flow *f, const uint8_t *st, int slot)
{
	(void)f;
	return (char *)(uintptr_t)(st + ((sizeof(struct flow_state) + 7) & ~(size_t)7) + (size_t)slot * FLOW_DN_MAX);
}

static char *kept_val(const struct ldb_flow *f, const uint8_t *st, int c)
{
	return kept_dn(f, st, f->ndn) + (size_t)c * FLOW_VAL_MAX;
}

size_t ldb_flow_render_arg(const struct ldb_flow *f, const struct flow_tmpl *t, const uint8_t *st,
                           struct ldb_vp_state *const *vps, struct ldb_rng *rng, char *out)
{
	const struct flow_state *fs = (const struct flow_state *)(const void *)st;
	size_t n = 0;
	for (int k = 0; k < t->n; k++) {
		const struct flow_part *p = &t->p[k];
		switch (p->type) {
		case FP_VP: n += ldb_vp_render(f->vp[p->idx], vps[p->idx], rng, out + n, FLOW_ARG_MAX - n); break;
		case FP_DN:
			memcpy(out + n, kept_dn(f, st, f->step[p->step].dnslot), fs->dnlen[p->step]);
			n += fs->dnlen[p->step];
			break;
		case FP_ATTR:
			memcpy(out + n, kept_val(f, st, p->idx), fs->caplen[p->idx]);
			n += fs->caplen[p->idx];
			break;
		case FP_COUNT: n += (size_t)snprintf(out + n, 4, "%u", fs->count[p->step]); break;
		default: memcpy(out + n, p->lit, p->len); n += p->len;
		}
	}
	out[n] = '\0';
	return n;
}

const char *ldb_listen_value_attr(const struct ldb_config *c, const struct ldb_ops_run *o)
{
	if (c->listen_attr != NULL)
		return c->listen_attr;
	if (c->nmods > 0)
		return c->mods[0].attr;
	if (c->attreplace_attr != NULL)
		return c->attreplace_attr;
	if (c->attreplacefile_attr != NULL || o == NULL || o->flow == NULL)
		return c->attreplacefile_attr;
	for (int i = 0; i < o->flow->n; i++)
		if (o->flow->step[i].kind == LDB_OP_MODIFY && o->flow->step[i].modop == LDB_MOD_REPLACE)
			return o->flow->step[i].attr;
	return NULL;
}

/* A rename's new DN, as a server sends it: newrdn, then the new superior
 * (sup, or the old DN's parent: after its first comma not escaped). */
static size_t moved_dn(char *out, size_t cap, const char *dn, size_t dnlen, const char *rdn, size_t rn, const char *sup,
                       size_t sn)
{
	size_t k = ldb_lk_dn_plain(out, cap, rdn, rn);
	for (size_t i = 0; sup == NULL && i < dnlen; i++) {
		if (dn[i] == '\\') {
			i++;
		} else if (dn[i] == ',') {
			sup = dn + i + 1;
			sn = dnlen - i - 1;
		}
	}
	if (sup == NULL || k >= cap)
		return k;
	out[k++] = ',';
	return k + ldb_lk_dn_plain(out + k, cap - k, sup, sn);
}

/* With listen_keys: a write step's keys, from what it sends (dn a, its
 * modify's value or its rename's new RDN b, its new superior c3). */
static void write_keys(const struct flow_step *s, struct flow_state *fs, const char *a, size_t an, const char *b,
                       size_t bn, const char *c3, size_t cn)
{
	char d[2 * FLOW_ARG_MAX + 2];
	size_t dn;
	int what = s->kind == LDB_OP_ADD ? LK_THERE : s->kind == LDB_OP_DELETE ? LK_GONE : LK_VALUE;
	fs->lk_kind = (int8_t)s->kind;
	if (s->kind == LDB_OP_RENAME) {
		dn = moved_dn(d, sizeof d, a, an, b, bn, s->f[FF_NEWSUP].given ? c3 : NULL, cn);
		what = LK_THERE;
	} else {
		dn = ldb_lk_dn_plain(d, sizeof d, a, an);
	}
	fs->lk_dnkey = ldb_lk_dn((const uint8_t *)d, dn);
	fs->lk_key = s->kind == LDB_OP_MODIFY && !s->lk_val
	                     ? 0
	                     : ldb_lk_key(fs->lk_dnkey, what, what == LK_VALUE ? (const uint8_t *)b : NULL,
	                                  what == LK_VALUE ? bn : 0);
}

/* A step that writes (its keys go to the listeners' matcher). */
static bool writes(int kind)
{
	return kind == LDB_OP_MODIFY || kind == LDB_OP_ADD || kind == LDB_OP_DELETE || kind == LDB_OP_RENAME;
}

static int keys(const struct ldb_op_req *r, uint64_t *dnkey, uint64_t *key)
{
	const struct ldb_flow *f = r->ops->flow;
	const struct flow_state *fs = (const struct flow_state *)(const void *)r->state;
	int k = f->step[r->round < f->n ? r->round : f->n - 1].kind;
	if (!writes(k))
		return -1;
	*dnkey = fs->lk_dnkey;
	*key = fs->lk_key;
	return k;
}

/* a wrong password for --bad-password's share */
static size_t bind_password(const struct ldb_op_req *r, struct flow_state *fs, char *pw, size_t n)
{
	int bp = r->ops->cfg->bad_password_bp;
	fs->bad = bp > 0 && ldb_rng_range(r->rng, 0, 9999) < bp;
	if (!fs->bad)
		return n;
	memcpy(pw + n, BAD_SUFFIX, sizeof BAD_SUFFIX - 1);
	return n + sizeof BAD_SUFFIX - 1;
}

/* An add step: the entry= text rendered at e[0..n) as TYPE:VALUE;TYPE:VALUE... */
static size_t put_add(const struct ldb_op_req *r, uint8_t *dst, size_t cap, const char *dn, size_t dnlen, char *e,
                      size_t n)
{
	struct ldb_put_value v[FLOW_ADD_VALUES];
	int nv = 0;
	size_t at = 0;
	while (at < n && nv < FLOW_ADD_VALUES) {
		char *semi = memchr(e + at, ';', n - at), *end = semi != NULL ? semi : e + n;
		char *colon = memchr(e + at, ':', (size_t)(end - (e + at)));
		if (colon == NULL)
			return 0;
		*colon = '\0'; /* the type, NUL-ended in place */
		const char *val = colon + 1;
		while (val < end && *val == ' ')
			val++;
		v[nv++] = (struct ldb_put_value){ e + at, val, (size_t)(end - val) };
		at = (size_t)(end - e) + 1;
	}
	return ldb_wire_put_add(dst, cap, r->msgid, dn, dnlen, v, nv);
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_flow *f = r->ops->flow;
	const struct flow_step *s = &f->step[r->round < f->n ? r->round : f->n - 1];
	struct flow_state *fs = (struct flow_state *)(void *)r->state;
	struct ldb_vp_state *const *vps = r->wc != NULL ? &r->wc->vps[LDB_VP_FLOW] : NULL;
	char a[FLOW_ARG_MAX + 16], b[FLOW_ARG_MAX + 16], c3[FLOW_ARG_MAX + 16];
	size_t an = 0, bn = 0, cn = 0;

	if (r->round == 0)
		memset(fs, 0, sizeof *fs);
	const struct flow_tmpl *t0 = &s->f[s->kind == LDB_OP_SEARCH ? FF_BASE : FF_DN];
	const struct flow_tmpl *t1 = &s->f[s->kind == LDB_OP_SEARCH   ? FF_FILTER
	                                   : s->kind == LDB_OP_BIND   ? FF_PASSWORD
	                                   : s->kind == LDB_OP_RENAME ? FF_NEWRDN
	                                   : s->kind == LDB_OP_ADD    ? FF_ENTRY
	                                                              : FF_VALUE];
	if (t0->given)
		an = ldb_flow_render_arg(f, t0, r->state, vps, r->rng, a);
	if (t1->given)
		bn = ldb_flow_render_arg(f, t1, r->state, vps, r->rng, b);
	if (s->kind == LDB_OP_RENAME && s->f[FF_NEWSUP].given)
		cn = ldb_flow_render_arg(f, &s->f[FF_NEWSUP], r->state, vps, r->rng, c3);
	if (r->ops->listen_keys && writes(s->kind))
		write_keys(s, fs, a, an, b, bn, c3, cn); /* before put_add cuts the entry's text */
	switch (s->kind) {
	case LDB_OP_SEARCH:
		if (!t1->given)
			bn = (size_t)snprintf(b, sizeof b, "(objectClass=*)");
		return (long)ldb_flow_put_search(dst, cap, r->msgid, a, an, s->scope, s->sizelimit, b, bn, s->attrs,
		                                 s->nattrs);
	case LDB_OP_BIND: {
		size_t n = ldb_wire_put_bind_simple(dst, cap, r->msgid, a, an, b, bind_password(r, fs, b, bn));
		explicit_bzero(b, bn + sizeof BAD_SUFFIX);
		return (long)n;
	}
	case LDB_OP_COMPARE: return (long)ldb_wire_put_compare(dst, cap, r->msgid, a, an, s->attr, b, bn);
	case LDB_OP_MODIFY: {
		struct ldb_put_mod m = { s->modop, s->attr, t1->given ? b : NULL, bn };
		return (long)ldb_wire_put_modify(dst, cap, r->msgid, a, an, &m, 1);
	}
	case LDB_OP_ADD: return (long)put_add(r, dst, cap, a, an, b, bn);
	case LDB_OP_DELETE: return (long)ldb_wire_put_delete(dst, cap, r->msgid, a, an);
	case LDB_OP_RENAME:
		return (long)ldb_wire_put_modrdn(dst, cap, r->msgid, a, an, b, bn, s->deleteoldrdn,
		                                 s->f[FF_NEWSUP].given ? c3 : NULL, cn);
	case LDB_OP_WHOAMI:
		return (long)ldb_wire_put_extended(dst, cap, r->msgid, WHOAMI_OID, sizeof WHOAMI_OID - 1, NULL, 0);
	default:
		return (long)ldb_wire_put_extended(dst, cap, r->msgid, s->attr, strlen(s->attr), t1->given ? b : NULL,
		                                   bn);
	}
}

/* The first value of attribute `want` among an entry's attributes a..end:
 * its bytes and length, or -1 (none), -2 (too long). */
static int first_value(const char *want, const uint8_t *a, const uint8_t *end, const uint8_t **val)
{
	size_t wl = strlen(want), n, tn, vn;
	const uint8_t *attr, *type, *vals;
	uint8_t tag;
	while (a != NULL && a < end) {
		a = ldb_der_tlv(a, end, &tag, &attr, &n);
		if (a == NULL || tag != 0x30)
			return -1;
		const uint8_t *p = ldb_der_tlv(attr, attr + n, &tag, &type, &tn);
		if (p == NULL || tag != 0x04 || tn != wl || strncasecmp((const char *)type, want, wl) != 0)
			continue;
		if (ldb_der_tlv(p, attr + n, &tag, &vals, &vn) == NULL || tag != 0x31 ||
		    ldb_der_tlv(vals, vals + vn, &tag, val, &n) == NULL || tag != 0x04)
			return -1;
		return n >= FLOW_VAL_MAX ? -2 : (int)n;
	}
	return -1;
}

/* A search step's entries: counted; the first one's DN and kept values. */
static void entry(const struct ldb_op_req *r, const uint8_t *body, size_t bodylen)
{
	const struct ldb_flow *f = r->ops->flow;
	struct flow_state *fs = (struct flow_state *)(void *)r->state;
	int i = r->round < f->n ? r->round : f->n - 1;
	const uint8_t *end = body + bodylen, *dn, *attrs, *v;
	size_t n, an;
	uint8_t tag;

	if (fs->count[i] < 255)
		fs->count[i]++;
	if (fs->count[i] > 1 || !f->step[i].needed)
		return;
	const uint8_t *p = ldb_der_tlv(body, end, &tag, &dn, &n);
	if (p == NULL || tag != 0x04 || n >= FLOW_DN_MAX) {
		fs->too_long = true;
		return;
	}
	if (f->step[i].dnslot >= 0) {
		memcpy(kept_dn(f, r->state, f->step[i].dnslot), dn, n);
		fs->dnlen[i] = (uint16_t)n;
	}
	if (ldb_der_tlv(p, end, &tag, &attrs, &an) == NULL || tag != 0x30)
		return;
	for (int c = 0; c < f->ncap; c++) {
		if (f->cap[c].step != i)
			continue;
		int len = first_value(f->cap[c].attr, attrs, attrs + an, &v);
		if (len == -2)
			fs->too_long = true;
		if (len > 0) {
			memcpy(kept_val(f, r->state, c), v, (size_t)len);
			fs->caplen[c] = (uint16_t)len;
		}
	}
}

/* Whether every value a later step reads from search step i is there. */
static int kept_missing(const struct ldb_flow *f, const struct flow_state *fs, int i)
{
	if (fs->count[i] == 0)
		return LDAP_NO_RESULTS_RETURNED;
	if (fs->too_long)
		return LDAP_NO_MEMORY;
	for (int c = 0; c < f->ncap; c++)
		if (f->cap[c].step == i && fs->caplen[c] == 0)
			return LDAP_NO_SUCH_ATTRIBUTE;
	return 0;
}

/* After each step: the next one, or the flow's end with its result. */
static bool more(const struct ldb_op_req *r, struct ldb_op_reply *rep)
{
	const struct ldb_flow *f = r->ops->flow;
	struct flow_state *fs = (struct flow_state *)(void *)r->state;
	int i = r->round < f->n ? r->round : f->n - 1;
	const struct flow_step *s = &f->step[i];

	if (s->kind == LDB_OP_BIND && fs->bad) { /* a wrong password on purpose: its refusal the expected end */
		ldb_note_bad_password(rep);
		return false;
	}
	if (s->kind == LDB_OP_COMPARE && (rep->rc == LDAP_COMPARE_TRUE || rep->rc == LDAP_COMPARE_FALSE))
		rep->rc = LDAP_SUCCESS; /* answered: the flow goes on */
	if (rep->rc != LDAP_SUCCESS)
		return false;
	if (s->kind == LDB_OP_SEARCH && s->needed && (rep->rc = kept_missing(f, fs, i)) != 0)
		return false;
	return i + 1 < f->n;
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	const char *why = f->code == LDAP_NO_RESULTS_RETURNED ? "no entry" : f->text;
	return snprintf(out, cap, "Cannot run flow %s, error=%d (%s)", flow_name[slot_of(f->cfg)], f->code, why);
}

/* the steps' names and kinds (their arguments may hold a password: not shown) */
static void print(const struct ldb_config *c, FILE *out)
{
	int sl = slot_of(c);
	fprintf(out, LDB_VKEY "%s, %d steps\n", "Flow", flow_name[sl], c->flow_nsteps);
	for (int i = 0; i < c->flow_nsteps; i++)
		fprintf(out, LDB_VKEY "%s\n", "  step", step_name[sl][i]);
}

/* Never sent alone: a step goes as a request of its flow. */
static long render_step(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	(void)r;
	(void)dst;
	(void)cap;
	return 0;
}

struct ldb_opdesc ldb_op_flows[LDB_OP_COUNT - LDB_OP_FLOW];

/* Slot sl's rows: its flow, its steps (slot 0's ranks 12..20; the login's
 * group step's 21; the other slots' after it). */
static void slot_rows(int sl)
{
	struct ldb_opdesc *row = row_of(sl);
	int rank = sl == 0 ? 12 : 13 + sl * (1 + LDB_FLOW_STEPS);
	if (sl == 0)
		snprintf(flow_name[sl], sizeof flow_name[sl], "flow");
	else
		snprintf(flow_name[sl], sizeof flow_name[sl], "flow-%c", 'a' + sl);
	*row = (struct ldb_opdesc){
		.name = flow_name[sl],
		.json = flow_name[sl],
		.response = true,
		.alone = true, /* its steps may bind (RFC 4511 4.2.1) */
		.pass_rank = (uint8_t)rank,
		.print_rank = (uint8_t)rank,
		.check_at = LDB_CHECK_FILTER,
		.asked_row = asked,
		.option_text = "--flow",
		.check = check,
		.stray = stray,
		.prepare = prepare,
		.render = render,
		.more = more,
		.entry = entry,
		.keys = keys,
		.nsteps = 1,
		.step_reason = true,
		.unlisted = true,
		.errline = errline,
		.mode = " flow",
		.print = print,
	};
	for (int i = 0; i < LDB_FLOW_STEPS; i++) {
		snprintf(step_name[sl][i], sizeof step_name[sl][i], "%.8s.%d", flow_name[sl], i + 1);
		row->step_kind[i] = (uint8_t)LDB_OP_FLOW_STEP(sl, i);
		row[1 + i] = (struct ldb_opdesc){
			.name = step_name[sl][i],
			.json = step_name[sl][i],
			.response = true,
			.pass_rank = (uint8_t)(rank + 1 + i),
			.print_rank = (uint8_t)(rank + 1 + i),
			.also_ok = { LDAP_COMPARE_FALSE, LDAP_COMPARE_TRUE },
			.render = render_step,
			.unlisted = true,
		};
	}
}

void ldb_flow_rows_init(void)
{
	for (int sl = 0; sl < LDB_FLOW_SLOTS; sl++)
		slot_rows(sl);
}
