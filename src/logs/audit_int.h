/* Private to logs/audit: what the reader (logs/audit) and the record
 * parser and encoder (logs/audit_parse) share. */
#ifndef LDBENCH_LOGS_AUDIT_INT_H
#define LDBENCH_LOGS_AUDIT_INT_H

#include "logs/audit.h"

enum audit_fmt {
	AUDIT_FMT_UNKNOWN = 0,
	AUDIT_FMT_389,     /* "time: ..." records, blank-line separated */
	AUDIT_FMT_OPENLDAP /* "# add TIME ..." ... "# end add TIME" */
};

/* One record as read: its logical lines (folds undone), each ending in
 * '\n'.  389 DS: from "time:" on; OpenLDAP: the lines between the header
 * and "# end", the header's kind, time and conn apart. */
struct audit_rec {
	enum audit_fmt fmt;
	const char *file;
	uint64_t line; /* of its first line */
	const char *p;
	size_t n;
	enum ldb_audit_kind hkind; /* OpenLDAP's header */
	int64_t htime_ns;
	int64_t hconn;
};

/* A record into *c, its strings in one block *mem (the caller frees it).
 * @return LDB_AUDIT_SKIP_NONE, or why the record is no change (*mem NULL). */
enum ldb_audit_skip ldb_audit_parse(const struct audit_rec *r, int utc_offset_s, struct ldb_audit_change *c, void **mem,
                                    uint64_t *dropped);

/* The change kind of a word ("add" ...), LDB_AUDIT_NONE if none. */
enum ldb_audit_kind ldb_audit_kind_of(const char *p, size_t n);

/* "YYYYMMDDhhmmss" at p (n bytes) as ns since the epoch at UTC + off_s;
 * -1 if it is not one. */
int64_t ldb_audit_time389(const char *p, size_t n, int off_s);

#endif
