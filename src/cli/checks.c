/* After the options are read: the patterns compiled, the kinds' weights, and
 * every cross-check of the options together (each kind's own through its row). */
#include "cli/ctx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/fail_if.h"
#include "values/pattern.h"
#include "values/vpattern.h"
#include "util/util.h"
#include "proto/wire.h"
#include "ops/ops.h"

static const char *valmode_kw(enum ldb_valmode m)
{
	return m == LDB_VAL_INCR ? "incr" : "random";
}

int cli_check_range_given(struct cli_ctx *x, const char *kw, long long lo, long long hi, const char *lo_name,
                          const char *hi_name)
{
	if (lo < 0 || hi < 0)
		return cli_fail(x, "-e %s needs %s and %s", kw, lo_name, hi_name);
	if (lo > hi)
		return cli_fail(x, "-e %s: %s %lld is above %s %lld", kw, lo_name, lo, hi_name, hi);
	return 0;
}

/* A value pattern's first value for one client (seed 1): a real sample to check. */
static char *sample_alloc(struct cli_ctx *x, const struct ldb_pattern *p)
{
	size_t cap = ldb_vp_max_len(p->vp) + 1;
	struct ldb_vp_state *st = NULL;
	struct ldb_rng rng;
	char err[256], *s = malloc(cap);

	if (s == NULL || ldb_vp_state_new(p->vp, 0, 1, &st, err, sizeof err) != 0) {
		free(s);
		cli_fail(x, "%s", s == NULL ? "out of memory" : err);
		return NULL;
	}
	ldb_rng_seed(&rng, 1, 0);
	s[ldb_vp_render(p->vp, st, &rng, s, cap)] = '\0';
	ldb_vp_state_free(st);
	return s;
}

/* Render p with v into a fresh string (start-up use); with subst false the
 * text is taken as it is (its X are literal). */
static char *render_alloc(struct cli_ctx *x, const struct ldb_pattern *p, long long v, bool subst)
{
	size_t cap = strlen(p->text) + 32;
	char *s;

	if (p->vp != NULL)
		return sample_alloc(x, p);
	s = malloc(cap);
	if (s == NULL) {
		cli_oom(x);
		return NULL;
	}
	if (!subst || !ldb_pattern_has_var(p)) {
		memcpy(s, p->text, strlen(p->text) + 1);
		return s;
	}
	ldb_pattern_render_cstr(p, v < 0 ? 0 : v, s, cap);
	return s;
}

static int check_dn(struct cli_ctx *x, const char *opt, const struct ldb_pattern *p, bool subst, long long v)
{
	char *dn = render_alloc(x, p, v, subst);
	bool ok;

	if (dn == NULL)
		return -1;
	ok = cli_dn_is_valid(dn);
	if (!ok)
		cli_fail(x, "%s '%s': invalid DN", opt, dn);
	free(dn);
	return ok ? 0 : -1;
}

/* -f's skeleton (its brackets as markers, ops/vreq.h) is a filter. */
static int skeleton_filter(const struct ldb_config *c)
{
	size_t n = strlen(c->filter) + 3;
	char *sk = malloc(n + 2);
	struct ldb_bytes b = { 0 };
	char why[LDB_WIRE_ERRLEN];
	int rc = -1;

	if (sk != NULL && ldb_vp_skeleton(c->filter_pat.vp, sk + 1, n, 0x10) > 0) {
		bool paren = sk[1] == '(';
		sk[0] = '(';
		if (!paren)
			strcat(sk, ")");
		rc = ldb_filter_encode(&b, paren ? sk + 1 : sk, why);
	}
	ldb_bytes_free(&b);
	free(sk);
	return rc;
}

