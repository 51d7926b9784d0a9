/* Server audit logs read as changes (logs/audit.h): the files' probe (format,
 * first record's time; the files, gzip and lines are logs/lines', as for
 * access logs), the lines (folds undone) gathered into records, the
 * look-ahead window and the matching.  The records are parsed by
 * logs/audit_parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/audit_int.h"
#include "logs/lines_int.h"

#define NS 1000000000LL

struct held {
	struct ldb_audit_change c;
	void *mem;
	bool used;
};

struct ldb_audit {
	struct ldb_audit_opts o;
	struct ldb_lines *src;
	/* the file being read */
	bool done;
	const char *name;
	enum audit_fmt fmt;
	uint64_t lineno;
	/* the record being gathered */
	bool inrec, recbad;
	char *rec;
	size_t reclen, reccap;
	struct audit_rec hdr;
	/* the window: a ring of changes in log order */
	struct held *ring;
	size_t head, count;
	struct held last; /* ldb_audit_next's */
	struct ldb_audit_stats st;
	char err[512];
};

static void place(struct ldb_audit_place *first, uint64_t k, const char *file, uint64_t line)
{
	if (k < LDB_AUDIT_FIRST_LINES)
		first[k] = (struct ldb_audit_place){ .file = file, .line = line };
}

static void skip(struct ldb_audit *a, enum ldb_audit_skip why, uint64_t line)
{
	place(a->st.first_skipped[why], a->st.skipped[why]++, a->name, line);
}

/* A header line of either format: its format, and for OpenLDAP's "# add
 * TIME SUFFIX WHO [IP=.. conn=N]" the kind, time and conn. */
static enum audit_fmt head_line(const char *p, size_t n, struct audit_rec *h)
{
	h->hconn = -1;
	if (n >= 6 && memcmp(p, "time: ", 6) == 0)
		return AUDIT_FMT_389;
	if (n < 4 || p[0] != '#' || p[1] != ' ')
		return AUDIT_FMT_UNKNOWN;
	const char *e = p + n, *w = p + 2, *sp = memchr(w, ' ', (size_t)(e - w));
	if (!sp || (h->hkind = ldb_audit_kind_of(w, (size_t)(sp - w))) == LDB_AUDIT_NONE)
		return AUDIT_FMT_UNKNOWN;
	int64_t t = 0;
	const char *q = sp + 1;
	for (; q < e && *q >= '0' && *q <= '9' && t < INT64_MAX / 100; q++)
		t = t * 10 + (*q - '0');
	if (q == sp + 1 || (q < e && *q != ' ') || t > 7000000000LL) /* 2191: ns fit in 64 bits */
		return AUDIT_FMT_UNKNOWN;
	h->htime_ns = t * NS;
	for (const char *c = e - 1; c > q; c--) { /* the last " conn=N" */
		if (*c == ' ' && e - c > 6 && memcmp(c, " conn=", 6) == 0) {
			int64_t v = 0;
			const char *d = c + 6;
			for (; d < e && *d >= '0' && *d <= '9' && v < INT64_MAX / 10; d++)
				v = v * 10 + (*d - '0');
			if (d == e && d > c + 6)
				h->hconn = v;
			break;
		}
	}
	return AUDIT_FMT_OPENLDAP;
}

static int rec_append(struct ldb_audit *a, const char *p, size_t n, bool fold)
{
	if (fold && a->reclen > 0)
		a->reclen--; /* the '\n' of the line it continues */
	if (a->reclen + n + 1 > a->o.max_record) {
		a->recbad = true;
		return 0;
	}
	if (a->reclen + n + 1 > a->reccap) {
		size_t c = a->reccap ? a->reccap : 4096;
		while (c < a->reclen + n + 1)
			c *= 2;
		char *r = realloc(a->rec, c);
		if (!r)
			return -1;
		a->rec = r, a->reccap = c;
	}
	memcpy(a->rec + a->reclen, p, n);
	a->reclen += n;
	a->rec[a->reclen++] = '\n';
	return 0;
}

static void rec_start(struct ldb_audit *a, const struct audit_rec *h)
{
	a->inrec = true;
	a->recbad = false;
	a->reclen = 0;
	a->hdr = *h;
	a->hdr.fmt = a->fmt;
	a->hdr.file = a->name;
	a->hdr.line = a->lineno;
}

