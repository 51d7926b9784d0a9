/* The public face of a run's clients and I/O threads: a client (one of -n's,
 * ldclt's "thread") owns its connections, random generator and counters; an
 * I/O thread carries several clients on one epoll set and owns their latency
 * histograms.  See docs/design.md. */
#ifndef LDBENCH_RUN_RUN_H
#define LDBENCH_RUN_RUN_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf/config.h"
#include "ops/ops.h"
#include "run/tls.h"
#include "ops/request.h"
#include "values/rng.h"
#include "run/stats.h"
#include "run/timers.h"
#include "run/repl.h"
#include "run/bufpool.h"

/* Why a run stops (main thread's view). */
enum ldb_stop { LDB_STOP_NONE = 0, LDB_STOP_DONE, LDB_STOP_SIGNAL, LDB_STOP_MAX_ERRORS };

/* What every worker shares: read-only after start, but for the atomics. */
struct ldb_run {
	const struct ldb_config *cfg; /* the load's configuration; NULL for the replay */
	struct sockaddr_storage addr; /* the server, resolved once */
	socklen_t addrlen;
	char host_name[256];    /* the server's name as given (-h, or -H's host) */
	struct ldb_ops_run ops; /* the operations' templates (search, bind) */
	struct ldb_reqset unbind, starttls;
	struct ldb_reqset marker; /* with an unanswered kind: a WhoAmI sent before the goodbye */
	struct ldb_tls *tls;      /* ldaps or StartTLS: the run's one context */
	/* What one operation of the load is: a pass through these kinds (ldclt's
	 * combined -e operations, in its order), each step with the same number;
	 * or, with --mix, one kind drawn by weight. */
	uint8_t pass[LDB_OP_COUNT];
	int npass;
	uint32_t mix_cum[LDB_OP_COUNT]; /* cumulative weights */
	uint32_t mix_total;
	bool load_kind[LDB_OP_COUNT]; /* kinds that count as operations */
	enum ldb_op main_op;          /* the first (or heaviest) of them */
	bool bind_on_connect;         /* a bind opens each connection */
	enum ldb_op bind_kind;        /* the kind of that bind (the row with connect_bind) */
	bool writes;                  /* some kind renders through the write scratch (ops/dn.h) */
	bool make_parents;            /* an add that gets 32 creates its parents first */
	bool unanswered;              /* a kind gets no response: the goodbye waits for the server */
	bool rename_pair;             /* incr: a pass takes two numbers (rename's entry and new name) */
	uint8_t source;               /* enum ldb_source (run/source.h): what feeds the connections */
	/* the engine's settings that each source's set-up fills (the load's from
	 * its configuration, run/setup.c; the replay's, run/replay_source.c):
	 * nothing under the engine reads a configuration, the replay's run has none */
	bool bindeach;           /* a connection per pass: its stages timed */
	bool count_deref;        /* --deref: the entries' dereferenced values counted */
	uint8_t referral_follow; /* -e referral=: LDB_REFERRAL_* */
	int depth;               /* requests in flight per connection */
	uint64_t timeout_ns;
	uint64_t rate_interval_ns; /* --rate: time between one client's intended starts */
	uint64_t rate_step_ns;     /* the same now: --rate-profile moves it (main thread, relaxed) */
	uint64_t t_start;          /* when the I/O threads were started (set before them): --ramp-up's origin */
	/* shared, lock-free */
	int stop;                           /* enum ldb_stop, set once */
	int measuring;                      /* warm-up over: clients restart their counters */
	int64_t common_counter;             /* commoncounter's next value */
	uint64_t err_total[LDB_CODE_SLOTS]; /* for -E: only touched on errors */
	int max_error_code;                 /* the code that passed -E */
	int connect_error; /* why the first TCP connect failed: an errno, -1 closed before answering; set once */
	/* --op-log, --server-log: each connection's tag, a base search of the root
	 * DSE with the filter (description=ldbench-RUNID-CONN), encoded once; the
	 * connection's number written over its last LDB_TAG_DIGITS bytes */
	uint8_t *tag_op; /* the protocolOp; NULL without the join */
	size_t tag_len, tag_digits_at;
	uint32_t run_id;   /* 8 hex digits in the tag */
	uint32_t conn_seq; /* the last connection number given (atomic) */
	/* ldclt's line per failed operation (run/errlines.c) */
	char line_prefix[80]; /* "NAME[PID]: " */
	int line_fd;          /* where the text output goes (stdout by default) */
	/* the engine's settings read off the hot path (filled as bindeach's) */
	bool close_sock;      /* a connection ends without an unbind (ldclt's -e close) */
	bool smooth_shutdown; /* the end waits for the answers (-e smoothshutdown) */
	bool held;            /* --held: run/held picks the connections */
	bool held_track;      /* --held or --connect-rate: run/held follows the connections' states */
	bool source_addrs;    /* --source-address: each connect from the next in turn */
	int nclients;         /* the clients of the run (-n) */
	uint64_t ramp_up_ns;  /* --ramp-up: the clients' first connects spread over it */
	/* the server, its TLS and who binds (conf/target.h), from cfg; last, so
	 * that the fields above keep the cache lines the hot loop reads them in */
	struct ldb_target target;
};

