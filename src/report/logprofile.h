/* `ldbench replay --profile`: what a server's access log holds, sending
 * nothing: operations per type and their result codes, the rate and the
 * connections open over time, the top filter shapes, search bases and bind
 * DNs, and the server's recorded times per type, within a time window.
 *
 * Memory: bounded by the connections open at once (a set of connection
 * numbers, an entry removed at its close), the three top-N tables (fixed
 * size: report/logtop.h), the time series (at most LDB_LPROF_MAXPTS
 * intervals: when the window needs more, neighbouring intervals merge and
 * the interval doubles) and one histogram per recorded time and type seen
 * (run/histogram.h: fixed size); never by the log's size.
 *
 * Events: fed in the reader's order (logs/slog.h).  A request counts in the
 * window when its line's time lies in [from, to); a result likewise, its
 * type taken from its tag (97 bind, 101 search, 103 modify, 105 add, 107
 * delete, 109 modrdn, 111 compare, 120 extended; none logged but an oid=
 * field, as OpenLDAP logs an extended operation's result: extended; any
 * other: other).  Every
 * event, in the window or not, keeps the set of open connections: a
 * connection is open from its first line (its accept, or its first
 * operation when the log starts after it) to its close line.
 */
#ifndef LDBENCH_REPORT_LOGPROFILE_H
#define LDBENCH_REPORT_LOGPROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "logs/slog.h"
#include "report/logtop.h"
#include "run/histogram.h"

#define LDB_LPROF_MAXPTS 4096
#define LDB_LPROF_NCODES 129 /* result codes 0..127; [128]: any other */
#define LDB_LPROF_TOPCAP 1024
#define LDB_LPROF_PEND 1024 /* binds whose request a result finds */

/* The server's recorded times. */
enum ldb_lprof_time { LDB_LPROF_ETIME, LDB_LPROF_WTIME, LDB_LPROF_OPTIME, LDB_LPROF_QTIME, LDB_LPROF_NTIMES };

struct ldb_lprof_kind {
	uint64_t requests, results, entries;
	uint64_t unindexed;            /* results with notes=A or notes=U (389 DS) */
	uint64_t unindexed_searches;   /* notes=A: fully unindexed (logconv's "Unindexed Searches") */
	uint64_t unindexed_components; /* notes=U: a component unindexed ("Unindexed Components") */
	uint64_t codes[LDB_LPROF_NCODES];
	struct ldb_hist t[LDB_LPROF_NTIMES];
	bool tinit[LDB_LPROF_NTIMES];
};

/* One interval of the time series. */
struct ldb_lprof_point {
	uint64_t requests, opened, closed;
	uint64_t peak; /* most connections open at once in it */
};

struct ldb_lprof {
	int64_t from_ns, to_ns; /* the window: INT64_MIN, INT64_MAX when open */
	int64_t interval_ns;    /* the series' interval (doubles to fit) */
	int64_t start_ns;       /* the first interval's start; INT64_MIN before */
	int64_t first_ns, last_ns;
	struct ldb_lprof_point *pts;
	int npts;
	struct ldb_lprof_kind kind[LDB_SLOG_NOPTYPES];
	uint64_t requests; /* in the window, every type */
	uint64_t scopes[4];
	uint64_t one_second_lines; /* lines with whole-second times */
	struct ldb_ltop filters, bases, binddns;
	/* binds that succeeded, "MECH DN" (SIMPLE, EXTERNAL, DIGEST-MD5 ...):
	 * OpenLDAP's "BIND dn= mech=" line, 389 DS's bind RESULT dn= with the
	 * mechanism of its request (remembered for LDB_LPROF_PEND connections) */
	struct ldb_ltop binds_ok;
	struct ldb_lprof_pend {
		int64_t conn, op;
		char mech[24]; /* "" simple */
	} pend[LDB_LPROF_PEND];
	/* connections: open-addressing set of connection numbers */
	int64_t *conns;
	size_t conncap, nconns;
	/* the last connections closed: a line of one logged after its close
	 * (389 DS's threads write out of order) does not open it again */
	int64_t closed_ring[64];
	unsigned closed_next;
	uint64_t opened, closed, peak;
	int64_t peak_ns;
	int top; /* entries to print of each table */
};

/** from/to: the window (INT64_MIN/INT64_MAX: none), interval_ns > 0.
 *  @return 0, or -1 (out of memory); free with ldb_lprof_free either way. */
int ldb_lprof_init(struct ldb_lprof *p, int64_t from_ns, int64_t to_ns, int64_t interval_ns, int top);
void ldb_lprof_free(struct ldb_lprof *p);

/** Count one event.  @return 0, or -1 (out of memory). */
int ldb_lprof_event(struct ldb_lprof *p, const struct ldb_slog_event *ev);

/** The profile as text. */
void ldb_lprof_text(const struct ldb_lprof *p, const struct ldb_slog_stats *st, enum ldb_slog_format fmt, FILE *out);

/** The profile as one JSON object on one line.  @return 0, or -1 (write error). */
int ldb_lprof_json(const struct ldb_lprof *p, const struct ldb_slog_stats *st, enum ldb_slog_format fmt,
                   char *const *files, int nfiles, FILE *out);

/** The optype of a result tag (LDB_SLOG_OP_OTHER when none). */
enum ldb_slog_optype ldb_lprof_tag_type(int tag);

/** The name of a recorded time ("etime", ...). */
const char *ldb_lprof_time_name(enum ldb_lprof_time t);

#endif
