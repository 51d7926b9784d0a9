/* The join's op-log read (report/join_int.h).
 *
 * The records are read twice from the file: a count per connection, then
 * each record straight to its place (sorted by connection, then by order: a
 * connection's records come in order, one I/O thread's).  A pipe, or
 * connection numbers too sparse for counters: read in a row, then sorted.
 * A short read is not the end of the file: only feof says so; a read error
 * is reported as one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/join_int.h"
#include "util/gsort.h"
#include "util/util.h"

static int rec_cmp(const void *a, const void *b)
{
	const struct ldb_oprec *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t rec_conn(const void *a)
{
	return ((const struct ldb_oprec *)a)->conn;
}

#define CHUNK_RECS 4096 /* records per read: 128 KiB */

/* What a step of the reading came to (beside 0, and 1: connection numbers
 * too sparse for counters). */
enum { READ_NOMEM = -1, READ_ERROR = -2, READ_CHANGED = -3 };

/* Pass 1: the records per connection into cnt[c + 1] (*ncnt counters).
 * @return the records seen (at most n), with *rc 1 when the connection
 * numbers are too sparse for counters, READ_NOMEM, READ_ERROR. */
static size_t count_records(FILE *f, size_t n, struct ldb_oprec *chunk, size_t **cnt, size_t *ncnt, int *rc)
{
	size_t got, seen = 0;
	while (*rc == 0 && seen < n && (got = fread(chunk, sizeof *chunk, CHUNK_RECS, f)) > 0) {
		for (size_t i = 0; i < got && *rc == 0 && seen < n; i++, seen++) {
			size_t c = chunk[i].conn, m = *ncnt * 2 > c + 2 ? *ncnt * 2 : c + 2;
			if (c + 2 > *ncnt && c > 4 * n + 4096) {
				*rc = 1;
			} else if (c + 2 > *ncnt) {
				size_t *bigger = realloc(*cnt, m * sizeof *bigger);
				if (bigger == NULL) {
					*rc = READ_NOMEM;
					break;
				}
				memset(bigger + *ncnt, 0, (m - *ncnt) * sizeof *bigger);
				*cnt = bigger;
				*ncnt = m;
			}
			if (*rc == 0)
				(*cnt)[c + 1]++;
		}
	}
	if (*rc == 0 && ferror(f))
		*rc = READ_ERROR;
	return seen;
}

/* Pass 2: each of the seen records to its place, at[c]: the next place of
 * connection c, from its start; end[c]: its end.  @return 0, READ_ERROR,
 * or READ_CHANGED (the file changed since pass 1). */
static int scatter_records(struct ldb_jstate *st, FILE *f, size_t seen, struct ldb_oprec *chunk, size_t *at,
                           const size_t *end, size_t ngroups)
{
	for (size_t done = 0, got; done < seen; done += got) {
		got = fread(chunk, sizeof *chunk, seen - done < CHUNK_RECS ? seen - done : CHUNK_RECS, f);
		if (got == 0) /* a read error, or the file is shorter than in pass 1 */
			return ferror(f) ? READ_ERROR : READ_CHANGED;
		for (size_t i = 0; i < got; i++) {
			size_t c = chunk[i].conn;
			if (c >= ngroups || at[c] >= end[c])
				return READ_CHANGED;
			st->rec[at[c]++] = chunk[i];
		}
	}
	return 0;
}

/* A regular file's records (n of them after the header, at off): counted
 * per connection, then read again each into its place, in order within
 * its connection.  @return 0; 1 when the connection numbers are too sparse
 * for counters (the caller reads the file in a row and sorts); READ_NOMEM,
 * READ_ERROR (errno), READ_CHANGED (the file changed between the passes). */
static int place_records(struct ldb_jstate *st, FILE *f, long off, size_t n)
{
	struct ldb_oprec *chunk = malloc(CHUNK_RECS * sizeof *chunk);
	size_t *at = NULL, nat = 0;
	int rc = chunk == NULL ? READ_NOMEM : 0;
	size_t seen = rc == 0 ? count_records(f, n, chunk, &at, &nat, &rc) : 0;
	if (rc == 0 && nat < 2) { /* no record */
		free(chunk);
		free(at);
		return 0;
	}
	for (size_t c = 1; rc == 0 && c < nat; c++)
		at[c] += at[c - 1];
	size_t *end = rc == 0 ? malloc(nat * sizeof *end) : NULL;
	st->rec = end != NULL ? malloc(seen * sizeof *st->rec) : NULL;
	ldb_hugepages(st->rec, seen * sizeof *st->rec);
	if (rc == 0 && st->rec == NULL)
		rc = READ_NOMEM;
	if (rc == 0 && fseek(f, off, SEEK_SET) != 0)
		rc = READ_ERROR;
	if (rc == 0) {
		memcpy(end, at + 1, (nat - 1) * sizeof *end);
		rc = scatter_records(st, f, seen, chunk, at, end, nat - 1);
	}
	if (rc == 0) {
		memmove(at + 1, at, (nat - 1) * sizeof *at); /* the starts again */
		at[0] = 0;
		ldb_gsort_groups(st->rec, sizeof *st->rec, at, nat - 1, rec_cmp);
		st->n = seen;
	}
	free(chunk);
	free(at);
	free(end);
	return rc;
}

