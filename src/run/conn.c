/* The engine: a connection as a state machine over its transport
 * (run/link.h): connect, ldaps or StartTLS and the TLS handshake, then its
 * request source's (run/source.h); answers framed to their slots, entries,
 * referrals and response controls counted, results handed to the source.
 * Also an I/O thread's round over what is ready: its events, its ready list,
 * its due deadlines. */
#include "run/conn.h"

#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/controls.h"
#include "proto/deref.h"
#include "proto/wire.h"
#include "run/chase.h"
#include "run/clock.h"

static void conn_connected(struct ldb_conn *cn, uint64_t now);

/* graceful: a TLS close_notify first (after an unbind, or at the end). */
void ldb_conn_close(struct ldb_conn *cn, bool graceful)
{
	ldb_link_close(&cn->ln, graceful);
	cn->unconfirmed = false;
	for (int i = 0; i < cn->depth; i++)
		cn->slots[i].used = 0;
	cn->inflight = 0;
	cn->unsynced = 0;
	cn->syncing = false;
	if (cn->w->runner->bufs.lend)
		ldb_bufs_give(cn); /* --held: back to the pool */
}

/* The TCP connection proved to work (a byte moved, or the EPOLLOUT edge). */
void ldb_conn_confirm(struct ldb_conn *cn)
{
	struct ldb_client *w = cn->w;
	if (!cn->unconfirmed)
		return;
	cn->unconfirmed = false;
	ldb_add(&w->st->connects, 1);
	/* one reading ends the connect stage and starts what follows: the TLS
	 * stage, or the requests sent before the connection was known to be up */
	uint64_t now = ldb_now_ns();
	if (w->run->bindeach)
		ldb_hist_record(&w->lat->stage[LDB_STAGE_CONNECT], now > cn->t_connect ? now - cn->t_connect : 0);
	if (cn->state == CS_TLS)
		cn->t_tls = now;
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used || s->t_sent >= now)
			continue;
		if (s->t0 == s->t_sent)
			s->t0 = now; /* not an intended start (--rate) */
		s->t_sent = s->t_first = now;
	}
}

/* The TCP connect from the next --source-address in turn (out of line: the
 * address on its stack). */
static __attribute__((noinline)) int connect_from_source(struct ldb_conn *cn, const char **what)
{
	struct ldb_run *run = cn->w->run;
	struct sockaddr_storage src;
	socklen_t srclen = ldb_held_next_source(run->cfg, &src);
	return ldb_link_connect(&cn->ln, &run->addr, run->addrlen, srclen > 0 ? &src : NULL, srclen,
	                        run->depth > 1 || run->tls != NULL, cn->w->epfd, EPOLLIN | EPOLLRDHUP,
	                        (epoll_data_t){ .ptr = cn }, what);
}

void ldb_conn_open(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	cn->t_connect = now;
	cn->garbled = false;
	conn_set_state(cn, CS_CONNECTING);
	ldb_add(&w->st->connect_tries, 1);
	cn->proven = false;
	if (run->tag_op != NULL) {
		cn->conn_no = __atomic_add_fetch(&run->conn_seq, 1, __ATOMIC_RELAXED);
		cn->nreq = 0;
		cn->tagged = false;
	}
	/* Nagle only ever delays a write that follows unanswered ones: with one
	 * plain request at a time the answer acknowledges it, so the option (a
	 * system call per connection, bindeach's too) is set only for pipelines,
	 * and for TLS, whose handshake ends with two writes in a row (Finished,
	 * then the first request: 40 ms of delayed ACK without it).
	 * EPOLLOUT only once a write must wait. */
	const char *what = "connect";
	int err = run->source_addrs ? connect_from_source(cn, &what)
	                            : ldb_link_connect(&cn->ln, &run->addr, run->addrlen, NULL, 0,
	                                               run->depth > 1 || run->tls != NULL, w->epfd,
	                                               EPOLLIN | EPOLLRDHUP, (epoll_data_t){ .ptr = cn }, &what);
	if (err != 0) {
		char why[128];
		snprintf(why, sizeof why, "no socket: %s", strerror(err));
		bool bind_failed = strcmp(what, "bind") == 0;
		ldb_src_setup_failed(cn, LDB_FAIL_CONNECT,
		                     bind_failed                   ? "cannot bind to the source address"
		                     : strcmp(what, "socket") == 0 ? why
		                                                   : NULL,
		                     err, now);
		return;
	}
	conn_watch(cn, timeout_at(cn, now)); /* the connect, and what follows it */
	/* Go on at once: on loopback the handshake is done when connect()
	 * returns, and otherwise the first send waits for the EPOLLOUT edge.
	 * A connection that then fails before any byte moved failed to connect. */
	cn->unconfirmed = true;
	conn_connected(cn, now);
	if (cn->ln.fd >= 0 && cn->unconfirmed)
		ldb_link_arm_out(&cn->ln); /* nothing went out yet: learn of the connect from its edge */
}

