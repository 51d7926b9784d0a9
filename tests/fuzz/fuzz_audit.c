/* libFuzzer target: the audit log reader (src/logs/audit.h).
 *
 * The input is an audit log in memory (copied to a heap block of exactly its
 * size, so that ASan sees any read past it), read three ways: every change
 * in order (each one encoded, the length checked against the size query and
 * a buffer one byte short refused), with a 64-byte record limit, and by
 * matching every change read in a first pass against a reader with a window
 * of 2 changes.  Aborts when a change has an impossible kind, modify
 * operation or time resolution, when the encoder's lengths disagree, when
 * the statistics miss a change, or when more changes match than were read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t enc[1 << 16];

static void check(const struct ldb_audit_change *c)
{
	if (c->kind <= LDB_AUDIT_NONE || c->kind >= LDB_AUDIT_NKINDS || c->time_res_ns != 1000000000LL || !c->dn.p)
		abort();
	for (size_t i = 0; i < c->nattrs; i++)
		if (c->attrs[i].op > LDB_AUDIT_MOD_INCREMENT || !c->attrs[i].type.p)
			abort();
	const long need = ldb_audit_encode(c, NULL, 0);
	if (need <= 0 || (size_t)need > sizeof enc)
		return;
	if (ldb_audit_encode(c, enc, (size_t)need) != need || ldb_audit_encode(c, enc, (size_t)need - 1) != -1)
		abort();
}

/* Every change; the kinds, DNs and times of the first 64 into keys. */
struct key {
	enum ldb_audit_kind kind;
	char dn[64];
	size_t dnlen;
	int64_t t, conn;
};

static uint64_t read_all(const char *buf, size_t size, size_t max_record, struct key *keys, size_t *nkeys)
{
	struct ldb_audit_opts o = { .max_record = max_record };
	struct ldb_audit *a = ldb_audit_open_mem(buf, size, "fuzz", &o);
	if (!a)
		abort();
	const struct ldb_audit_change *c;
	uint64_t n = 0, counted = 0;
	while ((c = ldb_audit_next(a)) != NULL) {
		check(c);
		if (keys && *nkeys < 64 && c->dn.n <= sizeof keys->dn) {
			struct key *k = &keys[(*nkeys)++];
			k->kind = c->kind, k->dnlen = c->dn.n, k->t = c->time_ns, k->conn = c->conn;
			memcpy(k->dn, c->dn.p, c->dn.n);
		}
		n++;
	}
	for (int k = 0; k < LDB_AUDIT_NKINDS; k++)
		counted += ldb_audit_stats(a)->changes[k];
	if (counted != n)
		abort();
	ldb_audit_close(a);
	return n;
}

static void match_all(const char *buf, size_t size, const struct key *keys, size_t nkeys)
{
	struct ldb_audit_opts o = { .window = 2 };
	struct ldb_audit *a = ldb_audit_open_mem(buf, size, "fuzz", &o);
	if (!a)
		abort();
	uint64_t got = 0;
	for (size_t i = 0; i < nkeys; i++) {
		const struct key *k = &keys[i];
		const struct ldb_audit_change *c =
		        ldb_audit_match(a, k->kind, k->dn, k->dnlen, k->t, (uint64_t)k->conn, (uint64_t)i);
		if (c) {
			check(c);
			got++;
		}
	}
	ldb_audit_finish(a);
	const struct ldb_audit_stats *st = ldb_audit_stats(a);
	uint64_t matched = 0;
	for (int k = 0; k < LDB_AUDIT_NKINDS; k++)
		matched += st->matched[k];
	if (matched != got || got > nkeys)
		abort();
	ldb_audit_close(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct key keys[64];
	size_t nkeys = 0;
	read_all(buf, size, 0, keys, &nkeys);
	read_all(buf, size, 64, NULL, NULL);
	match_all(buf, size, keys, nkeys);
	free(buf);
	return 0;
}
