/* `ldbench merge` (merge.h): the summary records of several files added
 * into one. */
#include "cmd/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/argv.h"
#include "util/num.h"
#include "ops/ops.h"

#define PROG "ldbench merge"

static int get_u64(const struct ldb_json *o, const char *name, uint64_t *out, const char *path, const char *where,
                   char *err, size_t cap)
{
	uint64_t v;
	if (ldb_json_u64(ldb_json_get(o, name), &v) != 0) {
		snprintf(err, cap, "%s: summary record: %s%s%s is missing or not a count", path, where,
		         where[0] ? "." : "", name);
		return -1;
	}
	*out += v;
	return 0;
}

/* Decode a "histogram" member and add it into *dst (initialised on first use). */
static int add_hist(struct ldb_merged *m, const struct ldb_json *o, struct ldb_hist *dst, bool *init, const char *path,
                    const char *where, char *err, size_t cap)
{
	const char *text = ldb_json_str(ldb_json_get(o, "histogram"));
	if (text == NULL) {
		snprintf(err, cap, "%s: summary record: %s has no histogram", path, where);
		return -1;
	}
	if (ldb_hist_decode(&m->tmp, text) != 0) {
		snprintf(err, cap, "%s: summary record: %s.histogram is not a valid histogram text", path, where);
		return -1;
	}
	if (!*init) {
		if (ldb_hist_init(dst) != 0) {
			snprintf(err, cap, "out of memory");
			return -1;
		}
		*init = true;
	}
	ldb_hist_add(dst, &m->tmp);
	return 0;
}

/* The counter slot of an "errors_by_code" member: "illegal", or a result
 * code in LDB_CODE_MIN..LDB_CODE_MAX.  @return the slot, or -1. */
static int code_slot(const char *key)
{
	long long code;
	if (strcmp(key, "illegal") == 0)
		return LDB_CODE_ILLEGAL;
	if (ldb_num_ll(key, &code) != LDB_NUM_OK || code < LDB_CODE_MIN || code > LDB_CODE_MAX)
		return -1;
	return ldb_code_slot((int)code);
}

static int add_kind(struct ldb_merged *m, int k, const struct ldb_json *o, const char *path, char *err, size_t cap)
{
	struct ldb_opstats *d = &m->tot.op[k];
	const char *kn = ldb_op_name((enum ldb_op)k);
	double rate;

	if (o->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "%s: summary record: ops.%s is not an object", path, kn);
		return -1;
	}
	if (get_u64(o, "attempted", &d->attempted, path, kn, err, cap) ||
	    get_u64(o, "completed", &d->completed, path, kn, err, cap) ||
	    get_u64(o, "succeeded", &d->succeeded, path, kn, err, cap) ||
	    get_u64(o, "counted", &d->counted, path, kn, err, cap) ||
	    get_u64(o, "entries", &d->entries, path, kn, err, cap) ||
	    get_u64(o, "exp_hits", &d->exp_hits, path, kn, err, cap) ||
	    get_u64(o, "exp_misses", &d->exp_misses, path, kn, err, cap))
		return -1;
	if (ldb_json_double(ldb_json_get(o, "rate"), &rate) != 0) {
		snprintf(err, cap, "%s: summary record: %s.rate is missing or not a number", path, kn);
		return -1;
	}
	m->rates.op[k] += rate;
	const struct ldb_json *codes = ldb_json_get(o, "errors_by_code");
	if (codes == NULL || codes->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "%s: summary record: %s.errors_by_code is missing", path, kn);
		return -1;
	}
	for (const struct ldb_json *c = codes->child; c != NULL; c = c->next) {
		uint64_t n;
		int slot = code_slot(c->key);
		if (slot < 0 || ldb_json_u64(c, &n) != 0) {
			snprintf(err, cap, "%s: summary record: %s.errors_by_code: bad member \"%s\"", path, kn,
			         c->key);
			return -1;
		}
		d->codes[slot] += n;
	}
	const struct ldb_json *fails = ldb_json_get(o, "client_failures");
	for (int f = 0; f < LDB_FAIL_COUNT; f++) {
		char where[64];
		snprintf(where, sizeof where, "%s.client_failures", kn);
		if (get_u64(fails, ldb_records_fail_names[f], &d->fails[f], path, where, err, cap))
			return -1;
	}
	const struct ldb_json *u = ldb_json_get(o, "uncorrected");
	if (u != NULL && add_hist(m, u, &m->ulat[k], &m->ulat_init[k], path, kn, err, cap) != 0)
		return -1;
	return add_hist(m, o, &m->lat[k], &m->lat_init[k], path, kn, err, cap);
}

