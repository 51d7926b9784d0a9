/* The load command: see load.h.  The main thread's part of a run: set-up of
 * the clients and I/O threads, the loop that samples and watches for the end,
 * the join and the summary.  The arithmetic of samples is report/sampler's. */
#include "cmd/load.h"
#include "cmd/load_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/rate_profile.h"
#include "server/monitor.h"
#include "server/preflight.h"
#include "report/join.h"
#include "report/listen_lines.h"
#include "report/repl_lines.h"
#include "report/reporter.h"
#include "report/settings.h"
#include "report/sampler.h"
#include "report/verdict.h"
#include "run/clock.h"
#include "run/held.h"
#include "run/iothread_plan.h"
#include "run/listen.h"
#include "run/oplog.h"
#include "run/scalab01.h"
#include "run/signals.h"
#include "run/run.h"

#define TICK_NS 20000000ULL   /* how often stop conditions are checked */
#define GLOBAL_STATS_EVERY 90 /* samples between ldclt's periodic summaries */
#define WORKER_STACK (256 * 1024)

/* The loop's clock and what ended it. */
struct pace {
	uint64_t interval, warmup; /* ns */
	uint64_t t_run, next;      /* threads started; next sample (or end of warm-up) */
	bool warming;
	long long samples;
	int global_cnt;
	bool signalled;
	const char *why; /* the last line, or NULL */
	const char *bye; /* why the run ended ("Number of samples achieved"), printed after the join */
	uint64_t t_end;  /* the end of the measurement (0 until the run stops) */
	bool last_due;   /* -N, --duration: the last sample, taken at t_end once the clients have
	                  * drained their results, so that it holds them */
};

/* ------------------------------------------------------------ set-up */

/* The histograms in use: the kinds that count, the bind that opens each
 * connection, and with --rate the uncorrected twins. */
void ldb_load_plan(const struct ldb_config *c, const struct ldb_run *run, bool used[LDB_H_COUNT][LDB_OP_COUNT])
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (run->load_kind[k]) {
			used[LDB_H_LAT][k] = true;
			for (unsigned j = 0; j < ldb_ops[k]->nsteps; j++) { /* a flow's steps: their kinds */
				used[LDB_H_LAT][ldb_ops[k]->step_kind[j]] = true;
				/* a step's second row: the login's group step, with --login-groups */
				if (ldb_ops[k]->step_also[j] > 0 && c->login_groups != NULL)
					used[LDB_H_LAT][ldb_ops[k]->step_also[j]] = true;
			}
		}
	if (run->bind_on_connect || c->bindeach)
		used[LDB_H_LAT][LDB_OPS_WITH(connect_bind)] = true;
	if (c->rate > 0)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			used[LDB_H_ULAT][k] = used[LDB_H_LAT][k];
	if (c->scalab01) /* a login: a bind, a search, a modify */
		ldb_s1_kinds(used[LDB_H_LAT]);
}

static void plan_histograms(struct load *l)
{
	ldb_load_plan(l->cfg, &l->run, l->used);
}

static int setup_clients(struct load *l)
{
	l->w = calloc((size_t)l->n, sizeof *l->w);
	l->st = calloc((size_t)l->n, sizeof *l->st);
	l->seen_dead = calloc((size_t)l->n, sizeof *l->seen_dead);
	if (!l->w || !l->st || !l->seen_dead)
		return -1;
	for (int i = 0; i < l->n; i++) {
		if ((l->st[i] = ldb_thread_stats_new()) == NULL)
			return -1;
		if (ldb_client_init(&l->w[i], &l->run, i, l->st[i]) != 0)
			return -1;
	}
	return 0;
}

bool ldb_load_lag(const struct ldb_config *c)
{
	return c->rate > 0 && !c->bindeach;
}

static bool lag_used(const struct load *l)
{
	return ldb_load_lag(l->cfg);
}

/* A kind of the load is made of several requests (its round trips are timed). */
bool ldb_load_multistep(const struct ldb_run *run)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (run->load_kind[k] && run->ops.state_size[k] > 0)
			return true;
	return false;
}

static bool multistep(const struct load *l)
{
	return ldb_load_multistep(&l->run);
}

int ldb_load_init_lat(const struct ldb_config *c, const struct ldb_run *run, const bool used[LDB_H_COUNT][LDB_OP_COUNT],
                      struct ldb_lat *lat)
{
	for (int j = 0; j < LDB_OP_COUNT; j++)
		if ((used[LDB_H_LAT][j] && ldb_hist_init(&lat->op[j])) ||
		    (used[LDB_H_ULAT][j] && ldb_hist_init(&lat->uop[j])))
			return -1;
	for (int j = 0; j < LDB_STAGE_COUNT; j++)
		if (ldb_stage_used(j, c->bindeach, ldb_load_multistep(run)) && ldb_hist_init(&lat->stage[j]))
			return -1;
	if (ldb_load_lag(c) && ldb_hist_init(&lat->lag)) /* the schedule lag */
		return -1;
	return 0;
}

