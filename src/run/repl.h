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

/* The last confirmed write of each entry, for the watchers to tell a write
 * that a later one superseded from one that never showed: a table of 2^20
 * words (8 MiB) indexed by a hash of the operation's number, each word the
 * number's low 24 bits (which entry holds the word) and the write's time in
 * microseconds since the check began (40 bits: 12 days).  Every confirmed
 * write of the measured run stores its word (one relaxed store); an entry
 * whose word another entry overwrote is only not known to be superseded. */
#define LDB_REPL_LAST_BITS 20
#define LDB_REPL_LAST_TIME ((1ULL << 40) - 1)

static inline size_t ldb_repl_last_slot(int64_t v)
{
	return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> (64 - LDB_REPL_LAST_BITS));
}

static inline uint64_t ldb_repl_last_word(int64_t v, uint64_t t, uint64_t t0)
{
	uint64_t us = t > t0 ? (t - t0) / 1000 : 0;
	return ((uint64_t)v & 0xffffff) << 40 | (us & LDB_REPL_LAST_TIME);
}

/* An item's kind for a flow's write step (ops/flow.c): v its entry's DN
 * key, bv its change's key (proto/lkey.h; 0: not followed), run[0] the
 * step's kind (enum ldb_op); taken only by taps with keys set. */
#define LDB_REPL_KEYS 0xff
_Static_assert(LDB_OP_COUNT < LDB_REPL_KEYS, "a kind of its own for a flow's steps");

/* 64 bytes: a cache line, no pointer, nothing to free. */
struct ldb_repl_item {
	uint64_t t;              /* the supplier's result (monotonic ns) */
	int64_t v, bv;           /* the operation's numbers */
	uint8_t kind;            /* enum ldb_op */
	unsigned char len : 7;   /* bytes of run */
	unsigned char raced : 1; /* another write of its entry was confirmed while it was in flight */
	char run[LDB_REPL_RUN];  /* attreplace's random run, object= rdn='s RDN (conf/config.h) */
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
	uint64_t every, count;     /* every Nth write, or */
	uint64_t gap_ns, next_at;  /* one sample per gap (next_at: read by the watchers, relaxed) */
	uint64_t *last;            /* the last-write table, shared by the taps (relaxed stores) */
	uint64_t t0;               /* its time origin (monotonic ns) */
	struct ldb_repl_tap *also; /* another tap the same writes go to (--listeners beside -S), or NULL */
	bool keys;                 /* takes a flow's write steps (LDB_REPL_KEYS): the listeners', --write-record's */
};

/* A confirmed write (called by its I/O thread): taken or not by the sampling
 * rule, then pushed to every consumer's ring; its entry's word in the
 * last-write table in any case.  run: what it wrote that the
 * watchers cannot rebuild (attreplace's random run, object= rdn='s RDN;
 * longer than LDB_REPL_RUN: dropped), else NULL.  sent: when its request
 * went out.  The word it replaces tells whether another write of the entry
 * was confirmed while this one was in flight: the server may then have
 * applied the two in either order (raced). */
static inline void ldb_repl_offer_one(struct ldb_repl_tap *t, int kind, int64_t v, int64_t bv, const char *run,
                                      size_t len, uint64_t sent, uint64_t now)
{
	uint64_t word = ldb_repl_last_word(v, now, t->t0);
	uint64_t prev = __atomic_exchange_n(&t->last[ldb_repl_last_slot(v)], word, __ATOMIC_RELAXED);
	bool raced = prev >> 40 == word >> 40 &&
	             (prev & LDB_REPL_LAST_TIME) >= (ldb_repl_last_word(v, sent, t->t0) & LDB_REPL_LAST_TIME);
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
		it->len = run != NULL ? len & 0x7f : 0;
		it->raced = raced;
		if (run != NULL)
			memcpy(it->run, run, len);
		__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	}
}

/* A confirmed write to the tap and to those it chains (t->also): -S's
 * watchers and the listeners' matcher each take it from rings of their own,
 * each by its own rule (no lock: each ring has one producer, one consumer). */
static inline void ldb_repl_offer(struct ldb_repl_tap *t, int kind, int64_t v, int64_t bv, const char *run, size_t len,
                                  uint64_t sent, uint64_t now)
{
	for (; t != NULL; t = t->also)
		ldb_repl_offer_one(t, kind, v, bv, run, len, sent, now);
}

/* A flow's confirmed write step (its keys: LDB_REPL_KEYS) to the taps that
 * take them (not -S's: its watchers rebuild writes from numbers). */
static inline void ldb_repl_offer_keys(struct ldb_repl_tap *t, int kind, uint64_t dnkey, uint64_t key, uint64_t sent,
                                       uint64_t now)
{
	char k = (char)kind;
	for (; t != NULL; t = t->also)
		if (t->keys)
			ldb_repl_offer_one(t, LDB_REPL_KEYS, (int64_t)dnkey, (int64_t)key, &k, 1, sent, now);
}

#endif
