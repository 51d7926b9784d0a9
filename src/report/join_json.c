/* The join as JSON (the summary record's "join" member), read back from a
 * summary record, and joins added together (merge): see join.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/join.h"
#include "report/json.h"
#include "report/records.h"

static const char *const miss_key[LDB_JM_COUNT] = { "no_tag", "no_result", "no_response", "kind_mismatch" };

static uint64_t u64_of(const struct ldb_json *o, const char *key)
{
	uint64_t v = 0;
	if (ldb_json_u64(ldb_json_get(o, key), &v) != 0)
		v = 0;
	return v;
}

static int kind_alloc(struct ldb_join_kind *k)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		if (k->h[f].counts == NULL && ldb_hist_init(&k->h[f]) != 0)
			return -1;
	return 0;
}

/* One kind's member ({"sent":...,"client":{...,"histogram":"..."}}) into *k. */
static int kind_from(struct ldb_join_kind *k, const struct ldb_json *o, const char *name, char *err, size_t cap)
{
	if (kind_alloc(k) != 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	k->sent = u64_of(o, "sent");
	k->joined = u64_of(o, "joined");
	for (int m = 0; m < LDB_JM_COUNT; m++)
		k->miss[m] = u64_of(ldb_json_get(o, "missing"), miss_key[m]);
	k->notes_u = u64_of(o, "notes_u");
	k->notes_a = u64_of(o, "notes_a");
	for (int f = 0; f < LDB_JF_COUNT; f++) {
		const struct ldb_json *g = ldb_json_get(o, ldb_jfig_name[f]);
		if (g == NULL)
			continue;
		const char *text = ldb_json_str(ldb_json_get(g, "histogram"));
		if (text == NULL || ldb_hist_decode(&k->h[f], text) != 0) {
			snprintf(err, cap, "join.%s.%s: no valid histogram (a record of an older ldbench?)", name,
			         ldb_jfig_name[f]);
			return -1;
		}
		k->queue |= f == LDB_JF_QUEUE;
		k->proc |= f == LDB_JF_PROC;
	}
	return 0;
}

static void head_from(struct ldb_join *j, const struct ldb_json *o)
{
	const char *server = ldb_json_str(ldb_json_get(o, "server"));
	snprintf(j->server, sizeof j->server, "%s", server != NULL ? server : "?");
	const char *id = ldb_json_str(ldb_json_get(o, "run_id"));
	j->run_id = id != NULL ? (uint32_t)strtoul(id, NULL, 16) : 0;
	j->records = u64_of(o, "records");
	j->dropped = u64_of(o, "dropped");
	j->measured = u64_of(o, "measured");
	j->conns = u64_of(o, "connections");
	j->conns_tagged = u64_of(o, "connections_tagged");
	j->lines = u64_of(o, "log_lines");
	j->skipped = u64_of(o, "log_lines_not_used");
	const struct ldb_json *seen = ldb_json_get(o, "last_seen");
	j->last_seen = seen != NULL && seen->type == LDB_JSON_BOOL && seen->boolean;
	j->waited_ms = u64_of(o, "waited_ms");
	j->int_etime = u64_of(o, "whole_second_etimes");
	const struct ldb_json *rate = ldb_json_get(o, "rate");
	j->rate = rate != NULL && rate->type == LDB_JSON_BOOL && rate->boolean;
	const char *v = ldb_json_str(ldb_json_get(o, "verdict"));
	snprintf(j->verdict, sizeof j->verdict, "%s", v != NULL ? v : "");
	const char *n = ldb_json_str(ldb_json_get(o, "note"));
	snprintf(j->note, sizeof j->note, "%s", n != NULL ? n : "");
}

int ldb_join_from_json(struct ldb_join *j, const struct ldb_json *o, char *err, size_t cap)
{
	memset(j, 0, sizeof *j);
	const struct ldb_json *kinds = ldb_json_get(o, "kinds"), *all = ldb_json_get(o, "all");
	if (o == NULL || o->type != LDB_JSON_OBJECT || all == NULL || kinds == NULL || kinds->type != LDB_JSON_OBJECT) {
		snprintf(err, cap, "join: not a join member (no \"kinds\" or \"all\")");
		return -1;
	}
	head_from(j, o);
	int rc = kind_from(&j->all, all, "all", err, cap);
	for (const struct ldb_json *m = kinds->child; rc == 0 && m != NULL; m = m->next) {
		int k = ldb_records_kind(m->key);
		if (k < 0) {
			snprintf(err, cap, "join.kinds: unknown kind \"%s\"", m->key);
			rc = -1;
			break;
		}
		j->kind_used[k] = true;
		rc = kind_from(&j->k[k], m, m->key, err, cap);
	}
	if (rc != 0)
		ldb_join_free(j);
	return rc;
}

static int kind_add_all(struct ldb_join_kind *d, const struct ldb_join_kind *s)
{
	if (kind_alloc(d) != 0)
		return -1;
	d->sent += s->sent;
	d->joined += s->joined;
	for (int m = 0; m < LDB_JM_COUNT; m++)
		d->miss[m] += s->miss[m];
	d->notes_u += s->notes_u;
	d->notes_a += s->notes_a;
	d->queue |= s->queue;
	d->proc |= s->proc;
	for (int f = 0; f < LDB_JF_COUNT; f++)
		ldb_hist_add(&d->h[f], &s->h[f]);
	return 0;
}

int ldb_join_merge(struct ldb_join *d, const struct ldb_join *s)
{
	bool first = d->all.h[0].counts == NULL;
	if (d->server[0] == '\0')
		snprintf(d->server, sizeof d->server, "%s", s->server);
	else if (strcmp(d->server, s->server) != 0)
		snprintf(d->server, sizeof d->server, "mixed");
	d->records += s->records;
	d->dropped += s->dropped;
	d->measured += s->measured;
	d->conns += s->conns;
	d->conns_tagged += s->conns_tagged;
	d->lines += s->lines;
	d->skipped += s->skipped;
	d->int_etime += s->int_etime;
	d->rate |= s->rate;
	d->last_seen = first ? s->last_seen : d->last_seen && s->last_seen;
	d->waited_ms = d->waited_ms > s->waited_ms ? d->waited_ms : s->waited_ms;
	if (kind_add_all(&d->all, &s->all) != 0)
		return -1;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (s->kind_used[k]) {
			d->kind_used[k] = true;
			if (kind_add_all(&d->k[k], &s->k[k]) != 0)
				return -1;
		}
	return 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void json_kind(FILE *f, const char *name, const struct ldb_join_kind *k, bool first)
{
	fprintf(f, "%s\"%s\":{\"sent\":%" PRIu64 ",\"joined\":%" PRIu64 ",\"coverage\":%.3f", first ? "" : ",", name,
	        k->sent, k->joined, k->sent ? 100.0 * (double)k->joined / (double)k->sent : 0.0);
	static const char *const miss[LDB_JM_COUNT] = { "no_tag", "no_result", "no_response", "kind_mismatch" };
	fputs(",\"missing\":{", f);
	for (int m = 0; m < LDB_JM_COUNT; m++)
		fprintf(f, "%s\"%s\":%" PRIu64, m ? "," : "", miss[m], k->miss[m]);
	fprintf(f, "},\"notes_u\":%" PRIu64 ",\"notes_a\":%" PRIu64, k->notes_u, k->notes_a);
	for (int fg = 0; fg < LDB_JF_COUNT; fg++) {
		const struct ldb_hist *h = &k->h[fg];
		if (k->joined == 0 || (fg == LDB_JF_QUEUE && !k->queue) || (fg == LDB_JF_PROC && !k->proc))
			continue;
		fprintf(f,
		        ",\"%s\":{\"min_ms\":%.6f,\"p50_ms\":%.6f,\"p95_ms\":%.6f,\"p99_ms\":%.6f,\"max_ms\":%.6f,"
		        "\"count\":%" PRIu64,
		        ldb_jfig_name[fg], ms(h->total ? h->min : 0), ms(ldb_hist_percentile(h, 50)),
		        ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)), ms(h->max), h->total);
		size_t n = ldb_hist_encode(h, NULL, 0); /* lossless: merge adds them */
		char *b = malloc(n + 1);
		if (b != NULL)
			ldb_hist_encode(h, b, n + 1);
		fprintf(f, ",\"histogram\":\"%s\"}", b != NULL ? b : "");
		free(b);
	}
	fputc('}', f);
}

