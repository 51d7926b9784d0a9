/* The replay's sender (run/replay.h): one epoll loop over the replay's
 * connections, each opened, written and read through run/link.h.  After its start it allocates nothing, takes no lock and
 * prints nothing: the ring's slots, the connections' fixed buffers and the
 * result's counters and histograms are all it touches. */
#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"
#include "run/clock.h"
#include "run/replay.h"
#include "run/link.h"
#include "run/replay_part.h"
#include "run/signals.h"

#define IN_CAP (32 * 1024)
#define OUT_CAP (8 * 1024 + 64)
#define INFLIGHT 64 /* a connection's requests awaiting an answer, at most */
#define NEVENTS 64
#define STOP_IDX UINT32_MAX       /* the epoll entry of the shared stop eventfd */
#define WAKE_IDX (UINT32_MAX - 1) /* the ring's wake eventfd (a reader thread's new slots) */
/* StartTLS's message id: one the log's requests never take (their ids are
 * op % 2147483646 + 1). */
#define STARTTLS_ID 2147483647

enum { S_IDLE = 0, S_CONNECTING, S_UP, S_DEAD, S_DONE };
/* A connection's set-up after its connect() was started: until it is up, none
 * of the log's requests goes on it (a certificate that does not verify fails
 * the handshake before any LDAP byte: no bind, no password, to that peer). */
enum { PH_TCP = 0, PH_ANSWER, PH_HANDSHAKE, PH_UP };
enum { F_EMPTY = 0, F_SENT, F_NOREC }; /* F_NOREC: answered, the recorded result not read yet */

struct infl {
	uint8_t st, type;
	bool has_rec;
	int32_t msgid;
	int rec_err, got_err;
	int64_t op, rec_n, got_n;
	uint64_t t0; /* the latency's start */
};

struct sconn {
	struct ldb_link ln; /* socket, TLS, buffers (run/link.h) */
	uint8_t st;
	uint8_t phase; /* PH_*, while S_CONNECTING */
	bool active, lost;
	bool parked;    /* its OPEN waits for closes (asap): not looked at until one */
	int32_t qh, qt; /* the queue of slot indexes, -1 empty */
	unsigned outstanding;
	uint64_t close_since; /* when its CLOSE reached the queue's head, 0 */
	uint64_t stall_since; /* when its due request head first could not go, 0 */
	int64_t rec_conn;
	struct infl fl[INFLIGHT];
};

struct sender {
	const struct ldb_rp_conf *conf;
	struct ldb_rp_share *share; /* SIGINT/SIGTERM, looked for every SIG_CHECK_NS by thread 0 */
	unsigned tid;
	uint64_t sig_next;
	struct ldb_rp_ring *ring;
	struct ldb_rp_feed *feed;
	bool fed; /* the feeder published its END */
	struct ldb_rp_result *res;
	struct sconn *c;
	uint32_t *active, nactive;
	uint32_t *parked, nparked;
	uint8_t *bufs;
	int ep;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint64_t seen;  /* ring positions moved into the queues */
	uint64_t start; /* the replay's time 0 (monotonic ns), 0 before the first slot */
	uint64_t last;  /* the last answer or close */
	bool end;
	bool no_pwait2;               /* epoll_pwait2 is not there: epoll_wait */
	uint64_t closes;              /* CLOSE messages done */
	bool gave;                    /* room or an index given back to the reader thread since its last wake */
	bool starttls;                /* TLS after a StartTLS exchange (else from the first byte) */
	struct ldb_bytes starttls_op; /* its ExtendedRequest (LDB_STARTTLS_OID), encoded once */
	struct ldb_tls_session slot;  /* the sender's TLS session slot (run/tls.h) */
};

static int32_t msgid_of(int64_t op)
{
	return (int32_t)(op % 2147483646 + 1);
}

static void activate(struct sender *s, uint32_t i)
{
	if (!s->c[i].active && !s->c[i].parked) {
		s->c[i].active = true;
		s->active[s->nactive++] = i;
	}
}

