/* The command line: ldclt's flags and -e keywords, ldbench's long options. */
#ifndef LDBENCH_CLI_CLI_H
#define LDBENCH_CLI_CLI_H

#include <stddef.h>
#include "conf/config.h"
#include "util/num.h"

enum ldb_cli_result {
	LDB_CLI_RUN = 0,       /* config is ready: run the load */
	LDB_CLI_EXIT_OK = 1,   /* --help / --version printed: exit 0 */
	LDB_CLI_ERROR = 2,     /* err holds one line naming the problem: exit 2 */
	LDB_CLI_INIT_ERROR = 3 /* a file an option names is unusable (err says why): exit 7, as ldclt */
};

/* Parse argv into c (initialised with ldb_config_init by the caller), compile
 * the patterns, load the files named by options, and run every cross-check.
 * Opens no connection.  err gets one line without a trailing newline, already
 * prefixed with "<progname>: " (print it as is).  c->progname points into argv[0]. */
enum ldb_cli_result ldb_cli_parse(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap);
/* The live metrics' options given to a command with a parser of its own
 * (ldbench replay): listen, linger and push (each NULL when not given) into
 * m, checked as the load's.  @return 0, or -1 with one line in err (no
 * program name: the caller names itself). */
int ldb_cli_metrics_args(struct ldb_metrics_settings *m, const char *listen, const char *linger, const char *push,
                         char *err, size_t errcap);

/* ldb_parse_duration_ms: util/num.h */

/** The load's option table, one line per option (util/optable.h's
 *  ldb_opt_dump, command "load"): `ldbench --dump-options`, for the tests. */
void ldb_cli_dump_options(FILE *out);

void ldb_cli_usage(const char *progname, FILE *out);

#endif
