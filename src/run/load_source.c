/* The load as a request source (run/source.h): its kinds and value patterns
 * feed the engine's connections.  What opens a connection (a bind, the
 * join's tag, or nothing) and bindeach's cycles; results to their slots,
 * multi-step operations, parents created for an add; failures classified and
 * counted, timeouts, reconnects with a capped, jittered back-off; pacing.
 * Requests are rendered and issued by run/issue.c. */
#include "run/conn.h"

#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <string.h>

#include "proto/wire.h"
#include "run/clock.h"

#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 1000
#define MAX_PARENT_LEVELS 8

/* The TCP connect, StartTLS or TLS handshake failed or timed out.  A
 * connection that never came up, with a code not ignored (-I -11), ends the
 * thread, as ldclt's failed first bind does; one that was up before goes on
 * trying (the server went away). */
static void connect_failed(struct ldb_conn *cn, uint64_t now, enum ldb_fail kind, const char *why, bool noted);

/* libldap's (and so ldclt's) codes: a TCP connect that fails is -1 (server
 * down), a TLS set-up that fails -11 (connect error) */
static const int fail_code[LDB_FAIL_COUNT] = { LDB_RC_SERVER_DOWN, LDB_RC_CONNECT_ERROR, LDB_RC_TIMEOUT,
	                                       LDB_RC_SERVER_DOWN };

/* A client failure of an operation of `kind`, its line printed as one of
 * `shown` (a failed connect: the bind, or the operation, that met it). */
static void note_fail(struct ldb_client *w, enum ldb_op kind, enum ldb_fail f, enum ldb_op shown)
{
	ldb_add(&w->st->op[kind].fails[f], 1);
	ldb_note_error(w, kind, fail_code[f]);
	ldb_errline(w, shown, fail_code[f]);
}

/* A connection's set-up failed (no operation of the load was on it): its own
 * counts, its line printed as one of `shown`. */
static void note_setup_fail(struct ldb_client *w, enum ldb_fail f, enum ldb_op shown)
{
	ldb_add(&w->st->setup.fails[f], 1);
	ldb_note_setup_error(w, fail_code[f]);
	ldb_errline(w, shown, fail_code[f]);
}

/* How a TCP connect that did not complete ended (err: its errno, 0 when
 * nothing says: the server closed it before answering): the client's last
 * connect end by reason, and the run's first reason for the summary's "No
 * connection could be opened" line (a failure path: atomics, no lock). */
static void note_connect_end(struct ldb_conn *cn, int err)
{
	int end = err == ECONNREFUSED ? LDB_CONNECT_END_REFUSED
	          : err == ETIMEDOUT  ? LDB_CONNECT_END_TIMEOUT
	                              : LDB_CONNECT_END_FAILED;
	__atomic_store_n(&cn->w->st->connect_end, end, __ATOMIC_RELAXED);
	int none = 0;
	__atomic_compare_exchange_n(&cn->w->run->connect_error, &none, err != 0 ? err : -1, false, __ATOMIC_RELEASE,
	                            __ATOMIC_RELAXED);
}

/* The error a socket's failed connect left (0 if none). */
static int socket_error(int fd)
{
	int err = 0;
	socklen_t len = sizeof err;
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return 0;
	return err;
}

static void schedule_retry(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	uint32_t b = cn->backoff_ms ? cn->backoff_ms : BACKOFF_MIN_MS;
	/* jitter: 75 % .. 125 % */
	uint64_t ms = b * 3 / 4 + (uint64_t)ldb_rng_range(&w->rng, 0, b / 2);
	cn->retry_at = now + ms * 1000000ULL;
	cn->backoff_ms = b * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : b * 2;
	if (w->run->cfg->dontsleeponserverdown)
		cn->retry_at = now;
	if (cn->retry_at <= now)
		conn_wake(cn);
	else
		conn_watch(cn, cn->retry_at);
}

/* The connection broke (or timed out): every operation in flight on it fails
 * (a set-up request on it: the set-up fails).  One whose TCP connect never
 * proved to work failed to connect (LDB_FAIL_TIMEOUT: in -t); the operations
 * already put into it fail with it, and without any the set-up failed. */
