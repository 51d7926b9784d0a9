/* The load's options, one row each (util/optable.h), in --help's order:
 * ldclt's short flags (their letter is their id), then ldbench's long options
 * (an OPT_* of cli/ctx.h).  getopt_long's arrays are built from this table at
 * start-up (cli/options.c), --help prints its lines (cli/usage.c) and
 * `ldbench --dump-options` lists it for tests/integration/options_table.sh,
 * which holds it against docs/ldbench.1.
 *
 * A new option: one row here (its name, letter or 0, metavar or NULL for a
 * flag, id, help, and a heading when it opens a section of --help), an OPT_*
 * id in cli/ctx.h and its case in the handler of its group (cli/options.c's
 * handle_option). */
#include "cli/ctx.h"

/* clang-format off */
const struct ldb_opt cli_options[] = {
	{ NULL, 'a', "N", 'a',
	  "requests in flight per connection (1..1024; default 1)",
	  "Options (ldclt's flags):\n" },
	{ NULL, 'b', "DN", 'b',
	  "base DN (default dc=example,dc=com); XXX with -e randombase",
	  NULL },
	{ NULL, 'D', "DN", 'D',
	  "bind DN (none: anonymous); XXX with -e randombinddn",
	  NULL },
	{ NULL, 'w', "PASSWORD", 'w',
	  "bind password; XXX gets the bind DN's number with randombinddn",
	  NULL },
	{ NULL, 'y', "FILE", 'y',
	  "read the bind password from the first line of FILE",
	  NULL },
	{ NULL, 'e', "LIST", 'e',
	  "execution keywords, comma separated, repeatable (below)",
	  NULL },
	{ NULL, 'E', "N", 'E',
	  "exit when one error code occurs more than N times (default 1000)",
	  NULL },
	{ NULL, 'f', "FILTER", 'f',
	  "search filter (must contain '='); XXX with -e random or -e incr",
	  NULL },
	{ NULL, 'h', "HOST", 'h',
	  "server host (default localhost)",
	  NULL },
	{ NULL, 'H', "URL", 'H',
	  "ldap:// or ldaps:// URL; overrides -h, -p and -Z",
	  NULL },
	{ NULL, 'i', "N", 'i',
	  "empty samples before a \"No activity\" report (default 3)",
	  NULL },
	{ NULL, 'I', "CODE", 'I',
	  "ignore this LDAP result code (repeatable, at most 20)",
	  NULL },
	{ NULL, 'n', "N", 'n',
	  "clients, ldclt's threads (1..10000; default 10), carried by --io-threads OS threads",
	  NULL },
	{ NULL, 'N', "N", 'N',
	  "stop after N samples (default: no limit)",
	  NULL },
	{ NULL, 'o', "KEY=VAL", 'o',
	  "SASL setting, repeatable: mech=EXTERNAL|PLAIN|CRAM-MD5|DIGEST-MD5|\n"
	  "SCRAM-SHA-1|SCRAM-SHA-256, authid=, authzid=, realm= (DIGEST-MD5's)\n"
	  "(EXTERNAL: a client certificate; the others: authid and a password)",
	  NULL },
	{ NULL, 'p', "PORT", 'p',
	  "server port (default 389; 636 with -Z or ldaps://)",
	  NULL },
	{ NULL, 'P', "PORT", 'P',
	  "port of the -S consumers given without one (default: -p's)",
	  NULL },
	{ NULL, 'q', NULL, 'q',
	  "quiet: hide the errors that -I ignores",
	  NULL },
	{ NULL, 'Q', NULL, 'Q',
	  "super quiet: -q and hide \"No activity\" reports",
	  NULL },
	{ NULL, 'r', "N", 'r',
	  "low bound of the XXX values (random, incr)",
	  NULL },
	{ NULL, 'R', "N", 'R',
	  "high bound of the XXX values (random, incr)",
	  NULL },
	{ NULL, 's', "SCOPE", 's',
	  "base, one (onelevel) or subtree (sub); default subtree",
	  NULL },
	{ NULL, 'S', "HOST[:PORT]|URL", 'S',
	  "replication check: a consumer to watch (repeatable, at most 20);\n"
	  "see \"Replication check\" below",
	  NULL },
	{ NULL, 't', "N", 't',
	  "timeout of an operation in seconds (default 30)",
	  NULL },
	{ NULL, 'T', "N", 'T',
	  "each thread stops after N operations (default: no limit)",
	  NULL },
	{ NULL, 'v', NULL, 'v',
	  "verbose: print the configuration",
	  NULL },
	{ NULL, 'V', NULL, 'V',
	  "very verbose",
	  NULL },
	{ NULL, 'W', "N", 'W',
	  "sleep N seconds before each operation (default 0)",
	  NULL },
	{ NULL, 'Z', "FILE", 'Z',
	  "ldaps as ldclt: the server certificate is not verified unless\n"
	  "--tls-cacert/--tls-cacertdir is given (FILE, an NSS db, is not read)",
	  NULL },
	{ "help", 0, NULL, OPT_HELP,
	  "print this text and exit",
	  "\n"
	  "Long options:\n" },
	{ "version", 0, NULL, OPT_VERSION,
	  "print the version and exit",
	  NULL },
	{ "interval", 0, "DURATION", OPT_INTERVAL,
	  "sampling interval: 10, 10s, 500ms, 2m, 1h (default 10s)",
	  NULL },
	{ "seed", 0, "N", OPT_SEED,
	  "random seed (64-bit); default: a fresh one",
	  NULL },
	{ "connections-per-thread", 0, "C", OPT_CONNS,
	  "connections each thread keeps (1..1000; default 1)",
	  NULL },
	{ "warmup", 0, "DURATION|Nsamples", OPT_WARMUP,
	  "run, but leave out of every figure, the first DURATION or N samples",
	  NULL },
	{ "duration", 0, "DURATION", OPT_DURATION,
	  "measured length of the run (instead of -N)",
	  NULL },
	{ "rate", 0, "OPS", OPT_RATE,
	  "target rate for the whole run, open loop; latency from the intended start",
	  NULL },
	{ "think-time", 0, "DIST", OPT_THINK_TIME,
	  "each client starts an operation (a login: a flow) once per\n"
	  "think time: 1s, uniform:0.5s-1.5s, exponential:1s; open loop\n"
	  "at -n / mean (the rate target; not with --rate, -W, --sweep)",
	  NULL },
	{ "sweep", 0, "N1,N2,...", OPT_SWEEP,
	  "run the workload at each thread count, then print one table",
	  NULL },
	{ "monitor", 0, NULL, OPT_MONITOR,
	  "read the server's counters (cn=Monitor) before and after, print the delta",
	  NULL },
	{ "start-at", 0, "TIME", OPT_START_AT,
	  "start at a wall-clock time (@EPOCH, ISO 8601, HH:MM[:SS]): hosts in step",
	  NULL },
	{ "fail-if", 0, "EXPR", OPT_FAIL_IF,
	  "exit 10 when e.g. 'p99>5ms', 'errors>0', 'rate<1000' holds at the end\n"
	  "('misses>0': a srchnentries check missed; with --server-log the\n"
	  "join's: 'server.p99>5ms', 'search.outside.p99>1ms', 'unindexed>0')",
	  NULL },
	{ "io-threads", 0, "N", OPT_IO_THREADS,
	  "OS threads that carry the -n clients (default: -n, at most the CPUs;\n"
	  "clear-text bindeach: at most half the CPUs)",
	  NULL },
	{ "json", 0, "FILE", OPT_JSON,
	  "also write JSON lines records to FILE (- = stdout;\n"
	  "the text then goes to stderr); see docs/results.md",
	  NULL },
	{ "csv", 0, "FILE", OPT_CSV,
	  "also write one CSV row per sample and kind to FILE",
	  NULL },
	{ "hdr-log", 0, "FILE", OPT_HDR_LOG,
	  "also write an HdrHistogram interval log (V2) to FILE",
	  NULL },
	{ "html", 0, "FILE", OPT_HTML,
	  "write the report page (charts, ldbench report) to FILE",
	  NULL },
	{ "metrics-listen", 0, "[ADDR:]PORT", OPT_METRICS_LISTEN,
	  "serve live metrics at http://ADDR:PORT/metrics (Prometheus text\n"
	  "format; ADDR 127.0.0.1 by default); see docs/metrics.md",
	  NULL },
	{ "metrics-linger", 0, "DURATION", OPT_METRICS_LINGER,
	  "keep --metrics-listen up after the run, until its first scrape",
	  NULL },
	{ "metrics-push", 0, "URL", OPT_METRICS_PUSH,
	  "push the live metrics to a Prometheus Pushgateway at URL\n"
	  "(http://HOST[:PORT]) every sample and at the end",
	  NULL },
	{ "op-log", 0, "FILE", OPT_OP_LOG,
	  "write a 32-byte record per operation to FILE (for ldbench join);\n"
	  "each connection first sends a tag search (one round trip)",
	  NULL },
	{ "server-log", 0, "FILE", OPT_SERVER_LOG,
	  "at the end, join the run's operations with the server's access\n"
	  "log FILE (389 DS, OpenLDAP stats; repeat for rotated files):\n"
	  "client, etime, queue, processing, outside per kind",
	  NULL },
	{ "server-log-wait", 0, "DURATION", OPT_SERVER_LOG_WAIT,
	  "how long the end waits for the log's last operation (default 10s)",
	  NULL },
	{ "scenario", 0, "FILE", OPT_SCENARIO,
	  "read options from FILE first (one per line, # comments);\n"
	  "the command line's own options replace single-valued ones\n"
	  "and add to -e, -I, --modify, --fail-if; see scenarios/",
	  NULL },
	{ "list-scenarios", 0, "DIR", OPT_LIST_SCENARIOS,
	  "print the name and description of each DIR/*.scen, exit",
	  NULL },
	{ "set", 0, "NAME=VALUE", OPT_SET,
	  "a scenario's parameter (its dataset: first, last, width, parent, count)",
	  NULL },
	{ "dataset", 0, "ldifgen|ldbench", OPT_DATASET,
	  "a scenario's dataset by name, from --set count=N (ldifgen: dsctl\n"
	  "ldifgen users, generic, start index 1: user002.., digits of N)",
	  NULL },
	{ "no-preflight", 0, NULL, OPT_NO_PREFLIGHT,
	  "no pre-flight check (by default the lowest, highest and three\n"
	  "values of a search's -r/-R or -f pattern's ranges, the lowest and\n"
	  "highest randombinddn, are tried before the load: exit 11 when\n"
	  "they miss the data)",
	  NULL },
	{ "find-max", 0, "OBJECTIVE", OPT_FIND_MAX,
	  "highest open-loop rate meeting e.g. 'p99<5ms,errors<1' (the --fail-if\n"
	  "grammar): steps grow x2, then bisect; exit 12 when none met it",
	  "\n"
	  "Capacity and the client's own limits (docs/capacity.md):\n" },
	{ "find-max-tolerance", 0, "PCT", OPT_FIND_MAX_TOLERANCE,
	  "stop once the bracket is narrower (default 2%)",
	  NULL },
	{ "find-max-steps", 0, "N", OPT_FIND_MAX_STEPS,
	  "at most N steps (2..100, default 12)",
	  NULL },
	{ "find-max-start", 0, "OPS", OPT_FIND_MAX_START,
	  "the first step's rate (default: half a closed-loop probe's)",
	  NULL },
	{ "rate-profile", 0, "FILE|SPEC", OPT_RATE_PROFILE,
	  "the target rate over time: '100-2000@30s,2000@1m,repeat', or\n"
	  "a rate,duration file (UnboundID's variable-rate format)",
	  NULL },
	{ "ramp-up", 0, "DURATION", OPT_RAMP_UP,
	  "spread the clients' first connects over DURATION",
	  NULL },
	{ "start-after", 0, "DURATION", OPT_START_AFTER,
	  "in a [workload] section: its clients start DURATION\n"
	  "after the run (its --duration counts from there)",
	  NULL },
	{ "held", 0, NULL, OPT_HELD,
	  "-n N counts connections, held open and carried by one\n"
	  "client per I/O thread; each probe (--rate, --probe-every)\n"
	  "goes to a random idle one",
	  NULL },
	{ "probe-every", 0, "T", OPT_PROBE_EVERY, "with --held: each connection probed once per T on average", NULL },
	{ "connect-rate", 0, "N/s", OPT_CONNECT_RATE, "open the connections at most N a second", NULL },
	{ "source-address", 0, "A[,B...]", OPT_SOURCE_ADDRESS, "bind the connections to these local addresses in turn",
	  NULL },
	{ "listeners", 0, "N", OPT_LISTENERS,
	  "N listeners for changes beside the load, each on its own\n"
	  "connection (bound as -D): the delay from each write's\n"
	  "confirmation to its arrival on each listener",
	  "\n"
	  "Listeners for changes (docs/guide.md \"Listeners\"):\n" },
	{ "listen-kind", 0, "sync|psearch", OPT_LISTEN_KIND,
	  "RFC 4533 refreshAndPersist (default) or persistent search",
	  NULL },
	{ "listen-base", 0, "DN", OPT_LISTEN_BASE, "the subtree the listeners search (required)", NULL },
	{ "listen-filter", 0, "FILTER", OPT_LISTEN_FILTER, "their filter (default (objectClass=*))", NULL },
	{ "listen-wait", 0, "DURATION", OPT_LISTEN_WAIT,
	  "at the end, wait this long for notifications (default 5s)",
	  NULL },
	{ "listen-pause", 0, "DURATION", OPT_LISTEN_PAUSE,
	  "the listeners stop reading for DURATION mid-run (a slow consumer)",
	  NULL },
	{ "listeners-baseline", 0, "DURATION", OPT_LISTENERS_BASELINE,
	  "first run the write load alone for DURATION, then with the\n"
	  "listeners: the writes' rate and latency both ways (the provider's slowdown)",
	  NULL },
	{ "listen-record", 0, "FILE", OPT_LISTEN_RECORD,
	  "record every notification (time, listener, keys) to FILE,\n"
	  "for `ldbench listen-join` with another host's --write-record",
	  NULL },
	{ "listen-attr", 0, "ATTR", OPT_LISTEN_ATTR,
	  "the attribute a modify's value is read from (default: the\n"
	  "load's modified attribute, or a flow's modify step's;\n"
	  "needed with no load of its own)",
	  NULL },
	{ "write-record", 0, "FILE", OPT_WRITE_RECORD,
	  "record every confirmed write (time, kind, DN, value) to FILE,\n"
	  "for `ldbench listen-join` with another host's --listen-record",
	  NULL },
	{ "modify", 0, "OP:ATTR=PATTERN", OPT_MODIFY,
	  "modify the entry: OP replace, add or delete (a delete\n"
	  "without PATTERN removes the attribute); up to 8, all\n"
	  "in one modify request",
	  "\n"
	  "Write workloads (beyond ldclt).  Every entry is <RDN from -f>,<-b>; an XXX in a\n"
	  "PATTERN gets the same number as the XXX of -f for that operation:\n" },
	{ "compare", 0, "ATTR=PATTERN", OPT_COMPARE,
	  "compare ATTR of the entry with the value",
	  NULL },
	{ "delete-after-add", 0, NULL, OPT_DELETE_AFTER_ADD,
	  "delete each entry right after adding it (same DNs)",
	  NULL },
	{ "new-parent", 0, "DN", OPT_NEW_PARENT,
	  "where rename,withnewparent moves the entries (default: their parent)",
	  NULL },
	{ "mix", 0, "KIND:WEIGHT,...", OPT_MIX,
	  "weighted mix in one run, e.g. search:80,modify:15,add:5;\n"
	  "kinds search, bind, add, modify, delete, rename, compare,\n"
	  "abandon, passmod, whoami, extended, login.  The mix names\n"
	  "the operations: leave out -e esearch, bindonly, add,\n"
	  "delete, rename and abandon, --passmod, --whoami, --login.\n"
	  "Each kind needs its settings: search and abandon -f;\n"
	  "bind -D; add a class or object=; modify one of --modify,\n"
	  "attreplace=, attreplacefile=; delete/rename -f with XXX\n"
	  "and incr or random; compare --compare; extended\n"
	  "--extended; passmod -D or --passmod-user",
	  NULL },
	{ "whoami", 0, NULL, OPT_WHOAMI,
	  "Who am I? (RFC 4532) requests",
	  "\n"
	  "Extended operations as load (a PATTERN is a value pattern: [1-100], [1:100], ...):\n" },
	{ "passmod", 0, NULL, OPT_PASSMOD,
	  "password modify (RFC 3062) requests; by default the\n"
	  "bound user sets its own password (-w) again",
	  NULL },
	{ "passmod-user", 0, "PATTERN", OPT_PASSMOD_USER,
	  "the userIdentity (default: none, the bound user)",
	  NULL },
	{ "passmod-old", 0, "PATTERN", OPT_PASSMOD_OLD,
	  "the oldPasswd (default: -w when fixed and no\n"
	  "--passmod-user, else none)",
	  NULL },
	{ "passmod-new", 0, "PATTERN", OPT_PASSMOD_NEW,
	  "the newPasswd (default: the old one again)",
	  NULL },
	{ "extended", 0, "OID[:PATTERN|::BASE64]", OPT_EXTENDED,
	  "any extended request, with no value, a value pattern\n"
	  "or a base64 value",
	  NULL },
	{ "login", 0, NULL, OPT_LOGIN,
	  "each operation a login: a search below -b with -f (size\n"
	  "limit 2), a simple bind as the DN found, optionally a\n"
	  "group search; counted as login (the flow) and as its\n"
	  "steps' kinds (search, bind); no entry: error -14",
	  "\n"
	  "Login flows (docs/guide.md \"Logins\"; scenarios/authrate.scen):\n" },
	{ "login-password", 0, "VALUE", OPT_LOGIN_PASSWORD,
	  "the bind's password: fixed (never printed) or a PATTERN",
	  NULL },
	{ "login-password-attr", 0, "ATTR", OPT_LOGIN_PASSWORD_ATTR,
	  "the password: the first value of ATTR of the entry found",
	  NULL },
	{ "login-groups", 0, "BASE", OPT_LOGIN_GROUPS,
	  "a third step: a search below BASE for (member=DN)",
	  NULL },
	{ "bad-password", 0, "PCT%", OPT_BAD_PASSWORD,
	  "that share of the binds (the logins', a flow's bind steps,\n"
	  "-e bindonly, -e bindeach's) sends a wrong password;\n"
	  "its 49 is expected: counted apart, not an error",
	  NULL },
	{ "flow", 0, "NAME", OPT_FLOW,
	  "each operation a flow of the --step options, in order on\n"
	  "one connection; counted as NAME and each step as its own\n"
	  "row (NAME.1.search, or NAME.STEPNAME)",
	  "\n"
	  "Flows (docs/guide.md \"Flows\"):\n" },
	{ "step", 0, "'KIND key=value ...'", OPT_STEP,
	  "a flow's next step: search base= filter= attrs= scope=\n"
	  "sizelimit=, bind dn= password=, compare|modify dn= attr=\n"
	  "value= [op=], add dn= entry=TYPE:VALUE;..., delete dn=,\n"
	  "rename dn= newrdn=, whoami,\n"
	  "extended oid= [value=]; name=NAME; values may hold\n"
	  "patterns and @{N.dn} @{N.attr:NAME} @{N.count} of an\n"
	  "earlier search step N",
	  NULL },
	{ "repl-sample", 0, "N/s|N", OPT_REPL_SAMPLE,
	  "check N confirmed writes a second, or every Nth (default 50/s)",
	  "\n"
	  "Value patterns (UnboundID's syntax): -b, -f, -D, -w, -o authid= and the --modify and\n"
	  "--compare values take one when the value holds a '[' (not '[[') and no X (both: refused):\n"
	  "  [1-1000] random  [1:1000] sequential ([1:1000x5] a step, [1000:1] down)  [1-999%000] padded\n"
	  "  [zipf:1-1000000:0.99] hot set  [random:8:abc] string  [file:F] random line\n"
	  "  [sequentialfile:F] [streamfile:F] lines in order  [uuid]  [timestamp[:format=...]]\n"
	  "  [ref:N] the N-th bracket again  [[ and ]] literal brackets.  Sequences are per client:\n"
	  "  client i of -n N takes positions i, i+N, ...; --seed repeats the random ones\n"
	  "\n"
	  "Replication check (-S): how long after the server confirmed a write it shows on\n"
	  "each consumer (adds, deletes, renames, --modify; per sample and at the end):\n" },
	{ "repl-timeout", 0, "DURATION", OPT_REPL_TIMEOUT,
	  "a write not visible by then is unseen (default 30s)",
	  NULL },
	{ "repl-bind", 0, "DN", OPT_REPL_BIND,
	  "bind to the consumers as DN (default: -D and its password)",
	  NULL },
	{ "repl-bind-pwfile", 0, "FILE", OPT_REPL_BIND_PWFILE,
	  "--repl-bind's password (or LDBENCH_REPL_PASSWORD)",
	  NULL },
	{ "control", 0, "[KIND=]OID[:CRITICAL[:VALUE|::BASE64]]", OPT_CONTROL,
	  "any control, on every kind (or KIND's only);\n"
	  "CRITICAL true|false; repeatable",
	  "  --fail-if takes repl.p99>2s (any latency; the worst consumer's) and repl.unseen>0\n"
	  "\n"
	  "Request controls (on every request of the load's operations; set-up requests,\n"
	  "such as the bind that opens a connection, carry none):\n" },
	{ "sort-order", 0, "[+|-]ATTR[:RULE],...", OPT_SORT_ORDER,
	  "server-side sort (RFC 2891) of searches; the sort\n"
	  "results counted (\"not sorted\": a code other than 0)",
	  NULL },
	{ "ppolicy", 0, NULL, OPT_PPOLICY,
	  "password policy (draft-behera) on binds and the login's\n"
	  "bind; the answers' warnings and errors counted by name",
	  NULL },
	{ "simple-page-size", 0, "N", OPT_SIMPLE_PAGE_SIZE,
	  "paged results (RFC 2696): a search is all its pages of N\n"
	  "entries; pages counted, each page timed ('round' line)",
	  NULL },
	{ "assertion-filter", 0, "FILTER", OPT_ASSERTION_FILTER,
	  "assertion (RFC 4528): search, compare, modify, delete,\n"
	  "rename; 122 when it does not hold",
	  NULL },
	{ "proxy-as", 0, "AUTHZID", OPT_PROXY_AS,
	  "proxied authorization v2 (RFC 4370), e.g.\n"
	  "'dn:uid=user.[1-1000],ou=People,dc=example,dc=com' (a\n"
	  "value pattern); every kind but bind",
	  NULL },
	{ "pre-read-attribute", 0, "ATTR,...", OPT_PRE_READ,
	  "pre-read (RFC 4527) of modify, delete, rename",
	  NULL },
	{ "post-read-attribute", 0, "ATTR,...", OPT_POST_READ,
	  "post-read of add, modify, rename; entries counted",
	  NULL },
	{ "permissive-modify", 0, NULL, OPT_PERMISSIVE_MODIFY,
	  "permissive modify (modifies)",
	  NULL },
	{ "manage-dsa-it", 0, NULL, OPT_MANAGE_DSA_IT,
	  "ManageDsaIT (RFC 3296), every kind but bind",
	  NULL },
	{ "rfc3672-subentries", 0, "true|false", OPT_SUBENTRIES,
	  "subentries (RFC 3672) of searches",
	  NULL },
	{ "session-tracking", 0, "ID", OPT_SESSION_TRACKING,
	  "session tracking (draft-wahl-ldap-session), every kind",
	  NULL },
	{ "starttls", 0, NULL, OPT_STARTTLS,
	  "StartTLS on each ldap:// connection before binding",
	  "\n"
	  "TLS (with -Z, -H ldaps:// or --starttls; the server certificate and its host\n"
	  "name, or IP address, are verified unless --tls-insecure, or -Z without --tls-cacert\n"
	  "or --tls-cacertdir):\n" },
	{ "tls-cacert", 0, "FILE", OPT_TLS_CACERT,
	  "trusted CA certificates (PEM); default: the system's",
	  NULL },
	{ "tls-cacertdir", 0, "DIR", OPT_TLS_CACERTDIR,
	  "directory of hashed CA certificates (openssl rehash)",
	  NULL },
	{ "tls-cert", 0, "FILE", OPT_TLS_CERT,
	  "client certificate (PEM), with --tls-key",
	  NULL },
	{ "tls-key", 0, "FILE", OPT_TLS_KEY,
	  "the client certificate's key (PEM, unencrypted)",
	  NULL },
	{ "tls-min", 0, "1.2|1.3", OPT_TLS_MIN,
	  "lowest protocol version",
	  NULL },
	{ "tls-ciphers", 0, "LIST", OPT_TLS_CIPHERS,
	  "OpenSSL cipher list for TLS 1.2 (TLS 1.3 suites unchanged)",
	  NULL },
	{ "tls-insecure", 0, NULL, OPT_TLS_INSECURE,
	  "do not verify the server certificate",
	  NULL },
	{ "tls-resume", 0, NULL, OPT_TLS_RESUME,
	  "resume each thread's last TLS session (for bindeach)",
	  NULL },
	{ "tls-library", 0, "openssl|gnutls", OPT_TLS_LIBRARY,
	  "the load's TLS library (default: gnutls, or\n"
	  "$LDBENCH_TLS_LIBRARY; openssl with --tls-ciphers)",
	  NULL },
	LDB_OPT_END
};
/* clang-format on */
