/* A general flow's steps read and checked (ops/flow.h): each --step is
 * "KIND key=value ...", a value running to the next " key=" of a key the
 * kind knows; the values of base, filter, dn, value, password, newrdn,
 * newsuperior and entry (an add's TYPE:VALUE;TYPE:VALUE...) may hold value patterns ([1-100]) and references to what an
 * earlier search step of the same flow returned: @{N.dn} (its first entry's
 * DN), @{N.attr:NAME} (that entry's first NAME value), @{N.count} (its
 * entries), N the step's number (from 1) or its name=. */
#include "ops/flow.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "values/vpattern.h"

static const char *const keys[] = { "name",        "base",   "scope", "filter", "attrs",    "sizelimit",
	                            "dn",          "attr",   "value", "op",     "password", "deleteoldrdn",
	                            "newsuperior", "newrdn", "oid",   "entry",  NULL };

/* The keys each kind takes (a space-separated list), and those it needs. */
static const struct {
	const char *word;
	int kind;
	const char *takes, *needs;
} kinds[] = {
	{ "search", LDB_OP_SEARCH, " name base scope filter attrs sizelimit ", " base " },
	{ "bind", LDB_OP_BIND, " name dn password ", " dn " },
	{ "compare", LDB_OP_COMPARE, " name dn attr value ", " dn attr value " },
	{ "modify", LDB_OP_MODIFY, " name dn attr value op ", " dn attr " },
	{ "add", LDB_OP_ADD, " name dn entry ", " dn entry " },
	{ "delete", LDB_OP_DELETE, " name dn ", " dn " },
	{ "rename", LDB_OP_RENAME, " name dn newrdn deleteoldrdn newsuperior ", " dn newrdn " },
	{ "whoami", LDB_OP_WHOAMI, " name ", "" },
	{ "extended", LDB_OP_EXTENDED, " name oid value ", " oid " },
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

int ldb_flow_kind(const char *word, size_t n)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strlen(kinds[i].word) == n && strncmp(kinds[i].word, word, n) == 0)
			return (int)i;
	return -1;
}

/* A known key followed by '=' at s: its length, else 0. */
static size_t key_at(const char *s)
{
	for (int k = 0; keys[k] != NULL; k++) {
		size_t n = strlen(keys[k]);
		if (strncmp(s, keys[k], n) == 0 && s[n] == '=')
			return n;
	}
	return 0;
}

struct pctx {
	struct ldb_flow *f;
	int i; /* the step (0-based) */
	char *why;
	size_t cap;
};

static int fail(struct pctx *x, const char *fmt, const char *a, size_t an)
{
	int n = snprintf(x->why, x->cap, "--step %d: ", x->i + 1);
	if (n >= 0 && (size_t)n < x->cap)
		snprintf(x->why + n, x->cap - (size_t)n, fmt, (int)an, a);
	return -1;
}

/* The earlier step a reference names (its number or name) in s[0..n), or -1. */
static int ref_step(struct pctx *x, const char *s, size_t n)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (n > 0 && end == s + n)
		return v >= 1 && v <= x->i ? (int)v - 1 : -1;
	for (int j = 0; j < x->i; j++) {
		const char *dot = strchr(x->f->step[j].name, '.');
		if (dot != NULL && strlen(dot + 1) == n && strncmp(dot + 1, s, n) == 0)
			return j;
	}
	return -1;
}

