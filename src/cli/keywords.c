/* The -e keywords (ldclt's table, getsubopt style), and the values of the
 * write kinds' options: attrlist, attreplace, --modify, --compare, --mix. */
#include "cli/ctx.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "values/pattern.h"
#include "util/num.h"
#include "ops/ops.h"

enum kw_id {
	KW_OP,
	KW_BINDEACH,
	KW_CLOSE,
	KW_RANDOM,
	KW_INCR,
	KW_COMMONCOUNTER,
	KW_NOLOOP,
	KW_COUNTEACH,
	KW_ATTRLIST,
	KW_RANDOMATTRLIST,
	KW_ATTRSONLY,
	KW_RANDOMBINDDN,
	KW_RANDOMBINDDNLOW,
	KW_RANDOMBINDDNHIGH,
	KW_RANDOMBINDDNFROMFILE,
	KW_RANDOMBASE,
	KW_RANDOMBASELOW,
	KW_RANDOMBASEHIGH,
	KW_SRCHNENTRIES,
	KW_SAMPINTERVAL,
	KW_TIMESTAMP,
	KW_NOZEROPAD,
	KW_SMOOTHSHUTDOWN,
	KW_DONTSLEEP,
	KW_NOGLOBALSTATS,
	KW_RANDOMAUTHID,
	KW_RANDOMAUTHIDLOW,
	KW_RANDOMAUTHIDHIGH,
	KW_WITHNEWPARENT,
	KW_ATTREPLACE,
	KW_ATTREPLACEFILE,
	KW_OBJECT,
	KW_RDN,
	KW_GENLDIF,
	KW_APPEND,
	KW_PERSON,
	KW_EMAILPERSON,
	KW_INETORGPERSON,
	KW_V2,
	KW_STRING,
	KW_ASCII,
	KW_DEREF,
	KW_IMAGESDIR,
	KW_NSS,
	KW_REFERRAL,
	KW_SCALAB01,
	KW_S1_CNXDURATION,
	KW_S1_MAXCNXNB,
	KW_S1_WAIT,
	KW_LATER
};

enum kw_arg { ARG_NONE, ARG_NEED, ARG_OPT };

struct kw {
	const char *name;
	enum kw_id id;
	enum kw_arg arg;
};

