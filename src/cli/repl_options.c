/* The replication check's options: -S URL|HOST[:PORT] (up to 20 consumers,
 * ldclt's limit), -P PORT (the port of -S hosts given without one),
 * --repl-sample N/s or N, --repl-timeout, --repl-bind DN and its password
 * (--repl-bind-pwfile FILE or LDBENCH_REPL_PASSWORD).  What run/repl checks
 * of each kind decides what a run with -S may write. */
#include "cli/ctx.h"
#include "ops/ops.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldap.h>

#include "util/num.h"

#define MAX_CONSUMERS 20

/* ldap://HOST[:PORT][/], ldaps://..., or HOST[:PORT]. */
static int add_consumer(struct cli_ctx *x, char *arg)
{
	struct ldb_config *c = x->c;
	if (c->nrepl == MAX_CONSUMERS)
		return cli_fail(x, "-S %s: at most %d consumers", arg, MAX_CONSUMERS);
	if (arg[0] == '\0')
		return cli_fail(x, "-S: empty consumer");
	if (strstr(arg, "://") != NULL) {
		LDAPURLDesc *lud = NULL;
		if (strncasecmp(arg, "ldap://", 7) != 0 && strncasecmp(arg, "ldaps://", 8) != 0)
			return cli_fail(x, "-S '%s': only ldap:// and ldaps:// URLs are supported", arg);
		if (ldap_url_parse(arg, &lud) != LDAP_URL_SUCCESS)
			return cli_fail(x, "-S '%s': not a valid LDAP URL", arg);
		bool nohost = lud->lud_host == NULL || lud->lud_host[0] == '\0';
		ldap_free_urldesc(lud);
		if (nohost)
			return cli_fail(x, "-S '%s': the URL names no host", arg);
	} else {
		const char *colon = strrchr(arg, ':');
		if (colon == arg || strchr(arg, '/') != NULL)
			return cli_fail(x, "-S '%s': expected HOST, HOST:PORT or an ldap:// URL", arg);
		if (colon != NULL) {
			int port;
			if (cli_parse_int(x, "-S", colon + 1, 1, 65535, "the consumer's port", &port) < 0)
				return -1;
		}
	}
	c->repl_consumer[c->nrepl++] = arg; /* argv outlives the config */
	return 0;
}

/* "N/s": that many checked writes a second; "N": every Nth confirmed write. */
static int parse_sample(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	size_t n = strlen(arg);
	if (n > 2 && strcmp(arg + n - 2, "/s") == 0) {
		const char *end;
		double r;
		if (ldb_num_real(arg, &end, &r) != 0 || end != arg + n - 2 || !(r > 0) || r > 1e6)
			return cli_fail(x, "--repl-sample '%s': N/s with N above 0 (at most 1000000), or N", arg);
		c->repl_rate = r;
		c->repl_every = 0;
		return 0;
	}
	long long every;
	if (cli_parse_num(x, "--repl-sample", ' ', arg, 1, LLONG_MAX, "every Nth write (or N/s)", &every) < 0)
		return -1;
	c->repl_every = every;
	return 0;
}

static int read_pwfile(struct cli_ctx *x, const char *path)
{
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return cli_fail(x, "--repl-bind-pwfile %s: cannot open: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	fclose(f);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (n <= 0) {
		if (line != NULL)
			explicit_bzero(line, cap);
		free(line);
		return cli_fail(x, "--repl-bind-pwfile %s: no password on the first line", path);
	}
	if (x->c->repl_password != NULL) {
		explicit_bzero(x->c->repl_password, strlen(x->c->repl_password));
		free(x->c->repl_password);
	}
	x->c->repl_password = line;
	return 0;
}

int cli_handle_repl_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	switch (opt) {
	case 'S': return add_consumer(x, (char *)arg);
	case 'P': return cli_parse_int(x, "-P", arg, 1, 65535, "the consumers' port", &c->repl_port);
	case OPT_REPL_SAMPLE: return parse_sample(x, arg);
	case OPT_REPL_TIMEOUT:
		if (ldb_parse_duration_ms(arg, &c->repl_timeout_ms) < 0 || c->repl_timeout_ms == 0)
			return cli_fail(x, "--repl-timeout '%s': not a duration (e.g. 30s, 500ms, 2m)", arg);
		return 0;
	case OPT_REPL_BIND:
		if (arg[0] == '\0' || !cli_dn_is_valid(arg))
			return cli_fail(x, "--repl-bind '%s': invalid DN", arg);
		return cli_set_str(x, &c->repl_bind_dn, arg);
	case OPT_REPL_BIND_PWFILE: return read_pwfile(x, arg);
	default: return cli_fail(x, "replication option %d: not handled", opt);
	}
}

/* The writes of the run must be ones the watcher can see: it looks for the
 * entry by the DN an operation number gives (an object= rdn= add's RDN is
 * carried to it, up to LDB_REPL_RUN bytes: a longer one is dropped), and for
 * a modify's value. */
static int check_kinds(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	char why[512];
	bool any = false;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] > 0 && ldb_ops[k]->changes != LDB_CHANGES_NOTHING) {
			any = true;
			if (ldb_ops[k]->repl_check != NULL && ldb_ops[k]->repl_check(c, why, sizeof why) != 0)
				return cli_fail(x, "%s", why);
		}
	if (!any)
		return cli_fail(x, "-S checks writes: the run has no add, modify, delete or rename");
	if (c->rnd_string)
		return cli_fail(x, "-S finds an entry by the DN its number gives: -e string's random bytes cannot be "
		                   "rebuilt");
	if (c->genldif_file != NULL)
		return cli_fail(x, "-S and -e genldif exclude each other (genldif writes nothing to the server)");
	return 0;
}

int cli_check_repl(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	if (c->nrepl == 0) {
		if (c->repl_port != 0)
			return cli_fail(x, "-P gives the port of the -S consumers: it needs -S");
		if (c->repl_bind_dn != NULL || c->repl_password != NULL)
			return cli_fail(x, "--repl-bind and --repl-bind-pwfile need -S");
		return 0;
	}
	if (check_kinds(x) != 0)
		return -1;
	if (c->repl_password == NULL && c->repl_bind_dn != NULL) {
		const char *env = getenv("LDBENCH_REPL_PASSWORD");
		if (env != NULL && env[0] != '\0' && (c->repl_password = strdup(env)) == NULL)
			return cli_oom(x);
	}
	if (c->repl_bind_dn != NULL && c->repl_password == NULL)
		return cli_fail(x, "--repl-bind needs a password: --repl-bind-pwfile FILE or LDBENCH_REPL_PASSWORD");
	return 0;
}
