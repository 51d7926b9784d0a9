/* `ldbench listen-join`: listeners measuring a write load from another host
 * (docs/guide.md "Another host's writes").  One host's writing run recorded
 * its confirmed writes (--write-record W), another's listeners-only run its
 * notifications (--listen-record N); this joins them by the entry's DN and
 * the value written, with the live run's matcher (run/listen_match.c, fed
 * from the files), and prints the live run's Listeners: lines (delay p50,
 * p99, max; missing, duplicated, out of order, superseded, unmatched), the
 * smallest delay (the clocks' offset bound), and with --json OUT the JSON
 * "listeners" object.
 *
 *   ldbench listen-join --writes W --notes N [--json OUT]
 *
 * Exit status: 0 joined; 2 bad command line or bad input (a missing,
 * truncated or incomplete file, a notes file given as writes), one line. */
#ifndef LDBENCH_CMD_LISTEN_JOIN_H
#define LDBENCH_CMD_LISTEN_JOIN_H

#include "util/optable.h"

extern const struct ldb_opt ldb_listen_join_options[];

/** Entry point: argv[0] is "listen-join".  @return the exit status. */
int ldb_listen_join_main(int argc, char **argv);

#endif
