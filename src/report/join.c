/* The join of the op-log with the server's access log: see join.h. */
#include "report/join.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "logs/slog.h"
#include "report/json.h"
#include "run/oplog.h"
#include "util/gsort.h"
#include "util/util.h"

const char *const ldb_jfig_name[LDB_JF_COUNT] = { "client", "etime", "queue", "processing", "outside" };
const char *const ldb_jmiss_name[LDB_JM_COUNT] = { "connection's tag not in the log",
	                                           "no RESULT line for its op=", "no response by design",
	                                           "logged as another kind" };

/* What the log said of one record. */
struct jres {
	int64_t etime, queue, proc;
	uint8_t notes;
	uint8_t type; /* the logged request's type (enum ldb_slog_optype) */
	bool joined, int_etime;
};

/* A request line of a tagged connection: its op=. */
struct lreq {
	uint32_t conn; /* the run's number */
	uint32_t op;
	uint32_t type; /* enum ldb_slog_optype */
};

/* A result line of a tagged connection. */
struct lres {
	uint32_t conn, op;
	struct jres x;
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
	size_t *first; /* records of connection c: [first[c], first[c + 1]) */
	struct jres *res;
	/* what the log said of the tagged connections, aligned after the pass */
	struct lreq *req; /* their requests' op= */
	size_t nreq, capreq;
	struct lres *lr; /* their results */
	size_t nlr, caplr;
	uint8_t *seen_tag; /* per connection number: its tag was in the log */
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

/* The op-log into st->rec.  @return 0, or -1 with one line in err. */
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
	size_t cap_n = h->records > 0 ? (size_t)h->records : 1024;
	st->rec = malloc(cap_n * sizeof *st->rec);
	ldb_hugepages(st->rec, cap_n * sizeof *st->rec);
	for (;;) {
		if (st->rec == NULL) {
			fclose(f);
			snprintf(err, cap, "%s: out of memory for its records", path);
			return -1;
		}
		st->n += fread(st->rec + st->n, sizeof *st->rec, cap_n - st->n, f);
		if (st->n < cap_n)
			break;
		cap_n *= 2;
		struct ldb_oprec *bigger = realloc(st->rec, cap_n * sizeof *st->rec);
		ldb_hugepages(bigger, cap_n * sizeof *st->rec);
		if (bigger == NULL)
			free(st->rec);
		st->rec = bigger;
	}
	fclose(f);
	return 0;
}

/* The records sorted, each connection's range, the map, the results. */
static int index_records(struct jstate *st)
{
	st->max_conn = 0;
	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].conn > st->max_conn)
			st->max_conn = st->rec[i].conn;
	/* each connection's records come nearly in order (one I/O thread's ring) */
	ldb_gsort(st->rec, st->n, sizeof *st->rec, (size_t)st->max_conn + 1, rec_conn, rec_cmp);
	st->first = calloc((size_t)st->max_conn + 2, sizeof *st->first);
	st->res = calloc(st->n > 0 ? st->n : 1, sizeof *st->res);
	ldb_hugepages(st->res, st->n * sizeof *st->res);
	st->seen_tag = calloc((size_t)st->max_conn + 2, 1);
	size_t slots = 16;
	while (slots < 2 * ((size_t)st->max_conn + 1))
		slots *= 2;
	st->map.key = malloc(slots * sizeof *st->map.key);
	st->map.val = malloc(slots * sizeof *st->map.val);
	st->map.mask = slots - 1;
	if (st->first == NULL || st->res == NULL || st->seen_tag == NULL || st->map.key == NULL || st->map.val == NULL)
		return -1;
	size_t i = 0;
	for (uint32_t c = 0; c <= st->max_conn + 1; c++) {
		while (i < st->n && st->rec[i].conn < c)
			i++;
		st->first[c] = i;
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

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 4096;
	void *q = realloc(*p, c * size);
	if (q == NULL)
		return -1;
	ldb_hugepages(q, c * size);
	*p = q;
	*cap = c;
	return 0;
}