/* A recorded result that came after its request was published. */
static void compare(struct sender *s, const struct infl *f, int64_t rec_conn)
{
	struct ldb_rp_kind_stats *k = &s->res->kind[f->type];
	bool code = f->rec_err != f->got_err;
	bool ents = f->type == LDB_SLOG_OP_SEARCH && f->rec_n >= 0 && f->rec_n != f->got_n;
	k->compared++;
	if (!code && !ents)
		return;
	k->differ++;
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

static void on_recres(struct sender *s, const struct ldb_rp_slot *sl)
{
	struct sconn *c = &s->c[sl->conn];
	struct infl *f = &c->fl[msgid_of(sl->op) % INFLIGHT];
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

/* The published slots into their connections' queues. */
static void pull(struct sender *s)
{
	struct ldb_rp_ring *r = s->ring;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
	for (; s->seen < h; s->seen++) {
		int32_t i = (int32_t)(s->seen & (r->size - 1));
		struct ldb_rp_slot *sl = &r->slot[i];
		if (sl->msg == LDB_RP_MSG_END || sl->msg == LDB_RP_MSG_RECRES) {
			if (sl->msg == LDB_RP_MSG_END)
				s->end = true;
			else
				on_recres(s, sl);
			sl->done = true;
			continue;
		}
		struct sconn *c = &s->c[sl->conn];
		if (c->qh < 0)
			c->qh = i;
		else
			r->slot[c->qt].next = i;
		c->qt = i;
		activate(s, sl->conn);
	}
}

/* The reader thread woken when it waits for room or an index this sender
 * gave back (with one thread there is none). */
static void wake_reader(struct sender *s)
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

static void release_tail(struct sender *s)
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

static void pop(struct sender *s, struct sconn *c)
{
	struct ldb_rp_slot *sl = &s->ring->slot[c->qh];
	sl->done = true;
	c->qh = sl->next;
	c->stall_since = 0;
	if (c->qh < 0)
		c->qt = -1;
}

static void conn_fail(struct sender *s, struct sconn *c, const char *why, int e)
{
	if (s->res->conn_error[0] == '\0')
		snprintf(s->res->conn_error, sizeof s->res->conn_error, "%s: %s", why, strerror(e));
	s->res->conns_failed++;
	ldb_link_close(&c->ln, false);
	c->st = S_DEAD;
}

static void conn_open(struct sender *s, struct sconn *c, uint32_t idx)
{
	/* both edges from the start: the connect's end is the EPOLLOUT edge */
	const char *what = "connect";
	int e = ldb_link_connect(&c->ln, &s->addr, s->addrlen, NULL, 0, true, s->ep, EPOLLIN | EPOLLOUT,
	                         (epoll_data_t){ .u32 = idx }, &what);
	if (e != 0) {
		conn_fail(s, c, what, e);
		return;
	}
	c->st = S_CONNECTING;
	c->phase = PH_TCP;
	c->outstanding = 0;
	c->lost = false;
	s->res->conns_opened++;
}

/* Answers that will not come: counted unanswered. */
static void conn_drop(struct sender *s, struct sconn *c)
{
	for (int i = 0; i < INFLIGHT; i++)
		if (c->fl[i].st == F_SENT) {
			s->res->unanswered++;
		}
	memset(c->fl, 0, sizeof c->fl);
	c->outstanding = 0;
	ldb_link_close(&c->ln, true); /* epoll forgets it */
}

static void flush_out(struct sender *s, struct sconn *c)
{
	bool moved = false;
	if (c->st == S_UP && c->ln.out_off < c->ln.out_len && ldb_link_flush(&c->ln, &moved) != 0) {
		s->res->conns_lost++;
		conn_drop(s, c);
		c->st = S_DEAD;
		c->lost = true;
	}
}

/* The request at c's queue head written out.  @return true when it was,
 * false when it must wait (not due, an answer first, no room). */
static bool send_req(struct sender *s, struct sconn *c, const struct ldb_rp_slot *sl, uint64_t now, uint64_t due)
{
	bool oneway = sl->type == LDB_SLOG_OP_UNBIND || sl->type == LDB_SLOG_OP_ABANDON;
	int32_t id = msgid_of(sl->type == LDB_SLOG_OP_ABANDON ? sl->rec_n : sl->op);
	struct infl *f = &c->fl[id % INFLIGHT];
	/* an unbind waits for the answers, and so does a bind whatever the log's
	 * order: a server abandons what is outstanding when a bind arrives */
	bool alone = !sl->pipelined || sl->type == LDB_SLOG_OP_UNBIND || sl->type == LDB_SLOG_OP_BIND;
	if (alone && c->outstanding > 0)
		return false;
	if (!oneway && f->st == F_SENT)
		return false;
	if (c->ln.out_cap - c->ln.out_len < sl->len + LDB_WIRE_ENVELOPE_MAX)
		return false;
	ldb_link_put(&c->ln, id, sl->ber, sl->len);
	struct ldb_rp_kind_stats *k = &s->res->kind[sl->type];
	k->sent++;
	if (s->conf->timing == LDB_RP_RECORDED)
		ldb_hist_record(&s->res->late, now > due ? now - due : 0);
	if (oneway)
		return true;
	if (f->st == F_NOREC)
		f->st = F_EMPTY; /* its recorded result never came */
	*f = (struct infl){ .st = F_SENT,
		            .type = sl->type,
		            .has_rec = sl->has_rec,
		            .msgid = id,
		            .rec_err = sl->rec_err,
		            .rec_n = sl->rec_n,
		            .op = sl->op,
		            .t0 = s->conf->timing == LDB_RP_RECORDED ? due : now };
	c->outstanding++;
	return true;
}

static void conn_close(struct sender *s, struct sconn *c, uint32_t idx)
{
	conn_drop(s, c);
	c->st = S_IDLE;
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

/* A close done: the parked connections looked at again (each parks again
 * while its OPEN still waits), a pass per close rather than per event. */
static void unpark(struct sender *s)
{
	for (uint32_t k = 0; k < s->nparked; k++) {
		s->c[s->parked[k]].parked = false;
		activate(s, s->parked[k]);
	}
	s->nparked = 0;
}

/* The due head of c's queue cannot go: it waits for its connection's set-up,
 * for answers, or for room to write; at most --drain from when it first
 * could not, then what it waits for is given up: the set-up fails the
 * connection, the answers missing count unanswered, a connection whose
 * writes do not drain is lost.  @return true when given up (the head is
 * looked at again). */
static bool stalled(struct sender *s, struct sconn *c, uint64_t now, uint64_t *next)
{
	if (c->stall_since == 0)
		c->stall_since = now;
	uint64_t end = c->stall_since + (uint64_t)s->conf->drain_ns;
	if (now < end) {
		*next = end < *next ? end : *next;
		return false;
	}
	c->stall_since = 0;
	if (c->st == S_CONNECTING) {
		conn_fail(s, c, "connection set-up (--drain)", ETIMEDOUT);
	} else if (c->outstanding > 0) {
		for (int i = 0; i < INFLIGHT; i++)
			if (c->fl[i].st == F_SENT) {
				s->res->unanswered++;
				c->fl[i].st = F_EMPTY; /* a late answer is ignored */
			}
		c->outstanding = 0;
	} else {
		s->res->conns_lost++;
		conn_drop(s, c);
		c->st = S_DEAD;
		c->lost = true;
	}
	return true;
}

/* The head of c's queue, when it may go.  @return true to look at the next. */
static bool step(struct sender *s, struct sconn *c, uint32_t idx, uint64_t now, uint64_t *next)
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
			return false;
		}
		c->rec_conn = sl->rec_conn;
		conn_open(s, c, idx);
	} else if (sl->msg == LDB_RP_MSG_CLOSE) {
		if (c->close_since == 0)
			c->close_since = now;
		if (c->outstanding > 0 && now - c->close_since < (uint64_t)s->conf->drain_ns) {
			uint64_t t = c->close_since + (uint64_t)s->conf->drain_ns;
			*next = t < *next ? t : *next;
			return false;
		}
		conn_close(s, c, idx);
		s->closes++;
		unpark(s);
	} else if (c->st == S_DEAD || c->st == S_IDLE || c->st == S_DONE) {
		if (c->st != S_DONE)
			*(c->lost ? &s->res->ops_conn_lost : &s->res->ops_conn_failed) += 1;
	} else if (c->st == S_CONNECTING || !send_req(s, c, sl, now, due)) {
		return stalled(s, c, now, next);
	} else if (sl->type == LDB_SLOG_OP_UNBIND) {
		flush_out(s, c);
		conn_drop(s, c);
		c->st = S_DONE;
	}
	pop(s, c);
	return true;
}