static const struct kw keywords[] = {
	{ "esearch", KW_OP, ARG_NONE }, /* a kind of ops/ops.h: its row names the keyword */
	{ "bindonly", KW_OP, ARG_NONE },
	{ "bindeach", KW_BINDEACH, ARG_NONE },
	{ "close", KW_CLOSE, ARG_NONE },
	{ "random", KW_RANDOM, ARG_NONE },
	{ "incr", KW_INCR, ARG_OPT },
	{ "commoncounter", KW_COMMONCOUNTER, ARG_NONE },
	{ "noloop", KW_NOLOOP, ARG_NONE },
	{ "counteach", KW_COUNTEACH, ARG_NONE },
	{ "attrlist", KW_ATTRLIST, ARG_NEED },
	{ "randomattrlist", KW_RANDOMATTRLIST, ARG_NEED },
	{ "attrsonly", KW_ATTRSONLY, ARG_NEED },
	{ "randombinddn", KW_RANDOMBINDDN, ARG_NONE },
	{ "randombinddnlow", KW_RANDOMBINDDNLOW, ARG_NEED },
	{ "randombinddnhigh", KW_RANDOMBINDDNHIGH, ARG_NEED },
	{ "randombinddnfromfile", KW_RANDOMBINDDNFROMFILE, ARG_NEED },
	{ "randombase", KW_RANDOMBASE, ARG_NONE },
	{ "randombaselow", KW_RANDOMBASELOW, ARG_NEED },
	{ "randombasehigh", KW_RANDOMBASEHIGH, ARG_NEED },
	{ "srchnentries", KW_SRCHNENTRIES, ARG_NEED },
	{ "sampinterval", KW_SAMPINTERVAL, ARG_NEED },
	{ "timestamp", KW_TIMESTAMP, ARG_OPT },
	{ "nozeropad", KW_NOZEROPAD, ARG_NONE },
	{ "smoothshutdown", KW_SMOOTHSHUTDOWN, ARG_NONE },
	{ "dontsleeponserverdown", KW_DONTSLEEP, ARG_NONE },
	{ "noglobalstats", KW_NOGLOBALSTATS, ARG_NONE },
	/* ldclt keywords that later work will implement */
	{ "add", KW_OP, ARG_NONE },
	{ "delete", KW_OP, ARG_NONE },
	{ "rename", KW_OP, ARG_NONE },
	{ "abandon", KW_OP, ARG_NONE },
	{ "withnewparent", KW_WITHNEWPARENT, ARG_NONE },
	{ "attreplace", KW_ATTREPLACE, ARG_NEED },
	{ "attreplacefile", KW_ATTREPLACEFILE, ARG_NEED },
	{ "object", KW_OBJECT, ARG_NEED },
	{ "rdn", KW_RDN, ARG_NEED },
	{ "genldif", KW_GENLDIF, ARG_NEED },
	{ "append", KW_APPEND, ARG_NONE },
	{ "person", KW_PERSON, ARG_NONE },
	{ "emailPerson", KW_EMAILPERSON, ARG_NONE },
	{ "inetOrgPerson", KW_INETORGPERSON, ARG_NONE },
	/* values and protocol (apply_value_proto_keyword; cli_check_keyword_needs) */
	{ "string", KW_STRING, ARG_NONE },
	{ "ascii", KW_ASCII, ARG_NONE },
	{ "deref", KW_DEREF, ARG_OPT },
	{ "v2", KW_V2, ARG_NONE },
	{ "referral", KW_REFERRAL, ARG_NEED },
	{ "imagesdir", KW_IMAGESDIR, ARG_NEED },
	{ "cltcertname", KW_NSS, ARG_OPT },
	{ "keydbfile", KW_NSS, ARG_OPT },
	{ "keydbpin", KW_NSS, ARG_OPT },
	/* ldclt's modem-pool scenario (run/scalab01.c); each setting turns it on, as in ldclt */
	{ "scalab01", KW_SCALAB01, ARG_NONE },
	{ "scalab01_cnxduration", KW_S1_CNXDURATION, ARG_NEED },
	{ "scalab01_maxcnxnb", KW_S1_MAXCNXNB, ARG_NEED },
	{ "scalab01_wait", KW_S1_WAIT, ARG_NEED },
	{ "randomauthid", KW_RANDOMAUTHID, ARG_NONE },
	{ "randomauthidlow", KW_RANDOMAUTHIDLOW, ARG_NEED },
	{ "randomauthidhigh", KW_RANDOMAUTHIDHIGH, ARG_NEED },
};

static bool attr_char_ok(char ch)
{
	return isalnum((unsigned char)ch) || ch == '-' || ch == ';' || ch == '.' || ch == '*' || ch == '+' || ch == '_';
}

/* attrlist=a:b:c (colon separated; the comma that ends the -e token ends it). */
static int parse_attrlist(struct cli_ctx *x, const char *kw, const char *list, bool random)
{
	struct ldb_config *c = x->c;
	const char *p = list;

	if (x->attrlist_seen) {
		if (c->random_attrlist != random)
			return cli_fail(x, "-e attrlist and -e randomattrlist exclude each other");
		return cli_fail(x, "-e %s given twice", kw);
	}
	x->attrlist_seen = true;
	c->random_attrlist = random;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 0)
			return cli_fail(x, "-e %s=%s: empty attribute name", kw, list);
		for (size_t i = 0; i < len; i++)
			if (!attr_char_ok(p[i]))
				return cli_fail(x, "-e %s=%s: invalid attribute name '%.*s'", kw, list, (int)len, p);
		for (int i = 0; i < c->nattrs; i++)
			if (strlen(c->attrs[i]) == len && strncasecmp(c->attrs[i], p, len) == 0)
				return cli_fail(x, "-e %s=%s: attribute '%.*s' listed twice", kw, list, (int)len, p);
		if (c->nattrs >= LDB_MAX_ATTRS)
			return cli_fail(x, "-e %s: too many attributes (at most %d)", kw, LDB_MAX_ATTRS);
		char *a = strndup(p, len);

		if (a == NULL)
			return cli_oom(x);
		c->attrs[c->nattrs++] = a;
		c->attrs[c->nattrs] = NULL;
		if (end == NULL)
			break;
		p = end + 1;
	}
	return 0;
}