/* An optional count (records written before it existed have none). */
static void opt_u64(const struct ldb_json *o, const char *name, uint64_t *out)
{
	uint64_t v;
	if (o != NULL && ldb_json_u64(ldb_json_get(o, name), &v) == 0)
		*out += v;
}

static void opt_int(const struct ldb_json *o, const char *name, int *out)
{
	uint64_t v = 0;
	opt_u64(o, name, &v);
	*out += (int)v;
}

/* connections.never_connected and connections.setup_failures add. */
static void add_setups(struct ldb_merged *m, const struct ldb_json *conn)
{
	const struct ldb_json *nc = ldb_json_get(conn, "never_connected");
	opt_int(nc, "not_started", &m->tot.clients_waiting);
	opt_int(nc, "pending", &m->tot.clients_pending);
	opt_int(nc, "refused", &m->tot.clients_refused);
	opt_int(nc, "timed_out", &m->tot.clients_timed_out);
	opt_int(nc, "failed", &m->tot.clients_failed);
	const struct ldb_json *su = ldb_json_get(conn, "setup_failures");
	for (int f = 0; f < LDB_FAIL_COUNT; f++)
		opt_u64(su, ldb_records_fail_names[f], &m->tot.setup.fails[f]);
	opt_u64(su, "bind_refused", &m->tot.setup.bind_refused);
	const struct ldb_json *codes = ldb_json_get(su, "errors_by_code");
	for (const struct ldb_json *c = codes ? codes->child : NULL; c != NULL; c = c->next) {
		int slot = code_slot(c->key);
		if (slot >= 0)
			opt_u64(codes, c->key, &m->tot.setup.codes[slot]);
	}
}

/* --server-log: a record's join added to the merged one (none: nothing). */
static int add_join(struct ldb_merged *m, const struct ldb_json *o, const char *path, char *err, size_t cap)
{
	if (o == NULL)
		return 0;
	struct ldb_join j;
	char why[400];
	if (ldb_join_from_json(&j, o, why, sizeof why) != 0) {
		snprintf(err, cap, "%s: summary record: %s", path, why);
		return -1;
	}
	int rc = ldb_join_merge(&m->join, &j);
	ldb_join_free(&j);
	if (rc != 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	m->njoin++;
	return 0;
}

/* [workload] sections: each workload's record added to its own merge,
 * matched by name.  @return 0, or -1 with one line in err. */
static int add_workloads(struct ldb_merged *m, const struct ldb_json *sum, const char *path, char *err, size_t cap)
{
	const struct ldb_json *w = ldb_json_get(sum, "workloads");
	if (w == NULL)
		return 0;
	if (w->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "%s: summary record: \"workloads\" is not an object", path);
		return -1;
	}
	for (const struct ldb_json *o = w->child; o != NULL; o = o->next) {
		int j = 0;
		while (j < m->nwl && strcmp(m->wl_name[j], o->key) != 0)
			j++;
		if (j == m->nwl) {
			struct ldb_merged *nw = realloc(m->wl, sizeof *nw * (size_t)(m->nwl + 1));
			if (nw != NULL)
				m->wl = nw;
			char(*nn)[32] = realloc(m->wl_name, sizeof *nn * (size_t)(m->nwl + 1));
			if (nn != NULL)
				m->wl_name = nn;
			if (nw == NULL || nn == NULL || ldb_merge_init(&m->wl[j]) != 0) {
				snprintf(err, cap, "out of memory");
				return -1;
			}
			snprintf(m->wl_name[j], sizeof m->wl_name[j], "%s", o->key);
			m->nwl++;
		}
		char where[600];
		snprintf(where, sizeof where, "%s: workload %s", path, o->key);
		if (ldb_merge_add(&m->wl[j], o, where, err, cap) != 0)
			return -1;
	}
	return 0;
}