/* The records of a file that is not a regular one (a pipe), or whose
 * connection numbers are sparse: read in a row, then sorted. */
static int read_in_a_row(struct ldb_jstate *st, FILE *f)
{
	size_t cap_n = st->head.records > 0 ? (size_t)st->head.records : 1024;
	st->n = 0;
	st->rec = malloc(cap_n * sizeof *st->rec);
	for (;;) {
		if (st->rec == NULL)
			return READ_NOMEM;
		st->n += fread(st->rec + st->n, sizeof *st->rec, cap_n - st->n, f);
		if (ferror(f))
			return READ_ERROR;
		if (feof(f)) /* a short read is not the end: only the end is */
			break;
		if (st->n < cap_n)
			continue;
		cap_n *= 2;
		struct ldb_oprec *bigger = realloc(st->rec, cap_n * sizeof *st->rec);
		if (bigger == NULL)
			free(st->rec);
		st->rec = bigger;
	}
	uint32_t top = 0;
	for (size_t i = 0; i < st->n; i++)
		top = st->rec[i].conn > top ? st->rec[i].conn : top;
	ldb_gsort(st->rec, st->n, sizeof *st->rec, (size_t)top + 1, rec_conn, rec_cmp);
	return 0;
}

/* Before version 3 the kinds above the login's were numbered otherwise
 * (two flow slots, the login's group step after the first). */
static bool old_flow_rows(const struct ldb_jstate *st)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].kind > LDB_OP_LOGIN)
			return true;
	return false;
}

int ldb_join_read_oplog(struct ldb_jstate *st, const char *path, char *err, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct ldb_oplog_head *h = &st->head;
	memset(h, 0, sizeof *h);
	bool ok = fread(h, LDB_OPLOG_HEAD_V1, 1, f) == 1 && memcmp(h->magic, LDB_OPLOG_MAGIC, 8) == 0 &&
	          h->version >= 1 && h->version <= LDB_OPLOG_VERSION && h->recsize == sizeof(struct ldb_oprec);
	/* version 1 has no sample windows: no per-sample figures */
	if (ok && h->version >= 2)
		ok = fread((char *)h + LDB_OPLOG_HEAD_V1, sizeof *h - LDB_OPLOG_HEAD_V1, 1, f) == 1;
	if (!ok) {
		int e = errno;
		bool failed = ferror(f);
		fclose(f);
		if (failed)
			snprintf(err, cap, "%s: read error: %s", path, strerror(e));
		else
			snprintf(err, cap, "%s: not an ldbench op-log (--op-log) of this version", path);
		return -1;
	}
	struct stat sb = { 0 };
	long off = ftell(f);
	int rc = 1;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && off > 0 && sb.st_size >= off)
		rc = place_records(st, f, off, (size_t)(sb.st_size - off) / sizeof *st->rec);
	if (rc == 1) {
		free(st->rec);
		st->rec = NULL;
		rc = fseek(f, off, SEEK_SET) == 0 || !S_ISREG(sb.st_mode) ? read_in_a_row(st, f) : READ_ERROR;
	}
	int e = errno;
	fclose(f);
	if (rc == READ_ERROR)
		snprintf(err, cap, "%s: read error: %s", path, strerror(e));
	else if (rc != 0)
		snprintf(err, cap, "%s: %s", path,
		         rc == READ_CHANGED ? "changed while it was read" : "out of memory for its records");
	if (rc == 0 && h->version < 3 && old_flow_rows(st)) {
		snprintf(err, cap,
		         "%s: an op-log of an older ldbench (version %u) with login or flow rows, numbered as that "
		         "version did: join it with that version",
		         path, h->version);
		rc = -1;
	}
	return rc != 0 ? -1 : 0;
}

int ldb_join_index(struct ldb_jstate *st)
{
	st->max_conn = st->n > 0 ? st->rec[st->n - 1].conn : 0;
	st->conn = calloc((size_t)st->max_conn + 2, sizeof *st->conn);
	st->res = calloc(st->n > 0 ? st->n : 1, sizeof *st->res);
	ldb_hugepages(st->res, st->n * sizeof *st->res);
	size_t slots = 16;
	while (slots < 2 * ((size_t)st->max_conn + 1))
		slots *= 2;
	st->map.key = malloc(slots * sizeof *st->map.key);
	st->map.val = malloc(slots * sizeof *st->map.val);
	st->map.mask = slots - 1;
	if (st->conn == NULL || st->res == NULL || st->map.key == NULL || st->map.val == NULL)
		return -1;
	size_t i = 0;
	for (uint32_t c = 0; c <= st->max_conn + 1; c++) {
		struct ldb_jconn *k = &st->conn[c];
		while (i < st->n && st->rec[i].conn < c)
			i++;
		k->first = k->tab = i;
		while (k->tab < st->n && st->rec[k->tab].conn == c && st->rec[k->tab].order < st->head.tag_order)
			k->tab++;
		k->in_order = true;
		for (size_t r = k->tab + 1; r < st->n && st->rec[r].conn == c; r++)
			k->in_order = k->in_order && st->rec[r].order > st->rec[r - 1].order;
	}
	return 0;
}
