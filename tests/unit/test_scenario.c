/* Unit tests for scenario files: the splitter (src/cli/scenario.c) and how
 * --scenario merges a file with the command line (src/cli/scenario_merge.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "cli/scenario.h"

static char dir[64];

static int split(struct ldb_scenario *sc, const char *text, char *err, size_t cap)
{
	memset(sc, 0, sizeof(*sc));
	return ldb_scenario_parse(sc, "t.scen", text, strlen(text), err, cap);
}

static void test_split_words_quotes_comments(void **state)
{
	struct ldb_scenario sc;
	char err[256];

	(void)state;
	assert_int_equal(0, split(&sc,
	                          "\n  # First comment: the description  \n# second\n"
	                          "-f \"(cn=a b)\"   # trailing\n"
	                          "-e esearch,random\n"
	                          "--sweep=1,2\n"
	                          "\t-b 'ou=it''s,dc=x'\n"
	                          "-f a\\ b\\#c\n"
	                          "-f \"q\\\"\\\\x$HOME\"\n"
	                          "-q\n"
	                          "-f x#y",
	                          err, sizeof err));
	assert_string_equal("First comment: the description", sc.description);
	assert_int_equal(8, (int)sc.nopts);
	assert_int_equal(4, sc.opts[0].line);
	assert_string_equal("-f", sc.opts[0].opt);
	assert_string_equal("(cn=a b)", sc.opts[0].val);
	assert_string_equal("esearch,random", sc.opts[1].val);
	assert_string_equal("--sweep=1,2", sc.opts[2].opt);
	assert_null(sc.opts[2].val);
	assert_string_equal("ou=its,dc=x", sc.opts[3].val);
	assert_string_equal("a b#c", sc.opts[4].val);
	assert_string_equal("q\"\\x$HOME", sc.opts[5].val);
	assert_string_equal("-q", sc.opts[6].opt);
	assert_null(sc.opts[6].val);
	assert_int_equal(10, sc.opts[6].line);
	assert_string_equal("x#y", sc.opts[7].val); /* '#' inside a word is not a comment */
	assert_int_equal(11, sc.opts[7].line);
	ldb_scenario_free(&sc);

	assert_int_equal(0, split(&sc, "-n 4", err, sizeof err));
	assert_null(sc.description);
	assert_int_equal(1, (int)sc.nopts);
	assert_string_equal("4", sc.opts[0].val);
	ldb_scenario_free(&sc);
}

static void test_split_errors_name_the_line(void **state)
{
	struct ldb_scenario sc;
	char err[256];
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "# d\n-f \"(cn=x)\n", "t.scen:2: unterminated \" quote" },
		{ "-f 'x\n", "t.scen:1: unterminated ' quote" },
		{ "-e esearch\n\n-f x\\", "t.scen:3: a backslash at the end" },
		{ "-n 4\nesearch\n", "t.scen:2: 'esearch' is not an option" },
		{ "-n 4 -T 5\n", "t.scen:1: '-T' after '-n 4': one option per line" },
		{ "-\n", "t.scen:1: '-' is not an option" },
		{ "--\n", "t.scen:1: '--' is not an option" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(-1, split(&sc, bad[i].text, err, sizeof err));
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, err, bad[i].want);
		assert_int_equal(0, (int)sc.nopts);
		assert_null(sc.opts);
	}
	/* a NUL byte: the line it is on */
	memset(&sc, 0, sizeof sc);
	assert_int_equal(-1, ldb_scenario_parse(&sc, "t.scen", "-n 4\n-q\0x\n", 10, err, sizeof err));
	assert_string_equal("t.scen:2: a NUL byte: not a text file", err);
	/* load: missing file, a directory */
	assert_int_equal(-1, ldb_scenario_load(&sc, "/nonexistent/x.scen", err, sizeof err));
	assert_non_null(strstr(err, "/nonexistent/x.scen: cannot open"));
	assert_int_equal(-1, ldb_scenario_load(&sc, "/", err, sizeof err));
	assert_string_equal("/: not a regular file", err);
}

/* ------------------------------------------------- --scenario on the command line */

struct run {
	struct ldb_config c;
	char err[512];
	char *argv[64];
	int argc;
	enum ldb_cli_result r;
};

