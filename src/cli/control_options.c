/* The request controls' options: --control [KIND=]OID[:CRITICAL[:VALUE|::BASE64]]
 * and the named ones (--sort-order, --assertion-filter, --proxy-as,
 * --pre-read-attribute, --post-read-attribute, --permissive-modify,
 * --manage-dsa-it, --rfc3672-subentries, --session-tracking); their checks
 * once the run's kinds are known: every value encoded once here, so that a
 * malformed one is one line and exit 2 before any connection. */
#include "cli/ctx.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "proto/controls.h"
#include "util/base64.h"
#include "values/vpattern.h"

/* The value after OID:CRITICAL: ":VALUE" as given, or "::BASE64". */
static int control_value(struct cli_ctx *x, const char *arg, const char *rest, struct ldb_ctlspec *s)
{
	bool b64 = rest[1] == ':';
	const char *v = rest + (b64 ? 2 : 1);
	size_t len = strlen(v);

	s->value = malloc(len + 1);
	if (s->value == NULL)
		return cli_oom(x);
	s->has_value = true;
	if (!b64) {
		memcpy(s->value, v, len);
		s->vlen = len;
		return 0;
	}
	long n = ldb_base64_decode(v, len, s->value, SIZE_MAX);
	if (n < 0)
		return cli_fail(x, "--control '%s': the value after '::' is not base64", arg);
	s->vlen = (size_t)n;
	return 0;
}

static int parse_control(struct cli_ctx *x, const char *arg)
{
	struct ldb_ctlcfg *t = &x->c->ctl;
	const char *p = arg, *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	struct ldb_ctlspec *s = &t->gen[t->ngen];

	if (t->ngen == LDB_MAX_CONTROLS)
		return cli_fail(x, "--control: at most %d controls", LDB_MAX_CONTROLS);
	memset(s, 0, sizeof *s);
	if (eq != NULL && (colon == NULL || eq < colon)) {
		int k = ldb_op_from_name(arg, (size_t)(eq - arg), true);
		if (k < 0)
			return cli_fail(x, "--control '%s': '%.*s' is not an operation kind", arg, (int)(eq - arg),
			                arg);
		s->kind1 = k + 1;
		p = eq + 1;
	}
	size_t olen = (colon = strchr(p, ':')) != NULL ? (size_t)(colon - p) : strlen(p);
	if (!ldb_ctl_oid_valid(p, olen))
		return cli_fail(x, "--control '%s': '%.*s' is not a numeric OID (e.g. 1.2.840.113556.1.4.1413)", arg,
		                (int)olen, p);
	if ((s->oid = strndup(p, olen)) == NULL)
		return cli_oom(x);
	t->ngen++;
	if (colon == NULL)
		return 0;
	const char *crit = colon + 1, *rest = strchr(crit, ':');
	size_t clen = rest != NULL ? (size_t)(rest - crit) : strlen(crit);
	if (clen == 4 && strncasecmp(crit, "true", 4) == 0)
		s->critical = true;
	else if (clen != 5 || strncasecmp(crit, "false", 5) != 0)
		return cli_fail(x, "--control '%s': the criticality must be true or false", arg);
	return rest != NULL ? control_value(x, arg, rest, s) : 0;
}

/* A repeated attribute option: its values joined by commas. */
static int add_attrs(struct cli_ctx *x, char **dst, const char *opt, const char *arg)
{
	size_t old = *dst != NULL ? strlen(*dst) : 0;
	char *joined;

	if (arg[0] == '\0' || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") != NULL)
		return cli_fail(x, "--%s '%s': give attribute names separated by commas", opt, arg);
	if ((joined = realloc(*dst, old + strlen(arg) + 2)) == NULL)
		return cli_oom(x);
	if (old > 0)
		joined[old++] = ',';
	strcpy(joined + old, arg);
	*dst = joined;
	return 0;
}

int cli_control_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_ctlcfg *t = &x->c->ctl;
	switch (opt) {
	case OPT_CONTROL: return parse_control(x, arg);
	case OPT_SORT_ORDER: t->named |= LDB_CTLF_SORT; return cli_set_str(x, &t->sort_order, arg);
	case OPT_ASSERTION_FILTER: t->named |= LDB_CTLF_ASSERTION; return cli_set_str(x, &t->assertion, arg);
	case OPT_PROXY_AS: t->named |= LDB_CTLF_PROXY; return cli_set_str(x, &t->proxy_as, arg);
	case OPT_PRE_READ: t->named |= LDB_CTLF_PREREAD; return add_attrs(x, &t->pre_read, cli_long_name(opt), arg);
	case OPT_POST_READ: t->named |= LDB_CTLF_POSTREAD; return add_attrs(x, &t->post_read, cli_long_name(opt), arg);
	case OPT_PERMISSIVE_MODIFY: t->named |= LDB_CTLF_PERMISSIVE; return 0;
	case OPT_MANAGE_DSA_IT: t->named |= LDB_CTLF_MANAGEDSAIT; return 0;
	case OPT_SUBENTRIES:
		if (strcasecmp(arg, "true") != 0 && strcasecmp(arg, "false") != 0)
			return cli_fail(x, "--rfc3672-subentries '%s': give true (only subentries) or false", arg);
		t->named |= LDB_CTLF_SUBENTRIES;
		t->subentries = strcasecmp(arg, "true") == 0;
		return 0;
	case OPT_SESSION_TRACKING:
		if (arg[0] == '\0')
			return cli_fail(x, "--session-tracking: give the session's identifier");
		t->named |= LDB_CTLF_SESSION;
		return cli_set_str(x, &t->session_id, arg);
	case OPT_PPOLICY: t->named |= LDB_CTLF_PPOLICY; return 0;
	case OPT_SIMPLE_PAGE_SIZE:
		t->named |= LDB_CTLF_PAGED;
		return cli_parse_int(x, "--simple-page-size", arg, 1, 0x7fffffff, "entries a page", &t->page_size);
	default: return cli_fail(x, "unknown control option");
	}
}