#define MAX_WEIGHT 1000000

/* An attribute description: a name or OID, options after ';'. */
static bool attr_name_ok(const char *s, size_t n)
{
	if (n == 0 || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != ';' && s[i] != '.')
			return false;
	return true;
}

static int set_class(struct cli_ctx *x, const char *kw, int cls)
{
	if (x->c->add_class != LDB_CLASS_NONE && x->c->add_class != cls)
		return cli_fail(x, "-e %s and -e %s exclude each other", x->class_kw, kw);
	x->c->add_class = cls;
	x->class_kw = kw;
	return 0;
}

/* "ATTR<sep>VALUE" in an option: the attribute name (checked) copied into
 * *attr, *value just after the separator (not empty).  `what` names the
 * option as the user wrote it, `form` the shape it expects. */
static int split_attr_value(struct cli_ctx *x, const char *what, const char *form, const char *arg, char sep,
                            char **attr, const char **value)
{
	const char *s = strchr(arg, sep);

	if (s == NULL || s[1] == '\0')
		return cli_fail(x, "%s: expected %s", what, form);
	if (!attr_name_ok(arg, (size_t)(s - arg)))
		return cli_fail(x, "%s: invalid attribute name '%.*s'", what, (int)(s - arg), arg);
	*attr = strndup(arg, (size_t)(s - arg));
	if (*attr == NULL)
		return cli_oom(x);
	*value = s + 1;
	return 0;
}

/* attreplace=ATTR:MASK: the mask's run of X becomes random letters per operation. */
static int parse_attreplace(struct cli_ctx *x, const char *val)
{
	struct ldb_config *c = x->c;
	const char *mask;
	char what[512];

	if (c->attreplace_attr != NULL)
		return cli_fail(x, "-e attreplace given twice");
	snprintf(what, sizeof what, "-e attreplace=%s", val);
	if (split_attr_value(x, what, "attreplace=ATTR:MASK (e.g. description:XXXXXX)", val, ':', &c->attreplace_attr,
	                     &mask) != 0)
		return -1;
	if (ldb_pattern_compile(&c->attreplace_mask, mask, true) < 0)
		return cli_oom(x);
	return 0;
}

/* attreplacefile=ATTR:FILE: the file is read whole, now (cli/inputs). */
static int parse_attreplacefile(struct cli_ctx *x, const char *val)
{
	struct ldb_config *c = x->c;
	const char *path;
	char what[512];

	if (c->attreplacefile_attr != NULL)
		return cli_fail(x, "-e attreplacefile given twice");
	snprintf(what, sizeof what, "-e attreplacefile=%s", val);
	if (split_attr_value(x, what, "attreplacefile=ATTR:FILE", val, ':', &c->attreplacefile_attr, &path) != 0)
		return -1;
	return cli_load_attrfile(x, path);
}

/* --modify OP:ATTR=PATTERN (OP replace|add|delete; a delete may leave the
 * pattern out, or empty: the whole attribute goes). */
