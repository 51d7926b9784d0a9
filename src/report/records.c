/* The results file: see records.h. */
#include "report/records.h"

#include "server/monitor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "report/json.h"

/* ------------------------------------------------------------ writer */

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void put_u64(FILE *f, const char *name, uint64_t v, bool comma)
{
	fprintf(f, "%s\"%s\":%llu", comma ? "," : "", name, (unsigned long long)v);
}

/* "latency_us":{...}: count, min, [mean,] p50, p95, p99, [p99.9,] max; the
 * values null when nothing was recorded. */
void ldb_records_put_latency(FILE *f, const struct ldb_hist *h, bool full)
{
	uint64_t n = ldb_hist_count(h);
	fprintf(f, "\"latency_us\":{\"count\":%llu", (unsigned long long)n);
	static const double pct[] = { 50, 95, 99, 99.9 };
	static const char *const pname[] = { "p50", "p95", "p99", "p99.9" };
	if (n == 0) {
		fputs(",\"min\":null", f);
		if (full)
			fputs(",\"mean\":null", f);
		for (int i = 0; i < 4; i++)
			if (full || i < 3)
				fprintf(f, ",\"%s\":null", pname[i]);
		fputs(",\"max\":null}", f);
		return;
	}
	fprintf(f, ",\"min\":%.3f", us(h->min));
	if (full)
		fprintf(f, ",\"mean\":%.3f", ldb_hist_mean(h) / 1e3);
	for (int i = 0; i < 4; i++)
		if (full || i < 3)
			fprintf(f, ",\"%s\":%.3f", pname[i], us(ldb_hist_percentile(h, pct[i])));
	fprintf(f, ",\"max\":%.3f}", us(h->max));
}

const char *const ldb_records_fail_names[LDB_FAIL_COUNT] = { "connect", "tls", "timeout", "server_down" };

/* The counters of one kind: the members shared by sample and summary records. */
void ldb_records_put_counts(FILE *f, const struct ldb_opstats *o, double rate)
{
	put_u64(f, "attempted", o->attempted, false);
	put_u64(f, "completed", o->completed, true);
	put_u64(f, "succeeded", o->succeeded, true);
	put_u64(f, "counted", o->counted, true);
	put_u64(f, "errors", ldb_opstats_errors(o), true);
	put_u64(f, "entries", o->entries, true);
	if (o->deref_values > 0) /* -e deref */
		put_u64(f, "deref_values", o->deref_values, true);
	if (o->sort_results > 0) { /* --sort-order */
		put_u64(f, "sort_results", o->sort_results, true);
		put_u64(f, "sort_failed", o->sort_failed, true);
	}
	if (o->pages > 0) /* --simple-page-size */
		put_u64(f, "pages", o->pages, true);
	if (o->preread_entries > 0) /* --pre-read-attribute */
		put_u64(f, "preread_entries", o->preread_entries, true);
	if (o->postread_entries > 0) /* --post-read-attribute */
		put_u64(f, "postread_entries", o->postread_entries, true);
	if (o->referrals > 0) /* search references and referral results */
		put_u64(f, "referrals", o->referrals, true);
	if (o->referrals_followed > 0) { /* -e referral=on|rebind */
		put_u64(f, "referrals_followed", o->referrals_followed, true);
		put_u64(f, "referrals_followed_ok", o->referrals_followed_ok, true);
	}
	if (o->ppolicy_responses > 0) { /* --ppolicy: the response controls by name */
		fprintf(f, ",\"ppolicy\":{\"responses\":%llu", (unsigned long long)o->ppolicy_responses);
		for (int i = 0; i < LDB_PP_COUNT; i++)
			fprintf(f, ",\"%s\":%llu", ldb_ppolicy_name(i), (unsigned long long)o->ppolicy[i]);
		fputc('}', f);
	}
	if (o->bad_password[LDB_NOTE_BAD_REFUSED] + o->bad_password[LDB_NOTE_BAD_ACCEPTED] +
	            o->bad_password[LDB_NOTE_BAD_OTHER] >
	    0) /* --bad-password */
		fprintf(f, ",\"bad_password\":{\"refused\":%llu,\"accepted\":%llu,\"other\":%llu}",
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_REFUSED],
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_ACCEPTED],
		        (unsigned long long)o->bad_password[LDB_NOTE_BAD_OTHER]);
	put_u64(f, "exp_hits", o->exp_hits, true);
	put_u64(f, "exp_misses", o->exp_misses, true);
	fprintf(f, ",\"rate\":%.3f,\"errors_by_code\":{", rate);
	bool first = true;
	for (int code = LDB_CODE_MIN; code <= LDB_CODE_MAX; code++) {
		uint64_t n = o->codes[ldb_code_slot(code)];
		if (n == 0)
			continue;
		fprintf(f, "%s\"%d\":%llu", first ? "" : ",", code, (unsigned long long)n);
		first = false;
	}
	if (o->codes[LDB_CODE_ILLEGAL] != 0)
		fprintf(f, "%s\"illegal\":%llu", first ? "" : ",", (unsigned long long)o->codes[LDB_CODE_ILLEGAL]);
	fputs("},\"client_failures\":{", f);
	for (int k = 0; k < LDB_FAIL_COUNT; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "", ldb_records_fail_names[k], (unsigned long long)o->fails[k]);
	fputc('}', f);
}

