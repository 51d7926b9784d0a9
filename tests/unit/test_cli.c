/* Unit tests for the command line (src/cli/) and the config (src/conf/config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "proto/wire.h"
#include "cli_run.h"
#include "report/settings.h"
#include "ops/ops.h"

#define PW "Zq7pSecretPw"

#define PARSE(t, ...) cli_run_parse((t), "ldbench", (const char *const[]){ __VA_ARGS__, NULL }, NULL, false)
#define PARSE_AS(t, argv0, ...) cli_run_parse((t), (argv0), (const char *const[]){ __VA_ARGS__, NULL }, NULL, false)

static int setup(void **state)
{
	(void)state;
	unsetenv("LDBENCH_PASSWORD");
	return 0;
}

/* A temporary file with the given content; the caller unlinks it. */
static void temp_file(char *path, size_t cap, const char *content)
{
	snprintf(path, cap, "/tmp/ldbench_test_cli_XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	if (content[0] != '\0')
		assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

/* ------------------------------------------------------------ good input */

static void test_defaults(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a"), LDB_CLI_RUN);
	assert_string_equal(t.err, "");
	assert_string_equal(t.c.progname, "ldbench");
	assert_string_equal(t.c.host, "localhost");
	assert_int_equal(t.c.port, 389);
	assert_null(t.c.uri);
	assert_false(t.c.ldaps);
	assert_null(t.c.bind_dn);
	assert_null(t.c.password);
	assert_string_equal(t.c.base, "dc=example,dc=com");
	assert_string_equal(t.c.base_pat.text, "dc=example,dc=com");
	assert_int_equal(t.c.scope, LDB_SCOPE_SUB);
	assert_string_equal(t.c.filter, "cn=a");
	assert_int_equal(t.c.nattrs, 0);
	assert_null(t.c.attrs[0]);
	assert_int_equal(t.c.attrsonly, 0);
	assert_int_equal(t.c.expect_entries, -1);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_false(t.c.weight[LDB_OP_BIND] > 0);
	assert_false(t.c.bindeach);
	assert_int_equal(t.c.valmode, LDB_VAL_FIXED);
	assert_int_equal(t.c.range_low, -1);
	assert_int_equal(t.c.range_high, -1);
	assert_int_equal(t.c.incr_step, 1);
	assert_true(t.c.zeropad);
	assert_int_equal(t.c.threads, 10);
	assert_int_equal(t.c.conns_per_thread, 1);
	assert_int_equal(t.c.depth, 1);
	assert_int_equal(t.c.samples, -1);
	assert_int_equal(t.c.ops_per_thread, -1);
	assert_int_equal(t.c.wait_sec, 0);
	assert_int_equal(t.c.timeout_sec, 30);
	assert_int_equal(t.c.inactivity, 3);
	assert_int_equal(t.c.max_errors, 1000);
	assert_int_equal(t.c.nignore, 0);
	assert_int_equal(t.c.interval_ms, 10000);
	assert_false(t.c.seed_given);
	assert_int_equal(t.c.verbose, 0);
	assert_false(t.c.quiet);
	assert_false(t.c.timestamp);
	assert_string_equal(t.c.timestamp_fmt, "%s");
	assert_string_equal(t.c.cmdline, "ldbench -e esearch -f cn=a");
	done(&t);
}

static void test_every_flag(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "-a", "8", "-b", "ou=people,dc=x", "-D", "cn=admin", "-w", PW, "-E", "5", "-f",
	                       "uid=userXXX", "-h", "host1", "-i", "7", "-I", "32", "-I", "68", "-I", "32", "-I", "-1",
	                       "-n", "4", "-N", "3", "-p", "1389", "-q", "-r", "0", "-R", "999", "-s", "one", "-t", "9",
	                       "-T", "100", "-v", "-W", "2", "-e", "esearch,random", "--interval", "500ms", "--seed",
	                       "42", "--connections-per-thread", "3"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.depth, 8);
	assert_string_equal(t.c.base, "ou=people,dc=x");
	assert_string_equal(t.c.bind_dn, "cn=admin");
	assert_string_equal(t.c.password, PW);
	assert_int_equal(t.c.max_errors, 5);
	assert_string_equal(t.c.filter, "uid=userXXX");
	assert_int_equal(t.c.filter_pat.width, 3);
	assert_int_equal(t.c.filter_pat.head_len, 8);
	assert_string_equal(t.c.host, "host1");
	assert_int_equal(t.c.inactivity, 7);
	assert_int_equal(t.c.nignore, 3); /* 32 given twice counts once */
	assert_true(ldb_config_ignored(&t.c, 32));
	assert_true(ldb_config_ignored(&t.c, 68));
	assert_true(ldb_config_ignored(&t.c, -1));
	assert_false(ldb_config_ignored(&t.c, 0));
	assert_int_equal(t.c.threads, 4);
	assert_int_equal(t.c.samples, 3);
	assert_int_equal(t.c.port, 1389);
	assert_true(t.c.quiet);
	assert_false(t.c.super_quiet);
	assert_int_equal(t.c.range_low, 0);
	assert_int_equal(t.c.range_high, 999);
	assert_int_equal(t.c.scope, LDB_SCOPE_ONE);
	assert_int_equal(t.c.timeout_sec, 9);
	assert_int_equal(t.c.ops_per_thread, 100);
	assert_int_equal(t.c.verbose, 1);
	assert_int_equal(t.c.wait_sec, 2);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_int_equal(t.c.valmode, LDB_VAL_RANDOM);
	assert_int_equal(t.c.interval_ms, 500);
	assert_true(t.c.seed_given);
	assert_int_equal(t.c.seed, 42);
	assert_int_equal(t.c.conns_per_thread, 3);
	done(&t);
}

static void test_quiet_verbose_scopes(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "-Q", "-V", "-e", "esearch", "-f", "cn=a", "-s", "base"), LDB_CLI_RUN);
	assert_true(t.c.quiet);
	assert_true(t.c.super_quiet);
	assert_int_equal(t.c.verbose, 2);
	assert_int_equal(t.c.scope, LDB_SCOPE_BASE);
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "-s", "onelevel"), LDB_CLI_RUN);
	assert_int_equal(t.c.scope, LDB_SCOPE_ONE);
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "-s", "one", "-s", "sub"), LDB_CLI_RUN);
	assert_int_equal(t.c.scope, LDB_SCOPE_SUB);
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "-s", "subtree"), LDB_CLI_RUN);
	assert_int_equal(t.c.scope, LDB_SCOPE_SUB);
	done(&t);
}

