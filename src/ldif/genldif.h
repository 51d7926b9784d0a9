/* -e genldif=FILE: the entries of the add workload written as LDIF instead of
 * being added.  The entries come from the entry module (ldif/entry.h), as the
 * add workload's do, so the two always agree. */
#ifndef LDBENCH_GENLDIF_H
#define LDBENCH_GENLDIF_H

#include <stddef.h>

#include "cli/config.h"
#include "ldif/entry.h"
#include "proto/wire.h"

/* The most values ldb_class_entry() writes. */
#define LDB_CLASS_ENTRY_MAX LDB_ENTRY_CLASS_MAX

/** Compatibility form of ldb_entry_class() (ldif/entry.h) for callers that
 *  have no text storage: the entry of class add_class (LDB_CLASS_*) whose RDN
 *  is rdn_attr=rdn_val into out[0..max).  rdn_attr must be NUL-terminated at
 *  alen (it becomes a type); the emailPerson mail value points into a
 *  per-thread buffer valid until the calling thread's next call.
 *  New code: ldb_entry_init() on its own arrays, then ldb_entry_class() or
 *  ldb_entry_add().
 *  @return the number of values written to out, or -1 (unknown class, max too
 *  small, rdn_attr not terminated, value too long for the mail buffer). */
int ldb_class_entry(int add_class, const char *rdn_attr, size_t alen, const char *rdn_val, size_t vlen,
                    struct ldb_put_value *out, int max);

/** Write the entries to c->genldif_file (appending with c->genldif_append):
 *  -T entries, or until a NOLOOP field (or incr,noloop past -R) ends them.
 *  Prints "NAME[PID]: ..." lines on stdout, errors on stderr.
 *  @return the exit status (0, or LDB_EXIT_INIT when the file cannot be
 *  written). */
int ldb_genldif_run(const struct ldb_config *c);

#endif
