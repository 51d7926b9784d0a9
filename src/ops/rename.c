/* rename (-e rename): entry N renamed to the RDN of the next number, as
 * ldclt does; withnewparent also passes the new superior (the entry's parent,
 * or --new-parent). */
#include "ops/ops.h"

#include <ldap.h>
#include <string.h>

static int check_numbered(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	return ldb_op_check_numbered(c, mix, "rename", why, cap);
}

/* The new RDN's number: ldclt draws a second number for it, so with incr
 * entry N becomes N + step (the counter moves on by two steps a rename, see
 * run/issue.c), with random another random number. */
int64_t ldb_rename_next(const struct ldb_config *c, int64_t v)
{
	int64_t lo = c->range_low, hi = c->range_high, x = v + c->incr_step;
	if (x > hi && hi >= lo)
		x = lo + (x - lo) % (hi - lo + 1);
	return x;
}

static int64_t new_number(const struct ldb_op_req *r)
{
	const struct ldb_config *c = r->ops->cfg;
	if (c->valmode == LDB_VAL_RANDOM)
		return ldb_rng_range(r->rng, c->range_low, c->range_high);
	return ldb_rename_next(c, r->v);
}

static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	size_t rdnlen = 0;
	const char *newsup = NULL;
	size_t newsuplen = 0;

	if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0)
		return 0;
	rdnlen = ldb_dn_put_value(&c->filter_pat, new_number(r), wc, r->rng, wc->aux, sizeof wc->aux);
	if (rdnlen == 0 || rdnlen >= sizeof wc->aux)
		return 0;
	if (rdnlen >= 2 && wc->aux[0] == '(' && wc->aux[rdnlen - 1] == ')') {
		memmove(wc->aux, wc->aux + 1, rdnlen - 2);
		rdnlen -= 2;
	}
	wc->aux[rdnlen] = '\0'; /* for the error line */
	if (c->withnewparent) {
		/* ldclt passes the base as the new superior: --new-parent, or the
		 * entry's own parent */
		const char *a, *val;
		size_t alen, vlen;
		ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
		size_t own = (size_t)(val + vlen - wc->dn);
		if (c->new_parent != NULL) {
			newsup = c->new_parent;
			newsuplen = strlen(c->new_parent);
		} else if (own + 1 < wc->dnlen) {
			newsup = wc->dn + own + 1;
			newsuplen = wc->dnlen - own - 1;
		}
	}
	return (long)ldb_wire_put_modrdn(dst, cap, r->msgid, wc->dn, wc->dnlen, wc->aux, rdnlen, 1, newsup, newsuplen);
}

static void print_mode(const struct ldb_config *c, FILE *out)
{
	fputs(" rename_entries", out);
	if (c->withnewparent)
		fputs(" withnewparent", out);
}

static void print(const struct ldb_config *c, FILE *out)
{
	if (c->new_parent != NULL)
		fprintf(out, LDB_VKEY "%s\n", "New parent", c->new_parent);
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	/* old DN, new RDN (kept NUL-ended in aux), the new name's parent */
	const struct ldb_config *c = f->cfg;
	const char *comma = f->dn_known ? memchr(f->dn, ',', (size_t)f->dnlen) : NULL;
	const char *parent = c->new_parent != NULL ? c->new_parent : comma != NULL ? comma + 1 : "";
	return snprintf(out, cap, "Cannot rename (%.*s, %s, %s), error=%d (%s)", f->dnlen, f->dn, f->aux, parent,
	                f->code, f->text);
}

/* The DN the rename of v gives the entry of wc->dn (incr only: the RDN of
 * the next number, under --new-parent with withnewparent, else under the
 * entry's own parent). */
static int renamed_dn(const struct ldb_config *c, const struct ldb_wctx *wc, int64_t v, char *out, size_t cap)
{
	const char *dn = wc->dn, *a, *val;
	size_t dnlen = wc->dnlen, alen, vlen;
	ldb_dn_split_rdn(dn, dnlen, &a, &alen, &val, &vlen);
	size_t rdnlen = (size_t)(val + vlen - dn);
	const char *parent = dn + rdnlen + (rdnlen < dnlen);
	if (c->withnewparent && c->new_parent != NULL)
		parent = c->new_parent;
	char rdn[1024];
	size_t n = ldb_dn_put_pattern(&c->filter_pat, ldb_rename_next(c, v), rdn, sizeof rdn - 1);
	if (n == 0)
		return -1;
	const char *r = rdn;
	if (n >= 2 && rdn[0] == '(' && rdn[n - 1] == ')') {
		r++;
		n -= 2;
	}
	int w = snprintf(out, cap, "%.*s,%s", (int)n, r, parent);
	return w > 0 && (size_t)w < cap ? 0 : -1;
}

/* -S: the new DN exists, then the old one is gone */
static int repl_looks(const struct ldb_config *c, const struct ldb_repl_change *ch, struct ldb_repl_view *v)
{
	if (ldb_dn_build(c, ch->v, ch->bv, NULL, &v->wc, NULL, 0) != 0 ||
	    renamed_dn(c, &v->wc, ch->v, v->dn2, sizeof v->dn2) != 0)
		return -1;
	v->look[0] = (struct ldb_repl_look){ .dn = v->dn2, .present = true };
	v->look[1] = (struct ldb_repl_look){ .dn = v->wc.dn, .present = false };
	return 2;
}

/* -S: a rename is checked by its new RDN */
static int repl_check(const struct ldb_config *c, char *why, size_t cap)
{
	if (c->valmode != LDB_VAL_RANDOM)
		return 0;
	snprintf(why, cap,
	         "-S checks a rename by its new RDN: with random the new number is drawn apart (as ldclt); use incr");
	return -1;
}

static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	(void)mix;
	if (!c->withnewparent)
		return 0;
	snprintf(why, cap, "-e withnewparent needs -e rename");
	return -1;
}

const struct ldb_opdesc ldb_op_rename = {
	.name = "rename",
	.controls = LDB_CTLF_ASSERTION | LDB_CTLF_PROXY | LDB_CTLF_PREREAD | LDB_CTLF_POSTREAD | LDB_CTLF_MANAGEDSAIT |
	            LDB_CTLF_SESSION,
	.json = "rename",
	.keyword = "rename",
	.monitor = "Modrdn",
	.snmp = "modifyrdnops",
	.response = true,
	.pair = true,
	.changes = LDB_CHANGES_ENTRIES,
	.pass_rank = 6,
	.print_rank = 4,
	.expected = { LDAP_ALREADY_EXISTS, LDAP_NO_SUCH_OBJECT, LDAP_PROTOCOL_ERROR },
	.option_text = "-e rename",
	.dn = LDB_OPDN_FILTER,
	.check = check_numbered,
	.writes = true,
	.render = render,
	.errline = errline,
	.repl_looks = repl_looks,
	.repl_check = repl_check,
	.seen = LDB_SEEN_MOVED, /* --listeners: by its new DN (incr: random's new number is drawn apart) */
	.stray = stray,
	.print_mode = print_mode,
	.print = print,
};
