/* Audit log records into changes (logs/audit_int.h), and changes into the
 * LDAP protocolOp of their request (ldb_audit_encode). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "logs/audit_int.h"
#include "logs/slog_int.h"
#include "util/base64.h"

/* One logical line of a record. */
enum { LV_SEP, LV_PLAIN, LV_B64, LV_URL, LV_COMMENT, LV_GARBAGE };

struct aline {
	const char *t, *v;
	size_t tn, vn;
	int vk;
};

static int next_aline(const char **pp, const char *end, struct aline *l)
{
	const char *p = *pp;
	if (p >= end)
		return 0;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	*pp = nl ? nl + 1 : end;
	memset(l, 0, sizeof *l);
	if (e - p == 1 && *p == '-') {
		l->vk = LV_SEP;
		return 1;
	}
	if (p < e && *p == '#') {
		l->vk = LV_COMMENT;
		return 1;
	}
	const char *c = memchr(p, ':', (size_t)(e - p));
	if (!c || c == p) {
		l->vk = LV_GARBAGE;
		return 1;
	}
	l->t = p, l->tn = (size_t)(c - p);
	l->vk = LV_PLAIN;
	c++;
	if (c < e && (*c == ':' || *c == '<'))
		l->vk = *c++ == ':' ? LV_B64 : LV_URL;
	while (c < e && *c == ' ')
		c++;
	l->v = c, l->vn = (size_t)(e - c);
	return 1;
}

static bool is(const struct aline *l, const char *name)
{
	return l->t && strlen(name) == l->tn && strncasecmp(l->t, name, l->tn) == 0;
}

/* What a client may not send: the servers add these themselves. */
static bool operational(const char *t, size_t n)
{
	static const char *const names[] = { "creatorsName",
		                             "modifiersName",
		                             "createTimestamp",
		                             "modifyTimestamp",
		                             "entryCSN",
		                             "entryUUID",
		                             "structuralObjectClass",
		                             "entryDN",
		                             "subschemaSubentry",
		                             "hasSubordinates",
		                             "contextCSN",
		                             "nsUniqueId",
		                             "entryUSN",
		                             "entryid",
		                             "parentid",
		                             "dsEntryDN",
		                             "numSubordinates",
		                             "nsParentUniqueId",
		                             "nsTombstoneCSN",
		                             "unhashed#user#password",
		                             "internalCreatorsName",
		                             "internalModifiersName" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && strncasecmp(t, names[i], n) == 0)
			return true;
	return false;
}

enum ldb_audit_kind ldb_audit_kind_of(const char *p, size_t n)
{
	static const char *const names[] = { NULL, "add", "modify", "delete", "modrdn" };
	for (int k = LDB_AUDIT_ADD; k < LDB_AUDIT_NKINDS; k++)
		if (strlen(names[k]) == n && strncasecmp(p, names[k], n) == 0)
			return (enum ldb_audit_kind)k;
	if (n == 5 && strncasecmp(p, "moddn", 5) == 0)
		return LDB_AUDIT_MODRDN;
	return LDB_AUDIT_NONE;
}

