/* The replay's feeder (run/replay.h): the log's events into encoded
 * requests in the sender threads' rings, one pending request per recorded
 * connection, each recorded connection in the ring its number hashes to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logs/audit.h"
#include "proto/wire.h"
#include "run/replay.h"
#include "run/replay_int.h"

struct rd_conn {
	bool used;
	int64_t srv;        /* the recorded connection's number */
	int64_t awaiting;   /* the last request whose result is not logged yet, -1 */
	bool awaiting_bind; /* that request is a bind */
	bool closing;       /* its close was logged before that bind's result (389 DS writes them apart) */
	int64_t close_ns;   /* when: the close's time once the result is read */
	struct pend p;
};

struct ldb_rp_feed {
	const struct ldb_rp_conf *conf;
	struct ldb_rp_ring *rings; /* one per sender thread */
	unsigned nrings;
	uint64_t pub;   /* slots published, every ring */
	bool blocked;   /* the last pump waited for room or an index */
	unsigned end_i; /* FS_END: the next ring to end */
	struct ldb_rp_result *res;
	struct ldb_slog *log;
	struct ldb_audit *audit; /* --audit-log, NULL without */
	struct rd_conn *rc;      /* per replay index: ring r's index i is r * max_conns + i */
	uint32_t *hash;          /* index + 1 by recorded connection number; 0 empty */
	uint32_t hmask;
	int64_t start_ns, end_ns; /* the window in log time */
	int64_t loop_off;         /* this loop's offset (replay time) */
	bool started;
	/* whole-second timestamps spread within their second: per second of
	 * the log (from sec0) the events it holds and those read so far */
	uint32_t (*spread)[2];
	int64_t sec0;
	uint32_t nsec;
	struct ldb_bytes enc;
	/* the pump's state (ldb_rp_feed_pump): where it stopped */
	enum { FS_READ = 0, FS_PASS_END, FS_CLOSE, FS_END, FS_DONE } st;
	unsigned loop;    /* passes done */
	uint32_t close_i; /* FS_CLOSE: the next index to close */
	bool held;        /* ev read, not handled yet (the ring had no room) */
	bool failed;      /* a read error: no further pass */
	int64_t last;     /* the last event's time of the pass */
	struct ldb_slog_event ev;
};

/* ---- the connection table: recorded number -> replay index ---- */

static uint32_t hslot(const struct ldb_rp_feed *f, int64_t srv)
{
	uint64_t h = (uint64_t)srv * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32) & f->hmask;
}

static struct rd_conn *conn_find(struct ldb_rp_feed *f, int64_t srv)
{
	for (uint32_t i = hslot(f, srv);; i = (i + 1) & f->hmask) {
		if (f->hash[i] == 0)
			return NULL;
		if (f->rc[f->hash[i] - 1].srv == srv)
			return &f->rc[f->hash[i] - 1];
	}
}

/* Remove srv's entry, moving the later ones of its run back (linear probing). */
static void conn_unhash(struct ldb_rp_feed *f, int64_t srv)
{
	uint32_t i = hslot(f, srv);
	while (f->rc[f->hash[i] - 1].srv != srv)
		i = (i + 1) & f->hmask;
	for (uint32_t j = (i + 1) & f->hmask; f->hash[j] != 0; j = (j + 1) & f->hmask) {
		uint32_t want = hslot(f, f->rc[f->hash[j] - 1].srv);
		/* entry j may move to i when i lies cyclically in [want, j) */
		if (((j - want) & f->hmask) >= ((j - i) & f->hmask)) {
			f->hash[i] = f->hash[j];
			i = j;
		}
	}
	f->hash[i] = 0;
}

/* The sender thread (ring) of recorded connection srv: a hash of its
 * number, so that a connection's events all go to one thread. */
static unsigned owner(const struct ldb_rp_feed *f, int64_t srv)
{
	uint64_t h = (uint64_t)srv * 0x9e3779b97f4a7c15ULL;
	return f->nrings > 1 ? (unsigned)((h >> 40) % f->nrings) : 0;
}

