/* The command line: ldclt's short flags and ldbench's long options (the
 * getopt_long table and what each option sets), the parse in order, and the
 * public entry.  Every problem is reported as one line ("ldbench: -n 0:
 * threads must be ...") and no connection is ever opened here. */
#include "cli/cli.h"
#include "cli/ctx.h"
#include "ops/ops.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <ldap.h>

#include "values/rng.h"
#include "cli/fail_if.h"
#include "util/num.h"
#include "proto/wire.h"

#define MAX_THREADS 10000
#define MAX_HELD 1000000 /* -n with --held: connections */
#define MAX_CONNS_PER_THREAD 1000

#define MIN_INTERVAL_MS 100
#define PW_MASK "*****"

/* getopt_long's arrays, built from cli_options (cli/option_table.c) once. */
static struct option long_options[CLI_MAX_OPTIONS + 1];
static char short_options[2 + 2 * 64];

const struct option *cli_long_options(void)
{
	cli_option_tables();
	return long_options;
}

const char *cli_short_options(void)
{
	cli_option_tables();
	return short_options;
}

void cli_option_tables(void)
{
	if (long_options[0].name == NULL &&
	    ldb_opt_getopt(cli_options, long_options, sizeof long_options / sizeof long_options[0], short_options,
	                   sizeof short_options) != 0)
		abort(); /* the table outgrew CLI_MAX_OPTIONS: a build-time mistake, caught by every test */
}

const char *cli_long_name(int val)
{
	const struct ldb_opt *o = ldb_opt_by_id(cli_options, val);
	return o != NULL && o->name != NULL ? o->name : "?";
}

static int parse_scope(struct cli_ctx *x, const char *s)
{
	if (strcmp(s, "base") == 0)
		x->c->scope = LDB_SCOPE_BASE;
	else if (strcmp(s, "one") == 0 || strcmp(s, "onelevel") == 0)
		x->c->scope = LDB_SCOPE_ONE;
	else if (strcmp(s, "subtree") == 0 || strcmp(s, "sub") == 0)
		x->c->scope = LDB_SCOPE_SUB;
	else
		return cli_fail(x, "-s '%s': the scope must be base, one or subtree", s);
	return 0;
}

static int parse_url(struct cli_ctx *x, const char *url)
{
	LDAPURLDesc *lud = NULL;
	int rc;

	const char *sep = strstr(url, "://");

	if (sep != NULL && strncasecmp(url, "ldap://", 7) != 0 && strncasecmp(url, "ldaps://", 8) != 0 &&
	    strncasecmp(url, "ldapi://", 8) != 0)
		return cli_fail(x, "-H '%s': only ldap:// and ldaps:// URLs are supported", url);
	if (ldap_url_parse(url, &lud) != LDAP_URL_SUCCESS)
		return cli_fail(x, "-H '%s': not a valid LDAP URL", url);
	if (strcasecmp(lud->lud_scheme, "ldapi") == 0) {
		ldap_free_urldesc(lud);
		return cli_fail(x, "-H '%s': ldapi:// is not supported yet", url);
	}
	if (strcasecmp(lud->lud_scheme, "ldap") != 0 && strcasecmp(lud->lud_scheme, "ldaps") != 0) {
		ldap_free_urldesc(lud);
		return cli_fail(x, "-H '%s': only ldap:// and ldaps:// URLs are supported", url);
	}
	if (lud->lud_port < 0 || lud->lud_port > 65535) {
		ldap_free_urldesc(lud);
		return cli_fail(x, "-H '%s': the port must be between 1 and 65535", url);
	}
	x->url_given = true;
	x->url_ldaps = strcasecmp(lud->lud_scheme, "ldaps") == 0;
	x->url_port = lud->lud_port;
	free(x->url_host);
	x->url_host = NULL;
	rc = 0;
	if (lud->lud_host != NULL && lud->lud_host[0] != '\0') {
		x->url_host = strdup(lud->lud_host);
		if (x->url_host == NULL)
			rc = cli_oom(x);
	}
	ldap_free_urldesc(lud);
	if (rc == 0)
		rc = cli_set_str(x, &x->c->uri, url);
	return rc;
}

