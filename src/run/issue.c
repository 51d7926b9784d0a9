/* Requests and their results: the numbers and kinds of a pass (or a mix),
 * slots and message ids, rendering into the output buffer, pacing (-W,
 * --rate), and the counters and histograms of what came back. */
#include "run/conn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/controls.h"
#include "proto/wire.h"
#include "run/oplog.h"
#include "values/vpattern.h"

/* A code into `codes` and the run's -E tally. */
static void note_code(struct ldb_client *w, uint64_t *codes, int code)
{
	struct ldb_run *run = w->run;
	int slot = ldb_code_slot(code);
	ldb_add(&codes[slot], 1);
	uint64_t n = __atomic_add_fetch(&run->err_total[slot], 1, __ATOMIC_RELAXED);
	if ((long long)n > run->cfg->max_errors && !ldb_config_ignored(run->cfg, code)) {
		int none = LDB_STOP_NONE;
		if (__atomic_compare_exchange_n(&run->stop, &none, LDB_STOP_MAX_ERRORS, false, __ATOMIC_RELAXED,
		                                __ATOMIC_RELAXED))
			__atomic_store_n(&run->max_error_code, code, __ATOMIC_RELAXED);
	}
}

void ldb_note_error(struct ldb_client *w, enum ldb_op kind, int code)
{
	note_code(w, w->st->op[kind].codes, code);
}

void ldb_note_setup_error(struct ldb_client *w, int code)
{
	note_code(w, w->st->setup.codes, code);
}

/* An operation's result: the counters, the histogram, ldclt's count. */
/* --op-log: the operation's record, into its I/O thread's ring. */
static void oplog_record(struct ldb_client *w, const struct ldb_slot *s, int rc, uint64_t now, uint8_t flags)
{
	struct ldb_oprec r = { .t_sent = s->t_sent - w->run->t_start,
		               .lat = now > s->t_sent ? now - s->t_sent : 0,
		               .conn = s->conn_no,
		               .order = s->order,
		               .rc = rc,
		               .kind = s->kind,
		               .flags = (uint8_t)(flags | (w->measuring ? LDB_OPREC_MEASURED : 0)) };
	ldb_oplog_put(w->runner->oplog, &r);
}

void ldb_record_result(struct ldb_client *w, const struct ldb_slot *s, const char *run, int rc, uint64_t now)
{
	const struct ldb_config *c = w->run->cfg;
	enum ldb_op kind = s->kind;
	struct ldb_opstats *o = &w->st->op[kind];
	bool counts = false;

	ldb_hist_record(&w->lat->op[kind], now > s->t0 ? now - s->t0 : 0);
	if (w->run->rate_interval_ns > 0)
		ldb_hist_record(&w->lat->uop[kind], now > s->t_first ? now - s->t_first : 0);
	ldb_add(&o->completed, 1);
	if (w->runner->oplog != NULL)
		oplog_record(w, s, rc, now, 0);
	if (ldb_op_succeeded(kind, rc)) {
		ldb_add(&o->succeeded, 1);
		counts = true;
		/* -S: the watchers look for a sample of the measured confirmed
		 * writes (none of the warm-up's) */
		if (w->runner->repl != NULL && w->measuring && ldb_ops[kind]->changes != LDB_CHANGES_NOTHING)
			ldb_repl_offer(w->runner->repl, (int)kind, s->v, s->bv, run != NULL ? run + 1 : NULL,
			               run != NULL ? (uint8_t)run[0] : 0, s->t0, now);
		if (ldb_ops[kind]->entries && c->expect_entries >= 0) {
			if ((long long)s->entries == c->expect_entries)
				ldb_add(&o->exp_hits, 1);
			else
				ldb_add(&o->exp_misses, 1);
		}
	} else {
		ldb_note_error(w, kind, rc);
		ldb_errline(w, kind, rc);
		if (c->counteach && ldb_op_expected_failure(kind, rc))
			counts = true;
	}
	if (counts && s->counts) {
		ldb_add(&o->counted, 1);
		ldb_add(&w->st->counted, 1);
	}
}

