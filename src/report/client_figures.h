/* The client tells on itself (docs/capacity.md): its own figures over a span (a
 * sample, or the run), the verdict "the client limited the run" with its
 * remedy, and their text and JSON forms.  The sampler fills them. */
#ifndef LDBENCH_REPORT_CLIENT_FIGURES_H
#define LDBENCH_REPORT_CLIENT_FIGURES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Above these the client limited the run. */
#define LDB_CLIENT_BUSY_LIMIT 0.90       /* an I/O thread on a CPU or waiting for one */
#define LDB_CLIENT_THROTTLE_LIMIT 0.10   /* the cgroup's quota held the client back this share of the time, */
#define LDB_CLIENT_THROTTLE_PERIODS 0.20 /* or of its quota periods */
#define LDB_CLIENT_LAG_LIMIT_NS \
	10000000ULL             /* schedule lag p50 with room on the connections: behind
                                               * all along, not a hiccup of a loaded host */
#define LDB_CLIENT_REACHED 0.90 /* achieved / target below this: not reached */

enum ldb_client_limit {
	LDB_LIMIT_NONE,
	LDB_LIMIT_BUSY,     /* an I/O thread saturated */
	LDB_LIMIT_THROTTLE, /* the cgroup's CPU quota */
	LDB_LIMIT_LAG,      /* sends fell behind with room to send */
	LDB_LIMIT_SENDS,    /* the target not reached while the server answered fast */
};

struct ldb_client_fig {
	bool have; /* figures were read */
	double seconds;
	int nthreads;           /* I/O threads */
	double cpu_seconds;     /* their CPU in the span */
	double busy_max;        /* the busiest one: (CPU + run-queue wait) / span */
	double cpu_max;         /* its CPU alone / span */
	double wait_max;        /* the longest run-queue wait / span */
	int busiest;            /* its index */
	bool have_cgroup;       /* throttling figures read */
	uint64_t quota_periods; /* quota periods that elapsed */
	uint64_t throttled_periods;
	double throttled_seconds;
	bool have_lag; /* open loop */
	uint64_t lag_p50_ns, lag_p99_ns, lag_max_ns;
	/* the target and what the server did (set by the sampler) */
	double rate_target, rate;
	double server_mean_ns;  /* latency from the real send (open loop), or plain */
	uint64_t server_p99_ns; /* the same, p99 */
	long long inflight_cap; /* connections x depth */
	/* the ramp */
	long long conns_up, conns_opening;
	int clients, clients_up, clients_waiting;
	/* the verdict */
	enum ldb_client_limit limit;
	bool short_of_inflight; /* the target needed more requests in flight than -n x -a */
};

/* Decide f->limit (and short_of_inflight) from the figures. */
void ldb_client_judge(struct ldb_client_fig *f);

/* The one line of the verdict ("" when the client did not limit the run). */
void ldb_client_verdict(const struct ldb_client_fig *f, char *buf, size_t cap);

/* The figures as one line ("Client: CPU ..."). */
void ldb_client_line(const struct ldb_client_fig *f, char *buf, size_t cap);

/* The ramp as one line ("Clients: 8590 connected, ...").  */
void ldb_client_ramp_line(const struct ldb_client_fig *f, char *buf, size_t cap);

/* ,"client":{...} (a JSON member, with its leading comma). */
void ldb_client_put_json(FILE *f, const struct ldb_client_fig *fig);

#endif