static int add_ignore(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	int code;

	if (cli_parse_int(x, "-I", arg, INT_MIN, INT_MAX, "the result code", &code) < 0)
		return -1;
	if (ldb_config_ignored(c, code))
		return 0;
	if (c->nignore >= LDB_MAX_IGNORE)
		return cli_fail(x, "-I %s: too many codes to ignore (at most %d)", arg, LDB_MAX_IGNORE);
	c->ignore[c->nignore++] = code;
	return 0;
}

/* -w's word hidden from ps, as OpenLDAP's tools do; with [workload]
 * sections only once every workload's options have read it (their words
 * are the command line's own: cli/scenario_merge). */
static struct {
	bool defer;
	char *word[8];
	int n;
} hide;

static void hide_word(char *arg)
{
	if (hide.defer && hide.n < (int)(sizeof hide.word / sizeof hide.word[0]))
		hide.word[hide.n++] = arg;
	else
		memset(arg, '*', strlen(arg));
}

static void hide_deferred(void)
{
	hide.defer = false;
	for (int i = 0; i < hide.n; i++)
		memset(hide.word[i], '*', strlen(hide.word[i]));
	hide.n = 0;
}

static int set_password(struct cli_ctx *x, char *arg)
{
	struct ldb_config *c = x->c;
	char *pw;

	if (x->pw_from_y)
		return cli_fail(x, "-w and -y exclude each other");
	if (arg[0] == '\0')
		return cli_fail(x, "-w: the password is empty");
	pw = strdup(arg);
	if (pw == NULL)
		return cli_oom(x);
	if (c->password != NULL) {
		explicit_bzero(c->password, strlen(c->password));
		free(c->password);
	}
	c->password = pw;
	x->pw_from_w = true;
	x->pw_args[x->npw_args++] = arg;
	hide_word(arg);
	return 0;
}

static int parse_seed(struct cli_ctx *x, const char *arg)
{
	uint64_t v;
	int rc = ldb_num_u64(arg, &v);

	if (rc == LDB_NUM_JUNK)
		return cli_fail(x, "--seed '%s': not a whole number", arg);
	if (rc != LDB_NUM_OK)
		return cli_fail(x, "--seed %s: the seed must fit in 64 bits", arg);
	x->c->seed = v;
	x->c->seed_given = true;
	return 0;
}

static int parse_interval(struct cli_ctx *x, const char *arg)
{
	uint64_t ms;

	if (ldb_parse_duration_ms(arg, &ms) < 0)
		return cli_fail(x, "--interval '%s': not a duration (e.g. 10, 10s, 500ms, 2m, 1h)", arg);
	if (ms < MIN_INTERVAL_MS)
		return cli_fail(x, "--interval %s: the interval must be at least %dms", arg, MIN_INTERVAL_MS);
	x->c->interval_ms = ms;
	return 0;
}

/* --warmup 30s | 500ms | 3s... ; "Ns" alone with a bare count means samples: "2s"
 * is a duration, so samples are written "3samples" or "3 samples". */
static int parse_warmup(struct cli_ctx *x, const char *arg)
{
	/* N before "samples" or " samples": a strict whole number (util/num) */
	const char *suffix = strstr(arg, "samples");
	size_t n = suffix != NULL ? (size_t)(suffix - arg) : 0;
	if (n > 0 && arg[n - 1] == ' ')
		n--;
	char digits[24];
	long long count;
	if (suffix != NULL && strcmp(suffix, "samples") == 0 && n > 0 && n < sizeof digits) {
		memcpy(digits, arg, n);
		digits[n] = '\0';
		if (ldb_num_ll(digits, &count) == LDB_NUM_OK && count > 0 && count <= 1000000) {
			x->c->warmup_samples = count;
			return 0;
		}
	}
	if (ldb_parse_duration_ms(arg, &x->c->warmup_ms) < 0 || x->c->warmup_ms == 0)
		return cli_fail(x, "--warmup '%s': not a duration (e.g. 10s, 500ms) nor a sample count (e.g. 3samples)",
		                arg);
	return 0;
}