/* The free indexes of ring t, those its sender handed back taken first. */
static uint32_t free_count(struct ldb_rp_feed *f, unsigned t)
{
	struct ldb_rp_ring *r = &f->rings[t];
	if (r->shared) {
		uint64_t h = atomic_load_explicit(&r->rhead, memory_order_acquire);
		uint64_t tl = atomic_load_explicit(&r->rtail, memory_order_relaxed);
		for (; tl < h; tl++)
			r->free_idx[r->nfree++] = r->ret[tl & (r->rsize - 1)];
		atomic_store_explicit(&r->rtail, tl, memory_order_release);
	}
	return r->nfree;
}

/* A free replay index of ring t (its previous connection closed by the
 * sender: the last one freed, whose buffers are warm), as the feeder's
 * index r * max_conns + i, or -1 when none is free yet. */
static int64_t conn_index(struct ldb_rp_feed *f, unsigned t)
{
	struct ldb_rp_ring *r = &f->rings[t];
	if (free_count(f, t) == 0)
		return -1;
	return (int64_t)t * f->conf->max_conns + r->free_idx[--r->nfree];
}

/* ---- the rings ---- */

/* Free slots of ring t. */
static uint64_t room(const struct ldb_rp_feed *f, unsigned t)
{
	struct ldb_rp_ring *r = &f->rings[t];
	return r->size - (atomic_load_explicit(&r->head, memory_order_relaxed) -
	                  atomic_load_explicit(&r->tail, memory_order_acquire));
}

/* The next slot to fill in ring t; NULL when the ring is full (the pump
 * looks for room before each event: not reached). */
static struct ldb_rp_slot *slot_get(struct ldb_rp_feed *f, unsigned t)
{
	struct ldb_rp_ring *r = &f->rings[t];
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (room(f, t) == 0)
		return NULL;
	struct ldb_rp_slot *s = &r->slot[h & (r->size - 1)];
	memset(s, 0, offsetof(struct ldb_rp_slot, ber));
	s->next = -1;
	return s;
}

static void slot_put(struct ldb_rp_feed *f, unsigned t)
{
	struct ldb_rp_ring *r = &f->rings[t];
	atomic_store_explicit(&r->head, atomic_load_explicit(&r->head, memory_order_relaxed) + 1, memory_order_release);
	f->pub++;
}

/* The ring of the feeder's index idx, and the index in it. */
static unsigned ring_of(const struct ldb_rp_feed *f, uint32_t idx)
{
	return idx / f->conf->max_conns;
}

static uint32_t local_of(const struct ldb_rp_feed *f, uint32_t idx)
{
	return idx % f->conf->max_conns;
}

static int64_t due(const struct ldb_rp_feed *f, int64_t t)
{
	if (f->conf->timing != LDB_RP_RECORDED)
		return 0;
	int64_t d = t > f->start_ns ? t - f->start_ns : 0;
	return f->loop_off + (int64_t)((double)d / f->conf->speed);
}

/* A message without bytes (OPEN, CLOSE, END). */
static int push_plain(struct ldb_rp_feed *f, uint8_t msg, uint32_t idx, int64_t srv, int64_t t)
{
	unsigned r = ring_of(f, idx);
	struct ldb_rp_slot *s = slot_get(f, r);
	if (s == NULL)
		return -1;
	s->msg = msg;
	s->conn = local_of(f, idx);
	s->rec_conn = srv;
	s->op = -1;
	s->due_ns = due(f, t);
	s->after_closes = f->rings[r].closes;
	f->rings[r].closes += msg == LDB_RP_MSG_CLOSE;
	slot_put(f, r);
	return 0;
}

