/* The gen subcommands' options and output file. */
#include "gen/gen_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf/config.h"
#include "gen/gen.h"
#include "gen/out.h"
#include "util/num.h"

/* Open the output (stdout when path is NULL). */
static FILE *gen_open(const char *path, char *err, size_t cap)
{
	if (path == NULL)
		return stdout;
	FILE *f = fopen(path, "w");
	if (f == NULL)
		gen_err(err, cap, "--ldif-file: cannot create '%s': %s", path, strerror(errno));
	return f;
}

/* Close the output; on failure remove a partial file.  Returns rc updated. */
static int gen_close(FILE *f, const char *path, int rc, char *err, size_t cap)
{
	if (path == NULL)
		return rc;
	if (fclose(f) != 0 && rc == 0) {
		gen_err(err, cap, "--ldif-file: closing '%s' failed: %s", path, strerror(errno));
		rc = LDB_EXIT_OTHER;
	}
	if (rc != 0)
		unlink(path);
	else
		printf("Successfully created LDIF file: %s\n", path);
	return rc;
}

/* The message of a getopt_long error ('?' or ':'). */
static int opt_error(int c, char **argv, char *err, size_t cap)
{
	if (c == ':')
		gen_err(err, cap, "%s needs a value", argv[optind - 1]);
	else if (optopt > 0 && optopt < 256)
		gen_err(err, cap, "unknown option '-%c'", optopt);
	else if (optopt != 0)
		gen_err(err, cap, "option '%s' takes no value", argv[optind - 1]);
	else
		gen_err(err, cap, "unknown or ambiguous option '%s'", argv[optind - 1]);
	return LDB_EXIT_PARAMS;
}

/* Options every subcommand has: --ldif-file, --width, --start-idx.
 * @return 1 when c was not one of them, 0 handled, LDB_EXIT_PARAMS bad. */
static int opt_common(int c, const char **file, int64_t *start_idx, int *width, char *err, size_t cap)
{
	int64_t v;

	switch (c) {
	case GEN_OPT_LDIF_FILE:
		if (*optarg == '\0') {
			gen_err(err, cap, "--ldif-file: empty file name");
			return LDB_EXIT_PARAMS;
		}
		*file = optarg;
		return 0;
	case GEN_OPT_START_IDX:
		if (start_idx == NULL)
			return 1;
		return ldb_num_count("--start-idx", optarg, LDB_GEN_MAX_INDEX, start_idx, err, cap) == 0
		               ? 0
		               : LDB_EXIT_PARAMS;
	case GEN_OPT_WIDTH:
		if (width == NULL)
			return 1;
		if (ldb_num_count("--width", optarg, GEN_MAX_WIDTH, &v, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		if (v == 0) {
			gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
			return LDB_EXIT_PARAMS;
		}
		*width = (int)v;
		return 0;
	default: return 1;
	}
}

/* Store val as o (named name) says.  @return 0 or LDB_EXIT_PARAMS with err. */
static int opt_store(const struct gen_opt *o, const char *name, const char *val, int argc, char **argv, char *err,
                     size_t cap)
{
	char opt[64]; /* "--" and a long name of our tables */

	switch (o->kind) {
	case GOPT_STR: *(const char **)o->dst = val; break;
	case GOPT_FLAG: *(bool *)o->dst = true; break;
	case GOPT_COUNT:
		snprintf(opt, sizeof(opt), "--%s", name);
		if (ldb_num_count(opt, val, o->max, o->dst, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		break;
	case GOPT_CALL:
		if (o->fn(o->dst, val, argc, argv, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		break;
	}
	if (o->seen != NULL)
		*o->seen = true;
	return 0;
}

int gen_parse(const struct gen_cli *cli, int argc, char **argv, char *err, size_t cap)
{
	struct option lo[GEN_MAX_OPTS + 1];
	char shorts[8];
	int c, r;

	if (ldb_opt_getopt(cli->table, lo, GEN_MAX_OPTS + 1, shorts, sizeof shorts) != 0) {
		gen_err(err, cap, "the option table is too long"); /* a build-time mistake */
		return LDB_EXIT_OTHER;
	}
	optind = 0; /* glibc: full re-initialisation (we may be called more than once) */
	opterr = 0;
	/* "-": operands (NAME) may come anywhere, returned as option 1 */
	while ((c = getopt_long(argc, argv, cli->operand != NULL ? "-:" : "+:", lo, NULL)) != -1) {
		if ((r = opt_common(c, cli->file, cli->start_idx, cli->width, err, cap)) != 1) {
			if (r != 0)
				return r;
			continue;
		}
		if (c == GEN_OPT_HELP) {
			ldb_gen_usage_of(cli->name, stdout);
			return -1; /* handled: exit 0 */
		}
		const struct ldb_opt *row = c >= GEN_OPT_OWN ? ldb_opt_by_id(cli->table, c) : NULL;
		const struct gen_opt *to = NULL;
		for (size_t i = 0; row != NULL && i < cli->nopts; i++)
			if (cli->opts[i].id == c)
				to = &cli->opts[i];
		if (c == 1 && cli->operand != NULL)
			r = opt_store(cli->operand, "", optarg, argc, argv, err, cap);
		else if (to != NULL)
			r = opt_store(to, row->name, optarg, argc, argv, err, cap);
		else
			return opt_error(c, argv, err, cap);
		if (r != 0)
			return r;
	}
	/* getopt stops at "--" (or, with "+", at the first operand): the rest */
	for (; optind < argc; optind++) {
		if (cli->operand == NULL) {
			gen_err(err, cap, "unexpected argument '%s'", argv[optind]);
			return LDB_EXIT_PARAMS;
		}
		if ((r = opt_store(cli->operand, "", argv[optind], argc, argv, err, cap)) != 0)
			return r;
	}
	return 0;
}

int gen_run(const void *plan, gen_emit_fn emit, const char *file, char *err, size_t cap)
{
	FILE *f = gen_open(file, err, cap);

	if (f == NULL)
		return LDB_EXIT_PARAMS;
	int rc = emit(plan, f, err, cap);
	return gen_close(f, file, rc, err, cap);
}