/* A client's limit on its error lines: a few codes, lines printed and held
 * back in the current second. */
#define LDB_ERRLIM_CODES 4
struct ldb_errlim {
	uint64_t window; /* when the current second began */
	int code[LDB_ERRLIM_CODES];
	bool used[LDB_ERRLIM_CODES];
	uint32_t printed[LDB_ERRLIM_CODES];
	uint64_t held[LDB_ERRLIM_CODES];
};

struct ldb_conn;
struct ldb_chase;
struct ldb_oplog_ring;
struct ldb_iothread;

/* One of ldclt's "threads" (-n): a logical client with its own connections,
 * generator and counters.  Several share one I/O thread (struct ldb_iothread). */
struct ldb_client {
	int id;
	struct ldb_run *run;
	struct ldb_thread_stats *st;
	struct ldb_lat *lat; /* its I/O thread's histograms */
	struct ldb_rng rng;
	int64_t incr_next;           /* incr without commoncounter */
	bool exhausted;              /* noloop reached the top, or -T reached */
	int epfd;                    /* the runner's epoll set */
	struct ldb_iothread *runner; /* its I/O thread: deadlines, ready list */
	struct ldb_timer pace;       /* -W, --rate: when it may start its next operation */
	bool ended;
	uint64_t smooth_deadline;
	struct ldb_conn *conns;
	int nconns;
	uint64_t outstanding;               /* operations issued, not finished */
	uint64_t next_op_at;                /* -W pacing */
	uint64_t next_intended;             /* --rate: intended start of the next operation */
	uint64_t t_init;                    /* when ldb_client_init set the schedule up */
	struct ldb_wctx *wctx;              /* write requests' scratch, when the run writes */
	struct ldb_vpc *vpc;                /* its value patterns' states, when the run has any */
	struct ldb_tls_session tls_session; /* --tls-resume's session, the verified chain */
	bool measuring;                     /* this client has seen the end of warm-up */
	char note[160];                     /* a line to print when the thread ends */
	struct ldb_errlim errlim;           /* its error lines (run/errlines.c) */
	uint64_t pending_at_end;            /* requests still unanswered when it ended */
	struct ldb_chase *chase;            /* -e referral=on|rebind: its own connection (run/chase.c) */
	struct ldb_vp_state *proxy_st;      /* --proxy-as: its share of the identity's pattern */
	char *proxy_buf;                    /* the identity of one request, rendered */
	size_t proxy_cap;
	void *src; /* its request source's own state (the replay's, run/replay_source.c); NULL: the load's */
};

/* Set up a run's shared part from a checked config (resolve the server,
 * build the request templates).  @return 0, or -1 with one line in err. */
int ldb_run_init(struct ldb_run *run, const struct ldb_config *cfg, char *err, size_t cap);
void ldb_run_free(struct ldb_run *run);

/* Why connects failed, for a run that could open none: the server as
 * "NAME (ADDRESS:PORT)" (or "ADDRESS:PORT" when the name is the address)
 * and the first failed connect's reason ("Connection refused").  @return
 * false when no connect failed. */
bool ldb_run_connect_error(const struct ldb_run *run, char *where, size_t wcap, char *why, size_t ycap);

/* An I/O thread: one epoll set over the connections of its workers. */
struct ldb_iothread {
	pthread_t thread;
	struct ldb_client *w; /* its workers, contiguous */
	int nw;
	struct ldb_lat lat;   /* latency of all its workers (of the first workload's, with [workload] sections) */
	struct ldb_lat *xlat; /* [workload] sections: the other workloads' histograms (nxlat), for their clients */
	int nxlat;
	const struct ldb_run *runs[16]; /* the runs of its clients (one; [workload] sections: each workload's) */
	int nruns;
	/* Only what is ready is handled: connections with an epoll event, those
	 * on the ready list (work without an event), and the due deadlines of
	 * the heap (timeouts, back-offs, pacing), all set up by the thread. */
	struct ldb_timers timers;
	struct ldb_conn *ready, **ready_tail;
	char error[160];                  /* set when the runner could not start */
	int tid;                          /* its kernel thread id once it runs (release), for the sampler's schedstat */
	uint64_t cpu_end_ns, wait_end_ns; /* its own CPU and run-queue wait as it ended (before lat.ended) */
	struct ldb_repl_tap *repl;        /* -S: where its confirmed writes are offered; NULL without */
	struct ldb_oplog_ring *oplog;     /* --op-log: its records' ring; NULL without */
	/* its connections' buffers, lent while they are busy: a cache line of its own */
	alignas(64) struct ldb_bufpool bufs;
};

int ldb_client_init(struct ldb_client *w, struct ldb_run *run, int id, struct ldb_thread_stats *st);
void ldb_client_free(struct ldb_client *w);
void *ldb_iothread_main(void *arg);

#endif
