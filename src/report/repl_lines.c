/* The replication check's reports: see repl_report.h. */
#include "report/repl_lines.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/metrics.h"
#include "report/records.h"

static const char *state_name(int s)
{
	return s == LDB_REPL_UP ? "up" : s == LDB_REPL_DOWN ? "down" : "connecting";
}

int ldb_repl_out_init(struct ldb_repl_out *o, struct ldb_repl *rp)
{
	memset(o, 0, sizeof *o);
	o->rp = rp;
	o->n = ldb_repl_count(rp);
	for (int i = 0; i < o->n; i++)
		if (ldb_hist_init(&o->prev[i].delay) != 0 || ldb_hist_init(&o->cur[i].delay) != 0 ||
		    ldb_hist_init(&o->diff[i].delay) != 0)
			return -1;
	return 0;
}

void ldb_repl_out_free(struct ldb_repl_out *o)
{
	for (int i = 0; i < o->n; i++) {
		ldb_hist_free(&o->prev[i].delay);
		ldb_hist_free(&o->cur[i].delay);
		ldb_hist_free(&o->diff[i].delay);
	}
	o->n = 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* "Replication to X: checked ..., delay min/p50/p95/p99/max ... ms" */
static void text_line(struct ldb_text *t, const char *what, const struct ldb_repl_figs *f)
{
	const struct ldb_hist *h = &f->delay;
	char delay[160] = "no delay measured";
	if (ldb_hist_count(h) > 0)
		snprintf(delay, sizeof delay, "delay min/p50/p95/p99/max %.3f/%.3f/%.3f/%.3f/%.3f ms", ms(h->min),
		         ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 95)), ms(ldb_hist_percentile(h, 99)),
		         ms(h->max));
	ldb_text_line(
	        t, "%s %s: checked %llu, seen %llu, unseen %llu, superseded %llu, dropped %llu, backlog max %llu, %s",
	        what, f->consumer, (unsigned long long)f->checked, (unsigned long long)f->seen,
	        (unsigned long long)f->unseen, (unsigned long long)f->superseded, (unsigned long long)f->dropped,
	        (unsigned long long)f->backlog_max, delay);
}

void ldb_repl_out_sample(struct ldb_repl_out *o, struct ldb_text *t, const struct ldb_reporter *rep, int nrep,
                         int index, double t_end)
{
	for (int i = 0; i < o->n; i++) {
		struct ldb_repl_figs *c = &o->cur[i], *p = &o->prev[i], *d = &o->diff[i];
		ldb_repl_read(o->rp, i, true, c);
		struct ldb_hist keep = d->delay;
		*d = *c;
		d->delay = keep;
		d->checked = c->checked - p->checked;
		d->seen = c->seen - p->seen;
		d->unseen = c->unseen - p->unseen;
		d->superseded = c->superseded - p->superseded;
		d->dropped = c->dropped - p->dropped;
		d->searches = c->searches - p->searches;
		ldb_hist_sub(&d->delay, &c->delay, &p->delay);
		/* the next interval starts from this one */
		struct ldb_hist ph = p->delay;
		*p = *c;
		p->delay = c->delay;
		c->delay = ph;
		if (t != NULL && !t->cfg->super_quiet && d->state != LDB_REPL_DOWN)
			text_line(t, "Replication to", d);
	}
	for (int k = 0; k < nrep; k++)
		if (rep[k].repl)
			rep[k].repl(rep[k].ctx, index, t_end, o->diff, o->n);
}

void ldb_repl_out_final(struct ldb_repl_out *o, struct ldb_text *t)
{
	for (int i = 0; i < o->n; i++) {
		struct ldb_repl_figs *f = &o->cur[i];
		ldb_repl_read(o->rp, i, false, f);
		if (t == NULL)
			continue;
		if (f->state == LDB_REPL_DOWN) {
			ldb_text_line(t, "Replication to %s: not checked (down or bind refused)", f->consumer);
			continue;
		}
		text_line(t, "Replication summary", f);
		if (f->checked > 0 && f->seen == 0 && f->unseen > 0)
			ldb_text_line(t,
			              "Replication to %s: none of %llu checked writes became visible within %.3f s: "
			              "not a replica of this server?",
			              f->consumer, (unsigned long long)f->checked,
			              (double)t->cfg->repl_timeout_ms / 1e3);
	}
}

