/* The join of the op-log with the server's access log: see join.h.
 *
 * Memory and passes.  The op-log's records are read twice from the file: a
 * count per connection, then each record straight to its place (sorted by
 * connection, then by order: a connection's records come in order, one I/O
 * thread's).  Each record has a result (struct ldb_join_res, 32 bytes).
 * While the log is read, a tagged connection's results double as a table
 * of its requests and results by op=: the line of op= base + k goes to the
 * connection's k-th record from the tag on (base: the tag's op= plus the
 * requests between the tag and its first record), what the log said of
 * that op= (its request's type, its first RESULT); a line outside the table
 * goes to a short list (op= numbers that skip, a log that is not the run's).
 * Then each connection's requests are walked in op= order, the i-th put at
 * the position tag + i (docs/design.md): in place, as a request's position
 * is never past its slot, unless the list says otherwise (then from a copy
 * of the table).  Nothing per log line is kept but what the tagged
 * connections' lines say, and that in the records' own results. */
#include "report/join.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "logs/slog.h"
#include "report/join_int.h"
#include "report/json.h"
#include "run/oplog.h"
#include "util/gsort.h"
#include "util/util.h"

const char *const ldb_jfig_name[LDB_JF_COUNT] = { "client", "etime", "queue", "processing", "outside" };
const char *const ldb_jmiss_name[LDB_JM_COUNT] = { "connection's tag not in the log",
	                                           "no RESULT line for its op=", "no response by design",
	                                           "logged as another kind" };

typedef struct ldb_join_res jres;

/* A line of a tagged connection outside its table: a request (x.type) or a
 * result (x.joined), in log order (seq). */
struct jover {
	uint32_t conn, op;
	uint64_t seq;
	jres x;
};

/* One of the run's connections. */
struct jconn {
	size_t first;  /* its records [first, the next connection's first) */
	size_t tab;    /* the first of them at or after the tag's position: the table's slot 0 */
	int64_t base;  /* the op= of slot 0 (-1: the tag not seen in this pass) */
	bool in_order; /* the records from tab on have strictly increasing orders */
};

/* The server's conn= to the run's connection number: open addressing. */
struct cmap {
	int64_t *key; /* -1: empty */
	uint32_t *val;
	size_t mask;
};

