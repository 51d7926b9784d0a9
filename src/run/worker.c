/* The worker: logical clients (ldclt's threads) on I/O threads, each I/O
 * thread an epoll loop over the connections of its clients.
 *
 * A connection is a small state machine:
 *   IDLE -> CONNECTING -> (STARTTLS) -> (TLS) -> (BINDING) -> READY,
 * with requests in flight up to the depth; with bindeach, one pass per
 * connection: ... -> OP -> unbind/close -> IDLE.
 * One operation of the load is a pass: the run's kinds in ldclt's order
 * (add, modify, delete, bind, search, rename), each with the same number, one
 * after the other on one slot; with --mix, one kind drawn by weight.
 * Requests are rendered from start-up templates (search, bind) or by the
 * write renderer into the connection's output buffer, and written in one send
 * per batch; responses are framed out of large reads.  Nothing here allocates
 * (but for a buffer that must grow to hold one unusually large message, and a
 * TLS session object per handshake), locks or prints.
 *
 * An I/O thread touches only what is ready: the connections of its epoll
 * events, those on its ready list (work without an event: a slot came free,
 * a back-off ended, a pacing deadline passed) and the due entries of its
 * deadline heap.  Each connection has one deadline: the end of its back-off
 * when idle, else the earliest time something on it may time out (-t), kept
 * lazily: it is armed when a request goes out and none is armed, and when it
 * passes the connection's slots are looked at and it is armed again.
 */
#include "run/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <ldap.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "proto/wire.h"
#include "run/clock.h"

#define OUT_MIN 4096          /* a connection's output buffer at least */
#define WRITE_TYPICAL 1024    /* room per write in a window (a write reserves RETRY_CAP) */
#define IN_PER 4096           /* input per request in flight: most responses fit */
#define IN_MIN (16 * 1024)
#define IN_START_MAX (256 * 1024)
#define IN_MAX (64 * 1024 * 1024)
#define RETRY_CAP (64 * 1024)
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 1000
#define TICK_MS 50
#define MAX_PARENT_LEVELS 8
#define STARTTLS_OID "1.3.6.1.4.1.1466.20037"

/* What a deadline entry belongs to. */
enum { TM_CONN, TM_PACE };

enum cstate { CS_IDLE, CS_CONNECTING, CS_STARTTLS, CS_TLS, CS_BINDING, CS_READY, CS_OP };

/* What a slot's request is, besides an operation of the load. */
enum { SETUP_NONE, SETUP_BIND, SETUP_STARTTLS };

struct ldb_slot {
	int32_t msgid;
	uint8_t kind;      /* enum ldb_op of the request in flight */
	uint8_t used;
	uint8_t setup;     /* SETUP_*: not an operation of the load */
	uint8_t counts;    /* an operation of the load: ldclt's count, -T */
	uint8_t step;      /* position in the run's pass */
	uint8_t aux;       /* ancestors being created above an add (0: the add itself) */
	uint64_t t0;       /* start: the intended one with --rate */
	uint64_t t_sent;   /* when the request was put on the wire */
	uint64_t entries;
	uint32_t gen;
	int64_t v, bv;     /* the pass's numbers */
};

struct ldb_conn {
	struct ldb_worker *w;
	int fd;
	enum cstate state;
	bool ever_up;      /* connected (and bound) once: the next one is a reconnect */
	bool proven;       /* this connection has had an answer (or a bind) */
	bool unconfirmed;  /* TCP connect not yet known to have worked */
	bool out_armed;    /* EPOLLOUT added to the socket's events */
	bool tls_on;       /* I/O goes through tc */
	bool tls_read_wants_write, tls_write_wants_read;
	struct ldb_tls_conn tc;
	uint64_t t_connect;
	uint64_t t_tls;
	uint64_t t_cycle;
	uint64_t t_due;    /* --rate: intended start of the operation being issued */
	int64_t cycle_v, cycle_bv; /* bindeach: the pass's numbers */
	uint64_t retry_at;
	uint32_t backoff_ms;
	struct ldb_timer tm;  /* back-off end (idle), or when something may time out */
	struct ldb_conn *ready_next;
	bool queued;       /* on its I/O thread's ready list */
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	uint8_t *in;
	size_t in_len, in_cap;
	struct ldb_slot *slots;
	int depth;         /* slots in use at most */
	int inflight;
	int32_t id_span;   /* message ids cycle in [1, id_span] */
	/* last: the hot fields above share a few cache lines, 10,000 connections too */
	uint8_t *retry;    /* the add waiting for its parents (depth 1 only) */
	size_t retry_len;
	size_t retry_dnlen;
	char retry_dn[LDB_DN_MAX];
};

/* ---------------------------------------------------------------- run setup */

static int resolve(struct ldb_run *run, const char *host, int port, char *err, size_t cap)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	char portstr[16];
	snprintf(portstr, sizeof portstr, "%d", port);
	int rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0 || res == NULL) {
		snprintf(err, cap, "cannot resolve host '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memcpy(&run->addr, res->ai_addr, res->ai_addrlen);
	run->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* The pass (ldclt's order of combined operations) or the mix. */
static void plan_operations(struct ldb_run *run, const struct ldb_config *c)
{
	uint32_t best = 0;
	if (c->mix) {
		uint32_t cum = 0;
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (c->weight[k] > 0) {
				run->load_kind[k] = true;
				if ((uint32_t)c->weight[k] > best) {
					best = (uint32_t)c->weight[k];
					run->main_op = k;
				}
			}
			cum += (uint32_t)c->weight[k];
			run->mix_cum[k] = cum;
		}
		run->mix_total = cum;
		return;
	}
	run->npass = ldb_ops_pass(c, run->pass);
	for (int i = 0; i < run->npass; i++)
		run->load_kind[run->pass[i]] = true;
	run->main_op = run->pass[0];
}

int ldb_run_init(struct ldb_run *run, const struct ldb_config *c, char *err, size_t cap)
{
	memset(run, 0, sizeof *run);
	run->cfg = c;
	const char *host = c->host;
	int port = c->port;
	LDAPURLDesc *lud = NULL;
	if (c->uri != NULL) {
		if (ldap_url_parse(c->uri, &lud) != LDAP_URL_SUCCESS) {
			snprintf(err, cap, "bad URL '%s'", c->uri);
			return -1;
		}
		if (lud->lud_host != NULL && lud->lud_host[0] != '\0')
			host = lud->lud_host;
		if (lud->lud_port > 0)
			port = lud->lud_port;
		else
			port = strcmp(lud->lud_scheme, "ldaps") == 0 ? 636 : 389;
	}
	int rc = resolve(run, host, port, err, cap);
	if (lud != NULL)
		ldap_free_urldesc(lud);
	if (rc != 0)
		return -1;

	plan_operations(run, c);
	run->bind_on_connect = c->bind_dn != NULL || c->binddn_file_n > 0 || c->sasl_mech != NULL;
	/* A bind must be alone on its connection (RFC 4511 4.2.1); parents
	 * are created as ldclt does, on one request at a time. */
	run->depth = c->depth;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (run->load_kind[k] && ldb_ops[k]->alone)
			run->depth = 1;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (run->load_kind[k] && ldb_ops[k]->parents && run->depth == 1)
			run->make_parents = true;
		if (run->load_kind[k] && !ldb_ops[k]->response)
			run->unanswered = true;
	}
	run->timeout_ns = (uint64_t)c->timeout_sec * 1000000000ULL;
	run->common_counter = c->range_low;
	if (c->rate > 0)
		run->rate_interval_ns = (uint64_t)(1e9 * (double)c->threads / c->rate);
	run->measuring = c->warmup_ms == 0 && c->warmup_samples == 0;

	if (ldb_ops_prepare(&run->ops, c, run->load_kind, err, cap) != 0)
		return -1;
	run->writes = run->ops.scratch;
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	if (ldb_wire_encode_unbind(&b, werr) != 0 || ldb_reqset_build_fixed(&run->unbind, b.data, b.len) != 0) {
		ldb_bytes_free(&b);
		snprintf(err, cap, "cannot encode an unbind request");
		return -1;
	}
	ldb_bytes_free(&b);
	if (c->starttls) {
		if (ldb_wire_encode_extended(&b, STARTTLS_OID, NULL, 0, 0, werr) != 0 ||
		    ldb_reqset_build_fixed(&run->starttls, b.data, b.len) != 0) {
			ldb_bytes_free(&b);
			snprintf(err, cap, "cannot encode a StartTLS request");
			return -1;
		}
		ldb_bytes_free(&b);
	}
	if ((c->ldaps || c->starttls) && ldb_tls_new(&run->tls, c, err, cap) != 0)
		return -1;
	return 0;
}

void ldb_run_free(struct ldb_run *run)
{
	ldb_ops_free(&run->ops);
	ldb_reqset_free(&run->unbind);
	ldb_reqset_free(&run->starttls);
	if (run->tls != NULL)
		ldb_tls_free(run->tls);
	run->tls = NULL;
}

/* ---------------------------------------------------------------- counting */

static bool run_stopping(const struct ldb_run *run)
{
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED) != LDB_STOP_NONE;
}

