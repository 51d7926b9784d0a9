/* Machine-readable records: --json FILE (JSON lines: header, one record per
 * sample, summary) and --csv FILE (one row per sample and operation kind).
 * docs/results.md documents every field; LDB_RECORDS_SCHEMA versions them.
 * These callbacks run in the sampler's thread, never in a worker. */
#include "report/reporter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/hdrlog.h"
#include "report/html.h"
#include "report/json.h"
#include "report/metrics.h"
#include "report/records.h"
#include "report/repl_lines.h"
#include "proto/wire.h"
#include "ops/ops.h"

#ifndef LDBENCH_VERSION
#define LDBENCH_VERSION "0.0.0"
#endif

struct rec_file {
	FILE *f;
	const char *path; /* as given; "-" = stdout */
	const struct ldb_outputs *o;
	bool csv_header; /* CSV: write the header row (not when appending) */
	bool workloads;  /* CSV: the run has [workload] sections (a workload column) */
	bool borrowed;   /* f belongs to the caller (--html's buffer) */
};

/* ------------------------------------------------------------ JSON parts */

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void put_u64(FILE *f, const char *name, uint64_t v, bool comma)
{
	fprintf(f, "%s\"%s\":%llu", comma ? "," : "", name, (unsigned long long)v);
}

/* "name":"text" or "name":null */
static void put_str(FILE *f, const char *name, const char *v)
{
	fprintf(f, ",\"%s\":", name);
	if (v == NULL)
		fputs("null", f);
	else
		ldb_json_put_string(f, v);
}

/* ------------------------------------------------------------ JSON reporter */

static void json_begin(void *ctx, const struct ldb_run_info *info)
{
	struct rec_file *r = ctx;
	const struct ldb_outputs *o = r->o;
	FILE *f = r->f;
	char host[256] = "", start[32] = "";
	struct tm tm;

	if (gethostname(host, sizeof host - 1) != 0)
		host[0] = '\0';
	if (gmtime_r(&info->started, &tm) == NULL || strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		start[0] = '\0';
	fprintf(f, "{\"type\":\"header\",\"schema\":%d", LDB_RECORDS_SCHEMA);
	put_str(f, "ldbench", LDBENCH_VERSION);
	put_str(f, "run_id", ldb_run_id());
	put_str(f, "start", start);
	put_str(f, "host", host);
	fprintf(f, ",\"seed\":%llu,\"seed_given\":%s", (unsigned long long)info->seed,
	        o->seed_given ? "true" : "false");
	put_str(f, "command", o->cmdline);
	fputs(",\"config\":{", f);
	o->config_json(f, o, info->io_threads); /* the command's own members */
	fputs("}}\n", f);
	fflush(f);
}

static void json_sample(void *ctx, const struct ldb_sample *s)
{
	struct rec_file *r = ctx;
	FILE *f = r->f;
	double secs = s->seconds > 0 ? s->seconds : 0;

	fprintf(f, "{\"type\":\"sample\",\"index\":%d,\"t\":%.6f,\"seconds\":%.6f", s->index, s->t_end, secs);
	if (s->workload != NULL) /* [workload] sections: a workload's own interval (the total's has none) */
		put_str(f, "workload", s->workload);
	put_u64(f, "counted", s->counted, true);
	fprintf(f, ",\"rate\":%.3f,\"rate_target\":%.3f,\"threads\":%d,\"ops\":{",
	        secs > 0 ? (double)s->counted / secs : 0.0, s->rate_target, s->threads);
	bool first = true;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		const struct ldb_opstats *o = &s->delta.op[k];
		fprintf(f, "%s\"%s\":{", first ? "" : ",", ldb_op_name((enum ldb_op)k));
		first = false;
		ldb_records_put_counts(f, o, secs > 0 ? (double)o->counted / secs : 0.0);
		fputc(',', f);
		ldb_records_put_latency(f, s->lat[k], false);
		if (s->ulat[k] != NULL) {
			fputs(",\"uncorrected\":{", f);
			ldb_records_put_latency(f, s->ulat[k], false);
			fputc('}', f);
		}
		fputc('}', f);
	}
	fputc('}', f);
	if (s->client != NULL)
		ldb_client_put_json(f, s->client);
	if (s->final)
		fputs(",\"final\":true", f); /* the partial interval after the last sample line */
	fputs("}\n", f);
	fflush(f);
}

