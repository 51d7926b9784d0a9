/* The -v block: the run's settings in ldclt's layout ("Host to connect    = ..."),
 * each operation kind's lines from the operation table; never the password. */
#include "report/settings.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <ldap.h>

#include "ops/ops.h"
#include "proto/wire.h"
#include "report/json.h"

/* One "Key = value" line, the key padded to 19 columns as ldclt does. */
#define KEY "%-19s= "

static void print_head_tail(FILE *out, const char *what, const struct ldb_pattern *p)
{
	char key[32];

	snprintf(key, sizeof(key), "%s's head", what);
	fprintf(out, KEY "\"%.*s\"\n", key, (int)p->head_len, p->text ? p->text : "");
	snprintf(key, sizeof(key), "%s's tail", what);
	fprintf(out, KEY "\"%.*s\"\n", key, (int)p->tail_len, p->tail ? p->tail : "");
}

static void print_target(const struct ldb_config *c, FILE *out)
{
	if (c->cmdline != NULL)
		fprintf(out, "%s\n", c->cmdline);
	fprintf(out, KEY "%d\n", "Process ID", (int)getpid());
	fprintf(out, KEY "%s\n", "Host to connect", c->host ? c->host : "NULL");
	fprintf(out, KEY "%d\n", "Port number", c->port);
	if (c->uri != NULL)
		fprintf(out, KEY "%s\n", "LDAP URL", c->uri);
	/* The password is never printed (ldclt prints "Passwd = ..."). */
	fprintf(out, KEY "%s\n", "Bind DN", c->bind_dn ? c->bind_dn : "NULL");
	fprintf(out, KEY "%s\n", "Base DN", c->base ? c->base : "NULL");
	if (c->filter == NULL)
		fprintf(out, KEY "NULL\n", "Filter");
	else
		fprintf(out, KEY "\"%s\"\n", "Filter", c->filter);
	if (c->nattrs > 0) {
		fprintf(out, "%-19s=", "Attributes list");
		for (int i = 0; i < c->nattrs; i++)
			fprintf(out, " %s", c->attrs[i]);
		fputc('\n', out);
	}
	fprintf(out, KEY "%d\n", "Max times inactive", c->inactivity);
	fprintf(out, KEY "%lld\n", "Max allowed errors", c->max_errors);
	fprintf(out, KEY "%lld\n", "Number of samples", c->samples);
	fprintf(out, KEY "%d\n", "Number of threads", c->threads);
	fprintf(out, KEY "%lld\n", "Total op. req.", c->ops_per_thread);
}

/* ldclt's mode names, in ldclt's order (the operations' from the table) */
static void print_mode(const struct ldb_config *c, FILE *out)
{
	fprintf(out, "%-19s=", "Running mode");
	if (c->quiet)
		fputs(" quiet", out);
	if (c->super_quiet)
		fputs(" super_quiet", out);
	if (c->verbose >= 1)
		fputs(" verbose", out);
	if (c->verbose >= 2)
		fputs(" very_verbose", out);
	if (c->counteach)
		fputs(" counteach", out);
	if (c->depth > 1)
		fputs(" asynchronous", out);
	if (c->valmode == LDB_VAL_INCR)
		fputs(" incremental", out);
	if (c->commoncounter)
		fputs(" commoncounter", out);
	if (c->noloop)
		fputs(" noloop", out);
	if (c->valmode == LDB_VAL_RANDOM)
		fputs(" random", out);
	if (c->randombase)
		fputs(" randombase", out);
	if (c->randombinddn)
		fputs(" randombinddn", out);
	if (c->close_sock)
		fputs(" close_fd", out);
	if (c->bindeach)
		fputs(" bind_each_operation", out);
	if (c->ldaps)
		fputs(" ssl", out);
	if (c->smoothshutdown)
		fputs(" smoothshutdown", out);
	if (c->dontsleeponserverdown)
		fputs(" dontsleeponserverdown", out);
	if (!c->scalab01) /* its bind is the login's, not bindonly */
		ldb_ops_print_mode(c, out);
	if (c->genldif_file != NULL)
		fputs(" genldif", out);
	if (c->scalab01)
		fputs(" scalab01", out);
	if (c->genldif_append)
		fputs(" append", out);
	if (c->random_attrlist)
		fputs(" randomattrlist", out);
	if (c->binddn_file != NULL)
		fprintf(out, " randombinddnfromfile=%s", c->binddn_file);
	if (!c->zeropad)
		fputs(" nozeropad", out);
	if (c->noglobalstats)
		fputs(" noglobalstats", out);
	fputc('\n', out);
}