static void note_error(struct ldb_worker *w, enum ldb_op kind, int code)
{
	struct ldb_run *run = w->run;
	int slot = ldb_code_slot(code);
	ldb_add(&w->st->op[kind].codes[slot], 1);
	uint64_t n = __atomic_add_fetch(&run->err_total[slot], 1, __ATOMIC_RELAXED);
	if ((long long)n > run->cfg->max_errors && !ldb_config_ignored(run->cfg, code)) {
		int none = LDB_STOP_NONE;
		if (__atomic_compare_exchange_n(&run->stop, &none, LDB_STOP_MAX_ERRORS, false, __ATOMIC_RELAXED,
		                                __ATOMIC_RELAXED))
			__atomic_store_n(&run->max_error_code, code, __ATOMIC_RELAXED);
	}
}

static void note_fail(struct ldb_worker *w, enum ldb_op kind, enum ldb_fail f)
{
	static const int code[LDB_FAIL_COUNT] = { LDB_RC_CONNECT_ERROR, LDB_RC_CONNECT_ERROR, LDB_RC_TIMEOUT,
	                                          LDB_RC_SERVER_DOWN };
	ldb_add(&w->st->op[kind].fails[f], 1);
	note_error(w, kind, code[f]);
}

static void worker_die(struct ldb_worker *w, int status)
{
	if (status > w->st->status)
		w->st->status = status;
	w->exhausted = true;
}

/* An operation's result: the counters, the histogram, ldclt's count. */
static void record_result(struct ldb_worker *w, const struct ldb_slot *s, int rc, uint64_t now)
{
	const struct ldb_config *c = w->run->cfg;
	enum ldb_op kind = s->kind;
	struct ldb_opstats *o = &w->st->op[kind];
	bool counts = false;

	ldb_hist_record(&w->lat->op[kind], now > s->t0 ? now - s->t0 : 0);
	if (w->run->rate_interval_ns > 0)
		ldb_hist_record(&w->lat->uop[kind], now > s->t_sent ? now - s->t_sent : 0);
	ldb_add(&o->completed, 1);
	if (ldb_op_succeeded(kind, rc)) {
		ldb_add(&o->succeeded, 1);
		counts = true;
		if (ldb_ops[kind]->entries && c->expect_entries >= 0) {
			if ((long long)s->entries == c->expect_entries)
				ldb_add(&o->exp_hits, 1);
			else
				ldb_add(&o->exp_misses, 1);
		}
	} else {
		note_error(w, kind, rc);
		if (c->counteach && ldb_op_expected_failure(kind, rc))
			counts = true;
	}
	if (counts && s->counts) {
		ldb_add(&o->counted, 1);
		ldb_add(&w->st->counted, 1);
	}
}

/* A kind without a response is done once sent (ldclt counts each send);
 * there is no latency to record. */
static void record_sent(struct ldb_worker *w, const struct ldb_slot *s)
{
	struct ldb_opstats *o = &w->st->op[s->kind];

	ldb_add(&o->completed, 1);
	ldb_add(&o->succeeded, 1);
	if (s->counts) {
		ldb_add(&o->counted, 1);
		ldb_add(&w->st->counted, 1);
	}
}

/* ---------------------------------------------------------------- values */

/* The next number for -f's XXX.  false when noloop has reached the top. */
static bool next_value(struct ldb_worker *w, int64_t *v)
{
	const struct ldb_config *c = w->run->cfg;
	int64_t lo = c->range_low, hi = c->range_high, x;
	switch (c->valmode) {
	case LDB_VAL_RANDOM:
		*v = ldb_rng_range(&w->rng, lo, hi);
		return true;
	case LDB_VAL_INCR:
		if (c->commoncounter)
			x = __atomic_fetch_add(&w->run->common_counter, c->incr_step, __ATOMIC_RELAXED);
		else {
			x = w->incr_next;
			w->incr_next += c->incr_step;
		}
		if (x > hi) {
			if (c->noloop) {
				if (w->note[0] == '\0')
					snprintf(w->note, sizeof w->note, "T%03d: Hit top incremental value %lld > %lld",
					         w->id, (long long)x, (long long)hi);
				return false;
			}
			x = lo + (x - lo) % (hi - lo + 1);
			if (!c->commoncounter)
				w->incr_next = x + c->incr_step;
		}
		*v = x;
		return true;
	default:
		*v = 0;
		return true;
	}
}

/* The numbers of a new pass.  false when noloop has reached the top. */
static bool pass_values(struct ldb_worker *w, int64_t *v, int64_t *bv)
{
	const struct ldb_config *c = w->run->cfg;
	if (!next_value(w, v)) {
		w->exhausted = true;
		return false;
	}
	*bv = c->randombase ? ldb_rng_range(&w->rng, c->base_low, c->base_high) : 0;
	return true;
}

/* The kind of step `step` of a pass (with --mix, drawn now). */
static enum ldb_op pick_kind(struct ldb_worker *w, int step)
{
	struct ldb_run *run = w->run;
	if (run->mix_total == 0)
		return run->pass[step];
	uint32_t x = (uint32_t)ldb_rng_range(&w->rng, 0, (int64_t)run->mix_total - 1);
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (x < run->mix_cum[k])
			return k;
	return run->main_op;
}

static int pass_length(const struct ldb_run *run)
{
	return run->mix_total ? 1 : run->npass;
}

/* ---------------------------------------------------------------- sockets */

/* Work for this connection without an event: its I/O thread steps it once
 * this round of events and deadlines is over. */
static void conn_wake(struct ldb_conn *cn)
{
	struct ldb_runner *r = cn->w->runner;
	if (cn->queued)
		return;
	cn->queued = true;
	cn->ready_next = NULL;
	*r->ready_tail = cn;
	r->ready_tail = &cn->ready_next;
}

