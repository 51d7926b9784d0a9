/* The results file (docs/results.md): its schema version, the summary record's
 * writer and the reader of a whole file, shared by --json (report_records.c)
 * and the commands over result files (merge, compare).  Commands include this
 * header; it includes no command. */
#ifndef LDBENCH_REPORT_RECORDS_H
#define LDBENCH_REPORT_RECORDS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/json.h"
#include "report/reporter.h"

/** The record schema version written in "schema". */
#define LDB_RECORDS_SCHEMA 1

/** Rates to write instead of counted/seconds (merge: the sum of the inputs'). */
struct ldb_records_rates {
	double rate;             /* whole run */
	double op[LDB_OP_COUNT]; /* per operation kind */
};

/** Write one summary record (one line, "\n" included) for `s`: the kinds whose
 *  s->lat[k] is not NULL, the stages whose s->stage[k] is not NULL.  `rates`
 *  NULL: counted/seconds.  `extra`: NULL, or members written as they are
 *  before the closing brace (",\"merged\":{...}"; starts with a comma).
 *  @return 0, or -1 when writing failed (ferror) or memory ran out. */
int ldb_records_write_summary(FILE *out, const struct ldb_summary *s, const struct ldb_records_rates *rates,
                              const char *extra);

/** [workload] sections: ,"workloads":{"NAME":{"type":"workload","name":"NAME",
 *  ...a summary record's members...},...} for s->workloads (rates: NULL, or
 *  each workload's to write), malloc'ed; NULL when s has none (report/json_csv.c). */
char *ldb_records_workloads_member(const struct ldb_summary *s, const struct ldb_records_rates *const *rates);

/** The members shared by sample and summary records: one kind's counters
 *  ("attempted":...,"client_failures":{...}, no braces around them), and
 *  "latency_us":{...} (full: with mean and p99.9, as summaries have them). */
void ldb_records_put_counts(FILE *f, const struct ldb_opstats *o, double rate);
void ldb_records_put_latency(FILE *f, const struct ldb_hist *h, bool full);

/** Client failure kinds as the records name them: connect, tls, timeout, server_down. */
extern const char *const ldb_records_fail_names[LDB_FAIL_COUNT];

/** The operation kind a record's "ops" member names ("search", ...), or -1. */
int ldb_records_kind(const char *name);
/** The same for a summary's or sample's row of the "ops" object it is in:
 * also a flow's rows (NAME and its steps NAME.*, named by the run's --flow),
 * which a process that did not run the flow takes on (ops/flow.c). */
int ldb_records_row_kind(const struct ldb_json *ops, const char *name);

/** Read a records file (JSON lines): every non-empty line must be a JSON object
 *  with a string "type", and a "schema" when it has one no newer than
 *  LDB_RECORDS_SCHEMA.  *summary gets the last summary record (required),
 *  *header the first header record or NULL; free both with ldb_json_free.
 *  @return 0, or -1 with one line in err ("FILE:LINE: column 5: ..."). */
int ldb_records_load(const char *path, struct ldb_json **header, struct ldb_json **summary, char *err, size_t cap);

#endif