void ldb_record_step(struct ldb_client *w, const struct ldb_slot *s, enum ldb_op kind, int rc, uint64_t now)
{
	struct ldb_opstats *o = &w->st->op[kind];
	uint64_t lat = now > s->t_sent ? now - s->t_sent : 0;
	ldb_hist_record(&w->lat->op[kind], lat);
	if (w->run->rate_interval_ns > 0)
		ldb_hist_record(&w->lat->uop[kind], lat);
	ldb_add(&o->completed, 1);
	if (ldb_op_succeeded(kind, rc)) {
		ldb_add(&o->succeeded, 1);
		ldb_add(&o->counted, 1);
	} else {
		ldb_add(&o->codes[ldb_code_slot(rc)], 1);
		ldb_add(&w->st->step_codes[ldb_code_slot(rc)], 1);
	}
}

uint64_t ldb_think_draw(struct ldb_client *w)
{
	const struct ldb_config *c = w->run->cfg;
	switch (c->think_dist) {
	case LDB_THINK_UNIFORM:
		return c->think_lo_ns + (uint64_t)ldb_rng_range(&w->rng, 0, (int64_t)(c->think_hi_ns - c->think_lo_ns));
	case LDB_THINK_EXPONENTIAL: /* inversion: -mean ln(1 - u), u in [0, 1) */
		return (uint64_t)(-(double)c->think_lo_ns * log(1.0 - ldb_rng_double(&w->rng)));
	default: return c->think_lo_ns;
	}
}

/* A kind without a response is done once sent (ldclt counts each send);
 * there is no latency to record. */
static void record_sent(struct ldb_client *w, const struct ldb_slot *s)
{
	struct ldb_opstats *o = &w->st->op[s->kind];
	if (w->runner->oplog != NULL)
		oplog_record(w, s, -1, s->t_sent, LDB_OPREC_NORESPONSE);

	ldb_add(&o->completed, 1);
	ldb_add(&o->succeeded, 1);
	if (s->counts) {
		ldb_add(&o->counted, 1);
		ldb_add(&w->st->counted, 1);
	}
}

/* The next number for -f's XXX.  false when noloop has reached the top. */
static bool next_value(struct ldb_client *w, int64_t *v)
{
	const struct ldb_config *c = w->run->cfg;
	int64_t lo = c->range_low, hi = c->range_high, x;
	switch (c->valmode) {
	case LDB_VAL_RANDOM: *v = ldb_rng_range(&w->rng, lo, hi); return true;
	case LDB_VAL_INCR: {
		/* a rename takes two numbers, the entry's and its new name's (ldclt) */
		int64_t take = w->run->rename_pair ? 2 * c->incr_step : c->incr_step;
		if (c->commoncounter)
			x = __atomic_fetch_add(&w->run->common_counter, take, __ATOMIC_RELAXED);
		else {
			x = w->incr_next;
			w->incr_next += take;
		}
		if (w->run->rename_pair && x <= hi && x + c->incr_step > hi && c->noloop)
			x += c->incr_step; /* the new name's number passes the top */
		if (x > hi) {
			if (c->noloop) {
				if (w->note[0] == '\0')
					snprintf(w->note, sizeof w->note,
					         "T%03d: Hit top incremental value %lld > %lld", w->id, (long long)x,
					         (long long)hi);
				return false;
			}
			x = lo + (x - lo) % (hi - lo + 1);
			if (!c->commoncounter)
				w->incr_next = x + take;
		}
		*v = x;
		return true;
	}
	default: *v = 0; return true;
	}
}