/* Look at this connection again at `at` at the latest (its one deadline
 * keeps the earliest asked for; the heap has room for every entry). */
static void conn_watch(struct ldb_conn *cn, uint64_t at)
{
	(void)ldb_timer_arm_before(&cn->w->runner->timers, &cn->tm, at);
}

/* When a request sent (or a connect begun) at `now` times out (-t). */
static uint64_t timeout_at(const struct ldb_conn *cn, uint64_t now)
{
	return now + cn->w->run->timeout_ns + 1;
}

/* graceful: a TLS close_notify first (after an unbind, or at the end). */
static void conn_close(struct ldb_conn *cn, bool graceful)
{
	if (cn->tls_on) {
		if (graceful)
			ldb_tls_conn_close(&cn->tc);
		else
			ldb_tls_conn_free(&cn->tc);
		cn->tls_on = false;
	}
	if (cn->fd >= 0)
		close(cn->fd); /* leaves the epoll set with it: never dup'ed */
	cn->fd = -1;
	cn->out_len = cn->out_off = 0;
	cn->in_len = 0;
	cn->unconfirmed = false;
	cn->tls_read_wants_write = cn->tls_write_wants_read = false;
	for (int i = 0; i < cn->depth; i++)
		cn->slots[i].used = 0;
	cn->inflight = 0;
}

/* Ask for the EPOLLOUT edge: only once a write could not go through, so that
 * a connection whose writes always go through never wakes for it. */
static void arm_out(struct ldb_conn *cn)
{
	if (cn->out_armed || cn->fd < 0)
		return;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = cn };
	epoll_ctl(cn->w->epfd, EPOLL_CTL_MOD, cn->fd, &ev);
	cn->out_armed = true;
}

/* Plain or TLS send: >0 bytes, 0 try later, -1 broken. */
static ssize_t io_send(struct ldb_conn *cn, const uint8_t *buf, size_t len)
{
	if (cn->tls_on) {
		size_t n = 0;
		int rc = ldb_tls_write(&cn->tc, buf, len, &n);
		if (rc == LDB_TLS_OK)
			return (ssize_t)n;
		if (rc == LDB_TLS_WANT_READ) {
			cn->tls_write_wants_read = true;
			return 0;
		}
		return rc == LDB_TLS_WANT_WRITE ? 0 : -1;
	}
	for (;;) {
		ssize_t n = send(cn->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0)
			return n > 0 ? n : -1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	}
}

/* Plain or TLS receive: >0 bytes, 0 nothing now, -1 closed or broken. */
static ssize_t io_recv(struct ldb_conn *cn, uint8_t *buf, size_t cap)
{
	if (cn->tls_on) {
		size_t n = 0;
		int rc = ldb_tls_read(&cn->tc, buf, cap, &n);
		if (rc == LDB_TLS_OK)
			return (ssize_t)n;
		if (rc == LDB_TLS_WANT_READ)
			return 0;
		if (rc == LDB_TLS_WANT_WRITE) {
			cn->tls_read_wants_write = true; /* the next EPOLLOUT edge reads */
			arm_out(cn);
			return 0;
		}
		return -1;
	}
	for (;;) {
		ssize_t n = recv(cn->fd, buf, cap, MSG_DONTWAIT);
		if (n > 0)
			return n;
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	}
}

/* The TCP connection proved to work (a byte moved, or the EPOLLOUT edge). */
static void confirm(struct ldb_conn *cn)
{
	struct ldb_worker *w = cn->w;
	if (!cn->unconfirmed)
		return;
	cn->unconfirmed = false;
	ldb_add(&w->st->connects, 1);
	/* one reading ends the connect stage and starts what follows: the TLS
	 * stage, or the requests sent before the connection was known to be up */
	uint64_t now = ldb_now_ns();
	if (w->run->cfg->bindeach)
		ldb_hist_record(&w->lat->stage[LDB_STAGE_CONNECT], now > cn->t_connect ? now - cn->t_connect : 0);
	if (cn->state == CS_TLS)
		cn->t_tls = now;
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used || s->t_sent >= now)
			continue;
		if (s->t0 == s->t_sent)
			s->t0 = now; /* not an intended start (--rate) */
		s->t_sent = now;
	}
}

static int conn_flush(struct ldb_conn *cn)
{
	cn->tls_write_wants_read = false;
	while (cn->out_off < cn->out_len) {
		ssize_t n = io_send(cn, cn->out + cn->out_off, cn->out_len - cn->out_off);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (!cn->tls_write_wants_read)
				arm_out(cn);
			return 0; /* the next EPOLLOUT edge (or EPOLLIN, for TLS) writes the rest */
		}
		confirm(cn);
		cn->out_off += (size_t)n;
	}
	cn->out_len = cn->out_off = 0;
	return 0;
}

static void schedule_retry(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	uint32_t b = cn->backoff_ms ? cn->backoff_ms : BACKOFF_MIN_MS;
	/* jitter: 75 % .. 125 % */
	uint64_t ms = b * 3 / 4 + (uint64_t)ldb_rng_range(&w->rng, 0, b / 2);
	cn->retry_at = now + ms * 1000000ULL;
	cn->backoff_ms = b * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : b * 2;
	if (w->run->cfg->dontsleeponserverdown)
		cn->retry_at = now;
	if (cn->retry_at <= now)
		conn_wake(cn);
	else
		conn_watch(cn, cn->retry_at);
}

static void connect_failed(struct ldb_conn *cn, uint64_t now, enum ldb_fail kind, const char *why);

/* The connection broke (or timed out): every operation in flight on it fails.
 * One whose TCP connect never proved to work failed to connect. */
static void conn_fail(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	bool cycle = w->run->cfg->bindeach;
	if (cn->unconfirmed) {
		for (int i = 0; i < cn->depth; i++)
			if (cn->slots[i].used && cn->slots[i].counts && !cycle)
				w->outstanding--;
		connect_failed(cn, now, LDB_FAIL_CONNECT, NULL);
		return;
	}
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used)
			continue;
		note_fail(w, s->kind, why);
		if (s->counts && !cycle)
			w->outstanding--;
	}
	if (cycle && cn->state != CS_IDLE)
		w->outstanding--;
	conn_close(cn, false);
	cn->state = CS_IDLE;
	schedule_retry(cn, now);
}

static void fatal_note(struct ldb_worker *w, int rc, const char *what, const char *why)
{
	const struct ldb_config *c = w->run->cfg;
	if (ldb_config_ignored(c, rc))
		return;
	if (w->note[0] == '\0') {
		if (why != NULL)
			snprintf(w->note, sizeof w->note, "T%03d: Cannot %s: %s", w->id, what, why);
		else
			snprintf(w->note, sizeof w->note, "T%03d: Cannot %s, error=%d (%s)", w->id, what, rc,
			         ldap_err2string(rc));
	}
	worker_die(w, LDB_EXIT_CANNOT_BIND);
}

/* The TCP connect, StartTLS or TLS handshake failed or timed out.  A
 * connection that never came up, with a code not ignored (-I -11), ends the
 * thread, as ldclt's failed first bind does; one that was up before goes on
 * trying (the server went away). */
static void connect_failed(struct ldb_conn *cn, uint64_t now, enum ldb_fail kind, const char *why)
{
	struct ldb_worker *w = cn->w;
	note_fail(w, w->run->main_op, kind);
	if (w->run->cfg->bindeach && cn->state != CS_IDLE)
		w->outstanding--;
	conn_close(cn, false);
	cn->state = CS_IDLE;
	schedule_retry(cn, now);
	if (!cn->ever_up)
		fatal_note(w, LDB_RC_CONNECT_ERROR, kind == LDB_FAIL_TLS ? "connect (TLS)" : "connect", why);
}

