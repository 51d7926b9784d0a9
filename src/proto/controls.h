/* Request controls (RFC 4511 4.1.11) on every request of a load, and the
 * response controls a load counts.
 *
 * Start-up: each control is encoded once (liblber) as one Control SEQUENCE;
 * the controls of one kind of request are those bytes one after another.
 * Hot path: ldb_ctl_append() puts them, and a proxied authorization control
 * whose identity is rendered per request, into the "[0] Controls" of every
 * LDAPMessage a renderer wrote, merging with controls a template already
 * carries (-e deref's); no allocation, minimal DER lengths.
 * Responses: ldb_ctl_find() finds a control by OID in one LDAPMessage, safe on
 * any bytes; the sort result and pre/post-read entries are read from it. */
#ifndef LDBENCH_PROTO_CONTROLS_H
#define LDBENCH_PROTO_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

#define LDB_CTL_SORT_OID "1.2.840.113556.1.4.473"         /* RFC 2891 request */
#define LDB_CTL_SORT_RESP_OID "1.2.840.113556.1.4.474"    /* RFC 2891 response */
#define LDB_CTL_ASSERTION_OID "1.3.6.1.1.12"              /* RFC 4528 */
#define LDB_CTL_PROXY_OID "2.16.840.1.113730.3.4.18"      /* RFC 4370, proxied authorization v2 */
#define LDB_CTL_PREREAD_OID "1.3.6.1.1.13.1"              /* RFC 4527 */
#define LDB_CTL_POSTREAD_OID "1.3.6.1.1.13.2"             /* RFC 4527 */
#define LDB_CTL_PERMISSIVE_OID "1.2.840.113556.1.4.1413"  /* permissive modify (MS-ADTS) */
#define LDB_CTL_MANAGEDSAIT_OID "2.16.840.1.113730.3.4.2" /* RFC 3296 */
#define LDB_CTL_SUBENTRIES_OID "1.3.6.1.4.1.4203.1.10.1"  /* RFC 3672 */
#define LDB_CTL_SESSION_OID "1.3.6.1.4.1.21008.108.63.1"  /* draft-wahl-ldap-session */
/* the session tracking identifier's format: a user name */
#define LDB_CTL_SESSION_USERNAME_OID "1.3.6.1.4.1.21008.108.63.1.3"
#define LDB_CTL_PAGED_OID "1.2.840.113556.1.4.319"      /* RFC 2696 */
#define LDB_CTL_PPOLICY_OID "1.3.6.1.4.1.42.2.27.8.5.1" /* draft-behera-ldap-password-policy */

/* The password policy response's warnings and errors, counted by name
 * (ldb_ppolicy_name): the two warnings, then the errors in the draft's
 * order (error n is LDB_PP_ERROR + n), then an error number it does not name. */
enum {
	LDB_PP_EXPIRATION, /* timeBeforeExpiration */
	LDB_PP_GRACE,      /* graceAuthNsRemaining */
	LDB_PP_ERROR,      /* passwordExpired (0) ... passwordInHistory (8) */
	LDB_PP_OTHER = LDB_PP_ERROR + 9,
	LDB_PP_COUNT
};
const char *ldb_ppolicy_name(int i);

/* A numeric OID (RFC 4512 numericoid: arcs of digits, no leading zero, at
 * least two arcs). */
bool ldb_ctl_oid_valid(const char *oid, size_t len);

/* Start-up encoders: each appends one Control to out.  @return 0, or -1 with
 * one line in err (LDB_WIRE_ERRLEN bytes). */
int ldb_ctl_encode(struct ldb_bytes *out, const char *oid, bool critical, const uint8_t *val, size_t vlen,
                   bool has_value, char *err);
/* RFC 2891 from UnboundID's sort order: keys separated by commas, each an
 * attribute with an optional leading '+' (ascending, the default) or '-'
 * (descending) and an optional ":orderingRule".  Not critical. */
int ldb_ctl_encode_sort(struct ldb_bytes *out, const char *keys, char *err);
/* RFC 4528: the filter (RFC 4515), critical. */
int ldb_ctl_encode_assertion(struct ldb_bytes *out, const char *filter, char *err);
/* RFC 4527: the attributes, separated by commas; post: the post-read
 * control, else the pre-read one.  Critical. */
int ldb_ctl_encode_read(struct ldb_bytes *out, bool post, const char *attrs, char *err);
/* RFC 3672: visibility TRUE (only subentries) or FALSE.  Critical. */
int ldb_ctl_encode_subentries(struct ldb_bytes *out, bool visibility, char *err);
/* draft-wahl-ldap-session: source IP and name, the user-name format and id.
 * Not critical. */
int ldb_ctl_encode_session(struct ldb_bytes *out, const char *ip, const char *name, const char *id, char *err);

/* The bytes a proxied authorization control (critical) with an identity of
 * idlen bytes takes. */
size_t ldb_ctl_proxy_len(size_t idlen);

/* Hot path: append the controls fixed[0..flen) and, when proxy is not NULL,
 * a proxied authorization control for proxy[0..plen), to every LDAPMessage
 * in dst[0..n).  @return the new length, or 0 when cap is too small or dst
 * does not hold whole, well-formed messages.  No allocation. */
size_t ldb_ctl_append(uint8_t *dst, size_t n, size_t cap, const uint8_t *fixed, size_t flen, const char *proxy,
                      size_t plen);
/* The most one message grows by for controls of clen bytes (headers). */
#define LDB_CTL_GROWTH 12

/* Hot path: a simple paged results control (RFC 2696, not critical) asking
 * for pages of size entries, with the server's cookie (clen 0: the first
 * page), into out.  @return its length, 0 when cap is too small. */
size_t ldb_ctl_put_paged(uint8_t *out, size_t cap, uint32_t size, const uint8_t *cookie, size_t clen);
/* Its length at most, for a cookie of clen bytes. */
#define LDB_CTL_PAGED_MAX(clen) ((clen) + 48)

/* Responses (hot path, safe on any bytes): the value of the control named
 * oid in the LDAPMessage msg[0..len).  @return true when it is there (*val,
 * *vlen: its value, empty when it has none). */
bool ldb_ctl_find(const uint8_t *msg, size_t len, const char *oid, const uint8_t **val, size_t *vlen);
/* The sortResult of an RFC 2891 response control's value, or -1 when it is
 * not well formed. */
int ldb_ctl_sort_result(const uint8_t *val, size_t vlen);
/* A pre-read or post-read response control's value is one entry
 * (SearchResultEntry): true when it is well formed. */
bool ldb_ctl_read_entry(const uint8_t *val, size_t vlen);
/* The cookie in a paged results response control's value: true when it is
 * well formed (*cookie, *clen: the cookie, empty on the last page). */
bool ldb_ctl_paged_cookie(const uint8_t *val, size_t vlen, const uint8_t **cookie, size_t *clen);
/* A password policy response control's value: its warning (*warning: an
 * LDB_PP_ index, or -1 without one) and error (*error: LDB_PP_ERROR + n,
 * LDB_PP_OTHER, or -1).  @return false when it is not well formed. */
bool ldb_ctl_ppolicy(const uint8_t *val, size_t vlen, int *warning, int *error);

#endif
