/* SIGINT and SIGTERM during a run: the main thread takes them (blocked, then
 * waited for with a timeout), so the I/O threads it starts never see them;
 * SIGPIPE is ignored (a peer that closes is an error return, not a death). */
#ifndef LDBENCH_RUN_SIGNALS_H
#define LDBENCH_RUN_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct ldb_signals {
	sigset_t stop; /* SIGINT, SIGTERM */
};

/* Block SIGINT and SIGTERM in this thread (threads started later inherit the
 * mask) and ignore SIGPIPE. */
void ldb_signals_take(struct ldb_signals *s);
/* The run is over and its summary out: the SIGINTs and SIGTERMs that came
 * meanwhile are taken (that summary answered them), and both stay blocked,
 * so that one more arriving while the process exits cannot kill it with the
 * summary half-written or the exit status lost (ldclt always ends with its
 * Exit line).  The next run of a --sweep takes one that comes in between. */
void ldb_signals_settle(const struct ldb_signals *s);
/* Wait up to ns nanoseconds.  @return true when SIGINT or SIGTERM came. */
bool ldb_signals_wait(const struct ldb_signals *s, uint64_t ns);

#endif