static char *write_file(const char *name, const char *text)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	FILE *f;

	sprintf(path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static enum ldb_cli_result parse_v(struct run *t, const char *const *args)
{
	memset(t, 0, sizeof(*t));
	t->argv[t->argc++] = strdup("ldbench");
	for (int i = 0; args[i] != NULL; i++)
		t->argv[t->argc++] = strdup(args[i]);
	ldb_config_init(&t->c);
	t->r = ldb_cli_parse(&t->c, t->argc, t->argv, t->err, sizeof(t->err));
	return t->r;
}
#define PARSE(t, ...) parse_v((t), (const char *const[]){ __VA_ARGS__, NULL })

static void done(struct run *t)
{
	ldb_config_free(&t->c);
	for (int i = 0; i < t->argc; i++)
		free(t->argv[i]);
}

static void test_file_then_command_line(void **state)
{
	struct run t;
	char *p = write_file("s1.scen", "# search\n-f \"(uid=userXXXXX)\"\n-e esearch,random\n-r 1\n-R 200\n"
	                                "-n 8\n-T 800\n--duration 30s\n--sweep 1,2,4\n-I 68\n-b 'ou=A,dc=x'\n");

	(void)state;
	/* the file alone */
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "--scenario", p));
	assert_string_equal("(uid=userXXXXX)", t.c.filter);
	assert_int_equal(LDB_VAL_RANDOM, t.c.valmode);
	assert_int_equal(200, (int)t.c.range_high);
	assert_int_equal(8, t.c.threads);
	assert_int_equal(800, (int)t.c.ops_per_thread);
	assert_int_equal(30000, (int)t.c.duration_ms);
	assert_int_equal(3, t.c.nsweep);
	assert_string_equal("ou=A,dc=x", t.c.base);
	/* the recorded command line is the whole effective one, without --scenario */
	assert_non_null(strstr(t.c.cmdline, "-f (uid=userXXXXX) -e esearch,random"));
	assert_null(strstr(t.c.cmdline, "--scenario"));
	done(&t);

	/* single-valued options: the command line wins, wherever it puts them */
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "-T", "5", "--scenario", p, "-R", "50", "-b", "ou=B,dc=x", "-f",
	                                    "(cn=userXXXXX)", "--sweep", "1,2"));
	assert_int_equal(5, (int)t.c.ops_per_thread);
	assert_int_equal(50, (int)t.c.range_high);
	assert_string_equal("ou=B,dc=x", t.c.base);
	assert_string_equal("(cn=userXXXXX)", t.c.filter);
	assert_int_equal(2, t.c.nsweep);
	done(&t);

	/* -N replaces the file's --duration, -n its --sweep (and --scenario=FILE works) */
	size_t l = strlen(p) + 12;
	char *eq = malloc(l);
	snprintf(eq, l, "--scenario=%s", p);
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, eq, "-N", "2", "-n", "3"));
	assert_int_equal(2, (int)t.c.samples);
	assert_int_equal(0, (int)t.c.duration_ms);
	assert_int_equal(0, t.c.nsweep);
	assert_int_equal(3, t.c.threads);
	done(&t);
	free(eq);

	/* additive options add up: -e keywords, -I codes */
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "--scenario", p, "-e", "srchnentries=1", "-I", "32"));
	assert_int_equal(1, (int)t.c.expect_entries);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_int_equal(2, t.c.nignore);
	done(&t);
	/* ... so an -e keyword that conflicts with the file's is an error of the pair */
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", p, "-e", "incr"));
	assert_non_null(strstr(t.err, "-e random and -e incr exclude each other"));
	assert_non_null(strstr(t.err, "(with --scenario "));
	done(&t);
	free(p);
}

/* A scenario's parameters: the file's --set lines, ${NAME}, ${NAME:w}, ${XXX}; the command
 * line's --set and --dataset. */
