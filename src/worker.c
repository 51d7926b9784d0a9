/* The worker thread: an epoll loop over the connections it owns.
 *
 * Each connection is a small state machine:
 *   IDLE -> CONNECTING -> (BINDING) -> READY, requests in flight up to the depth
 * and, with bindeach, one operation per connection:
 *   IDLE -> CONNECTING -> BINDING -> OP -> unbind/close -> IDLE.
 * Requests are rendered from start-up templates into the connection's output
 * buffer and written in one send per batch; responses are framed out of large
 * reads.  Nothing here allocates (but for an input buffer that must grow to hold
 * one unusually large message), locks or prints, except once when the thread
 * ends.
 */
#include "ldbench/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <ldap.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "ldbench/wire.h"

#define OUT_CAP (256 * 1024)
#define IN_CAP (256 * 1024)
#define IN_MAX (64 * 1024 * 1024)
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 1000
#define TICK_MS 50

enum cstate { CS_IDLE, CS_CONNECTING, CS_BINDING, CS_READY, CS_OP, CS_DEAD };

struct ldb_slot {
	int32_t msgid;
	uint8_t kind;      /* enum ldb_op */
	uint8_t used;
	uint8_t setup;     /* the bind that opens a persistent connection */
	uint64_t t0;       /* start: the intended one with --rate */
	uint64_t t_sent;   /* when the request was put on the wire */
	uint64_t entries;
	uint32_t gen;
};

struct ldb_conn {
	struct ldb_worker *w;
	int fd;
	enum cstate state;
	bool ever_up;      /* connected (and bound) once: the next one is a reconnect */
	bool want_out;     /* EPOLLOUT registered */
	uint64_t t_connect;
	uint64_t t_cycle;
	uint64_t t_due;    /* --rate: intended start of the operation being issued */
	uint64_t retry_at;
	uint32_t backoff_ms;
	uint8_t *out;
	size_t out_len, out_off;
	uint8_t *in;
	size_t in_len, in_cap;
	struct ldb_slot *slots;
	int depth;         /* slots in use at most */
	int inflight;
	int32_t id_span;   /* message ids cycle in [1, id_span] */
};

uint64_t ldb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

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

	run->main_op = c->op_esearch ? LDB_OP_SEARCH : LDB_OP_BIND;
	run->bind_on_connect = c->bind_dn != NULL || c->binddn_file_n > 0;
	/* A bind must be alone on its connection (RFC 4511 4.2.1). */
	run->depth = run->main_op == LDB_OP_BIND ? 1 : c->depth;
	run->timeout_ns = (uint64_t)c->timeout_sec * 1000000000ULL;
	run->common_counter = c->range_low;
	if (c->rate > 0)
		run->rate_interval_ns = (uint64_t)(1e9 * (double)c->threads / c->rate);
	run->measuring = c->warmup_ms == 0 && c->warmup_samples == 0;

	if (c->op_esearch && ldb_reqset_build_search(&run->search, c, err, cap) != 0)
		return -1;
	if (ldb_reqset_build_bind(&run->bind, c, err, cap) != 0)
		return -1;
	struct ldb_bytes ub = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	if (ldb_wire_encode_unbind(&ub, werr) != 0 || ldb_reqset_build_fixed(&run->unbind, ub.data, ub.len) != 0) {
		ldb_bytes_free(&ub);
		snprintf(err, cap, "cannot encode an unbind request");
		return -1;
	}
	ldb_bytes_free(&ub);
	return 0;
}

