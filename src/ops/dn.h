/* What the write kinds share: a client's scratch (struct ldb_wctx) and the
 * entry DN of one operation number (RDN from -f, then -b). */
#ifndef LDBENCH_OPS_DN_H
#define LDBENCH_OPS_DN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "values/objtmpl.h"
#include "values/pattern.h"
#include "values/vpattern.h"
#include "proto/wire.h"

#define LDB_DN_MAX 4096
/* Value patterns the kinds compile at start-up (struct ldb_ops_run's vp[]),
 * each with one state per client here (ops.h's enum ldb_ops_vp). */
#define LDB_WCTX_VPS 13

struct ldb_vpc;

struct ldb_wctx {
	char dn[LDB_DN_MAX]; /* the DN of the last rendered request */
	size_t dnlen;
	char aux[LDB_DN_MAX]; /* new RDN, values */
	char vals[8192];
	struct ldb_put_value pv[LDB_OBJ_MAX_ATTRS + 8];
	struct ldb_put_mod pm[10];
	struct ldb_objtmpl_cursor cur;
	char *scratch; /* objtmpl rendering, ldb_objtmpl_max_size bytes */
	size_t scratch_cap;
	char rawval[LDB_DN_MAX]; /* -e string: the RDN's value unescaped (the add's attribute) */
	size_t rawlen;
	size_t next_image;                      /* -e imagesdir: the client's next file, in turn */
	struct ldb_vpc *vpc;                    /* the client's value patterns (ops/vreq.h), NULL when none */
	struct ldb_vp_state *vps[LDB_WCTX_VPS]; /* the client's states of the kinds' own value patterns */
};

int ldb_wctx_init(struct ldb_wctx *wc, const struct ldb_config *c);
void ldb_wctx_free(struct ldb_wctx *wc);

/* The pattern rendered with v into dst (no NUL).  0 when it does not fit. */
size_t ldb_dn_put_pattern(const struct ldb_pattern *p, int64_t v, char *dst, size_t cap);

/* The same for a value that may be a value pattern (p->vp: the client's
 * next value of it, from wc->vpc and rng). */
size_t ldb_dn_put_value(const struct ldb_pattern *p, int64_t v, struct ldb_wctx *wc, struct ldb_rng *rng, char *dst,
                        size_t cap);

/* wc->dn = the RDN (rdn, or -f rendered with v, one pair of outer
 * parentheses dropped), ",", the base (rendered with bv under randombase).
 * With -e string, -f's X run is random bytes from rng instead of v, escaped
 * (RFC 4514), and wc->rawval holds the RDN's value unescaped.
 * @return 0, or -1 when it does not fit. */
int ldb_dn_build(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_rng *rng, struct ldb_wctx *wc,
                 const char *rdn, size_t rdnlen);

/* attr=value of the RDN at the start of s (up to the first unescaped ','
 * or '+', or the end). */
void ldb_dn_split_rdn(const char *s, size_t len, const char **attr, size_t *alen, const char **val, size_t *vlen);

#endif