void ldb_repl_put_consumers(FILE *f, const struct ldb_repl_figs *fg, int n, bool full)
{
	fputs("\"replication\":[", f);
	for (int i = 0; i < n; i++) {
		const struct ldb_repl_figs *r = &fg[i];
		fputs(i ? ",{\"consumer\":" : "{\"consumer\":", f);
		ldb_json_put_string(f, r->consumer);
		fprintf(f,
		        ",\"state\":\"%s\",\"checked\":%llu,\"seen\":%llu,\"unseen\":%llu,\"superseded\":%llu,"
		        "\"dropped\":%llu,\"backlog_max\":%llu,\"searches\":%llu,",
		        state_name(r->state), (unsigned long long)r->checked, (unsigned long long)r->seen,
		        (unsigned long long)r->unseen, (unsigned long long)r->superseded,
		        (unsigned long long)r->dropped, (unsigned long long)r->backlog_max,
		        (unsigned long long)r->searches);
		/* the same "latency_us" object as the kinds' (delays here) */
		ldb_records_put_latency(f, &r->delay, full);
		if (full) {
			size_t len = ldb_hist_encode(&r->delay, NULL, 0);
			char *buf = malloc(len + 1);
			if (buf != NULL)
				ldb_hist_encode(&r->delay, buf, len + 1);
			fprintf(f, ",\"histogram\":\"%s\"", buf ? buf : "");
			free(buf);
		}
		fputc('}', f);
	}
	fputc(']', f);
}

void ldb_repl_put_json(FILE *f, int index, double t_end, const struct ldb_repl_figs *fg, int n)
{
	fprintf(f, "{\"type\":\"replication\",\"sample\":%d,\"t_end\":%.6f,", index, t_end);
	ldb_repl_put_consumers(f, fg, n, false);
	fputs("}\n", f);
	fflush(f);
}

void ldb_repl_put_csv(FILE *f, int index, double t_end, const struct ldb_repl_figs *fg, int n)
{
	for (int i = 0; i < n; i++) {
		const struct ldb_repl_figs *r = &fg[i];
		const struct ldb_hist *h = &r->delay;
		/* op "repl:CONSUMER"; attempted = checked, completed = seen + unseen,
		 * succeeded = counted = seen, errors = unseen; the delays in the
		 * latency columns; backlog and drops in the last column */
		fprintf(f, "%d,%.6f,,,repl:%s,%llu,%llu,%llu,%llu,%llu,0,0,0,,", index, t_end, r->consumer,
		        (unsigned long long)r->checked, (unsigned long long)(r->seen + r->unseen),
		        (unsigned long long)r->seen, (unsigned long long)r->seen, (unsigned long long)r->unseen);
		uint64_t c = ldb_hist_count(h);
		if (c == 0)
			fputs("0,,,,,,", f);
		else
			fprintf(f, "%llu,%.3f,%.3f,%.3f,%.3f,%.3f,", (unsigned long long)c, (double)h->min / 1e3,
			        (double)ldb_hist_percentile(h, 50) / 1e3, (double)ldb_hist_percentile(h, 95) / 1e3,
			        (double)ldb_hist_percentile(h, 99) / 1e3, (double)h->max / 1e3);
		fprintf(f, "0,0,0,0,backlog_max:%llu;dropped:%llu;superseded:%llu\n",
		        (unsigned long long)r->backlog_max, (unsigned long long)r->dropped,
		        (unsigned long long)r->superseded);
	}
	fflush(f);
}

/* ------------------------------------------------------------ merge */

static int merge_u64(const struct ldb_json *o, const char *name, uint64_t *dst)
{
	uint64_t v;
	if (ldb_json_u64(ldb_json_get(o, name), &v) != 0)
		return -1;
	*dst += v;
	return 0;
}

/* The entry of consumer `name`, added on first sight. */
static struct ldb_repl_figs *merge_slot(struct ldb_repl_merge *mm, const char *name)
{
	for (int i = 0; i < mm->n; i++)
		if (strcmp(mm->name[i], name) == 0)
			return &mm->f[i];
	if (mm->n == LDB_REPL_MERGE_MAX || strlen(name) >= sizeof mm->name[0])
		return NULL;
	struct ldb_repl_figs *f = &mm->f[mm->n];
	snprintf(mm->name[mm->n], sizeof mm->name[0], "%s", name);
	f->consumer = mm->name[mm->n];
	f->state = LDB_REPL_DOWN;
	if (ldb_hist_init(&f->delay) != 0)
		return NULL;
	mm->n++;
	return f;
}

