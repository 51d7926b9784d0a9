/* The listeners' internals, shared by run/listen_source.c (the listeners'
 * I/O threads), run/listen_match.c (the matcher) and run/listen_run.c (start
 * and end).  See run/listen.h. */
#ifndef LDBENCH_RUN_LISTEN_INT_H
#define LDBENCH_RUN_LISTEN_INT_H

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "proto/lkey.h"
#include "proto/wire.h"
#include "run/listen.h"
#include "run/run.h"

#define LDB_NOTE_RING (1u << 18)   /* notifications in flight per listeners' I/O thread; a power of two */
#define LDB_COOKIE_MAX 256         /* a sync listener's last cookie kept up to this (a longer one: a full refresh) */
#define LDB_LISTEN_PER_THREAD 2000 /* listeners an I/O thread carries at most (4 threads at most) */

/* A listener's phase (written by its I/O thread, read relaxed). */
enum { L_IDLE = 0, L_BINDING, L_REFRESH, L_PERSIST, L_FAILED, L_LOST };
/* A listener lost after its first refresh (t_done set) is L_LOST until
 * its connection is re-opened (after a back-off: L_BINDING), then L_REFRESH
 * (sync: from its last cookie) and L_PERSIST again. */

/* One listener's state: its I/O thread writes, the others read (relaxed). */
struct ldb_lsn {
	int phase;
	int code;         /* the result code that ended its search or set-up, -1 */
	uint64_t t_sent;  /* its search went out (monotonic ns) */
	uint64_t t_done;  /* its refresh ended */
	uint64_t entries; /* received in the refresh */
	uint64_t notes;   /* received after it */
	/* its connection lost and re-opened (its I/O thread's; read relaxed) */
	uint64_t lost_n, back_n; /* times lost, times its search was back (sync: the catch-up refresh done) */
	uint64_t catchup;        /* entries of its catch-up refreshes */
	uint64_t t_lost;         /* when it was last lost (monotonic ns), 0: up */
	uint32_t cklen;          /* its last RFC 4533 cookie (0: none) */
	uint8_t cookie[LDB_COOKIE_MAX];
};

/* A notification: which entry and what, when it arrived, on which listener. */
struct ldb_note {
	uint64_t key, dnkey, t;
	uint32_t who;
	uint32_t flags; /* LDB_NOTE_CATCHUP */
};
#define LDB_NOTE_CATCHUP 1u /* an entry of a catch-up refresh: the entry as it is now */

struct ldb_note_ring {
	alignas(64) uint64_t head; /* written by the listeners' I/O thread */
	alignas(64) uint64_t tail; /* written by the matcher */
	alignas(64) uint64_t dropped;
	struct ldb_note item[LDB_NOTE_RING];
};

/* One listeners' I/O thread. */
struct ldb_lthread {
	struct ldb_listen *ls;
	int first, n; /* its listeners */
	struct ldb_note_ring *ring;
	pthread_t th;
	bool started;
	bool paused;          /* its own: the sockets are out of reading */
	struct ldb_hist away; /* a lost listener's time away (lost to back), its thread's; read once joined */
	char error[160];
};

struct ldb_listen {
	const struct ldb_config *cfg;
	struct ldb_run run;     /* the listeners' engine run (source LDB_SOURCE_LISTEN) */
	struct ldb_config ecfg; /* the engine's zeroed configuration */
	int n;                  /* listeners */
	struct ldb_lsn *l;      /* [n] */
	int nth;
	struct ldb_lthread *th;
	/* the search, encoded once: its protocolOp and its control */
	struct ldb_bytes op, ctl;
	const char *attr; /* the attribute a modify's value is read from, or NULL */
	size_t alen;
	uint8_t *bind; /* the simple bind (message id 1), or NULL: anonymous */
	size_t bind_len;
	/* --listen-pause: [pause_at, pause_end) (0: none), set by the main thread */
	uint64_t pause_at, pause_end;
	/* the load's side: a tap and a ring per I/O thread (every write) */
	int nio;
	struct ldb_repl_tap *taps;
	struct ldb_repl_ring *wrings;
	uint64_t *last; /* the taps' last-write table (run/repl.h) */
	/* the matcher */
	pthread_t mth;
	bool mstarted;
	int live;           /* the listeners' start is over: one lost from here is re-opened */
	int finishing;      /* 1: drain and look at the missing; 2: stop */
	uint64_t finish_at; /* when finishing, the end of the wait */
	struct ldb_match *m;
	/* --listen-record (run/listen_rec.h): written by the matcher's thread */
	struct ldb_lrec_notes *nrec;
	uint64_t rec_n;    /* notifications recorded, once closed */
	char rec_err[256]; /* the recording's failure, or "" */
};

/* run/listen_source.c: a listeners' I/O thread's body. */
void *ldb_listen_thread(void *arg);
/* run/listen_match.c: the matcher. */
struct ldb_match *ldb_match_new(struct ldb_listen *ls);
void ldb_match_free(struct ldb_match *m);
void *ldb_match_main(void *arg);
void ldb_match_read(struct ldb_listen *ls, struct ldb_listen_figs *f);
/* Everything offered has been looked at, and every write was received by
 * every listener (the finish's wait can end). */
bool ldb_match_settled(struct ldb_listen *ls);

/* Whether a write of kind k (enum ldb_op; anything above: none) is seen at
 * a new DN (a rename): the matcher's, --write-record's and listen-join's. */
static inline bool ldb_lk_moved(unsigned k)
{
	return k < LDB_OP_COUNT && ldb_ops[k]->seen == LDB_SEEN_MOVED;
}

/* What a confirmed write wrote, as listeners see it: its entry's DN (no
 * space after a comma: as a server sends it) into dn[0..*dnlen) and, for a
 * value the write set, *val[0..*vlen).  @return LK_THERE (an add; a
 * rename, at its new DN), LK_VALUE or LK_GONE, or -1 when not followed.
 * The live matcher's and --write-record's. */
int ldb_lk_written(const struct ldb_config *cfg, struct ldb_repl_view *view, const struct ldb_repl_item *it,
                   char dn[LDB_DN_MAX], size_t *dnlen, const char **val, size_t *vlen);

/* The matcher fed from files rather than rings (cmd/listen_join.c: another
 * host's writes): every listener up; then writes and notifications in the
 * order of their times, with a look at the window (ldb_match_feed_age) as
 * time goes on, and last with end set. */
void ldb_match_feed_begin(struct ldb_match *m);
/* A write with its keys (key 0: not followed). */
void ldb_match_feed_write(struct ldb_match *m, uint64_t key, uint64_t dnkey, uint64_t t, bool raced, bool moved);
void ldb_match_feed_note(struct ldb_match *m, const struct ldb_note *n);
void ldb_match_feed_age(struct ldb_match *m, uint64_t now, uint64_t wait_ns, bool end);
/* The smallest delay from a write's confirmation to a notification matched
 * to it, negative when a notification came before (clocks apart).
 * @return false when none was matched. */
bool ldb_match_delay_min(const struct ldb_match *m, int64_t *ns);

#endif