/* Every active connection moved on as far as it can.  @return the next due time. */
static uint64_t progress(struct sender *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (uint32_t k = 0; k < s->nactive;) {
		uint32_t i = s->active[k];
		struct sconn *c = &s->c[i];
		while (c->qh >= 0 && step(s, c, i, now, &next))
			;
		if (c->ln.out_off < c->ln.out_len)
			flush_out(s, c);
		if (c->parked)
			s->parked[s->nparked++] = i;
		if (c->qh < 0 || c->parked) {
			c->active = false;
			s->active[k] = s->active[--s->nactive];
		} else {
			k++;
		}
	}
	return next;
}

static bool is_result(uint8_t op)
{
	return op == 0x61 || op == 0x65 || op == 0x67 || op == 0x69 || op == 0x6b || op == 0x6d || op == 0x6f ||
	       op == 0x78;
}

static void on_answer(struct sender *s, struct sconn *c, int32_t id, uint8_t op, int code)
{
	struct infl *f = &c->fl[id % INFLIGHT];
	if (id == 0 || f->st != F_SENT || f->msgid != id)
		return; /* a notice of disconnection, or an abandoned request's */
	if (op == 0x64) {
		f->got_n++;
		return;
	}
	if (!is_result(op))
		return; /* references, intermediate responses */
	uint64_t now = ldb_now_ns();
	struct ldb_rp_kind_stats *k = &s->res->kind[f->type];
	k->answered++;
	ldb_hist_record(&k->lat, now > f->t0 ? now - f->t0 : 0);
	int slot = ldb_code_slot(code); /* one writer; the replay's sampler reads it */
	__atomic_store_n(&k->codes[slot], k->codes[slot] + 1, __ATOMIC_RELAXED);
	f->got_err = code;
	s->last = now;
	c->outstanding--;
	if (f->has_rec) {
		compare(s, f, c->rec_conn);
		f->st = F_EMPTY;
	} else {
		f->st = F_NOREC;
	}
}

