/* modify: --modify OP:ATTR=PATTERN..., or ldclt's attreplace=ATTR:MASK (the
 * mask's X run random per operation) or attreplacefile=ATTR:FILE. */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

static bool asked(const struct ldb_config *c)
{
	return c->nmods > 0 || c->attreplace_attr != NULL || c->attreplacefile_attr != NULL;
}

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (mix && !asked(c)) {
		snprintf(why, cap, "--mix modify needs --modify, -e attreplace or -e attreplacefile");
		return -1;
	}
	return 0;
}

/* --modify's list, each value the pattern with the operation's number */
static int spec_mods(const struct ldb_config *c, int64_t v, struct ldb_rng *rng, struct ldb_wctx *wc)
{
	int n = 0;
	size_t used = 0;
	for (int i = 0; i < c->nmods; i++) {
		const struct ldb_modspec *m = &c->mods[i];
		if (m->val.text == NULL || m->val.text[0] == '\0') {
			wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, NULL, 0 };
			continue;
		}
		size_t len = ldb_dn_put_value(&m->val, v, wc, rng, wc->vals + used, sizeof wc->vals - used);
		if (len == 0)
			return -1;
		wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, wc->vals + used, len };
		used += len;
	}
	return n;
}

/* ldclt's attreplace: the mask's X run becomes a random string (ldclt's
 * printable set, values/pattern) */
static int attreplace_mod(const struct ldb_config *c, struct ldb_rng *rng, struct ldb_wctx *wc)
{
	const struct ldb_pattern *p = &c->attreplace_mask;
	size_t len = p->head_len + p->width + p->tail_len;
	if (len > sizeof wc->vals)
		return -1;
	memcpy(wc->vals, p->text, p->head_len);
	ldb_put_printable(wc->vals + p->head_len, p->width, rng);
	memcpy(wc->vals + p->head_len + p->width, p->tail, p->tail_len);
	wc->pm[0] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplace_attr, wc->vals, len };
	return 1;
}

/* The form: --modify wins, then attreplace, then attreplacefile. */
static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	int n;

	if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	if (c->nmods > 0)
		n = spec_mods(c, r->v, r->rng, wc);
	else if (c->attreplace_attr != NULL)
		n = attreplace_mod(c, r->rng, wc);
	else {
		wc->pm[0] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplacefile_attr, c->attreplacefile_data,
			                          c->attreplacefile_len };
		n = 1;
	}
	if (n < 0)
		return 0;
	return (long)ldb_wire_put_modify(dst, cap, r->msgid, wc->dn, wc->dnlen, wc->pm, n);
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	if (c->attreplace_attr != NULL)
		fputs(" attreplace_entries", out);
	if (c->attreplacefile_attr != NULL)
		fputs(" attreplacefile_entries", out);
}

static void print(const struct ldb_config *c, FILE *out)
{
	if (c->attreplace_attr != NULL)
		fprintf(out, LDB_VKEY "%s: \"%s\"\n", "Attreplace", c->attreplace_attr,
		        c->attreplace_mask.text ? c->attreplace_mask.text : "");
	if (c->attreplacefile_attr != NULL)
		fprintf(out, LDB_VKEY "%s: %zu bytes\n", "Attreplacefile", c->attreplacefile_attr,
		        c->attreplacefile_len);
	for (int i = 0; i < c->nmods; i++)
		fprintf(out, LDB_VKEY "%s %s \"%s\"\n", "Modify",
		        c->mods[i].op == LDB_MOD_ADD      ? "add"
		        : c->mods[i].op == LDB_MOD_DELETE ? "delete"
		                                          : "replace",
		        c->mods[i].attr, c->mods[i].val.text ? c->mods[i].val.text : "");
}

static const char *option(const struct ldb_config *c)
{
	return c->attreplace_attr != NULL       ? "-e attreplace"
	       : c->attreplacefile_attr != NULL ? "-e attreplacefile"
	                                        : "--modify";
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	return snprintf(out, cap, "Cannot modify (%.*s), error=%d (%s)", f->dnlen, f->dn, f->code, f->text);
}

/* -S: an attreplace modify is found by the random run it wrote */
static bool repl_carries(const struct ldb_config *c)
{
	return c->nmods == 0 && c->attreplace_attr != NULL;
}

/* the run: attreplace puts its one value in the scratch's pm[0] (head, run, tail) */
static size_t repl_carry(const struct ldb_config *c, const struct ldb_wctx *wc, const char **from)
{
	if (!repl_carries(c))
		return 0;
	*from = wc->pm[0].val + c->attreplace_mask.head_len;
	return c->attreplace_mask.width;
}

