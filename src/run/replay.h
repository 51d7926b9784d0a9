/* `ldbench replay LOG...`: a server's access log sent to a target
 * (docs/replay.md for the user's view, docs/design.md "Replay" for the
 * design).
 *
 * One part, or --threads N, each an I/O thread of the engine (run/iothread,
 * run/conn over run/link) with the recorded connections whose number hashes
 * to it (run/replay_run starts them and merges their results).  One feeder
 * (run/replay_feed), pumped by the part's I/O thread with one thread, run by
 * a reader thread dealing to every part's ring with more (each log opened
 * and read once), reads the log with logs/slog, keeps one pending request
 * per recorded connection (OpenLDAP writes a search's attributes and a
 * bind's mechanism on a second line), encodes each request's protocolOp
 * with proto/wire into a slot of the connection's part's ring and publishes
 * it; it may allocate (liblber) and never waits inside a pump: it goes as
 * far as the rings' room and the free connection indexes allow (the reader
 * thread then sleeps on an eventfd until a part gives some back).  The
 * replay is the I/O thread's request source (run/replay_source,
 * LDB_SOURCE_REPLAY of run/source.h): it moves the published slots into
 * per-connection queues, sends each when it is due and its connection
 * allows it (in order; a pipelined request without waiting for the
 * previous answer), counts the answers the engine frames to its slots,
 * records latencies and compares results.  The I/O thread allocates nothing
 * per request (with TLS, a connection's session object when its handshake
 * starts: run/link.h), takes no lock and prints nothing after its start;
 * the parts share nothing while they run but a stop flag, and each its ring
 * with the reader thread.  Memory per part: the ring's slots, and per
 * replay connection (at most conf.max_conns open at once) its buffers:
 * never the log's size. */
#ifndef LDBENCH_RUN_REPLAY_H
#define LDBENCH_RUN_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/target.h"
#include "logs/slog.h"
#include "run/histogram.h"
#include "run/stats.h"

/* Why an operation of the log was not sent. */
enum ldb_rp_skip {
	LDB_RP_SKIP_NONE = 0,
	LDB_RP_SKIP_NO_PASSWORD, /* a simple bind whose DN has no password */
	LDB_RP_SKIP_SASL,        /* a SASL bind: the exchange is not in the log */
	LDB_RP_SKIP_WRITE,       /* add/modify with --writes skip: no content */
	LDB_RP_SKIP_NO_AUDIT,    /* a write --audit-log had no change for */
	LDB_RP_SKIP_NO_NEWRDN,   /* a rename without its new RDN (OpenLDAP) */
	LDB_RP_SKIP_EXTOP,       /* StartTLS, password modify: not without a value */
	LDB_RP_SKIP_BAD_REQUEST, /* a field that cannot be encoded (filter ...) */
	LDB_RP_SKIP_TOO_BIG,     /* a request larger than a ring slot */
	LDB_RP_SKIP_CONN_FAILED, /* its connection could not be opened */
	LDB_RP_SKIP_CONN_LOST,   /* its connection was closed by the target */
	LDB_RP_NSKIPS
};

enum ldb_rp_timing { LDB_RP_ASAP = 0, LDB_RP_RECORDED };
enum ldb_rp_writes { LDB_RP_WRITES_SKIP = 0, LDB_RP_WRITES_SYNTHETIC };
enum ldb_rp_unmapped { LDB_RP_UNMAPPED_SKIP = 0, LDB_RP_UNMAPPED_ANON };

struct ldb_rp_pw; /* passwords (run/replay_pw) */
struct ldb_tls;   /* the run's TLS context (run/tls.h) */

#define LDB_RP_MAX_THREADS 64 /* parts (I/O threads), at most */

struct ldb_rp_conf {
	const char *const *logs;
	size_t nlogs;
	const struct ldb_target *target; /* the server, its TLS (conf/target.h) */
	enum ldb_rp_timing timing;
	double speed;             /* recorded timing: 2 = twice as fast */
	int64_t from_ns, to_ns;   /* window, absolute; INT64_MIN / INT64_MAX */
	int64_t from_rel, to_rel; /* +DURATION after the first line, -1 */
	unsigned loops;           /* 1 = once */
	enum ldb_rp_writes writes;
	enum ldb_rp_unmapped unmapped;
	const struct ldb_rp_pw *pw; /* may be NULL: every non-anonymous bind unmapped */
	const char *const *audit;   /* --audit-log files, naudit of them (0: none) */
	size_t naudit;
	unsigned max_conns;        /* replay connections open at once, per part */
	unsigned threads;          /* parts (I/O threads) (0 taken as 1) */
	int64_t drain_ns;          /* at the end: how long answers are waited for */
	const struct ldb_tls *tls; /* TLS to the target (run/tls.h, from target->tls), NULL: plain LDAP */
};

