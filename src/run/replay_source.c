/* The replay as a request source (run/source.h): the recorded connections
 * dealt to this part's ring become the engine's connections (run/conn.c over
 * run/link.h) on an I/O thread of its own (run/iothread.c).  The source keeps
 * each connection's queue of the ring's slots and decides when its head
 * goes: its due time (a connection deadline), an OPEN parked until the closes
 * before it are done (asap), a CLOSE or an unbind after the answers (at most
 * --drain), a head that cannot go given up after --drain; the answers are
 * counted and compared with the recorded results into the part's struct
 * ldb_rp_result.  After its start it allocates nothing, takes no lock and
 * prints nothing. */
#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"
#include "run/clock.h"
#include "run/conn.h"
#include "run/replay.h"
#include "run/replay_part.h"
#include "run/signals.h"

#define IN_CAP (32 * 1024)
#define OUT_CAP (8 * 1024 + 64)
/* A connection's requests awaiting an answer, at most: the engine's slots,
 * the slot of message id ID being (ID - 1) % INFLIGHT. */
#define INFLIGHT 64
#define SIG_CHECK_NS 10000000 /* a pending signal is looked for every 10 ms, not per event */
/* Slots published by the feeder per pump, at most (one thread: the pump
 * runs between a send and the wait for its answer) */
#define PUMP_BATCH 16
enum { TAG_STOP = 1, TAG_WAKE }; /* the epoll tags of the stop and wake eventfds (below LDB_EV_TAGS) */

enum { R_IDLE = 0, R_CONNECTING, R_UP, R_DEAD, R_DONE };
enum { F_EMPTY = 0, F_SENT, F_NOREC }; /* F_NOREC: answered, the recorded result not read yet */

/* A request in flight, or answered with its recorded result still to come. */
struct infl {
	uint8_t st, type;
	bool has_rec;
	int rec_err, got_err;
	int64_t op, rec_n, got_n;
	uint64_t t0; /* the latency's start */
};

/* The replay's state of one connection, beside the engine's struct ldb_conn. */
struct rpconn {
	uint8_t st; /* R_* */
	bool lost;
	bool parked;    /* its OPEN waits for closes (asap): not looked at until one */
	int32_t qh, qt; /* the queue of slot indexes, -1 empty */
	unsigned outstanding;
	uint64_t close_since; /* when its CLOSE reached the queue's head, 0 */
	uint64_t stall_since; /* when its due request head first could not go, 0 */
	int64_t rec_conn;
	struct infl fl[INFLIGHT];
};

/* The replay's state of one I/O thread's client (w->src). */
struct rpsrc {
	const struct ldb_rp_conf *conf;
	struct ldb_rp_share *share; /* SIGINT/SIGTERM, looked for every SIG_CHECK_NS by part 0 */
	unsigned tid;
	uint64_t sig_next;
	struct ldb_rp_ring *ring;
	struct ldb_rp_feed *feed;
	bool fed; /* the feeder published its END */
	struct ldb_rp_result *res;
	struct ldb_client *w;
	struct rpconn *c;
	uint32_t *parked, nparked;
	uint32_t queued; /* connections with a request, OPEN or CLOSE queued */
	uint64_t seen;   /* ring positions moved into the queues */
	uint64_t start;  /* the replay's time 0 (monotonic ns) */
	uint64_t last;   /* the last answer or close */
	bool end;        /* the ring's END was read */
	bool stopped;    /* a signal: the client ends */
	bool opening;    /* inside ldb_conn_open: a connect refused at once is no connection opened */
	bool refused;
	uint64_t closes; /* CLOSE messages done */
	bool gave;       /* room or an index given back to the reader thread since its last wake */
};

static struct rpsrc *src_of(const struct ldb_conn *cn)
{
	return cn->w->src;
}

static struct rpconn *rp_of(const struct ldb_conn *cn)
{
	return &src_of(cn)->c[cn - cn->w->conns];
}

static int32_t msgid_of(int64_t op)
{
	return (int32_t)(op % 2147483646 + 1);
}

static int slot_of(int32_t id)
{
	return (id - 1) % INFLIGHT;
}

