/* Server access logs, read as a stream of events: 389 DS's access log and
 * OpenLDAP's stats log (loglevel stats), one event at a time.
 *
 * Files: one or more (a rotated set: access, access.20261202-055211, ...,
 * plain or gzip'd, by name ending ".gz" or by the gzip magic), given in any
 * order: the reader orders them by the first timestamp each holds (a file
 * with none goes last, in the order given) and reads them one after the
 * other, each line in file order.  389 DS's lines are not strictly in time
 * order across its threads: the reader does not reorder them.
 *
 * Formats, detected per file from its first recognisable line (a file of no
 * known format: ldb_slog_open fails; an empty file is read as zero lines):
 * - 389 DS access log, "[02/Dec/2026:05:52:11.123456789 +0000] conn=1 op=0
 *   SRCH ..." (high-resolution time, 1.4.x and 2.x) and the older
 *   whole-second "[02/Dec/2026:05:52:11 +0100]"; RESULT lines with
 *   wtime/optime/etime or only etime (fractional or integer seconds).
 * - OpenLDAP stats: slapd's own format (-d stats, or the logfile directive,
 *   2.5's and 2.6's default "debug" logfile-format): "6b0f493d.25c648d0
 *   0x7f26df9fe6c0 conn=1000 op=1 SRCH ..." (hex seconds.nanoseconds); the
 *   debug output of slapd before 2.5 on stderr, as container images log it,
 *   "618fe870 conn=1000 fd=12 ACCEPT ..." (hex whole seconds, no thread); and
 *   syslog's: traditional "Dec  2 05:52:11 host slapd[812]: conn=..."
 *   (2.6's syslog-utc / syslog-localtime logfile-format too), RFC 3339 /
 *   ISO 8601 "2026-12-02T05:52:11.123456+00:00 host slapd[812]: conn=..."
 *   (rsyslog's high-precision format, journalctl -o short-iso(-precise)),
 *   and RFC 5424 "<167>1 2026-12-02T05:52:11.123Z host slapd 812 - - conn=".
 *
 * Times: integer nanoseconds since the epoch, UTC.  389 DS's and ISO
 * timestamps carry their offset, applied.  A timestamp without a zone
 * (traditional syslog, ISO without offset) is read at opts.utc_offset_s
 * when opts.utc_offset_set, else as local time of the process's time zone
 * (TZ), DST resolved by mktime once per hour of the log (cached: no mktime
 * per line; an hour repeated at the end of DST is taken as its first).  A timestamp
 * without a year (traditional syslog) takes opts.year, or else the year of
 * the file's modification time, minus one for a month after that time's
 * month (a log spanning new year).  ev.time_res_ns says the timestamp's
 * resolution (1 s for whole-second formats: a replay spreads those lines).
 *
 * Memory: bounded by the longest line allowed (opts.max_line, default 64
 * KiB), never by the log's size: one read buffer of a fixed size plus
 * max_line, one file open at a time (gzip: zlib's fixed window), the file
 * list and a per-reason note of the first skipped line numbers.  A longer
 * line is skipped whole (reason LDB_SLOG_SKIP_TOO_LONG).  No allocation per
 * line: an event's strings point into the reader's buffer, valid until the
 * next ldb_slog_next or ldb_slog_close.
 *
 * What each server logs of a request differs: OpenLDAP's stats log has no
 * new RDN (MODRDN), no attribute values; 389 DS's no deref and no client
 * port.  OpenLDAP writes some fields on a second line of the same conn/op
 * (LDB_SLOG_MORE): "SRCH attr=" (attrs), "BIND ... mech=" (after the bind
 * succeeded), a SASL bind's "BIND authcid=... authzid=...", "MOD attr="
 * (attr: the modified types): any BIND line without method= is one.  389 DS's ABANDON
 * line has no result line after it (nor has any server's UNBIND).
 *
 * Errors: ldb_slog_open fails with one line in err ("FILE: reason": cannot
 * open, not a log this reader knows, files of both servers mixed); a line
 * the reader cannot use is never an error: it is yielded as an
 * LDB_SLOG_SKIP event and counted (ldb_slog_stats: per reason, with the
 * first LDB_SLOG_FIRST_LINES file:line places).  ldb_slog_next fails (-1,
 * ldb_slog_error) only on a read error of the file system or a corrupt gzip
 * stream (the rest of that file cannot be read).  Commands over the reader
 * exit 2 for usage and unreadable logs (before any connection is opened).
 */
#ifndef LDBENCH_LOGS_SLOG_H
#define LDBENCH_LOGS_SLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A string of the log line: p points into the reader's buffer (not NUL
 * terminated), n bytes; p == NULL: the field was not logged.  Quoted values
 * (dn="...") are given without their quotes, as logged (no unescaping). */
