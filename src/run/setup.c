/* A run's shared part, set up once before the I/O threads start: the
 * server's address, the pass or mix, the depth, and the request templates. */
#include "run/run.h"

#include <ldap.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/wire.h"
#include "run/oplog.h"

#define WHOAMI_OID "1.3.6.1.4.1.4203.1.11.3"

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
	snprintf(run->host_name, sizeof run->host_name, "%s", host);
	freeaddrinfo(res);
	return 0;
}

/* The server's name in a DIGEST-MD5 digest-uri, found as libldap finds it
 * (ldap_host_connected_to), so that a server that accepts ldapwhoami's
 * accepts ours: on loopback the local host's canonical name, else the
 * address's name, else the host as given. */
static void sasl_host(const struct ldb_run *run, char *out, size_t cap)
{
	const struct sockaddr *sa = (const struct sockaddr *)&run->addr;
	bool loop = (sa->sa_family == AF_INET &&
	             ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24 == 127) ||
	            (sa->sa_family == AF_INET6 &&
	             IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr));
	char name[256];
	snprintf(out, cap, "%.255s", run->host_name);
	if (loop) {
		struct addrinfo hints = { .ai_flags = AI_CANONNAME }, *res = NULL;
		if (gethostname(name, sizeof name) != 0)
			return;
		name[sizeof name - 1] = '\0';
		snprintf(out, cap, "%.255s", name);
		if (getaddrinfo(name, NULL, &hints, &res) == 0 && res != NULL && res->ai_canonname != NULL)
			snprintf(out, cap, "%.255s", res->ai_canonname);
		if (res != NULL)
			freeaddrinfo(res);
	} else if (getnameinfo(sa, run->addrlen, name, sizeof name, NULL, 0, NI_NAMEREQD) == 0) {
		snprintf(out, cap, "%.255s", name);
	}
}