/* A recorded result that came after its request was published. */
static void compare(struct rpsrc *s, const struct infl *f, int64_t rec_conn)
{
	struct ldb_rp_kind_stats *k = &s->res->kind[f->type];
	bool code = f->rec_err != f->got_err;
	bool ents = f->type == LDB_SLOG_OP_SEARCH && f->rec_n >= 0 && f->rec_n != f->got_n;
	k->compared++;
	if (!code && !ents)
		return;
	ldb_rp_bump(&k->differ, 1); /* read live by the sampler */
	k->diff_code += code;
	k->diff_entries += ents;
	if (k->ndiff_ex < LDB_RP_EXAMPLES)
		k->diff_ex[k->ndiff_ex++] =
		        (struct ldb_rp_diff){ .conn = rec_conn,
			                      .op = f->op,
			                      .rec_err = f->rec_err,
			                      .got_err = f->got_err,
			                      .rec_n = f->type == LDB_SLOG_OP_SEARCH ? f->rec_n : -1,
			                      .got_n = f->type == LDB_SLOG_OP_SEARCH ? f->got_n : -1 };
}

static void on_recres(struct rpsrc *s, const struct ldb_rp_slot *sl)
{
	struct rpconn *c = &s->c[sl->conn];
	struct infl *f = &c->fl[slot_of(msgid_of(sl->op))];
	for (int32_t q = c->qh; q >= 0; q = s->ring->slot[q].next) {
		struct ldb_rp_slot *r = &s->ring->slot[q];
		if (r->msg == LDB_RP_MSG_REQ && r->op == sl->op && r->type != LDB_SLOG_OP_ABANDON) {
			r->has_rec = true; /* not sent yet */
			r->rec_err = sl->rec_err;
			r->rec_n = sl->rec_n;
			return;
		}
	}
	if (f->op != sl->op || f->st == F_EMPTY)
		return; /* not sent (skipped), or its entry reused */
	f->has_rec = true;
	f->rec_err = sl->rec_err;
	f->rec_n = sl->rec_n;
	if (f->st == F_NOREC) {
		compare(s, f, c->rec_conn);
		f->st = F_EMPTY;
	}
}

/* The published slots into their connections' queues; a connection with a
 * new head is stepped this round. */
static void pull(struct rpsrc *s)
{
	struct ldb_rp_ring *r = s->ring;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	for (; s->seen < h; s->seen++) {
		int32_t i = (int32_t)(s->seen & (r->size - 1));
		struct ldb_rp_slot *sl = &r->slot[i];
		if (sl->msg == LDB_RP_MSG_END || sl->msg == LDB_RP_MSG_RECRES) {
			if (sl->msg == LDB_RP_MSG_END) {
				s->end = true;
				s->w->exhausted = s->queued == 0; /* finished */
			} else
				on_recres(s, sl);
			sl->done = true;
			continue;
		}
		struct rpconn *c = &s->c[sl->conn];
		if (c->qh < 0) {
			c->qh = i;
			s->queued++;
			if (!c->parked)
				conn_wake(&s->w->conns[sl->conn]);
		} else {
			r->slot[c->qt].next = i;
		}
		c->qt = i;
	}
}

/* The reader thread woken when it waits for room or an index this part
 * gave back (with one thread there is none). */
static void wake_reader(struct rpsrc *s)
{
	struct ldb_rp_share *sh = s->share;
	if (!s->gave)
		return;
	s->gave = false;
	/* both sides swap the flag (run/replay_run's wake_senders): the reader
	 * sees the tail or index stored before, or this reads its true */
	uint64_t one = 1;
	if (atomic_exchange(&sh->reader_waits, false) && write(sh->room_fd, &one, sizeof one) < 0)
		return; /* the reader looks again within its 10 ms anyway */
}

static void release_tail(struct rpsrc *s)
{
	struct ldb_rp_ring *r = s->ring;
	uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed), t0 = t;
	while (t < s->seen && r->slot[t & (r->size - 1)].done)
		t++;
	if (t == t0)
		return;
	atomic_store_explicit(&r->tail, t, memory_order_release);
	s->gave = s->gave || r->shared;
}

static void pop(struct rpsrc *s, struct rpconn *c)
{
	struct ldb_rp_slot *sl = &s->ring->slot[c->qh];
	sl->done = true;
	c->qh = sl->next;
	c->stall_since = 0;
	if (c->qh < 0) {
		c->qt = -1;
		s->queued--;
		s->w->exhausted = s->end && s->queued == 0; /* finished */
	}
}

