/* `ldbench merge`: add the summary records of runs made at the same time on
 * several client hosts (docs/results.md has the record schema).
 *
 *   ldbench merge [--json OUT] FILE...
 *
 * Each FILE is a JSON lines file written by --json (or a merged record written
 * by merge itself); its last summary record is used, and its header (when
 * there is one) gives the host name.  Counts add; latency histograms add
 * exactly (decoded from their lossless text, added, encoded again) and the
 * merged percentiles come from the merged histogram; rates add (the runs ran
 * side by side); the measured time is the longest of the inputs'.
 *
 * Output: the merged summary record (one JSON line) on stdout and a short
 * table on stderr; with --json OUT the record goes to OUT and the table to
 * stdout.  Exit status: 0 done; 2 bad command line or bad input (unreadable or
 * malformed file, no summary record, other schema version), one line on
 * stderr; 99 the output could not be written.
 */
#ifndef LDBENCH_MERGE_H
#define LDBENCH_MERGE_H

#include <stdio.h>

#include "out/json.h"
#include "out/report.h"

/** Entry point: argv[0] is "merge". @return the exit status. */
int ldb_merge_main(int argc, char **argv);

/* ---- the summary record writer, shared by --json (report_records.c) and merge */

/** The record schema version written in "schema". */
#define LDB_RECORDS_SCHEMA 1

/** Rates to write instead of counted/seconds (merge: the sum of the inputs'). */
struct ldb_records_rates {
	double rate;                 /* whole run */
	double op[LDB_OP_COUNT];     /* per operation kind */
};

/** Write one summary record (one line, "\n" included) for `s`: the kinds whose
 *  s->lat[k] is not NULL, the stages whose s->stage[k] is not NULL.  `rates`
 *  NULL: counted/seconds.  `extra`: NULL, or members written as they are
 *  before the closing brace (",\"merged\":{...}"; starts with a comma).
 *  @return 0, or -1 when writing failed (ferror) or memory ran out. */
int ldb_records_write_summary(FILE *out, const struct ldb_summary *s, const struct ldb_records_rates *rates,
                              const char *extra);

/** Client failure kinds as the records name them: connect, tls, timeout, server_down. */
extern const char *const ldb_records_fail_names[LDB_FAIL_COUNT];

/** Read a records file (JSON lines): every non-empty line must be a JSON object
 *  with a string "type", and a "schema" when it has one no newer than
 *  LDB_RECORDS_SCHEMA.  *summary gets the last summary record (required),
 *  *header the first header record or NULL; free both with ldb_json_free.
 *  @return 0, or -1 with one line in err ("FILE:LINE: column 5: ..."). */
int ldb_records_load(const char *path, struct ldb_json **header, struct ldb_json **summary, char *err, size_t cap);

#endif