static void print_values(const struct ldb_config *c, FILE *out)
{
	if (c->valmode != LDB_VAL_FIXED) {
		fprintf(out, KEY "[%lld , %lld]\n", "Values range", c->range_low, c->range_high);
		print_head_tail(out, "Filter", &c->filter_pat);
	}
	if (c->randombase) {
		print_head_tail(out, "Base DN", &c->base_pat);
		fprintf(out, KEY "[%lld , %lld]\n", "Base DN's range", c->base_low, c->base_high);
	}
	if (c->randombinddn) {
		/* ldclt also prints the password's head and tail: not here */
		print_head_tail(out, "Bind DN", &c->bind_dn_pat);
		fprintf(out, KEY "[%lld , %lld]\n", "Bind DN's range", c->binddn_low, c->binddn_high);
	}
	if (c->depth > 1)
		fprintf(out, KEY "%d\n", "Async max pending", c->depth);
	for (int i = 0; i < c->nignore; i++)
		fprintf(out, KEY "%d (%s)\n", "Ignore error", c->ignore[i], ldap_err2string(c->ignore[i]));
	if (c->expect_entries >= 0)
		fprintf(out, KEY "%lld\n", "Expected entries", c->expect_entries);
	if (c->timestamp)
		fprintf(out, KEY "\"%s\"\n", "Timestamp format", c->timestamp_fmt ? c->timestamp_fmt : "");
}

/* the entries' shape (add and genldif), the kinds' own lines, the mix, genldif */
static void print_entries(const struct ldb_config *c, FILE *out)
{
	if (c->add_class != LDB_CLASS_NONE)
		fprintf(out, KEY "%s\n", "Object class",
		        c->add_class == LDB_CLASS_PERSON        ? "person"
		        : c->add_class == LDB_CLASS_EMAILPERSON ? "emailPerson"
		                                                : "inetOrgPerson");
	if (c->object_file != NULL)
		fprintf(out, KEY "%s\n", "Object template", c->object_file);
	if (c->rdn_spec != NULL)
		fprintf(out, KEY "\"%s\"\n", "RDN", c->rdn_spec);
	ldb_ops_print(c, false, out);
	if (c->delete_after_add)
		fprintf(out, KEY "yes\n", "Delete after add");
	if (c->mix) {
		bool any = false;

		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (c->weight[k] > 0) {
				if (!any)
					fprintf(out, KEY, "Mix");
				fprintf(out, "%s%s:%d", any ? "," : "", ldb_op_name((enum ldb_op)k), c->weight[k]);
				any = true;
			}
		if (any)
			fputc('\n', out);
	}
	if (c->genldif_file != NULL)
		fprintf(out, KEY "%s%s\n", "Genldif file", c->genldif_file, c->genldif_append ? " (append)" : "");
}

/* -S: the consumers and how they are checked (never the password) */
static void print_repl(const struct ldb_config *c, FILE *out)
{
	for (int i = 0; i < c->nrepl; i++)
		fprintf(out, KEY "%s\n", "Replica to check", c->repl_consumer[i]);
	if (c->nrepl == 0)
		return;
	if (c->repl_every > 0)
		fprintf(out, KEY "1 write in %lld\n", "Replication sample", c->repl_every);
	else
		fprintf(out, KEY "%g writes/sec at most\n", "Replication sample", c->repl_rate);
	fprintf(out, KEY "%.3f sec\n", "Replication timeout", (double)c->repl_timeout_ms / 1e3);
	if (c->repl_bind_dn != NULL)
		fprintf(out, KEY "%s\n", "Replication bind DN", c->repl_bind_dn);
}

void ldb_config_print(const struct ldb_config *c, FILE *out)
{
	print_target(c, out);
	print_mode(c, out);
	if (c->scalab01) { /* ldclt's three lines */
		fprintf(out, "Scalab01 cnx dur.  = %d sec\n", c->s1_cnxduration);
		fprintf(out, "Scalab01 max nb cnx= %d\n", c->s1_maxcnxnb);
		fprintf(out, "Scalab01 wait time = %d sec\n", c->s1_wait);
	}
	fprintf(out, KEY "%d sec\n", "LDAP oper. timeout", c->timeout_sec);
	if (c->interval_ms % 1000 == 0)
		fprintf(out, KEY "%" PRIu64 " sec\n", "Sampling interval", c->interval_ms / 1000);
	else
		fprintf(out, KEY "%" PRIu64 " ms\n", "Sampling interval", c->interval_ms);
	ldb_ops_print(c, true, out);
	print_values(c, out);
	print_entries(c, out);
	/* ldbench's own keys */
	fprintf(out, KEY "%" PRIu64 "%s\n", "Seed", c->seed, c->seed_given ? "" : " (fresh)");
	fprintf(out, KEY "%d\n", "Requests in flight", c->depth);
	fprintf(out, KEY "%d\n", "Connections/thread", c->conns_per_thread);
	if (c->io_threads > 0)
		fprintf(out, KEY "%d\n", "I/O threads", c->io_threads);
	print_repl(c, out);
}

