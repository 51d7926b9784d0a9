/* `ldbench replay`: a server's access log (389 DS access log, OpenLDAP stats
 * log: logs/slog.h) read for what it holds.
 *
 *   ldbench replay --profile [--from TIME] [--to TIME] [--interval DURATION]
 *                  [--top N] [--json FILE] [--write-scenario FILE] LOG...
 *
 * Built so far: the profile (report/logprofile.h), sending nothing, and the
 * scenario written from it (--write-scenario).  Sending the log's operations
 * to a server is not built yet: without --profile the command says so and
 * exits 2 (docs/replay.md).
 *
 * TIME: @EPOCH[.FRACTION] (seconds, UTC), YYYY-MM-DDTHH:MM:SS[.FRACTION]
 * followed by Z or +HH:MM / -HH:MM (without either: the local time of TZ),
 * or +DURATION after the time of the log's first line (+30s, +2m).  The
 * window is [from, to).
 *
 * Exit status: 0 done; 1 the log (or its window) holds no operation (the
 * profile is still printed, no scenario is written); 2 a bad command line, a
 * log that cannot be opened or is of no known format, or a read error part
 * way (the reader's line on stderr); 99 an output could not be written.
 */
#ifndef LDBENCH_CMD_REPLAY_H
#define LDBENCH_CMD_REPLAY_H

#include <stdio.h>

#include "report/logprofile.h"

/** Entry point: argv[0] is "replay".  @return the exit status. */
int ldb_replay_main(int argc, char **argv);

/** Write the profile as an ldbench scenario file to out (logs names the
 *  log in its comments).  @return 0, or -1 with one line in err (nothing in
 *  the profile that a scenario can run). */
int ldb_replay_write_scenario(const struct ldb_lprof *p, const char *logs, FILE *out, char *err, size_t cap);

#endif