static void test_url_and_tls(void **state)
{
	struct run t;

	(void)state;
	/* -H wins over -h/-p whatever the order */
	assert_int_equal(
	        PARSE(&t, "-H", "ldaps://srv.example:1636", "-h", "other", "-p", "1", "-e", "esearch", "-f", "cn=a"),
	        LDB_CLI_RUN);
	assert_string_equal(t.c.uri, "ldaps://srv.example:1636");
	assert_string_equal(t.c.host, "srv.example");
	assert_int_equal(t.c.port, 1636);
	assert_true(t.c.ldaps);
	done(&t);

	assert_int_equal(PARSE(&t, "-H", "ldap://127.0.0.1", "-Z", "/etc/cert9.db", "-e", "esearch", "-f", "cn=a"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.port, 389);
	assert_false(t.c.ldaps);
	done(&t);

	assert_int_equal(PARSE(&t, "-Z", "/etc/dirsrv/cert9.db", "-e", "esearch", "-f", "cn=a"), LDB_CLI_RUN);
	assert_true(t.c.ldaps);
	assert_int_equal(t.c.port, 636);
	assert_string_equal(t.c.tls_certdb, "/etc/dirsrv/cert9.db");
	done(&t);

	assert_int_equal(PARSE(&t, "-p", "3636", "-Z", "x/cert9.db", "-e", "esearch", "-f", "cn=a"), LDB_CLI_RUN);
	assert_int_equal(t.c.port, 3636);
	done(&t);
}

static void test_exec_keywords(void **state)
{
	struct run t;

	(void)state;
	/* ldclt would drop everything after attrlist=; ldbench keeps it */
	assert_int_equal(PARSE(&t, "-e", "attrlist=cn:sn:mail,esearch,incr=5,commoncounter,noloop", "-f", "uid=uXXXX",
	                       "-r", "10", "-R", "20"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.nattrs, 3);
	assert_string_equal(t.c.attrs[0], "cn");
	assert_string_equal(t.c.attrs[1], "sn");
	assert_string_equal(t.c.attrs[2], "mail");
	assert_null(t.c.attrs[3]);
	assert_false(t.c.random_attrlist);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_int_equal(t.c.valmode, LDB_VAL_INCR);
	assert_int_equal(t.c.incr_step, 5);
	assert_true(t.c.commoncounter);
	assert_true(t.c.noloop);
	done(&t);

	/* several -e add up */
	assert_int_equal(PARSE(&t, "-e", "esearch", "-e", "random", "-e", "nozeropad", "-e", "timestamp=%H:%M", "-e",
	                       "randomattrlist=cn:uid,attrsonly=1", "-e", "counteach,smoothshutdown", "-e",
	                       "dontsleeponserverdown", "-e", "noglobalstats,srchnentries=1,sampinterval=5,", "-f",
	                       "uid=uXXX", "-r", "0", "-R", "999"),
	                 LDB_CLI_RUN);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_int_equal(t.c.valmode, LDB_VAL_RANDOM);
	assert_false(t.c.zeropad);
	assert_false(t.c.filter_pat.zeropad);
	assert_false(t.c.base_pat.zeropad);
	assert_true(t.c.timestamp);
	assert_string_equal(t.c.timestamp_fmt, "%H:%M");
	assert_true(t.c.random_attrlist);
	assert_int_equal(t.c.nattrs, 2);
	assert_string_equal(t.c.attrs[1], "uid");
	assert_int_equal(t.c.attrsonly, 1);
	assert_true(t.c.counteach);
	assert_true(t.c.smoothshutdown);
	assert_true(t.c.dontsleeponserverdown);
	assert_true(t.c.noglobalstats);
	assert_int_equal(t.c.expect_entries, 1);
	assert_int_equal(t.c.interval_ms, 5000);
	done(&t);

	/* timestamp without a format keeps %s; the last interval setting wins */
	assert_int_equal(PARSE(&t, "-e", "esearch,timestamp", "-f", "cn=a", "-e", "sampinterval=3", "--interval", "2m"),
	                 LDB_CLI_RUN);
	assert_true(t.c.timestamp);
	assert_string_equal(t.c.timestamp_fmt, "%s");
	assert_int_equal(t.c.interval_ms, 120000);
	done(&t);
	assert_int_equal(PARSE(&t, "--interval=1h", "-e", "esearch", "-f", "cn=a", "-e", "sampinterval=7"),
	                 LDB_CLI_RUN);
	assert_int_equal(t.c.interval_ms, 7000);
	done(&t);
}

static void test_bind_modes(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "-e", "bindonly,bindeach,close", "-D", "cn=Directory Manager", "-w", PW),
	                 LDB_CLI_RUN);
	assert_true(t.c.weight[LDB_OP_BIND] > 0);
	assert_true(t.c.bindeach);
	assert_true(t.c.close_sock);
	assert_null(t.c.filter);
	done(&t);

	/* anonymous bindeach is allowed */
	assert_int_equal(PARSE(&t, "-e", "esearch,bindeach", "-f", "cn=a"), LDB_CLI_RUN);
	assert_true(t.c.bindeach);
	assert_null(t.c.bind_dn);
	done(&t);

	assert_int_equal(PARSE(&t, "-e", "bindonly,bindeach,randombinddn,randombinddnlow=0", "-e",
	                       "randombinddnhigh=999", "-D", "uid=userXXX,dc=example,dc=com", "-w", "pwXXXXX"),
	                 LDB_CLI_RUN);
	assert_true(t.c.randombinddn);
	assert_int_equal(t.c.binddn_low, 0);
	assert_int_equal(t.c.binddn_high, 999);
	assert_int_equal(t.c.bind_dn_pat.width, 3);
	assert_int_equal(t.c.password_pat.width, 5);
	assert_string_equal(t.c.password, "pwXXXXX");
	done(&t);

	assert_int_equal(PARSE(&t, "-e", "esearch,randombase,randombaselow=1,randombasehigh=50", "-b",
	                       "ou=dXX,dc=example,dc=com", "-f", "cn=a"),
	                 LDB_CLI_RUN);
	assert_true(t.c.randombase);
	assert_int_equal(t.c.base_low, 1);
	assert_int_equal(t.c.base_high, 50);
	assert_int_equal(t.c.base_pat.width, 2);
	done(&t);
}

