/* `ldbench replay`'s run (run/replay.h): the target resolved, one part per
 * I/O thread (its ring and connections, run/replay_source), one feeder
 * (pumped by the part's I/O thread with one thread, run by a reader thread of its own with more: each
 * log opened and read once), the threads started and joined, their results
 * merged. */
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "run/clock.h"
#include "run/replay.h"
#include "run/replay_part.h"

#define RING_SLOTS 1024 /* a power of two */

static int resolve(const struct ldb_rp_conf *conf, struct ldb_rp_share *sh, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char port[16];
	snprintf(port, sizeof port, "%d", conf->target->port);
	int rc = getaddrinfo(conf->target->host, port, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", conf->target->host, gai_strerror(rc));
		return -1;
	}
	memcpy(&sh->addr, ai->ai_addr, ai->ai_addrlen);
	sh->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* Part t's ring, result (part 0 writes res itself), and with one thread its
 * feeder.  @return 0, 2 the log cannot be opened (err), 99 out of memory. */
static int part_init(struct ldb_rp_part *p, const struct ldb_rp_conf *conf, unsigned t, unsigned n,
                     struct ldb_rp_result *res, char *err, size_t errlen)
{
	struct ldb_rp_ring *r = p->ring;
	p->tid = t;
	p->conf = conf;
	r->size = RING_SLOTS;
	r->wake_fd = -1;
	r->slot = malloc(RING_SLOTS * sizeof *r->slot);
	r->free_idx = malloc(conf->max_conns * sizeof *r->free_idx);
	p->res = t == 0 ? res : malloc(sizeof *p->res);
	if (p->res != NULL && t > 0 && ldb_rp_result_init(p->res) != 0) {
		free(p->res);
		p->res = NULL;
	}
	bool ok = r->slot != NULL && r->free_idx != NULL && p->res != NULL;
	if (ok && n > 1) { /* handed back indexes and wakes: the reader thread's */
		r->shared = true;
		for (r->rsize = 16; r->rsize < conf->max_conns;)
			r->rsize *= 2;
		r->ret = malloc(r->rsize * sizeof *r->ret);
		r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ok = r->ret != NULL && r->wake_fd >= 0;
	}
	if (!ok) {
		snprintf(err, errlen, "out of memory");
		return 99;
	}
	for (uint32_t i = 0; i < conf->max_conns; i++)
		r->free_idx[r->nfree++] = conf->max_conns - 1 - i; /* index 0 first */
	if (n > 1)
		return 0;
	p->feed = ldb_rp_feed_new(conf, r, 1, p->res, err, errlen);
	return p->feed ? 0 : 2;
}

static void part_free(struct ldb_rp_part *p)
{
	ldb_rp_feed_free(p->feed);
	free(p->ring->slot);
	free(p->ring->free_idx);
	free(p->ring->ret);
	if (p->ring->wake_fd >= 0)
		close(p->ring->wake_fd);
	if (p->tid > 0 && p->res != NULL) {
		ldb_rp_result_free(p->res);
		free(p->res);
	}
}

static void *part_thread(void *arg)
{
	struct ldb_rp_part *p = arg;
	p->rc = ldb_rp_source_run(p->conf, p);
	if (p->rc != 0) /* the reader thread waits for no one that will not read */
		atomic_store(&p->share->stop, true);
	return NULL;
}

/* ---- the reader thread (--threads above 1) ---- */

/* Slots published per pump: a wake of the parts after each. */
#define READ_BATCH 64
#define READ_WAIT_MS 10 /* a lost wake or a stop costs at most this */

struct reader {
	struct ldb_rp_feed *feed;
	struct ldb_rp_result res; /* the feeder's figures */
	struct ldb_rp_share *share;
	struct ldb_rp_ring *rings;
	unsigned n;
};

/* The parts that sleep woken.  Both sides swap the flag (an atomic
 * read-modify-write each): when the part's swap comes first this one
 * reads true and wakes it; when this one comes first the part's reads
 * from it and sees the slots published before. */
static void wake_parts(struct reader *rd)
{
	uint64_t one = 1;
	for (unsigned t = 0; t < rd->n; t++) {
		struct ldb_rp_ring *r = &rd->rings[t];
		if (atomic_exchange(&r->sleeping, false) && write(r->wake_fd, &one, sizeof one) < 0)
			continue; /* it looks again within 10 ms anyway */
	}
}

/* Until a part gives back room or an index, a stop, or 10 ms. */
static void reader_sleep(struct reader *rd)
{
	struct pollfd pf[2] = { { .fd = rd->share->room_fd, .events = POLLIN },
		                { .fd = rd->share->stop_fd, .events = POLLIN } };
	uint64_t v;
	if (poll(pf, 2, READ_WAIT_MS) > 0 && (pf[0].revents & POLLIN) && read(pf[0].fd, &v, sizeof v) < 0)
		v = 0; /* EAGAIN: already read */
	atomic_store(&rd->share->reader_waits, false);
}

/* The log read once, its connections dealt to the parts' rings: when a
 * ring is full or has no free index, the reader sets its flag, pumps once
 * more (a part may have given back just before) and sleeps. */
static void *reader_thread(void *arg)
{
	struct reader *rd = arg;
	bool done = false, waits = false;
	while (!done) {
		if (atomic_load_explicit(&rd->share->stop, memory_order_relaxed)) {
			ldb_rp_feed_stop(rd->feed); /* a signal: the log's figures as far as read */
			break;
		}
		uint32_t n = ldb_rp_feed_pump(rd->feed, READ_BATCH, &done);
		if (n > 0)
			wake_parts(rd);
		if (n > 0 || done || !ldb_rp_feed_blocked(rd->feed)) {
			if (waits)
				atomic_store(&rd->share->reader_waits, false);
			waits = false;
		} else if (!waits) {
			atomic_exchange(&rd->share->reader_waits, true); /* a swap: as wake_parts' */
			waits = true;
		} else {
			reader_sleep(rd);
			waits = false;
		}
	}
	return NULL;
}

/* The reader thread's feeder figures into d (the parts' results hold
 * none). */
static void take_reader(struct ldb_rp_result *d, struct ldb_rp_result *s)
{
	memcpy(d->skipped, s->skipped, sizeof d->skipped);
	memcpy(d->first_line, s->first_line, sizeof d->first_line);
	memcpy(d->no_pw_dn, s->no_pw_dn, sizeof d->no_pw_dn);
	d->nno_pw_dn = s->nno_pw_dn;
	d->unmapped_anon = s->unmapped_anon;
	d->synthetic = s->synthetic;
	d->audit_sent = s->audit_sent;
	d->audit_changes = s->audit_changes;
	d->audit_unmatched = s->audit_unmatched;
	d->audit_dropped_attrs = s->audit_dropped_attrs;
	d->conns_read = s->conns_read;
	d->passes = s->passes;
	d->window_ns = s->window_ns;
	d->first_ns = s->first_ns;
	d->format = s->format;
	d->slog = s->slog;
	memcpy(d->place_file, s->place_file, sizeof d->place_file);
	for (int w = 0; w < LDB_SLOG_NSKIPS; w++)
		for (int i = 0; i < LDB_SLOG_FIRST_LINES; i++)
			if (d->slog.first[w][i].file)
				d->slog.first[w][i].file = d->place_file[w][i];
	memcpy(d->error, s->error, sizeof d->error);
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++)
		d->kind[t].read = s->kind[t].read;
}

