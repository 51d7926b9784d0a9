/* The messages of server log lines, after their timestamp (logs/slog_time):
 * 389 DS's access log and OpenLDAP's stats, "conn=N op=N KEYWORD key=value
 * ...", scanned once with memchr and byte compares, no allocation. */
#include <string.h>

#include "logs/slog_int.h"

#define NS 1000000000LL

/* One "key=value" (or a bare word: v NULL) of a message. */
struct kv {
	const char *k, *v;
	size_t kn, vn;
};

#define KEY(kv, lit) ((kv)->kn == sizeof(lit) - 1 && memcmp((kv)->k, lit, sizeof(lit) - 1) == 0)

static struct ldb_slog_str str(const char *p, size_t n)
{
	return (struct ldb_slog_str){ .p = p, .n = n };
}

/* The next token at p (spaces skipped) into *kv; a quoted value ends at a
 * quote followed by a space or the end.  @return past it, or NULL at end. */
static const char *next_kv(const char *p, const char *end, struct kv *kv)
{
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return NULL;
	/* keys and most values are short: a byte loop beats memchr's call */
	const char *q = p;
	while (q < end && *q != ' ' && *q != '=')
		q++;
	kv->k = p;
	kv->kn = (size_t)(q - p);
	if (q == end || *q == ' ') {
		kv->v = NULL;
		kv->vn = 0;
		return q;
	}
	p = q + 1;
	if (p < end && *p == '"') {
		q = p + 1;
		for (;;) {
			q = memchr(q, '"', (size_t)(end - q));
			if (!q || q + 1 == end || q[1] == ' ')
				break;
			q++;
		}
		if (!q)
			q = end; /* an unclosed quote: to the end */
		kv->v = p + 1;
		kv->vn = (size_t)(q - p - 1);
		return q < end ? q + 1 : end;
	}
	for (q = p; q < end && *q != ' ';)
		q++;
	kv->v = p;
	kv->vn = (size_t)(q - p);
	return q;
}

/* A decimal integer (optionally negative) of exactly [p, p+n); -1 on error
 * with *ok false. */
static int64_t num(const char *p, size_t n, bool *ok)
{
	int64_t v = 0;
	bool neg = n > 0 && *p == '-';
	size_t i = neg;
	if (i >= n || n - i > 18) {
		*ok = false;
		return -1;
	}
	for (; i < n; i++) {
		if ((unsigned)(p[i] - '0') > 9) {
			*ok = false;
			return -1;
		}
		v = v * 10 + (p[i] - '0');
	}
	return neg ? -v : v;
}

/* Seconds "0.000123" or "0" into ns; *res 1 ns, or 1 s for an integer. */
static int64_t secs(const char *p, size_t n, int64_t *res, bool *ok)
{
	const char *dot = memchr(p, '.', n);
	const int64_t s = num(p, dot ? (size_t)(dot - p) : n, ok);
	if (s > INT64_MAX / NS - 1 || s < -(INT64_MAX / NS - 1)) { /* no server time is 292 years */
		*ok = false;
		return -1;
	}
	if (!dot) {
		if (res)
			*res = NS;
		return s * NS;
	}
	static const int64_t pow10[10] = { 1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1 };
	int64_t f = 0;
	int nd = 0; /* digits kept: 9 (ns), the rest truncated */
	for (const char *q = dot + 1; q < p + n; q++) {
		if ((unsigned)(*q - '0') > 9) {
			*ok = false;
			return -1;
		}
		if (nd < 9) {
			f = f * 10 + (*q - '0');
			nd++;
		}
	}
	f *= pow10[nd];
	if (res)
		*res = 1;
	return s * NS + f;
}

static unsigned notes(const char *p, size_t n)
{
	unsigned v = 0;
	for (size_t i = 0; i < n; i++)
		switch (p[i]) {
		case 'U': v |= LDB_SLOG_NOTE_U; break;
		case 'A': v |= LDB_SLOG_NOTE_A; break;
		case 'P': v |= LDB_SLOG_NOTE_P; break;
		case 'F': v |= LDB_SLOG_NOTE_F; break;
		case 'M': v |= LDB_SLOG_NOTE_M; break;
		default: break;
		}
	return v;
}