static void test_params(void **state)
{
	struct run t;
	char *p = write_file("p.scen", "# params\n--set count=200\n--set first=1\n--set last=200\n--set width=5\n"
	                               "--set parent=ou=People,dc=x\n-b ${parent}\n-f \"(uid=user${XXX})\"\n"
	                               "-e esearch,random\n-r ${first}\n-R ${last}\n-D uid=user${first:w},${parent}\n");

	(void)state;
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "-w", "pw", "--scenario", p));
	assert_string_equal("(uid=userXXXXX)", t.c.filter);
	assert_string_equal("ou=People,dc=x", t.c.base);
	assert_string_equal("uid=user00001,ou=People,dc=x", t.c.bind_dn);
	assert_int_equal(1, (int)t.c.range_low);
	assert_int_equal(200, (int)t.c.range_high);
	done(&t);
	/* the command line's --set wins over the file's */
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "-w", "pw", "--scenario", p, "--set", "first=101", "--set=width=6"));
	assert_string_equal("(uid=userXXXXXX)", t.c.filter);
	assert_string_equal("uid=user000101,ou=People,dc=x", t.c.bind_dn);
	assert_int_equal(101, (int)t.c.range_low);
	done(&t);
	/* the guide's ldifgen shape: user002..user(N+1), the digits of N, ou=People */
	assert_int_equal(LDB_CLI_RUN,
	                 PARSE(&t, "-w", "pw", "--scenario", p, "--dataset", "ldifgen", "--set", "count=1000"));
	assert_string_equal("(uid=userXXXX)", t.c.filter);
	assert_string_equal("ou=People,dc=example,dc=com", t.c.base);
	assert_string_equal("uid=user0002,ou=People,dc=example,dc=com", t.c.bind_dn);
	assert_int_equal(2, (int)t.c.range_low);
	assert_int_equal(1001, (int)t.c.range_high);
	done(&t);
	/* ... with its start index, and a parameter the command line sets stays */
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "-w", "pw", "--scenario", p, "--dataset", "ldifgen", "--set",
	                                    "start_idx=0", "--set", "parent=ou=PerfBench,dc=x"));
	assert_string_equal("(uid=userXXX)", t.c.filter);
	assert_string_equal("ou=PerfBench,dc=x", t.c.base);
	assert_int_equal(1, (int)t.c.range_low);
	assert_int_equal(200, (int)t.c.range_high);
	done(&t);
	assert_int_equal(LDB_CLI_RUN,
	                 PARSE(&t, "-w", "pw", "--scenario", p, "--dataset", "ldbench", "--set", "count=50"));
	assert_string_equal("(uid=userXXXXX)", t.c.filter);
	assert_int_equal(50, (int)t.c.range_high);
	done(&t);
	/* the refusals: one line each */
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "-w", "pw", "--scenario", p, "--dataset", "dbgen"));
	assert_non_null(strstr(t.err, "--dataset 'dbgen': the datasets are ldifgen and ldbench"));
	done(&t);
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "-w", "pw", "--scenario", p, "--set", "Width=3"));
	assert_non_null(strstr(t.err, "'Width=3': expected NAME=VALUE"));
	done(&t);
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--set", "first=1", "-f", "(cn=x)", "-e", "esearch"));
	assert_non_null(strstr(t.err, "--set sets a scenario's parameters: it needs --scenario FILE"));
	done(&t);
	char *q = write_file("q.scen", "# no count\n-f \"(uid=user${XXX})\"\n-e esearch\n-b ${base}\n");
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", q, "--dataset", "ldifgen"));
	assert_non_null(strstr(t.err, "--dataset ldifgen needs the number of users: --set count=N"));
	done(&t);
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", q, "--set", "width=3"));
	assert_non_null(strstr(t.err, "q.scen:4: ${base}: no such parameter"));
	done(&t);
	free(p);
	free(q);
}

