/* Rendering of the write requests (add, modify, delete, rename, compare) for
 * one operation number, straight into a connection's output buffer, with no
 * allocation: the DN and values are built in the worker's scratch (struct
 * ldb_wctx) and written by the wire module's hot-path writers. */
#ifndef LDBENCH_OPS_WRITE_H
#define LDBENCH_OPS_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "cli/config.h"
#include "values/objtmpl.h"
#include "values/rng.h"
#include "proto/wire.h"

/* Which modify: ldclt's attreplace (random letters), attreplacefile, or --modify. */
enum ldb_modform { LDB_MODF_SPEC, LDB_MODF_ATTREPLACE, LDB_MODF_ATTREPLACEFILE };

#define LDB_DN_MAX 4096

struct ldb_wctx {
	char dn[LDB_DN_MAX];        /* the DN of the last rendered request */
	size_t dnlen;
	char aux[LDB_DN_MAX];       /* new RDN, values */
	char vals[8192];
	struct ldb_put_value pv[LDB_OBJ_MAX_ATTRS + 8];
	struct ldb_put_mod pm[10];
	struct ldb_objtmpl_cursor cur;
	char *scratch;              /* objtmpl rendering, ldb_objtmpl_max_size bytes */
	size_t scratch_cap;
};

int ldb_wctx_init(struct ldb_wctx *wc, const struct ldb_config *c);
void ldb_wctx_free(struct ldb_wctx *wc);

/* The modify form a run uses for LDB_OP_MODIFY (--modify wins, then attreplace). */
enum ldb_modform ldb_modform_of(const struct ldb_config *c);

/* Render one request of kind k (ADD, MODIFY, DELETE, RENAME or COMPARE) for
 * operation number v (and base number bv with randombase).
 * @return bytes written; 0 when cap is too small or the DN does not fit;
 *         -1 when an entry template has passed the top of a NOLOOP field. */
long ldb_write_render(const struct ldb_config *c, enum ldb_op k, int64_t v, int64_t bv, struct ldb_wctx *wc,
                      struct ldb_rng *rng, int32_t msgid, uint8_t *dst, size_t cap);

/* The ancestor `level` RDNs above dn (1 = the parent) as an entry to add:
 * organizationalUnit for ou=, organization for o=, organizationalRole for cn=,
 * dcObject+organization for dc=, locality for l=, else extensibleObject.
 * @return bytes written; 0 if there is no such ancestor or no room. */
size_t ldb_write_render_parent(const char *dn, size_t dnlen, int level, int32_t msgid, uint8_t *dst, size_t cap);

#endif
