/* The capacity options (docs/capacity.md): --find-max and its tolerance, budget and
 * start, --rate-profile, --ramp-up; and their checks against the rest. */
#include "cli/ctx.h"

#include <stdio.h>
#include <string.h>

#include "cli/rate_profile.h"
#include "cli/fail_if.h"
#include "util/num.h"

#define FIND_MAX_STEP_MS 5000   /* a step's measured time without --duration or -N */
#define FIND_MAX_WARMUP_MS 1000 /* its warm-up without --warmup */

/* --find-max 'p99<5ms,errors=0': the --fail-if grammar, comma separated; the
 * objective is met when every expression holds. */
static int parse_objective(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	char buf[512];
	if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf || arg[0] == '\0')
		return cli_fail(x, "--find-max '%s': give an objective, e.g. 'p99<5ms' or 'p99.9<20ms,errors<1'", arg);
	c->nfind_max = 0;
	for (char *save = NULL, *e = strtok_r(buf, ",", &save); e != NULL; e = strtok_r(NULL, ",", &save)) {
		char why[400];
		if (c->nfind_max == (int)(sizeof c->find_max / sizeof c->find_max[0]))
			return cli_fail(x, "--find-max '%s': at most 8 expressions", arg);
		if (ldb_threshold_parse(&c->find_max[c->nfind_max], e, why, sizeof why) != 0) {
			const char *rest = strncmp(why, "--fail-if ", 10) == 0 ? why + 10 : why;
			return cli_fail(x, "--find-max %s", rest);
		}
		c->nfind_max++;
	}
	if (c->nfind_max == 0)
		return cli_fail(x, "--find-max '%s': give an objective, e.g. 'p99<5ms'", arg);
	return 0;
}

/* "2%" or "0.02". */
static int parse_tolerance(struct cli_ctx *x, const char *arg)
{
	const char *end;
	double v;
	if (ldb_num_real(arg, &end, &v) == 0 && strcmp(end, "%") == 0)
		v /= 100;
	else if (ldb_num_real(arg, &end, &v) != 0 || *end != '\0')
		v = -1;
	if (!(v > 0) || v >= 1)
		return cli_fail(x, "--find-max-tolerance '%s': a gap in percent above 0 and below 100 (e.g. 2%%)", arg);
	x->c->find_max_tolerance = v;
	return 0;
}

int cli_capacity_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	char why[400];
	const char *end;
	switch (opt) {
	case OPT_FIND_MAX: return parse_objective(x, arg);
	case OPT_FIND_MAX_TOLERANCE: return parse_tolerance(x, arg);
	case OPT_FIND_MAX_STEPS: return cli_parse_int(x, "--find-max-steps", arg, 2, 100, "steps", &c->find_max_steps);
	case OPT_FIND_MAX_START:
		if (ldb_num_real(arg, &end, &c->find_max_start) != 0 || (*end && strcmp(end, "/s")) ||
		    !(c->find_max_start > 0) || c->find_max_start > 1e8)
			return cli_fail(x, "--find-max-start '%s': operations per second, a number above 0", arg);
		return 0;
	case OPT_RATE_PROFILE:
		if (ldb_rate_profile_parse(c, arg, why, sizeof why) != 0)
			return cli_fail(x, "%s", why);
		return 0;
	case OPT_START_AFTER:
		if (ldb_parse_duration_ms(arg, &c->start_after_ms) < 0)
			return cli_fail(x, "--start-after '%s': not a duration (e.g. 10s, 500ms)", arg);
		return 0;
	case OPT_RAMP_UP:
		if (ldb_parse_duration_ms(arg, &c->ramp_up_ms) < 0)
			return cli_fail(x, "--ramp-up '%s': not a duration (e.g. 5s, 500ms)", arg);
		return 0;
	default: return cli_fail(x, "option %d: not a capacity option", opt);
	}
}

static int check_find_max(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	if (c->rate > 0 || c->nrate_profile > 0 || c->nsweep > 0)
		return cli_fail(x, "--find-max chooses each step's rate: leave out --rate, --rate-profile and --sweep");
	if (c->nfail_if > 0)
		return cli_fail(x, "--find-max's objective is what each step must meet: leave out --fail-if");
	if (c->ops_per_thread > 0 || c->wait_sec > 0 || c->bindeach)
		return cli_fail(x, "--find-max runs timed open-loop steps of persistent connections: leave out -T, -W "
		                   "and bindeach");
	if (c->duration_ms == 0 && c->samples <= 0)
		c->duration_ms = FIND_MAX_STEP_MS;
	if (c->warmup_ms == 0 && c->warmup_samples <= 0)
		c->warmup_ms = FIND_MAX_WARMUP_MS;
	return 0;
}

int cli_capacity_check(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	if (c->nfind_max == 0 && (c->find_max_start > 0 || c->find_max_steps != 12 || c->find_max_tolerance != 0.02))
		return cli_fail(x, "--find-max-start, --find-max-steps and --find-max-tolerance go with --find-max");
	if (c->nfind_max > 0)
		return check_find_max(x);
	if (c->nrate_profile > 0) {
		if (c->rate > 0)
			return cli_fail(x, "--rate and --rate-profile exclude each other (the profile sets the rate)");
		if (c->wait_sec > 0)
			return cli_fail(x, "--rate-profile and -W exclude each other");
		/* open loop at the profile's highest rate; the run moves it */
		c->rate = ldb_rate_profile_max(c);
	}
	return 0;
}