static void test_bad_files(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "# d\n-e esearch\n-f x\n-n 0\n", ":4: -n 0: threads must be" },
		{ "-e esearch\n-f x\n-Y\n", ":3: unknown option '-Y'" },
		{ "-e esearch\n--sweeep 1,2\n", ":2: unknown option '--sweeep'" },
		{ "-e esearch\n--sw 1,2\n", ":2: unknown option '--sw'" },
		{ "-e esearch\n-n\n", ":2: -n needs a value" },
		{ "-e esearch\n--sweep\n", ":2: --sweep needs a value" },
		{ "-e esearch\n-n8 9\n", ":2: '-n8 9': two values" },
		{ "-e esearch\n--sweep=1 2\n", ":2: '--sweep=1 2': two values" },
		{ "-e esearch\n--monitor yes\n", ":2: --monitor takes no value" },
		{ "-e esearch\n--monitor=yes\n", ":2: --monitor takes no value" },
		{ "-e esearch\n-qQ\n", ":2: '-qQ': one option per line" },
		{ "-e esearch\n-w secret\n", ":2: -w: a password does not belong" },
		{ "-e esearch\n-y pw.txt\n", ":2: -y: a password does not belong" },
		{ "-e esearch\n--scenario x.scen\n", ":2: --scenario has no place" },
		{ "-e esearch\n--help\n", ":2: --help has no place" },
		{ "-e esearch,bogus\n", ":1: " },
		{ "-f 'x\n", ":1: unterminated ' quote" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct run t;
		char *p = write_file("bad.scen", bad[i].text);
		char want[600];

		snprintf(want, sizeof want, "ldbench: %s%s", p, bad[i].want);
		assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", p, "-b", "dc=x"));
		if (strncmp(t.err, want, strlen(want)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, t.err, want);
		assert_null(strchr(t.err, '\n'));
		done(&t);
		free(p);
	}
	/* command-line misuse */
	struct run t;
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", "a", "--scenario", "b"));
	assert_string_equal("ldbench: --scenario: one scenario file per run", t.err);
	done(&t);
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "-e", "esearch", "--scenario"));
	assert_string_equal("ldbench: --scenario needs a value", t.err);
	done(&t);
	/* "--scenario" as the value of -f is a filter, not an option */
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "-e", "esearch", "-f", "--scenario"));
	assert_non_null(strstr(t.err, "a filter must contain '='"));
	done(&t);
}

static void test_list(void **state)
{
	struct run t;
	char sub[128], path[200], line[512];
	FILE *f;
	int saved = dup(1);

	(void)state;
	snprintf(sub, sizeof sub, "%s/list", dir);
	assert_int_equal(0, mkdir(sub, 0700));
	snprintf(path, sizeof path, "%s/b-second.scen", sub);
	f = fopen(path, "w");
	fputs("#   Second one  \n-e esearch\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/a.scen", sub);
	f = fopen(path, "w");
	fputs("-e esearch\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/notes.txt", sub);
	f = fopen(path, "w");
	fclose(f);
	/* stdout into a file */
	snprintf(path, sizeof path, "%s/out", dir);
	fflush(stdout);
	f = fopen(path, "w+");
	dup2(fileno(f), 1);
	assert_int_equal(LDB_CLI_EXIT_OK, PARSE(&t, "--list-scenarios", sub));
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	done(&t);
	rewind(f);
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal("a         (no description)\n", line);
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal("b-second  Second one\n", line);
	assert_null(fgets(line, sizeof line, f));
	fclose(f);

	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--list-scenarios", "/nonexistent-dir"));
	assert_non_null(strstr(t.err, "--list-scenarios /nonexistent-dir: No such file"));
	done(&t);
}

