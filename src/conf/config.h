/* struct ldb_config: everything a run needs, filled by the command line parser
 * (src/cli/), checked there, and read-only once the workers start. */
#ifndef LDBENCH_CONF_CONFIG_H
#define LDBENCH_CONF_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "values/objtmpl.h"
#include "values/pattern.h"
#include "conf/fail_if_types.h"
#include "conf/target.h"

#define LDB_SRC_MAX 16 /* --source-address: addresses at most */

/* --listen-kind */
enum { LDB_LISTEN_SYNC = 0, LDB_LISTEN_PSEARCH = 1 };

#define LDB_FLOW_STEPS 8 /* the most steps of a general flow (--step) */
#define LDB_FLOW_SLOTS 8 /* flows in one run: one per workload, in up to this many workloads */

/* Operation kinds: one set of counters and one histogram each; one row each
 * in ops/ops.h's table, which says everything else about them. */
enum ldb_op {
	LDB_OP_SEARCH,
	LDB_OP_BIND,
	LDB_OP_ADD,
	LDB_OP_MODIFY,
	LDB_OP_DELETE,
	LDB_OP_RENAME,
	LDB_OP_COMPARE,
	LDB_OP_ABANDON,
	LDB_OP_PASSMOD,      /* RFC 3062 password modify */
	LDB_OP_WHOAMI,       /* RFC 4532 Who am I? */
	LDB_OP_EXTENDED,     /* any extended request, by OID */
	LDB_OP_LOGIN,        /* a login flow: search the user, bind as the DN found (ops/login.c) */
	LDB_OP_LOGIN_GROUPS, /* the login's group step, also on a row of its own (ops/login.c) */
	LDB_OP_FLOW,         /* the general flows (--flow, --step; ops/flow.c): LDB_FLOW_SLOTS of them, each
	                      * a flow row and its LDB_FLOW_STEPS step rows (LDB_OP_FLOW_ROW, LDB_OP_FLOW_STEP) */
	LDB_OP_COUNT = LDB_OP_FLOW + LDB_FLOW_SLOTS * (1 + LDB_FLOW_STEPS)
};
/* Flow slot sl's row (its flows), and its step i's (0-based) */
#define LDB_OP_FLOW_ROW(sl) (LDB_OP_FLOW + (sl) * (1 + LDB_FLOW_STEPS))
#define LDB_OP_FLOW_STEP(sl, i) (LDB_OP_FLOW_ROW(sl) + 1 + (i))

enum ldb_think { LDB_THINK_NONE, LDB_THINK_CONSTANT, LDB_THINK_UNIFORM, LDB_THINK_EXPONENTIAL };

/* ldclt's exit statuses (and ldbench's new ones, never reused). */
enum ldb_exit {
	LDB_EXIT_OK = 0,
	LDB_EXIT_PARAMS = 2,
	LDB_EXIT_MAX_ERRORS = 3,
	LDB_EXIT_CANNOT_BIND = 4,
	LDB_EXIT_INIT = 7,
	LDB_EXIT_THRESHOLD = 10,     /* a --fail-if threshold held (ldbench's own) */
	LDB_EXIT_PREFLIGHT = 11,     /* the pre-flight check: the range does not match the data */
	LDB_EXIT_NO_CAPACITY = 12,   /* --find-max: no step's rate met the objective */
	LDB_EXIT_NOT_EVALUATED = 13, /* a --fail-if threshold's figure could not be obtained (never a pass) */
	LDB_EXIT_NO_JOIN = 14,       /* --server-log: the run could not be joined with the server's log */
	LDB_EXIT_NO_LISTEN = 15,     /* --listeners: the server refused the sync or persistent search */
	LDB_EXIT_OTHER = 99
};
const char *ldb_exit_text(int status); /* "No problem during execution." ... */
/* Same, but status 7 names the program: "Cannot initialize ldclt." when
 * progname is "ldclt", "Cannot initialize ldbench." otherwise. */
const char *ldb_exit_text_prog(int status, const char *progname);
/* The version line: "ldbench version 0.1.0", or through a link named ldclt
 * "ldclt version 4.23 (ldbench 0.1.0)", so that what greps for ldclt's
 * version keeps finding one. */
void ldb_version_line(char *buf, size_t cap, const char *progname);