int64_t ldb_audit_time389(const char *p, size_t n, int off_s)
{
	int v[6], w[6] = { 4, 2, 2, 2, 2, 2 };
	if (n != 14)
		return -1;
	for (int i = 0, k = 0; i < 6; i++) {
		v[i] = 0;
		for (int j = 0; j < w[i]; j++, k++) {
			if (p[k] < '0' || p[k] > '9')
				return -1;
			v[i] = v[i] * 10 + p[k] - '0';
		}
	}
	if (v[0] < 1970 || v[0] > 2200 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 ||
	    v[5] > 60) /* ns since the epoch fit in 64 bits until 2262 */
		return -1;
	const int64_t s = ldb_slog_days(v[0], (unsigned)v[1], (unsigned)v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return (s - off_s) * 1000000000LL;
}

/* Storage of one change: attrs, values and bytes, sized from the record. */
struct store {
	struct ldb_audit_attr *attrs;
	struct ldb_audit_bytes *vals;
	size_t *fill; /* add: values placed per attribute */
	uint8_t *bytes;
	size_t na, nv, nb;
	bool bad;
};

/* A value into the store.  Sets s->bad on bad base64 or a URL. */
static struct ldb_audit_bytes put_value(struct store *s, const struct aline *l)
{
	struct ldb_audit_bytes b = { s->bytes + s->nb, 0 };
	if (l->vk == LV_B64) {
		const long n = ldb_base64_decode(l->v, l->vn, s->bytes + s->nb, l->vn);
		if (n < 0) {
			s->bad = true;
			return b;
		}
		b.n = (size_t)n;
	} else if (l->vk == LV_PLAIN) {
		memcpy(s->bytes + s->nb, l->v, l->vn);
		b.n = l->vn;
	} else {
		s->bad = true;
	}
	s->nb += b.n;
	return b;
}

static bool same_type(const struct ldb_audit_bytes *t, const struct aline *l)
{
	return t->n == l->tn && strncasecmp((const char *)t->p, l->t, l->tn) == 0;
}

static struct ldb_audit_bytes put_type(struct store *s, const struct aline *l)
{
	struct ldb_audit_bytes b = { s->bytes + s->nb, l->tn };
	memcpy(s->bytes + s->nb, l->t, l->tn);
	s->nb += l->tn;
	return b;
}

/* An add's attributes, grouped by type in the order of first appearance:
 * pass 0 counts the values of each, pass 1 places them. */
static void body_add(const char *p, const char *end, struct store *s, uint64_t *dropped)
{
	struct aline l;
	for (int pass = 0; pass < 2 && !s->bad; pass++) {
		const char *q = p;
		while (next_aline(&q, end, &l)) {
			if (l.vk == LV_COMMENT)
				continue;
			if (l.vk == LV_SEP || l.vk == LV_GARBAGE) {
				s->bad = true;
				break;
			}
			if (operational(l.t, l.tn)) {
				*dropped += pass == 0;
				continue;
			}
			size_t i = 0;
			while (i < s->na && !same_type(&s->attrs[i].type, &l))
				i++;
			if (pass == 0) {
				if (i == s->na)
					s->attrs[s->na++] = (struct ldb_audit_attr){ .type = put_type(s, &l) };
				s->attrs[i].nvalues++;
				continue;
			}
			s->vals[(size_t)(s->attrs[i].values - s->vals) + s->fill[i]++] = put_value(s, &l);
		}
		if (pass == 0) { /* the values' places */
			for (size_t i = 0, at = 0; i < s->na; at += s->attrs[i++].nvalues) {
				s->attrs[i].values = s->vals + at;
				s->fill[i] = 0;
			}
		}
	}
}

static int modop_of(const struct aline *l)
{
	static const char *const ops[] = { "add", "delete", "replace", "increment" };
	for (int i = 0; i < 4; i++)
		if (is(l, ops[i]))
			return i;
	return -1;
}

/* A modify's parts, in order; a part of an operational type is dropped. */
static void body_modify(const char *p, const char *end, struct store *s, uint64_t *dropped)
{
	struct aline l;
	struct ldb_audit_attr *cur = NULL;
	bool skip = false, open = false;
	while (!s->bad && next_aline(&p, end, &l)) {
		if (l.vk == LV_COMMENT)
			continue;
		if (l.vk == LV_SEP) {
			open = skip = false, cur = NULL;
			continue;
		}
		if (l.vk == LV_GARBAGE) {
			s->bad = true;
			break;
		}
		if (!open) {
			const int op = modop_of(&l);
			if (op < 0 || l.vk != LV_PLAIN) {
				s->bad = true;
				break;
			}
			const struct aline t = { .t = l.v, .tn = l.vn };
			open = true;
			skip = operational(t.t, t.tn);
			*dropped += skip;
			if (!skip) {
				cur = &s->attrs[s->na++];
				*cur = (struct ldb_audit_attr){ .type = put_type(s, &t),
					                        .op = (enum ldb_audit_modop)op,
					                        .values = s->vals + s->nv };
			}
			continue;
		}
		if (skip)
			continue;
		if (!same_type(&cur->type, &l)) {
			s->bad = true;
			break;
		}
		s->vals[s->nv++] = put_value(s, &l);
		cur->nvalues++;
	}
}

static void body_modrdn(const char *p, const char *end, struct store *s, struct ldb_audit_change *c)
{
	struct aline l;
	while (!s->bad && next_aline(&p, end, &l)) {
		if (is(&l, "newrdn"))
			c->newrdn = put_value(s, &l);
		else if (is(&l, "newsuperior"))
			c->newsuperior = put_value(s, &l);
		else if (is(&l, "deleteoldrdn"))
			c->deleteoldrdn = l.vn == 1 && l.v[0] == '1';
		else if (l.vk == LV_GARBAGE || l.vk == LV_SEP)
			s->bad = true;
	}
	if (!c->newrdn.p || c->newrdn.n == 0)
		s->bad = true;
}

/* The header lines (time, dn, result, changetype) into c.  @return where
 * the body starts, or NULL (*why set). */
static const char *header(const struct audit_rec *r, int off_s, struct store *s, struct ldb_audit_change *c,
                          enum ldb_audit_skip *why)
{
	const char *p = r->p, *end = r->p + r->n, *q;
	struct aline l;
	*why = LDB_AUDIT_SKIP_GARBAGE;
	for (q = p; next_aline(&q, end, &l); p = q) {
		if (l.vk == LV_COMMENT)
			continue;
		if (is(&l, "time") && r->fmt == AUDIT_FMT_389) {
			c->time_ns = ldb_audit_time389(l.v, l.vn, off_s);
			if (c->time_ns < 0)
				return *why = LDB_AUDIT_SKIP_BAD_VALUE, NULL;
		} else if (is(&l, "dn")) {
			c->dn = put_value(s, &l);
		} else if (is(&l, "result")) {
			c->result = l.vn > 0 && l.vn < 10 ? atoi(l.v) : -1;
		} else if (is(&l, "changetype")) {
			c->kind = ldb_audit_kind_of(l.v, l.vn);
			if (c->kind == LDB_AUDIT_NONE)
				return *why = LDB_AUDIT_SKIP_UNKNOWN_CHANGE, NULL;
			return q;
		} else {
			return NULL;
		}
	}
	return NULL;
}

static enum ldb_audit_skip parse_into(const struct audit_rec *r, int off_s, struct store *s, struct ldb_audit_change *c,
                                      uint64_t *dropped)
{
	enum ldb_audit_skip why;
	const char *body = header(r, off_s, s, c, &why), *end = r->p + r->n;
	if (!body)
		return s->bad ? LDB_AUDIT_SKIP_BAD_VALUE : why;
	if (s->bad)
		return LDB_AUDIT_SKIP_BAD_VALUE;
	if (!c->dn.p || (r->fmt == AUDIT_FMT_389 && c->time_ns < 0) ||
	    (r->fmt == AUDIT_FMT_OPENLDAP && c->kind != r->hkind))
		return LDB_AUDIT_SKIP_GARBAGE;
	uint64_t drop = 0;
	switch (c->kind) {
	case LDB_AUDIT_ADD: body_add(body, end, s, &drop); break;
	case LDB_AUDIT_MODIFY: body_modify(body, end, s, &drop); break;
	case LDB_AUDIT_MODRDN: body_modrdn(body, end, s, c); break;
	default: break; /* delete: what follows (389's modifiersname) is no part of it */
	}
	if (s->bad) /* a bad value, or a line out of the LDIF's syntax */
		return LDB_AUDIT_SKIP_BAD_VALUE;
	*dropped += drop;
	c->attrs = s->attrs;
	c->nattrs = s->na;
	return LDB_AUDIT_SKIP_NONE;
}

enum ldb_audit_skip ldb_audit_parse(const struct audit_rec *r, int utc_offset_s, struct ldb_audit_change *c, void **mem,
                                    uint64_t *dropped)
{
	size_t lines = 1;
	for (size_t i = 0; i < r->n; i++)
		lines += r->p[i] == '\n';
	/* attrs, values and add's counters at most one per line; bytes at most
	 * the record's */
	const size_t sz =
	        lines * (sizeof(struct ldb_audit_attr) + sizeof(struct ldb_audit_bytes) + sizeof(size_t)) + r->n + 16;
	char *m = malloc(sz);
	*mem = NULL;
	if (!m)
		return LDB_AUDIT_SKIP_TOO_LONG;
	struct store s = { .attrs = (void *)m };
	s.vals = (void *)(s.attrs + lines);
	s.fill = (void *)(s.vals + lines);
	s.bytes = (uint8_t *)(s.fill + lines);
	*c = (struct ldb_audit_change){ .time_ns = r->htime_ns,
		                        .time_res_ns = 1000000000LL,
		                        .conn = r->hconn,
		                        .result = r->fmt == AUDIT_FMT_OPENLDAP ? 0 : -1,
		                        .file = r->file,
		                        .line = r->line };
	if (r->fmt == AUDIT_FMT_389)
		c->time_ns = -1;
	const enum ldb_audit_skip why = parse_into(r, utc_offset_s, &s, c, dropped);
	if (why != LDB_AUDIT_SKIP_NONE) {
		free(m);
		return why;
	}
	*mem = m;
	return why;
}

/* The protocolOp: DER lengths, minimal, as libldap writes them. */
static size_t tlv(size_t n)
{
	size_t h = 2;
	for (size_t v = n; n >= 128 && v > 0; v >>= 8)
		h++;
	return h + n;
}

struct out {
	uint8_t *p;
	size_t len;
};

static void put_hdr(struct out *o, uint8_t tag, size_t n)
{
	uint8_t l[9];
	size_t k = 0;
	o->p[o->len++] = tag;
	if (n < 128) {
		o->p[o->len++] = (uint8_t)n;
		return;
	}
	for (size_t v = n; v > 0; v >>= 8)
		l[k++] = (uint8_t)v;
	o->p[o->len++] = (uint8_t)(0x80 | k);
	while (k > 0)
		o->p[o->len++] = l[--k];
}

static void put_str(struct out *o, uint8_t tag, const struct ldb_audit_bytes *b)
{
	put_hdr(o, tag, b->n);
	if (b->n)
		memcpy(o->p + o->len, b->p, b->n);
	o->len += b->n;
}

/* The content of an Attribute / PartialAttribute: type, SET OF value. */
static size_t attr_len(const struct ldb_audit_attr *a, size_t *vals)
{
	*vals = 0;
	for (size_t i = 0; i < a->nvalues; i++)
		*vals += tlv(a->values[i].n);
	return tlv(a->type.n) + tlv(*vals);
}

static void put_attr(struct out *o, const struct ldb_audit_attr *a)
{
	size_t vals;
	put_hdr(o, 0x30, attr_len(a, &vals));
	put_str(o, 0x04, &a->type);
	put_hdr(o, 0x31, vals);
	for (size_t i = 0; i < a->nvalues; i++)
		put_str(o, 0x04, &a->values[i]);
}

/* Add's attribute list or modify's changes: the SEQUENCE OF's content. */
static size_t list_len(const struct ldb_audit_change *c)
{
	size_t n = 0, vals;
	for (size_t i = 0; i < c->nattrs; i++) {
		const size_t a = tlv(attr_len(&c->attrs[i], &vals));
		n += c->kind == LDB_AUDIT_MODIFY ? tlv(3 + a) : a;
	}
	return n;
}

static size_t content_len(const struct ldb_audit_change *c)
{
	switch (c->kind) {
	case LDB_AUDIT_ADD:
	case LDB_AUDIT_MODIFY: return tlv(c->dn.n) + tlv(list_len(c));
	case LDB_AUDIT_MODRDN:
		return tlv(c->dn.n) + tlv(c->newrdn.n) + 3 + (c->newsuperior.p ? tlv(c->newsuperior.n) : 0);
	default: return c->dn.n;
	}
}

long ldb_audit_encode(const struct ldb_audit_change *c, uint8_t *buf, size_t cap)
{
	static const uint8_t tags[LDB_AUDIT_NKINDS] = { 0, 0x68, 0x66, 0x4a, 0x6c };
	if (!c || c->kind <= LDB_AUDIT_NONE || c->kind >= LDB_AUDIT_NKINDS)
		return -1;
	const size_t body = content_len(c), total = tlv(body);
	if (!buf || total > cap || total > (size_t)0x7fffffff)
		return buf || total > (size_t)0x7fffffff ? -1 : (long)total;
	struct out o = { buf, 0 };
	put_hdr(&o, tags[c->kind], body);
	if (c->kind == LDB_AUDIT_DELETE) {
		memcpy(o.p + o.len, c->dn.p, c->dn.n);
		return (long)(o.len + c->dn.n);
	}
	put_str(&o, 0x04, &c->dn);
	if (c->kind == LDB_AUDIT_MODRDN) {
		put_str(&o, 0x04, &c->newrdn);
		put_hdr(&o, 0x01, 1);
		o.p[o.len++] = c->deleteoldrdn ? 0xff : 0x00;
		if (c->newsuperior.p)
			put_str(&o, 0x80, &c->newsuperior);
		return (long)o.len;
	}
	put_hdr(&o, 0x30, list_len(c));
	for (size_t i = 0; i < c->nattrs; i++) {
		size_t vals;
		if (c->kind == LDB_AUDIT_MODIFY) {
			put_hdr(&o, 0x30, 3 + tlv(attr_len(&c->attrs[i], &vals)));
			put_hdr(&o, 0x0a, 1);
			o.p[o.len++] = (uint8_t)c->attrs[i].op;
		}
		put_attr(&o, &c->attrs[i]);
	}
	return (long)o.len;
}
