/* The listeners' options (docs/guide.md "Listeners"): --listeners N,
 * --listen-kind sync|psearch, --listen-base DN, --listen-filter FILTER,
 * --listen-wait DURATION, --listen-pause DURATION; and their checks (one
 * line each, exit 2, before any connection).  The descriptors the listeners
 * need are checked with the load's (cmd/load's pre-flight). */
#include "cli/ctx.h"

#include <stdio.h>
#include <string.h>

#include "proto/wire.h"
#include "util/num.h"

#define MAX_LISTENERS 100000

int cli_listen_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	switch (opt) {
	case OPT_LISTENERS: return cli_parse_int(x, "--listeners", arg, 1, MAX_LISTENERS, "listeners", &c->listeners);
	case OPT_LISTEN_KIND:
		if (strcmp(arg, "sync") == 0)
			c->listen_kind = LDB_LISTEN_SYNC;
		else if (strcmp(arg, "psearch") == 0)
			c->listen_kind = LDB_LISTEN_PSEARCH;
		else
			return cli_fail(x,
			                "--listen-kind '%s': sync (RFC 4533 refreshAndPersist) or psearch (persistent "
			                "search)",
			                arg);
		x->listen_kind_given = true;
		return 0;
	case OPT_LISTEN_BASE:
		if (arg[0] == '\0' || !cli_dn_is_valid(arg))
			return cli_fail(x, "--listen-base '%s': invalid DN", arg);
		return cli_set_str(x, &c->listen_base, arg);
	case OPT_LISTEN_FILTER: return cli_set_str(x, &c->listen_filter, arg);
	case OPT_LISTEN_WAIT:
		if (ldb_parse_duration_ms(arg, &c->listen_wait_ms) < 0)
			return cli_fail(x, "--listen-wait '%s': not a duration (e.g. 5s, 500ms)", arg);
		x->listen_wait_given = true;
		return 0;
	case OPT_LISTEN_PAUSE:
		if (ldb_parse_duration_ms(arg, &c->listen_pause_ms) < 0 || c->listen_pause_ms == 0)
			return cli_fail(x, "--listen-pause '%s': a duration above 0 (e.g. 5s)", arg);
		return 0;
	case OPT_LISTENERS_BASELINE:
		if (ldb_parse_duration_ms(arg, &c->listen_baseline_ms) < 0 || c->listen_baseline_ms == 0)
			return cli_fail(x, "--listeners-baseline '%s': a duration above 0 (e.g. 10s)", arg);
		return 0;
	case OPT_LISTEN_RECORD: return cli_set_str(x, &c->listen_record, arg);
	case OPT_LISTEN_ATTR: return cli_set_str(x, &c->listen_attr, arg);
	case OPT_WRITE_RECORD: return cli_set_str(x, &c->write_record, arg);
	default: return cli_fail(x, "option %d: not a listeners' option", opt);
	}
}

/* What the listeners cannot go with. */
static int check_combination(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	if (c->scalab01)
		return cli_fail(x, "--listeners and -e scalab01 exclude each other");
	if (c->sasl_mech != NULL || c->randombinddn || c->binddn_file != NULL)
		return cli_fail(x, "--listeners bind as -D with its password (a simple bind): leave out -o mech, -e "
		                   "randombinddn and randombinddnfromfile");
	if (c->duration_ms > 0 && c->listen_pause_ms >= c->duration_ms)
		return cli_fail(x, "--listen-pause must be shorter than --duration (the pause is in the run's middle)");
	return 0;
}

/* --write-record: the writes of a load without listeners, for another
 * host's (ldbench listen-join). */
static int check_write_record(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	if (c->write_record == NULL)
		return 0;
	if (c->nrepl > 0)
		return cli_fail(x, "--write-record and -S exclude each other (both follow the load's writes)");
	if (c->scalab01)
		return cli_fail(x, "--write-record and -e scalab01 exclude each other");
	if (c->nwl > 0)
		return cli_fail(x, "--write-record: not with [workload] sections (the writes of one load)");
	if (c->nsweep > 0 || c->nfind_max > 0)
		return cli_fail(x, "--write-record: not with --sweep or --find-max (the writes of one run)");
	return 0;
}

int cli_listen_check(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	if (c->listeners == 0) {
		const char *opt = c->listen_base != NULL      ? "--listen-base"
		                  : c->listen_filter != NULL  ? "--listen-filter"
		                  : x->listen_kind_given      ? "--listen-kind"
		                  : x->listen_wait_given      ? "--listen-wait"
		                  : c->listen_pause_ms > 0    ? "--listen-pause"
		                  : c->listen_baseline_ms > 0 ? "--listeners-baseline"
		                  : c->listen_record != NULL  ? "--listen-record"
		                  : c->listen_attr != NULL    ? "--listen-attr"
		                                              : NULL;
		if (opt != NULL)
			return cli_fail(x, "%s goes with --listeners N", opt);
		return check_write_record(x);
	}
	if (c->write_record != NULL)
		return cli_fail(x, "--write-record and --listeners exclude each other (the run's own writes are "
		                   "joined live)");
	if (c->listen_base == NULL)
		return cli_fail(x, "--listeners needs --listen-base DN (the subtree the listeners watch)");
	if (c->listen_filter != NULL) {
		struct ldb_bytes b = { 0 };
		char why[LDB_WIRE_ERRLEN];
		int rc = ldb_filter_encode(&b, c->listen_filter, why);
		ldb_bytes_free(&b);
		if (rc != 0)
			return cli_fail(x, "--listen-filter '%s': %s", c->listen_filter, why);
	}
	return check_combination(x);
}