#define LDB_MAX_IGNORE 20
#define LDB_MAX_ATTRS 40
#define LDB_MAX_DEPTH 1024 /* -a, at most */

/* Object classes of -e add without object= (ldclt's person, emailPerson, inetOrgPerson). */
enum { LDB_CLASS_NONE, LDB_CLASS_PERSON, LDB_CLASS_EMAILPERSON, LDB_CLASS_INETORGPERSON };

/* -e referral=: not followed (the default, and off), followed anonymously, with -D/-w */
enum { LDB_REFERRAL_NONE, LDB_REFERRAL_ON, LDB_REFERRAL_REBIND };

/* Value patterns one run may hold (base, filter, bind DN, password, authid,
 * modify values, compare value). */
#define LDB_VPATS_MAX 16

/* -e value generation mode for the XXX of -f (and of the add/delete RDN). */
enum ldb_valmode { LDB_VAL_FIXED, LDB_VAL_RANDOM, LDB_VAL_INCR };

/* --rate-profile: one segment, the target rate going from `from` to `to`
 * (a hold when equal) over `ms`. */
struct ldb_rate_seg {
	double from, to; /* operations per second */
	uint64_t ms;
};

/* Request controls (cli/control_options.c parses them, ops/kind_controls.c encodes them
 * per kind once, run/issue.c appends them to every request of the load). */
#define LDB_MAX_CONTROLS 16
struct ldb_ctlspec { /* --control [KIND=]OID[:CRITICAL[:VALUE|::BASE64]] */
	char *oid;
	bool critical, has_value;
	uint8_t *value; /* owned */
	size_t vlen;
	int kind1; /* k + 1: kind k only; 0: every kind */
};
/* The named controls; a kind's row says which of them its requests carry. */
enum {
	LDB_CTLF_SORT = 1 << 0,        /* --sort-order (RFC 2891) */
	LDB_CTLF_ASSERTION = 1 << 1,   /* --assertion-filter (RFC 4528) */
	LDB_CTLF_PROXY = 1 << 2,       /* --proxy-as (RFC 4370) */
	LDB_CTLF_PREREAD = 1 << 3,     /* --pre-read-attribute (RFC 4527) */
	LDB_CTLF_POSTREAD = 1 << 4,    /* --post-read-attribute (RFC 4527) */
	LDB_CTLF_PERMISSIVE = 1 << 5,  /* --permissive-modify */
	LDB_CTLF_MANAGEDSAIT = 1 << 6, /* --manage-dsa-it (RFC 3296) */
	LDB_CTLF_SUBENTRIES = 1 << 7,  /* --rfc3672-subentries (RFC 3672) */
	LDB_CTLF_SESSION = 1 << 8,     /* --session-tracking (draft-wahl-ldap-session) */
	LDB_CTLF_PAGED = 1 << 9,       /* --simple-page-size (RFC 2696): a search is all its pages */
	LDB_CTLF_PPOLICY = 1 << 10,    /* --ppolicy (draft-behera-ldap-password-policy) on binds */
	LDB_CTLF_COUNT = 11
};
struct ldb_vp;
struct ldb_ctlcfg {
	struct ldb_ctlspec gen[LDB_MAX_CONTROLS]; /* --control, in order */
	int ngen;
	unsigned named;             /* LDB_CTLF_* given */
	char *sort_order;           /* UnboundID's: [+|-]ATTR[:RULE],... */
	char *assertion;            /* a filter */
	char *proxy_as;             /* the authorization identity, a value pattern */
	struct ldb_vp *proxy_vp;    /* compiled once (cli) */
	char *pre_read, *post_read; /* ATTR,ATTR... (repeated options joined) */
	bool subentries;            /* the visibility */
	char *session_id;           /* the session tracking identifier */
	int page_size;              /* --simple-page-size: entries a page; 0: no paging */
};

/* The live metrics' settings (report/metrics, docs/metrics.md), the load's
 * configuration's and the replay's (cli/metrics_options.c parses both). */
struct ldb_metrics_settings {
	const char *listen; /* --metrics-listen [ADDR:]PORT as given (argv), NULL without */
	char addr[64];      /* its numeric address, 127.0.0.1 by default */
	int port;           /* its port */
	uint64_t linger_ms; /* --metrics-linger: kept up this long after the run */
	bool linger_set;
	const char *push; /* --metrics-push URL (argv), NULL without */
};

