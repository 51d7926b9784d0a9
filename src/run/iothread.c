/* The I/O thread: its epoll set and deadline heap, its rounds, warm-up's
 * restart of the counters, the end of its clients; and a client's set-up,
 * buffers sized from the run, and goodbye. */
#include "run/conn.h"
#include "run/chase.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run/clock.h"
#include "run/clientcpu.h"
#include "values/vpattern.h"

#define OUT_MIN 4096       /* a connection's output buffer at least */
#define WRITE_TYPICAL 1024 /* room per write in a window (a write reserves RETRY_CAP) */
#define IN_PER 4096        /* input per request in flight: most responses fit */
#define IN_MIN (16 * 1024)
#define IN_START_MAX (256 * 1024)
#define TICK_MS 50

/* A connection's output holds a window of its largest requests (a write
 * reserves RETRY_CAP, its size known only once rendered, beside a window of
 * ordinary writes); its input a window of ordinary responses.  Both grow
 * when one message needs more. */
static size_t out_size(const struct ldb_run *run)
{
	size_t per = run->unbind.maxlen > run->starttls.maxlen ? run->unbind.maxlen : run->starttls.maxlen;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		/* a write's room is a reservation, not its size: count a typical one */
		size_t r = run->ops.room[k] >= LDB_OP_WRITE_ROOM ? WRITE_TYPICAL : run->ops.room[k];
		if (run->load_kind[k] && r > per)
			per = r;
	}
	if (run->bind_on_connect && run->ops.bind.maxlen > per)
		per = run->ops.bind.maxlen;
	size_t cap = (size_t)run->depth * per + (run->writes ? RETRY_CAP : 0);
	return cap < OUT_MIN ? OUT_MIN : cap;
}

static size_t in_size(const struct ldb_run *run)
{
	size_t cap = (size_t)run->depth * IN_PER;
	return cap < IN_MIN ? IN_MIN : cap > IN_START_MAX ? IN_START_MAX : cap;
}

/* --proxy-as: the client's state of the identity's pattern and its buffer. */
static int client_proxy(struct ldb_client *w, const struct ldb_config *c)
{
	char err[256];
	w->proxy_cap = ldb_vp_max_len(c->ctl.proxy_vp) + 1;
	w->proxy_buf = malloc(w->proxy_cap);
	if (w->proxy_buf == NULL || ldb_vp_state_new(c->ctl.proxy_vp, (unsigned)w->id, (unsigned)c->threads,
	                                             &w->proxy_st, err, sizeof err) != 0)
		return -1;
	return 0;
}

/* --think-time uniform or exponential: a client's first start is drawn from
 * the stationary delay of its think time (the residual life of a renewal
 * process: exponential's own distribution; uniform's U x X with X drawn
 * length-biased, sqrt(lo^2 + u (hi^2 - lo^2))), so that N clients make N/mean
 * starts a second from the first one on; an even spread over one mean (right
 * for a constant think time) made about half a start per client too many. */
static uint64_t think_first(struct ldb_client *w, const struct ldb_config *c)
{
	double lo = (double)c->think_lo_ns, hi = (double)c->think_hi_ns;
	if (c->think_dist == LDB_THINK_EXPONENTIAL)
		return (uint64_t)(-lo * log(1.0 - ldb_rng_double(&w->rng)));
	double x = sqrt(lo * lo + ldb_rng_double(&w->rng) * (hi * hi - lo * lo));
	return (uint64_t)(ldb_rng_double(&w->rng) * x);
}

