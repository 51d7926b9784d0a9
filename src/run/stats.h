/* Per-thread counters: single writer (the worker), read by the sampler with
 * relaxed atomic loads.  No lock anywhere; no read-modify-write atomics in the
 * hot path either: the owner loads, adds and stores. */
#ifndef LDBENCH_RUN_STATS_H
#define LDBENCH_RUN_STATS_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"
#include "ops/ops.h"
#include "proto/controls.h"
#include "run/histogram.h"

/* Result codes counted: LDAP's 0..122 and the client-side negative codes of
 * libldap (-1 server down, -5 timeout, -11 connect error, ...) down to -19;
 * anything else goes into one "illegal" slot, as ldclt does. */
#define LDB_CODE_MIN (-19)
#define LDB_CODE_MAX 122
#define LDB_CODE_SLOTS (LDB_CODE_MAX - LDB_CODE_MIN + 2)
#define LDB_CODE_ILLEGAL (LDB_CODE_SLOTS - 1)
static inline int ldb_code_slot(int code)
{
	return (code < LDB_CODE_MIN || code > LDB_CODE_MAX) ? LDB_CODE_ILLEGAL : code - LDB_CODE_MIN;
}

/* libldap's client-side codes that ldbench produces itself. */
#define LDB_RC_SERVER_DOWN (-1)
#define LDB_RC_TIMEOUT (-5)
#define LDB_RC_CONNECT_ERROR (-11)

/* Client failures by kind (the server never answered). */
enum ldb_fail { LDB_FAIL_CONNECT, LDB_FAIL_TLS, LDB_FAIL_TIMEOUT, LDB_FAIL_SERVER_DOWN, LDB_FAIL_COUNT };

/* How a client's last TCP connect that did not complete ended (a client that
 * never completed one is named by this in the summary). */
enum ldb_connect_end {
	LDB_CONNECT_END_NONE,    /* none failed: under way */
	LDB_CONNECT_END_PENDING, /* under way when the client ended */
	LDB_CONNECT_END_REFUSED,
	LDB_CONNECT_END_TIMEOUT, /* -t, or the system's own connect timeout */
	LDB_CONNECT_END_FAILED,  /* any other error */
};

/* A connection's set-up that failed before any operation of the load went on
 * it: the TCP connect, TLS, the bind that opens it, or a set-up request lost
 * with the connection.  Not an operation's error: its own counts, its codes
 * still in ldclt's "Global error" lines. */
struct ldb_setupstats {
	uint64_t fails[LDB_FAIL_COUNT]; /* the server never answered: connect (and its -t), tls, timeout, server down */
	uint64_t bind_refused;          /* the bind that opens a connection answered with an error */
	uint64_t codes[LDB_CODE_SLOTS]; /* their codes */
};

/* Counters of one operation kind. */
struct ldb_opstats {
	uint64_t attempted; /* requests sent */
	uint64_t completed; /* results received, any code */
	uint64_t succeeded; /* result 0 (compare: true or false) */
	uint64_t counted;   /* ldclt's count: successes, plus expected failures with counteach */
	uint64_t exp_hits;  /* searches returning the expected number of entries */
	uint64_t exp_misses;
	uint64_t entries;                      /* search entries received */
	uint64_t deref_values;                 /* -e deref: values the server dereferenced in them */
	uint64_t sort_results;                 /* --sort-order: sort response controls received */
	uint64_t sort_failed;                  /* of which with a sortResult other than 0 (not sorted) */
	uint64_t preread_entries;              /* --pre-read-attribute: entries in pre-read response controls */
	uint64_t postread_entries;             /* --post-read-attribute: entries in post-read response controls */
	uint64_t pages;                        /* --simple-page-size: pages received (results with a paged control) */
	uint64_t referrals;                    /* search references and referral results (10) received */
	uint64_t referrals_followed;           /* -e referral=on|rebind: of those, sent on to the referred server */
	uint64_t referrals_followed_ok;        /* and answered there with a success */
	uint64_t ppolicy_responses;            /* --ppolicy: password policy response controls received */
	uint64_t ppolicy[LDB_PP_COUNT];        /* their warnings and errors, by name (proto/controls.h) */
	uint64_t bad_password[LDB_NOTE_COUNT]; /* --bad-password: wrong passwords refused, accepted, other */
	uint64_t codes[LDB_CODE_SLOTS];        /* non-zero results and client codes */
	uint64_t fails[LDB_FAIL_COUNT];
};

/* Connection stages, timed separately with bindeach: the TCP connect, the TLS
 * handshake (ldaps, or StartTLS and its handshake), the whole cycle; and,
 * when a kind of the run is made of several requests (a multi-step SASL
 * bind, a paged search), each of their round trips (a request to its
 * result), the operation's own latency being the whole exchange. */
enum ldb_stage { LDB_STAGE_CONNECT, LDB_STAGE_CYCLE, LDB_STAGE_TLS, LDB_STAGE_ROUND, LDB_STAGE_COUNT };
const char *ldb_stage_name(enum ldb_stage s); /* "connect", "cycle", "tls", "round" */
/* The stage is timed in this run: the connection's with bindeach, the round
 * trips' with multi-step operations. */
static inline bool ldb_stage_used(enum ldb_stage s, bool bindeach, bool multistep)
{
	return s == LDB_STAGE_ROUND ? multistep : bindeach;
}

