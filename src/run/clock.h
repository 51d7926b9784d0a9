/* The one clock of a run: CLOCK_MONOTONIC in nanoseconds. */
#ifndef LDBENCH_RUN_CLOCK_H
#define LDBENCH_RUN_CLOCK_H

#include <stdint.h>

uint64_t ldb_now_ns(void);

#endif