static int parse_rate(struct cli_ctx *x, const char *arg)
{
	const char *end;
	double r;
	if (ldb_num_real(arg, &end, &r) != 0 || (*end != '\0' && strcmp(end, "/s") != 0) || !(r > 0) || r > 1e8)
		return cli_fail(x, "--rate '%s': operations per second, a number above 0 (e.g. 5000)", arg);
	x->c->rate = r;
	return 0;
}

/* One thread count of --sweep: p[0..n) a strict whole number in 1..MAX_THREADS. */
static bool sweep_count(const char *p, size_t n, int *out)
{
	char digits[24];
	long long v;
	if (n == 0 || n >= sizeof digits)
		return false;
	memcpy(digits, p, n);
	digits[n] = '\0';
	if (ldb_num_ll(digits, &v) != LDB_NUM_OK || v < 1 || v > MAX_THREADS)
		return false;
	*out = (int)v;
	return true;
}

static int parse_sweep(struct cli_ctx *x, const char *arg)
{
	const char *p = arg;
	x->c->nsweep = 0;
	if (*arg == '\0')
		return cli_fail(x, "--sweep '': give thread counts, e.g. 1,2,4,8");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		int v;
		if (!sweep_count(p, n, &v))
			return cli_fail(x, "--sweep '%s': a comma-separated list of thread counts (1..%d)", arg,
			                MAX_THREADS);
		if (x->c->nsweep == (int)(sizeof x->c->sweep / sizeof x->c->sweep[0]))
			return cli_fail(x, "--sweep '%s': at most 64 thread counts", arg);
		x->c->sweep[x->c->nsweep++] = v;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

/* --start-at: @EPOCH, YYYY-MM-DDTHH:MM:SS (local time, or UTC with a final Z)
 * or HH:MM[:SS] today (local time).  The time must lie ahead, within a day. */
static int parse_start_at(struct cli_ctx *x, const char *arg)
{
	time_t now = time(NULL), t = 0;
	struct tm tm;
	const char *end = NULL;

	if (arg[0] == '@') {
		long long v;
		if (ldb_num_ll(arg + 1, &v) == LDB_NUM_OK && v > 0)
			t = (time_t)v;
	} else {
		memset(&tm, 0, sizeof tm);
		if ((end = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm)) != NULL &&
		    (*end == '\0' || strcmp(end, "Z") == 0)) {
			tm.tm_isdst = -1;
			t = *end == 'Z' ? timegm(&tm) : mktime(&tm);
		} else {
			/* a time of day, today: the date from now, the time from arg */
			static const char *const forms[] = { "%H:%M:%S", "%H:%M" };
			for (size_t i = 0; i < sizeof forms / sizeof forms[0] && t == 0; i++) {
				localtime_r(&now, &tm);
				tm.tm_sec = 0;
				end = strptime(arg, forms[i], &tm);
				if (end != NULL && *end == '\0') {
					tm.tm_isdst = -1;
					t = mktime(&tm);
				}
			}
		}
	}
	if (t <= 0)
		return cli_fail(x, "--start-at '%s': not a time (@EPOCH, YYYY-MM-DDTHH:MM:SS[Z], or HH:MM[:SS] today)",
		                arg);
	if (t < now)
		return cli_fail(x, "--start-at '%s': that time has passed", arg);
	if (t > now + 86400)
		return cli_fail(x, "--start-at '%s': more than a day ahead", arg);
	x->c->start_at = t;
	return 0;
}

/* The command line for -v, every -w value replaced by PW_MASK. */
static int build_cmdline(struct cli_ctx *x, int argc, char *const *orig)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(orig[i]) + sizeof(PW_MASK) + 1;
	s = malloc(len);
	if (s == NULL)
		return cli_oom(x);
	p = s;
	for (int i = 0; i < argc; i++) {
		const char *a = orig[i];
		size_t alen = strlen(a), keep = alen;
		bool masked = false;

		for (int k = 0; k < x->npw_args; k++)
			if (x->pw_args[k] >= a && x->pw_args[k] <= a + alen) {
				keep = (size_t)(x->pw_args[k] - a);
				masked = true;
			}
		if (i > 0)
			*p++ = ' ';
		memcpy(p, a, keep);
		p += keep;
		if (masked) {
			memcpy(p, PW_MASK, sizeof(PW_MASK) - 1);
			p += sizeof(PW_MASK) - 1;
		}
	}
	*p = '\0';
	free(x->c->cmdline);
	x->c->cmdline = s;
	return 0;
}