/* The connection closed, its state for the next recorded connection. */
static void conn_closed(struct ldb_conn *cn, struct rpconn *c, bool graceful)
{
	memset(c->fl, 0, sizeof c->fl);
	c->outstanding = 0;
	ldb_conn_close(cn, graceful);
	conn_set_state(cn, CS_IDLE);
}

static void conn_fail(struct rpsrc *s, struct ldb_conn *cn, const char *why, int e)
{
	if (s->res->conn_error[0] == '\0')
		snprintf(s->res->conn_error, sizeof s->res->conn_error, "%s: %s", why, strerror(e));
	s->res->conns_failed++;
	conn_closed(cn, rp_of(cn), false);
	rp_of(cn)->st = R_DEAD;
}

/* Answers that will not come: counted unanswered, the connection closed. */
static void conn_drop(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c)
{
	for (int i = 0; i < INFLIGHT; i++)
		if (c->fl[i].st == F_SENT)
			ldb_rp_bump(&s->res->unanswered, 1);
	conn_closed(cn, c, true);
}

static void conn_lost(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c)
{
	conn_drop(s, cn, c);
	c->st = R_DEAD;
	c->lost = true;
}

static int socket_error(int fd)
{
	int e = 0;
	socklen_t l = sizeof e;
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
		return errno ? errno : ECONNREFUSED;
	return e;
}

/* A TCP connect not yet known to have worked failed (no byte moved). */
static void connect_failed(struct rpsrc *s, struct ldb_conn *cn)
{
	int e = socket_error(cn->ln.fd);
	conn_fail(s, cn, "connect", e ? e : cn->ln.sock_err ? cn->ln.sock_err : ECONNREFUSED);
}

static void flush_out(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c)
{
	if (c->st != R_UP || cn->ln.out_off >= cn->ln.out_len || ldb_conn_flush(cn) == 0)
		return;
	if (cn->unconfirmed) {
		connect_failed(s, cn);
		return;
	}
	s->res->conns_lost++;
	conn_lost(s, cn, c);
}

/* The request at the queue head written out.  @return true when it was,
 * false when it must wait (an answer first, its slot, no room). */
static bool send_req(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c, const struct ldb_rp_slot *sl, uint64_t now,
                     uint64_t due)
{
	bool oneway = sl->type == LDB_SLOG_OP_UNBIND || sl->type == LDB_SLOG_OP_ABANDON;
	int32_t id = msgid_of(sl->type == LDB_SLOG_OP_ABANDON ? sl->rec_n : sl->op);
	int i = slot_of(id);
	struct infl *f = &c->fl[i];
	/* an unbind waits for the answers, and so does a bind whatever the log's
	 * order: a server abandons what is outstanding when a bind arrives */
	bool alone = !sl->pipelined || sl->type == LDB_SLOG_OP_UNBIND || sl->type == LDB_SLOG_OP_BIND;
	if (alone && c->outstanding > 0)
		return false;
	if (!oneway && f->st == F_SENT)
		return false;
	if (cn->ln.out_cap - cn->ln.out_len < sl->len + LDB_WIRE_ENVELOPE_MAX)
		return false;
	ldb_link_put(&cn->ln, id, sl->ber, sl->len);
	ldb_rp_bump(&s->res->kind[sl->type].sent, 1); /* read live by the sampler */
	if (s->conf->timing == LDB_RP_RECORDED)
		ldb_hist_record(&s->res->late, now > due ? now - due : 0);
	if (oneway)
		return true;
	*f = (struct infl){ .st = F_SENT,
		            .type = sl->type,
		            .has_rec = sl->has_rec,
		            .rec_err = sl->rec_err,
		            .rec_n = sl->rec_n,
		            .op = sl->op,
		            .t0 = s->conf->timing == LDB_RP_RECORDED ? due : now };
	/* the engine's slot: its answers are framed to it (run/conn.c) */
	ldb_slot_open(cn, i, id, now);
	c->outstanding++;
	return true;
}

static void conn_close(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c)
{
	uint32_t idx = (uint32_t)(cn - cn->w->conns);
	conn_drop(s, cn, c);
	c->st = R_IDLE;
	c->close_since = 0;
	s->last = ldb_now_ns();
	struct ldb_rp_ring *r = s->ring;
	if (!r->shared) {
		r->free_idx[r->nfree++] = idx;
		return;
	}
	/* to the reader thread: never full (an index is on it at most once) */
	uint64_t h = atomic_load_explicit(&r->rhead, memory_order_relaxed);
	r->ret[h & (r->rsize - 1)] = idx;
	atomic_store_explicit(&r->rhead, h + 1, memory_order_release);
	s->gave = true;
}

