/* auditmatch: the audit log reader (src/logs/audit.h) driven from the
 * command line, for the integration tests and a look at a log.
 *
 *   auditmatch ACCESS-LOG... -- AUDIT-LOG...
 *       every successful write of the access logs (an add, modify, delete
 *       or modrdn request whose result is 0), in the order of its result,
 *       matched with ldb_audit_match (its kind, DN, request time and conn):
 *       one line per write, "write KIND conn=C op=O HEX" (HEX: the
 *       protocolOp of ldb_audit_encode) or "unmatched KIND conn=C op=O DN";
 *       then "key value" lines: writes, matched, not_found, and the
 *       reader's statistics (changes per kind, failed, unmatched with their
 *       first places, dropped_attrs, skipped per reason with places).
 *   auditmatch --dump AUDIT-LOG...
 *       every change in log order: "change KIND FILE:LINE t=NS conn=C
 *       result=R DN HEX", then the statistics.
 * Exit: 0 read, 1 a read error, 2 usage or a log that cannot be opened. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/audit.h"
#include "logs/slog.h"

struct pend {
	int64_t conn, op, time_ns;
	enum ldb_audit_kind kind;
	char *dn;
	size_t dnlen;
};

static struct pend *pend;
static size_t npend, cappend;
static uint8_t enc[1 << 20];

static void hex(const struct ldb_audit_change *c)
{
	const long n = ldb_audit_encode(c, enc, sizeof enc);
	printf(" ");
	for (long i = 0; i < n; i++)
		printf("%02x", enc[i]);
	if (n < 0)
		printf("too-long");
}

static enum ldb_audit_kind kind_of(enum ldb_slog_optype t)
{
	switch (t) {
	case LDB_SLOG_OP_ADD: return LDB_AUDIT_ADD;
	case LDB_SLOG_OP_MODIFY: return LDB_AUDIT_MODIFY;
	case LDB_SLOG_OP_DELETE: return LDB_AUDIT_DELETE;
	case LDB_SLOG_OP_MODRDN: return LDB_AUDIT_MODRDN;
	default: return LDB_AUDIT_NONE;
	}
}

static void remember(const struct ldb_slog_event *ev)
{
	if (npend == cappend) {
		cappend = cappend ? cappend * 2 : 64;
		pend = realloc(pend, cappend * sizeof *pend);
		if (!pend)
			exit(1);
	}
	struct pend *p = &pend[npend++];
	*p = (struct pend){ .conn = ev->conn, .op = ev->op, .time_ns = ev->time_ns, .kind = kind_of(ev->type) };
	p->dn = malloc(ev->dn.n + 1);
	if (!p->dn)
		exit(1);
	memcpy(p->dn, ev->dn.p ? ev->dn.p : "", ev->dn.n);
	p->dnlen = ev->dn.n;
}

static void on_result(struct ldb_audit *a, const struct ldb_slog_event *ev, uint64_t *writes, uint64_t *matched)
{
	for (size_t i = 0; i < npend; i++) {
		struct pend *p = &pend[i];
		if (p->conn != ev->conn || p->op != ev->op)
			continue;
		if (ev->err == 0) {
			const struct ldb_audit_change *c = ldb_audit_match(a, p->kind, p->dn, p->dnlen, p->time_ns,
			                                                   (uint64_t)p->conn, (uint64_t)p->op);
			(*writes)++;
			*matched += c != NULL;
			printf("%s %s conn=%" PRId64 " op=%" PRId64, c ? "write" : "unmatched",
			       ldb_audit_kind_name(p->kind), p->conn, p->op);
			if (c)
				hex(c);
			else
				printf(" %.*s", (int)p->dnlen, p->dn);
			printf("\n");
		}
		free(p->dn);
		*p = pend[--npend];
		return;
	}
}

static void places(const char *what, uint64_t n, const struct ldb_audit_place *pl)
{
	printf("%s %" PRIu64, what, n);
	for (uint64_t i = 0; i < n && i < LDB_AUDIT_FIRST_LINES; i++)
		printf("%s%s:%" PRIu64, i ? "," : " ", pl[i].file, pl[i].line);
	printf("\n");
}

static void stats(struct ldb_audit *a)
{
	ldb_audit_finish(a);
	const struct ldb_audit_stats *st = ldb_audit_stats(a);
	printf("files %" PRIu64 "\nlines %" PRIu64 "\n", st->files, st->lines);
	for (int k = LDB_AUDIT_ADD; k < LDB_AUDIT_NKINDS; k++)
		printf("changes %s %" PRIu64 "\nmatched %s %" PRIu64 "\n", ldb_audit_kind_name(k), st->changes[k],
		       ldb_audit_kind_name(k), st->matched[k]);
	printf("failed %" PRIu64 "\nnot_found %" PRIu64 "\ndropped_attrs %" PRIu64 "\n", st->failed, st->not_found,
	       st->dropped_attrs);
	places("unmatched", st->unmatched, st->first_unmatched);
	for (int s = LDB_AUDIT_SKIP_GARBAGE; s < LDB_AUDIT_NSKIPS; s++) {
		char what[64];
		snprintf(what, sizeof what, "skipped %s", ldb_audit_skip_name(s));
		places(what, st->skipped[s], st->first_skipped[s]);
	}
}

static int dump(int argc, char **argv)
{
	char err[512];
	struct ldb_audit *a = ldb_audit_open((const char *const *)argv, (size_t)argc, err, sizeof err);
	if (!a) {
		fprintf(stderr, "auditmatch: %s\n", err);
		return 2;
	}
	const struct ldb_audit_change *c;
	while ((c = ldb_audit_next(a)) != NULL) {
		printf("change %s %s:%" PRIu64 " t=%" PRId64 " conn=%" PRId64 " result=%d %.*s",
		       ldb_audit_kind_name(c->kind), c->file, c->line, c->time_ns, c->conn, c->result, (int)c->dn.n,
		       (const char *)c->dn.p);
		hex(c);
		printf("\n");
	}
	const int rc = ldb_audit_error(a)[0] ? 1 : 0;
	stats(a);
	ldb_audit_close(a);
	return rc;
}

static int match(char **acc, int nacc, char **aud, int naud)
{
	char err[512];
	struct ldb_slog *r = ldb_slog_open((const char *const *)acc, (size_t)nacc, NULL, err, sizeof err);
	struct ldb_audit *a = r ? ldb_audit_open((const char *const *)aud, (size_t)naud, err, sizeof err) : NULL;
	if (!a) {
		fprintf(stderr, "auditmatch: %s\n", err);
		ldb_slog_close(r);
		return 2;
	}
	struct ldb_slog_event ev;
	uint64_t writes = 0, matched = 0;
	int rc;
	while ((rc = ldb_slog_next(r, &ev)) > 0) {
		if (ev.kind == LDB_SLOG_REQUEST && kind_of(ev.type) != LDB_AUDIT_NONE)
			remember(&ev);
		else if (ev.kind == LDB_SLOG_RESULT)
			on_result(a, &ev, &writes, &matched);
	}
	printf("writes %" PRIu64 "\nmatched %" PRIu64 "\n", writes, matched);
	stats(a);
	ldb_audit_close(a);
	ldb_slog_close(r);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--dump") == 0)
		return dump(argc - 2, argv + 2);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0 && i > 1 && i + 1 < argc)
			return match(argv + 1, i - 1, argv + i + 1, argc - i - 1);
	fprintf(stderr, "usage: auditmatch ACCESS-LOG... -- AUDIT-LOG... | auditmatch --dump AUDIT-LOG...\n");
	return 2;
}
