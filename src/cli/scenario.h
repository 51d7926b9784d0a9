/* Scenario files: ldbench options kept in a file, one option per line.
 *
 *   # Random exact-UID searches (seed 000, "Concurrent exact searches")
 *   -f (uid=userXXXXX)
 *   -e esearch,random,attrlist=uid:cn
 *   --sweep "1,2,4"          # a comment after an option
 *
 * A line holds one option, alone ("-q", "--monitor"), with its value attached
 * ("-n8", "--sweep=1,2") or with its value after blanks ("-n 8").  Values are
 * split and quoted as by the shell: '...' keeps everything, "..." keeps
 * everything but \" and \\, a backslash outside quotes keeps the next
 * character; no variable, glob or tilde expansion.  A '#' that starts a word
 * starts a comment.  The first comment line with text is the scenario's
 * one-line description.  Which options exist, and which take a value, is the
 * command line's business (cli/scenario_merge.c): this module only splits the file. */
#ifndef LDBENCH_CLI_SCENARIO_H
#define LDBENCH_CLI_SCENARIO_H

#include <stddef.h>

#define LDB_SCENARIO_MAX_BYTES (1024 * 1024) /* larger files are refused */
#define LDB_SCENARIO_MAX_LINE 4096

/* One option of the file: its line, the option word, its value word (NULL
 * when the line holds one word). */
struct ldb_scenario_opt {
	int line;
	char *opt;
	char *val;
	int section; /* 0: before the first [workload NAME] line (every workload's); k: the k-th section's */
};

/* "[workload NAME]" sections: NAME letters, digits, '_' and '-', at most
 * LDB_WORKLOAD_NAME_MAX - 1 bytes, starting with a letter; two sections
 * with one name are refused. */
#define LDB_WORKLOAD_NAME_MAX 24
#define LDB_WORKLOADS_MAX 16

struct ldb_scenario {
	char *path;        /* as given */
	char *description; /* first comment line's text; NULL when none */
	struct ldb_scenario_opt *opts;
	size_t nopts;
	char section[LDB_WORKLOADS_MAX][LDB_WORKLOAD_NAME_MAX]; /* the sections' names, in file order */
	int section_line[LDB_WORKLOADS_MAX];
	int nsections;
};

/**
 * Split the text of a scenario file.
 * @param sc    zeroed on entry; filled on success (free with ldb_scenario_free)
 * @param name  the file name used in error messages
 * @param text  the file's bytes (need not end with a newline nor with NUL)
 * @return 0, or -1 with err = "NAME:LINE: problem" (one line, no newline) and sc
 *         left empty.  Problems: a NUL byte, a line longer than
 *         LDB_SCENARIO_MAX_LINE, an unterminated quote, a backslash at the end
 *         of a line, a first word that is not an option ("-x", "--name"), more
 *         than two words on a line.
 */
int ldb_scenario_parse(struct ldb_scenario *sc, const char *name, const char *text, size_t len, char *err,
                       size_t errcap);

/**
 * Read and split the scenario file at path (a regular file of at most
 * LDB_SCENARIO_MAX_BYTES).
 * @return 0, or -1 with err = "PATH: problem" or "PATH:LINE: problem".
 */
int ldb_scenario_load(struct ldb_scenario *sc, const char *path, char *err, size_t errcap);

void ldb_scenario_free(struct ldb_scenario *sc);

/**
 * A scenario's parameters (its dataset: first and last number, width,
 * parent, count, ...).  The file's own "--set NAME=VALUE" lines give their
 * defaults and are taken out of its options; then the command line's
 * --set NAME=VALUE (sets[0..nsets)) replace them; then a named dataset
 * (--dataset ldifgen|ldbench) sets first, last, width and parent from the
 * count (and ldifgen's start_idx, default 1) unless the command line set
 * them.  Then "${NAME}" in every option and value becomes the parameter's
 * value, "${NAME:w}" the same zero-padded to `width` digits (user${first:w}:
 * user00001), and "${XXX}" a run of `width` X (ldclt's placeholder).
 *   ldifgen: dsctl ldifgen users --generic --start-idx S --number N:
 *            first S+1, last S+N, width the digits of N, ou=People,dc=example,dc=com
 *   ldbench: ldbench gen users --number N: first 1, last N, width 5, the same parent
 * @return 0, or -1 with err ("PATH:LINE: ${name}: no such parameter ...",
 *         "--set 'x': expected NAME=VALUE ...", "--dataset ... needs ...").
 */
int ldb_scenario_apply(struct ldb_scenario *sc, const char *const *sets, size_t nsets, const char *dataset, char *err,
                       size_t errcap);

#endif
