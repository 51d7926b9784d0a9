/* The extended operations' long options: --passmod and its --passmod-user,
 * --passmod-old, --passmod-new; --whoami; --extended OID[:value|::base64];
 * and the login flow's: --login, --login-password, --login-password-attr,
 * --login-groups.
 * Each stores what was given; the kinds' rows check the rest (ops/passmod.c,
 * whoami.c, extended.c: patterns, base64, options without their kind). */
#include "cli/cli.h"
#include "cli/ctx.h"

#include <stdlib.h>
#include <string.h>

#include "util/num.h"

/* RFC 4512 numericoid: number *( "." number ), number = "0" / non-zero digit
 * followed by digits; at least two arcs. */
static bool numeric_oid(const char *s, size_t n)
{
	size_t i = 0, arcs = 0;
	while (i < n) {
		size_t start = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start || (s[start] == '0' && i - start > 1))
			return false;
		arcs++;
		if (i < n && (s[i] != '.' || i + 1 == n))
			return false;
		if (i < n)
			i++;
	}
	return arcs >= 2;
}

/* --extended OID[:value|::base64]: the value after the first ':' (the OID has
 * none), base64 when it starts with a second ':' (as LDIF writes it) */
static int parse_extended(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *colon = strchr(arg, ':');
	size_t n = colon != NULL ? (size_t)(colon - arg) : strlen(arg);
	if (c->ext_oid != NULL)
		return cli_fail(x, "--extended given twice");
	if (!numeric_oid(arg, n))
		return cli_fail(x,
		                "--extended '%s': '%.*s' is not an OID (dotted numbers, e.g. 1.3.6.1.4.1.4203.1.11.3)",
		                arg, (int)n, arg);
	c->ext_oid = strndup(arg, n);
	if (c->ext_oid == NULL)
		return cli_oom(x);
	if (colon == NULL)
		return 0;
	c->ext_value_base64 = colon[1] == ':';
	return cli_set_str(x, &c->ext_value, colon + 1 + (c->ext_value_base64 ? 1 : 0));
}

/* --bad-password PCT[%]: a share above 0, at most 100, to 0.01 % */
static int parse_bad_password(struct cli_ctx *x, const char *arg)
{
	const char *end = NULL;
	double v = 0;
	if (ldb_num_real(arg, &end, &v) != 0 || (strcmp(end, "%") != 0 && *end != '\0') || !(v >= 0.01) || v > 100)
		return cli_fail(x, "--bad-password '%s': give a share of the login binds, 0.01%% to 100%% (e.g. 5%%)",
		                arg);
	x->c->bad_password_bp = (int)(v * 100 + 0.5);
	return 0;
}

/* A time with its unit (s, ms, us; none: seconds) at s: nanoseconds, above 0,
 * at most an hour; *end after it.  -1 when it is not one. */
static int think_ns(const char *s, const char **end, uint64_t *ns)
{
	double v, mul = 1e9;
	if (ldb_num_real(s, end, &v) != 0)
		return -1;
	if (strncmp(*end, "ms", 2) == 0) {
		mul = 1e6;
		*end += 2;
	} else if (strncmp(*end, "us", 2) == 0) {
		mul = 1e3;
		*end += 2;
	} else if (**end == 's') {
		*end += 1;
	}
	if (!(v > 0) || v * mul > 3600e9)
		return -1;
	*ns = (uint64_t)(v * mul + 0.5);
	return *ns > 0 ? 0 : -1;
}

/* --think-time 1s | uniform:0.5s-1.5s | exponential:1s */
static int parse_think(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *p = arg, *end = NULL;
	int rc;
	if (strncmp(p, "uniform:", 8) == 0) {
		c->think_dist = LDB_THINK_UNIFORM;
		rc = think_ns(p + 8, &end, &c->think_lo_ns);
		if (rc == 0 && *end == '-')
			rc = think_ns(end + 1, &end, &c->think_hi_ns);
		else
			rc = -1;
		if (rc == 0 && c->think_hi_ns < c->think_lo_ns)
			rc = -1;
	} else {
		bool ex = strncmp(p, "exponential:", 12) == 0;
		c->think_dist = ex ? LDB_THINK_EXPONENTIAL : LDB_THINK_CONSTANT;
		rc = think_ns(ex ? p + 12 : p, &end, &c->think_lo_ns);
	}
	if (rc != 0 || *end != '\0')
		return cli_fail(x,
		                "--think-time '%s': give a time (1s, 500ms), uniform:LOW-HIGH (uniform:0.5s-1.5s) or "
		                "exponential:MEAN (exponential:1s), above 0, at most 1 h",
		                arg);
	return 0;
}

int cli_check_think(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	if (c->think_dist == LDB_THINK_NONE)
		return 0;
	const char *with = c->rate > 0            ? "--rate"
	                   : c->nrate_profile > 0 ? "--rate-profile"
	                   : c->nfind_max > 0     ? "--find-max"
	                   : c->nsweep > 0        ? "--sweep"
	                   : c->wait_sec > 0      ? "-W"
	                   : c->bindeach          ? "-e bindeach"
	                                          : NULL;
	if (with != NULL)
		return cli_fail(x, "--think-time and %s exclude each other (the think time sets each client's pace)",
		                with);
	double mean = c->think_dist == LDB_THINK_UNIFORM ? ((double)c->think_lo_ns + (double)c->think_hi_ns) / 2
	                                                 : (double)c->think_lo_ns;
	c->rate = 1e9 * (double)c->threads / mean; /* open loop: -n clients, one start each per mean think time */
	return 0;
}

static int set_once(struct cli_ctx *x, const char *opt, char **dst, const char *arg)
{
	if (*dst != NULL)
		return cli_fail(x, "%s given twice", opt);
	return cli_set_str(x, dst, arg);
}

int cli_handle_extop_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	switch (opt) {
	case OPT_PASSMOD: c->passmod = true; return 0;
	case OPT_PASSMOD_USER: return set_once(x, "--passmod-user", &c->passmod_user, arg);
	case OPT_PASSMOD_OLD: return set_once(x, "--passmod-old", &c->passmod_old, arg);
	case OPT_PASSMOD_NEW: return set_once(x, "--passmod-new", &c->passmod_new, arg);
	case OPT_WHOAMI: c->whoami = true; return 0;
	case OPT_EXTENDED: return parse_extended(x, arg);
	case OPT_LOGIN: c->login = true; return 0;
	/* the login's values: "" is none (a scenario's --set NAME= leaves one out) */
	case OPT_LOGIN_PASSWORD: return *arg ? set_once(x, "--login-password", &c->login_password, arg) : 0;
	case OPT_LOGIN_PASSWORD_ATTR:
		return *arg ? set_once(x, "--login-password-attr", &c->login_password_attr, arg) : 0;
	case OPT_LOGIN_GROUPS: return *arg ? set_once(x, "--login-groups", &c->login_groups, arg) : 0;
	case OPT_BAD_PASSWORD: return parse_bad_password(x, arg);
	case OPT_THINK_TIME: return parse_think(x, arg);
	default: return cli_fail(x, "extended operation option %d: not handled", opt);
	}
}