int ldb_client_init(struct ldb_client *w, struct ldb_run *run, int id, struct ldb_thread_stats *st)
{
	const struct ldb_config *c = run->cfg;
	memset(w, 0, sizeof *w);
	w->id = id;
	w->run = run;
	w->st = st;
	w->epfd = -1;
	ldb_rng_seed(&w->rng, c->seed, (uint64_t)id);
	/* ldclt: without commoncounter each thread starts at low - 1 + step */
	w->incr_next = c->range_low - 1 + c->incr_step;
	/* clients start their schedules evenly spread over one interval */
	uint64_t t0 = ldb_now_ns();
	w->t_init = t0;
	w->next_intended = t0 + (c->think_dist == LDB_THINK_NONE || c->think_dist == LDB_THINK_CONSTANT
	                                 ? run->rate_interval_ns * (uint64_t)id / (uint64_t)c->threads
	                                 : think_first(w, c));
	w->next_intended += c->ramp_up_ms * 1000000ULL * (uint64_t)id / (uint64_t)c->threads;
	/* -W: ldclt waits before every operation, the first included */
	if (c->wait_sec > 0)
		w->next_op_at = t0 + (uint64_t)c->wait_sec * 1000000000ULL;
	if (run->writes) {
		w->wctx = malloc(sizeof *w->wctx);
		char err[256];
		if (w->wctx == NULL || ldb_wctx_init(w->wctx, c) != 0 ||
		    ldb_ops_client_init(&run->ops, w->wctx, (unsigned)id, (unsigned)c->threads, err, sizeof err) != 0)
			return -1;
	}
	/* value patterns: this client's share of their sequences (client id of -n) */
	char verr[256];
	if (c->nvpats > 0 && ((w->vpc = malloc(sizeof *w->vpc)) == NULL ||
	                      ldb_vpc_init(w->vpc, c, (unsigned)id, (unsigned)c->threads, verr, sizeof verr) != 0))
		return -1;
	if (w->wctx != NULL)
		w->wctx->vpc = w->vpc;
	if (c->ctl.proxy_vp != NULL && client_proxy(w, c) != 0)
		return -1;
	w->nconns = ldb_held_nconns(c, id);
	w->conns = calloc((size_t)w->nconns, sizeof *w->conns);
	if (w->conns == NULL)
		return -1;
	/* -S checks some writes by what they carried (an attreplace modify's
	 * random run, an object= rdn= add's RDN: the rows' repl_carries) */
	bool repl_run = false;
	for (int k = 0; k < LDB_OP_COUNT && (c->nrepl > 0 || c->listeners > 0 || c->write_record != NULL); k++)
		if (c->weight[k] > 0 && ldb_ops[k]->repl_carries != NULL && ldb_ops[k]->repl_carries(c))
			repl_run = true;
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		cn->w = w;
		cn->ln.fd = -1;
		cn->depth = run->depth;
		cn->id_span = (int32_t)((0x7ffffff0 / cn->depth) * cn->depth);
		cn->ln.in_max = LDB_CONN_IN_MAX;
		cn->steps = ldb_conn_steps(run);
		cn->watch_states = run->held_track;
		/* its buffers: lent by its I/O thread while it is busy (run/bufpool) */
		cn->slots = calloc((size_t)cn->depth, sizeof *cn->slots);
		if (cn->slots == NULL)
			return -1;
		if (run->make_parents &&
		    ((cn->retry = malloc(RETRY_CAP)) == NULL || (cn->retry_dn = malloc(LDB_DN_MAX)) == NULL))
			return -1;
		if (repl_run && (cn->repl_run = calloc((size_t)cn->depth, REPL_SLOT)) == NULL)
			return -1;
		if (run->ops.state_room > 0 &&
		    (cn->step_state = calloc((size_t)cn->depth, run->ops.state_room)) == NULL)
			return -1;
	}
	return 0;
}

void ldb_client_free(struct ldb_client *w)
{
	for (int k = 0; w->conns != NULL && k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		ldb_link_release(&cn->ln); /* also when TLS is off now: its buffers */
		free(cn->ln.out);
		free(cn->ln.in);
		free(cn->retry);
		free(cn->retry_dn);
		free(cn->slots);
		free(cn->repl_run);
		free(cn->step_state);
	}
	free(w->conns);
	if (w->wctx != NULL) {
		ldb_wctx_free(w->wctx);
		free(w->wctx);
	}
	if (w->vpc != NULL) {
		ldb_vpc_free(w->vpc);
		free(w->vpc);
	}
	free(w->proxy_buf);
	if (w->proxy_st != NULL)
		ldb_vp_state_free(w->proxy_st);
	ldb_tls_session_free(&w->tls_session);
	ldb_chase_free(w);
	memset(w, 0, sizeof *w);
}

#define MARKER_ID 0x7ffffffe

/* One pass of a goodbye: send what is buffered, read what came (kept in the
 * connection's input when keep, else dropped), wait a little when neither
 * moved.  @return -1 once the server has ended the connection (or it broke). */
