/* libFuzzer target: the server log reader (src/logs/slog.h).
 *
 * The input is a log in memory (copied to a heap block of exactly its size,
 * so that ASan sees any read past it), read twice to its end: with the
 * default line limit and with a 64-byte one (the too-long path).  Aborts
 * when a string of an event lies outside the event's line, when a line is
 * yielded without an event kind, when the statistics do not count every
 * event once, or when the reader fails on memory it was given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/slog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void within(struct ldb_slog_str s, struct ldb_slog_str line)
{
	if (s.p && (s.p < line.p || s.p + s.n > line.p + line.n))
		abort();
}

static void check(const struct ldb_slog_event *ev)
{
	if (ev->kind < LDB_SLOG_OPEN || ev->kind > LDB_SLOG_SKIP || !ev->text.p)
		abort();
	if (ev->kind == LDB_SLOG_SKIP && (ev->skip <= LDB_SLOG_SKIP_NONE || ev->skip >= LDB_SLOG_NSKIPS))
		abort();
	if ((ev->kind == LDB_SLOG_REQUEST || ev->kind == LDB_SLOG_MORE) &&
	    (ev->type <= LDB_SLOG_OP_NONE || ev->type >= LDB_SLOG_NOPTYPES))
		abort();
	const struct ldb_slog_str *f[] = { &ev->addr,        &ev->keyword, &ev->dn,   &ev->base,  &ev->filter,
		                           &ev->attrs,       &ev->method,  &ev->mech, &ev->attr,  &ev->newrdn,
		                           &ev->newsuperior, &ev->oid,     &ev->name, &ev->reason };
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		within(*f[i], ev->text);
}

static void read_all(const char *buf, size_t size, size_t max_line)
{
	struct ldb_slog_opts o = { .max_line = max_line, .year = 2026 };
	struct ldb_slog *r = ldb_slog_open_mem(buf, size, "fuzz", &o);
	if (!r)
		abort();
	struct ldb_slog_event ev;
	uint64_t n = 0;
	int got;
	while ((got = ldb_slog_next(r, &ev)) > 0) {
		check(&ev);
		n++;
	}
	if (got < 0 || ldb_slog_stats(r)->lines != n)
		abort();
	ldb_slog_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	read_all(buf, size, 0);
	read_all(buf, size, 64);
	free(buf);
	return 0;
}
