/* Held connections' options (docs/guide.md "Held connections"): --held,
 * --probe-every T, --connect-rate N/s, --source-address A[,B...]; and their
 * checks.  A source address is tried here (a socket bound to it, then
 * closed): one that is not on this host is said before any connection. */
#include "cli/ctx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/num.h"

/* One numeric address into c->src[c->nsrc]. */
static int add_source(struct cli_ctx *x, const char *a)
{
	struct ldb_config *c = x->c;
	if (c->nsrc == LDB_SRC_MAX)
		return cli_fail(x, "--source-address: at most %d addresses", LDB_SRC_MAX);
	memset(&c->src[c->nsrc], 0, sizeof c->src[c->nsrc]);
	if (inet_pton(AF_INET, a, c->src[c->nsrc].addr) == 1) {
		c->src[c->nsrc].family = AF_INET;
	} else if (inet_pton(AF_INET6, a, c->src[c->nsrc].addr) == 1) {
		c->src[c->nsrc].family = AF_INET6;
	} else {
		return cli_fail(x, "--source-address '%s': not a numeric IPv4 or IPv6 address", a);
	}
	c->nsrc++;
	return 0;
}

static int parse_sources(struct cli_ctx *x, const char *arg)
{
	char buf[1024];
	if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf || arg[0] == '\0')
		return cli_fail(x, "--source-address '%s': give A[,B...], numeric addresses of this host", arg);
	x->c->nsrc = 0;
	for (char *save = NULL, *a = strtok_r(buf, ",", &save); a != NULL; a = strtok_r(NULL, ",", &save))
		if (add_source(x, a) != 0)
			return -1;
	return 0;
}

int cli_held_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *end;
	switch (opt) {
	case OPT_HELD: c->held = -1; return 0; /* -n is read once every option is */
	case OPT_PROBE_EVERY:
		if (ldb_parse_duration_ms(arg, &c->probe_every_ms) < 0 || c->probe_every_ms == 0)
			return cli_fail(x, "--probe-every '%s': a duration above 0 (e.g. 30s, 500ms)", arg);
		return 0;
	case OPT_CONNECT_RATE:
		if (ldb_num_real(arg, &end, &c->connect_rate) != 0 || (*end && strcmp(end, "/s")) ||
		    !(c->connect_rate > 0) || c->connect_rate > 1e7)
			return cli_fail(
			        x, "--connect-rate '%s': connections per second, a number above 0 (e.g. 2000/s)", arg);
		return 0;
	case OPT_SOURCE_ADDRESS: return parse_sources(x, arg);
	default: return cli_fail(x, "option %d: not a held connections' option", opt);
	}
}

/* A source address this host has: a socket binds to it (any port). */
static int check_source(struct cli_ctx *x, int k)
{
	const struct ldb_config *c = x->c;
	char name[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_storage ss = { 0 };
	socklen_t len = sizeof(struct sockaddr_in);
	if (c->src[k].family == AF_INET6) {
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, c->src[k].addr, 16);
		len = sizeof(struct sockaddr_in6);
	} else {
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, c->src[k].addr, 4);
	}
	ss.ss_family = (sa_family_t)c->src[k].family;
	inet_ntop(c->src[k].family, c->src[k].addr, name, sizeof name);
	int fd = socket(c->src[k].family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cli_fail(x, "--source-address %s: no socket: %s", name, strerror(errno));
	int rc = bind(fd, (const struct sockaddr *)&ss, len);
	int err = errno;
	close(fd);
	if (rc != 0)
		return cli_fail(x, "--source-address %s: not an address of this host (%s)", name, strerror(err));
	return 0;
}

/* The number of CPUs: how many clients carry held connections. */
static int held_clients(const struct ldb_config *c, int n)
{
	long k = c->io_threads > 0 ? c->io_threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (k < 1)
		k = 1;
	return k > n ? n : (int)k;
}

int cli_held_check(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	for (int k = 0; k < c->nsrc; k++)
		if (check_source(x, k) != 0)
			return -1;
	if (c->held > 0)
		return 0; /* checked before (a scenario's second pass) */
	if (c->held == 0) {
		if (c->probe_every_ms > 0)
			return cli_fail(x, "--probe-every goes with --held");
		return 0;
	}
	if (c->bindeach || c->conns_per_thread > 1 || c->wait_sec > 0 || c->nsweep > 0)
		return cli_fail(x, "--held holds -n persistent connections: leave out -e bindeach, -W, --sweep and "
		                   "--connections-per-thread");
	if (c->probe_every_ms > 0) {
		if (c->rate > 0 || c->nrate_profile > 0)
			return cli_fail(x, "--probe-every and --rate exclude each other (it sets the rate)");
		c->rate = (double)c->threads * 1000.0 / (double)c->probe_every_ms;
	}
	/* -n N connections, carried by one client per I/O thread */
	int n = c->threads, k = held_clients(c, n);
	c->held = n;
	c->threads = k;
	c->conns_per_thread = (n + k - 1) / k;
	return 0;
}
