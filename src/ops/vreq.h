/* Requests whose values are value patterns (values/vpattern.h): a pattern's
 * value has a length of its own per operation, so ldclt's way (one template,
 * digits written over fixed places: ops/request.h) cannot carry it.
 *
 * At start-up the request is encoded once, as the XXX templates are, with
 * each bracket expression of each pattern replaced by a 3-byte marker
 * (ldb_vp_skeleton: 0x01, 0x10 + the pattern's slot, 0x40 + the bracket).
 * The encoding is then read back as BER into a short program: literal byte
 * runs (copied), holes (a bracket's value) and the elements that hold holes
 * (written with the length this operation's values give them).  Per
 * operation, each pattern the request uses is rendered once into the
 * client's buffer (struct ldb_vpc), the element lengths are summed bottom-up
 * and the request is written straight into the output: no allocation, no
 * re-encoding of the literal parts, no filter parsing.
 *
 * So a bracket's value lands as the bytes of one attribute value (a filter's
 * assertion value, a DN, a password, SASL credentials): a '*' a pattern
 * renders in a filter is a literal '*', never a substring.  A bracket that
 * does not lie inside one value (a filter made whole by a bracket) is refused
 * at start-up. */
#ifndef LDBENCH_OPS_VREQ_H
#define LDBENCH_OPS_VREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"
#include "values/pattern.h"
#include "values/rng.h"
#include "values/vpattern.h"

/* Nodes one request program may hold. */
#define LDB_VREQ_NODES 256

/* One client's value patterns: a state per pattern (its share of every
 * sequence and stream: ldb_vp_state_new with the client's number) and the
 * buffer each renders into. */
struct ldb_vpc {
	struct ldb_vp_state *st[LDB_VPATS_MAX];
	char *buf;
	size_t off[LDB_VPATS_MAX + 1]; /* pattern slot s renders at buf + off[s] */
	uint32_t len[LDB_VPATS_MAX];   /* its last value's length */
	uint32_t span[LDB_VPATS_MAX][LDB_VP_MAX_BRACKETS][2];
	uint32_t clen[LDB_VREQ_NODES]; /* element content lengths while rendering */
	int n;
	bool streams; /* some pattern streams a file: ldb_vpc_prefetch has work */
};

/* Client `client` (0-based) of `nclients`.  @return 0, or -1 with one line in err. */
int ldb_vpc_init(struct ldb_vpc *v, const struct ldb_config *c, unsigned client, unsigned nclients, char *err,
                 size_t cap);
void ldb_vpc_free(struct ldb_vpc *v);
/* Top up the stream buffers (outside the hot path: an I/O thread's idle point). */
void ldb_vpc_prefetch(struct ldb_vpc *v, const struct ldb_config *c);

/* Hot path: the next value of pattern p (p->vp set) for this client, into
 * v's buffer: *out points at it.  @return its length. */
size_t ldb_vpc_render(struct ldb_vpc *v, const struct ldb_pattern *p, struct ldb_rng *rng, const char **out);

enum { LDB_VN_LIT, LDB_VN_HOLE, LDB_VN_ELEM };
struct ldb_vnode {
	uint8_t kind;
	uint8_t slot, bracket; /* a hole: the pattern and its bracket */
	uint8_t tag;           /* an element's tag */
	uint32_t off, len;     /* a literal run: body[off..off+len) */
	uint16_t end;          /* an element: the index after its last descendant */
};

struct ldb_vreq {
	uint8_t *body; /* the encoding with markers */
	struct ldb_vnode *node;
	int n;
	const struct ldb_pattern *pat[LDB_VPATS_MAX]; /* the patterns it uses, nonzero first */
	int npat;
	size_t maxlen; /* the largest framed request */
};

/* Does any of the n patterns hold a value pattern? */
bool ldb_vreq_any(const struct ldb_pattern *const *p, int n);
/* Read an encoding (the protocolOp, then anything after it inside the
 * envelope) made with skeletons in place of c's value patterns.  @return 0,
 * or -1 with one line in err. */
int ldb_vreq_build(struct ldb_vreq *q, const uint8_t *body, size_t len, const struct ldb_config *c, char *err,
                   size_t cap);
void ldb_vreq_free(struct ldb_vreq *q);
/* Hot path: the request with message id msgid into dst.  @return bytes
 * written, 0 when cap is too small. */
size_t ldb_vreq_render(const struct ldb_vreq *q, struct ldb_vpc *v, struct ldb_rng *rng, int32_t msgid, uint8_t *dst,
                       size_t cap);

#endif
