/* `ldbench replay LOG...` without --profile: the log's operations sent to a
 * target (cmd/replay.h, run/replay.h, docs/replay.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/replay.h"
#include "report/replay_out.h"
#include "util/num.h"

#define PROG "ldbench replay"

/* ldap://HOST[:PORT][/] into a; ldaps and others refused.  @return 0 or -1. */
static int uri(struct replay_send_args *a, const char *v)
{
	static char host[256];
	if (strncmp(v, "ldap://", 7) != 0)
		return -1;
	const char *h = v + 7, *e = h + strcspn(h, ":/");
	if (e == h || (size_t)(e - h) >= sizeof host)
		return -1;
	memcpy(host, h, (size_t)(e - h));
	host[e - h] = '\0';
	a->host = host;
	if (*e == ':') {
		char *end;
		long p = strtol(e + 1, &end, 10);
		if (p < 1 || p > 65535 || (*end != '\0' && strcmp(end, "/") != 0))
			return -1;
		a->port = (int)p;
	} else if (*e != '\0' && strcmp(e, "/") != 0) {
		return -1;
	}
	return 0;
}

static int bad(const char *o, const char *v, const char *what)
{
	fprintf(stderr, PROG ": %s '%s': %s\n", o, v, what);
	return 2;
}

static int number_opt(struct replay_send_args *a, const char *o, const char *v)
{
	long long n;
	if (strcmp(o, "-p") == 0) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 65535)
			return bad(o, v, "not a port (1..65535)");
		a->port = (int)n;
	} else if (strcmp(o, "--loop") == 0) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 1000000)
			return bad(o, v, "not a number in 1..1000000");
		a->loops = (unsigned)n;
	} else if (strcmp(o, "--max-conns") == 0) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > 60000)
			return bad(o, v, "not a number in 1..60000");
		a->max_conns = (unsigned)n;
	} else if (strcmp(o, "--threads") == 0) {
		if (ldb_num_ll(v, &n) != LDB_NUM_OK || n < 1 || n > LDB_RP_MAX_THREADS)
			return bad(o, v, "not a number in 1..64");
		a->threads = (unsigned)n;
	} else if (strcmp(o, "--speed") == 0) {
		const char *end;
		double x;
		if (ldb_num_real(v[0] == 'x' ? v + 1 : v, &end, &x) != 0 || *end != '\0' || !(x > 0) || x > 1e6)
			return bad(o, v, "not a speed above 0 (2, x2, 0.5)");
		a->speed = x;
	} else if (strcmp(o, "--drain") == 0) {
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
static int password_opt(struct replay_send_args *a, const char *o, const char *v)
{
	char err[600];
	if (strcmp(o, "--password-map") == 0) {
		if (ldb_rp_pw_load(&a->pw, v, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	} else if (strcmp(o, "--password-rule") == 0) {
		if (ldb_rp_pw_rule(&a->pw, v, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return 2;
		}
	} else if (strcmp(o, "--default-password") == 0 || strcmp(o, "--default-password-file") == 0) {
		char buf[1024] = "";
		if (o[18] == '-') {
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
		if (ldb_rp_pw_default(&a->pw, o[18] == '-' ? buf : v) != 0)
			return 2;
	} else {
		return 1;
	}
	return 0;
}

int ldb_replay_send_opt(struct replay_send_args *a, const char *o, const char *v)
{
	a->any = true; /* (reset by the caller when o is none of them) */
	int rc = number_opt(a, o, v);
	if (rc != 1)
		return rc;
	if ((rc = password_opt(a, o, v)) != 1)
		return rc;
	if (strcmp(o, "-H") == 0) {
		if (uri(a, v) != 0)
			return bad(o, v, "not ldap://HOST[:PORT] (ldaps and StartTLS are not built for replay)");
	} else if (strcmp(o, "-h") == 0) {
		a->host = v;
	} else if (strcmp(o, "--timing") == 0) {
		if (strcmp(v, "asap") != 0 && strcmp(v, "recorded") != 0)
			return bad(o, v, "not asap or recorded");
		a->timing = v[0] == 'r' ? LDB_RP_RECORDED : LDB_RP_ASAP;
	} else if (strcmp(o, "--writes") == 0) {
		if (strcmp(v, "skip") != 0 && strcmp(v, "synthetic") != 0)
			return bad(o, v, "not skip or synthetic");
		a->writes = v[1] == 'y' ? LDB_RP_WRITES_SYNTHETIC : LDB_RP_WRITES_SKIP;
	} else if (strcmp(o, "--audit-log") == 0) {
		if (a->naudit == sizeof a->audit / sizeof a->audit[0])
			return bad(o, v, "more than 64 audit log files");
		a->audit[a->naudit++] = v;
	} else if (strcmp(o, "--unmapped-binds") == 0) {
		if (strcmp(v, "skip") != 0 && strcmp(v, "anonymous") != 0)
			return bad(o, v, "not skip or anonymous");
		a->unmapped = v[0] == 'a' ? LDB_RP_UNMAPPED_ANON : LDB_RP_UNMAPPED_SKIP;
	} else {
		return 1; /* an unknown option: the command line ends here */
	}
	return 0;
}

int ldb_replay_send_main(struct replay_send_args *a, const char *const *logs, int nlogs, int64_t from_ns, int64_t to_ns,
                         int64_t from_rel, int64_t to_rel, const char *json)
{
	if (a->host == NULL || a->port == 0) {
		fprintf(stderr, PROG ": no target: give -H ldap://HOST:PORT, or -h HOST -p PORT (or --profile)\n");
		return 2;
	}
	struct ldb_rp_conf c = { .logs = logs,
		                 .nlogs = (size_t)nlogs,
		                 .host = a->host,
		                 .port = a->port,
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
		                 .drain_ns = a->drain_ns ? a->drain_ns : 10 * INT64_C(1000000000) };
	FILE *jf = NULL;
	if (json && (jf = strcmp(json, "-") == 0 ? stdout : fopen(json, "w")) == NULL) {
		fprintf(stderr, PROG ": --json %s: cannot create: %s\n", json, strerror(errno));
		return 2;
	}
	struct ldb_rp_result *r = malloc(sizeof *r);
	char err[700];
	int st = r && ldb_rp_result_init(r) == 0 ? ldb_replay_run(&c, r, err, sizeof err) : 99;
	if (st != 0)
		fprintf(stderr, PROG ": %s\n", r ? err : "out of memory");
	if (st == 0) {
		ldb_replay_text(r, c.timing == LDB_RP_RECORDED, jf == stdout ? stderr : stdout);
		if (jf && ldb_replay_json(r, c.timing == LDB_RP_RECORDED, jf) != 0)
			st = 99;
		uint64_t sent = 0;
		for (int t = 0; t < LDB_SLOG_NOPTYPES; t++)
			sent += r->kind[t].sent;
		if (r->error[0])
			st = 2;
		else if (r->conns_opened > 0 && r->conns_failed == r->conns_opened)
			st = 4;
		else if (sent == 0)
			st = 1;
		if (st == 1)
			fprintf(stderr, PROG ": no operation to send in the log%s\n",
			        from_ns != INT64_MIN || to_ns != INT64_MAX || from_rel >= 0 || to_rel >= 0
			                ? " between --from and --to"
			                : "");
	}
	if (jf && jf != stdout && fclose(jf) != 0)
		st = 99;
	if (r)
		ldb_rp_result_free(r);
	free(r);
	return st;
}
