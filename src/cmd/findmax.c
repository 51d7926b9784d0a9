/* --find-max: see findmax.h. */
#include "cmd/findmax.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cli/fail_if.h"
#include "cmd/load.h"

#define MAX_STEPS 101     /* the budget's top, and the probe */
#define REACHED 0.95      /* achieved / target of a passing step */
#define GROWTH 2.0        /* the geometric phase's factor */
#define MAX_CLIENTS 2000  /* what a step may grow -n to */
#define LAT_GUESS_NS 2e6  /* the latency assumed before any step */
#define INFLIGHT_ROOM 2.0 /* requests in flight per rate x latency */
#define RETRY_ROOM 4      /* a step short of requests in flight is run again with this many times the clients */
#define QUEUED 2.0        /* a mean latency this many times the quiet one: the server queued */
#define MORE_GAIN 1.5     /* RETRY_ROOM x the slots gave less than this x the rate: the server's limit */
#define DRAIN_MS 1000     /* at most this long after a step for the answers in flight (or -t) */

struct search {
	struct ldb_config *c;
	FILE *out;
	int pid;
	int base_threads, base_depth; /* -n and -a as given */
	struct ldb_result res[MAX_STEPS];
	int nres, nsteps;             /* results (probe included); steps */
	int summaries;                /* summary records written so far to --json */
	int best, worst;              /* index of the best passing step (-1), worst status */
	double lo, hi;                /* highest passing, lowest failing target (0: none yet) */
	double lat_ns;                /* the latency to size the next step with */
	double quiet_ns;              /* the lowest mean latency any run measured so far (0: none) */
	bool server_limit[MAX_STEPS]; /* short of requests in flight because the server queued */
	double quiet_at[MAX_STEPS];   /* quiet_ns when the step was judged */
	char stop[256];               /* what ended the search */
};

static bool step_passed(const struct ldb_result *r)
{
	return r->status == LDB_EXIT_OK && r->met && r->rate >= REACHED * r->rate_target;
}

/* Enough clients that rate x latency requests fit in flight, with room,
 * `times` over: more clients at -a's depth, and past MAX_CLIENTS a deeper
 * pipeline (up to -a's own limit) on each. */
static void size_step(struct search *s, double rate, int times)
{
	struct ldb_config *c = s->c;
	double slots = times * ceil(rate * s->lat_ns / 1e9 * INFLIGHT_ROOM);
	double per = (double)c->conns_per_thread * s->base_depth;
	double need = ceil(slots / per);
	c->depth = s->base_depth;
	c->threads = need > MAX_CLIENTS ? MAX_CLIENTS : (int)need;
	if (c->threads < s->base_threads)
		c->threads = s->base_threads;
	if (need > MAX_CLIENTS) {
		double depth = ceil(slots / ((double)c->conns_per_thread * MAX_CLIENTS));
		c->depth = depth > LDB_MAX_DEPTH ? LDB_MAX_DEPTH : (int)depth;
	}
}

/* A step short of requests in flight (Little's law: the slots could not
 * carry the target at the latency seen) is the server's limit, not the
 * client's, when its mean latency rose to QUEUED times the quiet latency
 * of the runs before it (the step had room for twice the quiet latency:
 * the server's queue took it), or when it is the run again of such a step
 * with RETRY_ROOM times the slots and achieved less than MORE_GAIN times
 * the first run's rate.  Without a quiet latency to compare with, the run
 * again with more slots tells. */
static bool server_limited(const struct search *s, const struct ldb_result *r, const struct ldb_result *first)
{
	if (!r->short_of_inflight || r->rate_target <= 0)
		return false;
	if (s->quiet_ns > 0 && r->server_mean_ns >= QUEUED * s->quiet_ns)
		return true;
	return first != NULL && r->threads * r->depth > first->threads * first->depth &&
	       r->rate < MORE_GAIN * first->rate;
}