void ldb_load_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	struct ldb_client *w = cn->w;
	bool cycle = w->run->cfg->bindeach;
	if (cn->unconfirmed) {
		bool noted = false;
		for (int i = 0; i < cn->depth; i++) {
			struct ldb_slot *s = &cn->slots[i];
			if (s->used && s->setup == SETUP_NONE) {
				note_fail(w, s->kind, LDB_FAIL_CONNECT, s->kind);
				noted = true;
			}
			if (s->used && s->counts && !cycle)
				w->outstanding--;
		}
		int err = why == LDB_FAIL_TIMEOUT ? ETIMEDOUT : socket_error(cn->ln.fd);
		note_connect_end(cn, err != 0 ? err : cn->ln.sock_err);
		connect_failed(cn, now, LDB_FAIL_CONNECT, NULL, noted);
		return;
	}
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used)
			continue;
		if (s->setup == SETUP_NONE)
			note_fail(w, s->kind, why, s->kind);
		else
			note_setup_fail(w, why, s->kind);
		if (s->counts && !cycle)
			w->outstanding--;
	}
	if (cycle && cn->state != CS_IDLE)
		w->outstanding--;
	ldb_conn_close(cn, false);
	conn_set_state(cn, CS_IDLE);
	schedule_retry(cn, now);
}

static void fatal_note(struct ldb_client *w, int rc, const char *what, const char *why)
{
	const struct ldb_config *c = w->run->cfg;
	if (ldb_config_ignored(c, rc))
		return;
	/* without a reason, the error's own line (run/errlines.c) said it */
	if (w->note[0] == '\0' && why != NULL)
		snprintf(w->note, sizeof w->note, "T%03d: Cannot %s: %s", w->id, what, why);
	worker_die(w, LDB_EXIT_CANNOT_BIND);
}

static void connect_failed(struct ldb_conn *cn, uint64_t now, enum ldb_fail kind, const char *why, bool noted)
{
	struct ldb_client *w = cn->w;
	if (!noted)
		note_setup_fail(w, kind, w->run->bind_on_connect ? w->run->bind_kind : w->run->main_op);
	if (w->run->cfg->bindeach && cn->state != CS_IDLE)
		w->outstanding--;
	ldb_conn_close(cn, false);
	conn_set_state(cn, CS_IDLE);
	schedule_retry(cn, now);
	if (!cn->ever_up)
		fatal_note(w, kind == LDB_FAIL_TLS ? LDB_RC_CONNECT_ERROR : LDB_RC_SERVER_DOWN,
		           kind == LDB_FAIL_TLS ? "connect (TLS)" : "connect", why);
}

/* The engine's connect, StartTLS or TLS handshake failed (err: the TCP
 * connect's errno, 0 for the later steps). */
void ldb_load_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now)
{
	if (err != 0)
		note_connect_end(cn, err);
	connect_failed(cn, now, kind, why, false);
}

/* bindeach: end of one cycle. */
void ldb_cycle_end(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	if (!run->cfg->close_sock && cn->ln.fd >= 0 &&
	    ((cn->ln.in != NULL && cn->ln.out != NULL) || ldb_bufs_take(cn) == 0)) {
		static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
		cn->ln.out_len = cn->ln.out_off = 0;
		size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->ln.out, cn->ln.out_cap);
		if (n > 0)
			(void)ldb_link_send(&cn->ln, cn->ln.out, n);
	}
	ldb_hist_record(&w->lat->stage[LDB_STAGE_CYCLE], now - cn->t_cycle);
	ldb_conn_close(cn, !run->cfg->close_sock);
	conn_set_state(cn, CS_IDLE);
	cn->retry_at = now;
	w->outstanding--;
}

/* The first step of the cycle's pass (bindeach), after connect and bind. */
static void cycle_first_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	conn_set_state(cn, CS_OP);
	ldb_issue_now(cn, 0, ldb_pick_kind(w, 0), 0, SETUP_NONE, true, cn->cycle_v, cn->cycle_bv, now);
}

/* Transport ready (TCP, and TLS when asked): bind, or go. */
void ldb_load_up(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;
	if (run->tag_op != NULL && !cn->tagged) {
		/* the join's key: the tag first, alone (a bind would abandon it on
		 * slapd), one round trip per connection */
		conn_set_state(cn, CS_BINDING);
		ldb_issue_now(cn, 0, run->main_op, 0, SETUP_TAG, false, 0, 0, now);
		return;
	}
	if (cycle && ldb_pick_kind(w, 0) == run->bind_kind && run->mix_total == 0) {
		/* bindeach,bindonly: the cycle's bind is the operation */
		cycle_first_step(cn, now);
		return;
	}
	if (run->bind_on_connect) {
		conn_set_state(cn, CS_BINDING);
		ldb_issue_now(cn, 0, run->bind_kind, 0, cycle ? SETUP_NONE : SETUP_BIND, false, 0, 0, now);
		return;
	}
	/* without a bind, the connection proves itself with its first answer
	 * (ldb_load_result): a server that accepts and closes at once must not
	 * reset the back-off */
	cn->proven = false;
	if (cycle) {
		cycle_first_step(cn, now);
		return;
	}
	conn_set_state(cn, CS_READY);
	cn->t_freed = now;
	ldb_conn_pump(cn, now);
}

