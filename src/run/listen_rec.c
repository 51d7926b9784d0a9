/* The listeners' recordings for a write load from another host: see
 * run/listen_rec.h. */
#include "run/listen_rec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/ops.h"
#include "run/clock.h"
#include "run/listen_int.h"
#include "run/repl.h"

#define OFFSET_EVERY_NS 100000000ULL /* the two clocks' offset taken again every 100 ms */
#define DRAIN_NS 5000000ULL          /* the writes' rings drained every 5 ms */
#define FILE_BUF (1u << 20)

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, the two read together (the
 * narrowest of three tries). */
static int64_t clock_offset(uint64_t *mono)
{
	int64_t best = 0;
	uint64_t span = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		struct timespec rt;
		uint64_t a = ldb_now_ns();
		clock_gettime(CLOCK_REALTIME, &rt);
		uint64_t b = ldb_now_ns();
		if (b - a < span) {
			span = b - a;
			best = (int64_t)((uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec) -
			       (int64_t)(a + (b - a) / 2);
			*mono = b;
		}
	}
	return best;
}

static FILE *create(const char *path, const char *what, char *err, size_t cap)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		snprintf(err, cap, "%s %s: cannot create: %s", what, path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, FILE_BUF);
	return f;
}

/* The header again, complete, and the file closed.  @return 0 or an errno. */
static int close_file(FILE *f, struct ldb_lrec_head *h, int err)
{
	h->complete = 1;
	if (err == 0 && (fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0 || fwrite(h, sizeof *h, 1, f) != 1))
		err = errno != 0 ? errno : EIO;
	if (fclose(f) != 0 && err == 0)
		err = errno != 0 ? errno : EIO;
	return err;
}

static void head_init(struct ldb_lrec_head *h, const char *magic, uint32_t recsize)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, magic, 8);
	h->version = LDB_LREC_VERSION;
	h->recsize = recsize;
}

/* ------------------------------------------------------------ the notes */

struct ldb_lrec_notes *ldb_lrec_notes_open(const char *path, int listeners, int kind, char *err, size_t cap)
{
	struct ldb_lrec_notes *r = calloc(1, sizeof *r);
	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		snprintf(err, cap, "--listen-record: out of memory");
		return NULL;
	}
	head_init(&r->head, LDB_LREC_NOTES_MAGIC, sizeof(struct ldb_lrec_note));
	r->head.listeners = (uint32_t)listeners;
	r->head.kind = (uint32_t)kind;
	if ((r->f = create(path, "--listen-record", err, cap)) == NULL ||
	    fwrite(&r->head, sizeof r->head, 1, r->f) != 1) {
		if (r->f != NULL) {
			snprintf(err, cap, "--listen-record %s: cannot write", path);
			fclose(r->f);
		}
		free(r->path);
		free(r);
		return NULL;
	}
	r->offset = clock_offset(&r->offset_at);
	return r;
}

static void flush_notes(struct ldb_lrec_notes *r)
{
	if (r->err == 0 && r->nbuf > 0 && fwrite(r->buf, sizeof r->buf[0], r->nbuf, r->f) != r->nbuf)
		r->err = errno != 0 ? errno : EIO;
	r->nbuf = 0;
}

void ldb_lrec_notes_up(struct ldb_lrec_notes *r)
{
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	r->head.up_ns = (uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec;
}

void ldb_lrec_note(struct ldb_lrec_notes *r, const struct ldb_note *n)
{
	if (n->t > r->offset_at + OFFSET_EVERY_NS)
		r->offset = clock_offset(&r->offset_at);
	struct ldb_lrec_note rec = { .wall_ns = (uint64_t)((int64_t)n->t + r->offset),
		                     .mono_ns = n->t,
		                     .dnkey = n->dnkey,
		                     .key = n->key,
		                     .who = n->who };
	r->buf[r->nbuf++] = rec;
	r->head.records++;
	if (r->nbuf == sizeof r->buf / sizeof r->buf[0])
		flush_notes(r);
}

int ldb_lrec_notes_close(struct ldb_lrec_notes *r, uint64_t dropped, char *err, size_t cap)
{
	if (r == NULL)
		return 0;
	r->head.dropped = dropped;
	flush_notes(r);
	int e = close_file(r->f, &r->head, r->err);
	if (e != 0)
		snprintf(err, cap, "--listen-record %s: cannot write: %s", r->path, strerror(e));
	free(r->path);
	free(r);
	return e != 0 ? -1 : 0;
}

/* ------------------------------------------------------------ the writes */

struct ldb_lrec_writes {
	const struct ldb_config *cfg;
	FILE *f;
	char *path;
	struct ldb_lrec_head head;
	int nio;
	struct ldb_repl_tap *taps;
	struct ldb_repl_ring *rings;
	uint64_t *last;
	struct ldb_repl_view view;
	bool have_view;
	int64_t offset;
	uint64_t offset_at;
	pthread_t th;
	bool started;
	int stop;
	int err;
};

static void put_write(struct ldb_lrec_writes *w, const struct ldb_repl_item *it)
{
	char dn[LDB_DN_MAX];
	size_t dnlen, vlen;
	const char *val;
	int what = ldb_lk_written(w->cfg, &w->view, it, dn, &dnlen, &val, &vlen);
	if (what < 0)
		what = LDB_LREC_UNTRACKED;
	if (vlen > UINT16_MAX)
		vlen = UINT16_MAX;
	struct ldb_lrec_write rec = { .wall_ns = (uint64_t)((int64_t)it->t + w->offset),
		                      .mono_ns = it->t,
		                      .kind = it->kind == LDB_REPL_KEYS ? (uint8_t)it->run[0] : it->kind,
		                      .what = (uint8_t)what,
		                      .raced = it->raced,
		                      .dnlen = (uint16_t)dnlen,
		                      .vlen = (uint16_t)vlen };
	if (w->err == 0 && (fwrite(&rec, sizeof rec, 1, w->f) != 1 || fwrite(dn, 1, dnlen, w->f) != dnlen ||
	                    (vlen > 0 && fwrite(val, 1, vlen, w->f) != vlen)))
		w->err = errno != 0 ? errno : EIO;
	w->head.records++;
}

static void drain(struct ldb_lrec_writes *w)
{
	uint64_t mono;
	int64_t off = clock_offset(&mono);
	if (mono > w->offset_at + OFFSET_EVERY_NS || w->offset_at == 0) {
		w->offset = off;
		w->offset_at = mono;
	}
	for (int k = 0; k < w->nio; k++) {
		struct ldb_repl_ring *r = &w->rings[k];
		uint64_t t = r->tail, h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		for (; t < h; t++)
			put_write(w, &r->item[t & (LDB_REPL_RING - 1)]);
		__atomic_store_n(&r->tail, t, __ATOMIC_RELEASE);
	}
}

static void *writer(void *arg)
{
	struct ldb_lrec_writes *w = arg;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		drain(w);
		struct timespec ts = { 0, (long)DRAIN_NS };
		nanosleep(&ts, NULL);
	}
	drain(w);
	return NULL;
}

