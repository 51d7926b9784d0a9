/* Live metrics (docs/metrics.md): --metrics-listen's HTTP endpoint serving
 * GET /metrics in Prometheus' text exposition format 0.0.4.
 *
 * The text is rendered by the main thread, from what the sampler hands the
 * reporters (one more reporter: counters summed from its intervals, the
 * summary's at the end, so the last scrape equals the summary), and
 * published to the endpoint's own thread under a mutex that only these two
 * take (a reference-counted text the responses send without copying it):
 * the I/O threads are never read twice nor waited for.  The endpoint
 * thread serves it over non-blocking sockets: at most LDB_METRICS_CLIENTS
 * at once (the oldest dropped for a newcomer), each closed after
 * LDB_METRICS_TIMEOUT_MS; anything but GET /metrics gets 404.
 * One endpoint per process: --find-max's loads publish into it in turn. */
#ifndef LDBENCH_REPORT_METRICS_H
#define LDBENCH_REPORT_METRICS_H

#include <stdatomic.h>
#include <stddef.h>

#include "conf/config.h"
#include "report/reporter.h"

#define LDB_METRICS_CLIENTS 16
#define LDB_METRICS_TIMEOUT_MS 5000

/* Bind and listen on c->addr:port, start the thread; with --metrics-push,
 * its thread (its lines named progname).
 * @return 0, or -1 with one line in err (the port in use, an address not
 * here). */
int ldb_metrics_open(const struct ldb_metrics_settings *c, const char *progname, char *err, size_t cap);
/* The endpoint is open. */
bool ldb_metrics_active(void);
/* Publish a new text (taken over: freed by its last holder).  final: the
 * run's last, for --metrics-linger. */
void ldb_metrics_publish(char *text, size_t len, bool final);
/* A published text, held by reference by the endpoint's responses and the
 * push thread (no copy per scrape or push); freed by the last unref. */
struct ldb_mpub {
	atomic_uint refs;
	size_t len;
	char *text;
};
struct ldb_mpub *ldb_mpub_ref(struct ldb_mpub *p);
void ldb_mpub_unref(struct ldb_mpub *p);
/* Keep serving up to c->metrics_linger_ms or until the first scrape after
 * the final text, then stop the thread and close.  Nothing when not open. */
void ldb_metrics_close(const struct ldb_metrics_settings *c);

/* The reporter that renders the text at each sample and at the end (report/metrics_text.c).
 * @return 0, or -1 when memory ran out. */
int ldb_metrics_reporter(const struct ldb_outputs *o, struct ldb_reporter *out);
/* The summary's parts hand their figures to the last text (ldb_part_ops's
 * metrics): -S's consumers over the whole run (after the last checks), a
 * replay's result (its counters and lateness, the report's). */
struct ldb_repl_figs;
struct ldb_rp_result;
void ldb_metrics_end_repl(struct ldb_metrics_end *e, const struct ldb_repl_figs *f, int n);
void ldb_metrics_end_replay(struct ldb_metrics_end *e, const struct ldb_rp_result *r);

/* --metrics-push (report/metrics_push.c): start its thread (0, or -1 with
 * one line in err: a URL that is no http://HOST[:PORT][/PATH]); hand it a
 * text to push (copied); push what waits, stop, and say how many pushes
 * failed. */
int ldb_metrics_push_start(const struct ldb_metrics_settings *c, const char *progname, char *err, size_t cap);
void ldb_metrics_push_offer(struct ldb_mpub *text);
void ldb_metrics_push_stop(void);

/* This process's run id (16 hex digits), in the records' header and ldbench_run_info. */
const char *ldb_run_id(void);

#endif
