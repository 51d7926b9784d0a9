/* ldbench-json-speed: what reading ldbench's JSON records costs, per record,
 * with the reader of src/report/json.h and with the two JSON libraries Debian
 * packages (json-c 0.16 and jansson 2.14; each is left out when its -dev
 * package is missing).
 *
 *   ldbench-json-speed RECORDS MB
 *
 * RECORDS: a records file (--json of a run: header, samples, summary).  Its
 * lines are repeated in memory until they hold MB megabytes, then each reader
 * parses every line into its tree, reads the summary's ops.search.completed
 * (a 64-bit count) and frees the tree.  One line per reader:
 *   "READER records N bytes B cpu_s C ns_per_record R mb_per_s M"
 * and, when jansson refused records (a header's seed of 2^63 or more is "too
 * big" for its long long integers), "jansson  refused K of N records: WHY":
 * its pass goes on past them, its time per record counting them too.
 * CPU time of the process (CLOCK_PROCESS_CPUTIME_ID, one thread), not wall
 * time: the figure stays steady on a shared machine.  The best of 3 passes.
 * Built on request: cmake --build build --target ldbench-json-speed */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/json.h"

#ifdef LDB_HAVE_JSONC
#include <json-c/json.h>
#endif
#include "json_speed.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int load(const char *path, size_t want, struct lines *l)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, **seed = NULL;
	size_t cap = 0, nseed = 0;
	ssize_t n;
	if (f == NULL)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		seed = realloc(seed, (nseed + 1) * sizeof *seed);
		seed[nseed++] = strdup(line);
	}
	free(line);
	fclose(f);
	if (nseed == 0)
		return -1;
	for (size_t i = 0; l->bytes < want; i = (i + 1) % nseed) {
		l->s = realloc(l->s, (l->count + 1) * sizeof *l->s);
		l->n = realloc(l->n, (l->count + 1) * sizeof *l->n);
		l->s[l->count] = strdup(seed[i]);
		l->n[l->count] = strlen(seed[i]);
		l->bytes += l->n[l->count] + 1;
		l->count++;
	}
	for (size_t i = 0; i < nseed; i++)
		free(seed[i]);
	free(seed);
	return 0;
}

/* One pass of a reader over every line: parse, read one count, free.  @return
 * the sum of the counts read (so that nothing is optimised away), or UINT64_MAX
 * when a line did not parse. */
typedef uint64_t (*pass_fn)(const struct lines *l);

static uint64_t pass_own(const struct lines *l)
{
	uint64_t sum = 0, v;
	char err[160];
	for (size_t i = 0; i < l->count; i++) {
		struct ldb_json *j = ldb_json_parse(l->s[i], l->n[i], err, sizeof err);
		if (j == NULL)
			return UINT64_MAX;
		if (ldb_json_u64(ldb_json_path(j, "ops.search.completed"), &v) == 0)
			sum += v;
		ldb_json_free(j);
	}
	return sum;
}

#ifdef LDB_HAVE_JSONC
static uint64_t pass_jsonc(const struct lines *l)
{
	uint64_t sum = 0;
	struct json_tokener *tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	for (size_t i = 0; i < l->count; i++) {
		json_tokener_reset(tok);
		json_object *j = json_tokener_parse_ex(tok, l->s[i], (int)l->n[i] + 1); /* the NUL ends a number */
		json_object *ops, *k, *c;
		if (j == NULL)
			return UINT64_MAX;
		if (json_object_object_get_ex(j, "ops", &ops) && json_object_object_get_ex(ops, "search", &k) &&
		    json_object_object_get_ex(k, "completed", &c))
			sum += json_object_get_uint64(c);
		json_object_put(j);
	}
	json_tokener_free(tok);
	return sum;
}
#endif

#ifdef LDB_HAVE_JANSSON
static size_t jansson_refused; /* over the 3 passes */
static char jansson_why[200];

/* jansson's pass; the records it refuses are counted and left out of its time. */
static uint64_t pass_jansson(const struct lines *l)
{
	size_t n = 0;
	uint64_t sum = ldb_bench_pass_jansson(l, &n, jansson_why, sizeof jansson_why);
	jansson_refused += n;
	return sum;
}
#endif

static void measure(const char *name, pass_fn fn, const struct lines *l)
{
	double best = 0;
	uint64_t sum = 0;
	for (int r = 0; r < 3; r++) {
		double t0 = cpu_s();
		sum = fn(l);
		double t = cpu_s() - t0;
		if (r == 0 || t < best)
			best = t;
	}
	if (sum == UINT64_MAX) {
		printf("%s: a record did not parse\n", name);
		return;
	}
	printf("%-8s records %zu bytes %zu cpu_s %.3f ns_per_record %.0f mb_per_s %.1f (counts read %" PRIu64 ")\n",
	       name, l->count, l->bytes, best, best * 1e9 / (double)l->count, (double)l->bytes / 1e6 / best, sum);
}

int main(int argc, char **argv)
{
	struct lines l = { 0 };
	if (argc != 3 || load(argv[1], (size_t)strtoull(argv[2], NULL, 10) * 1000000, &l) != 0) {
		fprintf(stderr, "usage: ldbench-json-speed RECORDS MB (RECORDS: a non-empty records file)\n");
		return 2;
	}
	measure("ldbench", pass_own, &l);
#ifdef LDB_HAVE_JSONC
	measure("json-c", pass_jsonc, &l);
#endif
#ifdef LDB_HAVE_JANSSON
	measure("jansson", pass_jansson, &l);
	if (jansson_refused > 0)
		printf("jansson  refused %zu of %zu records: %s\n", jansson_refused / 3, l.count, jansson_why);
#endif
	for (size_t i = 0; i < l.count; i++)
		free(l.s[i]);
	free(l.s);
	free(l.n);
	return 0;
}
