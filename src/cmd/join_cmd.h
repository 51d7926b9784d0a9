/* `ldbench join`: a run's --op-log joined with the server's access log copied
 * later (report/join.h).
 *
 *   ldbench join --op-log FILE [--json OUT] [--fail-if EXPR]... LOG...
 *
 * LOG: the server's access log (389 DS) or stats log (OpenLDAP), several for
 * a rotated set (any order, .gz too).  Output: the join's text on stdout;
 * with --json OUT one JSON line {"type":"join",...} (docs/results.md).
 * Exit status: 0 joined; 2 bad command line or bad input (an unreadable
 * file, not an op-log, not a log of a known server), one line on stderr;
 * 5 the log does not cover the run (none of its connections' tags is in it);
 * 10 a --fail-if threshold holds. */
#ifndef LDBENCH_CMD_JOIN_H
#define LDBENCH_CMD_JOIN_H

#include "util/optable.h"

/* The command's options (--help, the parse, ldbench --dump-options). */
extern const struct ldb_opt ldb_join_options[];

/** Entry point: argv[0] is "join".  @return the exit status. */
int ldb_join_main(int argc, char **argv);

#endif
