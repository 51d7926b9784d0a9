/* The listeners' start and end (run/listen.h): the search and the bind
 * encoded once, the engine's run for the listeners, their I/O threads, the
 * load's taps and the matcher; the wait for the refreshes, the one line when
 * the server refuses the search; the end's bounded wait; the figures. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/syncctl.h"
#include "run/clock.h"
#include "run/conn.h"
#include "run/listen_int.h"
#include "run/listen_rec.h"

#define REFRESH_WAIT_NS 120000000000ULL /* the refreshes: 2 minutes at most */
#define PSEARCH_SETTLE_NS 500000000ULL  /* a persistent search refused says so within this */
#define MATCHER_LOOK_NS 50000000ULL     /* more than the matcher's look at the listeners up (10 ms) */
#define MAX_THREADS 4
#define BIND_MAX 4096

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };
	nanosleep(&ts, NULL);
}

/* The search and the bind; the attribute a modify's value is read from in a
 * notification (the load's: ops.h ldb_listen_value_attr). */
static int encode(struct ldb_listen *ls, const struct ldb_run *load, char *err, size_t cap)
{
	const struct ldb_config *c = ls->cfg;
	char werr[LDB_WIRE_ERRLEN];
	ls->attr = ldb_listen_value_attr(c, load != NULL ? &load->ops : NULL);
	ls->alen = ls->attr != NULL ? strlen(ls->attr) : 0;
	const char *attrs[] = { ls->attr != NULL ? ls->attr : "1.1", NULL };
	if (ldb_listen_encode(&ls->op, &ls->ctl, c->listen_kind == LDB_LISTEN_PSEARCH, c->listen_base,
	                      c->listen_filter != NULL ? c->listen_filter : "(objectClass=*)", attrs, werr) != 0) {
		snprintf(err, cap, "--listen-base/--listen-filter: %s", werr);
		return LDB_EXIT_PARAMS;
	}
	if (c->bind_dn == NULL || c->bind_dn[0] == '\0')
		return 0;
	const char *pw = c->password != NULL ? c->password : "";
	if ((ls->bind = malloc(BIND_MAX)) == NULL)
		return LDB_EXIT_INIT;
	ls->bind_len = ldb_wire_put_bind_simple(ls->bind, BIND_MAX, 1, c->bind_dn, strlen(c->bind_dn), pw, strlen(pw));
	if (ls->bind_len == 0) {
		snprintf(err, cap, "--listeners: the bind DN and password are too long for the listeners' bind");
		return LDB_EXIT_PARAMS;
	}
	return 0;
}

/* The engine's run for the listeners: the load's target and TLS, its
 * StartTLS request (read only), two requests a connection (the bind, the
 * search). */
static void run_init(struct ldb_listen *ls, const struct ldb_run *load)
{
	struct ldb_run *run = &ls->run;
	ls->ecfg.threads = 1;
	ls->ecfg.close_sock = true;
	run->cfg = &ls->ecfg;
	memcpy(&run->addr, &load->addr, sizeof run->addr);
	run->addrlen = load->addrlen;
	memcpy(run->host_name, load->host_name, sizeof run->host_name);
	run->target = load->target;
	run->tls = load->tls;
	run->starttls = load->starttls;
	run->source = LDB_SOURCE_LISTEN;
	run->depth = 2;
	run->timeout_ns = 10000000000ULL;
	run->t_start = ldb_now_ns();
	run->line_fd = -1;
}

static void *aligned(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, n) != 0)
		return NULL;
	memset(p, 0, n);
	return p;
}

/* The load's taps (every write, to the matcher) and the listeners' threads' rings. */
static int alloc_parts(struct ldb_listen *ls, int nio)
{
	ls->nio = nio;
	ls->taps = calloc((size_t)nio, sizeof *ls->taps);
	ls->wrings = aligned((size_t)nio * sizeof *ls->wrings);
	ls->last = calloc(1u << LDB_REPL_LAST_BITS, sizeof *ls->last);
	ls->l = calloc((size_t)ls->n, sizeof *ls->l);
	ls->nth = (ls->n + LDB_LISTEN_PER_THREAD - 1) / LDB_LISTEN_PER_THREAD;
	if (ls->nth > MAX_THREADS)
		ls->nth = MAX_THREADS;
	ls->th = calloc((size_t)ls->nth, sizeof *ls->th);
	if (!ls->taps || !ls->wrings || !ls->last || !ls->l || !ls->th)
		return -1;
	for (int k = 0; k < nio; k++) {
		ls->taps[k].rings = malloc(sizeof *ls->taps[k].rings);
		if (ls->taps[k].rings == NULL)
			return -1;
		ls->taps[k].rings[0] = &ls->wrings[k];
		ls->taps[k].nrings = 1;
		ls->taps[k].every = 1;
		ls->taps[k].keys = true;
		ls->taps[k].last = ls->last;
		ls->taps[k].t0 = ls->run.t_start;
	}
	for (int k = 0; k < ls->n; k++)
		ls->l[k].code = -1;
	int per = ls->n / ls->nth, extra = ls->n % ls->nth, first = 0;
	for (int k = 0; k < ls->nth; k++) {
		struct ldb_lthread *t = &ls->th[k];
		t->ls = ls;
		t->first = first;
		t->n = per + (k < extra);
		first += t->n;
		if ((t->ring = aligned(sizeof *t->ring)) == NULL || ldb_hist_init(&t->away) != 0)
			return -1;
	}
	return (ls->m = ldb_match_new(ls)) != NULL ? 0 : -1;
}