static int check_filter(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char *f, *g;
	struct ldb_bytes b = { 0 };
	char why[LDB_WIRE_ERRLEN] = "";
	int rc;

	f = render_alloc(x, &c->filter_pat, c->range_low, c->valmode != LDB_VAL_FIXED);
	if (f == NULL)
		return -1;
	/* ldclt's filters are often bare ("cn=x"): libldap adds the parentheses */
	if (f[0] != '(') {
		size_t n = strlen(f);

		g = malloc(n + 3);
		if (g == NULL) {
			free(f);
			return cli_oom(x);
		}
		g[0] = '(';
		memcpy(g + 1, f, n);
		g[n + 1] = ')';
		g[n + 2] = '\0';
	} else {
		g = f;
		f = NULL;
	}
	rc = ldb_filter_encode(&b, g, why);
	ldb_bytes_free(&b);
	if (rc == 0 && c->filter_pat.vp != NULL && skeleton_filter(c) != 0) {
		free(f);
		free(g);
		return cli_fail(x,
		                "-f '%s': a value pattern's bracket must stand inside one value of the filter (the "
		                "filter is encoded once, its values filled per operation)",
		                c->filter);
	}
	if (rc != 0) {
		why[sizeof(why) - 1] = '\0';
		cli_fail(x, "-f '%s': invalid filter%s%s", c->filter, why[0] ? ": " : "", why);
	}
	free(f);
	free(g);
	return rc != 0 ? -1 : 0;
}

/* One of ldclt's value flags: a value pattern when it holds a bracket expression. */
static int value(struct cli_ctx *x, struct ldb_pattern *p, const char *text, const char *opt)
{
	char err[768];

	if (text == NULL)
		return 0;
	if (ldb_value_compile(p, text, x->c->zeropad, opt, err, sizeof err) == 0)
		return 0;
	if (strcmp(opt, "-w") != 0)
		return cli_fail(x, "%s", err);
	/* a password is never echoed: the problem without the value */
	const char *col = strstr(err, " column ");
	const char *xxx = strstr(err, ": ldclt's XXX");
	return cli_fail(x, "-w: %s%s", col != NULL ? "value pattern," : "value",
	                col != NULL   ? col
	                : xxx != NULL ? xxx
	                              : ": bad value pattern");
}

/* A search or a bind would hold both a varying XXX and a value pattern (the
 * templates patch fixed places, the value patterns' programs have none). */
static bool mixed_request(const struct ldb_config *c)
{
	bool search = false;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		search |= c->weight[k] > 0 && ldb_ops[k]->filter;
	if (search && (c->filter_pat.vp != NULL || c->base_pat.vp != NULL) &&
	    ((c->valmode != LDB_VAL_FIXED && ldb_pattern_has_var(&c->filter_pat)) ||
	     (c->randombase && ldb_pattern_has_var(&c->base_pat))))
		return true;
	return (c->bind_dn_pat.vp != NULL || c->password_pat.vp != NULL || c->sasl_authid_pat.vp != NULL) &&
	       ((c->randombinddn && ldb_pattern_has_var(&c->bind_dn_pat)) ||
	        (c->randomauthid && ldb_pattern_has_var(&c->sasl_authid_pat)));
}

/* The values that are value patterns, in slot order. */
static int collect_vpats(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	struct ldb_pattern *all[5 + 8 + 1] = { &c->base_pat, &c->filter_pat, &c->bind_dn_pat, &c->password_pat,
		                               &c->sasl_authid_pat };
	int n = 5;

	for (int i = 0; i < c->nmods; i++)
		all[n++] = &c->mods[i].val;
	all[n++] = &c->compare_val;
	c->nvpats = 0;
	for (int i = 0; i < n; i++) {
		if (all[i]->vp == NULL)
			continue;
		if (c->nvpats == LDB_VPATS_MAX)
			return cli_fail(x, "more than %d values are value patterns", LDB_VPATS_MAX);
		all[i]->slot = c->nvpats;
		c->vpats[c->nvpats++] = all[i];
	}
	if (mixed_request(c))
		return cli_fail(x,
		                "ldclt's XXX numbers (-e random, incr, randombase, randombinddn, randomauthid) and a "
		                "value pattern cannot share one request: write each varying value as a pattern");
	if (c->nvpats > 0 && c->nrepl > 0)
		return cli_fail(x,
		                "-S and value patterns exclude each other: the watchers rebuild a change from "
		                "ldclt's numbers (value '%s')",
		                c->vpats[0]->text);
	return 0;
}

int cli_compile_patterns(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (value(x, &c->base_pat, c->base, "-b") != 0 || value(x, &c->filter_pat, c->filter, "-f") != 0 ||
	    value(x, &c->bind_dn_pat, c->bind_dn, "-D") != 0 || value(x, &c->password_pat, c->password, "-w") != 0 ||
	    value(x, &c->sasl_authid_pat, c->sasl_authid, "-o authid") != 0)
		return -1;
	/* compiled as given; nozeropad may have come after them */
	for (int i = 0; i < c->nmods; i++)
		c->mods[i].val.zeropad = c->zeropad;
	c->compare_val.zeropad = c->zeropad;
	return collect_vpats(x);
}

