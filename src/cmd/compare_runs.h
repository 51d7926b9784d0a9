/* `ldbench compare`: its command line and exit status; the analysis is
 * report/cmp_runs's (that header says what compare does). */
#ifndef LDBENCH_CMD_COMPARE_RUNS_H
#define LDBENCH_CMD_COMPARE_RUNS_H

#include "util/optable.h"

/** Entry point: argv[0] is "compare". @return the exit status. */
int ldb_compare_main(int argc, char **argv);

/* The command's options (--help, the parse, ldbench --dump-options). */
extern const struct ldb_opt ldb_compare_options[];

#endif