/* -S: the entry holds the value written: the first --modify's pattern with
 * the number (a value delete: no longer holds it), attreplace's mask with the
 * run carried, or attreplacefile's file */
static int repl_looks(const struct ldb_config *c, const struct ldb_repl_change *ch, struct ldb_repl_view *v)
{
	struct ldb_repl_look *l = &v->look[0];
	if (ldb_dn_build(c, ch->v, ch->bv, NULL, &v->wc, NULL, 0) != 0)
		return -1;
	*l = (struct ldb_repl_look){ .dn = v->wc.dn, .present = true };
	if (c->nmods > 0) {
		const struct ldb_modspec *m = &c->mods[0];
		size_t n = ldb_dn_put_pattern(&m->val, ch->v, v->val, sizeof v->val);
		if (n == 0)
			return -1;
		l->attr = m->attr;
		l->negate = m->op == LDB_MOD_DELETE;
		l->val = v->val;
		l->vlen = n;
	} else if (c->attreplace_attr != NULL) {
		const struct ldb_pattern *p = &c->attreplace_mask;
		size_t n = p->head_len + ch->len + p->tail_len;
		if (n > sizeof v->val)
			return -1;
		memcpy(v->val, p->text, p->head_len);
		memcpy(v->val + p->head_len, ch->run, ch->len);
		memcpy(v->val + p->head_len + ch->len, p->tail, p->tail_len);
		l->attr = c->attreplace_attr;
		l->val = v->val;
		l->vlen = n;
	} else {
		l->attr = c->attreplacefile_attr;
		l->val = c->attreplacefile_data;
		l->vlen = c->attreplacefile_len;
	}
	return 1;
}

/* -S: a modify is checked by the value it writes: the first --modify's (a
 * function of the number), attreplace's mask with the random run the I/O
 * thread carries to the watcher (bounded: it lives in a ring item), or
 * attreplacefile's file (bounded: the watcher's filter holds it). */
static int repl_check(const struct ldb_config *c, char *why, size_t cap)
{
	if (c->nmods > 0) {
		if (c->mods[0].val.text != NULL && c->mods[0].val.text[0] != '\0')
			return 0;
		snprintf(why, cap, "-S checks a modify by the value it writes: the first --modify needs a value");
	} else if (c->attreplace_attr != NULL && c->attreplace_mask.width > LDB_REPL_RUN)
		snprintf(why, cap,
		         "-S checks an attreplace modify by its random run: at most %d X in the mask (%zu given)",
		         LDB_REPL_RUN, c->attreplace_mask.width);
	else if (c->attreplace_attr == NULL && c->attreplacefile_attr != NULL &&
	         c->attreplacefile_len > LDB_REPL_FILE_MAX)
		snprintf(why, cap,
		         "-S checks an attreplacefile modify by the file's value: at most %d bytes (%zu given)",
		         LDB_REPL_FILE_MAX, c->attreplacefile_len);
	else
		return 0;
	return -1;
}

/* with --mix, --modify, attreplace and attreplacefile need modify in it */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	if (!mix || !asked(c))
		return 0;
	snprintf(why, cap, "%s needs modify in --mix", option(c));
	return -1;
}

const struct ldb_opdesc ldb_op_modify = {
	.name = "modify",
	.controls = LDB_CTLF_ASSERTION | LDB_CTLF_PROXY | LDB_CTLF_PREREAD | LDB_CTLF_POSTREAD | LDB_CTLF_PERMISSIVE |
	            LDB_CTLF_MANAGEDSAIT | LDB_CTLF_SESSION,
	.json = "modify",
	.monitor = "Modify",
	.snmp = "modifyentryops",
	.response = true,
	.changes = LDB_CHANGES_VALUES,
	.seen = LDB_SEEN_VALUE,
	.pass_rank = 1,
	.print_rank = 5,
	.check_at = LDB_CHECK_MIX,
	.expected = { LDAP_NO_SUCH_OBJECT },
	.asked = asked,
	.option = option,
	.dn = LDB_OPDN_FILTER,
	.check = check,
	.writes = true,
	.render = render,
	.errline = errline,
	.repl_carries = repl_carries,
	.repl_carry = repl_carry,
	.repl_looks = repl_looks,
	.repl_check = repl_check,
	.stray = stray,
	.print_mode = print_mode,
	.print = print,
};