/* Some kind of the run sends -f as a search filter. */
static bool filter_used(const struct ldb_config *c)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] > 0 && ldb_ops[k]->filter)
			return true;
	return false;
}

/* Some kind (by its keyword, its options or --mix) is asked for. */
static bool ops_given(const struct ldb_config *c)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (ldb_op_given(c, (enum ldb_op)k))
			return true;
	return false;
}

/* Whether -f is (also) the RDN pattern of the entries: "attr=value" with the
 * XXX, the DN being "<rdn>,<base>". */
static bool rdn_from_filter(const struct ldb_config *c)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (ldb_op_given(c, (enum ldb_op)k) &&
		    (ldb_ops[k]->dn == LDB_OPDN_FILTER ||
		     (ldb_ops[k]->dn == LDB_OPDN_FILTER_OR_RDN && c->rdn_spec == NULL)))
			return true;
	return c->genldif_file != NULL && c->rdn_spec == NULL;
}

/* The option of the first kind given (in -v's order) that passes the test,
 * for the messages; NULL if none. */
static const char *first_option(const struct ldb_config *c, bool names_entries)
{
	for (int rank = 0; rank < LDB_OP_COUNT; rank++)
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (ldb_ops[k]->print_rank == rank && ldb_op_given(c, (enum ldb_op)k) &&
			    (!names_entries || ldb_ops[k]->dn != LDB_OPDN_NONE))
				return ldb_op_option((enum ldb_op)k, c);
	return NULL;
}

/* The name of the first operation that takes its entries from -f, for the messages. */
static const char *first_rdn_user(const struct ldb_config *c)
{
	const char *o = c->genldif_file != NULL ? "-e genldif" : first_option(c, true);

	return o != NULL ? o : "--compare";
}

/* Before the patterns are compiled: the kinds' weights (--mix's, or 1 for
 * each kind asked for), and an RDN pattern loses one pair of outer parentheses. */
int cli_prepare_write(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (x->mix_given) {
		/* only the -e keywords have set weights so far */
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (c->weight[k] > 0)
				return cli_fail(x,
				                "-e %s and --mix exclude each other: --mix names the operations "
				                "(e.g. --mix %s:1)",
				                ldb_ops[k]->keyword, ldb_ops[k]->name);
		memcpy(c->weight, x->mix, sizeof c->weight);
		c->mix = true;
	} else {
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (ldb_op_given(c, (enum ldb_op)k))
				c->weight[k] = 1;
	}
	if (rdn_from_filter(c) && c->filter != NULL) {
		size_t n = strlen(c->filter);

		if (n >= 2 && c->filter[0] == '(' && c->filter[n - 1] == ')') {
			memmove(c->filter, c->filter + 1, n - 2);
			c->filter[n - 2] = '\0';
		}
	}
	return 0;
}

static int check_rdn_filter(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char *r = render_alloc(x, &c->filter_pat, c->range_low, c->valmode != LDB_VAL_FIXED);
	bool ok;

	if (r == NULL)
		return -1;
	ok = cli_rdn_is_valid(r, strlen(r));
	if (!ok)
		cli_fail(x, "-f '%s': %s needs an RDN, one attr=value (e.g. -f uid=userXXX), and '%s' is not one",
		         c->filter, first_rdn_user(c), r);
	free(r);
	return ok ? 0 : -1;
}

/* The XXX of --modify and --compare values gets the entry's number. */
static int check_one_value(struct cli_ctx *x, const char *opt, const char *attr, const struct ldb_pattern *p)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (!ldb_pattern_has_var(p))
		return 0;
	if (c->valmode == LDB_VAL_FIXED)
		return cli_fail(x, "%s %s='%s': XXX gets the entry's number and needs -e random or -e incr", opt, attr,
		                p->text);
	if (ldb_pattern_check_range(p, c->range_low, c->range_high, "-R", why, sizeof(why)) < 0)
		return cli_fail(x, "%s %s: %s", opt, attr, why);
	return 0;
}

static int check_value_patterns(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	for (int i = 0; i < c->nmods; i++)
		if (check_one_value(x, "--modify", c->mods[i].attr, &c->mods[i].val) < 0)
			return -1;
	if (c->compare_attr != NULL && check_one_value(x, "--compare", c->compare_attr, &c->compare_val) < 0)
		return -1;
	return 0;
}

