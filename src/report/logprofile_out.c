/* A log's profile: its text and JSON (logprofile.h). */
#include "report/logprofile.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "report/json.h"

#define TEXT_ROWS 60 /* the text's time series: at most this many rows */

/* ns since the epoch as "2026-12-02T05:52:11.123Z". */
static const char *iso(int64_t ns, char *buf, size_t cap)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, cap - n, ".%03dZ", (int)(ns % 1000000000 / 1000000));
	return buf;
}

static double window_s(const struct ldb_lprof *p)
{
	return p->first_ns <= p->last_ns ? (double)(p->last_ns - p->first_ns) / 1e9 : 0;
}

static void text_times(const struct ldb_lprof_kind *k, const char *name, FILE *out)
{
	for (int t = 0; t < LDB_LPROF_NTIMES; t++) {
		const struct ldb_hist *h = &k->t[t];
		if (!k->tinit[t] || ldb_hist_count(h) == 0)
			continue;
		fprintf(out, "  %-9s %-7s %9" PRIu64 " %10.3f %10.3f %10.3f %10.3f\n", name,
		        ldb_lprof_time_name((enum ldb_lprof_time)t), ldb_hist_count(h),
		        ldb_hist_percentile(h, 50) / 1e6, ldb_hist_percentile(h, 95) / 1e6,
		        ldb_hist_percentile(h, 99) / 1e6, (double)h->max / 1e6);
	}
}

static void text_kinds(const struct ldb_lprof *p, FILE *out)
{
	fprintf(out, "operations per type (result codes: code:count):\n");
	for (int k = 1; k < LDB_SLOG_NOPTYPES; k++) {
		const struct ldb_lprof_kind *x = &p->kind[k];
		if (x->requests == 0 && x->results == 0)
			continue;
		fprintf(out, "  %-9s requests %" PRIu64 " (%.1f%%), results %" PRIu64 ", codes",
		        ldb_slog_optype_name((enum ldb_slog_optype)k), x->requests,
		        p->requests ? 100.0 * (double)x->requests / (double)p->requests : 0.0, x->results);
		for (int c = 0; c < LDB_LPROF_NCODES - 1; c++)
			if (x->codes[c])
				fprintf(out, " %d:%" PRIu64, c, x->codes[c]);
		if (x->codes[LDB_LPROF_NCODES - 1])
			fprintf(out, " other:%" PRIu64, x->codes[LDB_LPROF_NCODES - 1]);
		if (k == LDB_SLOG_OP_SEARCH)
			fprintf(out, ", entries %" PRIu64 ", unindexed %" PRIu64, x->entries, x->unindexed);
		if (k == LDB_SLOG_OP_SEARCH && x->unindexed)
			fprintf(out, " (searches %" PRIu64 " notes=A, components %" PRIu64 " notes=U)",
			        x->unindexed_searches, x->unindexed_components);
		fputc('\n', out);
	}
	fprintf(out, "server times per type (ms): %-7s %9s %10s %10s %10s %10s\n", "time", "count", "p50", "p95", "p99",
	        "max");
	for (int k = 1; k < LDB_SLOG_NOPTYPES; k++)
		text_times(&p->kind[k], ldb_slog_optype_name((enum ldb_slog_optype)k), out);
}

static void text_series(const struct ldb_lprof *p, FILE *out)
{
	int group = (p->npts + TEXT_ROWS - 1) / TEXT_ROWS;
	if (group < 1)
		group = 1;
	double secs = (double)p->interval_ns * group / 1e9;
	fprintf(out, "over time (per %g s from %s): offset, requests, rate/s, connections opened, closed, peak open\n",
	        secs, "the window's start");
	for (int i = 0; i < p->npts; i += group) {
		struct ldb_lprof_point s = { 0 };
		for (int j = i; j < i + group && j < p->npts; j++) {
			s.requests += p->pts[j].requests;
			s.opened += p->pts[j].opened;
			s.closed += p->pts[j].closed;
			s.peak = p->pts[j].peak > s.peak ? p->pts[j].peak : s.peak;
		}
		fprintf(out, "  +%-9g %9" PRIu64 " %10.1f %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
		        (double)p->interval_ns * i / 1e9, s.requests, (double)s.requests / secs, s.opened, s.closed,
		        s.peak);
	}
}

static void text_top(const struct ldb_ltop *t, const char *what, int top, FILE *out)
{
	const struct ldb_ltop_ent *e[256];
	int n = ldb_ltop_sorted(t, e, top < 256 ? top : 256);
	fprintf(out, "top %s (%d kept of %d table slots; %s):\n", what, n, t->cap,
	        t->evictions ? "approximate: a count may be high by its error, shown" : "exact counts");
	for (int i = 0; i < n; i++) {
		fprintf(out, "  %9" PRIu64 " %5.1f%%  \"%s\"", e[i]->count,
		        t->total ? 100.0 * (double)e[i]->count / (double)t->total : 0.0, e[i]->key);
		if (e[i]->error)
			fprintf(out, " (error %" PRIu64 ")", e[i]->error);
		fputc('\n', out);
	}
}