/* The answers in c's input buffer (one longer than it: its id and type
 * from its first bytes, the rest skipped, run/link.h).  @return 0, or -1
 * not LDAP. */
static int parse_in(struct sender *s, struct sconn *c)
{
	size_t pos = 0;
	for (;;) {
		struct ldb_resp r;
		int rc = ldb_link_frame(&c->ln, &pos, &r);
		if (rc == LDB_LINK_BROKEN)
			return -1;
		if (rc == LDB_LINK_PARTIAL) {
			ldb_link_consumed(&c->ln, pos);
			return 0;
		}
		on_answer(s, c, r.msgid, r.op, r.result);
	}
}

static void read_in(struct sender *s, struct sconn *c)
{
	for (;;) {
		int more = ldb_link_fill(&c->ln, false);
		if (parse_in(s, c) != 0) {
			s->res->proto_errors++;
			conn_drop(s, c);
			c->st = S_DEAD;
			c->lost = true;
			return;
		}
		if (more < 0) {
			s->res->conns_lost += c->outstanding > 0;
			conn_drop(s, c);
			c->st = S_DEAD;
			c->lost = true;
			return;
		}
		if (more == 0)
			return; /* drained: the next bytes make a new edge */
	}
}

/* StartTLS's answer, when it has come.  @return 1 success, 0 wait, -1
 * failed with one line in why. */
