/* The replication check's watchers: see repl_watch.h, run/repl.h and docs/design.md
 * ("Replication delay").  One thread per consumer; nothing here runs in an
 * I/O thread but ldb_repl_offer (run/repl.h). */
#include "server/repl_watch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ldap.h>

#include "ops/dn.h"
#include "ops/ops.h"
#include "side/ldapconn.h"
#include "run/clock.h"

#define QUEUE_MAX 65536                           /* pending samples per consumer */
#define POLL_NS 5000000ULL                        /* a pending sample is looked at again after 5 ms at least, */
#define POLL_MAX_NS 200000000ULL                  /* an eighth of its age, 200 ms at most */
#define CHECKS_PER_ROUND 4                        /* at most this many base searches per round ... */
#define ROUND_NS 2000000ULL                       /* ... and a round every 2 ms at most: <= 2,000 searches/s */
#define IDLE_NS 20000000ULL                       /* the longest sleep (the end of the load is seen by then) */
#define RETRY_NS 1000000000ULL                    /* a lost connection is retried each second */
#define CONNECT_TIMEOUT_S 5                       /* a consumer's connect and TLS handshake */
#define FIRST_WAIT_NS 6000000000ULL               /* the start waits this long for the first connections */
#define SEARCH_TIMEOUT_S 2                        /* a search not answered in time: looked at again */
#define FILTER_MAX (3 * LDB_REPL_FILE_MAX + 1024) /* an escaped value triples at most */

struct pend {
	struct ldb_repl_item it;
	uint64_t next; /* when to look again */
};

struct consumer {
	struct ldb_repl *rp;
	const char *given; /* as -S has it */
	char url[512];
	char why[768]; /* its line */
	int handoff;   /* 0: the start waits for the first connection; 1: gave up; 2: a TLS failure for it to say */
	int fatal;     /* the exit status of a TLS failure: the run stops (ldb_repl_start) */
	pthread_t th;
	bool started;
	struct ldb_repl_ring *rings; /* [rp->nio]: one per I/O thread */
	struct pend *q;
	size_t qlen;
	LDAP *ld;
	uint64_t retry_at;
	bool lost_said;
	struct ldb_repl_view view; /* the looks of one change (ops.h) */
	char filter[FILTER_MAX];
	/* written by the watcher, read by the main thread (relaxed) */
	int state;
	uint64_t seen, unseen, superseded, overflow, searches, backlog_max, backlog_peak;
	uint64_t backlog_seen; /* the main thread's own: the largest backlog it read */
	uint64_t shown_to;     /* the watcher's own: the latest supplier time of a write seen here */
	struct ldb_hist delay; /* single writer: the watcher */
};

struct ldb_repl {
	const struct ldb_config *cfg;
	FILE *out;
	int n, nio;
	struct consumer *c;
	struct ldb_repl_tap *taps;
	struct ldb_repl_ring **tap_rings; /* [nio][n] */
	uint64_t *last;                   /* the last-write table (run/repl.h) */
	uint64_t t0;                      /* its time origin */
	int finishing;                    /* the load is over: drain, then stop */
};

static void set_u64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint64_t get_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ connection */

/* The consumer's connection (side/ldapconn: -S HOST[:PORT] with -P's port,
 * else -p's, and the run's scheme and TLS; a URL as given), bound with
 * --repl-bind, else as the load (-D, or -o mech's SASL).  A TLS handshake
 * that fails is said by ldb_repl_start (fatal), not here. */
static int bind_consumer(struct consumer *cs, char *why, size_t cap)
{
	const struct ldb_config *c = cs->rp->cfg;
	struct ldb_side_who who = { .dn = c->bind_dn, .password = c->password };
	if (c->repl_bind_dn != NULL)
		who = (struct ldb_side_who){ .dn = c->repl_bind_dn, .password = c->repl_password };
	else if (c->sasl_mech != NULL)
		ldb_side_run_who(c, &who);
	const struct ldb_side_opts o = {
		.server = cs->given, .port = c->repl_port, .net_timeout_s = CONNECT_TIMEOUT_S, .who = &who
	};
	struct ldb_side side;
	struct ldb_target target;
	ldb_target_of_config(&target, c);
	int rc = ldb_side_open(&side, &target, &o, why, cap);
	memcpy(cs->url, side.url, sizeof cs->url);
	cs->ld = side.ld;
	if (rc != 0 && side.fail == LDB_SIDE_TLS && cs->fatal == 0)
		__atomic_store_n(&cs->fatal, ldb_side_exit_status(side.fail), __ATOMIC_RELAXED);
	return rc;
}

