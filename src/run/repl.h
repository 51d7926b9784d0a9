/* The replication check (-S), the I/O threads' side: how long after the
 * supplier confirmed a write the change is visible on each consumer.
 *
 * The I/O threads take a sample of their confirmed writes (--repl-sample: a
 * rate, or every Nth) and hand each one (kind, operation numbers, the
 * monotonic time of the supplier's result, attreplace's random run) to one
 * watcher thread per consumer (server/repl_watch) through a single-producer
 * single-consumer ring per (I/O thread, consumer): no lock, no allocation; a
 * full ring drops the sample and counts it.  The watchers poll the consumers
 * (docs/design.md, "Replication delay"); the write load's own connections are
 * never touched. */
#ifndef LDBENCH_RUN_REPL_H
#define LDBENCH_RUN_REPL_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "conf/config.h"

#define LDB_REPL_RING 1024 /* samples in flight per (I/O thread, consumer); a power of two */

/* 64 bytes: a cache line, no pointer, nothing to free. */
struct ldb_repl_item {
	uint64_t t;             /* the supplier's result (monotonic ns) */
	int64_t v, bv;          /* the operation's numbers */
	uint8_t kind;           /* enum ldb_op */
	uint8_t len;            /* bytes of run */
	char run[LDB_REPL_RUN]; /* attreplace's random run, object= rdn='s RDN (conf/config.h) */
};

struct ldb_repl_ring {
	alignas(64) uint64_t head; /* written by the I/O thread */
	alignas(64) uint64_t tail; /* written by the watcher */
	alignas(64) uint64_t dropped;
	struct ldb_repl_item item[LDB_REPL_RING];
};
_Static_assert(sizeof(struct ldb_repl_item) == 64, "a ring item is one cache line");

/* An I/O thread's side: its sampling state and its ring to each consumer. */
struct ldb_repl_tap {
	struct ldb_repl_ring **rings; /* [nrings] */
	int nrings;
	uint64_t every, count;    /* every Nth write, or */
	uint64_t gap_ns, next_at; /* one sample per gap (next_at: read by the watchers, relaxed) */
};

/* A confirmed write (called by its I/O thread): taken or not by the sampling
 * rule, then pushed to every consumer's ring.  run: what it wrote that the
 * watchers cannot rebuild (attreplace's random run, object= rdn='s RDN;
 * longer than LDB_REPL_RUN: dropped), else NULL. */
static inline void ldb_repl_offer(struct ldb_repl_tap *t, int kind, int64_t v, int64_t bv, const char *run, size_t len,
                                  uint64_t now)
{
	if (t->every > 0) {
		if (++t->count < t->every)
			return;
		t->count = 0;
	} else {
		if (now < t->next_at)
			return;
		/* the watchers read it to sleep until the next sample may come */
		__atomic_store_n(&t->next_at, now + t->gap_ns, __ATOMIC_RELAXED);
	}
	for (int k = 0; k < t->nrings; k++) {
		struct ldb_repl_ring *r = t->rings[k];
		uint64_t head = r->head;
		/* what it wrote does not fit an item (an RDN too long): never checked */
		if (len > LDB_REPL_RUN || head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= LDB_REPL_RING) {
			__atomic_store_n(&r->dropped, r->dropped + 1, __ATOMIC_RELAXED);
			continue;
		}
		struct ldb_repl_item *it = &r->item[head & (LDB_REPL_RING - 1)];
		it->t = now;
		it->v = v;
		it->bv = bv;
		it->kind = (uint8_t)kind;
		it->len = run != NULL ? (uint8_t)len : 0;
		if (run != NULL)
			memcpy(it->run, run, len);
		__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	}
}

#endif