static int init_lat(struct load *l, struct ldb_lat *lat)
{
	return ldb_load_init_lat(l->cfg, &l->run, (const bool(*)[LDB_OP_COUNT])l->used, lat);
}

/* The clients over the I/O threads, in contiguous blocks. */
static int setup_runners(struct load *l)
{
	l->nr = ldb_io_threads(l->cfg, l->n, l->run.depth, sysconf(_SC_NPROCESSORS_ONLN));
	if (l->cfg->scalab01)
		l->nr = l->n; /* a thread per client, as ldclt */
	l->r = calloc((size_t)l->nr, sizeof *l->r);
	l->lat = calloc((size_t)l->nr, sizeof *l->lat);
	if (l->r == NULL || l->lat == NULL)
		return -1;
	for (int k = 0; k < l->nr; k++) {
		struct ldb_iothread *r = &l->r[k];
		int first, count = ldb_io_share(l->n, l->nr, k, &first);
		r->w = &l->w[first];
		r->nw = count;
		l->lat[k] = &r->lat;
		if (init_lat(l, &r->lat) != 0)
			return -1;
		for (int i = 0; i < count; i++)
			r->w[i].lat = &r->lat;
	}
	return 0;
}

static int setup_sampler(struct load *l)
{
	struct ldb_sampler_src src = { .cfg = l->cfg,
		                       .st = l->st,
		                       .n = l->n,
		                       .lat = l->lat,
		                       .nlat = l->nr,
		                       .stages = l->cfg->bindeach,
		                       .rounds = multistep(l),
		                       .text = &l->text,
		                       .rep = l->rep,
		                       .nrep = l->nrep,
		                       .runners = l->r,
		                       .lag = lag_used(l) };
	memcpy(src.used, l->used, sizeof src.used);
	return ldb_sampler_init(&l->smp, &src);
}

/* -S: a watcher per consumer, and each I/O thread's tap.  @return 0, or the
 * exit status. */
static int setup_repl(struct load *l)
{
	char err[1024];
	int status = LDB_EXIT_INIT;
	if (l->cfg->nrepl == 0)
		return 0;
	l->repl = ldb_repl_start(l->cfg, l->nr, stderr, err, sizeof err, &status);
	if (l->repl == NULL || ldb_repl_out_init(&l->rout, l->repl) != 0) {
		fprintf(stderr, "%s: %s\n", l->cfg->progname,
		        l->repl ? "out of memory for the replication check" : err);
		return l->repl ? LDB_EXIT_INIT : status;
	}
	for (int k = 0; k < l->nr; k++)
		l->r[k].repl = ldb_repl_tap(l->repl, k);
	return 0;
}