/* The lossless histogram text, malloc'ed. */
static char *encode(const struct ldb_hist *h)
{
	size_t n = ldb_hist_encode(h, NULL, 0);
	char *b = malloc(n + 1);
	if (b != NULL)
		ldb_hist_encode(h, b, n + 1);
	return b;
}

/* "never_connected" (clients by reason) and "setup_failures" (with their
 * codes), members of "connections" */
static void put_setups(FILE *f, const struct ldb_totals *t)
{
	fprintf(f,
	        ",\"never_connected\":{\"total\":%d,\"not_started\":%d,\"pending\":%d,\"refused\":%d,"
	        "\"timed_out\":%d,\"failed\":%d}",
	        ldb_totals_never_connected(t), t->clients_waiting, t->clients_pending, t->clients_refused,
	        t->clients_timed_out, t->clients_failed);
	const struct ldb_setupstats *u = &t->setup;
	fputs(",\"setup_failures\":{", f);
	for (int k = 0; k < LDB_FAIL_COUNT; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "", ldb_records_fail_names[k], (unsigned long long)u->fails[k]);
	fprintf(f, ",\"bind_refused\":%llu,\"errors\":%llu,\"errors_by_code\":{", (unsigned long long)u->bind_refused,
	        (unsigned long long)ldb_setup_errors(u));
	bool first = true;
	for (int code = LDB_CODE_MIN; code <= LDB_CODE_MAX; code++) {
		uint64_t n = u->codes[ldb_code_slot(code)];
		if (n == 0)
			continue;
		fprintf(f, "%s\"%d\":%llu", first ? "" : ",", code, (unsigned long long)n);
		first = false;
	}
	if (u->codes[LDB_CODE_ILLEGAL] != 0)
		fprintf(f, "%s\"illegal\":%llu", first ? "" : ",", (unsigned long long)u->codes[LDB_CODE_ILLEGAL]);
	fputs("}}", f);
}

/* parent creation's container adds, by result */
static void put_parents(FILE *f, const struct ldb_totals *t)
{
	uint64_t adds = t->parents_created + t->parent_exists + t->parent_noparent + t->parent_other;
	fprintf(f,
	        ",\"parents\":{\"adds\":%llu,\"created\":%llu,\"already_exists\":%llu,\"no_parent\":%llu,"
	        "\"other\":%llu,\"retried\":%llu}",
	        (unsigned long long)adds, (unsigned long long)t->parents_created, (unsigned long long)t->parent_exists,
	        (unsigned long long)t->parent_noparent, (unsigned long long)t->parent_other,
	        (unsigned long long)t->parent_retries);
}

/* ,"unreachable":{"address":...,"reason":...} when no connection could be
 * opened, else null */
static void put_unreachable(FILE *f, const struct ldb_summary *s)
{
	fputs(",\"unreachable\":", f);
	if (s->unreachable == NULL) {
		fputs("null", f);
		return;
	}
	fputs("{\"address\":", f);
	ldb_json_put_string(f, s->unreachable);
	fputs(",\"reason\":", f);
	ldb_json_put_string(f, s->unreachable_why);
	fputc('}', f);
}

/* "connections": opened, reconnects, the binds that opened them, why none
 * could be opened, the set-ups that failed. */
static void put_connections(FILE *f, const struct ldb_summary *s)
{
	fprintf(f, ",\"connections\":{\"opened\":%llu,\"reconnects\":%llu,\"setup_binds\":%llu",
	        (unsigned long long)s->tot.connects, (unsigned long long)s->tot.reconnects,
	        (unsigned long long)s->tot.setup_binds);
	put_unreachable(f, s);
	put_setups(f, &s->tot);
	fputc('}', f);
}

