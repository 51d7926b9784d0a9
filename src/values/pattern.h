/* ldclt's XXX patterns: a string whose first run of uppercase X is replaced by a
 * number, zero-padded to the run's width (or not, with nozeropad).
 *
 * Compiled once at start-up; rendered in the hot loop into a caller's buffer
 * with no allocation.  Unlike ldclt, a range whose values do not fit the run is
 * refused by ldb_pattern_check_range() instead of being silently truncated. */
#ifndef LDBENCH_VALUES_PATTERN_H
#define LDBENCH_VALUES_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"

struct ldb_vp;

struct ldb_pattern {
	char *text;        /* the whole pattern as given (owned) */
	struct ldb_vp *vp; /* a value pattern (values/vpattern.h) instead of an X run (owned), or NULL */
	int slot;          /* vp's place among the run's value patterns (each client's states) */
	size_t head_len;   /* bytes before the X run */
	size_t width;      /* length of the X run; 0 = no placeholder */
	const char *tail;  /* points into text, after the run */
	size_t tail_len;
	bool zeropad; /* false with -e nozeropad */
};

/** Compile `text`.  @return 0, or -1 on allocation failure. */
int ldb_pattern_compile(struct ldb_pattern *p, const char *text, bool zeropad);
void ldb_pattern_free(struct ldb_pattern *p);

/** Compile a value an option took (`opt`, "-f" say, for the message): a value
 *  pattern when text holds a bracket expression (ldb_vp_has_brackets), else
 *  ldclt's X run.  A value with both a bracket and an X in its literal text
 *  is refused: ldclt's placeholder and a pattern cannot share one value.
 *  @return 0, or -1 with one line in err. */
int ldb_value_compile(struct ldb_pattern *p, const char *text, bool zeropad, const char *opt, char *err, size_t cap);
static inline bool ldb_pattern_has_var(const struct ldb_pattern *p)
{
	return p->width > 0;
}

/** Decimal digits of a non-negative value (1 for 0). */
int ldb_digits(int64_t v);

/** Check that every value in [lo, hi] fits the run.  @return 0, or -1 with a
 *  one-line reason in err (cap bytes), e.g. "-R 1000 needs 4 digits but the
 *  pattern 'uid=userXXX' has 3 X". */
int ldb_pattern_check_range(const struct ldb_pattern *p, int64_t lo, int64_t hi, const char *what, char *err,
                            size_t cap);

/** Render the pattern with `value` into buf.  @return length written (no NUL is
 *  added), or 0 when cap is too small.  value must be >= 0. */
size_t ldb_pattern_render(const struct ldb_pattern *p, int64_t value, char *buf, size_t cap);
/** Same, NUL-terminated (start-up use). */
size_t ldb_pattern_render_cstr(const struct ldb_pattern *p, int64_t value, char *buf, size_t cap);

/** Write the decimal form of v (>= 0), zero-padded to width when width > 0, into
 *  dst; returns the length.  The hot-path digit writer. */
size_t ldb_put_number(char *dst, int64_t v, size_t width);

/** Random strings (RNDS, the X of attreplace=): n characters from ldclt's
 *  printable set (ASCII 0x21-0x7e), less the ones a DN or a filter would have
 *  to escape (" # ( ) * + , ; < = > \), so that the string is valid as it
 *  stands in an attribute value, an RDN or a filter (82 characters). */
void ldb_put_printable(char *dst, size_t n, struct ldb_rng *rng);

/** -e string: n random bytes, 7-bit printable with ascii (0x20-0x7e), else
 *  any byte but NUL (ldclt's "string" mode). */
void ldb_put_random_bytes(uint8_t *dst, size_t n, bool ascii, struct ldb_rng *rng);

/** The bytes src[0..n) as an RFC 4514 attribute value into dst: the
 *  specials (" + , ; < = > \), a leading '#' or space, a trailing space
 *  backslash-escaped, NUL, control and non-ASCII bytes as \XX.  dst needs
 *  3n bytes.  @return the length written. */
size_t ldb_escape_dn_value(char *dst, const uint8_t *src, size_t n);

#endif
