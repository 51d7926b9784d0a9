/* The listeners as a request source (run/source.h): each listener one of the
 * engine's connections (run/conn.c over run/link.h) on an I/O thread of the
 * listeners' own (run/iothread.c), as the replay's parts are.  Its up binds
 * (or not: anonymous) and sends the search encoded once at start-up (the sync
 * or persistent search, run/listen_run.c); every message of the search comes
 * to ldb_listen_msg (the engine's one hook for this source): the refresh's
 * entries counted, its end (the Sync Info message with refreshDone) timed,
 * each later entry a notification: its entry's and change's keys and its
 * arrival time into the thread's ring to the matcher (run/listen_match.c).
 * A notification costs what a received search entry costs plus the hash of
 * its DN and value and one ring store: no allocation, no lock, no print.
 * --listen-pause takes the connections' sockets out of reading (epoll) for
 * its time, and puts them back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/controls.h"
#include "proto/syncctl.h"
#include "run/clock.h"
#include "run/conn.h"
#include "run/listen_int.h"

#define IN_CAP (64 * 1024)
#define IN_MAX (16 * 1024 * 1024)
#define SETUP_NS 10000000000ULL /* a listener's connect, bind and first answer: 10 s at most */
#define BIND_ID 1
#define SEARCH_ID 2

static struct ldb_lthread *lt_of(const struct ldb_conn *cn)
{
	return cn->w->src;
}

static struct ldb_lsn *lsn_of(const struct ldb_conn *cn)
{
	const struct ldb_lthread *lt = lt_of(cn);
	return &lt->ls->l[lt->first + (int)(cn - cn->w->conns)];
}

static void set_phase(struct ldb_lsn *l, int phase)
{
	__atomic_store_n(&l->phase, phase, __ATOMIC_RELEASE);
}

static int phase_of(const struct ldb_lsn *l)
{
	return __atomic_load_n(&l->phase, __ATOMIC_RELAXED);
}

/* It ended: refused (a code), or its connection failed or was lost. */
static void lsn_end(struct ldb_conn *cn, int phase, int code, const char *why)
{
	struct ldb_lthread *lt = lt_of(cn);
	struct ldb_lsn *l = lsn_of(cn);
	if (why != NULL && lt->error[0] == '\0')
		snprintf(lt->error, sizeof lt->error, "%s", why);
	__atomic_store_n(&l->code, code, __ATOMIC_RELAXED);
	set_phase(l, phase);
	for (int i = 0; i < cn->depth; i++)
		cn->slots[i].used = 0;
	cn->inflight = 0;
	ldb_conn_close(cn, false);
	conn_set_state(cn, CS_IDLE);
}

static void flush(struct ldb_conn *cn)
{
	if (cn->ln.fd >= 0 && cn->ln.out_off < cn->ln.out_len && ldb_conn_flush(cn) != 0)
		lsn_end(cn, L_FAILED, -1, "the connection broke while its search was sent");
}

static void take_slot(struct ldb_conn *cn, int32_t id, uint64_t now)
{
	struct ldb_slot *s = &cn->slots[(id - 1) % cn->depth];
	s->used = 1;
	s->msgid = id;
	s->setup = SETUP_NONE;
	s->entries = 0;
	s->t0 = s->t_sent = s->t_first = now;
	cn->inflight++;
}

/* The search (encoded once) framed with its control. */
static void put_search(struct ldb_conn *cn, uint64_t now)
{
	const struct ldb_listen *ls = lt_of(cn)->ls;
	struct ldb_link *ln = &cn->ln;
	struct ldb_lsn *l = lsn_of(cn);
	size_t at = ln->out_len, n = ldb_link_put(ln, SEARCH_ID, ls->op.data, ls->op.len);
	size_t m = n > 0 ? ldb_ctl_append(ln->out + at, n, ln->out_cap - at, ls->ctl.data, ls->ctl.len, NULL, 0) : 0;
	if (m == 0) {
		ln->out_len = at;
		lsn_end(cn, L_FAILED, -1, "no room for the search request");
		return;
	}
	ln->out_len = at + m;
	take_slot(cn, SEARCH_ID, now);
	__atomic_store_n(&l->t_sent, now, __ATOMIC_RELAXED);
	if (ls->cfg->listen_kind == LDB_LISTEN_PSEARCH) { /* changes only: no refresh */
		__atomic_store_n(&l->t_done, now, __ATOMIC_RELAXED);
		set_phase(l, L_PERSIST);
	} else {
		set_phase(l, L_REFRESH);
	}
	conn_set_state(cn, CS_OP); /* no step per message from here */
}

