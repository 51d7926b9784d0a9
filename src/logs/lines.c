/* The line source of logs/' readers (logs/lines_int.h): the files (probed,
 * ordered, plain or gzip), the read buffer, the lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "logs/lines_int.h"

#define CHUNK (256 * 1024) /* one read */
#define MIN_LINE 64

struct ldb_lines {
	struct ldb_lines_file *files;
	size_t nfiles, cur; /* cur: the next file to open */
	struct ldb_lines_file memf;
	size_t max_line;
	/* the source being read */
	bool open, eof, discarding, first;
	int fd;
	gzFile gz;
	const char *mem;
	size_t memlen, mempos;
	const struct ldb_lines_file *f;
	uint64_t lineno, bytes, nopened;
	char *buf;
	size_t cap, start, end;
	char err[512];
};

static void ref_time(struct ldb_lines_file *f, time_t t)
{
	struct tm tm;
	if (!localtime_r(&t, &tm)) {
		f->year = 1970, f->month = 0;
		return;
	}
	f->year = tm.tm_year + 1900;
	f->month = tm.tm_mon + 1;
}

/* Open path: a descriptor, or a gzFile when it starts with the gzip magic.
 * @return 0, or -1 with err set. */
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

/* zlib's message without the "<fd:3>: " it puts for gzdopen's files. */
static const char *gz_msg(gzFile gz)
{
	int zerr = Z_OK;
	const char *msg = gzerror(gz, &zerr);
	if (!msg || !*msg)
		return "read error";
	const char *sep = msg[0] == '<' ? strstr(msg, ">: ") : NULL;
	return sep ? sep + 3 : msg;
}

