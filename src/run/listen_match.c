/* The listeners' matcher: one thread joining the writes the load's I/O
 * threads confirmed (their taps' rings, run/repl.h: every write, its kind,
 * numbers, carried value and confirmation time) with the notifications the
 * listeners' I/O threads received (their rings, run/listen_int.h: the keys of
 * an entry and its change, the arrival time, the listener).  A write's key
 * is built from what it wrote (its row's repl_looks, ops.h: the entry's DN
 * and, for a modify, the value); the window holds each write with a bit per
 * listener until every listener that was up when it came received it, or
 * --listen-wait passed (missing).  Written here, read by the main thread
 * with relaxed loads.
 * A listener lost and back: the writes taken while the matcher saw it down
 * (its gap) are not expected of it, and a notification of one is neither a
 * duplicate nor unmatched; an entry of its catch-up refresh (the entry as
 * it is now) stands for every write of that entry it had not received. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/ops.h"
#include "run/clock.h"
#include "run/listen_int.h"
#include "run/listen_rec.h"

#define IDLE_NS 1000000ULL          /* the matcher's sleep when nothing came: 1 ms, */
#define IDLE_MAX_NS 4000000ULL      /* doubled while nothing comes, to 4 ms (a load's 1024-write ring: 256k/s) */
#define ACTIVE_EVERY_NS 10000000ULL /* the listeners up looked at again every 10 ms */
#define EARLY_CAP 65536             /* notifications whose write has not come yet */
#define EARLY_NS 2000000000ULL      /* ... kept this long, then unmatched */
#define BITS_BUDGET (64u << 20)     /* the window's bits: 64 MiB at most */
#define KEEP_NS 30000000000ULL      /* a write not received is kept 30 s (and --listen-wait) while the run goes on */
#define CHAIN 8                     /* writes of an entry looked at, at most */

struct wrec {
	uint64_t key, dnkey, t, seq;
	int32_t knext; /* the next write in its key's bucket */
	int32_t dprev; /* the previous write of its entry, or -1 */
	uint32_t want, nseen;
	bool raced, live;
	bool moved; /* a rename: any notification of its new DN stands for it */
};

struct ldb_match {
	struct ldb_listen *ls;
	uint32_t cap, words;
	struct wrec *w;
	uint64_t *bits;   /* [cap][words]: a listener's bit set: received (or not up when the write came) */
	uint64_t *active; /* [words]: the listeners up now */
	uint32_t nactive;
	uint64_t active_at;
	uint64_t head, tail; /* the window's writes: seq in [tail, head) */
	int32_t *kb, *db;    /* buckets: by key (chains), by entry (its latest write) */
	uint32_t kmask, dmask;
	struct ldb_repl_view view;
	struct ldb_note *early;
	uint32_t nearly;
	uint64_t taken;              /* writes taken into the window */
	uint64_t *base, *got, *miss; /* per listener: taken when it came up, received, missing */
	bool *up;
	/* per listener lost and back: its last gap [gap_lo, gap_hi) of writes taken, their sum */
	uint64_t *gap_lo, *gap_hi, *skip;
	bool *was_up;
	uint64_t caught_up;
	/* the figures (relaxed stores) */
	uint64_t writes, untracked, expected, seen, missing, dup, ooo, superseded, early_n, foreign, behind_max;
	struct ldb_hist delay;
	bool done;
	int64_t dmin; /* the smallest signed delay matched (ldb_match_delay_min) */
	bool dmin_set;
};