/* @{...} at s[0..n) (the braces' contents) as part p. */
static int parse_ref(struct pctx *x, struct flow_part *p, const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);
	if (dot == NULL)
		return fail(x, "@{%.*s}: write @{N.dn}, @{N.attr:NAME} or @{N.count}", s, n);
	int j = ref_step(x, s, (size_t)(dot - s));
	if (j < 0)
		return fail(x, "@{%.*s}: no earlier step of the flow has that number or name", s, n);
	struct flow_step *from = &x->f->step[j];
	if (from->kind != LDB_OP_SEARCH)
		return fail(x, "@{%.*s}: that step is no search: only a search returns an entry", s, n);
	const char *what = dot + 1;
	size_t wn = n - (size_t)(what - s);
	p->step = (uint8_t)j;
	if (wn == 2 && strncmp(what, "dn", 2) == 0) {
		p->type = FP_DN;
		if (from->dnslot < 0)
			from->dnslot = x->f->ndn++;
		from->needed = true;
		return 0;
	}
	if (wn == 5 && strncmp(what, "count", 5) == 0) {
		p->type = FP_COUNT;
		return 0;
	}
	if (wn > 5 && strncmp(what, "attr:", 5) == 0 && wn - 5 < sizeof x->f->cap[0].attr) {
		struct ldb_flow *f = x->f;
		int c = 0;
		while (c < f->ncap && !(f->cap[c].step == j && strlen(f->cap[c].attr) == wn - 5 &&
		                        strncasecmp(f->cap[c].attr, what + 5, wn - 5) == 0))
			c++;
		if (c == FLOW_CAPS)
			return fail(x, "@{%.*s}: more than 8 attribute values kept", s, n);
		if (c == f->ncap) {
			f->cap[c].step = (uint8_t)j;
			memcpy(f->cap[c].attr, what + 5, wn - 5);
			f->cap[c].attr[wn - 5] = '\0';
			f->ncap++;
		}
		p->type = FP_ATTR;
		p->idx = (uint8_t)c;
		from->needed = true;
		return 0;
	}
	return fail(x, "@{%.*s}: write @{N.dn}, @{N.attr:NAME} or @{N.count}", s, n);
}

/* Literal text s[0..n) as part p: a value pattern when it has brackets. */
static int parse_text(struct pctx *x, struct flow_part *p, const char *s, size_t n)
{
	char *t = strndup(s, n), err[256];
	if (t == NULL)
		return fail(x, "out of memory%.*s", "", 0);
	p->lit = s;
	p->len = n;
	p->type = FP_LIT;
	if (ldb_vp_has_brackets(t)) {
		if (x->f->nvp == FLOW_VPS) {
			free(t);
			return fail(x, "%.*smore than 8 value patterns in one flow", "", 0);
		}
		if (ldb_vp_compile(&x->f->vp[x->f->nvp], t, err, sizeof err) != 0) {
			free(t);
			return fail(x, "%.*s", err, strlen(err));
		}
		p->type = FP_VP;
		p->idx = (uint8_t)x->f->nvp++;
	}
	free(t);
	return 0;
}

static size_t part_max(const struct ldb_flow *f, const struct flow_part *p)
{
	switch (p->type) {
	case FP_VP: return ldb_vp_max_len(f->vp[p->idx]);
	case FP_DN: return FLOW_DN_MAX;
	case FP_ATTR: return FLOW_VAL_MAX;
	case FP_COUNT: return 3;
	default: return p->len;
	}
}

/* A value s[0..n) into template t. */
static int parse_tmpl(struct pctx *x, struct flow_tmpl *t, const char *s, size_t n)
{
	size_t at = 0;
	t->given = true;
	while (at < n) {
		const char *r = NULL;
		for (size_t k = at; k + 1 < n && r == NULL; k++)
			if (s[k] == '@' && s[k + 1] == '{')
				r = s + k;
		size_t lit = r != NULL ? (size_t)(r - s) - at : n - at;
		if (t->n + 2 > FLOW_PARTS)
			return fail(x, "'%.*s': too many pieces", s, n);
		if (lit > 0 && parse_text(x, &t->p[t->n++], s + at, lit) != 0)
			return -1;
		if (r == NULL)
			break;
		const char *close = memchr(r, '}', n - (size_t)(r - s));
		if (close == NULL)
			return fail(x, "'%.*s': @{ without its }", s, n);
		if (parse_ref(x, &t->p[t->n++], r + 2, (size_t)(close - r - 2)) != 0)
			return -1;
		at = (size_t)(close - s) + 1;
	}
	for (int k = 0; k < t->n; k++)
		t->maxlen += part_max(x->f, &t->p[k]);
	if (t->maxlen > FLOW_ARG_MAX)
		return fail(x, "'%.*s': its values may be longer than 4096 bytes", s, n);
	return 0;
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && strncmp(s, w, n) == 0;
}