static int goodbye_io(struct ldb_conn *cn, bool keep, uint64_t end, uint64_t now)
{
	uint8_t drop[4096];
	uint8_t *dst = keep ? cn->ln.in + cn->ln.in_len : drop;
	size_t room = keep ? cn->ln.in_cap - cn->ln.in_len : sizeof drop;
	ssize_t r = room > 0 ? ldb_link_recv(&cn->ln, dst, room) : 0, n = 0;
	if (r < 0)
		return -1;
	if (keep)
		cn->ln.in_len += (size_t)r;
	if (cn->ln.out_off < cn->ln.out_len &&
	    (n = ldb_link_send(&cn->ln, cn->ln.out + cn->ln.out_off, cn->ln.out_len - cn->ln.out_off)) < 0)
		return -1;
	cn->ln.out_off += (size_t)n;
	if (r == 0 && n == 0) {
		struct pollfd pfd = { .fd = cn->ln.fd,
			              .events = POLLIN | (cn->ln.out_off < cn->ln.out_len ? POLLOUT : 0) };
		if (poll(&pfd, 1, (int)((end - now) / 1000000ULL) + 1) < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* Whether the marker's answer is among the whole messages read so far (the
 * others are dropped).  -1: the input cannot be framed, or it is full. */
static int marker_answered(struct ldb_conn *cn)
{
	size_t off = 0;
	struct ldb_resp resp;
	int rc;
	while ((rc = ldb_link_frame(&cn->ln, &off, &resp)) == LDB_LINK_MSG)
		if (resp.msgid == MARKER_ID)
			return 1;
	ldb_link_consumed(&cn->ln, off);
	return rc != LDB_LINK_PARTIAL || cn->ln.in_len == cn->ln.in_cap ? -1 : 0;
}

/* The goodbye of a connection with requests that go unanswered (abandon)
 * since its last sync (or with a sync in flight): they were counted when
 * rendered, so what is still in the output buffer goes first, then the final
 * sync, a WhoAmI whose answer says the server has reached the end of them
 * (slapd works a connection's requests in order, defers those beyond what it
 * runs at once, and drops what it still holds when an Unbind ends the
 * connection), then the Unbind, and the server ends the connection.  At most
 * a second for each wait (the pacing keeps at most SYNC_EVERY operations
 * ahead of the server); the answers read are discarded. */
static void goodbye_unanswered(struct ldb_conn *cn, const struct ldb_run *run)
{
	static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
	uint64_t end = ldb_now_ns() + 1000000000ULL;

	if (ldb_bufs_take(cn) != 0)
		return;
	memmove(cn->ln.out, cn->ln.out + cn->ln.out_off, cn->ln.out_len - cn->ln.out_off);
	cn->ln.out_len -= cn->ln.out_off;
	cn->ln.out_off = 0;
	size_t n = ldb_req_render(&run->marker, 0, zero, MARKER_ID, cn->ln.out + cn->ln.out_len,
	                          cn->ln.out_cap - cn->ln.out_len);
	cn->ln.out_len += n;
	if (n > 0) /* an extended request for the server's counters */
		ldb_add(&cn->w->st->setup_extended, 1);
	for (uint64_t now = ldb_now_ns(); now < end; now = ldb_now_ns()) {
		if (goodbye_io(cn, true, end, now) < 0)
			return;
		if (marker_answered(cn) != 0)
			break;
	}
	cn->ln.out_len = cn->ln.out_off = 0;
	cn->ln.out_len += ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->ln.out, cn->ln.out_cap);
	end = ldb_now_ns() + 1000000000ULL;
	for (uint64_t now = ldb_now_ns(); now < end; now = ldb_now_ns())
		if (goodbye_io(cn, false, end, now) < 0)
			return;
}

/* Polite goodbye on persistent connections. */
static void worker_close_all(struct ldb_client *w)
{
	struct ldb_run *run = w->run;
	static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		bool polite = cn->ln.fd >= 0 && cn->state == CS_READY && !run->close_sock;
		if (polite && run->unanswered && (cn->unsynced > 0 || cn->syncing)) {
			goodbye_unanswered(cn, run);
		} else if (polite && ldb_bufs_take(cn) == 0) {
			size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->ln.out, cn->ln.out_cap);
			if (n > 0)
				(void)ldb_link_send(&cn->ln, cn->ln.out, n);
		}
		ldb_conn_close(cn, polite);
	}
}

static void zero_u64(uint64_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ldb_load(&p[i]) != 0)
			__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
}

static void zero_opstats(struct ldb_opstats *o)
{
	zero_u64((uint64_t *)o, sizeof *o / sizeof(uint64_t));
}