/* Examples kept per kind and per skip reason. */
#define LDB_RP_EXAMPLES 3
#define LDB_RP_DN_EXAMPLE 160

struct ldb_rp_diff {
	int64_t conn, op;     /* the recorded connection and operation */
	int rec_err, got_err; /* result codes */
	int64_t rec_n, got_n; /* entries (searches), -1 not logged */
};

struct ldb_rp_kind_stats {
	uint64_t read;     /* requests of this type in the window */
	uint64_t sent;     /* replayed */
	uint64_t answered; /* answers received (not unbind/abandon) */
	uint64_t compared; /* answered with a recorded result to compare */
	uint64_t differ;   /* result code or entry count differ */
	uint64_t diff_code, diff_entries;
	unsigned ndiff_ex;
	struct ldb_rp_diff diff_ex[LDB_RP_EXAMPLES];
	struct ldb_hist lat;            /* from the intended time (recorded) or the send (asap) */
	uint64_t codes[LDB_CODE_SLOTS]; /* the answers' result codes (ldb_code_slot), 0 included */
};

/* The counters the replay's sampler reads while the part runs
 * (report/replay_sampler, for the live metrics): kind[].read, .sent,
 * .differ, .codes, skipped, ops_conn_failed, ops_conn_lost, unanswered.
 * Their one writer (the part's I/O thread, which with one thread pumps the
 * feeder too) adds with a relaxed atomic store (no lock, no
 * read-modify-write); the sampler reads with relaxed atomic loads. */
static inline void ldb_rp_bump(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, *p + n, __ATOMIC_RELAXED);
}

struct ldb_rp_result {
	/* the feeder's */
	uint64_t skipped[LDB_RP_NSKIPS];
	uint64_t first_line[LDB_RP_NSKIPS][LDB_RP_EXAMPLES]; /* log line numbers, 0 none */
	char no_pw_dn[LDB_RP_EXAMPLES][LDB_RP_DN_EXAMPLE];   /* first DNs without password */
	unsigned nno_pw_dn;
	uint64_t unmapped_anon; /* binds sent anonymously (--unmapped-binds anonymous) */
	uint64_t synthetic;     /* writes sent with synthetic content */
	uint64_t audit_sent;    /* writes sent with their audit log's content */
	uint64_t audit_changes, audit_unmatched, audit_dropped_attrs; /* the audit reader's */
	uint64_t conns_read; /* recorded connections in the window (its first pass) */
	unsigned passes;     /* passes of the window started (--loop) */
	int64_t window_ns;   /* the log window's length */
	int64_t first_ns;    /* its start (log time) */
	int format;          /* enum ldb_slog_format */
	struct ldb_slog_stats slog;
	char place_file[LDB_SLOG_NSKIPS][LDB_SLOG_FIRST_LINES][128]; /* slog's places' files */
	char error[600];                                             /* a read error part way, "" if none */
	/* the part's */
	struct ldb_rp_kind_stats kind[LDB_SLOG_NOPTYPES];
	uint64_t conns_opened, conns_failed, conns_lost;
	uint64_t ops_conn_failed, ops_conn_lost; /* not sent: their connection failed, was lost */
	uint64_t unanswered;                     /* requests still unanswered when the drain ended */
	uint64_t proto_errors;                   /* answers that were not LDAP */
	struct ldb_hist late;                    /* how late each request was sent against its schedule */
	int64_t elapsed_ns;                      /* from the first due time to the last answer */
	char conn_error[200];                    /* the first connection failure's reason */
	bool interrupted;                        /* SIGINT or SIGTERM stopped it (what was sent is reported) */
};

/** Replay conf's logs to the target; fills *res (ldb_rp_result_init first).
 *  @return 0 done, 2 the log cannot be opened (err said, nothing sent), 99
 *  out of memory at start. */
int ldb_replay_run(const struct ldb_rp_conf *conf, struct ldb_rp_result *res, char *err, size_t errlen);

int ldb_rp_result_init(struct ldb_rp_result *res);
void ldb_rp_result_free(struct ldb_rp_result *res);
const char *ldb_rp_skip_name(enum ldb_rp_skip s);

