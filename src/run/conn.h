/* The worker's private types (worker.h is its public face): logical
 * clients (ldclt's threads) on I/O threads, each I/O
 * thread an epoll loop over the connections of its clients.
 *
 * A connection is a small state machine:
 *   IDLE -> CONNECTING -> (STARTTLS) -> (TLS) -> (BINDING) -> READY,
 * with requests in flight up to the depth; with bindeach, one pass per
 * connection: ... -> OP -> unbind/close -> IDLE.
 * One operation of the load is a pass: the run's kinds in ldclt's order
 * (add, modify, delete, bind, search, rename), each with the same number, one
 * after the other on one slot; with --mix, one kind drawn by weight.
 * Requests are rendered from start-up templates (search, bind) or by the
 * write renderer into the connection's output buffer, and written in one send
 * per batch; responses are framed out of large reads.  A connection holds its
 * buffers while busy only (run/bufpool: its I/O thread's pool, which grows by
 * bounded chunks when more connections are busy at once than ever before).
 * Nothing here allocates (but for that, a buffer that must grow to hold one
 * unusually large message, and a TLS session object per handshake) or locks; nothing prints but ldclt's line
 * for a failed operation (run/errlines.c: off the success path, a stack
 * buffer and one write(2), at most 10 a second per client and code).
 *
 * An I/O thread touches only what is ready: the connections of its epoll
 * events, those on its ready list (work without an event: a slot came free,
 * a back-off ended, a pacing deadline passed) and the due entries of its
 * deadline heap.  Each connection has one deadline: the end of its back-off
 * when idle, else the earliest time something on it may time out (-t), kept
 * lazily: it is armed when a request goes out and none is armed, and when it
 * passes the connection's slots are looked at and it is armed again.
 */
#ifndef LDBENCH_RUN_CONN_H
#define LDBENCH_RUN_CONN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/types.h>

#include "run/link.h"
#include "run/run.h"
#include "run/held.h"

#define RETRY_CAP (64 * 1024)
#define LDB_CONN_IN_MAX (64 * 1024 * 1024) /* a message longer breaks the connection */
#define REPL_SLOT (1 + LDB_REPL_RUN)       /* cn->repl_run's bytes per slot */

/* What a deadline entry belongs to. */
enum { TM_CONN, TM_PACE };

enum cstate { CS_IDLE, CS_CONNECTING, CS_STARTTLS, CS_TLS, CS_BINDING, CS_READY, CS_OP };

/* What a slot's request is, besides an operation of the load (SETUP_SYNC:
 * the WhoAmI that paces kinds without a response, below). */
enum { SETUP_NONE, SETUP_BIND, SETUP_STARTTLS, SETUP_SYNC, SETUP_TAG };

/* A kind without a response (abandon) is paced by the server's progress:
 * after this many of them a connection sends a WhoAmI (the run's marker) and
 * issues no new operation until its answer, which slapd sends only once it
 * has worked through every request before it.  slapd closes a connection
 * with more than conn_max_pending requests waiting (100 anonymous, 1000
 * bound), dropping them; an abandon operation is two requests (the search,
 * its abandon), so 32 of them, the WhoAmI and a pipeline's passes still
 * under way stay below the smaller limit, and the round trip is paid once
 * per 64 requests.  Not tied to -a: an abandon holds no slot. */
#define SYNC_EVERY 32

struct ldb_slot {
	int32_t msgid;
	uint8_t kind; /* enum ldb_op of the request in flight */
	uint8_t used;
	uint8_t setup;    /* SETUP_*: not an operation of the load */
	uint8_t counts;   /* an operation of the load: ldclt's count, -T */
	uint8_t step;     /* position in the run's pass */
	uint8_t aux;      /* ancestors being created above an add (0: the add itself) */
	uint16_t round;   /* multi-step operations: which of its requests is in flight (0 the first) */
	uint64_t t0;      /* start: the intended one with --rate */
	uint64_t t_first; /* when its first request was put on the wire */
	uint64_t t_sent;  /* when the request in flight was put on the wire (a multi-step operation's last) */
	uint64_t entries;
	uint32_t gen;
	uint32_t order;   /* --op-log: its request's position on the connection (the server's op=) */
	uint32_t conn_no; /* --op-log: its connection's number */
	int64_t v, bv;    /* the pass's numbers */
};

