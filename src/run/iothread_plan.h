/* How a run's clients are laid over I/O threads, and the file descriptors
 * their connections need. */
#ifndef LDBENCH_RUN_IOTHREAD_PLAN_H
#define LDBENCH_RUN_IOTHREAD_PLAN_H

#include <stddef.h>

#include "conf/config.h"

/* How many I/O threads carry `clients` clients of pipeline depth `depth` on
 * `cpus` online CPUs (0 or less: unknown): --io-threads when given, else
 * the policy of design.md; never more threads than clients, at least one. */
int ldb_io_threads(const struct ldb_config *c, int clients, int depth, long cpus);

/* The clients of I/O thread k of nr, in contiguous blocks: how many, from
 * *first on. */
int ldb_io_share(int clients, int nr, int k, int *first);

/* The descriptors `clients` clients need (their connections and some spare). */
long ldb_fd_need(const struct ldb_config *c, int clients);

/* Enough descriptors for `need`, raised up to the hard limit.
 * @return 0, or -1 with one line in err naming the limit. */
int ldb_fd_raise(long need, char *err, size_t cap);

#endif
