/* slogstat: the server log reader (src/logs/slog.h) driven from the command
 * line, for the integration tests, the benchmarks and a look at a log.
 *
 *   slogstat [--events] [--year Y] [--utc-offset S] [--max-line N] LOG...
 *
 * Prints "key value" lines: the format, files, lines, bytes, events per kind
 * and request type, skipped lines per reason with their first places
 * (FILE:LINE), the first and last time (ns since the epoch, UTC), and the
 * pairing: requests that expect a result and got one ("paired"), those that
 * did not ("unpaired", first places), results without their request
 * ("orphans"), connections opened and closed.  --events: one line per event
 * first (its kind, conn, op, time and fields).
 * Exit: 0 read, 1 a read error after the start (its line on stderr), 2 usage
 * or a log that cannot be opened (one line on stderr). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/slog.h"

/* Pending requests by (conn, op): open addressing, grown when half full. */
struct pend {
	int64_t conn, op; /* conn -1: empty */
	const char *file;
	uint64_t line;
};

static struct pend *tab;
static size_t cap, used;

static size_t slot(int64_t conn, int64_t op)
{
	uint64_t h = (uint64_t)conn * 0x9e3779b97f4a7c15ULL ^ (uint64_t)op * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ h >> 29) & (cap - 1);
}

static struct pend *find(int64_t conn, int64_t op)
{
	size_t i = slot(conn, op);
	while (tab[i].conn != -1 && (tab[i].conn != conn || tab[i].op != op))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void grow(void)
{
	struct pend *old = tab;
	size_t oldcap = cap;
	cap = cap ? cap * 2 : 1024;
	tab = malloc(cap * sizeof *tab);
	if (!tab) {
		fprintf(stderr, "slogstat: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < cap; i++)
		tab[i].conn = -1;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].conn != -1)
			*find(old[i].conn, old[i].op) = old[i];
	free(old);
}

/* Remove e, re-inserting the run after it (linear probing). */
static void del(struct pend *e)
{
	size_t i = (size_t)(e - tab);
	tab[i].conn = -1;
	used--;
	for (i = (i + 1) & (cap - 1); tab[i].conn != -1; i = (i + 1) & (cap - 1)) {
		struct pend p = tab[i];
		tab[i].conn = -1;
		*find(p.conn, p.op) = p;
	}
}

static void put_str(const char *k, struct ldb_slog_str s)
{
	if (s.p)
		printf(" %s=\"%.*s\"", k, (int)s.n, s.p);
}

static void put_num(const char *k, int64_t v)
{
	if (v >= 0)
		printf(" %s=%" PRId64, k, v);
}

static void print_event(const struct ldb_slog_event *ev)
{
	static const char *const kinds[] = { "?", "open", "request", "more", "result", "close", "skip" };
	printf("event %s %s:%" PRIu64 " t=%" PRId64 " conn=%" PRId64 " op=%" PRId64, kinds[ev->kind], ev->file,
	       ev->line, ev->time_ns, ev->conn, ev->op);
	if (ev->kind == LDB_SLOG_REQUEST || ev->kind == LDB_SLOG_MORE)
		printf(" type=%s", ldb_slog_optype_name(ev->type));
	if (ev->kind == LDB_SLOG_SKIP)
		printf(" why=%s", ldb_slog_skip_name(ev->skip));
	put_str("addr", ev->addr);
	if (ev->port >= 0)
		printf(" port=%d", ev->port);
	put_str("dn", ev->dn), put_str("base", ev->base), put_str("filter", ev->filter), put_str("attrs", ev->attrs);
	put_num("scope", ev->scope), put_num("deref", ev->deref);
	put_str("method", ev->method), put_str("mech", ev->mech), put_str("attr", ev->attr);
	put_str("newrdn", ev->newrdn), put_str("newsuperior", ev->newsuperior), put_str("oid", ev->oid);
	put_num("msgid", ev->abandon_msgid), put_num("targetop", ev->abandon_op);
	put_num("tag", ev->tag), put_num("err", ev->err), put_num("nentries", ev->nentries);
	put_num("etime", ev->etime_ns), put_num("wtime", ev->wtime_ns), put_num("optime", ev->optime_ns);
	put_num("qtime", ev->qtime_ns);
	if (ev->notes)
		printf(" notes=%u", ev->notes);
	put_str("reason", ev->reason);
	printf("\n");
}

struct tally {
	uint64_t paired, orphans, dups, unpaired;
	struct ldb_slog_place first_unpaired[5];
};

static void pair(struct tally *t, const struct ldb_slog_event *ev)
{
	if (ev->kind == LDB_SLOG_REQUEST && ev->type != LDB_SLOG_OP_ABANDON && ev->type != LDB_SLOG_OP_UNBIND) {
		if (used * 2 >= cap)
			grow();
		struct pend *e = find(ev->conn, ev->op);
		if (e->conn != -1) {
			t->dups++;
			return;
		}
		*e = (struct pend){ .conn = ev->conn, .op = ev->op, .file = ev->file, .line = ev->line };
		used++;
	} else if (ev->kind == LDB_SLOG_RESULT) {
		struct pend *e = cap ? find(ev->conn, ev->op) : NULL;
		if (!e || e->conn == -1) {
			t->orphans++;
			return;
		}
		t->paired++;
		del(e);
	}
}

static void print_places(const char *what, const struct ldb_slog_place *pl, uint64_t n)
{
	printf("%s %" PRIu64, what, n);
	for (uint64_t i = 0; i < n && i < LDB_SLOG_FIRST_LINES; i++)
		printf("%s%s:%" PRIu64, i ? "," : " ", pl[i].file ? pl[i].file : "?", pl[i].line);
	printf("\n");
}

static void summary(struct ldb_slog *r, struct tally *t)
{
	const struct ldb_slog_stats *st = ldb_slog_stats(r);
	printf("format %s\nfiles %" PRIu64 "\nlines %" PRIu64 "\nbytes %" PRIu64 "\n",
	       ldb_slog_format_name(ldb_slog_format(r)), st->files, st->lines, st->bytes);
	printf("open %" PRIu64 "\nclose %" PRIu64 "\nresult %" PRIu64 "\nmore %" PRIu64 "\n", st->opens, st->closes,
	       st->results, st->mores);
	for (int k = LDB_SLOG_OP_BIND; k < LDB_SLOG_NOPTYPES; k++)
		printf("request %s %" PRIu64 "\n", ldb_slog_optype_name(k), st->requests[k]);
	for (int k = LDB_SLOG_SKIP_KNOWN; k < LDB_SLOG_NSKIPS; k++) {
		char what[64];
		snprintf(what, sizeof what, "skipped %s", ldb_slog_skip_name(k));
		print_places(what, st->first[k], st->skipped[k]);
	}
	printf("first_ns %" PRId64 "\nlast_ns %" PRId64 "\n", st->first_ns, st->last_ns);
	for (size_t i = 0; i < cap; i++)
		if (tab[i].conn != -1) {
			if (t->unpaired < 5)
				t->first_unpaired[t->unpaired] = (struct ldb_slog_place){ tab[i].file, tab[i].line };
			t->unpaired++;
		}
	printf("paired %" PRIu64 "\norphans %" PRIu64 "\nduplicates %" PRIu64 "\n", t->paired, t->orphans, t->dups);
	print_places("unpaired", t->first_unpaired, t->unpaired);
}

static int usage(void)
{
	fprintf(stderr, "usage: slogstat [--events] [--year Y] [--utc-offset S] [--max-line N] LOG...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct ldb_slog_opts o = { 0 };
	bool events = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--events"))
			events = true;
		else if (!strcmp(argv[i], "--year") && i + 1 < argc)
			o.year = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--utc-offset") && i + 1 < argc)
			o.utc_offset_set = true, o.utc_offset_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--max-line") && i + 1 < argc)
			o.max_line = (size_t)atol(argv[++i]);
		else
			return usage();
	}
	if (i >= argc)
		return usage();
	char err[600];
	struct ldb_slog *r = ldb_slog_open((const char *const *)argv + i, (size_t)(argc - i), &o, err, sizeof err);
	if (!r) {
		fprintf(stderr, "slogstat: %s\n", err);
		return 2;
	}
	struct ldb_slog_event ev;
	struct tally t = { 0 };
	int got;
	grow();
	while ((got = ldb_slog_next(r, &ev)) > 0) {
		if (events)
			print_event(&ev);
		pair(&t, &ev);
	}
	summary(r, &t);
	if (got < 0)
		fprintf(stderr, "slogstat: %s\n", ldb_slog_error(r));
	ldb_slog_close(r);
	free(tab);
	return got < 0 ? 1 : 0;
}
