/* I/O threads and descriptors: see iothreads.h. */
#include "run/iothread_plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#define FD_SPARE 64 /* stdio, the records files, the monitor's connection, libraries */

int ldb_io_threads(const struct ldb_config *c, int clients, int depth, long cpus)
{
	int nr;
	if (c->io_threads > 0) {
		nr = c->io_threads;
	} else {
		/* one I/O thread per CPU at most; with deep pipelines one per four
		 * connections is plenty, and fewer threads batch better.  A
		 * clear-text connection per operation (bindeach) is kernel work
		 * (handshake, teardown) that threads on several CPUs only make
		 * contend: half the CPUs (design.md) */
		long want = clients;
		long most = cpus;
		if (depth >= 8)
			want = ((long)clients * c->conns_per_thread + 3) / 4;
		if (c->bindeach && !c->ldaps && !c->starttls && cpus > 1)
			most = cpus / 2;
		if (most > 0 && want > most)
			want = most;
		nr = want < 1 ? 1 : (int)want;
	}
	return nr > clients ? clients : nr;
}

int ldb_io_share(int clients, int nr, int k, int *first)
{
	int base = clients / nr, extra = clients % nr;
	*first = k * base + (k < extra ? k : extra);
	return base + (k < extra ? 1 : 0);
}

long ldb_fd_need(const struct ldb_config *c, int clients)
{
	return (long)clients * c->conns_per_thread + FD_SPARE;
}

int ldb_fd_raise(long need, char *err, size_t cap)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
		snprintf(err, cap,
		         "%ld connections need about %ld file descriptors, but the limit is %llu (ulimit -n; the hard "
		         "limit %llu)",
		         need - FD_SPARE, need, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = (rlim_t)need;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		snprintf(err, cap, "cannot raise the file descriptor limit to %ld: %s", need, strerror(errno));
		return -1;
	}
	return 0;
}
