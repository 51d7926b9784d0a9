/* Small helpers shared by several modules: decimal formatting, reading a
 * file whole, and large arrays on huge pages. */
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

/** Ask for transparent huge pages under the malloc'd block p of n bytes,
 *  before it is first written: a block of many megabytes written once
 *  (a join's per-operation arrays) otherwise takes a page fault every 4 KiB,
 *  which was a third of the join's time.  Only the whole pages inside it; a
 *  block under 4 MiB, or a kernel that refuses (THP "never"), is left as
 *  it is.  glibc serves such blocks with their own mmap, so the advice
 *  stays with the block until it is freed. */
void ldb_hugepages(void *p, size_t n);

#endif