/* A problem getopt_long found: a missing value, a value where none goes, an
 * unknown or ambiguous option. */
static int option_problem(struct cli_ctx *x, int opt, char **argv)
{
	if (opt == ':') {
		if (optopt >= OPT_HELP)
			return cli_fail(x, "--%s needs a value", cli_long_name(optopt));
		return cli_fail(x, "-%c needs a value", optopt);
	}
	if (optopt >= OPT_HELP)
		return cli_fail(x, "--%s takes no value", cli_long_name(optopt));
	if (optopt > 0 && optopt < 256)
		return cli_fail(x, "unknown option '-%c' (see --help)", optopt);
	/* an unknown or ambiguous long option: name it, without any =value */
	const char *a = optind > 0 ? argv[optind - 1] : "?";
	int n = (int)strcspn(a, "=");

	return cli_fail(x, "unknown option '%.*s' (see --help)", n, a);
}

/* ldclt's short flags. */
static int handle_short_option(struct cli_ctx *x, int opt, char *arg, char **argv)
{
	struct ldb_config *c = x->c;
	long long v;

	switch (opt) {
	case 'a': return cli_parse_int(x, "-a", arg, 1, LDB_MAX_DEPTH, "requests in flight", &c->depth);
	case 'b': return cli_set_str(x, &c->base, arg);
	case 'D':
		if (arg[0] == '\0')
			return cli_fail(x, "-D: empty bind DN (leave -D out for an anonymous bind)");
		return cli_set_str(x, &c->bind_dn, arg);
	case 'e': return cli_parse_exec(x, arg);
	case 'E': return cli_parse_num(x, "-E", ' ', arg, 0, LLONG_MAX, "max errors", &c->max_errors);
	case 'f': return cli_set_str(x, &c->filter, arg);
	case 'h':
		if (arg[0] == '\0')
			return cli_fail(x, "-h: empty host name");
		return cli_set_str(x, &c->host, arg);
	case 'H': return parse_url(x, arg);
	case 'i': return cli_parse_int(x, "-i", arg, 0, INT_MAX, "max times inactive", &c->inactivity);
	case 'I': return add_ignore(x, arg);
	case 'n': { /* more than MAX_THREADS with --held only (check_options) */
		long long nv;
		x->threads_given = true;
		bool big = ldb_num_ll(arg, &nv) == LDB_NUM_OK && nv > MAX_THREADS && nv <= MAX_HELD;
		return cli_parse_int(x, "-n", arg, 1, big ? MAX_HELD : MAX_THREADS, "threads", &c->threads);
	}
	case 'N': return cli_parse_num(x, "-N", ' ', arg, 1, LLONG_MAX, "samples", &c->samples);
	case 'o': return cli_parse_sasl_opt(x, arg);
	case 'p': x->port_given = true; return cli_parse_int(x, "-p", arg, 1, 65535, "the port", &c->port);
	case 'q': c->quiet = true; return 0;
	case 'Q': c->quiet = c->super_quiet = true; return 0;
	case 'r':
		if (cli_parse_num(x, "-r", ' ', arg, LLONG_MIN, LLONG_MAX, "the low bound", &v) < 0)
			return -1;
		c->range_low = v;
		x->low_given = true;
		return 0;
	case 'R':
		if (cli_parse_num(x, "-R", ' ', arg, 0, LLONG_MAX, "the high bound", &v) < 0)
			return -1;
		c->range_high = v;
		x->high_given = true;
		return 0;
	case 's': return parse_scope(x, arg);
	case 'S':
	case 'P': return cli_handle_repl_option(x, opt, arg);
	case 't': return cli_parse_int(x, "-t", arg, 1, INT_MAX, "the timeout (seconds)", &c->timeout_sec);
	case 'T': return cli_parse_num(x, "-T", ' ', arg, 1, LLONG_MAX, "operations per thread", &c->ops_per_thread);
	case 'v':
		if (c->verbose < 1)
			c->verbose = 1;
		return 0;
	case 'V': c->verbose = 2; return 0;
	case 'w': return set_password(x, arg);
	case 'W': return cli_parse_int(x, "-W", arg, 0, INT_MAX, "the wait (seconds)", &c->wait_sec);
	case 'y':
		if (x->pw_from_w)
			return cli_fail(x, "-w and -y exclude each other");
		x->pw_from_y = true;
		return cli_read_password_file(x, arg);
	case 'Z':
		if (arg[0] == '\0')
			return cli_fail(x, "-Z: empty certificate database path");
		c->ldaps = true;
		return cli_set_str(x, &c->tls_certdb, arg);
	default: return option_problem(x, opt, argv);
	}
}

