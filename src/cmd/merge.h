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
 * side by side); the measured time is the longest of the inputs'.  The joins
 * with the servers' logs (--server-log) of the inputs that carry one add the
 * same way: counts add, each figure's histogram adds, the verdict is made
 * again from the merged histograms (the per-sample figures are not merged).
 *
 * Output: the merged summary record (one JSON line) on stdout and a short
 * table on stderr; with --json OUT the record goes to OUT and the table to
 * stdout.  Exit status: 0 done; 2 bad command line or bad input (unreadable or
 * malformed file, no summary record, other schema version), one line on
 * stderr; 99 the output could not be written.
 */
#ifndef LDBENCH_CMD_MERGE_H
#define LDBENCH_CMD_MERGE_H

#include "util/optable.h"

#include <stdio.h>

#include "report/join.h"
#include "report/records.h"
#include "report/listen_lines.h"
#include "report/repl_lines.h"

/** The sum of summary records so far; `s` is the merged summary once
 *  ldb_merge_finish has pointed it at the merged histograms. */
struct ldb_merged {
	struct ldb_summary s;
	struct ldb_totals tot;
	struct ldb_hist lat[LDB_OP_COUNT], ulat[LDB_OP_COUNT], stage[LDB_STAGE_COUNT];
	bool lat_init[LDB_OP_COUNT], ulat_init[LDB_OP_COUNT], stage_init[LDB_STAGE_COUNT];
	struct ldb_records_rates rates; /* the inputs' rates, added */
	struct ldb_hist tmp;            /* a decoded input histogram */
	struct ldb_repl_merge repl;     /* -S: the consumers' figures */
	struct ldb_repl_part repl_part; /* them as a part of s */
	struct ldb_listen_merge listen; /* --listeners: the listeners' figures */
	struct ldb_listen_part lpart;   /* them as a part of s */
	struct ldb_join join;           /* --server-log: the inputs' joins, added (their histograms) */
	int njoin;                      /* inputs that carry a join */
	/* [workload] sections: each workload's records, merged by name (in the
	 * order first seen); wsum their summaries once finished */
	struct ldb_merged *wl;
	char (*wl_name)[32];
	int nwl;
	struct ldb_summary *wsum;
};

/** @return 0, or -1 (out of memory); free with ldb_merge_free either way. */
int ldb_merge_init(struct ldb_merged *m);
/** Add one summary record (as ldb_records_load gives it; path names it in
 *  errors).  @return 0, or -1 with one line in err. */
int ldb_merge_add(struct ldb_merged *m, const struct ldb_json *summary, const char *path, char *err, size_t cap);
/** Point m->s at the merged figures (after the last ldb_merge_add). */
void ldb_merge_finish(struct ldb_merged *m);
void ldb_merge_free(struct ldb_merged *m);

/** Entry point: argv[0] is "merge". @return the exit status. */
int ldb_merge_main(int argc, char **argv);

/* The command's options (--help, the parse, ldbench --dump-options). */
extern const struct ldb_opt ldb_merge_options[];

#endif
