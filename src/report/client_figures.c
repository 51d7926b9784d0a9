/* The client tells on itself: see client.h. */
#include "report/client_figures.h"

#include <string.h>

static bool reached(const struct ldb_client_fig *f)
{
	return f->rate_target <= 0 || f->rate >= LDB_CLIENT_REACHED * f->rate_target;
}

/* Could the requests in flight carry the target at the server's latency
 * (Little's law, with half again of room)? */
static bool inflight_enough(const struct ldb_client_fig *f)
{
	if (f->rate_target <= 0 || f->server_mean_ns <= 0)
		return true;
	double carry = (double)f->inflight_cap / (f->server_mean_ns / 1e9);
	return carry >= 1.5 * f->rate_target;
}

void ldb_client_judge(struct ldb_client_fig *f)
{
	f->limit = LDB_LIMIT_NONE;
	f->short_of_inflight = !reached(f) && !inflight_enough(f);
	if (!f->have || f->seconds <= 0)
		return;
	if (f->have_cgroup && f->throttled_periods > 0 &&
	    (f->throttled_seconds > LDB_CLIENT_THROTTLE_LIMIT * f->seconds ||
	     (double)f->throttled_periods > LDB_CLIENT_THROTTLE_PERIODS * (double)f->quota_periods))
		f->limit = LDB_LIMIT_THROTTLE;
	else if (f->busy_max > LDB_CLIENT_BUSY_LIMIT)
		f->limit = LDB_LIMIT_BUSY;
	else if (f->have_lag && f->lag_p50_ns > LDB_CLIENT_LAG_LIMIT_NS)
		f->limit = LDB_LIMIT_LAG;
	else if (!reached(f) && !f->short_of_inflight && f->server_mean_ns > 0)
		f->limit = LDB_LIMIT_SENDS;
}

void ldb_client_verdict(const struct ldb_client_fig *f, char *buf, size_t cap)
{
	const char *more = "use --io-threads (now %d) or more client hosts";
	char remedy[96];
	snprintf(remedy, sizeof remedy, more, f->nthreads);
	switch (f->limit) {
	case LDB_LIMIT_NONE: buf[0] = '\0'; return;
	case LDB_LIMIT_THROTTLE:
		snprintf(buf, cap,
		         "The client limited this run: its cgroup's CPU quota throttled it for %.0f%% of the time "
		         "(%llu of %llu periods); raise the quota or use more client hosts.",
		         100 * f->throttled_seconds / f->seconds, (unsigned long long)f->throttled_periods,
		         (unsigned long long)f->quota_periods);
		return;
	case LDB_LIMIT_BUSY:
		snprintf(buf, cap,
		         "The client limited this run: I/O thread %d was busy %.0f%% of the time (%.0f%% on a CPU, "
		         "%.0f%% waiting for one); %s.",
		         f->busiest, 100 * f->busy_max, 100 * f->cpu_max, 100 * f->wait_max,
		         f->wait_max > f->cpu_max ? "free the client host's CPUs or use more client hosts" : remedy);
		return;
	case LDB_LIMIT_LAG:
		snprintf(buf, cap,
		         "The client limited this run: its sends fell behind schedule (lag p50 %.3f ms, p99 %.3f ms, "
		         "max %.3f ms) with room on the connections; %s.",
		         (double)f->lag_p50_ns / 1e6, (double)f->lag_p99_ns / 1e6, (double)f->lag_max_ns / 1e6, remedy);
		return;
	case LDB_LIMIT_SENDS:
		snprintf(buf, cap,
		         "The client limited this run: it sent %.0f/s of the %.0f/s asked while the server answered "
		         "in %.3f ms on average; %s.",
		         f->rate, f->rate_target, f->server_mean_ns / 1e6, remedy);
		return;
	}
	buf[0] = '\0';
}

void ldb_client_line(const struct ldb_client_fig *f, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "Client: CPU %.3f s over %d I/O thread%s, busiest %.0f%% (%.0f%% waiting for a CPU)",
	                 f->cpu_seconds, f->nthreads, f->nthreads == 1 ? "" : "s", 100 * f->busy_max,
	                 100 * f->wait_max);
	if (n < 0 || (size_t)n >= cap)
		return;
	if (f->have_lag)
		n += snprintf(buf + n, cap - (size_t)n, ", schedule lag p50 %.3f ms p99 %.3f ms max %.3f ms",
		              (double)f->lag_p50_ns / 1e6, (double)f->lag_p99_ns / 1e6, (double)f->lag_max_ns / 1e6);
	if (n >= 0 && (size_t)n < cap && f->have_cgroup)
		snprintf(buf + n, cap - (size_t)n, ", cgroup throttled %llu of %llu periods %.3f s",
		         (unsigned long long)f->throttled_periods, (unsigned long long)f->quota_periods,
		         f->throttled_seconds);
}

void ldb_client_ramp_line(const struct ldb_client_fig *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "Clients: %d of %d connected, %lld connections opening, %d not started yet", f->clients_up,
	         f->clients, f->conns_opening, f->clients_waiting);
}

static const char *limit_name(enum ldb_client_limit l)
{
	static const char *const names[] = { "none", "busy", "throttled", "lag", "sends" };
	return (unsigned)l < sizeof names / sizeof names[0] ? names[l] : "?";
}

void ldb_client_put_json(FILE *f, const struct ldb_client_fig *x)
{
	if (!x->have)
		return;
	fprintf(f,
	        ",\"client\":{\"io_threads\":%d,\"cpu_s\":%.6f,\"busy_max\":%.4f,\"cpu_max\":%.4f,"
	        "\"run_queue_max\":%.4f,\"busiest\":%d",
	        x->nthreads, x->cpu_seconds, x->busy_max, x->cpu_max, x->wait_max, x->busiest);
	if (x->have_lag)
		fprintf(f, ",\"lag_p50_us\":%.3f,\"lag_p99_us\":%.3f,\"lag_max_us\":%.3f", (double)x->lag_p50_ns / 1e3,
		        (double)x->lag_p99_ns / 1e3, (double)x->lag_max_ns / 1e3);
	else
		fputs(",\"lag_p50_us\":null,\"lag_p99_us\":null,\"lag_max_us\":null", f);
	if (x->have_cgroup)
		fprintf(f, ",\"quota_periods\":%llu,\"throttled_periods\":%llu,\"throttled_s\":%.6f",
		        (unsigned long long)x->quota_periods, (unsigned long long)x->throttled_periods,
		        x->throttled_seconds);
	else
		fputs(",\"quota_periods\":null,\"throttled_periods\":null,\"throttled_s\":null", f);
	fprintf(f, ",\"clients\":%d,\"clients_connected\":%d,\"connections_opening\":%lld,\"clients_not_started\":%d",
	        x->clients, x->clients_up, x->conns_opening, x->clients_waiting);
	fprintf(f, ",\"short_of_inflight\":%s,\"limited\":%s,\"limit\":\"%s\"}",
	        x->short_of_inflight ? "true" : "false", x->limit != LDB_LIMIT_NONE ? "true" : "false",
	        limit_name(x->limit));
}