static void skip(struct ldb_rp_feed *f, enum ldb_rp_skip why, uint64_t line)
{
	uint64_t k = f->res->skipped[why];
	ldb_rp_bump(&f->res->skipped[why], 1); /* read live (ldb_rp_bump) */
	if (k < LDB_RP_EXAMPLES)
		f->res->first_line[why][k] = line;
}

/* ---- pending requests ---- */

static void pend_set(struct pend *p, int field, struct ldb_slog_str s)
{
	if (s.p == NULL)
		return;
	if (s.n + 1 > LDB_RP_PEND_BUF - 1u - p->used) {
		p->too_big = true;
		return;
	}
	if (p->used == 0)
		p->used = 1; /* offset 0 means absent */
	memcpy(p->buf + p->used, s.p, s.n);
	p->buf[p->used + s.n] = '\0';
	p->off[field] = p->used;
	p->used = (uint16_t)(p->used + s.n + 1);
}

static void pend_fields(struct pend *p, const struct ldb_slog_event *ev)
{
	pend_set(p, LDB_RP_F_DN, ev->type == LDB_SLOG_OP_SEARCH ? ev->base : ev->dn);
	pend_set(p, LDB_RP_F_FILTER, ev->filter);
	pend_set(p, LDB_RP_F_ATTRS, ev->attrs);
	pend_set(p, LDB_RP_F_NEWRDN, ev->newrdn);
	pend_set(p, LDB_RP_F_NEWSUP, ev->newsuperior);
	pend_set(p, LDB_RP_F_OID, ev->oid);
	pend_set(p, LDB_RP_F_ATTR, ev->attr);
	pend_set(p, LDB_RP_F_METHOD, ev->method);
	pend_set(p, LDB_RP_F_MECH, ev->mech);
	if (ev->scope >= 0)
		p->scope = ev->scope;
	if (ev->deref >= 0)
		p->deref = ev->deref;
	if (ev->deleteoldrdn >= 0)
		p->deleteoldrdn = ev->deleteoldrdn;
}

static void pend_start(struct pend *p, const struct ldb_slog_event *ev)
{
	memset(p, 0, offsetof(struct pend, buf));
	p->has = true;
	p->type = (uint8_t)ev->type;
	p->op = ev->op;
	p->time_ns = ev->time_ns;
	p->line = ev->line;
	p->scope = 2;
	p->deleteoldrdn = 1;
	p->abandon = ev->abandon_op >= 0 ? ev->abandon_op + 1 : ev->abandon_msgid;
	pend_fields(p, ev);
}

/* A write's protocolOp from the audit log into f->enc.  @return
 * LDB_RP_SKIP_NONE, or why not (the caller falls back to --writes). */
static enum ldb_rp_skip audit_encode(struct ldb_rp_feed *f, const struct rd_conn *c, const struct pend *p, bool has_rec,
                                     int err)
{
	static const enum ldb_audit_kind kind[LDB_SLOG_NOPTYPES] = { [LDB_SLOG_OP_ADD] = LDB_AUDIT_ADD,
		                                                     [LDB_SLOG_OP_MODIFY] = LDB_AUDIT_MODIFY,
		                                                     [LDB_SLOG_OP_DELETE] = LDB_AUDIT_DELETE,
		                                                     [LDB_SLOG_OP_MODRDN] = LDB_AUDIT_MODRDN };
	const char *dn = p->off[LDB_RP_F_DN] ? p->buf + p->off[LDB_RP_F_DN] : "";
	if (has_rec && err != 0)
		return LDB_RP_SKIP_NO_AUDIT; /* a failed write left no record */
	const struct ldb_audit_change *ch =
	        ldb_audit_match(f->audit, kind[p->type], dn, strlen(dn), p->time_ns, (uint64_t)c->srv, (uint64_t)p->op);
	if (ch == NULL)
		return LDB_RP_SKIP_NO_AUDIT;
	uint8_t buf[LDB_RP_SLOT_BYTES];
	long n = ldb_audit_encode(ch, buf, sizeof buf);
	if (n < 0)
		return LDB_RP_SKIP_TOO_BIG;
	f->enc.len = 0;
	if (ldb_bytes_append(&f->enc, buf, (size_t)n) != 0)
		return LDB_RP_SKIP_BAD_REQUEST;
	f->res->audit_sent++;
	return LDB_RP_SKIP_NONE;
}

