/* The subcommands' command lines, GNU style: options anywhere on the line,
 * operands in their order, "--" to end the options (for file names that begin
 * with a dash).  One helper for every subcommand that reads its own argv
 * (replay, join, compare, merge, report), over the command's option table
 * (util/optable.h); the run's options go through getopt_long, built from its
 * table, which permutes the same way. */
#ifndef LDBENCH_UTIL_ARGV_H
#define LDBENCH_UTIL_ARGV_H

#include <stdbool.h>

#include "util/optable.h"

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
 *  begins with '-' and is not "-" (stdin, an operand).  A word that names an
 *  option of t that takes a value (its metavar), "--json" say, takes the next
 *  word as its value, whatever it is; written "--json=V" it takes none.
 *  Without split, "--" ends the options: every later word is an operand.
 *  With split, the first "--" only marks where the first group of operands
 *  ends (out->split) and options may still follow; a second "--" ends the
 *  options.  The words are not copied.  @return 0, or -1 when out of memory. */
int ldb_argv_sort(int argc, char *const *argv, const struct ldb_opt *t, bool split, struct ldb_argv *out);

/* What ldb_argv_next found. */
enum ldb_argv_got {
	LDB_ARGV_OPT,       /* an option of the table, with its value when it takes one */
	LDB_ARGV_UNKNOWN,   /* a word the table does not name */
	LDB_ARGV_NO_VALUE,  /* an option that takes a value, without one */
	LDB_ARGV_NOT_VALUED /* "--flag=VALUE": a value where none goes */
};

/** The option a->opt[*i] of table t (which sorted a): *o its row (NULL when
 *  unknown), *v its value (after '=', else the next word: *i moves on to it;
 *  NULL for a flag). */
enum ldb_argv_got ldb_argv_next(const struct ldb_argv *a, int *i, const struct ldb_opt *t, const struct ldb_opt **o,
                                const char **v);

/** Free what ldb_argv_sort allocated (safe on a zeroed struct). */
void ldb_argv_free(struct ldb_argv *a);

#endif