struct jstate {
	struct ldb_oplog_head head;
	struct ldb_oprec *rec; /* sorted by (conn, order) */
	size_t n;
	uint32_t max_conn;
	struct jconn *conn; /* [0 .. max_conn + 1]: the last one's first is n */
	jres *res;          /* per record */
	struct jover *over; /* lines outside the tables */
	size_t nover, capover;
	uint64_t seq;
	struct cmap map;
	char tag_head[32]; /* "ldbench-RUNID-" */
	size_t tag_head_len;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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

/* Pass 1: the records per connection into cnt[c + 1] (*ncnt counters).
 * @return the records seen (at most n), with *rc 1 when the connection
 * numbers are too sparse for counters, -1 when memory ran out. */
static size_t count_records(FILE *f, size_t n, struct ldb_oprec *chunk, size_t **cnt, size_t *ncnt, int *rc)
{
	size_t got, seen = 0;
	while (*rc == 0 && seen < n && (got = fread(chunk, sizeof *chunk, CHUNK_RECS, f)) > 0)
		for (size_t i = 0; i < got && *rc == 0 && seen < n; i++, seen++) {
			size_t c = chunk[i].conn, m = *ncnt * 2 > c + 2 ? *ncnt * 2 : c + 2;
			if (c + 2 > *ncnt && c > 4 * n + 4096) {
				*rc = 1;
			} else if (c + 2 > *ncnt) {
				size_t *bigger = realloc(*cnt, m * sizeof *bigger);
				if (bigger == NULL) {
					*rc = -1;
					break;
				}
				memset(bigger + *ncnt, 0, (m - *ncnt) * sizeof *bigger);
				*cnt = bigger;
				*ncnt = m;
			}
			if (*rc == 0)
				(*cnt)[c + 1]++;
		}
	return seen;
}

/* Pass 2: each of the seen records to its place, at[c]: the next place of
 * connection c, from its start; end[c]: its end.  @return 0, or -1 with
 * errno EIO (the file changed since pass 1). */
static int scatter_records(struct jstate *st, FILE *f, size_t seen, struct ldb_oprec *chunk, size_t *at,
                           const size_t *end, size_t ngroups)
{
	for (size_t done = 0, got; done < seen; done += got) {
		got = fread(chunk, sizeof *chunk, seen - done < CHUNK_RECS ? seen - done : CHUNK_RECS, f);
		if (got == 0)
			return errno = EIO, -1;
		for (size_t i = 0; i < got; i++) {
			size_t c = chunk[i].conn;
			if (c >= ngroups || at[c] >= end[c])
				return errno = EIO, -1;
			st->rec[at[c]++] = chunk[i];
		}
	}
	return 0;
}

/* A regular file's records (n of them after the header, at off): counted
 * per connection, then read again each into its place, in order within
 * its connection.  @return 0; 1 when the connection numbers are too sparse
 * for counters (the caller reads the file in a row and sorts); -1 with
 * errno (memory; EIO: the file changed between the passes). */
static int place_records(struct jstate *st, FILE *f, long off, size_t n)
{
	struct ldb_oprec *chunk = malloc(CHUNK_RECS * sizeof *chunk);
	size_t *at = NULL, nat = 0;
	int rc = chunk == NULL ? -1 : 0;
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
	if (rc == 0 && (st->rec == NULL || fseek(f, off, SEEK_SET) != 0))
		rc = -1;
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
static int read_in_a_row(struct jstate *st, FILE *f)
{
	size_t cap_n = st->head.records > 0 ? (size_t)st->head.records : 1024;
	st->n = 0;
	st->rec = malloc(cap_n * sizeof *st->rec);
	for (;;) {
		if (st->rec == NULL)
			return -1;
		st->n += fread(st->rec + st->n, sizeof *st->rec, cap_n - st->n, f);
		if (st->n < cap_n)
			break;
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

/* The op-log into st->rec, sorted.  @return 0, or -1 with one line in err. */
static int read_oplog(struct jstate *st, const char *path, char *err, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct ldb_oplog_head *h = &st->head;
	memset(h, 0, sizeof *h);
	bool ok = fread(h, LDB_OPLOG_HEAD_V1, 1, f) == 1 && memcmp(h->magic, LDB_OPLOG_MAGIC, 8) == 0 &&
	          (h->version == 1 || h->version == LDB_OPLOG_VERSION) && h->recsize == sizeof(struct ldb_oprec);
	/* version 1 has no sample windows: no per-sample figures */
	if (ok && h->version == LDB_OPLOG_VERSION)
		ok = fread((char *)h + LDB_OPLOG_HEAD_V1, sizeof *h - LDB_OPLOG_HEAD_V1, 1, f) == 1;
	if (!ok) {
		fclose(f);
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
		rc = fseek(f, off, SEEK_SET) == 0 || !S_ISREG(sb.st_mode) ? read_in_a_row(st, f) : -1;
	}
	int e = errno;
	fclose(f);
	if (rc != 0)
		snprintf(err, cap, "%s: %s", path,
		         e == EIO ? "changed while it was read" : "out of memory for its records");
	return rc;
}

/* Each connection's range and table start, the map, the results. */
static int index_records(struct jstate *st)
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
		struct jconn *k = &st->conn[c];
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

static void map_clear(struct cmap *m)
{
	for (size_t i = 0; i <= m->mask; i++)
		m->key[i] = -1;
}

static size_t map_slot(const struct cmap *m, int64_t k)
{
	size_t i = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ULL >> 20) & m->mask;
	while (m->key[i] != -1 && m->key[i] != k)
		i = (i + 1) & m->mask;
	return i;
}

static uint32_t map_get(const struct cmap *m, int64_t k)
{
	size_t i = map_slot(m, k);
	return m->key[i] == k ? m->val[i] : 0;
}

/* A search's filter that is a tag: "(description=ldbench-RUNID-0000000042)".
 * @return its connection number for this run, 0 for none, UINT32_MAX for
 * another run's tag. */
static uint32_t tag_of(const struct jstate *st, const struct ldb_slog_str *f)
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
static jres *slot_of(const struct jstate *st, uint32_t c, int64_t op)
{
	const struct jconn *k = &st->conn[c];
	int64_t at = op - k->base;
	return at >= 0 && (uint64_t)at < st->conn[c + 1].first - k->tab ? &st->res[k->tab + (size_t)at] : NULL;
}

/* A line of connection c for the list.  @return 0, or -1 (memory). */
static int keep_over(struct jstate *st, uint32_t c, int64_t op, const jres *x)
{
	if (st->nover == st->capover) {
		size_t m = st->capover ? 2 * st->capover : 256;
		struct jover *bigger = realloc(st->over, m * sizeof *bigger);
		if (bigger == NULL)
			return -1;
		st->over = bigger;
		st->capover = m;
	}
	st->over[st->nover++] = (struct jover){ c, (uint32_t)op, st->seq, *x };
	return 0;
}

static int keep_request(struct jstate *st, uint32_t c, int64_t op, enum ldb_slog_optype type)
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

static int keep_result(struct jstate *st, const struct ldb_slog_event *ev, uint32_t c)
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

static int over_cmp(const void *a, const void *b)
{
	const struct jover *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A walk of one connection's requests in op= order: the i-th goes to the
 * record at the position tag + i. */
struct walk {
	struct jstate *st;
	uint64_t rank; /* requests walked */
	size_t r, end; /* the record where the next position is looked for; the connection's end */
};

/* The next request in op= order (x->type: none when its op= had no request
 * line) with its result (x->joined). */
static void walk_one(struct walk *w, const jres *x)
{
	if (x->type == LDB_SLOG_OP_NONE)
		return; /* a result without its request: no position */
	uint64_t order = w->st->head.tag_order + w->rank++;
	while (w->r < w->end && w->st->rec[w->r].order < order)
		w->r++;
	if (w->r < w->end && w->st->rec[w->r].order == order && x->joined)
		w->st->res[w->r] = *x;
}

/* The listed lines over[0..n) (sorted: by op=, then in log order) of one
 * op= after the other: each op='s first request and first result walked. */
static void walk_over(struct walk *w, const struct jover *over, size_t n)
{
	for (size_t i = 0; i < n;) {
		jres x = { 0 };
		size_t e = i;
		for (; e < n && over[e].op == over[i].op; e++) {
			if (x.type == LDB_SLOG_OP_NONE)
				x.type = over[e].x.type;
			if (!x.joined && over[e].x.joined) {
				uint8_t type = x.type;
				x = over[e].x;
				x.type = type;
			}
		}
		walk_one(w, &x);
		i = e;
	}
}

/* One tagged connection's lines to its records: the listed ones before its
 * table (op= below base), the table's slots, the listed ones after it.  In
 * place when no request can land past its own slot (at most as many
 * requests listed before the table as positions between the tag and slot 0,
 * orders increasing); else from a copy of the table.  @return 0, or -1
 * (memory). */
static int align_conn(struct jstate *st, uint32_t c, const struct jover *over, size_t n)
{
	const struct jconn *k = &st->conn[c];
	size_t nslots = st->conn[c + 1].first - k->tab, lo = 0, lo_reqs = 0;
	while (lo < n && over[lo].op < k->base) {
		lo_reqs += over[lo].x.type != LDB_SLOG_OP_NONE && (lo == 0 || over[lo - 1].op != over[lo].op);
		lo++;
	}
	uint64_t pre = nslots > 0 ? st->rec[k->tab].order - st->head.tag_order : 0;
	jres *slots = st->res + k->tab, *copy = NULL;
	if (nslots > 0 && (lo_reqs > pre || !k->in_order)) {
		copy = malloc(nslots * sizeof *copy);
		if (copy == NULL)
			return -1;
		memcpy(copy, slots, nslots * sizeof *copy);
		memset(slots, 0, nslots * sizeof *slots);
	}
	struct walk w = { st, 0, k->first, st->conn[c + 1].first };
	walk_over(&w, over, lo);
	for (size_t s = 0; s < nslots; s++) {
		jres x = copy != NULL ? copy[s] : slots[s];
		if (copy == NULL) /* its request's position is at or before it */
			memset(&slots[s], 0, sizeof slots[s]);
		walk_one(&w, &x);
	}
	walk_over(&w, over + lo, n - lo);
	free(copy);
	return 0;
}

/* The tagged connections' lines to their records.  @return 0, or -1. */
static int align(struct jstate *st)
{
	if (st->nover > 1)
		qsort(st->over, st->nover, sizeof *st->over, over_cmp);
	size_t i = 0, e;
	for (uint32_t c = 1; c <= st->max_conn; c++) {
		while (i < st->nover && st->over[i].conn < c)
			i++;
		for (e = i; e < st->nover && st->over[e].conn == c; e++)
			;
		if (st->conn[c].base >= 0 && align_conn(st, c, st->over + i, e - i) != 0)
			return -1;
		i = e;
	}
	return 0;
}

/* One event of the log. */
static int take_event(struct jstate *st, struct ldb_join *j, const struct ldb_slog_event *ev)
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
			struct jconn *k = &st->conn[c];
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

/* One pass over the logs.  @return 0, or -1 with one line in err. */
static int read_logs(struct jstate *st, struct ldb_join *j, const char *const *logs, int nlogs, char *err, size_t cap)
{
	struct ldb_slog *r = ldb_slog_open(logs, (size_t)nlogs, NULL, err, cap);
	if (r == NULL)
		return -1;
	memset(st->res, 0, (st->n > 0 ? st->n : 1) * sizeof *st->res);
	map_clear(&st->map);
	for (uint32_t c = 0; c <= st->max_conn + 1; c++)
		st->conn[c].base = -1;
	j->other_tags = 0;
	st->nover = 0;
	st->seq = 0;
	struct ldb_slog_event ev;
	int rc;
	while ((rc = ldb_slog_next(r, &ev)) == 1)
		if (take_event(st, j, &ev) != 0) {
			rc = -2;
			break;
		}
	if (rc == 0 && align(st) != 0)
		rc = -2;
	if (rc == -1)
		snprintf(err, cap, "%s", ldb_slog_error(r));
	else if (rc == -2)
		snprintf(err, cap, "out of memory for the log's results");
	snprintf(j->server, sizeof j->server, "%s", ldb_slog_format_name(ldb_slog_format(r)));
	const struct ldb_slog_stats *s = ldb_slog_stats(r);
	j->lines = s->lines;
	j->skipped = 0;
	for (int k = LDB_SLOG_SKIP_UNKNOWN_OP; k < LDB_SLOG_NSKIPS; k++)
		j->skipped += s->skipped[k];
	ldb_slog_close(r);
	return rc < 0 ? -1 : 0;
}

/* The run's last operation (the latest result): in the log yet?  *joined:
 * how many answered operations are. */
static bool last_joined(const struct jstate *st, size_t *joined, size_t *answered)
{
	size_t last = SIZE_MAX;
	uint64_t end = 0;
	*joined = *answered = 0;
	for (size_t i = 0; i < st->n; i++) {
		if (st->rec[i].flags & LDB_OPREC_NORESPONSE)
			continue;
		(*answered)++;
		*joined += st->res[i].joined;
		if (st->rec[i].t_sent + st->rec[i].lat >= end) {
			end = st->rec[i].t_sent + st->rec[i].lat;
			last = i;
		}
	}
	return last == SIZE_MAX || st->res[last].joined;
}

static int kind_init(struct ldb_join_kind *k)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		if (ldb_hist_init(&k->h[f]) != 0)
			return -1;
	return 0;
}

static void kind_free(struct ldb_join_kind *k)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		ldb_hist_free(&k->h[f]);
}

static void kind_add(struct ldb_join_kind *k, const struct ldb_oprec *r, const jres *x)
{
	k->joined++;
	ldb_hist_record(&k->h[LDB_JF_CLIENT], r->lat);
	ldb_hist_record(&k->h[LDB_JF_ETIME], (uint64_t)x->etime);
	if (x->queue >= 0) {
		k->queue = true;
		ldb_hist_record(&k->h[LDB_JF_QUEUE], (uint64_t)x->queue);
	}
	if (x->proc >= 0) {
		k->proc = true;
		ldb_hist_record(&k->h[LDB_JF_PROC], (uint64_t)x->proc);
	}
	ldb_hist_record(&k->h[LDB_JF_OUTSIDE], r->lat > (uint64_t)x->etime ? r->lat - (uint64_t)x->etime : 0);
	if (x->notes & LDB_SLOG_NOTE_U)
		k->notes_u++;
	if (x->notes & LDB_SLOG_NOTE_A)
		k->notes_a++;
}

/* The type the server logs a kind's requests as (the kind's monitor name:
 * "Search", "Modrdn", "Extended"); LDB_SLOG_OP_NONE: no check. */
static uint8_t logged_type(int k)
{
	const char *m = ldb_ops[k]->monitor;
	for (int t = LDB_SLOG_OP_BIND; m != NULL && t < LDB_SLOG_OP_OTHER; t++)
		if (strcasecmp(m, ldb_slog_optype_name((enum ldb_slog_optype)t)) == 0)
			return (uint8_t)t;
	return LDB_SLOG_OP_NONE;
}

/* Why a measured record is not joined; LDB_JM_COUNT: it is.  A result whose
 * request the log shows as another type than the record's kind is a
 * mismatch (the order on the connection went wrong), never joined.  want:
 * the logged type of each kind. */
static int miss_of(const struct jstate *st, const struct ldb_oprec *r, const jres *x, const uint8_t *want)
{
	if (r->flags & LDB_OPREC_NORESPONSE)
		return LDB_JM_NO_RESPONSE;
	if (!x->joined)
		return st->conn[r->conn].base >= 0 ? LDB_JM_NO_RESULT : LDB_JM_NO_TAG;
	return want[r->kind] != LDB_SLOG_OP_NONE && x->type != want[r->kind] ? LDB_JM_MISMATCH : LDB_JM_COUNT;
}

/* One measured record into its kind's figures; x->joined then says whether
 * it counts as joined (the kind checked).  @return 0, or -1 (memory). */
static int tally_one(const struct jstate *st, struct ldb_join *j, const struct ldb_oprec *r, jres *x,
                     const uint8_t *want)
{
	j->measured++;
	struct ldb_join_kind *k = &j->k[r->kind];
	if (!j->kind_used[r->kind] && kind_init(k) != 0)
		return -1;
	j->kind_used[r->kind] = true;
	k->sent++;
	int why = miss_of(st, r, x, want);
	x->joined = why == LDB_JM_COUNT;
	if (why != LDB_JM_COUNT) {
		k->miss[why]++;
		return 0;
	}
	kind_add(k, r, x);
	j->int_etime += x->int_etime;
	return 0;
}

/* The run's figures: the kinds' added up (exactly: counts and histograms). */
static void sum_kinds(struct ldb_join *j)
{
	struct ldb_join_kind *a = &j->all;
	for (int i = 0; i < LDB_OP_COUNT; i++) {
		const struct ldb_join_kind *k = &j->k[i];
		if (!j->kind_used[i])
			continue;
		a->sent += k->sent;
		a->joined += k->joined;
		for (int m = 0; m < LDB_JM_COUNT; m++)
			a->miss[m] += k->miss[m];
		a->notes_u += k->notes_u;
		a->notes_a += k->notes_a;
		a->queue = a->queue || k->queue;
		a->proc = a->proc || k->proc;
		for (int f = 0; f < LDB_JF_COUNT; f++)
			if (k->h[f].total > 0)
				ldb_hist_add(&a->h[f], &k->h[f]);
	}
}

/* The figures of the measured window, per kind, per sample and for the run. */
static int tally(struct jstate *st, struct ldb_join *j)
{
	if (kind_init(&j->all) != 0)
		return -1;
	j->interval_ns = st->head.interval_ns;
	j->rate = (st->head.flags & LDB_OPLOG_F_RATE) != 0;
	uint8_t want[LDB_OP_COUNT];
	for (int k = 0; k < LDB_OP_COUNT; k++)
		want[k] = logged_type(k);
	uint32_t seen_conn = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct ldb_oprec *r = &st->rec[i];
		if (r->conn != seen_conn) {
			seen_conn = r->conn;
			j->conns++;
			j->conns_tagged += st->conn[r->conn].base >= 0;
		}
		if (!(r->flags & LDB_OPREC_MEASURED) || r->kind >= LDB_OP_COUNT) {
			st->res[i].joined = false;
			continue;
		}
		if (tally_one(st, j, r, &st->res[i], want) != 0)
			return -1;
	}
	sum_kinds(j);
	struct ldb_join_view v = { st->rec, st->res, st->n, st->head.t_measure, st->head.interval_ns };
	return ldb_join_samples(j, &v);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The name of a part of the client's latency in the verdict: queue and
 * processing with what the log calls them. */
static const char *part_name(const struct ldb_join *j, int part)
{
	bool is389 = strcmp(j->server, "389ds") == 0;
	static const char *const name[2][3] = { { "queue (qtime)", "processing (etime - qtime)", "outside" },
		                                { "queue (wtime)", "processing (optime)", "outside" } };
	return name[is389][part];
}

/* The verdict over the run's joined operations, at p99: the part that
 * dominates (at least twice the next), said with its figures against the
 * client's and the etime's; or that none does. */
static void verdict(struct ldb_join *j)
{
	const struct ldb_join_kind *a = &j->all;
	if (a->joined == 0) {
		snprintf(j->verdict, sizeof j->verdict, "no verdict: no operation of the run was found in the log");
		return;
	}
	static const char *const why[3] = { "operations are waiting before execution",
		                            "the server is spending time processing the operation",
		                            "the delay is outside the server (network or client handling)" };
	uint64_t part[3] = { a->queue ? ldb_hist_percentile(&a->h[LDB_JF_QUEUE], 99) : 0,
		             a->proc ? ldb_hist_percentile(&a->h[LDB_JF_PROC], 99) : 0,
		             ldb_hist_percentile(&a->h[LDB_JF_OUTSIDE], 99) };
	int top = 0, second = -1;
	for (int i = 1; i < 3; i++)
		if (part[i] > part[top])
			top = i;
	for (int i = 0; i < 3; i++)
		if (i != top && (second < 0 || part[i] > part[second]))
			second = i;
	uint64_t client = ldb_hist_percentile(&a->h[LDB_JF_CLIENT], 99);
	uint64_t etime = ldb_hist_percentile(&a->h[LDB_JF_ETIME], 99);
	double share = client > 0 ? 100.0 * (double)part[top] / (double)client : 0.0;
	double times = part[second] > 0 ? (double)part[top] / (double)part[second] : 0.0;
	if (part[top] == 0) {
		snprintf(j->verdict, sizeof j->verdict,
		         "no part dominates at p99: queue, processing and outside are 0 of the client's %.3f ms p99, "
		         "etime "
		         "%.3f ms",
		         ms(client), ms(etime));
		return;
	}
	if (part[second] > 0 && part[top] < 2 * part[second]) {
		snprintf(
		        j->verdict, sizeof j->verdict,
		        "no part dominates at p99: %s %.3f ms and %s %.3f ms (%.1f times) of the client's %.3f ms p99, "
		        "etime %.3f ms",
		        part_name(j, top), ms(part[top]), part_name(j, second), ms(part[second]), times, ms(client),
		        ms(etime));
		return;
	}
	char by[64];
	if (part[second] > 0)
		snprintf(by, sizeof by, "%.1f times the next part", times);
	else
		snprintf(by, sizeof by, "the other parts 0");
	snprintf(j->verdict, sizeof j->verdict,
	         "%s: %s dominates at p99: %.3f ms of the client's %.3f ms p99 (%.0f %%), etime %.3f ms, %s", why[top],
	         part_name(j, top), ms(part[top]), ms(client), share, ms(etime), by);
}

/* Why coverage is short, in one line. */
static void coverage_note(struct ldb_join *j)
{
	const struct ldb_join_kind *a = &j->all;
	uint64_t missing = a->miss[LDB_JM_NO_TAG] + a->miss[LDB_JM_NO_RESULT];
	j->note[0] = '\0';
	if (j->measured > 0 && j->conns_tagged == 0)
		snprintf(j->note, sizeof j->note,
		         "the log does not cover the run: none of its %" PRIu64 " connections' tags is in it%s",
		         j->conns, j->other_tags > 0 ? " (tags of other runs are)" : "");
	else if (missing > 0 && !j->last_seen)
		snprintf(j->note, sizeof j->note,
		         "the log ends before the run did: its last operation is not in it (buffered, or cut short)");
	else if (missing > 0)
		snprintf(j->note, sizeof j->note, "%" PRIu64 " operations not found in the log", missing);
	else if (a->miss[LDB_JM_MISMATCH] > 0)
		snprintf(j->note, sizeof j->note,
		         "%" PRIu64 " operations logged as another kind than the one sent: not joined (the order on "
		         "their connections is not the one sent)",
		         a->miss[LDB_JM_MISMATCH]);
}

static void free_state(struct jstate *st)
{
	free(st->rec);
	free(st->conn);
	free(st->res);
	free(st->over);
	free(st->map.key);
	free(st->map.val);
}

int ldb_join_run(struct ldb_join *j, const char *oplog_path, const char *const *logs, int nlogs, uint64_t wait_ms,
                 char *err, size_t cap)
{
	struct jstate st = { 0 };
	memset(j, 0, sizeof *j);
	int rc = read_oplog(&st, oplog_path, err, cap);
	if (rc == 0 && index_records(&st) != 0) {
		snprintf(err, cap, "%s: out of memory for the join", oplog_path);
		rc = -1;
	}
	if (rc == 0) {
		j->run_id = st.head.run_id;
		j->records = st.n;
		j->dropped = st.head.dropped;
		st.tag_head_len =
		        (size_t)snprintf(st.tag_head, sizeof st.tag_head, LDB_TAG_PREFIX "%08x-", st.head.run_id);
		uint64_t t0 = now_ms();
		size_t joined = 0, before, answered;
		int stable = 0;
		for (;;) {
			before = joined;
			rc = read_logs(&st, j, logs, nlogs, err, cap);
			j->last_seen = last_joined(&st, &joined, &answered);
			j->waited_ms = now_ms() - t0;
			stable = joined == before ? stable + 1 : 0;
			/* the last result in the log is not the end: another thread
			 * (descheduled between its answer and its line) may write one
			 * later: read again until a second passes without a new one */
			if (rc != 0 || joined == answered || j->waited_ms >= wait_ms || (j->last_seen && stable >= 5))
				break;
			struct timespec nap = { 0, 200 * 1000000L };
			nanosleep(&nap, NULL);
		}
	}
	if (rc == 0 && tally(&st, j) != 0) {
		snprintf(err, cap, "out of memory for the join's histograms");
		rc = -1;
	}
	free_state(&st);
	if (rc != 0) {
		ldb_join_free(j);
		return -1;
	}
	ldb_join_conclude(j);
	return 0;
}

void ldb_join_conclude(struct ldb_join *j)
{
	verdict(j);
	coverage_note(j);
}

void ldb_join_free(struct ldb_join *j)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k])
			kind_free(&j->k[k]);
	kind_free(&j->all);
	free(j->samples);
	memset(j, 0, sizeof *j);
}

