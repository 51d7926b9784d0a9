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
	      "latencies, lateness against the schedule).  --profile sends nothing.\n"
	      "  -H ldap[s]://HOST[:PORT]\n"
	      "                         the target (ldaps: TLS from the first byte, port 636)\n"
	      "  -h HOST, -p PORT       the same, ldap\n"
	      "  --starttls             StartTLS on each connection before the log's requests\n"
	      "  --tls-cacert FILE, --tls-cacertdir DIR, --tls-cert FILE --tls-key FILE,\n"
	      "  --tls-min 1.2|1.3, --tls-ciphers LIST, --tls-resume, --tls-library openssl|gnutls\n"
	      "                         as a load's (ldbench --help); the server certificate and\n"
	      "                         its name are verified (a connection that fails it sends\n"
	      "                         nothing: no password to an unverified server), unless\n"
	      "  --tls-insecure         no verification (a warning says so)\n"
	      "  --timing asap|recorded asap (default): as fast as the target answers, with the\n"
	      "                         recorded connections; recorded: each operation at its\n"
	      "                         recorded offset (open loop, latency from that time)\n"
	      "  --speed X              recorded timing X times as fast (2, x2, 0.5)\n"
	      "  --loop N               the window N times\n"
	      "  --password-map FILE    DN<TAB>password lines (DN case-insensitive, spaces after\n"
	      "                         commas ignored)\n"
	      "  --password-rule RULE   REGEX=REPLACEMENT on the DN (\\1..\\9), or 'ldbench': the\n"
	      "                         password of `ldbench gen users` (the uid)\n"
	      "  --default-password PW, --default-password-file FILE\n"
	      "                         the password of any other DN (never printed)\n"
	      "  --unmapped-binds skip|anonymous\n"
	      "                         a bind DN without password: not sent (default), or sent\n"
	      "                         as an anonymous bind\n"
	      "  --writes skip|synthetic adds and modifies (the log has no content): not sent\n"
	      "                         (default), or sent with the synthetic content of\n"
	      "                         docs/replay.md\n"
	      "  --audit-log FILE       the server's audit log (389 DS audit log, OpenLDAP's\n"
	      "                         auditlog overlay; repeat for a rotated set): each write\n"
	      "                         sent with its recorded content; a write without one\n"
	      "                         falls back to --writes\n"
	      "  --max-conns N          replay connections open at once, per thread (default\n"
	      "                         512)\n"
	      "  --threads N            sender threads (default 1, at most 64): the recorded\n"
	      "                         connections spread over them by number\n"
	      "  --drain DURATION       the longest wait (default 10s): for a closing\n"
	      "                         connection's answers, for those a request waits for,\n"
	      "                         for a connection's set-up; then they are given up\n"
	      "  --csv FILE, --html FILE the run's CSV rows and HTML report (docs/results.md)\n"
	      "  --metrics-listen [ADDR:]PORT, --metrics-linger DURATION, --metrics-push URL\n"
	      "                         live metrics for Prometheus, as the load's (docs/metrics.md)\n"
	      "  --fail-if EXPR         exit 10 when EXPR holds at the end (repeatable): a run's\n"
	      "                         [KIND.]METRIC OP VALUE, METRIC rate, errors, differ,\n"
	      "                         min, mean, p50 .. p99.9, max (no KIND: every kind),\n"
	      "                         skipped, or late.LATENCY: 'differ>0', 'search.p99>5ms',\n"
	      "                         'late.p99>10ms'\n"
	      "  --profile              the profile, sending nothing:\n"
	      "  --interval DURATION    the time series' interval (default 1s; doubled as needed\n"
	      "                         to keep at most 4096 of them); with a target: the run's\n"
	      "                         sample lines and records every DURATION\n"
	      "  --top N                entries of each top table (1..256, default 10)\n"
	      "  --write-scenario FILE  an ldbench scenario of the profile (--mix, --rate-profile,\n"
	      "                         -f, -b, -s, -n; docs/replay.md)\n"
	      "Both:\n"
	      "  --from TIME, --to TIME the window [from, to): @EPOCH[.F], YYYY-MM-DDTHH:MM:SS[.F]\n"
	      "                         [Z|+HH:MM] (no zone: local time), or +DURATION after the\n"
	      "                         log's first line (+30s)\n"
	      "  --json FILE            the replay: the run's JSON records (header, summary\n"
	      "                         with the report as \"replay\"); the profile: one JSON\n"
	      "                         object (- = stdout; the text then goes to stderr)\n"
	      "Options may come anywhere on the line (GNU style); -- ends them.\n"
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

