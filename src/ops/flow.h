/* A general flow (--flow NAME, --step SPEC ...): what ops/flow.c (the rows),
 * ops/flow_parse.c (the steps read and checked) and ops/flow_put.c (the
 * search writer) share.  Not included outside src/ops/. */
#ifndef LDBENCH_OPS_FLOW_H
#define LDBENCH_OPS_FLOW_H

#include "ops/ops.h"

#define FLOW_PARTS 16 /* pieces of one argument: text, value patterns, references */
#define FLOW_VPS 8    /* value patterns in one flow (struct ldb_ops_run's vp[LDB_VP_FLOW..]) */
#define FLOW_CAPS 8   /* attribute values kept (@{N.attr:NAME}) */
#define FLOW_ATTRS 16 /* a search step's attributes */
#define FLOW_DN_MAX 1024
#define FLOW_VAL_MAX 256
#define FLOW_ARG_MAX 4096 /* the longest rendered argument */
#define FLOW_NAME_MAX 40
#define FLOW_ADD_VALUES 32 /* an add step's values */

enum { FP_LIT, FP_VP, FP_DN, FP_ATTR, FP_COUNT };
struct flow_part {
	uint8_t type; /* FP_* */
	uint8_t step; /* FP_DN, FP_ATTR, FP_COUNT: the step (0-based) it reads */
	uint8_t idx;  /* FP_VP: the pattern; FP_ATTR: the kept value */
	const char *lit;
	size_t len;
};
struct flow_tmpl {
	struct flow_part p[FLOW_PARTS];
	int n;
	size_t maxlen;
	bool given;
};

/* the arguments a step may have */
enum { FF_BASE, FF_FILTER, FF_DN, FF_VALUE, FF_PASSWORD, FF_NEWRDN, FF_NEWSUP, FF_ENTRY, FF_COUNT };

struct flow_step {
	int kind; /* enum ldb_op: the operation it sends */
	char name[FLOW_NAME_MAX];
	int scope, sizelimit, modop, deleteoldrdn;
	char *attr; /* compare, modify: the attribute; extended: the OID */
	char *attrs[FLOW_ATTRS];
	int nattrs;
	struct flow_tmpl f[FF_COUNT];
	int dnslot;  /* where its first entry's DN is kept, -1: not read later */
	bool needed; /* a later step reads its entry: none ends the flow */
	bool lk_val; /* a modify the listeners follow: it replaces their attribute with one value */
};

struct flow_cap {
	uint8_t step;
	char attr[64];
};

struct ldb_flow {
	struct flow_step step[LDB_FLOW_STEPS];
	int n;
	struct flow_cap cap[FLOW_CAPS];
	int ncap, ndn;
	struct ldb_vp *vp[FLOW_VPS];
	int nvp;
	char *text[LDB_FLOW_STEPS]; /* copies of the specs: the parts point into them */
	size_t room;                /* the largest request */
	size_t state_size;
};

/* A slot's state: per step, entries seen; the DNs and values kept after it. */
struct flow_state {
	uint8_t count[LDB_FLOW_STEPS];
	uint16_t dnlen[LDB_FLOW_STEPS];
	uint16_t caplen[FLOW_CAPS];
	bool too_long;
	bool bad;                  /* --bad-password: this flow's bind step sends a wrong one */
	int8_t lk_kind;            /* with listen_keys: the last write step's kind (enum ldb_op), -1 none */
	uint64_t lk_dnkey, lk_key; /* ... and its keys (proto/lkey.h; lk_key 0: not followed) */
	                           /* then ndn * FLOW_DN_MAX bytes of DNs, ncap * FLOW_VAL_MAX of values */
};

/* Read and check the flow of c (flow_parse.c): f filled, the value patterns
 * compiled into f->vp.  0, or -1 with one line in why. */
int ldb_flow_parse(struct ldb_flow *f, const struct ldb_config *c, char *why, size_t cap);
void ldb_flow_free(struct ldb_flow *f);
/* The kind a step's word names, or -1. */
int ldb_flow_kind(const char *word, size_t n);

/* Hot path: argument t rendered into out (cap bytes at least t->maxlen);
 * st the slot's state, vps the client's pattern states.  @return length. */
size_t ldb_flow_render_arg(const struct ldb_flow *f, const struct flow_tmpl *t, const uint8_t *st,
                           struct ldb_vp_state *const *vps, struct ldb_rng *rng, char *out);

/* Hot path (flow_put.c): a SearchRequest, the filter a string in RFC 4515's
 * syntax (no extensible match), attrs none: "1.1".  @return bytes, 0: no
 * room or not a filter it writes. */
size_t ldb_flow_put_search(uint8_t *dst, size_t cap, int32_t msgid, const char *base, size_t blen, int scope,
                           int sizelimit, const char *filter, size_t flen, char *const *attrs, int nattrs);

#endif
