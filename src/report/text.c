/* The default text output: ldclt's lines, byte for byte after the NAME[PID]:
 * prefix, and ldbench's own lines (latency, counters) in their own wording. */
#include "report/reporter.h"

#include "ops/ops.h"
#include "report/settings.h"

#include <ldap.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static void prefix(struct ldb_text *t, bool stamp)
{
	if (stamp && t->o->timestamp_fmt != NULL) {
		char buf[128];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		if (strftime(buf, sizeof buf, t->o->timestamp_fmt, &tm) == 0)
			buf[0] = '\0';
		fprintf(t->out, "%s|", buf);
	}
	fprintf(t->out, "%s[%d]: ", t->o->progname, (int)t->pid);
	if (t->tag != NULL)
		fprintf(t->out, "%s: ", t->tag);
}

void ldb_text_line(struct ldb_text *t, const char *fmt, ...)
{
	va_list ap;
	prefix(t, false);
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	fputc('\n', t->out);
	fflush(t->out);
}

void ldb_text_banner(struct ldb_text *t)
{
	const struct ldb_config *c = t->cfg;
	char line[96];
	ldb_version_line(line, sizeof line, c->progname);
	fprintf(t->out, "%s\n", line);
	if (c->verbose)
		ldb_config_print(c, t->out); /* the command line (password masked), then the block */
	fflush(t->out);
}

void ldb_text_started(struct ldb_text *t)
{
	struct timespec ts; /* not time(): its coarse clock may lag by a tick */
	clock_gettime(CLOCK_REALTIME, &ts);
	time_t now = ts.tv_sec;
	prefix(t, false);
	fprintf(t->out, "Starting at %s\n", ctime(&now));
	fflush(t->out);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void latency_line(struct ldb_text *t, bool stamp, const char *what, const struct ldb_hist *h, bool full)
{
	prefix(t, stamp);
	if (full)
		fprintf(t->out,
		        "%s latency (ms): min %.3f, mean %.3f, p50 %.3f, p95 %.3f, p99 %.3f, p99.9 %.3f, max %.3f\n",
		        what, ms(h->min), ldb_hist_mean(h) / 1e6, ms(ldb_hist_percentile(h, 50)),
		        ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
		        ms(ldb_hist_percentile(h, 99.9)), ms(h->max));
	else
		fprintf(t->out, "%s latency (ms): min %.3f, p50 %.3f, p95 %.3f, p99 %.3f, max %.3f\n", what, ms(h->min),
		        ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
		        ms(h->max));
}

/* A stage's name in the text: JSON's, but for the requests of an operation
 * made of several (each page of a paged search, each step of a SASL bind):
 * "per-request" (JSON's "round"). */
static const char *stage_label(enum ldb_stage k)
{
	return k == LDB_STAGE_ROUND ? "per-request" : ldb_stage_name(k);
}

/* The client's own lines (docs/capacity.md): the ramp while clients are not all
 * connected, its figures (with -v, or in the summary), and the verdict when
 * the client limited the run. */
static void client_lines(struct ldb_text *t, const struct ldb_client_fig *f, bool stamp, bool summary)
{
	char line[400];
	if (f == NULL || !f->have)
		return;
	if (!summary && (f->clients_up < f->clients || f->clients_waiting > 0) && !t->o->bindeach) {
		ldb_client_ramp_line(f, line, sizeof line);
		prefix(t, stamp);
		fprintf(t->out, "%s\n", line);
	}
	if (summary && f->clients_waiting > 0) {
		prefix(t, stamp);
		fprintf(t->out,
		        "Clients that never started: %d of %d (never began a connect: a longer run or --ramp-up)\n",
		        f->clients_waiting, f->clients);
	}
	if (summary || t->o->verbose > 0) {
		ldb_client_line(f, line, sizeof line);
		prefix(t, stamp);
		fprintf(t->out, "%s\n", line);
	}
	ldb_client_verdict(f, line, sizeof line);
	if (line[0] != '\0') {
		prefix(t, stamp);
		fprintf(t->out, "%s\n", line);
	}
	if (f->short_of_inflight) {
		prefix(t, stamp);
		fprintf(t->out,
		        "Target rate not reached: %lld requests in flight at %.3f ms each carry about %.0f/s; raise -n "
		        "or "
		        "-a\n",
		        f->inflight_cap, f->server_mean_ns / 1e6, (double)f->inflight_cap / (f->server_mean_ns / 1e9));
	}
}

void ldb_text_sample(struct ldb_text *t, const struct ldb_sample *s)
{
	double rate = s->seconds > 0 ? (double)s->counted / s->seconds : 0.0;
	prefix(t, true);
	fprintf(t->out, "Average rate: %7.2f/thr  (%7.2f/sec), total: %6llu\n", (double)s->counted / (double)s->threads,
	        rate, (unsigned long long)s->counted);
	if (s->rate_target > 0) {
		prefix(t, true);
		fprintf(t->out, "Target rate: %.2f/sec, achieved %.2f/sec\n", s->rate_target, rate);
	}
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_hist *h = s->lat[k];
		if (h == NULL || ldb_hist_count(h) == 0)
			continue;
		latency_line(t, true, ldb_op_name(k), h, false);
		if (s->ulat[k] != NULL && ldb_hist_count(s->ulat[k]) > 0) {
			char what[64];
			snprintf(what, sizeof what, "%s uncorrected", ldb_op_name(k));
			latency_line(t, true, what, s->ulat[k], false);
		}
		uint64_t errs = ldb_opstats_errors(&s->delta.op[k]);
		if (errs > 0) {
			prefix(t, true);
			fprintf(t->out, "%s errors: %llu\n", ldb_op_name(k), (unsigned long long)errs);
		}
	}
	client_lines(t, s->client, true, false);
	fflush(t->out);
}

