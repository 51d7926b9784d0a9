/* vpattern: UnboundID's value patterns.  Every construct rendered with a
 * seeded generator: literal brackets, random and sequential ranges (steps,
 * descending, wrap-around, formats, partitioned across clients), Zipf
 * frequencies against the exact law, random strings, value files (random,
 * sequential, streamed, sliced across clients), UUIDs, timestamps on a fixed
 * clock, back-references, --seed reproducibility, the length bound, every
 * compile error's one line, and the points of a pattern's ranges the
 * pre-flight check searches. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "values/rng.h"
#include "values/vpattern.h"

static char dir[64];
static char out[1 << 17];

static int group_setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_vpattern.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write text to dir/name; @return the path (a ring of 8 static buffers). */
static const char *put_file(const char *name, const char *text)
{
	static char paths[8][256];
	static int k;
	char *p = paths[k++ % 8];
	FILE *f;

	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* A compiled pattern with one client's state and generator. */
struct vp {
	struct ldb_vp *p;
	struct ldb_vp_state *st;
	struct ldb_rng rng;
};

static void open_vp(struct vp *v, const char *text, unsigned client, unsigned n, uint64_t seed)
{
	char err[512] = "";

	if (ldb_vp_compile(&v->p, text, err, sizeof(err)) != 0)
		fail_msg("'%s' did not compile: %s", text, err);
	assert_int_equal(ldb_vp_state_new(v->p, client, n, &v->st, err, sizeof(err)), 0);
	ldb_rng_seed(&v->rng, seed, client);
}

static void close_vp(struct vp *v)
{
	ldb_vp_state_free(v->st);
	ldb_vp_free(v->p);
}

/* The next value, NUL-terminated in out; checks the length bound. */
static const char *next(struct vp *v)
{
	size_t n = ldb_vp_render(v->p, v->st, &v->rng, out, ldb_vp_max_len(v->p));

	assert_true(n <= ldb_vp_max_len(v->p));
	out[n] = '\0';
	return out;
}

/* The values of one pattern, one client of n, in order, against want[]. */
static void expect_seq(const char *text, unsigned client, unsigned n, const char *const *want, size_t count)
{
	struct vp v;

	open_vp(&v, text, client, n, 1);
	for (size_t i = 0; i < count; i++)
		assert_string_equal(next(&v), want[i]);
	close_vp(&v);
}

#define EXPECT(text, ...)                                               \
	do {                                                            \
		static const char *const w_[] = { __VA_ARGS__ };        \
		expect_seq(text, 0, 1, w_, sizeof(w_) / sizeof(w_[0])); \
	} while (0)

static void test_literal(void **state)
{
	(void)state;
	EXPECT("dc=example,dc=com", "dc=example,dc=com");
	EXPECT("a[[b]]c[[[[", "a[b]c[[");
	EXPECT("", "");
	assert_false(ldb_vp_has_brackets("uid=userXXX"));
	assert_false(ldb_vp_has_brackets("a[[b]]"));
	assert_true(ldb_vp_has_brackets("(uid=user.[1-1000000])"));
	assert_true(ldb_vp_has_brackets("[[[1:2]"));
}

static void test_sequential(void **state)
{
	(void)state;
	EXPECT("[1:5]", "1", "2", "3", "4", "5", "1", "2");
	EXPECT("u[1:10x3]", "u1", "u4", "u7", "u10", "u1");
	EXPECT("[1:10x4]", "1", "5", "9", "1", "5");
	EXPECT("[5:1]", "5", "4", "3", "2", "1", "5");
	EXPECT("[10:1x4]", "10", "6", "2", "10");
	EXPECT("[0:1000x5%0000]", "0000", "0005", "0010", "0015");
	EXPECT("[1:3%00]", "01", "02", "03", "01");
	EXPECT("[-2:1]", "-2", "-1", "0", "1", "-2");
	EXPECT("[-1:-3%00]", "-01", "-02", "-03", "-01");
	EXPECT("[7:7]", "7", "7");
	EXPECT("[1:5x10]", "1", "1"); /* a step past the end wraps at once */
	EXPECT("[9223372036854775806:9223372036854775807]", "9223372036854775806", "9223372036854775807",
	       "9223372036854775806");
}

/* Client i of n takes positions i, i+n, ... (mod the length). */
static void test_sequential_partitioned(void **state)
{
	(void)state;
	static const char *const c0[] = { "1", "4", "7", "10", "3", "6", "9", "2", "5", "8", "1" };
	static const char *const c1[] = { "2", "5", "8", "1", "4" };
	static const char *const c2[] = { "3", "6", "9", "2" };
	expect_seq("[1:10]", 0, 3, c0, 11);
	expect_seq("[1:10]", 1, 3, c1, 5);
	expect_seq("[1:10]", 2, 3, c2, 4);
	/* descending with a step, two clients: 20 16 12 8 4 | 18 14 10 6 2 */
	static const char *const d0[] = { "20", "16", "12", "8", "4", "20" };
	static const char *const d1[] = { "18", "14", "10", "6", "2", "18" };
	expect_seq("[20:1x2]", 0, 2, d0, 6);
	expect_seq("[20:1x2]", 1, 2, d1, 6);
	/* more clients than values: client 5 of 8 over 3 values starts at 5 mod 3
	 * and steps 8 mod 3 */
	static const char *const m5[] = { "3", "2", "1", "3" };
	expect_seq("[1:3]", 5, 8, m5, 4);
}

static void test_random_range(void **state)
{
	struct vp v;
	int lo = 0, hi = 0;

	(void)state;
	open_vp(&v, "uid=user.[1-1000]", 0, 1, 42);
	for (int i = 0; i < 20000; i++) {
		const char *s = next(&v);

		assert_memory_equal(s, "uid=user.", 9);
		long x = strtol(s + 9, NULL, 10);

		assert_true(x >= 1 && x <= 1000);
		lo += x <= 10;
		hi += x >= 991;
	}
	assert_true(lo > 100 && hi > 100); /* 200 expected at each end */
	close_vp(&v);

	open_vp(&v, "[1-1000%00000]", 0, 1, 42);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(strlen(next(&v)), 5);
	assert_int_equal(ldb_vp_max_len(v.p), 5);
	close_vp(&v);

	open_vp(&v, "[-10--5]", 0, 1, 7);
	for (int i = 0; i < 1000; i++) {
		long x = strtol(next(&v), NULL, 10);

		assert_true(x >= -10 && x <= -5);
	}
	assert_int_equal(ldb_vp_max_len(v.p), 3);
	close_vp(&v);
	EXPECT("[5-5%000]", "005");
}

/* P(k) = k^-s / sum_j j^-s: the counts of ranks 1, 2, 3, 10, 100 within six
 * standard deviations (plus one) of the law's expectation. */
static void check_zipf(uint64_t n, double s, int draws)
{
	struct ldb_zipf z;
	struct ldb_rng r;
	static uint32_t count[1001];
	double norm = 0;
	static const uint64_t ranks[] = { 1, 2, 3, 10, 100 };

	assert_int_equal(ldb_zipf_init(&z, n, s), 0);
	ldb_rng_seed(&r, 20240601, 0);
	memset(count, 0, sizeof(count));
	for (int i = 0; i < draws; i++) {
		uint64_t k = ldb_zipf_draw(&z, &r);

		assert_true(k >= 1 && k <= n);
		count[k]++;
	}
	for (uint64_t k = 1; k <= n; k++)
		norm += pow((double)k, -s);
	for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		double p = pow((double)ranks[i], -s) / norm, want = p * draws, sd = sqrt(draws * p * (1 - p));

		if (fabs(count[ranks[i]] - want) > 6 * sd + 1)
			fail_msg("zipf n=%llu s=%g: rank %llu drawn %u times, expected %.1f (sd %.1f)",
			         (unsigned long long)n, s, (unsigned long long)ranks[i], count[ranks[i]], want, sd);
	}
}