void ldb_run_free(struct ldb_run *run)
{
	ldb_reqset_free(&run->search);
	ldb_reqset_free(&run->bind);
	ldb_reqset_free(&run->unbind);
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

	ldb_hist_record(&w->st->lat[kind], now > s->t0 ? now - s->t0 : 0);
	if (w->run->rate_interval_ns > 0)
		ldb_hist_record(&w->st->ulat[kind], now - s->t_sent);
	ldb_add(&o->completed, 1);
	if (rc == 0) {
		ldb_add(&o->succeeded, 1);
		counts = true;
		if (kind == LDB_OP_SEARCH && c->expect_entries >= 0) {
			if ((long long)s->entries == c->expect_entries)
				ldb_add(&o->exp_hits, 1);
			else
				ldb_add(&o->exp_misses, 1);
		}
	} else {
		note_error(w, kind, rc);
		if (c->counteach && ((kind == LDB_OP_SEARCH && rc == LDAP_NO_SUCH_OBJECT) || kind == LDB_OP_BIND))
			counts = true;
	}
	if (counts && kind == w->run->main_op) {
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

static int pick_bind(struct ldb_worker *w, int64_t vals[LDB_FIELD_COUNT])
{
	const struct ldb_config *c = w->run->cfg;
	if (c->binddn_file_n > 0)
		return (int)ldb_rng_range(&w->rng, 0, (int64_t)c->binddn_file_n - 1);
	if (w->run->bind.var[LDB_FIELD_BINDDN])
		vals[LDB_FIELD_BINDDN] = ldb_rng_range(&w->rng, c->binddn_low, c->binddn_high);
	return 0;
}

/* ---------------------------------------------------------------- sockets */

static void conn_events(struct ldb_conn *cn, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = cn };
	epoll_ctl(cn->w->epfd, EPOLL_CTL_MOD, cn->fd, &ev);
	cn->want_out = out;
}

static void conn_close(struct ldb_conn *cn)
{
	if (cn->fd >= 0) {
		epoll_ctl(cn->w->epfd, EPOLL_CTL_DEL, cn->fd, NULL);
		close(cn->fd);
	}
	cn->fd = -1;
	cn->out_len = cn->out_off = 0;
	cn->in_len = 0;
	cn->want_out = false;
	for (int i = 0; i < cn->depth; i++)
		cn->slots[i].used = 0;
	cn->inflight = 0;
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
}

/* The connection broke (or timed out): every operation in flight on it fails. */
static void conn_fail(struct ldb_conn *cn, enum ldb_fail why, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	bool cycle = w->run->cfg->bindeach;
	for (int i = 0; i < cn->depth; i++) {
		struct ldb_slot *s = &cn->slots[i];
		if (!s->used)
			continue;
		note_fail(w, s->kind, why);
		if (!s->setup && !cycle)
			w->outstanding--;
	}
	if (cycle && cn->state != CS_IDLE)
		w->outstanding--;
	conn_close(cn);
	cn->state = CS_IDLE;
	schedule_retry(cn, now);
}

static void bind_failed_fatal(struct ldb_worker *w, int rc);

/* The TCP connect failed or timed out.  A connection that never came up with a
 * code not ignored (-I -11) ends the thread, as ldclt's failed first bind does;
 * one that was up before goes on trying (the server went away). */
static void connect_failed(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	note_fail(w, w->run->main_op, LDB_FAIL_CONNECT);
	if (w->run->cfg->bindeach && cn->state != CS_IDLE)
		w->outstanding--;
	conn_close(cn);
	cn->state = CS_IDLE;
	schedule_retry(cn, now);
	if (!cn->ever_up)
		bind_failed_fatal(w, LDB_RC_CONNECT_ERROR);
}

static int conn_flush(struct ldb_conn *cn)
{
	while (cn->out_off < cn->out_len) {
		ssize_t n = send(cn->fd, cn->out + cn->out_off, cn->out_len - cn->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			cn->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!cn->want_out)
				conn_events(cn, true);
			return 0;
		}
		return -1;
	}
	cn->out_len = cn->out_off = 0;
	if (cn->want_out)
		conn_events(cn, false);
	return 0;
}