static const char *code_text(int code)
{
	return ldap_err2string(code);
}

/* errors: summed over kinds; 0..122 ascending, then -1, -2, ... */
static void summary_errors(struct ldb_text *t, const struct ldb_summary *s)
{
	uint64_t codes[LDB_CODE_SLOTS] = { 0 };
	for (int k = 0; k < LDB_OP_COUNT; k++)
		for (int i = 0; i < LDB_CODE_SLOTS; i++)
			codes[i] += s->tot.op[k].codes[i];
	for (int i = 0; i < LDB_CODE_SLOTS; i++) /* ldclt counts a failed connect or bind at connect too */
		codes[i] += s->tot.setup.codes[i];
	for (int i = 0; i < LDB_CODE_SLOTS; i++) /* a flow's failed step: the flow's error already */
		codes[i] -= codes[i] >= s->tot.step_codes[i] ? s->tot.step_codes[i] : codes[i];
	bool found = false;
	/* 0, 1, ... LDB_CODE_MAX, then -1, -2, ... LDB_CODE_MIN */
	for (int i = 0; i <= LDB_CODE_MAX - LDB_CODE_MIN; i++) {
		int code = i <= LDB_CODE_MAX ? i : LDB_CODE_MAX - i;
		uint64_t n = codes[ldb_code_slot(code)];
		if (n == 0)
			continue;
		found = true;
		prefix(t, false);
		fprintf(t->out, "Global error %2d (%s) occurs %5llu times\n", code, code_text(code),
		        (unsigned long long)n);
	}
	if (codes[LDB_CODE_ILLEGAL] > 0) {
		found = true;
		prefix(t, false);
		fprintf(t->out, "Global illegal errors (codes not in [%d, %d]) occurs %5llu times\n", LDB_CODE_MIN,
		        LDB_CODE_MAX, (unsigned long long)codes[LDB_CODE_ILLEGAL]);
	}
	if (!found) {
		prefix(t, false);
		fprintf(t->out, "Global no error occurs during this session.\n");
	}
}

/* After ldclt's error lines: "no error" is not "every filter matched". */
static void summary_misses(struct ldb_text *t, const struct ldb_summary *s)
{
	uint64_t miss = 0, checks = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		miss += s->tot.op[k].exp_misses;
		checks += s->tot.op[k].exp_misses + s->tot.op[k].exp_hits;
	}
	if (miss == 0)
		return;
	prefix(t, false);
	fprintf(t->out,
	        "Warning: %llu of %llu expected-result checks missed (srchnentries=%lld): no LDAP error does not "
	        "mean every filter matched.\n",
	        (unsigned long long)miss, (unsigned long long)checks, t->cfg->expect_entries);
}

/* The response controls counted on kind k's line, when asked for. */
static void summary_controls(struct ldb_text *t, int k, const struct ldb_opstats *o)
{
	unsigned f = t->cfg->ctl.named & ldb_ops[k]->controls;
	if (f & LDB_CTLF_SORT)
		fprintf(t->out, ", sort results %llu, not sorted %llu", (unsigned long long)o->sort_results,
		        (unsigned long long)o->sort_failed);
	if (f & LDB_CTLF_PAGED)
		fprintf(t->out, ", pages %llu", (unsigned long long)o->pages);
	if (f & LDB_CTLF_PREREAD)
		fprintf(t->out, ", pre-read entries %llu", (unsigned long long)o->preread_entries);
	if (f & LDB_CTLF_POSTREAD)
		fprintf(t->out, ", post-read entries %llu", (unsigned long long)o->postread_entries);
}

