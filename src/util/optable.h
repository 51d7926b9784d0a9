/* One way to declare a command's options: a table of rows, one per option,
 * from which the parse (getopt_long's arrays for the load, util/argv's sort
 * for the subcommands), `--help`'s option lines and `ldbench --dump-options`
 * (what tests/integration/options_table.sh holds against docs/ldbench.1) all
 * come.  Whether an option takes a value is its row's metavar, nowhere else. */
#ifndef LDBENCH_UTIL_OPTABLE_H
#define LDBENCH_UTIL_OPTABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ldb_opt {
	const char *name;    /* the long name without "--"; NULL: the letter only */
	int letter;          /* the short option's letter (-x); 0: none */
	const char *metavar; /* the value's name in --help; NULL: the option takes no value */
	int id;              /* what the parse hands back (a letter, an enum of the command) */
	const char *help;    /* --help's text, '\n' before each continuation line; NULL: not listed */
	const char *head;    /* text --help prints before this option's line (a section); NULL: none */
};

/* A table ends with this row. */
#define LDB_OPT_END                          \
	{                                    \
		NULL, 0, NULL, 0, NULL, NULL \
	}

/** Does o take a value? */
static inline bool ldb_opt_valued(const struct ldb_opt *o)
{
	return o->metavar != NULL;
}

/** The row an option word names: "--name", "--name=VALUE" or "-x" (exactly). NULL: none. */
const struct ldb_opt *ldb_opt_find(const struct ldb_opt *t, const char *word);

/** The row with id.  NULL: none. */
const struct ldb_opt *ldb_opt_by_id(const struct ldb_opt *t, int id);

/** getopt_long's arrays from t: lo (nlo rows, the last zeroed) and the short
 *  option string (":" first, a ':' after each valued letter).  @return 0, or
 *  -1 when either does not fit. */
int ldb_opt_getopt(const struct ldb_opt *t, struct option *lo, size_t nlo, char *shorts, size_t nshorts);

/** --help's lines of t, in order: each row's head, then "  -x META" or
 *  "  --name META" padded to column col (a letter-only row: col_short), its
 *  help, each continuation line indented to the same column. */
void ldb_opt_help(const struct ldb_opt *t, int col_short, int col, FILE *out);

/** One line per listed option of t, for the tests and the man page's lists
 *  (docs/man_options.awk): "CMD<TAB>--name|-x<TAB>META<TAB>HELP" (META "-":
 *  none; HELP its --help text on one line). */
void ldb_opt_dump(const char *cmd, const struct ldb_opt *t, FILE *out);

#endif