/* genldif=FILE: an existing file needs append; a new one a writable folder. */
static int check_genldif_file(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	const char *f = c->genldif_file;

	if (access(f, F_OK) == 0) {
		if (!c->genldif_append)
			return cli_init_fail(x, "genldif file %s exists (use -e append)", f);
		if (access(f, W_OK) != 0)
			return cli_init_fail(x, "-e genldif=%s: cannot write: %s", f, strerror(errno));
		return 0;
	}
	const char *slash = strrchr(f, '/');
	char *dir = slash == NULL ? strdup(".") : slash == f ? strdup("/") : strndup(f, (size_t)(slash - f));
	int rc = 0;

	if (dir == NULL)
		return cli_oom(x);
	if (access(dir, W_OK | X_OK) != 0)
		rc = cli_fail(x, "-e genldif=%s: cannot create the file in %s: %s", f, dir, strerror(errno));
	free(dir);
	return rc;
}

/* genldif writes entries; it runs no operation */
static int check_genldif(struct cli_ctx *x, bool shape)
{
	struct ldb_config *c = x->c;

	if (c->genldif_append && c->genldif_file == NULL)
		return cli_fail(x, "-e append needs -e genldif=FILE");
	if (c->genldif_file != NULL) {
		const char *op = x->mix_given ? "--mix" : first_option(c, false);

		if (op == NULL)
			op = c->delete_after_add     ? "--delete-after-add"
			     : c->withnewparent      ? "-e withnewparent"
			     : c->new_parent != NULL ? "--new-parent"
			                             : NULL;
		if (op != NULL)
			return cli_fail(x, "-e genldif writes entries to a file and runs no operation: leave out %s",
			                op);
		if (c->randombase)
			return cli_fail(x, "-e genldif writes the entries under -b as given: leave out -e randombase");
		if (!shape)
			return cli_fail(x, "-e genldif needs the entries' shape: -e object=FILE, or -e person, "
			                   "emailPerson or inetOrgPerson");
	}
	return 0;
}