/* The option that asks for named control bit f, as the user writes it. */
static const char *named_option(unsigned f)
{
	static const char *const names[LDB_CTLF_COUNT] = {
		"--sort-order",          "--assertion-filter",  "--proxy-as",      "--pre-read-attribute",
		"--post-read-attribute", "--permissive-modify", "--manage-dsa-it", "--rfc3672-subentries",
		"--session-tracking",    "--simple-page-size",  "--ppolicy",
	};
	for (int i = 0; i < LDB_CTLF_COUNT; i++)
		if (f == 1u << i)
			return names[i];
	return "?";
}

/* Each named control given is carried by a kind of the run. */
static int check_named_kinds(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	uint8_t pass[LDB_OP_COUNT];
	int n = ldb_ops_pass(c, pass);
	unsigned carried = 0;

	for (int i = 0; i < n; i++)
		carried |= ldb_ops[pass[i]]->controls;
	for (int i = 0; i < LDB_CTLF_COUNT; i++) {
		unsigned f = 1u << i;
		if (!(c->ctl.named & f) || (carried & f))
			continue;
		char kinds[256] = "";
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (ldb_ops[k]->controls & f)
				snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s",
				         kinds[0] ? ", " : "", ldb_ops[k]->name);
		return cli_fail(x, "%s: no operation of this run carries it (it goes on: %s)", named_option(f), kinds);
	}
	return 0;
}

/* A --control KIND= names a kind of the run. */
static int check_generic_kinds(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	uint8_t pass[LDB_OP_COUNT];
	int n = ldb_ops_pass(c, pass);
	bool in[LDB_OP_COUNT] = { false };

	for (int i = 0; i < n; i++)
		in[pass[i]] = true;
	for (int i = 0; i < c->ctl.ngen; i++)
		if (c->ctl.gen[i].kind1 != 0 && !in[c->ctl.gen[i].kind1 - 1])
			return cli_fail(x, "--control %s: the run does no %s", c->ctl.gen[i].oid,
			                ldb_ops[c->ctl.gen[i].kind1 - 1]->name);
	return 0;
}

/* Encode every control once, as the run will: the errors now. */
static int check_encodings(struct cli_ctx *x)
{
	const struct ldb_ctlcfg *t = &x->c->ctl;
	struct ldb_bytes b = { 0 };
	char why[LDB_WIRE_ERRLEN] = "";
	int rc = 0;

	if (t->sort_order != NULL && ldb_ctl_encode_sort(&b, t->sort_order, why) != 0)
		rc = cli_fail(x, "--sort-order '%s': %s", t->sort_order, why);
	else if (t->assertion != NULL && ldb_ctl_encode_assertion(&b, t->assertion, why) != 0)
		rc = cli_fail(x, "--assertion-filter '%s': %s", t->assertion, why);
	ldb_bytes_free(&b);
	return rc;
}

int cli_check_controls(struct cli_ctx *x)
{
	struct ldb_ctlcfg *t = &x->c->ctl;
	char why[512];

	if (check_named_kinds(x) != 0 || check_generic_kinds(x) != 0 || check_encodings(x) != 0)
		return -1;
	if (t->page_size > 0 && x->c->rnd_string)
		return cli_fail(x, "--simple-page-size with -e string: every page of a search repeats its filter");
	if (t->proxy_as != NULL && ldb_vp_compile(&t->proxy_vp, t->proxy_as, why, sizeof why) != 0)
		return cli_fail(x, "--proxy-as: %s", why);
	return 0;
}