/* --ppolicy's response controls by name, --bad-password's wrong passwords:
 * their lines under kind k (a flow's are its bind step's) */
static void summary_policy(struct ldb_text *t, int k, const struct ldb_opstats *o)
{
	if ((t->cfg->ctl.named & ldb_ops[k]->controls & LDB_CTLF_PPOLICY) && ldb_ops[k]->nsteps == 0) {
		prefix(t, false);
		fprintf(t->out, "%s password policy: responses %llu", ldb_op_name(k),
		        (unsigned long long)o->ppolicy_responses);
		for (int i = 0; i < LDB_PP_COUNT; i++)
			if (o->ppolicy[i] > 0)
				fprintf(t->out, ", %s %llu", ldb_ppolicy_name(i), (unsigned long long)o->ppolicy[i]);
		fputc('\n', t->out);
	}
	uint64_t bad = 0;
	for (int i = 0; i < LDB_NOTE_COUNT; i++)
		bad += o->bad_password[i];
	if (bad > 0) {
		prefix(t, false);
		fprintf(t->out,
		        "%s wrong passwords (--bad-password): sent %llu, refused %llu, accepted %llu, other %llu\n",
		        ldb_op_name(k), (unsigned long long)bad,
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_REFUSED],
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_ACCEPTED],
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_OTHER]);
	}
}

/* ldbench's line of kind k, and its latencies */
static void summary_kind(struct ldb_text *t, const struct ldb_summary *s, int k)
{
	const struct ldb_config *c = t->cfg;
	const struct ldb_opstats *o = &s->tot.op[k];
	prefix(t, false);
	fprintf(t->out, "%s: attempted %llu, completed %llu, succeeded %llu, counted %llu, errors %llu", ldb_op_name(k),
	        (unsigned long long)o->attempted, (unsigned long long)o->completed, (unsigned long long)o->succeeded,
	        (unsigned long long)o->counted, (unsigned long long)ldb_opstats_errors(o));
	if (ldb_ops[k]->entries) {
		fprintf(t->out, ", entries %llu", (unsigned long long)o->entries);
		if (c->deref_attr != NULL) /* -e deref */
			fprintf(t->out, ", deref values %llu", (unsigned long long)o->deref_values);
		if (c->expect_entries >= 0)
			fprintf(t->out, ", expected-result hits %llu, misses %llu", (unsigned long long)o->exp_hits,
			        (unsigned long long)o->exp_misses);
	}
	summary_controls(t, k, o);
	if (o->referrals > 0 || c->referral_off || c->referral_follow != LDB_REFERRAL_NONE)
		fprintf(t->out, ", referrals %llu", (unsigned long long)o->referrals); /* references, results 10 */
	if (c->referral_follow != LDB_REFERRAL_NONE)                                   /* -e referral=on|rebind */
		fprintf(t->out, ", referrals followed %llu, followed ok %llu",
		        (unsigned long long)o->referrals_followed, (unsigned long long)o->referrals_followed_ok);
	fputc('\n', t->out);
	if (ldb_ops[k]->entries && o->entries > 0) {
		/* the old OpenLDAP-vs-Netscape comparison's "data read" rate */
		prefix(t, false);
		fprintf(t->out, "%s entries returned: %llu (%.2f/sec)\n", ldb_op_name(k),
		        (unsigned long long)o->entries, s->seconds > 0 ? (double)o->entries / s->seconds : 0.0);
	}
	summary_policy(t, k, o);
	if (ldb_hist_count(s->lat[k]) > 0)
		latency_line(t, false, ldb_op_name(k), s->lat[k], true);
	if (s->ulat[k] != NULL && ldb_hist_count(s->ulat[k]) > 0) {
		char what[64];
		snprintf(what, sizeof what, "%s uncorrected", ldb_op_name(k));
		latency_line(t, false, what, s->ulat[k], true);
	}
}

