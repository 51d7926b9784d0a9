/* The listeners' controls and messages (run/listen.h): RFC 4533 content
 * synchronization (the Sync Request control, refreshAndPersist; the Sync
 * State control on each entry; the Sync Info intermediate response) and the
 * persistent search (draft-ietf-ldapext-psearch: its control, changesOnly,
 * and the entry change notification).  The request is encoded once at
 * start-up; the readers of what the server sends are hot-path: no
 * allocation, safe on any bytes. */
#ifndef LDBENCH_PROTO_SYNCCTL_H
#define LDBENCH_PROTO_SYNCCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

#define LDB_SYNC_REQUEST_OID "1.3.6.1.4.1.4203.1.9.1.1"
#define LDB_SYNC_STATE_OID "1.3.6.1.4.1.4203.1.9.1.2"
#define LDB_SYNC_INFO_OID "1.3.6.1.4.1.4203.1.9.1.4"
#define LDB_PSEARCH_OID "2.16.840.1.113730.3.4.3"
#define LDB_ECN_OID "2.16.840.1.113730.3.4.7"

/* Sync State (RFC 4533 2.3) and entry change notification change types
 * brought to one set. */
enum { LDB_CHG_NONE = 0, LDB_CHG_PRESENT, LDB_CHG_ADD, LDB_CHG_MODIFY, LDB_CHG_DELETE, LDB_CHG_MODDN };

/* The listener's SearchRequest (subtree below base, filter, attrs: NULL all,
 * else NULL-terminated) with its control, critical: psearch false: the Sync
 * Request control, mode refreshAndPersist, no cookie; psearch true: the
 * persistent search control (every change type, changesOnly, return entry
 * change notifications).  out gets the protocolOp then, separately, ctl the
 * control (to be appended after framing: proto/controls.h ldb_ctl_append).
 * @return 0, or -1 with one line in err (LDB_WIRE_ERRLEN). */
int ldb_listen_encode(struct ldb_bytes *op, struct ldb_bytes *ctl, bool psearch, const char *base, const char *filter,
                      const char *const *attrs, char *err);

/* A SearchResultEntry's body (struct ldb_resp's): its DN, and the first
 * value of attribute attr (ASCII case-insensitive; NULL: none looked for).
 * @return false when it is not well formed (*val NULL when attr has none). */
bool ldb_entry_dn_value(const uint8_t *body, size_t len, const char *attr, size_t alen, const uint8_t **dn,
                        size_t *dnlen, const uint8_t **val, size_t *vlen);

/* The change an entry message msg[0..len) carries: its Sync State control's
 * state, or its entry change notification's type; LDB_CHG_NONE without
 * either. */
int ldb_entry_change(const uint8_t *msg, size_t len);

/* The same from the message's controls on: p the byte after its protocolOp
 * (struct ldb_resp's body + bodylen), end the message's end.  The hot
 * path's: no walk from the message's start, one pass for both controls.
 * With ck not NULL, the Sync State control's cookie too (*ckn 0: none). */
int ldb_entry_change_ctls(const uint8_t *p, const uint8_t *end, const uint8_t **ck, size_t *ckn);

/* An IntermediateResponse's body: a Sync Info message whose refresh is done
 * (refreshDelete or refreshPresent with refreshDone TRUE, or absent: its
 * default).  @return 1 done, 0 another Sync Info (or not done), -1 not a
 * Sync Info message. */
int ldb_sync_info_done(const uint8_t *body, size_t len);

/* RFC 4533 cookies (a listener's re-issued search refreshes from its last):
 * the Sync State control's cookie of an entry message msg[0..len); a Sync
 * Info message's (an IntermediateResponse's body: newcookie, or the cookie
 * of refreshDelete, refreshPresent or syncIdSet).  @return true with *ck
 * and *n (in the message) when there is one.  No allocation. */
bool ldb_sync_state_cookie(const uint8_t *msg, size_t len, const uint8_t **ck, size_t *n);
/* ldb_entry_change and, from the same control, the Sync State control's
 * cookie (*n 0: none; ck NULL: not asked). */
int ldb_entry_change_cookie(const uint8_t *msg, size_t len, const uint8_t **ck, size_t *n);
bool ldb_sync_info_cookie(const uint8_t *body, size_t len, const uint8_t **ck, size_t *n);
/* The Sync Request control (critical, refreshAndPersist) with the cookie
 * ck[0..n) (n 0: none), as ldb_listen_encode's ctl, into out[0..cap).
 * @return its length, 0 when it does not fit. */
size_t ldb_sync_request_cookie(uint8_t *out, size_t cap, const uint8_t *ck, size_t n);

#endif
