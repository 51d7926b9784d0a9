/* The live metrics' options (docs/metrics.md): --metrics-listen [ADDR:]PORT
 * --metrics-linger DURATION and --metrics-push URL, into a struct
 * ldb_metrics_settings (the load's configuration's, or the replay's own).
 * The address is checked here (a numeric IPv4 or bracketed IPv6 address);
 * whether the port is free is the endpoint's to find out when it opens,
 * before any LDAP connection. */
#include "cli/ctx.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/num.h"

/* "9100", "127.0.0.1:9100", "[::1]:9100" into m->addr and port. */
static int parse_listen(struct ldb_metrics_settings *m, const char *arg, char *err, size_t cap)
{
	const char *colon = strrchr(arg, ':');
	const char *port = colon != NULL ? colon + 1 : arg;
	char addr[64] = "127.0.0.1";
	if (colon != NULL) {
		size_t n = (size_t)(colon - arg);
		const char *a = arg;
		if (n >= 2 && arg[0] == '[' && arg[n - 1] == ']') {
			a = arg + 1;
			n -= 2;
		}
		if (n == 0 || n >= sizeof addr) {
			snprintf(err, cap, "--metrics-listen '%s': bad address (give ADDR:PORT, e.g. 127.0.0.1:9100)",
			         arg);
			return -1;
		}
		memcpy(addr, a, n);
		addr[n] = '\0';
	}
	unsigned char buf[16];
	if (inet_pton(AF_INET, addr, buf) != 1 && inet_pton(AF_INET6, addr, buf) != 1) {
		snprintf(err, cap, "--metrics-listen '%s': bad address '%s' (a numeric IPv4 or [IPv6] address)", arg,
		         addr);
		return -1;
	}
	char *end = NULL;
	long p = strtol(port, &end, 10);
	if (port[0] < '0' || port[0] > '9' || *end != '\0' || p < 1 || p > 65535) {
		snprintf(err, cap, "--metrics-listen '%s': bad port '%s' (1 to 65535)", arg, port);
		return -1;
	}
	snprintf(m->addr, sizeof m->addr, "%s", addr);
	m->port = (int)p;
	m->listen = arg;
	return 0;
}

/* One of the options into m.  @return 0, or -1 with one line in err. */
static int metrics_option(struct ldb_metrics_settings *m, int opt, const char *arg, char *err, size_t cap)
{
	switch (opt) {
	case OPT_METRICS_LISTEN: return parse_listen(m, arg, err, cap);
	case OPT_METRICS_LINGER:
		if (ldb_parse_duration_ms(arg, &m->linger_ms) < 0) {
			snprintf(err, cap, "--metrics-linger '%s': not a duration (e.g. 30s, 2m)", arg);
			return -1;
		}
		m->linger_set = true;
		return 0;
	case OPT_METRICS_PUSH:
		if (strncmp(arg, "http://", 7) != 0 || arg[7] == '\0' || arg[7] == '/' || arg[7] == ':') {
			snprintf(err, cap, "--metrics-push '%s': not an http://HOST[:PORT][/PATH] URL", arg);
			return -1;
		}
		m->push = arg;
		return 0;
	default: snprintf(err, cap, "unknown metrics option"); return -1;
	}
}

static int metrics_check(const struct ldb_metrics_settings *m, char *err, size_t cap)
{
	if (m->linger_set && m->listen == NULL) {
		snprintf(err, cap, "--metrics-linger needs --metrics-listen");
		return -1;
	}
	return 0;
}

int cli_metrics_option(struct cli_ctx *x, int opt, const char *arg)
{
	char err[400];
	if (metrics_option(&x->c->metrics, opt, arg, err, sizeof err) != 0)
		return cli_fail(x, "%s", err);
	return 0;
}

int cli_metrics_check(struct cli_ctx *x)
{
	char err[400];
	if (metrics_check(&x->c->metrics, err, sizeof err) != 0)
		return cli_fail(x, "%s", err);
	return 0;
}

int ldb_cli_metrics_args(struct ldb_metrics_settings *m, const char *listen, const char *linger, const char *push,
                         char *err, size_t errcap)
{
	if ((listen != NULL && metrics_option(m, OPT_METRICS_LISTEN, listen, err, errcap) != 0) ||
	    (linger != NULL && metrics_option(m, OPT_METRICS_LINGER, linger, err, errcap) != 0) ||
	    (push != NULL && metrics_option(m, OPT_METRICS_PUSH, push, err, errcap) != 0) ||
	    metrics_check(m, err, errcap) != 0)
		return -1;
	return 0;
}
