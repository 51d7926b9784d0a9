/* A recorded request's protocolOp (run/replay_int.h): what the log holds,
 * and what it does not supplied as documented (docs/replay.md) or the
 * request skipped with its reason. */
#include <string.h>
#include <strings.h>

#include "proto/der.h"
#include "run/replay_int.h"

#define STARTTLS_OID "1.3.6.1.4.1.1466.20037"
#define PASSMOD_OID "1.3.6.1.4.1.4203.1.11.1"
#define SYNTH_VALUE "ldbench-replay"
#define MAX_ATTRS 64

static const char *pf(const struct pend *p, int field)
{
	return p->off[field] ? p->buf + p->off[field] : NULL;
}

static const char *pdn(const struct pend *p)
{
	const char *dn = pf(p, LDB_RP_F_DN);
	return dn ? dn : "";
}

/* The first RDN of dn: its type and value into t and v (cap each). */
static void first_rdn(const char *dn, char *t, char *v, size_t cap)
{
	size_t i = 0, k = 0;
	for (; dn[i] && dn[i] != '=' && k + 1 < cap; i++)
		t[k++] = dn[i];
	t[k] = '\0';
	k = 0;
	if (dn[i] == '=')
		i++;
	for (; dn[i] && dn[i] != ',' && dn[i] != '+' && k + 1 < cap; i++) {
		if (dn[i] == '\\' && dn[i + 1])
			i++;
		v[k++] = dn[i];
	}
	v[k] = '\0';
}

static enum ldb_rp_skip bind(const struct ldb_rp_conf *conf, const struct pend *p, struct ldb_bytes *out,
                             struct ldb_rp_result *res)
{
	const char *method = pf(p, LDB_RP_F_METHOD), *mech = pf(p, LDB_RP_F_MECH);
	if ((method && strcmp(method, "128") != 0) || (mech && strcasecmp(mech, "SIMPLE") != 0))
		return LDB_RP_SKIP_SASL;
	const char *dn = pdn(p);
	char pw[1024];
	int n = 0;
	if (dn[0] != '\0') {
		n = conf->pw ? ldb_rp_pw_find(conf->pw, dn, strlen(dn), pw, sizeof pw) : -1;
		if (n < 0 && conf->unmapped == LDB_RP_UNMAPPED_ANON) {
			res->unmapped_anon++;
			dn = "";
			n = 0;
		} else if (n < 0) {
			if (res->nno_pw_dn < LDB_RP_EXAMPLES)
				snprintf(res->no_pw_dn[res->nno_pw_dn++], LDB_RP_DN_EXAMPLE, "%s", dn);
			return LDB_RP_SKIP_NO_PASSWORD;
		}
	}
	int rc = ldb_wire_encode_bind_simple(out, dn, n ? pw : "", (size_t)n, NULL);
	memset(pw, 0, sizeof pw);
	return rc == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
}

/* OpenLDAP marks an undefined attribute type in a logged filter with '?'
 * after the parenthesis: "(?foo=bar)"; the type as the client sent it. */
static void unmark(const char *in, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; in[i] && k + 1 < cap; i++) {
		if (in[i] == '?' && i > 0 && in[i - 1] == '(')
			continue;
		out[k++] = in[i];
	}
	out[k] = '\0';
}

/* ---- searches without liblber: the common filters written straight in DER
 * (minimal lengths, as liblber's DER mode writes them); anything else
 * (escapes, white space, ordering, approx and extensible items, empty
 * values, deep nesting) goes to proto/'s encoder, which checks it. */

struct dw {
	uint8_t *b;
	size_t len, cap;
};

static bool dw_put(struct dw *w, const void *p, size_t n)
{
	if (w->cap - w->len < n)
		return false;
	memcpy(w->b + w->len, p, n);
	w->len += n;
	return true;
}

/* A constructed (or primitive) element opened: its tag and a length byte
 * kept; @return where the length byte is, or 0 when out of room. */
static size_t dw_open(struct dw *w, uint8_t tag)
{
	if (w->cap - w->len < 2)
		return 0;
	w->b[w->len++] = tag;
	return w->len++;
}

/* The element opened at lp closed: its minimal length written, the
 * contents moved up when it takes more than a byte. */
static bool dw_close(struct dw *w, size_t lp)
{
	size_t n = w->len - lp - 1, ls = ldb_der_len_size(n);
	if (ls > 1) {
		if (w->cap - w->len < ls - 1)
			return false;
		memmove(w->b + lp + ls, w->b + lp + 1, n);
		w->len += ls - 1;
	}
	ldb_der_put_tl(w->b + lp - 1, w->b[lp - 1], n);
	return true;
}

static bool dw_str(struct dw *w, uint8_t tag, const char *p, size_t n)
{
	size_t lp = dw_open(w, tag);
	return lp && dw_put(w, p, n) && dw_close(w, lp);
}

