/* Server access logs read as events (logs/slog.h): the files' probe (format,
 * first timestamp), the events of the lines, the statistics.  The lines are
 * logs/lines' (files, gzip, buffer), the timestamps logs/slog_time's, the
 * messages logs/slog_parse's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/lines_int.h"
#include "logs/slog_int.h"

#define MAX_LINE_DEFAULT (64 * 1024)
#define MAX_LINE_MAX (16 * 1024 * 1024)

struct ldb_slog {
	struct ldb_lines *src;
	struct ldb_slog_opts opts;
	const char *first_path; /* the first file of a known format (probing) */
	struct ldb_slog_pctx pc;
	enum ldb_slog_format fmt;
	struct ldb_slog_stats st;
	char err[512];
};

static void pctx_init(struct ldb_slog_pctx *pc, const struct ldb_slog_opts *o, int year, int month,
                      enum ldb_slog_format fmt)
{
	memset(pc, 0, sizeof *pc);
	pc->fmt = fmt;
	pc->t.year = o->year ? o->year : year;
	pc->t.ref_month = o->year ? 0 : month;
	pc->t.off_set = o->utc_offset_set;
	pc->t.off_s = o->utc_offset_s;
	pc->t.hour_key = -1;
}

static const char *fmt_words(int fmt)
{
	return fmt == LDB_SLOG_FMT_389 ? " 389 DS access" : "n OpenLDAP stats";
}

/* logs/lines' probe: a file's format and first timestamp from its first
 * line of a known format; both servers' logs together refused. */
static int probe(void *ctx, struct ldb_lines_file *files, size_t i, const char *buf, size_t len, char *err,
                 size_t errlen)
{
	struct ldb_slog *r = ctx;
	struct ldb_lines_file *f = &files[i];
	struct ldb_slog_pctx pc;
	pctx_init(&pc, &r->opts, f->year, f->month, LDB_SLOG_FMT_UNKNOWN);
	for (size_t at = 0; at < len && !f->fmt;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		const char *end = nl ? nl : buf + len;
		enum ldb_slog_format fmt;
		int64_t ns, res;
		if (ldb_slog_prefix(&pc.t, buf + at, end, &fmt, &ns, &res) && fmt != LDB_SLOG_FMT_UNKNOWN)
			f->fmt = (int)fmt, f->first_ns = ns;
		at = (size_t)(end - buf) + 1;
	}
	if (!f->fmt && len > 0)
		return snprintf(err, errlen,
		                "%s: not a 389 DS access log nor an OpenLDAP stats log (no line of either in its first "
		                "%zu bytes)",
		                f->path, len),
		       -1;
	if (f->fmt && r->fmt && (enum ldb_slog_format)f->fmt != r->fmt)
		return snprintf(err, errlen, "%s: a%s log, but %s is a%s log: one server's logs at a time", f->path,
		                fmt_words(f->fmt), r->first_path, fmt_words((int)r->fmt)),
		       -1;
	if (f->fmt && !r->fmt)
		r->fmt = (enum ldb_slog_format)f->fmt, r->first_path = f->path;
	return 0; /* an empty file: zero lines */
}

static struct ldb_slog *reader_new(const struct ldb_slog_opts *opts)
{
	struct ldb_slog *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	if (opts)
		r->opts = *opts;
	if (!r->opts.max_line)
		r->opts.max_line = MAX_LINE_DEFAULT;
	if (r->opts.max_line > MAX_LINE_MAX)
		r->opts.max_line = MAX_LINE_MAX;
	r->st.first_ns = r->st.last_ns = LDB_SLOG_NO_TIME;
	return r;
}

struct ldb_slog *ldb_slog_open(const char *const *paths, size_t npaths, const struct ldb_slog_opts *opts, char *err,
                               size_t errlen)
{
	struct ldb_slog *r = reader_new(opts);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (npaths == 0) {
		snprintf(err, errlen, "no log file given");
		ldb_slog_close(r);
		return NULL;
	}
	r->src = ldb_lines_open(paths, npaths, r->opts.max_line, probe, r, err, errlen);
	if (!r->src) {
		ldb_slog_close(r);
		return NULL;
	}
	return r;
}

