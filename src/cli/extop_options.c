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
	default: return cli_fail(x, "extended operation option %d: not handled", opt);
	}
}
