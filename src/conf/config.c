/* struct ldb_config: ldclt's defaults, clean-up, exit texts (the -v block is report/settings.c). */
#include "conf/config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ldap.h>

#include "proto/wire.h"
#include "values/vpattern.h"

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
	c->join_wait_ms = 10000; /* --server-log-wait */
	c->inactivity = 3;
	c->max_errors = 1000;
	c->interval_ms = 10000;
	c->find_max_tolerance = 0.02;
	c->find_max_steps = 12;
	c->timestamp_fmt = dup_or_die("%s");
	/* replication check */
	c->repl_rate = 50;
	c->repl_timeout_ms = 30000;
	c->listen_wait_ms = 5000;
}

static void free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* -e deref's and imagesdir's strings */
static void free_keyword_values(struct ldb_config *c)
{
	free(c->deref_attr);
	free(c->deref_target);
	free(c->imagesdir);
}

/* the request controls' options */
static void free_controls(struct ldb_ctlcfg *t)
{
	for (int i = 0; i < t->ngen; i++) {
		free(t->gen[i].oid);
		free(t->gen[i].value);
	}
	free(t->sort_order);
	free(t->assertion);
	free(t->proxy_as);
	ldb_vp_free(t->proxy_vp);
	free(t->pre_read);
	free(t->post_read);
	free(t->session_id);
	memset(t, 0, sizeof *t);
}

void ldb_config_free(struct ldb_config *c)
{
	for (int i = 0; i < c->nwl; i++)
		ldb_config_free(&c->wl[i]);
	free(c->wl);
	free_keyword_values(c);
	free_controls(&c->ctl);
	free(c->cmdline);
	free(c->rate_profile);
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
	/* replication check */
	free(c->repl_bind_dn);
	free(c->listen_base);
	free(c->listen_filter);
	free(c->listen_record);
	free(c->listen_attr);
	free(c->write_record);
	free_secret(c->repl_password);
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
	free(c->passmod_user);
	free(c->passmod_old);
	free(c->passmod_new);
	free(c->login_password);
	free(c->login_password_attr);
	free(c->login_groups);
	free(c->flow_name);
	for (int i = 0; i < c->flow_nsteps; i++)
		free(c->flow_step[i]);
	free(c->ext_oid);
	free(c->ext_value);
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
	case LDB_EXIT_PREFLIGHT: return "The range does not match the data (pre-flight check).";
	case LDB_EXIT_NO_CAPACITY: return "No rate met the objective (--find-max).";
	case LDB_EXIT_NOT_EVALUATED: return "Threshold not evaluated (--fail-if).";
	case LDB_EXIT_NO_JOIN: return "The server log could not be joined (--server-log).";
	case LDB_EXIT_NO_LISTEN: return "The server refused the listeners' searches (--listeners).";
	default: return "Undocumented error - update source code.";
	}
}

#ifndef LDBENCH_VERSION
#define LDBENCH_VERSION "0.0.0"
#endif
#define LDCLT_VERSION "4.23" /* 389-ds-base's ldclt, whose command line ldbench speaks */

void ldb_version_line(char *buf, size_t cap, const char *progname)
{
	if (progname != NULL && strcmp(progname, "ldclt") == 0)
		snprintf(buf, cap, "ldclt version %s (ldbench %s)", LDCLT_VERSION, LDBENCH_VERSION);
	else
		snprintf(buf, cap, "%s version %s", progname != NULL ? progname : "ldbench", LDBENCH_VERSION);
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