int ldb_merge_add(struct ldb_merged *m, const struct ldb_json *sum, const char *path, char *err, size_t cap)
{
	double secs, rate;
	long long threads, status, dead, noact;
	const struct ldb_json *conn = ldb_json_get(sum, "connections");

	if (ldb_json_double(ldb_json_get(sum, "seconds"), &secs) || ldb_json_double(ldb_json_get(sum, "rate"), &rate) ||
	    ldb_json_ll(ldb_json_get(sum, "threads"), &threads) || ldb_json_ll(ldb_json_get(sum, "status"), &status) ||
	    ldb_json_ll(ldb_json_get(sum, "dead_threads"), &dead) ||
	    ldb_json_ll(ldb_json_get(sum, "no_activity"), &noact)) {
		snprintf(err, cap,
		         "%s: summary record: seconds, rate, threads, status, dead_threads or no_activity missing",
		         path);
		return -1;
	}
	if (get_u64(sum, "counted", &m->s.counted, path, "", err, cap) ||
	    get_u64(conn, "opened", &m->tot.connects, path, "connections", err, cap) ||
	    get_u64(conn, "reconnects", &m->tot.reconnects, path, "connections", err, cap) ||
	    get_u64(conn, "setup_binds", &m->tot.setup_binds, path, "connections", err, cap))
		return -1;
	add_setups(m, conn);
	if (secs > m->s.seconds)
		m->s.seconds = secs;
	m->rates.rate += rate;
	double target = 0;
	if (ldb_json_get(sum, "rate_target") != NULL && ldb_json_double(ldb_json_get(sum, "rate_target"), &target) == 0)
		m->s.rate_target += target;
	m->s.threads += (int)threads;
	m->s.dead += (int)dead;
	m->s.no_activity += noact;
	if (status > m->s.status)
		m->s.status = (int)status;

	const struct ldb_json *ops = ldb_json_get(sum, "ops");
	if (ops == NULL || ops->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "%s: summary record: no \"ops\" object", path);
		return -1;
	}
	for (const struct ldb_json *o = ops->child; o != NULL; o = o->next) {
		int k = ldb_records_row_kind(ops, o->key);
		if (k < 0) {
			snprintf(err, cap, "%s: summary record: unknown operation kind \"%s\"", path, o->key);
			return -1;
		}
		if (add_kind(m, k, o, path, err, cap) != 0)
			return -1;
	}
	const struct ldb_json *stages = ldb_json_get(sum, "stages");
	for (int k = 0; k < LDB_STAGE_COUNT; k++) {
		const struct ldb_json *o = ldb_json_get(stages, ldb_stage_name(k));
		if (o != NULL &&
		    add_hist(m, o, &m->stage[k], &m->stage_init[k], path, ldb_stage_name(k), err, cap) != 0)
			return -1;
	}
	if (add_join(m, ldb_json_get(sum, "join"), path, err, cap) != 0 || add_workloads(m, sum, path, err, cap) != 0)
		return -1;
	if (ldb_listen_merge_add(&m->listen, sum, path, err, cap) != 0)
		return -1;
	return ldb_repl_merge_add(&m->repl, sum, path, err, cap);
}

enum { M_HELP, M_JSON };

/* The command's options (util/optable.h): the parse and --help's lines. */
const struct ldb_opt ldb_merge_options[] = {
	{ "help", 'h', NULL, M_HELP, NULL, NULL },
	{ "json", 0, "OUT", M_JSON, "the merged record to OUT (- = stdout, the table then to stderr)", NULL },
	LDB_OPT_END
};

static void usage(FILE *out)
{
	fputs("usage: ldbench merge [--json OUT] FILE...\n"
	      "Add the summary records of runs made at the same time on several client hosts:\n"
	      "counts and rates add, latency histograms add exactly, percentiles come from the\n"
	      "merged histogram.  A table (latencies in ms) goes to stdout; the merged record\n"
	      "goes to OUT with --json OUT (--json -: the record to stdout, the table to\n"
	      "stderr).  Options may come anywhere on the line (GNU style); -- ends them.\n"
	      "See docs/results.md.\n"
	      "Exit status: 0 done, 2 bad command line or input, 99 write error.\n",
	      out);
	ldb_opt_help(ldb_merge_options, 14, 14, out);
}

