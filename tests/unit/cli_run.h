/* Test helper for the command-line tests (test_cli*.c): one parse with
 * writable argv copies (the parser masks -w in place, and c.progname points
 * into argv[0]), the config, the error line and, on request, what the parse
 * printed on stderr.  Include after <cmocka.h>; everything is static inline. */
#ifndef LDBENCH_TEST_CLI_RUN_H
#define LDBENCH_TEST_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/config.h"

#define CLI_RUN_MAXARGS 128

struct run {
	struct ldb_config c;
	char err[512];
	char warn[1024]; /* what the parse printed on stderr (with warn capture) */
	char *argv[CLI_RUN_MAXARGS];
	int argc;
	enum ldb_cli_result r;
};

/* Copies one argument into argv (malloc); NULL in cli_run_parse: strdup. */
typedef char *(*cli_run_copy_fn)(const char *arg);

/* Parse argv0 and the NULL-terminated args; with capture_warn, stderr during
 * the parse lands in t->warn instead.  @return t->r. */
static inline enum ldb_cli_result cli_run_parse(struct run *t, const char *argv0, const char *const *args,
                                                cli_run_copy_fn copy, bool capture_warn)
{
	char tmp[] = "/tmp/ldbench_test_cli_run_XXXXXX";
	int fd = -1, saved = -1;

	memset(t, 0, sizeof(*t));
	t->argv[t->argc++] = strdup(argv0);
	for (int i = 0; args[i] != NULL; i++) {
		assert_true(t->argc < CLI_RUN_MAXARGS - 1);
		t->argv[t->argc++] = copy != NULL ? copy(args[i]) : strdup(args[i]);
	}
	t->argv[t->argc] = NULL;
	ldb_config_init(&t->c);
	if (capture_warn) {
		fd = mkstemp(tmp);
		assert_true(fd >= 0);
		fflush(stderr);
		saved = dup(2);
		dup2(fd, 2);
	}
	t->r = ldb_cli_parse(&t->c, t->argc, t->argv, t->err, sizeof(t->err));
	if (capture_warn) {
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		ssize_t n = pread(fd, t->warn, sizeof(t->warn) - 1, 0);

		t->warn[n > 0 ? n : 0] = '\0';
		close(fd);
		unlink(tmp);
	}
	return t->r;
}

/* Free what one parse made. */
static inline void done(struct run *t)
{
	ldb_config_free(&t->c);
	for (int i = 0; i < t->argc; i++)
		free(t->argv[i]);
	t->argc = 0;
}

/* Case i of a table of bad command lines: parse args (copied by copy, NULL:
 * strdup); the parse must fail with one line "ldbench: ..." holding needle.
 * The caller checks more in t if it likes, then calls done(t). */
static inline void cli_run_bad(struct run *t, size_t i, const char *const *args, const char *needle,
                               cli_run_copy_fn copy)
{
	cli_run_parse(t, "ldbench", args, copy, false);
	/* a bad parameter (exit 2) or an unusable input file (exit 7) */
	if (t->r != LDB_CLI_ERROR && t->r != LDB_CLI_INIT_ERROR)
		fail_msg("case %zu (%s ...): expected an error, got %d", i, args[0], t->r);
	if (strncmp(t->err, "ldbench: ", 9) != 0 || strstr(t->err, needle) == NULL)
		fail_msg("case %zu: error '%s' lacks '%s'", i, t->err, needle);
	if (strchr(t->err, '\n') != NULL)
		fail_msg("case %zu: error '%s' has more than one line", i, t->err);
}

/* The parse must succeed. */
#define OK(t, ...)                                                                   \
	do {                                                                         \
		if (PARSE((t), __VA_ARGS__) != LDB_CLI_RUN)                          \
			fail_msg("expected a good command line, got: %s", (t)->err); \
	} while (0)

/* The parse must fail with exactly this line. */
#define BAD(msg, ...)                                                     \
	do {                                                              \
		struct run t_;                                            \
		assert_int_equal(PARSE(&t_, __VA_ARGS__), LDB_CLI_ERROR); \
		assert_string_equal(t_.err, msg);                         \
		done(&t_);                                                \
	} while (0)

#endif
