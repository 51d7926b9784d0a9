/* Small helpers shared by several modules: decimal formatting and reading a
 * file whole. */
#ifndef LDBENCH_UTIL_UTIL_H
#define LDBENCH_UTIL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** The most bytes ldb_u64_dec writes (UINT64_MAX has 20 digits). */
#define LDB_U64_DEC_MAX 20

/** Write v in decimal at dst (at most LDB_U64_DEC_MAX bytes, no NUL).
 *  @return the number of bytes written. */
size_t ldb_u64_dec(char *dst, uint64_t v);

/** Read what is left of f into a new malloc'd buffer *buf of *len bytes plus
 *  a NUL (so buf[*len] is always there to write).  max: refuse more than max
 *  bytes (0: no limit).  f is not closed.
 *  @return 0, or -1 with errno ENOMEM (out of memory), EFBIG (more than max)
 *          or the error of the read; *buf is then NULL. */
int ldb_read_all(FILE *f, size_t max, char **buf, size_t *len);

#endif