static void fig_line(FILE *out, const char *name, const struct ldb_hist *h, const char *from)
{
	fprintf(out, "  %-11s min %.3f p50 %.3f p95 %.3f p99 %.3f max %.3f ms%s\n", name, ms(h->total ? h->min : 0),
	        ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
	        ms(h->max), from);
}

static void kind_text(const struct ldb_join *j, const char *name, const struct ldb_join_kind *k, FILE *out)
{
	fprintf(out, "Server log (%s), %s: %" PRIu64 " of %" PRIu64 " operations joined (%.1f %%)", j->server, name,
	        k->joined, k->sent, k->sent ? 100.0 * (double)k->joined / (double)k->sent : 0.0);
	for (int m = 0; m < LDB_JM_COUNT; m++)
		if (k->miss[m] > 0)
			fprintf(out, "; %" PRIu64 " %s", k->miss[m], ldb_jmiss_name[m]);
	fprintf(out, "; unindexed notes=U %" PRIu64 ", notes=A %" PRIu64 "\n", k->notes_u, k->notes_a);
	if (k->joined == 0)
		return;
	bool is389 = strcmp(j->server, "389ds") == 0;
	for (int f = 0; f < LDB_JF_COUNT; f++) {
		if ((f == LDB_JF_QUEUE && !k->queue) || (f == LDB_JF_PROC && !k->proc))
			continue;
		const char *from = f == LDB_JF_QUEUE  ? (is389 ? " (wtime)" : " (qtime)")
		                   : f == LDB_JF_PROC ? (is389 ? " (optime)" : " (etime - qtime)")
		                                      : "";
		fig_line(out, ldb_jfig_name[f], &k->h[f], from);
	}
}

