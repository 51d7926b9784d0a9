/* `ldbench replay` (replay.h): the command line, the reading loop and the
 * profile's outputs. */
#include "cmd/replay_cmd.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/argv.h"
#include "util/num.h"

#define PROG "ldbench replay"
#define LATE_NS (60 * INT64_C(1000000000)) /* read on this long past --to */

struct replay_args {
	bool profile;
	const char *from, *to;
	int64_t from_ns, to_ns;   /* absolute, or INT64_MIN/INT64_MAX */
	int64_t from_rel, to_rel; /* +DURATION after the first line (ns), -1 */
	int64_t interval_ns;
	bool interval_given;
	int top;
	const char *json, *scenario;
	struct replay_send_args send;
};

#define TLS_AS_LOAD "as a load's (ldbench --help)"

/* The command's options (util/optable.h): the parse and --help's lines. */
const struct ldb_opt ldb_replay_options[] = {
	{ "help", 0, NULL, RP_HELP, NULL, NULL },
	{ NULL, 'H', "ldap[s]://HOST[:PORT]", RP_URI, "the target (ldaps: TLS from the first byte, port 636)", NULL },
	{ NULL, 'h', "HOST", RP_HOST, "the target's host, ldap", NULL },
	{ NULL, 'p', "PORT", RP_PORT, "the target's port, ldap", NULL },
	{ "starttls", 0, NULL, RP_STARTTLS, "StartTLS on each connection before the log's requests", NULL },
	{ "tls-cacert", 0, "FILE", RP_TLS_CACERT, TLS_AS_LOAD, NULL },
	{ "tls-cacertdir", 0, "DIR", RP_TLS_CACERTDIR, TLS_AS_LOAD, NULL },
	{ "tls-cert", 0, "FILE", RP_TLS_CERT, TLS_AS_LOAD, NULL },
	{ "tls-key", 0, "FILE", RP_TLS_KEY, TLS_AS_LOAD, NULL },
	{ "tls-min", 0, "1.2|1.3", RP_TLS_MIN, TLS_AS_LOAD, NULL },
	{ "tls-ciphers", 0, "LIST", RP_TLS_CIPHERS, TLS_AS_LOAD, NULL },
	{ "tls-resume", 0, NULL, RP_TLS_RESUME, TLS_AS_LOAD, NULL },
	{ "tls-library", 0, "openssl|gnutls", RP_TLS_LIBRARY, TLS_AS_LOAD, NULL },
	{ "tls-insecure", 0, NULL, RP_TLS_INSECURE,
	  "no verification (a warning says so); without it the server\n"
	  "certificate and its name are verified (a connection that\n"
	  "fails it sends nothing: no password to an unverified server)",
	  NULL },
	{ NULL, 'Z', "FILE", RP_LDCLT_TLS, "refused (ldclt's ldaps verifies nothing): -H ldaps://", NULL },
	{ "timing", 0, "asap|recorded", RP_TIMING,
	  "asap (default): as fast as the target answers, with the\n"
	  "recorded connections; recorded: each operation at its\n"
	  "recorded offset (open loop, latency from that time)",
	  NULL },
	{ "speed", 0, "X", RP_SPEED, "recorded timing X times as fast (2, x2, 0.5)", NULL },
	{ "loop", 0, "N", RP_LOOP, "the window N times", NULL },
	{ "password-map", 0, "FILE", RP_PASSWORD_MAP,
	  "DN<TAB>password lines (DN case-insensitive, spaces after\n"
	  "commas ignored)",
	  NULL },
	{ "password-rule", 0, "RULE", RP_PASSWORD_RULE,
	  "REGEX=REPLACEMENT on the DN (\\1..\\9), or 'ldbench': the\n"
	  "password of `ldbench gen users` (the uid)",
	  NULL },
	{ "default-password", 0, "PW", RP_DEFAULT_PASSWORD, "the password of any other DN (never printed)", NULL },
	{ "default-password-file", 0, "FILE", RP_DEFAULT_PASSWORD_FILE, "the same, from FILE's first line", NULL },
	{ "unmapped-binds", 0, "skip|anonymous", RP_UNMAPPED_BINDS,
	  "a bind DN without password: not sent (default), or sent\n"
	  "as an anonymous bind",
	  NULL },
	{ "writes", 0, "skip|synthetic", RP_WRITES,
	  "adds and modifies (the log has no content): not sent\n"
	  "(default), or sent with the synthetic content of\n"
	  "docs/replay.md",
	  NULL },
	{ "audit-log", 0, "FILE", RP_AUDIT_LOG,
	  "the server's audit log (389 DS audit log, OpenLDAP's\n"
	  "auditlog overlay; repeat for a rotated set): each write\n"
	  "sent with its recorded content; a write without one\n"
	  "falls back to --writes",
	  NULL },
	{ "max-conns", 0, "N", RP_MAX_CONNS, "replay connections open at once, per thread (default\n512)", NULL },
	{ "threads", 0, "N", RP_THREADS,
	  "sender threads (default 1, at most 64): the recorded\n"
	  "connections spread over them by number",
	  NULL },
	{ "drain", 0, "DURATION", RP_DRAIN,
	  "the longest wait (default 10s): for a closing\n"
	  "connection's answers, for those a request waits for,\n"
	  "for a connection's set-up; then they are given up",
	  NULL },
	{ "csv", 0, "FILE", RP_CSV, "the run's CSV rows (docs/results.md)", NULL },
	{ "html", 0, "FILE", RP_HTML, "the run's HTML report (docs/results.md)", NULL },
	{ "metrics-listen", 0, "[ADDR:]PORT", RP_METRICS_LISTEN,
	  "live metrics for Prometheus, as the load's (docs/metrics.md)", NULL },
	{ "metrics-linger", 0, "DURATION", RP_METRICS_LINGER, "the endpoint kept up after the run", NULL },
	{ "metrics-push", 0, "URL", RP_METRICS_PUSH, "the metrics pushed to a Pushgateway", NULL },
	{ "fail-if", 0, "EXPR", RP_FAIL_IF,
	  "exit 10 when EXPR holds at the end (repeatable): a run's\n"
	  "[KIND.]METRIC OP VALUE, METRIC rate, errors, differ,\n"
	  "min, mean, p50 .. p99.9, max (no KIND: every kind),\n"
	  "skipped, or late.LATENCY: 'differ>0', 'search.p99>5ms',\n"
	  "'late.p99>10ms'",
	  NULL },
	{ "profile", 0, NULL, RP_PROFILE, "the profile, sending nothing:", NULL },
	{ "interval", 0, "DURATION", RP_INTERVAL,
	  "the time series' interval (default 1s; doubled as needed\n"
	  "to keep at most 4096 of them); with a target: the run's\n"
	  "sample lines and records every DURATION",
	  NULL },
	{ "top", 0, "N", RP_TOP, "entries of each top table (1..256, default 10)", NULL },
	{ "write-scenario", 0, "FILE", RP_WRITE_SCENARIO,
	  "an ldbench scenario of the profile (--mix, --rate-profile,\n"
	  "-f, -b, -s, -n; docs/replay.md)",
	  NULL },
	{ "from", 0, "TIME", RP_FROM,
	  "the window [from, to): @EPOCH[.F], YYYY-MM-DDTHH:MM:SS[.F]\n"
	  "[Z|+HH:MM] (no zone: local time), or +DURATION after the\n"
	  "log's first line (+30s)",
	  "Both:\n" },
	{ "to", 0, "TIME", RP_TO, "the window's end, as --from", NULL },
	{ "json", 0, "FILE", RP_JSON,
	  "the replay: the run's JSON records (header, summary\n"
	  "with the report as \"replay\"); the profile: one JSON\n"
	  "object (- = stdout; the text then goes to stderr)",
	  NULL },
	LDB_OPT_END
};

