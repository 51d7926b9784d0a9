/* Server access logs read as events (logs/slog.h): the files (ordered by
 * their first timestamp, plain or gzip), the line buffer, the statistics.
 * The timestamps are logs/slog_time's, the messages logs/slog_parse's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "logs/slog_int.h"

#define CHUNK (256 * 1024) /* one read */
#define PEEK (64 * 1024)   /* what ordering and detection read of a file */
#define MAX_LINE_DEFAULT (64 * 1024)
#define MAX_LINE_MAX (16 * 1024 * 1024)

struct slog_file {
	char *path;
	int64_t first_ns; /* LDB_SLOG_NO_TIME: none found */
	enum ldb_slog_format fmt;
	int year, month; /* of its modification time */
	size_t given;    /* its place on the command line */
};

struct ldb_slog {
	struct slog_file *files;
	size_t nfiles, cur; /* cur: the next file to open */
	size_t max_line;
	struct ldb_slog_opts opts;
	/* the source being read */
	bool open, eof, discarding;
	int fd;
	gzFile gz;
	const char *mem;
	size_t memlen, mempos;
	const char *name;
	uint64_t lineno;
	char *buf;
	size_t cap, start, end;
	struct ldb_slog_pctx pc;
	enum ldb_slog_format fmt;
	struct ldb_slog_stats st;
	char err[512];
};

static void ref_time(int *year, int *month, time_t t)
{
	struct tm tm;
	if (!localtime_r(&t, &tm)) {
		*year = 1970, *month = 0;
		return;
	}
	*year = tm.tm_year + 1900;
	*month = tm.tm_mon + 1;
}

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

/* Open path for reading: a descriptor, or a gzFile when it starts with the
 * gzip magic.  @return 0, or -1 with err set. */
static int open_src(const char *path, int *fd, gzFile *gz, char *err, size_t errlen)
{
	unsigned char magic[2];
	*gz = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	const ssize_t n = pread(*fd, magic, 2, 0);
	if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		*gz = gzdopen(*fd, "rb");
		if (!*gz) {
			snprintf(err, errlen, "%s: cannot read as gzip", path);
			close(*fd);
			return -1;
		}
		gzbuffer(*gz, CHUNK);
		*fd = -1;
	}
	return 0;
}

/* Up to want bytes into dst.  @return the bytes, 0 at the end, -1 (err). */
static ssize_t read_src(int fd, gzFile gz, char *dst, size_t want, const char *path, char *err, size_t errlen)
{
	if (gz) {
		const int n = gzread(gz, dst, (unsigned)want);
		int zerr = Z_OK;
		const char *msg = n <= 0 ? gzerror(gz, &zerr) : NULL;
		if (n < 0 || (n == 0 && zerr != Z_OK && zerr != Z_STREAM_END)) {
			snprintf(err, errlen, "%s: gzip: %s", path, msg ? msg : "read error");
			return -1;
		}
		return n;
	}
	ssize_t n;
	do
		n = read(fd, dst, want);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return n;
}

static void close_src(int fd, gzFile gz)
{
	if (gz)
		gzclose(gz);
	else if (fd >= 0)
		close(fd);
}

/* The same for the other readers of logs/ (logs/audit). */
int ldb_slog_src_open(const char *path, int *fd, gzFile *gz, char *err, size_t errlen)
{
	return open_src(path, fd, gz, err, errlen);
}

ssize_t ldb_slog_src_read(int fd, gzFile gz, char *dst, size_t want, const char *path, char *err, size_t errlen)
{
	return read_src(fd, gz, dst, want, path, err, errlen);
}

void ldb_slog_src_close(int fd, gzFile gz)
{
	close_src(fd, gz);
}

/* A file's format and first timestamp, from its first PEEK bytes; its
 * modification time's year and month.  @return 0, or -1 with err set. */
