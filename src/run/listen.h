/* Listeners for changes (--listeners N, docs/guide.md "Listeners"): N RFC
 * 4533 refreshAndPersist sync searches or persistent searches, each on its
 * own connection, on I/O threads of their own (the engine's: run/conn.c over
 * run/link.c, request source LDB_SOURCE_LISTEN in run/listen_source.c), and
 * a matcher thread (run/listen_match.c) that joins the writes the load's I/O
 * threads confirmed (offered through their -S tap, run/repl.h, one ring per
 * I/O thread, every write) with the notifications each listener received:
 * the delay from a write's confirmation to its arrival on each listener,
 * notifications missing after --listen-wait, duplicated, out of order.
 * The load's I/O threads are unchanged: their tap is -S's (one relaxed
 * exchange and a ring push per confirmed write). */
#ifndef LDBENCH_RUN_LISTEN_H
#define LDBENCH_RUN_LISTEN_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"
#include "run/histogram.h"
#include "run/repl.h"

struct ldb_run;
struct ldb_listen;

/* The run's figures (cumulative; exact once ldb_listen_finish returned). */
struct ldb_listen_figs {
	int listeners, kind; /* --listeners, --listen-kind */
	int refreshed;       /* listeners whose refresh ended (sync: refreshDone; psearch: the search sent) */
	int failed;          /* refused (a result code ended the search, or the set-up) */
	int lost;            /* listeners' connections (or searches) lost after their first refresh, each time */
	int reconnected;     /* of which re-opened with their search back (sync: the catch-up refresh done) */
	int down;            /* listeners lost and not back at the end */
	uint64_t catchup;    /* entries of the catch-up refreshes */
	uint64_t caught_up;  /* writes a listener received through a catch-up refresh's entry */
	uint64_t away_p50_ns, away_max_ns;       /* lost to back, over the times lost and back */
	int code;                                /* the first result code that ended a search, -1 none */
	uint64_t refresh_p50_ns, refresh_max_ns; /* from the search sent to refreshDone, over listeners */
	uint64_t entries_p50, entries_max;       /* entries of the refresh, over listeners */
	uint64_t writes;                         /* confirmed writes followed */
	uint64_t untracked;                      /* confirmed writes not followed (random renames, a full ring) */
	uint64_t expected;                       /* writes x listeners in the persist phase */
	uint64_t seen;                           /* of which received */
	uint64_t missing;                        /* not received within --listen-wait */
	uint64_t duplicated;                     /* a write's notification received again by one listener */
	uint64_t out_of_order;                   /* a write's value received after a later write's */
	uint64_t superseded;   /* received carrying a later write's value (the entry as it was when sent) */
	uint64_t early;        /* received before the writer had its result (delay 0) */
	uint64_t foreign;      /* notifications matching no write of the run */
	uint64_t notes;        /* notifications received in the persist phase */
	uint64_t behind_max;   /* the most writes one listener had not yet received */
	uint64_t dropped;      /* notifications a full ring refused (never matched) */
	struct ldb_hist delay; /* confirmation to arrival (the caller's, initialised) */
	/* --listeners-baseline: the load's main kind without the listeners and with them */
	bool baseline;
	double base_rate, with_rate; /* per second */
	uint64_t base_p50_ns, base_p99_ns, with_p50_ns, with_p99_ns;
};

/* Start the listeners of c (c->listeners > 0) beside run's target, and the
 * matcher, with a tap for each of the load's nio I/O threads; returns once
 * each listener's refresh is over (sync: refreshDone; psearch: its search
 * went out and a moment passed) or failed.  @return 0 with *out, or an exit
 * status with one line in err: LDB_EXIT_NO_LISTEN when a search was refused
 * (the server does not support it below the base), LDB_EXIT_CANNOT_BIND when
 * none could connect or bind, LDB_EXIT_INIT out of memory. */
int ldb_listen_start(const struct ldb_config *c, const struct ldb_run *run, int nio, struct ldb_listen **out, char *err,
                     size_t cap);
/* The tap of the load's I/O thread k (its struct ldb_iothread's repl). */
struct ldb_repl_tap *ldb_listen_tap(struct ldb_listen *ls, int k);
/* The load's measurement began at t0 (monotonic ns) and lasts dur_ns (0:
 * not known): --listen-pause is placed in its middle. */
void ldb_listen_measuring(struct ldb_listen *ls, uint64_t t0, uint64_t dur_ns);
/* The listeners' pause (--listen-pause): whether it is under way at now. */
bool ldb_listen_paused(const struct ldb_listen *ls, uint64_t now);
/* The load is over (its I/O threads joined): wait until every write was
 * received by every listener or --listen-wait passed, then stop. */
void ldb_listen_finish(struct ldb_listen *ls);
/* The figures now (f->delay initialised by the caller: replaced by a copy). */
void ldb_listen_read(struct ldb_listen *ls, struct ldb_listen_figs *f);
void ldb_listen_free(struct ldb_listen *ls);
/* --listen-record, after ldb_listen_finish: the notifications recorded
 * into *n; @return NULL without the option, "" when written, else the
 * failure's line. */
const char *ldb_listen_recorded(const struct ldb_listen *ls, uint64_t *n);

#endif
