/* The join of the op-log with the server's access log: see join.h.  The
 * analysis in its parts (report/join_int.h): the op-log read, the logs read
 * into the tables, the wait for a buffered log (each pass resumes where the
 * last one stopped), the alignment, the figures, the verdict.
 *
 * Memory: the records (32 bytes each) and their results (32 bytes: while
 * the log is read, a table of the tagged connections' op= lines, aligned
 * in place at the end), the lines outside the tables; while a buffered log
 * is waited for, a copy of the tables (32 bytes a record), never the log. */
#include "report/join.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/join_int.h"

const char *const ldb_jfig_name[LDB_JF_COUNT] = { "client", "etime", "queue", "processing", "outside" };
const char *const ldb_jmiss_name[LDB_JM_COUNT] = { "connection's tag not in the log",
	                                           "no RESULT line for its op=", "no response by design",
	                                           "logged as another kind" };

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The passes over the logs: the first from their start; while the run's
 * last operation is not in them, up to wait_ms, every 200 ms a pass over
 * what they gained since (389 DS's buffered access log).  @return 0, or -1
 * with one line in err. */
static int wait_for_log(struct ldb_jstate *st, struct ldb_join *j, const char *const *logs, int nlogs, uint64_t wait_ms,
                        char *err, size_t cap)
{
	uint64_t t0 = now_ms();
	size_t joined = 0, before, answered;
	int stable = 0, rc = 0;
	if (wait_ms > 0 && (st->tab = malloc((st->n > 0 ? st->n : 1) * sizeof *st->tab)) == NULL) {
		snprintf(err, cap, "out of memory for the log's results");
		return -1;
	}
	for (bool first = true;; first = false) {
		before = joined;
		rc = first ? ldb_join_read_logs(st, j, logs, nlogs, err, cap) : ldb_join_slog_resume(st, j, err, cap);
		j->last_seen = ldb_join_last_joined(st, &joined, &answered);
		j->waited_ms = now_ms() - t0;
		stable = joined == before ? stable + 1 : 0;
		/* the last result in the log is not the end: another thread
		 * (descheduled between its answer and its line) may write one
		 * later: read again until a second passes without a new one */
		if (rc != 0 || joined == answered || j->waited_ms >= wait_ms || (j->last_seen && stable >= 5))
			break;
		struct timespec nap = { 0, 200 * 1000000L };
		nanosleep(&nap, NULL);
	}
	return rc;
}

static void free_state(struct ldb_jstate *st)
{
	ldb_join_slog_free(st);
	free(st->rec);
	free(st->conn);
	free(st->res);
	free(st->over);
	free(st->map.key);
	free(st->map.val);
}

int ldb_join_run(struct ldb_join *j, const char *oplog_path, const char *const *logs, int nlogs, uint64_t wait_ms,
                 char *err, size_t cap)
{
	struct ldb_jstate st = { 0 };
	memset(j, 0, sizeof *j);
	int rc = ldb_join_read_oplog(&st, oplog_path, err, cap);
	if (rc == 0 && ldb_join_index(&st) != 0) {
		snprintf(err, cap, "%s: out of memory for the join", oplog_path);
		rc = -1;
	}
	if (rc == 0) {
		j->run_id = st.head.run_id;
		j->records = st.n;
		j->dropped = st.head.dropped;
		st.tag_head_len =
		        (size_t)snprintf(st.tag_head, sizeof st.tag_head, LDB_TAG_PREFIX "%08x-", st.head.run_id);
		rc = wait_for_log(&st, j, logs, nlogs, wait_ms, err, cap);
	}
	if (rc == 0 && ldb_join_tally(&st, j) != 0) {
		snprintf(err, cap, "out of memory for the join's histograms");
		rc = -1;
	}
	free_state(&st);
	if (rc != 0) {
		ldb_join_free(j);
		return -1;
	}
	ldb_join_conclude(j);
	return 0;
}