static int setup(void **state)
{
	(void)state;
	unsetenv("LDBENCH_PASSWORD");
	snprintf(dir, sizeof dir, "/tmp/test_scenario.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* [workload NAME] sections: each option's section, the names; the lines that are refused. */
static void test_sections(void **state)
{
	struct ldb_scenario sc;
	char err[256];

	(void)state;
	assert_int_equal(0, split(&sc, "# two\n-b x\n[workload bg]\n-n 1\n  [ workload  fg-2 ]  # the front\n-n 4\n",
	                          err, sizeof err));
	assert_int_equal(2, sc.nsections);
	assert_string_equal("bg", sc.section[0]);
	assert_string_equal("fg-2", sc.section[1]);
	assert_int_equal(3, sc.section_line[0]);
	assert_int_equal(5, sc.section_line[1]);
	assert_int_equal(3, (int)sc.nopts);
	assert_int_equal(0, sc.opts[0].section);
	assert_int_equal(1, sc.opts[1].section);
	assert_int_equal(2, sc.opts[2].section);
	ldb_scenario_free(&sc);
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[workload a]\n-n 1\n[workload a]\n",
		  "t.scen:3: [workload a]: a second section with that name (line 1)" },
		{ "[workload]\n", "t.scen:1: '[workload]': a section line is [workload NAME]" },
		{ "[load a]\n", "t.scen:1: '[load a]': a section line is [workload NAME]" },
		{ "[workload a\n", "t.scen:1: '[' without ']': a section line is [workload NAME]" },
		{ "[workload a] -n 1\n", "t.scen:1: '-n 1' after the section's ']'" },
		{ "[workload 1a]\n", "t.scen:1: workload name '1a': a letter, then letters, digits, '_' or '-'" },
		{ "[workload a.b]\n", "t.scen:1: workload name 'a.b': a letter" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(-1, split(&sc, bad[i].text, err, sizeof err));
		if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("case %zu: got '%s', want '%s...'", i, err, bad[i].want);
		assert_int_equal(0, sc.nsections);
	}
}

/* A scenario with sections: a checked configuration per workload, the run's the first's;
 * --fail-if's workload prefix; what a section may not hold. */
static void test_workload_configs(void **state)
{
	struct run t;
	char *p =
	        write_file("w.scen", "-b ou=A,dc=x\n-f (uid=a)\n[workload bg]\n-n 1\n-e esearch\n-s subtree\n"
	                             "[workload fg]\n-n 4\n-e esearch\n--rate 100\n--start-after 2s\n--duration 5s\n");

	(void)state;
	assert_int_equal(LDB_CLI_RUN, PARSE(&t, "--scenario", p, "-H", "ldap://127.0.0.1:1", "--fail-if",
	                                    "fg.search.p99>5ms", "--fail-if", "errors>0", "--fail-if", "bg.p50>1s"));
	assert_int_equal(2, t.c.nwl);
	assert_string_equal("bg", t.c.wl[0].wl_name);
	assert_string_equal("fg", t.c.wl[1].wl_name);
	assert_int_equal(1, t.c.wl[0].threads);
	assert_int_equal(4, t.c.wl[1].threads);
	assert_true(t.c.wl[1].rate == 100);
	assert_int_equal(2000, (int)t.c.wl[1].start_after_ms);
	assert_int_equal(7000, (int)t.c.duration_ms); /* the run: to the last workload's end */
	assert_string_equal("ou=A,dc=x", t.c.wl[1].base);
	assert_int_equal(3, t.c.nfail_if);
	assert_int_equal(2, t.c.fail_if[0].wl);
	assert_int_equal(LDB_OP_SEARCH, t.c.fail_if[0].kind);
	assert_int_equal(0, t.c.fail_if[1].wl);
	assert_int_equal(1, t.c.fail_if[2].wl);
	done(&t);
	static const struct {
		const char *arg, *want;
	} bad[] = {
		{ "x.search.p99>5ms",
		  "ldbench: --fail-if 'x.search.p99>5ms': unknown workload 'x' (the workloads: bg, fg)" },
		{ "fg.add.p99>5ms", "ldbench: --fail-if 'fg.add.p99>5ms': workload fg has no add" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(LDB_CLI_ERROR,
		                 PARSE(&t, "--scenario", p, "-H", "ldap://127.0.0.1:1", "--fail-if", bad[i].arg));
		assert_string_equal(bad[i].want, t.err);
		done(&t);
	}
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", p, "-H", "ldap://127.0.0.1:1", "--start-after", "1s"));
	assert_non_null(strstr(t.err, "--start-after is a workload's own"));
	done(&t);
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "-H", "ldap://127.0.0.1:1", "-b", "ou=A,dc=x", "-f", "(uid=a)", "-e",
	                                      "esearch", "--start-after", "1s"));
	assert_string_equal("ldbench: --start-after: a workload's own start, for a [workload NAME] section of a "
	                    "scenario file",
	                    t.err);
	done(&t);
	free(p);
	p = write_file("w2.scen", "-b ou=A,dc=x\n-f (uid=a)\n[workload bg]\n-e esearch\n--op-log x\n");
	assert_int_equal(LDB_CLI_ERROR, PARSE(&t, "--scenario", p, "-H", "ldap://127.0.0.1:1"));
	assert_non_null(strstr(t.err, ":5: --op-log is the run's, not a workload's"));
	done(&t);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words_quotes_comments),
		cmocka_unit_test(test_split_errors_name_the_line),
		cmocka_unit_test(test_file_then_command_line),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_workload_configs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