/* The numbers of a new pass.  false when noloop has reached the top. */
bool ldb_pass_values(struct ldb_client *w, int64_t *v, int64_t *bv)
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
enum ldb_op ldb_pick_kind(struct ldb_client *w, int step)
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
 * empty buffer too small for one request grows (once: it stays grown).
 * room_for's fast path (the buffer held, room in it) is inlined. */
static bool room_for_slow(struct ldb_conn *cn, size_t need)
{
	if (cn->ln.out == NULL && ldb_bufs_take(cn) != 0)
		return false;
	if (cn->ln.out_cap - cn->ln.out_len >= need)
		return true;
	if (cn->ln.out_off > 0 && cn->ln.out_off == cn->ln.out_len)
		cn->ln.out_len = cn->ln.out_off = 0;
	else if (ldb_conn_flush(cn) != 0)
		return false;
	if (cn->ln.out_cap - cn->ln.out_len >= need)
		return true;
	if (cn->ln.out_len > 0)
		return false; /* the peer is slow: the EPOLLOUT edge writes the rest */
	size_t cap = cn->ln.out_cap * 2 > need ? cn->ln.out_cap * 2 : need;
	uint8_t *bigger = realloc(cn->ln.out, cap);
	if (bigger == NULL)
		return false;
	cn->ln.out = bigger;
	cn->ln.out_cap = cap;
	return true;
}

static inline bool room_for(struct ldb_conn *cn, size_t need)
{
	if (cn->ln.out != NULL && cn->ln.out_cap - cn->ln.out_len >= need)
		return true;
	return room_for_slow(cn, need);
}

/* Keep an add's protocolOp and DN (just rendered at dst), in case its
 * parents are missing; armed only on a 32. */