struct ldb_config {
	const char *progname; /* basename of argv[0]: "ldbench", or "ldclt" via a link */
	char *cmdline;        /* the command line with any password masked (for -v) */

	/* where */
	char *host;       /* -h, default "localhost" */
	int port;         /* -p, default 389 */
	char *uri;        /* -H ldap://host:port (overrides -h/-p) */
	bool ldaps;       /* ldaps:// scheme (TLS issue) */
	char *tls_certdb; /* -Z path as given (ldclt's NSS db; TLS issue) */
	/* TLS (tls.c; set once before the workers start) */
	bool starttls;            /* --starttls: StartTLS on each ldap:// connection */
	char *tls_cacert;         /* --tls-cacert FILE (PEM) */
	char *tls_cacertdir;      /* --tls-cacertdir DIR (c_rehash'ed) */
	char *tls_cert, *tls_key; /* --tls-cert / --tls-key (PEM client certificate) */
	char *tls_ciphers;        /* --tls-ciphers: OpenSSL's TLS 1.2 cipher list */
	int tls_min;              /* --tls-min: 0 = OpenSSL's default, 12 = TLS 1.2, 13 = TLS 1.3 */
	bool tls_insecure;        /* no server certificate check: --tls-insecure, or -Z without a CA */
	bool tls_resume;          /* --tls-resume: offer the worker's last session */
	bool tls_nssdb;           /* -Z named an NSS database (unreadable by OpenSSL) */
	int tls_library;          /* --tls-library: LDB_TLS_LIB_OPENSSL or LDB_TLS_LIB_GNUTLS (the cli settles it) */
	/* SASL (-o): EXTERNAL and PLAIN in one request (ops/request), CRAM-MD5,
	 * DIGEST-MD5, SCRAM-SHA-1 and SCRAM-SHA-256 as exchanges (proto/sasl) */
	char *sasl_mech;    /* the mechanism's name in upper case, NULL = simple bind (or anonymous) */
	char *sasl_authid;  /* -o authid= (the user of all but EXTERNAL); XXX with -e randomauthid */
	char *sasl_authzid; /* -o authzid= ("dn:..." or "u:..."), NULL = none */
	char *sasl_realm;   /* -o realm= (DIGEST-MD5's; EXTERNAL and PLAIN send none) */
	struct ldb_pattern sasl_authid_pat;
	bool randomauthid;                 /* -e randomauthid: its range is copied into binddn_low/high,
	                            * and the number patches LDB_FIELD_BINDDN (authid and -w XXX) */
	long long authid_low, authid_high; /* randomauthidlow/high; -1 = unset */

	/* who */
	char *bind_dn;                                /* -D, NULL = anonymous, no bind sent */
	char *password;                               /* -w / -y / LDBENCH_PASSWORD; never printed */
	struct ldb_pattern bind_dn_pat, password_pat; /* XXX with randombinddn */

	/* what */
	char *base; /* -b, default "dc=example,dc=com" */
	struct ldb_pattern base_pat;
	char *filter; /* -f */
	struct ldb_pattern filter_pat;
	int scope;                      /* -s: LDB_SCOPE_*, default subtree */
	char *attrs[LDB_MAX_ATTRS + 1]; /* attrlist= / randomattrlist=, NULL-terminated */
	int nattrs;
	bool random_attrlist;
	int attrsonly;            /* attrsonly=0|1 */
	int search_sizelimit;     /* the search's size limit: 0, none (the login flow's copy: 2) */
	long long expect_entries; /* srchnentries=N; -1 = not checked */

	/* operations: the kinds of ops/ops.h.  weight[k] > 0: the run does kind k
	 * (-e esearch, bindonly, add, delete, rename; --modify, -e attreplace...,
	 * --compare; --mix).  With --mix (mix) one kind is drawn per operation by
	 * weight; without, one operation is a pass through the kinds (weight 1) in
	 * ldclt's order (ldb_ops_pass). */
	int weight[LDB_OP_COUNT];
	bool mix;
	bool bindeach, close_sock; /* bindeach, close */
	bool counteach;

