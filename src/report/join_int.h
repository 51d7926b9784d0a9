/* Private to report/join*: what the join (report/join) hands its per-sample
 * figures (report/join_sample). */
#ifndef LDBENCH_REPORT_JOIN_INT_H
#define LDBENCH_REPORT_JOIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/join.h"
#include "run/oplog.h"

/* What the log said of one record (32 bytes).  While the log is read, of
 * one op= of a tagged connection instead (its slot: report/join.c). */
struct ldb_join_res {
	int64_t etime, queue, proc; /* ns; queue, proc -1: not logged */
	uint8_t notes;              /* LDB_SLOG_NOTE_* */
	uint8_t type;               /* the logged request's type (enum ldb_slog_optype; 0: no request line) */
	bool joined;                /* joined (while the log is read: a RESULT line came) */
	bool int_etime;             /* a whole-second etime */
};

/* The run's records sorted by connection and order, each with what the log
 * said (joined: counted as joined, the kind checked), and the sample
 * windows. */
struct ldb_join_view {
	const struct ldb_oprec *rec;
	const struct ldb_join_res *res;
	size_t n;
	uint64_t t_measure, interval_ns;
};

/* The per-sample figures of the measured records that have a response,
 * into j->samples.  Memory: 4 bytes a record and the largest window's
 * values, for the time of the call.  @return 0, or -1 when memory ran out. */
int ldb_join_samples(struct ldb_join *j, const struct ldb_join_view *v);

#endif