/* attrs=a,b,c */
static int parse_attrs(struct pctx *x, struct flow_step *st, const char *s, size_t n)
{
	size_t at = 0;
	while (at < n) {
		const char *comma = memchr(s + at, ',', n - at);
		size_t len = comma != NULL ? (size_t)(comma - s) - at : n - at;
		if (len == 0 || st->nattrs == FLOW_ATTRS)
			return fail(x, "attrs=%.*s: up to 16 names, comma-separated", s, n);
		if ((st->attrs[st->nattrs++] = strndup(s + at, len)) == NULL)
			return fail(x, "out of memory%.*s", "", 0);
		at += len + 1;
	}
	return 0;
}

/* A number key: sizelimit, deleteoldrdn. */
static int parse_int(struct pctx *x, int *dst, const char *key, const char *s, size_t n, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (n == 0 || end != s + n || v < 0 || v > hi)
		return fail(x, "'%.*s': not a number in range", key, strlen(key));
	*dst = (int)v;
	return 0;
}

/* key=value of step st. */
static int parse_key(struct pctx *x, struct flow_step *st, const char *k, size_t kn, const char *v, size_t vn)
{
	static const char *const tf[] = {
		[FF_BASE] = "base",          [FF_FILTER] = "filter",     [FF_DN] = "dn",
		[FF_VALUE] = "value",        [FF_PASSWORD] = "password", [FF_NEWRDN] = "newrdn",
		[FF_NEWSUP] = "newsuperior", [FF_ENTRY] = "entry"
	};
	for (int f = 0; f < FF_COUNT; f++)
		if (word_is(k, kn, tf[f]))
			return st->f[f].given ? fail(x, "%.*s= given twice", k, kn) : parse_tmpl(x, &st->f[f], v, vn);
	if (word_is(k, kn, "scope")) {
		st->scope = word_is(v, vn, "base") ? 0 : word_is(v, vn, "one") ? 1 : word_is(v, vn, "sub") ? 2 : -1;
		return st->scope < 0 ? fail(x, "scope=%.*s: base, one or sub", v, vn) : 0;
	}
	if (word_is(k, kn, "op")) {
		st->modop = word_is(v, vn, "replace")  ? LDB_MOD_REPLACE
		            : word_is(v, vn, "add")    ? LDB_MOD_ADD
		            : word_is(v, vn, "delete") ? LDB_MOD_DELETE
		                                       : -1;
		return st->modop < 0 ? fail(x, "op=%.*s: replace, add or delete", v, vn) : 0;
	}
	if (word_is(k, kn, "attrs"))
		return parse_attrs(x, st, v, vn);
	if (word_is(k, kn, "sizelimit"))
		return parse_int(x, &st->sizelimit, "sizelimit", v, vn, 1000000000);
	if (word_is(k, kn, "deleteoldrdn"))
		return parse_int(x, &st->deleteoldrdn, "deleteoldrdn", v, vn, 1);
	if (word_is(k, kn, "name")) {
		for (size_t i = 0; i < vn; i++)
			if (!(v[i] == '_' || v[i] == '-' || (v[i] >= '0' && v[i] <= '9') ||
			      ((v[i] | 32) >= 'a' && (v[i] | 32) <= 'z')))
				return fail(x, "name=%.*s: letters, digits, - and _ only", v, vn);
		if (vn == 0 || vn + strlen(x->f->step[0].name) >= FLOW_NAME_MAX - 8 || (v[0] >= '0' && v[0] <= '9'))
			return fail(x, "name=%.*s: a short name that does not start with a digit", v, vn);
		char *dot = strchr(st->name, '.');
		snprintf(dot + 1, (size_t)(st->name + FLOW_NAME_MAX - dot - 1), "%.*s", (int)vn, v);
		return 0;
	}
	if (vn == 0 || (st->attr = strndup(v, vn)) == NULL) /* attr, oid */
		return fail(x, "%.*s= needs a value", k, kn);
	return 0;
}