void ldb_join_text(const struct ldb_join *j, FILE *out)
{
	int used = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k]) {
			kind_text(j, ldb_ops[k]->name, &j->k[k], out);
			used++;
		}
	if (used != 1)
		kind_text(j, "all", &j->all, out);
	fprintf(out,
	        "Server log (%s): connections %" PRIu64 ", tagged in the log %" PRIu64 "; log lines %" PRIu64
	        ", not used %" PRIu64 "; op-log records %" PRIu64 ", dropped %" PRIu64 "\n",
	        j->server, j->conns, j->conns_tagged, j->lines, j->skipped, j->records, j->dropped);
	if (!j->last_seen)
		fprintf(out, "Server log (%s): the run's last operation is not in the log (waited %.1f s)\n", j->server,
		        (double)j->waited_ms / 1000.0);
	if (j->int_etime > 0)
		fprintf(out,
		        "Server log (%s): %" PRIu64 " results with a whole-second etime: outside is an upper bound\n",
		        j->server, j->int_etime);
	if (j->note[0] != '\0')
		fprintf(out, "Server log (%s): %s\n", j->server, j->note);
	if (j->rate)
		fprintf(out,
		        "Server log (%s): --rate: client and outside are timed from the send (outside = client - "
		        "etime), not from the intended start: the schedule's lag is the client's, counted in the "
		        "run's corrected latency\n",
		        j->server);
	fprintf(out, "Server log (%s): %s\n", j->server, j->verdict);
	ldb_join_samples_text(j, out);
}