/* A close done: the parked connections whose OPEN may now go woken (the
 * others stay parked: a look at each, not a step). */
static void unpark(struct rpsrc *s)
{
	uint32_t kept = 0;
	for (uint32_t k = 0; k < s->nparked; k++) {
		struct rpconn *c = &s->c[s->parked[k]];
		if (s->ring->slot[c->qh].after_closes > s->closes) {
			s->parked[kept++] = s->parked[k];
			continue;
		}
		c->parked = false;
		conn_wake(&s->w->conns[s->parked[k]]);
	}
	s->nparked = kept;
}

/* The due head cannot go: it waits for its connection's set-up, for
 * answers, or for room to write; at most --drain from when it first could
 * not, then what it waits for is given up: the set-up fails the connection,
 * the answers missing count unanswered, a connection whose writes do not
 * drain is lost.  @return true when given up (the head is looked at again). */
static bool stalled(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c, uint64_t now, uint64_t *next)
{
	if (c->stall_since == 0)
		c->stall_since = now;
	uint64_t end = c->stall_since + (uint64_t)s->conf->drain_ns;
	if (now < end) {
		*next = end < *next ? end : *next;
		return false;
	}
	c->stall_since = 0;
	if (c->st == R_CONNECTING) {
		conn_fail(s, cn, "connection set-up (--drain)", ETIMEDOUT);
	} else if (c->outstanding > 0) {
		for (int i = 0; i < INFLIGHT; i++)
			if (c->fl[i].st == F_SENT) {
				ldb_rp_bump(&s->res->unanswered, 1);
				c->fl[i].st = F_EMPTY;
				cn->slots[i].used = 0; /* a late answer is ignored */
			}
		c->outstanding = 0;
		cn->inflight = 0;
	} else {
		s->res->conns_lost++;
		conn_lost(s, cn, c);
	}
	return true;
}

static void open_conn(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c, uint64_t now)
{
	c->st = R_CONNECTING;
	c->outstanding = 0;
	c->lost = false;
	s->opening = true;
	s->refused = false;
	ldb_conn_open(cn, now); /* the engine's: TCP, then ldaps or StartTLS, then ldb_replay_up */
	s->opening = false;
	if (!s->refused)
		s->res->conns_opened++;
}

/* The CLOSE at the head, once the answers are in (or --drain passed).
 * @return false to wait. */
static bool close_head(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c, uint64_t now, uint64_t *next)
{
	if (c->close_since == 0)
		c->close_since = now;
	if (c->outstanding > 0 && now - c->close_since < (uint64_t)s->conf->drain_ns) {
		uint64_t t = c->close_since + (uint64_t)s->conf->drain_ns;
		*next = t < *next ? t : *next;
		return false;
	}
	conn_close(s, cn, c);
	s->closes++;
	unpark(s);
	return true;
}

/* The head of the queue, when it may go.  @return true to look at the next. */
static bool head_step(struct rpsrc *s, struct ldb_conn *cn, struct rpconn *c, uint64_t now, uint64_t *next)
{
	struct ldb_rp_slot *sl = &s->ring->slot[c->qh];
	uint64_t due = s->start + (uint64_t)sl->due_ns;
	if (due > now) {
		*next = due < *next ? due : *next;
		return false;
	}
	if (sl->msg == LDB_RP_MSG_OPEN) {
		/* asap keeps the recorded concurrency: a connection opens once
		 * those closed before it opened are closed */
		if (s->conf->timing == LDB_RP_ASAP && s->closes < sl->after_closes) {
			c->parked = true;
			s->parked[s->nparked++] = (uint32_t)(cn - cn->w->conns);
			return false;
		}
		c->rec_conn = sl->rec_conn;
		open_conn(s, cn, c, now);
	} else if (sl->msg == LDB_RP_MSG_CLOSE) {
		if (!close_head(s, cn, c, now, next))
			return false;
	} else if (c->st == R_DEAD || c->st == R_IDLE || c->st == R_DONE) {
		if (c->st != R_DONE)
			ldb_rp_bump(c->lost ? &s->res->ops_conn_lost : &s->res->ops_conn_failed, 1);
	} else if (c->st == R_CONNECTING || !send_req(s, cn, c, sl, now, due)) {
		return stalled(s, cn, c, now, next);
	} else if (sl->type == LDB_SLOG_OP_UNBIND) {
		flush_out(s, cn, c);
		if (c->st == R_UP)
			conn_drop(s, cn, c);
		c->st = R_DONE;
	}
	pop(s, c);
	return true;
}