/* Warm-up is over: the I/O thread's histograms start again from zero (it is
 * their only writer); its clients then restart their counters. */
static void lat_start_measuring(struct ldb_lat *lat)
{
	ldb_lat_reset(lat);
	__atomic_store_n(&lat->measuring, 1, __ATOMIC_RELEASE);
}

/* Warm-up is over: this client's figures start again from zero (it is their
 * only writer, so it does it itself), then it tells the sampler. */
static void worker_start_measuring(struct ldb_client *w)
{
	struct ldb_thread_stats *st = w->st;
	uint64_t warm = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		int skip = ldb_stats_unused_rows(st, k);
		if (skip > 0) { /* a flow slot it never sent: nothing to count or zero */
			k += skip - 1;
			continue;
		}
		warm += ldb_load(&st->op[k].completed);
		zero_opstats(&st->op[k]);
	}
	st->warm_completed = warm; /* read by the sampler after the release below */
	zero_u64((uint64_t *)&st->setup, sizeof st->setup / sizeof(uint64_t));
	zero_u64(st->step_codes, LDB_CODE_SLOTS);
	/* the operations in flight now end in the measurement: they count as
	 * attempted in it, so that completed never exceeds attempted */
	for (int k = 0; k < w->nconns; k++)
		for (int i = 0; i < w->conns[k].depth; i++) {
			const struct ldb_slot *s = &w->conns[k].slots[i];
			if (s->used && s->setup == SETUP_NONE) {
				ldb_add(&st->op[s->kind].attempted, 1);
				int step = ldb_op_step_kind(s->kind, s->round);
				if (step >= 0)
					ldb_add(&st->op[step].attempted, 1);
			}
		}
	__atomic_store_n(&st->counted, 0, __ATOMIC_RELAXED);
	w->measuring = true;
	__atomic_store_n(&st->measuring, 1, __ATOMIC_RELEASE);
}

#define DRAIN_NS 1000000000ULL /* -N, --duration: at most this long for the results in flight */

/* The run stops: a client ends now, or once what it has in flight is back:
 * 20 s at most with smoothshutdown, and when the run ended on its own terms
 * (-N, --duration) a second at most (or -t, if shorter), so that the count is
 * what the server completed.  A signal or -E ends it now.  @return true when
 * it ends now. */
static bool worker_stopping(struct ldb_client *w, uint64_t now)
{
	const struct ldb_run *run = w->run;
	if (w->outstanding == 0)
		return true;
	uint64_t limit = 20000000000ULL;
	if (!run->smooth_shutdown) {
		if (__atomic_load_n(&run->stop, __ATOMIC_RELAXED) != LDB_STOP_DONE)
			return true;
		limit = run->timeout_ns > 0 && run->timeout_ns < DRAIN_NS ? run->timeout_ns : DRAIN_NS;
	}
	if (w->smooth_deadline == 0)
		w->smooth_deadline = now + limit;
	else if (now > w->smooth_deadline)
		return true;
	w->exhausted = true;
	return false;
}

void ldb_client_end(struct ldb_iothread *r, struct ldb_client *w, int *alive)
{
	uint64_t pending = 0;
	for (int k = 0; k < w->nconns; k++)
		pending += (uint64_t)(w->conns[k].inflight - w->conns[k].syncing); /* a sync is no operation */
	w->pending_at_end = pending; /* read by the main thread after the join */
	for (int k = 0; k < w->nconns; k++)
		if (w->conns[k].unconfirmed && w->conns[k].ln.fd >= 0) /* its connect was still under way */
			__atomic_store_n(&w->st->connect_end, LDB_CONNECT_END_PENDING, __ATOMIC_RELAXED);
	ldb_errlines_flush(w);
	worker_close_all(w);
	ldb_timer_cancel(&r->timers, &w->pace);
	for (int k = 0; k < w->nconns; k++)
		ldb_timer_cancel(&r->timers, &w->conns[k].tm);
	w->ended = true;
	(*alive)--;
	__atomic_store_n(&w->st->dead, 1, __ATOMIC_RELEASE);
}

/* What the run's shared flags ask of every client: start measuring (once),
 * and, once the run stops, end (checked on every wake-up from then on). */
