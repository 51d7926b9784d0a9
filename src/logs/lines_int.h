/* Private to logs/: the one line source of its readers (logs/slog's access
 * logs, logs/audit's audit logs).
 *
 * Files: a set (a rotated one: access, access.20261202-055211.gz, ...), each
 * plain or gzip'd (by the gzip magic, whatever its name), probed at open from
 * its first LDB_LINES_PEEK bytes by the reader's callback (its format and
 * first timestamp), then ordered by that timestamp (a file without one goes
 * last, in the order given) and read one after the other; one file open at a
 * time.  Or a buffer in memory (the fuzz targets').
 *
 * Lines: without their '\n' and a '\r' before it (CRLF).  A line longer than
 * max_line is yielded once, cut at max_line, as LDB_LINE_TOO_LONG (the rest
 * of it read and dropped); a file's last line without its newline as
 * LDB_LINE_TRUNCATED (the server was writing it).  Memory: one buffer of
 * max_line + 256 KiB, whatever the files' sizes; no allocation per line.  A
 * line's bytes stay valid until the next call.
 *
 * Errors name the file: "PATH: reason" (cannot open, a read error, a cut
 * or corrupt gzip stream: "PATH: gzip: unexpected end of file").
 */
#ifndef LDBENCH_LOGS_LINES_INT_H
#define LDBENCH_LOGS_LINES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDB_LINES_PEEK (64 * 1024) /* what a probe sees of a file */
#define LDB_LINES_NO_TIME INT64_MIN

/* A file of the set. */
struct ldb_lines_file {
	char *path;
	int64_t first_ns; /* its first timestamp (the probe's), LDB_LINES_NO_TIME */
	int fmt;          /* the reader's format (the probe's), 0 unknown */
	int year, month;  /* of its modification time (month 1..12) */
	size_t given;     /* its place in the list given */
};

enum ldb_line_kind {
	LDB_LINE_WHOLE = 0,
	LDB_LINE_TOO_LONG, /* cut at max_line; the rest was dropped */
	LDB_LINE_TRUNCATED /* the file's last line, without its newline */
};

struct ldb_line {
	const char *p; /* not NUL terminated */
	size_t n;
	enum ldb_line_kind kind;
	const struct ldb_lines_file *f; /* its file (a buffer's: path = its name) */
	uint64_t no;                    /* its number in its file, from 1 */
	bool first;                     /* the first line of its file */
};

/* What a reader tells of files[i] from its first len bytes: its fmt and
 * first_ns (the earlier files probed already, for checks across them).
 * @return 0, or -1 with one line in err. */
typedef int (*ldb_lines_probe)(void *ctx, struct ldb_lines_file *files, size_t i, const char *buf, size_t len,
                               char *err, size_t errlen);

struct ldb_lines;

/** The files paths[0..n) probed and ordered.  max_line: the longest line
 *  (at least 64 bytes).  @return the source, or NULL with one line in err. */
struct ldb_lines *ldb_lines_open(const char *const *paths, size_t n, size_t max_line, ldb_lines_probe probe, void *ctx,
                                 char *err, size_t errlen);

/** A buffer (not copied: it must outlive the source), its lines' file named
 *  name, of format fmt. */
struct ldb_lines *ldb_lines_open_mem(const char *buf, size_t len, const char *name, int fmt, size_t max_line);

/** The next line into *l.  @return 1, 0 after the last file's, -1 on a read
 *  error (ldb_lines_error; the source cannot go on). */
int ldb_lines_next(struct ldb_lines *s, struct ldb_line *l);

/** Bytes read (uncompressed, newlines and dropped parts too), files opened. */
uint64_t ldb_lines_bytes(const struct ldb_lines *s);
uint64_t ldb_lines_files(const struct ldb_lines *s);

/** The last error ("PATH: reason"), "" if none. */
const char *ldb_lines_error(const struct ldb_lines *s);

void ldb_lines_close(struct ldb_lines *s);

#endif
