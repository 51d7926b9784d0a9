/* The replication check's watchers (-S): one thread per consumer, with its own
 * connection, polling the samples the I/O threads hand over through their taps
 * (run/repl.h) with base searches until each change shows or --repl-timeout
 * passes (docs/design.md, "Replication delay").  The taps and rings stay in
 * run/ (the I/O threads' hot path); the watchers read the consumers' state. */
#ifndef LDBENCH_SERVER_REPL_WATCH_H
#define LDBENCH_SERVER_REPL_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"
#include "run/histogram.h"
#include "run/repl.h"

/* One consumer's figures, cumulative (a sample is the difference of two). */
struct ldb_repl_figs {
	const char *consumer; /* as given to -S */
	int state;            /* LDB_REPL_UP ... */
	uint64_t checked;     /* samples taken */
	uint64_t seen;        /* of which visible within the timeout */
	uint64_t unseen;      /* not visible within it, and not superseded */
	uint64_t superseded;  /* not visible, but its entry was written again (and confirmed) since: never waited for */
	uint64_t dropped;     /* refused by a full ring or queue, or too long to carry: never checked */
	uint64_t backlog_max; /* largest number confirmed but not yet seen (whole run, or the interval) */
	uint64_t searches;    /* base searches sent to the consumer */
	struct ldb_hist delay; /* delays of the seen ones (the caller's, initialised) */
};

enum { LDB_REPL_CONNECTING, LDB_REPL_UP, LDB_REPL_DOWN };

struct ldb_repl;

/* Start one watcher per consumer of cfg (cfg->nrepl > 0) for nio I/O
 * threads.  A consumer that cannot be reached or bound is reported in one
 * line on `out` by its watcher and left alone; one whose TLS handshake
 * fails (a certificate that does not verify) stops the run.  Returns once
 * each watcher tried its first connection.  @return NULL with one line in
 * err and *status the exit status (4: a consumer's TLS failed, as the load's
 * would; 7: out of memory, a thread that cannot start). */
struct ldb_repl *ldb_repl_start(const struct ldb_config *cfg, int nio, FILE *out, char *err, size_t cap, int *status);
/* I/O thread k's side. */
struct ldb_repl_tap *ldb_repl_tap(struct ldb_repl *rp, int k);
int ldb_repl_count(const struct ldb_repl *rp);
/* Consumer i's figures now; the interval's largest backlog is taken (reset)
 * when take_peak, else the run's.  f->delay must be initialised (it is
 * replaced by a copy). */
void ldb_repl_read(struct ldb_repl *rp, int i, bool take_peak, struct ldb_repl_figs *f);
/* The load is over: each watcher finishes its pending samples (seen,
 * superseded, or unseen once their timeout passed), then stops. */
void ldb_repl_finish(struct ldb_repl *rp);
void ldb_repl_free(struct ldb_repl *rp);

#endif
