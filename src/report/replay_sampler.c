/* The replay's samples (report/replay_out.h): a thread that, every interval,
 * reads the sender's latency histograms, result codes and counters (sent,
 * differing, not sent, unanswered: ldb_live_counts) with relaxed atomic loads
 * (the sender takes no lock and prints nothing), and prints and records the
 * interval as a run's sampler does. */
#include "report/replay_out.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/ops.h"
#include "run/clock.h"

struct ldb_replay_sampler {
	const struct ldb_rp_result *r;
	int op_of[LDB_SLOG_NOPTYPES];
	int64_t interval_ns;
	struct ldb_text *text;
	struct ldb_reporter *rep;
	int nrep;
	atomic_bool stop;
	pthread_t th;
	bool started;
	uint64_t t0, last; /* the start, the last sample's end (monotonic ns) */
	int index;
	struct ldb_hist prev[LDB_SLOG_NOPTYPES], now[LDB_SLOG_NOPTYPES], delta[LDB_SLOG_NOPTYPES];
	struct ldb_hist late;        /* the lateness so far (--metrics-listen) */
	struct ldb_live_counts live; /* sent, differing, not sent so far (--metrics-listen) */
	uint64_t prev_codes[LDB_SLOG_NOPTYPES][LDB_CODE_SLOTS];
	struct ldb_totals carried; /* what the samples so far held */
	uint64_t carried_counted;
	struct ldb_sample s;
};

/* Kind t's counters between prev and now: answers, successes, the other codes. */
static void interval_counts(struct ldb_replay_sampler *p, int t, const uint64_t *codes, struct ldb_opstats *o)
{
	int op = p->op_of[t];
	o->completed = ldb_hist_count(&p->delta[t]);
	for (int slot = 0; slot < LDB_CODE_SLOTS; slot++) {
		uint64_t n = codes[slot] - p->prev_codes[t][slot];
		int code = slot == LDB_CODE_ILLEGAL ? LDB_CODE_MAX + 1 : slot + LDB_CODE_MIN;
		if (ldb_op_succeeded((enum ldb_op)op, code))
			o->succeeded += n;
		else
			o->codes[slot] += n;
	}
	o->counted = o->succeeded;
	o->attempted = o->completed; /* the sender publishes its answers, not its sends */
}

/* One interval ending now: p->s filled, prev moved on.  final: from the
 * result after the sender joined (exact), the rest of every count. */
static void take(struct ldb_replay_sampler *p, uint64_t now, bool final)
{
	memset(&p->s, 0, sizeof p->s);
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		int op = p->op_of[t];
		const struct ldb_rp_kind_stats *k = &p->r->kind[t];
		if (op < 0)
			continue;
		uint64_t codes[LDB_CODE_SLOTS];
		for (int i = 0; i < LDB_CODE_SLOTS; i++)
			codes[i] = __atomic_load_n(&k->codes[i], __ATOMIC_RELAXED);
		ldb_hist_reset(&p->now[t]);
		ldb_hist_add(&p->now[t], &k->lat);
		if (ldb_hist_count(&p->now[t]) == 0 && !(final && k->sent > 0))
			continue;
		ldb_hist_sub(&p->delta[t], &p->now[t], &p->prev[t]);
		struct ldb_opstats *o = &p->s.delta.op[op];
		interval_counts(p, t, codes, o);
		if (final) /* the sends not yet carried */
			o->attempted = k->sent - p->carried.op[op].attempted;
		p->carried.op[op].attempted += o->attempted;
		p->s.counted += o->counted;
		p->s.lat[op] = &p->delta[t];
		memcpy(p->prev_codes[t], codes, sizeof codes);
		ldb_hist_reset(&p->prev[t]);
		ldb_hist_add(&p->prev[t], &p->now[t]);
	}
	ldb_hist_reset(&p->late);
	ldb_hist_add(&p->late, &p->r->late);
	p->s.late = &p->late;
	ldb_replay_live_read(&p->live, p->r);
	p->s.live = &p->live;
	p->s.index = ++p->index;
	p->s.t_end = (double)(now - p->t0) / 1e9;
	p->s.seconds = (double)(now - p->last) / 1e9;
	p->s.threads = 1;
	p->s.final = final;
	p->last = now;
}