static void keep_for_parents(struct ldb_conn *cn, const uint8_t *dst, long n)
{
	const struct ldb_wctx *wc = cn->w->wctx;
	struct ldb_resp r;
	if (ldb_wire_parse(dst, (size_t)n, &r, NULL) == 1 && wc->dnlen < LDB_DN_MAX) {
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

/* -S: what this request writes that the watchers cannot rebuild from its
 * numbers (its row's repl_carry: attreplace's random run, an object= rdn=
 * add's RDN), kept with the slot until its result is offered to them. */
static void keep_repl_run(struct ldb_conn *cn, int i, enum ldb_op kind)
{
	const struct ldb_opdesc *d = ldb_ops[kind];
	char *k = cn->repl_run + (size_t)i * REPL_SLOT;
	const char *from = NULL;
	size_t n = d->repl_carry != NULL ? d->repl_carry(cn->w->run->cfg, cn->w->wctx, &from) : 0;
	k[0] = (char)(n > LDB_REPL_RUN ? 255 : n);
	if (n <= LDB_REPL_RUN && n > 0)
		memcpy(k + 1, from, n);
}

/* The request controls of kind k (ops/kind_controls.c) appended to the n bytes
 * just rendered at dst, with --proxy-as's identity rendered for this
 * request into the client's buffer.  @return the new length, 0 if no room. */
static size_t with_controls(struct ldb_client *w, int k, uint8_t *dst, size_t n, size_t cap)
{
	const struct ldb_ops_run *o = &w->run->ops;
	const char *id = NULL;
	size_t idlen = 0;

	if (o->proxy[k]) {
		idlen = ldb_vp_render(o->cfg->ctl.proxy_vp, w->proxy_st, &w->rng, w->proxy_buf, w->proxy_cap);
		id = w->proxy_buf;
	}
	return ldb_ctl_append(dst, n, cap, o->ctl[k].data, o->ctl[k].len, id, idlen);
}

/* The connection's tag (run.h): the search encoded once, framed, with the
 * connection's number written over the filter's zeros. */
static long render_tag(struct ldb_conn *cn, int32_t msgid)
{
	const struct ldb_run *run = cn->w->run;
	if (!room_for(cn, run->tag_len + LDB_WIRE_ENVELOPE_MAX))
		return 0;
	uint8_t *dst = cn->ln.out + cn->ln.out_len;
	size_t n = ldb_wire_frame(dst, cn->ln.out_cap - cn->ln.out_len, msgid, run->tag_op, run->tag_len);
	if (n == 0)
		return 0;
	uint8_t *digits = dst + n - run->tag_len + run->tag_digits_at;
	uint32_t v = cn->conn_no;
	for (int k = LDB_TAG_DIGITS - 1; k >= 0; k--, v /= 10)
		digits[k] = (uint8_t)('0' + v % 10);
	return (long)n;
}

/* Render the request for slot i (its kind, numbers and aux level set) with a
 * fresh message id.  false when nothing could be written; *exhausted when an
 * entry template passed its top. */
bool ldb_render_slot(struct ldb_conn *cn, int i, bool *exhausted)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	struct ldb_slot *s = &cn->slots[i];
	const struct ldb_opdesc *d = ldb_ops[s->kind];
	int32_t msgid = next_msgid(cn, i);
	uint8_t *dst;
	long n;

	*exhausted = false;
	int nreq = 1;
	if (s->setup == SETUP_TAG) {
		n = render_tag(cn, msgid);
	} else if (s->setup == SETUP_STARTTLS || s->setup == SETUP_SYNC) {
		/* a fixed extended request: StartTLS, or the sync's WhoAmI */
		const struct ldb_reqset *x = s->setup == SETUP_SYNC ? &run->marker : &run->starttls;
		int64_t vals[LDB_FIELD_COUNT] = { 0 };
		if (!room_for(cn, x->maxlen))
			return false;
		n = (long)ldb_req_render(x, 0, vals, msgid, cn->ln.out + cn->ln.out_len,
		                         cn->ln.out_cap - cn->ln.out_len);
	} else if (s->aux > 0) {
		/* an ancestor of an add (add_missing_parents) */
		if (!room_for(cn, RETRY_CAP))
			return false;
		n = (long)ldb_add_render_parent(cn->retry_dn, cn->retry_dnlen, s->aux, msgid,
		                                cn->ln.out + cn->ln.out_len, cn->ln.out_cap - cn->ln.out_len);
	} else if (d->parents && cn->retry_len > 0) {
		/* the add again, once its parents exist: same request, new id */
		if (!room_for(cn, cn->retry_len + LDB_WIRE_ENVELOPE_MAX))
			return false;
		n = (long)ldb_wire_frame(cn->ln.out + cn->ln.out_len, cn->ln.out_cap - cn->ln.out_len, msgid, cn->retry,
		                         cn->retry_len);
		cn->retry_len = 0;
	} else {
		struct ldb_op_req r = { &run->ops, w->wctx, &w->rng, s->v, s->bv, msgid, 0, w->vpc, NULL, s->round };
		r.setup = s->setup != SETUP_NONE; /* a connection's own bind (--bad-password leaves it alone) */
		if (run->ops.state_size[s->kind] > 0)
			r.state = cn->step_state + (size_t)i * run->ops.state_room;
		if (!room_for(cn, run->ops.room[s->kind]))
			return false;
		if (d->msgids > 1)
			r.msgid2 = next_msgid(cn, i); /* the same slot's next id: unique on the connection */
		nreq = d->msgids > 1 ? d->msgids : 1;
		dst = cn->ln.out + cn->ln.out_len;
		n = d->render(&r, dst, cn->ln.out_cap - cn->ln.out_len);
		if (n < 0) {
			*exhausted = true;
			if (w->note[0] == '\0')
				snprintf(w->note, sizeof w->note, "T%03d: the entry template reached its top value",
				         w->id);
			return false;
		}
		if (n > 0 && s->setup == SETUP_NONE && run->ops.any_ctl[s->kind])
			n = (long)with_controls(w, s->kind, dst, (size_t)n, cn->ln.out_cap - cn->ln.out_len);
		if (n > 0 && d->parents && run->make_parents)
			keep_for_parents(cn, dst, n);
		if (n > 0 && cn->repl_run != NULL)
			keep_repl_run(cn, i, s->kind);
	}
	if (n <= 0)
		return false;
	cn->ln.out_len += (size_t)n;
	s->msgid = msgid;
	s->order = cn->nreq; /* the server numbers every request: op= */
	s->conn_no = cn->conn_no;
	cn->nreq += (uint32_t)nreq;
	return true;
}

/* A kind without a response was sent on slot i: done now, and the pass goes
 * on (out of line: the slot's copy on its stack). */
static __attribute__((noinline)) void issued_unanswered(struct ldb_conn *cn, int i, uint64_t now)
{
	struct ldb_slot *s = &cn->slots[i];
	struct ldb_slot done = *s;
	record_sent(cn->w, &done);
	s->used = 0;
	cn->inflight--;
	cn->unsynced++; /* ldb_conn_pump sends the sync that paces them */
	ldb_pass_continue(cn, i, &done, now);
}

/* Issue slot i as step `step` of a pass (or as a setup request). */
static bool issue(struct ldb_conn *cn, int i, enum ldb_op kind, int step, int setup, bool counts, int64_t v, int64_t bv,
                  uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_slot *s = &cn->slots[i];
	s->kind = (uint8_t)kind;
	s->step = (uint8_t)step;
	s->setup = (uint8_t)setup;
	s->counts = counts;
	s->aux = 0;
	s->round = 0;
	s->v = v;
	s->bv = bv;
	bool exhausted;
	if (!ldb_render_slot(cn, i, &exhausted)) {
		if (exhausted)
			w->exhausted = true;
		return false;
	}
	s->used = 1;
	s->t_sent = now;
	s->t_first = now;
	s->t0 = now;
	if (w->run->rate_interval_ns > 0 && counts && step == 0) {
		s->t0 = cn->t_due < now ? cn->t_due : now; /* open loop: from when it was due */
		/* the schedule lag: late although the connection had room */
		uint64_t from = cn->t_due > cn->t_freed ? cn->t_due : cn->t_freed;
		if (w->lat->lag.counts != NULL)
			ldb_hist_record(&w->lat->lag, now > from ? now - from : 0);
	}
	s->entries = 0;
	cn->inflight++;
	if (setup == SETUP_BIND)
		ldb_add(&w->st->setup_binds, 1);
	else if (setup == SETUP_STARTTLS || setup == SETUP_SYNC)
		ldb_add(&w->st->setup_extended, 1);
	else if (setup == SETUP_NONE) {
		ldb_add(&w->st->op[kind].attempted, 1);
		int first = cn->steps ? ldb_op_step_kind(kind, 0) : -1;
		if (first >= 0) /* a flow's first step */
			ldb_add(&w->st->op[first].attempted, 1);
	}
	if (setup == SETUP_NONE && !ldb_ops[kind]->response)
		issued_unanswered(cn, i, now);
	return true;
}

bool ldb_may_issue(struct ldb_client *w, uint64_t now)
{
	const struct ldb_config *c = w->run->cfg;
	if (w->exhausted || run_stopping(w->run))
		return false;
	/* -T counts measured operations: none during warm-up.  A pass under
	 * way may count each of its steps (counted as they end, so this errs
	 * low until the last passes end, then issues what is missing) */
	if (c->ops_per_thread > 0 && w->measuring &&
	    ldb_load(&w->st->counted) + w->outstanding * (uint64_t)pass_length(w->run) >= (uint64_t)c->ops_per_thread)
		return false;
	if (c->wait_sec > 0 && now < w->next_op_at)
		return false;
	if (w->run->rate_interval_ns > 0 && now < w->next_intended)
		return false;
	return true;
}

/* When this client may start its next operation (for the epoll timeout). */
static uint64_t next_due(const struct ldb_client *w)
{
	if (w->run->cfg->wait_sec > 0)
		return w->next_op_at;
	if (w->run->rate_interval_ns > 0)
		return w->next_intended;
	return 0;
}

/* A client may start its next operation only later (-W, --rate): its
 * pacing deadline wakes its connections then. */
void ldb_pace_later(struct ldb_client *w, uint64_t now)
{
	uint64_t due = next_due(w);
	if (due > now && !w->exhausted)
		(void)ldb_timer_arm_before(&w->runner->timers, &w->pace, due);
}

/* SYNC_EVERY operations without a response went out: the sync (a WhoAmI on
 * a free slot, not an operation of the load); the connection starts no new
 * operation until its answer (run/conn.c conn_result).  false when it could
 * not be rendered now (no room yet: the next pump tries again). */
static bool send_sync(struct ldb_conn *cn, int i, uint64_t now)
{
	if (!issue(cn, i, cn->w->run->main_op, 0, SETUP_SYNC, false, 0, 0, now))
		return false;
	cn->syncing = true;
	cn->unsynced = 0;
	return true;
}

/* Fill a ready persistent connection up to its depth with new passes, then
 * write once. */
void ldb_conn_pump(struct ldb_conn *cn, uint64_t now)
{
	struct ldb_client *w = cn->w;
	/* With a deep window, refill once a quarter of it is free: one write
	 * then carries several requests (closed loop only: --rate and -W issue
	 * on their schedule). */
	int batch = cn->depth >= 8 && w->run->rate_interval_ns == 0 && w->run->cfg->wait_sec == 0 ? cn->depth / 2 : 1;
	if (cn->syncing || (cn->inflight > 0 && cn->depth - cn->inflight < batch))
		return;
	if (w->run->cfg->held > 0 && !cn->picked) {
		ldb_held_wait(w, now); /* --held: probes go where run/held picks */
		return;
	}
	conn_watch(cn, timeout_at(cn, now));
	while (cn->inflight < cn->depth && ldb_may_issue(w, now)) {
		int i = free_slot(cn);
		int64_t v, bv;
		if (i >= 0 && cn->unsynced >= SYNC_EVERY) {
			(void)send_sync(cn, i, now);
			break;
		}
		if (i < 0 || !ldb_pass_values(w, &v, &bv))
			break;
		cn->t_due = w->next_intended;
		if (!issue(cn, i, ldb_pick_kind(w, 0), 0, SETUP_NONE, true, v, bv, now))
			break;
		w->outstanding++;
		took_op(w, now);
	}
	if (cn->ln.out_len > cn->ln.out_off && ldb_conn_flush(cn) != 0)
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

/* Put one request on the wire at once (connection set-up, pass steps). */
void ldb_issue_now(struct ldb_conn *cn, int i, enum ldb_op kind, int step, int setup, bool counts, int64_t v,
                   int64_t bv, uint64_t now)
{
	conn_watch(cn, timeout_at(cn, now));
	if (!issue(cn, i, kind, step, setup, counts, v, bv, now) || ldb_conn_flush(cn) != 0)
		ldb_conn_fail(cn, LDB_FAIL_SERVER_DOWN, now);
}

/* The pass goes on with its next step, on the same slot, or ends. */
void ldb_pass_continue(struct ldb_conn *cn, int i, const struct ldb_slot *done, uint64_t now)
{
	struct ldb_client *w = cn->w;
	struct ldb_run *run = w->run;
	bool cycle = run->cfg->bindeach;
	int next = done->step + 1;
	if (next < pass_length(run) && !run_stopping(run)) {
		ldb_issue_now(cn, i, ldb_pick_kind(w, next), next, SETUP_NONE, true, done->v, done->bv, now);
		return;
	}
	if (cycle) {
		ldb_cycle_end(cn, now);
		return;
	}
	w->outstanding--;
}