static void conn_connected(struct ldb_conn *cn, uint64_t now);

static void conn_connect(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	int fd = socket(run->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	cn->t_connect = now;
	cn->state = CS_CONNECTING;
	cn->proven = false;
	if (fd < 0) {
		char why[128];
		snprintf(why, sizeof why, "no socket: %s", strerror(errno));
		connect_failed(cn, now, LDB_FAIL_CONNECT, why);
		return;
	}
	/* Nagle only ever delays a write that follows unanswered ones: with one
	 * plain request at a time the answer acknowledges it, so the option (a
	 * system call per connection, bindeach's too) is set only for pipelines,
	 * and for TLS, whose handshake ends with two writes in a row (Finished,
	 * then the first request: 40 ms of delayed ACK without it) */
	if (run->depth > 1 || run->tls != NULL) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	if (connect(fd, (const struct sockaddr *)&run->addr, run->addrlen) != 0 && errno != EINPROGRESS) {
		close(fd);
		connect_failed(cn, now, LDB_FAIL_CONNECT, NULL);
		return;
	}
	cn->fd = fd;
	/* edge-triggered, registered once; EPOLLOUT only if a write must wait;
	 * EPOLLRDHUP: the peer's close may come in the same edge as its last bytes */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = cn };
	cn->out_armed = false;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		close(fd);
		cn->fd = -1;
		connect_failed(cn, now, LDB_FAIL_CONNECT, NULL);
		return;
	}
	conn_watch(cn, timeout_at(cn, now)); /* the connect, and what follows it */
	/* Go on at once: on loopback the handshake is done when connect()
	 * returns, and otherwise the first send waits for the EPOLLOUT edge.
	 * A connection that then fails before any byte moved failed to connect. */
	cn->unconfirmed = true;
	conn_connected(cn, now);
	if (cn->fd >= 0 && cn->unconfirmed)
		arm_out(cn); /* nothing went out yet: learn of the connect from its edge */
}

static int free_slot(const struct ldb_conn *cn)
{
	for (int i = 0; i < cn->depth; i++)
		if (!cn->slots[i].used)
			return i;
	return -1;
}

static int32_t next_msgid(struct ldb_conn *cn, int i)
{
	struct ldb_slot *s = &cn->slots[i];
	s->gen++;
	return (int32_t)(((int64_t)s->gen * cn->depth + i) % cn->id_span) + 1;
}

/* Room for one more request: flush first if the buffer is nearly full; an
 * empty buffer too small for one request grows (once: it stays grown). */
static bool room_for(struct ldb_conn *cn, size_t need)
{
	if (cn->out_cap - cn->out_len >= need)
		return true;
	if (cn->out_off > 0 && cn->out_off == cn->out_len)
		cn->out_len = cn->out_off = 0;
	else if (conn_flush(cn) != 0)
		return false;
	if (cn->out_cap - cn->out_len >= need)
		return true;
	if (cn->out_len > 0)
		return false; /* the peer is slow: the EPOLLOUT edge writes the rest */
	size_t cap = cn->out_cap * 2 > need ? cn->out_cap * 2 : need;
	uint8_t *bigger = realloc(cn->out, cap);
	if (bigger == NULL)
		return false;
	cn->out = bigger;
	cn->out_cap = cap;
	return true;
}

/* Keep an add's protocolOp and DN (just rendered at dst), in case its
 * parents are missing; armed only on a 32. */
static void keep_for_parents(struct ldb_conn *cn, const uint8_t *dst, long n)
{
	const struct ldb_wctx *wc = cn->w->wctx;
	struct ldb_resp r;
	if (ldb_wire_parse(dst, (size_t)n, &r, NULL) == 1 && wc->dnlen < sizeof cn->retry_dn) {
		size_t hdr = 1 + (r.bodylen < 128 ? 1 : r.bodylen < 256 ? 2 : r.bodylen < 65536 ? 3 : 4);
		const uint8_t *op = r.body - hdr;
		size_t oplen = (size_t)(dst + n - op);
		if (oplen <= RETRY_CAP) {
			memcpy(cn->retry, op, oplen);
			memcpy(cn->retry_dn, wc->dn, wc->dnlen);
			cn->retry_dnlen = wc->dnlen;
		}
	}
	cn->retry_len = 0;
}

/* Render the request for slot i (its kind, numbers and aux level set) with a
 * fresh message id.  false when nothing could be written; *exhausted when an
 * entry template passed its top. */
static bool render_slot(struct ldb_conn *cn, int i, bool *exhausted)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	struct ldb_slot *s = &cn->slots[i];
	const struct ldb_opdesc *d = ldb_ops[s->kind];
	int32_t msgid = next_msgid(cn, i);
	uint8_t *dst;
	long n;

	*exhausted = false;
	if (s->setup == SETUP_STARTTLS) {
		int64_t vals[LDB_FIELD_COUNT] = { 0 };
		if (!room_for(cn, run->starttls.maxlen))
			return false;
		n = (long)ldb_req_render(&run->starttls, 0, vals, msgid, cn->out + cn->out_len, cn->out_cap - cn->out_len);
	} else if (s->aux > 0) {
		/* an ancestor of an add (add_missing_parents) */
		if (!room_for(cn, RETRY_CAP))
			return false;
		n = (long)ldb_add_render_parent(cn->retry_dn, cn->retry_dnlen, s->aux, msgid, cn->out + cn->out_len,
		                                cn->out_cap - cn->out_len);
	} else if (d->parents && cn->retry_len > 0) {
		/* the add again, once its parents exist: same request, new id */
		if (!room_for(cn, cn->retry_len + LDB_WIRE_ENVELOPE_MAX))
			return false;
		n = (long)ldb_wire_frame(cn->out + cn->out_len, cn->out_cap - cn->out_len, msgid, cn->retry, cn->retry_len);
		cn->retry_len = 0;
	} else {
		struct ldb_op_req r = { &run->ops, w->wctx, &w->rng, s->v, s->bv, msgid, 0 };
		if (!room_for(cn, run->ops.room[s->kind]))
			return false;
		if (d->msgids > 1)
			r.msgid2 = next_msgid(cn, i); /* the same slot's next id: unique on the connection */
		dst = cn->out + cn->out_len;
		n = d->render(&r, dst, cn->out_cap - cn->out_len);
		if (n < 0) {
			*exhausted = true;
			if (w->note[0] == '\0')
				snprintf(w->note, sizeof w->note, "T%03d: the entry template reached its top value", w->id);
			return false;
		}
		if (n > 0 && d->parents && run->make_parents)
			keep_for_parents(cn, dst, n);
	}
	if (n <= 0)
		return false;
	cn->out_len += (size_t)n;
	s->msgid = msgid;
	return true;
}

static void pass_continue(struct ldb_conn *cn, int i, const struct ldb_slot *done, uint64_t now);