static int peek_file(struct slog_file *f, const struct ldb_slog_opts *o, char *buf, char *err, size_t errlen)
{
	int fd;
	gzFile gz;
	struct stat sb;
	if (open_src(f->path, &fd, &gz, err, errlen))
		return -1;
	ref_time(&f->year, &f->month, !gz && fstat(fd, &sb) == 0 ? sb.st_mtime : time(NULL));
	if (gz && stat(f->path, &sb) == 0)
		ref_time(&f->year, &f->month, sb.st_mtime);
	size_t len = 0;
	ssize_t n = 1;
	while (len < PEEK && (n = read_src(fd, gz, buf + len, PEEK - len, f->path, err, errlen)) > 0)
		len += (size_t)n;
	close_src(fd, gz);
	if (n < 0 && len == 0)
		return -1;
	err[0] = '\0'; /* a read error after some lines: ldb_slog_next says it there */
	struct ldb_slog_pctx pc;
	pctx_init(&pc, o, f->year, f->month, LDB_SLOG_FMT_UNKNOWN);
	f->first_ns = LDB_SLOG_NO_TIME;
	f->fmt = LDB_SLOG_FMT_UNKNOWN;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		const char *end = nl ? nl : buf + len;
		enum ldb_slog_format fmt;
		int64_t ns, res;
		if (ldb_slog_prefix(&pc.t, buf + at, end, &fmt, &ns, &res) && fmt != LDB_SLOG_FMT_UNKNOWN) {
			f->fmt = fmt;
			f->first_ns = ns;
			return 0;
		}
		at = (size_t)(end - buf) + 1;
	}
	if (len > 0) {
		snprintf(err, errlen,
		         "%s: not a 389 DS access log nor an OpenLDAP stats log (no line of either in its first %zu "
		         "bytes)",
		         f->path, len);
		return -1;
	}
	return 0; /* empty: zero lines */
}