/* A container add's result (slot aux > 0), by what the server said. */
static void count_parent_result(struct ldb_client *w, int rc)
{
	uint64_t *n = rc == LDAP_SUCCESS          ? &w->st->parents_created
	              : rc == LDAP_ALREADY_EXISTS ? &w->st->parent_exists
	              : rc == LDAP_NO_SUCH_OBJECT ? &w->st->parent_noparent
	                                          : &w->st->parent_other;
	ldb_add(n, 1);
}

/* An add came back 32: create its ancestors first, then send it again
 * (ldclt does the same).  @return true when that is under way. */
static bool add_missing_parents(struct ldb_conn *cn, int i, struct ldb_slot *s, int rc, uint64_t now)
{
	struct ldb_client *w = cn->w;
	if (!w->run->make_parents || cn->retry_dnlen == 0)
		return false;
	if (s->aux == 0 && rc != LDAP_NO_SUCH_OBJECT)
		return false;
	if (s->aux > 0)
		count_parent_result(w, rc);
	int level;
	if (s->aux == 0)
		level = 1;
	else if (rc == LDAP_NO_SUCH_OBJECT && s->aux < MAX_PARENT_LEVELS)
		level = s->aux + 1;
	else if (rc == LDAP_SUCCESS || rc == LDAP_ALREADY_EXISTS)
		level = s->aux - 1;
	else
		return false; /* give up: the add fails with 32 */
	s->aux = (uint8_t)level;
	if (level == 0) {
		/* every ancestor is there: the add again */
		ldb_add(&w->st->parent_retries, 1);
		size_t oplen = 0;
		const uint8_t *p = cn->retry;
		/* the kept protocolOp: tag, length */
		if (p[1] < 0x80)
			oplen = 2 + p[1];
		else {
			int nb = p[1] & 0x7f;
			size_t len = 0;
			for (int k = 0; k < nb; k++)
				len = len << 8 | p[2 + k];
			oplen = 2 + (size_t)nb + len;
		}
		cn->retry_len = oplen;
	}
	bool exhausted;
	if (!ldb_render_slot(cn, i, &exhausted) || ldb_conn_flush(cn) != 0) {
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return true;
	}
	s->used = 1;
	cn->inflight++;
	return true;
}

/* The first answer on a connection (or its bind): the back-off starts over,
 * and a connection that was up before counts as a reconnect. */
static void conn_proven(struct ldb_conn *cn)
{
	struct ldb_client *w = cn->w;
	cn->proven = true;
	cn->backoff_ms = 0;
	if (!cn->ever_up)
		cn->ever_up = true;
	else if (!w->run->cfg->bindeach)
		ldb_add(&w->st->reconnects, 1);
}

/* An entry of a multi-step operation that reads them (the row's entry: the
 * login flow's user found), handed to its kind with the slot's state. */
void ldb_load_step_entry(struct ldb_conn *cn, int i, const struct ldb_resp *r)
{
	struct ldb_client *w = cn->w;
	const struct ldb_ops_run *o = &w->run->ops;
	struct ldb_slot *s = &cn->slots[i];
	if (o->state_size[s->kind] == 0)
		return;
	struct ldb_op_req q = { o, w->wctx, &w->rng, s->v, s->bv, s->msgid, 0, w->vpc, NULL, s->round };
	q.state = cn->step_state + (size_t)i * o->state_room;
	ldb_ops[s->kind]->entry(&q, r->body, r->bodylen);
}

/* A flow's write step confirmed (--listeners, --write-record): its keys,
 * made at its render, to the taps that take them (run/repl.h). */
static void offer_step(struct ldb_client *w, const struct ldb_slot *s, const struct ldb_op_req *q, uint64_t now)
{
	uint64_t dk, key;
	int k = ldb_ops[s->kind]->keys(q, &dk, &key);
	if (k >= 0)
		ldb_repl_offer_keys(w->runner->repl, k, dk, key, s->t_sent, now);
}

