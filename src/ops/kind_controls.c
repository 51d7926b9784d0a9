/* Request controls per kind: see ops.h (ldb_ops_controls).  Which named
 * controls a kind carries is its row's `controls`; --control goes on every
 * kind, or on the one its KIND= names.  Set-up requests (the bind that opens
 * a connection, StartTLS, the abandons' sync, the unbind) carry none. */
#include "ops/ops.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/controls.h"
#include "values/vpattern.h"

/* The named controls of kind k, in the order of their bits. */
static int named(struct ldb_bytes *b, const struct ldb_ctlcfg *t, unsigned f, char *e)
{
	int rc = 0;
	if (f & LDB_CTLF_SORT)
		rc |= ldb_ctl_encode_sort(b, t->sort_order, e);
	if (f & LDB_CTLF_ASSERTION)
		rc |= ldb_ctl_encode_assertion(b, t->assertion, e);
	if (f & LDB_CTLF_PREREAD)
		rc |= ldb_ctl_encode_read(b, false, t->pre_read, e);
	if (f & LDB_CTLF_POSTREAD)
		rc |= ldb_ctl_encode_read(b, true, t->post_read, e);
	if (f & LDB_CTLF_PERMISSIVE)
		rc |= ldb_ctl_encode(b, LDB_CTL_PERMISSIVE_OID, false, NULL, 0, false, e);
	if (f & LDB_CTLF_MANAGEDSAIT)
		rc |= ldb_ctl_encode(b, LDB_CTL_MANAGEDSAIT_OID, false, NULL, 0, false, e);
	if (f & LDB_CTLF_SUBENTRIES)
		rc |= ldb_ctl_encode_subentries(b, t->subentries, e);
	if (f & LDB_CTLF_PPOLICY)
		rc |= ldb_ctl_encode(b, LDB_CTL_PPOLICY_OID, false, NULL, 0, false, e);
	if (f & LDB_CTLF_SESSION) {
		char host[256] = "ldbench";
		gethostname(host, sizeof host - 1);
		host[sizeof host - 1] = '\0';
		rc |= ldb_ctl_encode_session(b, "", host, t->session_id, e);
	}
	return rc != 0 ? -1 : 0;
}

static int kind_controls(struct ldb_ops_run *o, const struct ldb_config *c, int k, char *err, size_t cap)
{
	const struct ldb_ctlcfg *t = &c->ctl;
	struct ldb_bytes *b = &o->ctl[k];
	unsigned f = t->named & ldb_ops[k]->controls & ~(unsigned)LDB_CTLF_PAGED; /* paging: ops/search.c */
	if (f & LDB_CTLF_PPOLICY)
		o->want_ppolicy = true;
	if (ldb_ops[k]->nsteps > 0) /* a flow's bind carries it itself (ops/login.c), not its searches */
		f &= ~(unsigned)LDB_CTLF_PPOLICY;
	char e[LDB_WIRE_ERRLEN] = "";

	for (int i = 0; i < t->ngen; i++) {
		const struct ldb_ctlspec *s = &t->gen[i];
		if ((s->kind1 == 0 || s->kind1 == k + 1) &&
		    ldb_ctl_encode(b, s->oid, s->critical, s->value, s->vlen, s->has_value, e) != 0)
			goto fail;
	}
	if (named(b, t, f, e) != 0)
		goto fail;
	o->proxy[k] = (f & LDB_CTLF_PROXY) && t->proxy_vp != NULL;
	o->any_ctl[k] = b->len > 0 || o->proxy[k];
	if (f & LDB_CTLF_SORT)
		o->want_sort = true;
	if (f & (LDB_CTLF_PREREAD | LDB_CTLF_POSTREAD))
		o->want_read = true;
	if (o->any_ctl[k]) {
		size_t id = o->proxy[k] ? ldb_vp_max_len(t->proxy_vp) : 0;
		size_t grow = b->len + (o->proxy[k] ? ldb_ctl_proxy_len(id) : 0) + LDB_CTL_GROWTH;
		o->room[k] += grow * (ldb_ops[k]->msgids > 1 ? ldb_ops[k]->msgids : 1);
	}
	return 0;
fail:
	snprintf(err, cap, "%s's controls: %s", ldb_ops[k]->name, e);
	return -1;
}

int ldb_ops_controls(struct ldb_ops_run *o, const struct ldb_config *c, const bool used[LDB_OP_COUNT], char *err,
                     size_t cap)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (used[k] && kind_controls(o, c, k, err, cap) != 0)
			return -1;
	return 0;
}

void ldb_ops_controls_free(struct ldb_ops_run *o)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		ldb_bytes_free(&o->ctl[k]);
}