static void text_skipped(const struct ldb_slog_stats *st, FILE *out)
{
	for (int r = 1; r < LDB_SLOG_NSKIPS; r++) {
		if (st->skipped[r] == 0)
			continue;
		fprintf(out, "skipped lines: %s %" PRIu64 " (first:", ldb_slog_skip_name((enum ldb_slog_skip)r),
		        st->skipped[r]);
		for (int i = 0; i < LDB_SLOG_FIRST_LINES && st->first[r][i].file; i++)
			fprintf(out, " %s:%" PRIu64, st->first[r][i].file, st->first[r][i].line);
		fputs(")\n", out);
	}
}

void ldb_lprof_text(const struct ldb_lprof *p, const struct ldb_slog_stats *st, enum ldb_slog_format fmt, FILE *out)
{
	char a[40], b[40];
	fprintf(out, "log: %s, %" PRIu64 " file%s, %" PRIu64 " lines, %" PRIu64 " bytes\n", ldb_slog_format_name(fmt),
	        st->files, st->files == 1 ? "" : "s", st->lines, st->bytes);
	text_skipped(st, out);
	if (p->first_ns > p->last_ns) {
		fprintf(out, "window: no line in it\n");
		return;
	}
	fprintf(out, "window: %s to %s (%.3f s)%s\n", iso(p->first_ns, a, sizeof a), iso(p->last_ns, b, sizeof b),
	        window_s(p), p->one_second_lines ? "; times of whole seconds" : "");
	fprintf(out, "requests: %" PRIu64 " (%.1f/s)\n", p->requests,
	        window_s(p) > 0 ? (double)p->requests / window_s(p) : 0.0);
	fprintf(out,
	        "connections: opened %" PRIu64 ", closed %" PRIu64 ", peak open %" PRIu64
	        " at %s, open at the end %zu\n",
	        p->opened, p->closed, p->peak, iso(p->peak_ns, a, sizeof a), p->nconns);
	text_kinds(p, out);
	fprintf(out, "search scopes: base %" PRIu64 ", one %" PRIu64 ", sub %" PRIu64 ", children %" PRIu64 "\n",
	        p->scopes[0], p->scopes[1], p->scopes[2], p->scopes[3]);
	text_top(&p->filters, "filter shapes (values masked: ? a value, * a presence or substring star)", p->top, out);
	text_top(&p->bases, "search bases", p->top, out);
	text_top(&p->binddns, "bind DNs", p->top, out);
	text_series(p, out);
}

static void json_kind(const struct ldb_lprof_kind *x, FILE *out)
{
	fprintf(out,
	        "{\"requests\":%" PRIu64 ",\"results\":%" PRIu64 ",\"entries\":%" PRIu64 ",\"unindexed\":%" PRIu64
	        ",\"unindexed_searches\":%" PRIu64 ",\"unindexed_components\":%" PRIu64 ",\"codes\":{",
	        x->requests, x->results, x->entries, x->unindexed, x->unindexed_searches, x->unindexed_components);
	const char *sep = "";
	for (int c = 0; c < LDB_LPROF_NCODES; c++) {
		if (!x->codes[c])
			continue;
		if (c == LDB_LPROF_NCODES - 1)
			fprintf(out, "%s\"other\":%" PRIu64, sep, x->codes[c]);
		else
			fprintf(out, "%s\"%d\":%" PRIu64, sep, c, x->codes[c]);
		sep = ",";
	}
	fputs("},\"times\":{", out);
	sep = "";
	for (int t = 0; t < LDB_LPROF_NTIMES; t++) {
		const struct ldb_hist *h = &x->t[t];
		if (!x->tinit[t] || ldb_hist_count(h) == 0)
			continue;
		fprintf(out,
		        "%s\"%s\":{\"count\":%" PRIu64
		        ",\"p50_ms\":%.6f,\"p95_ms\":%.6f,\"p99_ms\":%.6f,\"max_ms\":%.6f}",
		        sep, ldb_lprof_time_name((enum ldb_lprof_time)t), ldb_hist_count(h),
		        ldb_hist_percentile(h, 50) / 1e6, ldb_hist_percentile(h, 95) / 1e6,
		        ldb_hist_percentile(h, 99) / 1e6, (double)h->max / 1e6);
		sep = ",";
	}
	fputs("}}", out);
}