/* --json, --csv, --hdr-log, --html FILE (argv outlives the config: not copied). */
static int parse_result_file(struct cli_ctx *x, int opt, char *arg)
{
	struct ldb_config *c = x->c;
	if (opt == OPT_HDR_LOG || opt == OPT_HTML) {
		if (arg[0] == '\0' || strcmp(arg, "-") == 0)
			return cli_fail(x, "--%s: needs a file name", cli_long_name(opt));
		*(opt == OPT_HDR_LOG ? &c->hdrlog_path : &c->html_path) = arg;
		return 0;
	}
	if (arg[0] == '\0')
		return cli_fail(x, "--%s: empty file name", cli_long_name(opt));
	*(opt == OPT_JSON ? &c->json_path : &c->csv_path) = arg;
	if (c->json_path != NULL && c->csv_path != NULL && strcmp(c->json_path, "-") == 0 &&
	    strcmp(c->csv_path, "-") == 0)
		return cli_fail(x, "--json - and --csv - cannot both write to stdout");
	return 0;
}

/* --op-log FILE, --server-log FILE (repeated: a rotated set), --server-log-wait D. */
static int parse_join_option(struct cli_ctx *x, int opt, char *arg)
{
	struct ldb_config *c = x->c;
	if (opt == OPT_SERVER_LOG_WAIT) {
		if (ldb_parse_duration_ms(arg, &c->join_wait_ms) < 0)
			return cli_fail(x, "--server-log-wait '%s': not a duration (e.g. 10s, 500ms)", arg);
		return 0;
	}
	if (arg[0] == '\0' || strcmp(arg, "-") == 0)
		return cli_fail(x, "--%s: needs a file name", cli_long_name(opt));
	if (opt == OPT_OP_LOG) {
		c->oplog_path = arg;
		return 0;
	}
	if (c->nserver_log == (int)(sizeof c->server_log / sizeof c->server_log[0]))
		return cli_fail(x, "--server-log: at most 8 files");
	if (access(arg, R_OK) != 0)
		return cli_fail(x, "--server-log %s: cannot read: %s", arg, strerror(errno));
	c->server_log[c->nserver_log++] = arg;
	return 0;
}