static void tls_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	char why[256] = "";
	int rc = ldb_link_handshake(&cn->ln, why, sizeof why);
	if (rc == LDB_TLS_OK) {
		/* one reading ends the handshake and starts what follows, so the
		 * stages add up to the cycle */
		ldb_conn_confirm(cn); /* if no edge said so yet: before the TLS stage ends */
		now = ldb_now_ns();
		ldb_add(&w->st->tls_handshakes, 1);
		if (ldb_tls_resumed(&cn->ln.tc))
			ldb_add(&w->st->tls_resumed, 1);
		if (w->run->bindeach)
			ldb_hist_record(&w->lat->stage[LDB_STAGE_TLS], now > cn->t_tls ? now - cn->t_tls : 0);
		ldb_src_up(cn, now);
		return;
	}
	if (rc == LDB_TLS_WANT_READ) {
		ldb_conn_confirm(cn); /* the ClientHello went out: connected */
		return;               /* the next edge */
	}
	if (rc == LDB_TLS_WANT_WRITE)
		return; /* EPOLLOUT is armed */
	ldb_src_setup_failed(cn, LDB_FAIL_TLS, why[0] ? why : "TLS handshake failed", 0, now);
}

static void tls_begin(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	char why[256] = "";
	cn->t_tls = now;
	if (ldb_link_tls_begin(&cn->ln, w->run->tls, &w->tls_session, why, sizeof why) != 0) {
		ldb_src_setup_failed(cn, LDB_FAIL_TLS, why, 0, now);
		return;
	}
	conn_set_state(cn, CS_TLS);
	tls_step(cn, now);
}

/* The TCP connection is up. */
static void conn_connected(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	if (run->target.ldaps) {
		tls_begin(cn, now);
	} else if (run->target.starttls) {
		cn->t_tls = now;
		conn_set_state(cn, CS_STARTTLS);
		ldb_issue_now(cn, 0, run->main_op, 0, SETUP_STARTTLS, false, 0, 0, now);
	} else {
		ldb_src_up(cn, now);
	}
}

/* StartTLS's answer (the engine's own request, a slot of its source's):
 * the handshake begins, or the set-up failed. */
static void starttls_answered(struct ldb_conn *cn, int i, int rc, uint64_t now)
{
	cn->slots[i].used = 0;
	cn->inflight--;
	cn->t_freed = now;
	if (rc != LDAP_SUCCESS) {
		char why[96];
		snprintf(why, sizeof why, "StartTLS refused, error=%d (%s)", rc, ldap_err2string(rc));
		ldb_src_setup_failed(cn, LDB_FAIL_TLS, why, 0, now);
		return;
	}
	tls_begin(cn, now);
}

/* -e deref: the values the server dereferenced in one search entry. */
static void count_deref(struct ldb_conn *cn, int kind, const uint8_t *msg, size_t len)
{
	uint64_t n = ldb_deref_count(msg, len);
	if (n > 0)
		ldb_add(&cn->w->st->op[kind].deref_values, n);
}

/* The response controls a run counts in a result: the sort result
 * (--sort-order), the pages (--simple-page-size), the entries of pre-read
 * and post-read controls. */
