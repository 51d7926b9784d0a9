/* An I/O thread's pool of connection buffers: a connection holds its input
 * and output buffers only while it has something to read or write (a
 * request in flight, bytes buffered); an idle one gives them back, so that
 * thousands of held, idle connections cost their small state alone.  The
 * pool is a free list per size (the run's input and output sizes), owned by
 * one I/O thread (no lock); it grows by a bounded chunk when empty, so a
 * steady load takes and gives without calling malloc.  A buffer that grew
 * beyond its size (one large message) stays with its connection. */
#ifndef LDBENCH_RUN_BUFPOOL_H
#define LDBENCH_RUN_BUFPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ldb_conn;

struct ldb_bufpool {
	size_t in_size, out_size; /* every pooled buffer's size, per direction */
	void *free_in, *free_out; /* free lists, linked through the buffers' first bytes */
	size_t nfree_in, nfree_out;
	size_t made; /* buffers allocated so far (both kinds) */
	bool closed; /* the thread has ended: buffers given back are freed */
	/* connections give their buffers back when idle or closed (--held:
	 * thousands of idle connections); else a connection keeps what it took,
	 * so that a busy load does not take and give per operation */
	bool lend;
};

void ldb_bufpool_init(struct ldb_bufpool *p, size_t in_size, size_t out_size, bool lend);
/* Free what the pool holds; later gives free their buffers. */
void ldb_bufpool_close(struct ldb_bufpool *p);

/* The connection's buffers, taken from its I/O thread's pool if it holds
 * none.  @return 0, or -1 out of memory. */
int ldb_bufs_take(struct ldb_conn *cn);
/* Back to the pool when the connection is idle: nothing in flight, nothing
 * buffered either way (else nothing happens). */
void ldb_bufs_idle(struct ldb_conn *cn);
/* Back to the pool whatever they hold (the connection closed). */
void ldb_bufs_give(struct ldb_conn *cn);

#endif
