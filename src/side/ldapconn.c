/* Side connections: see ldapconn.h. */
#include "side/ldapconn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/sasl.h"
#include "values/pattern.h"

static bool is_ldaps(const char *url)
{
	return strncasecmp(url, "ldaps://", 8) == 0;
}

static bool is_ldap(const char *url)
{
	return strncasecmp(url, "ldap://", 7) == 0;
}

/* The URL: a URL as given; HOST[:PORT] with the run's scheme (ldaps with -Z
 * or -H ldaps://) and, without a port, o->port or -p's. */
static int side_url(const struct ldb_target *c, const struct ldb_side_opts *o, char *url, size_t cap)
{
	const char *scheme = c->ldaps ? "ldaps" : "ldap";
	int w;
	if (o->server == NULL && c->uri != NULL)
		w = snprintf(url, cap, "%s", c->uri);
	else if (o->server == NULL)
		w = snprintf(url, cap, "%s://%s:%d", scheme, c->host != NULL ? c->host : "localhost", c->port);
	else if (strstr(o->server, "://") != NULL)
		w = snprintf(url, cap, "%s", o->server);
	else if (strchr(o->server, ':') != NULL)
		w = snprintf(url, cap, "%s://%s", scheme, o->server);
	else
		w = snprintf(url, cap, "%s://%s:%d", scheme, o->server, o->port > 0 ? o->port : c->port);
	return w > 0 && (size_t)w < cap ? 0 : -1;
}

/* The host of a URL, for the lines (no allocation: into buf). */
static const char *url_host(const char *url, char *buf, size_t cap)
{
	const char *h = strstr(url, "://");
	h = h != NULL ? h + 3 : url;
	size_t n = strcspn(h, h[0] == '[' ? "]" : ":/");
	snprintf(buf, cap, "%.*s%s", (int)n, h, h[0] == '[' ? "]" : "");
	return buf;
}

static int set_opt(struct ldb_side *s, int opt, const void *val, const char *name, char *err, size_t cap)
{
	int rc = ldap_set_option(s->ld, opt, val);
	if (rc == LDAP_OPT_SUCCESS)
		return 0;
	s->rc = rc;
	s->fail = LDB_SIDE_SETUP;
	snprintf(err, cap, "cannot set %s for %s: %s", name, s->url, ldap_err2string(rc));
	return -1;
}

/* TLS settings of this connection's own, as the load's (run/tls): the CA,
 * the client certificate, the floor, the verification; then its own
 * context.  None of ldap.conf's: each is set, to NULL when not given. */
static int set_tls(struct ldb_side *s, const struct ldb_target *c, bool verify, char *err, size_t cap)
{
	int req = verify ? LDAP_OPT_X_TLS_DEMAND : LDAP_OPT_X_TLS_NEVER, client = 0;
	int floor = c->tls.min == 13   ? LDAP_OPT_X_TLS_PROTOCOL_TLS1_3
	            : c->tls.min == 12 ? LDAP_OPT_X_TLS_PROTOCOL_TLS1_2
	                               : 0;
	if (set_opt(s, LDAP_OPT_X_TLS_REQUIRE_CERT, &req, "the certificate check", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_X_TLS_CACERTFILE, c->tls.cacert, "--tls-cacert", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_X_TLS_CACERTDIR, c->tls.cacertdir, "--tls-cacertdir", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_X_TLS_CERTFILE, c->tls.cert, "--tls-cert", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_X_TLS_KEYFILE, c->tls.key, "--tls-key", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_X_TLS_PROTOCOL_MIN, &floor, "--tls-min", err, cap) != 0)
		return -1;
	/* the context of this connection: nothing shared with another one */
	return set_opt(s, LDAP_OPT_X_TLS_NEWCTX, &client, "a TLS context", err, cap);
}

static int init_handle(struct ldb_side *s, const struct ldb_target *c, const struct ldb_side_opts *o, bool verify,
                       char *err, size_t cap)
{
	int rc = ldap_initialize(&s->ld, s->url);
	if (rc != LDAP_SUCCESS) {
		s->ld = NULL;
		s->rc = rc;
		s->fail = LDB_SIDE_SETUP;
		snprintf(err, cap, "cannot use %s: %s", s->url, ldap_err2string(rc));
		return -1;
	}
	int version = o->v2 ? LDAP_VERSION2 : LDAP_VERSION3;
	int secs = o->net_timeout_s > 0 ? o->net_timeout_s : c->timeout_s;
	struct timeval net = { (time_t)(secs > 0 ? secs : 30), 0 };
	if (set_opt(s, LDAP_OPT_PROTOCOL_VERSION, &version, "the protocol version", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_REFERRALS, LDAP_OPT_OFF, "no referral chasing", err, cap) != 0 ||
	    set_opt(s, LDAP_OPT_NETWORK_TIMEOUT, &net, "the connect timeout", err, cap) != 0)
		return -1;
	/* -t bounds every operation (ldclt's synchronous ones have none) */
	if (o->op_timeout && c->timeout_s > 0 && set_opt(s, LDAP_OPT_TIMEOUT, &net, "-t", err, cap) != 0)
		return -1;
	if ((is_ldaps(s->url) || (c->starttls && is_ldap(s->url))) && set_tls(s, c, verify, err, cap) != 0)
		return -1;
	return 0;
}

