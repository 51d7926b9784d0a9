/* Private to report/join*: the parts of the join's analysis and what they
 * hand each other.  report/join runs them: the op-log read and indexed
 * (report/join_oplog), the server's log read into the tagged connections'
 * tables (report/join_slog), the tables aligned to the records
 * (report/join_align), the figures (report/join_figures, per sample
 * report/join_sample), the verdict (report/join_verdict); the text and JSON
 * are formats (report/join_text, report/join_json). */
#ifndef LDBENCH_REPORT_JOIN_INT_H
#define LDBENCH_REPORT_JOIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/join.h"
#include "logs/slog.h"
#include "run/oplog.h"

/* What the log said of one record (32 bytes).  While the log is read, of
 * one op= of a tagged connection instead (its slot: report/join_slog.c). */
struct ldb_join_res {
	int64_t etime, queue, proc; /* ns; queue, proc -1: not logged */
	uint8_t notes;              /* LDB_SLOG_NOTE_* */
	uint8_t type;               /* the logged request's type (enum ldb_slog_optype; 0: no request line) */
	bool joined;                /* joined (while the log is read: a RESULT line came) */
	bool int_etime;             /* a whole-second etime */
};

typedef struct ldb_join_res jres;

/* A line of a tagged connection outside its table: a request (x.type) or a
 * result (x.joined), in log order (seq). */
struct ldb_jover {
	uint32_t conn, op;
	uint64_t seq;
	jres x;
};

/* One of the run's connections. */
struct ldb_jconn {
	size_t first;  /* its records [first, the next connection's first) */
	size_t tab;    /* the first of them at or after the tag's position: the table's slot 0 */
	int64_t base;  /* the op= of slot 0 (-1: the tag not seen in this pass) */
	bool in_order; /* the records from tab on have strictly increasing orders */
};

/* One log file of the passes: where the last pass stopped reading it. */
struct ldb_jlogfile {
	const char *path;
	bool plain;   /* a regular file, not gzip'd: a pass may resume in it */
	uint64_t off; /* the bytes read, up to the end of its last whole line */
	uint64_t cut; /* the bytes after it, without a newline yet (counted as a cut line) */
};

/* The server's conn= to the run's connection number: open addressing. */
struct ldb_jmap {
	int64_t *key; /* -1: empty */
	uint32_t *val;
	size_t mask;
};

struct ldb_jstate {
	struct ldb_oplog_head head;
	struct ldb_oprec *rec; /* sorted by (conn, order) */
	size_t n;
	uint32_t max_conn;
	struct ldb_jconn *conn; /* [0 .. max_conn + 1]: the last one's first is n */
	jres *res;              /* per record */
	struct ldb_jover *over; /* lines outside the tables */
	size_t nover, capover;
	uint64_t seq;
	struct ldb_jmap map;
	char tag_head[32]; /* "ldbench-RUNID-" */
	size_t tag_head_len;
	/* the passes over the logs (a buffered log waited for: st->tab non-NULL) */
	jres *tab;                  /* the tables before their alignment, for the next pass */
	struct ldb_jlogfile *files; /* the logs, in the order read */
	size_t nfiles;
	uint64_t lines, skipped; /* the log lines read, not used (of every pass) */
};

/* The op-log at path into st (its head, the records sorted by connection
 * and order).  @return 0, or -1 with one line in err (cannot open, not an
 * op-log, a read error, memory). */
int ldb_join_read_oplog(struct ldb_jstate *st, const char *path, char *err, size_t cap);
/* Each connection's range and table start, the map, the results.
 * @return 0, or -1 (memory). */
int ldb_join_index(struct ldb_jstate *st);
/* One event of the log into the tables.  @return 0, or -1 (memory). */
int ldb_join_take_event(struct ldb_jstate *st, struct ldb_join *j, const struct ldb_slog_event *ev);
/* One pass over the logs from their start; the place where each plain
 * file's reading stopped kept for ldb_join_slog_resume, and the tables
 * before their alignment when st->tab is allocated (n results).
 * @return 0, or -1 with one line in err. */
int ldb_join_read_logs(struct ldb_jstate *st, struct ldb_join *j, const char *const *logs, int nlogs, char *err,
                       size_t cap);
/* The lines the logs' plain files gained since the last pass (a buffered
 * log written out), from where that pass stopped (a line without its end
 * is counted as a cut line, as a pass from the start would, and read whole
 * by the next pass), into the tables kept before their alignment
 * (st->tab), aligned again.  @return 0, or -1 with one line in err. */
int ldb_join_slog_resume(struct ldb_jstate *st, struct ldb_join *j, char *err, size_t cap);
void ldb_join_slog_free(struct ldb_jstate *st);
/* The tagged connections' lines to their records (in place: the tables
 * become the records' results).  @return 0, or -1 (memory). */
int ldb_join_align(struct ldb_jstate *st);
/* The run's last operation (the latest result): in the log yet?  *joined:
 * how many answered operations are. */
bool ldb_join_last_joined(const struct ldb_jstate *st, size_t *joined, size_t *answered);
/* The figures of the measured window, per kind, per sample and for the
 * run.  @return 0, or -1 (memory). */
int ldb_join_tally(struct ldb_jstate *st, struct ldb_join *j);

/* The run's records sorted by connection and order, each with what the log
 * said (joined: counted as joined, the kind checked), and the sample
 * windows. */
struct ldb_join_view {
	const struct ldb_oprec *rec;
	const struct ldb_join_res *res;
	size_t n;
	uint64_t t_measure, interval_ns;
};

/* The per-sample figures of the measured records that have a response,
 * into j->samples.  Memory: 4 bytes a record and the largest window's
 * values, for the time of the call.  @return 0, or -1 when memory ran out. */
int ldb_join_samples(struct ldb_join *j, const struct ldb_join_view *v);

#endif