static void test_binddn_file(void **state)
{
	struct run t;
	char path[64], kw[128];

	(void)state;
	temp_file(path, sizeof(path), "uid=u1,dc=example,dc=com\tpw1\r\n\nuid=u2,dc=example,dc=com\tpw two\n");
	snprintf(kw, sizeof(kw), "bindonly,bindeach,randombinddnfromfile=%s", path);
	assert_int_equal(PARSE(&t, "-e", kw), LDB_CLI_RUN);
	assert_string_equal(t.c.binddn_file, path);
	assert_int_equal(t.c.binddn_file_n, 2);
	assert_string_equal(t.c.binddn_file_dns[0], "uid=u1,dc=example,dc=com");
	assert_string_equal(t.c.binddn_file_pws[0], "pw1");
	assert_string_equal(t.c.binddn_file_dns[1], "uid=u2,dc=example,dc=com");
	assert_string_equal(t.c.binddn_file_pws[1], "pw two");
	done(&t);

	/* the file replaces -D and randombinddn */
	assert_int_equal(PARSE(&t, "-e", kw, "-e", "randombinddn,randombinddnlow=0", "-e", "randombinddnhigh=9", "-D",
	                       "uid=uX", "-w", PW),
	                 LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "-e randombinddnfromfile and -e randombinddn exclude each other"));
	assert_null(strstr(t.err, PW));
	done(&t);
	assert_int_equal(PARSE(&t, "-e", kw, "-D", "cn=admin", "-w", PW), LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "-e randombinddnfromfile and -D exclude each other"));
	done(&t);
	assert_int_equal(PARSE(&t, "-e", kw, "-e", kw), LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "-e randombinddnfromfile given twice"));
	done(&t);
	unlink(path);
}

static void test_password_sources(void **state)
{
	struct run t;
	char path[64];

	(void)state;
	temp_file(path, sizeof(path), PW "\r\nsecond line\n");
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin", "-y", path), LDB_CLI_RUN);
	assert_string_equal(t.c.password, PW);
	assert_null(strstr(t.c.cmdline, PW));
	done(&t);
	unlink(path);

	setenv("LDBENCH_PASSWORD", PW "env", 1);
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin"), LDB_CLI_RUN);
	assert_string_equal(t.c.password, PW "env");
	done(&t);
	/* -w wins over the environment */
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin", "-w", "other"), LDB_CLI_RUN);
	assert_string_equal(t.c.password, "other");
	done(&t);
	unsetenv("LDBENCH_PASSWORD");
}

static void test_cmdline_masks_password(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin", "-w", PW, "-n", "2"), LDB_CLI_RUN);
	assert_string_equal(t.c.cmdline, "ldbench -e bindonly -D cn=admin -w ***** -n 2");
	/* hidden from ps too */
	for (int i = 0; i < t.argc; i++)
		assert_null(strstr(t.argv[i], PW));
	done(&t);

	assert_int_equal(PARSE(&t, "-qw" PW, "-e", "bindonly", "-D", "cn=admin"), LDB_CLI_RUN);
	assert_string_equal(t.c.password, PW);
	assert_string_equal(t.c.cmdline, "ldbench -qw***** -e bindonly -D cn=admin");
	done(&t);
}

static void test_progname(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE_AS(&t, "/usr/bin/ldclt", "-n", "0"), LDB_CLI_ERROR);
	assert_string_equal(t.c.progname, "ldclt");
	assert_string_equal(t.err, "ldclt: -n 0: threads must be between 1 and 10000");
	done(&t);
	assert_int_equal(PARSE_AS(&t, "./build/ldbench", "-e", "esearch", "-f", "cn=a"), LDB_CLI_RUN);
	assert_string_equal(t.c.progname, "ldbench");
	done(&t);
}

static void test_help_version(void **state)
{
	struct run t;

	(void)state;
	assert_int_equal(PARSE(&t, "--help"), LDB_CLI_EXIT_OK);
	done(&t);
	assert_int_equal(PARSE(&t, "--version"), LDB_CLI_EXIT_OK);
	done(&t);
}

static void test_usage_lists_everything(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char *const items[] = {
		"-a N",
		"-b DN",
		"-D DN",
		"-w PASSWORD",
		"-y FILE",
		"-e LIST",
		"-E N",
		"-f FILTER",
		"-h HOST",
		"-H URL",
		"-i N",
		"-I CODE",
		"-n N",
		"-N N",
		"-o ",
		"-p PORT",
		"-q ",
		"-Q ",
		"-r N",
		"-R N",
		"-s SCOPE",
		"-S HOST",
		"-t N",
		"-T N",
		"-v ",
		"-V ",
		"-W N",
		"-Z FILE",
		"--help",
		"--version",
		"--interval",
		"--seed",
		"--connections-per-thread",
		"esearch",
		"bindonly",
		"bindeach",
		"close",
		"random",
		"incr[=STEP]",
		"commoncounter",
		"noloop",
		"counteach",
		"attrlist=",
		"randomattrlist=",
		"attrsonly=",
		"randombinddn ",
		"randombinddnlow=",
		"randombinddnhigh=",
		"randombinddnfromfile=",
		"randombase ",
		"randombaselow=",
		"randombasehigh=",
		"srchnentries=",
		"sampinterval=",
		"timestamp",
		"nozeropad",
		"smoothshutdown",
		"dontsleeponserverdown",
		"noglobalstats",
		"LDBENCH_PASSWORD",
	};

	(void)state;
	assert_non_null(f);
	ldb_cli_usage("ldbench", f);
	fclose(f);
	assert_true(strncmp(buf, "usage: ldbench ", 15) == 0);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (strstr(buf, items[i]) == NULL)
			fail_msg("usage lacks '%s'", items[i]);
	}
	free(buf);
}