/* The connection moved on as far as it can, its writes flushed, its next
 * due time its deadline. */
void ldb_replay_step(struct ldb_conn *cn, uint64_t now)
{
	struct rpsrc *s = src_of(cn);
	struct rpconn *c = rp_of(cn);
	uint64_t next = UINT64_MAX;
	if (c->parked || s->stopped)
		return;
	if (c->st == R_CONNECTING && cn->state == CS_READY && !cn->unconfirmed)
		c->st = R_UP; /* its TCP connect is known to have worked (the EPOLLOUT edge) */
	while (c->qh >= 0 && !c->parked && head_step(s, cn, c, now, &next))
		;
	if (cn->ln.fd >= 0 && cn->ln.out_off < cn->ln.out_len)
		flush_out(s, cn, c);
	if (next != UINT64_MAX)
		conn_watch(cn, next);
}

/* Its transport is ready; none of the log's requests goes on it before its
 * TCP connect is known to have worked (a plain connection is up at once: its
 * connect's EPOLLOUT edge wakes it), so that a refused connection sent
 * nothing. */
void ldb_replay_up(struct ldb_conn *cn, uint64_t now)
{
	(void)now;
	conn_set_state(cn, CS_READY);
	if (!cn->unconfirmed)
		rp_of(cn)->st = R_UP;
	conn_wake(cn);
}

static bool is_result(uint8_t op)
{
	return op == 0x61 || op == 0x65 || op == 0x67 || op == 0x69 || op == 0x6b || op == 0x6d || op == 0x6f ||
	       op == 0x78;
}

void ldb_replay_result(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now)
{
	(void)msg;
	struct rpsrc *s = src_of(cn);
	struct rpconn *c = rp_of(cn);
	struct infl *f = &c->fl[i];
	if (!is_result(r->op) || f->st != F_SENT)
		return; /* references, intermediate responses */
	struct ldb_slot *es = &cn->slots[i];
	es->used = 0;
	cn->inflight--;
	f->got_n = (int64_t)es->entries;
	struct ldb_rp_kind_stats *k = &s->res->kind[f->type];
	k->answered++;
	ldb_hist_record(&k->lat, now > f->t0 ? now - f->t0 : 0);
	int slot = ldb_code_slot(r->result); /* one writer; the replay's sampler reads it */
	ldb_rp_bump(&k->codes[slot], 1);
	f->got_err = r->result;
	s->last = now;
	c->outstanding--;
	if (f->has_rec) {
		compare(s, f, c->rec_conn);
		f->st = F_EMPTY;
	} else {
		f->st = F_NOREC;
	}
}

/* It broke: a connect that failed, answers that are not LDAP, or the
 * server's end of the stream (lost with answers missing). */
void ldb_replay_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	(void)why;
	(void)now;
	struct rpsrc *s = src_of(cn);
	struct rpconn *c = rp_of(cn);
	if (cn->unconfirmed) {
		connect_failed(s, cn);
		return;
	}
	if (cn->garbled)
		s->res->proto_errors++;
	else
		s->res->conns_lost += c->outstanding > 0;
	conn_lost(s, cn, c);
}

void ldb_replay_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now)
{
	(void)now;
	struct rpsrc *s = src_of(cn);
	if (kind == LDB_FAIL_CONNECT) {
		if (s->opening)
			s->refused = true;
		conn_fail(s, cn, why != NULL && strncmp(why, "no socket", 9) == 0 ? "socket" : "connect", err);
		return;
	}
	if (s->res->conn_error[0] == '\0')
		snprintf(s->res->conn_error, sizeof s->res->conn_error, "TLS: %.190s",
		         why != NULL && why[0] ? why : "TLS handshake failed");
	conn_fail(s, cn, "TLS", 0);
}

void ldb_replay_deadline(struct ldb_conn *cn, uint64_t now)
{
	(void)now;
	conn_wake(cn);
}

/* ---------------- the I/O thread's round */

