/* --op-log FILE: one fixed-size record per operation of the load, for the
 * join with the server's access log (report/join).  Each I/O thread appends
 * to its own preallocated ring (no allocation, no lock, no system call); a
 * writer thread drains the rings to the file every OPLOG_DRAIN_MS and once
 * more at the end.  A full ring drops the record and counts it: the hot loop
 * never waits.  File: a 64-byte header, then the records (docs/results.md
 * "The op-log"). */
#ifndef LDBENCH_RUN_OPLOG_H
#define LDBENCH_RUN_OPLOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each connection's tag (run/setup.c): (description=ldbench-RUNID-CONN),
 * RUNID 8 hex digits, CONN the connection's number in 10 digits. */
#define LDB_TAG_DIGITS 10
#define LDB_TAG_PREFIX "ldbench-"

#define LDB_OPLOG_MAGIC "LDBOPLG1"
/* 1: a 64-byte header without t_measure, interval_ns; 2: the login's group
 * step and the flows' rows numbered otherwise (join does not read them) */
#define LDB_OPLOG_VERSION 3
#define LDB_OPLOG_HEAD_V1 64
#define LDB_OPLOG_RING 65536 /* records per I/O thread: 2 MiB, drained every 100 ms */
#define LDB_OPLOG_DRAIN_MS 100

/* Flags of a record. */
#define LDB_OPREC_MEASURED 1   /* completed in the measured window (after the warm-up) */
#define LDB_OPREC_NORESPONSE 2 /* a kind the server does not answer (abandon): no result to join */

/* One operation, 32 bytes, little-endian as the host writes it. */
struct ldb_oprec {
	uint64_t t_sent; /* ns since the run started (monotonic) */
	uint64_t lat;    /* ns from the send to the result (the service time, --rate's lag aside) */
	uint32_t conn;   /* the run's connection number (1, 2, ...: the tag's number) */
	uint32_t order;  /* its request's position on the connection, from 0: the server's op= */
	int32_t rc;      /* the result code (-1: no response) */
	uint8_t kind;    /* enum ldb_op */
	uint8_t flags;   /* LDB_OPREC_* */
	uint16_t pad;
};

/* The file's header, 80 bytes (version 1's: its first 64). */
struct ldb_oplog_head {
	char magic[8];        /* LDB_OPLOG_MAGIC */
	uint32_t version;     /* LDB_OPLOG_VERSION */
	uint32_t recsize;     /* sizeof (struct ldb_oprec) */
	uint32_t run_id;      /* the tag's run id: (description=ldbench-RUNID-CONN) */
	uint32_t nkinds;      /* LDB_OP_COUNT when written */
	uint64_t t0_wall_ns;  /* the run's start, wall clock (ns since the epoch) */
	uint64_t records;     /* records written */
	uint64_t dropped;     /* records lost to full rings */
	uint64_t t_end;       /* the run's end, ns since the start */
	uint32_t tag_order;   /* the tag's position on its connection (1 after a StartTLS, else 0) */
	uint32_t flags;       /* LDB_OPLOG_F_* (version 1: 0) */
	uint64_t t_measure;   /* the measurement's start (after the warm-up), ns since the start */
	uint64_t interval_ns; /* the run's sample interval (-S, --interval): the join's per-sample windows */
};

/* Flags of the header. */
#define LDB_OPLOG_F_RATE \
	1 /* --rate: the run's latency counts from the intended start; the
                            * records' lat from the send */

/* One I/O thread's ring: the thread writes head, the writer tail. */
struct ldb_oplog_ring {
	struct ldb_oprec *rec;
	uint64_t head;
	char pad1[56];
	uint64_t tail;
	char pad2[56];
	uint64_t dropped; /* the I/O thread's count; read at the end */
};

struct ldb_oplog {
	int fd;
	char *path;
	struct ldb_oplog_head head;
	struct ldb_oplog_ring *rings;
	int nrings;
	pthread_t writer;
	bool writing;
	int stop;
	int write_errno; /* the first failed write */
};

/* Hot path: append one record (or count it dropped). */
static inline void ldb_oplog_put(struct ldb_oplog_ring *g, const struct ldb_oprec *r)
{
	uint64_t tail = __atomic_load_n(&g->tail, __ATOMIC_ACQUIRE);
	if (g->head - tail >= LDB_OPLOG_RING) {
		g->dropped++;
		return;
	}
	g->rec[g->head & (LDB_OPLOG_RING - 1)] = *r;
	__atomic_store_n(&g->head, g->head + 1, __ATOMIC_RELEASE);
}

/* Create FILE (truncated) and nrings rings.  @return 0, or -1 with one line in err. */
int ldb_oplog_open(struct ldb_oplog *o, const char *path, int nrings, uint32_t run_id, char *err, size_t cap);
/* The run starts now: the header's wall clock (records count from the run's t_start). */
void ldb_oplog_set_start(struct ldb_oplog *o);
/* Start the writer thread.  @return 0, or -1 with one line in err. */
int ldb_oplog_start(struct ldb_oplog *o, char *err, size_t cap);
/* After the I/O threads have ended: the last records, the header's totals.
 * @return 0, or -1 with one line in err (a write failed). */
int ldb_oplog_finish(struct ldb_oplog *o, uint64_t t_end, char *err, size_t cap);
void ldb_oplog_free(struct ldb_oplog *o);

#endif