static bool given(const struct flow_step *st, const char *key)
{
	return strcmp(key, "base") == 0     ? st->f[FF_BASE].given
	       : strcmp(key, "dn") == 0     ? st->f[FF_DN].given
	       : strcmp(key, "value") == 0  ? st->f[FF_VALUE].given
	       : strcmp(key, "newrdn") == 0 ? st->f[FF_NEWRDN].given
	       : strcmp(key, "entry") == 0  ? st->f[FF_ENTRY].given
	                                    : st->attr != NULL;
}

/* The spec s of step x->i: KIND key=value ... */
static int parse_step(struct pctx *x, const char *flow, char *s)
{
	struct flow_step *st = &x->f->step[x->i];
	size_t wn = strcspn(s, " \t");
	int kd = ldb_flow_kind(s, wn);
	st->dnslot = -1;
	st->scope = 2;
	st->modop = LDB_MOD_REPLACE;
	st->deleteoldrdn = 1;
	if (wn == 0)
		return fail(x, "'%.*s': an empty step (write KIND key=value ...)", s, strlen(s));
	if (kd < 0)
		return fail(x,
		            "'%.*s': unknown step kind (search, bind, compare, modify, add, delete, rename, "
		            "whoami, extended)",
		            s, wn);
	st->kind = kinds[kd].kind;
	snprintf(st->name, sizeof st->name, "%s.%d.%s", flow, x->i + 1, kinds[kd].word);
	const char *p = s + wn;
	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		size_t kn = key_at(p);
		char probe[32];
		snprintf(probe, sizeof probe, " %.*s ", (int)kn, p);
		if (kn == 0 || strstr(kinds[kd].takes, probe) == NULL)
			return fail(x, "'%.*s': not a key of this step's kind", p, kn ? kn : strcspn(p, "= "));
		const char *v = p + kn + 1, *e = v;
		while (*e != '\0' && !((e[-1] == ' ' || e[-1] == '\t') && key_at(e) > 0))
			e++;
		const char *ve = e;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (parse_key(x, st, p, kn, v, (size_t)(ve - v)) != 0)
			return -1;
		p = e;
	}
	static const char *const need[] = { "base", "dn", "attr", "value", "newrdn", "oid", "entry" };
	for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
		char probe[32];
		snprintf(probe, sizeof probe, " %s ", need[k]);
		if (strstr(kinds[kd].needs, probe) != NULL && !given(st, need[k]))
			return fail(x, "%.*s= missing", need[k], strlen(need[k]));
	}
	if (st->kind == LDB_OP_MODIFY && st->modop != LDB_MOD_DELETE && !st->f[FF_VALUE].given)
		return fail(x, "%.*smodify: value= missing (op=delete alone may go without)", "", 0);
	return 0;
}

/* The kept values' attributes asked for by their searches. */
static int ask_kept(struct ldb_flow *f, char *why, size_t cap)
{
	for (int c = 0; c < f->ncap; c++) {
		struct flow_step *st = &f->step[f->cap[c].step];
		bool has = false;
		for (int a = 0; a < st->nattrs; a++)
			has |= strcasecmp(st->attrs[a], f->cap[c].attr) == 0;
		if (has)
			continue;
		if (st->nattrs == FLOW_ATTRS || (st->attrs[st->nattrs] = strdup(f->cap[c].attr)) == NULL) {
			snprintf(why, cap, "--step %d: too many attributes", f->cap[c].step + 1);
			return -1;
		}
		st->nattrs++;
	}
	return 0;
}

/* An add step's entry= rendered once: each ';'-separated piece a TYPE:VALUE. */
static int try_entry(const struct ldb_flow *f, const struct flow_step *st, const uint8_t *state,
                     struct ldb_vp_state *const *vs, struct ldb_rng *rng, char *buf, int i, char *why, size_t cap)
{
	size_t n = ldb_flow_render_arg(f, &st->f[FF_ENTRY], state, vs, rng, buf);
	for (size_t at = 0; at <= n;) {
		size_t len = strcspn(buf + at, ";");
		const char *colon = memchr(buf + at, ':', len);
		if (colon == NULL || colon == buf + at) {
			snprintf(why, cap, "--step %d: entry='%.*s': write TYPE:VALUE;TYPE:VALUE...", i + 1, (int)n,
			         buf);
			return -1;
		}
		at += len + 1;
	}
	return 0;
}