static void count_controls(struct ldb_conn *cn, int kind, const uint8_t *msg, size_t len)
{
	const struct ldb_ops_run *o = &cn->w->run->ops;
	struct ldb_opstats *os = &cn->w->st->op[kind];
	const uint8_t *v;
	size_t vlen;

	if (o->want_sort && ldb_ctl_find(msg, len, LDB_CTL_SORT_RESP_OID, &v, &vlen)) {
		ldb_add(&os->sort_results, 1);
		if (ldb_ctl_sort_result(v, vlen) != 0)
			ldb_add(&os->sort_failed, 1);
	}
	if (o->want_paged && ldb_ctl_find(msg, len, LDB_CTL_PAGED_OID, &v, &vlen))
		ldb_add(&os->pages, 1);
	if (o->want_ppolicy && ldb_ctl_find(msg, len, LDB_CTL_PPOLICY_OID, &v, &vlen)) {
		int warning, error;
		ldb_add(&os->ppolicy_responses, 1);
		if (ldb_ctl_ppolicy(v, vlen, &warning, &error)) {
			if (warning >= 0)
				ldb_add(&os->ppolicy[warning], 1);
			if (error >= 0)
				ldb_add(&os->ppolicy[error], 1);
		}
	}
	if (o->want_read && ldb_ctl_find(msg, len, LDB_CTL_PREREAD_OID, &v, &vlen) && ldb_ctl_read_entry(v, vlen))
		ldb_add(&os->preread_entries, 1);
	if (o->want_read && ldb_ctl_find(msg, len, LDB_CTL_POSTREAD_OID, &v, &vlen) && ldb_ctl_read_entry(v, vlen))
		ldb_add(&os->postread_entries, 1);
}

/* A search reference or a referral result (10): counted as such; followed
 * with -e referral=on|rebind (run/chase.c, off the hot path), where a
 * result 10 becomes the referred server's result. */
static void count_referral(struct ldb_conn *cn, int i, struct ldb_resp *r, uint64_t *now)
{
	ldb_add(&cn->w->st->op[cn->slots[i].kind].referrals, 1);
	if (cn->w->run->referral_follow == LDB_REFERRAL_NONE)
		return;
	int rc = ldb_chase(cn, i, r);
	if (rc >= 0 && r->result == LDAP_REFERRAL)
		r->result = rc;
	*now = ldb_now_ns();
}

/* Every whole message in the input to its slot; what is left of a partial
 * one moves to the front.  @return 0, or -1 when the stream is broken. */
static int conn_parse(struct ldb_conn *cn, uint64_t now)
{
	size_t pos = 0;
	struct ldb_resp r;
	for (;;) {
		int rc = ldb_link_frame(&cn->ln, &pos, &r);
		if (rc == LDB_LINK_PARTIAL)
			break;
		if (rc == LDB_LINK_BROKEN)
			cn->garbled = true; /* not LDAP (the replay counts it) */
		if (rc == LDB_LINK_BROKEN || (rc == LDB_LINK_OVERSIZED && cn->w->run->source == LDB_SOURCE_LOAD))
			return -1; /* not LDAP, or longer than the load's IN_MAX (the replay's skips the rest) */
		if (r.msgid <= 0)
			return -1; /* notice of disconnection, or nonsense */
		int i = (r.msgid - 1) % cn->depth;
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used || s->msgid != r.msgid)
			continue; /* the answer to something already given up */
		if (cn->w->run->source == LDB_SOURCE_LISTEN && rc == LDB_LINK_MSG && s->setup != SETUP_STARTTLS) {
			/* every message of a listener's search (run/listen_source.c) */
			ldb_listen_msg(cn, i, &r, cn->ln.in + pos - r.len, now);
			if (cn->ln.fd < 0)
				return 0;
			continue;
		}
		if (r.op == LDAP_RES_SEARCH_ENTRY) {
			s->entries++;
			if (!cn->steps) {
				ldb_add(&cn->w->st->op[s->kind].entries, 1);
			} else {
				int ek = ldb_op_step_kind(s->kind, s->round); /* a flow's: its step's kind */
				ldb_add(&cn->w->st->op[ek >= 0 ? ek : s->kind].entries, 1);
				if (ldb_ops[s->kind]->entry != NULL && s->setup == SETUP_NONE)
					ldb_load_step_entry(cn, i, &r);
			}
			if (cn->w->run->count_deref)
				count_deref(cn, s->kind, cn->ln.in + pos - r.len, r.len);
			continue;
		}
		if (r.op == LDAP_RES_SEARCH_REFERENCE || r.result == LDAP_REFERRAL)
			count_referral(cn, i, &r, &now);
		if (r.result < 0)
			continue; /* references, intermediate responses */
		if (cn->w->run->ops.want_sort || cn->w->run->ops.want_read || cn->w->run->ops.want_paged ||
		    cn->w->run->ops.want_ppolicy) {
			int ck = cn->steps ? ldb_op_step_kind(s->kind, s->round) : -1; /* a flow's: its step's kind */
			count_controls(cn, ck >= 0 ? ck : s->kind, cn->ln.in + pos - r.len, r.len);
		}
		if (s->setup == SETUP_STARTTLS)
			starttls_answered(cn, i, r.result, now);
		else
			ldb_src_result(cn, i, &r, cn->ln.in + pos - r.len, now);
		if (cn->ln.fd < 0)
			return 0; /* closed by a cycle's end (the input with it) */
		if (cn->state == CS_TLS)
			break; /* TLS starts: no more plain bytes */
	}
	ldb_link_consumed(&cn->ln, pos);
	return 0;
}