	/* the write kinds' options */
	int add_class;               /* LDB_CLASS_*: person, emailPerson, inetOrgPerson */
	char *object_file;           /* object=FILE */
	char *rdn_spec;              /* rdn=attr:value */
	struct ldb_objtmpl *objtmpl; /* compiled from object=/rdn= */
	bool withnewparent;
	char *new_parent;                   /* --new-parent DN: where rename,withnewparent moves entries */
	char *attreplace_attr;              /* attreplace=attr:mask (NULL: not given) */
	struct ldb_pattern attreplace_mask; /* its X run becomes random letters */
	char *attreplacefile_attr;          /* attreplacefile=attr:file (NULL: not given) */
	char *attreplacefile_data;
	size_t attreplacefile_len;
	struct ldb_modspec {
		int op; /* LDB_MOD_ADD / DELETE / REPLACE */
		char *attr;
		struct ldb_pattern val; /* XXX gets the operation's number */
	} mods[8];                      /* --modify OP:ATTR=PATTERN */
	int nmods;
	char *compare_attr; /* --compare ATTR=PATTERN */
	struct ldb_pattern compare_val;
	/* the values above that are value patterns (their vp set), in slot order:
	 * each client renders them from its own states (ops/request.h) */
	struct ldb_pattern *vpats[LDB_VPATS_MAX];
	int nvpats;
	bool delete_after_add; /* --delete-after-add */
	/* the extended operations' options (cli/extop_options.c; value patterns,
	 * compiled by the kinds' prepare, ops/passmod.c and ops/extended.c) */
	bool passmod, whoami;  /* --passmod, --whoami */
	char *passmod_user;    /* --passmod-user PATTERN: userIdentity (NULL: the bound user) */
	char *passmod_old;     /* --passmod-old PATTERN: oldPasswd (NULL: -w's when fixed) */
	char *passmod_new;     /* --passmod-new PATTERN: newPasswd (NULL: the old one again) */
	char *ext_oid;         /* --extended OID[:value|::base64]: the requestName */
	char *ext_value;       /* its value as given (a pattern, or base64 text); NULL: none */
	bool ext_value_base64; /* ext_value is base64 (OID::base64) */
	/* the login flow (--login, ops/login.c): -b and -f find the user; "" given is none */
	bool login;
	char *login_password;      /* --login-password VALUE|PATTERN: the bind's password */
	char *login_password_attr; /* --login-password-attr ATTR: the password from the entry found */
	char *login_groups;        /* --login-groups BASE: a third step, (member=DN) below BASE */
	/* --think-time DIST: each client's gap between the intended starts of its
	 * operations (flows), drawn per operation; the run is then open-loop at
	 * -n / mean (rate set from it) */
	uint8_t think_dist;                /* enum ldb_think */
	uint64_t think_lo_ns, think_hi_ns; /* constant: lo; uniform: lo..hi; exponential: lo the mean */
	int bad_password_bp;               /* --bad-password PCT%: the share of login binds with a wrong
	                            * password, in hundredths of a percent (0: none) */
	char *genldif_file;                /* genldif=FILE: write the entries instead of adding them */
	bool genldif_append;
	/* a general flow (--flow NAME, --step SPEC; ops/flow.c checks and builds it) */
	char *flow_name;                 /* NULL: none asked ("flow" with steps alone) */
	char *flow_step[LDB_FLOW_STEPS]; /* the steps as given */
	int flow_nsteps;
	int flow_slot; /* the rows it takes: LDB_OP_FLOW_ROW(flow_slot) and its steps; 0 without sections */

	/* values */
	enum ldb_valmode valmode;        /* random / incr */
	long long range_low, range_high; /* -r / -R; -1 = unset */
	long long incr_step;             /* incr=N, default 1 */
	bool commoncounter, noloop, zeropad;
	bool randombinddn;
	long long binddn_low, binddn_high;
	char *binddn_file;                         /* randombinddnfromfile= */
	char **binddn_file_dns, **binddn_file_pws; /* loaded at start-up */
	size_t binddn_file_n;
	bool randombase;
	long long base_low, base_high;