static void drop(struct ldb_side *s)
{
	if (s->ld != NULL)
		ldap_unbind_ext_s(s->ld, NULL, NULL);
	s->ld = NULL;
}

/* Connect, and StartTLS when the run uses it.  @return libldap's code. */
static int connect_secure(struct ldb_side *s, const struct ldb_target *c)
{
	int rc = ldap_connect(s->ld);
	if (rc == LDAP_SUCCESS && c->starttls && is_ldap(s->url)) {
		s->starttls = true;
		rc = ldap_start_tls_s(s->ld, NULL, NULL);
	}
	return rc;
}

/* Would the same connection work without verifying the certificate?  Then
 * the certificate is what failed (libldap does not say why). */
static bool works_unverified(const struct ldb_side *s, const struct ldb_target *c, const struct ldb_side_opts *o)
{
	struct ldb_side t = { .ld = NULL };
	char err[256];
	memcpy(t.url, s->url, sizeof t.url);
	bool ok = init_handle(&t, c, o, false, err, sizeof err) == 0 && connect_secure(&t, c) == LDAP_SUCCESS;
	drop(&t);
	return ok;
}

/* Can a TCP connection be made at all (ldaps: the same address, no TLS)? */
static bool reachable(const struct ldb_side *s, const struct ldb_target *c, const struct ldb_side_opts *o)
{
	struct ldb_side t = { .ld = NULL };
	char err[256];
	snprintf(t.url, sizeof t.url, "ldap://%s", strstr(s->url, "://") + 3);
	struct ldb_target plain = *c;
	plain.starttls = false;
	bool ok = init_handle(&t, &plain, o, false, err, sizeof err) == 0 && ldap_connect(t.ld) == LDAP_SUCCESS;
	drop(&t);
	return ok;
}

/* Where the CAs come from, for the line. */
static void trust_source(const struct ldb_target *c, char *buf, size_t cap)
{
	if (c->tls.cacert != NULL)
		snprintf(buf, cap, "--tls-cacert %s", c->tls.cacert);
	else if (c->tls.cacertdir != NULL)
		snprintf(buf, cap, "--tls-cacertdir %s", c->tls.cacertdir);
	else
		snprintf(buf, cap, "the system's CAs");
}

/* A connect or StartTLS that failed: which, and why, in one line. */
static void connect_failed(struct ldb_side *s, const struct ldb_target *c, const struct ldb_side_opts *o, int rc,
                           char *err, size_t cap)
{
	char *diag = NULL, host[256], ca[600];
	ldap_get_option(s->ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &diag);
	bool tls =
	        (s->starttls && rc == LDAP_CONNECT_ERROR) || (is_ldaps(s->url) && !s->starttls && reachable(s, c, o));
	s->rc = rc;
	s->fail = tls ? LDB_SIDE_TLS : s->starttls && rc != LDAP_SERVER_DOWN ? LDB_SIDE_BIND : LDB_SIDE_CONNECT;
	url_host(s->url, host, sizeof host);
	trust_source(c, ca, sizeof ca);
	if (tls && !c->tls.insecure && diag != NULL && strstr(diag, "hostname") != NULL)
		snprintf(err, cap, "cannot connect to %s (TLS): certificate verify failed: %s", s->url, diag);
	else if (tls && !c->tls.insecure && works_unverified(s, c, o))
		snprintf(err, cap,
		         "cannot connect to %s (TLS): certificate verify failed: the server certificate is not "
		         "signed by %s or not issued for %s",
		         s->url, ca, host);
	else if (tls)
		snprintf(err, cap, "cannot connect to %s (TLS): handshake failed (%s)", s->url,
		         diag != NULL && diag[0] != '\0' ? diag : ldap_err2string(rc));
	else if (s->fail == LDB_SIDE_BIND)
		snprintf(err, cap, "StartTLS refused by %s: %s", s->url, ldap_err2string(rc));
	else
		snprintf(err, cap, "cannot connect to %s: %s", s->url, ldap_err2string(rc));
	ldap_memfree(diag);
}