static bool is_write(uint8_t type)
{
	return type == LDB_SLOG_OP_ADD || type == LDB_SLOG_OP_MODIFY || type == LDB_SLOG_OP_DELETE ||
	       type == LDB_SLOG_OP_MODRDN;
}

/* Encode p into a slot and publish it.  @return 0, or -1: the sender stopped. */
static int pend_flush(struct ldb_rp_feed *f, struct rd_conn *c, uint32_t idx, bool has_rec, int err, int64_t n)
{
	struct pend *p = &c->p;
	if (!p->has)
		return 0;
	p->has = false;
	f->enc.len = 0;
	enum ldb_rp_skip why = p->too_big ? LDB_RP_SKIP_TOO_BIG : LDB_RP_SKIP_NO_AUDIT;
	if (!p->too_big && f->audit && is_write(p->type))
		why = audit_encode(f, c, p, has_rec, err);
	if (why == LDB_RP_SKIP_NO_AUDIT) {
		why = ldb_rp_encode(f->conf, p, &f->enc, f->res);
		if (f->audit && why == LDB_RP_SKIP_WRITE)
			why = LDB_RP_SKIP_NO_AUDIT;
	}
	if (why == LDB_RP_SKIP_NONE && f->enc.len > LDB_RP_SLOT_BYTES)
		why = LDB_RP_SKIP_TOO_BIG;
	if (why != LDB_RP_SKIP_NONE) {
		skip(f, why, p->line);
		return 0;
	}
	struct ldb_rp_slot *s = slot_get(f, ring_of(f, idx));
	if (s == NULL)
		return -1;
	s->msg = LDB_RP_MSG_REQ;
	s->type = p->type;
	s->conn = local_of(f, idx);
	s->rec_conn = c->srv;
	s->op = p->type == LDB_SLOG_OP_ABANDON ? p->abandon : p->op;
	s->pipelined = p->pipelined || p->type == LDB_SLOG_OP_ABANDON;
	s->due_ns = due(f, p->time_ns);
	s->has_rec = has_rec;
	s->rec_err = err;
	s->rec_n = n;
	s->len = (uint32_t)f->enc.len;
	memcpy(s->ber, f->enc.data, f->enc.len);
	/* the msgid the request goes with: the recorded op + 1; an abandon's
	 * target in op */
	if (p->type == LDB_SLOG_OP_ABANDON)
		s->rec_n = p->op;
	slot_put(f, ring_of(f, idx));
	return 0;
}

/* The recorded connection of ev, made (and its OPEN sent) when new. */
static struct rd_conn *conn_get(struct ldb_rp_feed *f, const struct ldb_slog_event *ev, uint32_t *idx)
{
	struct rd_conn *c = conn_find(f, ev->conn);
	if (c != NULL) {
		*idx = (uint32_t)(c - f->rc);
		return c;
	}
	int64_t i = conn_index(f, owner(f, ev->conn));
	if (i < 0)
		return NULL;
	c = &f->rc[i];
	memset(c, 0, offsetof(struct rd_conn, p));
	c->p.has = false;
	c->used = true;
	c->srv = ev->conn;
	c->awaiting = -1;
	uint32_t h = hslot(f, ev->conn);
	while (f->hash[h] != 0)
		h = (h + 1) & f->hmask;
	f->hash[h] = (uint32_t)i + 1;
	f->res->conns_read += f->loop == 0; /* the log's, not the passes' */
	*idx = (uint32_t)i;
	return push_plain(f, LDB_RP_MSG_OPEN, (uint32_t)i, ev->conn, ev->time_ns) == 0 ? c : NULL;
}

