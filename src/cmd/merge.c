/* `ldbench merge` (merge.h) and the records file reader that
 * merge and compare share. */
#include "cmd/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"

#define PROG "ldbench merge"

int ldb_records_load(const char *path, struct ldb_json **header, struct ldb_json **summary, char *err, size_t cap)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, perr[200];
	size_t lcap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = -1;

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
			ldb_json_free(*summary);
			*summary = v;
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
	if (*summary == NULL) {
		snprintf(err, cap, "%s: no summary record (did the run finish?)", path);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	if (rc != 0) {
		ldb_json_free(*header);
		ldb_json_free(*summary);
		*header = *summary = NULL;
	}
	return rc;
}

/* ------------------------------------------------------------------ merge */

struct merged {
	struct ldb_summary s;
	struct ldb_totals tot;
	struct ldb_hist lat[LDB_OP_COUNT], ulat[LDB_OP_COUNT], stage[LDB_STAGE_COUNT];
	bool lat_init[LDB_OP_COUNT], ulat_init[LDB_OP_COUNT], stage_init[LDB_STAGE_COUNT];
	struct ldb_records_rates rates;
	struct ldb_hist tmp;
};


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
static int add_hist(struct merged *m, const struct ldb_json *o, struct ldb_hist *dst, bool *init, const char *path,
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

static int add_kind(struct merged *m, int k, const struct ldb_json *o, const char *path, char *err, size_t cap)
{
	struct ldb_opstats *d = &m->tot.op[k];
	const char *kn = ldb_op_name((enum ldb_op)k);
	double rate;

	if (o->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "%s: summary record: ops.%s is not an object", path, kn);
		return -1;
	}
	if (get_u64(o, "attempted", &d->attempted, path, kn, err, cap) || get_u64(o, "completed", &d->completed, path, kn, err, cap) ||
	    get_u64(o, "succeeded", &d->succeeded, path, kn, err, cap) || get_u64(o, "counted", &d->counted, path, kn, err, cap) ||
	    get_u64(o, "entries", &d->entries, path, kn, err, cap) || get_u64(o, "exp_hits", &d->exp_hits, path, kn, err, cap) ||
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
		long long code;
		int slot = strcmp(c->key, "illegal") == 0 ? LDB_CODE_ILLEGAL
		         : (ldb_num_ll(c->key, &code) == LDB_NUM_OK && code >= LDB_CODE_MIN && code <= LDB_CODE_MAX) ? ldb_code_slot((int)code)
		         : -1;
		if (slot < 0 || ldb_json_u64(c, &n) != 0) {
			snprintf(err, cap, "%s: summary record: %s.errors_by_code: bad member \"%s\"", path, kn, c->key);
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

static int add_summary(struct merged *m, const struct ldb_json *sum, const char *path, char *err, size_t cap)
{
	double secs, rate;
	long long threads, status, dead, noact;
	const struct ldb_json *conn = ldb_json_get(sum, "connections");

	if (ldb_json_double(ldb_json_get(sum, "seconds"), &secs) || ldb_json_double(ldb_json_get(sum, "rate"), &rate) ||
	    ldb_json_ll(ldb_json_get(sum, "threads"), &threads) || ldb_json_ll(ldb_json_get(sum, "status"), &status) ||
	    ldb_json_ll(ldb_json_get(sum, "dead_threads"), &dead) ||
	    ldb_json_ll(ldb_json_get(sum, "no_activity"), &noact)) {
		snprintf(err, cap, "%s: summary record: seconds, rate, threads, status, dead_threads or no_activity missing",
		         path);
		return -1;
	}
	if (get_u64(sum, "counted", &m->s.counted, path, "", err, cap) ||
	    get_u64(conn, "opened", &m->tot.connects, path, "connections", err, cap) ||
	    get_u64(conn, "reconnects", &m->tot.reconnects, path, "connections", err, cap) ||
	    get_u64(conn, "setup_binds", &m->tot.setup_binds, path, "connections", err, cap))
		return -1;
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
		int k;
		for (k = 0; k < LDB_OP_COUNT; k++)
			if (strcmp(o->key, ldb_op_name((enum ldb_op)k)) == 0)
				break;
		if (k == LDB_OP_COUNT) {
			snprintf(err, cap, "%s: summary record: unknown operation kind \"%s\"", path, o->key);
			return -1;
		}
		if (add_kind(m, k, o, path, err, cap) != 0)
			return -1;
	}
	const struct ldb_json *stages = ldb_json_get(sum, "stages");
	for (int k = 0; k < LDB_STAGE_COUNT; k++) {
		const struct ldb_json *o = ldb_json_get(stages, ldb_stage_name(k));
		if (o != NULL && add_hist(m, o, &m->stage[k], &m->stage_init[k], path, ldb_stage_name(k), err, cap) != 0)
			return -1;
	}
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: ldbench merge [--json OUT] FILE...\n"
	      "Add the summary records of runs made at the same time on several client hosts:\n"
	      "counts and rates add, latency histograms add exactly, percentiles come from the\n"
	      "merged histogram.  The merged record goes to stdout (the table to stderr), or\n"
	      "to OUT with --json (the table to stdout).  See docs/results.md.\n"
	      "Exit status: 0 done, 2 bad command line or input, 99 write error.\n",
	      out);
}

static void print_table(const struct merged *m, int nfiles, char *const *files, char *const *hosts, FILE *out)
{
	fprintf(out, "merged %d run%s:", nfiles, nfiles == 1 ? "" : "s");
	for (int i = 0; i < nfiles; i++)
		fprintf(out, " %s%s%s%s", files[i], hosts[i] ? " (" : "", hosts[i] ? hosts[i] : "", hosts[i] ? ")" : "");
	fprintf(out, "\nmeasured %.3f s (longest), threads %d, counted %llu, rate %.2f/s (sum)\n", m->s.seconds,
	        m->s.threads, (unsigned long long)m->s.counted, m->rates.rate);
	fprintf(out, "%-8s %12s %12s %12s %10s %10s %10s %10s %10s\n", "kind", "completed", "counted", "rate/s",
	        "p50 us", "p95 us", "p99 us", "p99.9 us", "max us");
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
			fprintf(out, " %10.1f %10.1f %10.1f %10.1f %10.1f\n", ldb_hist_percentile(h, 50) / 1e3,
			        ldb_hist_percentile(h, 95) / 1e3, ldb_hist_percentile(h, 99) / 1e3,
			        ldb_hist_percentile(h, 99.9) / 1e3, (double)h->max / 1e3);
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

int ldb_merge_main(int argc, char **argv)
{
	const char *out_path = NULL;
	char **files = calloc((size_t)argc + 1, sizeof *files), **hosts = calloc((size_t)argc + 1, sizeof *hosts);
	int nfiles = 0, status = 2;
	char err[600];
	struct merged m;
	char *extra = NULL;

	memset(&m, 0, sizeof m);
	if (files == NULL || hosts == NULL || ldb_hist_init(&m.tmp) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			status = 0;
			goto done;
		} else if (strcmp(a, "--json") == 0 || strncmp(a, "--json=", 7) == 0) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
			if (v == NULL || v[0] == '\0') {
				fprintf(stderr, PROG ": --json needs a file name\n");
				goto done;
			}
			out_path = v;
		} else if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				files[nfiles++] = argv[i];
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", a);
			goto done;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles == 0) {
		fprintf(stderr, PROG ": no input file (usage: ldbench merge [--json OUT] FILE...)\n");
		goto done;
	}
	for (int i = 0; i < nfiles; i++) {
		struct ldb_json *header, *sum;
		if (ldb_records_load(files[i], &header, &sum, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			goto done;
		}
		const char *h = ldb_json_str(ldb_json_get(header, "host"));
		hosts[i] = h ? strdup(h) : NULL;
		int rc = add_summary(&m, sum, files[i], err, sizeof err);
		ldb_json_free(header);
		ldb_json_free(sum);
		if (rc != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			goto done;
		}
	}
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (m.lat_init[k])
			m.s.lat[k] = &m.lat[k];
		if (m.lat_init[k] && m.ulat_init[k])
			m.s.ulat[k] = &m.ulat[k];
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (m.stage_init[k])
			m.s.stage[k] = &m.stage[k];
	m.s.tot = m.tot;
	m.s.tot.counted = m.s.counted;
	extra = merged_member(nfiles, files, hosts);
	if (extra == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		goto done;
	}
	FILE *out = stdout;
	if (out_path != NULL && strcmp(out_path, "-") != 0) {
		out = fopen(out_path, "w");
		if (out == NULL) {
			fprintf(stderr, PROG ": --json %s: cannot create: %s\n", out_path, strerror(errno));
			goto done;
		}
	}
	int wrc = ldb_records_write_summary(out, &m.s, &m.rates, extra);
	if (out != stdout && fclose(out) != 0)
		wrc = -1;
	if (wrc != 0) {
		fprintf(stderr, PROG ": writing the merged record to %s failed\n", out == stdout ? "stdout" : out_path);
		status = 99;
		goto done;
	}
	print_table(&m, nfiles, files, hosts, out == stdout ? stderr : stdout);
	status = fflush(stdout) == 0 ? 0 : 99;
done:
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		ldb_hist_free(&m.lat[k]);
		ldb_hist_free(&m.ulat[k]);
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		ldb_hist_free(&m.stage[k]);
	ldb_hist_free(&m.tmp);
	for (int i = 0; hosts && i < nfiles; i++)
		free(hosts[i]);
	free(hosts);
	free(files);
	free(extra);
	return status;
}