static void print_table(const struct ldb_merged *m, int nfiles, char *const *files, char *const *hosts, FILE *out)
{
	fprintf(out, "merged %d run%s:", nfiles, nfiles == 1 ? "" : "s");
	for (int i = 0; i < nfiles; i++)
		fprintf(out, " %s%s%s%s", files[i], hosts[i] ? " (" : "", hosts[i] ? hosts[i] : "",
		        hosts[i] ? ")" : "");
	fprintf(out, "\nmeasured %.3f s (longest), threads %d, counted %llu, rate %.2f/s (sum)\n", m->s.seconds,
	        m->s.threads, (unsigned long long)m->s.counted, m->rates.rate);
	fprintf(out, "%-8s %12s %12s %12s %10s %10s %10s %10s %10s\n", "kind", "completed", "counted", "rate/s",
	        "p50 ms", "p95 ms", "p99 ms", "p99.9 ms", "max ms");
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (!m->lat_init[k])
			continue;
		const struct ldb_hist *h = &m->lat[k];
		fprintf(out, "%-8s %12llu %12llu %12.2f", ldb_op_name((enum ldb_op)k),
		        (unsigned long long)m->tot.op[k].completed, (unsigned long long)m->tot.op[k].counted,
		        m->rates.op[k]);
		if (ldb_hist_count(h) == 0)
			fprintf(out, " %10s %10s %10s %10s %10s\n", "-", "-", "-", "-", "-");
		else
			fprintf(out, " %10.3f %10.3f %10.3f %10.3f %10.3f\n", ldb_hist_percentile(h, 50) / 1e6,
			        ldb_hist_percentile(h, 95) / 1e6, ldb_hist_percentile(h, 99) / 1e6,
			        ldb_hist_percentile(h, 99.9) / 1e6, (double)h->max / 1e6);
	}
	for (int j = 0; j < m->nwl; j++)
		fprintf(out, "workload %s: threads %d, counted %llu, rate %.2f/s (sum)\n", m->wl_name[j],
		        m->wl[j].s.threads, (unsigned long long)m->wl[j].s.counted, m->wl[j].rates.rate);
	if (m->njoin > 0) {
		fprintf(out, "the joins with the servers' logs of %d of the %d runs, added:\n", m->njoin, nfiles);
		ldb_join_text(&m->join, out);
	}
}

/* ",\"merged\":{\"runs\":N,\"files\":[...],\"hosts\":[...]}" (malloc'ed). */
static char *merged_member(int n, char *const *files, char *const *hosts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	fprintf(f, ",\"merged\":{\"runs\":%d,\"files\":[", n);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		ldb_json_put_string(f, files[i]);
	}
	fputs("],\"hosts\":[", f);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		if (hosts[i])
			ldb_json_put_string(f, hosts[i]);
		else
			fputs("null", f);
	}
	fputs("]}", f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ldb_merge_init(struct ldb_merged *m)
{
	memset(m, 0, sizeof *m);
	return ldb_hist_init(&m->tmp);
}

void ldb_merge_finish(struct ldb_merged *m)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (m->lat_init[k])
			m->s.lat[k] = &m->lat[k];
		if (m->lat_init[k] && m->ulat_init[k])
			m->s.ulat[k] = &m->ulat[k];
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (m->stage_init[k])
			m->s.stage[k] = &m->stage[k];
	m->s.tot = m->tot;
	m->s.tot.counted = m->s.counted;
	if (m->repl.n > 0)
		ldb_summary_add(&m->s, ldb_repl_part(&m->repl_part, m->repl.f, m->repl.n));
	if (m->listen.n > 0)
		ldb_summary_add(&m->s, ldb_listen_part(&m->lpart, &m->listen.f));
	if (m->njoin > 0) {
		ldb_join_conclude(&m->join);
		ldb_summary_add(&m->s, ldb_join_part(&m->join));
	}
	if (m->nwl > 0 && (m->wsum = calloc((size_t)m->nwl, sizeof *m->wsum)) != NULL) {
		for (int j = 0; j < m->nwl; j++) {
			ldb_merge_finish(&m->wl[j]);
			m->wsum[j] = m->wl[j].s;
			m->wsum[j].workload = m->wl_name[j];
		}
		m->s.workloads = m->wsum;
		m->s.nworkloads = m->nwl;
	}
}

void ldb_merge_free(struct ldb_merged *m)
{
	for (int j = 0; j < m->nwl; j++)
		ldb_merge_free(&m->wl[j]);
	free(m->wl);
	free(m->wl_name);
	free(m->wsum);
	ldb_repl_merge_free(&m->repl);
	ldb_listen_merge_free(&m->listen);
	ldb_join_free(&m->join);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		ldb_hist_free(&m->lat[k]);
		ldb_hist_free(&m->ulat[k]);
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		ldb_hist_free(&m->stage[k]);
	ldb_hist_free(&m->tmp);
}

/* The command line (GNU style, util/argv).  @return -1 to go on, else the
 * exit status (--help, a bad option). */
