/* The listeners' reports: see listen_lines.h and docs/results.md. */
#include "report/listen_lines.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static const char *kind_name(int kind)
{
	return kind == LDB_LISTEN_PSEARCH ? "psearch" : "sync";
}

void ldb_listen_text(const struct ldb_listen_figs *f, struct ldb_text *t)
{
	const struct ldb_hist *h = &f->delay;
	ldb_text_line(t,
	              "Listeners: %d %s, refreshed %d (refresh p50 %.3f ms, max %.3f ms; entries p50 %llu, max %llu), "
	              "failed %d, lost %d",
	              f->listeners, kind_name(f->kind), f->refreshed, ms(f->refresh_p50_ns), ms(f->refresh_max_ns),
	              (unsigned long long)f->entries_p50, (unsigned long long)f->entries_max, f->failed, f->lost);
	if (f->lost > 0)
		ldb_text_line(t,
		              "Listeners: lost %d, reconnected %d (away p50 %.3f ms, max %.3f ms), down at the end %d; "
		              "catch-up entries %llu, writes received through them %llu",
		              f->lost, f->reconnected, ms(f->away_p50_ns), ms(f->away_max_ns), f->down,
		              (unsigned long long)f->catchup, (unsigned long long)f->caught_up);
	ldb_text_line(t,
	              "Listeners: writes %llu (not followed %llu), notifications expected %llu, received %llu, missing "
	              "%llu, duplicated %llu, out of order %llu, superseded %llu, before the writer's result %llu, "
	              "unmatched %llu, most behind %llu",
	              (unsigned long long)f->writes, (unsigned long long)f->untracked, (unsigned long long)f->expected,
	              (unsigned long long)f->seen, (unsigned long long)f->missing, (unsigned long long)f->duplicated,
	              (unsigned long long)f->out_of_order, (unsigned long long)f->superseded,
	              (unsigned long long)f->early, (unsigned long long)(f->foreign + f->dropped),
	              (unsigned long long)f->behind_max);
	if (ldb_hist_count(h) == 0) {
		ldb_text_line(t, "Listeners: delay: none received");
		return;
	}
	ldb_text_line(t, "Listeners: delay p50 %.3f ms, p99 %.3f ms, max %.3f ms (confirmation to arrival, over %llu)",
	              ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 99)), ms(h->max),
	              (unsigned long long)ldb_hist_count(h));
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

void ldb_listen_baseline_text(const struct ldb_listen_figs *f, struct ldb_text *t)
{
	ldb_text_line(t,
	              "Listeners' cost: writes without listeners %.2f/s, latency p50 %.3f ms, p99 %.3f ms; with %d "
	              "listeners %.2f/s, p50 %.3f ms, p99 %.3f ms; ratio rate %.3f, p50 %.3f, p99 %.3f",
	              f->base_rate, ms(f->base_p50_ns), ms(f->base_p99_ns), f->listeners, f->with_rate,
	              ms(f->with_p50_ns), ms(f->with_p99_ns), ratio(f->with_rate, f->base_rate),
	              ratio((double)f->with_p50_ns, (double)f->base_p50_ns),
	              ratio((double)f->with_p99_ns, (double)f->base_p99_ns));
}

/* --listeners-baseline's member, with its leading comma. */
static void put_baseline(FILE *out, const struct ldb_listen_figs *f)
{
	if (!f->baseline)
		return;
	fprintf(out,
	        ",\"baseline\":{\"rate\":%.3f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"with_rate\":%.3f,\"with_p50_ms\":%.3f,"
	        "\"with_p99_ms\":%.3f,\"rate_ratio\":%.4f,\"p50_ratio\":%.4f,\"p99_ratio\":%.4f}",
	        f->base_rate, ms(f->base_p50_ns), ms(f->base_p99_ns), f->with_rate, ms(f->with_p50_ns),
	        ms(f->with_p99_ns), ratio(f->with_rate, f->base_rate),
	        ratio((double)f->with_p50_ns, (double)f->base_p50_ns),
	        ratio((double)f->with_p99_ns, (double)f->base_p99_ns));
}

