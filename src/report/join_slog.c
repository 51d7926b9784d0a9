/* The join's server log read (report/join_int.h).
 *
 * While the log is read, a tagged connection's results double as a table of
 * its requests and results by op=: the line of op= base + k goes to the
 * connection's k-th record from the tag on (base: the tag's op= plus the
 * requests between the tag and its first record), what the log said of
 * that op= (its request's type, its first RESULT); a line outside the table
 * goes to a short list (op= numbers that skip, a log that is not the
 * run's).  Nothing per log line is kept but what the tagged connections'
 * lines say, and that in the records' own results. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/join_int.h"

static void map_clear(struct ldb_jmap *m)
{
	for (size_t i = 0; i <= m->mask; i++)
		m->key[i] = -1;
}

static size_t map_slot(const struct ldb_jmap *m, int64_t k)
{
	size_t i = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ULL >> 20) & m->mask;
	while (m->key[i] != -1 && m->key[i] != k)
		i = (i + 1) & m->mask;
	return i;
}

static uint32_t map_get(const struct ldb_jmap *m, int64_t k)
{
	size_t i = map_slot(m, k);
	return m->key[i] == k ? m->val[i] : 0;
}

/* A search's filter that is a tag: "(description=ldbench-RUNID-0000000042)".
 * @return its connection number for this run, 0 for none, UINT32_MAX for
 * another run's tag. */
static uint32_t tag_of(const struct ldb_jstate *st, const struct ldb_slog_str *f)
{
	static const char pre[] = LDB_TAG_PREFIX;
	const char *p = f->p != NULL ? memmem(f->p, f->n, pre, sizeof pre - 1) : NULL;
	if (p == NULL)
		return 0;
	size_t left = f->n - (size_t)(p - f->p);
	if (left < st->tag_head_len + LDB_TAG_DIGITS || memcmp(p, st->tag_head, st->tag_head_len) != 0)
		return UINT32_MAX;
	uint64_t v = 0;
	for (int k = 0; k < LDB_TAG_DIGITS; k++) {
		char c = p[st->tag_head_len + (size_t)k];
		if (c < '0' || c > '9')
			return UINT32_MAX;
		v = v * 10 + (uint64_t)(c - '0');
	}
	return v > 0 && v <= UINT32_MAX - 1 ? (uint32_t)v : UINT32_MAX;
}

/* Where the line of op= on connection c goes: its slot in the table, or
 * NULL (the list). */
static jres *slot_of(const struct ldb_jstate *st, uint32_t c, int64_t op)
{
	const struct ldb_jconn *k = &st->conn[c];
	int64_t at = op - k->base;
	return at >= 0 && (uint64_t)at < st->conn[c + 1].first - k->tab ? &st->res[k->tab + (size_t)at] : NULL;
}

/* A line of connection c for the list.  @return 0, or -1 (memory). */
static int keep_over(struct ldb_jstate *st, uint32_t c, int64_t op, const jres *x)
{
	if (st->nover == st->capover) {
		size_t m = st->capover ? 2 * st->capover : 256;
		struct ldb_jover *bigger = realloc(st->over, m * sizeof *bigger);
		if (bigger == NULL)
			return -1;
		st->over = bigger;
		st->capover = m;
	}
	st->over[st->nover++] = (struct ldb_jover){ c, (uint32_t)op, st->seq, *x };
	return 0;
}

static int keep_request(struct ldb_jstate *st, uint32_t c, int64_t op, enum ldb_slog_optype type)
{
	if (op < 0 || op > UINT32_MAX)
		return 0;
	st->seq++;
	jres *t = slot_of(st, c, op);
	if (t == NULL)
		return keep_over(st, c, op, &(jres){ .type = (uint8_t)type });
	if (t->type == LDB_SLOG_OP_NONE) /* the first request line of its op= */
		t->type = (uint8_t)type;
	return 0;
}

static int keep_result(struct ldb_jstate *st, const struct ldb_slog_event *ev, uint32_t c)
{
	if (ev->op < 0 || ev->op > UINT32_MAX || ev->etime_ns < 0)
		return 0;
	st->seq++;
	jres x = { .joined = true, .etime = ev->etime_ns, .int_etime = ev->etime_res_ns >= 1000000000 };
	x.queue = ev->wtime_ns >= 0 ? ev->wtime_ns : ev->qtime_ns;
	x.proc = ev->optime_ns >= 0 ? ev->optime_ns : ev->qtime_ns >= 0 ? ev->etime_ns - ev->qtime_ns : -1;
	if (x.proc < 0 && ev->optime_ns < 0 && ev->qtime_ns >= 0)
		x.proc = 0;
	x.notes = (uint8_t)ev->notes;
	jres *t = slot_of(st, c, ev->op);
	if (t == NULL)
		return keep_over(st, c, ev->op, &x);
	if (!t->joined) { /* the first RESULT line of its op= */
		x.type = t->type;
		*t = x;
	}
	return 0;
}

