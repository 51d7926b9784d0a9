/* `ldbench listen-join`: see listen_join.h. */
#include "cmd/listen_join.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/config.h"
#include "report/listen_lines.h"
#include "report/reporter.h"
#include "report/settings.h"
#include "run/listen_int.h"
#include "run/listen_rec.h"
#include "util/argv.h"

#define PROG "ldbench listen-join"
#define AGE_EVERY_NS 10000000ULL /* the window looked at every 10 ms of the records' time, as live */
#define WAIT_NS 35000000000ULL   /* a write not received within 35 s is missing (live: 30 s and --listen-wait) */

enum { LJ_HELP, LJ_WRITES, LJ_NOTES, LJ_JSON };

const struct ldb_opt ldb_listen_join_options[] = {
	{ "help", 'h', NULL, LJ_HELP, NULL, NULL },
	{ "writes", 0, "FILE", LJ_WRITES, "the writing run's --write-record FILE", NULL },
	{ "notes", 0, "FILE", LJ_NOTES, "the listeners-only run's --listen-record FILE", NULL },
	{ "json", 0, "OUT", LJ_JSON, "also write {\"type\":\"listen-join\",\"listeners\":{...}} to OUT (- = stdout)",
	  NULL },
	LDB_OPT_END
};

struct lj_args {
	const char *writes, *notes, *json;
};

/* A write, its keys made from the recorded DN and value. */
struct lj_write {
	uint64_t t, key, dnkey;
	bool raced, moved; /* moved: a rename, seen at its new DN */
};

struct lj_data {
	struct lj_write *w;
	size_t nw;
	struct ldb_note *n;
	size_t nn;
	struct ldb_lrec_head wh, nh;
	uint64_t before; /* writes confirmed before every listener was up: left out */
};

static void usage(FILE *out)
{
	fprintf(out, "usage: " PROG " --writes W --notes N [--json OUT]\n"
	             "  join a writing run's --write-record W (another host's) with a listeners-only\n"
	             "  run's --listen-record N by the entry's DN and value: the Listeners: lines of a live run\n"
	             "  (delays only as good as the two hosts' clock sync: NTP, PTP)\n");
	ldb_opt_help(ldb_listen_join_options, 18, 18, out);
	fprintf(out, "exit status: 0 joined, 2 bad input (a missing, truncated or incomplete file)\n");
}

/* @return -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct lj_args *j)
{
	struct ldb_argv a = { 0 };
	int st = -1;
	if (ldb_argv_sort(argc, argv, ldb_listen_join_options, false, &a) != 0)
		return 2;
	for (int i = 0; st < 0 && i < a.nopt; i++) {
		const char *o = a.opt[i], *v;
		const struct ldb_opt *row;
		enum ldb_argv_got got = ldb_argv_next(&a, &i, ldb_listen_join_options, &row, &v);
		if (got == LDB_ARGV_OPT && row->id == LJ_HELP) {
			usage(stdout);
			st = 0;
		} else if (got == LDB_ARGV_UNKNOWN) {
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", o);
			st = 2;
		} else if (got == LDB_ARGV_NOT_VALUED || got == LDB_ARGV_NO_VALUE || v[0] == '\0') {
			fprintf(stderr, PROG ": %s needs a value\n", o);
			st = 2;
		} else {
			*(row->id == LJ_WRITES ? &j->writes : row->id == LJ_NOTES ? &j->notes : &j->json) = v;
		}
	}
	if (st < 0 && a.narg > 0) {
		fprintf(stderr, PROG ": unexpected argument '%s' (give --writes W --notes N)\n", a.arg[0]);
		st = 2;
	} else if (st < 0 && (j->writes == NULL || j->notes == NULL)) {
		fprintf(stderr, PROG ": no %s (usage: " PROG " --writes W --notes N)\n",
		        j->writes == NULL ? "--writes FILE" : "--notes FILE");
		st = 2;
	}
	ldb_argv_free(&a);
	return st;
}

/* The header of path, of the kind magic.  @return the file, or NULL (said). */
static FILE *open_rec(const char *path, const char *opt, const char *magic, struct ldb_lrec_head *h)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, PROG ": %s %s: cannot open: %s\n", opt, path, strerror(errno));
		return NULL;
	}
	const char *why = NULL;
	if (fread(h, sizeof *h, 1, f) != 1)
		why = "not a recording (too short for its header)";
	else if (memcmp(h->magic, magic, 8) != 0)
		why = memcmp(h->magic, LDB_LREC_NOTES_MAGIC, 8) == 0
		              ? "a --listen-record file (notifications), not writes"
		      : memcmp(h->magic, LDB_LREC_WRITES_MAGIC, 8) == 0
		              ? "a --write-record file (writes), not notifications"
		              : "not a recording of ldbench's listeners";
	else if (h->version != LDB_LREC_VERSION)
		why = "a recording of another version";
	else if (!h->complete)
		why = "incomplete (its run did not end: no counts in its header)";
	if (why != NULL) {
		fprintf(stderr, PROG ": %s %s: %s\n", opt, path, why);
		fclose(f);
		return NULL;
	}
	return f;
}

