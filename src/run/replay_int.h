/* Private to run/replay*: a recorded request waiting for its last line, and
 * its encoding. */
#ifndef LDBENCH_RUN_REPLAY_INT_H
#define LDBENCH_RUN_REPLAY_INT_H

#include "proto/wire.h"
#include "run/replay.h"

#define LDB_RP_PEND_BUF 4096
/* A request logged less than this before the previous request's result is
 * taken as sent after that answer (docs/replay.md, "Pipelining"). */
#define LDB_RP_PIPE_TOL_NS 250000

/* Strings of a pending request, each NUL-terminated in buf; off 0: absent. */
enum {
	LDB_RP_F_DN,
	LDB_RP_F_FILTER,
	LDB_RP_F_ATTRS,
	LDB_RP_F_NEWRDN,
	LDB_RP_F_NEWSUP,
	LDB_RP_F_OID,
	LDB_RP_F_ATTR,
	LDB_RP_F_METHOD,
	LDB_RP_F_MECH,
	LDB_RP_F_N
};

struct pend {
	bool has;
	uint8_t type; /* enum ldb_slog_optype */
	int64_t op, time_ns, abandon;
	int64_t after; /* pipelined after this request (its op), -1 */
	uint64_t line;
	int scope, deref, deleteoldrdn;
	bool too_big, pipelined;
	uint16_t off[LDB_RP_F_N];
	uint16_t used;
	char buf[LDB_RP_PEND_BUF];
};

/** The protocolOp of p into out (emptied first), or why it is not sent
 *  (the skip counted by the caller; a bind's DN without password noted in
 *  res).  Feeder thread only. */
enum ldb_rp_skip ldb_rp_encode(const struct ldb_rp_conf *conf, const struct pend *p, struct ldb_bytes *out,
                               struct ldb_rp_result *res);

#endif