/* A RESULT's fields (both servers); OpenLDAP's text= ends the line. */
static void result_fields(const char *p, const char *end, struct ldb_slog_event *ev, bool *ok)
{
	struct kv kv;
	ev->kind = LDB_SLOG_RESULT;
	while ((p = next_kv(p, end, &kv))) {
		if (!kv.v)
			continue;
		if (kv.vn > 0 && kv.v[kv.vn - 1] == ',') /* 389's "etime=0.000445402, SASL bind in progress" */
			kv.vn--;
		if (KEY(&kv, "err"))
			ev->err = (int)num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "tag"))
			ev->tag = (int)num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "nentries"))
			ev->nentries = num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "etime"))
			ev->etime_ns = secs(kv.v, kv.vn, &ev->etime_res_ns, ok);
		else if (KEY(&kv, "wtime"))
			ev->wtime_ns = secs(kv.v, kv.vn, NULL, ok);
		else if (KEY(&kv, "optime"))
			ev->optime_ns = secs(kv.v, kv.vn, NULL, ok);
		else if (KEY(&kv, "qtime"))
			ev->qtime_ns = secs(kv.v, kv.vn, NULL, ok);
		else if (KEY(&kv, "notes"))
			ev->notes = notes(kv.v, kv.vn);
		else if (KEY(&kv, "oid"))
			ev->oid = str(kv.v, kv.vn);
		else if (KEY(&kv, "dn"))
			ev->dn = str(kv.v, kv.vn);
		else if (KEY(&kv, "text"))
			break;
	}
}

/* A request's fields as both servers log them (key=value, any order). */
static void request_fields(const char *p, const char *end, struct ldb_slog_event *ev, bool *ok)
{
	struct kv kv;
	while ((p = next_kv(p, end, &kv))) {
		if (!kv.v)
			continue;
		const struct ldb_slog_str v = str(kv.v, kv.vn);
		if (KEY(&kv, "dn"))
			ev->dn = v;
		else if (KEY(&kv, "base"))
			ev->base = v;
		else if (KEY(&kv, "scope"))
			ev->scope = (int)num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "deref"))
			ev->deref = (int)num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "filter"))
			ev->filter = v;
		else if (KEY(&kv, "attrs"))
			ev->attrs = v;
		else if (KEY(&kv, "method"))
			ev->method = v;
		else if (KEY(&kv, "mech"))
			ev->mech = v;
		else if (KEY(&kv, "newrdn"))
			ev->newrdn = v;
		else if (KEY(&kv, "newsuperior"))
			ev->newsuperior = kv.vn == 6 && !memcmp(kv.v, "(null)", 6) ? (struct ldb_slog_str){ 0 } : v;
		else if (KEY(&kv, "deleteoldrdn"))
			ev->deleteoldrdn = (int)num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "oid"))
			ev->oid = v;
		else if (KEY(&kv, "name"))
			ev->name = v;
		else if (KEY(&kv, "targetop"))
			ev->abandon_op = kv.vn == 8 && !memcmp(kv.v, "NOTFOUND", 8) ? -1 : num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "msgid") || KEY(&kv, "msg"))
			ev->abandon_msgid = num(kv.v, kv.vn, ok);
		else if (KEY(&kv, "attr")) {
			/* OpenLDAP's "SRCH attr=a b" and "MOD attr=a b": to the end;
			 * 389's CMP attr="uid": the one value */
			ev->attr = kv.v[-1] == '"' ? v : str(kv.v, (size_t)(end - kv.v));
			if (ev->type == LDB_SLOG_OP_SEARCH)
				ev->attrs = ev->attr, ev->attr = (struct ldb_slog_str){ 0 };
			if (kv.v[-1] != '"')
				break;
		}
	}
}

struct word {
	const char *w;
	enum ldb_slog_optype t;
};

/* The request keywords of both servers. */
static enum ldb_slog_optype op_keyword(const char *p, size_t n)
{
	static const struct word words[] = {
		{ "SRCH", LDB_SLOG_OP_SEARCH },     { "BIND", LDB_SLOG_OP_BIND },
		{ "ADD", LDB_SLOG_OP_ADD },         { "MOD", LDB_SLOG_OP_MODIFY },
		{ "DEL", LDB_SLOG_OP_DELETE },      { "MODRDN", LDB_SLOG_OP_MODRDN },
		{ "CMP", LDB_SLOG_OP_COMPARE },     { "EXT", LDB_SLOG_OP_EXTENDED },
		{ "ABANDON", LDB_SLOG_OP_ABANDON }, { "UNBIND", LDB_SLOG_OP_UNBIND },
		{ "ABANDON", LDB_SLOG_OP_ABANDON },
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i].w) == n && memcmp(words[i].w, p, n) == 0)
			return words[i].t;
	return LDB_SLOG_OP_NONE;
}

