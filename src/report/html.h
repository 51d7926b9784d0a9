/* The report page (docs/results.md "The report page"): one self-contained
 * HTML file (inline CSS and SVG, a content security policy that allows no
 * fetch) drawn from JSON lines records: each run's header; per operation kind
 * the rate and latency percentiles over time (one point per sample); the
 * whole run's percentile spectrum (p50 to max, log-scaled as wrk2 draws it);
 * errors by code over time; for --sweep records, concurrency against rate and
 * p99.  Several files are overlaid, one colour per run.  Used by `ldbench
 * report` (cmd/report_page.c, which adds the compare table) and by --html. */
#ifndef LDBENCH_REPORT_HTML_H
#define LDBENCH_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "report/json.h"
#include "report/reporter.h"

/* One run: a header, its samples, its summary (any may be missing). */
struct ldb_html_run {
	struct ldb_json *header, *summary;
	struct ldb_json **samples;
	int nsamples, cap;
	struct ldb_json **wsamples; /* [workload] sections: the workloads' own samples ("workload":NAME) */
	int nwsamples, wcap;
};

/* One records file: its runs in order (several with --sweep). */
struct ldb_html_file {
	char label[128];  /* the file's name without its directory */
	const char *side; /* on a compare page (ldbench report of several files): "base" or "change"; else NULL */
	struct ldb_html_run *runs;
	int nruns;
};

/** Read JSON lines records from `in` (name: for errors and the label).
 *  @return 0, or -1 with one line in err ("FILE:LINE: not JSON: ..."). */
int ldb_html_read(struct ldb_html_file *f, const char *name, FILE *in, char *err, size_t cap);
void ldb_html_file_free(struct ldb_html_file *f);

/** Write the page for files[0..n); `extra`: an HTML fragment placed after
 *  the run headers (the compare table), or NULL.  @return 0, or -1 when
 *  writing failed. */
int ldb_html_write(FILE *out, const struct ldb_html_file *files, int n, const char *extra);

/** The section of the joins with the servers' logs (--server-log) of the
 *  runs that carry one: per kind a stacked view (report/html_join.c). */
void ldb_html_join(FILE *out, const struct ldb_html_file *files, int n);

/** The section of the listeners (--listeners) of the runs that had them: per
 *  run the refresh, notifications and delays (report/html_listen.c). */
void ldb_html_listen(FILE *out, const struct ldb_html_file *files, int n);

/** The section of the replays (ldbench replay's records): per run the log,
 *  window, threads, connections and lateness, and from the summary's
 *  "replay" member the requests per kind, the results that differ from the
 *  recorded ones and the requests not sent per reason (report/html_replay.c). */
void ldb_html_replay(FILE *out, const struct ldb_html_file *files, int n);
/** The run is a replay's: its summary has a "replay" member, or its header's
 *  config.operation is "replay". */
bool ldb_html_is_replay(const struct ldb_html_run *r);
/** A run's name on the page: the file's label, and " n=CLIENTS" when the file has several runs. */
void ldb_html_run_name(const struct ldb_html_file *f, int ri, char *buf, size_t cap);

/** The --html reporter: keeps the run's JSON records in memory (every run of
 *  a --sweep) and writes the page at each run's end.  @return 0, or -1. */
int ldb_html_open(const struct ldb_outputs *c, struct ldb_reporter *out, char *err, size_t cap);

#endif