static int starttls_answer(struct sconn *c, char *why, size_t cap)
{
	bool moved = false;
	if (ldb_link_flush(&c->ln, &moved) != 0) {
		snprintf(why, cap, "StartTLS: %s", strerror(c->ln.sock_err ? c->ln.sock_err : EPIPE));
		return -1;
	}
	if (c->ln.out_len > 0)
		return 0; /* the rest of the request at the next edge */
	int more = ldb_link_fill(&c->ln, false);
	size_t pos = 0;
	struct ldb_resp r;
	int rc = ldb_link_frame(&c->ln, &pos, &r);
	if (rc == LDB_LINK_PARTIAL && more >= 0)
		return 0; /* the rest of it is on its way */
	if (rc == LDB_LINK_PARTIAL) {
		snprintf(why, cap, "StartTLS: the server closed the connection");
		return -1;
	}
	if (rc != LDB_LINK_MSG || r.msgid != STARTTLS_ID || r.op != LDAP_RES_EXTENDED) {
		snprintf(why, cap, "StartTLS: the answer is not an extended response to it");
		return -1;
	}
	if (r.result != LDAP_SUCCESS) {
		snprintf(why, cap, "StartTLS refused, error=%d (%s)", r.result, ldap_err2string(r.result));
		return -1;
	}
	c->ln.in_len = 0; /* the server says nothing more before the handshake */
	return 1;
}

/* The set-up's next steps once the TCP connect succeeded: StartTLS and the
 * TLS handshake, when the target wants them.  @return 1 up, 0 waiting for
 * the socket, -1 failed with one line in why. */
static int setup_step(struct sender *s, struct sconn *c, char *why, size_t cap)
{
	const struct ldb_tls *tls = s->conf->tls;
	if (c->phase == PH_TCP && tls == NULL)
		c->phase = PH_UP;
	if (c->phase == PH_TCP && s->starttls) {
		ldb_link_put(&c->ln, STARTTLS_ID, s->starttls_op.data, s->starttls_op.len);
		c->phase = PH_ANSWER;
	} else if (c->phase == PH_TCP) {
		if (ldb_link_tls_begin(&c->ln, tls, &s->slot, why, cap) != 0)
			return -1;
		c->phase = PH_HANDSHAKE;
	}
	if (c->phase == PH_ANSWER) {
		int rc = starttls_answer(c, why, cap);
		if (rc <= 0)
			return rc;
		if (ldb_link_tls_begin(&c->ln, tls, &s->slot, why, cap) != 0)
			return -1;
		c->phase = PH_HANDSHAKE;
	}
	if (c->phase == PH_HANDSHAKE) {
		int rc = ldb_link_handshake(&c->ln, why, cap);
		if (rc == LDB_TLS_WANT_READ || rc == LDB_TLS_WANT_WRITE)
			return 0; /* both edges are armed: the next one steps on */
		if (rc != LDB_TLS_OK) {
			if (why[0] == '\0')
				snprintf(why, cap, "TLS handshake failed");
			return -1;
		}
		c->phase = PH_UP;
	}
	return 1;
}

/* @return true when the connection is ready for the log's requests. */
static bool setup(struct sender *s, struct sconn *c)
{
	char why[256] = "";
	int rc = setup_step(s, c, why, sizeof why);
	if (rc < 0) {
		if (s->res->conn_error[0] == '\0')
			snprintf(s->res->conn_error, sizeof s->res->conn_error, "TLS: %.190s", why);
		conn_fail(s, c, "TLS", 0);
	}
	return rc > 0;
}

