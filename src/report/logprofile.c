/* A log's profile: the counting (logprofile.h). */
#include "report/logprofile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ldb_lprof_init(struct ldb_lprof *p, int64_t from_ns, int64_t to_ns, int64_t interval_ns, int top)
{
	memset(p, 0, sizeof *p);
	p->from_ns = from_ns;
	p->to_ns = to_ns;
	p->interval_ns = interval_ns;
	p->start_ns = INT64_MIN;
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	p->top = top;
	p->conncap = 1024;
	for (size_t i = 0; i < sizeof p->closed_ring / sizeof *p->closed_ring; i++)
		p->closed_ring[i] = -1;
	p->conns = malloc(p->conncap * sizeof *p->conns);
	p->pts = calloc(LDB_LPROF_MAXPTS, sizeof *p->pts);
	if (p->conns == NULL || p->pts == NULL)
		return -1;
	for (size_t i = 0; i < p->conncap; i++)
		p->conns[i] = -1;
	if (ldb_ltop_init(&p->filters, LDB_LPROF_TOPCAP) || ldb_ltop_init(&p->bases, LDB_LPROF_TOPCAP) ||
	    ldb_ltop_init(&p->binddns, LDB_LPROF_TOPCAP) || ldb_ltop_init(&p->binds_ok, LDB_LPROF_TOPCAP))
		return -1;
	for (size_t i = 0; i < LDB_LPROF_PEND; i++)
		p->pend[i].conn = -1;
	return 0;
}

void ldb_lprof_free(struct ldb_lprof *p)
{
	for (int k = 0; k < LDB_SLOG_NOPTYPES; k++)
		for (int t = 0; t < LDB_LPROF_NTIMES; t++)
			if (p->kind[k].tinit[t])
				ldb_hist_free(&p->kind[k].t[t]);
	ldb_ltop_free(&p->filters);
	ldb_ltop_free(&p->bases);
	ldb_ltop_free(&p->binddns);
	ldb_ltop_free(&p->binds_ok);
	free(p->conns);
	free(p->pts);
	memset(p, 0, sizeof *p);
}

enum ldb_slog_optype ldb_lprof_tag_type(int tag)
{
	switch (tag) {
	case 97: return LDB_SLOG_OP_BIND;
	case 101: return LDB_SLOG_OP_SEARCH;
	case 103: return LDB_SLOG_OP_MODIFY;
	case 105: return LDB_SLOG_OP_ADD;
	case 107: return LDB_SLOG_OP_DELETE;
	case 109: return LDB_SLOG_OP_MODRDN;
	case 111: return LDB_SLOG_OP_COMPARE;
	case 120: return LDB_SLOG_OP_EXTENDED;
	default: return LDB_SLOG_OP_OTHER;
	}
}

const char *ldb_lprof_time_name(enum ldb_lprof_time t)
{
	static const char *const names[] = { "etime", "wtime", "optime", "qtime" };
	return t < LDB_LPROF_NTIMES ? names[t] : "?";
}

/* The connection set: linear probing, grown when half full. */
static size_t conn_slot(const struct ldb_lprof *p, int64_t c)
{
	uint64_t h = (uint64_t)c * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h ^ h >> 29) & (p->conncap - 1);
	while (p->conns[i] != -1 && p->conns[i] != c)
		i = (i + 1) & (p->conncap - 1);
	return i;
}

static int conn_grow(struct ldb_lprof *p)
{
	int64_t *old = p->conns;
	size_t oldcap = p->conncap;
	p->conncap *= 2;
	p->conns = malloc(p->conncap * sizeof *p->conns);
	if (p->conns == NULL) {
		p->conns = old;
		p->conncap = oldcap;
		return -1;
	}
	for (size_t i = 0; i < p->conncap; i++)
		p->conns[i] = -1;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] != -1)
			p->conns[conn_slot(p, old[i])] = old[i];
	free(old);
	return 0;
}

/* @return 1 added, 0 already there, -1 out of memory. */
static int conn_add(struct ldb_lprof *p, int64_t c, bool opens)
{
	if (p->conns[conn_slot(p, c)] == c)
		return 0;
	for (size_t i = 0; !opens && i < sizeof p->closed_ring / sizeof *p->closed_ring; i++)
		if (p->closed_ring[i] == c)
			return 0; /* a line logged after its connection's close */
	if (2 * (p->nconns + 1) > p->conncap && conn_grow(p) != 0)
		return -1;
	p->conns[conn_slot(p, c)] = c;
	p->nconns++;
	return 1;
}