void ldb_listen_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_lsn *l = lsn_of(cn);
	if (cn->state == CS_IDLE && phase_of(l) == L_IDLE) {
		set_phase(l, L_BINDING);
		conn_watch(cn, now + SETUP_NS);
		ldb_conn_open(cn, now); /* the engine's: TCP, then ldaps or StartTLS, then ldb_listen_up */
		return;
	}
	flush(cn);
}

void ldb_listen_up(struct ldb_conn *cn, uint64_t now)
{
	const struct ldb_listen *ls = lt_of(cn)->ls;
	if (ls->bind != NULL) {
		if (cn->ln.out_cap - cn->ln.out_len < ls->bind_len) {
			lsn_end(cn, L_FAILED, -1, "no room for the bind request");
			return;
		}
		memcpy(cn->ln.out + cn->ln.out_len, ls->bind, ls->bind_len);
		cn->ln.out_len += ls->bind_len;
		take_slot(cn, BIND_ID, now);
		conn_set_state(cn, CS_BINDING);
	} else {
		put_search(cn, now);
	}
	flush(cn);
}

/* A notification: its keys and arrival into the ring to the matcher.  The
 * entry's DN and value read from its body, its change from its controls on
 * (the byte after the body: no walk from the message's start). */
static void note(struct ldb_conn *cn, struct ldb_lsn *l, const struct ldb_resp *r, const uint8_t *msg, uint64_t now)
{
	struct ldb_lthread *lt = lt_of(cn);
	const struct ldb_listen *ls = lt->ls;
	const uint8_t *dn, *v;
	size_t dl, vl;
	__atomic_store_n(&l->notes, l->notes + 1, __ATOMIC_RELAXED);
	if (!ldb_entry_dn_value(r->body, r->bodylen, ls->attr, ls->alen, &dn, &dl, &v, &vl))
		return;
	int chg = ldb_entry_change_ctls(r->body + r->bodylen, msg + r->len);
	int what = chg == LDB_CHG_ADD || chg == LDB_CHG_MODDN ? LK_THERE : chg == LDB_CHG_DELETE ? LK_GONE : LK_VALUE;
	struct ldb_note_ring *q = lt->ring;
	uint64_t head = q->head;
	if (head - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) >= LDB_NOTE_RING) {
		__atomic_store_n(&q->dropped, q->dropped + 1, __ATOMIC_RELAXED);
		return;
	}
	uint64_t dk = ldb_lk_dn(dn, dl);
	struct ldb_note *it = &q->item[head & (LDB_NOTE_RING - 1)];
	it->dnkey = dk;
	it->key = ldb_lk_key(dk, what, what == LK_VALUE ? v : NULL, what == LK_VALUE && v != NULL ? vl : 0);
	it->t = now;
	it->who = (uint32_t)(l - ls->l);
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
}

/* What a result code means for a listener's search. */
static __attribute__((noinline)) void search_done(struct ldb_conn *cn, int code)
{
	char why[160];
	snprintf(why, sizeof why, "the search ended with result code %d", code);
	lsn_end(cn, L_FAILED, code, why);
}

/* The bind's answer: the search goes out, or the listener ends.  Out of
 * line: its message buffer would put a stack guard on every message's path. */
static __attribute__((noinline)) void bind_answered(struct ldb_conn *cn, int i, const struct ldb_resp *r, uint64_t now)
{
	if (r->op != 0x61)
		return;
	cn->slots[i].used = 0;
	cn->inflight--;
	if (r->result != 0) {
		char why[160];
		snprintf(why, sizeof why, "the bind as -D was refused with result code %d", r->result);
		lsn_end(cn, L_FAILED, -1, why);
		return;
	}
	put_search(cn, now);
	flush(cn);
}

void ldb_listen_msg(struct ldb_conn *cn, int i, const struct ldb_resp *r, const uint8_t *msg, uint64_t now)
{
	if (cn->slots[i].msgid == BIND_ID) {
		bind_answered(cn, i, r, now);
		return;
	}
	struct ldb_lsn *l = lsn_of(cn);
	switch (r->op) {
	case 0x64: /* SearchResultEntry */
		if (phase_of(l) == L_REFRESH)
			__atomic_store_n(&l->entries, l->entries + 1, __ATOMIC_RELAXED);
		else
			note(cn, l, r, msg, now);
		return;
	case 0x79: /* IntermediateResponse: the Sync Info message */
		if (phase_of(l) == L_REFRESH && ldb_sync_info_done(r->body, r->bodylen) == 1) {
			__atomic_store_n(&l->t_done, now, __ATOMIC_RELAXED);
			set_phase(l, L_PERSIST);
		}
		return;
	case 0x65: /* SearchResultDone: the server ended it */ search_done(cn, r->result); return;
	default: return; /* references */
	}
}

