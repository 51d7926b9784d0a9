/* The load command's state, shared by cmd/load (one run) and
 * cmd/load_workloads ([workload NAME] sections: several workloads in it). */
#ifndef LDBENCH_CMD_LOAD_INT_H
#define LDBENCH_CMD_LOAD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/load.h"
#include "report/join.h"
#include "report/listen_lines.h"
#include "report/repl_lines.h"
#include "report/reporter.h"
#include "report/sampler.h"
#include "run/oplog.h"
#include "run/scalab01.h"
#include "run/signals.h"
#include "run/run.h"
#include "server/monitor.h"
#include "server/preflight.h"

/* One workload of a run with [workload] sections. */
struct ldb_wl {
	const struct ldb_config *cfg;
	struct ldb_run run;
	struct ldb_thread_stats **st; /* its clients' counters (pointers into the load's) */
	int n;
	struct ldb_lat **lat; /* its histograms on each I/O thread */
	bool used[LDB_H_COUNT][LDB_OP_COUNT];
	struct ldb_sampler smp;
	struct ldb_text text;
	bool inited; /* run set up (ldb_run_free due) */
	/* its own time (--start-after, its --duration): from begin_ns to end_ns
	 * (0: the run's end); its sampler starts at begin_ns */
	uint64_t begin_ns, end_ns;
	bool started, stopped;
};

struct load {
	const struct ldb_config *cfg;
	struct ldb_run run;
	struct ldb_client *w;         /* the clients */
	struct ldb_thread_stats **st; /* their counters */
	int n;
	struct ldb_iothread *r; /* the I/O threads */
	struct ldb_lat **lat;   /* their histograms, for the sampler */
	int nr, started;
	struct ldb_outputs out; /* what its reporters and text read, from cfg */
	struct ldb_text text;
	struct ldb_reporter rep[LDB_MAX_REPORTERS];
	int nrep;
	struct ldb_sampler smp;
	bool used[LDB_H_COUNT][LDB_OP_COUNT];
	bool *seen_dead; /* "thread is dead." printed */
	int ndead;       /* threads that ended by themselves */
	struct ldb_signals sig;
	struct ldb_monitor_snap mon_before, mon_delta;
	bool have_mon;
	struct ldb_preflight pf; /* what the pre-flight sent: not in --monitor's delta */
	/* -S: the consumers' watchers and their reports */
	struct ldb_repl *repl;
	struct ldb_repl_out rout;
	int repl_index;
	/* -e scalab01: its threads replace the I/O threads (run/scalab01) */
	struct ldb_s1_totals s1;
	/* --op-log (a temporary file for --server-log alone), the join's figures */
	struct ldb_oplog oplog;
	char oplog_tmp[64]; /* the temporary file's name, or "" */
	struct ldb_join join;
	bool joined;
	/* [workload] sections (cmd/load_workloads): each workload's run,
	 * clients, histograms, sampler and text; the fields above are the
	 * run's (the total); nwl 0 without sections */
	struct ldb_wl *wl;
	int nwl;
	struct ldb_totals wtot; /* the workloads' counters at their last sample, added: the total's next */
	/* --listeners: the listeners and their matcher (run/listen), their figures */
	struct ldb_listen *listen;
	struct ldb_listen_figs lfig;
	/* --write-record: every confirmed write to a file (run/listen_rec.h) */
	struct ldb_lrec_writes *wrec;
};

/* cmd/load: the histograms a run uses, its schedule lag's, its round trips'; a set of them initialised. */
void ldb_load_plan(const struct ldb_config *c, const struct ldb_run *run, bool used[LDB_H_COUNT][LDB_OP_COUNT]);
bool ldb_load_lag(const struct ldb_config *c);
bool ldb_load_multistep(const struct ldb_run *run);
int ldb_load_init_lat(const struct ldb_config *c, const struct ldb_run *run, const bool used[LDB_H_COUNT][LDB_OP_COUNT],
                      struct ldb_lat *lat);

/* cmd/load_workloads: the workloads' set-up (instead of the single run's
 * clients, I/O threads and sampler) and teardown.  @return 0 or -1. */
/* cmd/load: one run of the load (ldb_run_load: two with --listeners-baseline). */
int ldb_load_once(const struct ldb_config *c, FILE *out, struct ldb_result *res);
/* cmd/load_listen: --listeners started (0, or the exit status, its line
 * said); the baseline's figures beside this run's (k its main kind). */
int ldb_load_start_listeners(struct load *l);
void ldb_load_listen_baseline(struct load *l, const struct ldb_summary *sum, int k);
/* --write-record: its file and writer started before any connection (0,
 * or the exit status, its line said); at the end, its last writes and its
 * line; freed (any time). */
int ldb_load_start_write_record(struct load *l);
void ldb_load_end_records(struct load *l);
void ldb_load_free_write_record(struct load *l);
int ldb_wl_setup(struct load *l);
void ldb_wl_teardown(struct load *l);
/* The run's shared flags on every workload's run. */
void ldb_wl_store_stop(struct load *l, int stop);
int ldb_wl_load_stop(const struct load *l);        /* the first set */
void ldb_wl_begin(struct load *l, uint64_t t_run); /* the threads start: each workload's own time */
void ldb_wl_start(struct load *l, uint64_t now);   /* measurement starts: the samplers of those begun */
void ldb_wl_tick(struct load *l, uint64_t now);    /* a workload's own end: its clients stop */
void ldb_wl_zero(struct load *l, int thread);      /* an I/O thread that ended in warm-up */
void ldb_wl_sample(struct load *l, uint64_t now, bool final);
/* Each workload's summary (its text block when print), into sums[nwl]. */
void ldb_wl_summaries(struct load *l, uint64_t now, bool print, struct ldb_summary *sums);
/* Why no connection could be opened, from any workload's run. */
bool ldb_wl_connect_error(const struct load *l, char *where, size_t wcap, char *why, size_t ycap);

#endif
