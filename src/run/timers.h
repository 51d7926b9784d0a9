/* An I/O thread's deadlines: a binary min-heap of intrusive entries, each
 * knowing its place, so arming, re-arming and cancelling cost O(log n) and the
 * next deadline O(1).  The heap's array is allocated once, for every entry the
 * thread will ever hold; nothing allocates afterwards. */
#ifndef LDBENCH_RUN_TIMERS_H
#define LDBENCH_RUN_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ldb_timer {
	uint64_t at;  /* the deadline (ns, ldb_now_ns's clock) while armed */
	uint32_t pos; /* 1 + the place in the heap; 0 when not armed */
	int tag;      /* the owner's: what this entry is for */
	void *data;   /* the owner's: whose entry */
};

struct ldb_timers {
	struct ldb_timer **heap;
	uint32_t n, cap;
};

/* Room for cap entries.  @return 0, or -1 out of memory. */
int ldb_timers_init(struct ldb_timers *t, uint32_t cap);
void ldb_timers_free(struct ldb_timers *t);

static inline void ldb_timer_set(struct ldb_timer *e, int tag, void *data)
{
	e->at = 0;
	e->pos = 0;
	e->tag = tag;
	e->data = data;
}

static inline bool ldb_timer_armed(const struct ldb_timer *e)
{
	return e->pos != 0;
}

/* Arm e for `at`, or move it there if armed.  @return false when the heap is
 * full (more entries than ldb_timers_init was told of). */
bool ldb_timer_arm(struct ldb_timers *t, struct ldb_timer *e, uint64_t at);

/* Arm e for `at` unless it is armed for that or earlier already. */
static inline bool ldb_timer_arm_before(struct ldb_timers *t, struct ldb_timer *e, uint64_t at)
{
	if (e->pos != 0 && e->at <= at)
		return true;
	return ldb_timer_arm(t, e, at);
}

void ldb_timer_cancel(struct ldb_timers *t, struct ldb_timer *e);

/* The earliest deadline, UINT64_MAX when none is armed. */
static inline uint64_t ldb_timers_next(const struct ldb_timers *t)
{
	return t->n > 0 ? t->heap[0]->at : UINT64_MAX;
}

/* The earliest entry due at `now` (at <= now), disarmed; NULL if none is.
 * Entries due at the same time come in no particular order. */
struct ldb_timer *ldb_timers_pop(struct ldb_timers *t, uint64_t now);

#endif