static int start_threads(struct ldb_listen *ls, char *err, size_t cap)
{
	int rc = pthread_create(&ls->mth, NULL, ldb_match_main, ls->m);
	if (rc == 0)
		ls->mstarted = true;
	for (int k = 0; rc == 0 && k < ls->nth; k++)
		if ((rc = pthread_create(&ls->th[k].th, NULL, ldb_listen_thread, &ls->th[k])) == 0)
			ls->th[k].started = true;
	if (rc != 0)
		snprintf(err, cap, "cannot start the listeners' threads: %s", strerror(rc));
	return rc != 0 ? LDB_EXIT_INIT : 0;
}

/* ------------------------------------------------------------ the refresh */

static const char *code_name(int code)
{
	switch (code) {
	case 2: return "protocolError";
	case 3: return "timeLimitExceeded";
	case 4: return "sizeLimitExceeded";
	case 11: return "adminLimitExceeded";
	case 12: return "unavailableCriticalExtension";
	case 32: return "noSuchObject";
	case 50: return "insufficientAccessRights";
	case 51: return "busy";
	case 52: return "unavailable";
	case 53: return "unwillingToPerform";
	case 80: return "other";
	default: return NULL;
	}
}

/* Counts of the listeners by phase. */
static void phases(const struct ldb_listen *ls, int count[L_LOST + 1], int *code)
{
	memset(count, 0, sizeof(int) * (L_LOST + 1));
	*code = -1;
	for (int k = 0; k < ls->n; k++) {
		int p = __atomic_load_n(&ls->l[k].phase, __ATOMIC_ACQUIRE);
		count[p]++;
		int c = __atomic_load_n(&ls->l[k].code, __ATOMIC_RELAXED);
		if (c > 0 && *code < 0)
			*code = c;
	}
}

static const char *first_error(const struct ldb_listen *ls)
{
	for (int k = 0; k < ls->nth; k++)
		if (ls->th[k].error[0] != '\0')
			return ls->th[k].error;
	return "unknown";
}

/* Once every listener's refresh ended or failed: the one line for a
 * refusal.  @return 0, or the exit status. */
static int refresh_outcome(struct ldb_listen *ls, char *err, size_t cap)
{
	const struct ldb_config *c = ls->cfg;
	int count[L_LOST + 1], code;
	phases(ls, count, &code);
	bool ps = c->listen_kind == LDB_LISTEN_PSEARCH;
	const char *what = ps ? "persistent searches" : "RFC 4533 sync searches";
	if (code > 0) {
		char num[32];
		const char *name = code_name(code);
		if (name == NULL) {
			snprintf(num, sizeof num, "result code %d", code);
			name = num;
		}
		if (code == 12 || code == 53 || code == 2)
			snprintf(err, cap, "the server does not support %s below %s (%s)", what, c->listen_base, name);
		else
			snprintf(err, cap, "the server refused the listeners' %s below %s (%s)", what, c->listen_base,
			         name);
		return LDB_EXIT_NO_LISTEN;
	}
	if (count[L_FAILED] + count[L_LOST] > 0) {
		snprintf(err, cap, "%d of %d listeners could not start: %s", count[L_FAILED] + count[L_LOST], ls->n,
		         first_error(ls));
		return LDB_EXIT_CANNOT_BIND;
	}
	if (count[L_PERSIST] < ls->n) {
		snprintf(err, cap, "%d of %d listeners' refresh did not end within %llu s", ls->n - count[L_PERSIST],
		         ls->n, REFRESH_WAIT_NS / 1000000000ULL);
		return LDB_EXIT_NO_LISTEN;
	}
	return 0;
}