static int conn_close(struct ldb_rp_feed *f, struct rd_conn *c, uint32_t idx, int64_t t)
{
	if (pend_flush(f, c, idx, false, 0, -1) != 0)
		return -1;
	conn_unhash(f, c->srv);
	c->used = false;
	return push_plain(f, LDB_RP_MSG_CLOSE, idx, c->srv, t);
}

static int on_request(struct ldb_rp_feed *f, const struct ldb_slog_event *ev)
{
	uint32_t idx;
	struct rd_conn *c = conn_get(f, ev, &idx);
	if (c == NULL || pend_flush(f, c, idx, false, 0, -1) != 0)
		return -1;
	if (ev->type < LDB_SLOG_NOPTYPES && f->loop == 0)
		ldb_rp_bump(&f->res->kind[ev->type].read, 1);
	pend_start(&c->p, ev);
	/* after a bind a client sends nothing until its answer (RFC 4511 4.2.1) */
	c->p.pipelined = c->awaiting >= 0 && !c->awaiting_bind;
	c->p.after = c->awaiting;
	if (ev->type == LDB_SLOG_OP_ABANDON || ev->type == LDB_SLOG_OP_UNBIND)
		return pend_flush(f, c, idx, false, 0, -1);
	c->awaiting = ev->op; /* the next request is pipelined until its result */
	c->awaiting_bind = ev->type == LDB_SLOG_OP_BIND;
	return 0;
}

static int on_result(struct ldb_rp_feed *f, const struct ldb_slog_event *ev)
{
	struct rd_conn *c = conn_find(f, ev->conn);
	if (c == NULL)
		return 0; /* a result of a request before the window */
	uint32_t idx = (uint32_t)(c - f->rc);
	int64_t n = ev->nentries;
	if (c->awaiting == ev->op)
		c->awaiting = -1;
	/* a request logged just before the previous one's result: the server
	 * logs a result after sending it, so the order is not known */
	if (c->p.has && c->p.pipelined && c->p.after == ev->op && ev->time_ns - c->p.time_ns < LDB_RP_PIPE_TOL_NS)
		c->p.pipelined = false;
	if (c->p.has && c->p.op == ev->op) {
		if (pend_flush(f, c, idx, true, ev->err, n) != 0)
			return -1;
	} else {
		struct ldb_rp_slot *s = slot_get(f, ring_of(f, idx));
		if (s == NULL)
			return -1;
		s->msg = LDB_RP_MSG_RECRES;
		s->conn = local_of(f, idx);
		s->op = ev->op;
		s->has_rec = true;
		s->rec_err = ev->err;
		s->rec_n = n;
		slot_put(f, ring_of(f, idx));
	}
	if (c->closing && c->awaiting < 0) { /* the close logged before this result */
		c->closing = false;
		return conn_close(f, c, idx, c->close_ns);
	}
	return 0;
}

/* One event of the window.  @return 0, or -1: the sender stopped. */
static int on_event(struct ldb_rp_feed *f, const struct ldb_slog_event *ev)
{
	uint32_t idx;
	struct rd_conn *c;
	switch (ev->kind) {
	case LDB_SLOG_OPEN:
		/* an accept logged after the connection's first operation (slapd's
		 * listener and workers write their lines apart) is the same one */
		return conn_get(f, ev, &idx) ? 0 : -1;
	case LDB_SLOG_REQUEST: return on_request(f, ev);
	case LDB_SLOG_MORE:
		c = conn_find(f, ev->conn);
		if (c != NULL && c->p.has && c->p.op == ev->op)
			pend_fields(&c->p, ev);
		return 0;
	case LDB_SLOG_RESULT: return on_result(f, ev);
	case LDB_SLOG_CLOSE:
		c = conn_find(f, ev->conn);
		if (c != NULL && c->awaiting >= 0 && c->awaiting_bind) {
			/* a bind's result comes after the close (a client that quits on a
			 * refused bind: 389 DS logs the close from another thread); a
			 * server always answers a bind, and the pass's end closes it else */
			c->closing = true;
			c->close_ns = ev->time_ns;
			return 0;
		}
		return c ? conn_close(f, c, (uint32_t)(c - f->rc), ev->time_ns) : 0;
	default: return 0;
	}
}

