/* struct ldb_config: everything a run needs, filled by the command line parser
 * (cli.c), checked there, and read-only once the workers start. */
#ifndef LDBENCH_CONFIG_H
#define LDBENCH_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ldbench/pattern.h"

/* Operation kinds: one set of counters and one histogram each. */
enum ldb_op {
	LDB_OP_SEARCH,
	LDB_OP_BIND,
	LDB_OP_ADD,
	LDB_OP_MODIFY,
	LDB_OP_DELETE,
	LDB_OP_RENAME,
	LDB_OP_COMPARE,
	LDB_OP_COUNT
};
const char *ldb_op_name(enum ldb_op op); /* "search", "bind", ... */

/* ldclt's exit statuses (and ldbench's new ones, never reused). */
enum ldb_exit {
	LDB_EXIT_OK = 0,
	LDB_EXIT_PARAMS = 2,
	LDB_EXIT_MAX_ERRORS = 3,
	LDB_EXIT_CANNOT_BIND = 4,
	LDB_EXIT_INIT = 7,
	LDB_EXIT_OTHER = 99
};
const char *ldb_exit_text(int status); /* "No problem during execution." ... */
/* Same, but status 7 names the program: "Cannot initialize ldclt." when
 * progname is "ldclt", "Cannot initialize ldbench." otherwise. */
const char *ldb_exit_text_prog(int status, const char *progname);

#define LDB_MAX_IGNORE 20
#define LDB_MAX_ATTRS 40

/* -e value generation mode for the XXX of -f (and of the add/delete RDN). */
enum ldb_valmode { LDB_VAL_FIXED, LDB_VAL_RANDOM, LDB_VAL_INCR };

struct ldb_config {
	const char *progname;      /* basename of argv[0]: "ldbench", or "ldclt" via a link */
	char *cmdline;             /* the command line with any password masked (for -v) */

	/* where */
	char *host;                /* -h, default "localhost" */
	int port;                  /* -p, default 389 */
	char *uri;                 /* -H ldap://host:port (overrides -h/-p) */
	bool ldaps;                /* ldaps:// scheme (TLS issue) */
	char *tls_certdb;          /* -Z path as given (ldclt's NSS db; TLS issue) */

	/* who */
	char *bind_dn;             /* -D, NULL = anonymous, no bind sent */
	char *password;            /* -w / -y / LDBENCH_PASSWORD; never printed */
	struct ldb_pattern bind_dn_pat, password_pat;  /* XXX with randombinddn */

	/* what */
	char *base;                /* -b, default "dc=example,dc=com" */
	struct ldb_pattern base_pat;
	char *filter;              /* -f */
	struct ldb_pattern filter_pat;
	int scope;                 /* -s: LDB_SCOPE_*, default subtree */
	char *attrs[LDB_MAX_ATTRS + 1]; /* attrlist= / randomattrlist=, NULL-terminated */
	int nattrs;
	bool random_attrlist;
	int attrsonly;             /* attrsonly=0|1 */
	long long expect_entries;  /* srchnentries=N; -1 = not checked */

	/* operations (-e) */
	bool op_esearch, op_bindonly;
	bool bindeach, close_sock; /* bindeach, close */
	bool counteach;

	/* values */
	enum ldb_valmode valmode;  /* random / incr */
	long long range_low, range_high;   /* -r / -R; -1 = unset */
	long long incr_step;       /* incr=N, default 1 */
	bool commoncounter, noloop, zeropad;
	bool randombinddn;
	long long binddn_low, binddn_high;
	char *binddn_file;         /* randombinddnfromfile= */
	char **binddn_file_dns, **binddn_file_pws; /* loaded at start-up */
	size_t binddn_file_n;
	bool randombase;
	long long base_low, base_high;

	/* how much, how fast */
	int threads;               /* -n, default 10 */
	int conns_per_thread;      /* --connections-per-thread, default 1 */
	int io_threads;            /* --io-threads: OS threads carrying the -n clients; 0 = min(-n, CPUs) */
	int depth;                 /* -a N: requests in flight per connection; default 1 */
	long long samples;         /* -N, -1 = no limit */
	long long ops_per_thread;  /* -T, -1 = no limit */
	int wait_sec;              /* -W */
	int timeout_sec;           /* -t, default 30 */
	int inactivity;            /* -i, default 3 */
	long long max_errors;      /* -E, default 1000 */
	int ignore[LDB_MAX_IGNORE];/* -I codes */
	int nignore;
	uint64_t interval_ms;      /* sampinterval= / --interval, default 10000 */
	uint64_t seed;             /* --seed, or fresh */
	bool seed_given;

	/* output */
	int verbose;               /* -v 1, -V 2 */
	bool quiet, super_quiet;   /* -q, -Q */
	bool timestamp;            /* timestamp[=fmt] */
	char *timestamp_fmt;       /* default "%s" */
	bool noglobalstats, smoothshutdown, dontsleeponserverdown;
};

void ldb_config_init(struct ldb_config *c);   /* ldclt's defaults */
void ldb_config_free(struct ldb_config *c);
/* The -v block ("Host to connect    = ..."), ldclt's layout; never the password. */
void ldb_config_print(const struct ldb_config *c, FILE *out);
bool ldb_config_ignored(const struct ldb_config *c, int code);

#endif