/* A part's figures of s into d. */
static void merge_send(struct ldb_rp_result *d, const struct ldb_rp_result *s)
{
	for (int t = 0; t < LDB_SLOG_NOPTYPES; t++) {
		struct ldb_rp_kind_stats *dk = &d->kind[t];
		const struct ldb_rp_kind_stats *sk = &s->kind[t];
		dk->read += sk->read;
		dk->sent += sk->sent;
		dk->answered += sk->answered;
		dk->compared += sk->compared;
		dk->differ += sk->differ;
		dk->diff_code += sk->diff_code;
		dk->diff_entries += sk->diff_entries;
		for (unsigned i = 0; i < sk->ndiff_ex && dk->ndiff_ex < LDB_RP_EXAMPLES; i++)
			dk->diff_ex[dk->ndiff_ex++] = sk->diff_ex[i];
		ldb_hist_add(&dk->lat, &sk->lat);
	}
	d->conns_opened += s->conns_opened;
	d->conns_failed += s->conns_failed;
	d->conns_lost += s->conns_lost;
	d->ops_conn_failed += s->ops_conn_failed;
	d->ops_conn_lost += s->ops_conn_lost;
	d->unanswered += s->unanswered;
	d->proto_errors += s->proto_errors;
	ldb_hist_add(&d->late, &s->late);
	if (s->elapsed_ns > d->elapsed_ns)
		d->elapsed_ns = s->elapsed_ns;
	if (d->conn_error[0] == '\0')
		memcpy(d->conn_error, s->conn_error, sizeof d->conn_error);
	d->interrupted = d->interrupted || s->interrupted;
}

/* The reader thread (rd, with more than one part) and threads 1..
 * started, thread 0 run here, all joined.  @return 0 or 99. */