/* "; the server is the limit ..." or "; too few requests in flight" */
static void limit_note(const struct search *s, const struct ldb_result *r, char *buf, size_t cap)
{
	int i = (int)(r - s->res);
	buf[0] = '\0';
	double q = s->quiet_at[i];
	if (s->server_limit[i] && q > 0 && r->server_mean_ns >= QUEUED * q)
		snprintf(buf, cap,
		         "; the server is the limit: it queued (mean latency %.3f ms, %.1fx the quiet %.3f ms)",
		         r->server_mean_ns / 1e6, r->server_mean_ns / q, q / 1e6);
	else if (s->server_limit[i])
		snprintf(buf, cap, "; the server is the limit: %dx the requests in flight gave no more rate",
		         RETRY_ROOM);
	else if (r->short_of_inflight)
		snprintf(buf, cap, "; too few requests in flight");
}

static void why_failed(const struct ldb_result *r, char *buf, size_t cap)
{
	if (r->status != LDB_EXIT_OK)
		snprintf(buf, cap, "fail (exit %d)", r->status);
	else if (!r->met)
		snprintf(buf, cap, "fail (%s)", r->missed);
	else
		snprintf(buf, cap, "fail (achieved %.1f%% of the target)", 100 * r->rate / r->rate_target);
}

/* The --json file for one more record line (appended after the run's own),
 * or NULL without --json or when it cannot be opened. */
static FILE *json_append(const struct search *s)
{
	const char *path = s->c->json_path;
	if (path == NULL)
		return NULL;
	return strcmp(path, "-") == 0 ? stdout : fopen(path, "a");
}

/* One record line for the step (--json, appended after the step's own). */
static void step_record(struct search *s, const struct ldb_result *r, int step)
{
	FILE *f = json_append(s);
	if (f == NULL)
		return;
	fprintf(f,
	        "{\"type\":\"find_max_step\",\"step\":%d,\"summary_index\":%d,\"target\":%.3f,\"achieved\":%.3f,"
	        "\"threads\":%d,\"depth\":%d,\"p50_us\":%.3f,\"p99_us\":%.3f,\"p999_us\":%.3f,\"errors\":%llu,"
	        "\"passed\":%s,"
	        "\"client_limited\":%s,\"short_of_inflight\":%s,\"server_limited\":%s,\"status\":%d}\n",
	        step, s->summaries, r->rate_target, r->rate, r->threads, r->depth, (double)r->p50_ns / 1e3,
	        (double)r->p99_ns / 1e3, (double)r->p999_ns / 1e3, (unsigned long long)r->errors,
	        step_passed(r) ? "true" : "false", r->client_limited ? "true" : "false",
	        r->short_of_inflight ? "true" : "false", s->server_limit[r - s->res] ? "true" : "false", r->status);
	if (f != stdout)
		fclose(f);
	else
		fflush(f);
}

/* The step's result and why, as its table row ends ("pass", "fail (...)"). */
static void step_verdict(const struct search *s, const struct ldb_result *r, char *buf, size_t cap)
{
	char why[160] = "pass", note[160];
	if (!step_passed(r))
		why_failed(r, why, sizeof why);
	limit_note(s, r, note, sizeof note);
	snprintf(buf, cap, "%s%s%s", why, r->client_limited ? "; the client limited it" : "", note);
}

/* The step just run: the server's limit or the client's, the quiet latency. */
static void judge(struct search *s, struct ldb_result *r, const struct ldb_result *first)
{
	int i = (int)(r - s->res);
	s->quiet_at[i] = s->quiet_ns;
	s->server_limit[i] = !step_passed(r) && server_limited(s, r, first);
	if (r->server_mean_ns > 0 && (s->quiet_ns == 0 || r->server_mean_ns < s->quiet_ns))
		s->quiet_ns = r->server_mean_ns;
}

/* Run one load at `rate` (0: the closed-loop probe) with `times` the clients
 * its rate needs; `first`: the step it runs again, or NULL. */