/* ldbench's long options. */
static int handle_long_option(struct cli_ctx *x, int opt, char *arg, char **argv)
{
	struct ldb_config *c = x->c;

	switch (opt) {
	case OPT_HELP: ldb_cli_usage(c->progname, stdout); return 1;
	case OPT_VERSION: {
		char line[96];
		ldb_version_line(line, sizeof line, c->progname);
		printf("%s\n", line);
		return 1;
	}
	case OPT_INTERVAL: return parse_interval(x, arg);
	case OPT_SEED: return parse_seed(x, arg);
	case OPT_CONNS:
		return cli_parse_int(x, "--connections-per-thread", arg, 1, MAX_CONNS_PER_THREAD,
		                     "connections per thread", &c->conns_per_thread);
	case OPT_WARMUP: return parse_warmup(x, arg);
	case OPT_DURATION:
		if (ldb_parse_duration_ms(arg, &c->duration_ms) < 0 || c->duration_ms == 0)
			return cli_fail(x, "--duration '%s': not a duration (e.g. 30s, 500ms, 2m)", arg);
		return 0;
	case OPT_RATE: return parse_rate(x, arg);
	case OPT_SWEEP: return parse_sweep(x, arg);
	case OPT_MONITOR: c->monitor = true; return 0;
	case OPT_NO_PREFLIGHT: c->no_preflight = true; return 0;
	case OPT_SET:
	case OPT_DATASET: return 0; /* the scenario's parameters: applied to its file (cli/scenario_merge) */
	case OPT_START_AT: return parse_start_at(x, arg);
	case OPT_FAIL_IF: {
		char why[400];
		if (c->nfail_if == (int)(sizeof c->fail_if / sizeof c->fail_if[0]))
			return cli_fail(x, "--fail-if: at most 16 thresholds");
		if (ldb_threshold_parse(&c->fail_if[c->nfail_if], arg, why, sizeof why) != 0)
			return cli_fail(x, "%s", why);
		c->nfail_if++;
		return 0;
	}
	case OPT_IO_THREADS:
		return cli_parse_int(x, "--io-threads", arg, 1, MAX_THREADS, "I/O threads", &c->io_threads);
	case OPT_JSON:
	case OPT_CSV:
	case OPT_HDR_LOG:
	case OPT_HTML: return parse_result_file(x, opt, arg);
	case OPT_OP_LOG:
	case OPT_SERVER_LOG:
	case OPT_SERVER_LOG_WAIT: return parse_join_option(x, opt, arg);
	case OPT_MODIFY: return cli_parse_modify(x, arg);
	case OPT_COMPARE: return cli_parse_compare(x, arg);
	case OPT_DELETE_AFTER_ADD: c->delete_after_add = true; return 0;
	case OPT_NEW_PARENT:
		if (arg[0] == '\0' || !cli_dn_is_valid(arg))
			return cli_fail(x, "--new-parent '%s': invalid DN", arg);
		return cli_set_str(x, &c->new_parent, arg);
	case OPT_MIX: return cli_parse_mix(x, arg);
	case OPT_SCENARIO:
	case OPT_LIST_SCENARIOS: return 0; /* taken out of argv before this parse (see ldb_cli_parse) */
	case OPT_STARTTLS:
	case OPT_TLS_CACERT:
	case OPT_TLS_CACERTDIR:
	case OPT_TLS_CERT:
	case OPT_TLS_KEY:
	case OPT_TLS_MIN:
	case OPT_TLS_CIPHERS:
	case OPT_TLS_INSECURE:
	case OPT_TLS_RESUME:
	case OPT_TLS_LIBRARY: return cli_handle_tls_option(x, opt, cli_long_name(opt), arg);
	case OPT_REPL_SAMPLE:
	case OPT_REPL_TIMEOUT:
	case OPT_REPL_BIND:
	case OPT_REPL_BIND_PWFILE: return cli_handle_repl_option(x, opt, arg);
	default: return option_problem(x, opt, argv);
	}
}

/* Handle one option from getopt_long.  @return 0, -1 on error, 1 when
 * --help/--version was printed. */
static int handle_option(struct cli_ctx *x, int opt, char *arg, char **argv)
{
	if (opt >= OPT_FIND_MAX && opt < OPT_CAPACITY_END)
		return cli_capacity_option(x, opt, arg);
	if (opt >= OPT_METRICS_LISTEN && opt < OPT_METRICS_END)
		return cli_metrics_option(x, opt, arg);
	if (opt >= OPT_HELD && opt < OPT_HELD_END)
		return cli_held_option(x, opt, arg);
	if (opt >= OPT_LISTENERS && opt < OPT_LISTEN_END)
		return cli_listen_option(x, opt, arg);
	if ((opt >= OPT_PASSMOD && opt < OPT_EXTOP_END) || (opt >= OPT_LOGIN && opt < OPT_LOGIN_END))
		return cli_handle_extop_option(x, opt, arg);
	if (opt >= OPT_FLOW && opt < OPT_FLOW_END)
		return cli_flow_option(x, opt, arg);
	if (opt >= OPT_CONTROL && opt < OPT_CONTROLS_END)
		return cli_control_option(x, opt, arg);
	if (opt >= OPT_HELP)
		return handle_long_option(x, opt, arg, argv);
	return handle_short_option(x, opt, arg, argv);
}

