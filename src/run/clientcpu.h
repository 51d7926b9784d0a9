/* The client's own figures (docs/capacity.md), read by the sampler from the main
 * thread, never by the I/O threads: each I/O thread's CPU time (its thread
 * CPU clock) and run-queue delay (/proc/self/task/TID/schedstat), and the CPU
 * throttling the kernel reports for the process's cgroup (cgroup v2
 * cpu.stat nr_throttled/throttled_usec, v1 cpu.stat nr_throttled/
 * throttled_time). */
#ifndef LDBENCH_RUN_CLIENTCPU_H
#define LDBENCH_RUN_CLIENTCPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The cpu.stat of the process's cgroup, found once. */
struct ldb_cgroup_cpu {
	char path[512]; /* empty: none found */
	bool v2;
};

/* Find it from /proc/self/cgroup (v2's "0::PATH", or v1's line naming the
 * cpu controller) under /sys/fs/cgroup.  @return 0, or -1 (then path is ""). */
int ldb_cgroup_find(struct ldb_cgroup_cpu *cg);

/* Its throttling so far: quota periods elapsed, periods throttled and the
 * time (ns).  @return 0, or -1 when it cannot be read. */
int ldb_cgroup_throttled(const struct ldb_cgroup_cpu *cg, uint64_t *elapsed, uint64_t *periods, uint64_t *ns);

/* A running thread's CPU time (ns).  @return 0, or -1 (it ended). */
int ldb_thread_cpu_ns(pthread_t t, uint64_t *ns);

/* A thread's time spent waiting on a run queue (ns).  @return 0, or -1. */
int ldb_thread_run_delay_ns(int tid, uint64_t *ns);

#endif