static void runner_flags(struct ldb_iothread *r, const struct ldb_run *run, uint64_t now, int *alive)
{
	if (!r->lat.measuring && __atomic_load_n(&run->measuring, __ATOMIC_ACQUIRE)) {
		for (int j = 0; j < r->nxlat; j++) /* before r->lat: the load waits on that one */
			lat_start_measuring(&r->xlat[j]);
		lat_start_measuring(&r->lat);
		for (int i = 0; i < r->nw; i++) {
			struct ldb_client *w = &r->w[i];
			if (w->ended || w->measuring)
				continue;
			worker_start_measuring(w);
			for (int k = 0; k < w->nconns; k++)
				conn_wake(&w->conns[k]); /* -T counts again from zero */
		}
	}
	if (r->nruns <= 1) {
		if (!run_stopping(run))
			return;
		for (int i = 0; i < r->nw; i++)
			if (!r->w[i].ended && worker_stopping(&r->w[i], now))
				ldb_client_end(r, &r->w[i], alive);
		return;
	}
	for (int j = 0; j < r->nruns; j++) { /* [workload] sections: a workload may end before the others */
		if (!run_stopping(r->runs[j]))
			continue;
		for (int i = 0; i < r->nw; i++)
			if (!r->w[i].ended && r->w[i].run == r->runs[j] && worker_stopping(&r->w[i], now))
				ldb_client_end(r, &r->w[i], alive);
	}
}

/* epoll with a nanosecond timeout where the kernel has epoll_pwait2 (5.11+):
 * --rate schedules need better than epoll_wait's milliseconds. */
static int wait_events(int epfd, struct epoll_event *evs, int max, uint64_t ns)
{
	static int have_pwait2 = 1;
	if (__atomic_load_n(&have_pwait2, __ATOMIC_RELAXED)) {
		struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };
		int n = epoll_pwait2(epfd, evs, max, &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		__atomic_store_n(&have_pwait2, 0, __ATOMIC_RELAXED);
	}
	return epoll_wait(epfd, evs, max, (int)((ns + 999999) / 1000000));
}

/* The thread's set-up: its epoll set and its deadline heap, with room for
 * every connection's deadline and every client's pacing; every connection
 * starts on the ready list.  @return 0, or -1 with r->error set. */
