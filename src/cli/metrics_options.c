/* The live metrics' options (docs/metrics.md): --metrics-listen [ADDR:]PORT
 * --metrics-linger DURATION and --metrics-push URL.  The address is checked here (a numeric
 * IPv4 or bracketed IPv6 address); whether the port is free is the
 * endpoint's to find out when it opens, before any LDAP connection. */
#include "cli/ctx.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/num.h"

/* "9100", "127.0.0.1:9100", "[::1]:9100" into c->metrics_addr and port. */
static int parse_listen(struct cli_ctx *x, char *arg)
{
	struct ldb_config *c = x->c;
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
		if (n == 0 || n >= sizeof addr)
			return cli_fail(x, "--metrics-listen '%s': bad address (give ADDR:PORT, e.g. 127.0.0.1:9100)",
			                arg);
		memcpy(addr, a, n);
		addr[n] = '\0';
	}
	unsigned char buf[16];
	if (inet_pton(AF_INET, addr, buf) != 1 && inet_pton(AF_INET6, addr, buf) != 1)
		return cli_fail(x, "--metrics-listen '%s': bad address '%s' (a numeric IPv4 or [IPv6] address)", arg,
		                addr);
	char *end = NULL;
	long p = strtol(port, &end, 10);
	if (port[0] < '0' || port[0] > '9' || *end != '\0' || p < 1 || p > 65535)
		return cli_fail(x, "--metrics-listen '%s': bad port '%s' (1 to 65535)", arg, port);
	snprintf(c->metrics_addr, sizeof c->metrics_addr, "%s", addr);
	c->metrics_port = (int)p;
	c->metrics_listen = arg;
	return 0;
}

int cli_metrics_option(struct cli_ctx *x, int opt, const char *arg)
{
	struct ldb_config *c = x->c;
	switch (opt) {
	case OPT_METRICS_LISTEN: return parse_listen(x, (char *)arg);
	case OPT_METRICS_LINGER:
		if (ldb_parse_duration_ms(arg, &c->metrics_linger_ms) < 0)
			return cli_fail(x, "--metrics-linger '%s': not a duration (e.g. 30s, 2m)", arg);
		c->metrics_linger_set = true;
		return 0;
	case OPT_METRICS_PUSH:
		if (strncmp(arg, "http://", 7) != 0 || arg[7] == '\0' || arg[7] == '/' || arg[7] == ':')
			return cli_fail(x, "--metrics-push '%s': not an http://HOST[:PORT][/PATH] URL", arg);
		c->metrics_push = (char *)arg;
		return 0;
	default: return cli_fail(x, "unknown metrics option");
	}
}

int cli_metrics_check(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	if (c->metrics_linger_set && c->metrics_listen == NULL)
		return cli_fail(x, "--metrics-linger needs --metrics-listen");
	return 0;
}

int ldb_cli_metrics_args(struct ldb_config *c, const char *listen, const char *linger, const char *push, char *err,
                         size_t errcap)
{
	struct cli_ctx x = { .c = c, .err = err, .errcap = errcap };
	if ((listen != NULL && cli_metrics_option(&x, OPT_METRICS_LISTEN, listen) != 0) ||
	    (linger != NULL && cli_metrics_option(&x, OPT_METRICS_LINGER, linger) != 0) ||
	    (push != NULL && cli_metrics_option(&x, OPT_METRICS_PUSH, push) != 0) || cli_metrics_check(&x) != 0) {
		size_t n = strlen(c->progname); /* the caller names itself */
		if (strncmp(err, c->progname, n) == 0 && strncmp(err + n, ": ", 2) == 0)
			memmove(err, err + n + 2, strlen(err + n + 2) + 1);
		return -1;
	}
	return 0;
}
