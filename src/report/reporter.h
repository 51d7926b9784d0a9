/* Reporters: what the sampler hands them, and the ldclt-style text reporter. */
#ifndef LDBENCH_REPORT_REPORTER_H
#define LDBENCH_REPORT_REPORTER_H

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "conf/config.h"
#include "conf/fail_if_types.h"
#include "run/histogram.h"
#include "server/monitor.h"
#include "run/stats.h"
#include "report/client_figures.h"

struct ldb_repl_figs;
struct ldb_metrics_end;
struct ldb_live_counts;

/* A part of a run's result that a pipeline beside the load adds to its
 * summary (the replication check, the join with the server's log, the
 * replay's fidelity report), embedded in that pipeline's own struct; each
 * format asks it to write itself.  A hook left NULL: the part has nothing
 * for that format. */
struct ldb_summary_part;
struct ldb_part_ops {
	/* the summary record's member(s), each with its leading ',' */
	void (*json)(const struct ldb_summary_part *p, FILE *f);
	/* --csv: its rows after the samples' (their own header row) */
	void (*csv)(const struct ldb_summary_part *p, FILE *f);
	/* --fail-if: the thresholds of this source are its (with figure) */
	enum ldb_tsource source;
	/* t's figure (without a kind: over every kind): true, or false with *why (*v 0) */
	bool (*figure)(const struct ldb_summary_part *p, const struct ldb_threshold *t, double *v, const char **why);
	/* why none of its figures can be used (the run's verdict: exit 14), or NULL */
	const char *(*unusable)(const struct ldb_summary_part *p);
	/* the live metrics' last text: its figures handed to the renderer (report/metrics.h) */
	void (*metrics)(const struct ldb_summary_part *p, struct ldb_metrics_end *e);
};
struct ldb_summary_part {
	const struct ldb_part_ops *ops;
};
#define LDB_SUMMARY_PARTS 4

/* One interval. */
struct ldb_sample {
	int index;                                 /* 1, 2, ... */
	double t_end;                              /* seconds since the run started (monotonic) */
	double seconds;                            /* measured length */
	uint64_t counted;                          /* ldclt's count in it */
	struct ldb_totals delta;                   /* counters in it */
	const struct ldb_hist *lat[LDB_OP_COUNT];  /* latencies in it; NULL when the kind is unused;
	                                          * with --rate from the intended start */
	const struct ldb_hist *ulat[LDB_OP_COUNT]; /* with --rate: from the real send; else NULL */
	int threads;
	double rate_target;                  /* --rate, 0 without */
	const struct ldb_client_fig *client; /* the client's own figures (report/client_figures), or NULL */
	bool final; /* the run's last, partial interval: from the last sample to its end (no text line) */
	const struct ldb_hist *late; /* ldbench replay: how late its requests were sent so far (whole run), or NULL */
	/* a pipeline's own counters so far, for the live metrics (ldbench
	 * replay's sent, differing, not sent: report/replay_out.h), or NULL */
	const struct ldb_live_counts *live;
	const char *workload; /* [workload] sections: the workload's own interval; NULL: the run's (the total) */
};

/* The whole run. */
struct ldb_summary {
	double seconds; /* measured time of the run */
	uint64_t counted;
	struct ldb_totals tot;
	const struct ldb_hist *lat[LDB_OP_COUNT];
	const struct ldb_hist *ulat[LDB_OP_COUNT];     /* with --rate, else NULL */
	const struct ldb_hist *stage[LDB_STAGE_COUNT]; /* NULL unless bindeach */
	double rate_target;
	const struct ldb_monitor_snap *server; /* --monitor: the server's delta, or NULL */
	int threads;
	long long held;        /* --held, --connect-rate: the connections asked for (tot has their counts); 0 without */
	long long no_activity; /* "no activity" reports */
	int dead;              /* threads that ended before the run did */
	int status;            /* exit status */
	/* -a: each client's requests still unanswered when it ended (ldclt's
	 * pendingNb), in the last summary only; NULL otherwise */
	const uint64_t *pending;
	const struct ldb_client_fig *client; /* the client's own figures (report/client_figures), or NULL */
	/* no connection could be opened: to where ("127.0.0.1:389") and why
	 * (the first failed connect's reason), in the last summary; else NULL */
	const char *unreachable, *unreachable_why;
	/* the parts beside the load's figures, in the last summary, in the
	 * order their members are written: -S's consumers (report/repl_lines),
	 * --server-log's join (report/join), a replay's fidelity report
	 * (report/replay_out) */
	const struct ldb_summary_part *part[LDB_SUMMARY_PARTS];
	int nparts;
	/* [workload] sections: a workload's own summary names it (NULL: the
	 * run's); the run's, in the last summary, holds the workloads' (else NULL, 0) */
	const char *workload;
	int main_op; /* a workload's summary: its main kind (--fail-if without a kind) */
	const struct ldb_summary *workloads;
	int nworkloads;
};