static int by_first_time(const void *a, const void *b)
{
	const struct slog_file *x = a, *y = b;
	const bool nx = x->first_ns == LDB_SLOG_NO_TIME, ny = y->first_ns == LDB_SLOG_NO_TIME;
	if (nx != ny)
		return nx ? 1 : -1;
	if (!nx && x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->given < y->given ? -1 : x->given > y->given;
}

static struct ldb_slog *reader_new(const struct ldb_slog_opts *opts)
{
	struct ldb_slog *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	if (opts)
		r->opts = *opts;
	r->max_line = r->opts.max_line ? r->opts.max_line : MAX_LINE_DEFAULT;
	if (r->max_line > MAX_LINE_MAX)
		r->max_line = MAX_LINE_MAX;
	r->cap = r->max_line + CHUNK;
	r->buf = malloc(r->cap);
	r->fd = -1;
	r->st.first_ns = r->st.last_ns = LDB_SLOG_NO_TIME;
	if (!r->buf) {
		free(r);
		return NULL;
	}
	return r;
}

/* The files, peeked and ordered; both servers' logs together refused. */
static int add_files(struct ldb_slog *r, const char *const *paths, size_t npaths, char *err, size_t errlen)
{
	r->files = calloc(npaths ? npaths : 1, sizeof *r->files);
	if (!r->files)
		return snprintf(err, errlen, "out of memory"), -1;
	for (size_t i = 0; i < npaths; i++) {
		struct slog_file *f = &r->files[r->nfiles];
		f->given = i;
		f->path = strdup(paths[i]);
		if (!f->path)
			return snprintf(err, errlen, "out of memory"), -1;
		r->nfiles++;
		if (peek_file(f, &r->opts, r->buf, err, errlen))
			return -1;
		if (f->fmt && r->fmt && f->fmt != r->fmt)
			return snprintf(err, errlen, "%s: a%s log, but %s is a%s log: one server's logs at a time",
			                f->path, f->fmt == LDB_SLOG_FMT_389 ? " 389 DS access" : "n OpenLDAP stats",
			                r->files[0].path,
			                r->fmt == LDB_SLOG_FMT_389 ? " 389 DS access" : "n OpenLDAP stats"),
			       -1;
		if (f->fmt)
			r->fmt = f->fmt;
	}
	qsort(r->files, r->nfiles, sizeof *r->files, by_first_time);
	return 0;
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
	if (add_files(r, paths, npaths, err, errlen)) {
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
	int year, month;
	ref_time(&year, &month, time(NULL));
	r->mem = buf;
	r->memlen = len;
	r->name = name ? name : "-";
	r->open = true;
	pctx_init(&r->pc, &r->opts, year, month, LDB_SLOG_FMT_UNKNOWN);
	r->st.files = 1;
	return r;
}

/* The next file of the list.  @return 1, 0 (none left), -1 (err). */
static int open_next(struct ldb_slog *r)
{
	if (r->cur >= r->nfiles)
		return 0;
	struct slog_file *f = &r->files[r->cur++];
	if (open_src(f->path, &r->fd, &r->gz, r->err, sizeof r->err))
		return -1;
	r->name = f->path;
	r->open = true;
	r->eof = r->discarding = false;
	r->lineno = 0;
	r->start = r->end = 0;
	pctx_init(&r->pc, &r->opts, f->year, f->month, f->fmt);
	r->st.files++;
	return 1;
}

static void close_cur(struct ldb_slog *r)
{
	close_src(r->fd, r->gz);
	r->fd = -1;
	r->gz = NULL;
	r->mem = NULL;
	r->open = false;
}

/* More bytes after the buffered ones.  @return 0, or -1 (err). */
static int fill(struct ldb_slog *r)
{
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	const size_t room = r->cap - r->end;
	ssize_t n;
	if (r->mem) {
		n = (ssize_t)(r->memlen - r->mempos < room ? r->memlen - r->mempos : room);
		memcpy(r->buf + r->end, r->mem + r->mempos, (size_t)n);
		r->mempos += (size_t)n;
	} else {
		n = read_src(r->fd, r->gz, r->buf + r->end, room, r->name, r->err, sizeof r->err);
		if (n < 0)
			return -1;
	}
	r->end += (size_t)n;
	r->eof = n == 0;
	return 0;
}

/* The next line into [*p, *p + *n), or a skip reason for it (too long,
 * truncated).  @return 1, 0 at the end of the file, -1 (err). */
static int next_line(struct ldb_slog *r, const char **p, size_t *n, enum ldb_slog_skip *why)
{
	for (;;) {
		const size_t have = r->end - r->start;
		char *s = r->buf + r->start, *nl = memchr(s, '\n', have);
		*why = LDB_SLOG_SKIP_NONE;
		if (nl && r->discarding) { /* the rest of a line too long */
			r->st.bytes += (size_t)(nl - s) + 1;
			r->start += (size_t)(nl - s) + 1;
			r->discarding = false;
			continue;
		}
		if (nl) {
			*p = s;
			*n = (size_t)(nl - s);
			r->start += *n + 1;
			r->st.bytes += *n + 1;
			if (*n > 0 && s[*n - 1] == '\r')
				(*n)--;
			if (*n > r->max_line) /* a long line within the buffer */
				*n = r->max_line, *why = LDB_SLOG_SKIP_TOO_LONG;
			r->lineno++;
			return 1;
		}
		if (r->discarding) { /* still no newline: drop what came */
			r->st.bytes += have;
			r->start = r->end;
		} else if (have >= r->max_line) {
			r->st.bytes += have;
			r->start = r->end;
			r->discarding = true;
			*p = s, *n = r->max_line, *why = LDB_SLOG_SKIP_TOO_LONG;
			r->lineno++;
			return 1;
		}
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			*p = s, *n = r->end - r->start, *why = LDB_SLOG_SKIP_TRUNCATED;
			r->st.bytes += *n;
			r->start = r->end;
			r->lineno++;
			return 1;
		}
		if (fill(r))
			return -1;
	}
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
	const char *p;
	size_t n;
	enum ldb_slog_skip why;
	for (;;) {
		if (!r->open) {
			const int o = open_next(r);
			if (o <= 0)
				return o;
		}
		const int got = next_line(r, &p, &n, &why);
		if (got < 0)
			return -1;
		if (got == 0) {
			close_cur(r);
			continue;
		}
		ldb_slog_event_clear(ev);
		ev->file = r->name;
		ev->line = r->lineno;
		if (why != LDB_SLOG_SKIP_NONE) {
			ev->kind = LDB_SLOG_SKIP;
			ev->skip = why;
			ev->text = (struct ldb_slog_str){ .p = p, .n = n };
		} else {
			ldb_slog_parse(&r->pc, p, n, ev);
			if (r->pc.fmt)
				r->fmt = r->pc.fmt;
		}
		count(&r->st, ev);
		return 1;
	}
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
	if (r->open)
		close_cur(r);
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i].path);
	free(r->files);
	free(r->buf);
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