struct ldb_conn {
	struct ldb_client *w;
	struct ldb_link ln; /* the transport: socket, TLS, buffers (run/link.h) */
	enum cstate state;
	bool ever_up;     /* connected (and bound) once: the next one is a reconnect */
	bool proven;      /* this connection has had an answer (or a bind) */
	bool unconfirmed; /* TCP connect not yet known to have worked */
	uint64_t t_connect;
	uint64_t t_tls;
	uint64_t t_cycle;
	uint64_t t_due;            /* --rate: intended start of the operation being issued */
	uint64_t t_freed;          /* --rate: a slot last came free (or the connection came up) */
	int64_t cycle_v, cycle_bv; /* bindeach: the pass's numbers */
	uint64_t retry_at;
	uint32_t backoff_ms;
	struct ldb_timer tm; /* back-off end (idle), or when something may time out */
	struct ldb_conn *ready_next;
	bool queued; /* on its I/O thread's ready list */
	bool picked; /* --held: the connection a probe goes on (run/held) */
	struct ldb_slot *slots;
	int depth; /* slots in use at most */
	int inflight;
	uint16_t unsynced; /* operations without a response sent since the last sync */
	bool syncing;      /* a sync (SETUP_SYNC) is in flight: no new operation */
	int32_t id_span;   /* message ids cycle in [1, id_span] */
	uint32_t conn_no;  /* --op-log: the run's number of this connection (its tag's) */
	uint32_t nreq;     /* --op-log: requests rendered on it since it opened */
	bool tagged;       /* --op-log: its tag has been answered */
	bool garbled;      /* its input was not LDAP (the replay counts it apart) */
	/* set once at set-up (run/iothread.c), so that a run without them pays a
	 * flag's test: some kind of the run has steps (a flow), reads its entries
	 * or keeps a step state (ldb_conn_steps); --held or --connect-rate watch
	 * the state changes (run/held) */
	bool steps;
	bool watch_states;
	/* last: the hot fields above share a few cache lines, 10,000 connections too */
	uint8_t *retry; /* the add waiting for its parents (depth 1 only) */
	size_t retry_len;
	size_t retry_dnlen;
	char *retry_dn; /* its DN: LDB_DN_MAX bytes, allocated with retry */
	/* -S with attreplace or object= rdn=: what each slot's request wrote that
	 * the watchers cannot rebuild from its numbers (attreplace's random run,
	 * the template's RDN), REPL_SLOT bytes a slot: its length (0: nothing;
	 * 255: too long to carry), then the bytes; NULL otherwise */
	char *repl_run;
	/* multi-step operations: each slot's step state, run->ops.state_room
	 * bytes a slot (NULL when no kind of the run has several steps) */
	uint8_t *step_state;
};

/* ------------------------------------------------ hot helpers, inlined */

static inline bool run_stopping(const struct ldb_run *run)
{
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED) != LDB_STOP_NONE;
}

static inline void worker_die(struct ldb_client *w, int status)
{
	if (status > w->st->status)
		w->st->status = status;
	w->exhausted = true;
}

static inline int pass_length(const struct ldb_run *run)
{
	return run->mix_total ? 1 : run->npass;
}

/* Slot i takes a request with message id `id` sent at `now`, answered by the
 * engine's framing (run/conn.c) to the source: no step, no entries yet. */
static inline void ldb_slot_open(struct ldb_conn *cn, int i, int32_t id, uint64_t now)
{
	struct ldb_slot *s = &cn->slots[i];
	s->used = 1;
	s->msgid = id;
	s->setup = SETUP_NONE;
	s->entries = 0;
	s->t0 = s->t_sent = s->t_first = now;
	cn->inflight++;
}

/* Work for this connection without an event: its I/O thread steps it once
 * this round of events and deadlines is over. */
static inline void conn_wake(struct ldb_conn *cn)
{
	struct ldb_iothread *r = cn->w->runner;
	if (cn->queued)
		return;
	cn->queued = true;
	cn->ready_next = NULL;
	*r->ready_tail = cn;
	r->ready_tail = &cn->ready_next;
}

/* Look at this connection again at `at` at the latest (its one deadline
 * keeps the earliest asked for; the heap has room for every entry). */
static inline void conn_watch(struct ldb_conn *cn, uint64_t at)
{
	(void)ldb_timer_arm_before(&cn->w->runner->timers, &cn->tm, at);
}

/* When a request sent (or a connect begun) at `now` times out (-t). */
static inline uint64_t timeout_at(const struct ldb_conn *cn, uint64_t now)
{
	return now + cn->w->run->timeout_ns + 1;
}

/* The connection ramp's counts: a state's class, 0 idle, 1 being opened,
 * 2 up; a change of class moves the client's counts. */
static inline int cstate_class(enum cstate s)
{
	return s == CS_IDLE ? 0 : s == CS_READY || s == CS_OP ? 2 : 1;
}
static inline void conn_set_state(struct ldb_conn *cn, enum cstate s)
{
	int from = cstate_class(cn->state), to = cstate_class(s);
	cn->state = s;
	if (from == to)
		return;
	struct ldb_thread_stats *st = cn->w->st;
	if (from == 1)
		ldb_add(&st->conns_opening, (uint64_t)-1);
	else if (from == 2)
		ldb_add(&st->conns_up, (uint64_t)-1);
	if (to == 1)
		ldb_add(&st->conns_opening, 1);
	else if (to == 2)
		ldb_add(&st->conns_up, 1);
	if (cn->watch_states)
		ldb_held_moved(cn, from, to);
}

/* Whether a connection of this run needs the multi-step hooks (cn->steps):
 * a kind that may be in one of its slots (the load's, the main one, the
 * bind's) is a flow or reads its entries, or a kind keeps a step state. */
