/* Listeners measuring a write load from another host (docs/guide.md
 * "Listeners", "Another host's writes"): two recordings joined offline by
 * `ldbench listen-join` (cmd/listen_join.c).
 *
 * --listen-record FILE: every notification the listeners received (the keys
 * of its entry and change, the listener, its arrival on the monotonic clock
 * and on the wall clock).  The listeners' I/O threads push nothing more than
 * they do for the live matcher: the matcher thread, which drains their rings
 * (run/listen_match.c), hands each notification here, and this writes it to
 * a buffered file (the matcher's thread, never an I/O thread).
 *
 * --write-record FILE: every write the load confirmed (the wall and
 * monotonic times of its confirmation, its kind, the entry's DN and the
 * value it wrote), from the same tap the matcher reads (run/repl.h: a ring
 * per I/O thread, every write), drained by a writer thread of its own
 * (as run/oplog.c's) that rebuilds the DN and value (the op rows'
 * repl_looks) and writes the records.
 *
 * The wall clock of a record: the monotonic time moved by the offset of
 * the two clocks (CLOCK_REALTIME - CLOCK_MONOTONIC), taken together again
 * every 100 ms by the recording thread.  Files: docs/results.md "The
 * listeners' recordings". */
#ifndef LDBENCH_RUN_LISTEN_REC_H
#define LDBENCH_RUN_LISTEN_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"

#define LDB_LREC_NOTES_MAGIC "LDBLNOT1"
#define LDB_LREC_WRITES_MAGIC "LDBWREC1"
#define LDB_LREC_VERSION 1
#define LDB_LREC_UNTRACKED 0xff /* a write's what: not followed (its DN or value not known) */

/* Both files' header, 56 bytes; rewritten at the end (complete = 1). */
struct ldb_lrec_head {
	char magic[8];      /* LDB_LREC_NOTES_MAGIC or LDB_LREC_WRITES_MAGIC */
	uint32_t version;   /* LDB_LREC_VERSION */
	uint32_t recsize;   /* the fixed part of a record */
	uint32_t listeners; /* notes: --listeners; writes: 0 */
	uint32_t kind;      /* notes: --listen-kind; writes: 0 */
	uint64_t records;   /* records written */
	uint64_t dropped;   /* notes: refused by a full ring; writes: not recorded (a full ring) */
	uint32_t complete;  /* 1 once the run ended and wrote its counts */
	uint32_t pad;
	uint64_t up_ns; /* notes: every listener's refresh over (wall clock ns); writes: 0 */
};

/* A notification, 40 bytes. */
struct ldb_lrec_note {
	uint64_t wall_ns, mono_ns; /* its arrival */
	uint64_t dnkey, key;       /* run/listen_int.h: ldb_lk_dn, ldb_lk_key */
	uint32_t who, pad;         /* the listener, from 0 */
};

/* A write, 24 bytes, then its DN (dnlen bytes, as a server sends it: no
 * space after a comma) and its value (vlen bytes). */
struct ldb_lrec_write {
	uint64_t wall_ns, mono_ns; /* its confirmation (the writer's result) */
	uint8_t kind;              /* enum ldb_op */
	uint8_t what;              /* LK_THERE, LK_VALUE, LK_GONE, or LDB_LREC_UNTRACKED */
	uint8_t raced;             /* another write of its entry was confirmed while it was in flight */
	uint8_t pad;
	uint16_t dnlen, vlen;
};
_Static_assert(sizeof(struct ldb_lrec_head) == 56, "the recordings' header");
_Static_assert(sizeof(struct ldb_lrec_note) == 40, "a notification's record");
_Static_assert(sizeof(struct ldb_lrec_write) == 24, "a write's fixed part");

/* ------------------------------------------------------------ the notes */

struct ldb_note;
struct ldb_lrec_notes {
	FILE *f;
	char *path;
	struct ldb_lrec_head head;
	int64_t offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	uint64_t offset_at;
	int err; /* the first write's errno */
	uint32_t nbuf;
	struct ldb_lrec_note buf[1024]; /* written a block at a time (no stdio call per record) */
};

/* Create path (truncated).  @return the recorder, or NULL with one line in err. */
struct ldb_lrec_notes *ldb_lrec_notes_open(const char *path, int listeners, int kind, char *err, size_t cap);
/* Every listener's refresh is over now (the main thread, once). */
void ldb_lrec_notes_up(struct ldb_lrec_notes *r);
/* One notification (the matcher's thread). */
void ldb_lrec_note(struct ldb_lrec_notes *r, const struct ldb_note *n);
/* The end: the header's counts.  @return 0, or -1 with one line in err. */
int ldb_lrec_notes_close(struct ldb_lrec_notes *r, uint64_t dropped, char *err, size_t cap);

/* ------------------------------------------------------------ the writes */

struct ldb_repl_tap;
struct ldb_lrec_writes;

/* Create path and a tap per I/O thread (nio), start the writer thread.
 * @return the recorder, or NULL with one line in err. */
struct ldb_lrec_writes *ldb_lrec_writes_start(const struct ldb_config *c, int nio, uint64_t t0, char *err, size_t cap);
struct ldb_repl_tap *ldb_lrec_writes_tap(struct ldb_lrec_writes *w, int k);
/* After the I/O threads ended: the last writes, the header.  @return the
 * writes recorded, or -1 with one line in err. */
int64_t ldb_lrec_writes_finish(struct ldb_lrec_writes *w, char *err, size_t cap);
void ldb_lrec_writes_free(struct ldb_lrec_writes *w);

#endif
