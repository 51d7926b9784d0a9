/* The join's figures (report/join_int.h): per kind over the measured
 * window, the client's latency, etime, queue, processing, outside, the
 * unindexed searches and why an operation was not joined; the run's as
 * their sum. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/join_int.h"

bool ldb_join_last_joined(const struct ldb_jstate *st, size_t *joined, size_t *answered)
{
	size_t last = SIZE_MAX;
	uint64_t end = 0;
	*joined = *answered = 0;
	for (size_t i = 0; i < st->n; i++) {
		if (st->rec[i].flags & LDB_OPREC_NORESPONSE)
			continue;
		(*answered)++;
		*joined += st->res[i].joined;
		if (st->rec[i].t_sent + st->rec[i].lat >= end) {
			end = st->rec[i].t_sent + st->rec[i].lat;
			last = i;
		}
	}
	return last == SIZE_MAX || st->res[last].joined;
}

static int kind_init(struct ldb_join_kind *k)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		if (ldb_hist_init(&k->h[f]) != 0)
			return -1;
	return 0;
}

static void kind_free(struct ldb_join_kind *k)
{
	for (int f = 0; f < LDB_JF_COUNT; f++)
		ldb_hist_free(&k->h[f]);
}

static void kind_add(struct ldb_join_kind *k, const struct ldb_oprec *r, const jres *x)
{
	k->joined++;
	ldb_hist_record(&k->h[LDB_JF_CLIENT], r->lat);
	ldb_hist_record(&k->h[LDB_JF_ETIME], (uint64_t)x->etime);
	if (x->queue >= 0) {
		k->queue = true;
		ldb_hist_record(&k->h[LDB_JF_QUEUE], (uint64_t)x->queue);
	}
	if (x->proc >= 0) {
		k->proc = true;
		ldb_hist_record(&k->h[LDB_JF_PROC], (uint64_t)x->proc);
	}
	ldb_hist_record(&k->h[LDB_JF_OUTSIDE], r->lat > (uint64_t)x->etime ? r->lat - (uint64_t)x->etime : 0);
	if (x->notes & LDB_SLOG_NOTE_U)
		k->notes_u++;
	if (x->notes & LDB_SLOG_NOTE_A)
		k->notes_a++;
}

/* The type the server logs a kind's requests as (the kind's monitor name:
 * "Search", "Modrdn", "Extended"); LDB_SLOG_OP_NONE: no check. */
static uint8_t logged_type(int k)
{
	const char *m = ldb_ops[k]->monitor;
	for (int t = LDB_SLOG_OP_BIND; m != NULL && t < LDB_SLOG_OP_OTHER; t++)
		if (strcasecmp(m, ldb_slog_optype_name((enum ldb_slog_optype)t)) == 0)
			return (uint8_t)t;
	return LDB_SLOG_OP_NONE;
}

/* Why a measured record is not joined; LDB_JM_COUNT: it is.  A result whose
 * request the log shows as another type than the record's kind is a
 * mismatch (the order on the connection went wrong), never joined.  want:
 * the logged type of each kind. */
static int miss_of(const struct ldb_jstate *st, const struct ldb_oprec *r, const jres *x, const uint8_t *want)
{
	if (r->flags & LDB_OPREC_NORESPONSE)
		return LDB_JM_NO_RESPONSE;
	if (!x->joined)
		return st->conn[r->conn].base >= 0 ? LDB_JM_NO_RESULT : LDB_JM_NO_TAG;
	return want[r->kind] != LDB_SLOG_OP_NONE && x->type != want[r->kind] ? LDB_JM_MISMATCH : LDB_JM_COUNT;
}

/* One measured record into its kind's figures; x->joined then says whether
 * it counts as joined (the kind checked).  @return 0, or -1 (memory). */
static int tally_one(const struct ldb_jstate *st, struct ldb_join *j, const struct ldb_oprec *r, jres *x,
                     const uint8_t *want)
{
	j->measured++;
	struct ldb_join_kind *k = &j->k[r->kind];
	if (!j->kind_used[r->kind] && kind_init(k) != 0)
		return -1;
	j->kind_used[r->kind] = true;
	k->sent++;
	int why = miss_of(st, r, x, want);
	x->joined = why == LDB_JM_COUNT;
	if (why != LDB_JM_COUNT) {
		k->miss[why]++;
		return 0;
	}
	kind_add(k, r, x);
	j->int_etime += x->int_etime;
	return 0;
}

/* The run's figures: the kinds' added up (exactly: counts and histograms). */
static void sum_kinds(struct ldb_join *j)
{
	struct ldb_join_kind *a = &j->all;
	for (int i = 0; i < LDB_OP_COUNT; i++) {
		const struct ldb_join_kind *k = &j->k[i];
		if (!j->kind_used[i])
			continue;
		a->sent += k->sent;
		a->joined += k->joined;
		for (int m = 0; m < LDB_JM_COUNT; m++)
			a->miss[m] += k->miss[m];
		a->notes_u += k->notes_u;
		a->notes_a += k->notes_a;
		a->queue = a->queue || k->queue;
		a->proc = a->proc || k->proc;
		for (int f = 0; f < LDB_JF_COUNT; f++)
			if (k->h[f].total > 0)
				ldb_hist_add(&a->h[f], &k->h[f]);
	}
}

int ldb_join_tally(struct ldb_jstate *st, struct ldb_join *j)
{
	if (kind_init(&j->all) != 0)
		return -1;
	j->interval_ns = st->head.interval_ns;
	j->rate = (st->head.flags & LDB_OPLOG_F_RATE) != 0;
	uint8_t want[LDB_OP_COUNT];
	for (int k = 0; k < LDB_OP_COUNT; k++)
		want[k] = logged_type(k);
	uint32_t seen_conn = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct ldb_oprec *r = &st->rec[i];
		if (r->conn != seen_conn) {
			seen_conn = r->conn;
			j->conns++;
			j->conns_tagged += st->conn[r->conn].base >= 0;
		}
		if (!(r->flags & LDB_OPREC_MEASURED) || r->kind >= LDB_OP_COUNT) {
			st->res[i].joined = false;
			continue;
		}
		if (tally_one(st, j, r, &st->res[i], want) != 0)
			return -1;
	}
	sum_kinds(j);
	struct ldb_join_view v = { st->rec, st->res, st->n, st->head.t_measure, st->head.interval_ns };
	return ldb_join_samples(j, &v);
}

void ldb_join_free(struct ldb_join *j)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (j->kind_used[k])
			kind_free(&j->k[k]);
	kind_free(&j->all);
	free(j->samples);
	memset(j, 0, sizeof *j);
}