static const struct ldb_result *run_step(struct search *s, double rate, int times, const struct ldb_result *first)
{
	struct ldb_config *c = s->c;
	struct ldb_result *r = &s->res[s->nres];
	memset(r, 0, sizeof *r);
	c->rate = rate;
	c->threads = s->base_threads;
	c->depth = s->base_depth;
	if (rate > 0)
		size_step(s, rate, times);
	if (rate > 0 && c->depth != s->base_depth)
		fprintf(s->out, "%s[%d]: Find-max step %d: target %.2f/s with %d clients, %d requests in flight each\n",
		        c->progname, s->pid, s->nsteps + 1, rate, c->threads, c->depth);
	else if (rate > 0)
		fprintf(s->out, "%s[%d]: Find-max step %d: target %.2f/s with %d clients\n", c->progname, s->pid,
		        s->nsteps + 1, rate, c->threads);
	else
		fprintf(s->out, "%s[%d]: Find-max probe: closed loop with %d clients\n", c->progname, s->pid,
		        c->threads);
	fflush(s->out);
	int st = ldb_run_load(c, s->out, r);
	r->status = st;
	r->summary_index = c->json_path != NULL && st != LDB_EXIT_INIT ? s->summaries + 1 : 0;
	r->threads = c->threads;
	r->depth = c->depth;
	r->rate_target = rate;
	if (c->json_path != NULL && st != LDB_EXIT_INIT)
		s->summaries++;
	if (st > s->worst && st != LDB_EXIT_THRESHOLD)
		s->worst = st;
	/* size later steps by a latency the server met, not by a failed step's queue */
	if (r->server_mean_ns > 0 && (rate == 0 || step_passed(r)))
		s->lat_ns = r->server_mean_ns;
	judge(s, r, first);
	s->nres++;
	if (rate > 0) {
		char v[400];
		s->nsteps++;
		step_record(s, r, s->nsteps);
		step_verdict(s, r, v, sizeof v);
		fprintf(s->out, "%s[%d]: Find-max step %d: %s\n", c->progname, s->pid, s->nsteps, v);
	}
	fputc('\n', s->out);
	return r;
}

static bool fatal(const struct ldb_result *r)
{
	return r->interrupted || r->status == LDB_EXIT_INIT || r->status == LDB_EXIT_OTHER ||
	       r->status == LDB_EXIT_CANNOT_BIND;
}

/* Record a step's outcome in the bracket. */
static void bracket(struct search *s, const struct ldb_result *r)
{
	if (step_passed(r)) {
		if (r->rate_target > s->lo) {
			s->lo = r->rate_target;
			s->best = (int)(r - s->res);
		}
	} else if (s->hi == 0 || r->rate_target < s->hi) {
		s->hi = r->rate_target;
	}
}

/* The next target: up by GROWTH until a failure, then the middle.  0: done,
 * and s->stop says why. */
static double next_target(struct search *s, double last)
{
	const struct ldb_config *c = s->c;
	if (s->nsteps >= c->find_max_steps || s->nres >= MAX_STEPS) {
		snprintf(s->stop, sizeof s->stop, "the step budget is spent (--find-max-steps %d)%s", c->find_max_steps,
		         s->lo == 0   ? "; no step met the objective"
		         : s->hi == 0 ? "; no step failed: the capacity is higher"
		                      : "");
		return 0;
	}
	if (s->hi == 0)
		return last * GROWTH;
	if (s->lo == 0 && s->hi / GROWTH < 1)
		snprintf(s->stop, sizeof s->stop, "no step met the objective, down to %.2f/s", s->hi);
	if (s->lo == 0)
		return s->hi / GROWTH >= 1 ? s->hi / GROWTH : 0; /* nothing passed yet: go down */
	if ((s->hi - s->lo) / s->lo < c->find_max_tolerance) {
		snprintf(s->stop, sizeof s->stop,
		         "the tolerance is reached: %.2f/s passed, %.2f/s failed, %.1f%% apart (--find-max-tolerance "
		         "%g%%)",
		         s->lo, s->hi, 100 * (s->hi - s->lo) / s->lo, 100 * c->find_max_tolerance);
		return 0;
	}
	return (s->lo + s->hi) / 2;
}

