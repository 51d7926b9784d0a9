/* `ldbench report`: the report page of records files (docs/results.md
 * "The report page").
 *
 *   ldbench report [-o OUT.html] FILE.json... [-- CHANGE.json...]
 *
 * Every file's runs are drawn overlaid (report/html.h).  With two files or more
 * the page also holds compare's table (report/cmp_runs.h, the same computation):
 * the files before "--" are the base and those after it the change; without
 * "--" the first file is the base and the others the change.
 * Exit status: 0 written; 2 bad command line or bad input (one line on
 * stderr); 7 the output cannot be created or written. */
#ifndef LDBENCH_CMD_REPORT_PAGE_H
#define LDBENCH_CMD_REPORT_PAGE_H

#include "util/optable.h"

/** Entry point: argv[0] is "report". @return the exit status. */
int ldb_report_main(int argc, char **argv);

/* The command's options (--help, the parse, ldbench --dump-options). */
extern const struct ldb_opt ldb_report_options[];

#endif