void ldb_listen_put_json(FILE *out, const struct ldb_listen_figs *f)
{
	const struct ldb_hist *h = &f->delay;
	size_t n = ldb_hist_encode(h, NULL, 0);
	char *enc = malloc(n + 1);
	if (enc != NULL)
		ldb_hist_encode(h, enc, n + 1);
	fprintf(out,
	        "\"listeners\":{\"n\":%d,\"kind\":\"%s\",\"refreshed\":%d,\"failed\":%d,\"lost\":%d,\"code\":%d,"
	        "\"refresh_p50_ms\":%.3f,\"refresh_max_ms\":%.3f,\"entries_p50\":%llu,\"entries_max\":%llu,",
	        f->listeners, kind_name(f->kind), f->refreshed, f->failed, f->lost, f->code, ms(f->refresh_p50_ns),
	        ms(f->refresh_max_ns), (unsigned long long)f->entries_p50, (unsigned long long)f->entries_max);
	fprintf(out,
	        "\"reconnected\":%d,\"down\":%d,\"catchup\":%llu,\"caught_up\":%llu,\"away_p50_ms\":%.3f,"
	        "\"away_max_ms\":%.3f,",
	        f->reconnected, f->down, (unsigned long long)f->catchup, (unsigned long long)f->caught_up,
	        ms(f->away_p50_ns), ms(f->away_max_ns));
	fprintf(out,
	        "\"writes\":%llu,\"untracked\":%llu,\"expected\":%llu,\"seen\":%llu,\"missing\":%llu,"
	        "\"duplicated\":%llu,\"out_of_order\":%llu,\"superseded\":%llu,\"early\":%llu,\"unmatched\":%llu,"
	        "\"dropped\":%llu,"
	        "\"behind_max\":%llu,\"notifications\":%llu,",
	        (unsigned long long)f->writes, (unsigned long long)f->untracked, (unsigned long long)f->expected,
	        (unsigned long long)f->seen, (unsigned long long)f->missing, (unsigned long long)f->duplicated,
	        (unsigned long long)f->out_of_order, (unsigned long long)f->superseded, (unsigned long long)f->early,
	        (unsigned long long)f->foreign, (unsigned long long)f->dropped, (unsigned long long)f->behind_max,
	        (unsigned long long)f->notes);
	fprintf(out,
	        "\"delay\":{\"count\":%llu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f,"
	        "\"histogram\":\"%s\"}",
	        (unsigned long long)ldb_hist_count(h), ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 99)),
	        ms(h->max), ldb_hist_mean(h) / 1e6, enc != NULL ? enc : "");
	free(enc);
	put_baseline(out, f);
	fputc('}', out);
}

/* ------------------------------------------------------------ merge */

static int add_u64(const struct ldb_json *o, const char *name, uint64_t *dst, bool max)
{
	uint64_t v;
	if (ldb_json_u64(ldb_json_get(o, name), &v) != 0)
		return -1;
	*dst = max ? (v > *dst ? v : *dst) : *dst + v;
	return 0;
}

static int add_int(const struct ldb_json *o, const char *name, int *dst)
{
	uint64_t v = 0;
	if (add_u64(o, name, &v, false) != 0)
		return -1;
	*dst += (int)v;
	return 0;
}

/* A figure in ms into ns, the largest kept. */
static int max_ms(const struct ldb_json *o, const char *name, uint64_t *dst)
{
	double v;
	if (ldb_json_double(ldb_json_get(o, name), &v) != 0 || v < 0)
		return -1;
	uint64_t ns = (uint64_t)(v * 1e6 + 0.5);
	*dst = ns > *dst ? ns : *dst;
	return 0;
}