/* Each search's filter rendered once (pattern values, empty references) and
 * written: a filter this writer cannot send is refused now. */
static int try_filters(struct ldb_flow *f, char *why, size_t cap)
{
	struct ldb_vp_state *vs[FLOW_VPS] = { 0 };
	struct ldb_rng rng;
	uint8_t *state = calloc(1, f->state_size), *out = malloc(65536);
	char *base = malloc(FLOW_ARG_MAX + 16), *filt = malloc(FLOW_ARG_MAX + 16);
	int rc = state && out && base && filt ? 0 : -1;
	ldb_rng_seed(&rng, 1, 1);
	for (int v = 0; rc == 0 && v < f->nvp; v++)
		rc = ldb_vp_state_new(f->vp[v], 0, 1, &vs[v], why, cap);
	for (int i = 0; rc == 0 && i < f->n; i++) {
		const struct flow_step *st = &f->step[i];
		if (st->kind == LDB_OP_ADD) {
			rc = try_entry(f, st, state, vs, &rng, filt, i, why, cap);
			continue;
		}
		if (st->kind != LDB_OP_SEARCH)
			continue;
		static const char def[] = "(objectClass=*)";
		size_t bn = ldb_flow_render_arg(f, &st->f[FF_BASE], state, vs, &rng, base);
		size_t fn = st->f[FF_FILTER].given ? ldb_flow_render_arg(f, &st->f[FF_FILTER], state, vs, &rng, filt)
		                                   : sizeof def - 1;
		if (!st->f[FF_FILTER].given)
			memcpy(filt, def, sizeof def);
		if (ldb_flow_put_search(out, 65536, 1, base, bn, st->scope, st->sizelimit, filt, fn, st->attrs,
		                        st->nattrs) == 0) {
			snprintf(why, cap,
			         "--step %d: filter '%.*s': not a filter a flow sends (RFC 4515, no extensible "
			         "match)",
			         i + 1, (int)fn, filt);
			rc = -1;
		}
	}
	for (int v = 0; v < f->nvp; v++)
		ldb_vp_state_free(vs[v]);
	free(state);
	free(out);
	free(base);
	free(filt);
	return rc;
}

int ldb_flow_parse(struct ldb_flow *f, const struct ldb_config *c, char *why, size_t cap)
{
	const char *name = c->flow_name != NULL ? c->flow_name : "flow";
	memset(f, 0, sizeof *f);
	if (c->flow_nsteps == 0) {
		snprintf(why, cap, "--flow %s: the flow has no step (give --step KIND key=value ...)", name);
		return -1;
	}
	for (int i = 0; i < c->flow_nsteps; i++) {
		struct pctx x = { f, i, why, cap };
		if ((f->text[i] = strdup(c->flow_step[i])) == NULL) {
			snprintf(why, cap, "out of memory");
			return -1;
		}
		f->n = i + 1;
		if (parse_step(&x, name, f->text[i]) != 0)
			return -1;
	}
	f->state_size = ((sizeof(struct flow_state) + 7) & ~(size_t)7) + (size_t)f->ndn * FLOW_DN_MAX +
	                (size_t)f->ncap * FLOW_VAL_MAX;
	if (ask_kept(f, why, cap) != 0 || try_filters(f, why, cap) != 0)
		return -1;
	for (int i = 0; i < f->n; i++) {
		size_t need = 256 + FLOW_ATTRS * 64;
		for (int k = 0; k < FF_COUNT; k++)
			need += f->step[i].f[k].maxlen + 8;
		if (need > f->room)
			f->room = need;
	}
	return 0;
}

void ldb_flow_free(struct ldb_flow *f)
{
	for (int i = 0; i < LDB_FLOW_STEPS; i++) {
		free(f->text[i]);
		free(f->step[i].attr);
		for (int a = 0; a < f->step[i].nattrs; a++)
			free(f->step[i].attrs[a]);
	}
	for (int v = 0; v < f->nvp; v++)
		ldb_vp_free(f->vp[v]);
	memset(f, 0, sizeof *f);
}