/* Before the first step: how long the search can take at most. */
static void announce(const struct search *s)
{
	const struct ldb_config *c = s->c;
	double iv = (double)c->interval_ms / 1e3;
	double warm = (double)c->warmup_ms / 1e3 + (double)(c->warmup_samples > 0 ? c->warmup_samples : 0) * iv;
	double meas = c->duration_ms > 0 ? (double)c->duration_ms / 1e3 : (double)c->samples * iv;
	double drain = c->timeout_sec > 0 && c->timeout_sec < DRAIN_MS / 1000 ? c->timeout_sec : DRAIN_MS / 1e3;
	double ramp = (double)c->ramp_up_ms / 1e3, step = ramp + warm + meas + drain;
	int runs = c->find_max_steps + (c->find_max_start > 0 ? 0 : 1);
	fprintf(s->out,
	        "%s[%d]: Find-max: at most %d steps (a failed step's second run counts among them)%s of %s%.3f s "
	        "warm-up + %.3f s measured + up to %.3f s for the answers in flight: at most %.1f s, the connects "
	        "and pre-flight checks aside\n",
	        c->progname, s->pid, c->find_max_steps, c->find_max_start > 0 ? "" : " after a closed-loop probe",
	        ramp > 0 ? "a ramp-up + " : "", warm, meas, drain, runs * step);
	fflush(s->out);
}

static void objective_text(const struct ldb_config *c, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (int i = 0; i < c->nfind_max; i++)
		snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? "," : "", c->find_max[i].text);
}

static void table(const struct search *s, const char *objective)
{
	const char *prog = s->c->progname;
	fprintf(s->out, "%s[%d]: Find-max of %d steps (objective %s):\n", prog, s->pid, s->nsteps, objective);
	fprintf(s->out,
	        "Step\tTarget (ops/s)\tAchieved (ops/s)\tClients\tp50 (ms)\tp99 (ms)\tp99.9 (ms)\tErrors\tResult\n");
	int step = 0;
	for (int i = 0; i < s->nres; i++) {
		const struct ldb_result *r = &s->res[i];
		if (r->rate_target <= 0)
			continue;
		char v[400];
		step_verdict(s, r, v, sizeof v);
		fprintf(s->out, "%d\t%.2f\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t%llu\t%s\n", ++step, r->rate_target, r->rate,
		        r->threads, (double)r->p50_ns / 1e6, (double)r->p99_ns / 1e6, (double)r->p999_ns / 1e6,
		        (unsigned long long)r->errors, v);
	}
}

static void final_record(const struct search *s, const char *objective)
{
	FILE *f = json_append(s);
	if (f == NULL)
		return;
	const struct ldb_result *b = s->best >= 0 ? &s->res[s->best] : NULL;
	fprintf(f, "{\"type\":\"find_max\",\"objective\":\"");
	for (const char *p = objective; *p; p++)
		fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
	fprintf(f,
	        "\",\"steps\":%d,\"found\":%s,\"rate\":%.3f,\"achieved\":%.3f,\"lowest_failing\":%.3f,\"p99_us\":%.3f",
	        s->nsteps, b ? "true" : "false", b ? b->rate_target : 0.0, b ? b->rate : 0.0, s->hi,
	        b ? (double)b->p99_ns / 1e3 : 0.0);
	fprintf(f, ",\"threads\":%d,\"depth\":%d,\"summary_index\":%d,\"status\":%d}\n", b ? b->threads : 0,
	        b ? b->depth : 0, b ? b->summary_index : 0, b ? LDB_EXIT_OK : LDB_EXIT_NO_CAPACITY);
	if (f != stdout)
		fclose(f);
	else
		fflush(f);
}