/* --held, --connect-rate: the connections asked for, up at the end, lost
 * while up, opened again, and when all were first up. */
static void put_held(FILE *f, const struct ldb_summary *s)
{
	fprintf(f, ",\"held\":{\"connections\":%lld,\"up\":%lld,\"lost\":%llu,\"reopened\":%llu,", s->held,
	        (long long)s->tot.conns_up, (unsigned long long)s->tot.conns_lost,
	        (unsigned long long)s->tot.reconnects);
	if (s->tot.clients_all_up == s->threads)
		fprintf(f, "\"all_connected_s\":%.6f}", (double)s->tot.all_up_ns / 1e9);
	else
		fputs("\"all_connected_s\":null}", f);
}

int ldb_records_write_summary(FILE *f, const struct ldb_summary *s, const struct ldb_records_rates *rates,
                              const char *extra)
{
	int rc = 0;
	double secs = s->seconds > 0 ? s->seconds : 0;
	fprintf(f, "{\"type\":\"summary\",\"schema\":%d,\"seconds\":%.6f", LDB_RECORDS_SCHEMA, secs);
	put_u64(f, "counted", s->counted, true);
	fprintf(f, ",\"rate\":%.3f", rates ? rates->rate : secs > 0 ? (double)s->counted / secs : 0.0);
	fprintf(f, ",\"rate_target\":%.3f", s->rate_target);
	fprintf(f, ",\"threads\":%d,\"no_activity\":%lld,\"dead_threads\":%d,\"status\":%d", s->threads, s->no_activity,
	        s->dead, s->status);
	put_connections(f, s);
	put_parents(f, &s->tot);
	fputs(",\"ops\":{", f);
	bool first = true;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		const struct ldb_opstats *o = &s->tot.op[k];
		double r = rates ? rates->op[k] : secs > 0 ? (double)o->counted / secs : 0.0;
		fprintf(f, "%s\"%s\":{", first ? "" : ",", ldb_op_name((enum ldb_op)k));
		first = false;
		ldb_records_put_counts(f, o, r);
		fputc(',', f);
		ldb_records_put_latency(f, s->lat[k], true);
		char *h = encode(s->lat[k]);
		if (h == NULL)
			rc = -1;
		fprintf(f, ",\"histogram\":\"%s\"", h ? h : "");
		free(h);
		if (s->ulat[k] != NULL) {
			fputs(",\"uncorrected\":{", f);
			ldb_records_put_latency(f, s->ulat[k], true);
			h = encode(s->ulat[k]);
			if (h == NULL)
				rc = -1;
			fprintf(f, ",\"histogram\":\"%s\"}", h ? h : "");
			free(h);
		}
		fputc('}', f);
	}
	fputs("},\"stages\":{", f);
	first = true;
	for (int k = 0; k < LDB_STAGE_COUNT; k++) {
		if (s->stage[k] == NULL)
			continue;
		fprintf(f, "%s\"%s\":{", first ? "" : ",", ldb_stage_name(k));
		first = false;
		ldb_records_put_latency(f, s->stage[k], true);
		char *h = encode(s->stage[k]);
		if (h == NULL)
			rc = -1;
		fprintf(f, ",\"histogram\":\"%s\"}", h ? h : "");
		free(h);
	}
	fputc('}', f);
	if (s->server != NULL && s->server->kind != LDB_MON_NONE) { /* --monitor */
		bool used[LDB_OP_COUNT];
		for (int k = 0; k < LDB_OP_COUNT; k++)
			used[k] = s->lat[k] != NULL;
		ldb_monitor_put_json(f, s->server, &s->tot, used);
	}
	if (s->client != NULL)
		ldb_client_put_json(f, s->client); /* the client's own figures */
	if (s->held > 0)                           /* --held, --connect-rate */
		put_held(f, s);
	/* the parts beside the load: -S's consumers, the join with the server's log, a replay's report */
	for (int i = 0; i < s->nparts; i++)
		if (s->part[i]->ops->json != NULL)
			s->part[i]->ops->json(s->part[i], f);
	if (extra != NULL)
		fputs(extra, f);
	fputs("}\n", f);
	if (fflush(f) != 0 || ferror(f))
		rc = -1;
	return rc;
}

/* ------------------------------------------------------------ reader */

/* The one lookup of a kind by its record name (the ops table will own it). */
int ldb_records_kind(const char *name)
{
	return ldb_op_from_name(name, strlen(name), false);
}

