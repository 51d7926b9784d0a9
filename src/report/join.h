/* The join of a run's operations (--op-log's records, run/oplog.h) with the
 * server's access log (logs/slog.h): each operation found by its exact key,
 * the server's conn= of its connection (from the connection's tag, a base
 * search whose filter carries the run id and the connection's number) and
 * its request's op= on it (the order ldbench sent it in).  Never by time.
 * Per kind, over the measured window (warm-up excluded): the client's
 * latency, the server's etime, queue (wtime or qtime), processing (optime,
 * or etime - qtime) and outside (client - etime), unindexed searches,
 * coverage and why anything was not joined, and one verdict line in the
 * words of the seed guide.  Memory: the records of the run and what the log
 * said of each (64 bytes an operation), a table of its connections, never
 * the log (docs/design.md). */
#ifndef LDBENCH_REPORT_JOIN_H
#define LDBENCH_REPORT_JOIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ops/ops.h"
#include "run/histogram.h"
#include "report/reporter.h"

enum ldb_jfig { LDB_JF_CLIENT, LDB_JF_ETIME, LDB_JF_QUEUE, LDB_JF_PROC, LDB_JF_OUTSIDE, LDB_JF_COUNT };

/* Why a measured operation was not joined. */
enum ldb_jmiss {
	LDB_JM_NO_TAG,      /* its connection's tag is not in the log */
	LDB_JM_NO_RESULT,   /* the connection is, but not the operation's RESULT line */
	LDB_JM_NO_RESPONSE, /* a kind the server does not answer (abandon): nothing to join */
	LDB_JM_MISMATCH,    /* the log's request at its op= is of another type than its kind: never joined */
	LDB_JM_COUNT
};

struct ldb_join_kind {
	uint64_t sent;   /* measured operations the client recorded */
	uint64_t joined; /* of them, found in the log */
	uint64_t miss[LDB_JM_COUNT];
	uint64_t notes_u, notes_a; /* unindexed: partly, fully */
	bool queue;                /* the log gave wtime or qtime */
	bool proc;                 /* the log gave optime or qtime */
	struct ldb_hist h[LDB_JF_COUNT];
};

/* One sample window's figures of one kind (by the operations' send times):
 * exact percentiles over its joined operations. */
struct ldb_join_sample {
	uint32_t window; /* from 1: [t_measure + (window - 1) x interval, + interval) */
	uint8_t kind;
	uint64_t sent, joined;
	bool has[LDB_JF_COUNT]; /* the figure was logged (queue, processing) */
	uint64_t p50[LDB_JF_COUNT], p99[LDB_JF_COUNT];
};

struct ldb_join {
	struct ldb_summary_part part; /* as a part of the run's summary: ldb_join_part */
	char server[16];              /* "389ds", "openldap" */
	uint32_t run_id;
	uint64_t records;        /* in the op-log */
	uint64_t dropped;        /* lost to full buffers (the op-log's header) */
	uint64_t measured;       /* records of the measured window */
	uint64_t conns;          /* the run's connections that have records */
	uint64_t conns_tagged;   /* of them, found in the log by their tag */
	uint64_t other_tags;     /* tags of other runs in the log */
	uint64_t lines, skipped; /* the log's lines; not used (ldb_slog_stats) */
	uint64_t int_etime;      /* joined results whose etime was whole seconds (older 389 DS) */
	bool last_seen;          /* the run's last operation is in the log */
	uint64_t waited_ms;      /* how long the end waited for it */
	bool kind_used[LDB_OP_COUNT];
	struct ldb_join_kind k[LDB_OP_COUNT];
	struct ldb_join_kind all;
	bool rate;                       /* --rate: client and outside from the send, not the intended start */
	uint64_t interval_ns;            /* the sample windows' length (0: an op-log without them) */
	struct ldb_join_sample *samples; /* by window, then kind */
	size_t nsamples;
	char verdict[320];
	char note[320]; /* why the coverage is short (a log that does not cover the run ...), or "" */
};

/* Join the op-log at oplog_path with the logs (a rotated set, any order).
 * wait_ms > 0: read again, every 200 ms up to wait_ms, until the run's last
 * operation shows (389 DS's buffered access log).  @return 0, or -1 with one
 * line in err (a file that cannot be read, not an op-log, not a log of a
 * known server); *j is then freed. */
int ldb_join_run(struct ldb_join *j, const char *oplog_path, const char *const *logs, int nlogs, uint64_t wait_ms,
                 char *err, size_t cap);
void ldb_join_free(struct ldb_join *j);
/* The verdict and the coverage note from the figures (after a merge). */
void ldb_join_conclude(struct ldb_join *j);

/* The join of a summary record's "join" member (the figures with their
 * histograms; not the per-sample figures).  @return 0, or -1 with one line
 * in err (*j freed). */
struct ldb_json;
int ldb_join_from_json(struct ldb_join *j, const struct ldb_json *join, char *err, size_t cap);
/* d += s (merge): counts add, histograms add exactly; d starts zeroed.  The
 * per-sample figures are not merged.  @return 0, or -1 when memory ran out. */
int ldb_join_merge(struct ldb_join *d, const struct ldb_join *s);

/* The per-sample table (text) and the "samples" JSON member (",\"samples\":[...]"). */
void ldb_join_samples_text(const struct ldb_join *j, FILE *out);
void ldb_join_samples_json(FILE *f, const struct ldb_join *j);

/* The CSV's join rows (--csv, after the samples' rows): their own header
 * row, then per kind (and "all") and figure a row of the run ("run" in the
 * first column: count, min, p50, p95, p99, max), then per sample window,
 * kind and figure a row (the window's number first: p50, p99).  In us. */
#define LDB_JOIN_CSV_HEADER "join_sample,kind,sent,joined,figure,count,min_us,p50_us,p95_us,p99_us,max_us"
void ldb_join_put_csv(FILE *f, const struct ldb_join *j);

/* Why the join j cannot give figures ("the server's log could not be joined"
 * when NULL, "the log does not cover the run", "the log ends before the run
 * did"), or NULL. */
const char *ldb_join_unusable(const struct ldb_join *j);
/* A LDB_TS_JOIN threshold's figure in j (of t's kind, or of every kind).
 * @return true, or false with *why. */
bool ldb_join_figure(const struct ldb_threshold *t, const struct ldb_join *j, double *v, const char **why);
/* j as a part of its run's summary (report/reporter.h): its JSON member,
 * CSV rows, --fail-if figures and unusable verdict. */
const struct ldb_summary_part *ldb_join_part(struct ldb_join *j);

/* The text: a line per kind and figure, coverage, unindexed, the verdict. */
void ldb_join_text(const struct ldb_join *j, FILE *out);
/* The summary record's member ,"join":{...} (docs/results.md). */
void ldb_join_put_json(FILE *f, const struct ldb_join *j);
/* The names of the figures, for the text and JSON: "client", "etime",
 * "queue", "processing", "outside". */
extern const char *const ldb_jfig_name[LDB_JF_COUNT];
extern const char *const ldb_jmiss_name[LDB_JM_COUNT];

#endif
