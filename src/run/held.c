/* Held connections: see held.h. */
#include "run/held.h"

#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "run/clock.h"
#include "run/conn.h"
#include "run/iothread_plan.h"

#define PICK_TRIES 8              /* random draws before a scan for an idle connection */
#define RETRY_NS (1000 * 1000ULL) /* none idle: the next look */
#define PROBES_PER_ROUND 64       /* probes one deadline sends at most (a late schedule catches up) */
#define PORT_RANGE "/proc/sys/net/ipv4/ip_local_port_range"

int ldb_held_nconns(const struct ldb_config *c, int id)
{
	int first;
	return c->held > 0 ? ldb_io_share(c->held, c->threads, id, &first) : c->conns_per_thread;
}

uint64_t ldb_held_connect_after(const struct ldb_config *c, int id, int k)
{
	if (!(c->connect_rate > 0))
		return 0;
	int first = id * c->conns_per_thread;
	if (c->held > 0)
		(void)ldb_io_share(c->held, c->threads, id, &first);
	return (uint64_t)((double)(first + k) * 1e9 / c->connect_rate);
}

socklen_t ldb_held_next_source(const struct ldb_config *c, struct sockaddr_storage *ss)
{
	static unsigned next; /* the addresses in turn over every connect of the run */
	unsigned k = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) % (unsigned)c->nsrc;
	return ldb_source_sockaddr(c, (int)k, ss);
}

socklen_t ldb_source_sockaddr(const struct ldb_config *c, int k, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (c->src[k].family == AF_INET6) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
		v6->sin6_family = AF_INET6;
		memcpy(&v6->sin6_addr, c->src[k].addr, sizeof v6->sin6_addr);
		return sizeof *v6;
	}
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	v4->sin_family = AF_INET;
	memcpy(&v4->sin_addr, c->src[k].addr, sizeof v4->sin_addr);
	return sizeof *v4;
}

static bool idle(const struct ldb_conn *cn)
{
	return cn->state == CS_READY && cn->inflight == 0 && !cn->syncing;
}

/* A random idle connection of the client, or NULL. */
static struct ldb_conn *pick(struct ldb_client *w)
{
	unsigned n = (unsigned)w->nconns;
	for (int t = 0; t < PICK_TRIES; t++) {
		struct ldb_conn *cn = &w->conns[ldb_rng_next(&w->rng) % n];
		if (idle(cn))
			return cn;
	}
	unsigned at = (unsigned)(ldb_rng_next(&w->rng) % n);
	for (unsigned i = 0; i < n; i++)
		if (idle(&w->conns[(at + i) % n]))
			return &w->conns[(at + i) % n];
	return NULL;
}

void ldb_held_paced(struct ldb_client *w, uint64_t now)
{
	bool stuck = false;
	for (int k = 0; k < PROBES_PER_ROUND && ldb_may_issue(w, now); k++) {
		struct ldb_conn *cn = pick(w);
		if (cn != NULL) {
			cn->picked = true;
			ldb_conn_pump(cn, now);
			cn->picked = false;
		}
		if (cn == NULL || (cn->ln.fd >= 0 && cn->inflight == 0)) {
			stuck = true; /* none idle, or nothing went out */
			break;
		}
	}
	if (!ldb_may_issue(w, now))
		ldb_pace_later(w, now);
	else /* more due: at once after a full round, a little later when stuck */
		(void)ldb_timer_arm_before(&w->runner->timers, &w->pace, now + (stuck ? RETRY_NS : 1));
}

void ldb_held_wait(struct ldb_client *w, uint64_t now)
{
	if (w->run->rate_interval_ns == 0 || w->exhausted)
		return; /* held without probes */
	uint64_t due = w->next_intended > now ? w->next_intended : now + 1;
	(void)ldb_timer_arm_before(&w->runner->timers, &w->pace, due);
}

void ldb_held_moved(struct ldb_conn *cn, int from, int to)
{
	struct ldb_client *w = cn->w;
	struct ldb_thread_stats *st = w->st;
	if (from == 2 && !run_stopping(w->run))
		ldb_add(&st->conns_lost, 1);
	if (to == 2 && ldb_load(&st->all_up_ns) == 0 && ldb_load(&st->conns_up) == (uint64_t)w->nconns) {
		uint64_t now = ldb_now_ns();
		ldb_add(&st->all_up_ns, now > w->run->t_start ? now - w->run->t_start : 1);
	}
}

int ldb_held_preflight(const struct ldb_config *c, long conns, char *err, size_t cap)
{
	long lo = 0, hi = 0;
	FILE *f = fopen(PORT_RANGE, "r");
	if (f == NULL)
		return 0; /* not Linux's file: nothing to compare with */
	int got = fscanf(f, "%ld %ld", &lo, &hi);
	fclose(f);
	if (got != 2 || hi < lo)
		return 0;
	return ldb_held_ports(conns, c->nsrc, lo, hi, err, cap);
}

int ldb_held_ports(long conns, int nsources, long lo, long hi, char *err, size_t cap)
{
	long ports = hi - lo + 1, nsrc = nsources > 0 ? nsources : 1;
	long per = (conns + nsrc - 1) / nsrc;
	if (per <= ports)
		return 0;
	snprintf(err, cap,
	         "%ld connections to one server address from %ld source address%s need %ld local ports each, but "
	         "net.ipv4.ip_local_port_range gives %ld (%ld-%ld): widen it (sysctl -w "
	         "net.ipv4.ip_local_port_range=\"1024 65535\") or add addresses with --source-address A,B,...",
	         conns, nsrc, nsrc > 1 ? "es" : "", per, ports, lo, hi);
	return -1;
}
