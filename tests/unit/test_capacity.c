/* Unit tests for the capacity features' pure parts: --rate-profile's inline specs and
 * UnboundID-style files (src/cli/rate_profile.c), the target at a time, and
 * the client's verdict (src/report/client_figures.c) on crafted figures: a busy thread,
 * a throttled cgroup, lag, a missed target with and without enough requests in
 * flight, and a slow server with an idle client (no verdict). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/rate_profile.h"
#include "conf/config.h"
#include "report/client_figures.h"

static void parse_ok(struct ldb_config *c, const char *arg)
{
	char err[400];
	ldb_config_init(c);
	if (ldb_rate_profile_parse(c, arg, err, sizeof err) != 0)
		fail_msg("'%s' refused: %s", arg, err);
}

static void test_inline(void **state)
{
	(void)state;
	struct ldb_config c;
	parse_ok(&c, "100-2000@10s,2000@1m,500@500ms");
	assert_int_equal(c.nrate_profile, 3);
	assert_false(c.rate_profile_repeat);
	assert_true(ldb_rate_profile_at(&c, 0) == 100);
	assert_true(ldb_rate_profile_at(&c, 5000) == 1050);
	assert_true(ldb_rate_profile_at(&c, 10000) == 2000);
	assert_true(ldb_rate_profile_at(&c, 70100) == 500);
	assert_true(ldb_rate_profile_at(&c, 999999) == 500); /* after the end: the last rate */
	assert_true(ldb_rate_profile_max(&c) == 2000);
	ldb_config_free(&c);
	parse_ok(&c, "200@1s,400@1s,repeat");
	assert_true(c.rate_profile_repeat);
	assert_true(ldb_rate_profile_at(&c, 2500) == 200);
	assert_true(ldb_rate_profile_at(&c, 3500) == 400);
	ldb_config_free(&c);
}

static void test_file(void **state)
{
	(void)state;
	char path[] = "/tmp/ldbench-profile-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "format=rate-and-duration\n"
	                   "default-duration=2s\n"
	                   "repeat=yes\n"
	                   "# a comment\n"
	                   "1000,30s\n"
	                   "2X,1m\n"
	                   "\n"
	                   "500\n";
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	struct ldb_config c;
	parse_ok(&c, path);
	unlink(path);
	assert_int_equal(c.nrate_profile, 3);
	assert_true(c.rate_profile_repeat);
	assert_true(c.rate_profile[1].from == 2000 && c.rate_profile[1].ms == 60000);
	assert_true(c.rate_profile[2].from == 500 && c.rate_profile[2].ms == 2000);
	assert_true(ldb_rate_profile_at(&c, 92000 + 100) == 1000); /* repeated */
	ldb_config_free(&c);
}

static void refused(const char *arg, const char *want)
{
	struct ldb_config c;
	char err[400] = "";
	ldb_config_init(&c);
	if (ldb_rate_profile_parse(&c, arg, err, sizeof err) == 0)
		fail_msg("'%s' accepted", arg);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': '%s' lacks '%s'", arg, err, want);
	ldb_config_free(&c);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("100@", "expected RATE@DURATION");
	refused("abc@1s", "not a rate");
	refused("100@0s", "a duration above 0");
	refused("0@1s", "every rate is 0");
	refused("/nonexistent/profile", "cannot read the file");
	refused("2X@1s", "not a rate");
}

static struct ldb_client_fig base(void)
{
	struct ldb_client_fig f;
	memset(&f, 0, sizeof f);
	f.have = true;
	f.seconds = 1;
	f.nthreads = 2;
	f.inflight_cap = 8;
	return f;
}

static void verdict(struct ldb_client_fig *f, enum ldb_client_limit want, const char *text)
{
	char line[400];
	ldb_client_judge(f);
	assert_int_equal(f->limit, want);
	ldb_client_verdict(f, line, sizeof line);
	if (text == NULL)
		assert_string_equal(line, "");
	else if (strstr(line, text) == NULL)
		fail_msg("'%s' lacks '%s'", line, text);
}

static void test_verdicts(void **state)
{
	(void)state;
	struct ldb_client_fig f = base();
	f.busy_max = 0.97;
	f.cpu_max = 0.9;
	f.wait_max = 0.07;
	verdict(&f, LDB_LIMIT_BUSY,
	        "I/O thread 0 was busy 97% of the time (90% on a CPU, 7% waiting for one); use "
	        "--io-threads (now 2) or more client hosts.");
	f = base();
	f.have_cgroup = true;
	f.quota_periods = 10;
	f.throttled_periods = 9;
	f.throttled_seconds = 0.8;
	verdict(&f, LDB_LIMIT_THROTTLE, "its cgroup's CPU quota throttled it for 80% of the time (9 of 10 periods)");
	f.throttled_seconds = 0.05; /* a short time, but most periods */
	verdict(&f, LDB_LIMIT_THROTTLE, "throttled it for 5% of the time");
	f.throttled_periods = 1; /* one period of ten, briefly: not the limit */
	verdict(&f, LDB_LIMIT_NONE, NULL);
	f = base();
	f.have_lag = true;
	f.lag_p50_ns = 30000000;
	f.lag_p99_ns = 50000000;
	verdict(&f, LDB_LIMIT_LAG, "its sends fell behind schedule");
	/* a missed target, the server fast, plenty in flight: the client */
	f = base();
	f.rate_target = 10000;
	f.rate = 5000;
	f.server_mean_ns = 100000; /* 8 in flight at 0.1 ms carry 80,000/s */
	verdict(&f, LDB_LIMIT_SENDS, "it sent 5000/s of the 10000/s asked");
	assert_false(f.short_of_inflight);
	/* a slow server (30 ms) and an idle client: no verdict, too few in flight */
	f = base();
	f.rate_target = 1000;
	f.rate = 260;
	f.server_mean_ns = 30e6;
	f.busy_max = 0.05;
	verdict(&f, LDB_LIMIT_NONE, NULL);
	assert_true(f.short_of_inflight);
	/* reached, idle: nothing */
	f = base();
	f.rate_target = 100;
	f.rate = 99;
	f.server_mean_ns = 30e6;
	verdict(&f, LDB_LIMIT_NONE, NULL);
	assert_false(f.short_of_inflight);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_verdicts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