static int run_parts(struct ldb_rp_part *p, unsigned n, struct reader *rd)
{
	pthread_t th[LDB_RP_MAX_THREADS], rth;
	unsigned started = 1;
	int st = 0;
	bool reading = rd != NULL && pthread_create(&rth, NULL, reader_thread, rd) == 0;
	for (; (rd == NULL || reading) && started < n; started++)
		if (pthread_create(&th[started], NULL, part_thread, &p[started]) != 0)
			break;
	if (started < n) {
		atomic_store(&p[0].share->stop, true); /* the started ones end at once */
		st = 99;
	} else {
		part_thread(&p[0]);
	}
	for (unsigned t = 1; t < started; t++)
		pthread_join(th[t], NULL);
	if (reading)
		pthread_join(rth, NULL);
	for (unsigned t = 0; t < n; t++)
		if (p[t].rc != 0)
			st = 99;
	return st;
}

/* The reader thread's feeder over every part's ring.  @return 0, 2 (err)
 * or 99. */
static int reader_init(struct reader *rd, const struct ldb_rp_conf *conf, struct ldb_rp_share *sh,
                       struct ldb_rp_ring *rings, unsigned n, char *err, size_t errlen)
{
	*rd = (struct reader){ .share = sh, .rings = rings, .n = n };
	if (ldb_rp_result_init(&rd->res) != 0 || (sh->room_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "out of memory");
		return 99;
	}
	rd->feed = ldb_rp_feed_new(conf, rings, n, &rd->res, err, errlen);
	return rd->feed ? 0 : 2;
}

int ldb_replay_run(const struct ldb_rp_conf *conf, struct ldb_rp_result *res, char *err, size_t errlen)
{
	unsigned n = conf->threads > 1 ? conf->threads : 1;
	struct ldb_signals sig;
	/* blocked before any thread starts: only thread 0 takes them */
	ldb_signals_take(&sig);
	struct ldb_rp_share sh = { .sig = &sig, .stop_fd = -1, .room_fd = -1 };
	if (resolve(conf, &sh, err, errlen) != 0)
		return 2;
	struct ldb_rp_part *p = calloc(n, sizeof *p);
	struct ldb_rp_ring *rings = calloc(n, sizeof *rings);
	struct reader rd = { 0 };
	int st = p && rings ? 0 : 99;
	for (unsigned t = 0; t < n && st == 0; t++) {
		p[t].share = &sh;
		p[t].ring = &rings[t];
		st = part_init(&p[t], conf, t, n, res, err, errlen);
	}
	if (st == 0 && n > 1 && (sh.stop_fd = eventfd(0, EFD_CLOEXEC)) < 0)
		st = 99;
	if (st == 0 && n > 1)
		st = reader_init(&rd, conf, &sh, rings, n, err, errlen);
	if (st == 0) {
		sh.start = ldb_now_ns();
		st = run_parts(p, n, n > 1 ? &rd : NULL);
	}
	if (st == 99)
		snprintf(err, errlen, "out of memory");
	for (unsigned t = 1; st == 0 && t < n; t++)
		merge_send(res, p[t].res);
	if (st == 0 && n > 1)
		take_reader(res, &rd.res);
	for (unsigned t = 0; p && t < n; t++)
		part_free(&p[t]);
	free(p);
	free(rings);
	ldb_rp_feed_free(rd.feed);
	if (n > 1)
		ldb_rp_result_free(&rd.res);
	if (sh.stop_fd >= 0)
		close(sh.stop_fd);
	if (sh.room_fd >= 0)
		close(sh.room_fd);
	return st;
}

int ldb_rp_result_init(struct ldb_rp_result *res)
{
	memset(res, 0, sizeof *res);
	int rc = ldb_hist_init(&res->late);
	for (int k = 0; k < LDB_SLOG_NOPTYPES && rc == 0; k++)
		rc = ldb_hist_init(&res->kind[k].lat);
	return rc ? -1 : 0;
}

void ldb_rp_result_free(struct ldb_rp_result *res)
{
	ldb_hist_free(&res->late);
	for (int k = 0; k < LDB_SLOG_NOPTYPES; k++)
		ldb_hist_free(&res->kind[k].lat);
}

const char *ldb_rp_skip_name(enum ldb_rp_skip s)
{
	static const char *const n[LDB_RP_NSKIPS] = {
		[LDB_RP_SKIP_NONE] = "none",
		[LDB_RP_SKIP_NO_PASSWORD] = "no-password",
		[LDB_RP_SKIP_SASL] = "sasl",
		[LDB_RP_SKIP_WRITE] = "write-no-content",
		[LDB_RP_SKIP_NO_AUDIT] = "write-not-in-audit-log",
		[LDB_RP_SKIP_NO_NEWRDN] = "rename-no-newrdn",
		[LDB_RP_SKIP_EXTOP] = "extended-needs-value",
		[LDB_RP_SKIP_BAD_REQUEST] = "bad-request",
		[LDB_RP_SKIP_TOO_BIG] = "too-big",
		[LDB_RP_SKIP_CONN_FAILED] = "connection-failed",
		[LDB_RP_SKIP_CONN_LOST] = "connection-lost",
	};
	return s < LDB_RP_NSKIPS ? n[s] : "?";
}
