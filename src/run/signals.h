/* SIGINT and SIGTERM during a run: the main thread takes them (blocked, then
 * waited for with a timeout), so the I/O threads it starts never see them;
 * SIGPIPE is ignored (a peer that closes is an error return, not a death). */
#ifndef LDBENCH_SIGNALS_H
#define LDBENCH_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct ldb_signals {
	sigset_t stop; /* SIGINT, SIGTERM */
	sigset_t old;  /* the mask before */
};

/* Block SIGINT and SIGTERM in this thread (threads started later inherit the
 * mask) and ignore SIGPIPE. */
void ldb_signals_take(struct ldb_signals *s);
/* The mask as it was. */
void ldb_signals_give_back(const struct ldb_signals *s);
/* Wait up to ns nanoseconds.  @return true when SIGINT or SIGTERM came. */
bool ldb_signals_wait(const struct ldb_signals *s, uint64_t ns);

#endif