static int wait_refresh(struct ldb_listen *ls, char *err, size_t cap)
{
	uint64_t end = ldb_now_ns() + REFRESH_WAIT_NS;
	int count[L_LOST + 1], code;
	for (;;) {
		phases(ls, count, &code);
		if (count[L_PERSIST] + count[L_FAILED] + count[L_LOST] == ls->n || ldb_now_ns() >= end)
			break;
		nap(5000000);
	}
	if (ls->cfg->listen_kind == LDB_LISTEN_PSEARCH && count[L_PERSIST] == ls->n)
		nap(PSEARCH_SETTLE_NS); /* no answer means accepted: a refusal comes at once */
	nap(MATCHER_LOOK_NS);           /* the matcher has seen them up before the first write */
	return refresh_outcome(ls, err, cap);
}

int ldb_listen_start(const struct ldb_config *c, const struct ldb_run *run, int nio, struct ldb_listen **out, char *err,
                     size_t cap)
{
	struct ldb_listen *ls = calloc(1, sizeof *ls);
	*out = ls;
	if (ls == NULL) {
		snprintf(err, cap, "out of memory for the listeners");
		return LDB_EXIT_INIT;
	}
	ls->cfg = c;
	ls->n = c->listeners;
	run_init(ls, run);
	int rc = encode(ls, run, err, cap);
	if (rc == 0 && alloc_parts(ls, nio) != 0) {
		snprintf(err, cap, "out of memory for %d listeners", ls->n);
		rc = LDB_EXIT_INIT;
	}
	if (rc == 0 && c->listen_record != NULL &&
	    (ls->nrec = ldb_lrec_notes_open(c->listen_record, ls->n, c->listen_kind, err, cap)) == NULL)
		rc = LDB_EXIT_PARAMS;
	if (rc == 0)
		rc = start_threads(ls, err, cap);
	if (rc == 0)
		rc = wait_refresh(ls, err, cap);
	if (rc == 0 && ls->nrec != NULL)
		ldb_lrec_notes_up(ls->nrec);
	if (rc == 0)
		__atomic_store_n(&ls->live, 1, __ATOMIC_RELAXED);
	return rc;
}

struct ldb_repl_tap *ldb_listen_tap(struct ldb_listen *ls, int k)
{
	return &ls->taps[k];
}

void ldb_listen_measuring(struct ldb_listen *ls, uint64_t t0, uint64_t dur_ns)
{
	uint64_t p = ls->cfg->listen_pause_ms * 1000000ULL;
	if (p == 0)
		return;
	uint64_t at = t0 + (dur_ns > p ? (dur_ns - p) / 2 : 1000000000ULL);
	__atomic_store_n(&ls->pause_end, at + p, __ATOMIC_RELAXED);
	__atomic_store_n(&ls->pause_at, at, __ATOMIC_RELAXED);
}