int cli_parse_modify(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *colon = strchr(arg, ':');
	const char *attr, *eq;
	struct ldb_modspec *m;
	char why[768];
	int op;

	if (c->nmods == (int)(sizeof(c->mods) / sizeof(c->mods[0])))
		return cli_fail(x, "--modify: at most %d modifications", (int)(sizeof(c->mods) / sizeof(c->mods[0])));
	if (colon == NULL)
		return cli_fail(x, "--modify '%s': expected OP:ATTR=PATTERN, OP replace, add or delete", arg);
	if ((size_t)(colon - arg) == 7 && strncmp(arg, "replace", 7) == 0)
		op = LDB_MOD_REPLACE;
	else if ((size_t)(colon - arg) == 3 && strncmp(arg, "add", 3) == 0)
		op = LDB_MOD_ADD;
	else if ((size_t)(colon - arg) == 6 && strncmp(arg, "delete", 6) == 0)
		op = LDB_MOD_DELETE;
	else
		return cli_fail(x, "--modify '%s': the operation must be replace, add or delete", arg);
	attr = colon + 1;
	eq = strchr(attr, '=');
	if (!attr_name_ok(attr, eq ? (size_t)(eq - attr) : strlen(attr)))
		return cli_fail(x, "--modify '%s': invalid attribute name '%.*s'", arg,
		                (int)(eq ? (size_t)(eq - attr) : strlen(attr)), attr);
	if (op != LDB_MOD_DELETE && (eq == NULL || eq[1] == '\0'))
		return cli_fail(x, "--modify '%s': %s needs a value pattern (%s:ATTR=PATTERN)", arg,
		                op == LDB_MOD_ADD ? "add" : "replace", op == LDB_MOD_ADD ? "add" : "replace");
	m = &c->mods[c->nmods];
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->attr = strndup(attr, eq ? (size_t)(eq - attr) : strlen(attr));
	if (m->attr == NULL)
		return cli_oom(x);
	c->nmods++;
	if (ldb_value_compile(&m->val, eq ? eq + 1 : "", c->zeropad, "--modify", why, sizeof why) != 0)
		return cli_fail(x, "%s", why);
	return 0;
}

/* --compare ATTR=PATTERN */
int cli_parse_compare(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *pattern;
	char what[768];

	if (c->compare_attr != NULL)
		return cli_fail(x, "--compare given twice");
	snprintf(what, sizeof what, "--compare '%s'", arg);
	if (split_attr_value(x, what, "ATTR=PATTERN", arg, '=', &c->compare_attr, &pattern) != 0)
		return -1;
	if (ldb_value_compile(&c->compare_val, pattern, c->zeropad, "--compare", what, sizeof what) != 0)
		return cli_fail(x, "%s", what);
	return 0;
}

/* The kinds' names, ", " between them. */
static void kind_list(char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < LDB_OP_COUNT && n < cap; k++)
		if (!ldb_ops[k]->unlisted) /* a flow's rows: named by the user */
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "", ldb_ops[k]->name);
}

/* --mix KIND:WEIGHT,... */
int cli_parse_mix(struct cli_ctx *x, const char *arg)
{
	const char *p = arg;

	if (x->mix_given)
		return cli_fail(x, "--mix given twice");
	x->mix_given = true;
	if (arg[0] == '\0')
		return cli_fail(x, "--mix '': expected KIND:WEIGHT,... (e.g. search:80,modify:15,add:5)");
	while (*p != '\0') {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		int k;
		long long w;
		char num[24];

		if (colon == NULL)
			return cli_fail(x, "--mix '%s': expected KIND:WEIGHT, got '%.*s'", arg, (int)n, p);
		k = ldb_op_from_name(p, (size_t)(colon - p), false);
		if (k < 0) {
			char kinds[256];

			kind_list(kinds, sizeof kinds);
			return cli_fail(x, "--mix '%s': unknown kind '%.*s' (%s)", arg, (int)(colon - p), p, kinds);
		}
		if (x->mix[k] > 0)
			return cli_fail(x, "--mix '%s': %s given twice", arg, ldb_op_name((enum ldb_op)k));
		size_t wl = n - (size_t)(colon - p) - 1;
		bool ok = wl > 0 && wl < sizeof(num);

		if (ok) {
			memcpy(num, colon + 1, wl);
			num[wl] = '\0';
			ok = ldb_num_ll(num, &w) == LDB_NUM_OK && w >= 1 && w <= MAX_WEIGHT;
		}
		if (!ok)
			return cli_fail(x, "--mix '%s': the weight of %s must be a whole number from 1 to %d", arg,
			                ldb_op_name((enum ldb_op)k), MAX_WEIGHT);
		x->mix[k] = (int)w;
		p += n;
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return cli_fail(x, "--mix '%s': trailing comma", arg);
		}
	}
	return 0;
}

