/* Server audit logs, read as a stream of changes: the content of the writes
 * an access log (logs/slog.h) only names, so that a replay can send them.
 *
 * Formats, detected per file from its first record:
 * - 389 DS's audit log (nsslapd-auditlog-logging-enabled: on): records
 *   separated by blank lines, each "time: YYYYMMDDhhmmss" (whole seconds,
 *   the server's local time zone; 389 DS runs in UTC unless TZ says
 *   otherwise: read at opts.utc_offset_s), "dn: DN", "result: N" (2.x;
 *   older versions have none), "changetype: add|modify|delete|modrdn",
 *   then the LDIF of the change ("-" between a modify's parts); modrdn and
 *   delete records end with "modifiersname: ..." (not part of the change).
 * - OpenLDAP's auditlog overlay: "# add|modify|delete|modrdn TIME SUFFIX
 *   WHO [IP=ADDR:PORT conn=N]" (TIME: decimal seconds since the epoch;
 *   IP= and conn= since 2.5), "dn: DN", "changetype: ...", the LDIF of the
 *   change, "# end add|modify|... TIME".
 * Both: "attr:: BASE64" values (util/base64), lines folded by a leading
 * space, "attr:< URL" values are not read (the record is skipped,
 * reason LDB_AUDIT_SKIP_BAD_VALUE).  Files: plain or gzip'd, a rotated set
 * in any order (ordered by their first record's time; the files and lines
 * are logs/lines', as for access logs).  A line over opts.max_record: its
 * record is skipped as too long (counted once).
 *
 * What a change holds is what the client sent, as far as the log tells:
 * the operational attributes the server added (creatorsName, modifiersName,
 * createTimestamp, modifyTimestamp, entryCSN, entryUUID,
 * structuralObjectClass, nsUniqueId, entryUSN ...: a client may not send
 * them) are dropped from adds and from modifies (counted in
 * ldb_audit_stats.dropped_attrs); a modify left with no part is kept (an
 * empty modify is still what the access log logged).  389 DS's records
 * with a result other than 0 are read and counted but never matched.
 *
 * Memory: bounded by a look-ahead window of changes (opts.window, default
 * 4096 changes; opts.window_s, default 10 s of audit time): the reader
 * reads ahead of the oldest unconsumed change until the change read is
 * more than window_s seconds later than the match asked for, or window
 * changes are held; a change older than the asked time minus window_s is
 * dropped unmatched (counted, its first line numbers kept).  Each change's
 * strings live in the window's own storage until it is dropped.
 */
#ifndef LDBENCH_LOGS_AUDIT_H
#define LDBENCH_LOGS_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ldb_audit_kind {
	LDB_AUDIT_NONE = 0,
	LDB_AUDIT_ADD,
	LDB_AUDIT_MODIFY,
	LDB_AUDIT_DELETE,
	LDB_AUDIT_MODRDN,
	LDB_AUDIT_NKINDS
};

/* A modify's operation (RFC 4511's numbers). */
enum ldb_audit_modop {
	LDB_AUDIT_MOD_ADD = 0,
	LDB_AUDIT_MOD_DELETE = 1,
	LDB_AUDIT_MOD_REPLACE = 2,
	LDB_AUDIT_MOD_INCREMENT = 3
};

/* Why a record was not made a change. */
enum ldb_audit_skip {
	LDB_AUDIT_SKIP_NONE = 0,
	LDB_AUDIT_SKIP_GARBAGE,        /* a line outside any record's syntax */
	LDB_AUDIT_SKIP_UNKNOWN_CHANGE, /* changetype not add/modify/delete/modrdn */
	LDB_AUDIT_SKIP_BAD_VALUE,      /* bad base64, a URL value, a bad time */
	LDB_AUDIT_SKIP_TRUNCATED,      /* a record cut short (the file's end) */
	LDB_AUDIT_SKIP_TOO_LONG,       /* over opts.max_record bytes */
	LDB_AUDIT_NSKIPS
};

struct ldb_audit_bytes {
	const uint8_t *p; /* decoded (base64 undone); not NUL terminated */
	size_t n;
};

/* One attribute of an add, or one part of a modify. */
struct ldb_audit_attr {
	struct ldb_audit_bytes type;
	enum ldb_audit_modop op; /* modify only */
	const struct ldb_audit_bytes *values;
	size_t nvalues;
};

struct ldb_audit_change {
	enum ldb_audit_kind kind;
	struct ldb_audit_bytes dn;
	int64_t time_ns;     /* ns since the epoch, UTC */
	int64_t time_res_ns; /* 1e9: both servers log whole seconds */
	int64_t conn;        /* OpenLDAP's conn=; -1 not logged (389 DS) */
	int result;          /* 389 DS's result: (0 for OpenLDAP), -1 none */
	const char *file;    /* where the record starts */
	uint64_t line;
	/* add: the entry's attributes; modify: its parts */
	const struct ldb_audit_attr *attrs;
	size_t nattrs;
	/* modrdn */
	struct ldb_audit_bytes newrdn, newsuperior; /* newsuperior.p NULL: none */
	bool deleteoldrdn;
};

