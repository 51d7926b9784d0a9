/* Numbers on command lines and in records: strict decimal integers (no
 * blanks, no '+', nothing after the digits), range checks with the messages
 * the command lines print, durations with units, decimal reals.  One grammar
 * for every caller (the run's options and -e keywords, `ldbench gen`, the
 * records that compare and merge read). */
#ifndef LDBENCH_UTIL_NUM_H
#define LDBENCH_UTIL_NUM_H

#include <stddef.h>
#include <stdint.h>

/* What a strict parse found. */
enum ldb_num_rc {
	LDB_NUM_OK = 0,
	LDB_NUM_JUNK = -1, /* not a decimal number */
	LDB_NUM_HIGH = 1,  /* a number above what the type holds */
	LDB_NUM_LOW = 2,   /* a number below what the type holds */
};

/** Strict signed decimal: an optional '-', then digits, nothing else.
 *  @return LDB_NUM_OK with *out, LDB_NUM_JUNK, or LDB_NUM_HIGH / LDB_NUM_LOW
 *  beyond long long (*out untouched but for OK). */
int ldb_num_ll(const char *s, long long *out);

/** Strict unsigned decimal: digits only.  @return LDB_NUM_OK with *out,
 *  LDB_NUM_JUNK, or LDB_NUM_HIGH beyond 64 bits. */
int ldb_num_u64(const char *s, uint64_t *out);

/** The value arg of option opt (sep ' ' for a flag, '=' for a -e keyword) as
 *  a strict signed decimal in [min, max]; `what` names the setting.  The
 *  message (no program name) is one of:
 *    OPT<sep>'ARG': not a whole number
 *    OPT<sep>ARG: WHAT is too large            (max is LLONG_MAX, INT_MAX or
 *    OPT<sep>ARG: WHAT must be at least MIN     LLONG_MAX / 1000: no real limit)
 *    OPT<sep>ARG: WHAT is too small            (below long long, min LLONG_MIN)
 *    OPT<sep>ARG: WHAT must be between MIN and MAX
 *  @return 0 with *out, or -1 with the message in err. */
int ldb_num_range(const char *opt, char sep, const char *arg, long long min, long long max, const char *what,
                  long long *out, char *err, size_t cap);

/** A count (`ldbench gen`'s options): digits only, at most max.  Messages:
 *    OPT: empty value / OPT: 'S' is negative / OPT: 'S' is not a decimal
 *    number / OPT: 'S' is too large (at most MAX)
 *  (the first problem from the left: "12x" is not a number, but a run of
 *  digits already above max is too large whatever follows).
 *  @return 0 with *out, or -1 with the message in err. */
int ldb_num_count(const char *opt, const char *s, int64_t max, int64_t *out, char *err, size_t cap);

/** A duration: digits then no unit or "s" (seconds), "ms", "m" or "h"
 *  ("10", "10s", "500ms", "2m", "1h"), within 64 bits of milliseconds.
 *  @return 0 and *ms, or -1. */
int ldb_parse_duration_ms(const char *s, uint64_t *ms);

/** A decimal real at the start of s: [+|-] then digits with an optional
 *  fraction, or '.' and digits, then an optional exponent (e, E, [+|-],
 *  digits).  No blanks before it, no hexadecimal, inf or nan; the value must
 *  be finite.  @return 0 with *out and *end just after it, or -1. */
int ldb_num_real(const char *s, const char **end, double *out);

#endif