static bool attr_ok(const char *a, size_t n)
{
	/* a descriptor without options: ALPHA *(ALPHA / DIGIT / "-") */
	if (n == 0 || !((a[0] | 0x20) >= 'a' && (a[0] | 0x20) <= 'z'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(((a[i] | 0x20) >= 'a' && (a[i] | 0x20) <= 'z') || (a[i] >= '0' && a[i] <= '9') || a[i] == '-'))
			return false;
	return true;
}

/* attr=value (equality, presence, substrings) at *pp up to its ')'. */
static bool fast_item(struct dw *w, const char **pp)
{
	const char *s = *pp, *eq = strchr(s, '='), *end = strchr(s, ')');
	if (eq == NULL || end == NULL || eq > end || !attr_ok(s, (size_t)(eq - s)) || end == eq + 1)
		return false;
	size_t alen = (size_t)(eq - s), nstar = 0;
	for (const char *v = eq + 1; v < end; v++) {
		if (*v == '\\' || *v == '(' || (*v == '*' && v > eq + 1 && v[-1] == '*'))
			return false;
		nstar += *v == '*';
	}
	*pp = end;
	if (nstar == 0) {
		size_t lp = dw_open(w, 0xa3);
		return lp && dw_str(w, 0x04, s, alen) && dw_str(w, 0x04, eq + 1, (size_t)(end - eq - 1)) &&
		       dw_close(w, lp);
	}
	if (end == eq + 2)
		return dw_str(w, 0x87, s, alen);
	size_t lp = dw_open(w, 0xa4), sp;
	if (!lp || !dw_str(w, 0x04, s, alen) || !(sp = dw_open(w, 0x30)))
		return false;
	for (const char *v = eq + 1; v < end;) {
		const char *st = memchr(v, '*', (size_t)(end - v));
		const char *e = st ? st : end;
		uint8_t tag = v == eq + 1 ? 0x80 : st ? 0x81 : 0x82;
		if (e > v && !dw_str(w, tag, v, (size_t)(e - v)))
			return false;
		v = st ? st + 1 : end;
	}
	return dw_close(w, sp) && dw_close(w, lp);
}

/* One parenthesized filter at *pp (moved past it). */
static bool fast_filter(struct dw *w, const char **pp, int depth)
{
	const char *s = *pp;
	if (*s++ != '(' || depth > 16)
		return false;
	if (*s == '&' || *s == '|' || *s == '!') {
		size_t lp = dw_open(w, *s == '&' ? 0xa0 : *s == '|' ? 0xa1 : 0xa2);
		int n = 0;
		bool not = *s++ == '!';
		for (; *s == '(' && lp; n++)
			if (!fast_filter(w, &s, depth + 1))
				return false;
		if (!lp || n == 0 || (not &&n != 1) || *s != ')' || !dw_close(w, lp))
			return false;
	} else if (!fast_item(w, &s)) {
		return false;
	}
	*pp = s + 1;
	return true;
}

/* The SearchRequest in DER at out's end.  @return false: not in the subset
 * (out as it was). */
static bool fast_search(struct ldb_bytes *out, const char *base, int scope, int deref, const char *filter,
                        const char *const *av, int na)
{
	uint8_t b[LDB_RP_SLOT_BYTES];
	struct dw w = { b, 0, sizeof b };
	const uint8_t mid[] = { 0x0a, 0x01, (uint8_t)scope, 0x0a, 0x01, (uint8_t)deref, 0x02, 0x01,
		                0x00, 0x02, 0x01,           0x00, 0x01, 0x01,           0x00 };
	const char *f = filter;
	size_t lp = dw_open(&w, 0x63), ap;
	if (scope < 0 || scope > 2 || deref < 0 || deref > 3 || !lp || !dw_str(&w, 0x04, base, strlen(base)) ||
	    !dw_put(&w, mid, sizeof mid) || !fast_filter(&w, &f, 0) || *f != '\0' || !(ap = dw_open(&w, 0x30)))
		return false;
	for (int i = 0; i < na; i++)
		if (!dw_str(&w, 0x04, av[i], strlen(av[i])))
			return false;
	return dw_close(&w, ap) && dw_close(&w, lp) && ldb_bytes_append(out, b, w.len) == 0;
}

static enum ldb_rp_skip search(const struct pend *p, struct ldb_bytes *out)
{
	char filter[LDB_RP_PEND_BUF], attrs[LDB_RP_PEND_BUF];
	const char *av[MAX_ATTRS + 1];
	int na = 0;
	const char *a = pf(p, LDB_RP_F_ATTRS);
	unmark(pf(p, LDB_RP_F_FILTER) ? pf(p, LDB_RP_F_FILTER) : "(objectClass=*)", filter, sizeof filter);
	if (a && strcmp(a, "ALL") != 0) {
		size_t al = strnlen(a, sizeof attrs - 1);
		memcpy(attrs, a, al);
		attrs[al] = '\0';
		for (char *save = NULL, *t = strtok_r(attrs, " ", &save); t && na < MAX_ATTRS;
		     t = strtok_r(NULL, " ", &save))
			av[na++] = t;
	}
	av[na] = NULL;
	if (fast_search(out, pdn(p), p->scope, p->deref, filter, av, na))
		return LDB_RP_SKIP_NONE;
	struct ldb_search_args sa = {
		.base = pdn(p), .scope = p->scope, .deref = p->deref, .filter = filter, .attrs = na ? av : NULL
	};
	return ldb_wire_encode_search(out, &sa, NULL) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
}

/* --writes synthetic: an add of organizationalRole + extensibleObject with
 * the RDN's value as cn (and the RDN's own type), a modify replacing
 * description. */
static int synthetic(const struct pend *p, struct ldb_bytes *out)
{
	if (p->type == LDB_SLOG_OP_MODIFY) {
		const char *v[] = { SYNTH_VALUE, NULL };
		struct ldb_mod m = { LDB_MOD_REPLACE, { "description", v } };
		return ldb_wire_encode_modify(out, pdn(p), &m, 1, NULL);
	}
	char t[256], val[1024];
	first_rdn(pdn(p), t, val, sizeof t);
	const char *oc[] = { "top", "organizationalRole", "extensibleObject", NULL };
	const char *cn[] = { val, NULL };
	struct ldb_attr_values av[] = { { "objectClass", oc }, { "cn", cn }, { t, cn } };
	return ldb_wire_encode_add(out, pdn(p), av, strcasecmp(t, "cn") == 0 ? 2 : 3, NULL);
}

static enum ldb_rp_skip compare(const struct pend *p, struct ldb_bytes *out)
{
	char t[256], v[1024];
	const char *attr = pf(p, LDB_RP_F_ATTR) ? pf(p, LDB_RP_F_ATTR) : "objectClass";
	first_rdn(pdn(p), t, v, sizeof t);
	/* the value is not logged: the RDN's for the RDN's type, else a marker */
	const char *val = strcasecmp(t, attr) == 0 ? v : SYNTH_VALUE;
	return ldb_wire_encode_compare(out, pdn(p), attr, val, NULL) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
}

static enum ldb_rp_skip extended(const struct pend *p, struct ldb_bytes *out)
{
	const char *oid = pf(p, LDB_RP_F_OID);
	if (oid == NULL)
		return LDB_RP_SKIP_BAD_REQUEST;
	if (strcmp(oid, STARTTLS_OID) == 0 || strcmp(oid, PASSMOD_OID) == 0)
		return LDB_RP_SKIP_EXTOP;
	return ldb_wire_encode_extended(out, oid, NULL, 0, 0, NULL) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
}

/* An AbandonRequest: [APPLICATION 16] MessageID. */
static enum ldb_rp_skip abandon(const struct pend *p, struct ldb_bytes *out)
{
	uint8_t b[8], *e;
	int32_t id = (int32_t)(p->abandon > 0 && p->abandon < INT32_MAX ? p->abandon : 1);
	e = ldb_der_put_int(b, id);
	b[0] = 0x50;
	return ldb_bytes_append(out, b, (size_t)(e - b)) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
}

static enum ldb_rp_skip rename_op(const struct pend *p, struct ldb_bytes *out)
{
	const char *newrdn = pf(p, LDB_RP_F_NEWRDN);
	if (newrdn == NULL)
		return LDB_RP_SKIP_NO_NEWRDN;
	return ldb_wire_encode_modrdn(out, pdn(p), newrdn, p->deleteoldrdn, pf(p, LDB_RP_F_NEWSUP), NULL) == 0
	               ? LDB_RP_SKIP_NONE
	               : LDB_RP_SKIP_BAD_REQUEST;
}

enum ldb_rp_skip ldb_rp_encode(const struct ldb_rp_conf *conf, const struct pend *p, struct ldb_bytes *out,
                               struct ldb_rp_result *res)
{
	out->len = 0;
	switch (p->type) {
	case LDB_SLOG_OP_BIND: return bind(conf, p, out, res);
	case LDB_SLOG_OP_SEARCH: return search(p, out);
	case LDB_SLOG_OP_ADD:
	case LDB_SLOG_OP_MODIFY:
		if (conf->writes != LDB_RP_WRITES_SYNTHETIC)
			return LDB_RP_SKIP_WRITE;
		res->synthetic++;
		return synthetic(p, out) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
	case LDB_SLOG_OP_DELETE:
		return ldb_wire_encode_delete(out, pdn(p), NULL) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
	case LDB_SLOG_OP_MODRDN: return rename_op(p, out);
	case LDB_SLOG_OP_COMPARE: return compare(p, out);
	case LDB_SLOG_OP_EXTENDED: return extended(p, out);
	case LDB_SLOG_OP_ABANDON: return abandon(p, out);
	case LDB_SLOG_OP_UNBIND:
		return ldb_wire_encode_unbind(out, NULL) == 0 ? LDB_RP_SKIP_NONE : LDB_RP_SKIP_BAD_REQUEST;
	default: return LDB_RP_SKIP_BAD_REQUEST;
	}
}