/* The -e keywords of the write kinds' options and of genldif. */
static int apply_write_keyword(struct cli_ctx *x, const struct kw *k, const char *val)
{
	struct ldb_config *c = x->c;

	switch (k->id) {
	case KW_WITHNEWPARENT: c->withnewparent = true; break;
	case KW_ATTREPLACE: return parse_attreplace(x, val);
	case KW_ATTREPLACEFILE: return parse_attreplacefile(x, val);
	case KW_OBJECT:
		if (c->object_file != NULL)
			return cli_fail(x, "-e object given twice");
		return cli_set_str(x, &c->object_file, val);
	case KW_RDN:
		if (c->rdn_spec != NULL)
			return cli_fail(x, "-e rdn given twice");
		if (strchr(val, ':') == NULL || val[0] == ':')
			return cli_fail(x, "-e rdn=%s: expected rdn=ATTR:VALUE (e.g. rdn=uid:user[A=INCRN(0;999;4)])",
			                val);
		return cli_set_str(x, &c->rdn_spec, val);
	case KW_GENLDIF:
		if (c->genldif_file != NULL)
			return cli_fail(x, "-e genldif given twice");
		return cli_set_str(x, &c->genldif_file, val);
	case KW_APPEND: c->genldif_append = true; break;
	case KW_PERSON: return set_class(x, k->name, LDB_CLASS_PERSON);
	case KW_EMAILPERSON: return set_class(x, k->name, LDB_CLASS_EMAILPERSON);
	case KW_INETORGPERSON: return set_class(x, k->name, LDB_CLASS_INETORGPERSON);
	default: break;
	}
	return 0;
}

/* deref[=attr:derefattr]: the dereference control's attribute (its values
 * are DNs) and the attribute read from the entries they name. */
static int parse_deref(struct cli_ctx *x, const char *val)
{
	struct ldb_config *c = x->c;
	const char *target;
	char what[512];

	if (c->deref_attr != NULL)
		return cli_fail(x, "-e deref given twice");
	if (val == NULL)
		val = "secretary:cn"; /* ldclt's default */
	snprintf(what, sizeof what, "-e deref=%s", val);
	if (split_attr_value(x, what, "deref=ATTR:DEREFATTR (e.g. deref=secretary:cn)", val, ':', &c->deref_attr,
	                     &target) != 0)
		return -1;
	if (!attr_name_ok(target, strlen(target)))
		return cli_fail(x, "%s: invalid attribute name '%s'", what, target);
	return cli_set_str(x, &c->deref_target, target);
}

/* scalab01 and its settings: each turns the scenario on (ldclt does so);
 * ldclt refuses a setting <= 0. */
static int apply_scalab01_keyword(struct cli_ctx *x, const struct kw *k, const char *val)
{
	struct ldb_config *c = x->c;
	char opt[64];
	long long v = 0;

	c->scalab01 = true;
	if (k->id == KW_SCALAB01)
		return 0;
	snprintf(opt, sizeof opt, "-e %s", k->name);
	const char *what = k->id == KW_S1_MAXCNXNB ? "the modem pool's size" : "the time (whole seconds)";
	if (cli_parse_num(x, opt, '=', val, 1, INT_MAX, what, &v) < 0)
		return -1;
	if (k->id == KW_S1_CNXDURATION)
		c->s1_cnxduration = (int)v;
	else if (k->id == KW_S1_MAXCNXNB)
		c->s1_maxcnxnb = (int)v;
	else
		c->s1_wait = (int)v;
	return 0;
}

