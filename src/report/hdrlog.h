/* --hdr-log FILE: HdrHistogram's interval log (docs/results.md "HdrHistogram
 * interval log"): a "#[StartTime: ...]" / "#[BaseTime: ...]" header, then per
 * sample and operation kind one "Tag=KIND,START,LENGTH,MAX,HISTFAA..." line
 * holding the interval's histogram in HdrHistogram's compressed V2 encoding.
 *
 * ldbench's histogram (run/histogram.h) has HdrHistogram's own layout for
 * lowest discernible value 1 (ns), 3 significant digits (2048 sub-buckets,
 * unit magnitude 0) and highest trackable value 1 h: its slot i is
 * HdrHistogram's counts index i, so the counts are written as they are and a
 * reader's percentiles are ldbench's, to the histogram's precision (1/1024). */
#ifndef LDBENCH_REPORT_HDRLOG_H
#define LDBENCH_REPORT_HDRLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "report/reporter.h"

/** The compressed V2 form of `h`, base64 ("HISTFAA..."), malloc'ed; NULL when
 *  memory or zlib failed. */
char *ldb_hdrlog_encode(const struct ldb_hist *h);

/** Open the --hdr-log reporter (append: a later run of a --sweep).
 *  @return 0, or -1 with one line in err. */
int ldb_hdrlog_open(const struct ldb_outputs *c, bool append, struct ldb_reporter *out, char *err, size_t cap);

#endif