/* --op-log FILE, or with --server-log alone a temporary file: a ring per I/O thread. */
static int setup_oplog(struct load *l)
{
	const struct ldb_config *c = l->cfg;
	if (l->run.tag_op == NULL)
		return 0;
	const char *path = c->oplog_path;
	char err[512];
	if (path == NULL) {
		snprintf(l->oplog_tmp, sizeof l->oplog_tmp, "/tmp/ldbench-oplog-XXXXXX");
		int fd = mkstemp(l->oplog_tmp);
		if (fd < 0) {
			fprintf(stderr, "%s: --server-log: cannot create a temporary file: %s\n", c->progname,
			        strerror(errno));
			l->oplog_tmp[0] = '\0';
			return -1;
		}
		close(fd);
		path = l->oplog_tmp;
	}
	if (ldb_oplog_open(&l->oplog, path, l->nr, l->run.run_id, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	l->oplog.head.tag_order = c->starttls ? 1 : 0; /* the tag follows the StartTLS */
	l->oplog.head.flags = l->run.rate_interval_ns > 0 ? LDB_OPLOG_F_RATE : 0;
	for (int k = 0; k < l->nr; k++)
		l->r[k].oplog = &l->oplog.rings[k];
	return 0;
}

static int setup(struct load *l, const struct ldb_config *c, FILE *out)
{
	char err[512];
	memset(l, 0, sizeof *l);
	/* SIGINT/SIGTERM blocked before any thread starts (the -S watchers and
	 * the op-log's writer start here): every thread inherits the mask, and
	 * only the main thread takes them (a thread started before would take
	 * the default action: the process killed, its summary lost); one that
	 * comes while the clients are set up waits for the run to begin */
	ldb_signals_take(&l->sig);
	l->cfg = c;
	l->n = c->threads;
	ldb_outputs_of_config(&l->out, c);
	l->text = (struct ldb_text){ .o = &l->out, .cfg = c, .out = out, .pid = getpid() };
	if (ldb_run_init(&l->run, c, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	l->run.line_fd = fileno(out); /* the clients' error lines go with the text */
	l->nrep = ldb_reporters_open(&l->out, l->rep, LDB_MAX_REPORTERS, err, sizeof err);
	if (l->nrep < 0) {
		l->nrep = 0;
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return -1;
	}
	int wst = c->nwl > 0 ? ldb_wl_setup(l) : 0;
	if (wst == -2)
		return -1; /* a workload's run could not be set up: said */
	if (c->nwl == 0)
		plan_histograms(l);
	if (wst != 0 || (c->nwl == 0 && (setup_clients(l) != 0 || setup_runners(l) != 0 || setup_sampler(l) != 0))) {
		fprintf(stderr, "%s: out of memory for %d threads\n", c->progname, l->n);
		return -1;
	}
	if (setup_oplog(l) != 0)
		return LDB_EXIT_INIT;
	if (ldb_load_start_write_record(l) != 0)
		return LDB_EXIT_PARAMS;
	/* before any connection: the descriptors and the local ports they need */
	long conns = (c->held > 0 ? c->held : (long)l->n * c->conns_per_thread) + c->listeners;
	if (ldb_fd_raise(ldb_fd_need(c, l->n) + c->listeners, err, sizeof err) != 0 ||
	    ldb_held_preflight(c, conns, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		return LDB_EXIT_PARAMS;
	}
	return setup_repl(l);
}

static void free_lat(struct ldb_lat *lat)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		ldb_hist_free(&lat->op[k]);
		ldb_hist_free(&lat->uop[k]);
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		ldb_hist_free(&lat->stage[k]);
	ldb_hist_free(&lat->lag);
}

static void teardown(struct load *l)
{
	ldb_oplog_free(&l->oplog);
	if (l->oplog_tmp[0] != '\0')
		unlink(l->oplog_tmp);
	if (l->joined)
		ldb_join_free(&l->join);
	ldb_repl_finish(l->repl);
	ldb_repl_out_free(&l->rout);
	ldb_repl_free(l->repl);
	ldb_listen_free(l->listen);
	ldb_load_free_write_record(l);
	if (l->lfig.delay.counts != NULL)
		ldb_hist_free(&l->lfig.delay);
	for (int i = 0; l->w && i < l->n; i++)
		ldb_client_free(&l->w[i]);
	for (int i = 0; l->st && i < l->n; i++)
		ldb_thread_stats_free(l->st[i]);
	for (int i = 0; l->r && i < l->nr; i++)
		free_lat(&l->r[i].lat);
	ldb_wl_teardown(l);
	ldb_sampler_free(&l->smp);
	free(l->w);
	free(l->r);
	free(l->lat);
	free(l->st);
	free(l->seen_dead);
	for (int i = 0; i < l->nrep; i++)
		if (l->rep[i].close)
			l->rep[i].close(l->rep[i].ctx);
	ldb_run_free(&l->run);
}

/* ------------------------------------------------------------ during the run */

/* The run's stop flag, on every workload's run too. */
static int load_stop(const struct load *l)
{
	int s = __atomic_load_n(&l->run.stop, __ATOMIC_RELAXED);
	return s != LDB_STOP_NONE || l->nwl == 0 ? s : ldb_wl_load_stop(l);
}

static void store_stop(struct load *l, int stop)
{
	ldb_wl_store_stop(l, stop);
	__atomic_store_n(&l->run.stop, stop, __ATOMIC_RELAXED);
}

/* Threads that ended by themselves (-T, noloop, a fatal error): their last
 * word, then ldclt's line.  @return how many have ended so far. */
static int reap(struct load *l)
{
	for (int i = 0; i < l->n; i++) {
		if (l->seen_dead[i] || !__atomic_load_n(&l->st[i]->dead, __ATOMIC_ACQUIRE))
			continue;
		l->seen_dead[i] = true;
		l->ndead++;
		if (l->w[i].note[0] != '\0')
			ldb_text_line(&l->text, "%s", l->w[i].note);
		ldb_text_line(&l->text, "T%03d: thread is dead.", i);
	}
	return l->ndead;
}

/* Every client and I/O thread has seen the end of warm-up (or ended), or 2 s
 * have passed. */
static void wait_for_restart(struct load *l)
{
	uint64_t give_up = ldb_now_ns() + 2000000000ULL;
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < l->n; i++)
			if (!__atomic_load_n(&l->st[i]->measuring, __ATOMIC_ACQUIRE) &&
			    !__atomic_load_n(&l->st[i]->dead, __ATOMIC_ACQUIRE))
				waiting++;
		for (int i = 0; i < l->nr; i++)
			if (!__atomic_load_n(&l->r[i].lat.measuring, __ATOMIC_ACQUIRE) &&
			    !__atomic_load_n(&l->r[i].lat.ended, __ATOMIC_ACQUIRE))
				waiting++;
		if (waiting == 0 || ldb_now_ns() > give_up)
			return;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* Zero the figures of the clients and I/O threads that ended during warm-up
 * (their writers are gone).  @return the operations warm-up completed. */
static uint64_t zero_ended(struct load *l)
{
	uint64_t warm = 0;
	for (int i = 0; i < l->n; i++) {
		struct ldb_thread_stats *st = l->st[i];
		if (__atomic_load_n(&st->measuring, __ATOMIC_ACQUIRE)) {
			warm += st->warm_completed;
			continue;
		}
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			int skip = ldb_stats_unused_rows(st, k);
			if (skip > 0) { /* rows it never wrote: left untouched (not made resident) */
				k += skip - 1;
				continue;
			}
			warm += st->op[k].completed;
			memset(&st->op[k], 0, sizeof st->op[k]);
		}
		memset(&st->setup, 0, sizeof st->setup);
		st->counted = 0;
	}
	for (int i = 0; i < l->nr; i++)
		if (!__atomic_load_n(&l->r[i].lat.measuring, __ATOMIC_ACQUIRE)) {
			ldb_lat_reset(&l->r[i].lat);
			ldb_wl_zero(l, i);
		}
	return warm;
}

/* End of warm-up: every client restarts its figures, then measurement (and
 * its clock) starts from zero. */
static void start_measuring(struct load *l, uint64_t warm_started)
{
	for (int j = 0; j < l->nwl; j++)
		__atomic_store_n(&l->wl[j].run.measuring, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&l->run.measuring, 1, __ATOMIC_RELEASE);
	wait_for_restart(l);
	uint64_t warm = zero_ended(l);
	memset(&l->pf, 0, sizeof l->pf); /* the pre-flight is before the new first read */
	if (l->cfg->monitor) {
		/* the server's counts start with the measurement too */
		char err[512];
		if (ldb_monitor_read(l->cfg, &l->mon_before, err, sizeof err) != 0)
			ldb_text_line(&l->text, "%s", err);
	}
	uint64_t now = ldb_now_ns();
	ldb_text_line(&l->text, "Warm-up done after %.3f s (%llu operations left out): measurement starts now.",
	              (double)(now - warm_started) / 1e9, (unsigned long long)warm);
	ldb_wl_start(l, now);
	ldb_sampler_start(&l->smp, now);
}

/* --find-max's view of a finished step: its objective, the client's verdict. */
static void fill_find_max(const struct ldb_config *c, struct ldb_result *res, const struct ldb_summary *sum,
                          enum ldb_op k)
{
	res->met = true;
	res->missed[0] = '\0';
	for (int i = 0; i < c->nfind_max && res->met; i++) {
		const struct ldb_threshold *t = &c->find_max[i];
		int kind = t->kind < 0 ? (int)k : t->kind;
		double a = ldb_threshold_actual(t, sum, kind);
		if (!ldb_threshold_holds(t, a)) {
			char shown[64];
			ldb_threshold_format(t, a, shown, sizeof shown);
			res->met = false;
			snprintf(res->missed, sizeof res->missed, "%s is %s", ldb_threshold_metric_name(t->metric),
			         shown);
		}
	}
	res->rate_target = sum->rate_target;
	res->p999_ns = sum->lat[k] ? ldb_hist_percentile(sum->lat[k], 99.9) : 0;
	if (sum->client != NULL) {
		res->server_mean_ns = sum->client->server_mean_ns;
		res->client_limited = sum->client->limit != LDB_LIMIT_NONE;
		res->short_of_inflight = sum->client->short_of_inflight;
	}
}

static void fill_result(const struct ldb_config *c, struct ldb_result *res, const struct ldb_summary *sum,
                        enum ldb_op k, int status)
{
	const struct ldb_hist *h = sum->lat[k];
	res->threads = sum->threads;
	res->main_op = (int)k;
	res->counted = sum->counted;
	res->seconds = sum->seconds;
	res->rate = ldb_rate(sum->counted, sum->seconds);
	res->p50_ns = h ? ldb_hist_percentile(h, 50) : 0;
	res->p99_ns = h ? ldb_hist_percentile(h, 99) : 0;
	res->errors = 0;
	for (int j = 0; j < LDB_OP_COUNT; j++)
		res->errors += ldb_opstats_errors(&sum->tot.op[j]);
	res->errors += ldb_setup_errors(&sum->tot.setup);
	res->status = status;
	fill_find_max(c, res, sum, k);
}

/* ldclt's summary (periodic, or the last one with --monitor's figures,
 * --fail-if's verdict and the reporters' end).  @return the status. */
/* The join's text as the run's lines (ldclt's prefix on each). */
static void join_lines(struct load *l, const struct ldb_join *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m == NULL)
		return;
	ldb_join_text(j, m);
	fclose(m);
	for (char *line = buf, *nl; line != NULL && *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl == NULL)
			break;
		*nl = '\0';
		ldb_text_line(&l->text, "%s", line);
	}
	free(buf);
}

static int summary(struct load *l, uint64_t now, int status, bool last, struct ldb_result *res)
{
	struct ldb_summary sum;
	int main_op = (int)l->run.main_op;
	if (last) { /* the records' intervals add up to the summary */
		ldb_wl_sample(l, now, true);
		ldb_sampler_final(&l->smp, now);
		l->smp.given = NULL;
	}
	struct ldb_summary *wsum = NULL;
	if (l->nwl > 0 && (wsum = calloc((size_t)l->nwl, sizeof *wsum)) == NULL)
		return status;
	if (wsum != NULL)
		ldb_wl_summaries(l, now, true, wsum); /* a block per workload, then the total */
	ldb_sampler_summary(&l->smp, now, &sum);
	if (wsum != NULL) {
		sum.rate_target = l->smp.rate_target;
		sum.workloads = wsum;
		sum.nworkloads = l->nwl;
	}
	sum.status = status;
	sum.dead = l->ndead;
	if (last && l->have_mon)
		sum.server = &l->mon_delta;
	struct ldb_repl_part repl;
	if (last && l->repl != NULL && l->rout.n > 0) /* -S: each consumer's figures over the run */
		ldb_summary_add(&sum, ldb_repl_part(&repl, l->rout.cur, l->rout.n));
	struct ldb_listen_part lpart;
	if (last && l->listen != NULL) { /* --listeners: what the listeners received */
		ldb_load_listen_baseline(l, &sum, main_op);
		ldb_summary_add(&sum, ldb_listen_part(&lpart, &l->lfig));
	}
	if (last && l->joined) /* --server-log: the run's operations joined with the server's log */
		ldb_summary_add(&sum, ldb_join_part(&l->join));
	if (last)
		sum.status = status = ldb_thresholds_check(l->cfg, &sum, main_op, status, NULL);
	char where[512], why[128];
	if (last && sum.tot.connects == 0 &&
	    (ldb_run_connect_error(&l->run, where, sizeof where, why, sizeof why) ||
	     ldb_wl_connect_error(l, where, sizeof where, why, sizeof why))) {
		sum.unreachable = where;
		sum.unreachable_why = why;
	}
	uint64_t *pending = NULL;
	if (last && l->cfg->depth > 1 && (pending = calloc((size_t)l->n, sizeof *pending)) != NULL) {
		for (int i = 0; i < l->n; i++)
			pending[i] = l->w[i].pending_at_end; /* written before the join */
		sum.pending = pending;
	}
	ldb_text_summary(&l->text, &sum);
	if (last && l->lfig.baseline)
		ldb_listen_baseline_text(&l->lfig, &l->text);
	if (last && l->joined)
		join_lines(l, &l->join);
	free(pending);
	sum.pending = NULL;
	if (!last) {
		free(wsum);
		return status;
	}
	(void)ldb_thresholds_check(l->cfg, &sum, main_op, status, &l->text);
	for (int i = 0; i < l->nrep; i++)
		if (l->rep[i].end)
			l->rep[i].end(l->rep[i].ctx, &sum);
	if (res != NULL)
		fill_result(l->cfg, res, &sum, l->run.main_op, status);
	free(wsum);
	return status;
}

/* --rate-profile: the target `ms` into the measurement, never
 * below a thousandth of the profile's top (a rate of 0 is a near pause). */
static double profile_rate(const struct load *l, uint64_t ms)
{
	double top = l->cfg->rate, r = ldb_rate_profile_at(l->cfg, ms);
	return r < top / 1000 ? top / 1000 : r;
}

/* Every tick: the clients' interval follows the profile. */
static void profile_tick(struct load *l, const struct pace *p, uint64_t now)
{
	if (l->cfg->nrate_profile == 0)
		return;
	uint64_t ms = p->warming || now < l->smp.t_start ? 0 : (now - l->smp.t_start) / 1000000ULL;
	uint64_t step = (uint64_t)(1e9 * (double)l->cfg->threads / profile_rate(l, ms));
	__atomic_store_n(&l->run.rate_step_ns, step, __ATOMIC_RELAXED);
}

/* A sample, its target the profile's mean over it. */
static void take_sample(struct load *l, uint64_t now)
{
	if (l->cfg->nrate_profile > 0 && now > l->smp.t_last) {
		uint64_t a = (l->smp.t_last - l->smp.t_start) / 1000000ULL, b = (now - l->smp.t_start) / 1000000ULL;
		double sum = 0;
		for (int i = 0; i < 16; i++)
			sum += profile_rate(l, a + (b - a) * (uint64_t)(2 * i + 1) / 32);
		l->smp.rate_target = sum / 16;
	}
	ldb_wl_sample(l, now, false); /* each workload's line, then the total's */
	ldb_sampler_take(&l->smp, now);
	l->smp.given = NULL;
	if (l->repl != NULL)
		ldb_repl_out_sample(&l->rout, &l->text, l->rep, l->nrep, ++l->repl_index,
		                    (double)(now - l->smp.t_start) / 1e9);
}

/* A sample is due.  @return true when -N samples are done. */
static bool sample_due(struct load *l, struct pace *p, uint64_t now)
{
	const struct ldb_config *c = l->cfg;
	if (c->samples > 0 && p->samples + 1 >= c->samples) {
		p->samples++;
		p->last_due = true;
		p->t_end = now;
		p->bye = "Number of samples achieved. Bye-bye...";
		p->why = "All threads are dead - exit.";
		return true;
	}
	take_sample(l, now);
	p->samples++;
	p->next += p->interval;
	if (p->next <= now)
		p->next = now + p->interval;
	if (!c->noglobalstats && --p->global_cnt == 0) {
		summary(l, now, LDB_EXIT_OK, false, NULL);
		p->global_cnt = GLOBAL_STATS_EVERY;
	}
	return false;
}

/* One wait of at most TICK_NS and what it brought.  @return true when the
 * run stops. */
static bool step(struct load *l, struct pace *p)
{
	const struct ldb_config *c = l->cfg;
	uint64_t duration = c->duration_ms * 1000000ULL;
	uint64_t now = ldb_now_ns(), until = p->next;
	if (!p->warming && c->duration_ms > 0 && l->smp.t_start + duration < until)
		until = l->smp.t_start + duration;
	uint64_t wait = until > now ? until - now : 0;
	bool sig = ldb_signals_wait(&l->sig, wait > TICK_NS ? TICK_NS : wait);
	now = ldb_now_ns();
	profile_tick(l, p, now);
	ldb_wl_tick(l, now);
	if (sig || load_stop(l) == LDB_STOP_MAX_ERRORS)
		p->t_end = now;
	if (sig) {
		p->signalled = true;
		store_stop(l, LDB_STOP_SIGNAL);
		return true;
	}
	if (load_stop(l) == LDB_STOP_MAX_ERRORS) {
		store_stop(l, LDB_STOP_MAX_ERRORS); /* one workload's -E ends them all */
		return true;
	}
	if (reap(l) == l->n) {
		/* -T, noloop, or every thread failed: a last, shorter sample */
		if (p->warming)
			start_measuring(l, p->t_run);
		take_sample(l, now);
		p->t_end = now;
		p->why = "All threads are dead - exit.";
		return true;
	}
	if (p->warming) {
		if (now >= p->next) {
			start_measuring(l, p->t_run);
			p->warming = false;
			p->next = l->smp.t_start + p->interval;
		}
		return false;
	}
	if (c->duration_ms > 0 && now >= l->smp.t_start + duration) {
		p->last_due = now > l->smp.t_last;
		p->t_end = now;
		p->bye = "Duration reached. Bye-bye...";
		p->why = "All threads are dead - exit.";
		return true;
	}
	return now >= p->next && sample_due(l, p, now);
}

/* ------------------------------------------------------------ start, end */

/* --start-at: wait (on the wall clock) until the agreed second, so that runs
 * on several client hosts cover the same time.  -1 if a signal came first. */
static int wait_for_start(struct load *l, time_t at)
{
	char when[64];
	struct tm tm;
	localtime_r(&at, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
	ldb_text_line(&l->text, "Waiting until %s to start (--start-at).", when);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec >= at)
			return 0;
		int64_t left_ns = ((int64_t)at - now.tv_sec) * 1000000000LL - now.tv_nsec;
		if (ldb_signals_wait(&l->sig, left_ns > 200000000 ? 200000000 : (uint64_t)left_ns))
			return -1;
	}
}

