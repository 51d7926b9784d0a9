/* The target's checks the load's command line and the replay's share. */
#include "conf/target.h"
#include "conf/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ldb_tls_library_of(const char *name)
{
	if (strcmp(name, "openssl") == 0)
		return LDB_TLS_LIB_OPENSSL;
	if (strcmp(name, "gnutls") == 0)
		return LDB_TLS_LIB_GNUTLS;
	return LDB_TLS_LIB_DEFAULT;
}

/* --tls-library, else OpenSSL for --tls-ciphers (an OpenSSL cipher list),
 * else LDBENCH_TLS_LIBRARY, else the preferred one. */
static int settle_library(struct ldb_tls_settings *s, char *err, size_t cap)
{
	const char *env = getenv("LDBENCH_TLS_LIBRARY");

	if (s->library == LDB_TLS_LIB_GNUTLS && s->ciphers != NULL) {
		snprintf(err, cap, "--tls-ciphers is an OpenSSL cipher list: not with --tls-library gnutls");
		return -1;
	}
	if (s->library != LDB_TLS_LIB_DEFAULT)
		return 0;
	if (s->ciphers != NULL) {
		s->library = LDB_TLS_LIB_OPENSSL;
		return 0;
	}
	if (env != NULL && env[0] != '\0') {
		if ((s->library = ldb_tls_library_of(env)) == LDB_TLS_LIB_DEFAULT) {
			snprintf(err, cap, "LDBENCH_TLS_LIBRARY '%s': must be openssl or gnutls", env);
			return -1;
		}
		return 0;
	}
	s->library = LDB_TLS_LIB_PREFERRED;
	return 0;
}

int ldb_target_check_tls(struct ldb_target *t, const char *first_opt, const char *ldaps_is, const char *ldaps_ways,
                         char *err, size_t cap)
{
	if (t->starttls && t->ldaps) {
		snprintf(err, cap, "--starttls and %s exclude each other: ldaps is TLS from the first byte", ldaps_is);
		return -1;
	}
	if (first_opt != NULL && !ldb_target_tls(t)) {
		snprintf(err, cap, "%s needs TLS: give %s or --starttls", first_opt, ldaps_ways);
		return -1;
	}
	if ((t->tls.cert == NULL) != (t->tls.key == NULL)) {
		snprintf(err, cap, "--tls-cert and --tls-key go together");
		return -1;
	}
	if (ldb_target_tls(t) && settle_library(&t->tls, err, cap) != 0)
		return -1;
	if (t->tls.name == NULL)
		t->tls.name = t->host != NULL ? t->host : "localhost";
	return 0;
}

void ldb_target_of_config(struct ldb_target *t, const struct ldb_config *c)
{
	*t = (struct ldb_target){ .uri = c->uri,
		                  .host = c->host,
		                  .port = c->port,
		                  .ldaps = c->ldaps,
		                  .starttls = c->starttls,
		                  .tls = { .cacert = c->tls_cacert,
		                           .cacertdir = c->tls_cacertdir,
		                           .cert = c->tls_cert,
		                           .key = c->tls_key,
		                           .ciphers = c->tls_ciphers,
		                           .min = c->tls_min,
		                           .insecure = c->tls_insecure,
		                           .resume = c->tls_resume,
		                           .library = c->tls_library,
		                           .name = c->host != NULL ? c->host : "localhost" },
		                  .bind_dn = c->bind_dn,
		                  .password = c->password,
		                  .sasl_mech = c->sasl_mech,
		                  .sasl_authid = c->sasl_authid,
		                  .sasl_authzid = c->sasl_authzid,
		                  .sasl_realm = c->sasl_realm,
		                  .timeout_s = c->timeout_sec };
}