static int merge_counts(struct ldb_listen_figs *f, const struct ldb_json *o)
{
	return add_int(o, "n", &f->listeners) || add_int(o, "refreshed", &f->refreshed) ||
	       add_int(o, "failed", &f->failed) || add_int(o, "lost", &f->lost) ||
	       add_u64(o, "writes", &f->writes, false) || add_u64(o, "untracked", &f->untracked, false) ||
	       add_u64(o, "expected", &f->expected, false) || add_u64(o, "seen", &f->seen, false) ||
	       add_u64(o, "missing", &f->missing, false) || add_u64(o, "duplicated", &f->duplicated, false) ||
	       add_u64(o, "out_of_order", &f->out_of_order, false) || add_u64(o, "superseded", &f->superseded, false) ||
	       add_u64(o, "early", &f->early, false) || add_u64(o, "unmatched", &f->foreign, false) ||
	       add_u64(o, "dropped", &f->dropped, false) || add_u64(o, "notifications", &f->notes, false) ||
	       add_u64(o, "behind_max", &f->behind_max, true) || add_u64(o, "entries_p50", &f->entries_p50, true) ||
	       add_u64(o, "entries_max", &f->entries_max, true) || max_ms(o, "refresh_p50_ms", &f->refresh_p50_ns) ||
	       max_ms(o, "refresh_max_ms", &f->refresh_max_ns);
}

/* The figures of listeners lost and back (records before them have none). */
static void merge_lost(struct ldb_listen_figs *f, const struct ldb_json *o)
{
	(void)add_int(o, "reconnected", &f->reconnected);
	(void)add_int(o, "down", &f->down);
	(void)add_u64(o, "catchup", &f->catchup, false);
	(void)add_u64(o, "caught_up", &f->caught_up, false);
	(void)max_ms(o, "away_p50_ms", &f->away_p50_ns);
	(void)max_ms(o, "away_max_ms", &f->away_max_ns);
}

int ldb_listen_merge_add(struct ldb_listen_merge *mm, const struct ldb_json *sum, const char *path, char *err,
                         size_t cap)
{
	const struct ldb_json *o = ldb_json_get(sum, "listeners");
	if (o == NULL)
		return 0;
	const char *kind = ldb_json_str(ldb_json_get(o, "kind"));
	const char *hist = ldb_json_str(ldb_json_get(ldb_json_get(o, "delay"), "histogram"));
	if (mm->n == 0) {
		memset(&mm->f, 0, sizeof mm->f);
		mm->f.code = -1;
		if (ldb_hist_init(&mm->f.delay) != 0 || ldb_hist_init(&mm->tmp) != 0) {
			snprintf(err, cap, "out of memory");
			return -1;
		}
		mm->f.kind = kind != NULL && strcmp(kind, "psearch") == 0 ? LDB_LISTEN_PSEARCH : LDB_LISTEN_SYNC;
	}
	mm->n++;
	if (o->type != LDB_JSON_OBJECT || kind == NULL || hist == NULL || merge_counts(&mm->f, o) != 0) {
		snprintf(err, cap, "%s: summary record: the listeners object is malformed", path);
		return -1;
	}
	merge_lost(&mm->f, o);
	if (strcmp(kind, mm->f.kind == LDB_LISTEN_PSEARCH ? "psearch" : "sync") != 0) {
		snprintf(err, cap, "%s: its listeners are %s searches, the files before it had others", path, kind);
		return -1;
	}
	ldb_hist_reset(&mm->tmp);
	if (hist[0] != '\0' && ldb_hist_decode(&mm->tmp, hist) != 0) {
		snprintf(err, cap, "%s: summary record: listeners.delay.histogram is malformed", path);
		return -1;
	}
	ldb_hist_add(&mm->f.delay, &mm->tmp);
	return 0;
}

void ldb_listen_merge_free(struct ldb_listen_merge *mm)
{
	if (mm->n > 0) {
		ldb_hist_free(&mm->f.delay);
		ldb_hist_free(&mm->tmp);
	}
	mm->n = 0;
}