static int keep_request(struct jstate *st, uint32_t c, int64_t op, enum ldb_slog_optype type)
{
	if (op < 0 || op > UINT32_MAX || grow((void **)&st->req, &st->capreq, st->nreq, sizeof *st->req) != 0)
		return op < 0 || op > UINT32_MAX ? 0 : -1;
	st->req[st->nreq++] = (struct lreq){ c, (uint32_t)op, (uint32_t)type };
	return 0;
}

static int keep_result(struct jstate *st, const struct ldb_slog_event *ev, uint32_t c)
{
	if (ev->op < 0 || ev->op > UINT32_MAX || ev->etime_ns < 0)
		return 0;
	if (grow((void **)&st->lr, &st->caplr, st->nlr, sizeof *st->lr) != 0)
		return -1;
	struct lres *l = &st->lr[st->nlr++];
	struct jres *x = &l->x;
	l->conn = c;
	l->op = (uint32_t)ev->op;
	memset(x, 0, sizeof *x);
	x->joined = true;
	x->etime = ev->etime_ns;
	x->int_etime = ev->etime_res_ns >= 1000000000;
	x->queue = ev->wtime_ns >= 0 ? ev->wtime_ns : ev->qtime_ns;
	x->proc = ev->optime_ns >= 0 ? ev->optime_ns : ev->qtime_ns >= 0 ? ev->etime_ns - ev->qtime_ns : -1;
	if (x->proc < 0 && ev->optime_ns < 0 && ev->qtime_ns >= 0)
		x->proc = 0;
	x->notes = (uint8_t)ev->notes;
	return 0;
}