static inline bool ldb_conn_steps(const struct ldb_run *run)
{
	if (run->ops.state_room > 0)
		return true;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if ((run->load_kind[k] || k == (int)run->main_op || k == (int)run->bind_kind) &&
		    (ldb_ops[k]->nsteps > 0 || ldb_ops[k]->entry != NULL))
			return true;
	return false;
}

/* --think-time: the client's next gap between intended starts, drawn from
 * its generator (run/issue.c). */
uint64_t ldb_think_draw(struct ldb_client *w);

static inline void took_op(struct ldb_client *w, uint64_t now)
{
	int ws = w->run->cfg->wait_sec;
	if (ws > 0)
		w->next_op_at = now + (uint64_t)ws * 1000000000ULL;
	/* --rate: the schedule does not move when we fall behind, so the
	 * latency of late operations includes their wait (no coordinated omission) */
	if (w->run->rate_interval_ns > 0)
		w->next_intended += w->run->cfg->think_dist != LDB_THINK_NONE
		                            ? ldb_think_draw(w)
		                            : __atomic_load_n(&w->run->rate_step_ns, __ATOMIC_RELAXED);
}

/* ------------------------------------------------ run/conn.c: bytes in and out (run/link.h) */

void ldb_conn_close(struct ldb_conn *cn, bool graceful);
void ldb_conn_confirm(struct ldb_conn *cn);

/* The output buffer written; a TCP connection not yet known to be up is
 * confirmed by the first byte that moves.  @return 0, or -1 broken. */
static inline int ldb_conn_flush(struct ldb_conn *cn)
{
	bool moved = false;
	int rc = ldb_link_flush(&cn->ln, &moved);
	if (moved && cn->unconfirmed)
		ldb_conn_confirm(cn);
	return rc;
}

/* ------------------------------------------------ run/issue.c: requests and results */

void ldb_note_error(struct ldb_client *w, enum ldb_op kind, int code);
/* The same for a connection's set-up (struct ldb_setupstats): no operation's error. */
void ldb_note_setup_error(struct ldb_client *w, int code);
/* run: -S's copy of what the slot's request wrote (cn->repl_run), or NULL */
void ldb_record_result(struct ldb_client *w, const struct ldb_slot *s, const char *run, int rc, uint64_t now);
/* A step of a flow (ops.h ldb_op_step_kind): counted as its own kind too,
 * result rc, its latency from its own request; ldclt's count, -E and the
 * error lines are the flow's (ldb_record_result). */
void ldb_record_step(struct ldb_client *w, const struct ldb_slot *s, enum ldb_op kind, int rc, uint64_t now);
bool ldb_pass_values(struct ldb_client *w, int64_t *v, int64_t *bv);
enum ldb_op ldb_pick_kind(struct ldb_client *w, int step);
bool ldb_render_slot(struct ldb_conn *cn, int i, bool *exhausted);
bool ldb_may_issue(struct ldb_client *w, uint64_t now);
void ldb_pace_later(struct ldb_client *w, uint64_t now);
void ldb_issue_now(struct ldb_conn *cn, int i, enum ldb_op kind, int step, int setup, bool counts, int64_t v,
                   int64_t bv, uint64_t now);
void ldb_pass_continue(struct ldb_conn *cn, int i, const struct ldb_slot *done, uint64_t now);

/* ------------------------------------------------ run/errlines.c: ldclt's error lines */

void ldb_errline(struct ldb_client *w, enum ldb_op kind, int code);
/* One line "PREFIXWHO: TEXT" on the run's text output in one write(2), from a
 * stack buffer (cut at 2 KiB, still one line); errlines and scalab01 use it. */
void ldb_run_vline(const struct ldb_run *run, const char *who, const char *fmt, va_list ap);
void ldb_errlines_flush(struct ldb_client *w);

/* ------------------------------------------------ run/conn.c: the engine's state machine */

/* Open the connection (its source said so): TCP, then ldaps or StartTLS,
 * then the source's up. */
void ldb_conn_open(struct ldb_conn *cn, uint64_t now);
/* An I/O thread's round, one call each (the per-connection work is inlined
 * into them): its epoll events, its ready list, its due deadlines. */
void ldb_conn_events(struct ldb_iothread *r, const struct epoll_event *evs, int n, uint64_t now);
/* epoll data below this is not a connection: a source's own file
 * descriptors (the replay's ring wake and stop eventfds), told by their tag. */
#define LDB_EV_TAGS 16
void ldb_drain_ready(struct ldb_iothread *r, uint64_t now, int *alive);
void ldb_fire_deadlines(struct ldb_iothread *r, uint64_t now);

/* ------------------------------------------------ run/iothread.c: the I/O thread */

void ldb_client_end(struct ldb_iothread *r, struct ldb_client *w, int *alive);

/* ------------------------------------------------ run/load_source.c: the load as a request source */

void ldb_cycle_end(struct ldb_conn *cn, uint64_t now);

#include "run/source.h" /* the request sources' callbacks and their dispatch */

#endif
