/* The subcommands' command lines, GNU style: options anywhere on the line,
 * operands in their order, "--" to end the options (for file names that begin
 * with a dash).  One helper for every subcommand that reads its own argv
 * (compare, merge); the run's options and `gen` go through getopt_long, which
 * permutes the same way. */
#ifndef LDBENCH_UTIL_ARGV_H
#define LDBENCH_UTIL_ARGV_H

#include <stdbool.h>

/* argv[1..argc) sorted: the options, each valued one followed by its value,
 * then the operands. */
struct ldb_argv {
	char **opt; /* option words in order; a value word right after its option */
	int nopt;
	char **arg; /* operands in order */
	int narg;
	int split; /* split mode: arg[0..split) came before the first "--"; -1 without one */
};

/** Sort argv[1..argc) into options and operands.  An option is a word that
 *  begins with '-' and is not "-" (stdin, an operand).  A word equal to one of
 *  `valued` (NULL-terminated, e.g. "--json") takes the next word as its value,
 *  whatever it is; written "--json=V" it takes none.  Without split, "--" ends
 *  the options: every later word is an operand.  With split, the first "--"
 *  only marks where the first group of operands ends (out->split) and options
 *  may still follow; a second "--" ends the options.  The words are not
 *  copied.  @return 0, or -1 when out of memory. */
int ldb_argv_sort(int argc, char *const *argv, const char *const *valued, bool split, struct ldb_argv *out);

/** Is option word o the option name, alone or as "name=VALUE"? */
bool ldb_argv_is(const char *o, const char *name);

/** The value of option a->opt[*i] (which ldb_argv_is calls name): after its
 *  '=', else the next word (*i moves on to it).  NULL when there is none. */
const char *ldb_argv_value(const struct ldb_argv *a, int *i, const char *name);

/** Free what ldb_argv_sort allocated (safe on a zeroed struct). */
void ldb_argv_free(struct ldb_argv *a);

#endif