void ldb_listen_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	(void)why;
	(void)now;
	int p = phase_of(lsn_of(cn));
	if (p == L_PERSIST || p == L_REFRESH)
		lsn_end(cn, L_LOST, -1, "a listener's connection was lost");
	else
		lsn_end(cn, L_FAILED, -1, "the connection broke before the search began");
}

void ldb_listen_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now)
{
	(void)kind;
	(void)now;
	char line[160];
	snprintf(line, sizeof line, "cannot connect: %s", why != NULL ? why : err != 0 ? strerror(err) : "refused");
	lsn_end(cn, L_FAILED, -1, line);
}

/* Its one deadline: the set-up's end (the connect, bind and search went out by then). */
void ldb_listen_deadline(struct ldb_conn *cn, uint64_t now)
{
	(void)now;
	int p = phase_of(lsn_of(cn));
	if (p == L_BINDING && cn->ln.fd >= 0)
		lsn_end(cn, L_FAILED, -1, "no answer to the connect or bind within 10 s");
}

/* ---------------- the I/O thread's round: --listen-pause */

static void set_reading(struct ldb_client *w, bool on)
{
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->ln.fd < 0)
			continue;
		uint32_t ev = EPOLLET | (cn->ln.out_armed ? EPOLLOUT : 0) | (on ? EPOLLIN | EPOLLRDHUP : 0);
		struct epoll_event e = { .events = ev, .data = cn->ln.tag };
		(void)epoll_ctl(cn->ln.epfd, EPOLL_CTL_MOD, cn->ln.fd, &e);
	}
}

void ldb_listen_round(struct ldb_iothread *r, uint64_t now, int *alive)
{
	(void)alive;
	struct ldb_client *w = &r->w[0];
	struct ldb_lthread *lt = w->src;
	if (w->ended)
		return;
	bool pause = ldb_listen_paused(lt->ls, now);
	if (pause != lt->paused) {
		lt->paused = pause;
		set_reading(w, !pause);
	}
}

uint64_t ldb_listen_wait(struct ldb_iothread *r, uint64_t now, uint64_t wake)
{
	const struct ldb_lthread *lt = r->w[0].src;
	uint64_t a = __atomic_load_n(&lt->ls->pause_at, __ATOMIC_RELAXED);
	uint64_t b = __atomic_load_n(&lt->ls->pause_end, __ATOMIC_RELAXED);
	if (a > now && a < wake)
		wake = a;
	if (b > now && b < wake)
		wake = b;
	return wake;
}

/* ---------------- the thread */

static int client_init(struct ldb_client *w, struct ldb_lthread *lt, struct ldb_thread_stats *st)
{
	const struct ldb_listen *ls = lt->ls;
	memset(w, 0, sizeof *w);
	w->run = (struct ldb_run *)&ls->run;
	w->st = st;
	w->epfd = -1;
	w->src = lt;
	w->nconns = lt->n;
	w->conns = calloc((size_t)lt->n, sizeof *w->conns);
	if (w->conns == NULL)
		return -1;
	size_t out_cap = 1024 + ls->op.len + ls->ctl.len + ls->bind_len;
	for (int k = 0; k < lt->n; k++) {
		struct ldb_conn *cn = &w->conns[k];
		cn->w = w;
		cn->ln.fd = -1;
		cn->depth = 2;
		cn->id_span = 0x7ffffff0;
		cn->ln.in = malloc(IN_CAP);
		cn->ln.out = malloc(out_cap);
		cn->ln.in_cap = IN_CAP;
		cn->ln.in_max = IN_MAX;
		cn->ln.out_cap = out_cap;
		cn->slots = calloc(2, sizeof *cn->slots);
		if (cn->ln.in == NULL || cn->ln.out == NULL || cn->slots == NULL)
			return -1;
	}
	return 0;
}

void *ldb_listen_thread(void *arg)
{
	struct ldb_lthread *lt = arg;
	struct ldb_thread_stats *st = calloc(1, sizeof *st);
	struct ldb_iothread *r = calloc(1, sizeof *r);
	struct ldb_client w = { 0 };
	if (st != NULL && r != NULL && client_init(&w, lt, st) == 0) {
		r->w = &w;
		r->nw = 1;
		w.lat = &r->lat;
		ldb_iothread_main(r);
		if (r->error[0] != '\0' && lt->error[0] == '\0')
			snprintf(lt->error, sizeof lt->error, "%s", r->error);
	} else {
		snprintf(lt->error, sizeof lt->error, "out of memory for %d listeners", lt->n);
		for (int k = 0; k < lt->n; k++)
			set_phase(&lt->ls->l[lt->first + k], L_FAILED);
	}
	if (w.conns != NULL)
		ldb_client_free(&w);
	free(st);
	free(r);
	return NULL;
}