int ldb_replay_open(struct ldb_iothread *r, int epfd)
{
	struct rpsrc *s = r->w[0].src;
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_STOP };
	if (s->share->stop_fd >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, s->share->stop_fd, &ev) != 0)
		return -1;
	ev.data.u64 = TAG_WAKE;
	if (s->ring->wake_fd >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, s->ring->wake_fd, &ev) != 0)
		return -1;
	return 0;
}

/* A SIGINT or SIGTERM: the replay stops, what it sent is reported, and the
 * requests in flight count unanswered.  Part 0 takes the signal and tells
 * the others (the shared flag, and the eventfd that wakes their waits). */
static bool signalled(struct rpsrc *s, uint64_t now)
{
	if (now < s->sig_next)
		return false;
	s->sig_next = now + SIG_CHECK_NS;
	struct ldb_rp_share *sh = s->share;
	bool stop = atomic_load_explicit(&sh->stop, memory_order_relaxed);
	if (!stop && s->tid == 0 && ldb_signals_wait(sh->sig, 0)) {
		stop = true;
		atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
		uint64_t one = 1;
		if (sh->stop_fd >= 0 && write(sh->stop_fd, &one, sizeof one) < 0)
			stop = true; /* the others still see the flag within 10 ms */
	}
	if (!stop)
		return false;
	s->res->interrupted = true;
	for (int i = 0; i < s->w->nconns; i++)
		if (s->w->conns[i].ln.fd >= 0)
			conn_drop(s, &s->w->conns[i], &s->c[i]);
	s->stopped = true;
	s->w->exhausted = true; /* finished */
	return true;
}

void ldb_replay_round(struct ldb_iothread *r, uint64_t now, int *alive)
{
	struct ldb_client *w = &r->w[0];
	struct rpsrc *s = w->src;
	if (w->ended)
		return;
	atomic_store_explicit(&s->ring->sleeping, false, memory_order_relaxed);
	pull(s);
	if (signalled(s, now) || ldb_replay_finished(w))
		ldb_client_end(r, w, alive);
}

/* The feeder's turn (one thread): when the ring has room for a batch.
 * @return true when it published (the new slots are looked at before any
 * wait). */
static bool feed(struct rpsrc *s)
{
	struct ldb_rp_ring *r = s->ring;
	if (s->feed == NULL || s->fed ||
	    r->size - (atomic_load_explicit(&r->head, memory_order_relaxed) -
	               atomic_load_explicit(&r->tail, memory_order_relaxed)) <
	            PUMP_BATCH)
		return false;
	return ldb_rp_feed_pump(s->feed, PUMP_BATCH, &s->fed) > 0;
}

/* Before the wait: the ring's slots done given back, the feeder pumped,
 * the reader woken; with a reader thread the sleeping flag set, then the
 * ring looked at again (the reader publishes, then swaps the flag: both
 * swap it, so one of them sees the other).  A signal is looked for every
 * 10 ms while the schedule waits. */
uint64_t ldb_replay_wait(struct ldb_iothread *r, uint64_t now, uint64_t wake)
{
	struct rpsrc *s = r->w[0].src;
	if (r->w[0].ended)
		return wake;
	release_tail(s);
	if (feed(s))
		wake = now;
	wake_reader(s);
	if (wake > now + SIG_CHECK_NS)
		wake = now + SIG_CHECK_NS;
	if (wake > now && s->ring->shared) {
		atomic_exchange(&s->ring->sleeping, true);
		if (atomic_load_explicit(&s->ring->head, memory_order_acquire) != s->seen)
			wake = now;
	}
	return wake;
}

void ldb_replay_event(struct ldb_iothread *r, unsigned tag)
{
	struct rpsrc *s = r->w[0].src;
	uint64_t n;
	if (tag == TAG_STOP)
		s->sig_next = 0; /* another part took a signal */
	else if (tag == TAG_WAKE && read(s->ring->wake_fd, &n, sizeof n) < 0)
		return; /* EAGAIN: already read */
}

/* ---------------- the part's I/O thread */

/* The client's connections: the engine's, sized for the replay (a longer
 * answer is skipped: memory bounded by connections, run/link.h). */
