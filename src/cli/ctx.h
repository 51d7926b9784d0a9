/* What the command line's modules share (private to src/cli/): the parser's
 * state, the one-line error, the option ids and tables, and each module's
 * entry points.  The public entry is cli/cli.h. */
#ifndef LDBENCH_CLI_CTX_H
#define LDBENCH_CLI_CTX_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "conf/config.h"
#include "util/optable.h"

/* Parser state that does not belong in the config. */
struct cli_ctx {
	struct ldb_config *c;
	char *err;
	size_t errcap;
	bool port_given;
	bool low_given, high_given; /* -r, -R */
	bool random_seen, incr_seen;
	bool pw_from_w, pw_from_y;
	bool attrlist_seen;
	char *url_host; /* from -H, applied after the loop */
	int url_port;
	bool url_given, url_ldaps;
	const char *tls_opt;  /* the first --tls-* option given */
	const char **pw_args; /* argv text of each -w value, to mask */
	int npw_args;
	bool threads_given;   /* -n */
	int genldif_threads;  /* -n given with genldif (> 1): noted on stderr */
	const char *class_kw; /* the first of person/emailPerson/inetOrgPerson */
	bool mix_given;
	int mix[LDB_OP_COUNT]; /* --mix's weights, the config's once checked */
	bool init_error;       /* the failure is an unusable input file: exit 7 (ldclt) */
	/* --listen-kind, --listen-wait given (cli/listen_options.c) */
	bool listen_kind_given, listen_wait_given;
};

/* The ids getopt_long returns for the long options (short ones are their character). */
enum {
	OPT_HELP = 256,
	OPT_VERSION,
	OPT_INTERVAL,
	OPT_SEED,
	OPT_CONNS,
	OPT_IO_THREADS,
	OPT_WARMUP,
	OPT_DURATION,
	OPT_RATE,
	OPT_SWEEP,
	OPT_MONITOR,
	OPT_FAIL_IF,
	OPT_START_AT,
	OPT_JSON,
	OPT_CSV,
	OPT_MODIFY,
	OPT_COMPARE,
	OPT_DELETE_AFTER_ADD,
	OPT_NEW_PARENT,
	OPT_MIX,
	OPT_SCENARIO,
	OPT_LIST_SCENARIOS,
	/* result files beyond --json and --csv */
	OPT_HDR_LOG,
	OPT_HTML,
	OPT_OP_LOG,
	OPT_SERVER_LOG,
	OPT_SERVER_LOG_WAIT
};

enum {
	OPT_STARTTLS = 512,
	OPT_TLS_CACERT,
	OPT_TLS_CACERTDIR,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_TLS_MIN,
	OPT_TLS_CIPHERS,
	OPT_TLS_INSECURE,
	OPT_TLS_RESUME,
	OPT_TLS_LIBRARY
};

