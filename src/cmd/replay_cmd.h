/* `ldbench replay`: a server's access log (389 DS access log, OpenLDAP stats
 * log: logs/slog.h) read for what it holds.
 *
 *   ldbench replay --profile [--from TIME] [--to TIME] [--interval DURATION]
 *                  [--top N] [--json FILE] [--write-scenario FILE] LOG...
 *
 *   ldbench replay -H ldap[s]://HOST[:PORT] | -h HOST -p PORT [--starttls]
 *                  [--tls-cacert FILE] [--tls-insecure] [--tls-* ...] [--timing asap|recorded]
 *                  [--speed X] [--loop N] [--from TIME] [--to TIME]
 *                  [--password-map FILE] [--password-rule RULE]
 *                  [--default-password PW | --default-password-file FILE]
 *                  [--unmapped-binds skip|anonymous] [--writes skip|synthetic]
 *                  [--max-conns N] [--threads N] [--drain DURATION] [--json FILE] [--csv FILE]
 *                  [--html FILE] [--fail-if EXPR]... [--interval DURATION] LOG...
 *
 * --profile (report/logprofile.h) sends nothing, and writes a scenario from
 * the profile (--write-scenario); without it the log's operations are sent
 * to the target (cmd/replay_send, run/replay.h).
 *
 * TIME: @EPOCH[.FRACTION] (seconds, UTC), YYYY-MM-DDTHH:MM:SS[.FRACTION]
 * followed by Z or +HH:MM / -HH:MM (without either: the local time of TZ),
 * or +DURATION after the time of the log's first line (+30s, +2m).  The
 * window is [from, to).
 *
 * Exit status: 0 done; 1 the log (or its window) holds no operation (the
 * profile is still printed, no scenario is written; a replay sent nothing);
 * 4 a replay could open none of its connections; 10 a replay's --fail-if
 * held; 2 a bad command line, a
 * log that cannot be opened or is of no known format, or a read error part
 * way (the reader's line on stderr); 99 an output could not be written.
 */
#ifndef LDBENCH_CMD_REPLAY_H
#define LDBENCH_CMD_REPLAY_H

#include <stdio.h>

#include "conf/fail_if_types.h"
#include "report/logprofile.h"
#include "run/replay.h"
#include "util/optable.h"

/* The ids of the replay's options (ldb_replay_options, cmd/replay.c). */
enum {
	RP_HELP,
	RP_PROFILE,
	RP_URI,
	RP_HOST,
	RP_PORT,
	RP_STARTTLS,
	RP_TLS_CACERT,
	RP_TLS_CACERTDIR,
	RP_TLS_CERT,
	RP_TLS_KEY,
	RP_TLS_MIN,
	RP_TLS_CIPHERS,
	RP_TLS_RESUME,
	RP_TLS_LIBRARY,
	RP_TLS_INSECURE,
	RP_LDCLT_TLS,
	RP_TIMING,
	RP_SPEED,
	RP_LOOP,
	RP_PASSWORD_MAP,
	RP_PASSWORD_RULE,
	RP_DEFAULT_PASSWORD,
	RP_DEFAULT_PASSWORD_FILE,
	RP_UNMAPPED_BINDS,
	RP_WRITES,
	RP_AUDIT_LOG,
	RP_MAX_CONNS,
	RP_THREADS,
	RP_DRAIN,
	RP_CSV,
	RP_HTML,
	RP_FAIL_IF,
	RP_METRICS_LISTEN,
	RP_METRICS_LINGER,
	RP_METRICS_PUSH,
	RP_INTERVAL,
	RP_TOP,
	RP_WRITE_SCENARIO,
	RP_FROM,
	RP_TO,
	RP_JSON,
	RP_NOPTS
};

/* The sending replay's options (cmd/replay_send). */
struct replay_send_args {
	bool any; /* an option of the sending replay was given */
	/* the target (conf/target.h): -H ldap[s]://, or -h and -p; --starttls and
	 * the load's --tls-* options (docs/ldbench.1) */
	struct ldb_target target;
	enum ldb_rp_timing timing;
	double speed;
	unsigned loops, max_conns, threads;
	int64_t drain_ns;
	enum ldb_rp_writes writes;
	enum ldb_rp_unmapped unmapped;
	struct ldb_rp_pw *pw;
	const char *audit[64]; /* --audit-log FILE, each time given */
	size_t naudit;
	const char *tls_opt; /* the first --tls-* option given, for the checks */
	/* the run's result files and verdict (docs/results.md) */
	const char *csv, *html;
	int64_t sample_ns;                /* --interval with a target: the samples' interval (0: none) */
	struct ldb_threshold fail_if[16]; /* --fail-if, the replay's form (cli/fail_if.h) */
	int nfail_if;
	/* --metrics-listen, --metrics-linger, --metrics-push (docs/metrics.md), NULL when not given */
	const char *metrics_listen, *metrics_linger, *metrics_push;
};

/** A valueless option of the sending replay (--starttls, --tls-insecure,
 *  --tls-resume), its id and its name o.  @return true when it is one. */
bool ldb_replay_send_flag(struct replay_send_args *a, int id, const char *o);

/** One option of the sending replay: its id, its name o (kept for the
 *  messages) and value v.  @return 0, 1 not one of them, 2 bad (said on stderr). */
int ldb_replay_send_opt(struct replay_send_args *a, int id, const char *o, const char *v);
/* The command's options (--help, the parse, ldbench --dump-options). */
extern const struct ldb_opt ldb_replay_options[];

/** The replay itself, its report on stdout (and --json).  @return the exit status. */
int ldb_replay_send_main(struct replay_send_args *a, const char *const *logs, int nlogs, int64_t from_ns, int64_t to_ns,
                         int64_t from_rel, int64_t to_rel, const char *json);

/** Entry point: argv[0] is "replay".  @return the exit status. */
int ldb_replay_main(int argc, char **argv);

/** Write the profile as an ldbench scenario file to out (logs names the
 *  log in its comments).  @return 0, or -1 with one line in err (nothing in
 *  the profile that a scenario can run). */
int ldb_replay_write_scenario(const struct ldb_lprof *p, const char *logs, FILE *out, char *err, size_t cap);

#endif