/* Issue slot i as step `step` of a pass (or as a setup request). */
static bool issue(struct ldb_conn *cn, int i, enum ldb_op kind, int step, int setup, bool counts, int64_t v,
                  int64_t bv, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_slot *s = &cn->slots[i];
	s->kind = (uint8_t)kind;
	s->step = (uint8_t)step;
	s->setup = (uint8_t)setup;
	s->counts = counts;
	s->aux = 0;
	s->v = v;
	s->bv = bv;
	bool exhausted;
	if (!render_slot(cn, i, &exhausted)) {
		if (exhausted)
			w->exhausted = true;
		return false;
	}
	s->used = 1;
	s->t_sent = now;
	s->t0 = now;
	if (w->run->rate_interval_ns > 0 && counts && step == 0)
		s->t0 = cn->t_due < now ? cn->t_due : now; /* open loop: from when it was due */
	s->entries = 0;
	cn->inflight++;
	if (setup == SETUP_BIND)
		ldb_add(&w->st->setup_binds, 1);
	else if (setup == SETUP_NONE)
		ldb_add(&w->st->op[kind].attempted, 1);
	if (setup == SETUP_NONE && !ldb_ops[kind]->response) {
		/* nothing will answer: done now, and the pass goes on */
		struct ldb_slot done = *s;
		record_sent(w, &done);
		s->used = 0;
		cn->inflight--;
		pass_continue(cn, i, &done, now);
	}
	return true;
}

static bool may_issue(struct ldb_worker *w, uint64_t now)
{
	const struct ldb_config *c = w->run->cfg;
	if (w->exhausted || run_stopping(w->run))
		return false;
	/* -T counts measured operations: none during warm-up */
	if (c->ops_per_thread > 0 && w->measuring &&
	    ldb_load(&w->st->counted) + w->outstanding >= (uint64_t)c->ops_per_thread)
		return false;
	if (c->wait_sec > 0 && now < w->next_op_at)
		return false;
	if (w->run->rate_interval_ns > 0 && now < w->next_intended)
		return false;
	return true;
}

/* When this client may start its next operation (for the epoll timeout). */
static uint64_t next_due(const struct ldb_worker *w)
{
	if (w->run->cfg->wait_sec > 0)
		return w->next_op_at;
	if (w->run->rate_interval_ns > 0)
		return w->next_intended;
	return 0;
}

static void took_op(struct ldb_worker *w, uint64_t now)
{
	int ws = w->run->cfg->wait_sec;
	if (ws > 0)
		w->next_op_at = now + (uint64_t)ws * 1000000000ULL;
	/* --rate: the schedule does not move when we fall behind, so the
	 * latency of late operations includes their wait (no coordinated omission) */
	if (w->run->rate_interval_ns > 0)
		w->next_intended += w->run->rate_interval_ns;
}

/* Fill a ready persistent connection up to its depth with new passes, then
 * write once. */
static void conn_pump(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	/* With a deep window, refill once a quarter of it is free: one write
	 * then carries several requests (closed loop only: --rate and -W issue
	 * on their schedule). */
	int batch = cn->depth >= 8 && w->run->rate_interval_ns == 0 && w->run->cfg->wait_sec == 0 ? cn->depth / 2 : 1;
	if (cn->inflight > 0 && cn->depth - cn->inflight < batch)
		return;
	conn_watch(cn, timeout_at(cn, now));
	while (cn->inflight < cn->depth && may_issue(w, now)) {
		int i = free_slot(cn);
		int64_t v, bv;
		if (i < 0 || !pass_values(w, &v, &bv))
			break;
		cn->t_due = w->next_intended;
		if (!issue(cn, i, pick_kind(w, 0), 0, SETUP_NONE, true, v, bv, now))
			break;
		w->outstanding++;
		took_op(w, now);
	}
	if (cn->out_len > cn->out_off && conn_flush(cn) != 0)
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

/* Put one request on the wire at once (connection set-up, pass steps). */
static void issue_now(struct ldb_conn *cn, int i, enum ldb_op kind, int step, int setup, bool counts, int64_t v,
                      int64_t bv, uint64_t now)
{
	conn_watch(cn, timeout_at(cn, now));
	if (!issue(cn, i, kind, step, setup, counts, v, bv, now) || conn_flush(cn) != 0)
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

/* bindeach: end of one cycle. */
static void cycle_end(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	if (!run->cfg->close_sock && cn->fd >= 0) {
		static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
		cn->out_len = cn->out_off = 0;
		size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->out, cn->out_cap);
		if (n > 0)
			(void)io_send(cn, cn->out, n);
	}
	ldb_hist_record(&w->lat->stage[LDB_STAGE_CYCLE], now - cn->t_cycle);
	conn_close(cn, !run->cfg->close_sock);
	cn->state = CS_IDLE;
	cn->retry_at = now;
	w->outstanding--;
}

/* The first step of the cycle's pass (bindeach), after connect and bind. */
static void cycle_first_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	cn->state = CS_OP;
	issue_now(cn, 0, pick_kind(w, 0), 0, SETUP_NONE, true, cn->cycle_v, cn->cycle_bv, now);
}

/* Transport ready (TCP, and TLS when asked): bind, or go. */
static void conn_transport_ready(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;
	if (cycle && pick_kind(w, 0) == LDB_OP_BIND && run->mix_total == 0) {
		/* bindeach,bindonly: the cycle's bind is the operation */
		cycle_first_step(cn, now);
		return;
	}
	if (run->bind_on_connect) {
		cn->state = CS_BINDING;
		issue_now(cn, 0, LDB_OP_BIND, 0, cycle ? SETUP_NONE : SETUP_BIND, false, 0, 0, now);
		return;
	}
	/* without a bind, the connection proves itself with its first answer
	 * (conn_result): a server that accepts and closes at once must not
	 * reset the back-off */
	cn->proven = false;
	if (cycle) {
		cycle_first_step(cn, now);
		return;
	}
	cn->state = CS_READY;
	conn_pump(cn, now);
}

static void tls_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	char why[256] = "";
	int rc = ldb_tls_handshake(&cn->tc, why, sizeof why);
	if (rc == LDB_TLS_OK) {
		/* one reading ends the handshake and starts what follows, so the
		 * stages add up to the cycle */
		confirm(cn); /* if no edge said so yet: before the TLS stage ends */
		now = ldb_now_ns();
		ldb_add(&w->st->tls_handshakes, 1);
		if (ldb_tls_resumed(&cn->tc))
			ldb_add(&w->st->tls_resumed, 1);
		if (w->run->cfg->bindeach)
			ldb_hist_record(&w->lat->stage[LDB_STAGE_TLS], now > cn->t_tls ? now - cn->t_tls : 0);
		conn_transport_ready(cn, now);
		return;
	}
	if (rc == LDB_TLS_WANT_READ) {
		confirm(cn); /* the ClientHello went out: connected */
		return;      /* the next edge */
	}
	if (rc == LDB_TLS_WANT_WRITE) {
		arm_out(cn);
		return;
	}
	connect_failed(cn, now, LDB_FAIL_TLS, why[0] ? why : "TLS handshake failed");
}

static void tls_begin(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	char why[256] = "";
	cn->t_tls = now;
	if (ldb_tls_conn_open(&cn->tc, w->run->tls, cn->fd, w->run->cfg->tls_resume ? &w->tls_session : NULL, why,
	                      sizeof why) != 0) {
		connect_failed(cn, now, LDB_FAIL_TLS, why);
		return;
	}
	cn->tls_on = true;
	cn->state = CS_TLS;
	tls_step(cn, now);
}

/* The TCP connection is up. */
static void conn_connected(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	(void)w;
	if (c->ldaps) {
		tls_begin(cn, now);
	} else if (c->starttls) {
		cn->t_tls = now;
		cn->state = CS_STARTTLS;
		issue_now(cn, 0, run->main_op, 0, SETUP_STARTTLS, false, 0, 0, now);
	} else {
		conn_transport_ready(cn, now);
	}
}

