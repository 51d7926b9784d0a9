/* `ldbench replay`'s run (run/replay.h): the target resolved, one part per
 * sender thread (its feeder, ring and connections), the threads started and
 * joined, their results merged. */
#include <netdb.h>
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

/* Part t's ring, result (part 0 writes res itself) and feeder.  @return 0,
 * 2 the log cannot be opened (err), 99 out of memory. */
static int part_init(struct ldb_rp_part *p, const struct ldb_rp_conf *conf, unsigned t, struct ldb_rp_result *res,
                     char *err, size_t errlen)
{
	p->tid = t;
	p->conf = conf;
	p->ring.size = RING_SLOTS;
	p->ring.slot = malloc(RING_SLOTS * sizeof *p->ring.slot);
	p->ring.free_idx = malloc(conf->max_conns * sizeof *p->ring.free_idx);
	p->res = t == 0 ? res : malloc(sizeof *p->res);
	if (p->res != NULL && t > 0 && ldb_rp_result_init(p->res) != 0) {
		free(p->res);
		p->res = NULL;
	}
	if (p->ring.slot == NULL || p->ring.free_idx == NULL || p->res == NULL) {
		snprintf(err, errlen, "out of memory");
		return 99;
	}
	for (uint32_t i = 0; i < conf->max_conns; i++)
		p->ring.free_idx[p->ring.nfree++] = conf->max_conns - 1 - i; /* index 0 first */
	p->feed = ldb_rp_feed_new(conf, t, &p->ring, p->res, err, errlen);
	return p->feed ? 0 : 2;
}

static void part_free(struct ldb_rp_part *p)
{
	ldb_rp_feed_free(p->feed);
	free(p->ring.slot);
	free(p->ring.free_idx);
	if (p->tid > 0 && p->res != NULL) {
		ldb_rp_result_free(p->res);
		free(p->res);
	}
}

static void *part_thread(void *arg)
{
	struct ldb_rp_part *p = arg;
	p->rc = ldb_rp_sender_run(p->conf, p);
	return NULL;
}

/* The first examples of two sets of log line numbers (each ascending, 0
 * after the last), the smallest kept. */
static void merge_lines(uint64_t *d, uint64_t nd, const uint64_t *s, uint64_t ns)
{
	uint64_t all[2 * LDB_RP_EXAMPLES];
	unsigned n = 0;
	for (uint64_t i = 0; i < nd && i < LDB_RP_EXAMPLES; i++)
		all[n++] = d[i];
	for (uint64_t i = 0; i < ns && i < LDB_RP_EXAMPLES; i++)
		all[n++] = s[i];
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && all[j - 1] > all[j]; j--) {
			uint64_t x = all[j];
			all[j] = all[j - 1];
			all[j - 1] = x;
		}
	for (unsigned i = 0; i < LDB_RP_EXAMPLES; i++)
		d[i] = i < n ? all[i] : 0;
}

/* The feeder's figures of s into d (d keeps the reader's: both read the
 * same log).  The audit log is read by each thread: a change is matched by
 * one thread and left unmatched by the others, so the records read are the
 * largest count and the unmatched those no thread matched. */
static void merge_feed(struct ldb_rp_result *d, const struct ldb_rp_result *s)
{
	for (int w = 0; w < LDB_RP_NSKIPS; w++) {
		merge_lines(d->first_line[w], d->skipped[w], s->first_line[w], s->skipped[w]);
		d->skipped[w] += s->skipped[w];
	}
	for (unsigned i = 0; i < s->nno_pw_dn && d->nno_pw_dn < LDB_RP_EXAMPLES; i++) {
		bool seen = false;
		for (unsigned j = 0; j < d->nno_pw_dn; j++)
			seen = seen || strcmp(d->no_pw_dn[j], s->no_pw_dn[i]) == 0;
		if (!seen)
			memcpy(d->no_pw_dn[d->nno_pw_dn++], s->no_pw_dn[i], LDB_RP_DN_EXAMPLE);
	}
	d->unmapped_anon += s->unmapped_anon;
	d->synthetic += s->synthetic;
	d->audit_sent += s->audit_sent;
	uint64_t matched = (d->audit_changes - d->audit_unmatched) + (s->audit_changes - s->audit_unmatched);
	if (s->audit_changes > d->audit_changes)
		d->audit_changes = s->audit_changes;
	d->audit_unmatched = d->audit_changes > matched ? d->audit_changes - matched : 0;
	if (s->audit_dropped_attrs > d->audit_dropped_attrs)
		d->audit_dropped_attrs = s->audit_dropped_attrs;
	d->conns_read += s->conns_read;
}

/* The sender's figures of s into d. */
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

/* Threads 1.. started, thread 0 run here, all joined.  @return 0 or 99. */
static int run_parts(struct ldb_rp_part *p, unsigned n)
{
	pthread_t th[LDB_RP_MAX_THREADS];
	unsigned started = 1;
	int st = 0;
	for (; started < n; started++)
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
	for (unsigned t = 0; t < n; t++)
		if (p[t].rc != 0)
			st = 99;
	return st;
}

int ldb_replay_run(const struct ldb_rp_conf *conf, struct ldb_rp_result *res, char *err, size_t errlen)
{
	unsigned n = conf->threads > 1 ? conf->threads : 1;
	struct ldb_signals sig;
	/* blocked before any thread starts: only thread 0 takes them */
	ldb_signals_take(&sig);
	struct ldb_rp_share sh = { .sig = &sig, .stop_fd = -1 };
	if (resolve(conf, &sh, err, errlen) != 0)
		return 2;
	struct ldb_rp_part *p = calloc(n, sizeof *p);
	int st = p ? 0 : 99;
	for (unsigned t = 0; t < n && st == 0; t++) {
		p[t].share = &sh;
		st = part_init(&p[t], conf, t, res, err, errlen);
	}
	if (st == 0 && n > 1 && (sh.stop_fd = eventfd(0, EFD_CLOEXEC)) < 0)
		st = 99;
	if (st == 0) {
		sh.start = ldb_now_ns();
		st = run_parts(p, n);
	}
	if (st == 99)
		snprintf(err, errlen, "out of memory");
	for (unsigned t = 1; st == 0 && t < n; t++) {
		merge_feed(res, p[t].res);
		merge_send(res, p[t].res);
	}
	for (unsigned t = 0; p && t < n; t++)
		part_free(&p[t]);
	free(p);
	if (sh.stop_fd >= 0)
		close(sh.stop_fd);
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