/* Add p to s's parts (none past LDB_SUMMARY_PARTS). */
static inline void ldb_summary_add(struct ldb_summary *s, const struct ldb_summary_part *p)
{
	if (s->nparts < LDB_SUMMARY_PARTS)
		s->part[s->nparts++] = p;
}

/* What the record writers (--json, --csv, --hdr-log, --html), the live
 * metrics and the text lines read of a run.  Its command fills it: the load
 * from its configuration (ldb_outputs_of_config, report/settings.h), the
 * replay from its own options (cmd/replay_send.c); no configuration is made
 * up for them.  The strings point into the owner's storage (argv, the
 * configuration); it outlives the reporters opened with it. */
struct ldb_outputs {
	const char *progname; /* the lines' "NAME[PID]: ", the messages' "NAME: " */
	const char *command;  /* the live metrics' run_info: "load", "find-max", "replay" */
	bool replay;          /* the live metrics carry the replay's figures */
	const char *json_path, *csv_path, *hdrlog_path, *html_path; /* NULL: not written */
	int threads;                                                /* the clients (-n; a replay's sender threads) */
	double rate;                                                /* the target rate at the start, 0: closed loop */
	uint64_t interval_ms;                                       /* the sampling interval */
	/* the text lines: -e timestamp's strftime format (NULL: no timestamp),
	 * -v's level, bindeach (no ramp line: connections come and go) */
	const char *timestamp_fmt;
	int verbose;
	bool bindeach;
	bool workloads; /* [workload] sections: CSV's workload column */
	/* the header record: the command line (NULL: none), whether --seed was
	 * given, and its "config" object's members, written by the command's
	 * writer from config_arg (the load's configuration, the replay's target) */
	const char *cmdline;
	bool seed_given;
	void (*config_json)(FILE *f, const struct ldb_outputs *o, int io_threads);
	const void *config_arg;
};

/* Machine-readable reporters (JSON lines, CSV): a set of callbacks the sampler
 * calls beside the text.  begin() once before the I/O threads start, sample()
 * per interval, end() once with the summary; close() frees.  None of them runs
 * in an I/O thread. */
struct ldb_run_info {
	uint64_t seed;
	time_t started; /* wall clock, for the header */
	int io_threads;
};
struct ldb_reporter {
	void *ctx;
	void (*begin)(void *ctx, const struct ldb_run_info *info);
	void (*sample)(void *ctx, const struct ldb_sample *s);
	void (*end)(void *ctx, const struct ldb_summary *s);
	void (*close)(void *ctx);
	/* -S: the consumers' figures of sample `index` (an interval), or of the
	 * whole run (index 0, after end()); NULL when not written */
	void (*repl)(void *ctx, int index, double t_end, const struct ldb_repl_figs *f, int n);
};
#define LDB_MAX_REPORTERS 5
/* Open the reporters o asks for (--json, --csv, --hdr-log, --html, the live
 * metrics' when they are open) into out[].
 * @return how many, or -1 with one line in err (a file that cannot be created). */
int ldb_reporters_open(const struct ldb_outputs *o, struct ldb_reporter *out, int max, char *err, size_t cap);
/* The JSON lines reporter on a stream the caller owns and closes. @return 0, or -1. */
int ldb_records_json_reporter(const struct ldb_outputs *o, FILE *f, struct ldb_reporter *out);

/* The text output.  o: what every line reads (the prefix, a sample's
 * lines); cfg: the load's configuration, which its banner and summary read
 * (NULL for a replay, which writes neither: report/replay_out.h). */
struct ldb_text {
	const struct ldb_outputs *o;
	const struct ldb_config *cfg;
	FILE *out;
	pid_t pid;
	const char *tag; /* [workload] sections: a workload's lines say "NAME: " after the prefix; NULL */
};

void ldb_text_banner(struct ldb_text *t);      /* version line, -v block */
void ldb_text_init_failed(struct ldb_text *t); /* version, Ending and "Exit status 7" lines */
void ldb_text_started(struct ldb_text *t);     /* "Starting at ..." */
void ldb_text_sample(struct ldb_text *t, const struct ldb_sample *s);
/* A free-form line with the NAME[PID]: prefix (and the timestamp when asked). */
void ldb_text_line(struct ldb_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ldb_text_summary(struct ldb_text *t, const struct ldb_summary *s);
void ldb_text_end(struct ldb_text *t, int status);

#endif