static void put(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static uint64_t *bits_of(struct ldb_match *m, uint32_t i)
{
	return m->bits + (size_t)i * m->words;
}

struct ldb_match *ldb_match_new(struct ldb_listen *ls)
{
	struct ldb_match *m = calloc(1, sizeof *m);
	if (m == NULL)
		return NULL;
	m->ls = ls;
	m->words = (uint32_t)((ls->n + 63) / 64);
	m->cap = 1u << 17;
	while (m->cap > 4096 && (size_t)m->cap * m->words * 8 > BITS_BUDGET)
		m->cap >>= 1;
	m->kmask = m->cap * 2 - 1;
	m->dmask = m->cap * 2 - 1;
	m->w = calloc(m->cap, sizeof *m->w);
	m->bits = calloc((size_t)m->cap * m->words, sizeof *m->bits);
	m->active = calloc(m->words, sizeof *m->active);
	m->kb = malloc((size_t)(m->kmask + 1) * sizeof *m->kb);
	m->db = malloc((size_t)(m->dmask + 1) * sizeof *m->db);
	m->early = calloc(EARLY_CAP, sizeof *m->early);
	m->base = calloc((size_t)ls->n, sizeof *m->base);
	m->got = calloc((size_t)ls->n, sizeof *m->got);
	m->miss = calloc((size_t)ls->n, sizeof *m->miss);
	m->up = calloc((size_t)ls->n, sizeof *m->up);
	m->gap_lo = calloc((size_t)ls->n, sizeof *m->gap_lo);
	m->gap_hi = calloc((size_t)ls->n, sizeof *m->gap_hi);
	m->skip = calloc((size_t)ls->n, sizeof *m->skip);
	m->was_up = calloc((size_t)ls->n, sizeof *m->was_up);
	if (!m->w || !m->bits || !m->active || !m->kb || !m->db || !m->early || !m->base || !m->got || !m->miss ||
	    !m->up || !m->gap_lo || !m->gap_hi || !m->skip || !m->was_up || ldb_hist_init(&m->delay) != 0 ||
	    ldb_wctx_init(&m->view.wc, ls->cfg) != 0) {
		ldb_match_free(m);
		return NULL;
	}
	memset(m->kb, 0xff, (size_t)(m->kmask + 1) * sizeof *m->kb);
	memset(m->db, 0xff, (size_t)(m->dmask + 1) * sizeof *m->db);
	return m;
}

void ldb_match_free(struct ldb_match *m)
{
	if (m == NULL)
		return;
	ldb_wctx_free(&m->view.wc);
	ldb_hist_free(&m->delay);
	free(m->w);
	free(m->bits);
	free(m->active);
	free(m->kb);
	free(m->db);
	free(m->early);
	free(m->base);
	free(m->got);
	free(m->miss);
	free(m->up);
	free(m->gap_lo);
	free(m->gap_hi);
	free(m->skip);
	free(m->was_up);
	free(m);
}

/* The listeners in the persist phase now; one that came up counts the
 * writes from here. */
static void look_active(struct ldb_match *m, uint64_t now)
{
	const struct ldb_listen *ls = m->ls;
	m->active_at = now;
	m->nactive = 0;
	memset(m->active, 0, m->words * sizeof *m->active);
	for (int k = 0; k < ls->n; k++) {
		bool up = __atomic_load_n(&ls->l[k].phase, __ATOMIC_ACQUIRE) == L_PERSIST;
		if (up && !m->up[k] && m->was_up[k]) { /* back: its gap closes */
			m->gap_hi[k] = m->taken;
			m->skip[k] += m->taken - m->gap_lo[k];
		} else if (up && !m->up[k]) {
			m->base[k] = m->taken;
		} else if (!up && m->up[k]) {
			m->gap_lo[k] = m->taken;
			m->gap_hi[k] = UINT64_MAX;
		}
		m->was_up[k] = m->was_up[k] || up;
		m->up[k] = up;
		if (up) {
			m->active[k / 64] |= 1ULL << (k % 64);
			m->nactive++;
		}
	}
}

/* ------------------------------------------------------------ the window */

/* The oldest write leaves the window: the listeners up that did not receive it miss it. */
static void retire(struct ldb_match *m)
{
	uint32_t i = (uint32_t)(m->tail & (m->cap - 1));
	struct wrec *r = &m->w[i];
	m->tail++;
	if (!r->live)
		return;
	r->live = false;
	if (r->nseen < r->want) {
		put(&m->missing, m->missing + (r->want - r->nseen));
		const uint64_t *b = bits_of(m, i);
		for (uint32_t k = 0; k < (uint32_t)m->ls->n; k++)
			if (!(b[k / 64] >> (k % 64) & 1))
				m->miss[k]++;
	}
	int32_t *p = &m->kb[r->key & m->kmask];
	while (*p >= 0 && *p != (int32_t)i)
		p = &m->w[*p].knext;
	if (*p == (int32_t)i)
		*p = r->knext;
	if (m->db[r->dnkey & m->dmask] == (int32_t)i)
		m->db[r->dnkey & m->dmask] = -1;
}

static void take(struct ldb_match *m, uint64_t key, uint64_t dnkey, uint64_t t, bool raced, bool moved)
{
	if (m->head - m->tail == m->cap)
		retire(m); /* full: the oldest is given up */
	uint32_t i = (uint32_t)(m->head & (m->cap - 1));
	struct wrec *r = &m->w[i];
	int32_t prev = m->db[dnkey & m->dmask];
	*r = (struct wrec){ .key = key,
		            .dnkey = dnkey,
		            .t = t,
		            .seq = m->head,
		            .raced = raced,
		            .live = true,
		            .want = m->nactive,
		            .moved = moved,
		            .dprev = -1 };
	if (prev >= 0 && m->w[prev].live && m->w[prev].dnkey == dnkey)
		r->dprev = prev;
	m->db[dnkey & m->dmask] = (int32_t)i;
	r->knext = m->kb[key & m->kmask];
	m->kb[key & m->kmask] = (int32_t)i;
	uint64_t *b = bits_of(m, i);
	for (uint32_t k = 0; k < m->words; k++)
		b[k] = ~m->active[k];
	m->head++;
	m->taken++;
	put(&m->writes, m->writes + 1);
	put(&m->expected, m->expected + m->nactive);
}

int ldb_lk_written(const struct ldb_config *cfg, struct ldb_repl_view *view, const struct ldb_repl_item *it,
                   char dn[LDB_DN_MAX], size_t *dnlen, const char **val, size_t *vlen)
{
	*dnlen = *vlen = 0;
	*val = NULL;
	if (it->kind == LDB_REPL_KEYS) /* a flow's step: its keys, no DN or value */
		return -1;
	const struct ldb_opdesc *d = ldb_ops[it->kind];
	bool moved = ldb_lk_moved(it->kind); /* a rename: its new DN (look[0]) */
	int what = d->seen == LDB_SEEN_THERE || moved ? LK_THERE : d->seen == LDB_SEEN_GONE ? LK_GONE : LK_VALUE;
	struct ldb_repl_change ch = { .v = it->v, .bv = it->bv, .run = it->run, .len = it->len };
	if (d->seen == LDB_SEEN_NOT || d->repl_looks == NULL || (moved && cfg->valmode == LDB_VAL_RANDOM) ||
	    d->repl_looks(cfg, &ch, view) < 1 ||
	    (what == LK_VALUE && (view->look[0].negate || view->look[0].val == NULL)))
		return -1;
	const struct ldb_repl_look *l = &view->look[0];
	*dnlen = ldb_lk_dn_plain(dn, LDB_DN_MAX, l->dn, strlen(l->dn)); /* as a server sends it */
	if (what == LK_VALUE) {
		*val = l->val;
		*vlen = l->vlen;
	}
	return what;
}

/* A confirmed write of the load: its keys from what it wrote (or as a
 * flow's step carries them). */
static void offered(struct ldb_match *m, const struct ldb_repl_item *it)
{
	if (it->kind == LDB_REPL_KEYS) { /* a flow's write step: its keys as its I/O thread made them */
		if (it->bv == 0)
			put(&m->untracked, m->untracked + 1);
		else
			take(m, (uint64_t)it->bv, (uint64_t)it->v, it->t, it->raced, ldb_lk_moved((uint8_t)it->run[0]));
		return;
	}
	char dn[LDB_DN_MAX];
	size_t n, vlen;
	const char *val;
	int what = ldb_lk_written(m->ls->cfg, &m->view, it, dn, &n, &val, &vlen);
	if (what < 0) {
		put(&m->untracked, m->untracked + 1);
		return;
	}
	uint64_t dk = ldb_lk_dn((const uint8_t *)dn, n);
	uint64_t key = ldb_lk_key(dk, what, (const uint8_t *)val, vlen);
	take(m, key, dk, it->t, it->raced, ldb_lk_moved(it->kind));
}

/* ------------------------------------------------------------ notifications */

static bool has(struct ldb_match *m, int32_t j, uint32_t who)
{
	return bits_of(m, (uint32_t)j)[who / 64] >> (who % 64) & 1;
}

/* The oldest write of entry dnkey, from write j back, that listener who has
 * not received (and older than seq), or -1. */
static int32_t oldest_unseen(struct ldb_match *m, int32_t j, uint64_t dnkey, uint32_t who, uint64_t seq)
{
	int32_t best = -1;
	for (int n = 0; n < CHAIN && j >= 0; n++) {
		const struct wrec *o = &m->w[j];
		if (!o->live || o->dnkey != dnkey)
			break;
		if (o->seq < seq && !has(m, j, who))
			best = j;
		j = o->dprev;
	}
	return best;
}

/* Write j received by listener who at t. */
static void received(struct ldb_match *m, int32_t j, uint32_t who, uint64_t t)
{
	struct wrec *r = &m->w[j];
	bits_of(m, (uint32_t)j)[who / 64] |= 1ULL << (who % 64);
	r->nseen++;
	m->got[who]++;
	if (!m->dmin_set || (int64_t)(t - r->t) < m->dmin) {
		m->dmin = (int64_t)(t - r->t);
		m->dmin_set = true;
	}
	put(&m->seen, m->seen + 1);
	if (t <= r->t)
		put(&m->early_n, m->early_n + 1);
	ldb_hist_record(&m->delay, t > r->t ? t - r->t : 0);
}

/* Write j was taken while listener who was down (lost, not yet back). */
static bool in_gap(const struct ldb_match *m, int32_t j, uint32_t who)
{
	uint64_t seq = m->w[j].seq;
	return seq >= m->gap_lo[who] && seq < m->gap_hi[who];
}

/* An entry of a catch-up refresh: every write of its entry the listener
 * had not received, from write j back, received (the entry as it is now
 * carries them).  @return how many. */
static int catch_up_from(struct ldb_match *m, int32_t j, const struct ldb_note *n)
{
	int got = 0;
	for (int k = 0; k < CHAIN * 8 && j >= 0; k++) {
		const struct wrec *o = &m->w[j];
		if (!o->live || o->dnkey != n->dnkey)
			break;
		if (!has(m, j, n->who)) {
			received(m, j, n->who, n->t);
			put(&m->caught_up, m->caught_up + 1);
			got++;
		}
		j = o->dprev;
	}
	return got;
}

/* The write of the catch-up entry's own value (its writer may have its
 * result after the refresh brought it), or -1. */
static int32_t catch_up_own(struct ldb_match *m, const struct ldb_note *n)
{
	for (int32_t j = m->kb[n->key & m->kmask]; j >= 0; j = m->w[j].knext)
		if (m->w[j].key == n->key && m->w[j].live && !has(m, j, n->who))
			return j;
	return -1;
}

/* @return true when it stood for a write (else kept a while: its write
 * may not have come yet). */
static bool catch_up(struct ldb_match *m, const struct ldb_note *n, bool first)
{
	int32_t j = catch_up_own(m, n);
	if (j >= 0)
		return catch_up_from(m, j, n) > 0;
	return first && catch_up_from(m, m->db[n->dnkey & m->dmask], n) > 0;
}

/* The notification's write: the oldest of its key this listener has not
 * received.  A server may send an entry as it is when it sends (slapd's
 * syncprov does): a notification carrying a later write's value stands for
 * the oldest write of the entry not yet received (superseded); one whose
 * write was already taken so stands for a later one (out of order), else it
 * came again (duplicated).  @return true when it matched a write. */
static bool match(struct ldb_match *m, const struct ldb_note *n)
{
	int32_t best = -1;
	bool any = false, gap = false;
	for (int32_t j = m->kb[n->key & m->kmask]; j >= 0; j = m->w[j].knext) {
		const struct wrec *r = &m->w[j];
		if (r->key != n->key)
			continue;
		any = true;
		gap = gap || in_gap(m, j, n->who);
		if (!has(m, j, n->who) && (best < 0 || r->seq < m->w[best].seq))
			best = j;
	}
	if (best < 0) {
		if (!any || gap) /* gap: made while it was away, not expected of it */
			return any;
		int32_t later = oldest_unseen(m, m->db[n->dnkey & m->dmask], n->dnkey, n->who, UINT64_MAX);
		if (later >= 0) {
			put(&m->ooo, m->ooo + 1);
			received(m, later, n->who, n->t);
		} else {
			put(&m->dup, m->dup + 1);
		}
		return true;
	}
	int32_t older = oldest_unseen(m, m->w[best].dprev, n->dnkey, n->who, m->w[best].seq);
	if (older >= 0 && !m->w[best].raced) {
		put(&m->superseded, m->superseded + 1);
		best = older;
	}
	received(m, best, n->who, n->t);
	return true;
}

/* A notification of an entry renamed there (any kind: sync sends the
 * moved entry as modified): the oldest rename to its DN the listener has
 * not received.  @return true when there was one. */
static bool moved_here(struct ldb_match *m, const struct ldb_note *n)
{
	int32_t best = -1;
	for (int32_t j = m->db[n->dnkey & m->dmask], k = 0; j >= 0 && k < CHAIN; j = m->w[j].dprev, k++) {
		const struct wrec *o = &m->w[j];
		if (!o->live || o->dnkey != n->dnkey)
			break;
		if (o->moved && !has(m, j, n->who))
			best = j;
	}
	if (best >= 0)
		received(m, best, n->who, n->t);
	return best >= 0;
}

/* A notification's write: by its key, else a rename to its DN. */
static bool match_any(struct ldb_match *m, const struct ldb_note *n)
{
	return match(m, n) || moved_here(m, n);
}

static void noted(struct ldb_match *m, const struct ldb_note *n)
{
	if ((n->flags & LDB_NOTE_CATCHUP) ? catch_up(m, n, true) : match_any(m, n))
		return;
	if (m->nearly == EARLY_CAP) {
		put(&m->foreign, m->foreign + !(n->flags & LDB_NOTE_CATCHUP));
		return;
	}
	m->early[m->nearly++] = *n; /* its write may not have come yet */
}

/* The notifications kept for their write: matched now, kept, or unmatched
 * once old (all of them when the end came). */
static void early_again(struct ldb_match *m, uint64_t now, bool all)
{
	uint32_t kept = 0;
	for (uint32_t k = 0; k < m->nearly; k++) {
		const struct ldb_note *n = &m->early[k];
		bool cu = n->flags & LDB_NOTE_CATCHUP; /* one standing for no write: nothing to count */
		if (cu ? catch_up(m, n, false) : match_any(m, n))
			continue;
		if (all || (now > n->t && now - n->t > EARLY_NS))
			put(&m->foreign, m->foreign + !cu);
		else
			m->early[kept++] = *n;
	}
	m->nearly = kept;
}

/* ------------------------------------------------------------ the loop */

static bool drain(struct ldb_match *m)
{
	struct ldb_listen *ls = m->ls;
	bool any = false;
	for (int k = 0; k < ls->nio; k++) {
		struct ldb_repl_ring *r = &ls->wrings[k];
		uint64_t t = r->tail, h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		for (; t < h; t++)
			offered(m, &r->item[t & (LDB_REPL_RING - 1)]);
		any = any || r->tail != t;
		__atomic_store_n(&r->tail, t, __ATOMIC_RELEASE);
	}
	for (int k = 0; k < ls->nth; k++) {
		struct ldb_note_ring *q = ls->th[k].ring;
		uint64_t t = q->tail, h = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
		for (; t < h; t++) {
			if (ls->nrec != NULL) /* --listen-record */
				ldb_lrec_note(ls->nrec, &q->item[t & (LDB_NOTE_RING - 1)]);
			noted(m, &q->item[t & (LDB_NOTE_RING - 1)]);
		}
		any = any || q->tail != t;
		__atomic_store_n(&q->tail, t, __ATOMIC_RELEASE);
	}
	return any;
}

/* The writes every listener received leave; those older than the wait too.
 * The most behind is looked at when something came (taken, received: only
 * a write taken makes a listener further behind). */
static void age(struct ldb_match *m, uint64_t now, uint64_t wait_ns, bool all, bool came)
{
	while (m->tail < m->head) {
		const struct wrec *r = &m->w[m->tail & (m->cap - 1)];
		if (r->live && r->nseen < r->want && !all && (now < r->t || now - r->t < wait_ns))
			break;
		retire(m);
	}
	if (!came)
		return;
	uint64_t most = m->behind_max;
	for (int k = 0; k < m->ls->n; k++)
		if (m->up[k]) {
			uint64_t b = m->taken - m->base[k] - m->skip[k] - m->got[k] - m->miss[k];
			if (b > most && b < (1ULL << 62))
				most = b;
		}
	put(&m->behind_max, most);
}

void *ldb_match_main(void *arg)
{
	struct ldb_match *m = arg;
	struct ldb_listen *ls = m->ls;
	uint64_t wait_ns = ls->cfg->listen_wait_ms * 1000000ULL + KEEP_NS; /* the end's wait: finish_at */
	uint64_t idle = IDLE_NS;
	for (;;) {
		uint64_t now = ldb_now_ns();
		if (now - m->active_at >= ACTIVE_EVERY_NS)
			look_active(m, now);
		bool any = drain(m);
		early_again(m, now, false);
		int fin = __atomic_load_n(&ls->finishing, __ATOMIC_ACQUIRE);
		bool over = fin >= 2 || (fin == 1 && now >= __atomic_load_n(&ls->finish_at, __ATOMIC_RELAXED));
		age(m, now, wait_ns, over, any);
		if (over) {
			early_again(m, now, true);
			break;
		}
		if (any) {
			idle = IDLE_NS;
		} else {
			struct timespec ts = { 0, (long)idle };
			nanosleep(&ts, NULL);
			idle = idle * 2 > IDLE_MAX_NS ? IDLE_MAX_NS : idle * 2;
		}
	}
	__atomic_store_n(&m->done, true, __ATOMIC_RELEASE);
	return NULL;
}

bool ldb_match_settled(struct ldb_listen *ls)
{
	const struct ldb_match *m = ls->m;
	for (int k = 0; k < ls->nio; k++) /* the load's last writes taken first */
		if (__atomic_load_n(&ls->wrings[k].tail, __ATOMIC_ACQUIRE) !=
		    __atomic_load_n(&ls->wrings[k].head, __ATOMIC_ACQUIRE))
			return false;
	uint64_t exp = get(&m->expected), seen = get(&m->seen), miss = get(&m->missing);
	return seen + miss >= exp;
}

void ldb_match_read(struct ldb_listen *ls, struct ldb_listen_figs *f)
{
	struct ldb_match *m = ls->m;
	f->writes = get(&m->writes);
	f->untracked = get(&m->untracked);
	f->expected = get(&m->expected);
	f->seen = get(&m->seen);
	f->missing = get(&m->missing);
	f->duplicated = get(&m->dup);
	f->out_of_order = get(&m->ooo);
	f->superseded = get(&m->superseded);
	f->early = get(&m->early_n);
	f->foreign = get(&m->foreign);
	f->behind_max = get(&m->behind_max);
	f->caught_up = get(&m->caught_up);
	ldb_hist_reset(&f->delay);
	ldb_hist_add(&f->delay, &m->delay);
}

/* ------------------------------------------------------------ fed from files */

void ldb_match_feed_begin(struct ldb_match *m)
{
	look_active(m, 0);
}

void ldb_match_feed_write(struct ldb_match *m, uint64_t key, uint64_t dnkey, uint64_t t, bool raced, bool moved)
{
	if (key == 0)
		put(&m->untracked, m->untracked + 1);
	else
		take(m, key, dnkey, t, raced, moved);
}

void ldb_match_feed_note(struct ldb_match *m, const struct ldb_note *n)
{
	noted(m, n);
}

void ldb_match_feed_age(struct ldb_match *m, uint64_t now, uint64_t wait_ns, bool end)
{
	early_again(m, now, false);
	age(m, now, wait_ns, end, true);
	if (end)
		early_again(m, now, true);
}

bool ldb_match_delay_min(const struct ldb_match *m, int64_t *ns)
{
	*ns = m->dmin;
	return m->dmin_set;
}