/* records.h */
char *ldb_records_workloads_member(const struct ldb_summary *s, const struct ldb_records_rates *const *rates)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	if (s->nworkloads == 0 || (m = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fputs(",\"workloads\":{", m);
	for (int j = 0; j < s->nworkloads; j++) {
		char *one = NULL;
		size_t olen = 0;
		FILE *o = open_memstream(&one, &olen);
		if (o == NULL)
			break;
		(void)ldb_records_write_summary(o, &s->workloads[j], rates != NULL ? rates[j] : NULL, NULL);
		fclose(o);
		const char *p = strchr(one, ','); /* past {"type":"summary" */
		while (olen > 0 && one[olen - 1] == '\n')
			one[--olen] = '\0';
		fprintf(m, "%s", j ? "," : "");
		ldb_json_put_string(m, s->workloads[j].workload);
		fputs(":{\"type\":\"workload\"", m);
		put_str(m, "name", s->workloads[j].workload);
		fputs(p != NULL ? p : "}", m);
		free(one);
	}
	fputc('}', m);
	fclose(m);
	return buf;
}

static void json_end(void *ctx, const struct ldb_summary *s)
{
	struct rec_file *r = ctx;
	char *wl = ldb_records_workloads_member(s, NULL);
	(void)ldb_records_write_summary(r->f, s, NULL, wl);
	free(wl);
}

/* ------------------------------------------------------------ CSV reporter */

#define CSV_HEADER                                                                                                  \
	"sample,t_s,seconds,threads,kind,attempted,completed,succeeded,counted,errors,entries,exp_hits,exp_misses," \
	"rate,"                                                                                                     \
	"lat_count,lat_min_us,lat_p50_us,lat_p95_us,lat_p99_us,lat_max_us,fail_connect,fail_tls,fail_timeout,"      \
	"fail_server_down,errors_by_code,epoch_s"

static void csv_begin(void *ctx, const struct ldb_run_info *info)
{
	struct rec_file *r = ctx;
	(void)info;
	r->workloads = r->o->workloads;
	if (r->csv_header) /* [workload] sections: a last column, the workload ("" for the total's rows) */
		fputs(r->workloads ? CSV_HEADER ",workload\n" : CSV_HEADER "\n", r->f);
	fflush(r->f);
}

static void csv_sample(void *ctx, const struct ldb_sample *s)
{
	struct rec_file *r = ctx;
	FILE *f = r->f;
	double secs = s->seconds > 0 ? s->seconds : 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now); /* the interval just ended */
	double epoch = (double)now.tv_sec + (double)now.tv_nsec / 1e9;

	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_hist *h = s->lat[k];
		if (h == NULL)
			continue;
		const struct ldb_opstats *o = &s->delta.op[k];
		fprintf(f, "%d,%.6f,%.6f,%d,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,", s->index, s->t_end, secs,
		        s->threads, ldb_op_name((enum ldb_op)k), (unsigned long long)o->attempted,
		        (unsigned long long)o->completed, (unsigned long long)o->succeeded,
		        (unsigned long long)o->counted, (unsigned long long)ldb_opstats_errors(o),
		        (unsigned long long)o->entries, (unsigned long long)o->exp_hits,
		        (unsigned long long)o->exp_misses, secs > 0 ? (double)o->counted / secs : 0.0);
		uint64_t n = ldb_hist_count(h);
		if (n == 0)
			fputs("0,,,,,,", f);
		else
			fprintf(f, "%llu,%.3f,%.3f,%.3f,%.3f,%.3f,", (unsigned long long)n, us(h->min),
			        us(ldb_hist_percentile(h, 50)), us(ldb_hist_percentile(h, 95)),
			        us(ldb_hist_percentile(h, 99)), us(h->max));
		for (int i = 0; i < LDB_FAIL_COUNT; i++)
			fprintf(f, "%llu,", (unsigned long long)o->fails[i]);
		/* CODE:N pairs separated by ';' (no comma, no quoting needed) */
		bool first = true;
		for (int code = LDB_CODE_MIN; code <= LDB_CODE_MAX; code++) {
			uint64_t c = o->codes[ldb_code_slot(code)];
			if (c == 0)
				continue;
			fprintf(f, "%s%d:%llu", first ? "" : ";", code, (unsigned long long)c);
			first = false;
		}
		if (o->codes[LDB_CODE_ILLEGAL] != 0)
			fprintf(f, "%sillegal:%llu", first ? "" : ";", (unsigned long long)o->codes[LDB_CODE_ILLEGAL]);
		fprintf(f, ",%.3f", epoch); /* wall clock, for pandas and gnuplot */
		if (r->workloads)
			fprintf(f, ",%s", s->workload != NULL ? s->workload : "");
		fputc('\n', f);
	}
	fflush(f);
}

