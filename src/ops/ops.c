/* The table of operation kinds and what is done over all of it: see ops.h. */
#include "ops/ops.h"

#include "ops/flow.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the general flows' rows (ops/flow.c's ldb_op_flows[]) are set by ldb_ops_fill, before main */
const struct ldb_opdesc *ldb_ops[LDB_OP_COUNT] = {
	[LDB_OP_SEARCH] = &ldb_op_search,
	[LDB_OP_BIND] = &ldb_op_bind,
	[LDB_OP_ADD] = &ldb_op_add,
	[LDB_OP_MODIFY] = &ldb_op_modify,
	[LDB_OP_DELETE] = &ldb_op_delete,
	[LDB_OP_RENAME] = &ldb_op_rename,
	[LDB_OP_COMPARE] = &ldb_op_compare,
	[LDB_OP_ABANDON] = &ldb_op_abandon,
	[LDB_OP_PASSMOD] = &ldb_op_passmod,
	[LDB_OP_WHOAMI] = &ldb_op_whoami,
	[LDB_OP_EXTENDED] = &ldb_op_extended,
	[LDB_OP_LOGIN] = &ldb_op_login,
	[LDB_OP_LOGIN_GROUPS] = &ldb_op_login_groups,
};

__attribute__((constructor)) static void ldb_ops_fill(void)
{
	ldb_flow_rows_init();
	for (int k = LDB_OP_FLOW; k < LDB_OP_COUNT; k++)
		ldb_ops[k] = &ldb_op_flows[k - LDB_OP_FLOW];
}

const char *ldb_op_name(enum ldb_op op)
{
	return (unsigned)op < LDB_OP_COUNT ? ldb_ops[op]->name : "unknown";
}

int ldb_op_from_name(const char *name, size_t n, bool icase)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const char *kn = ldb_ops[k]->name;
		if (strlen(kn) == n && (icase ? strncasecmp(kn, name, n) : strncmp(kn, name, n)) == 0)
			return k;
	}
	return -1;
}

int ldb_op_from_keyword(const char *kw)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (ldb_ops[k]->keyword != NULL && strcmp(ldb_ops[k]->keyword, kw) == 0)
			return k;
	return -1;
}

bool ldb_op_given(const struct ldb_config *c, enum ldb_op k)
{
	if (ldb_ops[k]->asked_row != NULL)
		return ldb_ops[k]->asked_row(c, k);
	return ldb_ops[k]->asked != NULL ? ldb_ops[k]->asked(c) : c->weight[k] > 0;
}

int ldb_ops_pass(const struct ldb_config *c, uint8_t pass[LDB_OP_COUNT])
{
	bool in[LDB_OP_COUNT];
	int n = 0;

	for (int k = 0; k < LDB_OP_COUNT; k++)
		in[k] = c->weight[k] > 0;
	if (c->delete_after_add && in[LDB_OP_ADD])
		in[LDB_OP_DELETE] = true;
	for (int rank = 0; rank < LDB_OP_COUNT; rank++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (in[k] && ldb_ops[k]->pass_rank == rank)
				pass[n++] = (uint8_t)k;
	if (n == 0)
		pass[n++] = (uint8_t)LDB_OPS_WITH(fallback);
	return n;
}

int ldb_ops_flagged(size_t flag)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (*(const bool *)((const char *)ldb_ops[k] + flag))
			return k;
	return -1;
}

int ldb_ops_check(const struct ldb_config *c, enum ldb_op_check_at at, char *why, size_t cap)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		enum ldb_op_check_at when = ldb_ops[k]->check_at;
		if (c->mix && when != LDB_CHECK_ENTRIES)
			when = LDB_CHECK_MIX;
		if (c->weight[k] > 0 && when == at && ldb_ops[k]->check != NULL &&
		    ldb_ops[k]->check(c, c->mix, why, cap) != 0)
			return -1;
	}
	return 0;
}

int ldb_ops_strays(const struct ldb_config *c, char *why, size_t cap)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] == 0 && ldb_ops[k]->stray != NULL && ldb_ops[k]->stray(c, c->mix, why, cap) != 0)
			return -1;
	return 0;
}

