/* The load's listeners (--listeners, run/listen): their start, and
 * --listeners-baseline's two runs, the write load alone then with them.
 * See cmd/load_int.h. */
#include "cmd/load.h"
#include "cmd/load_int.h"

#include <stdio.h>

#include "run/listen.h"
#include "run/listen_rec.h"

/* --listeners-baseline: the figures of the run without the listeners (the
 * main thread's: the two runs one after the other) */
static struct ldb_result baseline;
static bool baseline_ran;

/* --listeners-baseline: the writes without the listeners (the first run)
 * and with them (this one's summary). */
void ldb_load_listen_baseline(struct load *l, const struct ldb_summary *sum, int k)
{
	struct ldb_listen_figs *f = &l->lfig;
	if (!baseline_ran)
		return;
	f->baseline = true;
	f->base_rate = baseline.rate;
	f->base_p50_ns = baseline.p50_ns;
	f->base_p99_ns = baseline.p99_ns;
	f->with_rate = ldb_rate(sum->counted, sum->seconds);
	f->with_p50_ns = sum->lat[k] != NULL ? ldb_hist_percentile(sum->lat[k], 50) : 0;
	f->with_p99_ns = sum->lat[k] != NULL ? ldb_hist_percentile(sum->lat[k], 99) : 0;
}

/* --listeners: started once the server is known to answer, their refresh
 * over before the load begins; each I/O thread's confirmed writes go to
 * their matcher.  @return 0, or the exit status (its line said). */
int ldb_load_start_listeners(struct load *l)
{
	char err[512];
	if (l->cfg->listeners == 0)
		return LDB_EXIT_OK;
	if (ldb_hist_init(&l->lfig.delay) != 0) {
		fprintf(stderr, "%s: out of memory for the listeners\n", l->cfg->progname);
		return LDB_EXIT_INIT;
	}
	int st = ldb_listen_start(l->cfg, &l->run, l->nr, &l->listen, err, sizeof err);
	if (st != 0) {
		fprintf(stderr, "%s: %s\n", l->cfg->progname, err);
		return st;
	}
	for (int k = 0; k < l->nr; k++) { /* beside -S's tap (set up before): both take every write */
		struct ldb_repl_tap *t = ldb_listen_tap(l->listen, k);
		t->also = l->r[k].repl;
		l->r[k].repl = t;
	}
	return LDB_EXIT_OK;
}

/* --listeners-baseline D: the write load alone for D, then with the
 * listeners; the second run's summary compares the two. */
int ldb_run_load(const struct ldb_config *c, FILE *out, struct ldb_result *res)
{
	if (c->listeners == 0 || c->listen_baseline_ms == 0)
		return ldb_load_once(c, out, res);
	struct ldb_config b = *c; /* shallow: read only, never freed */
	b.listeners = 0;
	b.listen_baseline_ms = 0;
	b.listen_pause_ms = 0;
	b.duration_ms = c->listen_baseline_ms;
	fprintf(out, "Baseline: the write load for %.3f s without the listeners (--listeners-baseline).\n",
	        (double)c->listen_baseline_ms / 1e3);
	int st = ldb_load_once(&b, out, &baseline);
	if (st != LDB_EXIT_OK)
		return st;
	baseline_ran = true;
	fprintf(out, "With the listeners:\n");
	st = ldb_load_once(c, out, res);
	baseline_ran = false;
	return st;
}

int ldb_load_start_write_record(struct load *l)
{
	char err[512];
	if (l->cfg->write_record == NULL || l->nr == 0)
		return 0;
	l->wrec = ldb_lrec_writes_start(l->cfg, l->nr, l->run.t_start, err, sizeof err);
	if (l->wrec == NULL) {
		fprintf(stderr, "%s: %s\n", l->cfg->progname, err);
		return LDB_EXIT_PARAMS;
	}
	for (int k = 0; k < l->nr; k++)
		l->r[k].repl = ldb_lrec_writes_tap(l->wrec, k);
	return 0;
}

/* After the I/O threads (and the listeners) ended. */
void ldb_load_end_records(struct load *l)
{
	uint64_t n;
	const char *e = l->listen != NULL ? ldb_listen_recorded(l->listen, &n) : NULL;
	if (e != NULL && e[0] != '\0')
		ldb_text_line(&l->text, "%s", e);
	else if (e != NULL)
		ldb_text_line(&l->text, "Listeners: %llu notifications recorded to %s", (unsigned long long)n,
		              l->cfg->listen_record);
	if (l->wrec == NULL)
		return;
	char err[512];
	int64_t w = ldb_lrec_writes_finish(l->wrec, err, sizeof err);
	if (w < 0)
		ldb_text_line(&l->text, "%s", err);
	else
		ldb_text_line(&l->text, "Writes: %lld confirmed writes recorded to %s", (long long)w,
		              l->cfg->write_record);
	ldb_load_free_write_record(l);
}

void ldb_load_free_write_record(struct load *l)
{
	ldb_lrec_writes_free(l->wrec);
	l->wrec = NULL;
}