struct ldb_slog_str {
	const char *p;
	size_t n;
};

enum ldb_slog_format {
	LDB_SLOG_FMT_UNKNOWN = 0,
	LDB_SLOG_FMT_389,     /* 389 DS access log */
	LDB_SLOG_FMT_OPENLDAP /* OpenLDAP stats log, any of its prefixes */
};

/* What an event is. */
enum ldb_slog_kind {
	LDB_SLOG_OPEN = 1, /* connection opened: conn, addr, port, time */
	LDB_SLOG_REQUEST,  /* an operation's request: conn, op, type, its fields */
	LDB_SLOG_MORE,     /* more fields of a request already yielded (OpenLDAP's
	                    * second lines: "SRCH attr=", "BIND ... mech=",
	                    * "MOD attr="): conn, op, type and those fields */
	LDB_SLOG_RESULT,   /* an operation's result: conn, op, tag, err, times */
	LDB_SLOG_CLOSE,    /* connection closed: conn, time, reason */
	LDB_SLOG_SKIP      /* a line not used: file, line, skip, text */
};

/* An operation's type, as the server logged it. */
enum ldb_slog_optype {
	LDB_SLOG_OP_NONE = 0,
	LDB_SLOG_OP_BIND,
	LDB_SLOG_OP_SEARCH,
	LDB_SLOG_OP_ADD,
	LDB_SLOG_OP_MODIFY,
	LDB_SLOG_OP_DELETE,
	LDB_SLOG_OP_MODRDN,
	LDB_SLOG_OP_COMPARE,
	LDB_SLOG_OP_EXTENDED,
	LDB_SLOG_OP_ABANDON,
	LDB_SLOG_OP_UNBIND,
	LDB_SLOG_OP_OTHER, /* for consumers' tables; the parsers never yield it
	                    * (an unknown keyword: LDB_SLOG_SKIP_UNKNOWN_OP) */
	LDB_SLOG_NOPTYPES
};

/* Why a line was skipped. */
enum ldb_slog_skip {
	LDB_SLOG_SKIP_NONE = 0,
	LDB_SLOG_SKIP_KNOWN,        /* a line of the format that is no event: 389's
	                             * STAT (statlog), ENTRY, SORT, VLV, TLS lines;
	                             * OpenLDAP's STARTTLS, TLS, PROXYAUTHZ ... */
	LDB_SLOG_SKIP_UNKNOWN_OP,   /* conn= op= KEYWORD with a keyword not known */
	LDB_SLOG_SKIP_GARBAGE,      /* not a line of the file's format */
	LDB_SLOG_SKIP_OTHER_FORMAT, /* a line of the other server's format */
	LDB_SLOG_SKIP_BAD_FIELD,    /* a known line with a field that does not
	                             * parse (time, conn, op, a number) */
	LDB_SLOG_SKIP_TOO_LONG,     /* longer than opts.max_line */
	LDB_SLOG_SKIP_TRUNCATED,    /* the file's last line, without its newline
	                             * (the server was writing it) */
	LDB_SLOG_NSKIPS
};

/* Result notes (389 DS's notes=U,A,P...). */
enum {
	LDB_SLOG_NOTE_U = 1 << 0, /* partly unindexed search */
	LDB_SLOG_NOTE_A = 1 << 1, /* fully unindexed search */
	LDB_SLOG_NOTE_P = 1 << 2, /* paged results */
	LDB_SLOG_NOTE_F = 1 << 3, /* a filter test was skipped (filter optimisation) */
	LDB_SLOG_NOTE_M = 1 << 4  /* MFA (389 DS 2.x) */
};

/* One event.  Numbers not logged are -1; strings not logged have p NULL. */
struct ldb_slog_event {
	enum ldb_slog_kind kind;
	int64_t time_ns;     /* the line's time, ns since the epoch (UTC) */
	int64_t time_res_ns; /* its resolution: 1 (ns), 1000 (us), 1e9 (s) */
	const char *file;    /* the file it came from (the reader's copy) */
	uint64_t line;       /* its line number in that file, from 1 */
	int64_t conn;        /* the server's connection number */
	int64_t op;          /* the operation's number on it (-1: none) */

	/* LDB_SLOG_OPEN */
	struct ldb_slog_str addr; /* client address (no port); "local" ... */
	int port;                 /* client port (OpenLDAP's ACCEPT), -1 */
	bool tls;                 /* 389's "SSL connection from" */