/* Keywords that are lines of the format but no event (skipped as known). */
static bool known_keyword(const char *p, size_t n)
{
	static const char *const known[] = {
		"STAT",    "ENTRY",  "REFERRAL", "SORT",       "VLV",        "AUTOBIND", "WHOAMI", "STARTTLS",
		"PASSMOD", "CANCEL", "TXN",      "PROXYAUTHZ", "DISCONNECT", "TLS",      "SSL",    "EXTENDED",
		"RESULT2", "REF",    "AUTHZID",  "ASSERTION",  "PAGED",      "SASL",     "ACCEPT",
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strlen(known[i]) == n && memcmp(known[i], p, n) == 0)
			return true;
	return n >= 3 && (memcmp(p, "TLS", 3) == 0 || memcmp(p, "SSL", 3) == 0);
}

static void skip(struct ldb_slog_event *ev, enum ldb_slog_skip why)
{
	ev->kind = LDB_SLOG_SKIP;
	ev->skip = why;
}

/* The text after the last " - " of a 389 close line ("U1", "B1"), or after
 * OpenLDAP's "closed ". */
static struct ldb_slog_str close_reason(const char *p, const char *end)
{
	const char *last = NULL;
	for (const char *q = p; (q = memchr(q, '-', (size_t)(end - q))); q++)
		if (q > p && q[-1] == ' ' && q + 1 < end && q[1] == ' ')
			last = q + 2;
	if (last)
		return str(last, (size_t)(end - last));
	while (p < end && *p == ' ')
		p++;
	return p < end ? str(p, (size_t)(end - p)) : (struct ldb_slog_str){ 0 };
}

/* 389's "slot=64 [SSL ]connection from 127.0.0.1 to 127.0.0.1", OpenLDAP's
 * "ACCEPT from IP=127.0.0.1:39434 (IP=...)" (IPv6: IP=[::1]:39434). */
static void open_fields(const char *p, const char *end, struct ldb_slog_event *ev)
{
	struct kv kv;
	ev->kind = LDB_SLOG_OPEN;
	while ((p = next_kv(p, end, &kv))) {
		if (!kv.v && kv.kn == 3 && !memcmp(kv.k, "SSL", 3))
			ev->tls = true;
		if (kv.v || kv.kn != 4 || memcmp(kv.k, "from", 4))
			continue;
		if (!(p = next_kv(p, end, &kv)))
			return; /* "from" at the end of the line */
		if (!kv.v) {    /* 389: the address alone */
			ev->addr = str(kv.k, kv.kn);
			return;
		}
		const char *a = kv.v, *ae = kv.v + kv.vn, *colon = NULL;
		if (a < ae && *a == '[') {
			const char *rb = memchr(a, ']', (size_t)(ae - a));
			colon = rb && rb + 1 < ae && rb[1] == ':' ? rb + 1 : NULL;
			if (rb)
				ev->addr = str(a + 1, (size_t)(rb - a - 1));
		} else {
			colon = memrchr(a, ':', (size_t)(ae - a));
			ev->addr = str(a, (size_t)((colon ? colon : ae) - a));
		}
		bool ok = true;
		const int64_t port = colon ? num(colon + 1, (size_t)(ae - colon - 1), &ok) : -1;
		ev->port = ok && port >= 0 && port <= 65535 ? (int)port : -1;
		return;
	}
}

/* "fd=N ..." after conn= (and op= for 389's close lines). */
static void fd_line(const char *p, const char *end, struct ldb_slog_event *ev)
{
	struct kv kv;
	const char *q = next_kv(p, end, &kv);
	if (!q)
		return skip(ev, LDB_SLOG_SKIP_BAD_FIELD);
	if (!kv.v && ((kv.kn == 6 && !memcmp(kv.k, "closed", 6)) || (kv.kn == 10 && !memcmp(kv.k, "Disconnect", 10)))) {
		ev->kind = LDB_SLOG_CLOSE;
		ev->reason = close_reason(q, end);
	} else if (!kv.v && kv.kn == 6 && !memcmp(kv.k, "ACCEPT", 6)) {
		open_fields(q, end, ev);
	} else if (kv.v && KEY(&kv, "slot")) {
		open_fields(q, end, ev);
	} else {
		skip(ev, LDB_SLOG_SKIP_KNOWN);
	}
}