#define LDB_AUDIT_FIRST_LINES 5

struct ldb_audit_place {
	const char *file;
	uint64_t line;
};

struct ldb_audit_stats {
	uint64_t files, lines, bytes;
	uint64_t changes[LDB_AUDIT_NKINDS]; /* records read, per kind */
	uint64_t matched[LDB_AUDIT_NKINDS];
	uint64_t failed;    /* 389 DS records with result != 0 */
	uint64_t unmatched; /* changes dropped or left without a match */
	struct ldb_audit_place first_unmatched[LDB_AUDIT_FIRST_LINES];
	uint64_t not_found;     /* ldb_audit_match calls that found nothing */
	uint64_t dropped_attrs; /* operational attributes left out */
	uint64_t skipped[LDB_AUDIT_NSKIPS];
	struct ldb_audit_place first_skipped[LDB_AUDIT_NSKIPS][LDB_AUDIT_FIRST_LINES];
};

struct ldb_audit_opts {
	size_t window;     /* changes held at most; 0: 4096 */
	int window_s;      /* seconds of look-ahead and of lateness; 0: 10 */
	int tolerance_ms;  /* access time vs audit second; 0: 1500 (389 DS
	                     * logs the access line's microseconds but the
	                     * audit's second may be the next one) */
	size_t max_record; /* bytes of one record at most; 0: 1 MiB */
	bool utc_offset_set;
	int utc_offset_s; /* 389 DS's "time:" is local = UTC + this; default 0 */
};

struct ldb_audit;

/** Open audit logs files[0..nfiles) with default options. */
struct ldb_audit *ldb_audit_open(const char *const *files, size_t nfiles, char *err, size_t errlen);

/** The same with options (NULL: defaults). */
struct ldb_audit *ldb_audit_open_opts(const char *const *files, size_t nfiles, const struct ldb_audit_opts *opts,
                                      char *err, size_t errlen);

/** A reader over a buffer (not copied), named name: the fuzz target's. */
struct ldb_audit *ldb_audit_open_mem(const char *buf, size_t len, const char *name, const struct ldb_audit_opts *opts);

void ldb_audit_close(struct ldb_audit *a);

/** The change the access log's write (kind, its DN as logged, its time in
 *  ns, conn and op; conn -1 / op -1 when not known) made: the oldest
 *  unconsumed change of that kind whose DN equals dn (ASCII case and
 *  spaces at the ends or around ',' '+' '=' ignored), whose audit second T
 *  has T <= time_ns + tolerance and T + 1 s >= time_ns - tolerance, and,
 *  when both logs carry the connection (OpenLDAP's conn=), of that conn.
 *  Call it in the access log's order (each write at its result, say).  The
 *  change is consumed; the pointer stays valid until the next call.  NULL:
 *  none (counted in not_found). */
const struct ldb_audit_change *ldb_audit_match(struct ldb_audit *a, enum ldb_audit_kind kind, const char *dn,
                                               size_t dnlen, int64_t time_ns, uint64_t conn, uint64_t op);

/** The next change in log order, without matching (NULL at the end or on a
 *  read error: ldb_audit_error).  Not to be mixed with ldb_audit_match. */
const struct ldb_audit_change *ldb_audit_next(struct ldb_audit *a);

/** The change as the LDAP protocolOp: AddRequest [APPLICATION 8],
 *  ModifyRequest [6], ModifyDNRequest [12], DelRequest [10], without the
 *  LDAPMessage envelope.  @return its length, or -1 when cap is too small
 *  (ldb_audit_encode(c, NULL, 0) gives the length needed). */
long ldb_audit_encode(const struct ldb_audit_change *c, uint8_t *buf, size_t cap);

/** Statistics so far.  Call ldb_audit_finish first for the final ones: the
 *  changes still held then count as unmatched. */
const struct ldb_audit_stats *ldb_audit_stats(const struct ldb_audit *a);
void ldb_audit_finish(struct ldb_audit *a);

/** The last read error ("FILE: reason"), "" if none. */
const char *ldb_audit_error(const struct ldb_audit *a);

/* Names, for reports: "add", "modify", "delete", "modrdn"; "garbage",
 * "unknown-change", "bad-value", "truncated", "too-long". */
const char *ldb_audit_kind_name(enum ldb_audit_kind k);
const char *ldb_audit_skip_name(enum ldb_audit_skip s);

#endif