static void on_io(struct sender *s, uint32_t idx, uint32_t events)
{
	struct sconn *c = &s->c[idx];
	if (c->ln.fd < 0)
		return;
	if (c->st == S_CONNECTING) {
		int e = 0;
		socklen_t l = sizeof e;
		if (c->phase == PH_TCP && !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (c->phase == PH_TCP && (getsockopt(c->ln.fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0 || e != 0)) {
			conn_fail(s, c, "connect", e ? e : errno);
			return;
		}
		if (!setup(s, c))
			return;
		c->st = S_UP;
		activate(s, idx);
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP) || (c->ln.rd_wants_wr && (events & EPOLLOUT)))
		read_in(s, c);
	if (c->st == S_UP && (events & EPOLLOUT || (c->ln.wr_wants_rd && (events & EPOLLIN))))
		flush_out(s, c);
	if (c->qh >= 0)
		activate(s, idx);
}

/* epoll_pwait2 for its ns timeout; where the kernel (before 5.11) or
 * valgrind lacks it, epoll_wait with the timeout rounded up to a ms. */
static int wait_io(struct sender *s, struct epoll_event *ev, int64_t wait)
{
	if (!s->no_pwait2) {
		struct timespec ts = { wait / 1000000000, wait % 1000000000 };
		int n = epoll_pwait2(s->ep, ev, NEVENTS, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		s->no_pwait2 = true;
	}
	return epoll_wait(s->ep, ev, NEVENTS, (int)((wait + 999999) / 1000000));
}

#define SIG_CHECK_NS 10000000 /* a pending signal is looked for every 10 ms, not per event */

/* A SIGINT or SIGTERM: the replay stops, what it sent is reported, and the
 * requests in flight count unanswered.  Thread 0 takes the signal and tells
 * the others (the shared flag, and the eventfd that wakes their waits). */
static bool signalled(struct sender *s, uint64_t now)
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
	for (uint32_t i = 0; i < s->conf->max_conns; i++)
		if (s->c[i].ln.fd >= 0)
			conn_drop(s, &s->c[i]);
	return true;
}

/* Slots published by the feeder per pump, at most: the pump runs between a
 * send and the wait for its answer, a few microseconds, not a ring's worth */
#define PUMP_BATCH 16

/* The feeder's turn: when the ring has room for a batch.  @return true
 * when it published (the new slots are looked at before any wait). */
static bool feed(struct sender *s)
{
	struct ldb_rp_ring *r = s->ring;
	if (s->feed == NULL || s->fed ||
	    r->size - (atomic_load_explicit(&r->head, memory_order_relaxed) -
	               atomic_load_explicit(&r->tail, memory_order_relaxed)) <
	            PUMP_BATCH)
		return false;
	return ldb_rp_feed_pump(s->feed, PUMP_BATCH, &s->fed) > 0;
}

/* Before a wait, with a reader thread: the sleeping flag set, then the ring
 * looked at again (the reader publishes, then swaps the flag: both swap it,
 * so one of them sees the other).  @return false: new slots, no wait. */
static bool sleep_ok(struct sender *s)
{
	struct ldb_rp_ring *r = s->ring;
	if (!r->shared)
		return true;
	atomic_exchange(&r->sleeping, true);
	return atomic_load_explicit(&r->head, memory_order_acquire) == s->seen;
}

static void woken(struct sender *s)
{
	uint64_t n;
	if (read(s->ring->wake_fd, &n, sizeof n) < 0)
		return; /* EAGAIN: already read */
}

static void loop(struct sender *s)
{
	struct epoll_event ev[NEVENTS];
	feed(s);
	while (!s->end || s->nactive > 0 || s->nparked > 0) {
		pull(s);
		uint64_t now = ldb_now_ns(), next = progress(s, now);
		if (signalled(s, now))
			break;
		release_tail(s);
		if (s->end && s->nactive == 0 && s->nparked == 0)
			break;
		int64_t wait = next == UINT64_MAX ? SIG_CHECK_NS : (int64_t)(next - now);
		if (wait > SIG_CHECK_NS)
			wait = SIG_CHECK_NS; /* a signal is looked for every 10 ms while the schedule waits */
		if (feed(s))
			wait = 0; /* what it published may go at once */
		wake_reader(s);
		if (wait > 0 && !sleep_ok(s))
			wait = 0;
		int n = wait_io(s, ev, wait);
		atomic_store_explicit(&s->ring->sleeping, false, memory_order_relaxed);
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u32 == STOP_IDX)
				s->sig_next = 0; /* another thread took a signal */
			else if (ev[i].data.u32 == WAKE_IDX)
				woken(s);
			else
				on_io(s, ev[i].data.u32, ev[i].events);
		}
	}
	if (s->feed != NULL && !s->fed)
		ldb_rp_feed_stop(s->feed); /* a signal: the log's figures as far as read */
	if (s->res->elapsed_ns == 0 && s->start)
		s->res->elapsed_ns = (int64_t)(s->last > s->start ? s->last - s->start : 0);
}