struct ldb_slog *ldb_slog_open_mem(const char *buf, size_t len, const char *name, const struct ldb_slog_opts *opts)
{
	struct ldb_slog *r = reader_new(opts);
	if (!r)
		return NULL;
	r->src = ldb_lines_open_mem(buf, len, name, LDB_SLOG_FMT_UNKNOWN, r->opts.max_line);
	if (!r->src) {
		ldb_slog_close(r);
		return NULL;
	}
	r->st.files = 1;
	return r;
}

static void count(struct ldb_slog_stats *st, const struct ldb_slog_event *ev)
{
	st->lines++;
	switch (ev->kind) {
	case LDB_SLOG_OPEN: st->opens++; break;
	case LDB_SLOG_CLOSE: st->closes++; break;
	case LDB_SLOG_RESULT: st->results++; break;
	case LDB_SLOG_MORE: st->mores++; break;
	case LDB_SLOG_REQUEST: st->requests[ev->type]++; break;
	case LDB_SLOG_SKIP: {
		const uint64_t k = st->skipped[ev->skip]++;
		if (k < LDB_SLOG_FIRST_LINES)
			st->first[ev->skip][k] = (struct ldb_slog_place){ .file = ev->file, .line = ev->line };
		return; /* a skipped line's time is not the log's */
	}
	}
	if (ev->time_ns == LDB_SLOG_NO_TIME)
		return;
	if (st->first_ns == LDB_SLOG_NO_TIME || ev->time_ns < st->first_ns)
		st->first_ns = ev->time_ns;
	if (st->last_ns == LDB_SLOG_NO_TIME || ev->time_ns > st->last_ns)
		st->last_ns = ev->time_ns;
}

int ldb_slog_next(struct ldb_slog *r, struct ldb_slog_event *ev)
{
	struct ldb_line l;
	const int got = ldb_lines_next(r->src, &l);
	r->st.files = ldb_lines_files(r->src);
	r->st.bytes = ldb_lines_bytes(r->src);
	if (got <= 0) {
		if (got < 0)
			snprintf(r->err, sizeof r->err, "%s", ldb_lines_error(r->src));
		return got;
	}
	if (l.first)
		pctx_init(&r->pc, &r->opts, l.f->year, l.f->month, (enum ldb_slog_format)l.f->fmt);
	ldb_slog_event_clear(ev);
	ev->file = l.f->path;
	ev->line = l.no;
	if (l.kind != LDB_LINE_WHOLE) {
		ev->kind = LDB_SLOG_SKIP;
		ev->skip = l.kind == LDB_LINE_TOO_LONG ? LDB_SLOG_SKIP_TOO_LONG : LDB_SLOG_SKIP_TRUNCATED;
		ev->text = (struct ldb_slog_str){ .p = l.p, .n = l.n };
	} else {
		ldb_slog_parse(&r->pc, l.p, l.n, ev);
		if (r->pc.fmt)
			r->fmt = r->pc.fmt;
	}
	count(&r->st, ev);
	return 1;
}

enum ldb_slog_format ldb_slog_format(const struct ldb_slog *r)
{
	return r->fmt;
}

const struct ldb_slog_stats *ldb_slog_stats(const struct ldb_slog *r)
{
	return &r->st;
}

const char *ldb_slog_error(const struct ldb_slog *r)
{
	return r->err;
}

void ldb_slog_close(struct ldb_slog *r)
{
	if (!r)
		return;
	ldb_lines_close(r->src);
	free(r);
}

const char *ldb_slog_optype_name(enum ldb_slog_optype t)
{
	static const char *const n[LDB_SLOG_NOPTYPES] = { "none",     "bind",    "search", "add",
		                                          "modify",   "delete",  "modrdn", "compare",
		                                          "extended", "abandon", "unbind", "other" };
	return (unsigned)t < LDB_SLOG_NOPTYPES ? n[t] : "?";
}

const char *ldb_slog_skip_name(enum ldb_slog_skip s)
{
	static const char *const n[LDB_SLOG_NSKIPS] = { "none",         "known",     "unknown-op", "garbage",
		                                        "other-format", "bad-field", "too-long",   "truncated" };
	return (unsigned)s < LDB_SLOG_NSKIPS ? n[s] : "?";
}

const char *ldb_slog_format_name(enum ldb_slog_format f)
{
	return f == LDB_SLOG_FMT_389 ? "389ds" : f == LDB_SLOG_FMT_OPENLDAP ? "openldap" : "unknown";
}