int ldb_join_take_event(struct ldb_jstate *st, struct ldb_join *j, const struct ldb_slog_event *ev)
{
	uint32_t c;
	switch (ev->kind) {
	case LDB_SLOG_REQUEST:
		if (ev->type != LDB_SLOG_OP_SEARCH || ev->op < 0 || ev->scope != 0 ||
		    (c = tag_of(st, &ev->filter)) == 0) {
			c = map_get(&st->map, ev->conn);
			return c != 0 ? keep_request(st, c, ev->op, ev->type) : 0;
		}
		if (c == UINT32_MAX) {
			j->other_tags++;
		} else if (c > 0 && c <= st->max_conn && st->conn[c].base < 0) {
			size_t i = map_slot(&st->map, ev->conn);
			struct ldb_jconn *k = &st->conn[c];
			st->map.key[i] = ev->conn;
			st->map.val[i] = c;
			/* slot 0: the first record from the tag on */
			k->base = ev->op + (k->tab < st->conn[c + 1].first
			                            ? (int64_t)st->rec[k->tab].order - (int64_t)st->head.tag_order
			                            : 0);
			return keep_request(st, c, ev->op, ev->type);
		}
		return 0;
	case LDB_SLOG_RESULT: c = map_get(&st->map, ev->conn); return c != 0 ? keep_result(st, ev, c) : 0;
	default: return 0;
	}
}

/* Forget what an earlier pass said. */
static void reset(struct ldb_jstate *st, struct ldb_join *j)
{
	memset(st->res, 0, (st->n > 0 ? st->n : 1) * sizeof *st->res);
	map_clear(&st->map);
	for (uint32_t c = 0; c <= st->max_conn + 1; c++)
		st->conn[c].base = -1;
	j->other_tags = 0;
	st->nover = 0;
	st->seq = 0;
}

/* The logs as files of the passes: plain ones (regular, no gzip magic) may
 * be resumed.  @return 0, or -1 (memory). */
static int list_files(struct ldb_jstate *st, const char *const *logs, int nlogs)
{
	st->files = calloc((size_t)(nlogs > 0 ? nlogs : 1), sizeof *st->files);
	if (st->files == NULL)
		return -1;
	for (int i = 0; i < nlogs; i++) {
		struct ldb_jlogfile *f = &st->files[i];
		unsigned char magic[2] = { 0, 0 };
		struct stat sb;
		int fd = open(logs[i], O_RDONLY | O_CLOEXEC);
		f->path = logs[i];
		f->plain = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && pread(fd, magic, 2, 0) >= 0 &&
		           !(magic[0] == 0x1f && magic[1] == 0x8b);
		if (fd >= 0)
			close(fd);
	}
	st->nfiles = (size_t)nlogs;
	return 0;
}

/* The file an event came from: its place in st->files, moved to the next
 * place in the order read (n: the files seen so far). */
static struct ldb_jlogfile *file_of(struct ldb_jstate *st, const char *name, size_t *n)
{
	for (size_t i = *n; i < st->nfiles; i++)
		if (strcmp(st->files[i].path, name) == 0) {
			struct ldb_jlogfile f = st->files[i];
			memmove(&st->files[*n + 1], &st->files[*n], (i - *n) * sizeof f);
			st->files[*n] = f;
			return &st->files[(*n)++];
		}
	return NULL;
}

/* The events of one reader into the tables, each file's bytes read into
 * its off (a cut last line into its cut).  @return 1 at the end, -1 (the
 * reader's error), -2 (memory). */
static int take_all(struct ldb_jstate *st, struct ldb_join *j, struct ldb_slog *r, size_t *seen)
{
	const struct ldb_slog_stats *s = ldb_slog_stats(r);
	struct ldb_jlogfile *f = NULL;
	uint64_t start = 0, before = 0;
	struct ldb_slog_event ev;
	int rc;
	while ((rc = ldb_slog_next(r, &ev)) == 1) {
		if (f == NULL || strcmp(ev.file, f->path) != 0) {
			if (f != NULL)
				f->off += before - start;
			start = before;
			f = file_of(st, ev.file, seen);
		}
		before = s->bytes;
		if (f != NULL && ev.kind == LDB_SLOG_SKIP && ev.skip == LDB_SLOG_SKIP_TRUNCATED)
			f->cut = ev.text.n;
		if (ldb_join_take_event(st, j, &ev) != 0)
			return -2;
	}
	if (f != NULL)
		f->off += before - start;
	return rc == 0 ? 1 : -1;
}