/* The pass goes on with its next step, on the same slot, or ends. */
static void pass_continue(struct ldb_conn *cn, int i, const struct ldb_slot *done, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;
	int next = done->step + 1;
	if (next < pass_length(run) && !run_stopping(run)) {
		issue_now(cn, i, pick_kind(w, next), next, SETUP_NONE, true, done->v, done->bv, now);
		return;
	}
	if (cycle) {
		cycle_end(cn, now);
		return;
	}
	w->outstanding--;
}

/* An add came back 32: create its ancestors first, then send it again
 * (ldclt does the same).  @return true when that is under way. */
static bool add_missing_parents(struct ldb_conn *cn, int i, struct ldb_slot *s, int rc, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	if (!w->run->make_parents || cn->retry_dnlen == 0)
		return false;
	if (s->aux == 0 && rc != LDAP_NO_SUCH_OBJECT)
		return false;
	int level;
	if (s->aux == 0)
		level = 1;
	else if (rc == LDAP_NO_SUCH_OBJECT && s->aux < MAX_PARENT_LEVELS)
		level = s->aux + 1;
	else if (rc == LDAP_SUCCESS || rc == LDAP_ALREADY_EXISTS) {
		if (rc == LDAP_SUCCESS)
			ldb_add(&w->st->parents_created, 1);
		level = s->aux - 1;
	} else
		return false; /* give up: the add fails with 32 */
	s->aux = (uint8_t)level;
	if (level == 0) {
		/* every ancestor is there: the add again */
		size_t oplen = 0;
		const uint8_t *p = cn->retry;
		/* the kept protocolOp: tag, length */
		if (p[1] < 0x80)
			oplen = 2 + p[1];
		else {
			int nb = p[1] & 0x7f;
			size_t len = 0;
			for (int k = 0; k < nb; k++)
				len = len << 8 | p[2 + k];
			oplen = 2 + (size_t)nb + len;
		}
		cn->retry_len = oplen;
	}
	bool exhausted;
	if (!render_slot(cn, i, &exhausted) || conn_flush(cn) != 0) {
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return true;
	}
	s->used = 1;
	cn->inflight++;
	return true;
}

/* The first answer on a connection (or its bind): the back-off starts over,
 * and a connection that was up before counts as a reconnect. */
static void conn_proven(struct ldb_conn *cn)
{
	struct ldb_worker *w = cn->w;
	cn->proven = true;
	cn->backoff_ms = 0;
	if (!cn->ever_up)
		cn->ever_up = true;
	else if (!w->run->cfg->bindeach)
		ldb_add(&w->st->reconnects, 1);
}

/* One complete result for slot i. */
static void conn_result(struct ldb_conn *cn, int i, int rc, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	struct ldb_slot *s = &cn->slots[i];
	struct ldb_slot done = *s;
	s->used = 0;
	cn->inflight--;

	if (done.setup != SETUP_BIND && !cn->proven)
		conn_proven(cn);
	if (done.setup == SETUP_STARTTLS) {
		if (rc != LDAP_SUCCESS) {
			char why[96];
			snprintf(why, sizeof why, "StartTLS refused, error=%d (%s)", rc, ldap_err2string(rc));
			connect_failed(cn, now, LDB_FAIL_TLS, why);
			return;
		}
		tls_begin(cn, now);
		return;
	}
	if (cn->state == CS_BINDING) {
		if (done.setup == SETUP_BIND) {
			/* a persistent connection's opening bind: not an operation,
			 * but its failures are tallied with the binds' */
			if (rc != 0) {
				note_error(w, LDB_OP_BIND, rc);
				fatal_note(w, rc, "bind", NULL);
				conn_close(cn, false);
				cn->state = CS_IDLE;
				schedule_retry(cn, now);
				return;
			}
			conn_proven(cn);
			cn->state = CS_READY;
			conn_pump(cn, now);
			return;
		}
		/* bindeach: the cycle's bind, then the pass */
		record_result(w, &done, rc, now);
		if (rc != 0) {
			fatal_note(w, rc, "bind", NULL);
			cycle_end(cn, now);
			return;
		}
		cycle_first_step(cn, now);
		return;
	}
	if (done.kind == LDB_OP_ADD && (done.aux > 0 || rc == LDAP_NO_SUCH_OBJECT)) {
		*s = done;
		s->used = 0;
		if (add_missing_parents(cn, i, s, rc, now))
			return;
		done = *s;
		if (done.aux > 0)
			rc = LDAP_NO_SUCH_OBJECT; /* an ancestor could not be made */
		s->used = 0;
	}
	record_result(w, &done, rc, now);
	if (done.kind == LDB_OP_BIND && rc != 0 && !c->counteach)
		fatal_note(w, rc, "bind", NULL);
	pass_continue(cn, i, &done, now);
}

/* Room to read into: a full buffer that holds no whole message (one larger
 * than the buffer) doubles, up to IN_MAX; it stays grown. */
static int in_room(struct ldb_conn *cn)
{
	if (cn->in_len < cn->in_cap)
		return 0;
	if (cn->in_cap >= IN_MAX)
		return -1;
	uint8_t *bigger = realloc(cn->in, cn->in_cap * 2);
	if (bigger == NULL)
		return -1;
	cn->in = bigger;
	cn->in_cap *= 2;
	return 0;
}

/* Read what the socket holds, at most a full buffer; with `eof` (the peer
 * closed its side) on to the end of the stream.
 * @return 1 when the buffer filled (more may wait), 0 when drained, -1 when
 * closed or broken. */
static int conn_fill(struct ldb_conn *cn, bool eof)
{
	for (;;) {
		if (in_room(cn) != 0)
			return -1;
		ssize_t n = io_recv(cn, cn->in + cn->in_len, cn->in_cap - cn->in_len);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		cn->in_len += (size_t)n;
		if (cn->in_len == cn->in_cap)
			return 1;
		/* edge-triggered: a short plain read drained the socket; TLS reads
		 * go on until OpenSSL wants more bytes */
		if (!cn->tls_on && !eof)
			return 0;
	}
}

/* Every whole message in the input to its slot; what is left of a partial
 * one moves to the front.  @return 0, or -1 when the stream is broken. */
static int conn_parse(struct ldb_conn *cn, uint64_t now)
{
	size_t pos = 0;
	struct ldb_resp r;
	for (;;) {
		int rc = ldb_wire_parse(cn->in + pos, cn->in_len - pos, &r, NULL);
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		pos += r.len;
		if (r.msgid <= 0)
			return -1; /* notice of disconnection, or nonsense */
		int i = (r.msgid - 1) % cn->depth;
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used || s->msgid != r.msgid)
			continue; /* the answer to something already given up */
		if (r.op == LDAP_RES_SEARCH_ENTRY) {
			s->entries++;
			ldb_add(&cn->w->st->op[s->kind].entries, 1);
			continue;
		}
		if (r.result < 0)
			continue; /* references, intermediate responses */
		conn_result(cn, i, r.result, now);
		if (cn->fd < 0)
			return 0; /* closed by a cycle's end (the input with it) */
		if (cn->state == CS_TLS)
			break; /* TLS starts: no more plain bytes */
	}
	if (pos > 0) {
		memmove(cn->in, cn->in + pos, cn->in_len - pos);
		cn->in_len -= pos;
	}
	return 0;
}

/* Read and hand over what came.  The whole messages that came before the
 * end of the stream count before it does.  @return 0, or -1 when the
 * connection is closed or broken. */
