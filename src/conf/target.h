/* struct ldb_target: the one description of the server a command talks to,
 * its address, its TLS and who binds there.  The load fills it from its
 * configuration (ldb_target_of_config), the replay from its own options; the
 * load's I/O threads (run/setup), the replay, the side connections
 * (side/ldapconn: --monitor, the pre-flight check, -S, scalab01) read it,
 * and the TLS backends (run/tls.h) take its TLS settings alone.  The strings
 * point into the owner's storage (the configuration, argv): never freed here. */
#ifndef LDBENCH_CONF_TARGET_H
#define LDBENCH_CONF_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* The library of the load's TLS (--tls-library; side connections are libldap's).
 * PREFERRED: the one used when neither --tls-library nor LDBENCH_TLS_LIBRARY
 * names one, the one whose client handshake costs less (docs/design.md). */
enum { LDB_TLS_LIB_DEFAULT = 0, LDB_TLS_LIB_OPENSSL = 1, LDB_TLS_LIB_GNUTLS = 2 };
#define LDB_TLS_LIB_PREFERRED LDB_TLS_LIB_GNUTLS

/* What a TLS context is built from (run/tls.h's ldb_tls_new). */
struct ldb_tls_settings {
	const char *cacert;     /* --tls-cacert FILE (PEM), NULL: none */
	const char *cacertdir;  /* --tls-cacertdir DIR (c_rehash'ed) */
	const char *cert, *key; /* --tls-cert / --tls-key (PEM client certificate) */
	const char *ciphers;    /* --tls-ciphers: OpenSSL's TLS 1.2 cipher list */
	int min;                /* --tls-min: 0 = the library's default, 12 = TLS 1.2, 13 = TLS 1.3 */
	bool insecure;          /* no server certificate check */
	bool resume;            /* --tls-resume: offer the worker's last session */
	int library;            /* LDB_TLS_LIB_*: settled by ldb_target_check_tls */
	const char *name;       /* the host name or address the certificate must name */
};

struct ldb_target {
	const char *uri;  /* -H as given (side connections use it as is), NULL: host and port */
	const char *host; /* NULL: localhost */
	int port;
	bool ldaps;    /* TLS from the first byte */
	bool starttls; /* StartTLS on each ldap:// connection */
	struct ldb_tls_settings tls;
	/* who binds: a simple bind's DN and password, or -o mech's */
	const char *bind_dn, *password;
	const char *sasl_mech, *sasl_authid, *sasl_authzid, *sasl_realm;
	int timeout_s; /* the side connections' connect and handshake (and -t's operations) */
};

/* Whether the target's connections run TLS (ldaps or StartTLS). */
static inline bool ldb_target_tls(const struct ldb_target *t)
{
	return t->ldaps || t->starttls;
}

/* A library's name ("openssl", "gnutls") as LDB_TLS_LIB_*, LDB_TLS_LIB_DEFAULT
 * when it names neither. */
int ldb_tls_library_of(const char *name);

/* The TLS options against each other and the library, the checks the load's
 * command line and the replay's share: --starttls with ldaps, a TLS option
 * (first_opt, "--tls-cacert"; NULL: none given) without TLS, --tls-cert
 * without --tls-key, and the library settled (--tls-library, else OpenSSL
 * for --tls-ciphers, else LDBENCH_TLS_LIBRARY, else the preferred one).
 * The messages name ldaps as ldaps_is ("--starttls and ldaps_is exclude each
 * other") and its options as ldaps_ways ("give ldaps_ways or --starttls").
 * @return 0, or -1 with one line in err. */
int ldb_target_check_tls(struct ldb_target *t, const char *first_opt, const char *ldaps_is, const char *ldaps_ways,
                         char *err, size_t cap);

#endif