/* A result of a multi-step operation (its kind's state_size is not 0; an
 * operation of the load, or the bind that opens the connection): each round
 * trip of the load's is timed (the "round" stage), then the kind's more says
 * whether the operation goes on; if it does, its next request goes out on the
 * same slot with a fresh message id (t0 stays: the operation's latency runs
 * from its first request to its last result).  @return true when it goes on
 * (or the connection failed sending it); else *rc is the operation's result. */
static bool conn_step_more(struct ldb_conn *cn, int i, int *rc, const struct ldb_resp *r, const uint8_t *msg,
                           uint64_t now)
{
	struct ldb_client *w = cn->w;
	const struct ldb_ops_run *o = &w->run->ops;
	struct ldb_slot *s = &cn->slots[i];
	struct ldb_op_req q = { o, w->wctx, &w->rng, s->v, s->bv, s->msgid, 0, w->vpc, NULL, s->round };
	struct ldb_op_reply rep = { *rc, r, msg, LDB_NOTE_NONE };

	if (s->setup == SETUP_NONE && w->lat->stage[LDB_STAGE_ROUND].counts != NULL)
		ldb_hist_record(&w->lat->stage[LDB_STAGE_ROUND], now > s->t_sent ? now - s->t_sent : 0);
	int step = s->setup == SETUP_NONE ? ldb_op_step_kind(s->kind, s->round) : -1;
	q.state = cn->step_state + (size_t)i * o->state_room;
	bool on = ldb_ops[s->kind]->more(&q, &rep);
	if (step >= 0) /* a flow's step: its own figures too; a wrong password refused is its success */
		ldb_record_step(w, s, step,
		                rep.note == LDB_NOTE_BAD_REFUSED       ? 0
		                : !on && ldb_ops[s->kind]->step_reason ? rep.rc
		                                                       : *rc,
		                now);
	if (step >= 0 && o->listen_keys && *rc == 0 && w->runner->repl != NULL && w->measuring &&
	    ldb_ops[s->kind]->keys != NULL)
		offer_step(w, s, &q, now);
	int also = step >= 0 ? ldb_op_step_also(s->kind, s->round) : 0;
	if (also > 0) /* the step's second row (the login's group search) */
		ldb_record_step(w, s, (enum ldb_op)also, *rc, now);
	if (rep.note != LDB_NOTE_NONE) /* --bad-password: a flow's step's, or a plain bind's */
		ldb_add(&w->st->op[step >= 0 ? step : s->kind].bad_password[rep.note], 1);
	if (!on) {
		*rc = rep.rc;
		return false;
	}
	s->round++;
	if (step >= 0) {
		ldb_add(&w->st->op[ldb_op_step_kind(s->kind, s->round)].attempted, 1);
		if ((also = ldb_op_step_also(s->kind, s->round)) > 0)
			ldb_add(&w->st->op[also].attempted, 1);
	}
	bool exhausted;
	if (!ldb_render_slot(cn, i, &exhausted) || ldb_conn_flush(cn) != 0) {
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return true;
	}
	s->t_sent = now;
	conn_watch(cn, timeout_at(cn, now));
	return true;
}

/* One complete result for slot i: r, the whole message at msg. */
void ldb_load_result(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now)
{
	int rc = r->result;
	if (cn->steps && cn->w->run->ops.state_size[cn->slots[i].kind] > 0 && cn->slots[i].aux == 0 &&
	    (cn->slots[i].setup == SETUP_NONE || cn->slots[i].setup == SETUP_BIND) &&
	    conn_step_more(cn, i, &rc, r, msg, now))
		return;
	ldb_load_done(cn, i, rc, now);
}

/* The operation on slot i is over with result rc.  The slot is freed first
 * and read as it was (no copy): nothing issues on it before the pass goes
 * on (ldb_pass_continue reads its numbers before it issues). */
