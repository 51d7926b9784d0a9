/* The replication check's reports (-S): per sample and at the end, a text
 * line per consumer, and the JSON and CSV records' parts (docs/results.md).
 * Runs in the main thread; the figures come from server/repl_watch. */
#ifndef LDBENCH_REPORT_REPL_LINES_H
#define LDBENCH_REPORT_REPL_LINES_H

#include <stdbool.h>
#include <stdio.h>

#include "report/json.h"
#include "report/reporter.h"
#include "server/repl_watch.h"

struct ldb_repl_out {
	struct ldb_repl *rp;
	int n;
	struct ldb_repl_figs prev[20], cur[20], diff[20];
};

/* @return 0, or -1 when memory ran out. */
int ldb_repl_out_init(struct ldb_repl_out *o, struct ldb_repl *rp);
void ldb_repl_out_free(struct ldb_repl_out *o);
/* Sample `index`: each consumer's interval, as text and to the reporters. */
void ldb_repl_out_sample(struct ldb_repl_out *o, struct ldb_text *t, const struct ldb_reporter *rep, int nrep,
                         int index, double t_end);
/* After the watchers finished: the run's figures in o->cur (for the summary
 * and --fail-if), as text. */
void ldb_repl_out_final(struct ldb_repl_out *o, struct ldb_text *t);
/* The records' parts (docs/results.md): "replication":[...], one object per
 * consumer (full: the summary's, with mean, p99.9 and the histogram text); a
 * sample's "type":"replication" record; one CSV row per consumer. */
void ldb_repl_put_consumers(FILE *f, const struct ldb_repl_figs *fg, int n, bool full);
void ldb_repl_put_json(FILE *f, int index, double t_end, const struct ldb_repl_figs *fg, int n);
void ldb_repl_put_csv(FILE *f, int index, double t_end, const struct ldb_repl_figs *fg, int n);

/* The run's figures (n consumers' in f, kept) as a part of its summary
 * (report/reporter.h): its "replication" member, its repl. --fail-if
 * figures (the worst consumer's latency, the unseen summed), its live
 * metrics.  @return &p->part. */
struct ldb_repl_part {
	struct ldb_summary_part part;
	const struct ldb_repl_figs *f;
	int n;
};
const struct ldb_summary_part *ldb_repl_part(struct ldb_repl_part *p, const struct ldb_repl_figs *f, int n);

/* `ldbench merge`: the summary records' "replication" arrays added, consumer
 * by consumer (by name): counts and backlogs add, histograms add exactly. */
#define LDB_REPL_MERGE_MAX 20
struct ldb_repl_merge {
	int n;
	char name[LDB_REPL_MERGE_MAX][320];
	struct ldb_repl_figs f[LDB_REPL_MERGE_MAX];
	struct ldb_hist tmp;
	bool tmp_init;
};
/* @return 0 (a record without "replication" adds nothing), or -1 with one line in err. */
int ldb_repl_merge_add(struct ldb_repl_merge *mm, const struct ldb_json *sum, const char *path, char *err, size_t cap);
void ldb_repl_merge_free(struct ldb_repl_merge *mm);

#endif