static int runner_open(struct ldb_iothread *r, int *epfd)
{
	uint32_t entries = 0;
	*epfd = epoll_create1(EPOLL_CLOEXEC);
	if (*epfd < 0) {
		snprintf(r->error, sizeof r->error, "cannot create an epoll set: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < r->nw; i++)
		entries += (uint32_t)r->w[i].nconns + 1;
	if (ldb_timers_init(&r->timers, entries) != 0) {
		snprintf(r->error, sizeof r->error, "out of memory for %u deadlines", entries);
		close(*epfd);
		*epfd = -1;
		return -1;
	}
	if (ldb_src_open(r, *epfd) != 0) {
		snprintf(r->error, sizeof r->error, "cannot watch the source's events: %s", strerror(errno));
		ldb_timers_free(&r->timers);
		close(*epfd);
		*epfd = -1;
		return -1;
	}
	r->ready = NULL;
	r->ready_tail = &r->ready;
	if (r->nw > 0 && r->w[0].run->source == LDB_SOURCE_LOAD) { /* the replay's connections keep their own */
		size_t in = in_size(r->w[0].run), out = out_size(r->w[0].run);
		for (int i = 1; i < r->nw; i++) /* [workload] sections: the largest any of its clients' runs needs */
			if (r->w[i].run != r->w[i - 1].run) {
				in = in_size(r->w[i].run) > in ? in_size(r->w[i].run) : in;
				out = out_size(r->w[i].run) > out ? out_size(r->w[i].run) : out;
			}
		ldb_bufpool_init(&r->bufs, in, out, r->w[0].run->held);
	}
	for (int i = 0; i < r->nw; i++) {
		struct ldb_client *w = &r->w[i];
		w->epfd = *epfd;
		w->runner = r;
		ldb_timer_set(&w->pace, TM_PACE, w);
		/* the open-loop schedule and -W's first wait begin with the threads,
		 * not at set-up: --monitor's read, the pre-flight check and
		 * --start-at come between, and a schedule already behind would
		 * send a burst to catch up */
		uint64_t shift = w->run->t_start > w->t_init ? w->run->t_start - w->t_init : 0;
		bool load = w->run->source == LDB_SOURCE_LOAD; /* --start-after, --connect-rate: the load's */
		uint64_t after = load ? w->run->cfg->start_after_ms * 1000000ULL : 0; /* a workload's --start-after */
		shift += after;
		if (r->nruns < 16 && (r->nruns == 0 || r->runs[r->nruns - 1] != w->run))
			r->runs[r->nruns++] = w->run;
		w->next_intended += shift;
		if (w->next_op_at != 0)
			w->next_op_at += shift;
		/* --ramp-up: the clients' first connects spread over it from the start */
		const struct ldb_run *run = w->run;
		uint64_t ramp = run->ramp_up_ns * (uint64_t)w->id / (uint64_t)(run->nclients > 0 ? run->nclients : 1);
		for (int k = 0; k < w->nconns; k++) {
			ldb_timer_set(&w->conns[k].tm, TM_CONN, &w->conns[k]);
			w->conns[k].retry_at = w->run->t_start + after + ramp +
			                       (load ? ldb_held_connect_after(w->run->cfg, w->id, k) : 0);
			conn_wake(&w->conns[k]);
		}
	}
	return 0;
}

void *ldb_iothread_main(void *arg)
{
	struct ldb_iothread *r = arg;
	struct epoll_event evs[256];
	int epfd, alive = r->nw;

	__atomic_store_n(&r->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (runner_open(r, &epfd) != 0) {
		for (int i = 0; i < r->nw; i++) {
			worker_die(&r->w[i], LDB_EXIT_OTHER);
			__atomic_store_n(&r->w[i].st->dead, 1, __ATOMIC_RELEASE);
		}
		return NULL;
	}
	bool paced = false;
	for (int i = 0; i < r->nw && !paced; i++)
		paced = r->w[i].run->rate_interval_ns > 0;
	if (paced)
		(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake on schedule, to the microsecond */
	uint64_t now = ldb_now_ns();
	const struct ldb_run *run = r->nw > 0 ? r->w[0].run : NULL;
	bool streams = false; /* a client reads a stream file (a value pattern's, a template's) */
	for (int i = 0; i < r->nw; i++)
		if ((r->w[i].vpc != NULL && r->w[i].vpc->streams) ||
		    (r->w[i].wctx != NULL && ldb_objtmpl_streams(r->w[i].run->cfg->objtmpl)))
			streams = true;
	while (alive > 0) {
		ldb_src_round(r, now, &alive);
		runner_flags(r, run, now, &alive);
		ldb_drain_ready(r, now, &alive);
		if (alive == 0)
			break;
		uint64_t wake = now + TICK_MS * 1000000ULL, due = ldb_timers_next(&r->timers);
		if (r->ready != NULL)
			wake = now;
		else if (due < wake)
			wake = due;
		for (int i = 0; streams && i < r->nw; i++) { /* stream files: read ahead while idle */
			if (r->w[i].vpc != NULL && r->w[i].vpc->streams)
				ldb_vpc_prefetch(r->w[i].vpc, r->w[i].run->cfg);
			if (r->w[i].wctx != NULL && ldb_objtmpl_streams(r->w[i].run->cfg->objtmpl))
				ldb_objtmpl_prefetch(r->w[i].run->cfg->objtmpl, &r->w[i].wctx->cur);
		}
		wake = ldb_src_wait(r, now, wake);
		int n = wait_events(epfd, evs, (int)(sizeof evs / sizeof evs[0]), wake > now ? wake - now : 0);
		now = ldb_now_ns();
		ldb_conn_events(r, evs, n, now);
		if (ldb_timers_next(&r->timers) <= now) {
			now = ldb_now_ns(); /* reads may have stamped operations later than `now` */
			ldb_fire_deadlines(r, now);
		}
	}
	close(epfd);
	for (int i = 0; i < r->nw; i++)
		r->w[i].epfd = -1;
	ldb_timers_free(&r->timers);
	ldb_bufpool_close(&r->bufs);
	/* the sampler reads an ended thread's figures from here: its clocks are
	 * gone once it has returned */
	uint64_t v;
	if (ldb_thread_cpu_ns(pthread_self(), &v) == 0)
		__atomic_store_n(&r->cpu_end_ns, v, __ATOMIC_RELAXED);
	if (ldb_thread_run_delay_ns(r->tid, &v) == 0)
		__atomic_store_n(&r->wait_end_ns, v, __ATOMIC_RELAXED);
	__atomic_store_n(&r->lat.ended, 1, __ATOMIC_RELEASE);
	return NULL;
}