/* The record gathered, parsed into *out.  @return 1 a change, 0 none. */
static int rec_end(struct ldb_audit *a, struct held *out, bool truncated)
{
	a->inrec = false;
	if (truncated || a->recbad) {
		skip(a, truncated ? LDB_AUDIT_SKIP_TRUNCATED : LDB_AUDIT_SKIP_TOO_LONG, a->hdr.line);
		return 0;
	}
	a->hdr.p = a->rec ? a->rec : "", a->hdr.n = a->reclen;
	const enum ldb_audit_skip why =
	        ldb_audit_parse(&a->hdr, a->o.utc_offset_s, &out->c, &out->mem, &a->st.dropped_attrs);
	if (why != LDB_AUDIT_SKIP_NONE) {
		skip(a, why, a->hdr.line);
		return 0;
	}
	out->used = false;
	a->st.changes[out->c.kind]++;
	a->st.failed += out->c.result > 0;
	return 1;
}

/* One physical line into the record.  @return 1 a record ended with a
 * change in *out, 0 not yet, -1 (err). */
static int feed(struct ldb_audit *a, const char *p, size_t n, struct held *out)
{
	struct audit_rec h = { 0 };
	const enum audit_fmt f = head_line(p, n, &h);
	int got = 0;
	if (a->inrec && n > 0 && p[0] == ' ')
		return rec_append(a, p + 1, n - 1, true);
	if (a->fmt == AUDIT_FMT_389) {
		if (a->inrec && (n == 0 || f == AUDIT_FMT_389))
			got = rec_end(a, out, f == AUDIT_FMT_389);
		if (f == AUDIT_FMT_389)
			rec_start(a, &h);
		else if (n == 0 || got)
			return got;
	} else if (a->fmt == AUDIT_FMT_OPENLDAP) {
		if (n >= 6 && memcmp(p, "# end ", 6) == 0 && a->inrec)
			return rec_end(a, out, false);
		if (f == AUDIT_FMT_OPENLDAP) {
			got = a->inrec ? rec_end(a, out, true) : 0;
			rec_start(a, &h);
			return got;
		}
		if (n == 0)
			return 0;
	}
	if (a->inrec)
		return rec_append(a, p, n, false) < 0 ? -1 : got;
	if (n > 0)
		skip(a, LDB_AUDIT_SKIP_GARBAGE, a->lineno);
	return got;
}

/* logs/lines' probe: a file's format and first record's time, from its
 * first complete lines; audit logs of both servers together refused. */
static int probe(void *ctx, struct ldb_lines_file *files, size_t i, const char *buf, size_t len, char *err,
                 size_t errlen)
{
	const struct ldb_audit *a = ctx;
	struct ldb_lines_file *f = &files[i];
	bool text = false;
	for (const char *p = buf, *e = buf + len; p < e && f->fmt == AUDIT_FMT_UNKNOWN;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const size_t n = (size_t)((nl ? nl : e) - p);
		struct audit_rec h = { 0 };
		f->fmt = nl ? (int)head_line(p, n, &h) : AUDIT_FMT_UNKNOWN;
		const int64_t t = f->fmt == AUDIT_FMT_389        ? ldb_audit_time389(p + 6, n - 6, a->o.utc_offset_s)
		                  : f->fmt == AUDIT_FMT_OPENLDAP ? h.htime_ns
		                                                 : -1;
		f->first_ns = t < 0 ? LDB_LINES_NO_TIME : t;
		text = text || n > 0;
		p = nl ? nl + 1 : e;
	}
	if (f->fmt == AUDIT_FMT_UNKNOWN && text)
		return snprintf(err, errlen, "%s: not a 389 DS audit log nor an OpenLDAP auditlog overlay file",
		                f->path),
		       -1;
	for (size_t j = 0; j < i; j++)
		if (f->fmt && files[j].fmt && f->fmt != files[j].fmt)
			return snprintf(err, errlen, "%s: an audit log of the other server than %s's", f->path,
			                files[j].path),
			       -1;
	return 0;
}

static struct ldb_audit *reader_new(const struct ldb_audit_opts *opts)
{
	struct ldb_audit *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	if (opts)
		a->o = *opts;
	a->o.window = a->o.window ? a->o.window : 4096;
	a->o.window_s = a->o.window_s > 0 ? a->o.window_s : 10;
	a->o.tolerance_ms = a->o.tolerance_ms > 0 ? a->o.tolerance_ms : 1500;
	a->o.max_record = a->o.max_record ? a->o.max_record : 1024 * 1024;
	a->o.utc_offset_s = a->o.utc_offset_set ? a->o.utc_offset_s : 0;
	a->ring = calloc(a->o.window, sizeof *a->ring);
	if (!a->ring) {
		ldb_audit_close(a);
		return NULL;
	}
	return a;
}