static int lreq_cmp(const void *a, const void *b)
{
	const struct lreq *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static size_t lreq_conn(const void *a)
{
	return ((const struct lreq *)a)->conn;
}

static int lres_cmp(const void *a, const void *b)
{
	const struct lres *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static size_t lres_conn(const void *a)
{
	return ((const struct lres *)a)->conn;
}

/* The results of one connection, lr[0..n) by op=, to its records: the i-th
 * request of req[0..nq) (its requests by op=) is the request at position
 * tag_order + i, and a result goes to the request of its op=.  One walk of
 * the three (each in order). */
static void align_conn(struct jstate *st, uint32_t c, const struct lreq *req, size_t nq, const struct lres *lr,
                       size_t n)
{
	size_t q = 0, r = st->first[c];
	const size_t rend = st->first[c + 1];
	for (size_t i = 0; i < n; i++) {
		while (q < nq && req[q].op < lr[i].op)
			q++;
		if (q == nq)
			return;
		if (req[q].op != lr[i].op)
			continue;
		uint64_t order = st->head.tag_order + q;
		while (r < rend && st->rec[r].order < order)
			r++;
		if (r == rend)
			return;
		if (st->rec[r].order == order && !st->res[r].joined) {
			st->res[r] = lr[i].x;
			st->res[r].type = (uint8_t)req[q].type;
		}
	}
}

/* The results to the records, connection by connection (op= numbers may
 * skip: 389 DS gives a number to a partly read request too). */
static void align(struct jstate *st)
{
	if (st->nreq == 0)
		return; /* no tagged connection: nothing to join */
	/* in log order: each connection's op= numbers nearly ascending */
	ldb_gsort(st->req, st->nreq, sizeof *st->req, (size_t)st->max_conn + 1, lreq_conn, lreq_cmp);
	ldb_gsort(st->lr, st->nlr, sizeof *st->lr, (size_t)st->max_conn + 1, lres_conn, lres_cmp);
	size_t u = 0; /* duplicates out (a request of several lines) */
	for (size_t i = 0; i < st->nreq; i++)
		if (u == 0 || st->req[i].conn != st->req[u - 1].conn || st->req[i].op != st->req[u - 1].op)
			st->req[u++] = st->req[i];
	st->nreq = u;
	size_t q = 0;
	for (size_t i = 0; i < st->nlr;) {
		uint32_t c = st->lr[i].conn;
		size_t e = i;
		while (e < st->nlr && st->lr[e].conn == c)
			e++;
		while (q < st->nreq && st->req[q].conn < c)
			q++;
		size_t qe = q;
		while (qe < st->nreq && st->req[qe].conn == c)
			qe++;
		if (c <= st->max_conn)
			align_conn(st, c, st->req + q, qe - q, st->lr + i, e - i);
		i = e;
		q = qe;
	}
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
		} else if (c > 0 && c <= st->max_conn && !st->seen_tag[c]) {
			size_t i = map_slot(&st->map, ev->conn);
			st->map.key[i] = ev->conn;
			st->map.val[i] = c;
			st->seen_tag[c] = 1;
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
	memset(st->seen_tag, 0, (size_t)st->max_conn + 2);
	j->other_tags = 0;
	st->nreq = st->nlr = 0;
	struct ldb_slog_event ev;
	int rc;
	while ((rc = ldb_slog_next(r, &ev)) == 1)
		if (take_event(st, j, &ev) != 0) {
			rc = -2;
			break;
		}
	if (rc == -1)
		snprintf(err, cap, "%s", ldb_slog_error(r));
	else if (rc == -2)
		snprintf(err, cap, "out of memory for the log's results");
	else
		align(st);
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

static void kind_add(struct ldb_join_kind *k, const struct ldb_oprec *r, const struct jres *x)
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
 * mismatch (the order on the connection went wrong), never joined. */
static int miss_of(const struct jstate *st, const struct ldb_oprec *r, const struct jres *x)
{
	if (r->flags & LDB_OPREC_NORESPONSE)
		return LDB_JM_NO_RESPONSE;
	if (!x->joined)
		return st->seen_tag[r->conn] ? LDB_JM_NO_RESULT : LDB_JM_NO_TAG;
	uint8_t want = logged_type(r->kind);
	return want != LDB_SLOG_OP_NONE && x->type != want ? LDB_JM_MISMATCH : LDB_JM_COUNT;
}

/* A measured record's figures for the per-sample windows (by send time). */
static void put_pt(const struct jstate *st, struct ldb_join_pt *p, const struct ldb_oprec *r, const struct jres *x,
                   bool joined)
{
	uint64_t from = st->head.t_measure, w = st->head.interval_ns;
	p->window = (uint32_t)((r->t_sent > from ? r->t_sent - from : 0) / w + 1);
	p->kind = r->kind;
	p->joined = joined;
	if (!joined)
		return;
	p->v[LDB_JF_CLIENT] = (int64_t)r->lat;
	p->v[LDB_JF_ETIME] = x->etime;
	p->v[LDB_JF_QUEUE] = x->queue;
	p->v[LDB_JF_PROC] = x->proc;
	p->v[LDB_JF_OUTSIDE] = (int64_t)r->lat > x->etime ? (int64_t)r->lat - x->etime : 0;
}

/* One measured record into its kind's figures and the run's. */
static int tally_one(const struct jstate *st, struct ldb_join *j, const struct ldb_oprec *r, const struct jres *x)
{
	j->measured++;
	struct ldb_join_kind *k = &j->k[r->kind];
	if (!j->kind_used[r->kind] && kind_init(k) != 0)
		return -1;
	j->kind_used[r->kind] = true;
	k->sent++;
	j->all.sent++;
	int why = miss_of(st, r, x);
	if (why != LDB_JM_COUNT) {
		k->miss[why]++;
		j->all.miss[why]++;
		return 0;
	}
	kind_add(k, r, x);
	kind_add(&j->all, r, x);
	j->int_etime += x->int_etime;
	return 1;
}

/* The figures of the measured window, per kind, per sample and for the run. */
static int tally(struct jstate *st, struct ldb_join *j)
{
	if (kind_init(&j->all) != 0)
		return -1;
	j->interval_ns = st->head.interval_ns;
	j->rate = (st->head.flags & LDB_OPLOG_F_RATE) != 0;
	struct ldb_join_pt *pts = j->interval_ns > 0 ? calloc(st->n > 0 ? st->n : 1, sizeof *pts) : NULL;
	ldb_hugepages(pts, st->n * sizeof *pts);
	if (j->interval_ns > 0 && pts == NULL)
		return -1;
	size_t npts = 0;
	uint32_t seen_conn = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct ldb_oprec *r = &st->rec[i];
		if (r->conn != seen_conn) {
			seen_conn = r->conn;
			j->conns++;
			j->conns_tagged += st->seen_tag[r->conn];
		}
		if (!(r->flags & LDB_OPREC_MEASURED) || r->kind >= LDB_OP_COUNT)
			continue;
		int rc = tally_one(st, j, r, &st->res[i]);
		if (rc < 0) {
			free(pts);
			return -1;
		}
		if (pts != NULL && !(r->flags & LDB_OPREC_NORESPONSE))
			put_pt(st, &pts[npts++], r, &st->res[i], rc == 1);
	}
	int rc = ldb_join_samples(j, pts, npts);
	free(pts);
	return rc;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* The verdict over the run's joined operations, at p99. */
static void verdict(struct ldb_join *j)
{
	const struct ldb_join_kind *a = &j->all;
	if (a->joined == 0) {
		snprintf(j->verdict, sizeof j->verdict, "no verdict: no operation of the run was found in the log");
		return;
	}
	static const char *const says[3] = {
		"operations are waiting before execution: queueing (%s) dominates at p99",
		"the server is spending time processing the operation: processing (%s) dominates at p99",
		("high client latency with low etime: the delay is outside the server (network or client handling), "
		 "outside dominates at p99")
	};
	bool is389 = strcmp(j->server, "389ds") == 0;
	uint64_t part[3] = { a->queue ? ldb_hist_percentile(&a->h[LDB_JF_QUEUE], 99) : 0,
		             a->proc ? ldb_hist_percentile(&a->h[LDB_JF_PROC], 99) : 0,
		             ldb_hist_percentile(&a->h[LDB_JF_OUTSIDE], 99) };
	int top = 0;
	for (int i = 1; i < 3; i++)
		if (part[i] > part[top])
			top = i;
	uint64_t next = 0;
	for (int i = 0; i < 3; i++)
		if (i != top && part[i] > next)
			next = part[i];
	uint64_t client = ldb_hist_percentile(&a->h[LDB_JF_CLIENT], 99);
	char head[200], by[64];
	snprintf(head, sizeof head, says[top],
	         top == 0 ? (is389 ? "wtime" : "qtime")
	         : is389  ? "optime"
	                  : "etime - qtime");
	if (next > 0)
		snprintf(by, sizeof by, "%.1f times the next part", (double)part[top] / (double)next);
	else
		snprintf(by, sizeof by, "the other parts 0");
	snprintf(j->verdict, sizeof j->verdict, "%s: %.3f ms of the client's %.3f ms p99 (%.0f %%), %s", head,
	         ms(part[top]), ms(client), client > 0 ? 100.0 * (double)part[top] / (double)client : 0.0, by);
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
	free(st->first);
	free(st->res);
	free(st->seen_tag);
	free(st->req);
	free(st->lr);
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

static void fig_line(FILE *out, const char *name, const struct ldb_hist *h)
{
	fprintf(out, "  %-11s min %.3f p50 %.3f p95 %.3f p99 %.3f max %.3f ms\n", name, ms(h->total ? h->min : 0),
	        ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
	        ms(h->max));
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
		const char *label = f == LDB_JF_QUEUE  ? (is389 ? "wtime" : "qtime")
		                    : f == LDB_JF_PROC ? (is389 ? "optime" : "etime-qtime")
		                                       : ldb_jfig_name[f];
		fig_line(out, label, &k->h[f]);
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