static int truncated(FILE *f, const char *opt, const char *path, size_t got, uint64_t want)
{
	fprintf(stderr, PROG ": %s %s: truncated (%zu of %llu records)\n", opt, path, got, (unsigned long long)want);
	fclose(f);
	return 2;
}

/* The file read as far as its header's count: nothing may follow.  Closes f. */
static int at_end(FILE *f, const char *opt, const char *path, uint64_t records)
{
	bool more = fgetc(f) != EOF;
	fclose(f);
	if (more)
		fprintf(stderr, PROG ": %s %s: more than the %llu records its header says\n", opt, path,
		        (unsigned long long)records);
	return more ? 2 : 0;
}

static int read_writes(const char *path, struct lj_data *d)
{
	FILE *f = open_rec(path, "--writes", LDB_LREC_WRITES_MAGIC, &d->wh);
	if (f == NULL)
		return 2;
	if ((d->w = calloc(d->wh.records + 1, sizeof *d->w)) == NULL) {
		fclose(f);
		fprintf(stderr, PROG ": out of memory for %llu writes\n", (unsigned long long)d->wh.records);
		return 2;
	}
	char dn[UINT16_MAX], val[UINT16_MAX];
	for (; d->nw < d->wh.records; d->nw++) {
		struct ldb_lrec_write r;
		if (fread(&r, sizeof r, 1, f) != 1 || fread(dn, 1, r.dnlen, f) != r.dnlen ||
		    fread(val, 1, r.vlen, f) != r.vlen)
			return truncated(f, "--writes", path, d->nw, d->wh.records);
		struct lj_write *w = &d->w[d->nw];
		w->t = r.wall_ns;
		w->raced = r.raced;
		w->moved = ldb_lk_moved(r.kind);
		if (r.what == LDB_LREC_UNTRACKED)
			continue; /* key 0: not followed */
		w->dnkey = ldb_lk_dn((const uint8_t *)dn, r.dnlen);
		w->key = ldb_lk_key(w->dnkey, r.what, r.what == LK_VALUE ? (const uint8_t *)val : NULL,
		                    r.what == LK_VALUE ? r.vlen : 0);
	}
	return at_end(f, "--writes", path, d->wh.records);
}

static int read_notes(const char *path, struct lj_data *d)
{
	FILE *f = open_rec(path, "--notes", LDB_LREC_NOTES_MAGIC, &d->nh);
	if (f == NULL)
		return 2;
	if (d->nh.listeners == 0 || (d->n = calloc(d->nh.records + 1, sizeof *d->n)) == NULL) {
		fclose(f);
		fprintf(stderr, PROG ": --notes %s: %s\n", path,
		        d->nh.listeners == 0 ? "no listeners" : "out of memory");
		return 2;
	}
	for (; d->nn < d->nh.records; d->nn++) {
		struct ldb_lrec_note r;
		if (fread(&r, sizeof r, 1, f) != 1)
			return truncated(f, "--notes", path, d->nn, d->nh.records);
		if (r.who >= d->nh.listeners) {
			fprintf(stderr, PROG ": --notes %s: record %zu: listener %u of %u\n", path, d->nn, r.who,
			        d->nh.listeners);
			fclose(f);
			return 2;
		}
		d->n[d->nn] = (struct ldb_note){ .key = r.key, .dnkey = r.dnkey, .t = r.wall_ns, .who = r.who };
	}
	return at_end(f, "--notes", path, d->nh.records);
}

static int cmp_write(const void *a, const void *b)
{
	uint64_t x = ((const struct lj_write *)a)->t, y = ((const struct lj_write *)b)->t;
	return x < y ? -1 : x > y;
}

static int cmp_note(const void *a, const void *b)
{
	uint64_t x = ((const struct ldb_note *)a)->t, y = ((const struct ldb_note *)b)->t;
	return x < y ? -1 : x > y;
}

/* The writes and the notifications to the matcher in the order of their
 * (wall clock) times, a write before a notification of the same time. */