static void usage(FILE *out)
{
	fputs("usage: ldbench replay -H ldap[s]://HOST[:PORT] | -h HOST -p PORT [options] LOG...\n"
	      "       ldbench replay --profile [--from TIME] [--to TIME] [--interval DURATION]\n"
	      "                      [--top N] [--json FILE] [--write-scenario FILE] LOG...\n"
	      "A server's access log (389 DS access logs, OpenLDAP stats logs in slapd's own\n"
	      "format or syslog's; rotated sets, .gz) sent to a target: each recorded\n"
	      "connection a connection, its operations in recorded order, pipelined where the\n"
	      "log shows it; at the end the fidelity report (replayed per kind, not sent per\n"
	      "reason with the first log lines, results that differ from the recorded ones,\n"
	      "latencies, lateness against the schedule).  --profile sends nothing.\n",
	      out);
	ldb_opt_help(ldb_replay_options, 25, 25, out);
	fputs("Options may come anywhere on the line (GNU style); -- ends them.\n"
	      "Exit status: 0 done, 1 no operation in the log or window, 2 bad command line or\n"
	      "a log that cannot be read (before any connection), 4 no connection could be\n"
	      "opened, 5 the target answered with bytes that are not LDAP, 10 a --fail-if\n"
	      "held, 99 write error.  See docs/replay.md.\n",
	      out);
}