/* --rate, --warmup, --sweep and --start-at read their numbers with util/num */
static void test_long_numbers(void **state)
{
	struct run t;
	char at[32];

	(void)state;
	snprintf(at, sizeof at, "@%lld", (long long)time(NULL) + 3600);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "--rate", "2500.5/s", "--warmup", "3 samples",
	                       "--start-at", at),
	                 LDB_CLI_RUN);
	assert_true(t.c.rate == 2500.5);
	assert_int_equal(t.c.warmup_samples, 3);
	assert_int_equal((long long)t.c.start_at, atoll(at + 1));
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "--rate", "1e3", "--warmup", "7samples"),
	                 LDB_CLI_RUN);
	assert_true(t.c.rate == 1000);
	assert_int_equal(t.c.warmup_samples, 7);
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch", "-f", "cn=a", "--sweep", "1,2,16"), LDB_CLI_RUN);
	assert_int_equal(t.c.nsweep, 3);
	assert_int_equal(t.c.sweep[0], 1);
	assert_int_equal(t.c.sweep[2], 16);
	done(&t);
}

/* the version line, and through a link named ldclt ldclt's own version first */
static void test_version_line(void **state)
{
	char line[96];

	(void)state;
	ldb_version_line(line, sizeof line, "ldbench");
	assert_string_equal(line, "ldbench version " LDBENCH_VERSION);
	ldb_version_line(line, sizeof line, "ldclt");
	assert_string_equal(line, "ldclt version 4.23 (ldbench " LDBENCH_VERSION ")");
}