bool ldb_join_value(const struct ldb_join *j, const char *key, double *v)
{
	const struct ldb_join_kind *a = &j->all;
	if (strcmp(key, "unindexed") == 0) {
		*v = (double)(a->notes_u + a->notes_a);
		return true;
	}
	if (strcmp(key, "coverage") == 0) {
		*v = a->sent ? 100.0 * (double)a->joined / (double)a->sent : 0.0;
		return true;
	}
	static const char *const keys[LDB_JF_COUNT] = { "client.p99", "server.p99", "queue.p99", "processing.p99",
		                                        "outside.p99" };
	for (int f = 0; f < LDB_JF_COUNT; f++)
		if (strcmp(key, keys[f]) == 0) {
			if (a->joined == 0)
				return false;
			*v = ms(ldb_hist_percentile(&a->h[f], 99));
			return true;
		}
	return false;
}

static void json_kind(FILE *f, const char *name, const struct ldb_join_kind *k, bool first)
{
	fprintf(f, "%s\"%s\":{\"sent\":%" PRIu64 ",\"joined\":%" PRIu64 ",\"coverage\":%.3f", first ? "" : ",", name,
	        k->sent, k->joined, k->sent ? 100.0 * (double)k->joined / (double)k->sent : 0.0);
	static const char *const miss[LDB_JM_COUNT] = { "no_tag", "no_result", "no_response", "kind_mismatch" };
	fputs(",\"missing\":{", f);
	for (int m = 0; m < LDB_JM_COUNT; m++)
		fprintf(f, "%s\"%s\":%" PRIu64, m ? "," : "", miss[m], k->miss[m]);
	fprintf(f, "},\"notes_u\":%" PRIu64 ",\"notes_a\":%" PRIu64, k->notes_u, k->notes_a);
	for (int fg = 0; fg < LDB_JF_COUNT; fg++) {
		const struct ldb_hist *h = &k->h[fg];
		if (k->joined == 0 || (fg == LDB_JF_QUEUE && !k->queue) || (fg == LDB_JF_PROC && !k->proc))
			continue;
		fprintf(f,
		        ",\"%s\":{\"min_ms\":%.6f,\"p50_ms\":%.6f,\"p95_ms\":%.6f,\"p99_ms\":%.6f,\"max_ms\":%.6f,"
		        "\"count\":%" PRIu64,
		        ldb_jfig_name[fg], ms(h->total ? h->min : 0), ms(ldb_hist_percentile(h, 50)),
		        ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)), ms(h->max), h->total);
		size_t n = ldb_hist_encode(h, NULL, 0); /* lossless: merge adds them */
		char *b = malloc(n + 1);
		if (b != NULL)
			ldb_hist_encode(h, b, n + 1);
		fprintf(f, ",\"histogram\":\"%s\"}", b != NULL ? b : "");
		free(b);
	}
	fputc('}', f);
}