/* Before the threads: the server's figures, the banner, the reporters'
 * headers, --start-at.  @return -1 to go on, else the run's exit status. */
/* The text reporter's line, for the readers of server state. */
static void say_text(void *arg, const char *text)
{
	ldb_text_line(arg, "%s", text);
}

static int begin(struct load *l, const struct pace *p)
{
	const struct ldb_config *c = l->cfg;
	if (c->monitor) {
		char err[512];
		int st = ldb_monitor_read(c, &l->mon_before, err, sizeof err);
		if (st != 0) {
			fprintf(stderr, "%s: %s\n", c->progname, err);
			return st;
		}
	}
	ldb_text_banner(&l->text);
	const struct ldb_say say = { say_text, &l->text };
	int pf = ldb_preflight_run(c, &say, &l->pf);
	if (pf == LDB_EXIT_OK)
		pf = ldb_load_start_listeners(l);
	if (pf != LDB_EXIT_OK) {
		ldb_text_end(&l->text, pf);
		return pf;
	}
	struct ldb_run_info info = { .seed = c->seed, .started = time(NULL), .io_threads = l->nr };
	for (int i = 0; i < l->nrep; i++)
		if (l->rep[i].begin)
			l->rep[i].begin(l->rep[i].ctx, &info);
	if (c->start_at > 0 && wait_for_start(l, c->start_at) != 0) {
		/* interrupted before the start: nothing ran */
		ldb_text_end(&l->text, LDB_EXIT_OK);
		return LDB_EXIT_OK;
	}
	ldb_text_started(&l->text);
	if (p->warming)
		ldb_text_line(&l->text, "Warm-up for %.3f s: operations run but are left out of every figure.",
		              (double)p->warmup / 1e9);
	return -1;
}