/* The window's bounds, from the first event's time. */
static void window_start(struct ldb_rp_feed *f, int64_t first)
{
	const struct ldb_rp_conf *c = f->conf;
	f->start_ns = c->from_rel >= 0 ? first + c->from_rel : c->from_ns != INT64_MIN ? c->from_ns : first;
	f->end_ns = c->to_rel >= 0 ? first + c->to_rel : c->to_ns;
	f->res->first_ns = f->start_ns;
	f->started = true;
}

#define SPREAD_MAX_S (7 * 86400) /* a week of whole-second log at most */

/* A log of whole-second timestamps: its events counted per second (a pass
 * of its own over the files).  Nothing when its first event has finer ones. */
static void spread_count(struct ldb_rp_feed *f)
{
	char err[600];
	struct ldb_slog *r = ldb_slog_open(f->conf->logs, f->conf->nlogs, NULL, err, sizeof err);
	struct ldb_slog_event ev;
	while (r != NULL && ldb_slog_next(r, &ev) == 1) {
		if (ev.kind == LDB_SLOG_SKIP)
			continue;
		if (ev.time_res_ns < 1000000000)
			break;
		int64_t sec = ev.time_ns / 1000000000;
		if (f->spread == NULL) {
			f->spread = calloc(SPREAD_MAX_S, sizeof *f->spread);
			f->sec0 = sec;
			if (f->spread == NULL)
				break;
		}
		if (sec >= f->sec0 && sec - f->sec0 < SPREAD_MAX_S) {
			f->spread[sec - f->sec0][0]++;
			if ((uint32_t)(sec - f->sec0) >= f->nsec)
				f->nsec = (uint32_t)(sec - f->sec0) + 1;
		}
	}
	if (r != NULL)
		ldb_slog_close(r);
}

/* ev's time, spread within its second when the log has whole seconds: the
 * k-th of the n events of a second at k/n of it. */
static void spread_time(struct ldb_rp_feed *f, struct ldb_slog_event *ev)
{
	int64_t sec = ev->time_ns / 1000000000;
	if (f->spread == NULL || ev->time_res_ns < 1000000000 || sec < f->sec0 || sec - f->sec0 >= f->nsec)
		return;
	uint32_t *c = f->spread[sec - f->sec0];
	if (c[0] > 0 && c[1] < c[0])
		ev->time_ns = sec * 1000000000 + (int64_t)c[1]++ * 1000000000 / c[0];
}

/* The reader's statistics, their places' file names copied (the reader's
 * own go with it). */
static void keep_stats(struct ldb_rp_feed *f)
{
	struct ldb_rp_result *r = f->res;
	r->slog = *ldb_slog_stats(f->log);
	r->format = (int)ldb_slog_format(f->log);
	for (int w = 0; w < LDB_SLOG_NSKIPS; w++)
		for (int i = 0; i < LDB_SLOG_FIRST_LINES; i++)
			if (r->slog.first[w][i].file) {
				snprintf(r->place_file[w][i], sizeof r->place_file[w][i], "%s",
				         r->slog.first[w][i].file);
				r->slog.first[w][i].file = r->place_file[w][i];
			}
}

static void keep_audit_stats(struct ldb_rp_feed *f)
{
	ldb_audit_finish(f->audit);
	const struct ldb_audit_stats *st = ldb_audit_stats(f->audit);
	for (int k = 0; k < LDB_AUDIT_NKINDS; k++)
		f->res->audit_changes += st->changes[k];
	f->res->audit_unmatched += st->unmatched;
	f->res->audit_dropped_attrs += st->dropped_attrs;
}