/* The options a scalab01 run refuses: the scenario is its own loop of
 * blocking binds, searches and modifies (run/scalab01.c). */
static const char *scalab01_conflict(const struct ldb_config *c, const struct cli_ctx *x)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (ldb_op_given(c, (enum ldb_op)k))
			return ldb_op_option((enum ldb_op)k, c);
	return x->mix_given                     ? "--mix"
	       : c->genldif_file != NULL        ? "-e genldif"
	       : x->random_seen || x->incr_seen ? "-e random/incr (the bind DN's range is randombinddnlow/high)"
	       : c->binddn_file != NULL         ? "-e randombinddnfromfile"
	       : c->sasl_mech != NULL           ? "-o mech= (scalab01 binds with -D and -w)"
	       : c->ldaps || c->starttls        ? "TLS (-Z, ldaps://, --starttls)"
	       : (c->uri != NULL && strncmp(c->uri, "ldap://", 7)) ? "-H other than ldap://"
	       : c->depth > 1                                      ? "-a"
	       : c->rate > 0 || c->nrate_profile > 0               ? "--rate"
	       : c->warmup_ms > 0 || c->warmup_samples > 0         ? "--warmup"
	       : c->nrepl > 0                                      ? "-S"
	       : c->conns_per_thread > 1                           ? "--connections-per-thread"
	                                                           : NULL;
}

/* A scalab01 run: ldclt's settings, defaults and forced keywords (bindeach,
 * randombinddn); -f is accepted and left unused (ldclt requires it). */
int cli_check_scalab01(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	const char *bad = scalab01_conflict(c, x);

	if (bad != NULL)
		return cli_fail(x, "-e scalab01 runs its own scenario (bind, search, modify): leave out %s", bad);
	if (c->filter != NULL && strchr(c->filter, '=') == NULL)
		return cli_fail(x, "-f '%s': a filter must contain '='", c->filter);
	free(c->filter);
	c->filter = NULL;
	c->s1_cnxduration = c->s1_cnxduration > 0 ? c->s1_cnxduration : 3600;
	c->s1_maxcnxnb = c->s1_maxcnxnb > 0 ? c->s1_maxcnxnb : 5000;
	c->s1_wait = c->s1_wait > 0 ? c->s1_wait : 10;
	c->bindeach = true;
	c->randombinddn = true;
	if (c->bind_dn == NULL || c->password == NULL)
		return cli_fail(x, "-e scalab01 needs -D with an XXX placeholder and -w (its users bind at random)");
	c->weight[LDB_OP_BIND] = 1; /* the login's bind: the checks of bindonly, with bindeach */
	return 0;
}

/* ldclt's value and protocol keywords (v2, string, ascii, deref, referral,
 * imagesdir, the NSS ones); then scalab01's, then the write kinds'. */