static void pace_init(struct pace *p, const struct ldb_config *c)
{
	memset(p, 0, sizeof *p);
	p->interval = c->interval_ms * 1000000ULL;
	p->warmup = c->warmup_ms * 1000000ULL + (uint64_t)(c->warmup_samples > 0 ? c->warmup_samples : 0) * p->interval;
	p->warming = p->warmup > 0;
	p->global_cnt = GLOBAL_STATS_EVERY;
}

/* @return LDB_EXIT_OK, or LDB_EXIT_OTHER when a thread could not start (the
 * others are told to stop). */
static int start_threads(struct load *l, struct pace *p)
{
	int status = LDB_EXIT_OK;
	char err[512];
	if (l->oplog.rings != NULL && ldb_oplog_start(&l->oplog, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", l->cfg->progname, err);
		return LDB_EXIT_INIT;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	p->t_run = ldb_now_ns();
	l->run.t_start = p->t_run; /* read by the I/O threads once created */
	for (int j = 0; j < l->nwl; j++)
		l->wl[j].run.t_start = p->t_run;
	ldb_wl_begin(l, p->t_run);
	if (l->oplog.rings != NULL)
		ldb_oplog_set_start(&l->oplog); /* the records' times count from t_start */
	ldb_wl_start(l, p->t_run);
	ldb_sampler_start(&l->smp, p->t_run);
	void *(*main_fn)(void *) = l->cfg->scalab01 ? ldb_s1_client_main : ldb_iothread_main;
	if (l->cfg->scalab01 && ldb_s1_begin(&l->run, &status, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", l->cfg->progname, err);
		pthread_attr_destroy(&attr);
		return status;
	}
	for (; l->started < l->nr; l->started++) {
		int rc = pthread_create(&l->r[l->started].thread, &attr, main_fn, &l->r[l->started]);
		if (rc != 0) {
			fprintf(stderr, "%s: cannot start I/O thread %d of %d: %s\n", l->cfg->progname, l->started + 1,
			        l->nr, strerror(rc));
			store_stop(l, LDB_STOP_DONE);
			status = LDB_EXIT_OTHER;
			break;
		}
	}
	pthread_attr_destroy(&attr);
	p->next = p->warming ? p->t_run + p->warmup : p->t_run + p->interval;
	if (l->listen != NULL) /* --listen-pause: in the measurement's middle */
		ldb_listen_measuring(l->listen, p->t_run + p->warmup, l->cfg->duration_ms * 1000000ULL);
	return status;
}

/* Tell the threads to stop (unless something else did) and join them.
 * @return why they stopped (enum ldb_stop). */
static int join_threads(struct load *l)
{
	int stop = load_stop(l);
	if (stop == LDB_STOP_NONE)
		store_stop(l, LDB_STOP_DONE);
	for (int i = 0; i < l->started; i++) {
		pthread_join(l->r[i].thread, NULL);
		if (l->r[i].error[0] != '\0')
			fprintf(stderr, "%s: %s\n", l->cfg->progname, l->r[i].error);
	}
	return stop;
}

/* -e scalab01's own line, after the summary's others. */
static void scalab01_line(struct load *l)
{
	const struct ldb_s1_totals *t = &l->s1;
	ldb_text_line(&l->text,
	              "scalab01: logins %llu, users already logged in %llu, modem pool full %llu times, most in "
	              "use %d of %d; control connection: sessions ended %llu (binds %llu, searches %llu, modifies "
	              "%llu, errors %llu), sessions still open %llu (their users stay locked)",
	              (unsigned long long)t->logins, (unsigned long long)t->locked, (unsigned long long)t->modem_waits,
	              t->most_in_use, l->cfg->s1_maxcnxnb, (unsigned long long)t->ended,
	              (unsigned long long)t->ctrl_ops[LDB_OP_BIND], (unsigned long long)t->ctrl_ops[LDB_OP_SEARCH],
	              (unsigned long long)t->ctrl_ops[LDB_OP_MODIFY], (unsigned long long)t->ctrl_errors,
	              (unsigned long long)t->open_at_end);
}

static uint64_t scalab01_ctrl_total(const struct ldb_s1_totals *t)
{
	uint64_t n = 1; /* its unbind */
	for (int k = 0; k < LDB_OP_COUNT; k++)
		n += t->ctrl_ops[k];
	return n;
}

/* After the I/O threads: the op-log's last records, then with --server-log
 * the join (its failure is a line: the run's own figures stand). */
static void end_oplog(struct load *l, const struct pace *p, uint64_t t_end)
{
	const struct ldb_config *c = l->cfg;
	char err[512];
	if (l->oplog.rings == NULL)
		return;
	l->oplog.head.t_measure = l->smp.t_start > p->t_run ? l->smp.t_start - p->t_run : 0;
	l->oplog.head.interval_ns = c->interval_ms * 1000000ULL;
	if (ldb_oplog_finish(&l->oplog, t_end > p->t_run ? t_end - p->t_run : 0, err, sizeof err) != 0) {
		ldb_text_line(&l->text, "%s", err);
		return;
	}
	if (c->nserver_log == 0)
		return;
	const char *path = c->oplog_path != NULL ? c->oplog_path : l->oplog_tmp;
	if (ldb_join_run(&l->join, path, (const char *const *)c->server_log, c->nserver_log, c->join_wait_ms, err,
	                 sizeof err) != 0) {
		ldb_text_line(&l->text, "Server log: cannot join: %s", err);
		return;
	}
	l->joined = true;
}

/* After the join: the status, the last lines, the server's figures, the
 * summary.  @return the exit status. */
static int finish(struct load *l, const struct pace *p, int status, int stop, uint64_t t_end, struct ldb_result *res)
{
	const struct ldb_config *c = l->cfg;
	for (int i = 0; i < l->n; i++)
		if (l->st[i]->status > status)
			status = l->st[i]->status;
	if (l->s1.status > status)
		status = l->s1.status;
	/* smoothshutdown: ldclt's threads end one by one, each says so */
	if (c->smoothshutdown && stop != LDB_STOP_SIGNAL && stop != LDB_STOP_MAX_ERRORS)
		reap(l);
	if (p->bye != NULL)
		ldb_text_line(&l->text, "%s", p->bye);
	if (stop == LDB_STOP_MAX_ERRORS) {
		ldb_text_line(&l->text, "Max error limit reached - exiting.");
		status = LDB_EXIT_MAX_ERRORS;
	}
	if (p->why != NULL)
		ldb_text_line(&l->text, "%s", p->why);
	if (c->monitor) {
		char err[512];
		struct ldb_monitor_snap after;
		if (ldb_monitor_read(c, &after, err, sizeof err) == 0) {
			ldb_monitor_delta(&l->mon_before, &after, true, &l->mon_delta);
			ldb_monitor_discount(&l->mon_delta, l->pf.own, l->pf.total);
			if (c->scalab01) /* the control connection's, with its unbind */
				ldb_monitor_discount(&l->mon_delta, l->s1.ctrl_ops, scalab01_ctrl_total(&l->s1));
			l->have_mon = true;
		} else {
			ldb_text_line(&l->text, "%s", err);
		}
	}
	if (p->signalled)
		fputc('\n', l->text.out);
	status = summary(l, t_end, status, true, res);
	if (c->scalab01)
		scalab01_line(l);
	if (p->signalled)
		fprintf(l->text.out, "Catch SIGINT - exit...\n");
	ldb_text_end(&l->text, status);
	return status;
}

int ldb_load_once(const struct ldb_config *c, FILE *out, struct ldb_result *res)
{
	struct load l;
	struct pace p;

	int st = setup(&l, c, out);
	if (st != 0) {
		teardown(&l);
		return st > 0 ? st : LDB_EXIT_INIT;
	}
	pace_init(&p, c);
	int status = begin(&l, &p);
	if (status >= 0) {
		teardown(&l);
		ldb_signals_settle(&l.sig);
		return status;
	}
	status = start_threads(&l, &p);
	if (status == LDB_EXIT_OK)
		while (!step(&l, &p))
			;
	uint64_t t_end = p.t_end != 0 ? p.t_end : ldb_now_ns();
	int stop = join_threads(&l);
	if (p.last_due) /* after the drain: the last sample holds every result */
		take_sample(&l, t_end);
	if (c->scalab01) /* its control thread ends once the clients have */
		ldb_s1_end(&l.s1);
	if (l.repl != NULL) {
		/* the consumers' last pending writes: seen, or unseen at their timeout */
		ldb_repl_finish(l.repl);
		ldb_repl_out_final(&l.rout, &l.text);
	}
	if (l.listen != NULL) {
		/* the listeners' last notifications: received, or missing after --listen-wait */
		ldb_listen_finish(l.listen);
		ldb_listen_read(l.listen, &l.lfig);
		ldb_listen_text(&l.lfig, &l.text);
	}
	ldb_load_end_records(&l); /* --listen-record, --write-record: their lines */
	end_oplog(&l, &p, t_end);
	/* SIGINT/SIGTERM stay blocked: a second one must not lose the summary */
	status = finish(&l, &p, status, stop, t_end, res);
	if (res != NULL)
		res->interrupted = p.signalled; /* --find-max stops its search */
	teardown(&l);
	ldb_signals_settle(&l.sig);
	return status;
}
