/* struct ldb_config: ldclt's defaults, clean-up, and the -v dump. */
#include "cli/config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ldap.h>

#include "ops/ops.h"
#include "proto/wire.h"

/* Start-up only: running out of memory before the first thread has no
 * sensible recovery, and ldb_config_init() has no error channel. */
static char *dup_or_die(const char *s)
{
	char *d = strdup(s);

	if (d == NULL) {
		fputs("ldbench: out of memory\n", stderr);
		abort();
	}
	return d;
}

void ldb_config_init(struct ldb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->progname = "ldbench";
	c->host = dup_or_die("localhost");
	c->port = 389;
	c->base = dup_or_die("dc=example,dc=com");
	c->scope = LDB_SCOPE_SUB;
	c->attrsonly = 0;
	c->expect_entries = -1;
	c->valmode = LDB_VAL_FIXED;
	c->range_low = -1;
	c->range_high = -1;
	c->incr_step = 1;
	c->zeropad = true;
	c->binddn_low = -1;
	c->binddn_high = -1;
	c->authid_low = -1;
	c->authid_high = -1;
	c->base_low = -1;
	c->base_high = -1;
	c->threads = 10;
	c->conns_per_thread = 1;
	c->depth = 1;
	c->samples = -1;
	c->ops_per_thread = -1;
	c->wait_sec = 0;
	c->timeout_sec = 30;
	c->inactivity = 3;
	c->max_errors = 1000;
	c->interval_ms = 10000;
	c->timestamp_fmt = dup_or_die("%s");
}

static void free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void ldb_config_free(struct ldb_config *c)
{
	free(c->cmdline);
	free(c->host);
	free(c->uri);
	free(c->tls_certdb);
	free(c->tls_cacert);
	free(c->tls_cacertdir);
	free(c->tls_cert);
	free(c->tls_key);
	free(c->tls_ciphers);
	free(c->sasl_mech);
	free(c->sasl_authid);
	free(c->sasl_authzid);
	free(c->sasl_realm);
	ldb_pattern_free(&c->sasl_authid_pat);
	free(c->bind_dn);
	free_secret(c->password);
	ldb_pattern_free(&c->bind_dn_pat);
	ldb_pattern_free(&c->password_pat);
	free(c->base);
	ldb_pattern_free(&c->base_pat);
	free(c->filter);
	ldb_pattern_free(&c->filter_pat);
	for (int i = 0; i < c->nattrs && i < LDB_MAX_ATTRS; i++)
		free(c->attrs[i]);
	free(c->binddn_file);
	for (size_t i = 0; i < c->binddn_file_n; i++) {
		if (c->binddn_file_dns != NULL)
			free(c->binddn_file_dns[i]);
		if (c->binddn_file_pws != NULL)
			free_secret(c->binddn_file_pws[i]);
	}
	free(c->binddn_file_dns);
	free(c->binddn_file_pws);
	free(c->timestamp_fmt);
	/* write workloads */
	free(c->object_file);
	free(c->rdn_spec);
	ldb_objtmpl_free(c->objtmpl);
	free(c->new_parent);
	free(c->attreplace_attr);
	ldb_pattern_free(&c->attreplace_mask);
	free(c->attreplacefile_attr);
	free(c->attreplacefile_data);
	for (int i = 0; i < c->nmods && i < (int)(sizeof(c->mods) / sizeof(c->mods[0])); i++) {
		free(c->mods[i].attr);
		ldb_pattern_free(&c->mods[i].val);
	}
	free(c->compare_attr);
	ldb_pattern_free(&c->compare_val);
	free(c->genldif_file);
	memset(c, 0, sizeof(*c));
}

const char *ldb_exit_text_prog(int status, const char *progname)
{
	switch (status) {
	case LDB_EXIT_OK: return "No problem during execution.";
	case LDB_EXIT_PARAMS: return "Error in parameters.";
	case LDB_EXIT_MAX_ERRORS: return "Max errors reached.";
	case LDB_EXIT_CANNOT_BIND: return "Cannot bind.";
	case LDB_EXIT_INIT:
		if (progname != NULL && strcmp(progname, "ldclt") == 0)
			return "Cannot initialize ldclt.";
		return "Cannot initialize ldbench.";
	case LDB_EXIT_OTHER: return "Other kind of error.";
	case LDB_EXIT_THRESHOLD: return "Threshold exceeded (--fail-if).";
	default: return "Undocumented error - update source code.";
	}
}

const char *ldb_exit_text(int status)
{
	return ldb_exit_text_prog(status, "ldbench");
}

bool ldb_config_ignored(const struct ldb_config *c, int code)
{
	for (int i = 0; i < c->nignore; i++)
		if (c->ignore[i] == code)
			return true;
	return false;
}

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
	ldb_ops_print_mode(c, out);
	if (c->genldif_file != NULL)
		fputs(" genldif", out);
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
		        c->add_class == LDB_CLASS_PERSON ? "person"
		        : c->add_class == LDB_CLASS_EMAILPERSON ? "emailPerson" : "inetOrgPerson");
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

void ldb_config_print(const struct ldb_config *c, FILE *out)
{
	print_target(c, out);
	print_mode(c, out);
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
}