	/* how much, how fast */
	int threads;          /* -n, default 10 */
	int conns_per_thread; /* --connections-per-thread, default 1 */
	int io_threads;       /* --io-threads: OS threads carrying the -n clients; 0 = min(-n, CPUs) */
	/* held connections (run/held, docs/guide.md "Held connections") */
	int held;                /* --held: the -n given, counting connections (threads: one client per I/O thread) */
	double connect_rate;     /* --connect-rate N/s: the first connects at most this fast; 0: at once */
	uint64_t probe_every_ms; /* --probe-every T: with --held, each connection probed once per T on average */
	int nsrc;                /* --source-address: local addresses the connections bind to, in turn */
	struct {
		int family;             /* AF_INET or AF_INET6 */
		unsigned char addr[16]; /* its bytes, network order */
	} src[LDB_SRC_MAX];
	/* listeners for changes (run/listen.h, docs/guide.md "Listeners") */
	int listeners;               /* --listeners N: sync or persistent searches, each on its own connection */
	int listen_kind;             /* --listen-kind: LDB_LISTEN_SYNC, LDB_LISTEN_PSEARCH */
	char *listen_base;           /* --listen-base */
	char *listen_filter;         /* --listen-filter; NULL: (objectClass=*) */
	uint64_t listen_wait_ms;     /* --listen-wait: how long the end waits for notifications missing */
	uint64_t listen_pause_ms;    /* --listen-pause: the listeners stop reading this long mid-run; 0 never */
	uint64_t listen_baseline_ms; /* --listeners-baseline: the write load alone this long first; 0 none */
	char *listen_record;         /* --listen-record FILE: every notification (run/listen_rec.h) */
	char *listen_attr;           /* --listen-attr ATTR: the attribute a modify's value is read from */
	char *write_record;          /* --write-record FILE: every confirmed write (run/listen_rec.h) */
	bool listen_only;            /* --listeners with no load of their own (cmd/listen_only.c) */

	int depth;                  /* -a N: requests in flight per connection; default 1 */
	long long samples;          /* -N, -1 = no limit */
	long long ops_per_thread;   /* -T, -1 = no limit */
	int wait_sec;               /* -W */
	int timeout_sec;            /* -t, default 30 */
	int inactivity;             /* -i, default 3 */
	long long max_errors;       /* -E, default 1000 */
	int ignore[LDB_MAX_IGNORE]; /* -I codes */
	int nignore;
	uint64_t interval_ms;             /* sampinterval= / --interval, default 10000 */
	uint64_t warmup_ms;               /* --warmup DURATION: left out of every figure */
	long long warmup_samples;         /* --warmup Ns: that many sample intervals */
	uint64_t duration_ms;             /* --duration: measured time of the run (alternative to -N) */
	double rate;                      /* --rate OPS/s for the whole run, open loop; 0 = closed loop */
	int sweep[64];                    /* --sweep 1,2,4,...: thread counts, one run each */
	bool monitor;                     /* --monitor: the server's counters before and after */
	time_t start_at;                  /* --start-at: wall-clock start (several client hosts together); 0 = now */
	struct ldb_threshold fail_if[16]; /* --fail-if, checked on the summary */
	int nfail_if;
	int nsweep;
	uint64_t seed; /* --seed, or fresh */
	bool seed_given;

	/* capacity and the client's own limits (docs/capacity.md) */
	struct ldb_threshold find_max[8]; /* --find-max OBJECTIVE: what every step must meet */
	int nfind_max;
	double find_max_tolerance;         /* --find-max-tolerance: relative gap that ends the search (0.02) */
	int find_max_steps;                /* --find-max-steps: the budget of steps (default 12) */
	double find_max_start;             /* --find-max-start OPS: first step's rate; 0 = a closed-loop probe */
	uint64_t ramp_up_ms;               /* --ramp-up DURATION: the clients' first connects spread over it */
	struct ldb_rate_seg *rate_profile; /* --rate-profile: the target rate over time (owned) */
	int nrate_profile;
	bool rate_profile_repeat;

	/* output */
	int verbose;             /* -v 1, -V 2 */
	bool quiet, super_quiet; /* -q, -Q */
	bool timestamp;          /* timestamp[=fmt] */
	char *timestamp_fmt;     /* default "%s" */
	bool noglobalstats, smoothshutdown, dontsleeponserverdown;
	/* machine-readable records (docs/results.md); "-" = stdout, and then the text
	 * goes to stderr.  Both point into argv: not owned, never freed. */
	char *json_path; /* --json FILE: JSON lines */
	char *csv_path;  /* --csv FILE: one row per sample and kind */