/* The first target: --find-max-start, or half the closed-loop probe's rate. */
static double first_target(struct search *s)
{
	if (s->c->find_max_start > 0)
		return s->c->find_max_start;
	const struct ldb_result *p = run_step(s, 0, 1, NULL);
	if (p->interrupted)
		snprintf(s->stop, sizeof s->stop, "interrupted during the closed-loop probe");
	else if (p->status != LDB_EXIT_OK)
		snprintf(s->stop, sizeof s->stop, "the closed-loop probe ended with exit %d", p->status);
	if (p->status != LDB_EXIT_OK || p->interrupted)
		return 0;
	return p->rate / 2 >= 1 ? p->rate / 2 : 1;
}

/* A step that ends the search: interrupted, or it could not run. */
static bool fatal_step(struct search *s, const struct ldb_result *r)
{
	if (!fatal(r))
		return false;
	if (r->interrupted)
		snprintf(s->stop, sizeof s->stop, "interrupted during step %d", s->nsteps);
	else
		snprintf(s->stop, sizeof s->stop, "step %d could not run (exit %d)", s->nsteps, r->status);
	return true;
}

int ldb_find_max(struct ldb_config *c, FILE *out)
{
	static struct search s; /* a hundred results: not on the stack */
	char objective[800];
	memset(&s, 0, sizeof s);
	s = (struct search){ .c = c,
		             .out = out,
		             .pid = (int)getpid(),
		             .base_threads = c->threads,
		             .base_depth = c->depth,
		             .best = -1,
		             .lat_ns = LAT_GUESS_NS };
	objective_text(c, objective, sizeof objective);
	announce(&s);
	double target = first_target(&s);
	while (target > 0) {
		const struct ldb_result *r = run_step(&s, target, 1, NULL);
		if (fatal_step(&s, r))
			break;
		/* a failure counts once it is seen twice: one hiccup of a loaded
		 * host must not end the growth early.  When every request slot was
		 * taken (Little's law: too few in flight for the target at the
		 * latency seen) and the server did not queue (server_limited), the
		 * second run has more clients: a server that is the limit fails
		 * again, a step the client's slots held back not. */
		if (!step_passed(r) && s.nsteps < c->find_max_steps && s.nres < MAX_STEPS) {
			bool more = r->short_of_inflight && !s.server_limit[r - s.res];
			r = run_step(&s, target, more ? RETRY_ROOM : 1, more ? r : NULL);
			if (fatal_step(&s, r))
				break;
		}
		bracket(&s, r);
		target = next_target(&s, target);
	}
	table(&s, objective);
	final_record(&s, objective);
	const char *prog = c->progname;
	if (s.best >= 0) {
		const struct ldb_result *b = &s.res[s.best];
		fprintf(out,
		        "%s[%d]: Highest rate that met the objective: %.2f/s (achieved %.2f/s, p50 %.3f ms, p99 %.3f "
		        "ms, "
		        "p99.9 %.3f ms, %llu errors)%s\n",
		        prog, s.pid, b->rate_target, b->rate, (double)b->p50_ns / 1e6, (double)b->p99_ns / 1e6,
		        (double)b->p999_ns / 1e6, (unsigned long long)b->errors,
		        s.hi > 0 ? "" : "; no step failed: the capacity is higher (raise --find-max-steps)");
	} else {
		fprintf(out, "%s[%d]: No rate met the objective %s.\n", prog, s.pid, objective);
	}
	fprintf(out, "%s[%d]: Find-max stopped: %s.\n", prog, s.pid, s.stop[0] ? s.stop : "no target left");
	fflush(out);
	if (s.worst == LDB_EXIT_INIT || s.worst == LDB_EXIT_OTHER || s.worst == LDB_EXIT_CANNOT_BIND)
		return s.worst;
	return s.best >= 0 ? LDB_EXIT_OK : LDB_EXIT_NO_CAPACITY;
}
