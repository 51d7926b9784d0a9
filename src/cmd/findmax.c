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

struct search {
	struct ldb_config *c;
	FILE *out;
	int pid;
	int base_threads, base_depth; /* -n and -a as given */
	struct ldb_result res[MAX_STEPS];
	int nres, nsteps; /* results (probe included); steps */
	int summaries;    /* summary records written so far to --json */
	int best, worst;  /* index of the best passing step (-1), worst status */
	double lo, hi;    /* highest passing, lowest failing target (0: none yet) */
	double lat_ns;    /* the latency to size the next step with */
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
	        "\"client_limited\":%s,\"short_of_inflight\":%s,\"status\":%d}\n",
	        step, s->summaries, r->rate_target, r->rate, r->threads, r->depth, (double)r->p50_ns / 1e3,
	        (double)r->p99_ns / 1e3, (double)r->p999_ns / 1e3, (unsigned long long)r->errors,
	        step_passed(r) ? "true" : "false", r->client_limited ? "true" : "false",
	        r->short_of_inflight ? "true" : "false", r->status);
	if (f != stdout)
		fclose(f);
	else
		fflush(f);
}

/* Run one load at `rate` (0: the closed-loop probe) with `times` the clients
 * its rate needs. */
static const struct ldb_result *run_step(struct search *s, double rate, int times)
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
	s->nres++;
	if (rate > 0) {
		s->nsteps++;
		step_record(s, r, s->nsteps);
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

/* The next target: up by GROWTH until a failure, then the middle.  0: done. */
static double next_target(const struct search *s, double last)
{
	if (s->nsteps >= s->c->find_max_steps)
		return 0;
	if (s->hi == 0)
		return last * GROWTH;
	if (s->lo == 0)
		return s->hi / GROWTH >= 1 ? s->hi / GROWTH : 0; /* nothing passed yet: go down */
	if ((s->hi - s->lo) / s->lo < s->c->find_max_tolerance)
		return 0;
	return (s->lo + s->hi) / 2;
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
		char why[160] = "pass";
		if (!step_passed(r))
			why_failed(r, why, sizeof why);
		fprintf(s->out, "%d\t%.2f\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t%llu\t%s%s%s\n", ++step, r->rate_target, r->rate,
		        r->threads, (double)r->p50_ns / 1e6, (double)r->p99_ns / 1e6, (double)r->p999_ns / 1e6,
		        (unsigned long long)r->errors, why, r->client_limited ? "; the client limited it" : "",
		        r->short_of_inflight ? "; too few requests in flight" : "");
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
	const struct ldb_result *p = run_step(s, 0, 1);
	if (p->status != LDB_EXIT_OK || p->interrupted)
		return 0;
	return p->rate / 2 >= 1 ? p->rate / 2 : 1;
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
	double target = first_target(&s);
	while (target > 0) {
		const struct ldb_result *r = run_step(&s, target, 1);
		if (fatal(r))
			break;
		/* a failure counts once it is seen twice: one hiccup of a loaded
		 * host must not end the growth early.  When every request slot was
		 * taken (Little's law: too few in flight for the target at the
		 * latency seen), the second run has more clients: a server that is
		 * the limit fails again, a step the client's slots held back not. */
		if (!step_passed(r) && s.nsteps < c->find_max_steps && s.nres < MAX_STEPS) {
			r = run_step(&s, target, r->short_of_inflight ? RETRY_ROOM : 1);
			if (fatal(r))
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
	fflush(out);
	if (s.worst == LDB_EXIT_INIT || s.worst == LDB_EXIT_OTHER || s.worst == LDB_EXIT_CANNOT_BIND)
		return s.worst;
	return s.best >= 0 ? LDB_EXIT_OK : LDB_EXIT_NO_CAPACITY;
}
