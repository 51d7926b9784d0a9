/* The join's alignment (report/join_int.h): each tagged connection's
 * requests walked in op= order, the i-th put at the position tag + i
 * (docs/design.md): in place, as a request's position is never past its
 * slot, unless the list of lines outside the tables says otherwise (then
 * from a copy of the table). */
#include <stdlib.h>
#include <string.h>

#include "report/join_int.h"

static int over_cmp(const void *a, const void *b)
{
	const struct ldb_jover *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A walk of one connection's requests in op= order: the i-th goes to the
 * record at the position tag + i. */
struct walk {
	struct ldb_jstate *st;
	uint64_t rank; /* requests walked */
	size_t r, end; /* the record where the next position is looked for; the connection's end */
};

/* The next request in op= order (x->type: none when its op= had no request
 * line) with its result (x->joined). */
static void walk_one(struct walk *w, const jres *x)
{
	if (x->type == LDB_SLOG_OP_NONE)
		return; /* a result without its request: no position */
	uint64_t order = w->st->head.tag_order + w->rank++;
	while (w->r < w->end && w->st->rec[w->r].order < order)
		w->r++;
	if (w->r < w->end && w->st->rec[w->r].order == order && x->joined)
		w->st->res[w->r] = *x;
}

/* The listed lines over[0..n) (sorted: by op=, then in log order) of one
 * op= after the other: each op='s first request and first result walked. */
static void walk_over(struct walk *w, const struct ldb_jover *over, size_t n)
{
	for (size_t i = 0; i < n;) {
		jres x = { 0 };
		size_t e = i;
		for (; e < n && over[e].op == over[i].op; e++) {
			if (x.type == LDB_SLOG_OP_NONE)
				x.type = over[e].x.type;
			if (!x.joined && over[e].x.joined) {
				uint8_t type = x.type;
				x = over[e].x;
				x.type = type;
			}
		}
		walk_one(w, &x);
		i = e;
	}
}

/* One tagged connection's lines to its records: the listed ones before its
 * table (op= below base), the table's slots, the listed ones after it.  In
 * place when no request can land past its own slot (at most as many
 * requests listed before the table as positions between the tag and slot 0,
 * orders increasing); else from a copy of the table.  @return 0, or -1
 * (memory). */
static int align_conn(struct ldb_jstate *st, uint32_t c, const struct ldb_jover *over, size_t n)
{
	const struct ldb_jconn *k = &st->conn[c];
	size_t nslots = st->conn[c + 1].first - k->tab, lo = 0, lo_reqs = 0;
	while (lo < n && over[lo].op < k->base) {
		lo_reqs += over[lo].x.type != LDB_SLOG_OP_NONE && (lo == 0 || over[lo - 1].op != over[lo].op);
		lo++;
	}
	uint64_t pre = nslots > 0 ? st->rec[k->tab].order - st->head.tag_order : 0;
	jres *slots = st->res + k->tab, *copy = NULL;
	if (nslots > 0 && (lo_reqs > pre || !k->in_order)) {
		copy = malloc(nslots * sizeof *copy);
		if (copy == NULL)
			return -1;
		memcpy(copy, slots, nslots * sizeof *copy);
		memset(slots, 0, nslots * sizeof *slots);
	}
	struct walk w = { st, 0, k->first, st->conn[c + 1].first };
	walk_over(&w, over, lo);
	for (size_t s = 0; s < nslots; s++) {
		jres x = copy != NULL ? copy[s] : slots[s];
		if (copy == NULL) /* its request's position is at or before it */
			memset(&slots[s], 0, sizeof slots[s]);
		walk_one(&w, &x);
	}
	walk_over(&w, over + lo, n - lo);
	free(copy);
	return 0;
}

int ldb_join_align(struct ldb_jstate *st)
{
	if (st->nover > 1)
		qsort(st->over, st->nover, sizeof *st->over, over_cmp);
	size_t i = 0, e;
	for (uint32_t c = 1; c <= st->max_conn; c++) {
		while (i < st->nover && st->over[i].conn < c)
			i++;
		for (e = i; e < st->nover && st->over[e].conn == c; e++)
			;
		if (st->conn[c].base >= 0 && align_conn(st, c, st->over + i, e - i) != 0)
			return -1;
		i = e;
	}
	return 0;
}