static int apply_value_proto_keyword(struct cli_ctx *x, const struct kw *k, const char *val)
{
	struct ldb_config *c = x->c;

	switch (k->id) {
	case KW_V2: c->ldap_v2 = true; break;
	case KW_STRING: c->rnd_string = true; break;
	case KW_ASCII: c->rnd_ascii = true; break;
	case KW_DEREF: return parse_deref(x, val);
	case KW_REFERRAL:
		if (strcmp(val, "off") == 0) {
			c->referral_off = true;
			c->referral_follow = LDB_REFERRAL_NONE;
			break;
		}
		if (strcmp(val, "on") == 0 || strcmp(val, "rebind") == 0) {
			c->referral_follow = val[0] == 'o' ? LDB_REFERRAL_ON : LDB_REFERRAL_REBIND;
			c->referral_off = false;
			break;
		}
		return cli_fail(x, "-e referral=%s: must be on, off or rebind", val);
	case KW_IMAGESDIR:
		if (c->imagesdir != NULL)
			return cli_fail(x, "-e imagesdir given twice");
		return cli_set_str(x, &c->imagesdir, val);
	case KW_NSS:
		/* ldclt's NSS client certificate: OpenSSL reads PEM files instead */
		return cli_fail(x,
		                "-e %s: ldbench reads no NSS database; give the client certificate and its key as PEM "
		                "files: --tls-cert FILE --tls-key FILE (with -o mech=EXTERNAL to bind with it)",
		                k->name);
	case KW_SCALAB01:
	case KW_S1_CNXDURATION:
	case KW_S1_MAXCNXNB:
	case KW_S1_WAIT: return apply_scalab01_keyword(x, k, val);
	default: return apply_write_keyword(x, k, val);
	}
	return 0;
}

/* -e referral=rebind binds to the referred server with -D/-w as given */
static int check_referral(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;

	if (c->referral_follow != LDB_REFERRAL_REBIND)
		return 0;
	if (c->bind_dn == NULL || c->password == NULL)
		return cli_fail(x, "-e referral=rebind needs -D and -w (the referred server is bound with them)");
	if (c->randombinddn || c->sasl_mech != NULL)
		return cli_fail(
		        x, "-e referral=rebind binds with -D and -w as given: not with -e randombinddn or -o mech");
	return 0;
}

int cli_check_keyword_needs(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;

	if (c->rnd_string && c->valmode != LDB_VAL_RANDOM)
		return cli_fail(x, "-e string needs -e random (the X run of -f becomes random bytes)");
	if (c->rnd_ascii && !c->rnd_string)
		return cli_fail(x, "-e ascii needs -e string");
	if (c->rnd_string && c->genldif_file != NULL)
		return cli_fail(x, "-e string and -e genldif exclude each other (genldif writes numbered entries)");
	if (c->ldap_v2 && c->sasl_mech != NULL)
		return cli_fail(x, "-e v2 and -o mech exclude each other (LDAPv2 has no SASL bind)");
	if (c->ldap_v2 && c->starttls)
		return cli_fail(x, "-e v2 and --starttls exclude each other (StartTLS is LDAPv3's)");
	if (c->imagesdir != NULL && c->add_class != LDB_CLASS_EMAILPERSON && c->add_class != LDB_CLASS_INETORGPERSON)
		return cli_fail(x, "-e imagesdir needs -e add with emailPerson or inetOrgPerson");
	return check_referral(x);
}