struct ldb_audit *ldb_audit_open_opts(const char *const *files, size_t nfiles, const struct ldb_audit_opts *opts,
                                      char *err, size_t errlen)
{
	struct ldb_audit *a = reader_new(opts);
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (nfiles == 0) {
		snprintf(err, errlen, "no audit log given");
		ldb_audit_close(a);
		return NULL;
	}
	a->src = ldb_lines_open(files, nfiles, a->o.max_record, probe, a, err, errlen);
	if (!a->src) {
		ldb_audit_close(a);
		return NULL;
	}
	return a;
}

struct ldb_audit *ldb_audit_open(const char *const *files, size_t nfiles, char *err, size_t errlen)
{
	return ldb_audit_open_opts(files, nfiles, NULL, err, errlen);
}

struct ldb_audit *ldb_audit_open_mem(const char *buf, size_t len, const char *name, const struct ldb_audit_opts *opts)
{
	struct ldb_audit *a = reader_new(opts);
	if (!a)
		return NULL;
	enum audit_fmt fmt = AUDIT_FMT_UNKNOWN;
	for (size_t i = 0; i < len && fmt == AUDIT_FMT_UNKNOWN;) { /* the format of its first header */
		const char *nl = memchr(buf + i, '\n', len - i);
		struct audit_rec h = { 0 };
		const size_t n = (size_t)((nl ? nl : buf + len) - (buf + i));
		fmt = head_line(buf + i, n, &h);
		i += n + 1;
	}
	a->src = ldb_lines_open_mem(buf, len, name, (int)fmt, a->o.max_record);
	if (!a->src) {
		ldb_audit_close(a);
		return NULL;
	}
	a->st.files = 1;
	return a;
}

/* The next line into the record being gathered; at a file's first line
 * (and the end), a record still open was cut short.  @return 1 a change in
 * *out, 0 not yet, -1 (err; the reader is done). */
static int read_line(struct ldb_audit *a, struct held *out)
{
	struct ldb_line l;
	const int r = ldb_lines_next(a->src, &l);
	a->st.files = ldb_lines_files(a->src);
	a->st.bytes = ldb_lines_bytes(a->src);
	if ((r <= 0 || l.first) && a->inrec)
		rec_end(a, out, true); /* never a change: a skip */
	if (r <= 0) {
		if (r < 0)
			snprintf(a->err, sizeof a->err, "%s", ldb_lines_error(a->src));
		a->done = true;
		return r;
	}
	if (l.first)
		a->fmt = (enum audit_fmt)l.f->fmt, a->name = l.f->path;
	a->lineno = l.no;
	a->st.lines++;
	if (l.kind == LDB_LINE_TOO_LONG) { /* over max_record: its record cannot be one */
		if (a->inrec)
			a->recbad = true;
		else
			skip(a, LDB_AUDIT_SKIP_TOO_LONG, l.no);
		return 0;
	}
	return feed(a, l.p, l.n, out);
}

/* The next change of the logs into *out.  @return 1, 0 at the end, -1. */
static int read_change(struct ldb_audit *a, struct held *out)
{
	while (!a->done) {
		const int got = read_line(a, out);
		if (got)
			return got;
	}
	return 0;
}

static bool sep(uint8_t c)
{
	return c == ',' || c == '+' || c == '=' || c == ';' || c == ' ';
}

/* A space of s[0..n) at i that a DN comparison ignores: at either end, or
 * next to a separator (',' '+' '=', ';' of old DNs) or to another space. */
static bool ignorable(const uint8_t *s, size_t i, size_t n)
{
	return s[i] == ' ' && (i == 0 || i + 1 == n || sep(s[i - 1]) || sep(s[i + 1]));
}

/* DNs equal but for ASCII case and ignorable spaces. */
static bool dn_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < an && ignorable(a, i, an))
			i++;
		while (j < bn && ignorable(b, j, bn))
			j++;
		if (i == an || j == bn)
			return i == an && j == bn;
		const int x = a[i] >= 'A' && a[i] <= 'Z' ? a[i] + 32 : a[i];
		const int y = b[j] >= 'A' && b[j] <= 'Z' ? b[j] + 32 : b[j];
		if (x != y)
			return false;
		i++, j++;
	}
}