static void test_parse_duration(void **state)
{
	uint64_t ms = 12345;

	(void)state;
	assert_int_equal(ldb_parse_duration_ms("10", &ms), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(ldb_parse_duration_ms("1s", &ms), 0);
	assert_int_equal(ms, 1000);
	assert_int_equal(ldb_parse_duration_ms("500ms", &ms), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(ldb_parse_duration_ms("2m", &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(ldb_parse_duration_ms("1h", &ms), 0);
	assert_int_equal(ms, 3600000);
	ms = 777;
	assert_int_equal(ldb_parse_duration_ms("", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("s", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("-1s", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms(" 1s", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("1 s", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("1.5s", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("10x", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("99999999999999999999", &ms), -1);
	assert_int_equal(ldb_parse_duration_ms("9999999999999999h", &ms), -1);
	assert_int_equal(ms, 777);
}

static void test_config_print(void **state)
{
	struct run t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(PARSE(&t, "-h", "127.0.0.1", "-p", "3899", "-e", "esearch,random", "-f", "cn=XXXX", "-r", "0",
	                       "-R", "99", "-N", "2", "-n", "2", "-v", "-D", "cn=admin", "-w", PW, "-I", "32", "--seed",
	                       "7"),
	                 LDB_CLI_RUN);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ldb_config_print(&t.c, f);
	fclose(f);
	assert_null(strstr(buf, PW));
	assert_null(strstr(buf, "Passwd"));
	assert_non_null(strstr(buf, "\nHost to connect    = 127.0.0.1\n"));
	assert_non_null(strstr(buf, "\nPort number        = 3899\n"));
	assert_non_null(strstr(buf, "\nBind DN            = cn=admin\n"));
	assert_non_null(strstr(buf, "\nBase DN            = dc=example,dc=com\n"));
	assert_non_null(strstr(buf, "\nFilter             = \"cn=XXXX\"\n"));
	assert_non_null(strstr(buf, "\nMax times inactive = 3\n"));
	assert_non_null(strstr(buf, "\nMax allowed errors = 1000\n"));
	assert_non_null(strstr(buf, "\nNumber of samples  = 2\n"));
	assert_non_null(strstr(buf, "\nNumber of threads  = 2\n"));
	assert_non_null(strstr(buf, "\nTotal op. req.     = -1\n"));
	assert_non_null(strstr(buf, "\nRunning mode       = verbose random exact_search\n"));
	assert_non_null(strstr(buf, "\nLDAP oper. timeout = 30 sec\n"));
	assert_non_null(strstr(buf, "\nSampling interval  = 10 sec\n"));
	assert_non_null(strstr(buf, "\nScope              = subtree\n"));
	assert_non_null(strstr(buf, "\nValues range       = [0 , 99]\n"));
	assert_non_null(strstr(buf, "\nFilter's head      = \"cn=\"\n"));
	assert_non_null(strstr(buf, "\nFilter's tail      = \"\"\n"));
	assert_non_null(strstr(buf, "\nIgnore error       = 32 ("));
	assert_non_null(strstr(buf, "\nSeed               = 7\n"));
	assert_non_null(strstr(buf, "\nRequests in flight = 1\n"));
	assert_non_null(strstr(buf, "\nConnections/thread = 1\n"));
	assert_true(strncmp(buf, "ldbench -h 127.0.0.1", 20) == 0);
	free(buf);
	done(&t);
}

static void test_exit_texts_and_op_names(void **state)
{
	(void)state;
	assert_string_equal(ldb_exit_text(0), "No problem during execution.");
	assert_string_equal(ldb_exit_text(2), "Error in parameters.");
	assert_string_equal(ldb_exit_text(3), "Max errors reached.");
	assert_string_equal(ldb_exit_text(4), "Cannot bind.");
	assert_string_equal(ldb_exit_text(7), "Cannot initialize ldbench.");
	assert_string_equal(ldb_exit_text_prog(7, "ldclt"), "Cannot initialize ldclt.");
	assert_string_equal(ldb_exit_text(99), "Other kind of error.");
	assert_string_equal(ldb_op_name(LDB_OP_SEARCH), "search");
	assert_string_equal(ldb_op_name(LDB_OP_BIND), "bind");
	assert_string_equal(ldb_op_name(LDB_OP_MODIFY), "modify");
	assert_string_equal(ldb_op_name(LDB_OP_COMPARE), "compare");
}

/* ------------------------------------------------------------- bad input */

struct bad_case {
	const char *args[40];
	const char *needle; /* a substring the error must contain */
};

#define ES "-e", "esearch", "-f", "cn=a"
#define ADDW "-e", "add,person,incr", "-f", "cn=aXXX", "-r1", "-R9"
#define DNW "-D", "cn=admin", "-w", PW

static const struct bad_case bad_cases[] = {
	/* numbers */
	{ { "-n", "0", ES, DNW }, "-n 0: threads must be between 1 and 10000" },
	{ { "-n", "10001", ES, DNW }, "-n 10001: threads must be between 1 and 10000" },
	{ { "-n", "1000000", ES }, "threads must be between 1 and 10000" },
	{ { "-n", "abc", ES, DNW }, "-n 'abc': not a whole number" },
	{ { "-n", "", ES, DNW }, "-n '': not a whole number" },
	{ { "-n", " 5", ES }, "not a whole number" },
	{ { "-n", "5x", ES }, "not a whole number" },
	{ { "-n", "+5", ES }, "not a whole number" },
	{ { "-n", "99999999999999999999999", ES }, "threads must be between" },
	{ { "-p", "0", ES, DNW }, "port must be between 1 and 65535" },
	{ { "-p", "65536", ES }, "port must be between 1 and 65535" },
	{ { "-a", "0", ES }, "-a 0: requests in flight must be between 1 and 1024" },
	{ { "-a", "1025", ES }, "requests in flight must be between 1 and 1024" },
	{ { "-E", "-1", ES, DNW }, "-E -1: max errors must be at least 0" },
	{ { "-N", "0", ES }, "-N 0: samples must be at least 1" },
	{ { "-N", "99999999999999999999", ES }, "samples is too large" },
	{ { "-T", "0", ES }, "operations per thread must be at least 1" },
	{ { "-t", "0", ES }, "timeout" },
	{ { "-W", "-1", ES }, "-W -1" },
	{ { "-i", "-2", ES }, "max times inactive must be at least 0" },
	{ { "-I", "x", ES }, "-I 'x': not a whole number" },
	{ { "-I1",  "-I2",  "-I3",  "-I4",  "-I5",  "-I6",  "-I7",  "-I8",  "-I9",  "-I10", "-I11", "-I12",
	    "-I13", "-I14", "-I15", "-I16", "-I17", "-I18", "-I19", "-I20", "-I20", "-I21", ES },
	  "too many codes to ignore" },
	{ { "--connections-per-thread", "0", ES }, "connections per thread must be between 1 and 1000" },
	{ { "--connections-per-thread", "1001", ES }, "between 1 and 1000" },
	{ { "--seed", "-1", ES }, "--seed '-1': not a whole number" },
	{ { "--seed", "18446744073709551616", ES }, "64 bits" },
	{ { "--interval", "5x", ES }, "--interval '5x': not a duration" },
	{ { "--interval", "0", ES }, "at least 100ms" },
	{ { "-e", "esearch,sampinterval=0", "-f", "cn=a" }, "-e sampinterval=0: the sampling interval" },
	{ { "-e", "esearch,sampinterval=abc", "-f", "cn=a" }, "not a whole number" },
	{ { "-e", "esearch,srchnentries=-1", "-f", "cn=a" }, "-e srchnentries=-1" },
	{ { "-e", "esearch,incr=0", "-f", "cn=X", "-r", "0", "-R", "9" }, "-e incr=0: the step" },
	/* -e syntax */
	{ { "-e", "frobnicate", "-f", "cn=a" }, "-e frobnicate: unknown keyword" },
	{ { "-e", "esearch,referral=rebind", "-f", "cn=a" },
	  "-e referral=rebind needs -D and -w (the referred server is bound with them)" },
	{ { "-e", "esearch,referral=maybe", "-f", "cn=a" }, "-e referral=maybe: must be on, off or rebind" },
	{ { "-e", "esearch,scalab01", "-f", "cn=a" },
	  "-e scalab01 runs its own scenario (bind, search, modify): leave out -e esearch" },
	{ { "-e", "scalab01_maxcnxnb=0", "-D", "uid=uXX", "-w", "pw" },
	  "-e scalab01_maxcnxnb=0: the modem pool's size must be at least 1" },
	{ { "-e", "scalab01", "-D", "uid=u", "-w", "pw" }, "-e randombinddn needs -D with an XXX placeholder" },
	{ { "-e", "scalab01" }, "-e scalab01 needs -D with an XXX placeholder and -w" },
	{ { "-e", "esearch", "-e", "imagesdir=/tmp", "-f", "cn=a" },
	  "-e imagesdir needs -e add with emailPerson or inetOrgPerson" },
	/* the value and protocol keywords: what each needs */
	{ { "-e", "esearch,incr,string", "-f", "cn=X", "-r", "0", "-R", "9" }, "-e string needs -e random" },
	{ { "-e", "esearch,random,ascii", "-f", "cn=X", "-r", "0", "-R", "9" }, "-e ascii needs -e string" },
	{ { "-e", "esearch,string=1", "-f", "cn=a" }, "-e string takes no value" },
	{ { "-e", "bindonly,v2", "-o", "mech=EXTERNAL" }, "-e v2 and -o mech exclude each other" },
	{ { "-e", "esearch,deref=secretary", "-f", "cn=a" }, "deref=ATTR:DEREFATTR" },
	{ { "-e", "esearch,deref=secretary:c n", "-f", "cn=a" }, "invalid attribute name 'c n'" },
	{ { "-e", "bindonly,deref" }, "-e deref needs -e esearch" },
	{ { "-e", "esearch,cltcertname=me", "-f", "cn=a" }, "-e cltcertname: ldbench reads no NSS database" },
	{ { "-e", "esearch,keydbpin=" PW, "-f", "cn=a" }, "--tls-cert FILE --tls-key FILE" },
	{ { "-e", "", "-f", "cn=a" }, "-e needs a keyword" },
	{ { "-e", "esearch,,random", "-f", "cn=a" }, "empty keyword" },
	{ { "-e", "esearch=1", "-f", "cn=a" }, "-e esearch takes no value" },
	{ { "-e", "esearch,sampinterval", "-f", "cn=a" }, "-e sampinterval needs a value" },
	{ { "-e", "esearch,attrlist=", "-f", "cn=a" }, "-e attrlist needs a value" },
	{ { "-e", "esearch,timestamp=", "-f", "cn=a" }, "-e timestamp=: empty value" },
	/* operations and the filter */
	{ { "-f", "cn=a", DNW }, "nothing to do: give -e esearch or -e bindonly" },
	{ { "-e", "esearch", DNW }, "-e esearch needs a filter (-f)" },
	{ { "-e", "bindonly", "-f", "cn=a", DNW }, "-f is not used by -e bindonly" },
	{ { "-e", "esearch,random,incr", "-f", "cn=XX", "-r", "0", "-R", "9" },
	  "-e random and -e incr exclude each other" },
	{ { "-e", "esearch,noloop", "-f", "cn=a" }, "-e noloop needs -e incr" },
	{ { "-e", "esearch,random,noloop", "-f", "cn=XX", "-r", "0", "-R", "9" }, "noloop needs -e incr" },
	{ { "-e", "esearch,commoncounter", "-f", "cn=a" }, "-e commoncounter needs -e incr" },
	{ { "-e", "esearch,random", "-f", "cn=XX" }, "-e random needs -r and -R" },
	{ { "-e", "esearch,incr", "-f", "cn=XX", "-r", "0" }, "-e incr needs -r and -R" },
	{ { "-e", "esearch,random", "-f", "cn=XX", "-r", "10", "-R", "5" }, "-r 10 is above -R 5" },
	{ { "-e", "esearch,random", "-f", "cn=XX", "-r", "-1", "-R", "5" }, "low bound must be at least 0" },
	{ { "-e", "esearch,random", "-f", "cn=a", "-r", "0", "-R", "5" }, "-e random needs an XXX placeholder in -f" },
	{ { "-e", "esearch", "-f", "uid=userXXX" }, "has XXX but neither -e random nor -e incr" },
	{ { "-e", "esearch,incr", "-f", "uid=userXXX", "-r", "0", "-R", "1000" },
	  "-R 1000 needs 4 digits but the pattern 'uid=userXXX' has 3 X" },
	{ { "-e", "esearch", "-f", "cn" }, "-f 'cn': a filter must contain '='" },
	{ { "-e", "esearch", "-f", "" }, "a filter must contain '='" },
	{ { "-e", "esearch", "-f", "(cn=a", DNW }, "-f '(cn=a': invalid filter" },
	{ { "-e", "esearch", "-f", "(&(cn=a)" }, "invalid filter" },
	{ { "-e", "esearch,incr", "-f", "(|(cn=XX)", "-r", "0", "-R", "9" }, "invalid filter" },
	{ { "-e", "esearch", "-f", "cn=line1\nline2)(" }, "invalid filter" },
	/* attributes */
	{ { "-e", "bindonly,attrlist=cn", DNW }, "-e attrlist needs -e esearch" },
	{ { "-e", "esearch,attrlist=cn,randomattrlist=sn", "-f", "cn=a" },
	  "-e attrlist and -e randomattrlist exclude each other" },
	{ { "-e", "esearch,attrlist=cn", "-e", "attrlist=sn", "-f", "cn=a" }, "-e attrlist given twice" },
	{ { "-e", "esearch,attrlist=cn::sn", "-f", "cn=a" }, "empty attribute name" },
	{ { "-e", "esearch,attrlist=cn:cn", "-f", "cn=a" }, "attribute 'cn' listed twice" },
	{ { "-e", "esearch,attrlist=c n", "-f", "cn=a" }, "invalid attribute name" },
	{ { "-e",
	    "esearch,attrlist=a1:a2:a3:a4:a5:a6:a7:a8:a9:a10:a11:a12:a13:a14:a15:a16:a17:"
	    "a18:a19:a20:a21:a22:a23:a24:a25:a26:a27:a28:a29:a30:a31:a32:a33:a34:a35:a36:a37:a38:"
	    "a39:a40:a41",
	    "-f", "cn=a" },
	  "too many attributes (at most 40)" },
	{ { "-e", "esearch,attrsonly=2", "-f", "cn=a" }, "-e attrsonly=2: must be 0 or 1" },
	{ { "-e", "bindonly,srchnentries=3", DNW }, "-e srchnentries needs -e esearch" },
	/* binds */
	{ { "-e", "esearch,close", "-f", "cn=a" }, "-e close needs -e bindeach" },
	{ { "-e", "bindonly" }, "-e bindonly needs -D" },
	{ { "-e", "bindonly", "-D", "cn=admin" }, "-D needs a password (-w, -y or LDBENCH_PASSWORD)" },
	{ { "-e", "bindonly", "-D", "", "-w", PW }, "-D: empty bind DN" },
	{ { "-e", "bindonly", "-D", "not a dn", "-w", PW }, "-D 'not a dn': invalid DN" },
	{ { "-e", "bindonly", "-D", "cn=admin", "-w", "" }, "-w: the password is empty" },
	{ { "-e", "bindonly,randombinddn,randombinddnlow=0,randombinddnhigh=9", DNW },
	  "-e randombinddn needs -D with an XXX placeholder" },
	{ { "-e", "bindonly,randombinddn", "-D", "uid=uXXX", "-w", PW },
	  "-e randombinddn needs randombinddnlow and randombinddnhigh" },
	{ { "-e", "bindonly,randombinddn,randombinddnlow=5,randombinddnhigh=1", "-D", "uid=uXXX", "-w", PW },
	  "randombinddnlow 5 is above randombinddnhigh 1" },
	{ { "-e", "bindonly,randombinddn,randombinddnlow=0,randombinddnhigh=1000", "-D", "uid=uXXX", "-w", PW },
	  "randombinddnhigh 1000 needs 4 digits but the pattern 'uid=uXXX' has 3 X" },
	{ { "-e", "bindonly,randombinddn,randombinddnlow=0,randombinddnhigh=100", "-D", "uid=uXXX", "-w", PW "XX" },
	  "the XXX of the password (-w) has 2 X" },
	{ { "-e", "bindonly,randombinddnlow=-1", DNW }, "-e randombinddnlow=-1" },
	{ { "-e", "bindonly,randombinddnfromfile=/nonexistent/ldbench.txt" },
	  "randombinddnfromfile=/nonexistent/ldbench.txt: cannot open" },
	{ { "-e", "bindonly,randombinddnfromfile=/etc/passwd" },
	  "randombinddnfromfile=/etc/passwd line 1: expected DN<TAB>password" },
	/* base */
	{ { "-e", "esearch,randombase,randombaselow=0,randombasehigh=9", "-f", "cn=a" },
	  "-e randombase needs an XXX placeholder in -b" },
	{ { "-e", "esearch,randombase", "-b", "ou=XX,dc=x", "-f", "cn=a" },
	  "-e randombase needs randombaselow and randombasehigh" },
	{ { "-e", "esearch,randombase,randombaselow=0,randombasehigh=100", "-b", "ou=XX,dc=x", "-f", "cn=a" },
	  "randombasehigh 100 needs 3 digits but the pattern 'ou=XX,dc=x' has 2 X" },
	{ { "-b", "foo", ES, DNW }, "-b 'foo': invalid DN" },
	{ { "-b", "dc=example,,dc=com", ES }, "invalid DN" },
	/* where */
	{ { "-s", "sideways", ES }, "-s 'sideways': the scope must be base, one or subtree" },
	{ { "-s", "", ES }, "the scope must be" },
	{ { "-H", "cldap://host/", ES, DNW }, "only ldap:// and ldaps:// URLs are supported" },
	{ { "-H", "http://host/", ES }, "-H 'http://host/': only ldap:// and ldaps://" },
	{ { "-H", "ldap://host:99999/", ES }, "the port must be between 1 and 65535" },
	{ { "-H", "ldap://host:12x/", ES }, "not a valid LDAP URL" },
	{ { "-H", "ldapi://%2Fvar%2Frun%2Fslapd.sock", ES }, "ldapi:// is not supported yet" },
	{ { "-H", "not a url", ES }, "-H 'not a url': not a valid LDAP URL" },
	{ { "-H", "", ES }, "not a valid LDAP URL" },
	{ { "-h", "", ES }, "-h: empty host name" },
	{ { "-Z", "", ES }, "-Z: empty certificate database path" },
	/* getopt level */
	{ { ES, DNW, "extra" }, "unexpected argument 'extra'" },
	{ { ES, "--", "-n" }, "unexpected argument '-n'" },
	{ { "-x", ES, DNW }, "unknown option '-x'" },
	{ { "-P", "16000", ES }, "-P gives the port of the -S consumers: it needs -S" },
	{ { "--frobnicate=" PW, ES }, "unknown option '--frobnicate'" },
	{ { "--help=3" }, "--help takes no value" },
	{ { ES, "-n" }, "-n needs a value" },
	{ { ES, "--seed" }, "--seed needs a value" },
	{ { "-o", "mech=PLAIN", ES, DNW }, "-D and -o mech exclude each other" },
	{ { "-o", "mech=GSSAPI", ES },
	  "-o mech=GSSAPI: not supported (EXTERNAL, PLAIN, CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1, SCRAM-SHA-256)" },
	{ { "-S", "replica1", ES }, "-S checks writes: the run has no add, modify, delete or rename" },
	/* the replication check (cli/repl_options.c) */
	{ { "-S", "", ADDW }, "-S: empty consumer" },
	{ { "-S", "h:0", ADDW }, "-S 0: the consumer's port" },
	{ { "-S", "ftp://h", ADDW }, "-S 'ftp://h': only ldap:// and ldaps:// URLs are supported" },
	{ { "-S", "ldap://", ADDW }, "-S 'ldap://': the URL names no host" },
	{ { "-S", "h", "-e",
	    "attreplace=sn:a"
	    "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
	    "-f", "cn=aXXX", "-e", "random", "-r1", "-R9" },
	  "-S checks an attreplace modify by its random run: at most 38 X in the mask (39 given)" },
	{ { "-S", "h", "--repl-sample", "0/s", ADDW }, "--repl-sample '0/s': N/s with N above 0" },
	{ { "-S", "h", "--repl-sample", "0", ADDW }, "--repl-sample 0" },
	{ { "-S", "h", "--repl-timeout", "0", ADDW }, "--repl-timeout '0': not a duration" },
	{ { "-S", "h", "--repl-bind", "cn=r", ADDW }, "--repl-bind needs a password" },
	{ { "--repl-bind", "cn=r", ADDW }, "--repl-bind and --repl-bind-pwfile need -S" },
	{ { "-S", "h", "--repl-bind-pwfile", "/nonexistent/pw", ADDW },
	  "--repl-bind-pwfile /nonexistent/pw: cannot open" },
	{ { "-y", "/nonexistent/pw.txt", ES, "-D", "cn=admin" }, "-y /nonexistent/pw.txt: cannot open" },
	{ { "-y", "/", ES, "-D", "cn=admin" }, "-y /: cannot read" },
	{ { "-w", PW, "-y", "/etc/passwd", ES }, "-w and -y exclude each other" },
	{ { "-y", "/etc/passwd", "-w", PW, ES }, "-w and -y exclude each other" },
	/* the long options' numbers are as strict as the flags' (util/num) */
	{ { "--rate", " 500", ES }, "--rate ' 500': operations per second, a number above 0" },
	{ { "--rate", "0x10", ES }, "--rate '0x10': operations per second" },
	{ { "--rate", "500/min", ES }, "--rate '500/min': operations per second" },
	{ { "--sweep", "1, 2", ES }, "--sweep '1, 2': a comma-separated list of thread counts (1..10000)" },
	{ { "--sweep", "1,+2", ES }, "--sweep '1,+2': a comma-separated list" },
	{ { "--sweep", "1,2,", ES }, "--sweep '1,2,': a comma-separated list" },
	{ { "--sweep", "", ES }, "--sweep '': give thread counts, e.g. 1,2,4,8" },
	{ { "--warmup", "+3samples", ES }, "--warmup '+3samples': not a duration" },
	{ { "--warmup", "0samples", ES }, "--warmup '0samples': not a duration" },
	{ { "--start-at", "@+5", ES }, "--start-at" },
};

static void test_bad_input(void **state)
{
	(void)state;
	assert_true(sizeof(bad_cases) / sizeof(bad_cases[0]) >= 40);
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct run t;

		cli_run_bad(&t, i, bad_cases[i].args, bad_cases[i].needle, NULL);
		if (strstr(t.err, PW) != NULL || strstr(t.err, "Zq7p") != NULL)
			fail_msg("case %zu: error '%s' shows the password", i, t.err);
		done(&t);
	}
}

static void test_bad_binddn_files(void **state)
{
	static const struct {
		const char *content;
		const char *needle;
		int r; /* a file without a line cannot be used (exit 7); a bad line is a bad parameter */
	} files[] = {
		{ "", "no DN<TAB>password line", LDB_CLI_INIT_ERROR },
		{ "\n\n", "no DN<TAB>password line", LDB_CLI_INIT_ERROR },
		{ "uid=u1,dc=x " PW "\n", "line 1: expected DN<TAB>password", LDB_CLI_ERROR },
		{ "uid=u1,dc=x\t" PW "\nnot a dn\t" PW "\n", "line 2: invalid DN 'not a dn'", LDB_CLI_ERROR },
		{ "uid=u1,dc=x\t\n", "line 1: empty password", LDB_CLI_ERROR },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct run t;
		char path[64], kw[128];

		temp_file(path, sizeof(path), files[i].content);
		snprintf(kw, sizeof(kw), "bindonly,randombinddnfromfile=%s", path);
		assert_int_equal(PARSE(&t, "-e", kw), files[i].r);
		if (strstr(t.err, files[i].needle) == NULL || strstr(t.err, path) == NULL)
			fail_msg("file %zu: error '%s' lacks '%s'", i, t.err, files[i].needle);
		assert_null(strstr(t.err, PW));
		done(&t);
		unlink(path);
	}
}

/* Input files that cannot be used: ldclt's "Cannot initialize" (exit 7). */
static void test_missing_input_files(void **state)
{
	static const char *const kws[] = { "esearch,randombinddnfromfile=/nonexistent/dn.txt",
		                           "attreplacefile=description:/nonexistent/v.txt,incr",
		                           "add,incr,object=/nonexistent/t.ldif" };
	(void)state;
	for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++) {
		struct run t;
		assert_int_equal(PARSE(&t, "-e", kws[i], "-f", "cn=uXX", "-r", "1", "-R", "9"), LDB_CLI_INIT_ERROR);
		if (strstr(t.err, "/nonexistent/") == NULL || strstr(t.err, "cannot open") == NULL)
			fail_msg("case %zu: error '%s'", i, t.err);
		done(&t);
	}
}

static void test_bad_password_files(void **state)
{
	struct run t;
	char path[64];

	(void)state;
	temp_file(path, sizeof(path), "");
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin", "-y", path), LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "the file is empty"));
	assert_non_null(strstr(t.err, path));
	done(&t);
	unlink(path);

	temp_file(path, sizeof(path), "\n" PW "\n");
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "cn=admin", "-y", path), LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "the first line (the password) is empty"));
	assert_null(strstr(t.err, PW));
	done(&t);
	unlink(path);
}

/* A password from the environment or a file never shows in an error either. */
static void test_env_password_not_in_errors(void **state)
{
	struct run t;

	(void)state;
	setenv("LDBENCH_PASSWORD", PW, 1);
	assert_int_equal(PARSE(&t, "-e", "bindonly,randombinddn,randombinddnlow=0", "-e", "randombinddnhigh=100", "-D",
	                       "uid=uXXX", "-n", "0"),
	                 LDB_CLI_ERROR);
	assert_null(strstr(t.err, PW));
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "bindonly", "-D", "bad dn"), LDB_CLI_ERROR);
	assert_non_null(strstr(t.err, "invalid DN"));
	assert_null(strstr(t.err, PW));
	done(&t);
	unsetenv("LDBENCH_PASSWORD");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_defaults, setup),
		cmocka_unit_test_setup(test_every_flag, setup),
		cmocka_unit_test_setup(test_quiet_verbose_scopes, setup),
		cmocka_unit_test_setup(test_url_and_tls, setup),
		cmocka_unit_test_setup(test_exec_keywords, setup),
		cmocka_unit_test_setup(test_bind_modes, setup),
		cmocka_unit_test_setup(test_binddn_file, setup),
		cmocka_unit_test_setup(test_password_sources, setup),
		cmocka_unit_test_setup(test_cmdline_masks_password, setup),
		cmocka_unit_test_setup(test_progname, setup),
		cmocka_unit_test_setup(test_help_version, setup),
		cmocka_unit_test(test_usage_lists_everything),
		cmocka_unit_test(test_long_numbers),
		cmocka_unit_test(test_version_line),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test_setup(test_config_print, setup),
		cmocka_unit_test(test_exit_texts_and_op_names),
		cmocka_unit_test_setup(test_bad_input, setup),
		cmocka_unit_test_setup(test_bad_binddn_files, setup),
		cmocka_unit_test_setup(test_bad_password_files, setup),
		cmocka_unit_test_setup(test_missing_input_files, setup),
		cmocka_unit_test_setup(test_env_password_not_in_errors, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
