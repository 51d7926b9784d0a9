/* -e genldif=FILE (ldclt's keyword, a mode of the load command; the datasets
 * of `ldbench gen` are src/gen/): the entries of the add workload written as
 * LDIF instead of being added.  The entries come from the entry module
 * (ldif/entry.h), as the add workload's do, so the two always agree. */
#ifndef LDBENCH_CMD_ADD_LDIF_H
#define LDBENCH_CMD_ADD_LDIF_H

#include <stddef.h>

#include "conf/config.h"
#include "ldif/entry.h"
#include "proto/wire.h"

/** Write the entries to c->genldif_file (appending with c->genldif_append):
 *  -T entries, or until a NOLOOP field (or incr,noloop past -R) ends them.
 *  Prints "NAME[PID]: ..." lines on stdout, errors on stderr.
 *  @return the exit status (0, or LDB_EXIT_INIT when the file cannot be
 *  written). */
int ldb_genldif_run(const struct ldb_config *c);

#endif
