/* The dereference control (draft-masarati-ldap-deref, OID
 * 1.3.6.1.4.1.4203.666.5.16): the request's Controls for -e deref, encoded once
 * at start-up, and the count of dereferenced values in a search entry's
 * response control, read in the hot path without allocation. */
#ifndef LDBENCH_PROTO_DEREF_H
#define LDBENCH_PROTO_DEREF_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

#define LDB_DEREF_OID "1.3.6.1.4.1.4203.666.5.16"

/* Append "[0] Controls" holding one non-critical deref control that asks,
 * for each DN value of attr, the attribute target of the entry it names.
 * @return 0, or -1 with one line in err (LDB_WIRE_ERRLEN bytes). */
int ldb_deref_encode_controls(struct ldb_bytes *out, const char *attr, const char *target, char *err);

/* The whole LDAPMessage msg[0..len) (a SearchResultEntry): the number of
 * DerefRes in its deref response control, 0 when it has none or the bytes are
 * not well formed. */
uint64_t ldb_deref_count(const uint8_t *msg, size_t len);

#endif