/* Passwords (run/replay_pw). */
/** Add a DN<TAB>password file.  @return 0, or -1 with one line in err. */
int ldb_rp_pw_load(struct ldb_rp_pw **pw, const char *path, char *err, size_t errlen);
/** The default password (copied).  @return 0 or -1 (out of memory). */
int ldb_rp_pw_default(struct ldb_rp_pw **pw, const char *password);
/** A rule "REGEX=REPLACEMENT" (\1..\9), or "ldbench" (the password of
 *  `ldbench gen users`: the first RDN's uid value).  @return 0 or -1 (err). */
int ldb_rp_pw_rule(struct ldb_rp_pw **pw, const char *rule, char *err, size_t errlen);
/** The password of dn (n bytes) into out (cap), NUL-terminated: the map
 *  first, then the rule, then the default.  @return its length, or -1. */
int ldb_rp_pw_find(const struct ldb_rp_pw *pw, const char *dn, size_t n, char *out, size_t cap);
void ldb_rp_pw_free(struct ldb_rp_pw *pw);

/* ---- the ring between the feeder and the part (private to run/replay*) */
enum ldb_rp_msg { LDB_RP_MSG_OPEN = 1, LDB_RP_MSG_REQ, LDB_RP_MSG_RECRES, LDB_RP_MSG_CLOSE, LDB_RP_MSG_END };

#define LDB_RP_SLOT_BYTES 4096

struct ldb_rp_slot {
	uint8_t msg;      /* enum ldb_rp_msg */
	uint8_t type;     /* enum ldb_slog_optype */
	bool pipelined;   /* sent without waiting for the previous answer */
	bool has_rec;     /* rec_err, rec_n known */
	bool done;        /* the part's: consumed */
	uint32_t conn;    /* the replay connection's index */
	int64_t rec_conn; /* recorded connection and operation */
	int64_t op;
	int64_t due_ns; /* offset from the replay's start */
	int rec_err;
	int64_t rec_n;
	int32_t next;          /* the part's: next slot of the connection's queue */
	uint32_t len;          /* protocolOp bytes */
	uint64_t after_closes; /* OPEN: the CLOSEs published before it */
	uint8_t ber[LDB_RP_SLOT_BYTES];
};

struct ldb_rp_ring {
	struct ldb_rp_slot *slot;
	uint32_t size;         /* a power of two */
	_Atomic uint64_t head; /* published by the feeder (release) */
	_Atomic uint64_t tail; /* released by the part (release) */
	/* the replay indexes free: neither an open recorded connection's nor a
	 * socket's the part has yet to close (a stack: the last freed first);
	 * the feeder's (with one thread, the part pushes on it itself) */
	uint32_t *free_idx, nfree;
	uint64_t closes; /* the feeder's: CLOSE messages published */
	/* With --threads above 1 the feeder runs in a reader thread of its own
	 * (run/replay_run): shared is set, the part hands closed indexes back
	 * through ret (single producer: the part; single consumer: the
	 * feeder; rsize slots, a power of two), and each side wakes the other
	 * through an eventfd when it sleeps. */
	bool shared;
	uint32_t *ret, rsize;
	_Atomic uint64_t rhead, rtail;
	_Atomic bool sleeping; /* the part waits (its wake_fd wakes it) */
	int wake_fd;           /* eventfd in the part's epoll (-1 with one thread) */
};

/* The feeder (run/replay_feed): the log's events into the rings, as much as
 * their room and free indexes allow (in the part's thread with one, in
 * the reader thread with more). */
struct ldb_rp_feed;
/** The feeder of nrings parts (I/O threads)' rings (one: the part's thread
 *  pumps it; more: the reader thread does, each recorded connection to the
 *  ring its number hashes to).  NULL: err said. */
struct ldb_rp_feed *ldb_rp_feed_new(const struct ldb_rp_conf *conf, struct ldb_rp_ring *rings, unsigned nrings,
                                    struct ldb_rp_result *res, char *err, size_t errlen);
/** Events read and published until about budget slots are published, the
 *  ring is full or no index is free.  @return the slots published; *done
 *  set once the END message is (on every ring). */
uint32_t ldb_rp_feed_pump(struct ldb_rp_feed *f, uint32_t budget, bool *done);
/** Whether the last pump stopped for want of room or of a free index in a
 *  ring (not for its budget). */
bool ldb_rp_feed_blocked(const struct ldb_rp_feed *f);
/** The replay stopped before the END message (a signal): the reader's and
 *  the audit log's statistics kept as far as read, the window as far as
 *  read when its pass had not ended. */
void ldb_rp_feed_stop(struct ldb_rp_feed *f);
void ldb_rp_feed_free(struct ldb_rp_feed *f);

#endif
