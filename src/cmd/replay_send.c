/* `ldbench replay LOG...` without --profile: the log's operations sent to a
 * target (cmd/replay_cmd.h, run/replay.h, docs/replay.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/fail_if.h"
#include "cmd/replay_cmd.h"
#include "report/metrics.h"
#include "report/replay_out.h"
#include "run/tls.h"
#include "util/num.h"

#define PROG "ldbench replay"

/* ldap[s]://HOST[:PORT][/] into a (the port 389 or 636 when not given);
 * other schemes refused.  @return 0 or -1. */
static int uri(struct replay_send_args *a, const char *v)
{
	static char host[256];
	bool ldaps = strncmp(v, "ldaps://", 8) == 0;
	if (!ldaps && strncmp(v, "ldap://", 7) != 0)
		return -1;
	const char *h = v + (ldaps ? 8 : 7), *e = h + strcspn(h, ":/");
	if (e == h || (size_t)(e - h) >= sizeof host)
		return -1;
	memcpy(host, h, (size_t)(e - h));
	host[e - h] = '\0';
	a->target.host = host;
	a->target.ldaps = ldaps;
	a->target.port = ldaps ? 636 : 389;
	if (*e == ':') {
		char *end;
		long p = strtol(e + 1, &end, 10);
		if (p < 1 || p > 65535 || (*end != '\0' && strcmp(end, "/") != 0))
			return -1;
		a->target.port = (int)p;
	} else if (*e != '\0' && strcmp(e, "/") != 0) {
		return -1;
	}
	return 0;
}

/* One line on stderr.  @return 2, a bad command line's status. */
__attribute__((format(printf, 1, 2))) static int said(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

static int bad(const char *o, const char *v, const char *what)
{
	fprintf(stderr, PROG ": %s '%s': %s\n", o, v, what);
	return 2;
}

static int number_opt(struct replay_send_args *a, int id, const char *o, const char *v)
{
	long long n;
	if (id == RP_PORT) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 65535)
			return bad(o, v, "not a port (1..65535)");
		a->target.port = (int)n;
	} else if (id == RP_LOOP) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 1000000)
			return bad(o, v, "not a number in 1..1000000");
		a->loops = (unsigned)n;
	} else if (id == RP_MAX_CONNS) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 60000)
			return bad(o, v, "not a number in 1..60000");
		a->max_conns = (unsigned)n;
	} else if (id == RP_THREADS) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > LDB_RP_MAX_THREADS)
			return bad(o, v, "not a number in 1..64");
		a->threads = (unsigned)n;
	} else if (id == RP_SPEED) {
		const char *end;
		double x;
		if (ldb_num_real(v[0] == 'x' ? v + 1 : v, &end, &x) != 0 || *end != '\0' || !(x > 0) || x > 1e6)
			return bad(o, v, "not a speed above 0 (2, x2, 0.5)");
		a->speed = x;
	} else if (id == RP_DRAIN) {
		uint64_t msv;
		if (ldb_parse_duration_ms(v, &msv) != 0 || msv > 3600000)
			return bad(o, v, "not a duration up to 1h (10s, 500ms)");
		a->drain_ns = (int64_t)msv * 1000000;
	} else {
		return 1;
	}
	return 0;
}