static int client_init(struct ldb_client *w, struct ldb_run *run, struct ldb_thread_stats *st, struct rpsrc *s)
{
	uint32_t n = s->conf->max_conns;
	memset(w, 0, sizeof *w);
	w->run = run;
	w->st = st;
	w->epfd = -1;
	w->src = s;
	w->nconns = (int)n;
	w->conns = calloc(n, sizeof *w->conns);
	s->c = calloc(n, sizeof *s->c);
	s->parked = calloc(n, sizeof *s->parked);
	if (w->conns == NULL || s->c == NULL || s->parked == NULL)
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		struct ldb_conn *cn = &w->conns[k];
		s->c[k].qh = s->c[k].qt = -1;
		cn->w = w;
		cn->ln.fd = -1;
		cn->depth = INFLIGHT;
		cn->id_span = (int32_t)((0x7ffffff0 / cn->depth) * cn->depth);
		cn->ln.in = malloc(IN_CAP);
		cn->ln.out = malloc(OUT_CAP);
		cn->ln.in_cap = cn->ln.in_max = IN_CAP;
		cn->ln.out_cap = OUT_CAP;
		cn->slots = calloc(INFLIGHT, sizeof *cn->slots);
		if (cn->ln.in == NULL || cn->ln.out == NULL || cn->slots == NULL)
			return -1;
	}
	return 0;
}

/* The engine's run for the replay: the target and its TLS, StartTLS's
 * request, 64 requests in flight per connection, one client, no goodbye of
 * its own (the replay's CLOSE and unbind are the log's).  The replay has no
 * load configuration: run->cfg stays NULL, the engine reads its settings
 * from the run (run/run.h). */
static int run_init(struct ldb_run *run, const struct ldb_rp_conf *conf, const struct ldb_rp_share *sh)
{
	memset(run, 0, sizeof *run);
	run->cfg = NULL;
	run->nclients = 1;
	run->close_sock = true;
	memcpy(&run->addr, &sh->addr, sizeof run->addr);
	run->addrlen = sh->addrlen;
	run->target = *conf->target;
	run->target.ldaps = conf->tls != NULL && conf->target->ldaps;
	run->target.starttls = conf->tls != NULL && conf->target->starttls;
	union {
		const struct ldb_tls *c;
		struct ldb_tls *m;
	} tls = { .c = conf->tls }; /* the engine only reads it */
	run->tls = tls.m;
	run->source = LDB_SOURCE_REPLAY;
	run->depth = INFLIGHT;
	/* the engine's deadline for a connect and its set-up: the replay's own
	 * (--drain, from when a due request first waits) comes first */
	run->timeout_ns = (uint64_t)conf->drain_ns;
	run->t_start = ldb_now_ns();
	run->line_fd = -1;
	if (!run->target.starttls)
		return 0;
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	int rc = ldb_wire_encode_extended(&b, LDB_STARTTLS_OID, NULL, 0, 0, werr) != 0 ||
	         ldb_reqset_build_fixed(&run->starttls, b.data, b.len) != 0;
	ldb_bytes_free(&b);
	return rc ? -1 : 0;
}

int ldb_rp_source_run(const struct ldb_rp_conf *conf, struct ldb_rp_part *p)
{
	struct rpsrc s = { .conf = conf,
		           .share = p->share,
		           .tid = p->tid,
		           .ring = p->ring,
		           .feed = p->feed,
		           .res = p->res,
		           .start = p->share->start };
	struct ldb_run *run = calloc(1, sizeof *run);
	struct ldb_thread_stats *st = calloc(1, sizeof *st);
	struct ldb_iothread *r = calloc(1, sizeof *r);
	struct ldb_client w = { 0 };
	s.w = &w;
	int rc = run && st && r && run_init(run, conf, p->share) == 0 && client_init(&w, run, st, &s) == 0 ? 0 : -1;
	if (rc == 0) {
		r->w = &w;
		r->nw = 1;
		w.lat = &r->lat;
		feed(&s);
		ldb_iothread_main(r);
		rc = r->error[0] ? -1 : 0;
	}
	if (s.feed != NULL && !s.fed)
		ldb_rp_feed_stop(s.feed); /* a signal: the log's figures as far as read */
	if (s.res->elapsed_ns == 0 && s.start)
		s.res->elapsed_ns = (int64_t)(s.last > s.start ? s.last - s.start : 0);
	if (w.conns != NULL)
		ldb_client_free(&w);
	if (run != NULL)
		ldb_reqset_free(&run->starttls);
	free(s.c);
	free(s.parked);
	free(run);
	free(st);
	free(r);
	return rc;
}