static uint64_t ld(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void ldb_replay_live_read(struct ldb_live_counts *l, const struct ldb_rp_result *r)
{
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		l->read[t] = ld(&r->kind[t].read);
		l->sent[t] = ld(&r->kind[t].sent);
		l->differ[t] = ld(&r->kind[t].differ);
	}
	for (int w = 0; w < LDB_RP_NSKIPS; w++)
		l->not_sent[w] = ld(&r->skipped[w]);
	l->not_sent[LDB_RP_SKIP_CONN_FAILED] += ld(&r->ops_conn_failed);
	l->not_sent[LDB_RP_SKIP_CONN_LOST] += ld(&r->ops_conn_lost);
	l->unanswered = ld(&r->unanswered);
}

static void emit(struct ldb_replay_sampler *p)
{
	if (!p->s.final && p->text)
		ldb_text_sample(p->text, &p->s);
	for (int i = 0; i < p->nrep; i++)
		if (p->rep[i].sample)
			p->rep[i].sample(p->rep[i].ctx, &p->s);
}

static void *sampler_thread(void *arg)
{
	struct ldb_replay_sampler *p = arg;
	uint64_t next = p->t0 + (uint64_t)p->interval_ns;
	while (!atomic_load(&p->stop)) {
		uint64_t now = ldb_now_ns();
		if (now < next) {
			uint64_t wait = next - now < 20000000 ? next - now : 20000000; /* stop seen within 20 ms */
			struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)wait };
			nanosleep(&ts, NULL);
			continue;
		}
		take(p, now, false);
		emit(p);
		next += (uint64_t)p->interval_ns;
	}
	return NULL;
}

struct ldb_replay_sampler *ldb_replay_sampler_start(const struct ldb_rp_result *r, int64_t interval_ns,
                                                    struct ldb_text *text, struct ldb_reporter *rep, int nrep)
{
	struct ldb_replay_sampler *p = calloc(1, sizeof *p);
	if (p == NULL)
		return NULL;
	*p = (struct ldb_replay_sampler){ .r = r, .interval_ns = interval_ns, .text = text, .rep = rep, .nrep = nrep };
	int rc = 0;
	for (int t = 0; t < LDB_SLOG_NOPTYPES && rc == 0; t++) {
		const char *n = t == LDB_SLOG_OP_MODRDN ? "rename" : ldb_slog_optype_name(t);
		p->op_of[t] = t == LDB_SLOG_OP_NONE ? -1 : ldb_op_from_name(n, strlen(n), false);
		rc = ldb_hist_init(&p->prev[t]) | ldb_hist_init(&p->now[t]) | ldb_hist_init(&p->delta[t]);
	}
	rc |= ldb_hist_init(&p->late);
	p->t0 = p->last = ldb_now_ns();
	sigset_t all, old; /* the signals stay the replay's (run/signals) */
	sigfillset(&all);
	if (rc == 0 && pthread_sigmask(SIG_BLOCK, &all, &old) == 0) {
		p->started = pthread_create(&p->th, NULL, sampler_thread, p) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!p->started) {
		ldb_replay_sampler_end(p);
		return NULL;
	}
	return p;
}

void ldb_replay_sampler_end(struct ldb_replay_sampler *p)
{
	if (p == NULL)
		return;
	if (p->started) {
		atomic_store(&p->stop, true);
		pthread_join(p->th, NULL);
		p->started = false;
		take(p, ldb_now_ns(), true); /* the rest, after the sender joined: exact */
		if (p->s.seconds > 0 || p->s.counted > 0)
			emit(p);
	}
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		ldb_hist_free(&p->prev[t]);
		ldb_hist_free(&p->now[t]);
		ldb_hist_free(&p->delta[t]);
	}
	ldb_hist_free(&p->late);
	free(p);
}