static void json_top(const struct ldb_ltop *t, const char *name, int top, FILE *out)
{
	const struct ldb_ltop_ent *e[256];
	int n = ldb_ltop_sorted(t, e, top < 256 ? top : 256);
	fprintf(out, ",\"%s\":{\"total\":%" PRIu64 ",\"exact\":%s,\"top\":[", name, t->total,
	        t->evictions ? "false" : "true");
	for (int i = 0; i < n; i++) {
		fputs(i ? ",{\"key\":" : "{\"key\":", out);
		ldb_json_put_string(out, e[i]->key);
		fprintf(out, ",\"count\":%" PRIu64 ",\"error\":%" PRIu64 "}", e[i]->count, e[i]->error);
	}
	fputs("]}", out);
}

static void json_series(const struct ldb_lprof *p, FILE *out)
{
	fprintf(out, ",\"series\":{\"interval_s\":%.9g,\"start_ns\":%" PRId64 ",\"requests\":[",
	        (double)p->interval_ns / 1e9, p->start_ns == INT64_MIN ? 0 : p->start_ns);
	for (int i = 0; i < p->npts; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, p->pts[i].requests);
	fputs("],\"opened\":[", out);
	for (int i = 0; i < p->npts; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, p->pts[i].opened);
	fputs("],\"closed\":[", out);
	for (int i = 0; i < p->npts; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, p->pts[i].closed);
	fputs("],\"peak_open\":[", out);
	for (int i = 0; i < p->npts; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, p->pts[i].peak);
	fputs("]}", out);
}

static void json_skipped(const struct ldb_slog_stats *st, FILE *out)
{
	fputs(",\"skipped\":{", out);
	const char *sep = "";
	for (int r = 1; r < LDB_SLOG_NSKIPS; r++) {
		if (st->skipped[r] == 0)
			continue;
		fprintf(out, "%s\"%s\":{\"lines\":%" PRIu64 ",\"first\":[", sep,
		        ldb_slog_skip_name((enum ldb_slog_skip)r), st->skipped[r]);
		for (int i = 0; i < LDB_SLOG_FIRST_LINES && st->first[r][i].file; i++) {
			char place[600];
			snprintf(place, sizeof place, "%s:%" PRIu64, st->first[r][i].file, st->first[r][i].line);
			if (i)
				fputc(',', out);
			ldb_json_put_string(out, place);
		}
		fputs("]}", out);
		sep = ",";
	}
	fputc('}', out);
}

int ldb_lprof_json(const struct ldb_lprof *p, const struct ldb_slog_stats *st, enum ldb_slog_format fmt,
                   char *const *files, int nfiles, FILE *out)
{
	fprintf(out, "{\"profile\":{\"format\":\"%s\",\"files\":[", ldb_slog_format_name(fmt));
	for (int i = 0; i < nfiles; i++) {
		if (i)
			fputc(',', out);
		ldb_json_put_string(out, files[i]);
	}
	fprintf(out, "],\"lines\":%" PRIu64 ",\"bytes\":%" PRIu64, st->lines, st->bytes);
	json_skipped(st, out);
	bool any = p->first_ns <= p->last_ns;
	fprintf(out,
	        ",\"window\":{\"from_ns\":%" PRId64 ",\"to_ns\":%" PRId64
	        ",\"seconds\":%.9g,\"whole_second_lines\":%" PRIu64 "}",
	        any ? p->first_ns : 0, any ? p->last_ns : 0, window_s(p), p->one_second_lines);
	fprintf(out,
	        ",\"requests\":%" PRIu64 ",\"connections\":{\"opened\":%" PRIu64 ",\"closed\":%" PRIu64
	        ",\"peak\":%" PRIu64 ",\"peak_ns\":%" PRId64 ",\"open_at_end\":%zu}",
	        p->requests, p->opened, p->closed, p->peak, p->peak_ns, p->nconns);
	fputs(",\"ops\":{", out);
	const char *sep = "";
	for (int k = 1; k < LDB_SLOG_NOPTYPES; k++) {
		if (p->kind[k].requests == 0 && p->kind[k].results == 0)
			continue;
		fprintf(out, "%s\"%s\":", sep, ldb_slog_optype_name((enum ldb_slog_optype)k));
		json_kind(&p->kind[k], out);
		sep = ",";
	}
	fprintf(out,
	        "},\"scopes\":{\"base\":%" PRIu64 ",\"one\":%" PRIu64 ",\"sub\":%" PRIu64 ",\"children\":%" PRIu64 "}",
	        p->scopes[0], p->scopes[1], p->scopes[2], p->scopes[3]);
	json_top(&p->filters, "filters", p->top, out);
	json_top(&p->bases, "bases", p->top, out);
	json_top(&p->binddns, "bind_dns", p->top, out);
	json_series(p, out);
	fputs("}}\n", out);
	return ferror(out) ? -1 : 0;
}