/* Read and hand over what came.  The whole messages that came before the
 * end of the stream count before it does.  @return 0, or -1 when the
 * connection is closed or broken. */
static int conn_read(struct ldb_conn *cn, uint64_t *now, bool eof)
{
	if (cn->ln.in == NULL && ldb_bufs_take(cn) != 0)
		return -1;
	for (;;) {
		int more = ldb_link_fill(&cn->ln, eof);
		*now = ldb_now_ns();
		if (conn_parse(cn, *now) != 0)
			return -1;
		if (more < 0)
			return cn->ln.fd < 0 ? 0 : -1;
		if (more == 0 || cn->ln.fd < 0 || cn->state == CS_TLS)
			return 0;
	}
}

static void conn_event(struct ldb_conn *cn, uint32_t ev, uint64_t now)
{
	if (cn->ln.fd < 0)
		return; /* closed earlier in this batch of events */
	if (cn->unconfirmed && (ev & (EPOLLERR | EPOLLHUP))) {
		ldb_conn_fail(cn, LDB_FAIL_CONNECT, now);
		return;
	}
	if (cn->unconfirmed && (ev & EPOLLOUT))
		ldb_conn_confirm(cn); /* connected */
	if (cn->state == CS_TLS) {
		if (ev & (EPOLLERR | EPOLLHUP) && !(ev & EPOLLIN)) {
			ldb_src_setup_failed(cn, LDB_FAIL_TLS, "the server closed the connection during the handshake",
			                     0, now);
			return;
		}
		tls_step(cn, now);
		return;
	}
	bool readable = (ev & EPOLLIN) || ((ev & EPOLLOUT) && cn->ln.rd_wants_wr);
	bool writable = (ev & EPOLLOUT) || ((ev & EPOLLIN) && cn->ln.wr_wants_rd);
	if (readable) {
		if (conn_read(cn, &now, (ev & EPOLLRDHUP) != 0) != 0) {
			ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		if (cn->ln.fd < 0)
			return;
	} else if (ev & (EPOLLERR | EPOLLHUP)) {
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	if (writable && cn->ln.out_len > cn->ln.out_off && ldb_conn_flush(cn) != 0) {
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	if (cn->w->runner->bufs.lend)
		ldb_bufs_idle(cn); /* --held, nothing in flight: its buffers back to the pool */
}

/* The events of one wait, each to its connection (or, below LDB_EV_TAGS,
 * to the source: its eventfds). */
void ldb_conn_events(struct ldb_iothread *r, const struct epoll_event *evs, int n, uint64_t now)
{
	for (int i = 0; i < n; i++) {
		if (evs[i].data.u64 < LDB_EV_TAGS) {
			ldb_src_event(r, (unsigned)evs[i].data.u64);
			continue;
		}
		struct ldb_conn *cn = evs[i].data.ptr;
		conn_event(cn, evs[i].events, now);
		if (!cn->w->ended && (cn->state == CS_IDLE || cn->state == CS_READY))
			conn_wake(cn); /* a slot came free, or it closed */
	}
}

/* Step the connections that were on the ready list when the round began
 * (those it wakes again wait for the next round). */
void ldb_drain_ready(struct ldb_iothread *r, uint64_t now, int *alive)
{
	struct ldb_conn *cn = r->ready;
	r->ready = NULL;
	r->ready_tail = &r->ready;
	while (cn != NULL) {
		struct ldb_conn *next = cn->ready_next;
		struct ldb_client *w = cn->w;
		cn->queued = false;
		if (!w->ended && !ldb_src_finished(w))
			ldb_src_step(cn, now);
		if (!w->ended && ldb_src_finished(w))
			ldb_client_end(r, w, alive);
		cn = next;
	}
}

/* Every deadline due at `now`. */
void ldb_fire_deadlines(struct ldb_iothread *r, uint64_t now)
{
	struct ldb_timer *e;
	while ((e = ldb_timers_pop(&r->timers, now)) != NULL) {
		if (e->tag == TM_PACE)
			ldb_src_paced(e->data, now);
		else
			ldb_src_deadline(e->data, now);
	}
}