/* --no-preflight, and a scenario's dataset parameters (--set, --dataset) */
enum { OPT_NO_PREFLIGHT = 768, OPT_SET, OPT_DATASET };
/* The capacity options (cli/capacity.c, docs/capacity.md). */
enum {
	OPT_FIND_MAX = 800,
	OPT_FIND_MAX_TOLERANCE,
	OPT_FIND_MAX_STEPS,
	OPT_FIND_MAX_START,
	OPT_RATE_PROFILE,
	OPT_RAMP_UP,
	OPT_START_AFTER, /* a workload's own start ([workload] sections, cli/workloads.c) */
	OPT_CAPACITY_END
};
/* The live metrics' options (cli/metrics_options.c, docs/metrics.md). */
enum { OPT_METRICS_LISTEN = 896, OPT_METRICS_LINGER, OPT_METRICS_PUSH, OPT_METRICS_END };
/* Held connections' options (cli/held_options.c, docs/guide.md "Held connections"). */
enum { OPT_HELD = 928, OPT_PROBE_EVERY, OPT_CONNECT_RATE, OPT_SOURCE_ADDRESS, OPT_HELD_END };
/* The listeners' options (cli/listen_options.c, docs/guide.md "Listeners"). */
enum {
	OPT_LISTENERS = 992,
	OPT_LISTEN_KIND,
	OPT_LISTEN_BASE,
	OPT_LISTEN_FILTER,
	OPT_LISTEN_WAIT,
	OPT_LISTEN_PAUSE,
	OPT_LISTENERS_BASELINE,
	OPT_LISTEN_RECORD,
	OPT_LISTEN_ATTR,
	OPT_WRITE_RECORD,
	OPT_LISTEN_END
};
/* The replication check's long options (cli/repl_options.c). */
enum { OPT_REPL_SAMPLE = 832, OPT_REPL_TIMEOUT, OPT_REPL_BIND, OPT_REPL_BIND_PWFILE };
/* The extended operations' long options (cli/extop_options.c). */
enum { OPT_PASSMOD = 864, OPT_PASSMOD_USER, OPT_PASSMOD_OLD, OPT_PASSMOD_NEW, OPT_WHOAMI, OPT_EXTENDED, OPT_EXTOP_END };
/* The login flow's long options (cli/extop_options.c, ops/login.c). */
enum {
	OPT_LOGIN = 960,
	OPT_LOGIN_PASSWORD,
	OPT_LOGIN_PASSWORD_ATTR,
	OPT_LOGIN_GROUPS,
	OPT_BAD_PASSWORD,
	OPT_THINK_TIME,
	OPT_LOGIN_END
};
/* A general flow's options (cli/flow_options.c, ops/flow.c). */
enum { OPT_FLOW = 1056, OPT_STEP, OPT_FLOW_END };
/* The request controls' options (cli/control_options.c). */
enum {
	OPT_CONTROL = OPT_EXTOP_END,
	OPT_SORT_ORDER,
	OPT_ASSERTION_FILTER,
	OPT_PROXY_AS,
	OPT_PRE_READ,
	OPT_POST_READ,
	OPT_PERMISSIVE_MODIFY,
	OPT_MANAGE_DSA_IT,
	OPT_SUBENTRIES,
	OPT_SESSION_TRACKING,
	OPT_SIMPLE_PAGE_SIZE,
	OPT_PPOLICY,
	OPT_CONTROLS_END
};

/* Where the options of a merged argv come from (--scenario): argv[1..nfile]
 * are the file's words, line_of[i] the file line of argv[i]. */
struct scen_wl {
	const char *name; /* its section's name */
	char **argv;      /* the file's common options, its section's, then the command line's */
	int argc;
	const int *line_of; /* file line of argv[1..nfile] */
	int nfile;
};
struct scen_map {
	const char *path;
	const int *line_of;
	int nfile;
	/* [workload NAME] sections (cli/scenario_merge.c): each workload's merged
	 * argv, --fail-if's values taken out of them (cli/workloads.c parses those
	 * once, for the run: a threshold may name a workload); none without */
	const struct scen_wl *wl;
	int nwl;
	const char *const *fail_if;
	int nfail_if;
};
/* cli/options.c: parse one merged argv into c (every check); the sections' parse
 * (cli/workloads.c) calls it per workload.  @return enum ldb_cli_result */
int cli_parse_argv(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap, const struct scen_map *m);
/* cli/options.c: the options argv[1..argc) ask for an operation kind (read into a
 * throwaway configuration, nothing checked, nothing printed) */
bool cli_argv_asks_kind(int argc, char **argv);
/* cli/workloads.c: the sections' configurations into c->wl, the --fail-if values
 * into c (a workload prefix resolved).  @return enum ldb_cli_result */
int cli_workloads_parse(struct ldb_config *c, const struct scen_map *m, char *err, size_t errcap);

/* ctx.c: messages, strings, strict numbers, DN checks */

/* Write "progname: <message>" into err, one line: control characters that a
 * user's value may carry (a newline in -f, say) become '?'.  @return -1. */
__attribute__((format(printf, 2, 3))) int cli_fail(struct cli_ctx *x, const char *fmt, ...);
int cli_oom(struct cli_ctx *x);
/* --think-time given: its exclusions, and the run's rate from it (cli/extop_options.c) */
int cli_check_think(struct cli_ctx *x);
/* cli_fail for an input file that cannot be used (missing, unreadable,
 * empty, or genldif's existing file): ldclt's "Cannot initialize", exit 7. */
#define cli_init_fail(x, ...) ((x)->init_error = true, cli_fail((x), __VA_ARGS__))
/* Replace *dst with a copy of s. */
int cli_set_str(struct cli_ctx *x, char **dst, const char *s);
/* Parse the value of option `opt` (sep ' ' for a flag, '=' for a -e keyword)
 * into [min, max]; `what` names the setting in the message (util/num.h). */
int cli_parse_num(struct cli_ctx *x, const char *opt, char sep, const char *arg, long long min, long long max,
                  const char *what, long long *out);