/* Rewrite err "progname: MSG" as "progname: FILE:LINE: MSG". */
static void err_at_line(struct cli_ctx *x, const char *path, int line)
{
	size_t pre = strlen(x->c->progname) + 2;
	char *msg;

	if (x->err == NULL || x->errcap == 0 || strlen(x->err) < pre)
		return;
	msg = strdup(x->err + pre);
	if (msg == NULL)
		return;
	cli_fail(x, "%s:%d: %s", path, line, msg);
	free(msg);
}

/* progname is argv[0]'s last component (when there is one). */
static void set_progname(struct ldb_config *c, int argc, char **argv)
{
	if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0') {
		const char *b = strrchr(argv[0], '/');

		b = b ? b + 1 : argv[0];
		if (b[0] != '\0')
			c->progname = b;
	}
}

/* The getopt_long loop, each option handled as it comes.  @return 0, -1 or 1
 * (--help, --version). */
static int read_options(struct cli_ctx *x, int argc, char **argv, const struct scen_map *m)
{
	int rc = 0, opt;

	optind = 0; /* full re-initialisation of GNU getopt (tests parse many times) */
	opterr = 0;
	while (rc == 0) {
		int at = optind == 0 ? 1 : optind; /* the element getopt looks at next */

		opt = getopt_long(argc, argv, cli_short_options(), cli_long_options(), NULL);
		if (opt == -1)
			break;
		rc = handle_option(x, opt, optarg, argv);
		/* the file's words come first, all options: no permutation there */
		if (rc < 0 && m != NULL && at >= 1 && at <= m->nfile)
			err_at_line(x, m->path, m->line_of[at]);
	}
	if (rc == 0 && optind < argc)
		rc = cli_fail(x, "unexpected argument '%s'", argv[optind]);
	return rc;
}

/* What the options decide together once all are read: LDBENCH_PASSWORD, and
 * -H over -h, -p and -Z's scheme. */
static int settle_options(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (!x->pw_from_w && !x->pw_from_y) {
		const char *env = getenv("LDBENCH_PASSWORD");

		if (env != NULL && env[0] != '\0') {
			c->password = strdup(env);
			if (c->password == NULL)
				return cli_oom(x);
		}
	}
	if (x->url_given) {
		/* -H overrides -h, -p and -Z's scheme */
		c->ldaps = x->url_ldaps;
		if (x->url_host != NULL) {
			free(c->host);
			c->host = x->url_host;
			x->url_host = NULL;
		}
		c->port = x->url_port > 0 ? x->url_port : (c->ldaps ? 636 : 389);
	} else if (c->ldaps && !x->port_given) {
		c->port = 636;
	}
	return 0;
}

/* Everything after the options are read, in order; orig is argv as given. */
static int check_options(struct cli_ctx *x, int argc, char *const *orig)
{
	if (x->c->held == 0 && x->c->threads > MAX_THREADS)
		return cli_fail(x, "-n %d: threads must be between 1 and %d", x->c->threads, MAX_THREADS);
	int rc = settle_options(x);

	if (rc == 0)
		rc = cli_prepare_write(x);
	if (rc == 0)
		rc = cli_compile_patterns(x);
	if (rc == 0)
		rc = cli_cross_check(x);
	if (rc == 0)
		rc = cli_check_think(x);
	if (rc == 0)
		rc = cli_held_check(x);
	if (rc == 0)
		rc = cli_listen_check(x);
	if (rc == 0)
		rc = cli_capacity_check(x);
	if (rc == 0)
		rc = cli_metrics_check(x);
	if (rc == 0)
		rc = cli_check_tls_sasl(x);
	if (rc == 0)
		rc = cli_check_controls(x);
	if (rc == 0)
		rc = cli_compile_objtmpl(x);
	if (rc == 0)
		rc = cli_check_repl(x);
	if (rc == 0)
		rc = build_cmdline(x, argc, orig);
	return rc;
}

