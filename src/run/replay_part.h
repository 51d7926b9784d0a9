/* Private to run/replay_run and run/replay_source: the parts (an I/O thread
 * each) and what they share. */
#ifndef LDBENCH_RUN_REPLAY_PART_H
#define LDBENCH_RUN_REPLAY_PART_H

#include <stdatomic.h>
#include <sys/socket.h>

#include "run/replay.h"
#include "run/signals.h"

/* What the sender threads share, read-only while they run but for stop. */
struct ldb_rp_share {
	const struct ldb_signals *sig; /* taken by thread 0 */
	atomic_bool stop;              /* thread 0 took SIGINT or SIGTERM */
	int stop_fd;                   /* an eventfd written then (-1 with one thread) */
	uint64_t start;                /* the replay's time 0 (monotonic ns) */
	struct sockaddr_storage addr;  /* the target */
	socklen_t addrlen;
	/* with a reader thread (--threads above 1): it sleeps on room_fd (an
	 * eventfd) while reader_waits, until a sender gives back room or an
	 * index */
	atomic_bool reader_waits;
	int room_fd;
};

/* One sender thread's part: its connections (recorded connections spread by
 * number), its ring, its result (merged at the end), and with one thread the
 * feeder its loop pumps (NULL with more: the reader thread's). */
struct ldb_rp_part {
	unsigned tid;
	struct ldb_rp_share *share;
	struct ldb_rp_ring *ring;
	struct ldb_rp_feed *feed;
	struct ldb_rp_result *res;
	int rc;
	const struct ldb_rp_conf *conf;
};

/** The part's I/O thread (run/iothread.c) with the replay as its request
 *  source (run/replay_source.c), in the calling thread.  @return 0, or -1
 *  out of memory at its start. */
int ldb_rp_source_run(const struct ldb_rp_conf *conf, struct ldb_rp_part *p);

#endif
