/* [workload NAME] sections of a scenario file: each workload's checked
 * configuration (the run's is the first's, with the run-wide options), and
 * --fail-if's thresholds, which may name a workload ("fg.search.p99>5ms").
 * cli/scenario splits the file, cli/scenario_merge builds each workload's
 * argv; docs/guide.md "Several workloads". */
#include "cli/ctx.h"
#include "cli/cli.h"
#include "cli/fail_if.h"
#include "cli/scenario.h"
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Features that watch or shape the whole run from one place: not (yet) with
 * several workloads.  @return the option's name, or NULL. */
static const char *not_with_workloads(const struct ldb_config *c)
{
	if (c->nrepl > 0)
		return "-S";
	if (c->oplog_path != NULL)
		return "--op-log";
	if (c->nserver_log > 0)
		return "--server-log";
	if (c->held > 0)
		return "--held";
	if (c->nrate_profile > 0)
		return "--rate-profile";
	if (c->nsweep > 0)
		return "--sweep";
	if (c->nfind_max > 0)
		return "--find-max";
	if (c->scalab01)
		return "-e scalab01";
	if (c->genldif_file != NULL)
		return "-e genldif";
	return NULL;
}

static int wl_fail(const struct ldb_config *c, char *err, size_t cap, const char *fmt, const char *a, const char *b)
{
	char msg[400];
	snprintf(msg, sizeof msg, fmt, a, b);
	snprintf(err, cap, "%s: %s", c->progname, msg);
	return LDB_CLI_ERROR;
}

/* One --fail-if value: "[WORKLOAD.]THRESHOLD".  A first word that names a
 * workload is taken off; otherwise the plain grammar decides (a kind, a
 * source or a metric), and a word that is none of those is an unknown
 * workload. */
static int workload_threshold(struct ldb_config *c, const struct scen_map *m, const char *expr, char *err, size_t cap)
{
	struct ldb_threshold *t = &c->fail_if[c->nfail_if];
	const char *p = expr + strspn(expr, " \t"), *dot = strchr(p, '.');
	char why[400], names[LDB_WORKLOADS_MAX * LDB_WORKLOAD_NAME_MAX + 64] = "";
	int wl = 0;

	if (c->nfail_if == (int)(sizeof c->fail_if / sizeof c->fail_if[0]))
		return wl_fail(c, err, cap, "--fail-if: at most %s thresholds%s", "16", "");
	for (int i = 0; i < m->nwl; i++) {
		snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", m->wl[i].name);
		if (dot != NULL && strlen(m->wl[i].name) == (size_t)(dot - p) &&
		    strncmp(p, m->wl[i].name, (size_t)(dot - p)) == 0)
			wl = i + 1;
	}
	if (ldb_threshold_parse(t, wl > 0 ? dot + 1 : expr, why, sizeof why) != 0) {
		if (wl == 0 && dot != NULL && strstr(why, "unknown operation kind") != NULL) {
			char w[LDB_WORKLOAD_NAME_MAX + 8];
			snprintf(w, sizeof w, "%.*s",
			         (int)(dot - p) < LDB_WORKLOAD_NAME_MAX ? (int)(dot - p) : LDB_WORKLOAD_NAME_MAX, p);
			snprintf(why, sizeof why, "--fail-if '%s': unknown workload '%s' (the workloads: %s)", expr, w,
			         names);
		}
		return wl_fail(c, err, cap, "%s%s", why, "");
	}
	if (t->source != LDB_TS_RUN)
		return wl_fail(c, err, cap, "--fail-if '%s': %s", expr,
		               "with [workload] sections a threshold takes the run's own figures");
	snprintf(t->text, sizeof t->text, "%s", expr);
	t->wl = wl;
	if (wl > 0 && t->kind >= 0 && !c->wl[wl - 1].weight[t->kind] && !ldb_op_given(&c->wl[wl - 1], t->kind)) {
		char what[64];
		snprintf(what, sizeof what, "workload %s has no %s", m->wl[wl - 1].name, ldb_op_name(t->kind));
		return wl_fail(c, err, cap, "--fail-if '%s': %s", expr, what);
	}
	c->nfail_if++;
	return 0;
}

/* The run's measured time: the latest end of the workloads with a --duration of
 * their own (from their --start-after); the others run until the run ends.
 * @return 0, or -1 with one line in err. */
static int run_time(struct ldb_config *c, char *err, size_t cap)
{
	uint64_t end = 0;
	bool own = false;
	for (int i = 0; i < c->nwl; i++) {
		const struct ldb_config *w = &c->wl[i];
		own |= w->start_after_ms > 0 || (w->duration_ms > 0 && w->duration_ms != c->wl[0].duration_ms);
		if (w->duration_ms > 0 && w->start_after_ms + w->duration_ms > end)
			end = w->start_after_ms + w->duration_ms;
	}
	if (own && (c->warmup_ms > 0 || c->warmup_samples > 0))
		return wl_fail(
		        c, err, cap, "%s: %s", "--warmup",
		        "not with a workload's own --start-after or --duration (they count from the run's start)");
	if (end > 0 && c->samples > 0)
		return wl_fail(c, err, cap, "%s: %s", "-N", "not with a workload's --duration");
	c->duration_ms = end;
	return 0;
}