static int conn_read(struct ldb_conn *cn, uint64_t *now, bool eof)
{
	cn->tls_read_wants_write = false;
	for (;;) {
		int more = conn_fill(cn, eof);
		*now = ldb_now_ns();
		if (conn_parse(cn, *now) != 0)
			return -1;
		if (more < 0)
			return cn->fd < 0 ? 0 : -1;
		if (more == 0 || cn->fd < 0 || cn->state == CS_TLS)
			return 0;
	}
}

static void conn_event(struct ldb_conn *cn, uint32_t ev, uint64_t now)
{
	if (cn->fd < 0)
		return; /* closed earlier in this batch of events */
	if (cn->unconfirmed && (ev & (EPOLLERR | EPOLLHUP))) {
		conn_fail(cn, LDB_FAIL_CONNECT, now);
		return;
	}
	if (cn->unconfirmed && (ev & EPOLLOUT))
		confirm(cn); /* connected */
	if (cn->state == CS_TLS) {
		if (ev & (EPOLLERR | EPOLLHUP) && !(ev & EPOLLIN)) {
			connect_failed(cn, now, LDB_FAIL_TLS, "the server closed the connection during the handshake");
			return;
		}
		tls_step(cn, now);
		return;
	}
	bool readable = (ev & EPOLLIN) || ((ev & EPOLLOUT) && cn->tls_read_wants_write);
	bool writable = (ev & EPOLLOUT) || ((ev & EPOLLIN) && cn->tls_write_wants_read);
	if (readable) {
		if (conn_read(cn, &now, (ev & EPOLLRDHUP) != 0) != 0) {
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		if (cn->fd < 0)
			return;
	} else if (ev & (EPOLLERR | EPOLLHUP)) {
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	if (writable && cn->out_len > cn->out_off && conn_flush(cn) != 0)
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

/* The connection's deadline passed: its back-off is over (idle), or
 * something on it may have timed out (-t).  The deadline is armed again
 * from what is in flight now. */
static void conn_deadline(struct ldb_conn *cn, uint64_t now)
{
	uint64_t t = cn->w->run->timeout_ns, next = UINT64_MAX;
	conn_wake(cn); /* idle: it may connect; failed: its client may be done */
	if (cn->state == CS_IDLE)
		return;
	if ((cn->unconfirmed || cn->state == CS_TLS) && cn->fd >= 0) {
		if (now > cn->t_connect && now - cn->t_connect > t) {
			if (cn->unconfirmed)
				conn_fail(cn, LDB_FAIL_CONNECT, now); /* a connect failure, in-flight requests too */
			else
				connect_failed(cn, now, LDB_FAIL_TLS, "no TLS handshake in time (-t)");
			return;
		}
		next = cn->t_connect + t + 1;
	}
	for (int i = 0; i < cn->depth; i++) {
		const struct ldb_slot *s = &cn->slots[i];
		if (!s->used)
			continue;
		if (now > s->t_sent && now - s->t_sent > t) {
			conn_fail(cn, LDB_FAIL_TIMEOUT, now);
			return;
		}
		if (s->t_sent + t + 1 < next)
			next = s->t_sent + t + 1;
	}
	if (next != UINT64_MAX)
		conn_watch(cn, next);
}

/* ---------------------------------------------------------------- thread */

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

int ldb_worker_init(struct ldb_worker *w, struct ldb_run *run, int id, struct ldb_thread_stats *st)
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
	w->next_intended = ldb_now_ns() + run->rate_interval_ns * (uint64_t)id / (uint64_t)c->threads;
	if (run->writes) {
		w->wctx = malloc(sizeof *w->wctx);
		if (w->wctx == NULL || ldb_wctx_init(w->wctx, c) != 0)
			return -1;
	}
	w->nconns = c->conns_per_thread;
	w->conns = calloc((size_t)w->nconns, sizeof *w->conns);
	if (w->conns == NULL)
		return -1;
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		cn->w = w;
		cn->fd = -1;
		cn->depth = run->depth;
		cn->id_span = (int32_t)((0x7ffffff0 / cn->depth) * cn->depth);
		cn->out_cap = out_size(run);
		cn->in_cap = in_size(run);
		cn->out = malloc(cn->out_cap);
		cn->in = malloc(cn->in_cap);
		cn->slots = calloc((size_t)cn->depth, sizeof *cn->slots);
		if (cn->out == NULL || cn->in == NULL || cn->slots == NULL)
			return -1;
		if (run->make_parents && (cn->retry = malloc(RETRY_CAP)) == NULL)
			return -1;
	}
	return 0;
}

void ldb_worker_free(struct ldb_worker *w)
{
	for (int k = 0; w->conns != NULL && k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->tls_on)
			ldb_tls_conn_free(&cn->tc);
		if (cn->fd >= 0)
			close(cn->fd);
		free(cn->out);
		free(cn->in);
		free(cn->retry);
		free(cn->slots);
	}
	free(w->conns);
	if (w->wctx != NULL) {
		ldb_wctx_free(w->wctx);
		free(w->wctx);
	}
	ldb_tls_session_free(&w->tls_session);
	memset(w, 0, sizeof *w);
}

static bool worker_finished(const struct ldb_worker *w)
{
	const struct ldb_config *c = w->run->cfg;
	if (w->outstanding > 0)
		return false;
	if (w->exhausted)
		return true;
	return c->ops_per_thread > 0 && w->measuring && ldb_load(&w->st->counted) >= (uint64_t)c->ops_per_thread;
}

/* The goodbye of a run whose requests go unanswered (abandon): they were
 * counted when rendered, so what is still in the output buffer goes first,
 * then the Unbind; then the server ends the connection, which it does once it
 * reaches the Unbind (slapd defers the requests beyond those it runs at once
 * on a connection, and drops what it holds when the connection ends early).
 * At most a second; what it reads is discarded. */
static void goodbye_unanswered(struct ldb_conn *cn, const struct ldb_reqset *unbind)
{
	static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
	uint64_t end = ldb_now_ns() + 1000000000ULL;
	uint8_t buf[4096];

	memmove(cn->out, cn->out + cn->out_off, cn->out_len - cn->out_off);
	cn->out_len -= cn->out_off;
	cn->out_off = 0;
	cn->out_len += ldb_req_render(unbind, 0, zero, 0x7fffffff, cn->out + cn->out_len, cn->out_cap - cn->out_len);
	for (uint64_t now = ldb_now_ns(); now < end; now = ldb_now_ns()) {
		ssize_t r = io_recv(cn, buf, sizeof buf), n = 0;
		if (r < 0)
			return; /* the server has ended it */
		if (cn->out_off < cn->out_len && (n = io_send(cn, cn->out + cn->out_off, cn->out_len - cn->out_off)) < 0)
			return;
		cn->out_off += (size_t)n;
		if (r == 0 && n == 0) {
			struct pollfd pfd = { .fd = cn->fd, .events = POLLIN | (cn->out_off < cn->out_len ? POLLOUT : 0) };
			if (poll(&pfd, 1, (int)((end - now) / 1000000ULL) + 1) < 0 && errno != EINTR)
				return;
		}
	}
}

/* Polite goodbye on persistent connections. */
static void worker_close_all(struct ldb_worker *w)
{
	struct ldb_run *run = w->run;
	static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		bool polite = cn->fd >= 0 && cn->state == CS_READY && !run->cfg->close_sock;
		if (polite && run->unanswered) {
			goodbye_unanswered(cn, &run->unbind);
		} else if (polite) {
			size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->out, cn->out_cap);
			if (n > 0)
				(void)io_send(cn, cn->out, n);
		}
		conn_close(cn, polite);
	}
}