static void conn_connect(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	int fd = socket(run->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	cn->t_connect = now;
	if (fd < 0)
		goto fail;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (const struct sockaddr *)&run->addr, run->addrlen) != 0 && errno != EINPROGRESS) {
		close(fd);
		goto fail;
	}
	cn->fd = fd;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = cn };
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		close(fd);
		cn->fd = -1;
		goto fail;
	}
	cn->want_out = true;
	cn->state = CS_CONNECTING;
	return;
fail:
	cn->state = CS_CONNECTING; /* for connect_failed's bookkeeping */
	connect_failed(cn, now);
}

/* Put one request in the output buffer; the slot gets the message id. */
static struct ldb_slot *conn_issue(struct ldb_conn *cn, enum ldb_op kind, uint64_t now, bool setup)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	int64_t vals[LDB_FIELD_COUNT] = { 0 };
	const struct ldb_reqset *rs;
	int variant = 0;

	if (kind == LDB_OP_SEARCH) {
		rs = &run->search;
		if (rs->var[LDB_FIELD_FILTER] && !next_value(w, &vals[LDB_FIELD_FILTER])) {
			w->exhausted = true;
			return NULL;
		}
		if (rs->var[LDB_FIELD_BASE])
			vals[LDB_FIELD_BASE] = ldb_rng_range(&w->rng, c->base_low, c->base_high);
		if (c->random_attrlist && c->nattrs > 0)
			variant = (int)ldb_rng_range(&w->rng, 0, c->nattrs - 1);
	} else {
		rs = &run->bind;
		variant = pick_bind(w, vals);
	}
	int i;
	for (i = 0; i < cn->depth && cn->slots[i].used; i++)
		;
	if (i == cn->depth)
		return NULL;
	if (OUT_CAP - cn->out_len < rs->maxlen && conn_flush(cn) != 0)
		return NULL;
	if (OUT_CAP - cn->out_len < rs->maxlen)
		return NULL;
	struct ldb_slot *s = &cn->slots[i];
	s->gen++;
	int32_t msgid = (int32_t)(((int64_t)s->gen * cn->depth + i) % cn->id_span) + 1;
	size_t n = ldb_req_render(rs, variant, vals, msgid, cn->out + cn->out_len, OUT_CAP - cn->out_len);
	if (n == 0)
		return NULL;
	cn->out_len += n;
	s->msgid = msgid;
	s->kind = (uint8_t)kind;
	s->used = 1;
	s->setup = setup;
	s->t0 = now;
	s->t_sent = now;
	if (run->rate_interval_ns > 0 && !setup && (kind == run->main_op)) {
		/* open loop: latency runs from when the operation was due */
		s->t0 = cn->t_due < now ? cn->t_due : now;
	}
	s->entries = 0;
	cn->inflight++;
	if (setup)
		ldb_add(&w->st->setup_binds, 1);
	else
		ldb_add(&w->st->op[kind].attempted, 1);
	return s;
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

/* Fill a ready persistent connection up to its depth, then write once. */
static void conn_pump(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	while (cn->inflight < cn->depth && may_issue(w, now)) {
		cn->t_due = w->next_intended;
		if (conn_issue(cn, w->run->main_op, now, false) == NULL)
			break;
		w->outstanding++;
		took_op(w, now);
	}
	if (cn->out_len > cn->out_off && conn_flush(cn) != 0)
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
		size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->out, OUT_CAP);
		if (n > 0)
			(void)send(cn->fd, cn->out, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	ldb_hist_record(&w->st->stage[LDB_STAGE_CYCLE], now - cn->t_cycle);
	conn_close(cn);
	cn->state = CS_IDLE;
	cn->retry_at = now;
	w->outstanding--;
}