	/* ldclt's value and protocol -e keywords (cli/keywords.c) */
	bool ldap_v2;       /* -e v2: binds say version 2 */
	bool rnd_string;    /* -e string: with random, -f's X run is random bytes */
	bool rnd_ascii;     /* -e ascii: those bytes are 7-bit */
	char *deref_attr;   /* -e deref[=attr:derefattr]: the control's attribute (NULL: off) */
	char *deref_target; /* the attribute read from the entry it names */
	bool referral_off;  /* -e referral=off: referrals counted, not followed (what ldbench does) */
	char *imagesdir;    /* -e imagesdir=DIR: jpegPhoto values of emailPerson/inetOrgPerson
	                     * adds, its files read at start-up (ops/add.c's prepare) */
	/* -e referral=on|rebind: follow referrals (run/chase.c) */
	int referral_follow; /* LDB_REFERRAL_* */

	/* -e scalab01: ldclt's modem-pool scenario (run/scalab01.c) */
	bool scalab01;
	int s1_cnxduration; /* scalab01_cnxduration=: a session's longest time (s), default 3600 */
	int s1_maxcnxnb;    /* scalab01_maxcnxnb=: the modem pool's size, default 5000 */
	int s1_wait;        /* scalab01_wait=: the longest sleep between attempts (s), default 10 */

	/* more result files (argv, not owned) */
	char *hdrlog_path;                   /* --hdr-log FILE: HdrHistogram interval log */
	char *html_path;                     /* --html FILE: the report page, written at the end */
	struct ldb_metrics_settings metrics; /* live metrics (report/metrics, docs/metrics.md) */
	/* the join with the server's access log (run/oplog, report/join) */
	char *oplog_path;    /* --op-log FILE: a record per operation */
	char *server_log[8]; /* --server-log FILE (several: rotated files, in any order) */
	int nserver_log;
	uint64_t join_wait_ms; /* --server-log-wait: how long the end waits for the log's last line */

	/* the pre-flight check (server/preflight): off with --no-preflight */
	bool no_preflight;

	/* replication check (-S; run/repl, server/repl_watch): how long until each confirmed write,
	 * or a sample of them, is visible on each consumer */
	char *repl_consumer[20]; /* -S URL|HOST[:PORT], as given (not owned) */
	int nrepl;
	int repl_port;            /* -P: the port of -S hosts without one; 0 = -p's */
	long long repl_every;     /* --repl-sample N: every Nth confirmed write (0: by rate) */
	double repl_rate;         /* --repl-sample N/s (default 50/s) */
	uint64_t repl_timeout_ms; /* --repl-timeout, default 30 s */
	char *repl_bind_dn;       /* --repl-bind DN, NULL = -D's */
	char *repl_password;      /* its password (--repl-bind-pwfile, LDBENCH_REPL_PASSWORD); never printed */

	struct ldb_ctlcfg ctl; /* request controls */

	/* [workload NAME] sections of a scenario file (cli/workloads.c): this
	 * configuration is the run's (target, outputs, --fail-if, interval), each
	 * workload a checked configuration of its own, in file order; none without */
	struct ldb_config *wl;
	int nwl;
	const char *wl_name;     /* a workload's configuration: its name (kept for the process) */
	uint64_t start_after_ms; /* --start-after: a workload's clients start this long after the run */
};

/* -S's bounds on a checked modify's value (cli/repl_options refuses more, server/repl_watch
 * carries attreplace's random run in a ring item and searches for the file) */
#define LDB_REPL_RUN 38        /* attreplace's run of X, at most */
#define LDB_REPL_FILE_MAX 4096 /* attreplacefile's value, at most */

void ldb_config_init(struct ldb_config *c); /* ldclt's defaults */
/* The run's target (conf/target.h) as the checked configuration describes it:
 * its strings point into c.  The load's one description of its server. */
void ldb_target_of_config(struct ldb_target *t, const struct ldb_config *c);
void ldb_config_free(struct ldb_config *c);
bool ldb_config_ignored(const struct ldb_config *c, int code);

#endif
