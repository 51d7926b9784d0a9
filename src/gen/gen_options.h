/* The gen subcommands' command lines (getopt_long, GNU style: options
 * anywhere, -- ends them) from a table per subcommand (util/optable.h rows,
 * gen/gen_tables.c; each id bound to where its value goes), and the run that is the
 * same for every shape: open the output (stdout or --ldif-file), emit, close
 * (a failed file is removed; a written one is announced as dsctl does). */
#ifndef LDBENCH_GEN_OPTIONS_H
#define LDBENCH_GEN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/optable.h"

/* How a subcommand option stores its value. */
enum gen_opt_kind {
	GOPT_STR,   /* dst is const char **: the value as given */
	GOPT_COUNT, /* dst is int64_t *: parse_count up to max */
	GOPT_FLAG,  /* dst is bool *, set; the option takes no value */
	GOPT_CALL,  /* fn(dst, value, ...): anything else; 0 or -1 with err */
};

/* A GOPT_CALL option's parser (it may take more of argv: optind). */
typedef int (*gen_opt_fn)(void *dst, const char *val, int argc, char **argv, char *err, size_t cap);

/* The ids of the options every subcommand's table may have (ldb_opt.id);
 * a subcommand's own options have ids from GEN_OPT_OWN (getopt_long's own
 * values, 1 for an operand, '?' and ':', stay below). */
enum { GEN_OPT_OWN = 256, GEN_OPT_LDIF_FILE = 1000, GEN_OPT_HELP, GEN_OPT_START_IDX, GEN_OPT_WIDTH };

/* The subcommands' own options' ids (gen/gen_tables.c). */
enum { GU_SUFFIX = GEN_OPT_OWN, GU_PARENT, GU_NUMBER, GU_HASH, GU_GENERIC, GU_SHAPE, GU_RDN_CN, GU_LOCALIZE };
enum {
	GG_SUFFIX = GEN_OPT_OWN,
	GG_PARENT,
	GG_NUMBER,
	GG_NUM_MEMBERS,
	GG_CREATE_MEMBERS,
	GG_MEMBER_PARENT,
	GG_MEMBER_ATTR,
	GG_GENERIC
};
enum {
	GM_SUFFIX = GEN_OPT_OWN,
	GM_PARENT,
	GM_NUM_USERS,
	GM_CREATE_USERS,
	GM_DELETE_USERS,
	GM_ADD_USERS,
	GM_MOD_USERS,
	GM_MODRDN_USERS,
	GM_DEL_USERS,
	GM_MOD_ATTRS,
	GM_GENERIC,
	GM_CREATE_PARENT,
	GM_RANDOMIZE
};
enum { GT_SUFFIX = GEN_OPT_OWN, GT_DEPTH, GT_FANOUT, GT_ENTRIES };

/* The subcommands' option tables (gen/gen_tables.c). */
extern const struct ldb_opt gen_users_options[], gen_groups_options[], gen_modload_options[], gen_tree_options[];

/* Where the value of a subcommand's option (its table's id) goes. */
struct gen_opt {
	int id;
	enum gen_opt_kind kind;
	void *dst;
	int64_t max;   /* GOPT_COUNT */
	bool *seen;    /* set when the option is given; may be NULL */
	gen_opt_fn fn; /* GOPT_CALL */
};

#define GEN_MAX_OPTS 24 /* rows of one subcommand's table */

/* A subcommand's command line. */
struct gen_cli {
	const struct ldb_opt *table; /* its options */
	const struct gen_opt *opts;  /* where each goes */
	size_t nopts;
	const char **file;
	int64_t *start_idx; /* NULL: no --start-idx nor --width */
	int *width;
	const struct gen_opt *operand; /* NULL: operands are refused */
	const char *name;              /* the subcommand, for its --help */
};

/* The entries of an option table. */
#define GEN_NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* A shape's writer: the prepared plan to f.  @return 0 or 99 with err. */
typedef int (*gen_emit_fn)(const void *plan, FILE *f, char *err, size_t cap);

/* Parse a subcommand's arguments (argv[0] is its name) as cli says.
 * @return 0, -1 when --help was printed (exit 0), or LDB_EXIT_PARAMS. */
int gen_parse(const struct gen_cli *cli, int argc, char **argv, char *err, size_t cap);

/* Open the output (stdout, or the --ldif-file file), emit plan into it, close
 * it: a failed file is removed, a written one announced with dsctl's line
 * "Successfully created LDIF file: F".  Prepare-open-emit-close, the same for
 * every subcommand.  @return 0, 2 (cannot create the file) or emit's status. */
int gen_run(const void *plan, gen_emit_fn emit, const char *file, char *err, size_t cap);

#endif