static int alloc_writes(struct ldb_lrec_writes *w, int nio, uint64_t t0)
{
	w->nio = nio;
	w->taps = calloc((size_t)nio, sizeof *w->taps);
	w->last = calloc(1u << LDB_REPL_LAST_BITS, sizeof *w->last);
	if (posix_memalign((void **)&w->rings, 64, (size_t)nio * sizeof *w->rings) != 0)
		w->rings = NULL;
	if (w->taps == NULL || w->last == NULL || w->rings == NULL)
		return -1;
	memset(w->rings, 0, (size_t)nio * sizeof *w->rings);
	for (int k = 0; k < nio; k++) {
		if ((w->taps[k].rings = malloc(sizeof *w->taps[k].rings)) == NULL)
			return -1;
		w->taps[k].rings[0] = &w->rings[k];
		w->taps[k].nrings = 1;
		w->taps[k].every = 1;
		w->taps[k].keys = true; /* a flow's write steps: recorded as not followed */
		w->taps[k].last = w->last;
		w->taps[k].t0 = t0;
	}
	if (ldb_wctx_init(&w->view.wc, w->cfg) != 0)
		return -1;
	w->have_view = true;
	return 0;
}

struct ldb_lrec_writes *ldb_lrec_writes_start(const struct ldb_config *c, int nio, uint64_t t0, char *err, size_t cap)
{
	struct ldb_lrec_writes *w = calloc(1, sizeof *w);
	if (w == NULL || (w->path = strdup(c->write_record)) == NULL) {
		free(w);
		snprintf(err, cap, "--write-record: out of memory");
		return NULL;
	}
	w->cfg = c;
	head_init(&w->head, LDB_LREC_WRITES_MAGIC, sizeof(struct ldb_lrec_write));
	if (alloc_writes(w, nio, t0) != 0) {
		snprintf(err, cap, "--write-record: out of memory");
		ldb_lrec_writes_free(w);
		return NULL;
	}
	if ((w->f = create(w->path, "--write-record", err, cap)) == NULL) {
		ldb_lrec_writes_free(w);
		return NULL;
	}
	int rc = fwrite(&w->head, sizeof w->head, 1, w->f) == 1 ? pthread_create(&w->th, NULL, writer, w) : EIO;
	if (rc != 0) {
		snprintf(err, cap, "--write-record %s: cannot start its writer: %s", w->path, strerror(rc));
		ldb_lrec_writes_free(w);
		return NULL;
	}
	w->started = true;
	return w;
}

struct ldb_repl_tap *ldb_lrec_writes_tap(struct ldb_lrec_writes *w, int k)
{
	return &w->taps[k];
}

static void stop(struct ldb_lrec_writes *w)
{
	if (!w->started)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->th, NULL);
	w->started = false;
}

int64_t ldb_lrec_writes_finish(struct ldb_lrec_writes *w, char *err, size_t cap)
{
	stop(w);
	for (int k = 0; k < w->nio; k++)
		w->head.dropped += __atomic_load_n(&w->rings[k].dropped, __ATOMIC_RELAXED);
	int e = close_file(w->f, &w->head, w->err);
	w->f = NULL;
	if (e != 0) {
		snprintf(err, cap, "--write-record %s: cannot write: %s", w->path, strerror(e));
		return -1;
	}
	return (int64_t)w->head.records;
}

void ldb_lrec_writes_free(struct ldb_lrec_writes *w)
{
	if (w == NULL)
		return;
	stop(w);
	if (w->f != NULL)
		fclose(w->f);
	if (w->have_view)
		ldb_wctx_free(&w->view.wc);
	for (int k = 0; w->taps != NULL && k < w->nio; k++)
		free(w->taps[k].rings);
	free(w->taps);
	free(w->rings);
	free(w->last);
	free(w->path);
	free(w);
}
