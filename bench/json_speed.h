/* bench/json_speed.c's records in memory, and its jansson pass (a file of its
 * own: jansson's and json-c's headers declare the same names). */
#ifndef LDBENCH_BENCH_JSON_SPEED_H
#define LDBENCH_BENCH_JSON_SPEED_H

#include <stddef.h>
#include <stdint.h>

struct lines {
	char **s;
	size_t *n;
	size_t count, bytes;
};

/* Parse every line with jansson, read ops.search.completed, free: the sum of
 * the counts; *refused the lines jansson refused, why the first one's reason. */
uint64_t ldb_bench_pass_jansson(const struct lines *l, size_t *refused, char *why, size_t cap);

#endif
