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
 * its time, and puts them back.
 * A listener lost after its first refresh (its connection broke, its search
 * ended, its re-connect failed) is re-opened after a back-off (the load's:
 * 50 ms doubling to 1 s, jittered), binds again and re-issues its search: a
 * sync search with its last cookie (each Sync State control's and Sync Info
 * message's kept), whose catch-up refresh's entries go to the matcher
 * flagged LDB_NOTE_CATCHUP; a persistent search fresh.  Its time away (lost
 * to the catch-up's refreshDone, or to a persistent search sent again) into
 * its thread's histogram. */
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
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 1000
#define CODE_REFRESH_REQUIRED 4096 /* RFC 4533 e-syncRefreshRequired: the cookie is too old */

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

/* A listener up once (its first refresh over) is re-opened when lost. */
static bool comes_back(struct ldb_conn *cn)
{
	return lsn_of(cn)->t_done != 0 && __atomic_load_n(&lt_of(cn)->ls->live, __ATOMIC_RELAXED) &&
	       !run_stopping(cn->w->run);
}

/* Lost (or its re-open failed): closed, counted once until it is back, and
 * re-opened after a back-off (ldb_listen_deadline). */
static void lsn_lost(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_lsn *l = lsn_of(cn);
	if (l->t_lost == 0) {
		__atomic_store_n(&l->lost_n, l->lost_n + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&l->t_lost, now, __ATOMIC_RELAXED);
	}
	lsn_end(cn, L_LOST, -1, NULL);
	uint32_t b = cn->backoff_ms ? cn->backoff_ms : BACKOFF_MIN_MS;
	uint64_t ms = b * 3 / 4 + (uint64_t)(lt_of(cn)->first + (int)(cn - cn->w->conns)) * 7919 % (b / 2 + 1);
	cn->retry_at = now + ms * 1000000ULL;
	cn->backoff_ms = b * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : b * 2;
	conn_watch(cn, cn->retry_at);
}

/* Its search is back (sync: the catch-up refresh done; psearch: sent). */
static void lsn_back(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_lsn *l = lsn_of(cn);
	ldb_hist_record(&lt_of(cn)->away, now > l->t_lost ? now - l->t_lost : 0);
	__atomic_store_n(&l->t_lost, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->back_n, l->back_n + 1, __ATOMIC_RELAXED);
	cn->backoff_ms = 0;
	set_phase(l, L_PERSIST);
}

static void reopen(struct ldb_conn *cn, uint64_t now);

static void flush(struct ldb_conn *cn)
{
	if (cn->ln.fd >= 0 && cn->ln.out_off < cn->ln.out_len && ldb_conn_flush(cn) != 0) {
		if (comes_back(cn))
			lsn_lost(cn, ldb_now_ns());
		else
			lsn_end(cn, L_FAILED, -1, "the connection broke while its search was sent");
	}
}

static void take_slot(struct ldb_conn *cn, int32_t id, uint64_t now)
{
	ldb_slot_open(cn, (id - 1) % cn->depth, id, now);
}

/* The search (encoded once) framed with its control. */
static void put_search(struct ldb_conn *cn, uint64_t now)
{
	const struct ldb_listen *ls = lt_of(cn)->ls;
	struct ldb_link *ln = &cn->ln;
	struct ldb_lsn *l = lsn_of(cn);
	bool psearch = ls->cfg->listen_kind == LDB_LISTEN_PSEARCH, again = l->t_done != 0;
	const uint8_t *ctl = ls->ctl.data;
	size_t clen = ls->ctl.len;
	uint8_t withck[LDB_COOKIE_MAX + 64];
	if (again && !psearch && l->cklen > 0) { /* a catch-up refresh from its last cookie */
		clen = ldb_sync_request_cookie(withck, sizeof withck, l->cookie, l->cklen);
		ctl = withck;
	}
	size_t at = ln->out_len, n = ldb_link_put(ln, SEARCH_ID, ls->op.data, ls->op.len);
	size_t m = n > 0 && clen > 0 ? ldb_ctl_append(ln->out + at, n, ln->out_cap - at, ctl, clen, NULL, 0) : 0;
	if (m == 0) {
		ln->out_len = at;
		lsn_end(cn, L_FAILED, -1, "no room for the search request");
		return;
	}
	ln->out_len = at + m;
	take_slot(cn, SEARCH_ID, now);
	if (!again)
		__atomic_store_n(&l->t_sent, now, __ATOMIC_RELAXED); /* again: its first refresh's figures stay */
	if (psearch && again) {
		lsn_back(cn, now); /* a fresh search: what changed while away is not sent */
	} else if (psearch) {      /* changes only: no refresh */
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
	if (phase_of(l) == L_LOST) {
		reopen(cn, now);
		return;
	}
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
 * entry's DN and value read from its body; its change (chg) read by the
 * caller from its controls on (the byte after the body: no walk from the
 * message's start).  flags: LDB_NOTE_* (a catch-up refresh's entry). */
static void note(struct ldb_conn *cn, struct ldb_lsn *l, const struct ldb_resp *r, int chg, uint64_t now,
                 uint32_t flags)
{
	struct ldb_lthread *lt = lt_of(cn);
	const struct ldb_listen *ls = lt->ls;
	const uint8_t *dn, *v;
	size_t dl, vl;
	if (flags == 0)
		__atomic_store_n(&l->notes, l->notes + 1, __ATOMIC_RELAXED);
	if (!ldb_entry_dn_value(r->body, r->bodylen, ls->attr, ls->alen, &dn, &dl, &v, &vl))
		return;
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
	it->flags = flags;
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
}

/* A sync listener's last cookie (one too long for its room: none, the
 * next refresh a full one). */
static void keep_cookie(struct ldb_lsn *l, const uint8_t *ck, size_t n)
{
	l->cklen = n <= LDB_COOKIE_MAX ? (uint32_t)n : 0;
	if (l->cklen > 0)
		memcpy(l->cookie, ck, n);
}

/* What a result code means for a listener's search: one up once is
 * re-issued (e-syncRefreshRequired: without its cookie). */
static __attribute__((noinline)) void search_done(struct ldb_conn *cn, int code, uint64_t now)
{
	if (comes_back(cn)) {
		if (code == CODE_REFRESH_REQUIRED)
			lsn_of(cn)->cklen = 0;
		lsn_lost(cn, now);
		return;
	}
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
	if (r->result != 0 && comes_back(cn)) {
		lsn_lost(cn, now);
		return;
	}
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
	const uint8_t *ck = NULL;
	size_t ckn;
	int chg;
	switch (r->op) {
	case 0x64: /* SearchResultEntry: its change, and a sync listener's cookie, in one look */
		chg = ldb_entry_change_ctls(r->body + r->bodylen, msg + r->len, &ck, &ckn);
		if (ckn > 0)
			keep_cookie(l, ck, ckn);
		if (phase_of(l) != L_REFRESH)
			note(cn, l, r, chg, now, 0);
		else if (l->t_lost != 0) { /* a catch-up refresh: the entry as it is now */
			__atomic_store_n(&l->catchup, l->catchup + 1, __ATOMIC_RELAXED);
			note(cn, l, r, chg, now, LDB_NOTE_CATCHUP);
		} else
			__atomic_store_n(&l->entries, l->entries + 1, __ATOMIC_RELAXED);
		return;
	case 0x79: /* IntermediateResponse: the Sync Info message */
		if (ldb_sync_info_cookie(r->body, r->bodylen, &ck, &ckn))
			keep_cookie(l, ck, ckn);
		if (phase_of(l) == L_REFRESH && ldb_sync_info_done(r->body, r->bodylen) == 1) {
			if (l->t_lost != 0) {
				lsn_back(cn, now);
				return;
			}
			__atomic_store_n(&l->t_done, now, __ATOMIC_RELAXED);
			set_phase(l, L_PERSIST);
		}
		return;
	case 0x65: /* SearchResultDone: the server ended it */ search_done(cn, r->result, now); return;
	default: return; /* references */
	}
}

void ldb_listen_broken(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	(void)why;
	int p = phase_of(lsn_of(cn));
	if (comes_back(cn))
		lsn_lost(cn, now);
	else if (p == L_PERSIST || p == L_REFRESH)
		lsn_end(cn, L_LOST, -1, "a listener's connection was lost");
	else
		lsn_end(cn, L_FAILED, -1, "the connection broke before the search began");
}

void ldb_listen_setup_failed(struct ldb_conn *cn, enum ldb_fail kind, const char *why, int err, uint64_t now)
{
	(void)kind;
	if (comes_back(cn)) {
		lsn_lost(cn, now);
		return;
	}
	char line[160];
	snprintf(line, sizeof line, "cannot connect: %s", why != NULL ? why : err != 0 ? strerror(err) : "refused");
	lsn_end(cn, L_FAILED, -1, line);
}

/* Re-open a lost listener once its back-off is over. */
static void reopen(struct ldb_conn *cn, uint64_t now)
{
	if (run_stopping(cn->w->run) || cn->state != CS_IDLE || cn->ln.fd >= 0)
		return;
	if (now < cn->retry_at) {
		conn_watch(cn, cn->retry_at);
		return;
	}
	set_phase(lsn_of(cn), L_BINDING);
	cn->retry_at = now; /* its set-up's deadline from here */
	conn_watch(cn, now + SETUP_NS);
	ldb_conn_open(cn, now);
}

/* Its deadlines: the set-up's end (the connect, bind and search went out by
 * then), a lost listener's back-off. */
void ldb_listen_deadline(struct ldb_conn *cn, uint64_t now)
{
	int p = phase_of(lsn_of(cn));
	if (p == L_LOST)
		reopen(cn, now);
	else if (p == L_BINDING && cn->ln.fd >= 0 && comes_back(cn) && now < cn->retry_at + SETUP_NS)
		conn_watch(cn, cn->retry_at + SETUP_NS);
	else if (p == L_BINDING && cn->ln.fd >= 0 && comes_back(cn))
		lsn_lost(cn, now);
	else if (p == L_BINDING && cn->ln.fd >= 0 && !comes_back(cn))
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