/* The summary's parts' rows after the samples' (their own header rows):
 * --server-log's join */
static void csv_end(void *ctx, const struct ldb_summary *s)
{
	struct rec_file *r = ctx;
	for (int i = 0; i < s->nparts; i++)
		if (s->part[i]->ops->csv != NULL) {
			s->part[i]->ops->csv(s->part[i], r->f);
			fflush(r->f);
		}
}

/* ------------------------------------------------------------ -S (report/repl_lines) */

static void json_repl(void *ctx, int index, double t_end, const struct ldb_repl_figs *f, int n)
{
	ldb_repl_put_json(((struct rec_file *)ctx)->f, index, t_end, f, n);
}

static void csv_repl(void *ctx, int index, double t_end, const struct ldb_repl_figs *f, int n)
{
	ldb_repl_put_csv(((struct rec_file *)ctx)->f, index, t_end, f, n);
}

/* ------------------------------------------------------------ both */

static void rec_close(void *ctx)
{
	struct rec_file *r = ctx;
	if (r == NULL)
		return;
	bool bad = fflush(r->f) != 0 || ferror(r->f);
	if (r->f != stdout && !r->borrowed && fclose(r->f) != 0)
		bad = true;
	if (bad)
		fprintf(stderr, "%s: writing %s failed: the records are incomplete\n", r->o->progname,
		        strcmp(r->path, "-") == 0 ? "stdout" : r->path);
	free(r);
}

static int open_one(const struct ldb_outputs *c, const char *path, bool csv, bool opened_before,
                    struct ldb_reporter *out, char *err, size_t cap)
{
	struct rec_file *r = calloc(1, sizeof *r);
	if (r == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	r->path = path;
	r->o = c;
	r->csv_header = !opened_before;
	if (strcmp(path, "-") == 0) {
		r->f = stdout;
	} else {
		/* the first run of the process creates the file; later ones (--sweep) append */
		r->f = fopen(path, opened_before ? "a" : "w");
		if (r->f == NULL) {
			snprintf(err, cap, "--%s %s: cannot create: %s", csv ? "csv" : "json", path, strerror(errno));
			free(r);
			return -1;
		}
	}
	*out = (struct ldb_reporter){ .ctx = r, .close = rec_close };
	if (csv) {
		out->begin = csv_begin;
		out->sample = csv_sample;
		out->end = csv_end;
		out->repl = csv_repl;
	} else {
		out->begin = json_begin;
		out->sample = json_sample;
		out->end = json_end;
		out->repl = json_repl;
	}
	return 0;
}

int ldb_reporters_open(const struct ldb_outputs *c, struct ldb_reporter *out, int max, char *err, size_t cap)
{
	static int opens; /* reporters are opened by the main thread only */
	int n = 0;
	/* --json, --csv, --hdr-log, --html */
	const char *paths[4] = { c->json_path, c->csv_path, c->hdrlog_path, c->html_path };

	for (int i = 0; i < 4; i++) {
		if (paths[i] == NULL)
			continue;
		int rc = -1;
		if (n >= max)
			snprintf(err, cap, "too many reporters");
		else if (i < 2)
			rc = open_one(c, paths[i], i == 1, opens > 0, &out[n], err, cap);
		else
			rc = i == 2 ? ldb_hdrlog_open(c, opens > 0, &out[n], err, cap)
			            : ldb_html_open(c, &out[n], err, cap);
		if (rc != 0) {
			for (int j = 0; j < n; j++)
				out[j].close(out[j].ctx);
			return -1;
		}
		n++;
	}
	if (ldb_metrics_active() && n < max && ldb_metrics_reporter(c, &out[n]) == 0) /* --metrics-listen */
		n++;
	opens++;
	return n;
}

/* The JSON reporter writing into a stream the caller owns (--html
 * keeps the records of every run in memory). */
int ldb_records_json_reporter(const struct ldb_outputs *c, FILE *f, struct ldb_reporter *out)
{
	struct rec_file *r = calloc(1, sizeof *r);
	if (r == NULL)
		return -1;
	*r = (struct rec_file){ .f = f, .path = "--html buffer", .o = c, .borrowed = true };
	*out = (struct ldb_reporter){
		.ctx = r, .begin = json_begin, .sample = json_sample, .end = json_end, .close = rec_close
	};
	return 0;
}