int ldb_ops_prepare(struct ldb_ops_run *o, const struct ldb_config *c, const bool used[LDB_OP_COUNT], char *err,
                    size_t cap)
{
	memset(o, 0, sizeof *o);
	o->cfg = c;
	o->listen_keys = c->listeners > 0 || c->write_record != NULL;
	/* the kind of the binds that open connections is prepared in any case */
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (used[k] || ldb_ops[k]->connect_bind) {
			const struct ldb_opdesc *d = ldb_ops[k];
			if (d->prepare != NULL && d->prepare(o, err, cap) != 0)
				return -1;
			if (d->writes) {
				o->room[k] = LDB_OP_WRITE_ROOM;
				o->scratch = true;
			}
		}
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (o->state_size[k] > o->state_room)
			o->state_room = o->state_size[k];
	return ldb_ops_controls(o, c, used, err, cap);
}

const char *ldb_op_option(enum ldb_op k, const struct ldb_config *c)
{
	return ldb_ops[k]->option != NULL ? ldb_ops[k]->option(c) : ldb_ops[k]->option_text;
}

int ldb_op_check_numbered(const struct ldb_config *c, bool mix, const char *name, char *why, size_t cap)
{
	if (c->valmode != LDB_VAL_FIXED)
		return 0;
	snprintf(why, cap, "%s %s needs -e incr or -e random (the XXX of -f numbers the entries)", mix ? "--mix" : "-e",
	         name);
	return -1;
}

void ldb_ops_free(struct ldb_ops_run *o)
{
	ldb_ops_controls_free(o);
	for (size_t i = 0; o->images != NULL && i < o->nimages; i++)
		free(o->images[i]);
	free(o->images);
	free(o->image_lens);
	o->images = NULL;
	o->nimages = 0;
	ldb_reqset_free(&o->search);
	ldb_reqset_free(&o->bind);
	ldb_reqset_free(&o->login_search);
	ldb_bytes_free(&o->login_ppolicy);
	free(o->login_cfg);
	o->login_cfg = NULL;
	if (o->flow != NULL) { /* its value patterns are o->vp's */
		memset(o->flow->vp, 0, sizeof o->flow->vp);
		o->flow->nvp = 0;
		ldb_flow_free(o->flow);
		free(o->flow);
		o->flow = NULL;
	}
	for (int i = 0; i < LDB_OPS_VP; i++) {
		ldb_vp_free(o->vp[i]);
		o->vp[i] = NULL;
	}
	free(o->ext_value);
	o->ext_value = NULL;
}

int ldb_ops_client_init(const struct ldb_ops_run *o, struct ldb_wctx *wc, unsigned client, unsigned nclients, char *err,
                        size_t cap)
{
	for (int i = 0; i < LDB_OPS_VP; i++)
		if (o->vp[i] != NULL && ldb_vp_state_new(o->vp[i], client, nclients, &wc->vps[i], err, cap) != 0)
			return -1;
	/* the entry template's value patterns: the client's share of them */
	if (o->cfg != NULL && o->cfg->objtmpl != NULL)
		return ldb_objtmpl_cursor_open(o->cfg->objtmpl, &wc->cur, client, nclients, err, cap);
	return 0;
}

void ldb_ops_print_mode(const struct ldb_config *c, FILE *out)
{
	for (int rank = 0; rank < LDB_OP_COUNT; rank++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (c->weight[k] > 0 && ldb_ops[k]->print_rank == rank) {
				if (ldb_ops[k]->print_mode != NULL)
					ldb_ops[k]->print_mode(c, out);
				else if (ldb_ops[k]->mode != NULL)
					fputs(ldb_ops[k]->mode, out);
			}
}

void ldb_ops_print(const struct ldb_config *c, bool ldclt, FILE *out)
{
	for (int rank = 0; rank < LDB_OP_COUNT; rank++)
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			void (*print)(const struct ldb_config *, FILE *) =
			        ldclt ? ldb_ops[k]->print_ldclt : ldb_ops[k]->print;
			if (c->weight[k] > 0 && ldb_ops[k]->print_rank == rank && print != NULL)
				print(c, out);
		}
}
