/* Private to logs/: what the reader (logs/slog), the timestamps
 * (logs/slog_time) and the line parsers (logs/slog_parse) share. */
#ifndef LDBENCH_LOGS_SLOG_INT_H
#define LDBENCH_LOGS_SLOG_INT_H

#include <stdint.h>

#include "logs/slog.h"

/* How a file's zoneless and yearless timestamps are read. */
struct ldb_slog_tctx {
	int year;         /* the year of yearless stamps */
	int ref_month;    /* 1..12: a later month is of year - 1; 0: none */
	bool off_set;     /* zoneless stamps at off_s, not at local time */
	int off_s;        /* seconds east of UTC */
	int64_t hour_key; /* local time cache: the hour last converted ... */
	int64_t hour_ns;  /* ... and its start, ns since the epoch */
};

/* A file's parse state. */
struct ldb_slog_pctx {
	enum ldb_slog_format fmt; /* UNKNOWN until a line of a format is seen */
	struct ldb_slog_tctx t;
};

#define LDB_SLOG_NO_TIME INT64_MIN

/* The prefix of a line: its format (UNKNOWN: no known prefix), its time,
 * and where the message ("conn=...") starts.  @return the message, or NULL. */
const char *ldb_slog_prefix(struct ldb_slog_tctx *t, const char *p, const char *end, enum ldb_slog_format *fmt,
                            int64_t *ns, int64_t *res);

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
int64_t ldb_slog_days(int y, unsigned m, unsigned d);

/* A month's number from its English abbreviation (1..12), 0 if none. */
int ldb_slog_month(const char *p);

/* A line [p, p+n) into *ev (ev->file, ev->line set by the caller; the rest
 * filled here).  Sets c->fmt on the first line of a known format. */
void ldb_slog_parse(struct ldb_slog_pctx *c, const char *p, size_t n, struct ldb_slog_event *ev);

/* An event with every field "not logged". */
void ldb_slog_event_clear(struct ldb_slog_event *ev);

#endif