static const struct ldb_listen_part *listen_of(const struct ldb_summary_part *p)
{
	return (const struct ldb_listen_part *)(const void *)((const char *)p - offsetof(struct ldb_listen_part, part));
}

static void part_json(const struct ldb_summary_part *p, FILE *f)
{
	fputc(',', f);
	ldb_listen_put_json(f, listen_of(p)->f);
}

/* --csv: its own header row, then the run's row (docs/results.md). */
static void part_csv(const struct ldb_summary_part *p, FILE *out)
{
	const struct ldb_listen_figs *f = listen_of(p)->f;
	const struct ldb_hist *h = &f->delay;
	fputs("listeners,kind,refreshed,failed,lost,refresh_p50_ms,refresh_max_ms,entries_p50,entries_max,writes,"
	      "expected,seen,missing,duplicated,out_of_order,superseded,early,unmatched,behind_max,count,p50_ms,p99_ms,"
	      "max_ms,reconnected,down,catchup,caught_up,away_p50_ms,away_max_ms\n",
	      out);
	fprintf(out,
	        "%d,%s,%d,%d,%d,%.3f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%.3f,"
	        "%.3f",
	        f->listeners, kind_name(f->kind), f->refreshed, f->failed, f->lost, ms(f->refresh_p50_ns),
	        ms(f->refresh_max_ns), (unsigned long long)f->entries_p50, (unsigned long long)f->entries_max,
	        (unsigned long long)f->writes, (unsigned long long)f->expected, (unsigned long long)f->seen,
	        (unsigned long long)f->missing, (unsigned long long)f->duplicated, (unsigned long long)f->out_of_order,
	        (unsigned long long)f->superseded, (unsigned long long)f->early,
	        (unsigned long long)(f->foreign + f->dropped), (unsigned long long)f->behind_max,
	        (unsigned long long)ldb_hist_count(h), ms(ldb_hist_percentile(h, 50)), ms(ldb_hist_percentile(h, 99)),
	        ms(h->max));
	fprintf(out, /* listeners lost and back */ ",%d,%d,%llu,%llu,%.3f,%.3f\n", f->reconnected, f->down,
	        (unsigned long long)f->catchup, (unsigned long long)f->caught_up, ms(f->away_p50_ns),
	        ms(f->away_max_ns));
}

/* --fail-if listen.FIGURE: the run's (or the merged files') figure. */
static bool part_figure(const struct ldb_summary_part *p, const struct ldb_threshold *t, double *v, const char **why)
{
	const struct ldb_listen_figs *f = listen_of(p)->f;
	*why = NULL;
	*v = 0;
	switch (t->lfig) {
	case LDB_LF_MISSING: *v = (double)f->missing; break;
	case LDB_LF_DUP: *v = (double)f->duplicated; break;
	case LDB_LF_OOO: *v = (double)f->out_of_order; break;
	case LDB_LF_UNMATCHED: *v = (double)(f->foreign + f->dropped); break;
	case LDB_LF_LOST: *v = (double)f->lost; break;
	case LDB_LF_DOWN: *v = (double)f->down; break;
	case LDB_LF_REFRESH: *v = (double)(t->metric == LDB_M_MAX ? f->refresh_max_ns : f->refresh_p50_ns); break;
	case LDB_LF_DELAY:
	default:
		if (ldb_hist_count(&f->delay) == 0) {
			*why = "no notification received";
			return false;
		}
		*v = ldb_hist_metric(&f->delay, t->metric);
	}
	return true;
}

static const struct ldb_part_ops listen_part_ops = {
	.json = part_json,
	.csv = part_csv,
	.source = LDB_TS_LISTEN,
	.figure = part_figure,
};

const struct ldb_summary_part *ldb_listen_part(struct ldb_listen_part *p, const struct ldb_listen_figs *f)
{
	*p = (struct ldb_listen_part){ .part = { .ops = &listen_part_ops }, .f = f };
	return &p->part;
}