/* the server's counts beside the client's (--monitor), per kind */
static void summary_server(struct ldb_text *t, const struct ldb_summary *s)
{
	if (s->server == NULL || s->server->kind == LDB_MON_NONE)
		return;
	const char *src = ldb_monitor_source(s->server);
	bool used[LDB_OP_COUNT];
	for (int k = 0; k < LDB_OP_COUNT; k++)
		used[k] = s->lat[k] != NULL;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		struct ldb_monitor_cmp m;
		char name[128];
		if (!used[k])
			continue;
		if (!ldb_monitor_compare(s->server, &s->tot, k, &m)) {
			prefix(t, false);
			fprintf(t->out, "Server (%s): %s not counted by the server\n", src, ldb_op_name(k));
			continue;
		}
		if (!ldb_monitor_line_name(s->server, used, k, name, sizeof name))
			continue;
		prefix(t, false);
		fprintf(t->out, "Server (%s): %s completed %llu (client: %llu completed, %llu in flight): ", src, name,
		        (unsigned long long)m.server, (unsigned long long)m.client, (unsigned long long)m.in_flight);
		if (m.agree)
			fputs("agree\n", t->out);
		else
			fprintf(t->out, "DISAGREE by %+lld\n", (long long)(m.server - m.client));
	}
}

/* parent creation's own adds (the server counts them with the adds) */
static void summary_parents(struct ldb_text *t, const struct ldb_summary *s)
{
	const struct ldb_totals *o = &s->tot;
	uint64_t adds = o->parents_created + o->parent_exists + o->parent_noparent + o->parent_other;
	if (adds == 0)
		return;
	prefix(t, false);
	fprintf(t->out,
	        "Parent entries: container adds %llu (created %llu, already existed %llu, no parent %llu, other "
	        "errors %llu), adds sent again %llu\n",
	        (unsigned long long)adds, (unsigned long long)o->parents_created, (unsigned long long)o->parent_exists,
	        (unsigned long long)o->parent_noparent, (unsigned long long)o->parent_other,
	        (unsigned long long)o->parent_retries);
}

/* Connection set-ups that failed, and the clients that never completed a
 * TCP connect with the reason (those that never began one have their line
 * in client_lines). */
static void summary_setups(struct ldb_text *t, const struct ldb_summary *s)
{
	const struct ldb_totals *o = &s->tot;
	const uint64_t *f = o->setup.fails;
	if (ldb_setup_errors(&o->setup) > 0) {
		prefix(t, false);
		fprintf(t->out,
		        "Connection set-ups failed (no operation went on them): connect %llu, tls %llu, timeout %llu, "
		        "server down %llu, bind refused %llu\n",
		        (unsigned long long)f[LDB_FAIL_CONNECT], (unsigned long long)f[LDB_FAIL_TLS],
		        (unsigned long long)f[LDB_FAIL_TIMEOUT], (unsigned long long)f[LDB_FAIL_SERVER_DOWN],
		        (unsigned long long)o->setup.bind_refused);
	}
	int never = ldb_totals_never_connected(o);
	if (never > o->clients_waiting) {
		prefix(t, false);
		fprintf(t->out,
		        "Clients that never connected: %d of %d (connect still under way at the end %d, refused %d, "
		        "timed "
		        "out %d, failed otherwise %d, never began one %d)\n",
		        never, s->threads, o->clients_pending, o->clients_refused, o->clients_timed_out,
		        o->clients_failed, o->clients_waiting);
	}
}

/* --held, --connect-rate: the connections up at the end, lost while up,
 * opened again; how long after the start all were first up. */
static void summary_held(struct ldb_text *t, const struct ldb_summary *s)
{
	long long n = s->held;
	prefix(t, false);
	fprintf(t->out, "Held connections: %lld of %lld up at the end, lost %llu, re-opened %llu; ",
	        (long long)s->tot.conns_up, n, (unsigned long long)s->tot.conns_lost,
	        (unsigned long long)s->tot.reconnects);
	if (s->tot.clients_all_up == s->threads)
		fprintf(t->out, "all %lld connected %.3f s after the start\n", n, (double)s->tot.all_up_ns / 1e9);
	else
		fprintf(t->out, "never all connected at once\n");
}