static int apply_keyword(struct cli_ctx *x, const struct kw *k, const char *val)
{
	struct ldb_config *c = x->c;
	char opt[64];
	long long v;

	snprintf(opt, sizeof(opt), "-e %s", k->name);
	switch (k->id) {
	case KW_OP: c->weight[ldb_op_from_keyword(k->name)] = 1; break;
	case KW_BINDEACH: c->bindeach = true; break;
	case KW_CLOSE: c->close_sock = true; break;
	case KW_RANDOM:
		x->random_seen = true;
		c->valmode = LDB_VAL_RANDOM;
		break;
	case KW_INCR:
		x->incr_seen = true;
		c->valmode = LDB_VAL_INCR;
		if (val != NULL) {
			if (cli_parse_num(x, opt, '=', val, 1, LLONG_MAX, "the step", &v) < 0)
				return -1;
			c->incr_step = v;
		}
		break;
	case KW_COMMONCOUNTER: c->commoncounter = true; break;
	case KW_NOLOOP: c->noloop = true; break;
	case KW_COUNTEACH: c->counteach = true; break;
	case KW_ATTRLIST: return parse_attrlist(x, k->name, val, false);
	case KW_RANDOMATTRLIST: return parse_attrlist(x, k->name, val, true);
	case KW_ATTRSONLY:
		if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
			return cli_fail(x, "-e attrsonly=%s: must be 0 or 1", val);
		c->attrsonly = val[0] - '0';
		break;
	case KW_RANDOMBINDDN: c->randombinddn = true; break;
	case KW_RANDOMBINDDNLOW: return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->binddn_low);
	case KW_RANDOMBINDDNHIGH:
		return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->binddn_high);
	case KW_RANDOMBINDDNFROMFILE: return cli_load_binddn_file(x, val);
	case KW_RANDOMBASE: c->randombase = true; break;
	case KW_RANDOMBASELOW: return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->base_low);
	case KW_RANDOMBASEHIGH: return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->base_high);
	case KW_SRCHNENTRIES:
		return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the entry count", &c->expect_entries);
	case KW_SAMPINTERVAL:
		if (cli_parse_num(x, opt, '=', val, 1, LLONG_MAX / 1000, "the sampling interval (seconds)", &v) < 0)
			return -1;
		c->interval_ms = (uint64_t)v * 1000;
		break;
	case KW_TIMESTAMP:
		c->timestamp = true;
		if (val != NULL)
			return cli_set_str(x, &c->timestamp_fmt, val);
		break;
	case KW_NOZEROPAD: c->zeropad = false; break;
	case KW_SMOOTHSHUTDOWN: c->smoothshutdown = true; break;
	case KW_DONTSLEEP: c->dontsleeponserverdown = true; break;
	case KW_NOGLOBALSTATS: c->noglobalstats = true; break;
	case KW_RANDOMAUTHID: c->randomauthid = true; break;
	case KW_RANDOMAUTHIDLOW: return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->authid_low);
	case KW_RANDOMAUTHIDHIGH:
		return cli_parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->authid_high);
	default: return apply_value_proto_keyword(x, k, val);
	case KW_LATER: return cli_fail(x, "-e %s: not supported yet", k->name);
	}
	return 0;
}

/* One -e value: comma separated keywords, getsubopt style, except that a
 * keyword after attrlist=/randomattrlist= is kept (ldclt drops it). */
int cli_parse_exec(struct cli_ctx *x, const char *arg)
{
	char *copy, *tok;
	int rc = 0;

	if (arg[0] == '\0')
		return cli_fail(x, "-e needs a keyword (see --help)");
	copy = strdup(arg);
	if (copy == NULL)
		return cli_oom(x);
	tok = copy;
	while (rc == 0 && tok != NULL) {
		char *comma = strchr(tok, ',');

		if (comma != NULL)
			*comma = '\0';
		if (tok[0] == '\0') {
			/* a trailing comma is harmless (ldclt accepts it) */
			if (comma != NULL || tok == copy)
				rc = cli_fail(x, "-e %s: empty keyword", arg);
			break;
		}
		char *val = strchr(tok, '=');

		if (val != NULL)
			*val++ = '\0';
		const struct kw *k = NULL;

		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (strcmp(keywords[i].name, tok) == 0) {
				k = &keywords[i];
				break;
			}
		if (k == NULL)
			rc = cli_fail(x, "-e %s: unknown keyword (see --help)", tok);
		else if (k->id == KW_LATER)
			rc = cli_fail(x, "-e %s: not supported yet", tok);
		else if (k->arg == ARG_NONE && val != NULL)
			rc = cli_fail(x, "-e %s takes no value (got '%s=%s')", tok, tok, val);
		else if (k->arg == ARG_NEED && (val == NULL || val[0] == '\0'))
			rc = cli_fail(x, "-e %s needs a value (%s=...)", tok, tok);
		else if (k->arg == ARG_OPT && val != NULL && val[0] == '\0')
			rc = cli_fail(x, "-e %s=: empty value", tok);
		else
			rc = apply_keyword(x, k, val);
		tok = comma ? comma + 1 : NULL;
	}
	free(copy);
	return rc;
}