static struct held *at(struct ldb_audit *a, size_t k)
{
	return &a->ring[(a->head + k) % a->o.window];
}

static void unmatched(struct ldb_audit *a, const struct ldb_audit_change *c)
{
	place(a->st.first_unmatched, a->st.unmatched++, c->file, c->line);
}

/* The oldest change off the ring (counted unmatched unless used). */
static void pop(struct ldb_audit *a)
{
	struct held *h = at(a, 0);
	if (!h->used)
		unmatched(a, &h->c);
	free(h->mem);
	h->mem = NULL;
	a->head = (a->head + 1) % a->o.window;
	a->count--;
}

/* Changes read until one is later than until_ns or the ring is full;
 * failed writes (389's result != 0) are not held. */
static void read_ahead(struct ldb_audit *a, int64_t until_ns)
{
	while (a->count < a->o.window && (a->count == 0 || at(a, a->count - 1)->c.time_ns <= until_ns)) {
		struct held h;
		if (read_change(a, &h) <= 0)
			return;
		if (h.c.result > 0) {
			free(h.mem);
			continue;
		}
		*at(a, a->count++) = h;
	}
}

const struct ldb_audit_change *ldb_audit_match(struct ldb_audit *a, enum ldb_audit_kind kind, const char *dn,
                                               size_t dnlen, int64_t time_ns, uint64_t conn, uint64_t op)
{
	const int64_t tol = (int64_t)a->o.tolerance_ms * 1000000, win = (int64_t)a->o.window_s * NS;
	(void)op;                                                  /* neither server's audit log carries it */
	if (time_ns < -INT64_MAX / 2 || time_ns > INT64_MAX / 2) { /* no time of a log: the sums below stay in range */
		a->st.not_found++;
		return NULL;
	}
	while (a->count > 0 && (at(a, 0)->used || at(a, 0)->c.time_ns + NS + tol < time_ns - win))
		pop(a);
	read_ahead(a, time_ns + win);
	struct held *found = NULL;
	for (size_t k = 0; k < a->count; k++) {
		struct held *h = at(a, k);
		const struct ldb_audit_change *c = &h->c;
		if (h->used || c->kind != kind || c->time_ns < time_ns - NS - tol || c->time_ns > time_ns + tol)
			continue;
		if (c->conn >= 0 && (int64_t)conn >= 0 && (uint64_t)c->conn != conn)
			continue; /* both logs say which connection: another one's */
		if (!dn_eq(c->dn.p, c->dn.n, (const uint8_t *)dn, dnlen))
			continue;
		found = h;
		break;
	}
	if (!found) {
		a->st.not_found++;
		return NULL;
	}
	found->used = true;
	a->st.matched[kind]++;
	return &found->c;
}

const struct ldb_audit_change *ldb_audit_next(struct ldb_audit *a)
{
	free(a->last.mem);
	a->last.mem = NULL;
	return read_change(a, &a->last) > 0 ? &a->last.c : NULL;
}

void ldb_audit_finish(struct ldb_audit *a)
{
	struct held h;
	while (a->count > 0)
		pop(a);
	while (read_change(a, &h) > 0) {
		if (h.c.result <= 0)
			unmatched(a, &h.c);
		free(h.mem);
	}
}

const struct ldb_audit_stats *ldb_audit_stats(const struct ldb_audit *a)
{
	return &a->st;
}

const char *ldb_audit_error(const struct ldb_audit *a)
{
	return a->err;
}

void ldb_audit_close(struct ldb_audit *a)
{
	if (!a)
		return;
	ldb_lines_close(a->src);
	while (a->ring && a->count > 0) {
		free(at(a, 0)->mem);
		a->head = (a->head + 1) % a->o.window;
		a->count--;
	}
	free(a->last.mem);
	free(a->ring);
	free(a->rec);
	free(a);
}

const char *ldb_audit_kind_name(enum ldb_audit_kind k)
{
	static const char *const names[] = { "none", "add", "modify", "delete", "modrdn" };
	return k >= LDB_AUDIT_NONE && k < LDB_AUDIT_NKINDS ? names[k] : "?";
}

const char *ldb_audit_skip_name(enum ldb_audit_skip s)
{
	static const char *const names[] = {
		"none", "garbage", "unknown-change", "bad-value", "truncated", "too-long"
	};
	return s >= LDB_AUDIT_SKIP_NONE && s < LDB_AUDIT_NSKIPS ? names[s] : "?";
}
