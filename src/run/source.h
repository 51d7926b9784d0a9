/* A request source: what the engine's connections (run/conn.c over
 * run/link.h) send, and what they do with what comes back.  The engine opens
 * a connection when its source says so, sets up its transport (TCP, ldaps or
 * StartTLS and the handshake), frames the answers, keeps the deadline heap and
 * the ready list; at each point where something must be decided it calls its
 * source, as h2load's Session carries HTTP/1, 2 and 3:
 *
 *   step      a connection is on the ready list: open it (ldb_conn_open), or
 *             fill it with requests if it is up and has room
 *   up        its transport is ready: what opens it (a bind, a tag) or go
 *   pump      it is up and has room: the requests that go now
 *   result    an answer (a result message) to one of its slots
 *   broken    it broke or timed out with requests on it
 *   setup_failed  its connect, StartTLS or TLS handshake failed (err: the
 *             connect's errno, 0 for the later steps)
 *   deadline  its one deadline passed (a back-off's end, a timeout)
 *   paced     a client's pacing deadline passed
 *   finished  whether a client is done (the I/O thread ends it)
 *
 * A source that is fed from outside its I/O thread (the replay: a ring filled
 * by the log's reader) also has the thread's round: open (its own file
 * descriptors into the epoll set, tagged below LDB_EV_TAGS), round (at the
 * top of each round: what came in), wait (before the wait: how long at most),
 * event (one of its file descriptors is readable).  The load has none.
 *
 * Dispatch is an enum and a switch (struct ldb_run's source): with one
 * source per run the branch always goes the same way, and the callbacks can
 * be inlined where they are defined.  The load's kinds and value patterns
 * (run/load_source.c, run/issue.c) are LDB_SOURCE_LOAD, the default; the
 * recorded connections of an access log (run/replay_source.c) are
 * LDB_SOURCE_REPLAY; the listeners for changes (run/listen_source.c)
 * LDB_SOURCE_LISTEN.
 *
 * Included by run/conn.h, after the types it needs. */
#ifndef LDBENCH_RUN_SOURCE_H
#define LDBENCH_RUN_SOURCE_H

enum ldb_source { LDB_SOURCE_LOAD = 0, LDB_SOURCE_REPLAY, LDB_SOURCE_LISTEN };

/* ---------------- the load (run/load_source.c; pump: run/issue.c) */
void ldb_load_step(struct ldb_conn *cn, uint64_t now);
void ldb_load_up(struct ldb_conn *cn, uint64_t now);
void ldb_conn_pump(struct ldb_conn *cn, uint64_t now);
void ldb_load_result(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now);
/* The operation on slot i is over with result rc (ldb_load_result's end; a
 * run without multi-step kinds, cn->steps false, comes here at once). */
void ldb_load_done(struct ldb_conn *cn, int i, int rc, uint64_t now);
void ldb_load_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now);
void ldb_load_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now);
void ldb_load_deadline(struct ldb_conn *cn, uint64_t now);
void ldb_load_paced(struct ldb_client *w, uint64_t now);
/* An entry of a multi-step operation that reads them (the login flow's user found). */
void ldb_load_step_entry(struct ldb_conn *cn, int i, const struct ldb_resp *r);

/* Whether the client is done: nothing outstanding, and out of passes or at
 * -N's count (inlined: the ready list asks it twice per connection). */
static inline bool ldb_load_finished(const struct ldb_client *w)
{
	const struct ldb_config *c = w->run->cfg;
	if (w->outstanding > 0)
		return false;
	if (w->exhausted)
		return true;
	return c->ops_per_thread > 0 && w->measuring && ldb_load(&w->st->counted) >= (uint64_t)c->ops_per_thread;
}

/* ---------------- the replay (run/replay_source.c) */
void ldb_replay_step(struct ldb_conn *cn, uint64_t now);
void ldb_replay_up(struct ldb_conn *cn, uint64_t now);
void ldb_replay_result(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now);
void ldb_replay_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now);
void ldb_replay_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now);
void ldb_replay_deadline(struct ldb_conn *cn, uint64_t now);
/* Done: the ring's END read and every queue empty, or a signal (the source
 * sets w->exhausted then; inlined: the ready list asks it twice per
 * connection). */
static inline bool ldb_replay_finished(const struct ldb_client *w)
{
	return w->exhausted;
}
int ldb_replay_open(struct ldb_iothread *r, int epfd);
void ldb_replay_round(struct ldb_iothread *r, uint64_t now, int *alive);
uint64_t ldb_replay_wait(struct ldb_iothread *r, uint64_t now, uint64_t wake);
void ldb_replay_event(struct ldb_iothread *r, unsigned tag);

/* The load's step of a connection that is up (inlined: the ready list's
 * common case): fill it, and if it still has room, wait for the pacing. */
static inline void ldb_load_step_ready(struct ldb_conn *cn, uint64_t now)
{
	ldb_conn_pump(cn, now);
	if (cn->state == CS_READY && cn->inflight < cn->depth)
		ldb_pace_later(cn->w, now);
}