static bool has_flow(const struct ldb_config *w)
{
	return w->flow_name != NULL || w->flow_nsteps > 0;
}

static const char *flow_of(const struct ldb_config *w)
{
	return w->flow_name != NULL ? w->flow_name : "flow";
}

static bool same_flow(const struct ldb_config *a, const struct ldb_config *b)
{
	if (a->flow_nsteps != b->flow_nsteps)
		return false;
	for (int k = 0; k < a->flow_nsteps; k++)
		if (strcmp(a->flow_step[k], b->flow_step[k]) != 0)
			return false;
	return true;
}

/* A workload's flow takes the next flow slot (rows of its own, ops/flow.c),
 * or an earlier workload's when it is the same flow (a flow given before the
 * first section: its rows shared); the flows' names tell their rows apart in
 * the total.  @return its slot, or -1 with one line in err. */
static int flow_slot(struct ldb_config *c, int i, int *nflows, char *err, size_t cap)
{
	const struct ldb_config *w = &c->wl[i];
	for (int j = 0; j < i; j++) {
		const struct ldb_config *o = &c->wl[j];
		if (!has_flow(o) || strcmp(flow_of(o), flow_of(w)) != 0)
			continue;
		if (same_flow(o, w))
			return o->flow_slot;
		wl_fail(c, err, cap, "--flow %s: two workloads' flows have this name (in [workload %s])", flow_of(w),
		        w->wl_name);
		return -1;
	}
	if (++*nflows > LDB_FLOW_SLOTS) {
		char at_most[16];
		snprintf(at_most, sizeof at_most, "%d", LDB_FLOW_SLOTS);
		wl_fail(c, err, cap, "--flow: at most %s different flows in a run (in [workload %s])", at_most,
		        w->wl_name);
		return -1;
	}
	return *nflows - 1;
}

/* Workload i's configuration, its flow in its slot.  LDB_CLI_RUN, or not with err. */
static int parse_one(struct ldb_config *c, const struct scen_map *m, int i, int *nflows, char *err, size_t errcap)
{
	struct ldb_config *w = &c->wl[i];
	const struct scen_wl *s = &m->wl[i];
	struct scen_map sm = { .path = m->path, .line_of = s->line_of, .nfile = s->nfile };
	int slot = *nflows < LDB_FLOW_SLOTS ? *nflows : LDB_FLOW_SLOTS - 1; /* the slot a new flow takes */
	for (int pass = 0; pass < 2; pass++) {
		if (pass > 0)
			ldb_config_free(w);
		ldb_config_init(w);
		w->flow_slot = slot;
		c->nwl = i + 1;
		int r = cli_parse_argv(w, s->argc, s->argv, err, errcap, &sm);
		if (r != LDB_CLI_RUN) {
			size_t l = strlen(err);
			if (l + 1 < errcap)
				snprintf(err + l, errcap - l, " (in [workload %s])", s->name);
			return r;
		}
		w->wl_name = s->name;
		if (!has_flow(w) || pass > 0)
			break;
		int got = flow_slot(c, i, nflows, err, errcap);
		if (got < 0)
			return LDB_CLI_ERROR;
		if (got == slot)
			break;
		slot = got; /* an earlier workload's flow: parsed again on its rows */
	}
	return LDB_CLI_RUN;
}

int cli_workloads_parse(struct ldb_config *c, const struct scen_map *m, char *err, size_t errcap)
{
	int nflows = 0;
	const char *no = not_with_workloads(c);
	if (no != NULL)
		return wl_fail(c, err, errcap, "%s: not with [workload] sections (with --scenario %s)", no, m->path);
	if ((c->wl = calloc((size_t)m->nwl, sizeof *c->wl)) == NULL)
		return wl_fail(c, err, errcap, "%s%s", "out of memory", "");
	for (int i = 0; i < m->nwl; i++) {
		struct ldb_config *w = &c->wl[i];
		int r = parse_one(c, m, i, &nflows, err, errcap);
		if (r != LDB_CLI_RUN)
			return r;
		if (c->seed_given)
			w->seed = c->seed + (uint64_t)i; /* each workload its own streams, all from --seed */
		if ((no = not_with_workloads(w)) != NULL)
			return wl_fail(c, err, errcap, "%s: not with [workload] sections (in [workload %s])", no,
			               w->wl_name);
	}
	if (run_time(c, err, errcap) != 0)
		return LDB_CLI_ERROR;
	c->nfail_if = 0;
	for (int i = 0; i < m->nfail_if; i++)
		if (workload_threshold(c, m, m->fail_if[i], err, errcap) != LDB_CLI_RUN)
			return LDB_CLI_ERROR;
	return LDB_CLI_RUN;
}