/* One valued option into x.  @return 0, 1 not one of them, 2 bad (said). */
static int valued_opt(struct replay_args *x, const char *o, const char *v)
{
	if (v == NULL || v[0] == '\0') {
		fprintf(stderr, PROG ": %s needs a value (see --help)\n", o);
		return 2;
	}
	if (ldb_argv_is(o, "--from") || ldb_argv_is(o, "--to")) {
		bool from = ldb_argv_is(o, "--from");
		*(from ? &x->from : &x->to) = v;
		if (parse_time(v, from ? &x->from_ns : &x->to_ns, from ? &x->from_rel : &x->to_rel) != 0) {
			fprintf(stderr,
			        PROG
			        ": %s '%s': not a time (@EPOCH, YYYY-MM-DDTHH:MM:SS[.F][Z|+HH:MM], or +DURATION)\n",
			        from ? "--from" : "--to", v);
			return 2;
		}
	} else if (ldb_argv_is(o, "--interval")) {
		uint64_t ms;
		if (ldb_parse_duration_ms(v, &ms) != 0 || ms == 0 || ms > 86400000ULL * 365) {
			fprintf(stderr, PROG ": --interval '%s': not a duration above 0 (1s, 500ms, 1m)\n", v);
			return 2;
		}
		x->interval_ns = (int64_t)ms * 1000000;
		x->interval_given = true;
	} else if (ldb_argv_is(o, "--top")) {
		long long n;
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 256) {
			fprintf(stderr, PROG ": --top '%s': not a number in 1..256\n", v);
			return 2;
		}
		x->top = (int)n;
	} else if (ldb_argv_is(o, "--json")) {
		x->json = v;
	} else if (ldb_argv_is(o, "--write-scenario")) {
		x->scenario = v;
	} else {
		return ldb_replay_send_opt(&x->send, o, v);
	}
	return 0;
}

/* @return -1 to go on, else the exit status (--help, a bad option). */
static int parse_args(int argc, char **argv, struct replay_args *x, struct ldb_argv *a)
{
	static const char *const valued[] = { "--from",
		                              "--to",
		                              "--interval",
		                              "--top",
		                              "--json",
		                              "--write-scenario",
		                              "-H",
		                              "-h",
		                              "-p",
		                              "--timing",
		                              "--speed",
		                              "--loop",
		                              "--max-conns",
		                              "--threads",
		                              "--drain",
		                              "--password-map",
		                              "--password-rule",
		                              "--default-password",
		                              "--default-password-file",
		                              "--writes",
		                              "--unmapped-binds",
		                              "--audit-log",
		                              "-Z",
		                              "--tls-cacert",
		                              "--tls-cacertdir",
		                              "--tls-cert",
		                              "--tls-key",
		                              "--tls-ciphers",
		                              "--tls-min",
		                              "--tls-library",
		                              "--fail-if",
		                              "--csv",
		                              "--html",
		                              "--metrics-listen",
		                              "--metrics-linger",
		                              "--metrics-push",
		                              NULL };
	*x = (struct replay_args){ .from_ns = INT64_MIN,
		                   .to_ns = INT64_MAX,
		                   .from_rel = -1,
		                   .to_rel = -1,
		                   .interval_ns = 1000000000,
		                   .top = 10 };
	if (ldb_argv_sort(argc, argv, valued, false, a) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	for (int i = 0; i < a->nopt; i++) {
		const char *o = a->opt[i];
		if (strcmp(o, "--help") == 0 || (strcmp(o, "-h") == 0 && i + 1 == a->nopt)) {
			usage(stdout);
			return 0;
		}
		if (strcmp(o, "--profile") == 0) {
			x->profile = true;
			continue;
		}
		if (ldb_replay_send_flag(&x->send, o))
			continue;
		int k = 0;
		while (valued[k] && !ldb_argv_is(o, valued[k]))
			k++;
		int rc = valued[k] ? valued_opt(x, valued[k], ldb_argv_value(a, &i, valued[k])) : 1;
		if (rc == 2)
			return 2;
		if (rc == 1) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			return 2;
		}
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