int ldb_records_row_kind(const struct ldb_json *ops, const char *name)
{
	int k = ldb_op_from_name(name, strlen(name), false);
	if (k >= 0)
		return k;
	/* a flow's rows, named by its --flow: NAME beside its steps NAME.* */
	size_t plen = strcspn(name, ".");
	bool flow = false, step = false;
	for (const struct ldb_json *o = ops != NULL ? ops->child : NULL; o != NULL; o = o->next)
		if (strncmp(o->key, name, plen) == 0) {
			flow |= o->key[plen] == '\0';
			step |= o->key[plen] == '.' && o->key[plen + 1] != '\0';
		}
	return flow && step ? ldb_flow_adopt_row(name) : -1;
}

/* Every summary record of a file (a --find-max file has one per step). */
struct kept {
	struct ldb_json **v;
	int n;
};

static int keep_summary(struct kept *k, struct ldb_json *v)
{
	struct ldb_json **more = realloc(k->v, (size_t)(k->n + 1) * sizeof *more);
	if (more == NULL) {
		ldb_json_free(v);
		return -1;
	}
	k->v = more;
	k->v[k->n++] = v;
	return 0;
}

/* The summary a file stands for: the last one, or in a --find-max file the
 * one its final record names (chosen, from 1); the rest are freed.  chosen
 * -1: free them all. */
static struct ldb_json *pick_summary(struct kept *k, long long chosen)
{
	int pick = chosen >= 1 && chosen <= k->n ? (int)chosen - 1 : chosen < 0 ? -1 : k->n - 1;
	struct ldb_json *v = pick >= 0 ? k->v[pick] : NULL;
	for (int i = 0; i < k->n; i++)
		if (i != pick)
			ldb_json_free(k->v[i]);
	free(k->v);
	k->v = NULL;
	k->n = 0;
	return v;
}

int ldb_records_load(const char *path, struct ldb_json **header, struct ldb_json **summary, char *err, size_t cap)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, perr[200];
	size_t lcap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = -1;
	struct kept kept = { NULL, 0 };
	long long chosen = 0;

	*header = *summary = NULL;
	if (f == NULL) {
		snprintf(err, cap, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (strlen(line) != (size_t)n) {
			snprintf(err, cap, "%s:%ld: NUL byte in the line", path, lineno);
			goto out;
		}
		struct ldb_json *v = ldb_json_parse(line, (size_t)n, perr, sizeof perr);
		if (v == NULL) {
			snprintf(err, cap, "%s:%ld: not JSON: %s", path, lineno, perr);
			goto out;
		}
		const char *type = ldb_json_str(ldb_json_get(v, "type"));
		const struct ldb_json *schema = ldb_json_get(v, "schema");
		long long sv = 0;
		if (type == NULL) {
			snprintf(err, cap, "%s:%ld: not an ldbench record (no \"type\")", path, lineno);
			ldb_json_free(v);
			goto out;
		}
		if (schema != NULL && (ldb_json_ll(schema, &sv) != 0 || sv != LDB_RECORDS_SCHEMA)) {
			snprintf(err, cap, "%s:%ld: records of schema %s; this ldbench reads schema %d", path, lineno,
			         schema->type == LDB_JSON_NUMBER ? schema->text : "?", LDB_RECORDS_SCHEMA);
			ldb_json_free(v);
			goto out;
		}
		if (strcmp(type, "summary") == 0) {
			if (keep_summary(&kept, v) != 0) {
				snprintf(err, cap, "%s: out of memory", path);
				goto out;
			}
		} else if (strcmp(type, "find_max") == 0) {
			(void)ldb_json_ll(ldb_json_get(v, "summary_index"), &chosen);
			ldb_json_free(v);
		} else if (strcmp(type, "header") == 0 && *header == NULL) {
			*header = v;
		} else {
			ldb_json_free(v);
		}
	}
	if (ferror(f)) {
		snprintf(err, cap, "%s: read error: %s", path, strerror(errno));
		goto out;
	}
	*summary = pick_summary(&kept, chosen);
	if (*summary == NULL) {
		snprintf(err, cap, "%s: no summary record (did the run finish?)", path);
		goto out;
	}
	rc = 0;
out:
	(void)pick_summary(&kept, -1);
	free(line);
	fclose(f);
	if (rc != 0) {
		ldb_json_free(*header);
		ldb_json_free(*summary);
		*header = *summary = NULL;
	}
	return rc;
}