/* client failures, connections, parents, TLS */
static void summary_client(struct ldb_text *t, const struct ldb_summary *s)
{
	const struct ldb_config *c = t->cfg;
	uint64_t fails[LDB_FAIL_COUNT] = { 0 };
	for (int k = 0; k < LDB_OP_COUNT; k++)
		for (int f = 0; f < LDB_FAIL_COUNT; f++)
			fails[f] += s->tot.op[k].fails[f];
	for (int f = 0; f < LDB_FAIL_COUNT; f++) /* the operations' and the set-ups' */
		fails[f] += s->tot.setup.fails[f];
	prefix(t, false);
	fprintf(t->out, "Client failures: connect %llu, tls %llu, timeout %llu, server down %llu\n",
	        (unsigned long long)fails[LDB_FAIL_CONNECT], (unsigned long long)fails[LDB_FAIL_TLS],
	        (unsigned long long)fails[LDB_FAIL_TIMEOUT], (unsigned long long)fails[LDB_FAIL_SERVER_DOWN]);
	prefix(t, false);
	fprintf(t->out, "Connections: opened %llu, reconnects %llu, binds at connect %llu\n",
	        (unsigned long long)s->tot.connects, (unsigned long long)s->tot.reconnects,
	        (unsigned long long)s->tot.setup_binds);
	if (s->held > 0)
		summary_held(t, s);
	if (s->unreachable != NULL) {
		prefix(t, false);
		fprintf(t->out, "No connection could be opened to %s: %s\n", s->unreachable, s->unreachable_why);
	}
	summary_setups(t, s);
	if (s->tot.parents_created > 0) {
		prefix(t, false);
		fprintf(t->out, "Intermediate nodes created: %llu\n", (unsigned long long)s->tot.parents_created);
	}
	summary_parents(t, s);
	if (c->ldaps || c->starttls) {
		prefix(t, false);
		fprintf(t->out, "TLS: handshakes %llu, resumed %llu, server certificate %s\n",
		        (unsigned long long)s->tot.tls_handshakes, (unsigned long long)s->tot.tls_resumed,
		        c->tls_insecure ? "NOT verified (--tls-insecure or -Z without a CA)" : "verified");
	}
}

void ldb_text_summary(struct ldb_text *t, const struct ldb_summary *s)
{
	double rate = s->seconds > 0 ? (double)s->counted / s->seconds : 0.0;
	if (s->pending != NULL) {
		/* ldclt's pending operations (-a), first of its statistics */
		uint64_t total = 0;
		for (int i = 0; i < s->threads; i++) {
			prefix(t, false);
			fprintf(t->out, "T%03d: pendingNb=%llu\n", i, (unsigned long long)s->pending[i]);
			total += s->pending[i];
		}
		prefix(t, false);
		fprintf(t->out, "Global total pending operations: %llu\n", (unsigned long long)total);
	}
	prefix(t, false);
	fprintf(t->out, "Global average rate: %7.2f/thr  (%6.2f/sec), total: %6llu\n",
	        (double)s->counted / (double)s->threads, rate, (unsigned long long)s->counted);
	prefix(t, false);
	if (s->no_activity == 0)
		fprintf(t->out, "Global number times \"no activity\" reports: never\n");
	else
		fprintf(t->out, "Global number times \"no activity\" reports: %lld\n", s->no_activity);
	if (s->dead > 0) {
		prefix(t, false);
		fprintf(t->out, "Global number of dead threads: %d\n", s->dead);
	}
	summary_errors(t, s);
	summary_misses(t, s);

	/* ldbench's own lines */
	prefix(t, false);
	fprintf(t->out, "Measured time: %.3f s\n", s->seconds);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opstats *o = &s->tot.op[k];
		if (s->lat[k] != NULL && (o->attempted > 0 || o->completed > 0 || ldb_opstats_errors(o) > 0))
			summary_kind(t, s, k);
	}
	if (s->rate_target > 0) {
		double pct = 100.0 * (rate - s->rate_target) / s->rate_target;
		prefix(t, false);
		fprintf(t->out, "Target rate: %.2f/sec, achieved %.2f/sec (%+.1f %%)%s\n", s->rate_target, rate, pct,
		        pct < -1.0 ? ": target not reached (the server or this client could not keep up; latencies"
		                     " count from the intended start)"
		                   : "");
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (s->stage[k] != NULL && ldb_hist_count(s->stage[k]) > 0)
			latency_line(t, false, stage_label((enum ldb_stage)k), s->stage[k], true);
	summary_server(t, s);
	summary_client(t, s);
	client_lines(t, s->client, false, true);
	fflush(t->out);
}

/* An input file could not be used (ldclt's "Cannot initialize"): the
 * version line, then the Ending and Exit lines, as ldclt prints them. */
void ldb_text_init_failed(struct ldb_text *t)
{
	char line[96];
	ldb_version_line(line, sizeof line, t->o->progname);
	fprintf(t->out, "%s\n", line);
	ldb_text_end(t, LDB_EXIT_INIT);
}

void ldb_text_end(struct ldb_text *t, int status)
{
	time_t now = time(NULL);
	prefix(t, false);
	fprintf(t->out, "Ending at %s", ctime(&now));
	prefix(t, false);
	fprintf(t->out, "Exit status %d - %s\n", status, ldb_exit_text_prog(status, t->o->progname));
	fflush(t->out);
}