/* ------------------------------------------------ the load's outputs */

/* "name":"text" or "name":null, after a comma unless first */
static void put_str(FILE *f, const char *name, const char *v, bool first)
{
	fprintf(f, "%s\"%s\":", first ? "" : ",", name);
	if (v == NULL)
		fputs("null", f);
	else
		ldb_json_put_string(f, v);
}

/* A count that -1 means "none of it": null. */
static void put_opt_ll(FILE *f, const char *name, long long v)
{
	if (v < 0)
		fprintf(f, ",\"%s\":null", name);
	else
		fprintf(f, ",\"%s\":%lld", name, v);
}

/* The config's "operation": the keyword of the run's first kind (in pass
 * order) whose row has config_word (bindonly, esearch), else "none". */
static const char *config_operation(const struct ldb_config *c)
{
	for (int rank = 0; rank < LDB_OP_COUNT; rank++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (c->weight[k] > 0 && ldb_ops[k]->config_word && ldb_ops[k]->pass_rank == rank)
				return ldb_ops[k]->keyword;
	return "none";
}

static const char *scope_text(int scope)
{
	switch (scope) {
	case LDB_SCOPE_BASE: return "base";
	case LDB_SCOPE_ONE: return "one";
	default: return "subtree";
	}
}

static const char *valmode_text(enum ldb_valmode m)
{
	switch (m) {
	case LDB_VAL_RANDOM: return "random";
	case LDB_VAL_INCR: return "incr";
	default: return "fixed";
	}
}

/* The header record's "config" members of a load (docs/results.md). */
static void config_json(FILE *f, const struct ldb_outputs *o, int io_threads)
{
	const struct ldb_config *c = o->config_arg;
	char server[600];
	if (c->uri != NULL)
		snprintf(server, sizeof server, "%s", c->uri);
	else
		snprintf(server, sizeof server, "%s://%s:%d", c->ldaps ? "ldaps" : "ldap", c->host ? c->host : "",
		         c->port);
	put_str(f, "server", server, true);
	put_str(f, "operation", config_operation(c), false);
	fprintf(f, ",\"bindeach\":%s", c->bindeach ? "true" : "false");
	put_str(f, "bind_dn", c->bind_dn, false);
	put_str(f, "base", c->base, false);
	put_str(f, "filter", c->filter, false);
	put_str(f, "scope", scope_text(c->scope), false);
	fputs(",\"attrs\":[", f);
	for (int i = 0; i < c->nattrs; i++) {
		if (i)
			fputc(',', f);
		ldb_json_put_string(f, c->attrs[i]);
	}
	fputc(']', f);
	put_str(f, "values", valmode_text(c->valmode), false);
	put_opt_ll(f, "range_low", c->range_low);
	put_opt_ll(f, "range_high", c->range_high);
	put_opt_ll(f, "expect_entries", c->expect_entries);
	fprintf(f, ",\"threads\":%d,\"io_threads\":%d,\"connections_per_thread\":%d,\"depth\":%d", c->threads,
	        io_threads, c->conns_per_thread, c->depth);
	fprintf(f, ",\"interval_ms\":%llu", (unsigned long long)o->interval_ms);
	put_opt_ll(f, "samples", c->samples);
	put_opt_ll(f, "ops_per_thread", c->ops_per_thread);
	fprintf(f, ",\"warmup_ms\":%llu,\"duration_ms\":%llu,\"rate\":%.3f", (unsigned long long)c->warmup_ms,
	        (unsigned long long)c->duration_ms, c->rate);
	fprintf(f, ",\"timeout_s\":%d,\"max_errors\":%lld", c->timeout_sec, c->max_errors);
	if (c->nwl > 0) { /* [workload] sections: their names, in file order */
		fputs(",\"workloads\":[", f);
		for (int j = 0; j < c->nwl; j++) {
			fputs(j ? "," : "", f);
			ldb_json_put_string(f, c->wl[j].wl_name);
		}
		fputc(']', f);
	}
}

void ldb_outputs_of_config(struct ldb_outputs *o, const struct ldb_config *c)
{
	*o = (struct ldb_outputs){ .progname = c->progname,
		                   .command = c->nfind_max > 0 ? "find-max" : "load",
		                   .json_path = c->json_path,
		                   .csv_path = c->csv_path,
		                   .hdrlog_path = c->hdrlog_path,
		                   .html_path = c->html_path,
		                   .threads = c->threads,
		                   .rate = c->rate,
		                   .interval_ms = c->interval_ms,
		                   .timestamp_fmt = c->timestamp ? c->timestamp_fmt : NULL,
		                   .verbose = c->verbose,
		                   .bindeach = c->bindeach,
		                   .workloads = c->nwl > 0,
		                   .cmdline = c->cmdline,
		                   .seed_given = c->seed_given,
		                   .config_json = config_json,
		                   .config_arg = c };
}