static int merge_one(struct ldb_repl_merge *mm, const struct ldb_json *o)
{
	const char *name = ldb_json_str(ldb_json_get(o, "consumer"));
	const char *state = ldb_json_str(ldb_json_get(o, "state"));
	const char *hist = ldb_json_str(ldb_json_get(o, "histogram"));
	struct ldb_repl_figs *f = name != NULL ? merge_slot(mm, name) : NULL;
	if (f == NULL || state == NULL || hist == NULL)
		return -1;
	if (strcmp(state, "up") == 0)
		f->state = LDB_REPL_UP;
	/* side by side: checked, seen, unseen, dropped and the backlogs add */
	if (merge_u64(o, "checked", &f->checked) || merge_u64(o, "seen", &f->seen) ||
	    merge_u64(o, "unseen", &f->unseen) || merge_u64(o, "dropped", &f->dropped) ||
	    merge_u64(o, "backlog_max", &f->backlog_max) || merge_u64(o, "searches", &f->searches))
		return -1;
	if (ldb_json_get(o, "superseded") != NULL && merge_u64(o, "superseded", &f->superseded))
		return -1; /* files written before it counted none */
	if (!mm->tmp_init) {
		if (ldb_hist_init(&mm->tmp) != 0)
			return -1;
		mm->tmp_init = true;
	}
	if (ldb_hist_decode(&mm->tmp, hist) != 0)
		return -1;
	ldb_hist_add(&f->delay, &mm->tmp);
	return 0;
}

int ldb_repl_merge_add(struct ldb_repl_merge *mm, const struct ldb_json *sum, const char *path, char *err, size_t cap)
{
	const struct ldb_json *a = ldb_json_get(sum, "replication");
	if (a == NULL)
		return 0;
	if (a->type != LDB_JSON_ARRAY) {
		snprintf(err, cap, "%s: summary record: replication is not an array", path);
		return -1;
	}
	for (const struct ldb_json *o = a->child; o != NULL; o = o->next)
		if (o->type != LDB_JSON_OBJECT || merge_one(mm, o) != 0) {
			snprintf(err, cap,
			         "%s: summary record: a replication entry is malformed (or more than %d consumers)",
			         path, LDB_REPL_MERGE_MAX);
			return -1;
		}
	return 0;
}

void ldb_repl_merge_free(struct ldb_repl_merge *mm)
{
	for (int i = 0; i < mm->n; i++)
		ldb_hist_free(&mm->f[i].delay);
	if (mm->tmp_init)
		ldb_hist_free(&mm->tmp);
	mm->n = 0;
	mm->tmp_init = false;
}

/* ------------------------------------------------------------ a part of the summary */

static const struct ldb_repl_part *repl_of(const struct ldb_summary_part *p)
{
	return (const struct ldb_repl_part *)(const void *)((const char *)p - offsetof(struct ldb_repl_part, part));
}

static void part_json(const struct ldb_summary_part *p, FILE *f)
{
	fputc(',', f);
	ldb_repl_put_consumers(f, repl_of(p)->f, repl_of(p)->n, true);
}

/* repl.METRIC: the worst consumer's (unseen: the sum). */
static bool part_figure(const struct ldb_summary_part *p, const struct ldb_threshold *t, double *v, const char **why)
{
	const struct ldb_repl_part *r = repl_of(p);
	double worst = 0;
	for (int i = 0; i < r->n; i++) {
		const struct ldb_repl_figs *f = &r->f[i];
		double a = t->metric == LDB_M_UNSEEN ? (double)f->unseen : ldb_hist_metric(&f->delay, t->metric);
		worst = t->metric == LDB_M_UNSEEN ? worst + a : (a > worst ? a : worst);
	}
	*v = worst;
	*why = NULL;
	return true;
}

static void part_metrics(const struct ldb_summary_part *p, struct ldb_metrics_end *e)
{
	ldb_metrics_end_repl(e, repl_of(p)->f, repl_of(p)->n);
}

static const struct ldb_part_ops repl_part_ops = {
	.json = part_json,
	.source = LDB_TS_REPL,
	.figure = part_figure,
	.metrics = part_metrics,
};

const struct ldb_summary_part *ldb_repl_part(struct ldb_repl_part *p, const struct ldb_repl_figs *f, int n)
{
	*p = (struct ldb_repl_part){ .part = { .ops = &repl_part_ops }, .f = f, .n = n };
	return &p->part;
}