/* ---------------- the listeners (run/listen_source.c) */
void ldb_listen_step(struct ldb_conn *cn, uint64_t now);
void ldb_listen_up(struct ldb_conn *cn, uint64_t now);
/* Every message to the listener's search or bind (run/conn.c's hook). */
void ldb_listen_msg(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now);
void ldb_listen_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now);
void ldb_listen_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now);
void ldb_listen_deadline(struct ldb_conn *cn, uint64_t now);
void ldb_listen_round(struct ldb_iothread *r, uint64_t now, int *alive);
uint64_t ldb_listen_wait(struct ldb_iothread *r, uint64_t now, uint64_t wake);

/* ---------------- dispatch */
static inline void ldb_src_step(struct ldb_conn *cn, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_step(cn, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_step(cn, now); break;
	case LDB_SOURCE_LOAD:
	default:
		if (cn->state == CS_READY)
			ldb_load_step_ready(cn, now);
		else
			ldb_load_step(cn, now);
	}
}

static inline void ldb_src_up(struct ldb_conn *cn, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_up(cn, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_up(cn, now); break;
	case LDB_SOURCE_LOAD:
	default: ldb_load_up(cn, now);
	}
}

static inline void ldb_src_pump(struct ldb_conn *cn, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_step(cn, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_step(cn, now); break;
	case LDB_SOURCE_LOAD:
	default: ldb_conn_pump(cn, now);
	}
}

static inline void ldb_src_result(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg,
                                  uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_result(cn, i, r, msg, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_msg(cn, i, r, msg, now); break;
	case LDB_SOURCE_LOAD:
	default:
		if (cn->steps)
			ldb_load_result(cn, i, r, msg, now); /* a kind's steps may go on */
		else
			ldb_load_done(cn, i, r->result, now);
	}
}

static inline void ldb_src_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_setup_failed(cn, kind, why, err, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_setup_failed(cn, kind, why, err, now); break;
	case LDB_SOURCE_LOAD:
	default: ldb_load_setup_failed(cn, kind, why, err, now);
	}
}

static inline void ldb_src_deadline(struct ldb_conn *cn, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_deadline(cn, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_deadline(cn, now); break;
	case LDB_SOURCE_LOAD:
	default: ldb_load_deadline(cn, now);
	}
}

static inline void ldb_src_paced(struct ldb_client *w, uint64_t now)
{
	switch ((enum ldb_source)w->run->source) {
	case LDB_SOURCE_REPLAY:
	case LDB_SOURCE_LISTEN: break;
	case LDB_SOURCE_LOAD:
	default: ldb_load_paced(w, now);
	}
}

static inline bool ldb_src_finished(const struct ldb_client *w)
{
	switch ((enum ldb_source)w->run->source) {
	case LDB_SOURCE_REPLAY: return ldb_replay_finished(w);
	case LDB_SOURCE_LISTEN: return w->exhausted;
	case LDB_SOURCE_LOAD:
	default: return ldb_load_finished(w);
	}
}

/* The connection broke (or timed out): its source counts what was on it and
 * decides what follows (the load: a reconnect after a back-off). */
static inline void ldb_conn_fail(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	switch ((enum ldb_source)cn->w->run->source) {
	case LDB_SOURCE_REPLAY: ldb_replay_broken(cn, why, now); break;
	case LDB_SOURCE_LISTEN: ldb_listen_broken(cn, why, now); break;
	case LDB_SOURCE_LOAD:
	default: ldb_load_broken(cn, why, now);
	}
}

/* ---------------- the I/O thread's round, for a source fed from outside */
static inline int ldb_src_open(struct ldb_iothread *r, int epfd)
{
	return r->nw > 0 && r->w[0].run->source == LDB_SOURCE_REPLAY ? ldb_replay_open(r, epfd) : 0;
}

static inline void ldb_src_round(struct ldb_iothread *r, uint64_t now, int *alive)
{
	if (r->nw > 0 && r->w[0].run->source == LDB_SOURCE_REPLAY)
		ldb_replay_round(r, now, alive);
	else if (r->nw > 0 && r->w[0].run->source == LDB_SOURCE_LISTEN)
		ldb_listen_round(r, now, alive);
}

static inline uint64_t ldb_src_wait(struct ldb_iothread *r, uint64_t now, uint64_t wake)
{
	if (r->nw > 0 && r->w[0].run->source == LDB_SOURCE_LISTEN)
		return ldb_listen_wait(r, now, wake);
	return r->nw > 0 && r->w[0].run->source == LDB_SOURCE_REPLAY ? ldb_replay_wait(r, now, wake) : wake;
}

static inline void ldb_src_event(struct ldb_iothread *r, unsigned tag)
{
	if (r->nw > 0 && r->w[0].run->source == LDB_SOURCE_REPLAY)
		ldb_replay_event(r, tag);
}

#endif