struct ldb_thread_stats {
	alignas(64) struct ldb_opstats op[LDB_OP_COUNT];
	uint64_t counted;         /* all kinds: what -T limits */
	uint64_t connects;        /* TCP connections opened */
	uint64_t reconnects;      /* connections replaced after a failure */
	uint64_t setup_binds;     /* binds sent when a persistent connection opens */
	uint64_t setup_extended;  /* the connections' own extended requests: StartTLS, the sync WhoAmI */
	uint64_t tls_handshakes;  /* TLS handshakes completed */
	uint64_t tls_resumed;     /* of which resumed a session (--tls-resume) */
	uint64_t parents_created; /* entries an add created above itself after a 32 */
	int measuring;            /* warm-up is over for this client: its counters restarted */
	uint64_t warm_completed;  /* operations completed during warm-up (set before measuring) */
	int dead;                 /* the thread ended */
	int status;               /* its exit status (ldclt's codes) */

	/* the other results of parent creation's container adds (parents_created
	 * is their 0): 68 (another client made it first), 32 (its own parent
	 * missing), any other code */
	uint64_t parent_exists, parent_noparent, parent_other;
	uint64_t parent_retries; /* adds sent again once their parents were there */

	/* the connection ramp (docs/capacity.md): connections up now, and being opened
	 * now (TCP, TLS, bind), as wrapping counts; connect attempts begun */
	uint64_t conns_up, conns_opening, connect_tries;
	int connect_end; /* enum ldb_connect_end: the last TCP connect that failed */
	/* --held, --connect-rate (run/held): connections lost while up; when all of
	 * this client's connections were first up (ns after the start, 0: not yet) */
	uint64_t conns_lost, all_up_ns;
	struct ldb_setupstats setup;
	/* the codes of flows' steps (also in their kinds' codes): a failed step's
	 * code is its flow's too, so ldclt's "Global error" lines leave them out */
	uint64_t step_codes[LDB_CODE_SLOTS];
};

/* A client's counters, zeroed, page-aligned: their pages come from the system
 * as they are first written, so the rows of kinds a run does not use (most
 * of the flow slots' rows) take no memory.  NULL when out of memory. */
struct ldb_thread_stats *ldb_thread_stats_new(void);
void ldb_thread_stats_free(struct ldb_thread_stats *st);

/* The rows to pass over at kind k of client s: a flow slot's 1 + steps when
 * k is the row of a slot the client never sent (a flow's and its steps'
 * counters are written only after the flow's attempt, also after warm-up's
 * restart: run/iothread), else 0.  A client runs one workload, so at most one
 * slot: the other 7 (72 rows) are neither read nor written (sums every
 * sample, the restart at the warm-up's end: 10,000 clients' counters are
 * 1.2 GB, most of it never touched). */
int ldb_stats_unused_rows(const struct ldb_thread_stats *s, int k);

/* Latency histograms of one I/O thread, for all the clients it carries: their
 * only writer is that thread, so the sampler adds a handful of histograms per
 * sample, not one per client (10,000 clients would mean 2.6 GB and a slow
 * sample). */
struct ldb_lat {
	struct ldb_hist op[LDB_OP_COUNT];       /* initialised only for kinds in use; with --rate,
	                                         * from the intended start (corrected) */
	struct ldb_hist uop[LDB_OP_COUNT];      /* with --rate: from the real send (uncorrected) */
	struct ldb_hist stage[LDB_STAGE_COUNT]; /* initialised only with bindeach */
	struct ldb_hist lag;                    /* --rate: how late sends were while their connection
	                                         * had room (the schedule lag); else uninitialised */
	int measuring;                          /* warm-up over: these restarted from zero */
	int ended;                              /* the I/O thread has returned */
};

/* Zero every histogram in use (their writer, or once the writer is gone). */
void ldb_lat_reset(struct ldb_lat *lat);

/* Single-writer increment, readable concurrently. */
static inline void ldb_add(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}
static inline uint64_t ldb_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Sums over threads (read side). */
struct ldb_totals {
	struct ldb_opstats op[LDB_OP_COUNT];
	uint64_t counted, connects, reconnects, setup_binds, tls_handshakes, tls_resumed, parents_created;
	uint64_t setup_extended;
	uint64_t parent_exists, parent_noparent, parent_other; /* the container adds' other results */
	uint64_t parent_retries;
	int dead;
	/* the ramp, over the clients: connections up, being opened; clients with
	 * a connection up, clients that never began a connect */
	int64_t conns_up, conns_opening;
	int clients_up, clients_waiting;
	uint64_t conns_lost; /* --held, --connect-rate: connections lost while up */
	uint64_t all_up_ns;  /* the latest client's all_up_ns */
	int clients_all_up;  /* clients whose connections were all up once */
	/* clients that never completed a TCP connect, beside those that never
	 * began one (clients_waiting): a connect still under way, or the last
	 * one refused, timed out (-t), failed otherwise */
	int clients_pending, clients_refused, clients_timed_out, clients_failed;
	struct ldb_setupstats setup;
	uint64_t step_codes[LDB_CODE_SLOTS];
};
void ldb_totals_collect(struct ldb_totals *t, struct ldb_thread_stats *const *threads, int n);
/* The sum of every code slot for one kind, and over all kinds. */
uint64_t ldb_opstats_errors(const struct ldb_opstats *s);
/* The errors of connection set-ups (the sum of their codes). */
uint64_t ldb_setup_errors(const struct ldb_setupstats *s);
/* Clients that never completed a TCP connect, whatever the reason. */
int ldb_totals_never_connected(const struct ldb_totals *t);

#endif