/* A problem of the combination: say that the scenario took part. */
static void note_scenario(char *err, size_t errcap, const char *path)
{
	size_t l = err != NULL ? strlen(err) : 0;

	if (err != NULL && l + 1 < errcap)
		snprintf(err + l, errcap - l, " (with --scenario %s)", path);
	for (char *p = err; p != NULL && *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* The run goes ahead: stderr's notes, and a fresh seed unless one was given. */
static void announce(const struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	cli_warn_certdb(c);
	if (x->genldif_threads > 1)
		fprintf(stderr, "%s: -e genldif: -n %d ignored, one thread writes %s\n", c->progname,
		        x->genldif_threads, c->genldif_file);
	if (!c->seed_given)
		c->seed = ldb_rng_fresh_seed(); /* different from run to run, printed by -v and in records */
}

static enum ldb_cli_result parse_argv(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap,
                                      const struct scen_map *m)
{
	struct cli_ctx x = { .c = c, .err = err, .errcap = errcap };
	char **orig = NULL;
	int rc;

	if (err != NULL && errcap > 0)
		err[0] = '\0';
	set_progname(c, argc, argv);
	/* getopt_long permutes argv: keep the original order for the -v line */
	orig = malloc(sizeof(*orig) * (size_t)(argc > 0 ? argc : 1));
	x.pw_args = malloc(sizeof(*x.pw_args) * (size_t)(argc > 0 ? argc : 1));
	if (orig == NULL || x.pw_args == NULL) {
		free(orig);
		free(x.pw_args);
		cli_oom(&x);
		return LDB_CLI_ERROR;
	}
	for (int i = 0; i < argc; i++)
		orig[i] = argv[i];

	rc = read_options(&x, argc, argv, m);
	bool loop_ok = rc == 0; /* later problems come from the options together */

	if (rc == 0)
		rc = check_options(&x, argc, orig);
	if (rc < 0 && loop_ok && m != NULL)
		note_scenario(err, errcap, m->path);

	free(x.url_host);
	free(orig);
	free(x.pw_args);
	if (rc < 0)
		return x.init_error ? LDB_CLI_INIT_ERROR : LDB_CLI_ERROR;
	if (rc > 0)
		return LDB_CLI_EXIT_OK;
	announce(&x);
	return LDB_CLI_RUN;
}

int cli_parse_argv(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap, const struct scen_map *m)
{
	return (int)parse_argv(c, argc, argv, err, errcap, m);
}

bool cli_argv_asks_kind(int argc, char **argv)
{
	struct ldb_config c;
	char err[512];
	struct cli_ctx x = { .c = &c, .err = err, .errcap = sizeof err };
	bool asks = false;

	ldb_config_init(&c);
	c.progname = "ldbench";
	x.pw_args = malloc(sizeof(*x.pw_args) * (size_t)(argc > 0 ? argc : 1));
	if (x.pw_args != NULL) {
		(void)read_options(&x, argc, argv, NULL);
		asks = x.mix_given;
		for (int k = 0; k < LDB_OP_COUNT && !asks; k++)
			asks = ldb_op_given(&c, (enum ldb_op)k);
	}
	free(x.pw_args);
	free(x.url_host);
	ldb_config_free(&c);
	return asks;
}

enum ldb_cli_result ldb_cli_parse(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap)
{
	struct cli_ctx x = { .c = c, .err = err, .errcap = errcap };
	struct scen_map m = { 0 };
	char **margv = NULL;
	int margc = 0, rc;

	if (err != NULL && errcap > 0)
		err[0] = '\0';
	set_progname(c, argc, argv);
	if (argc < 2)
		return parse_argv(c, argc, argv, err, errcap, NULL);
	rc = cli_scenario_argv(&x, argc, argv, &margv, &margc, &m);
	enum ldb_cli_result r;
	if (rc < 0)
		return LDB_CLI_ERROR;
	if (rc > 0)
		return LDB_CLI_EXIT_OK;
	if (margv != NULL) {
		hide.defer = m.nwl > 0;
		r = parse_argv(c, margc, margv, err, errcap, &m);
		if (r == LDB_CLI_RUN && m.nwl > 0)
			r = (enum ldb_cli_result)cli_workloads_parse(c, &m, err, errcap);
		hide_deferred();
		if (m.nwl > 0)
			return r;
	} else {
		r = parse_argv(c, argc, argv, err, errcap, NULL);
	}
	if (r == LDB_CLI_RUN && c->start_after_ms > 0) { /* a workload's own start: only in a section */
		cli_fail(&x, "--start-after: a workload's own start, for a [workload NAME] section of a scenario file");
		return LDB_CLI_ERROR;
	}
	return r;
}