/* the entries' shape: a class, or a template (with or without rdn=) */
static int check_shape(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (c->add_class != LDB_CLASS_NONE && c->object_file != NULL)
		return cli_fail(x, "-e %s and -e object exclude each other", x->class_kw);
	/* each kind's options given without it (its row's stray: the entries'
	 * shape is an add's) */
	if (ldb_ops_strays(c, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	if (c->rdn_spec != NULL && c->object_file == NULL)
		return cli_fail(x, "-e rdn needs -e object=FILE");
	if (c->rdn_spec != NULL) {
		if (c->filter != NULL)
			return cli_fail(x, "-e rdn and -f exclude each other: rdn= names the entries");
		if (x->random_seen || x->incr_seen)
			return cli_fail(x,
			                "-e rdn and -e %s exclude each other: the template's fields number the entries",
			                x->random_seen ? "random" : "incr");
		if (x->low_given || x->high_given)
			return cli_fail(x, "-e rdn and %s exclude each other: the template's fields hold the ranges",
			                x->low_given ? "-r" : "-R");
	}
	return 0;
}

/* the mix: each form of modify, and --compare, belongs to a kind in it */
static int check_mix(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	int nmod = (c->nmods > 0) + (c->attreplace_attr != NULL) + (c->attreplacefile_attr != NULL);
	char why[512];

	if (nmod > 1)
		return cli_fail(x, "--mix modify: give one of --modify, -e attreplace, -e attreplacefile");
	if (ldb_ops_check(c, LDB_CHECK_MIX, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	return 0;
}

/* Every cross-check of the write keywords and options; each kind's own
 * checks come from its row (ldb_ops_check). */
static int check_write(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	bool shape = c->add_class != LDB_CLASS_NONE || c->object_file != NULL;
	char why[512];

	if (check_genldif(x, shape) < 0 || check_shape(x) < 0)
		return -1;
	/* numbering (ldclt's rule) and the RDN pattern */
	if (c->genldif_file != NULL && c->valmode == LDB_VAL_FIXED && c->rdn_spec == NULL)
		return cli_fail(x, "-e genldif needs -e incr, -e random or -e rdn=");
	if (ldb_ops_check(c, LDB_CHECK_ENTRIES, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	if (rdn_from_filter(c) && c->filter == NULL)
		return cli_fail(x, "%s needs -f with the entries' RDN (e.g. -f uid=userXXX)", first_rdn_user(c));

	/* rename, delete-after-add */
	if (c->new_parent != NULL && !c->withnewparent)
		return cli_fail(x, "--new-parent needs -e rename,withnewparent");
	if (x->mix_given && check_mix(x) < 0)
		return -1;

	/* genldif: an end, and its file */
	if (c->genldif_file != NULL) {
		if (c->ops_per_thread < 0 && !(c->valmode == LDB_VAL_INCR && c->noloop) &&
		    !(c->object_file != NULL && cli_template_has_noloop(c)))
			return cli_fail(x, "-e genldif needs an end: -T N, -e incr with noloop, or a *NOLOOP field "
			                   "in the template");
		if (check_genldif_file(x) < 0)
			return -1;
		if (x->threads_given && c->threads > 1)
			x->genldif_threads = c->threads;
		c->threads = 1;
	}
	return 0;
}

/* the filter and its values */
static int check_filter_values(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (ldb_ops_check(c, LDB_CHECK_FILTER, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	if (!filter_used(c) && !rdn_from_filter(c) && c->filter != NULL)
		return cli_fail(x, "-f is not used by -e bindonly");
	if (c->filter != NULL && strchr(c->filter, '=') == NULL)
		return cli_fail(x, "-f '%s': a filter must contain '='", c->filter);
	if (c->valmode != LDB_VAL_FIXED) {
		const char *kw = valmode_kw(c->valmode);

		if (!x->low_given || !x->high_given)
			return cli_fail(x, "-e %s needs -r and -R", kw);
		if (c->range_low < 0)
			return cli_fail(x, "-r %lld: the low bound must be at least 0", c->range_low);
		if (c->range_low > c->range_high)
			return cli_fail(x, "-r %lld is above -R %lld", c->range_low, c->range_high);
		if (c->filter == NULL || !ldb_pattern_has_var(&c->filter_pat))
			return cli_fail(x, "-e %s needs an XXX placeholder in -f", kw);
		if (ldb_pattern_check_range(&c->filter_pat, c->range_low, c->range_high, "-R", why, sizeof(why)) < 0)
			return cli_fail(x, "%s", why);
	} else if (c->filter != NULL && ldb_pattern_has_var(&c->filter_pat)) {
		return cli_fail(x, "-f '%s' has XXX but neither -e random nor -e incr is given", c->filter);
	}
	if (c->filter != NULL && filter_used(c) && check_filter(x) < 0)
		return -1;
	if (c->filter != NULL && rdn_from_filter(c) && check_rdn_filter(x) < 0)
		return -1;
	if (check_value_patterns(x) < 0)
		return -1;
	return 0;
}

/* who binds, and where to search */
static int check_binder_base(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (c->binddn_file != NULL && c->randombinddn)
		return cli_fail(x, "-e randombinddnfromfile and -e randombinddn exclude each other");
	if (c->binddn_file != NULL && c->bind_dn != NULL)
		return cli_fail(x, "-e randombinddnfromfile and -D exclude each other");
	if (ldb_ops_check(c, LDB_CHECK_BINDER, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	if (c->bind_dn != NULL && c->password == NULL)
		return cli_fail(x, "-D needs a password (-w, -y or LDBENCH_PASSWORD)");
	if (c->randombinddn) {
		if (c->bind_dn == NULL || !ldb_pattern_has_var(&c->bind_dn_pat))
			return cli_fail(x, "-e randombinddn needs -D with an XXX placeholder");
		if (cli_check_range_given(x, "randombinddn", c->binddn_low, c->binddn_high, "randombinddnlow",
		                          "randombinddnhigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->bind_dn_pat, c->binddn_low, c->binddn_high, "randombinddnhigh", why,
		                            sizeof(why)) < 0)
			return cli_fail(x, "%s", why);
		/* never quote the password itself */
		if (c->password != NULL && ldb_pattern_has_var(&c->password_pat) &&
		    (size_t)ldb_digits(c->binddn_high) > c->password_pat.width)
			return cli_fail(x,
			                "randombinddnhigh %lld needs %d digits but the XXX of the password "
			                "(-w) has %zu X",
			                c->binddn_high, ldb_digits(c->binddn_high), c->password_pat.width);
	}
	if (c->bind_dn != NULL && check_dn(x, "-D", &c->bind_dn_pat, c->randombinddn, c->binddn_low) < 0)
		return -1;

	/* where to search */
	if (c->randombase) {
		if (!ldb_pattern_has_var(&c->base_pat))
			return cli_fail(x, "-e randombase needs an XXX placeholder in -b");
		if (cli_check_range_given(x, "randombase", c->base_low, c->base_high, "randombaselow",
		                          "randombasehigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->base_pat, c->base_low, c->base_high, "randombasehigh", why,
		                            sizeof(why)) < 0)
			return cli_fail(x, "%s", why);
	}
	if (check_dn(x, "-b", &c->base_pat, c->randombase, c->base_low) < 0)
		return -1;
	return 0;
}

/* "nothing to do", with what asks for each kind, from the rows: the default
 * kind's and the connections' bind's keywords, the other kinds' keywords,
 * modify's -e forms and genldif, the options of the kinds without one. */
static int nothing_to_do(struct cli_ctx *x)
{
	enum ldb_op first = LDB_OPS_WITH(fallback), bind = LDB_OPS_WITH(connect_bind);
	char list[512];
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			const struct ldb_opdesc *d = ldb_ops[k];
			const char *w = pass == 0 ? d->keyword : d->keyword == NULL ? ldb_op_option(k, x->c) : NULL;
			if (k == (int)first || k == (int)bind || w == NULL)
				continue;
			int m = snprintf(list + n, sizeof list - n, "%s, ", w);
			n += m > 0 && (size_t)m < sizeof list - n ? (size_t)m : 0;
		}
		if (pass == 0) {
			int m = snprintf(list + n, sizeof list - n, "attreplace, attreplacefile, genldif, ");
			n += m > 0 && (size_t)m < sizeof list - n ? (size_t)m : 0;
		}
	}
	return cli_fail(x, "nothing to do: give -e %s or -e %s (or %s--mix)", ldb_ops[first]->keyword,
	                ldb_ops[bind]->keyword, list);
}

int cli_cross_check(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (c->scalab01 && cli_check_scalab01(x) < 0)
		return -1;
	if (c->scalab01 && (c->oplog_path != NULL || c->nserver_log > 0))
		return cli_fail(x,
		                "--op-log, --server-log: not with -e scalab01 (its logins are not the I/O threads')");
	/* a threshold whose figure the run would not have: refused, never read as 0 */
	char why[400];
	if (ldb_thresholds_sources(c->fail_if, c->nfail_if, c->nserver_log > 0, c->nrepl > 0, c->listeners > 0, why,
	                           sizeof why) != 0)
		return cli_fail(x, "%s", why);
	for (int i = 0; i < c->nfind_max; i++)
		if (c->find_max[i].source != LDB_TS_RUN)
			return cli_fail(x,
			                "--find-max '%s': an objective takes the run's own figures (a step has neither "
			                "the join nor the replication check)",
			                c->find_max[i].text);
	/* what to do */
	c->listen_only = !ops_given(c) && c->genldif_file == NULL && !x->mix_given && c->listeners > 0;
	if (!ops_given(c) && c->genldif_file == NULL && !x->mix_given && !c->listen_only)
		return nothing_to_do(x);
	if (x->random_seen && x->incr_seen)
		return cli_fail(x, "-e random and -e incr exclude each other");
	if (check_write(x) < 0)
		return -1;
	if (c->noloop && c->valmode != LDB_VAL_INCR && c->object_file == NULL)
		return cli_fail(x, "-e noloop needs -e incr (or an object= template)");
	if (c->commoncounter && c->valmode != LDB_VAL_INCR && c->object_file == NULL)
		return cli_fail(x, "-e commoncounter needs -e incr (or an object= template)");
	if (c->close_sock && !c->bindeach)
		return cli_fail(x, "-e close needs -e bindeach");
	if (c->rate > 0 && c->wait_sec > 0)
		return cli_fail(x, "--rate and -W exclude each other (-W sleeps whole seconds between operations)");
	if (c->duration_ms > 0 && c->samples > 0)
		return cli_fail(x, "--duration and -N exclude each other");
	if (c->warmup_ms > 0 && c->warmup_samples > 0)
		return cli_fail(x, "--warmup takes a duration or a sample count, not both");
	if (check_filter_values(x) < 0 || cli_check_keyword_needs(x) < 0)
		return -1;
	return check_binder_base(x);
}
