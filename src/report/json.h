/* A small JSON reader (RFC 8259) for ldbench's own records, and the few
 * writing helpers the records share.
 *
 * The reader parses one complete text (a JSON line) into a tree of nodes.
 * Numbers keep their source text beside the double, so that 64-bit counts are
 * read exactly (ldb_json_u64).  Strings are decoded to UTF-8 (\uXXXX escapes and
 * surrogate pairs included) and may not hold NUL.  Nesting is limited to
 * LDB_JSON_MAX_DEPTH levels.  Duplicate member names are kept; ldb_json_get
 * returns the first.  Not for the hot path: it allocates.
 */
#ifndef LDBENCH_REPORT_JSON_H
#define LDBENCH_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LDB_JSON_MAX_DEPTH 64

enum ldb_json_type { LDB_JSON_NULL, LDB_JSON_BOOL, LDB_JSON_NUMBER, LDB_JSON_STRING, LDB_JSON_ARRAY, LDB_JSON_OBJECT };

struct ldb_json {
	enum ldb_json_type type;
	bool boolean;           /* LDB_JSON_BOOL */
	double number;          /* LDB_JSON_NUMBER */
	char *text;             /* string value (decoded), or the number as written */
	size_t len;             /* bytes in text */
	char *key;              /* member name when the node is in an object, else NULL */
	struct ldb_json *child; /* first element/member of an array/object */
	struct ldb_json *next;  /* next sibling */
	size_t count;           /* elements/members of an array/object */
};

/** Parse exactly one JSON value (surrounding blanks allowed) from text[0..len).
 *  @return the tree (free with ldb_json_free), or NULL with one line in err
 *  ("column 12: expected ':'", "out of memory"). */
struct ldb_json *ldb_json_parse(const char *text, size_t len, char *err, size_t cap);
void ldb_json_free(struct ldb_json *v);

/** Member `key` of object `obj`; NULL when obj is NULL, not an object, or has no such member. */
const struct ldb_json *ldb_json_get(const struct ldb_json *obj, const char *key);
/** Follow dotted member names: ldb_json_path(v, "ops.search.rate").  A name
 *  holding a dot cannot be reached this way. */
const struct ldb_json *ldb_json_path(const struct ldb_json *obj, const char *path);

/** A non-negative integer number, exactly (no fraction, no exponent, fits 64 bits).
 *  @return 0, or -1 when v is missing, not a number, or not such an integer. */
int ldb_json_u64(const struct ldb_json *v, uint64_t *out);
/** An integer number that fits a long long. @return 0 or -1. */
int ldb_json_ll(const struct ldb_json *v, long long *out);
/** Any number. @return 0, or -1 when v is missing or not a number. */
int ldb_json_double(const struct ldb_json *v, double *out);
/** The string value, or NULL when v is missing or not a string. */
const char *ldb_json_str(const struct ldb_json *v);

/** Write s as a JSON string (quotes included); control characters, '"' and
 *  '\\' are escaped, other bytes are written as they are. */
void ldb_json_put_string(FILE *out, const char *s);

#endif
