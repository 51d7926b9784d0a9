/* The main thread during a run: start the workers, sample them every interval
 * (relaxed reads, rates over measured time), watch the stop conditions (-N,
 * -T, noloop, -E, dead threads, SIGINT/SIGTERM), join, summarise. */
#ifndef LDBENCH_SAMPLER_H
#define LDBENCH_SAMPLER_H

#include <stdio.h>

#include "ldbench/config.h"

/* Run the load described by a checked config; text goes to out.
 * @return the exit status (ldclt's codes). */
int ldb_run_load(const struct ldb_config *cfg, FILE *out);

#endif
