/* --op-log: see oplog.h. */
#include "run/oplog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops/ops.h"
#include "run/clock.h"

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int ldb_oplog_open(struct ldb_oplog *o, const char *path, int nrings, uint32_t run_id, char *err, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		snprintf(err, cap, "--op-log %s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	o->path = strdup(path);
	o->rings = calloc((size_t)nrings, sizeof *o->rings);
	o->nrings = nrings;
	for (int i = 0; o->rings != NULL && i < nrings; i++) {
		o->rings[i].rec = malloc(LDB_OPLOG_RING * sizeof(struct ldb_oprec));
		if (o->rings[i].rec == NULL)
			break;
		memset(o->rings[i].rec, 0,
		       LDB_OPLOG_RING * sizeof(struct ldb_oprec)); /* touched now, not in the loop */
	}
	if (o->path == NULL || o->rings == NULL || o->rings[nrings - 1].rec == NULL) {
		snprintf(err, cap, "--op-log: out of memory for %d buffers", nrings);
		return -1;
	}
	struct ldb_oplog_head *h = &o->head;
	memcpy(h->magic, LDB_OPLOG_MAGIC, 8);
	h->version = LDB_OPLOG_VERSION;
	h->recsize = sizeof(struct ldb_oprec);
	h->run_id = run_id;
	h->nkinds = LDB_OP_COUNT;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	h->t0_wall_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (write_all(o->fd, h, sizeof *h) != 0) {
		snprintf(err, cap, "--op-log %s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void ldb_oplog_set_start(struct ldb_oplog *o)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	o->head.t0_wall_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Write what the rings hold (the writer thread, then the main thread at the end). */
static void drain(struct ldb_oplog *o)
{
	for (int i = 0; i < o->nrings; i++) {
		struct ldb_oplog_ring *g = &o->rings[i];
		uint64_t head = __atomic_load_n(&g->head, __ATOMIC_ACQUIRE), tail = g->tail;
		while (tail < head) {
			uint64_t at = tail & (LDB_OPLOG_RING - 1), n = head - tail;
			if (n > LDB_OPLOG_RING - at)
				n = LDB_OPLOG_RING - at;
			if (o->write_errno == 0 && write_all(o->fd, &g->rec[at], n * sizeof(struct ldb_oprec)) != 0)
				o->write_errno = errno ? errno : EIO;
			if (o->write_errno == 0)
				o->head.records += n;
			tail += n;
		}
		__atomic_store_n(&g->tail, tail, __ATOMIC_RELEASE);
	}
}

static void *writer_main(void *arg)
{
	struct ldb_oplog *o = arg;
	struct timespec nap = { 0, LDB_OPLOG_DRAIN_MS * 1000000L };
	while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
		nanosleep(&nap, NULL);
		drain(o);
	}
	return NULL;
}

int ldb_oplog_start(struct ldb_oplog *o, char *err, size_t cap)
{
	int rc = pthread_create(&o->writer, NULL, writer_main, o);
	if (rc != 0) {
		snprintf(err, cap, "--op-log: cannot start its writer thread: %s", strerror(rc));
		return -1;
	}
	o->writing = true;
	return 0;
}

int ldb_oplog_finish(struct ldb_oplog *o, uint64_t t_end, char *err, size_t cap)
{
	if (o->writing) {
		__atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
		pthread_join(o->writer, NULL);
		o->writing = false;
	}
	drain(o);
	for (int i = 0; i < o->nrings; i++)
		o->head.dropped += o->rings[i].dropped;
	o->head.t_end = t_end;
	if (o->write_errno == 0 && pwrite(o->fd, &o->head, sizeof o->head, 0) != (ssize_t)sizeof o->head)
		o->write_errno = errno ? errno : EIO;
	if (o->write_errno != 0) {
		snprintf(err, cap, "--op-log %s: cannot write: %s", o->path, strerror(o->write_errno));
		return -1;
	}
	return 0;
}

void ldb_oplog_free(struct ldb_oplog *o)
{
	if (o->path == NULL && o->rings == NULL)
		return; /* never opened */
	if (o->writing) {
		__atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
		pthread_join(o->writer, NULL);
		o->writing = false;
	}
	for (int i = 0; o->rings != NULL && i < o->nrings; i++)
		free(o->rings[i].rec);
	free(o->rings);
	free(o->path);
	if (o->fd >= 0)
		close(o->fd);
	memset(o, 0, sizeof *o);
}