/* A simple bind, or the load's SASL mechanism (EXTERNAL: the client
 * certificate's identity, an authzid if asked; PLAIN: authzid NUL authid NUL
 * password, RFC 4616), in one step as the load sends them. */
static int bind_as(LDAP *ld, const struct ldb_side_who *w)
{
	const char *pw = w->password != NULL ? w->password : "";
	if (w->mech == NULL) {
		struct berval cred = { strlen(pw), (char *)pw };
		return ldap_sasl_bind_s(ld, w->dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
	}
	const char *z = w->authzid != NULL ? w->authzid : "";
	if (strcmp(w->mech, "EXTERNAL") == 0) {
		struct berval cred = { strlen(z), (char *)z };
		return ldap_sasl_bind_s(ld, NULL, w->mech, w->authzid != NULL ? &cred : NULL, NULL, NULL, NULL);
	}
	const char *id = w->authid != NULL ? w->authid : "";
	size_t zl = strlen(z), il = strlen(id), pl = strlen(pw);
	char *buf = malloc(zl + il + pl + 2);
	if (buf == NULL)
		return LDAP_NO_MEMORY;
	memcpy(buf, z, zl);
	buf[zl] = '\0';
	memcpy(buf + zl + 1, id, il);
	buf[zl + 1 + il] = '\0';
	memcpy(buf + zl + il + 2, pw, pl);
	struct berval cred = { zl + il + pl + 2, buf };
	int rc = ldap_sasl_bind_s(ld, NULL, w->mech, &cred, NULL, NULL, NULL);
	free(buf);
	return rc;
}

int ldb_side_open(struct ldb_side *s, const struct ldb_target *c, const struct ldb_side_opts *o, char *err, size_t cap)
{
	memset(s, 0, sizeof *s);
	if (side_url(c, o, s->url, sizeof s->url) != 0) {
		s->fail = LDB_SIDE_SETUP;
		snprintf(err, cap, "the address %.200s is too long", o->server != NULL ? o->server : c->host);
		return -1;
	}
	if (init_handle(s, c, o, !c->tls.insecure, err, cap) != 0) {
		drop(s);
		return -1;
	}
	int rc = connect_secure(s, c);
	if (rc != LDAP_SUCCESS) {
		connect_failed(s, c, o, rc, err, cap);
		drop(s);
		return -1;
	}
	const struct ldb_side_who *w = o->who;
	if (w == NULL || (w->dn == NULL && w->mech == NULL))
		return 0;
	rc = bind_as(s->ld, w);
	if (rc == LDAP_SUCCESS)
		return 0;
	s->rc = rc;
	s->fail = rc == LDAP_SERVER_DOWN ? LDB_SIDE_CONNECT : LDB_SIDE_BIND;
	if (w->mech != NULL)
		snprintf(err, cap, "SASL %s bind refused by %s: %s", w->mech, s->url, ldap_err2string(rc));
	else
		snprintf(err, cap, "bind as %s refused by %s: %s", w->dn, s->url, ldap_err2string(rc));
	drop(s);
	return -1;
}

void ldb_side_close(struct ldb_side *s)
{
	drop(s);
}

bool ldb_side_run_who(const struct ldb_config *c, struct ldb_side_who *w)
{
	memset(w, 0, sizeof *w);
	if (c->sasl_mech != NULL) {
		/* a multi-step mechanism's exchange is the load's (proto/sasl): a side
		 * connection reads anonymously then, as with an XXX */
		if (c->randomauthid || ldb_pattern_has_var(&c->sasl_authid_pat) || c->sasl_authid_pat.vp != NULL ||
		    c->password_pat.vp != NULL || ldb_sasl_mech_lookup(c->sasl_mech) != LDB_SASL_NONE)
			return false;
		*w = (struct ldb_side_who){ .mech = c->sasl_mech,
			                    .authid = c->sasl_authid,
			                    .authzid = c->sasl_authzid,
			                    .password = c->password };
		return true;
	}
	/* an identity that varies (an XXX, a value pattern in -D or -w): anonymously */
	if (c->bind_dn == NULL || ldb_pattern_has_var(&c->bind_dn_pat) || c->bind_dn_pat.vp != NULL ||
	    c->password_pat.vp != NULL)
		return false;
	*w = (struct ldb_side_who){ .dn = c->bind_dn, .password = c->password };
	return true;
}

int ldb_side_exit_status(enum ldb_side_fail f)
{
	return f == LDB_SIDE_SETUP ? LDB_EXIT_INIT : f == LDB_SIDE_OK ? LDB_EXIT_OK : LDB_EXIT_CANNOT_BIND;
}