static int parse_args(int argc, char **argv, const char **out_path, struct ldb_argv *a)
{
	if (ldb_argv_sort(argc, argv, ldb_merge_options, false, a) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	for (int i = 0; i < a->nopt; i++) {
		const char *o = a->opt[i], *v;
		const struct ldb_opt *row;
		enum ldb_argv_got got = ldb_argv_next(a, &i, ldb_merge_options, &row, &v);
		if (got == LDB_ARGV_UNKNOWN) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			return 2;
		} else if (got == LDB_ARGV_NOT_VALUED) {
			fprintf(stderr, PROG ": --%s takes no value\n", row->name);
			return 2;
		} else if (row->id == M_HELP) {
			usage(stdout);
			return 0;
		} else if (v == NULL || v[0] == '\0') {
			fprintf(stderr, PROG ": --json needs a file name (or - for stdout)\n");
			return 2;
		}
		*out_path = v;
	}
	if (a->narg == 0) {
		fprintf(stderr, PROG ": no input file (usage: ldbench merge [--json OUT] FILE...)\n");
		return 2;
	}
	return -1;
}

/* Every file's summary into m, its header's host name into hosts[i].
 * @return 0, or -1 with one line on stderr. */
static int add_files(struct ldb_merged *m, char **files, int nfiles, char **hosts)
{
	char err[600];
	for (int i = 0; i < nfiles; i++) {
		struct ldb_json *header, *sum;
		if (ldb_records_load(files[i], &header, &sum, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return -1;
		}
		const char *h = ldb_json_str(ldb_json_get(header, "host"));
		hosts[i] = h ? strdup(h) : NULL;
		int rc = ldb_merge_add(m, sum, files[i], err, sizeof err);
		ldb_json_free(header);
		ldb_json_free(sum);
		if (rc != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* The merged summary record, with its workloads' (their rates added too). */
static int write_record(FILE *out, const struct ldb_merged *m, const char *extra)
{
	const struct ldb_records_rates **rates = calloc((size_t)m->nwl + 1, sizeof *rates);
	if (rates == NULL)
		return -1;
	for (int j = 0; j < m->nwl; j++)
		rates[j] = &m->wl[j].rates;
	char *wl = ldb_records_workloads_member(&m->s, rates);
	free(rates);
	size_t n = strlen(extra) + (wl != NULL ? strlen(wl) : 0) + 1;
	char *all = malloc(n);
	if (all == NULL) {
		free(wl);
		return -1;
	}
	snprintf(all, n, "%s%s", wl != NULL ? wl : "", extra);
	int rc = ldb_records_write_summary(out, &m->s, &m->rates, all);
	free(all);
	free(wl);
	return rc;
}

/* The merged record to out_path ("-": stdout), and the table to stdout (to
 * stderr when the record is there); no --json: the table alone.
 * @return the exit status. */
static int write_merged(struct ldb_merged *m, const char *out_path, int nfiles, char **files, char **hosts)
{
	if (out_path == NULL) {
		print_table(m, nfiles, files, hosts, stdout);
		return fflush(stdout) == 0 ? 0 : 99;
	}
	char *extra = merged_member(nfiles, files, hosts);
	if (extra == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	FILE *out = stdout;
	if (strcmp(out_path, "-") != 0) {
		out = fopen(out_path, "w");
		if (out == NULL) {
			fprintf(stderr, PROG ": --json %s: cannot create: %s\n", out_path, strerror(errno));
			free(extra);
			return 2;
		}
	}
	int wrc = write_record(out, m, extra);
	free(extra);
	if (out != stdout && fclose(out) != 0)
		wrc = -1;
	if (wrc != 0) {
		fprintf(stderr, PROG ": writing the merged record to %s failed\n", out == stdout ? "stdout" : out_path);
		return 99;
	}
	print_table(m, nfiles, files, hosts, out == stdout ? stderr : stdout);
	return fflush(stdout) == 0 ? 0 : 99;
}

int ldb_merge_main(int argc, char **argv)
{
	const char *out_path = NULL;
	struct ldb_argv a = { 0 };
	char **hosts = calloc((size_t)argc + 1, sizeof *hosts);
	int status = 2;
	struct ldb_merged m;

	if (ldb_merge_init(&m) != 0 || hosts == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	status = parse_args(argc, argv, &out_path, &a);
	if (status >= 0)
		goto done;
	status = 2;
	if (add_files(&m, a.arg, a.narg, hosts) != 0)
		goto done;
	ldb_merge_finish(&m);
	status = write_merged(&m, out_path, a.narg, a.arg, hosts);
done:
	ldb_merge_free(&m);
	for (int i = 0; hosts && i < a.narg; i++)
		free(hosts[i]);
	free(hosts);
	ldb_argv_free(&a);
	return status;
}