int cli_parse_int(struct cli_ctx *x, const char *opt, const char *arg, long long min, long long max, const char *what,
                  int *out);
bool cli_dn_is_valid(const char *dn);
/* ldap_str2dn: exactly one RDN of one attribute=value. */
bool cli_rdn_is_valid(const char *s, size_t len);

/* repl.c: -S, -P and the --repl-* options; their checks once all are read */
int cli_handle_repl_option(struct cli_ctx *x, int opt, const char *arg);
int cli_check_repl(struct cli_ctx *x);

/* extop_options.c: --passmod, --passmod-*, --whoami, --extended */
int cli_handle_extop_option(struct cli_ctx *x, int opt, const char *arg);
/* flow_options.c: --flow NAME, --step SPEC */
int cli_flow_option(struct cli_ctx *x, int opt, const char *arg);

/* option_table.c: the load's options, one row each (util/optable.h) */
extern const struct ldb_opt cli_options[];
#define CLI_MAX_OPTIONS 160 /* long options of cli_options, at most */

/* options.c: getopt_long's arrays, built from cli_options at the first call */
void cli_option_tables(void);
const struct option *cli_long_options(void);
const char *cli_short_options(void);
/* The long name of id ("?" when none). */
const char *cli_long_name(int val);

/* keywords.c: -e and the write kinds' option values */
int cli_parse_exec(struct cli_ctx *x, const char *arg);
int cli_parse_modify(struct cli_ctx *x, const char *arg);
int cli_parse_compare(struct cli_ctx *x, const char *arg);
int cli_parse_mix(struct cli_ctx *x, const char *arg);

/* inputs.c: files read at start-up */
int cli_read_password_file(struct cli_ctx *x, const char *path);
int cli_load_binddn_file(struct cli_ctx *x, const char *path);
/* attreplacefile=ATTR:FILE's FILE, read whole (the attribute is already set). */
int cli_load_attrfile(struct cli_ctx *x, const char *path);
bool cli_template_has_noloop(const struct ldb_config *c);
int cli_compile_objtmpl(struct cli_ctx *x);

/* checks.c: patterns and cross-checks, after the options are read */
int cli_check_range_given(struct cli_ctx *x, const char *kw, long long lo, long long hi, const char *lo_name,
                          const char *hi_name);
int cli_prepare_write(struct cli_ctx *x);
int cli_compile_patterns(struct cli_ctx *x);
int cli_cross_check(struct cli_ctx *x);

/* keywords.c: what -e string, ascii, v2, deref, imagesdir and referral=rebind
 * need, and what excludes them */
int cli_check_keyword_needs(struct cli_ctx *x);
/* -e scalab01's checks and forced settings (cli/keywords.c); before the others */
int cli_check_scalab01(struct cli_ctx *x);
/* capacity.c: --find-max, --rate-profile, --ramp-up, and their checks */
int cli_capacity_option(struct cli_ctx *x, int opt, const char *arg);
int cli_capacity_check(struct cli_ctx *x);
/* metrics_options.c: --metrics-listen, --metrics-linger, and their checks */
int cli_metrics_option(struct cli_ctx *x, int opt, const char *arg);
int cli_metrics_check(struct cli_ctx *x);
/* held_options.c: --held, --probe-every, --connect-rate, --source-address, and their checks */
int cli_held_option(struct cli_ctx *x, int opt, const char *arg);
int cli_held_check(struct cli_ctx *x);
int cli_listen_option(struct cli_ctx *x, int opt, const char *arg);
int cli_listen_check(struct cli_ctx *x);

/* controls.c: the request controls' options, and their checks once the
 * run's kinds are known */
int cli_control_option(struct cli_ctx *x, int opt, const char *arg);
int cli_check_controls(struct cli_ctx *x);
/* tls_sasl.c: TLS and SASL options and their checks */
int cli_handle_tls_option(struct cli_ctx *x, int opt, const char *name, const char *arg);
int cli_parse_sasl_opt(struct cli_ctx *x, const char *arg);
int cli_check_tls_sasl(struct cli_ctx *x);
void cli_warn_certdb(const struct ldb_config *c);

/* scenario_merge.c: --scenario and --list-scenarios, before the parse.
 * @return 0 (*margv set when a scenario was merged), 1 (listed: exit 0) or -1. */
int cli_scenario_argv(struct cli_ctx *x, int argc, char **argv, char ***margv, int *margc, struct scen_map *m);

#endif