/* @return 1 removed, 0 not there. */
static int conn_del(struct ldb_lprof *p, int64_t c)
{
	size_t i = conn_slot(p, c);
	if (p->conns[i] != c)
		return 0;
	p->conns[i] = -1;
	p->nconns--;
	for (i = (i + 1) & (p->conncap - 1); p->conns[i] != -1; i = (i + 1) & (p->conncap - 1)) {
		int64_t x = p->conns[i];
		p->conns[i] = -1;
		p->conns[conn_slot(p, x)] = x;
	}
	return 1;
}

/* Halve the series: neighbouring intervals merge, the interval doubles. */
static void coarsen(struct ldb_lprof *p)
{
	int n = 0;
	for (int i = 0; i < p->npts; i += 2, n++) {
		struct ldb_lprof_point a = p->pts[i],
		                       b = i + 1 < p->npts ? p->pts[i + 1] : (struct ldb_lprof_point){ 0 };
		p->pts[n].requests = a.requests + b.requests;
		p->pts[n].opened = a.opened + b.opened;
		p->pts[n].closed = a.closed + b.closed;
		p->pts[n].peak = a.peak > b.peak ? a.peak : b.peak;
	}
	memset(p->pts + n, 0, (size_t)(p->npts - n) * sizeof *p->pts);
	p->npts = n;
	p->interval_ns *= 2;
}

/* The interval of time t (the series extended to it, the new intervals
 * starting with the connections open now). */
static struct ldb_lprof_point *point_at(struct ldb_lprof *p, int64_t t)
{
	if (p->start_ns == INT64_MIN)
		p->start_ns = p->from_ns != INT64_MIN ? p->from_ns : t - t % 1000000000;
	int64_t idx = t < p->start_ns ? 0 : (t - p->start_ns) / p->interval_ns;
	while (idx >= LDB_LPROF_MAXPTS) {
		coarsen(p);
		idx = (t - p->start_ns) / p->interval_ns;
	}
	while (p->npts <= idx)
		p->pts[p->npts++].peak = p->nconns;
	return &p->pts[idx];
}

static int record_time(struct ldb_lprof_kind *k, enum ldb_lprof_time t, int64_t ns)
{
	if (ns < 0)
		return 0;
	if (!k->tinit[t]) {
		if (ldb_hist_init(&k->t[t]) != 0)
			return -1;
		k->tinit[t] = true;
	}
	ldb_hist_record(&k->t[t], (uint64_t)ns);
	return 0;
}

/* A bind that succeeded as dn with mech ("" or NULL: simple), counted as
 * "MECH DN". */
static void bind_ok(struct ldb_lprof *p, const char *mech, size_t mn, struct ldb_slog_str dn)
{
	char key[LDB_LTOP_KEY];
	bool fresh;
	if (!mech || mn == 0)
		mech = "SIMPLE", mn = 6;
	int n = snprintf(key, sizeof key, "%.*s %.*s", (int)mn, mech, (int)dn.n, dn.p);
	ldb_ltop_add(&p->binds_ok, key, n < (int)sizeof key ? (size_t)n : sizeof key - 1, &fresh);
}

/* A bind's result: 389 DS logs the bound DN on it, its mechanism is its
 * request's (OpenLDAP's successful binds are its "BIND dn= mech=" lines). */
static void bind_result(struct ldb_lprof *p, const struct ldb_slog_event *ev)
{
	struct ldb_lprof_pend *b = &p->pend[(uint64_t)ev->conn % LDB_LPROF_PEND];
	if (ev->err != 0 || ev->dn.p == NULL || ev->conn < 0)
		return;
	const bool mine = b->conn == ev->conn && b->op == ev->op;
	bind_ok(p, mine ? b->mech : NULL, mine ? strlen(b->mech) : 0, ev->dn);
}