static int reopen(struct ldb_rp_feed *f)
{
	char err[600];
	keep_stats(f);
	ldb_slog_close(f->log);
	f->log = ldb_slog_open(f->conf->logs, f->conf->nlogs, NULL, err, sizeof err);
	if (f->log == NULL) {
		snprintf(f->res->error, sizeof f->res->error, "%s", err);
		return -1;
	}
	if (f->audit != NULL) {
		keep_audit_stats(f);
		ldb_audit_close(f->audit);
		f->audit = ldb_audit_open(f->conf->audit, f->conf->naudit, err, sizeof err);
		if (f->audit == NULL) {
			snprintf(f->res->error, sizeof f->res->error, "%s", err);
			return -1;
		}
	}
	return 0;
}

/* Room for any one event: an open, the previous pending request and the
 * new one (an abandon or unbind goes at once). */
#define EVENT_SLOTS 3

/* The next event of the window into f->ev (held until handled).  @return 1
 * one, 0 the pass is over (its end, --to, or a read error said in res). */
static int next_event(struct ldb_rp_feed *f)
{
	int rc;
	if (f->held)
		return 1;
	while ((rc = ldb_slog_next(f->log, &f->ev)) == 1) {
		struct ldb_slog_event *ev = &f->ev;
		if (ev->kind == LDB_SLOG_SKIP)
			continue;
		spread_time(f, ev);
		if (!f->started)
			window_start(f, ev->time_ns);
		if (ev->time_ns < f->start_ns)
			continue;
		if (ev->time_ns >= f->end_ns)
			return 0;
		if (ev->time_ns > f->last)
			f->last = ev->time_ns;
		f->held = true;
		return 1;
	}
	if (rc < 0) {
		snprintf(f->res->error, sizeof f->res->error, "%s", ldb_slog_error(f->log));
		f->failed = true;
	}
	return 0;
}

/* f->ev handled when the ring has room for it and, for a new connection, an
 * index is free.  @return true handled, false it waits. */
static bool take_event(struct ldb_rp_feed *f)
{
	const struct ldb_slog_event *ev = &f->ev;
	unsigned t = owner(f, ev->conn);
	if (room(f, t) < EVENT_SLOTS)
		return false;
	if ((ev->kind == LDB_SLOG_OPEN || ev->kind == LDB_SLOG_REQUEST) && conn_find(f, ev->conn) == NULL) {
		if (free_count(f, t) == 0)
			return false;
	}
	on_event(f, ev);
	f->held = false;
	return true;
}

/* The end of a pass: its window's length, its open connections closed (as
 * room allows), the next pass started.  @return false: it waits for room. */
static bool pass_end(struct ldb_rp_feed *f)
{
	if (f->st == FS_PASS_END) {
		if (!f->started) {
			f->st = FS_END; /* no event at all */
			return true;
		}
		int64_t end = f->end_ns != INT64_MAX ? f->end_ns : f->last;
		f->res->window_ns = end > f->start_ns ? end - f->start_ns : 0;
		f->close_i = 0;
		f->st = FS_CLOSE;
	}
	int64_t end = f->start_ns + f->res->window_ns;
	for (; f->close_i < f->nrings * f->conf->max_conns; f->close_i++) {
		struct rd_conn *c = &f->rc[f->close_i];
		if (!c->used)
			continue;
		if (room(f, ring_of(f, f->close_i)) < 2)
			return false;
		conn_close(f, c, f->close_i, end);
	}
	f->loop_off += (int64_t)((double)f->res->window_ns / f->conf->speed) + 1000000;
	f->st = FS_END;
	if (++f->loop < f->conf->loops && !f->failed && reopen(f) == 0) {
		for (uint32_t i = 0; f->spread && i < f->nsec; i++)
			f->spread[i][1] = 0;
		f->st = FS_READ;
		f->res->passes = f->loop + 1;
	}
	return true;
}

/* The reader's and audit's statistics kept, END published on every ring.
 * @return false: a ring had no room (the next pump goes on). */
