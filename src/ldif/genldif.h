/* -e genldif=FILE: the entries of the add workload written as LDIF instead of
 * being added, and the entry shapes of ldclt's hard-coded classes (shared by
 * genldif and the add workload so the two always agree). */
#ifndef LDBENCH_GENLDIF_H
#define LDBENCH_GENLDIF_H

#include <stddef.h>

#include "cli/config.h"
#include "proto/wire.h"

/* The most values ldb_class_entry() writes. */
#define LDB_CLASS_ENTRY_MAX 8

/** The attribute values of an entry of class add_class (LDB_CLASS_PERSON,
 *  _EMAILPERSON, _INETORGPERSON) whose RDN is rdn_attr=rdn_val.
 *
 *  person:        objectClass top, person; cn and sn = the RDN value; the RDN
 *                 attribute too when it is neither cn nor sn.
 *  inetOrgPerson: objectClass top, person, organizationalPerson, inetOrgPerson;
 *                 cn, sn and the RDN attribute as for person.
 *  emailPerson:   as inetOrgPerson, plus mail: <value>@example.com (the value
 *                 itself when it holds an '@'; nothing more when the RDN
 *                 attribute is mail).  emailPerson is a Netscape class that
 *                 OpenLDAP's schema lacks, hence inetOrgPerson.
 *
 *  No allocation: types and values point to static strings or to rdn_attr /
 *  rdn_val, except the emailPerson mail value, which points into a per-thread
 *  buffer valid until the calling thread's next call.  rdn_attr must be
 *  NUL-terminated at alen (rdn_attr[alen] == '\0'): it becomes a type.
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