void ldb_join_put_json(FILE *f, const struct ldb_join *j)
{
	fprintf(f,
	        ",\"join\":{\"server\":\"%s\",\"run_id\":\"%08x\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64
	        ",\"measured\":%" PRIu64 ",\"connections\":%" PRIu64 ",\"connections_tagged\":%" PRIu64
	        ",\"log_lines\":%" PRIu64 ",\"log_lines_not_used\":%" PRIu64 ",\"last_seen\":%s,\"waited_ms\":%" PRIu64
	        ",\"whole_second_etimes\":%" PRIu64 ",\"client_from\":\"send\",\"rate\":%s",
	        j->server, j->run_id, j->records, j->dropped, j->measured, j->conns, j->conns_tagged, j->lines,
	        j->skipped, j->last_seen ? "true" : "false", j->waited_ms, j->int_etime, j->rate ? "true" : "false");
	fputs(",\"kinds\":{", f);
	bool first = true;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k]) {
			json_kind(f, ldb_ops[k]->name, &j->k[k], first);
			first = false;
		}
	fputs("},", f);
	json_kind(f, "all", &j->all, true);
	ldb_join_samples_json(f, j);
	fputs(",\"note\":", f);
	ldb_json_put_string(f, j->note);
	fputs(",\"verdict\":", f);
	ldb_json_put_string(f, j->verdict);
	fputc('}', f);
}