/* "Z", "+HH:MM", "-HHMM", "+HH" after an ISO time: seconds east.  @return 0 or -1. */
static int zone_offset(const char *z, long *east)
{
	int sign = z[0] == '+' ? 1 : z[0] == '-' ? -1 : 0;
	unsigned hh = 0, mm = 0;
	char c;
	if (strcmp(z, "Z") == 0) {
		*east = 0;
		return 0;
	}
	if (sign == 0)
		return -1;
	if (sscanf(z + 1, "%2u:%2u%c", &hh, &mm, &c) != 2 && sscanf(z + 1, "%2u%2u%c", &hh, &mm, &c) != 2 &&
	    !(strlen(z) == 3 && sscanf(z + 1, "%2u%c", &hh, &c) == 1))
		return -1;
	if (hh > 23 || mm > 59)
		return -1;
	*east = sign * (long)(hh * 3600 + mm * 60);
	return 0;
}

/* A digit run after '.' as nanoseconds.  @return where it ends. */
static const char *fraction_ns(const char *s, int64_t *ns)
{
	int64_t scale = 100000000;
	*ns = 0;
	for (; *s >= '0' && *s <= '9'; s++, scale /= 10)
		*ns += scale * (*s - '0');
	return s;
}

/* TIME (replay.h) into *abs_ns, or *rel_ns for +DURATION.  @return 0 or -1. */
static int parse_time(const char *arg, int64_t *abs_ns, int64_t *rel_ns)
{
	int64_t frac = 0;
	if (arg[0] == '+') {
		uint64_t ms;
		if (ldb_parse_duration_ms(arg + 1, &ms) != 0 || ms > INT64_MAX / 1000000)
			return -1;
		*rel_ns = (int64_t)ms * 1000000;
		return 0;
	}
	if (arg[0] == '@') {
		char *end;
		errno = 0;
		long long s = strtoll(arg + 1, &end, 10);
		if (end == arg + 1 || errno || s < 0 || s > INT64_MAX / 1000000000 - 1)
			return -1;
		if (*end == '.')
			end = (char *)fraction_ns(end + 1, &frac);
		if (*end != '\0')
			return -1;
		*abs_ns = s * 1000000000 + frac;
		return 0;
	}
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *end = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL)
		return -1;
	if (*end == '.')
		end = fraction_ns(end + 1, &frac);
	long east = 0;
	time_t t;
	if (*end == '\0') {
		tm.tm_isdst = -1;
		t = mktime(&tm);
	} else if (zone_offset(end, &east) == 0) {
		t = timegm(&tm) - east;
	} else {
		return -1;
	}
	if (t == (time_t)-1)
		return -1;
	*abs_ns = (int64_t)t * 1000000000 + frac;
	return 0;
}

/* "--name" or "-x" of each row, kept for the run's messages (tls_opt). */
static const char *word_of(const struct ldb_opt *o)
{
	static char words[RP_NOPTS][32];
	char *w = words[o->id];
	if (w[0] == '\0' && o->name != NULL)
		snprintf(w, sizeof words[0], "--%s", o->name);
	else if (w[0] == '\0')
		snprintf(w, sizeof words[0], "-%c", o->letter);
	return w;
}

/* One valued option into x.  @return 0, or 2 bad (said). */
static int valued_opt(struct replay_args *x, const struct ldb_opt *row, const char *v)
{
	const char *o = word_of(row);
	if (v == NULL || v[0] == '\0') {
		fprintf(stderr, PROG ": %s needs a value (see --help)\n", o);
		return 2;
	}
	if (row->id == RP_FROM || row->id == RP_TO) {
		bool from = row->id == RP_FROM;
		*(from ? &x->from : &x->to) = v;
		if (parse_time(v, from ? &x->from_ns : &x->to_ns, from ? &x->from_rel : &x->to_rel) != 0) {
			fprintf(stderr,
			        PROG
			        ": %s '%s': not a time (@EPOCH, YYYY-MM-DDTHH:MM:SS[.F][Z|+HH:MM], or +DURATION)\n",
			        o, v);
			return 2;
		}
	} else if (row->id == RP_INTERVAL) {
		uint64_t ms;
		if (ldb_parse_duration_ms(v, &ms) != 0 || ms == 0 || ms > 86400000ULL * 365) {
			fprintf(stderr, PROG ": --interval '%s': not a duration above 0 (1s, 500ms, 1m)\n", v);
			return 2;
		}
		x->interval_ns = (int64_t)ms * 1000000;
		x->interval_given = true;
	} else if (row->id == RP_TOP) {
		long long n;
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 256) {
			fprintf(stderr, PROG ": --top '%s': not a number in 1..256\n", v);
			return 2;
		}
		x->top = (int)n;
	} else if (row->id == RP_JSON) {
		x->json = v;
	} else if (row->id == RP_WRITE_SCENARIO) {
		x->scenario = v;
	} else {
		int rc = ldb_replay_send_opt(&x->send, row->id, o, v);
		if (rc == 1) /* a row without its handler */
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
		if (rc != 0)
			return 2;
	}
	return 0;
}