static int sender_init(struct sender *s)
{
	uint32_t n = s->conf->max_conns;
	s->c = calloc(n, sizeof *s->c);
	s->active = calloc(n, sizeof *s->active);
	s->parked = calloc(n, sizeof *s->parked);
	s->bufs = malloc((size_t)n * (IN_CAP + OUT_CAP));
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->c == NULL || s->active == NULL || s->parked == NULL || s->bufs == NULL || s->ep < 0)
		return -1;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = STOP_IDX };
	if (s->share->stop_fd >= 0 && epoll_ctl(s->ep, EPOLL_CTL_ADD, s->share->stop_fd, &ev) != 0)
		return -1;
	ev.data.u32 = WAKE_IDX;
	if (s->ring->wake_fd >= 0 && epoll_ctl(s->ep, EPOLL_CTL_ADD, s->ring->wake_fd, &ev) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct ldb_link *l = &s->c[i].ln;
		s->c[i].qh = s->c[i].qt = -1;
		l->fd = -1;
		l->in = s->bufs + (size_t)i * (IN_CAP + OUT_CAP);
		l->in_cap = l->in_max = IN_CAP; /* a longer answer is skipped: memory bounded by connections */
		l->out = l->in + IN_CAP;
		l->out_cap = OUT_CAP;
	}
	return 0;
}

static void sender_free(struct sender *s)
{
	for (uint32_t i = 0; s->c && i < s->conf->max_conns; i++)
		ldb_link_release(&s->c[i].ln);
	ldb_tls_session_free(&s->slot);
	if (s->ep >= 0)
		close(s->ep);
	free(s->c);
	free(s->active);
	free(s->parked);
	free(s->bufs);
}

int ldb_rp_sender_run(const struct ldb_rp_conf *conf, struct ldb_rp_part *p)
{
	struct sender s = { .conf = conf,
		            .share = p->share,
		            .tid = p->tid,
		            .ring = p->ring,
		            .feed = p->feed,
		            .res = p->res,
		            .ep = -1,
		            .start = p->share->start };
	memcpy(&s.addr, &p->share->addr, sizeof s.addr);
	s.addrlen = p->share->addrlen;
	/* StartTLS's request, encoded from its OID as the load's (run/setup) */
	char werr[LDB_WIRE_ERRLEN];
	s.starttls = conf->tls != NULL && conf->target->starttls;
	int rc = s.starttls && ldb_wire_encode_extended(&s.starttls_op, LDB_STARTTLS_OID, NULL, 0, 0, werr) != 0 ? -1
	                                                                                                         : 0;
	if (rc == 0)
		rc = sender_init(&s) != 0 ? -1 : 0;
	if (rc == 0)
		loop(&s);
	sender_free(&s);
	ldb_bytes_free(&s.starttls_op);
	return rc;
}