static bool feed_end(struct ldb_rp_feed *f)
{
	for (; f->end_i < f->nrings; f->end_i++) {
		struct ldb_rp_slot *s = slot_get(f, f->end_i);
		if (s == NULL)
			return false;
		s->msg = LDB_RP_MSG_END;
		s->op = -1;
		slot_put(f, f->end_i);
	}
	if (f->log != NULL)
		keep_stats(f);
	if (f->audit != NULL)
		keep_audit_stats(f);
	f->st = FS_DONE;
	return true;
}

uint32_t ldb_rp_feed_pump(struct ldb_rp_feed *f, uint32_t budget, bool *done)
{
	uint64_t h0 = f->pub;
	f->blocked = false;
	/* events that publish nothing (a search's second line, a skip) count
	 * for a quarter of a slot: the pump's time stays bounded */
	for (uint32_t events = 0; f->pub - h0 < budget && events < 4 * budget; events++) {
		if (f->st == FS_READ) {
			if (next_event(f) == 0)
				f->st = FS_PASS_END;
			else if (!take_event(f))
				f->blocked = true;
		} else if (f->st == FS_PASS_END || f->st == FS_CLOSE) {
			f->blocked = !pass_end(f);
		} else {
			if (f->st == FS_END)
				f->blocked = !feed_end(f);
			break;
		}
		if (f->blocked)
			break;
	}
	*done = f->st == FS_DONE;
	return (uint32_t)(f->pub - h0);
}

bool ldb_rp_feed_blocked(const struct ldb_rp_feed *f)
{
	return f->blocked;
}

struct ldb_rp_feed *ldb_rp_feed_new(const struct ldb_rp_conf *conf, struct ldb_rp_ring *rings, unsigned nrings,
                                    struct ldb_rp_result *res, char *err, size_t errlen)
{
	struct ldb_rp_feed *f = calloc(1, sizeof *f);
	uint32_t hs = 16;
	while (hs < 2 * nrings * conf->max_conns)
		hs *= 2;
	if (f != NULL) {
		f->rc = calloc((size_t)nrings * conf->max_conns, sizeof *f->rc);
		f->hash = calloc(hs, sizeof *f->hash);
	}
	if (f == NULL || f->rc == NULL || f->hash == NULL) {
		snprintf(err, errlen, "out of memory");
		ldb_rp_feed_free(f);
		return NULL;
	}
	f->conf = conf;
	f->rings = rings;
	f->nrings = nrings;
	f->res = res;
	f->hmask = hs - 1;
	f->last = INT64_MIN;
	f->log = ldb_slog_open(conf->logs, conf->nlogs, NULL, err, errlen);
	if (f->log != NULL && conf->naudit > 0)
		f->audit = ldb_audit_open(conf->audit, conf->naudit, err, errlen);
	if (f->log == NULL || (conf->naudit > 0 && f->audit == NULL)) {
		ldb_rp_feed_free(f);
		return NULL;
	}
	if (conf->timing == LDB_RP_RECORDED)
		spread_count(f);
	res->passes = 1;
	return f;
}

void ldb_rp_feed_stop(struct ldb_rp_feed *f)
{
	if (f->st == FS_DONE)
		return;
	if (f->log != NULL)
		keep_stats(f);
	if (f->audit != NULL)
		keep_audit_stats(f);
	if (f->started && f->loop == 0 && f->res->window_ns == 0 && f->last > f->start_ns)
		f->res->window_ns = f->last - f->start_ns;
	f->st = FS_DONE;
}

void ldb_rp_feed_free(struct ldb_rp_feed *f)
{
	if (f == NULL)
		return;
	if (f->log != NULL)
		ldb_slog_close(f->log);
	if (f->audit != NULL)
		ldb_audit_close(f->audit);
	ldb_bytes_free(&f->enc);
	free(f->rc);
	free(f->hash);
	free(f->spread);
	free(f);
}
