/* LDIF value lines (RFC 2849): the SAFE-STRING check, base64 (RFC 4648) and
 * "type: value" / "type:: base64" lines, shared by every LDIF writer (gen,
 * -e genldif).  Lines are never folded: every reader we feed (slapadd,
 * ldapadd, ldapmodify, dsctl ldif2db) takes long lines. */
#ifndef LDBENCH_LDIF_LDIF_H
#define LDBENCH_LDIF_LDIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "util/base64.h"

/** RFC 2849: true when the value may be written as is: SAFE-INIT-CHAR then
 *  SAFE-CHARs (ASCII, no NUL, LF or CR, not starting with space, ':' or '<'),
 *  and, by the RFC's advice, not ending with a space.  The empty value is safe. */
bool ldb_ldif_safe(const char *v, size_t n);

/** The most bytes ldb_ldif_put_line writes for a type of tlen and a value of vlen. */
static inline size_t ldb_ldif_line_max(size_t tlen, size_t vlen)
{
	return tlen + 3 + ldb_base64_len(vlen) + 1;
}

/** "type: value\n", or "type:: base64\n" when the value is not safe, at dst
 *  (ldb_ldif_line_max(tlen, vlen) bytes of room).  No allocation.
 *  @return the bytes written. */
size_t ldb_ldif_put_line(char *dst, const char *type, size_t tlen, const char *v, size_t vlen);

/** The same line written to f.  @return 0, or -1 when f has an error. */
int ldb_ldif_fput_line(FILE *f, const char *type, size_t tlen, const char *v, size_t vlen);

#endif