void ldb_load_done(struct ldb_conn *cn, int i, int rc, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	struct ldb_slot *s = &cn->slots[i];
	const struct ldb_slot *done = s;
	s->used = 0;
	cn->inflight--;
	cn->t_freed = now;

	if (done->setup != SETUP_BIND && done->setup != SETUP_TAG && !cn->proven)
		conn_proven(cn);
	if (done->setup == SETUP_TAG) {
		cn->tagged = true; /* any answer: the server has logged it */
		ldb_load_up(cn, now);
		return;
	}
	if (done->setup == SETUP_SYNC) {
		/* the server has taken up every request sent before it: new
		 * operations may go (ldb_conn_events wakes the connection) */
		cn->syncing = false;
		return;
	}
	if (cn->state == CS_BINDING) {
		if (done->setup == SETUP_BIND) {
			/* a persistent connection's opening bind: not an operation,
			 * but its failures are tallied with the binds' */
			if (rc != 0) {
				ldb_add(&w->st->setup.bind_refused, 1);
				ldb_note_setup_error(w, rc);
				ldb_errline(w, w->run->bind_kind, rc);
				fatal_note(w, rc, "bind", NULL);
				ldb_conn_close(cn, false);
				conn_set_state(cn, CS_IDLE);
				schedule_retry(cn, now);
				return;
			}
			conn_proven(cn);
			conn_set_state(cn, CS_READY);
			ldb_conn_pump(cn, now);
			return;
		}
		/* bindeach: the cycle's bind, then the pass */
		ldb_record_result(w, done, NULL, rc, now);
		if (rc != 0) {
			fatal_note(w, rc, "bind", NULL);
			ldb_cycle_end(cn, now);
			return;
		}
		cycle_first_step(cn, now);
		return;
	}
	if ((done->aux > 0 || rc == LDAP_NO_SUCH_OBJECT) && ldb_ops[done->kind]->parents) {
		if (add_missing_parents(cn, i, s, rc, now))
			return;
		if (done->aux > 0)
			rc = LDAP_NO_SUCH_OBJECT; /* an ancestor could not be made */
		s->used = 0;
	}
	ldb_record_result(w, done, cn->repl_run != NULL ? cn->repl_run + (size_t)i * REPL_SLOT : NULL, rc, now);
	if (rc != 0 && ldb_ops[done->kind]->fatal && !c->counteach)
		fatal_note(w, rc, ldb_ops[done->kind]->name, NULL);
	ldb_pass_continue(cn, i, done, now);
}

/* The connection's deadline passed: its back-off is over (idle), or
 * something on it may have timed out (-t).  The deadline is armed again
 * from what is in flight now. */
void ldb_load_deadline(struct ldb_conn *cn, uint64_t now)
{
	uint64_t t = cn->w->run->timeout_ns, next = UINT64_MAX;
	conn_wake(cn); /* idle: it may connect; failed: its client may be done */
	if (cn->state == CS_IDLE)
		return;
	if ((cn->unconfirmed || cn->state == CS_TLS) && cn->ln.fd >= 0) {
		if (now > cn->t_connect && now - cn->t_connect > t) {
			if (cn->unconfirmed)
				ldb_conn_fail(cn, LDB_FAIL_TIMEOUT, now); /* a connect that timed out */
			else
				connect_failed(cn, now, LDB_FAIL_TLS, "no TLS handshake in time (-t)", false);
			return;
		}
		next = cn->t_connect + t + 1;
	}
	for (int i = 0; i < cn->depth; i++) {
		const struct ldb_slot *s = &cn->slots[i];
		if (!s->used)
			continue;
		if (now > s->t_sent && now - s->t_sent > t) {
			ldb_conn_fail(cn, LDB_FAIL_TIMEOUT, now);
			return;
		}
		if (s->t_sent + t + 1 < next)
			next = s->t_sent + t + 1;
	}
	if (next != UINT64_MAX)
		conn_watch(cn, next);
}

/* The pacing deadline passed: the connections that wait for it. */
void ldb_load_paced(struct ldb_client *w, uint64_t now)
{
	if (w->run->cfg->held > 0) {
		ldb_held_paced(w, now); /* a random idle connection */
		return;
	}
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->state == CS_IDLE || (cn->state == CS_READY && cn->inflight < cn->depth))
			conn_wake(cn);
	}
}

/* A connection on the ready list: open it if it must be opened, fill it if
 * it can take more requests. */
void ldb_load_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;

	if (cn->state == CS_READY) {
		ldb_load_step_ready(cn, now);
		return;
	}
	if (cn->state != CS_IDLE)
		return;
	if (cycle && !ldb_may_issue(w, now)) {
		ldb_pace_later(w, now);
		return;
	}
	if (!cycle && (w->exhausted || run_stopping(run)))
		return;
	if (now < cn->retry_at) {
		conn_watch(cn, cn->retry_at);
		return;
	}
	if (cycle) {
		if (!ldb_pass_values(w, &cn->cycle_v, &cn->cycle_bv))
			return;
		w->outstanding++;
		cn->t_due = w->next_intended;
		took_op(w, now);
		cn->t_cycle = now;
	}
	ldb_conn_open(cn, now);
}
