/* A general flow's options (ops/flow.c, docs/guide.md "Flows"): --flow NAME
 * names it (and asks for it), each --step SPEC adds a step, in order.  What
 * a step says is read and checked by the flow's row (ops/flow_parse.c)
 * with the other cross-checks, before any connection. */
#include "cli/cli.h"
#include "cli/ctx.h"

#include <string.h>

static int set_name(struct cli_ctx *x, const char *arg)
{
	size_t n = strlen(arg);
	if (x->c->flow_name != NULL)
		return cli_fail(x, "--flow given twice (one flow per run)");
	if (n == 0 || n > 24 || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
		return cli_fail(x, "--flow '%s': a name of up to 24 letters, digits, - and _", arg);
	return cli_set_str(x, &x->c->flow_name, arg);
}

static int add_step(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	if (c->flow_nsteps == LDB_FLOW_STEPS)
		return cli_fail(x, "--step: a flow has at most %d steps", LDB_FLOW_STEPS);
	if (arg[strspn(arg, " \t")] == '\0')
		return cli_fail(x, "--step %d: an empty step (write KIND key=value ...)", c->flow_nsteps + 1);
	return cli_set_str(x, &c->flow_step[c->flow_nsteps++], arg);
}

int cli_flow_option(struct cli_ctx *x, int opt, const char *arg)
{
	switch (opt) {
	case OPT_FLOW: return set_name(x, arg);
	case OPT_STEP: return add_step(x, arg);
	default: return cli_fail(x, "flow option %d: not handled", opt);
	}
}