/* @return -1 to go on, else the exit status (--help, a bad option). */
static int parse_args(int argc, char **argv, struct replay_args *x, struct ldb_argv *a)
{
	*x = (struct replay_args){ .from_ns = INT64_MIN,
		                   .to_ns = INT64_MAX,
		                   .from_rel = -1,
		                   .to_rel = -1,
		                   .interval_ns = 1000000000,
		                   .top = 10 };
	if (ldb_argv_sort(argc, argv, ldb_replay_options, false, a) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	for (int i = 0; i < a->nopt; i++) {
		const char *o = a->opt[i], *v;
		const struct ldb_opt *row;
		enum ldb_argv_got got = ldb_argv_next(a, &i, ldb_replay_options, &row, &v);
		if (got == LDB_ARGV_UNKNOWN) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			return 2;
		}
		if (got == LDB_ARGV_NOT_VALUED) {
			fprintf(stderr, PROG ": --%s takes no value\n", row->name);
			return 2;
		}
		/* -h alone at the end: --help (elsewhere -h HOST) */
		if (row->id == RP_HELP || (row->id == RP_HOST && got == LDB_ARGV_NO_VALUE)) {
			usage(stdout);
			return 0;
		}
		if (row->id == RP_PROFILE)
			x->profile = true;
		else if (!ldb_opt_valued(row))
			ldb_replay_send_flag(&x->send, row->id, word_of(row));
		else if (valued_opt(x, row, v) != 0)
			return 2;
	}
	return -1;
}

/* What the options cannot be together.  @return -1 to go on, else 2 (said). */
static int check_args(const struct replay_args *x, const struct ldb_argv *a)
{
	if (a->narg == 0) {
		fprintf(stderr, PROG ": no log given (usage: ldbench replay [--profile] [options] LOG...)\n");
		return 2;
	}
	if (x->profile && x->send.any) {
		fprintf(stderr, PROG ": --profile sends nothing: the target and the replay's options go without it\n");
		return 2;
	}
	if (!x->profile && x->scenario) {
		fprintf(stderr, PROG ": --write-scenario goes with --profile\n");
		return 2;
	}
	if (x->from_rel < 0 && x->to_rel < 0 && x->from_ns != INT64_MIN && x->to_ns != INT64_MAX &&
	    x->from_ns >= x->to_ns) {
		fprintf(stderr, PROG ": --from %s is not before --to %s\n", x->from, x->to);
		return 2;
	}
	if (x->from_rel >= 0 && x->to_rel >= 0 && x->from_rel >= x->to_rel) {
		fprintf(stderr, PROG ": --from %s is not before --to %s\n", x->from, x->to);
		return 2;
	}
	if (x->json && x->scenario && strcmp(x->json, x->scenario) == 0 && strcmp(x->json, "-") != 0) {
		fprintf(stderr, PROG ": --json and --write-scenario name the same file '%s'\n", x->json);
		return 2;
	}
	return -1;
}

/* A +DURATION bound, once the first line's time is known. */
static void resolve_rel(struct ldb_lprof *p, const struct replay_args *x, int64_t first_ns)
{
	if (x->from_rel >= 0)
		p->from_ns = first_ns + x->from_rel;
	if (x->to_rel >= 0)
		p->to_ns = first_ns + x->to_rel;
}

