/* The listeners' reports (--listeners, docs/guide.md "Listeners"): the
 * summary's text lines, and the JSON summary record's "listeners" object
 * as a part of the summary (report/reporter.h).  Runs in the main thread;
 * the figures come from run/listen. */
#ifndef LDBENCH_REPORT_LISTEN_LINES_H
#define LDBENCH_REPORT_LISTEN_LINES_H

#include <stdio.h>

#include "report/json.h"
#include "report/reporter.h"
#include "run/listen.h"

/* The run's lines ("Listeners: ..."), after the listeners finished. */
void ldb_listen_text(const struct ldb_listen_figs *f, struct ldb_text *t);
/* --listeners-baseline's line: the writes without and with the listeners. */
void ldb_listen_baseline_text(const struct ldb_listen_figs *f, struct ldb_text *t);
/* The "listeners" object (without a leading comma). */
void ldb_listen_put_json(FILE *out, const struct ldb_listen_figs *f);

struct ldb_listen_part {
	struct ldb_summary_part part;
	const struct ldb_listen_figs *f;
};
const struct ldb_summary_part *ldb_listen_part(struct ldb_listen_part *p, const struct ldb_listen_figs *f);

/* `ldbench merge`: the summary records' "listeners" objects added (each
 * host's listeners and the writes its load made): counts add, the delays'
 * histograms add exactly; the refresh's and most behind's figures are the
 * largest of the hosts'. */
struct ldb_listen_merge {
	int n; /* records with listeners */
	struct ldb_listen_figs f;
	struct ldb_hist tmp;
};
/* @return 0 (a record without "listeners" adds nothing), or -1 with one line in err. */
int ldb_listen_merge_add(struct ldb_listen_merge *mm, const struct ldb_json *sum, const char *path, char *err,
                         size_t cap);
void ldb_listen_merge_free(struct ldb_listen_merge *mm);

#endif