static void say(struct consumer *cs, const char *what)
{
	fprintf(cs->rp->out, "%s: -S %s: %s\n", cs->rp->cfg->progname, cs->given, what);
	fflush(cs->rp->out);
}

/* ------------------------------------------------------------ checks */

/* Does a base search of dn with filter find the entry?  1 yes, 0 no, -1 the
 * connection is gone, -2 no answer in time. */
static int exists(struct consumer *cs, const char *dn, const char *filter)
{
	char noattrs[] = LDAP_NO_ATTRS;
	char *attrs[] = { noattrs, NULL };
	struct timeval tv = { SEARCH_TIMEOUT_S, 0 };
	LDAPMessage *res = NULL;
	set_u64(&cs->searches, cs->searches + 1);
	int rc = ldap_search_ext_s(cs->ld, dn, LDAP_SCOPE_BASE, filter, attrs, 1, NULL, NULL, &tv, 1, &res);
	int n = res != NULL ? ldap_count_entries(cs->ld, res) : 0;
	ldap_msgfree(res);
	if (rc == LDAP_SUCCESS)
		return n > 0;
	if (rc == LDAP_NO_SUCH_OBJECT)
		return 0;
	if (rc == LDAP_TIMEOUT)
		return -2;
	if (rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR)
		return -1;
	return 0; /* refused (access, ...): not visible */
}

/* (attr=value) with the value escaped (RFC 4515); (!(...)) for a value delete. */
static int value_filter(const char *attr, bool del, const char *val, size_t len, char *out, size_t cap)
{
	struct berval in = { len, (char *)val }, esc = { 0, NULL };
	if (ldap_bv2escaped_filter_value(&in, &esc) != 0)
		return -1;
	int w = snprintf(out, cap, del ? "(!(%s=%s))" : "(%s=%s)", attr, esc.bv_val);
	ldap_memfree(esc.bv_val);
	return w > 0 && (size_t)w < cap ? 0 : -1;
}

/* Is the change of `it` visible?  1 yes, 0 not yet, -1 connection gone, -2
 * slow.  Its kind's row says which base searches see it (ops.h). */
static int visible(struct consumer *cs, const struct ldb_repl_item *it)
{
	if (it->kind >= LDB_OP_COUNT) /* a flow's step (LDB_REPL_KEYS): never offered to -S */
		return 1;
	const struct ldb_opdesc *d = ldb_ops[it->kind];
	if (d->repl_looks == NULL)
		return 1;
	struct ldb_repl_change ch = { it->v, it->bv, it->run, it->len };
	int n = d->repl_looks(cs->rp->cfg, &ch, &cs->view);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		const struct ldb_repl_look *l = &cs->view.look[i];
		const char *filter = "(objectClass=*)";
		if (l->attr != NULL) {
			if (value_filter(l->attr, l->negate, l->val, l->vlen, cs->filter, sizeof cs->filter) != 0)
				return 0;
			filter = cs->filter;
		}
		int r = exists(cs, l->dn, filter);
		if (r < 0 || r != (int)l->present)
			return r < 0 ? r : 0;
	}
	return 1;
}

/* A look that did not find the sample's change, made when the consumer had
 * already shown a write confirmed after the sample's (shown: the latest
 * such write's supplier time before the look): the consumer applied the
 * sample's change (replication keeps the supplier's order) and something
 * replaced it since.  When the last-write table says that the entry was
 * written again, confirmed after the sample, or when another write of the
 * entry was confirmed while the sample was in flight (the supplier may have
 * applied that one last), the sample is superseded, not unseen.  A
 * consumer that shows nothing (not a replica, stopped) never gets there. */
static bool superseded(const struct consumer *cs, const struct ldb_repl_item *it, uint64_t shown)
{
	const struct ldb_repl *rp = cs->rp;
	if (shown <= it->t)
		return false;
	if (it->raced)
		return true;
	uint64_t w = __atomic_load_n(&rp->last[ldb_repl_last_slot(it->v)], __ATOMIC_RELAXED);
	uint64_t mine = ldb_repl_last_word(it->v, it->t, rp->t0);
	return w >> 40 == mine >> 40 && (w & LDB_REPL_LAST_TIME) > (mine & LDB_REPL_LAST_TIME);
}

/* ------------------------------------------------------------ the watcher */