/* A password given on the command line or in a file: kept, never echoed. */
static int password_opt(struct replay_send_args *a, int id, const char *v)
{
	char err[600];
	if (id == RP_PASSWORD_MAP) {
		if (ldb_rp_pw_load(&a->pw, v, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	} else if (id == RP_PASSWORD_RULE) {
		if (ldb_rp_pw_rule(&a->pw, v, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	} else if (id == RP_DEFAULT_PASSWORD || id == RP_DEFAULT_PASSWORD_FILE) {
		char buf[1024] = "";
		bool file = id == RP_DEFAULT_PASSWORD_FILE;
		if (file) {
			FILE *f = fopen(v, "r");
			if (f == NULL) {
				fprintf(stderr, PROG ": --default-password-file %s: %s\n", v, strerror(errno));
				return 2;
			}
			if (fgets(buf, sizeof buf, f) == NULL)
				buf[0] = '\0';
			fclose(f);
			buf[strcspn(buf, "\r\n")] = '\0';
		}
		if (ldb_rp_pw_default(&a->pw, file ? buf : v) != 0)
			return 2;
	} else {
		return 1;
	}
	return 0;
}

/* The load's --tls-* options with a value (docs/ldbench.1), and -Z refused. */
static int tls_opt(struct replay_send_args *a, int id, const char *o, const char *v)
{
	struct ldb_tls_settings *s = &a->target.tls;
	const char **str = id == RP_TLS_CACERT      ? &s->cacert
	                   : id == RP_TLS_CACERTDIR ? &s->cacertdir
	                   : id == RP_TLS_CERT      ? &s->cert
	                   : id == RP_TLS_KEY       ? &s->key
	                   : id == RP_TLS_CIPHERS   ? &s->ciphers
	                                            : NULL;
	if (id == RP_LDCLT_TLS)
		return bad(o, v,
		           "ldclt's ldaps, which verifies nothing: the replay takes -H ldaps://HOST[:PORT] "
		           "(with --tls-cacert FILE, or --tls-insecure)");
	if (str == NULL && id != RP_TLS_MIN && id != RP_TLS_LIBRARY)
		return 1;
	if (a->tls_opt == NULL)
		a->tls_opt = o;
	if (str != NULL) {
		*str = v;
	} else if (id == RP_TLS_MIN) {
		if (strcmp(v, "1.2") != 0 && strcmp(v, "1.3") != 0)
			return bad(o, v, "must be 1.2 or 1.3");
		s->min = v[2] == '2' ? 12 : 13;
	} else if ((s->library = ldb_tls_library_of(v)) == LDB_TLS_LIB_DEFAULT) {
		return bad(o, v, "must be openssl or gnutls");
	}
	return 0;
}

/* The run's result files and verdict: --csv, --html, --fail-if. */
static int records_opt(struct replay_send_args *a, int id, const char *o, const char *v)
{
	if (id == RP_CSV) {
		a->csv = v;
	} else if (id == RP_HTML) {
		a->html = v;
	} else if (id == RP_METRICS_LISTEN) {
		a->metrics_listen = v;
	} else if (id == RP_METRICS_LINGER) {
		a->metrics_linger = v;
	} else if (id == RP_METRICS_PUSH) {
		a->metrics_push = v;
	} else if (id == RP_FAIL_IF) {
		char err[400];
		if (a->nfail_if == (int)(sizeof a->fail_if / sizeof a->fail_if[0]))
			return bad(o, v, "more than 16 thresholds");
		if (ldb_threshold_parse_form(&a->fail_if[a->nfail_if], v, &ldb_threshold_replay, err, sizeof err) !=
		    0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
		a->nfail_if++;
	} else {
		return 1;
	}
	return 0;
}

bool ldb_replay_send_flag(struct replay_send_args *a, int id, const char *o)
{
	bool *f = id == RP_STARTTLS       ? &a->target.starttls
	          : id == RP_TLS_INSECURE ? &a->target.tls.insecure
	          : id == RP_TLS_RESUME   ? &a->target.tls.resume
	                                  : NULL;
	if (f == NULL)
		return false;
	*f = true;
	a->any = true;
	if (f != &a->target.starttls && a->tls_opt == NULL)
		a->tls_opt = o;
	return true;
}

/* The TLS options against each other and the library, as a load's
 * (conf/target), and the target's TLS context (run/tls.h), built before any
 * connection from its TLS settings: a CA, a certificate or key that cannot be
 * read is a bad command line here.  @return 0 (*t NULL without TLS), or 2
 * (said). */
static int make_tls(struct replay_send_args *a, struct ldb_tls **t)
{
	char err[600];
	*t = NULL;
	if (ldb_target_check_tls(&a->target, a->tls_opt, "-H ldaps://", "-H ldaps://", err, sizeof err) != 0)
		return said("%s", err);
	if (!ldb_target_tls(&a->target))
		return 0;
	if (ldb_tls_new(t, &a->target.tls, err, sizeof err) != 0)
		return said("%s", err);
	if (a->target.tls.insecure)
		fprintf(stderr, PROG ": warning: --tls-insecure: the server certificate is NOT verified\n");
	return 0;
}

int ldb_replay_send_opt(struct replay_send_args *a, int id, const char *o, const char *v)
{
	a->any = true; /* (reset by the caller when o is none of them) */
	int rc = number_opt(a, id, o, v);
	if (rc != 1)
		return rc;
	if ((rc = password_opt(a, id, v)) != 1)
		return rc;
	if ((rc = tls_opt(a, id, o, v)) != 1)
		return rc;
	if ((rc = records_opt(a, id, o, v)) != 1)
		return rc;
	if (id == RP_URI) {
		if (uri(a, v) != 0)
			return bad(o, v, "not ldap://HOST[:PORT] or ldaps://HOST[:PORT]");
	} else if (id == RP_HOST) {
		a->target.host = v;
	} else if (id == RP_TIMING) {
		if (strcmp(v, "asap") != 0 && strcmp(v, "recorded") != 0)
			return bad(o, v, "not asap or recorded");
		a->timing = v[0] == 'r' ? LDB_RP_RECORDED : LDB_RP_ASAP;
	} else if (id == RP_WRITES) {
		if (strcmp(v, "skip") != 0 && strcmp(v, "synthetic") != 0)
			return bad(o, v, "not skip or synthetic");
		a->writes = v[1] == 'y' ? LDB_RP_WRITES_SYNTHETIC : LDB_RP_WRITES_SKIP;
	} else if (id == RP_AUDIT_LOG) {
		if (a->naudit == sizeof a->audit / sizeof a->audit[0])
			return bad(o, v, "more than 64 audit log files");
		a->audit[a->naudit++] = v;
	} else if (id == RP_UNMAPPED_BINDS) {
		if (strcmp(v, "skip") != 0 && strcmp(v, "anonymous") != 0)
			return bad(o, v, "not skip or anonymous");
		a->unmapped = v[0] == 'a' ? LDB_RP_UNMAPPED_ANON : LDB_RP_UNMAPPED_SKIP;
	} else {
		return 1; /* an unknown option: the command line ends here */
	}
	return 0;
}

/* What the run's record writers and text lines read (report/reporter.h): a
 * replay's outputs; the paths point into argv, the target into a. */
static void records_outputs(const struct replay_send_args *a, const char *json, struct ldb_outputs *o)
{
	*o = (struct ldb_outputs){ .progname = "ldbench",
		                   .command = "replay",
		                   .replay = true,
		                   .json_path = json,
		                   .csv_path = a->csv,
		                   .html_path = a->html,
		                   .threads = a->threads > 1 ? (int)a->threads : 1, /* the sender threads */
		                   /* the samples' (one for the whole replay with --threads 2: the load's 10 s) */
		                   .interval_ms = a->sample_ns > 0 ? (uint64_t)(a->sample_ns / 1000000) : 10000,
		                   .config_json = ldb_replay_config_json,
		                   .config_arg = &a->target };
}

static void records_close(struct ldb_reporter *rep, int nrep)
{
	for (int i = 0; i < nrep; i++)
		rep[i].close(rep[i].ctx);
}

/* The exit status of a replay done (before --fail-if). */
static int replay_status(const struct ldb_rp_result *r)
{
	uint64_t sent = 0;
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++)
		sent += r->kind[t].sent;
	if (r->error[0])
		return 2;
	/* 4: no connection could be opened, or nothing was sent because every
	 * one that had a request failed (one without any may close first) */
	if (r->conns_opened > 0 && (r->conns_failed == r->conns_opened || (sent == 0 && r->conns_failed > 0)))
		return 4;
	/* 5: the target is not (or not only) an LDAP server: its figures are not
	 * a replay's */
	if (r->proto_errors > 0)
		return 5;
	return sent == 0 ? 1 : 0;
}

/* The report (text, verdict, records) of a replay done.  @return the exit status. */
static int report(const struct replay_send_args *a, const struct ldb_rp_conf *c, const struct ldb_rp_result *r,
                  struct ldb_text *text, struct ldb_reporter *rep, int nrep, bool window)
{
	bool recorded = c->timing == LDB_RP_RECORDED;
	FILE *out = text->out;
	int st = replay_status(r);
	struct ldb_replay_run *x = malloc(sizeof *x);
	if (x == NULL || ldb_replay_run_init(x, r, recorded, st) != 0) {
		free(x);
		fprintf(stderr, PROG ": out of memory\n");
		return 99;
	}
	ldb_replay_text(r, recorded, out);
	st = ldb_replay_thresholds(x, a->fail_if, a->nfail_if, st, text);
	if (fflush(out) != 0)
		st = 99;
	x->sum.status = st;
	for (int i = 0; i < nrep; i++) {
		if (rep[i].sample && x->sum.seconds > 0 && a->sample_ns == 0) /* else the sampler's */
			rep[i].sample(rep[i].ctx, &x->sample);
		if (rep[i].end)
			rep[i].end(rep[i].ctx, &x->sum);
	}
	if (replay_status(r) == 1)
		fprintf(stderr, PROG ": no operation to send in the log%s\n", window ? " between --from and --to" : "");
	ldb_replay_run_free(x);
	free(x);
	return st;
}

/* The samples and the outputs against each other.  @return 0, or 2 (said). */
static int check_outputs(const struct replay_send_args *a, const char *json)
{
	if (a->sample_ns > 0 && a->threads > 1) {
		fprintf(stderr,
		        PROG ": --interval with --threads %u: the samples read one sender's figures; "
		             "sample a replay of one thread\n",
		        a->threads);
		return 2;
	}
	if (json && a->csv && strcmp(json, "-") == 0 && strcmp(a->csv, "-") == 0) {
		fprintf(stderr, PROG ": --json - and --csv - both on stdout: give one of them a file\n");
		return 2;
	}
	return 0;
}

/* --metrics-listen, --metrics-push: checked into *ms, the port taken
 * (before any connection); then the reporters, the live metrics' among
 * them.  @return how many, or -1 with one line in err. */
static int open_reporters(const struct replay_send_args *a, const struct ldb_outputs *o,
                          struct ldb_metrics_settings *ms, struct ldb_reporter *rep, char *err, size_t cap)
{
	if (ldb_cli_metrics_args(ms, a->metrics_listen, a->metrics_linger, a->metrics_push, err, cap) != 0)
		return -1;
	if ((ms->listen != NULL || ms->push != NULL) && ldb_metrics_open(ms, o->progname, err, cap) != 0)
		return -1; /* exit 2 at once, as the load's */
	int n = ldb_reporters_open(o, rep, LDB_MAX_REPORTERS, err, cap);
	if (n < 0)
		ldb_metrics_close(ms);
	return n;
}

int ldb_replay_send_main(struct replay_send_args *a, const char *const *logs, int nlogs, int64_t from_ns, int64_t to_ns,
                         int64_t from_rel, int64_t to_rel, const char *json)
{
	if (a->target.host == NULL || a->target.port == 0) {
		fprintf(stderr, PROG ": no target: give -H ldap://HOST:PORT, or -h HOST -p PORT (or --profile)\n");
		return 2;
	}
	struct ldb_tls *tls = NULL;
	int st = make_tls(a, &tls);
	if (st != 0)
		return st;
	if ((st = check_outputs(a, json)) != 0) {
		ldb_tls_free(tls);
		return st;
	}
	/* sampled by default, as a load is; not with --threads 2 (check_outputs) */
	if (a->sample_ns == 0 && a->threads <= 1)
		a->sample_ns = INT64_C(1000000000); /* --interval's default, 1 s */
	struct ldb_rp_conf c = { .logs = logs,
		                 .nlogs = (size_t)nlogs,
		                 .target = &a->target,
		                 .timing = a->timing,
		                 .speed = a->speed > 0 ? a->speed : 1,
		                 .from_ns = from_ns,
		                 .to_ns = to_ns,
		                 .from_rel = from_rel,
		                 .to_rel = to_rel,
		                 .loops = a->loops ? a->loops : 1,
		                 .writes = a->writes,
		                 .unmapped = a->unmapped,
		                 .pw = a->pw,
		                 .audit = a->audit,
		                 .naudit = a->naudit,
		                 .max_conns = a->max_conns ? a->max_conns : 512,
		                 .threads = a->threads ? a->threads : 1,
		                 .drain_ns = a->drain_ns ? a->drain_ns : 10 * INT64_C(1000000000),
		                 .tls = tls };
	struct ldb_metrics_settings ms = { 0 };
	struct ldb_outputs o;
	records_outputs(a, json, &o);
	struct ldb_reporter rep[LDB_MAX_REPORTERS];
	char err[700];
	int nrep = open_reporters(a, &o, &ms, rep, err, sizeof err);
	if (nrep < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		ldb_tls_free(tls);
		return 2;
	}
	struct ldb_run_info info = { .started = time(NULL), .io_threads = 1 };
	for (int i = 0; i < nrep; i++)
		if (rep[i].begin)
			rep[i].begin(rep[i].ctx, &info);
	bool tostderr = (json && strcmp(json, "-") == 0) || (a->csv && strcmp(a->csv, "-") == 0);
	struct ldb_text text = { .o = &o, .cfg = NULL, .out = tostderr ? stderr : stdout, .pid = getpid() };
	struct ldb_rp_result *r = malloc(sizeof *r);
	st = r && ldb_rp_result_init(r) == 0 ? 0 : 99;
	struct ldb_replay_sampler *smp = NULL;
	if (st == 0 && a->sample_ns > 0 && (smp = ldb_replay_sampler_start(r, a->sample_ns, &text, rep, nrep)) == NULL)
		st = 99;
	if (st == 0)
		st = ldb_replay_run(&c, r, err, sizeof err);
	ldb_replay_sampler_end(smp);
	if (st != 0)
		fprintf(stderr, PROG ": %s\n", st != 99 ? err : "out of memory");
	if (st == 0)
		st = report(a, &c, r, &text, rep, nrep,
		            from_ns != INT64_MIN || to_ns != INT64_MAX || from_rel >= 0 || to_rel >= 0);
	ldb_metrics_close(&ms); /* after the summary's figures, --metrics-linger */
	records_close(rep, nrep);
	if (r)
		ldb_rp_result_free(r);
	free(r);
	ldb_tls_free(tls);
	return st;
}