/* The TCP connection is up. */
static void conn_connected(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;
	ldb_add(&w->st->connects, 1);
	if (cycle)
		ldb_hist_record(&w->st->stage[LDB_STAGE_CONNECT], now - cn->t_connect);
	conn_events(cn, false);
	if (run->bind_on_connect || (cycle && run->main_op == LDB_OP_BIND)) {
		/* with bindeach the bind is part of the measured cycle */
		if (conn_issue(cn, LDB_OP_BIND, now, !cycle) == NULL) {
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		cn->state = CS_BINDING;
		if (conn_flush(cn) != 0)
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	if (!cn->ever_up)
		cn->ever_up = true;
	else if (!cycle)
		ldb_add(&w->st->reconnects, 1);
	cn->backoff_ms = 0;
	if (cycle) {
		if (conn_issue(cn, run->main_op, now, false) == NULL) {
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		cn->state = CS_OP;
		if (conn_flush(cn) != 0)
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	cn->state = CS_READY;
	conn_pump(cn, now);
}

static void bind_failed_fatal(struct ldb_worker *w, int rc)
{
	const struct ldb_config *c = w->run->cfg;
	if (ldb_config_ignored(c, rc))
		return;
	if (w->note[0] == '\0')
		snprintf(w->note, sizeof w->note, "T%03d: Cannot %s, error=%d (%s)", w->id,
		         rc == LDB_RC_CONNECT_ERROR ? "connect" : "bind", rc, ldap_err2string(rc));
	worker_die(w, LDB_EXIT_CANNOT_BIND);
}

/* One complete result for a slot. */
static void conn_result(struct ldb_conn *cn, struct ldb_slot *s, int rc, uint64_t now)
{
	struct ldb_worker *w = cn->w;
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	bool cycle = c->bindeach;
	struct ldb_slot done = *s;
	s->used = 0;
	cn->inflight--;

	if (cn->state == CS_BINDING) {
		if (done.setup) {
			/* persistent connection's opening bind: not an operation,
			 * but its failures are tallied with the binds' */
			if (rc != 0) {
				note_error(w, LDB_OP_BIND, rc);
				bind_failed_fatal(w, rc);
				conn_close(cn);
				cn->state = CS_IDLE;
				schedule_retry(cn, now);
				return;
			}
			if (!cn->ever_up)
				cn->ever_up = true;
			else
				ldb_add(&w->st->reconnects, 1);
			cn->backoff_ms = 0;
			cn->state = CS_READY;
			conn_pump(cn, now);
			return;
		}
		/* bindeach: the cycle's bind */
		record_result(w, &done, rc, now);
		if (run->main_op == LDB_OP_BIND || rc != 0) {
			if (rc != 0 && !(c->counteach && run->main_op == LDB_OP_BIND))
				bind_failed_fatal(w, rc);
			cycle_end(cn, now);
			return;
		}
		if (conn_issue(cn, run->main_op, now, false) == NULL) {
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		cn->state = CS_OP;
		if (conn_flush(cn) != 0)
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}

	record_result(w, &done, rc, now);
	if (cycle) {
		cycle_end(cn, now);
		return;
	}
	w->outstanding--;
	if (done.kind == LDB_OP_BIND && rc != 0 && !c->counteach)
		bind_failed_fatal(w, rc);
}

static int conn_read(struct ldb_conn *cn, uint64_t *now)
{
	for (;;) {
		if (cn->in_len == cn->in_cap) {
			if (cn->in_cap >= IN_MAX)
				return -1;
			uint8_t *bigger = realloc(cn->in, cn->in_cap * 2);
			if (bigger == NULL)
				return -1;
			cn->in = bigger;
			cn->in_cap *= 2;
		}
		ssize_t n = recv(cn->fd, cn->in + cn->in_len, cn->in_cap - cn->in_len, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -1;
		}
		cn->in_len += (size_t)n;
		if (cn->in_len < cn->in_cap)
			break;
	}
	*now = ldb_now_ns();
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
		conn_result(cn, s, r.result, *now);
		if (cn->fd < 0)
			return 0; /* the cycle closed it */
	}
	if (pos > 0) {
		memmove(cn->in, cn->in + pos, cn->in_len - pos);
		cn->in_len -= pos;
	}
	return 0;
}

static void conn_event(struct ldb_conn *cn, uint32_t ev, uint64_t now)
{
	if (cn->fd < 0)
		return; /* closed earlier in this batch of events */
	if (cn->state == CS_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof err;
		if ((ev & (EPOLLERR | EPOLLHUP)) || getsockopt(cn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ||
		    err != 0) {
			connect_failed(cn, now);
			return;
		}
		if (ev & EPOLLOUT) {
			conn_connected(cn, now);
			if (cn->fd < 0)
				return;
		}
		if (!(ev & EPOLLIN))
			return;
	}
	if (ev & EPOLLIN) {
		if (conn_read(cn, &now) != 0) {
			conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
			return;
		}
		if (cn->fd < 0)
			return;
	} else if (ev & (EPOLLERR | EPOLLHUP)) {
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
		return;
	}
	if ((ev & EPOLLOUT) && cn->out_len > cn->out_off && conn_flush(cn) != 0)
		conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

static void check_timeouts(struct ldb_worker *w, uint64_t now)
{
	uint64_t t = w->run->timeout_ns;
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->state == CS_CONNECTING && now > cn->t_connect && now - cn->t_connect > t) {
			connect_failed(cn, now);
			continue;
		}
		for (int i = 0; i < cn->depth; i++)
			if (cn->slots[i].used && now > cn->slots[i].t0 && now - cn->slots[i].t0 > t) {
				conn_fail(cn, LDB_FAIL_TIMEOUT, now);
				break;
			}
	}
}

/* ---------------------------------------------------------------- thread */

int ldb_worker_init(struct ldb_worker *w, struct ldb_run *run, int id, struct ldb_thread_stats *st)
{
	const struct ldb_config *c = run->cfg;
	memset(w, 0, sizeof *w);
	w->id = id;
	w->run = run;
	w->st = st;
	w->epfd = -1;
	ldb_rng_seed(&w->rng, c->seed, (uint64_t)id);
	w->incr_next = c->range_low;
	/* clients start their schedules evenly spread over one interval */
	w->next_intended = ldb_now_ns() + run->rate_interval_ns * (uint64_t)id / (uint64_t)c->threads;
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
		cn->out = malloc(OUT_CAP);
		cn->in = malloc(IN_CAP);
		cn->in_cap = IN_CAP;
		cn->slots = calloc((size_t)cn->depth, sizeof *cn->slots);
		if (cn->out == NULL || cn->in == NULL || cn->slots == NULL)
			return -1;
	}
	return 0;
}

void ldb_worker_free(struct ldb_worker *w)
{
	for (int k = 0; w->conns != NULL && k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->fd >= 0)
			close(cn->fd);
		free(cn->out);
		free(cn->in);
		free(cn->slots);
	}
	free(w->conns);
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

/* Polite goodbye on persistent connections. */
static void worker_close_all(struct ldb_worker *w)
{
	struct ldb_run *run = w->run;
	static const int64_t zero[LDB_FIELD_COUNT] = { 0 };
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->fd >= 0 && cn->state == CS_READY && !run->cfg->close_sock) {
			size_t n = ldb_req_render(&run->unbind, 0, zero, 0x7fffffff, cn->out, OUT_CAP);
			if (n > 0)
				(void)send(cn->fd, cn->out, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		conn_close(cn);
	}
}

static void zero_opstats(struct ldb_opstats *o)
{
	uint64_t *p = (uint64_t *)o;
	for (size_t i = 0; i < sizeof *o / sizeof(uint64_t); i++)
		if (ldb_load(&p[i]) != 0)
			__atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
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
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		zero_opstats(&st->op[k]);
		if (st->lat[k].counts != NULL)
			ldb_hist_reset(&st->lat[k]);
		if (st->ulat[k].counts != NULL)
			ldb_hist_reset(&st->ulat[k]);
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (st->stage[k].counts != NULL)
			ldb_hist_reset(&st->stage[k]);
	__atomic_store_n(&st->counted, 0, __ATOMIC_RELAXED);
	w->measuring = true;
	__atomic_store_n(&st->measuring, 1, __ATOMIC_RELEASE);
}

/* One pass over a worker's connections: open what must be opened, fill what
 * can take more requests.  Lowers *wake to when it next needs the CPU.
 * @return true when the worker has ended. */
static bool worker_step(struct ldb_worker *w, uint64_t now, uint64_t *wake)
{
	struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;

	if (!w->measuring && __atomic_load_n(&run->measuring, __ATOMIC_ACQUIRE))
		worker_start_measuring(w);
	if (run_stopping(run)) {
		if (!c->smoothshutdown || w->outstanding == 0)
			return true;
		if (w->smooth_deadline == 0)
			w->smooth_deadline = now + 20000000000ULL;
		else if (now > w->smooth_deadline)
			return true;
		w->exhausted = true;
	}
	if (worker_finished(w))
		return true;
	for (int k = 0; k < w->nconns; k++) {
		struct ldb_conn *cn = &w->conns[k];
		if (cn->state == CS_IDLE) {
			bool cycle = c->bindeach;
			if (cycle && !may_issue(w, now)) {
				uint64_t due = next_due(w);
				if (due > now && due < *wake && !w->exhausted)
					*wake = due;
				continue;
			}
			if (!cycle && (w->exhausted || run_stopping(run)))
				continue;
			if (now >= cn->retry_at) {
				if (cycle) {
					w->outstanding++;
					cn->t_due = w->next_intended;
					took_op(w, now);
					cn->t_cycle = now;
				}
				conn_connect(cn, now);
			} else if (cn->retry_at < *wake) {
				*wake = cn->retry_at;
			}
		} else if (cn->state == CS_READY) {
			conn_pump(cn, now);
			uint64_t due = next_due(w);
			if (cn->inflight < cn->depth && due > now && due < *wake)
				*wake = due;
		}
	}
	return false;
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

void *ldb_runner_main(void *arg)
{
	struct ldb_runner *r = arg;
	struct epoll_event evs[256];
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	int alive = r->nw;

	if (epfd < 0) {
		snprintf(r->error, sizeof r->error, "cannot create an epoll set: %s", strerror(errno));
		for (int i = 0; i < r->nw; i++) {
			worker_die(&r->w[i], LDB_EXIT_OTHER);
			__atomic_store_n(&r->w[i].st->dead, 1, __ATOMIC_RELEASE);
		}
		return NULL;
	}
	for (int i = 0; i < r->nw; i++)
		r->w[i].epfd = epfd;
	if (r->nw > 0 && r->w[0].run->rate_interval_ns > 0)
		(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake on schedule, to the microsecond */
	uint64_t now = ldb_now_ns(), last_check = now;
	while (alive > 0) {
		uint64_t wake = now + TICK_MS * 1000000ULL;
		for (int i = 0; i < r->nw; i++) {
			struct ldb_worker *w = &r->w[i];
			if (w->ended || !worker_step(w, now, &wake))
				continue;
			worker_close_all(w);
			w->ended = true;
			alive--;
			__atomic_store_n(&w->st->dead, 1, __ATOMIC_RELEASE);
		}
		if (alive == 0)
			break;
		int n = wait_events(epfd, evs, (int)(sizeof evs / sizeof evs[0]), wake > now ? wake - now : 0);
		now = ldb_now_ns();
		for (int i = 0; i < n; i++)
			conn_event(evs[i].data.ptr, evs[i].events, now);
		if (now - last_check > 10000000ULL) {
			/* reads may have stamped operations later than `now` */
			now = ldb_now_ns();
			for (int i = 0; i < r->nw; i++)
				if (!r->w[i].ended)
					check_timeouts(&r->w[i], now);
			last_check = now;
		}
	}
	close(epfd);
	for (int i = 0; i < r->nw; i++)
		r->w[i].epfd = -1;
	return NULL;
}