/* Move what the I/O threads handed over into the queue. */
static void take_samples(struct consumer *cs)
{
	for (int k = 0; k < cs->rp->nio; k++) {
		struct ldb_repl_ring *r = &cs->rings[k];
		uint64_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		for (; tail != head; tail++) {
			const struct ldb_repl_item *it = &r->item[tail & (LDB_REPL_RING - 1)];
			if (cs->qlen == QUEUE_MAX) {
				set_u64(&cs->overflow, cs->overflow + 1);
				continue;
			}
			cs->q[cs->qlen++] = (struct pend){ *it, 0 };
		}
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	if (cs->qlen > cs->backlog_max)
		set_u64(&cs->backlog_max, cs->qlen);
	if (cs->qlen > get_u64(&cs->backlog_peak))
		set_u64(&cs->backlog_peak, cs->qlen);
}

/* A connection that broke: one line, and a new one tried each second. */
static void lost(struct consumer *cs, uint64_t now)
{
	if (!cs->lost_said) {
		say(cs, "connection lost; retrying each second (its pending writes age meanwhile)");
		cs->lost_said = true;
	}
	ldap_unbind_ext_s(cs->ld, NULL, NULL);
	cs->ld = NULL;
	cs->retry_at = now + RETRY_NS;
}

/* One round over the queue: each due sample checked once (at most
 * CHECKS_PER_ROUND), the seen and the timed-out ones taken out.  true when
 * due samples were left for the next round. */
static bool check_round(struct consumer *cs)
{
	const uint64_t timeout = cs->rp->cfg->repl_timeout_ms * 1000000ULL;
	uint64_t now = ldb_now_ns();
	int budget = CHECKS_PER_ROUND;
	size_t keep = 0;
	for (size_t i = 0; i < cs->qlen; i++) {
		struct pend p = cs->q[i];
		int r = 0;
		if (now - p.it.t > timeout) {
			set_u64(&cs->unseen, cs->unseen + 1);
			continue;
		}
		uint64_t shown = cs->shown_to;
		if (cs->ld != NULL && budget > 0 && p.next <= now) {
			budget--;
			r = visible(cs, &p.it);
			if (r == 0 && superseded(cs, &p.it, shown)) {
				set_u64(&cs->superseded, cs->superseded + 1);
				continue;
			}
			now = ldb_now_ns();
			if (r == -1)
				lost(cs, now);
			/* the delay is known to within an eighth of itself (5 ms at least) */
			uint64_t gap = (now - p.it.t) / 8;
			p.next = now + (gap < POLL_NS ? POLL_NS : gap > POLL_MAX_NS ? POLL_MAX_NS : gap);
		}
		if (r == 1) {
			ldb_hist_record(&cs->delay, now - p.it.t);
			set_u64(&cs->seen, cs->seen + 1);
			if (p.it.t > cs->shown_to)
				cs->shown_to = p.it.t;
			continue;
		}
		cs->q[keep++] = p;
	}
	cs->qlen = keep;
	return budget == 0;
}

/* When the next round is needed: the first pending sample due, the next
 * sample an I/O thread may take, a reconnection, IDLE_NS at the latest; and
 * while a sample is due but not written yet (or with every Nth), a round
 * every ROUND_NS.  Waking only then keeps the watcher off the CPUs the
 * supplier's writers share with it on one host (a wake-up every 2 ms cost a
 * slapd provider's modify load about 10 % on 2 cores). */
static uint64_t next_round(const struct consumer *cs, uint64_t now, bool more)
{
	const struct ldb_repl *rp = cs->rp;
	uint64_t soon = now + ROUND_NS, wake = now + IDLE_NS;
	if (more || rp->cfg->repl_every > 0)
		return soon;
	for (size_t i = 0; i < cs->qlen && wake > soon; i++)
		if (cs->q[i].next < wake)
			wake = cs->q[i].next;
	for (int k = 0; k < rp->nio && wake > soon; k++) {
		uint64_t at = __atomic_load_n(&rp->taps[k].next_at, __ATOMIC_RELAXED);
		if (at < wake)
			wake = at;
	}
	if (cs->ld == NULL && cs->retry_at < wake)
		wake = cs->retry_at;
	return wake > soon ? wake : soon;
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void *watch(void *arg)
{
	struct consumer *cs = arg;
	char why[768];
	if (bind_consumer(cs, why, sizeof why) != 0) {
		int waiting = 0; /* ldb_repl_start, still waiting, says it and stops the run */
		if (cs->fatal != 0 &&
		    __atomic_compare_exchange_n(&cs->handoff, &waiting, 2, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			snprintf(cs->why, sizeof cs->why, "%s", why);
		else {
			snprintf(why + strlen(why), sizeof why - strlen(why), "; not checked");
			say(cs, why);
		}
		__atomic_store_n(&cs->state, LDB_REPL_DOWN, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&cs->state, LDB_REPL_UP, __ATOMIC_RELAXED);
	for (;;) {
		bool finishing = __atomic_load_n(&cs->rp->finishing, __ATOMIC_ACQUIRE);
		take_samples(cs);
		if (finishing && cs->qlen == 0)
			break;
		uint64_t now = ldb_now_ns();
		if (cs->ld == NULL && now >= cs->retry_at && bind_consumer(cs, why, sizeof why) != 0)
			cs->retry_at = now + RETRY_NS;
		bool more = check_round(cs);
		now = ldb_now_ns();
		pause_ns(next_round(cs, now, more) - now);
	}
	if (cs->ld != NULL)
		ldap_unbind_ext_s(cs->ld, NULL, NULL);
	cs->ld = NULL;
	return NULL;
}

/* ------------------------------------------------------------ set-up and figures */

static int consumer_init(struct ldb_repl *rp, struct consumer *cs, int i)
{
	cs->rp = rp;
	cs->given = rp->cfg->repl_consumer[i];
	cs->rings = aligned_alloc(64, sizeof(struct ldb_repl_ring) * (size_t)rp->nio);
	cs->q = malloc(sizeof *cs->q * QUEUE_MAX);
	if (cs->rings == NULL || cs->q == NULL || ldb_hist_init(&cs->delay) != 0 ||
	    ldb_wctx_init(&cs->view.wc, rp->cfg) != 0)
		return -1;
	memset(cs->rings, 0, sizeof(struct ldb_repl_ring) * (size_t)rp->nio);
	for (int k = 0; k < rp->nio; k++)
		rp->tap_rings[k * rp->n + i] = &cs->rings[k];
	return 0;
}

static void taps_init(struct ldb_repl *rp)
{
	const struct ldb_config *c = rp->cfg;
	for (int k = 0; k < rp->nio; k++) {
		struct ldb_repl_tap *t = &rp->taps[k];
		t->rings = &rp->tap_rings[k * rp->n];
		t->nrings = rp->n;
		t->every = c->repl_every > 0 ? (uint64_t)c->repl_every : 0;
		/* the rate is the whole run's: each I/O thread takes its share */
		t->gap_ns = (uint64_t)(1e9 * rp->nio / (c->repl_rate > 0 ? c->repl_rate : 50));
		t->last = rp->last;
		t->t0 = rp->t0;
	}
}

/* Each watcher's first connection tried (at the same time, each within its
 * connect timeout): a consumer whose TLS handshake failed (a certificate
 * that does not verify) stops the run before the load, with one line and
 * the load's status for the same failure; one that is down or refuses the
 * bind has said so and is left out. */
static int first_connections(struct ldb_repl *rp, char *err, size_t cap, int *status)
{
	/* a consumer that takes the connection but never answers the bind is
	 * not waited for longer: its watcher goes on as before */
	uint64_t until = ldb_now_ns() + FIRST_WAIT_NS;
	for (int i = 0; i < rp->n; i++)
		while (__atomic_load_n(&rp->c[i].state, __ATOMIC_ACQUIRE) == LDB_REPL_CONNECTING &&
		       ldb_now_ns() < until)
			pause_ns(1000000);
	for (int i = 0; i < rp->n; i++) {
		struct consumer *cs = &rp->c[i];
		int waiting = 0;
		if (__atomic_load_n(&cs->state, __ATOMIC_ACQUIRE) != LDB_REPL_CONNECTING ||
		    __atomic_compare_exchange_n(&cs->handoff, &waiting, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* done, or left to its watcher */
		while (__atomic_load_n(&cs->state, __ATOMIC_ACQUIRE) == LDB_REPL_CONNECTING)
			pause_ns(1000000); /* it is handing its line over */
	}
	for (int i = 0; i < rp->n; i++)
		if (__atomic_load_n(&rp->c[i].handoff, __ATOMIC_ACQUIRE) == 2) {
			snprintf(err, cap, "-S %s: %s", rp->c[i].given, rp->c[i].why);
			*status = rp->c[i].fatal;
			return -1;
		}
	return 0;
}

struct ldb_repl *ldb_repl_start(const struct ldb_config *cfg, int nio, FILE *out, char *err, size_t cap, int *status)
{
	*status = LDB_EXIT_INIT;
	struct ldb_repl *rp = calloc(1, sizeof *rp);
	if (rp == NULL)
		goto oom;
	*rp = (struct ldb_repl){ .cfg = cfg, .out = out, .n = cfg->nrepl, .nio = nio };
	rp->c = calloc((size_t)rp->n, sizeof *rp->c);
	rp->taps = calloc((size_t)nio, sizeof *rp->taps);
	rp->tap_rings = calloc((size_t)nio * (size_t)rp->n, sizeof *rp->tap_rings);
	rp->last = calloc((size_t)1 << LDB_REPL_LAST_BITS, sizeof *rp->last);
	rp->t0 = ldb_now_ns();
	if (rp->c == NULL || rp->taps == NULL || rp->tap_rings == NULL || rp->last == NULL)
		goto oom;
	for (int i = 0; i < rp->n; i++)
		if (consumer_init(rp, &rp->c[i], i) != 0)
			goto oom;
	taps_init(rp);
	for (int i = 0; i < rp->n; i++) {
		int rc = pthread_create(&rp->c[i].th, NULL, watch, &rp->c[i]);
		if (rc != 0) {
			snprintf(err, cap, "cannot start the watcher of -S %s: %s", rp->c[i].given, strerror(rc));
			ldb_repl_finish(rp);
			ldb_repl_free(rp);
			return NULL;
		}
		rp->c[i].started = true;
	}
	if (first_connections(rp, err, cap, status) != 0) {
		ldb_repl_finish(rp);
		ldb_repl_free(rp);
		return NULL;
	}
	return rp;
oom:
	snprintf(err, cap, "out of memory for the replication check");
	ldb_repl_free(rp);
	return NULL;
}

struct ldb_repl_tap *ldb_repl_tap(struct ldb_repl *rp, int k)
{
	return rp != NULL && k < rp->nio ? &rp->taps[k] : NULL;
}

int ldb_repl_count(const struct ldb_repl *rp)
{
	return rp != NULL ? rp->n : 0;
}

void ldb_repl_read(struct ldb_repl *rp, int i, bool take_peak, struct ldb_repl_figs *f)
{
	struct consumer *cs = &rp->c[i];
	f->consumer = cs->given;
	f->state = __atomic_load_n(&cs->state, __ATOMIC_RELAXED);
	/* read the verdicts first: what was handed over later is then at least as large */
	f->seen = get_u64(&cs->seen);
	f->unseen = get_u64(&cs->unseen);
	f->superseded = get_u64(&cs->superseded);
	f->dropped = get_u64(&cs->overflow);
	uint64_t handed = 0;
	for (int k = 0; k < rp->nio; k++) {
		f->dropped += __atomic_load_n(&cs->rings[k].dropped, __ATOMIC_RELAXED);
		handed += __atomic_load_n(&cs->rings[k].head, __ATOMIC_ACQUIRE);
	}
	/* checked: handed over (a watcher held up by its consumer has not taken
	 * them yet, they are its backlog all the same) */
	uint64_t overflow = get_u64(&cs->overflow);
	f->checked = handed > overflow ? handed - overflow : 0;
	uint64_t done = f->seen + f->unseen + f->superseded, now = f->checked > done ? f->checked - done : 0;
	f->searches = get_u64(&cs->searches);
	/* the watcher's largest, and the largest the main thread read itself */
	if (now > cs->backlog_seen)
		cs->backlog_seen = now;
	uint64_t peak =
	        take_peak ? __atomic_exchange_n(&cs->backlog_peak, 0, __ATOMIC_RELAXED) : get_u64(&cs->backlog_max);
	if (!take_peak && cs->backlog_seen > peak)
		peak = cs->backlog_seen;
	f->backlog_max = peak > now ? peak : now;
	ldb_hist_reset(&f->delay);
	ldb_hist_add(&f->delay, &cs->delay);
}

void ldb_repl_finish(struct ldb_repl *rp)
{
	if (rp == NULL)
		return;
	__atomic_store_n(&rp->finishing, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < rp->n; i++)
		if (rp->c[i].started) {
			pthread_join(rp->c[i].th, NULL);
			rp->c[i].started = false;
		}
}

void ldb_repl_free(struct ldb_repl *rp)
{
	if (rp == NULL)
		return;
	for (int i = 0; rp->c != NULL && i < rp->n; i++) {
		struct consumer *cs = &rp->c[i];
		free(cs->rings);
		free(cs->q);
		ldb_hist_free(&cs->delay);
		ldb_wctx_free(&cs->view.wc);
	}
	free(rp->c);
	free(rp->taps);
	free(rp->tap_rings);
	free(rp->last);
	free(rp);
}