bool ldb_listen_paused(const struct ldb_listen *ls, uint64_t now)
{
	uint64_t a = __atomic_load_n(&ls->pause_at, __ATOMIC_RELAXED);
	return a != 0 && now >= a && now < __atomic_load_n(&ls->pause_end, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ the end */

/* --listen-record: closed once the matcher (its writer) ended. */
static void close_record(struct ldb_listen *ls)
{
	if (ls->nrec == NULL)
		return;
	uint64_t dropped = 0;
	for (int k = 0; k < ls->nth; k++)
		dropped += __atomic_load_n(&ls->th[k].ring->dropped, __ATOMIC_RELAXED);
	ls->rec_n = ls->nrec->head.records;
	ldb_lrec_notes_close(ls->nrec, dropped, ls->rec_err, sizeof ls->rec_err);
	ls->nrec = NULL;
}

const char *ldb_listen_recorded(const struct ldb_listen *ls, uint64_t *n)
{
	*n = ls->rec_n;
	return ls->cfg->listen_record == NULL ? NULL : ls->rec_err;
}

static void stop_threads(struct ldb_listen *ls)
{
	__atomic_store_n(&ls->finishing, 2, __ATOMIC_RELEASE);
	if (ls->mstarted)
		pthread_join(ls->mth, NULL);
	ls->mstarted = false;
	close_record(ls);
	__atomic_store_n(&ls->run.stop, LDB_STOP_DONE, __ATOMIC_RELAXED);
	for (int k = 0; k < ls->nth; k++)
		if (ls->th[k].started) {
			pthread_join(ls->th[k].th, NULL);
			ls->th[k].started = false;
		}
}

void ldb_listen_finish(struct ldb_listen *ls)
{
	if (ls == NULL || !ls->mstarted)
		return;
	/* no pause past the load's end: what is late shows as late, not missing */
	__atomic_store_n(&ls->pause_end, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ls->finish_at, ldb_now_ns() + ls->cfg->listen_wait_ms * 1000000ULL, __ATOMIC_RELAXED);
	__atomic_store_n(&ls->finishing, 1, __ATOMIC_RELEASE);
	uint64_t end = ldb_now_ns() + ls->cfg->listen_wait_ms * 1000000ULL + 1000000000ULL;
	while (!ldb_match_settled(ls) && ldb_now_ns() < end)
		nap(5000000);
	stop_threads(ls);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* p50 and max of n values (sorted in place). */
static void p50_max(uint64_t *v, int n, uint64_t *p50, uint64_t *max)
{
	*p50 = *max = 0;
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_u64);
	*p50 = v[(n - 1) / 2];
	*max = v[n - 1];
}

/* The listeners lost and back; their time away once their threads are
 * joined (the histograms are theirs until then). */
static void read_lost(struct ldb_listen *ls, struct ldb_listen_figs *f)
{
	f->lost = f->reconnected = f->down = 0;
	f->catchup = 0;
	for (int k = 0; k < ls->n; k++) {
		const struct ldb_lsn *l = &ls->l[k];
		f->lost += (int)__atomic_load_n(&l->lost_n, __ATOMIC_RELAXED);
		f->reconnected += (int)__atomic_load_n(&l->back_n, __ATOMIC_RELAXED);
		f->catchup += __atomic_load_n(&l->catchup, __ATOMIC_RELAXED);
		int p = __atomic_load_n(&l->phase, __ATOMIC_RELAXED);
		f->down += p == L_LOST || __atomic_load_n(&l->t_lost, __ATOMIC_RELAXED) != 0;
	}
	struct ldb_hist h;
	f->away_p50_ns = f->away_max_ns = 0;
	if (ldb_hist_init(&h) != 0)
		return;
	for (int k = 0; k < ls->nth; k++)
		if (!ls->th[k].started)
			ldb_hist_add(&h, &ls->th[k].away);
	if (ldb_hist_count(&h) > 0) {
		f->away_p50_ns = ldb_hist_percentile(&h, 50);
		f->away_max_ns = h.max;
	}
	ldb_hist_free(&h);
}

void ldb_listen_read(struct ldb_listen *ls, struct ldb_listen_figs *f)
{
	int count[L_LOST + 1];
	phases(ls, count, &f->code);
	f->listeners = ls->n;
	f->kind = ls->cfg->listen_kind;
	f->failed = count[L_FAILED];
	read_lost(ls, f);
	uint64_t *t = calloc((size_t)ls->n, sizeof *t), *e = calloc((size_t)ls->n, sizeof *e);
	int n = 0;
	for (int k = 0; t != NULL && e != NULL && k < ls->n; k++) {
		uint64_t done = __atomic_load_n(&ls->l[k].t_done, __ATOMIC_RELAXED);
		uint64_t sent = __atomic_load_n(&ls->l[k].t_sent, __ATOMIC_RELAXED);
		if (done == 0)
			continue;
		t[n] = done > sent ? done - sent : 0;
		e[n++] = __atomic_load_n(&ls->l[k].entries, __ATOMIC_RELAXED);
	}
	f->refreshed = n;
	p50_max(t, n, &f->refresh_p50_ns, &f->refresh_max_ns);
	p50_max(e, n, &f->entries_p50, &f->entries_max);
	free(t);
	free(e);
	f->notes = 0;
	for (int k = 0; k < ls->n; k++)
		f->notes += __atomic_load_n(&ls->l[k].notes, __ATOMIC_RELAXED);
	ldb_match_read(ls, f);
	f->dropped = 0;
	for (int k = 0; k < ls->nth; k++)
		f->dropped += __atomic_load_n(&ls->th[k].ring->dropped, __ATOMIC_RELAXED);
	for (int k = 0; k < ls->nio; k++)
		f->untracked += __atomic_load_n(&ls->wrings[k].dropped, __ATOMIC_RELAXED);
}

void ldb_listen_free(struct ldb_listen *ls)
{
	if (ls == NULL)
		return;
	if (ls->th != NULL)
		stop_threads(ls);
	ldb_match_free(ls->m);
	for (int k = 0; ls->th != NULL && k < ls->nth; k++) {
		free(ls->th[k].ring);
		ldb_hist_free(&ls->th[k].away);
	}
	for (int k = 0; ls->taps != NULL && k < ls->nio; k++)
		free(ls->taps[k].rings);
	free(ls->th);
	free(ls->taps);
	free(ls->wrings);
	free(ls->last);
	free(ls->l);
	free(ls->bind);
	ldb_bytes_free(&ls->op);
	ldb_bytes_free(&ls->ctl);
	free(ls);
}
