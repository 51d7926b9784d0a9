/* The deadline heap: heap[0] is the earliest; every entry's pos is its index
 * plus one, kept up to date by each move. */
#include "run/timers.h"

#include <stdlib.h>

int ldb_timers_init(struct ldb_timers *t, uint32_t cap)
{
	t->n = 0;
	t->cap = cap;
	t->heap = calloc(cap > 0 ? cap : 1, sizeof *t->heap);
	return t->heap != NULL ? 0 : -1;
}

void ldb_timers_free(struct ldb_timers *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		t->heap[i]->pos = 0;
	free(t->heap);
	t->heap = NULL;
	t->n = t->cap = 0;
}

static void place(struct ldb_timers *t, uint32_t i, struct ldb_timer *e)
{
	t->heap[i] = e;
	e->pos = i + 1;
}

static void sift_up(struct ldb_timers *t, uint32_t i)
{
	struct ldb_timer *e = t->heap[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (t->heap[parent]->at <= e->at)
			break;
		place(t, i, t->heap[parent]);
		i = parent;
	}
	place(t, i, e);
}

static void sift_down(struct ldb_timers *t, uint32_t i)
{
	struct ldb_timer *e = t->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= t->n)
			break;
		if (c + 1 < t->n && t->heap[c + 1]->at < t->heap[c]->at)
			c++;
		if (e->at <= t->heap[c]->at)
			break;
		place(t, i, t->heap[c]);
		i = c;
	}
	place(t, i, e);
}

bool ldb_timer_arm(struct ldb_timers *t, struct ldb_timer *e, uint64_t at)
{
	if (e->pos == 0) {
		if (t->n == t->cap)
			return false;
		e->at = at;
		place(t, t->n++, e);
		sift_up(t, t->n - 1);
		return true;
	}
	uint64_t was = e->at;
	e->at = at;
	if (at < was)
		sift_up(t, e->pos - 1);
	else if (at > was)
		sift_down(t, e->pos - 1);
	return true;
}

void ldb_timer_cancel(struct ldb_timers *t, struct ldb_timer *e)
{
	if (e->pos == 0)
		return;
	uint32_t i = e->pos - 1;
	e->pos = 0;
	struct ldb_timer *last = t->heap[--t->n];
	if (last == e)
		return;
	/* the last entry takes the hole, then goes up or down from it */
	place(t, i, last);
	if (i > 0 && t->heap[(i - 1) / 2]->at > last->at)
		sift_up(t, i);
	else
		sift_down(t, i);
}

struct ldb_timer *ldb_timers_pop(struct ldb_timers *t, uint64_t now)
{
	if (t->n == 0 || t->heap[0]->at > now)
		return NULL;
	struct ldb_timer *e = t->heap[0];
	ldb_timer_cancel(t, e);
	return e;
}