void ldb_join_put_json(FILE *f, const struct ldb_join *j)
{
	fprintf(f,
	        ",\"join\":{\"server\":\"%s\",\"run_id\":\"%08x\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64
	        ",\"measured\":%" PRIu64 ",\"connections\":%" PRIu64 ",\"connections_tagged\":%" PRIu64
	        ",\"log_lines\":%" PRIu64 ",\"log_lines_not_used\":%" PRIu64 ",\"last_seen\":%s,\"waited_ms\":%" PRIu64
	        ",\"whole_second_etimes\":%" PRIu64 ",\"client_from\":\"send\",\"rate\":%s",
	        j->server, j->run_id, j->records, j->dropped, j->measured, j->conns, j->conns_tagged, j->lines,
	        j->skipped, j->last_seen ? "true" : "false", j->waited_ms, j->int_etime, j->rate ? "true" : "false");
	fputs(",\"kinds\":{", f);
	bool first = true;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k]) {
			json_kind(f, ldb_ops[k]->name, &j->k[k], first);
			first = false;
		}
	fputs("},", f);
	json_kind(f, "all", &j->all, true);
	ldb_join_samples_json(f, j);
	fputs(",\"note\":", f);
	ldb_json_put_string(f, j->note);
	fputs(",\"verdict\":", f);
	ldb_json_put_string(f, j->verdict);
	fputc('}', f);
}