/* "KEYWORD fields" after conn=N op=N. */
static void op_line(const struct kv *w, const char *p, const char *end, struct ldb_slog_event *ev, bool *ok)
{
	struct kv kv;
	ev->keyword = str(w->k, w->kn);
	if (w->kn == 6 && !memcmp(w->k, "RESULT", 6))
		return result_fields(p, end, ev, ok);
	if (w->kn == 6 && !memcmp(w->k, "SEARCH", 6) && next_kv(p, end, &kv) && !kv.v && kv.kn == 6 &&
	    !memcmp(kv.k, "RESULT", 6))
		return result_fields(p + 7, end, ev, ok);
	ev->type = op_keyword(w->k, w->kn);
	if (ev->type == LDB_SLOG_OP_NONE)
		return skip(ev, known_keyword(w->k, w->kn) ? LDB_SLOG_SKIP_KNOWN : LDB_SLOG_SKIP_UNKNOWN_OP);
	ev->kind = LDB_SLOG_REQUEST;
	request_fields(p, end, ev, ok);
	/* OpenLDAP's second lines of a request; a bind's first line always has
	 * method= (both servers), its others (SASL's "BIND authcid= authzid=",
	 * "BIND dn= mech=") never */
	if ((ev->type == LDB_SLOG_OP_BIND && !ev->method.p) ||
	    (ev->type == LDB_SLOG_OP_SEARCH && !ev->base.p && ev->attrs.p) ||
	    (ev->type == LDB_SLOG_OP_MODIFY && !ev->dn.p && ev->attr.p))
		ev->kind = LDB_SLOG_MORE;
}

/* The message from "conn=". */
static void message(enum ldb_slog_format f, const char *p, const char *end, struct ldb_slog_event *ev)
{
	struct kv kv;
	bool ok = true;
	if (end - p < 6 || memcmp(p, "conn=", 5) != 0)
		return skip(ev, f == LDB_SLOG_FMT_OPENLDAP ? LDB_SLOG_SKIP_KNOWN : LDB_SLOG_SKIP_GARBAGE);
	p = next_kv(p, end, &kv);
	ev->conn = num(kv.v, kv.vn, &ok);
	const char *q = next_kv(p, end, &kv);
	if (!ok || !q)
		return skip(ev, LDB_SLOG_SKIP_BAD_FIELD);
	if (kv.v && KEY(&kv, "fd"))
		return fd_line(q, end, ev);
	if (kv.v && KEY(&kv, "op")) {
		ev->op = num(kv.v, kv.vn, &ok);
		p = q;
		q = next_kv(p, end, &kv);
		if (!ok || !q)
			return skip(ev, LDB_SLOG_SKIP_BAD_FIELD);
		if (kv.v && KEY(&kv, "fd"))
			return fd_line(q, end, ev);
		if (kv.v)
			return skip(ev, LDB_SLOG_SKIP_UNKNOWN_OP);
		op_line(&kv, q, end, ev, &ok);
		if (!ok)
			skip(ev, LDB_SLOG_SKIP_BAD_FIELD);
		return;
	}
	skip(ev, !kv.v && known_keyword(kv.k, kv.kn) ? LDB_SLOG_SKIP_KNOWN : LDB_SLOG_SKIP_UNKNOWN_OP);
}

void ldb_slog_event_clear(struct ldb_slog_event *ev)
{
	static const struct ldb_slog_event none = {
		.time_ns = LDB_SLOG_NO_TIME,
		.conn = -1,
		.op = -1,
		.port = -1,
		.scope = -1,
		.deref = -1,
		.deleteoldrdn = -1,
		.abandon_msgid = -1,
		.abandon_op = -1,
		.tag = -1,
		.err = -1,
		.nentries = -1,
		.etime_ns = -1,
		.wtime_ns = -1,
		.optime_ns = -1,
		.qtime_ns = -1,
		.etime_res_ns = -1,
	};
	*ev = none;
}

void ldb_slog_parse(struct ldb_slog_pctx *c, const char *p, size_t n, struct ldb_slog_event *ev)
{
	const char *end = p + n;
	enum ldb_slog_format f;
	ev->text = str(p, n);
	const char *m = ldb_slog_prefix(&c->t, p, end, &f, &ev->time_ns, &ev->time_res_ns);
	if (!m) {
		/* an empty line, 389's header lines of a (rotated) file */
		if (n == 0 || *p == '\t' || *p == ' ')
			return skip(ev, LDB_SLOG_SKIP_KNOWN);
		return skip(ev, LDB_SLOG_SKIP_GARBAGE);
	}
	if (c->fmt == LDB_SLOG_FMT_UNKNOWN)
		c->fmt = f;
	else if (f != c->fmt)
		return skip(ev, LDB_SLOG_SKIP_OTHER_FORMAT);
	message(f, m, end, ev);
}