	/* LDB_SLOG_REQUEST, LDB_SLOG_MORE */
	enum ldb_slog_optype type;
	struct ldb_slog_str keyword;     /* the keyword as logged: SRCH, BIND, ... */
	struct ldb_slog_str dn;          /* bind, add, modify, delete, modrdn, compare */
	struct ldb_slog_str base;        /* search */
	int scope, deref;                /* search: 0 base, 1 one, 2 sub (3 children) */
	struct ldb_slog_str filter;      /* search, as logged */
	struct ldb_slog_str attrs;       /* search: 389 `attrs="a b"` or ALL; OpenLDAP's
	                                  * "SRCH attr=a b" (MORE) */
	struct ldb_slog_str method;      /* bind: 128 (simple), sasl, ... */
	struct ldb_slog_str mech;        /* bind: SASL mechanism; OpenLDAP: SIMPLE too */
	struct ldb_slog_str attr;        /* compare's attribute; OpenLDAP "MOD attr=" (MORE) */
	struct ldb_slog_str newrdn;      /* modrdn */
	struct ldb_slog_str newsuperior; /* modrdn; 389 "(null)" given as not logged */
	int deleteoldrdn;                /* modrdn: 0/1, -1 */
	struct ldb_slog_str oid;         /* extended: request OID; RESULT: response OID */
	struct ldb_slog_str name;        /* extended: 389's name="..." of the plugin */
	int64_t abandon_msgid;           /* abandon: the message id (OpenLDAP msg=, 389 msgid=) */
	int64_t abandon_op;              /* abandon: 389's targetop= (-1: not found) */

	/* LDB_SLOG_RESULT (dn: 389's bound DN on a bind's result) */
	int tag, err;
	int64_t nentries;
	int64_t etime_ns, wtime_ns, optime_ns, qtime_ns;
	int64_t etime_res_ns; /* 1e9 for an integer etime, else 1 */
	unsigned notes;       /* LDB_SLOG_NOTE_* */

	/* LDB_SLOG_CLOSE */
	struct ldb_slog_str reason; /* 389 "U1", "B1" ...; OpenLDAP "(connection lost)" */

	/* LDB_SLOG_SKIP */
	enum ldb_slog_skip skip;
	struct ldb_slog_str text; /* the line (without its newline; cut at max_line) */
};

/* How many first skipped places each reason keeps. */
#define LDB_SLOG_FIRST_LINES 5

struct ldb_slog_place {
	const char *file;
	uint64_t line;
};

/* What the reader found so far (all of it after the last event). */
struct ldb_slog_stats {
	uint64_t lines, bytes; /* bytes: uncompressed */
	uint64_t files;        /* files opened so far */
	uint64_t opens, closes, results, mores;
	uint64_t requests[LDB_SLOG_NOPTYPES];
	uint64_t skipped[LDB_SLOG_NSKIPS];
	struct ldb_slog_place first[LDB_SLOG_NSKIPS][LDB_SLOG_FIRST_LINES];
	int64_t first_ns, last_ns; /* lowest and highest line time; INT64_MIN if none */
};

struct ldb_slog_opts {
	size_t max_line; /* 0: 64 KiB; at most 16 MiB */
	int year;        /* year of yearless timestamps; 0: from the file's mtime */
	bool utc_offset_set;
	int utc_offset_s; /* zoneless timestamps: local = UTC + this (east +) */
};

struct ldb_slog;

/** Open a reader over paths[0..npaths): each file opened, its format
 *  detected and its first timestamp read, the files ordered.  opts may be
 *  NULL.  @return the reader, or NULL with one line in err. */
struct ldb_slog *ldb_slog_open(const char *const *paths, size_t npaths, const struct ldb_slog_opts *opts, char *err,
                               size_t errlen);

/** A reader over a buffer in memory (len bytes, not copied: it must outlive
 *  the reader), named name in events; the fuzz target's entry.  An unknown
 *  format is not an error here: every line is then skipped as garbage. */
struct ldb_slog *ldb_slog_open_mem(const char *buf, size_t len, const char *name, const struct ldb_slog_opts *opts);

/** The next event into *ev (every field set).  @return 1, 0 at the end of the
 *  last file, -1 on a read error (ldb_slog_error says it; the reader cannot
 *  go on). */
int ldb_slog_next(struct ldb_slog *r, struct ldb_slog_event *ev);

/** The format of the file being read (of the last one at the end). */
enum ldb_slog_format ldb_slog_format(const struct ldb_slog *r);

const struct ldb_slog_stats *ldb_slog_stats(const struct ldb_slog *r);

/** The last error's line ("FILE: reason"), "" if none. */
const char *ldb_slog_error(const struct ldb_slog *r);

void ldb_slog_close(struct ldb_slog *r);

/* Names, for reports: "bind", "search", ... "other"; "known", "unknown-op",
 * "garbage", "other-format", "bad-field", "too-long", "truncated"; "389ds",
 * "openldap". */
const char *ldb_slog_optype_name(enum ldb_slog_optype t);
const char *ldb_slog_skip_name(enum ldb_slog_skip s);
const char *ldb_slog_format_name(enum ldb_slog_format f);

#endif