static void test_zipf(void **state)
{
	struct ldb_zipf z;
	struct ldb_rng r;
	struct vp v;
	int top = 0;

	(void)state;
	check_zipf(1000, 0.99, 200000);
	check_zipf(1000, 1.0, 200000);
	check_zipf(1000, 2.0, 200000);
	check_zipf(1000, 0.5, 200000);
	assert_int_equal(ldb_zipf_init(&z, 1, 1.2), 0);
	ldb_rng_seed(&r, 1, 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(ldb_zipf_draw(&z, &r), 1);
	assert_int_equal(ldb_zipf_init(&z, 0, 1), -1);
	assert_int_equal(ldb_zipf_init(&z, 10, 0), -1);
	assert_int_equal(ldb_zipf_init(&z, 10, NAN), -1);
	assert_int_equal(ldb_zipf_init(&z, (1ULL << 53) + 1, 1), -1);
	/* in a pattern: the first bound is the hottest, values within the range */
	open_vp(&v, "[zipf:100-1:1.5%000]", 0, 1, 3);
	for (int i = 0; i < 10000; i++) {
		const char *s = next(&v);
		long x = strtol(s, NULL, 10);

		assert_int_equal(strlen(s), 3);
		assert_true(x >= 1 && x <= 100);
		top += x == 100;
	}
	assert_true(top > 3000 && top < 4500); /* 1/zeta(1.5) truncated: 0.39 */
	close_vp(&v);
	open_vp(&v, "[zipf:1-1000000:0.99]", 0, 1, 3);
	for (int i = 0; i < 10000; i++) {
		long x = strtol(next(&v), NULL, 10);

		assert_true(x >= 1 && x <= 1000000);
	}
	close_vp(&v);
}

static void test_random_string(void **state)
{
	struct vp v;
	int seen[3] = { 0 };

	(void)state;
	open_vp(&v, "[random:8:abc]", 0, 1, 5);
	for (int i = 0; i < 1000; i++) {
		const char *s = next(&v);

		assert_int_equal(strlen(s), 8);
		for (int j = 0; j < 8; j++) {
			assert_true(s[j] >= 'a' && s[j] <= 'c');
			seen[s[j] - 'a']++;
		}
	}
	assert_true(seen[0] > 2000 && seen[1] > 2000 && seen[2] > 2000);
	close_vp(&v);
	open_vp(&v, "x[random:17]y", 0, 1, 5);
	for (int i = 0; i < 1000; i++) {
		const char *s = next(&v);

		assert_int_equal(strlen(s), 19);
		assert_true(s[0] == 'x' && s[18] == 'y');
		for (int j = 1; j < 18; j++)
			assert_true(s[j] >= 'a' && s[j] <= 'z');
	}
	close_vp(&v);
	open_vp(&v, "[random:4:a:b]", 0, 1, 5); /* the alphabet is all after the second ':' */
	for (int i = 0; i < 100; i++)
		assert_int_equal(strspn(next(&v), "a:b"), 4);
	close_vp(&v);
}

static void test_files(void **state)
{
	char text[600];
	struct vp v;
	int seen[3] = { 0 };

	(void)state;
	const char *f = put_file("three", "alpha\r\n\nbeta\ngamma");

	snprintf(text, sizeof(text), "cn=[file:%s]", f);
	open_vp(&v, text, 0, 1, 9);
	assert_int_equal(ldb_vp_max_len(v.p), 3 + 5);
	for (int i = 0; i < 300; i++) {
		const char *s = next(&v);

		if (strcmp(s, "cn=alpha") == 0)
			seen[0]++;
		else if (strcmp(s, "cn=beta") == 0)
			seen[1]++;
		else if (strcmp(s, "cn=gamma") == 0)
			seen[2]++;
		else
			fail_msg("unexpected value '%s'", s);
	}
	assert_true(seen[0] > 50 && seen[1] > 50 && seen[2] > 50);
	close_vp(&v);
	snprintf(text, sizeof(text), "[sequentialfile://%s]", f); /* UnboundID's file:///path */
	static const char *const all[] = { "alpha", "beta", "gamma", "alpha", "beta" };
	expect_seq(text, 0, 1, all, 5);
	static const char *const c1[] = { "beta", "alpha", "gamma", "beta" };
	expect_seq(text, 1, 2, c1, 4);
	snprintf(text, sizeof(text), "[randomfile:%s]", f);
	open_vp(&v, text, 0, 1, 9);
	assert_true(strstr("alpha beta gamma", next(&v)) != NULL);
	close_vp(&v);
}

/* A streamed file of `lines` lines "lineN": each client's values are its
 * slice in order, wrapped; together the first laps hold every line once. */
static void check_stream(const char *path, int lines, unsigned nclients)
{
	char text[300];
	static unsigned char hit[40000];

	memset(hit, 0, sizeof(hit));
	snprintf(text, sizeof(text), "[streamfile:%s]", path);
	for (unsigned c = 0; c < nclients; c++) {
		struct vp v;
		int first = -1, prev = -1;

		open_vp(&v, text, c, nclients, 1);
		for (int i = 0; i < lines + 5; i++) {
			const char *s = next(&v);
			int k;

			assert_int_equal(sscanf(s, "line%d", &k), 1);
			if (first < 0)
				first = k;
			else if (k == first)
				break; /* wrapped to the slice's start */
			else
				assert_int_equal(k, prev + 1);
			hit[k]++;
			prev = k;
			if (i % 7 == 0)
				assert_int_equal(ldb_vp_prefetch(v.p, v.st), 0);
		}
		assert_int_equal(ldb_vp_stream_misses(v.st), 0);
		close_vp(&v);
	}
	for (int k = 0; k < lines; k++)
		if (hit[k] != 1)
			fail_msg("line%d streamed %u times by %u clients", k, hit[k], nclients);
}

static void test_streamfile(void **state)
{
	static char big[40000 * 12];
	size_t o = 0;

	(void)state;
	for (int i = 0; i < 30000; i++)
		o += (size_t)sprintf(big + o, "line%d\n", i);
	big[o - 1] = '\0'; /* the last line without its newline */
	const char *f = put_file("stream", big);

	check_stream(f, 30000, 1);
	check_stream(f, 30000, 4);
	check_stream(f, 30000, 7);
	f = put_file("small", "line0\nline1\nline2\n");
	check_stream(f, 3, 1);
	check_stream(f, 3, 3);
	/* more clients than lines: each streams the whole file, still in order */
	struct vp v;
	char text[300];

	snprintf(text, sizeof(text), "[streamfile:%s]-[ref:1]", f);
	open_vp(&v, text, 4, 5, 1);
	assert_string_equal(next(&v), "line0-line0");
	assert_string_equal(next(&v), "line1-line1");
	close_vp(&v);
}

static void test_uuid(void **state)
{
	struct vp v;
	char prev[37] = "";

	(void)state;
	open_vp(&v, "[uuid]", 0, 1, 11);
	assert_int_equal(ldb_vp_max_len(v.p), 36);
	for (int i = 0; i < 1000; i++) {
		const char *s = next(&v);

		assert_int_equal(strlen(s), 36);
		for (int j = 0; j < 36; j++) {
			if (j == 8 || j == 13 || j == 18 || j == 23)
				assert_int_equal(s[j], '-');
			else
				assert_non_null(strchr("0123456789abcdef", s[j]));
		}
		assert_int_equal(s[14], '4');           /* version 4 */
		assert_non_null(strchr("89ab", s[19])); /* variant 10xx */
		assert_true(strcmp(s, prev) != 0);
		strcpy(prev, s);
	}
	close_vp(&v);
}

static void test_timestamp(void **state)
{
	struct vp v;
	const int64_t t = 1704164645678; /* 2024-01-02 03:04:05.678 UTC */

	(void)state;
	static const struct {
		const char *pat, *want;
	} cases[] = {
		{ "[timestamp]", "20240102030405.678Z" },
		{ "[timestamp:format=milliseconds]", "1704164645678" },
		{ "[timestamp:format=seconds]", "1704164645" },
		{ "[timestamp:format=yyyy-MM-dd'T'HH:mm:ss.SSSX]", "2024-01-02T03:04:05.678Z" },
		{ "[timestamp:format=yyMd H:m:s Z]", "2412 3:4:5 +0000" },
		{ "[timestamp:format=yyyyMMddHHmmss'Z''']", "20240102030405Z'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		open_vp(&v, cases[i].pat, 0, 1, 1);
		ldb_vp_state_fix_time(v.st, t);
		assert_string_equal(next(&v), cases[i].want);
		assert_true(strlen(cases[i].want) <= ldb_vp_max_len(v.p));
		close_vp(&v);
	}
	/* leap day, and a time before the epoch */
	open_vp(&v, "[timestamp]", 0, 1, 1);
	ldb_vp_state_fix_time(v.st, 951782400000 + 1); /* 2000-02-29 00:00:00.001 */
	assert_string_equal(next(&v), "20000229000000.001Z");
	ldb_vp_state_fix_time(v.st, -1000LL * 86400000 - 1); /* 1000 days before the epoch, less 1 ms */
	assert_string_equal(next(&v), "19670406235959.999Z");
	ldb_vp_state_fix_time(v.st, INT64_MIN + 1); /* clamped to the years 0000-9999 */
	assert_string_equal(next(&v), "00000101000000.000Z");
	ldb_vp_state_fix_time(v.st, INT64_MAX);
	assert_string_equal(next(&v), "99991231235959.999Z");
	ldb_vp_state_fix_time(v.st, INT64_MIN); /* the clock again */
	const char *s = next(&v);
	assert_int_equal(strlen(s), 19);
	assert_true(strncmp(s, "2024", 4) >= 0 && s[18] == 'Z');
	close_vp(&v);
	/* a random time between two generalized times */
	open_vp(&v, "[timestamp:min=20180101000000Z:max=20181231235959.999Z:format=milliseconds]", 0, 1, 1);
	for (int i = 0; i < 1000; i++) {
		long long ms = strtoll(next(&v), NULL, 10);

		assert_true(ms >= 1514764800000LL && ms <= 1546300799999LL);
	}
	close_vp(&v);
	open_vp(&v, "[timestamp:min=2018010100Z:max=201801011200Z]", 0, 1, 1);
	for (int i = 0; i < 100; i++)
		assert_int_equal(strncmp(next(&v), "20180101", 8), 0);
	close_vp(&v);
}

static void test_backref(void **state)
{
	struct vp v;

	(void)state;
	open_vp(&v, "uid=user.[1-1000000],ou=org[ref:1],dc=[[x]]", 0, 1, 13);
	for (int i = 0; i < 1000; i++) {
		long a, b;
		char tail[16];

		assert_int_equal(sscanf(next(&v), "uid=user.%ld,ou=org%ld,dc=%15s", &a, &b, tail), 3);
		assert_int_equal(a, b);
		assert_string_equal(tail, "[x]");
	}
	close_vp(&v);
	/* a ref counts as a bracket; a ref to a ref */
	open_vp(&v, "[uuid] [ref:1] [random:5] [ref:2] [ref:3] [1:3]", 0, 1, 13);
	for (int i = 0; i < 10; i++) {
		char u1[40], u2[40], u3[40], r1[8], r2[8];
		int n;

		assert_int_equal(sscanf(next(&v), "%39s %39s %7s %39s %7s %d", u1, u2, r1, u3, r2, &n), 6);
		assert_string_equal(u1, u2);
		assert_string_equal(u1, u3);
		assert_string_equal(r1, r2);
		assert_int_equal(n, i % 3 + 1);
	}
	close_vp(&v);
}

static const char *all_kinds(void)
{
	static char text[600];
	const char *f = put_file("kinds", "one\ntwo\nthree\n");

	snprintf(text, sizeof(text),
	         "[1-1000000] [1:9] [zipf:1-99:1.1] [random:12:xyz] [file:%s] [sequentialfile:%s] [uuid] "
	         "[timestamp:min=20200101000000Z:max=20300101000000Z] [ref:1]",
	         f, f);
	return text;
}

static void test_seed(void **state)
{
	struct vp a, b, c;
	const char *text = all_kinds();
	char va[600];
	int differ = 0;

	(void)state;
	open_vp(&a, text, 3, 8, 777);
	open_vp(&b, text, 3, 8, 777);
	open_vp(&c, text, 3, 8, 778);
	for (int i = 0; i < 200; i++) {
		strcpy(va, next(&a));
		assert_string_equal(va, next(&b));
		differ += strcmp(va, next(&c)) != 0;
	}
	assert_int_equal(differ, 200);
	close_vp(&a);
	close_vp(&b);
	close_vp(&c);
}

static void test_bounds(void **state)
{
	struct vp v;
	static const struct {
		const char *pat;
		size_t max;
	} cases[] = {
		{ "uid=[1:99]", 6 }, { "[-5-10]", 2 },      { "[1-2%0000]", 4 },
		{ "[uuid]", 36 },    { "[random:9]", 9 },   { "[timestamp]", 19 },
		{ "a[[b", 3 },       { "[1:9][ref:1]", 2 }, { "[-9223372036854775808-9223372036854775807]", 20 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		open_vp(&v, cases[i].pat, 0, 1, 1);
		assert_int_equal(ldb_vp_max_len(v.p), cases[i].max);
		close_vp(&v);
	}
	open_vp(&v, all_kinds(), 0, 1, 1);
	size_t max = ldb_vp_max_len(v.p);
	assert_int_equal(ldb_vp_brackets(v.p), 9);
	assert_int_equal(ldb_vp_render(v.p, v.st, &v.rng, out, max - 1), 0); /* too small: nothing */
	for (int i = 0; i < 1000; i++)
		next(&v);
	close_vp(&v);
}

static void expect_error(const char *text, const char *col, const char *want)
{
	struct ldb_vp *p = (struct ldb_vp *)1;
	char err[512] = "";

	if (ldb_vp_compile(&p, text, err, sizeof(err)) == 0)
		fail_msg("'%s' compiled", text);
	assert_null(p);
	if (strstr(err, want) == NULL || strstr(err, col) == NULL || strchr(err, '\n') != NULL)
		fail_msg("'%s': got \"%s\", want \"%s\" and \"%s\"", text, err, col, want);
}

static void test_errors(void **state)
{
	char text[300], many[400] = "";

	(void)state;
	expect_error("(uid=[1-)", "column 6:", "unterminated bracket");
	expect_error("a]b", "column 2:", "unmatched ']'");
	expect_error("x[foo]", "column 2:", "unknown pattern '[foo]'");
	expect_error("[http://h/x]", "column 1:", "not supported");
	expect_error("[5-x]", "column 4:", "bad range");
	expect_error("[5]", "column 3:", "bad range");
	expect_error("[5/6]", "column 3:", "bad range");
	expect_error("[1-99999999999999999999]", "column 4:", "bad range");
	expect_error("[1-5x2]", "column 5:", "bad range");
	expect_error("[1:5x0]", "column 5:", "bad range");
	expect_error("[1:5x-1]", "column 5:", "bad range");
	expect_error("[1:5y]", "column 5:", "bad range");
	expect_error("[1-5%abc]", "column 5:", "bad format");
	expect_error("[1-5%]", "column 5:", "bad format");
	expect_error("[zipf:1-10:0]", "column 1:", "bad range");
	expect_error("[zipf:1-10:-1]", "column 1:", "bad range");
	expect_error("[zipf:1-10:x]", "column 1:", "bad range");
	expect_error("[zipf:1-10]", "column 1:", "bad range");
	expect_error("[zipf:1:10:1]", "column 8:", "bad range");
	expect_error("[random:0]", "column 1:", "bad random string");
	expect_error("[random:3:]", "column 1:", "bad random string");
	expect_error("[random:x]", "column 1:", "bad random string");
	expect_error("[file:/nonexistent/vp]", "column 1:", "No such file or directory");
	expect_error("a[sequentialfile:/nonexistent/vp]", "column 2:", "No such file or directory");
	expect_error("[streamfile:/nonexistent/vp]", "column 1:", "No such file or directory");
	expect_error("[file:]", "column 1:", "missing file name");
	expect_error("[file://host/x]", "column 1:", "only local files");
	snprintf(text, sizeof(text), "[file:%s]", put_file("empty", "\n\r\n"));
	expect_error(text, "column 1:", "has no line");
	snprintf(text, sizeof(text), "[streamfile:%s]", put_file("empty2", ""));
	expect_error(text, "column 1:", "has no line");
	expect_error("[1-5][ref:2]", "column 6:", "refers to bracket 2, but 1 bracket expression precedes it");
	expect_error("[ref:1]", "column 1:", "refers to bracket 1, but 0 bracket expressions precede it");
	expect_error("[1-5][ref:0]", "column 6:", "bad reference");
	expect_error("[1-5][ref:x]", "column 6:", "bad reference");
	expect_error("[timestamp:format=yyyyQ]", "column 1:", "bad format");
	expect_error("[timestamp:format=MMM]", "column 1:", "bad format");
	expect_error("[timestamp:format='x]", "column 1:", "bad format");
	expect_error("[timestamp:format=]", "column 1:", "bad format");
	expect_error("[timestamp:min=2024Z:max=20250101000000Z]", "column 1:", "bad timestamp");
	expect_error("[timestamp:min=20250101000000Z:max=20240101000000Z]", "column 1:", "bad timestamp");
	expect_error("[timestamp:min=20250101000000Z]", "column 1:", "bad timestamp");
	expect_error("[timestamp:max=20250101000000Z]", "column 1:", "unknown pattern");
	expect_error("[timestampx]", "column 1:", "unknown pattern");
	expect_error("[1:9223372036854775807]x[-9223372036854775808:9223372036854775807]", "column 25:", "bad range");
	for (int i = 0; i <= LDB_VP_MAX_BRACKETS; i++)
		strcat(many, "[uuid]");
	expect_error(many, "column 385:", "more than 64 bracket expressions");
	expect_error("a\nb[1-\n", "column 4:", "unterminated bracket"); /* one line all the same */
	expect_error("[1-5%0\n]", "column 5:", "bad format '%0?'");
}

/* Four clients in four threads share one program: each renders its share of
 * the sequence and its slice of the stream; together, one lap each. */
struct worker {
	const struct ldb_vp *p;
	unsigned client;
	unsigned char seen[1001], line[1000];
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ldb_vp_state *st;
	struct ldb_rng rng;
	char err[256], buf[256];

	if (ldb_vp_state_new(w->p, w->client, 4, &st, err, sizeof(err)) != 0)
		return NULL;
	ldb_rng_seed(&rng, 5, w->client);
	for (int i = 0; i < 250; i++) {
		size_t n = ldb_vp_render(w->p, st, &rng, buf, sizeof(buf) - 1);
		int a, b, c;

		buf[n] = '\0';
		if (sscanf(buf, "%d line%d %d", &a, &b, &c) != 3 || a < 1 || a > 1000 || b < 0 || b > 999 || c < 1 ||
		    c > 9) {
			w->bad++;
		} else {
			w->seen[a]++;
			w->line[b]++;
		}
	}
	ldb_vp_state_free(st);
	return NULL;
}

static void test_threads(void **state)
{
	static char big[1000 * 12];
	size_t o = 0;
	char text[300], err[512];
	struct ldb_vp *p;
	pthread_t t[4];
	static struct worker w[4];

	(void)state;
	for (int i = 0; i < 1000; i++)
		o += (size_t)sprintf(big + o, "line%04d\n", i); /* equal lines: equal slices */
	snprintf(text, sizeof(text), "[1:1000] [streamfile:%s] [1-9]", put_file("shared", big));
	assert_int_equal(ldb_vp_compile(&p, text, err, sizeof(err)), 0);
	for (unsigned i = 0; i < 4; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].p = p;
		w[i].client = i;
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int v = 1; v <= 1000; v++) {
		int n = w[0].seen[v] + w[1].seen[v] + w[2].seen[v] + w[3].seen[v];

		if (n != 1)
			fail_msg("value %d rendered %d times by the four clients", v, n);
		n = w[0].line[v - 1] + w[1].line[v - 1] + w[2].line[v - 1] + w[3].line[v - 1];
		if (n != 1)
			fail_msg("line%d streamed %d times by the four clients", v - 1, n);
	}
	assert_int_equal(w[0].bad + w[1].bad + w[2].bad + w[3].bad, 0);
	ldb_vp_free(p);
}

static void test_state(void **state)
{
	struct ldb_vp *p;
	struct ldb_vp_state *st = (struct ldb_vp_state *)1;
	char err[256];

	(void)state;
	assert_int_equal(ldb_vp_compile(&p, "[1:3]", err, sizeof(err)), 0);
	assert_string_equal(ldb_vp_text(p), "[1:3]");
	assert_int_equal(ldb_vp_state_new(p, 4, 4, &st, err, sizeof(err)), -1);
	assert_null(st);
	assert_non_null(strstr(err, "client 4 of 4"));
	assert_int_equal(ldb_vp_state_new(p, 0, 0, &st, err, sizeof(err)), 0); /* 0 clients: one */
	ldb_vp_state_free(st);
	ldb_vp_free(p);
}

/* The pattern at each of 5 points of its ranges (ldb_vp_render_at), against
 * want[] (NULL: not ranged, nothing rendered). */
static void expect_points(const char *text, const char *const *want)
{
	struct ldb_vp *p;
	char err[256], buf[256];

	if (ldb_vp_compile(&p, text, err, sizeof(err)) != 0)
		fail_msg("'%s' did not compile: %s", text, err);
	assert_int_equal(ldb_vp_ranged(p), want != NULL);
	for (int i = 0; i < 5; i++) {
		size_t n = ldb_vp_render_at(p, i, 5, buf, sizeof(buf) - 1);
		buf[n] = '\0';
		if (want == NULL)
			assert_int_equal(n, 0);
		else
			assert_string_equal(buf, want[i]);
	}
	assert_int_equal(ldb_vp_render_at(p, 5, 5, buf, sizeof(buf)), 0);           /* not a point */
	assert_int_equal(ldb_vp_render_at(p, 0, 5, buf, ldb_vp_max_len(p) - 1), 0); /* too small */
	ldb_vp_free(p);
}

#define POINTS(text, ...)                                         \
	do {                                                      \
		static const char *const w_[5] = { __VA_ARGS__ }; \
		expect_points(text, w_);                          \
	} while (0)

static void test_points(void **state)
{
	(void)state;
	POINTS("(uid=user[1-1000%0000])", "(uid=user0001)", "(uid=user0250)", "(uid=user0500)", "(uid=user0750)",
	       "(uid=user1000)");
	POINTS("u[1:150%00000]", "u00001", "u00038", "u00075", "u00112", "u00150");
	POINTS("[100:1]", "100", "76", "51", "26", "1"); /* from the first bound */
	POINTS("[1:100x10]", "1", "21", "41", "61", "91");
	POINTS("[zipf:1-9:1.2%00]", "01", "03", "05", "07", "09");
	POINTS("a[5-5]b[1:3]-[ref:2]", "a5b1-1", "a5b1-1", "a5b2-2", "a5b2-2", "a5b3-3");
	expect_points("[uuid]", NULL);
	expect_points("x[1-9][random:4]", NULL);
	expect_points("no brackets", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_sequential_partitioned),
		cmocka_unit_test(test_random_range),
		cmocka_unit_test(test_zipf),
		cmocka_unit_test(test_random_string),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_streamfile),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_backref),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_points),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