static void zero_opstats(struct ldb_opstats *o)
{
	uint64_t *p = (uint64_t *)o;
	for (size_t i = 0; i < sizeof *o / sizeof(uint64_t); i++)
		if (ldb_load(&p[i]) != 0)
			__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
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
static void worker_start_measuring(struct ldb_worker *w)
{
	struct ldb_thread_stats *st = w->st;
	uint64_t warm = 0;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		warm += ldb_load(&st->op[k].completed);
	st->warm_completed = warm; /* read by the sampler after the release below */
	for (int k = 0; k < LDB_OP_COUNT; k++)
		zero_opstats(&st->op[k]);
	__atomic_store_n(&st->counted, 0, __ATOMIC_RELAXED);
	w->measuring = true;
	__atomic_store_n(&st->measuring, 1, __ATOMIC_RELEASE);
}

/* A client may start its next operation only later (-W, --rate): its
 * pacing deadline wakes its connections then. */
static void pace_later(struct ldb_worker *w, uint64_t now)
{
	uint64_t due = next_due(w);
	if (due > now && !w->exhausted)
		(void)ldb_timer_arm_before(&w->runner->timers, &w->pace, due);
}

/* The pacing deadline passed: the connections that wait for it. */
static void worker_paced(struct ldb_worker *w)
{
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->state == CS_IDLE || (cn->state == CS_READY && cn->inflight < cn->depth))
			conn_wake(cn);
	}
}

/* A connection on the ready list: open it if it must be opened, fill it if
 * it can take more requests. */
static void conn_step(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;

	if (cn->state == CS_READY) {
		conn_pump(cn, now);
		if (cn->state == CS_READY && cn->inflight < cn->depth)
			pace_later(w, now);
		return;
	}
	if (cn->state != CS_IDLE)
		return;
	if (cycle && !may_issue(w, now)) {
		pace_later(w, now);
		return;
	}
	if (!cycle && (w->exhausted || run_stopping(run)))
		return;
	if (now < cn->retry_at) {
		conn_watch(cn, cn->retry_at);
		return;
	}
	if (cycle) {
		if (!pass_values(w, &cn->cycle_v, &cn->cycle_bv))
			return;
		w->outstanding++;
		cn->t_due = w->next_intended;
		took_op(w, now);
		cn->t_cycle = now;
	}
	conn_connect(cn, now);
}

/* The run stops: a client ends now, or (smoothshutdown) once what it has in
 * flight is back, 20 s at most.  @return true when it ends now. */
static bool worker_stopping(struct ldb_worker *w, uint64_t now)
{
	if (!w->run->cfg->smoothshutdown || w->outstanding == 0)
		return true;
	if (w->smooth_deadline == 0)
		w->smooth_deadline = now + 20000000000ULL;
	else if (now > w->smooth_deadline)
		return true;
	w->exhausted = true;
	return false;
}

static void worker_end(struct ldb_runner *r, struct ldb_worker *w, int *alive)
{
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
static void runner_flags(struct ldb_runner *r, const struct ldb_run *run, uint64_t now, int *alive)
{
	if (!r->lat.measuring && __atomic_load_n(&run->measuring, __ATOMIC_ACQUIRE)) {
		lat_start_measuring(&r->lat);
		for (int i = 0; i < r->nw; i++) {
			struct ldb_worker *w = &r->w[i];
			if (w->ended || w->measuring)
				continue;
			worker_start_measuring(w);
			for (int k = 0; k < w->nconns; k++)
				conn_wake(&w->conns[k]); /* -T counts again from zero */
		}
	}
	if (!run_stopping(run))
		return;
	for (int i = 0; i < r->nw; i++)
		if (!r->w[i].ended && worker_stopping(&r->w[i], now))
			worker_end(r, &r->w[i], alive);
}

/* Step the connections that were on the ready list when the round began
 * (those it wakes again wait for the next round). */
static void drain_ready(struct ldb_runner *r, uint64_t now, int *alive)
{
	struct ldb_conn *cn = r->ready;
	r->ready = NULL;
	r->ready_tail = &r->ready;
	while (cn != NULL) {
		struct ldb_conn *next = cn->ready_next;
		struct ldb_worker *w = cn->w;
		cn->queued = false;
		if (!w->ended && !worker_finished(w))
			conn_step(cn, now);
		if (!w->ended && worker_finished(w))
			worker_end(r, w, alive);
		cn = next;
	}
}

/* Every deadline due at `now`. */
static void fire_deadlines(struct ldb_runner *r, uint64_t now)
{
	struct ldb_timer *e;
	while ((e = ldb_timers_pop(&r->timers, now)) != NULL) {
		if (e->tag == TM_PACE)
			worker_paced(e->data);
		else
			conn_deadline(e->data, now);
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
static int runner_open(struct ldb_runner *r, int *epfd)
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
	r->ready = NULL;
	r->ready_tail = &r->ready;
	for (int i = 0; i < r->nw; i++) {
		struct ldb_worker *w = &r->w[i];
		w->epfd = *epfd;
		w->runner = r;
		ldb_timer_set(&w->pace, TM_PACE, w);
		for (int k = 0; k < w->nconns; k++) {
			ldb_timer_set(&w->conns[k].tm, TM_CONN, &w->conns[k]);
			conn_wake(&w->conns[k]);
		}
	}
	return 0;
}

void *ldb_runner_main(void *arg)
{
	struct ldb_runner *r = arg;
	struct epoll_event evs[256];
	int epfd, alive = r->nw;

	if (runner_open(r, &epfd) != 0) {
		for (int i = 0; i < r->nw; i++) {
			worker_die(&r->w[i], LDB_EXIT_OTHER);
			__atomic_store_n(&r->w[i].st->dead, 1, __ATOMIC_RELEASE);
		}
		return NULL;
	}
	if (r->nw > 0 && r->w[0].run->rate_interval_ns > 0)
		(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake on schedule, to the microsecond */
	uint64_t now = ldb_now_ns();
	const struct ldb_run *run = r->nw > 0 ? r->w[0].run : NULL;
	while (alive > 0) {
		runner_flags(r, run, now, &alive);
		drain_ready(r, now, &alive);
		if (alive == 0)
			break;
		uint64_t wake = now + TICK_MS * 1000000ULL, due = ldb_timers_next(&r->timers);
		if (r->ready != NULL)
			wake = now;
		else if (due < wake)
			wake = due;
		int n = wait_events(epfd, evs, (int)(sizeof evs / sizeof evs[0]), wake > now ? wake - now : 0);
		now = ldb_now_ns();
		for (int i = 0; i < n; i++) {
			struct ldb_conn *cn = evs[i].data.ptr;
			conn_event(cn, evs[i].events, now);
			if (!cn->w->ended && (cn->state == CS_IDLE || cn->state == CS_READY))
				conn_wake(cn); /* a slot came free, or it closed */
		}
		if (ldb_timers_next(&r->timers) <= now) {
			now = ldb_now_ns(); /* reads may have stamped operations later than `now` */
			fire_deadlines(r, now);
		}
	}
	close(epfd);
	for (int i = 0; i < r->nw; i++)
		r->w[i].epfd = -1;
	ldb_timers_free(&r->timers);
	__atomic_store_n(&r->lat.ended, 1, __ATOMIC_RELEASE);
	return NULL;
}