static int on_result(struct ldb_lprof *p, const struct ldb_slog_event *ev)
{
	enum ldb_slog_optype type = ldb_lprof_tag_type(ev->tag);
	if (ev->tag < 0 && ev->oid.p != NULL) /* OpenLDAP's "RESULT oid=": an extended operation's */
		type = LDB_SLOG_OP_EXTENDED;
	struct ldb_lprof_kind *k = &p->kind[type];
	k->results++;
	k->codes[ev->err >= 0 && ev->err < LDB_LPROF_NCODES - 1 ? ev->err : LDB_LPROF_NCODES - 1]++;
	if (ev->nentries > 0)
		k->entries += (uint64_t)ev->nentries;
	if (type == LDB_SLOG_OP_BIND)
		bind_result(p, ev);
	if (ev->notes & (LDB_SLOG_NOTE_A | LDB_SLOG_NOTE_U))
		k->unindexed++;
	if (ev->notes & LDB_SLOG_NOTE_A)
		k->unindexed_searches++;
	if (ev->notes & LDB_SLOG_NOTE_U)
		k->unindexed_components++;
	if (record_time(k, LDB_LPROF_ETIME, ev->etime_ns) || record_time(k, LDB_LPROF_WTIME, ev->wtime_ns) ||
	    record_time(k, LDB_LPROF_OPTIME, ev->optime_ns) || record_time(k, LDB_LPROF_QTIME, ev->qtime_ns))
		return -1;
	return 0;
}

static void on_request(struct ldb_lprof *p, const struct ldb_slog_event *ev, struct ldb_lprof_point *pt)
{
	bool fresh;
	p->kind[ev->type].requests++;
	p->requests++;
	pt->requests++;
	if (ev->type == LDB_SLOG_OP_SEARCH) {
		if (ev->base.p != NULL)
			ldb_ltop_add(&p->bases, ev->base.p, ev->base.n, &fresh);
		if (ev->filter.p != NULL)
			ldb_ltop_add_filter(&p->filters, ev->filter.p, ev->filter.n);
		if (ev->scope >= 0 && ev->scope < 4)
			p->scopes[ev->scope]++;
	} else if (ev->type == LDB_SLOG_OP_BIND) {
		if (ev->dn.p != NULL)
			ldb_ltop_add(&p->binddns, ev->dn.p, ev->dn.n, &fresh);
		struct ldb_lprof_pend *b = &p->pend[(uint64_t)(ev->conn < 0 ? 0 : ev->conn) % LDB_LPROF_PEND];
		const size_t mn = ev->mech.n < sizeof b->mech ? ev->mech.n : sizeof b->mech - 1;
		b->conn = ev->conn, b->op = ev->op;
		memcpy(b->mech, ev->mech.p ? ev->mech.p : "", ev->mech.p ? mn : 0);
		b->mech[ev->mech.p ? mn : 0] = '\0';
	}
}

int ldb_lprof_event(struct ldb_lprof *p, const struct ldb_slog_event *ev)
{
	if (ev->kind == LDB_SLOG_SKIP)
		return 0;
	if (ev->time_ns != INT64_MIN && ev->time_ns >= p->to_ns)
		return 0; /* after the window: the connections open at its end stay as they were */
	bool in = ev->time_ns >= p->from_ns;
	/* the series extended first: the intervals before this event start
	 * with the connections open before it */
	struct ldb_lprof_point *pt = in ? point_at(p, ev->time_ns) : NULL;
	if (ev->kind == LDB_SLOG_CLOSE) {
		conn_del(p, ev->conn);
		p->closed_ring[p->closed_next++ % (sizeof p->closed_ring / sizeof *p->closed_ring)] = ev->conn;
	} else if (ev->conn >= 0 && conn_add(p, ev->conn, ev->kind == LDB_SLOG_OPEN) < 0) {
		return -1;
	}
	if (!in)
		return 0;
	if (ev->time_ns < p->first_ns)
		p->first_ns = ev->time_ns;
	if (ev->time_ns > p->last_ns)
		p->last_ns = ev->time_ns;
	if (ev->time_res_ns >= 1000000000)
		p->one_second_lines++;
	if (ev->kind == LDB_SLOG_OPEN) {
		p->opened++;
		pt->opened++;
	} else if (ev->kind == LDB_SLOG_CLOSE) {
		p->closed++;
		pt->closed++;
	}
	if (p->nconns > pt->peak)
		pt->peak = p->nconns;
	if (p->nconns > p->peak) {
		p->peak = p->nconns;
		p->peak_ns = ev->time_ns;
	}
	if (ev->kind == LDB_SLOG_REQUEST)
		on_request(p, ev, pt);
	else if (ev->kind == LDB_SLOG_MORE && ev->type == LDB_SLOG_OP_BIND && ev->dn.p && ev->mech.p)
		bind_ok(p, ev->mech.p, ev->mech.n, ev->dn); /* OpenLDAP logs it once the bind succeeded */
	else if (ev->kind == LDB_SLOG_RESULT)
		return on_result(p, ev);
	return 0;
}