bool ldb_run_connect_error(const struct ldb_run *run, char *where, size_t wcap, char *why, size_t ycap)
{
	int err = __atomic_load_n(&run->connect_error, __ATOMIC_ACQUIRE);
	char addr[NI_MAXHOST], port[NI_MAXSERV];
	if (err == 0)
		return false;
	if (getnameinfo((const struct sockaddr *)&run->addr, run->addrlen, addr, sizeof addr, port, sizeof port,
	                NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(addr, sizeof addr, "?");
	const char *fmt = run->addr.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s";
	char numeric[NI_MAXHOST + NI_MAXSERV + 4];
	snprintf(numeric, sizeof numeric, fmt, addr, port);
	if (strcmp(run->host_name, addr) == 0)
		snprintf(where, wcap, "%s", numeric);
	else
		snprintf(where, wcap, "%s (%s)", run->host_name, numeric);
	snprintf(why, ycap, "%s", err > 0 ? strerror(err) : "the server closed the connection before answering");
	return true;
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

/* An extended request without a value, as a fixed template.  @return 0, or
 * -1 with "cannot encode WHAT request" in err. */
static int fixed_extended(struct ldb_reqset *set, const char *oid, const char *what, char *err, size_t cap)
{
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	int rc = ldb_wire_encode_extended(&b, oid, NULL, 0, 0, werr) != 0 ||
	         ldb_reqset_build_fixed(set, b.data, b.len) != 0;
	ldb_bytes_free(&b);
	if (rc != 0)
		snprintf(err, cap, "cannot encode %s request", what);
	return rc ? -1 : 0;
}

/* --op-log, --server-log: the tag every connection sends first (run/conn.c),
 * a base search of the root DSE that both servers log with its filter; its
 * run id from the clock and the process, its connection number patched in
 * per connection. */
static int build_tag(struct ldb_run *run, char *err, size_t cap)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	run->run_id = (uint32_t)((uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16));
	char filter[64], head[32];
	int hn = snprintf(head, sizeof head, LDB_TAG_PREFIX "%08x-", run->run_id);
	snprintf(filter, sizeof filter, "(description=%s%0*d)", head, LDB_TAG_DIGITS, 0);
	static const char *const attrs[] = { "1.1", NULL };
	struct ldb_search_args a = { .base = "", .scope = 0, .filter = filter, .attrs = attrs };
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	const uint8_t *at = NULL;
	if (ldb_wire_encode_search(&b, &a, werr) == 0)
		at = memmem(b.data, b.len, head, (size_t)hn);
	if (at == NULL) {
		ldb_bytes_free(&b);
		snprintf(err, cap, "cannot encode the connections' tag");
		return -1;
	}
	run->tag_digits_at = (size_t)(at - b.data) + (size_t)hn;
	run->tag_len = b.len;
	run->tag_op = b.data; /* kept: freed by ldb_run_free */
	return 0;
}

/* The engine's settings of the load (struct ldb_run's, which the engine
 * reads instead of the configuration). */
static void engine_settings(struct ldb_run *run, const struct ldb_config *c)
{
	run->bindeach = c->bindeach;
	run->count_deref = c->deref_attr != NULL;
	run->referral_follow = (uint8_t)c->referral_follow;
	run->close_sock = c->close_sock;
	run->smooth_shutdown = c->smoothshutdown;
	run->held = c->held > 0;
	run->held_track = c->held > 0 || c->connect_rate > 0;
	run->source_addrs = c->nsrc > 0;
	run->nclients = c->threads;
	run->ramp_up_ns = c->ramp_up_ms * 1000000ULL;
	run->timeout_ns = (uint64_t)c->timeout_sec * 1000000000ULL;
}

int ldb_run_init(struct ldb_run *run, const struct ldb_config *c, char *err, size_t cap)
{
	memset(run, 0, sizeof *run);
	run->cfg = c;
	snprintf(run->line_prefix, sizeof run->line_prefix, "%s[%d]: ", c->progname, (int)getpid());
	run->line_fd = STDOUT_FILENO;
	ldb_target_of_config(&run->target, c);
	const struct ldb_target *t = &run->target;
	const char *host = t->host;
	int port = t->port;
	LDAPURLDesc *lud = NULL;
	if (t->uri != NULL) {
		if (ldap_url_parse(t->uri, &lud) != LDAP_URL_SUCCESS) {
			snprintf(err, cap, "bad URL '%s'", t->uri);
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
	run->bind_kind = LDB_OPS_WITH(connect_bind);
	run->bind_on_connect = c->bind_dn != NULL || c->binddn_file_n > 0 || c->sasl_mech != NULL;
	/* A bind must be alone on its connection (RFC 4511 4.2.1); parents
	 * are created as ldclt does, on one request at a time. */
	run->depth = c->depth;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] > 0 && ldb_ops[k]->pair && !c->mix)
			run->rename_pair = true;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (run->load_kind[k] && ldb_ops[k]->alone)
			run->depth = 1;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (run->load_kind[k] && ldb_ops[k]->parents && run->depth == 1)
			run->make_parents = true;
		if (run->load_kind[k] && !ldb_ops[k]->response)
			run->unanswered = true;
	}
	engine_settings(run, c);
	run->common_counter = c->range_low;
	if (c->rate > 0)
		run->rate_interval_ns = (uint64_t)(1e9 * (double)c->threads / c->rate);
	run->rate_step_ns = run->rate_interval_ns;
	run->measuring = c->warmup_ms == 0 && c->warmup_samples == 0;

	if (ldb_ops_prepare(&run->ops, c, run->load_kind, err, cap) != 0)
		return -1;
	if (run->ops.sasl.mech != LDB_SASL_NONE)
		sasl_host(run, run->ops.sasl.host, sizeof run->ops.sasl.host);
	run->writes = run->ops.scratch;
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN];
	if (ldb_wire_encode_unbind(&b, werr) != 0 || ldb_reqset_build_fixed(&run->unbind, b.data, b.len) != 0) {
		ldb_bytes_free(&b);
		snprintf(err, cap, "cannot encode an unbind request");
		return -1;
	}
	ldb_bytes_free(&b);
	/* a run with a kind that gets no answer ends each connection with a WhoAmI
	 * (RFC 4532) and its answer: slapd works a connection's requests in order
	 * and drops the ones still queued when the Unbind comes */
	if (run->unanswered && fixed_extended(&run->marker, WHOAMI_OID, "a WhoAmI", err, cap) != 0)
		return -1;
	if (run->target.starttls && fixed_extended(&run->starttls, LDB_STARTTLS_OID, "a StartTLS", err, cap) != 0)
		return -1;
	if (ldb_target_tls(&run->target) && ldb_tls_new(&run->tls, &run->target.tls, err, cap) != 0)
		return -1;
	if ((c->oplog_path != NULL || c->nserver_log > 0) && !c->scalab01 && build_tag(run, err, cap) != 0)
		return -1;
	return 0;
}

void ldb_run_free(struct ldb_run *run)
{
	ldb_ops_free(&run->ops);
	ldb_reqset_free(&run->unbind);
	ldb_reqset_free(&run->starttls);
	ldb_reqset_free(&run->marker);
	free(run->tag_op);
	run->tag_op = NULL;
	if (run->tls != NULL)
		ldb_tls_free(run->tls);
	run->tls = NULL;
}