/* Read every event into p.  @return 0, or the exit status (said). */
static int read_log(struct ldb_slog *r, struct ldb_lprof *p, const struct replay_args *x)
{
	struct ldb_slog_event ev;
	bool first = true;
	int rc;
	while ((rc = ldb_slog_next(r, &ev)) == 1) {
		if (ev.kind == LDB_SLOG_SKIP)
			continue;
		if (first) {
			resolve_rel(p, x, ev.time_ns);
			first = false;
		}
		if (ldb_lprof_event(p, &ev) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return 99;
		}
		if (p->to_ns != INT64_MAX && ev.time_ns > p->to_ns && ev.time_ns - p->to_ns > LATE_NS)
			break;
	}
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", ldb_slog_error(r));
		return 2;
	}
	return 0;
}

static int write_json(const struct ldb_lprof *p, struct ldb_slog *r, const struct replay_args *x,
                      const struct ldb_argv *a)
{
	FILE *f = strcmp(x->json, "-") == 0 ? stdout : fopen(x->json, "w");
	if (f == NULL) {
		fprintf(stderr, PROG ": --json %s: cannot create: %s\n", x->json, strerror(errno));
		return 99;
	}
	int rc = ldb_lprof_json(p, ldb_slog_stats(r), ldb_slog_format(r), a->arg, a->narg, f);
	if ((f == stdout ? fflush(f) : fclose(f)) != 0)
		rc = -1;
	if (rc != 0) {
		fprintf(stderr, PROG ": writing --json %s failed\n", x->json);
		return 99;
	}
	return 0;
}

static int write_scenario(const struct ldb_lprof *p, const struct replay_args *x, const struct ldb_argv *a)
{
	char err[300], logs[300];
	snprintf(logs, sizeof logs, "%s%s", a->arg[0], a->narg > 1 ? " ..." : "");
	FILE *f = strcmp(x->scenario, "-") == 0 ? stdout : fopen(x->scenario, "w");
	if (f == NULL) {
		fprintf(stderr, PROG ": --write-scenario %s: cannot create: %s\n", x->scenario, strerror(errno));
		return 99;
	}
	int rc = ldb_replay_write_scenario(p, logs, f, err, sizeof err);
	int wrc = f == stdout ? fflush(f) : fclose(f);
	if (rc != 0) {
		fprintf(stderr, PROG ": --write-scenario %s: %s\n", x->scenario, err);
		if (f != stdout)
			remove(x->scenario);
		return 1;
	}
	if (wrc != 0) {
		fprintf(stderr, PROG ": writing --write-scenario %s failed\n", x->scenario);
		return 99;
	}
	return 0;
}

static int profile(const struct replay_args *x, const struct ldb_argv *a)
{
	char err[600];
	struct ldb_slog *r = ldb_slog_open((const char *const *)a->arg, (size_t)a->narg, NULL, err, sizeof err);
	if (r == NULL) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	struct ldb_lprof p;
	int st = ldb_lprof_init(&p, x->from_ns, x->to_ns, x->interval_ns, x->top) != 0 ? 99 : 0;
	if (st != 0)
		fprintf(stderr, PROG ": out of memory\n");
	if (st == 0)
		st = read_log(r, &p, x);
	if (st == 0) {
		FILE *out = x->json && strcmp(x->json, "-") == 0 ? stderr : stdout;
		ldb_lprof_text(&p, ldb_slog_stats(r), ldb_slog_format(r), out);
		if (fflush(out) != 0)
			st = 99;
		if (st == 0 && x->json)
			st = write_json(&p, r, x, a);
		if (st == 0 && p.requests == 0) {
			fprintf(stderr, PROG ": no operation in the log%s\n",
			        x->from || x->to ? " between --from and --to" : "");
			st = 1;
		}
		if (st == 0 && x->scenario)
			st = write_scenario(&p, x, a);
	}
	ldb_lprof_free(&p);
	ldb_slog_close(r);
	return st;
}

int ldb_replay_main(int argc, char **argv)
{
	struct replay_args x;
	struct ldb_argv a = { 0 };
	int st = parse_args(argc, argv, &x, &a);
	if (st < 0)
		st = check_args(&x, &a);
	if (st < 0 && !x.profile && x.interval_given)
		x.send.sample_ns = x.interval_ns; /* a replay's samples */
	if (st < 0 && x.profile)
		st = profile(&x, &a);
	else if (st < 0)
		st = ldb_replay_send_main(&x.send, (const char *const *)a.arg, a.narg, x.from_ns, x.to_ns, x.from_rel,
		                          x.to_rel, x.json);
	ldb_rp_pw_free(x.send.pw);
	ldb_argv_free(&a);
	return st;
}