static void feed(struct ldb_match *m, const struct lj_data *d)
{
	size_t i = 0, k = 0;
	uint64_t aged = 0, now = 0;
	ldb_match_feed_begin(m);
	while (i < d->nw || k < d->nn) {
		bool write = k == d->nn || (i < d->nw && d->w[i].t <= d->n[k].t);
		now = write ? d->w[i].t : d->n[k].t;
		if (aged == 0 || now - aged >= AGE_EVERY_NS) {
			ldb_match_feed_age(m, now, WAIT_NS, false);
			aged = now;
		}
		if (write) {
			const struct lj_write *w = &d->w[i++];
			if (w->t >= d->nh.up_ns)
				ldb_match_feed_write(m, w->key, w->dnkey, w->t, w->raced, w->moved);
		} else {
			ldb_match_feed_note(m, &d->n[k++]);
		}
	}
	ldb_match_feed_age(m, now, WAIT_NS, true);
}

/* The clocks: a notification cannot come before its write was applied, so
 * the smallest delay bounds how far the listeners' clock leads the
 * writer's (give or take the time a server notifies before it answers the
 * writer: slapd's syncprov may). */
static void clock_line(struct ldb_text *t, const struct ldb_match *m, const struct ldb_listen_figs *f)
{
	int64_t dmin;
	if (!ldb_match_delay_min(m, &dmin))
		return;
	ldb_text_line(t,
	              "Listeners: clocks: smallest delay %.3f ms, %llu notifications before their write's confirmation "
	              "by the writer's clock: the listeners' clock leads the writer's by at most %.3f ms plus the time "
	              "the server may notify before it answers (delays are only as good as the hosts' clock sync)",
	              (double)dmin / 1e6, (unsigned long long)f->early, (double)dmin / 1e6);
}

static int put_json(const char *path, const struct ldb_listen_figs *f)
{
	FILE *j = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (j == NULL) {
		fprintf(stderr, PROG ": --json %s: cannot create\n", path);
		return 2;
	}
	fputs("{\"type\":\"listen-join\",", j);
	ldb_listen_put_json(j, f);
	fputs("}\n", j);
	if (j != stdout ? fclose(j) != 0 : fflush(j) != 0) {
		fprintf(stderr, PROG ": --json %s: cannot write\n", path);
		return 2;
	}
	return 0;
}

/* The matcher over the two files, the figures and their lines. */
static int join(const struct lj_args *ja, struct lj_data *d, struct ldb_config *cfg)
{
	struct ldb_listen ls;
	memset(&ls, 0, sizeof ls);
	ls.cfg = cfg;
	ls.n = (int)d->nh.listeners;
	ls.l = calloc((size_t)ls.n, sizeof *ls.l);
	for (int k = 0; ls.l != NULL && k < ls.n; k++)
		ls.l[k].phase = L_PERSIST;
	struct ldb_listen_figs f;
	memset(&f, 0, sizeof f);
	if (ls.l == NULL || (ls.m = ldb_match_new(&ls)) == NULL || ldb_hist_init(&f.delay) != 0) {
		fprintf(stderr, PROG ": out of memory for %d listeners\n", ls.n);
		ldb_match_free(ls.m);
		free(ls.l);
		return 2;
	}
	qsort(d->w, d->nw, sizeof *d->w, cmp_write);
	qsort(d->n, d->nn, sizeof *d->n, cmp_note);
	feed(ls.m, d);
	f.listeners = ls.n;
	f.kind = (int)d->nh.kind;
	f.code = -1;
	f.notes = d->nn;
	ldb_match_read(&ls, &f);
	f.dropped = d->nh.dropped;
	f.untracked += d->wh.dropped;
	struct ldb_outputs o;
	ldb_outputs_of_config(&o, cfg);
	FILE *out = ja->json != NULL && strcmp(ja->json, "-") == 0 ? stderr : stdout;
	struct ldb_text t = { .o = &o, .cfg = cfg, .out = out, .pid = getpid() };
	ldb_listen_text(&f, &t);
	for (size_t i = 0; i < d->nw && d->w[i].t < d->nh.up_ns; i++)
		d->before++;
	if (d->before > 0)
		ldb_text_line(
		        &t,
		        "Listeners: %llu writes confirmed before every listener was up (by the writer's clock): left "
		        "out",
		        (unsigned long long)d->before);
	clock_line(&t, ls.m, &f);
	int st = ja->json != NULL ? put_json(ja->json, &f) : 0;
	ldb_hist_free(&f.delay);
	ldb_match_free(ls.m);
	free(ls.l);
	return st;
}

int ldb_listen_join_main(int argc, char **argv)
{
	struct lj_args ja = { 0 };
	int st = parse_args(argc, argv, &ja);
	if (st >= 0)
		return st;
	struct lj_data d;
	memset(&d, 0, sizeof d);
	struct ldb_config cfg;
	ldb_config_init(&cfg);
	st = read_writes(ja.writes, &d);
	if (st == 0)
		st = read_notes(ja.notes, &d);
	if (st == 0)
		st = join(&ja, &d, &cfg);
	free(d.w);
	free(d.n);
	ldb_config_free(&cfg);
	return st;
}
