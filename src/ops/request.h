/* Request templates: each request a run sends is encoded once at start-up (by
 * the wire module, through liblber) with its variable digits in place; the hot
 * path copies the bytes behind a fresh LDAPMessage envelope and writes the
 * digits of this operation's numbers over the patch points.  No allocation, no
 * re-encoding, and the bytes are exactly the encoder's.
 *
 * Patch points are found by encoding the request twice, with the digit run
 * filled with '0' and with '1': the bytes that differ are where the number goes.
 */
#ifndef LDBENCH_OPS_REQUEST_H
#define LDBENCH_OPS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "ops/vreq.h"
#include "values/rng.h"

/* What a request's numbers come from. */
enum ldb_field { LDB_FIELD_FILTER, LDB_FIELD_BASE, LDB_FIELD_BINDDN, LDB_FIELD_COUNT };

#define LDB_MAX_PATCH 4
struct ldb_patch {
	uint32_t off;   /* into body */
	uint16_t width; /* digits written */
	uint8_t field;  /* enum ldb_field */
};

struct ldb_tmpl {
	uint8_t *body; /* the protocolOp bytes */
	uint32_t len;
	uint8_t npatch;
	struct ldb_patch patch[LDB_MAX_PATCH];
};

/* All the templates of one request kind: variants (a random attribute, a line
 * of randombinddnfromfile) times, with nozeropad, every digit count. */
struct ldb_reqset {
	struct ldb_tmpl *t;
	size_t n;
	int nvariants;
	bool var[LDB_FIELD_COUNT];  /* field is variable in this request */
	int nd_lo[LDB_FIELD_COUNT]; /* digit counts covered (nozeropad), else width */
	int nd_hi[LDB_FIELD_COUNT];
	bool zeropad;
	size_t maxlen; /* largest framed request */
	/* a value of the request is a value pattern: one program per variant
	 * (ops/vreq.h) instead of the templates (t is then NULL) */
	struct ldb_vreq *vr;
};

/* Build the search templates (filter and base) and the bind templates from a
 * checked config.  @return 0, or -1 with one line in err.  When one of the
 * request's values is a value pattern, vr is built instead of t; ldclt's
 * varying XXX numbers and a value pattern in one request are refused. */
int ldb_reqset_build_search(struct ldb_reqset *s, const struct ldb_config *c, char *err, size_t cap);
int ldb_reqset_build_bind(struct ldb_reqset *s, const struct ldb_config *c, char *err, size_t cap);
/* A fixed request (unbind, say) from already-encoded protocolOp bytes. */
int ldb_reqset_build_fixed(struct ldb_reqset *s, const uint8_t *op, size_t len);
void ldb_reqset_free(struct ldb_reqset *s);

/* Is the request built (templates or programs)? */
static inline bool ldb_reqset_built(const struct ldb_reqset *s)
{
	return s->t != NULL || s->vr != NULL;
}

/* Hot path: write the request for `variant` and the numbers vals[] with message
 * id `msgid` into dst.  @return bytes written, 0 if cap is too small. */
size_t ldb_req_render(const struct ldb_reqset *s, int variant, const int64_t vals[LDB_FIELD_COUNT], int32_t msgid,
                      uint8_t *dst, size_t cap);

/* -e string: after ldb_req_render (zero-padded templates) wrote n bytes at
 * dst, write random bytes (7-bit with ascii) over the digits of `field`: a
 * filter's values travel unescaped in BER, so the widths stay. */
void ldb_req_fill_bytes(const struct ldb_reqset *s, int variant, int field, uint8_t *dst, size_t n, bool ascii,
                        struct ldb_rng *rng);

#endif