/* The figures of the passes' lines into j. */
static void count_lines(struct ldb_jstate *st, struct ldb_join *j, const struct ldb_slog_stats *s)
{
	st->lines += s->lines;
	for (int k = LDB_SLOG_SKIP_UNKNOWN_OP; k < LDB_SLOG_NSKIPS; k++)
		st->skipped += s->skipped[k];
	j->lines = st->lines;
	j->skipped = st->skipped;
}

/* Keep the tables for the next pass (st->tab), then align them. */
static int align(struct ldb_jstate *st)
{
	if (st->tab != NULL)
		memcpy(st->tab, st->res, (st->n > 0 ? st->n : 1) * sizeof *st->res);
	return ldb_join_align(st);
}

int ldb_join_read_logs(struct ldb_jstate *st, struct ldb_join *j, const char *const *logs, int nlogs, char *err,
                       size_t cap)
{
	struct ldb_slog *r = ldb_slog_open(logs, (size_t)nlogs, NULL, err, cap);
	if (r == NULL)
		return -1;
	reset(st, j);
	size_t seen = 0;
	int rc = list_files(st, logs, nlogs) != 0 ? -2 : take_all(st, j, r, &seen);
	for (size_t i = 0; i < st->nfiles; i++) /* a next pass starts at the cut line */
		st->files[i].off -= st->files[i].cut;
	if (rc == 1 && align(st) != 0)
		rc = -2;
	if (rc == -1)
		snprintf(err, cap, "%s", ldb_slog_error(r));
	else if (rc == -2)
		snprintf(err, cap, "out of memory for the log's results");
	snprintf(j->server, sizeof j->server, "%s", ldb_slog_format_name(ldb_slog_format(r)));
	count_lines(st, j, ldb_slog_stats(r));
	ldb_slog_close(r);
	return rc < 0 ? -1 : 0;
}

#define RESUME_CHUNK (1u << 20) /* bytes read at a time */

/* One file's new whole lines, from off, into the tables (a line without
 * its end yet waits for the next pass, in f->cut).  @return 0, -1 with one
 * line in err. */
static int resume_file(struct ldb_jstate *st, struct ldb_join *j, struct ldb_jlogfile *f, char *buf, char *err,
                       size_t cap)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return snprintf(err, cap, "%s: cannot open: %s", f->path, strerror(errno)), -1;
	int rc = 0;
	f->cut = 0;
	for (;;) {
		ssize_t got = pread(fd, buf, RESUME_CHUNK, (off_t)f->off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -1;
			snprintf(err, cap, "%s: read error: %s", f->path, strerror(errno));
			break;
		}
		size_t n = (size_t)got;
		const char *nl = n > 0 ? memrchr(buf, '\n', n) : NULL;
		size_t whole = nl != NULL          ? (size_t)(nl - buf) + 1
		               : n == RESUME_CHUNK ? n
		                                   : 0; /* a line too long: on */
		f->cut = n - whole;                     /* the bytes after the last newline: a line being written */
		if (whole == 0)
			break;
		struct ldb_slog *r = ldb_slog_open_mem(buf, whole, f->path, NULL);
		size_t seen = st->nfiles;
		if (r == NULL || take_all(st, j, r, &seen) == -2)
			rc = -2;
		if (r != NULL) {
			count_lines(st, j, ldb_slog_stats(r));
			ldb_slog_close(r);
		}
		f->off += whole;
		if (rc != 0 || (size_t)got < RESUME_CHUNK)
			break;
	}
	close(fd);
	if (rc == -2)
		snprintf(err, cap, "out of memory for the log's results");
	return rc == 0 ? 0 : -1;
}

int ldb_join_slog_resume(struct ldb_jstate *st, struct ldb_join *j, char *err, size_t cap)
{
	char *buf = malloc(RESUME_CHUNK);
	if (buf == NULL)
		return snprintf(err, cap, "out of memory for the log's results"), -1;
	memcpy(st->res, st->tab, (st->n > 0 ? st->n : 1) * sizeof *st->res); /* the tables again */
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < st->nfiles; i++) {
		struct ldb_jlogfile *f = &st->files[i];
		if (!f->plain)
			continue;
		if (f->cut > 0) { /* the last pass read it as a cut line: it is read again whole */
			st->lines--;
			st->skipped--;
		}
		rc = resume_file(st, j, f, buf, err, cap);
		if (rc == 0 && f->cut > 0) { /* counted as the pass from byte 0 would */
			st->lines++;
			st->skipped++;
		}
	}
	free(buf);
	j->lines = st->lines;
	j->skipped = st->skipped;
	if (rc == 0 && align(st) != 0)
		return snprintf(err, cap, "out of memory for the log's results"), -1;
	return rc;
}

void ldb_join_slog_free(struct ldb_jstate *st)
{
	free(st->tab);
	free(st->files);
	st->tab = NULL;
	st->files = NULL;
}