/* Up to want bytes into dst.  @return the bytes, 0 at the end, -1 (err). */
static ssize_t read_src(int fd, gzFile gz, char *dst, size_t want, const char *path, char *err, size_t errlen)
{
	if (gz) {
		const int n = gzread(gz, dst, (unsigned)want);
		int zerr = Z_OK;
		if (n <= 0)
			gzerror(gz, &zerr);
		if (n < 0 || (n == 0 && zerr != Z_OK && zerr != Z_STREAM_END)) {
			snprintf(err, errlen, "%s: gzip: %s", path, gz_msg(gz));
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

/* files[i]'s first bytes into buf (LDB_LINES_PEEK at most), its
 * modification time, the probe.  @return 0, or -1 with err set. */
static int peek_file(struct ldb_lines_file *files, size_t i, char *buf, ldb_lines_probe probe, void *ctx, char *err,
                     size_t errlen)
{
	struct ldb_lines_file *f = &files[i];
	int fd;
	gzFile gz;
	struct stat sb;
	if (open_src(f->path, &fd, &gz, err, errlen))
		return -1;
	ref_time(f, stat(f->path, &sb) == 0 ? sb.st_mtime : time(NULL));
	size_t len = 0;
	ssize_t n = 1;
	while (len < LDB_LINES_PEEK &&
	       (n = read_src(fd, gz, buf + len, LDB_LINES_PEEK - len, f->path, err, errlen)) > 0)
		len += (size_t)n;
	close_src(fd, gz);
	if (n < 0 && len == 0)
		return -1;
	err[0] = '\0'; /* a read error after some lines: said when the line source reaches it */
	f->first_ns = LDB_LINES_NO_TIME;
	f->fmt = 0;
	return probe(ctx, files, i, buf, len, err, errlen);
}

static int by_first_time(const void *a, const void *b)
{
	const struct ldb_lines_file *x = a, *y = b;
	const bool nx = x->first_ns == LDB_LINES_NO_TIME, ny = y->first_ns == LDB_LINES_NO_TIME;
	if (nx != ny)
		return nx ? 1 : -1;
	if (!nx && x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->given < y->given ? -1 : x->given > y->given;
}

static struct ldb_lines *source_new(size_t max_line)
{
	struct ldb_lines *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->max_line = max_line < MIN_LINE ? MIN_LINE : max_line;
	s->cap = s->max_line + CHUNK;
	s->buf = malloc(s->cap);
	s->fd = -1;
	if (!s->buf) {
		free(s);
		return NULL;
	}
	return s;
}

struct ldb_lines *ldb_lines_open(const char *const *paths, size_t n, size_t max_line, ldb_lines_probe probe, void *ctx,
                                 char *err, size_t errlen)
{
	struct ldb_lines *s = source_new(max_line);
	if (s)
		s->files = calloc(n ? n : 1, sizeof *s->files);
	if (!s || !s->files) {
		snprintf(err, errlen, "out of memory");
		ldb_lines_close(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct ldb_lines_file *f = &s->files[s->nfiles];
		f->given = i;
		f->path = strdup(paths[i]);
		if (!f->path) {
			snprintf(err, errlen, "out of memory");
			ldb_lines_close(s);
			return NULL;
		}
		s->nfiles++;
		if (peek_file(s->files, i, s->buf, probe, ctx, err, errlen)) {
			ldb_lines_close(s);
			return NULL;
		}
	}
	qsort(s->files, s->nfiles, sizeof *s->files, by_first_time);
	return s;
}

struct ldb_lines *ldb_lines_open_mem(const char *buf, size_t len, const char *name, int fmt, size_t max_line)
{
	struct ldb_lines *s = source_new(max_line);
	if (!s)
		return NULL;
	s->memf.path = (char *)(name ? name : "-"); /* never freed: memf is no file of the list */
	s->memf.first_ns = LDB_LINES_NO_TIME;
	s->memf.fmt = fmt;
	ref_time(&s->memf, time(NULL));
	s->mem = buf;
	s->memlen = len;
	s->f = &s->memf;
	s->open = s->first = true;
	s->nopened = 1;
	return s;
}

/* The next file of the list.  @return 1, 0 (none left), -1 (err). */
static int open_next(struct ldb_lines *s)
{
	if (s->mem || s->cur >= s->nfiles)
		return 0;
	const struct ldb_lines_file *f = &s->files[s->cur++];
	if (open_src(f->path, &s->fd, &s->gz, s->err, sizeof s->err))
		return -1;
	s->f = f;
	s->open = s->first = true;
	s->eof = s->discarding = false;
	s->lineno = 0;
	s->start = s->end = 0;
	s->nopened++;
	return 1;
}

static void close_cur(struct ldb_lines *s)
{
	if (s->open && !s->mem)
		close_src(s->fd, s->gz);
	s->fd = -1;
	s->gz = NULL;
	s->open = false;
}

/* More bytes after the buffered ones.  @return 0, or -1 (err). */
static int fill(struct ldb_lines *s)
{
	if (s->start > 0) {
		memmove(s->buf, s->buf + s->start, s->end - s->start);
		s->end -= s->start;
		s->start = 0;
	}
	const size_t room = s->cap - s->end;
	ssize_t n;
	if (s->mem) {
		n = (ssize_t)(s->memlen - s->mempos < room ? s->memlen - s->mempos : room);
		memcpy(s->buf + s->end, s->mem + s->mempos, (size_t)n);
		s->mempos += (size_t)n;
	} else {
		n = read_src(s->fd, s->gz, s->buf + s->end, room, s->f->path, s->err, sizeof s->err);
		if (n < 0)
			return -1;
	}
	s->end += (size_t)n;
	s->eof = n == 0;
	return 0;
}

/* A line of n bytes at s into *l, taken off the buffer with skip bytes. */
static int yield(struct ldb_lines *s, struct ldb_line *l, char *p, size_t n, size_t skip, enum ldb_line_kind kind)
{
	s->start += skip;
	s->bytes += skip;
	if (kind == LDB_LINE_WHOLE && n > 0 && p[n - 1] == '\r')
		n--;
	if (n > s->max_line) /* a long line within the buffer */
		n = s->max_line, kind = LDB_LINE_TOO_LONG;
	*l = (struct ldb_line){ .p = p, .n = n, .kind = kind, .f = s->f, .no = ++s->lineno, .first = s->first };
	s->first = false;
	return 1;
}

/* The next line of the file being read.  @return 1, 0 at its end, -1. */
static int next_line(struct ldb_lines *s, struct ldb_line *l)
{
	for (;;) {
		const size_t have = s->end - s->start;
		char *p = s->buf + s->start, *nl = memchr(p, '\n', have);
		if (nl && s->discarding) { /* the rest of a line too long */
			s->start += (size_t)(nl - p) + 1;
			s->bytes += (size_t)(nl - p) + 1;
			s->discarding = false;
			continue;
		}
		if (nl)
			return yield(s, l, p, (size_t)(nl - p), (size_t)(nl - p) + 1, LDB_LINE_WHOLE);
		if (s->discarding) { /* still no newline: drop what came */
			s->bytes += have;
			s->start = s->end;
		} else if (have >= s->max_line) {
			s->discarding = true;
			return yield(s, l, p, s->max_line, have, LDB_LINE_TOO_LONG);
		}
		if (s->eof)
			return s->start == s->end ? 0 : yield(s, l, p, have, have, LDB_LINE_TRUNCATED);
		if (fill(s))
			return -1;
	}
}

int ldb_lines_next(struct ldb_lines *s, struct ldb_line *l)
{
	for (;;) {
		if (!s->open) {
			const int o = open_next(s);
			if (o <= 0)
				return o;
		}
		const int got = next_line(s, l);
		if (got != 0)
			return got;
		close_cur(s);
		if (s->mem)
			s->mem = NULL, s->memlen = 0; /* a buffer is read once */
	}
}

uint64_t ldb_lines_bytes(const struct ldb_lines *s)
{
	return s->bytes;
}

uint64_t ldb_lines_files(const struct ldb_lines *s)
{
	return s->nopened;
}

const char *ldb_lines_error(const struct ldb_lines *s)
{
	return s->err;
}

void ldb_lines_close(struct ldb_lines *s)
{
	if (!s)
		return;
	close_cur(s);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->files);
	free(s->buf);
	free(s);
}
