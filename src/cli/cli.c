/* The command line: ldclt's short flags and -e keywords, ldbench's long
 * options, strict number parsing and the cross-checks.  Every problem is
 * reported as one line ("ldbench: -n 0: threads must be ...") and no
 * connection is ever opened here. */
#include "cli/cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ldap.h>

#include "values/pattern.h"
#include "values/rng.h"
#include "cli/scenario.h"
#include "cli/threshold.h"
#include "util/num.h"
#include "util/util.h"
#include "proto/wire.h"
#include "ops/ops.h"

#ifndef LDBENCH_VERSION
#define LDBENCH_VERSION "0.0.0"
#endif

#define MAX_THREADS 10000
#define MAX_CONNS_PER_THREAD 1000
#define MAX_DEPTH 1024
#define MIN_INTERVAL_MS 100
#define PW_MASK "*****"

/* Parser state that does not belong in the config. */
struct cli_ctx {
	struct ldb_config *c;
	char *err;
	size_t errcap;
	bool port_given;
	bool low_given, high_given;      /* -r, -R */
	bool random_seen, incr_seen;
	bool pw_from_w, pw_from_y;
	bool attrlist_seen;
	char *url_host;                  /* from -H, applied after the loop */
	int url_port;
	bool url_given, url_ldaps;
	const char *tls_opt;             /* the first --tls-* option given */
	const char **pw_args;            /* argv text of each -w value, to mask */
	int npw_args;
	bool threads_given;              /* -n */
	int genldif_threads;             /* -n given with genldif (> 1): noted on stderr */
	const char *class_kw;            /* the first of person/emailPerson/inetOrgPerson */
	bool mix_given;
	int mix[LDB_OP_COUNT];           /* --mix's weights, the config's once checked */
};

/* Write "progname: <message>" into err, one line: control characters that a
 * user's value may carry (a newline in -f, say) become '?'. */
__attribute__((format(printf, 2, 3)))
static int fail(struct cli_ctx *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (x->err == NULL || x->errcap == 0)
		return -1;
	n = snprintf(x->err, x->errcap, "%s: ", x->c->progname);
	if (n < 0)
		n = 0;
	if ((size_t)n < x->errcap) {
		va_start(ap, fmt);
		vsnprintf(x->err + n, x->errcap - (size_t)n, fmt, ap);
		va_end(ap);
	}
	for (char *p = x->err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

static int oom(struct cli_ctx *x)
{
	return fail(x, "out of memory");
}

/* Replace *dst with a copy of s. */
static int set_str(struct cli_ctx *x, char **dst, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		return oom(x);
	free(*dst);
	*dst = d;
	return 0;
}

/* ---------------------------------------------------------------- numbers */

/* Parse the value of option `opt` (sep ' ' for a flag, '=' for a -e keyword)
 * into [min, max]; `what` names the setting in the message (util/num.h). */
static int parse_num(struct cli_ctx *x, const char *opt, char sep, const char *arg,
                     long long min, long long max, const char *what, long long *out)
{
	char why[4096];

	if (ldb_num_range(opt, sep, arg, min, max, what, out, why, sizeof why) < 0)
		return fail(x, "%s", why);
	return 0;
}

static int parse_int(struct cli_ctx *x, const char *opt, const char *arg, long long min,
                     long long max, const char *what, int *out)
{
	long long v;

	if (parse_num(x, opt, ' ', arg, min, max, what, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ files */

/* Strip a trailing "\n" or "\r\n". */
static size_t chomp(char *s, size_t len)
{
	if (len > 0 && s[len - 1] == '\n')
		s[--len] = '\0';
	if (len > 0 && s[len - 1] == '\r')
		s[--len] = '\0';
	return len;
}

/* -y FILE: the password is the first line, without its newline. */
static int read_password_file(struct cli_ctx *x, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (f == NULL)
		return fail(x, "-y %s: cannot open: %s", path, strerror(errno));
	errno = 0;
	n = getline(&line, &cap, f);
	if (n < 0) {
		int e = errno;

		fclose(f);
		free(line);
		if (e != 0)
			return fail(x, "-y %s: cannot read: %s", path, strerror(e));
		return fail(x, "-y %s: the file is empty", path);
	}
	fclose(f);
	if (chomp(line, (size_t)n) == 0) {
		explicit_bzero(line, cap);
		free(line);
		return fail(x, "-y %s: the first line (the password) is empty", path);
	}
	if (x->c->password != NULL) {
		explicit_bzero(x->c->password, strlen(x->c->password));
		free(x->c->password);
	}
	x->c->password = line;
	return 0;
}

static bool dn_is_valid(const char *dn)
{
	LDAPDN parsed = NULL;

	if (ldap_str2dn(dn, &parsed, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		return false;
	ldap_dnfree(parsed);
	return true;
}

/* randombinddnfromfile=F: "DN<TAB>password" lines, loaded now. */
static int load_binddn_file(struct cli_ctx *x, const char *path)
{
	struct ldb_config *c = x->c;
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0, room = 0;
	ssize_t n;
	int rc = -1;

	if (c->binddn_file != NULL)
		return fail(x, "-e randombinddnfromfile given twice");
	if (set_str(x, &c->binddn_file, path) < 0)
		return -1;
	f = fopen(path, "re");
	if (f == NULL)
		return fail(x, "-e randombinddnfromfile=%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (errno != 0) {
				fail(x, "-e randombinddnfromfile=%s: cannot read: %s", path, strerror(errno));
				goto out;
			}
			break;
		}
		lineno++;
		size_t len = chomp(line, (size_t)n);

		if (len == 0)
			continue;
		char *tab = strchr(line, '\t');

		if (tab == NULL) {
			fail(x, "-e randombinddnfromfile=%s line %zu: expected DN<TAB>password", path, lineno);
			goto out;
		}
		*tab = '\0';
		if (line[0] == '\0' || !dn_is_valid(line)) {
			fail(x, "-e randombinddnfromfile=%s line %zu: invalid DN '%s'", path, lineno, line);
			goto out;
		}
		if (tab[1] == '\0') {
			fail(x, "-e randombinddnfromfile=%s line %zu: empty password", path, lineno);
			goto out;
		}
		if (c->binddn_file_n == room) {
			size_t nroom = room ? room * 2 : 64;
			char **dns = realloc(c->binddn_file_dns, nroom * sizeof(*dns));

			if (dns == NULL) {
				oom(x);
				goto out;
			}
			c->binddn_file_dns = dns;
			char **pws = realloc(c->binddn_file_pws, nroom * sizeof(*pws));

			if (pws == NULL) {
				oom(x);
				goto out;
			}
			c->binddn_file_pws = pws;
			room = nroom;
		}
		char *dn = strdup(line);
		char *pw = strdup(tab + 1);

		if (dn == NULL || pw == NULL) {
			free(dn);
			free(pw);
			oom(x);
			goto out;
		}
		c->binddn_file_dns[c->binddn_file_n] = dn;
		c->binddn_file_pws[c->binddn_file_n] = pw;
		c->binddn_file_n++;
	}
	if (c->binddn_file_n == 0) {
		fail(x, "-e randombinddnfromfile=%s: no DN<TAB>password line in the file", path);
		goto out;
	}
	rc = 0;
out:
	if (line != NULL) {
		explicit_bzero(line, cap);
		free(line);
	}
	fclose(f);
	return rc;
}

/* ------------------------------------------------------------- -e keywords */

enum kw_id {
	KW_OP, KW_BINDEACH, KW_CLOSE, KW_RANDOM, KW_INCR, KW_COMMONCOUNTER,
	KW_NOLOOP, KW_COUNTEACH, KW_ATTRLIST, KW_RANDOMATTRLIST, KW_ATTRSONLY, KW_RANDOMBINDDN,
	KW_RANDOMBINDDNLOW, KW_RANDOMBINDDNHIGH, KW_RANDOMBINDDNFROMFILE, KW_RANDOMBASE,
	KW_RANDOMBASELOW, KW_RANDOMBASEHIGH, KW_SRCHNENTRIES, KW_SAMPINTERVAL, KW_TIMESTAMP,
	KW_NOZEROPAD, KW_SMOOTHSHUTDOWN, KW_DONTSLEEP, KW_NOGLOBALSTATS, KW_RANDOMAUTHID,
	KW_RANDOMAUTHIDLOW, KW_RANDOMAUTHIDHIGH, KW_WITHNEWPARENT,
	KW_ATTREPLACE, KW_ATTREPLACEFILE, KW_OBJECT, KW_RDN, KW_GENLDIF, KW_APPEND, KW_PERSON,
	KW_EMAILPERSON, KW_INETORGPERSON, KW_LATER
};

enum kw_arg { ARG_NONE, ARG_NEED, ARG_OPT };

struct kw {
	const char *name;
	enum kw_id id;
	enum kw_arg arg;
};

static const struct kw keywords[] = {
	{ "esearch", KW_OP, ARG_NONE },     /* a kind of ops/ops.h: its row names the keyword */
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
	/* ldclt keywords that later work will implement */
	{ "string", KW_LATER, ARG_OPT },
	{ "ascii", KW_LATER, ARG_OPT },
	{ "deref", KW_LATER, ARG_OPT },
	{ "referral", KW_LATER, ARG_OPT },
	{ "v2", KW_LATER, ARG_OPT },
	{ "imagesdir", KW_LATER, ARG_OPT },
	{ "cltcertname", KW_LATER, ARG_OPT },
	{ "keydbfile", KW_LATER, ARG_OPT },
	{ "keydbpin", KW_LATER, ARG_OPT },
	{ "scalab01", KW_LATER, ARG_OPT },
	{ "scalab01_cnxduration", KW_LATER, ARG_OPT },
	{ "scalab01_maxcnxnb", KW_LATER, ARG_OPT },
	{ "scalab01_wait", KW_LATER, ARG_OPT },
	{ "randomauthid", KW_RANDOMAUTHID, ARG_NONE },
	{ "randomauthidlow", KW_RANDOMAUTHIDLOW, ARG_NEED },
	{ "randomauthidhigh", KW_RANDOMAUTHIDHIGH, ARG_NEED },
};

static bool attr_char_ok(char ch)
{
	return isalnum((unsigned char)ch) || ch == '-' || ch == ';' || ch == '.' || ch == '*' ||
	       ch == '+' || ch == '_';
}

/* attrlist=a:b:c (colon separated; the comma that ends the -e token ends it). */
static int parse_attrlist(struct cli_ctx *x, const char *kw, const char *list, bool random)
{
	struct ldb_config *c = x->c;
	const char *p = list;

	if (x->attrlist_seen) {
		if (c->random_attrlist != random)
			return fail(x, "-e attrlist and -e randomattrlist exclude each other");
		return fail(x, "-e %s given twice", kw);
	}
	x->attrlist_seen = true;
	c->random_attrlist = random;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 0)
			return fail(x, "-e %s=%s: empty attribute name", kw, list);
		for (size_t i = 0; i < len; i++)
			if (!attr_char_ok(p[i]))
				return fail(x, "-e %s=%s: invalid attribute name '%.*s'", kw, list,
				            (int)len, p);
		for (int i = 0; i < c->nattrs; i++)
			if (strlen(c->attrs[i]) == len && strncasecmp(c->attrs[i], p, len) == 0)
				return fail(x, "-e %s=%s: attribute '%.*s' listed twice", kw, list,
				            (int)len, p);
		if (c->nattrs >= LDB_MAX_ATTRS)
			return fail(x, "-e %s: too many attributes (at most %d)", kw, LDB_MAX_ATTRS);
		char *a = strndup(p, len);

		if (a == NULL)
			return oom(x);
		c->attrs[c->nattrs++] = a;
		c->attrs[c->nattrs] = NULL;
		if (end == NULL)
			break;
		p = end + 1;
	}
	return 0;
}

/* ---------------------------------------------- write keywords and options */

#define MAX_ATTRFILE (16u << 20)   /* attreplacefile: at most 16 MiB */
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
		return fail(x, "-e %s and -e %s exclude each other", x->class_kw, kw);
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
		return fail(x, "%s: expected %s", what, form);
	if (!attr_name_ok(arg, (size_t)(s - arg)))
		return fail(x, "%s: invalid attribute name '%.*s'", what, (int)(s - arg), arg);
	*attr = strndup(arg, (size_t)(s - arg));
	if (*attr == NULL)
		return oom(x);
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
		return fail(x, "-e attreplace given twice");
	snprintf(what, sizeof what, "-e attreplace=%s", val);
	if (split_attr_value(x, what, "attreplace=ATTR:MASK (e.g. description:XXXXXX)", val, ':', &c->attreplace_attr,
	                     &mask) != 0)
		return -1;
	if (ldb_pattern_compile(&c->attreplace_mask, mask, true) < 0)
		return oom(x);
	return 0;
}

/* attreplacefile=ATTR:FILE: the file is read whole, now. */
static int parse_attreplacefile(struct cli_ctx *x, const char *val)
{
	struct ldb_config *c = x->c;
	const char *path;
	FILE *f;
	char *buf;
	size_t len;
	char what[512];

	if (c->attreplacefile_attr != NULL)
		return fail(x, "-e attreplacefile given twice");
	snprintf(what, sizeof what, "-e attreplacefile=%s", val);
	if (split_attr_value(x, what, "attreplacefile=ATTR:FILE", val, ':', &c->attreplacefile_attr, &path) != 0)
		return -1;
	f = fopen(path, "rbe");
	if (f == NULL)
		return fail(x, "-e attreplacefile: %s: cannot open: %s", path, strerror(errno));
	int rc = ldb_read_all(f, MAX_ATTRFILE, &buf, &len), e = errno;

	fclose(f);
	if (rc != 0 && e == ENOMEM)
		return oom(x);
	if (rc != 0 && e == EFBIG)
		return fail(x, "-e attreplacefile: %s: larger than %u MiB", path, MAX_ATTRFILE >> 20);
	if (rc != 0)
		return fail(x, "-e attreplacefile: %s: cannot read: %s", path, strerror(e));
	if (len == 0) {
		free(buf);
		return fail(x, "-e attreplacefile: %s: the file is empty", path);
	}
	c->attreplacefile_data = buf;
	c->attreplacefile_len = len;
	return 0;
}

/* --modify OP:ATTR=PATTERN (OP replace|add|delete; a delete may leave the
 * pattern out, or empty: the whole attribute goes). */
static int parse_modify(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *colon = strchr(arg, ':');
	const char *attr, *eq;
	struct ldb_modspec *m;
	int op;

	if (c->nmods == (int)(sizeof(c->mods) / sizeof(c->mods[0])))
		return fail(x, "--modify: at most %d modifications", (int)(sizeof(c->mods) / sizeof(c->mods[0])));
	if (colon == NULL)
		return fail(x, "--modify '%s': expected OP:ATTR=PATTERN, OP replace, add or delete", arg);
	if ((size_t)(colon - arg) == 7 && strncmp(arg, "replace", 7) == 0)
		op = LDB_MOD_REPLACE;
	else if ((size_t)(colon - arg) == 3 && strncmp(arg, "add", 3) == 0)
		op = LDB_MOD_ADD;
	else if ((size_t)(colon - arg) == 6 && strncmp(arg, "delete", 6) == 0)
		op = LDB_MOD_DELETE;
	else
		return fail(x, "--modify '%s': the operation must be replace, add or delete", arg);
	attr = colon + 1;
	eq = strchr(attr, '=');
	if (!attr_name_ok(attr, eq ? (size_t)(eq - attr) : strlen(attr)))
		return fail(x, "--modify '%s': invalid attribute name '%.*s'", arg,
		            (int)(eq ? (size_t)(eq - attr) : strlen(attr)), attr);
	if (op != LDB_MOD_DELETE && (eq == NULL || eq[1] == '\0'))
		return fail(x, "--modify '%s': %s needs a value pattern (%s:ATTR=PATTERN)", arg,
		            op == LDB_MOD_ADD ? "add" : "replace", op == LDB_MOD_ADD ? "add" : "replace");
	m = &c->mods[c->nmods];
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->attr = strndup(attr, eq ? (size_t)(eq - attr) : strlen(attr));
	if (m->attr == NULL)
		return oom(x);
	c->nmods++;
	if (ldb_pattern_compile(&m->val, eq ? eq + 1 : "", c->zeropad) < 0)
		return oom(x);
	return 0;
}

/* --compare ATTR=PATTERN */
static int parse_compare(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	const char *pattern;
	char what[512];

	if (c->compare_attr != NULL)
		return fail(x, "--compare given twice");
	snprintf(what, sizeof what, "--compare '%s'", arg);
	if (split_attr_value(x, what, "ATTR=PATTERN", arg, '=', &c->compare_attr, &pattern) != 0)
		return -1;
	if (ldb_pattern_compile(&c->compare_val, pattern, c->zeropad) < 0)
		return oom(x);
	return 0;
}

/* The kinds' names, ", " between them. */
static void kind_list(char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < LDB_OP_COUNT && n < cap; k++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "", ldb_ops[k]->name);
}

/* --mix KIND:WEIGHT,... */
static int parse_mix(struct cli_ctx *x, const char *arg)
{
	const char *p = arg;

	if (x->mix_given)
		return fail(x, "--mix given twice");
	x->mix_given = true;
	if (arg[0] == '\0')
		return fail(x, "--mix '': expected KIND:WEIGHT,... (e.g. search:80,modify:15,add:5)");
	while (*p != '\0') {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);
		int k;
		long long w;
		char num[24];

		if (colon == NULL)
			return fail(x, "--mix '%s': expected KIND:WEIGHT, got '%.*s'", arg, (int)n, p);
		k = ldb_op_from_name(p, (size_t)(colon - p), false);
		if (k < 0) {
			char kinds[256];

			kind_list(kinds, sizeof kinds);
			return fail(x, "--mix '%s': unknown kind '%.*s' (%s)", arg, (int)(colon - p), p, kinds);
		}
		if (x->mix[k] > 0)
			return fail(x, "--mix '%s': %s given twice", arg, ldb_op_name((enum ldb_op)k));
		size_t wl = n - (size_t)(colon - p) - 1;
		bool ok = wl > 0 && wl < sizeof(num);

		if (ok) {
			memcpy(num, colon + 1, wl);
			num[wl] = '\0';
			ok = ldb_num_ll(num, &w) == LDB_NUM_OK && w >= 1 && w <= MAX_WEIGHT;
		}
		if (!ok)
			return fail(x, "--mix '%s': the weight of %s must be a whole number from 1 to %d", arg,
			            ldb_op_name((enum ldb_op)k), MAX_WEIGHT);
		x->mix[k] = (int)w;
		p += n;
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return fail(x, "--mix '%s': trailing comma", arg);
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
			return fail(x, "-e object given twice");
		return set_str(x, &c->object_file, val);
	case KW_RDN:
		if (c->rdn_spec != NULL)
			return fail(x, "-e rdn given twice");
		if (strchr(val, ':') == NULL || val[0] == ':')
			return fail(x, "-e rdn=%s: expected rdn=ATTR:VALUE (e.g. rdn=uid:user[A=INCRN(0;999;4)])", val);
		return set_str(x, &c->rdn_spec, val);
	case KW_GENLDIF:
		if (c->genldif_file != NULL)
			return fail(x, "-e genldif given twice");
		return set_str(x, &c->genldif_file, val);
	case KW_APPEND: c->genldif_append = true; break;
	case KW_PERSON: return set_class(x, k->name, LDB_CLASS_PERSON);
	case KW_EMAILPERSON: return set_class(x, k->name, LDB_CLASS_EMAILPERSON);
	case KW_INETORGPERSON: return set_class(x, k->name, LDB_CLASS_INETORGPERSON);
	default: break;
	}
	return 0;
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
			if (parse_num(x, opt, '=', val, 1, LLONG_MAX, "the step", &v) < 0)
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
			return fail(x, "-e attrsonly=%s: must be 0 or 1", val);
		c->attrsonly = val[0] - '0';
		break;
	case KW_RANDOMBINDDN: c->randombinddn = true; break;
	case KW_RANDOMBINDDNLOW:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->binddn_low);
	case KW_RANDOMBINDDNHIGH:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->binddn_high);
	case KW_RANDOMBINDDNFROMFILE: return load_binddn_file(x, val);
	case KW_RANDOMBASE: c->randombase = true; break;
	case KW_RANDOMBASELOW:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->base_low);
	case KW_RANDOMBASEHIGH:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->base_high);
	case KW_SRCHNENTRIES:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the entry count", &c->expect_entries);
	case KW_SAMPINTERVAL:
		if (parse_num(x, opt, '=', val, 1, LLONG_MAX / 1000, "the sampling interval (seconds)",
		              &v) < 0)
			return -1;
		c->interval_ms = (uint64_t)v * 1000;
		break;
	case KW_TIMESTAMP:
		c->timestamp = true;
		if (val != NULL)
			return set_str(x, &c->timestamp_fmt, val);
		break;
	case KW_NOZEROPAD: c->zeropad = false; break;
	case KW_SMOOTHSHUTDOWN: c->smoothshutdown = true; break;
	case KW_DONTSLEEP: c->dontsleeponserverdown = true; break;
	case KW_NOGLOBALSTATS: c->noglobalstats = true; break;
	case KW_RANDOMAUTHID: c->randomauthid = true; break;
	case KW_RANDOMAUTHIDLOW:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the low bound", &c->authid_low);
	case KW_RANDOMAUTHIDHIGH:
		return parse_num(x, opt, '=', val, 0, LLONG_MAX, "the high bound", &c->authid_high);
	default: return apply_write_keyword(x, k, val);
	case KW_LATER: return fail(x, "-e %s: not supported yet", k->name);
	}
	return 0;
}

/* One -e value: comma separated keywords, getsubopt style, except that a
 * keyword after attrlist=/randomattrlist= is kept (ldclt drops it). */
static int parse_exec(struct cli_ctx *x, const char *arg)
{
	char *copy, *tok;
	int rc = 0;

	if (arg[0] == '\0')
		return fail(x, "-e needs a keyword (see --help)");
	copy = strdup(arg);
	if (copy == NULL)
		return oom(x);
	tok = copy;
	while (rc == 0 && tok != NULL) {
		char *comma = strchr(tok, ',');

		if (comma != NULL)
			*comma = '\0';
		if (tok[0] == '\0') {
			/* a trailing comma is harmless (ldclt accepts it) */
			if (comma != NULL || tok == copy)
				rc = fail(x, "-e %s: empty keyword", arg);
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
			rc = fail(x, "-e %s: unknown keyword (see --help)", tok);
		else if (k->id == KW_LATER)
			rc = fail(x, "-e %s: not supported yet", tok);
		else if (k->arg == ARG_NONE && val != NULL)
			rc = fail(x, "-e %s takes no value (got '%s=%s')", tok, tok, val);
		else if (k->arg == ARG_NEED && (val == NULL || val[0] == '\0'))
			rc = fail(x, "-e %s needs a value (%s=...)", tok, tok);
		else if (k->arg == ARG_OPT && val != NULL && val[0] == '\0')
			rc = fail(x, "-e %s=: empty value", tok);
		else
			rc = apply_keyword(x, k, val);
		tok = comma ? comma + 1 : NULL;
	}
	free(copy);
	return rc;
}

/* ------------------------------------------------------------ other flags */

static int parse_scope(struct cli_ctx *x, const char *s)
{
	if (strcmp(s, "base") == 0)
		x->c->scope = LDB_SCOPE_BASE;
	else if (strcmp(s, "one") == 0 || strcmp(s, "onelevel") == 0)
		x->c->scope = LDB_SCOPE_ONE;
	else if (strcmp(s, "subtree") == 0 || strcmp(s, "sub") == 0)
		x->c->scope = LDB_SCOPE_SUB;
	else
		return fail(x, "-s '%s': the scope must be base, one or subtree", s);
	return 0;
}

static int parse_url(struct cli_ctx *x, const char *url)
{
	LDAPURLDesc *lud = NULL;
	int rc;

	const char *sep = strstr(url, "://");

	if (sep != NULL && strncasecmp(url, "ldap://", 7) != 0 && strncasecmp(url, "ldaps://", 8) != 0 &&
	    strncasecmp(url, "ldapi://", 8) != 0)
		return fail(x, "-H '%s': only ldap:// and ldaps:// URLs are supported", url);
	if (ldap_url_parse(url, &lud) != LDAP_URL_SUCCESS)
		return fail(x, "-H '%s': not a valid LDAP URL", url);
	if (strcasecmp(lud->lud_scheme, "ldapi") == 0) {
		ldap_free_urldesc(lud);
		return fail(x, "-H '%s': ldapi:// is not supported yet", url);
	}
	if (strcasecmp(lud->lud_scheme, "ldap") != 0 && strcasecmp(lud->lud_scheme, "ldaps") != 0) {
		ldap_free_urldesc(lud);
		return fail(x, "-H '%s': only ldap:// and ldaps:// URLs are supported", url);
	}
	if (lud->lud_port < 0 || lud->lud_port > 65535) {
		ldap_free_urldesc(lud);
		return fail(x, "-H '%s': the port must be between 1 and 65535", url);
	}
	x->url_given = true;
	x->url_ldaps = strcasecmp(lud->lud_scheme, "ldaps") == 0;
	x->url_port = lud->lud_port;
	free(x->url_host);
	x->url_host = NULL;
	rc = 0;
	if (lud->lud_host != NULL && lud->lud_host[0] != '\0') {
		x->url_host = strdup(lud->lud_host);
		if (x->url_host == NULL)
			rc = oom(x);
	}
	ldap_free_urldesc(lud);
	if (rc == 0)
		rc = set_str(x, &x->c->uri, url);
	return rc;
}

static int add_ignore(struct cli_ctx *x, const char *arg)
{
	struct ldb_config *c = x->c;
	int code;

	if (parse_int(x, "-I", arg, INT_MIN, INT_MAX, "the result code", &code) < 0)
		return -1;
	if (ldb_config_ignored(c, code))
		return 0;
	if (c->nignore >= LDB_MAX_IGNORE)
		return fail(x, "-I %s: too many codes to ignore (at most %d)", arg, LDB_MAX_IGNORE);
	c->ignore[c->nignore++] = code;
	return 0;
}

static int set_password(struct cli_ctx *x, char *arg)
{
	struct ldb_config *c = x->c;
	char *pw;

	if (x->pw_from_y)
		return fail(x, "-w and -y exclude each other");
	if (arg[0] == '\0')
		return fail(x, "-w: the password is empty");
	pw = strdup(arg);
	if (pw == NULL)
		return oom(x);
	if (c->password != NULL) {
		explicit_bzero(c->password, strlen(c->password));
		free(c->password);
	}
	c->password = pw;
	x->pw_from_w = true;
	x->pw_args[x->npw_args++] = arg;
	/* hide it from ps, as OpenLDAP's tools do */
	memset(arg, '*', strlen(arg));
	return 0;
}

/* ----------------------------------------------------------- cross-checks */

static const char *valmode_kw(enum ldb_valmode m)
{
	return m == LDB_VAL_INCR ? "incr" : "random";
}

static int check_range_given(struct cli_ctx *x, const char *kw, long long lo, long long hi,
                             const char *lo_name, const char *hi_name)
{
	if (lo < 0 || hi < 0)
		return fail(x, "-e %s needs %s and %s", kw, lo_name, hi_name);
	if (lo > hi)
		return fail(x, "-e %s: %s %lld is above %s %lld", kw, lo_name, lo, hi_name, hi);
	return 0;
}

/* Render p with v into a fresh string (start-up use); with subst false the
 * text is taken as it is (its X are literal). */
static char *render_alloc(struct cli_ctx *x, const struct ldb_pattern *p, long long v, bool subst)
{
	size_t cap = strlen(p->text) + 32;
	char *s = malloc(cap);

	if (s == NULL) {
		oom(x);
		return NULL;
	}
	if (!subst || !ldb_pattern_has_var(p)) {
		memcpy(s, p->text, strlen(p->text) + 1);
		return s;
	}
	ldb_pattern_render_cstr(p, v < 0 ? 0 : v, s, cap);
	return s;
}

static int check_dn(struct cli_ctx *x, const char *opt, const struct ldb_pattern *p, bool subst,
                    long long v)
{
	char *dn = render_alloc(x, p, v, subst);
	bool ok;

	if (dn == NULL)
		return -1;
	ok = dn_is_valid(dn);
	if (!ok)
		fail(x, "%s '%s': invalid DN", opt, dn);
	free(dn);
	return ok ? 0 : -1;
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
			return oom(x);
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
	if (rc != 0) {
		why[sizeof(why) - 1] = '\0';
		fail(x, "-f '%s': invalid filter%s%s", c->filter, why[0] ? ": " : "", why);
	}
	free(f);
	free(g);
	return rc != 0 ? -1 : 0;
}

static int compile_patterns(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (ldb_pattern_compile(&c->base_pat, c->base, c->zeropad) < 0)
		return oom(x);
	if (c->filter != NULL && ldb_pattern_compile(&c->filter_pat, c->filter, c->zeropad) < 0)
		return oom(x);
	if (c->bind_dn != NULL && ldb_pattern_compile(&c->bind_dn_pat, c->bind_dn, c->zeropad) < 0)
		return oom(x);
	if (c->password != NULL &&
	    ldb_pattern_compile(&c->password_pat, c->password, c->zeropad) < 0)
		return oom(x);
	if (c->sasl_authid != NULL &&
	    ldb_pattern_compile(&c->sasl_authid_pat, c->sasl_authid, c->zeropad) < 0)
		return oom(x);
	/* compiled as given; nozeropad may have come after them */
	for (int i = 0; i < c->nmods; i++)
		c->mods[i].val.zeropad = c->zeropad;
	c->compare_val.zeropad = c->zeropad;
	return 0;
}

/* ------------------------------------------------------- write workloads */

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
		    (ldb_ops[k]->dn == LDB_OPDN_FILTER || (ldb_ops[k]->dn == LDB_OPDN_FILTER_OR_RDN && c->rdn_spec == NULL)))
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
				return ldb_ops[k]->option(c);
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
static int prepare_write(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	if (x->mix_given) {
		/* only the -e keywords have set weights so far */
		for (int k = 0; k < LDB_OP_COUNT; k++)
			if (c->weight[k] > 0)
				return fail(x, "-e %s and --mix exclude each other: --mix names the operations "
				            "(e.g. --mix %s:1)", ldb_ops[k]->keyword, ldb_ops[k]->name);
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

/* ldap_str2dn: exactly one RDN of one attribute=value. */
static bool rdn_is_valid(const char *s, size_t len)
{
	LDAPDN dn = NULL;
	struct berval bv = { (ber_len_t)len, (char *)(uintptr_t)s };
	bool ok;

	if (len == 0 || memchr(s, '=', len) == NULL)
		return false;
	if (ldap_bv2dn(&bv, &dn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		return false;
	ok = dn != NULL && dn[0] != NULL && dn[1] == NULL && dn[0][0] != NULL && dn[0][1] == NULL;
	ldap_dnfree(dn);
	return ok;
}

static int check_rdn_filter(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char *r = render_alloc(x, &c->filter_pat, c->range_low, c->valmode != LDB_VAL_FIXED);
	bool ok;

	if (r == NULL)
		return -1;
	ok = rdn_is_valid(r, strlen(r));
	if (!ok)
		fail(x, "-f '%s': %s needs an RDN, one attr=value (e.g. -f uid=userXXX), and '%s' is not one",
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
		return fail(x, "%s %s='%s': XXX gets the entry's number and needs -e random or -e incr", opt,
		            attr, p->text);
	if (ldb_pattern_check_range(p, c->range_low, c->range_high, "-R", why, sizeof(why)) < 0)
		return fail(x, "%s %s: %s", opt, attr, why);
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

/* Whether the rdn spec or the object file has a *NOLOOP field that ends the
 * sequence (an unreadable file says yes: its compile reports it). */
static bool template_has_noloop(const struct ldb_config *c)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (c->rdn_spec != NULL && strstr(c->rdn_spec, "NOLOOP(") != NULL)
		return true;
	if (c->object_file == NULL)
		return false;
	f = fopen(c->object_file, "re");
	if (f == NULL)
		return true;
	while (!found && getline(&line, &cap, f) >= 0)
		found = strstr(line, "NOLOOP(") != NULL;
	free(line);
	fclose(f);
	return found;
}

/* genldif=FILE: an existing file needs append; a new one a writable folder. */
static int check_genldif_file(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	const char *f = c->genldif_file;

	if (access(f, F_OK) == 0) {
		if (!c->genldif_append)
			return fail(x, "genldif file %s exists (use -e append)", f);
		if (access(f, W_OK) != 0)
			return fail(x, "-e genldif=%s: cannot write: %s", f, strerror(errno));
		return 0;
	}
	const char *slash = strrchr(f, '/');
	char *dir = slash == NULL ? strdup(".") : slash == f ? strdup("/") : strndup(f, (size_t)(slash - f));
	int rc = 0;

	if (dir == NULL)
		return oom(x);
	if (access(dir, W_OK | X_OK) != 0)
		rc = fail(x, "-e genldif=%s: cannot create the file in %s: %s", f, dir, strerror(errno));
	free(dir);
	return rc;
}

/* genldif writes entries; it runs no operation */
static int check_genldif(struct cli_ctx *x, bool shape)
{
	struct ldb_config *c = x->c;

	if (c->genldif_append && c->genldif_file == NULL)
		return fail(x, "-e append needs -e genldif=FILE");
	if (c->genldif_file != NULL) {
		const char *op = x->mix_given ? "--mix" : first_option(c, false);

		if (op == NULL)
			op = c->delete_after_add ? "--delete-after-add" : c->withnewparent ? "-e withnewparent"
			     : c->new_parent != NULL ? "--new-parent" : NULL;
		if (op != NULL)
			return fail(x, "-e genldif writes entries to a file and runs no operation: leave out %s", op);
		if (c->randombase)
			return fail(x, "-e genldif writes the entries under -b as given: leave out -e randombase");
		if (!shape)
			return fail(x, "-e genldif needs the entries' shape: -e object=FILE, or -e person, "
			            "emailPerson or inetOrgPerson");
	}
	return 0;
}

/* the entries' shape: a class, or a template (with or without rdn=) */
static int check_shape(struct cli_ctx *x, bool shape)
{
	struct ldb_config *c = x->c;
	const char *shape_kw = c->object_file != NULL ? "object" : c->rdn_spec != NULL ? "rdn" : x->class_kw;

	if (c->add_class != LDB_CLASS_NONE && c->object_file != NULL)
		return fail(x, "-e %s and -e object exclude each other", x->class_kw);
	if ((shape || c->rdn_spec != NULL) && c->weight[LDB_OP_ADD] == 0 && c->genldif_file == NULL)
		return fail(x, "-e %s needs -e add (or genldif=FILE, or add in --mix)", shape_kw);
	if (c->rdn_spec != NULL && c->object_file == NULL)
		return fail(x, "-e rdn needs -e object=FILE");
	if (c->rdn_spec != NULL) {
		if (c->filter != NULL)
			return fail(x, "-e rdn and -f exclude each other: rdn= names the entries");
		if (x->random_seen || x->incr_seen)
			return fail(x, "-e rdn and -e %s exclude each other: the template's fields number the entries",
			            x->random_seen ? "random" : "incr");
		if (x->low_given || x->high_given)
			return fail(x, "-e rdn and %s exclude each other: the template's fields hold the ranges",
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
		return fail(x, "--mix modify: give one of --modify, -e attreplace, -e attreplacefile");
	if (c->weight[LDB_OP_MODIFY] == 0 && nmod > 0)
		return fail(x, "%s needs modify in --mix", ldb_ops[LDB_OP_MODIFY]->option(c));
	if (c->weight[LDB_OP_COMPARE] == 0 && c->compare_attr != NULL)
		return fail(x, "--compare needs compare in --mix");
	if (ldb_ops_check(c, LDB_CHECK_MIX, why, sizeof why) < 0)
		return fail(x, "%s", why);
	return 0;
}

/* Every cross-check of the write keywords and options; each kind's own
 * checks come from its row (ldb_ops_check). */
static int check_write(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	bool shape = c->add_class != LDB_CLASS_NONE || c->object_file != NULL;
	char why[512];

	if (check_genldif(x, shape) < 0 || check_shape(x, shape) < 0)
		return -1;
	/* numbering (ldclt's rule) and the RDN pattern */
	if (c->genldif_file != NULL && c->valmode == LDB_VAL_FIXED && c->rdn_spec == NULL)
		return fail(x, "-e genldif needs -e incr, -e random or -e rdn=");
	if (ldb_ops_check(c, LDB_CHECK_ENTRIES, why, sizeof why) < 0)
		return fail(x, "%s", why);
	if (rdn_from_filter(c) && c->filter == NULL)
		return fail(x, "%s needs -f with the entries' RDN (e.g. -f uid=userXXX)", first_rdn_user(c));

	/* rename, delete-after-add */
	if (c->withnewparent && c->weight[LDB_OP_RENAME] == 0)
		return fail(x, "-e withnewparent needs -e rename");
	if (c->withnewparent && c->new_parent == NULL)
		return fail(x, "-e withnewparent needs --new-parent DN (where the entries move)");
	if (c->new_parent != NULL && !c->withnewparent)
		return fail(x, "--new-parent needs -e rename,withnewparent");
	if (c->delete_after_add && c->weight[LDB_OP_ADD] == 0)
		return fail(x, "--delete-after-add needs -e add (or add in --mix)");
	if (x->mix_given && check_mix(x) < 0)
		return -1;

	/* genldif: an end, and its file */
	if (c->genldif_file != NULL) {
		if (c->ops_per_thread < 0 && !(c->valmode == LDB_VAL_INCR && c->noloop) &&
		    !(c->object_file != NULL && template_has_noloop(c)))
			return fail(x, "-e genldif needs an end: -T N, -e incr with noloop, or a *NOLOOP field "
			            "in the template");
		if (check_genldif_file(x) < 0)
			return -1;
		if (x->threads_given && c->threads > 1)
			x->genldif_threads = c->threads;
		c->threads = 1;
	}
	return 0;
}

/* object=FILE (and rdn=): compiled last, once every option is known.  A
 * trial copy without the shared counters renders one entry first, so the RDN
 * is checked without using up a value. */
static int compile_objtmpl(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	struct ldb_objtmpl *t = NULL;
	struct ldb_objtmpl_cursor cur;
	struct ldb_obj_entry e;
	struct ldb_rng rng;
	char why[512];
	char *scratch;
	int r;

	if (c->object_file == NULL)
		return 0;
	if (ldb_objtmpl_compile(&t, c->object_file, c->rdn_spec, false, why, sizeof(why)) < 0)
		return fail(x, "%s", why);
	if (c->rdn_spec != NULL) {
		scratch = malloc(ldb_objtmpl_max_size(t) + 1);
		if (scratch == NULL) {
			ldb_objtmpl_free(t);
			return oom(x);
		}
		ldb_objtmpl_cursor_init(t, &cur);
		ldb_rng_seed(&rng, c->seed, 0);
		r = ldb_objtmpl_render(t, &cur, &rng, scratch, ldb_objtmpl_max_size(t) + 1, &e);
		if (r == 1 && !rdn_is_valid(e.rdn, e.rdn_len)) {
			fail(x, "-e rdn=%s: the first entry's RDN '%.*s' is not a valid RDN", c->rdn_spec,
			     (int)e.rdn_len, e.rdn);
			free(scratch);
			ldb_objtmpl_free(t);
			return -1;
		}
		free(scratch);
	}
	ldb_objtmpl_free(t);
	if (ldb_objtmpl_compile(&c->objtmpl, c->object_file, c->rdn_spec, c->commoncounter, why, sizeof(why)) < 0)
		return fail(x, "%s", why);
	return 0;
}

/* the filter and its values */
static int check_filter_values(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (ldb_ops_check(c, LDB_CHECK_FILTER, why, sizeof why) < 0)
		return fail(x, "%s", why);
	if (!filter_used(c) && !rdn_from_filter(c) && c->filter != NULL)
		return fail(x, "-f is not used by -e bindonly");
	if (c->filter != NULL && strchr(c->filter, '=') == NULL)
		return fail(x, "-f '%s': a filter must contain '='", c->filter);
	if (c->valmode != LDB_VAL_FIXED) {
		const char *kw = valmode_kw(c->valmode);

		if (!x->low_given || !x->high_given)
			return fail(x, "-e %s needs -r and -R", kw);
		if (c->range_low < 0)
			return fail(x, "-r %lld: the low bound must be at least 0", c->range_low);
		if (c->range_low > c->range_high)
			return fail(x, "-r %lld is above -R %lld", c->range_low, c->range_high);
		if (c->filter == NULL || !ldb_pattern_has_var(&c->filter_pat))
			return fail(x, "-e %s needs an XXX placeholder in -f", kw);
		if (ldb_pattern_check_range(&c->filter_pat, c->range_low, c->range_high, "-R", why,
		                            sizeof(why)) < 0)
			return fail(x, "%s", why);
	} else if (c->filter != NULL && ldb_pattern_has_var(&c->filter_pat)) {
		return fail(x, "-f '%s' has XXX but neither -e random nor -e incr is given", c->filter);
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
		return fail(x, "-e randombinddnfromfile and -e randombinddn exclude each other");
	if (c->binddn_file != NULL && c->bind_dn != NULL)
		return fail(x, "-e randombinddnfromfile and -D exclude each other");
	if (ldb_ops_check(c, LDB_CHECK_BINDER, why, sizeof why) < 0)
		return fail(x, "%s", why);
	if (c->bind_dn != NULL && c->password == NULL)
		return fail(x, "-D needs a password (-w, -y or LDBENCH_PASSWORD)");
	if (c->randombinddn) {
		if (c->bind_dn == NULL || !ldb_pattern_has_var(&c->bind_dn_pat))
			return fail(x, "-e randombinddn needs -D with an XXX placeholder");
		if (check_range_given(x, "randombinddn", c->binddn_low, c->binddn_high,
		                      "randombinddnlow", "randombinddnhigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->bind_dn_pat, c->binddn_low, c->binddn_high,
		                            "randombinddnhigh", why, sizeof(why)) < 0)
			return fail(x, "%s", why);
		/* never quote the password itself */
		if (c->password != NULL && ldb_pattern_has_var(&c->password_pat) &&
		    (size_t)ldb_digits(c->binddn_high) > c->password_pat.width)
			return fail(x, "randombinddnhigh %lld needs %d digits but the XXX of the password "
			            "(-w) has %zu X", c->binddn_high, ldb_digits(c->binddn_high),
			            c->password_pat.width);
	}
	if (c->bind_dn != NULL &&
	    check_dn(x, "-D", &c->bind_dn_pat, c->randombinddn, c->binddn_low) < 0)
		return -1;

	/* where to search */
	if (c->randombase) {
		if (!ldb_pattern_has_var(&c->base_pat))
			return fail(x, "-e randombase needs an XXX placeholder in -b");
		if (check_range_given(x, "randombase", c->base_low, c->base_high, "randombaselow",
		                      "randombasehigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->base_pat, c->base_low, c->base_high, "randombasehigh",
		                            why, sizeof(why)) < 0)
			return fail(x, "%s", why);
	}
	if (check_dn(x, "-b", &c->base_pat, c->randombase, c->base_low) < 0)
		return -1;
	return 0;
}

static int cross_check(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;

	/* what to do */
	if (!ops_given(c) && c->genldif_file == NULL && !x->mix_given)
		return fail(x, "nothing to do: give -e esearch or -e bindonly (or add, delete, rename, "
		            "attreplace, attreplacefile, genldif, --modify, --compare, --mix)");
	if (x->random_seen && x->incr_seen)
		return fail(x, "-e random and -e incr exclude each other");
	if (check_write(x) < 0)
		return -1;
	if (c->noloop && c->valmode != LDB_VAL_INCR && c->object_file == NULL)
		return fail(x, "-e noloop needs -e incr (or an object= template)");
	if (c->commoncounter && c->valmode != LDB_VAL_INCR && c->object_file == NULL)
		return fail(x, "-e commoncounter needs -e incr (or an object= template)");
	if (c->close_sock && !c->bindeach)
		return fail(x, "-e close needs -e bindeach");
	if (c->nattrs > 0 && c->weight[LDB_OP_SEARCH] == 0)
		return fail(x, "-e %s needs -e esearch", c->random_attrlist ? "randomattrlist" : "attrlist");
	if (c->expect_entries >= 0 && c->weight[LDB_OP_SEARCH] == 0)
		return fail(x, "-e srchnentries needs -e esearch");
	if (c->rate > 0 && c->wait_sec > 0)
		return fail(x, "--rate and -W exclude each other (-W sleeps whole seconds between operations)");
	if (c->duration_ms > 0 && c->samples > 0)
		return fail(x, "--duration and -N exclude each other");
	if (c->warmup_ms > 0 && c->warmup_samples > 0)
		return fail(x, "--warmup takes a duration or a sample count, not both");
	if (check_filter_values(x) < 0)
		return -1;
	return check_binder_base(x);
}

/* ----------------------------------------------------------- TLS and SASL */

enum {
	OPT_STARTTLS = 512, OPT_TLS_CACERT, OPT_TLS_CACERTDIR, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_MIN,
	OPT_TLS_CIPHERS, OPT_TLS_INSECURE, OPT_TLS_RESUME
};

/* --starttls and the --tls-* options; remembers the first one for the checks. */
static int handle_tls_option(struct cli_ctx *x, int opt, const char *name, const char *arg)
{
	struct ldb_config *c = x->c;

	if (opt != OPT_STARTTLS && x->tls_opt == NULL)
		x->tls_opt = name;
	if (arg != NULL && arg[0] == '\0')
		return fail(x, "--%s: empty value", name);
	switch (opt) {
	case OPT_STARTTLS: c->starttls = true; return 0;
	case OPT_TLS_CACERT: return set_str(x, &c->tls_cacert, arg);
	case OPT_TLS_CACERTDIR: return set_str(x, &c->tls_cacertdir, arg);
	case OPT_TLS_CERT: return set_str(x, &c->tls_cert, arg);
	case OPT_TLS_KEY: return set_str(x, &c->tls_key, arg);
	case OPT_TLS_CIPHERS: return set_str(x, &c->tls_ciphers, arg);
	case OPT_TLS_INSECURE: c->tls_insecure = true; return 0;
	case OPT_TLS_RESUME: c->tls_resume = true; return 0;
	case OPT_TLS_MIN:
		if (strcmp(arg, "1.2") == 0)
			c->tls_min = 12;
		else if (strcmp(arg, "1.3") == 0)
			c->tls_min = 13;
		else
			return fail(x, "--tls-min '%s': must be 1.2 or 1.3", arg);
		return 0;
	default: return fail(x, "unknown TLS option");
	}
}

/* -o KEY=VALUE, one setting per -o as ldclt: the KEY is any prefix of a
 * setting's name, case-insensitive, tried in ldclt's order (so "auth=" is
 * authzid). */
static int parse_sasl_opt(struct cli_ctx *x, const char *arg)
{
	static const char *const keys[] = { "secProp", "realm", "authzid", "authid", "mech", "flags" };
	struct ldb_config *c = x->c;
	const char *eq = strchr(arg, '=');
	const char *val;
	size_t klen;
	int k;

	if (eq == NULL || eq == arg)
		return fail(x, "-o '%s': expected KEY=VALUE (mech, authid, authzid, realm, secProp, flags)", arg);
	klen = (size_t)(eq - arg);
	val = eq + 1;
	for (k = 0; k < 6; k++)
		if (klen <= strlen(keys[k]) && strncasecmp(arg, keys[k], klen) == 0)
			break;
	if (k == 6)
		return fail(x, "-o '%.*s': unknown SASL setting (mech, authid, authzid, realm, secProp, flags)",
		            (int)klen, arg);
	if (val[0] == '\0')
		return fail(x, "-o %s=: empty value", keys[k]);
	switch (k) {
	case 0: /* secProp: security layers; EXTERNAL and PLAIN have none */
		return 0;
	case 1:
		if (c->sasl_realm != NULL)
			return fail(x, "-o realm given twice");
		return set_str(x, &c->sasl_realm, val);
	case 2:
		if (c->sasl_authzid != NULL)
			return fail(x, "-o authzid given twice");
		return set_str(x, &c->sasl_authzid, val);
	case 3:
		if (c->sasl_authid != NULL)
			return fail(x, "-o authid given twice");
		return set_str(x, &c->sasl_authid, val);
	case 4:
		if (c->sasl_mech != NULL)
			return fail(x, "-o mech given twice");
		if (strcasecmp(val, "EXTERNAL") != 0 && strcasecmp(val, "PLAIN") != 0)
			return fail(x, "-o mech=%s: not supported; ldbench encodes EXTERNAL and PLAIN", val);
		if (set_str(x, &c->sasl_mech, val) < 0)
			return -1;
		for (char *p = c->sasl_mech; *p != '\0'; p++)
			*p = (char)toupper((unsigned char)*p);
		return 0;
	default: { /* flags: ldbench never prompts, so any of ldclt's values is fine */
		size_t n = strlen(val);

		if (strncasecmp(val, "automatic", n) != 0 && strncasecmp(val, "interactive", n) != 0 &&
		    strncasecmp(val, "quiet", n) != 0)
			return fail(x, "-o flags=%s: must be automatic, interactive or quiet", val);
		return 0;
	}
	}
}

/* -Z PATH names an NSS database when PATH is one of its files, or a directory
 * holding one, or a file beside one (ldclt uses PATH's directory). */
static bool is_nss_db(const char *path)
{
	static const char *const files[] = { "cert9.db", "cert8.db", "key4.db", "key3.db" };
	char buf[4096];
	const char *base = strrchr(path, '/');
	size_t dlen;

	if (strncmp(path, "sql:", 4) == 0 || strncmp(path, "dbm:", 4) == 0)
		return true;
	base = base != NULL ? base + 1 : path;
	dlen = (size_t)(base - path);
	for (int i = 0; i < 4; i++) {
		if (strcmp(base, files[i]) == 0)
			return true;
		/* PATH as a directory */
		if (snprintf(buf, sizeof buf, "%s/%s", path, files[i]) < (int)sizeof buf &&
		    access(buf, F_OK) == 0)
			return true;
		/* PATH's directory */
		if (snprintf(buf, sizeof buf, "%.*s%s", (int)dlen, dlen ? path : "./", files[i]) <
		        (int)sizeof buf && access(buf, F_OK) == 0)
			return true;
	}
	return false;
}

static int check_tls_sasl(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	/* TLS */
	if (c->starttls && c->ldaps)
		return fail(x, "--starttls and ldaps (-Z, -H ldaps://) exclude each other: ldaps is TLS from "
		            "the first byte");
	if (x->tls_opt != NULL && !c->ldaps && !c->starttls)
		return fail(x, "--%s needs TLS: give -Z, -H ldaps:// or --starttls", x->tls_opt);
	if ((c->tls_cert == NULL) != (c->tls_key == NULL))
		return fail(x, "--tls-cert and --tls-key go together");
	if (c->tls_certdb != NULL && c->ldaps) {
		c->tls_nssdb = is_nss_db(c->tls_certdb);
		/* ldclt's -Z checks nothing: the same here, unless a CA is given */
		if (c->tls_cacert == NULL && c->tls_cacertdir == NULL)
			c->tls_insecure = true;
	}

	/* SASL */
	if (c->sasl_mech == NULL) {
		if (c->sasl_authid != NULL || c->sasl_authzid != NULL || c->sasl_realm != NULL)
			return fail(x, "-o %s needs -o mech=EXTERNAL or -o mech=PLAIN",
			            c->sasl_authid != NULL ? "authid" : c->sasl_authzid != NULL ? "authzid" : "realm");
		if (c->randomauthid)
			return fail(x, "-e randomauthid needs -o mech=PLAIN with an XXX in -o authid");
		return 0;
	}
	if (c->bind_dn != NULL)
		return fail(x, "-D and -o mech exclude each other (a SASL bind names its user with -o authid)");
	if (c->randombinddn || c->binddn_file != NULL)
		return fail(x, "-e %s and -o mech exclude each other (use -e randomauthid)",
		            c->randombinddn ? "randombinddn" : "randombinddnfromfile");
	if (strcmp(c->sasl_mech, "EXTERNAL") == 0) {
		if (c->tls_cert == NULL)
			return fail(x, "-o mech=EXTERNAL needs a client certificate (--tls-cert FILE --tls-key FILE)");
		if (c->sasl_authid != NULL || c->randomauthid)
			return fail(x, "-o authid is not used by EXTERNAL: the identity is the client certificate's "
			            "(-o authzid asks for another)");
		return 0;
	}
	/* PLAIN */
	if (c->sasl_authid == NULL)
		return fail(x, "-o mech=PLAIN needs -o authid=USER");
	if (c->password == NULL)
		return fail(x, "-o mech=PLAIN needs a password (-w, -y or LDBENCH_PASSWORD)");
	if (c->randomauthid) {
		if (!ldb_pattern_has_var(&c->sasl_authid_pat))
			return fail(x, "-e randomauthid needs an XXX placeholder in -o authid");
		if (check_range_given(x, "randomauthid", c->authid_low, c->authid_high, "randomauthidlow",
		                      "randomauthidhigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->sasl_authid_pat, c->authid_low, c->authid_high,
		                            "randomauthidhigh", why, sizeof(why)) < 0)
			return fail(x, "%s", why);
		if (ldb_pattern_has_var(&c->password_pat) &&
		    (size_t)ldb_digits(c->authid_high) > c->password_pat.width)
			return fail(x, "randomauthidhigh %lld needs %d digits but the XXX of the password "
			            "(-w) has %zu X", c->authid_high, ldb_digits(c->authid_high),
			            c->password_pat.width);
		/* the worker draws the number of LDB_FIELD_BINDDN from these */
		c->binddn_low = c->authid_low;
		c->binddn_high = c->authid_high;
	}
	return 0;
}

/* The -Z warning (stderr, once, when the run goes ahead). */
static void warn_certdb(const struct ldb_config *c)
{
	if (c->tls_certdb == NULL || !c->ldaps)
		return;
	if (c->tls_nssdb)
		fprintf(stderr, "%s: warning: -Z %s is an NSS database, which OpenSSL cannot read; %s\n",
		        c->progname, c->tls_certdb,
		        c->tls_insecure ? "the server certificate is NOT verified (as with ldclt); give "
		                          "--tls-cacert FILE (PEM) to verify it"
		                        : "it is ignored: the server certificate is verified with --tls-cacert");
	else if (c->tls_insecure)
		fprintf(stderr, "%s: warning: -Z: the server certificate is NOT verified (as with ldclt); give "
		        "--tls-cacert FILE (PEM) to verify it\n", c->progname);
}

/* The command line for -v, every -w value replaced by PW_MASK. */
static int build_cmdline(struct cli_ctx *x, int argc, char *const *orig)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(orig[i]) + sizeof(PW_MASK) + 1;
	s = malloc(len);
	if (s == NULL)
		return oom(x);
	p = s;
	for (int i = 0; i < argc; i++) {
		const char *a = orig[i];
		size_t alen = strlen(a), keep = alen;
		bool masked = false;

		for (int k = 0; k < x->npw_args; k++)
			if (x->pw_args[k] >= a && x->pw_args[k] <= a + alen) {
				keep = (size_t)(x->pw_args[k] - a);
				masked = true;
			}
		if (i > 0)
			*p++ = ' ';
		memcpy(p, a, keep);
		p += keep;
		if (masked) {
			memcpy(p, PW_MASK, sizeof(PW_MASK) - 1);
			p += sizeof(PW_MASK) - 1;
		}
	}
	*p = '\0';
	free(x->c->cmdline);
	x->c->cmdline = s;
	return 0;
}

/* ------------------------------------------------------------------ parse */

enum { OPT_HELP = 256, OPT_VERSION, OPT_INTERVAL, OPT_SEED, OPT_CONNS, OPT_IO_THREADS, OPT_WARMUP, OPT_DURATION, OPT_RATE, OPT_SWEEP, OPT_MONITOR, OPT_FAIL_IF, OPT_START_AT, OPT_JSON, OPT_CSV,
       OPT_MODIFY, OPT_COMPARE, OPT_DELETE_AFTER_ADD, OPT_NEW_PARENT, OPT_MIX, OPT_SCENARIO,
       OPT_LIST_SCENARIOS };

static const struct option long_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "connections-per-thread", required_argument, NULL, OPT_CONNS },
	{ "io-threads", required_argument, NULL, OPT_IO_THREADS },
	{ "starttls", no_argument, NULL, OPT_STARTTLS },
	{ "tls-cacert", required_argument, NULL, OPT_TLS_CACERT },
	{ "tls-cacertdir", required_argument, NULL, OPT_TLS_CACERTDIR },
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "tls-min", required_argument, NULL, OPT_TLS_MIN },
	{ "tls-ciphers", required_argument, NULL, OPT_TLS_CIPHERS },
	{ "tls-insecure", no_argument, NULL, OPT_TLS_INSECURE },
	{ "tls-resume", no_argument, NULL, OPT_TLS_RESUME },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "monitor", no_argument, NULL, OPT_MONITOR },
	{ "fail-if", required_argument, NULL, OPT_FAIL_IF },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "modify", required_argument, NULL, OPT_MODIFY },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "delete-after-add", no_argument, NULL, OPT_DELETE_AFTER_ADD },
	{ "new-parent", required_argument, NULL, OPT_NEW_PARENT },
	{ "mix", required_argument, NULL, OPT_MIX },
	{ "scenario", required_argument, NULL, OPT_SCENARIO },
	{ "list-scenarios", required_argument, NULL, OPT_LIST_SCENARIOS },
	{ NULL, 0, NULL, 0 }
};

static const char short_options[] = ":a:b:D:e:E:f:h:H:i:I:n:N:o:p:qQr:R:s:S:t:T:vVw:W:y:Z:";

static const char *long_name(int val)
{
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

static int parse_seed(struct cli_ctx *x, const char *arg)
{
	uint64_t v;
	int rc = ldb_num_u64(arg, &v);

	if (rc == LDB_NUM_JUNK)
		return fail(x, "--seed '%s': not a whole number", arg);
	if (rc != LDB_NUM_OK)
		return fail(x, "--seed %s: the seed must fit in 64 bits", arg);
	x->c->seed = v;
	x->c->seed_given = true;
	return 0;
}

static int parse_interval(struct cli_ctx *x, const char *arg)
{
	uint64_t ms;

	if (ldb_parse_duration_ms(arg, &ms) < 0)
		return fail(x, "--interval '%s': not a duration (e.g. 10, 10s, 500ms, 2m, 1h)", arg);
	if (ms < MIN_INTERVAL_MS)
		return fail(x, "--interval %s: the interval must be at least %dms", arg, MIN_INTERVAL_MS);
	x->c->interval_ms = ms;
	return 0;
}

/* --warmup 30s | 500ms | 3s... ; "Ns" alone with a bare count means samples: "2s"
 * is a duration, so samples are written "3samples" or "3 samples". */
static int parse_warmup(struct cli_ctx *x, const char *arg)
{
	char *end;
	errno = 0;
	long long n = strtoll(arg, &end, 10);
	if (end != arg && errno == 0 && n > 0 && n <= 1000000 &&
	    (strcmp(end, "samples") == 0 || strcmp(end, " samples") == 0)) {
		x->c->warmup_samples = n;
		return 0;
	}
	if (ldb_parse_duration_ms(arg, &x->c->warmup_ms) < 0 || x->c->warmup_ms == 0)
		return fail(x, "--warmup '%s': not a duration (e.g. 10s, 500ms) nor a sample count (e.g. 3samples)",
		            arg);
	return 0;
}

static int parse_rate(struct cli_ctx *x, const char *arg)
{
	char *end;
	errno = 0;
	double r = strtod(arg, &end);
	if (end == arg || (*end != '\0' && strcmp(end, "/s") != 0) || errno != 0 || !(r > 0) || r > 1e8)
		return fail(x, "--rate '%s': operations per second, a number above 0 (e.g. 5000)", arg);
	x->c->rate = r;
	return 0;
}

static int parse_sweep(struct cli_ctx *x, const char *arg)
{
	const char *p = arg;
	x->c->nsweep = 0;
	while (*p != '\0') {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno != 0 || v < 1 || v > MAX_THREADS || (*end != ',' && *end != '\0'))
			return fail(x, "--sweep '%s': a comma-separated list of thread counts (1..%d)", arg, MAX_THREADS);
		if (x->c->nsweep == (int)(sizeof x->c->sweep / sizeof x->c->sweep[0]))
			return fail(x, "--sweep '%s': at most 64 thread counts", arg);
		x->c->sweep[x->c->nsweep++] = (int)v;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return fail(x, "--sweep '%s': a comma-separated list of thread counts (1..%d)", arg, MAX_THREADS);
	}
	if (x->c->nsweep == 0)
		return fail(x, "--sweep '': give thread counts, e.g. 1,2,4,8");
	return 0;
}

/* --start-at: @EPOCH, YYYY-MM-DDTHH:MM:SS (local time, or UTC with a final Z)
 * or HH:MM[:SS] today (local time).  The time must lie ahead, within a day. */
static int parse_start_at(struct cli_ctx *x, const char *arg)
{
	time_t now = time(NULL), t = 0;
	struct tm tm;
	const char *end = NULL;
	char *e;

	if (arg[0] == '@') {
		errno = 0;
		long long v = strtoll(arg + 1, &e, 10);
		if (e != arg + 1 && *e == '\0' && errno == 0 && v > 0)
			t = (time_t)v;
	} else {
		memset(&tm, 0, sizeof tm);
		if ((end = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm)) != NULL && (*end == '\0' || strcmp(end, "Z") == 0)) {
			tm.tm_isdst = -1;
			t = *end == 'Z' ? timegm(&tm) : mktime(&tm);
		} else {
			/* a time of day, today: the date from now, the time from arg */
			static const char *const forms[] = { "%H:%M:%S", "%H:%M" };
			for (size_t i = 0; i < sizeof forms / sizeof forms[0] && t == 0; i++) {
				localtime_r(&now, &tm);
				tm.tm_sec = 0;
				end = strptime(arg, forms[i], &tm);
				if (end != NULL && *end == '\0') {
					tm.tm_isdst = -1;
					t = mktime(&tm);
				}
			}
		}
	}
	if (t <= 0)
		return fail(x, "--start-at '%s': not a time (@EPOCH, YYYY-MM-DDTHH:MM:SS[Z], or HH:MM[:SS] today)", arg);
	if (t < now)
		return fail(x, "--start-at '%s': that time has passed", arg);
	if (t > now + 86400)
		return fail(x, "--start-at '%s': more than a day ahead", arg);
	x->c->start_at = t;
	return 0;
}

/* Handle one option from getopt_long.  @return 0, -1 on error, 1 when
 * --help/--version was printed. */
static int handle_option(struct cli_ctx *x, int opt, char *arg, char **argv)
{
	struct ldb_config *c = x->c;
	long long v;

	switch (opt) {
	case 'a': return parse_int(x, "-a", arg, 1, MAX_DEPTH, "requests in flight", &c->depth);
	case 'b': return set_str(x, &c->base, arg);
	case 'D':
		if (arg[0] == '\0')
			return fail(x, "-D: empty bind DN (leave -D out for an anonymous bind)");
		return set_str(x, &c->bind_dn, arg);
	case 'e': return parse_exec(x, arg);
	case 'E': return parse_num(x, "-E", ' ', arg, 0, LLONG_MAX, "max errors", &c->max_errors);
	case 'f': return set_str(x, &c->filter, arg);
	case 'h':
		if (arg[0] == '\0')
			return fail(x, "-h: empty host name");
		return set_str(x, &c->host, arg);
	case 'H': return parse_url(x, arg);
	case 'i': return parse_int(x, "-i", arg, 0, INT_MAX, "max times inactive", &c->inactivity);
	case 'I': return add_ignore(x, arg);
	case 'n':
		x->threads_given = true;
		return parse_int(x, "-n", arg, 1, MAX_THREADS, "threads", &c->threads);
	case 'N': return parse_num(x, "-N", ' ', arg, 1, LLONG_MAX, "samples", &c->samples);
	case 'o': return parse_sasl_opt(x, arg);
	case 'p':
		x->port_given = true;
		return parse_int(x, "-p", arg, 1, 65535, "the port", &c->port);
	case 'q': c->quiet = true; return 0;
	case 'Q': c->quiet = c->super_quiet = true; return 0;
	case 'r':
		if (parse_num(x, "-r", ' ', arg, LLONG_MIN, LLONG_MAX, "the low bound", &v) < 0)
			return -1;
		c->range_low = v;
		x->low_given = true;
		return 0;
	case 'R':
		if (parse_num(x, "-R", ' ', arg, 0, LLONG_MAX, "the high bound", &v) < 0)
			return -1;
		c->range_high = v;
		x->high_given = true;
		return 0;
	case 's': return parse_scope(x, arg);
	case 'S': return fail(x, "-S (replication check) is not supported yet");
	case 't': return parse_int(x, "-t", arg, 1, INT_MAX, "the timeout (seconds)", &c->timeout_sec);
	case 'T': return parse_num(x, "-T", ' ', arg, 1, LLONG_MAX, "operations per thread",
	                           &c->ops_per_thread);
	case 'v': if (c->verbose < 1) c->verbose = 1; return 0;
	case 'V': c->verbose = 2; return 0;
	case 'w': return set_password(x, arg);
	case 'W': return parse_int(x, "-W", arg, 0, INT_MAX, "the wait (seconds)", &c->wait_sec);
	case 'y':
		if (x->pw_from_w)
			return fail(x, "-w and -y exclude each other");
		x->pw_from_y = true;
		return read_password_file(x, arg);
	case 'Z':
		if (arg[0] == '\0')
			return fail(x, "-Z: empty certificate database path");
		c->ldaps = true;
		return set_str(x, &c->tls_certdb, arg);
	case OPT_HELP:
		ldb_cli_usage(c->progname, stdout);
		return 1;
	case OPT_VERSION:
		printf("%s version %s\n", c->progname, LDBENCH_VERSION);
		return 1;
	case OPT_INTERVAL: return parse_interval(x, arg);
	case OPT_SEED: return parse_seed(x, arg);
	case OPT_CONNS:
		return parse_int(x, "--connections-per-thread", arg, 1, MAX_CONNS_PER_THREAD,
		                 "connections per thread", &c->conns_per_thread);
	case OPT_WARMUP: return parse_warmup(x, arg);
	case OPT_DURATION:
		if (ldb_parse_duration_ms(arg, &c->duration_ms) < 0 || c->duration_ms == 0)
			return fail(x, "--duration '%s': not a duration (e.g. 30s, 500ms, 2m)", arg);
		return 0;
	case OPT_RATE: return parse_rate(x, arg);
	case OPT_SWEEP: return parse_sweep(x, arg);
	case OPT_MONITOR:
		c->monitor = true;
		return 0;
	case OPT_START_AT: return parse_start_at(x, arg);
	case OPT_FAIL_IF: {
		char why[400];
		if (c->nfail_if == (int)(sizeof c->fail_if / sizeof c->fail_if[0]))
			return fail(x, "--fail-if: at most 16 thresholds");
		if (ldb_threshold_parse(&c->fail_if[c->nfail_if], arg, why, sizeof why) != 0)
			return fail(x, "%s", why);
		c->nfail_if++;
		return 0;
	}
	case OPT_IO_THREADS:
		return parse_int(x, "--io-threads", arg, 1, MAX_THREADS, "I/O threads", &c->io_threads);
	case OPT_JSON:
	case OPT_CSV:
		if (arg[0] == '\0')
			return fail(x, "--%s: empty file name", long_name(opt));
		*(opt == OPT_JSON ? &c->json_path : &c->csv_path) = arg; /* argv outlives the config */
		if (c->json_path != NULL && c->csv_path != NULL && strcmp(c->json_path, "-") == 0 &&
		    strcmp(c->csv_path, "-") == 0)
			return fail(x, "--json - and --csv - cannot both write to stdout");
		return 0;
	case OPT_MODIFY: return parse_modify(x, arg);
	case OPT_COMPARE: return parse_compare(x, arg);
	case OPT_DELETE_AFTER_ADD: c->delete_after_add = true; return 0;
	case OPT_NEW_PARENT:
		if (arg[0] == '\0' || !dn_is_valid(arg))
			return fail(x, "--new-parent '%s': invalid DN", arg);
		return set_str(x, &c->new_parent, arg);
	case OPT_MIX: return parse_mix(x, arg);
	case OPT_SCENARIO: case OPT_LIST_SCENARIOS:
		return 0; /* taken out of argv before this parse (see ldb_cli_parse) */
	case OPT_STARTTLS: case OPT_TLS_CACERT: case OPT_TLS_CACERTDIR: case OPT_TLS_CERT:
	case OPT_TLS_KEY: case OPT_TLS_MIN: case OPT_TLS_CIPHERS: case OPT_TLS_INSECURE: case OPT_TLS_RESUME:
		return handle_tls_option(x, opt, long_name(opt), arg);
	case ':':
		if (optopt >= OPT_HELP)
			return fail(x, "--%s needs a value", long_name(optopt));
		return fail(x, "-%c needs a value", optopt);
	case '?':
	default:
		if (optopt >= OPT_HELP)
			return fail(x, "--%s takes no value", long_name(optopt));
		if (optopt > 0 && optopt < 256)
			return fail(x, "unknown option '-%c' (see --help)", optopt);
		{
			/* an unknown or ambiguous long option: name it, without any =value */
			const char *a = optind > 0 ? argv[optind - 1] : "?";
			int n = (int)strcspn(a, "=");

			return fail(x, "unknown option '%.*s' (see --help)", n, a);
		}
	}
}

/* Where the options of a merged argv come from (--scenario): argv[1..nfile]
 * are the file's words, line_of[i] the file line of argv[i]. */
struct scen_map {
	const char *path;
	const int *line_of;
	int nfile;
};

/* Rewrite err "progname: MSG" as "progname: FILE:LINE: MSG". */
static void err_at_line(struct cli_ctx *x, const char *path, int line)
{
	size_t pre = strlen(x->c->progname) + 2;
	char *msg;

	if (x->err == NULL || x->errcap == 0 || strlen(x->err) < pre)
		return;
	msg = strdup(x->err + pre);
	if (msg == NULL)
		return;
	fail(x, "%s:%d: %s", path, line, msg);
	free(msg);
}

static enum ldb_cli_result parse_argv(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap,
                                      const struct scen_map *m)
{
	struct cli_ctx x = { .c = c, .err = err, .errcap = errcap };
	char **orig = NULL;
	int rc = 0, opt;

	if (err != NULL && errcap > 0)
		err[0] = '\0';
	if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0') {
		const char *b = strrchr(argv[0], '/');

		b = b ? b + 1 : argv[0];
		if (b[0] != '\0')
			c->progname = b;
	}
	/* getopt_long permutes argv: keep the original order for the -v line */
	orig = malloc(sizeof(*orig) * (size_t)(argc > 0 ? argc : 1));
	x.pw_args = malloc(sizeof(*x.pw_args) * (size_t)(argc > 0 ? argc : 1));
	if (orig == NULL || x.pw_args == NULL) {
		free(orig);
		free(x.pw_args);
		oom(&x);
		return LDB_CLI_ERROR;
	}
	for (int i = 0; i < argc; i++)
		orig[i] = argv[i];

	optind = 0; /* full re-initialisation of GNU getopt (tests parse many times) */
	opterr = 0;
	while (rc == 0) {
		int at = optind == 0 ? 1 : optind; /* the element getopt looks at next */

		opt = getopt_long(argc, argv, short_options, long_options, NULL);
		if (opt == -1)
			break;
		rc = handle_option(&x, opt, optarg, argv);
		/* the file's words come first, all options: no permutation there */
		if (rc < 0 && m != NULL && at >= 1 && at <= m->nfile)
			err_at_line(&x, m->path, m->line_of[at]);
	}
	if (rc == 0 && optind < argc)
		rc = fail(&x, "unexpected argument '%s'", argv[optind]);
	bool loop_ok = rc == 0; /* later problems come from the options together */

	if (rc == 0 && !x.pw_from_w && !x.pw_from_y) {
		const char *env = getenv("LDBENCH_PASSWORD");

		if (env != NULL && env[0] != '\0') {
			c->password = strdup(env);
			if (c->password == NULL)
				rc = oom(&x);
		}
	}
	if (rc == 0 && x.url_given) {
		/* -H overrides -h, -p and -Z's scheme */
		c->ldaps = x.url_ldaps;
		if (x.url_host != NULL) {
			free(c->host);
			c->host = x.url_host;
			x.url_host = NULL;
		}
		c->port = x.url_port > 0 ? x.url_port : (c->ldaps ? 636 : 389);
	} else if (rc == 0 && c->ldaps && !x.port_given) {
		c->port = 636;
	}
	if (rc == 0)
		rc = prepare_write(&x);
	if (rc == 0)
		rc = compile_patterns(&x);
	if (rc == 0)
		rc = cross_check(&x);
	if (rc == 0)
		rc = check_tls_sasl(&x);
	if (rc == 0)
		rc = compile_objtmpl(&x);
	if (rc == 0)
		rc = build_cmdline(&x, argc, orig);
	if (rc < 0 && loop_ok && m != NULL) {
		/* a problem of the combination: say that the scenario took part */
		size_t l = err != NULL ? strlen(err) : 0;

		if (err != NULL && l + 1 < errcap)
			snprintf(err + l, errcap - l, " (with --scenario %s)", m->path);
		for (char *p = err; p != NULL && *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}

	free(x.url_host);
	free(orig);
	free(x.pw_args);
	if (rc < 0)
		return LDB_CLI_ERROR;
	if (rc > 0)
		return LDB_CLI_EXIT_OK;
	warn_certdb(c);
	if (x.genldif_threads > 1)
		fprintf(stderr, "%s: -e genldif: -n %d ignored, one thread writes %s\n", c->progname,
		        x.genldif_threads, c->genldif_file);
	if (!c->seed_given)
		c->seed = ldb_rng_fresh_seed(); /* different from run to run, printed by -v and in records */
	return LDB_CLI_RUN;
}

/* -------------------------------------------------------------- scenarios */

/* Scenario files read by this process.  Their words become elements of the
 * argv the options are parsed from, and some options keep pointers into argv
 * (--json, --csv): they stay until the process ends (reachable, not leaked). */
static struct scen_keep {
	struct scen_keep *next;
	struct ldb_scenario sc;
	char **words;           /* the merged argv's copies of the file's words */
	int *line_of;
} *scen_kept;

#define OPT_ID_MAX 1024 /* short options are their character, long ones OPT_* */

/* What a first look at the command line found. */
struct prescan {
	const char *scenario;   /* --scenario FILE */
	int drop[2], ndrop;     /* argv indices holding --scenario and its FILE */
	const char *list_dir;   /* --list-scenarios DIR */
	bool seen[OPT_ID_MAX];  /* options given on the command line */
};

static size_t ptr_in(const char *p, const char *s)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)s;

	return a >= b && a <= b + strlen(s) ? (size_t)(a - b) + 1 : 0;
}

/* getopt over a copy of argv: note --scenario, --list-scenarios and every option
 * given; other problems are left to the real parse.  @return 0 or -1 (err set). */
static int prescan_argv(struct cli_ctx *x, int argc, char **argv, struct prescan *ps)
{
	char **copy = malloc(sizeof(*copy) * (size_t)(argc + 1));
	int opt, rc = 0, nscen = 0;

	if (copy == NULL)
		return oom(x);
	for (int i = 0; i < argc; i++)
		copy[i] = argv[i];
	copy[argc] = NULL;
	optind = 0;
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, copy, short_options, long_options, NULL)) != -1) {
		if (opt == ':' && (optopt == OPT_SCENARIO || optopt == OPT_LIST_SCENARIOS)) {
			rc = fail(x, "--%s needs a value", long_name(optopt));
			break;
		}
		if (opt > 0 && opt < OPT_ID_MAX && opt != '?' && opt != ':')
			ps->seen[opt] = true;
		if (opt == OPT_LIST_SCENARIOS) {
			ps->list_dir = optarg;
		} else if (opt == OPT_SCENARIO) {
			if (++nscen > 1) {
				rc = fail(x, "--scenario: one scenario file per run");
				break;
			}
			ps->scenario = optarg;
			for (int k = 1; k < argc; k++) {
				if (argv[k] == optarg && k > 1) {          /* --scenario FILE */
					ps->drop[0] = k - 1;
					ps->drop[1] = k;
					ps->ndrop = 2;
					break;
				}
				if (argv[k] != optarg && ptr_in(optarg, argv[k])) { /* --scenario=FILE */
					ps->drop[0] = k;
					ps->ndrop = 1;
					break;
				}
			}
		}
	}
	free(copy);
	optind = 0;
	return rc;
}

/* Check one option of a scenario file against the option tables.
 * @return 0 and *id (the short option's character or the long option's OPT_*), or -1. */
static int check_scenario_opt(struct cli_ctx *x, const char *path, const struct ldb_scenario_opt *o, int *id)
{
	const char *w = o->opt;
	bool takes, attached;

	if (w[1] != '-') {
		const char *p = w[1] != ':' ? strchr(short_options + 1, w[1]) : NULL;

		if (p == NULL)
			return fail(x, "%s:%d: unknown option '-%c' (see --help)", path, o->line, w[1]);
		takes = p[1] == ':';
		attached = w[2] != '\0';
		if (!takes && attached)
			return fail(x, "%s:%d: '%s': one option per line", path, o->line, w);
		*id = (unsigned char)w[1];
	} else {
		const char *name = w + 2, *eq = strchr(name, '=');
		size_t n = eq != NULL ? (size_t)(eq - name) : strlen(name);
		const struct option *lo = long_options;

		while (lo->name != NULL && !(strlen(lo->name) == n && strncmp(lo->name, name, n) == 0))
			lo++;
		if (lo->name == NULL)
			return fail(x, "%s:%d: unknown option '--%.*s' (see --help; a scenario file spells long "
			            "options in full)", path, o->line, (int)n, name);
		takes = lo->has_arg == required_argument;
		attached = eq != NULL;
		if (!takes && attached)
			return fail(x, "%s:%d: --%s takes no value", path, o->line, lo->name);
		*id = lo->val;
	}
	if (takes && attached && o->val != NULL)
		return fail(x, "%s:%d: '%s %s': two values for one option", path, o->line, w, o->val);
	if (takes && !attached && o->val == NULL)
		return fail(x, "%s:%d: %s needs a value", path, o->line, w);
	if (!takes && o->val != NULL)
		return fail(x, "%s:%d: %s takes no value ('%s')", path, o->line, w, o->val);
	switch (*id) {
	case 'w': case 'y':
		return fail(x, "%s:%d: -%c: a password does not belong in a scenario file; give -w, -y or "
		            "LDBENCH_PASSWORD on the command line", path, o->line, *id);
	case OPT_SCENARIO: case OPT_LIST_SCENARIOS: case OPT_HELP: case OPT_VERSION:
		return fail(x, "%s:%d: --%s has no place in a scenario file", path, o->line, long_name(*id));
	default:
		return 0;
	}
}

/* Options of the file that a command-line option replaces although they are
 * not the same option (they exclude or override each other). */
static bool cli_replaces(const struct prescan *ps, int id)
{
	switch (id) {
	case 'N': return ps->seen[OPT_DURATION];
	case OPT_DURATION: return ps->seen['N'];
	case 'n': return ps->seen[OPT_SWEEP];
	case OPT_SWEEP: return ps->seen['n'];
	case 'h': case 'p': return ps->seen['H'];
	case 'H': return ps->seen['h'] || ps->seen['p'];
	default: return false;
	}
}

/* Load the scenario, check its options, and build the merged argv: argv[0], the
 * file's options (those the command line replaces left out), then the command
 * line without --scenario FILE.  @return 0, or -1 (err set). */
static int merge_scenario(struct cli_ctx *x, int argc, char **argv, const struct prescan *ps,
                          char ***margv, int *margc, struct scen_map *m)
{
	struct scen_keep *k = calloc(1, sizeof(*k));
	char why[600];
	int n = 0;

	if (k == NULL)
		return oom(x);
	if (ldb_scenario_load(&k->sc, ps->scenario, why, sizeof why) != 0) {
		free(k);
		return fail(x, "%s", why);
	}
	k->words = calloc(2 * k->sc.nopts + (size_t)argc + 1, sizeof(*k->words));
	k->line_of = calloc(2 * k->sc.nopts + 2, sizeof(*k->line_of));
	if (k->words == NULL || k->line_of == NULL) {
		ldb_scenario_free(&k->sc);
		free(k->words);
		free(k->line_of);
		free(k);
		return oom(x);
	}
	k->words[n++] = argv[0];
	for (size_t i = 0; i < k->sc.nopts; i++) {
		const struct ldb_scenario_opt *o = &k->sc.opts[i];
		int id = 0;

		if (check_scenario_opt(x, ps->scenario, o, &id) < 0) {
			ldb_scenario_free(&k->sc);
			free(k->words);
			free(k->line_of);
			free(k);
			return -1;
		}
		if (cli_replaces(ps, id))
			continue;
		k->line_of[n] = o->line;
		k->words[n++] = o->opt;
		if (o->val != NULL) {
			k->line_of[n] = o->line;
			k->words[n++] = o->val;
		}
	}
	m->path = k->sc.path;
	m->line_of = k->line_of;
	m->nfile = n - 1;
	for (int i = 1; i < argc; i++) {
		bool dropped = false;

		for (int d = 0; d < ps->ndrop; d++)
			dropped |= ps->drop[d] == i;
		if (!dropped)
			k->words[n++] = argv[i];
	}
	k->words[n] = NULL;
	k->next = scen_kept;
	scen_kept = k;
	*margv = k->words;
	*margc = n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --list-scenarios DIR: "NAME  DESCRIPTION" per DIR/NAME.scen, sorted.  A file
 * that does not load or holds a bad option gets its error line on stderr.
 * @return 1 (listed: exit 0) or -1 (err set: exit 2). */
static int list_scenarios(struct cli_ctx *x, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, width = 0;
	int bad = 0;

	if (d == NULL)
		return fail(x, "--list-scenarios %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".scen") != 0)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*nn));

			if (nn == NULL)
				break;
			names = nn;
		}
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) - 5 > width)
			width = strlen(names[i]) - 5;
	for (size_t i = 0; i < n; i++) {
		struct ldb_scenario sc = { 0 };
		char why[600];
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(plen);
		int id, ok;

		if (path == NULL)
			break;
		snprintf(path, plen, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		ok = ldb_scenario_load(&sc, path, why, sizeof why) == 0;
		if (!ok)
			fprintf(stderr, "%s: %s\n", x->c->progname, why);
		for (size_t j = 0; ok && j < sc.nopts; j++)
			if (check_scenario_opt(x, path, &sc.opts[j], &id) < 0) {
				fprintf(stderr, "%s\n", x->err != NULL ? x->err : "bad option");
				ok = false;
			}
		bad += !ok;
		if (ok)
			printf("%-*.*s  %s\n", (int)width, (int)(strlen(names[i]) - 5), names[i],
			       sc.description != NULL ? sc.description : "(no description)");
		ldb_scenario_free(&sc);
		free(path);
		free(names[i]);
	}
	free(names);
	fflush(stdout);
	if (bad > 0)
		return fail(x, "--list-scenarios %s: %d scenario file%s with errors (above)", dir, bad,
		            bad > 1 ? "s" : "");
	return 1;
}

enum ldb_cli_result ldb_cli_parse(struct ldb_config *c, int argc, char **argv, char *err, size_t errcap)
{
	struct cli_ctx x = { .c = c, .err = err, .errcap = errcap };
	struct prescan *ps;
	struct scen_map m = { 0 };
	char **margv = NULL;
	int margc = 0, rc;

	if (err != NULL && errcap > 0)
		err[0] = '\0';
	if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0') {
		const char *b = strrchr(argv[0], '/');

		b = b ? b + 1 : argv[0];
		if (b[0] != '\0')
			c->progname = b;
	}
	if (argc < 2)
		return parse_argv(c, argc, argv, err, errcap, NULL);
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL) {
		oom(&x);
		return LDB_CLI_ERROR;
	}
	rc = prescan_argv(&x, argc, argv, ps);
	if (rc == 0 && ps->list_dir != NULL)
		rc = list_scenarios(&x, ps->list_dir);
	else if (rc == 0 && ps->scenario != NULL)
		rc = merge_scenario(&x, argc, argv, ps, &margv, &margc, &m);
	free(ps);
	if (rc < 0)
		return LDB_CLI_ERROR;
	if (rc > 0)
		return LDB_CLI_EXIT_OK;
	if (margv != NULL)
		return parse_argv(c, margc, margv, err, errcap, &m);
	return parse_argv(c, argc, argv, err, errcap, NULL);
}

void ldb_cli_usage(const char *progname, FILE *out)
{
	fprintf(out, "usage: %s [options] -e esearch|bindonly|add|delete|rename|attreplace=...[,keyword...]\n"
	        "       %s [options] --mix KIND:WEIGHT,...\n"
	        "       %s -e genldif=FILE,object=FILE|person|... [options]\n", progname, progname, progname);
	fputs(
"ldclt-compatible LDAP load generator.\n"
"\n"
"Options (ldclt's flags):\n"
"  -a N         requests in flight per connection (1..1024; default 1)\n"
"  -b DN        base DN (default dc=example,dc=com); XXX with -e randombase\n"
"  -D DN        bind DN (none: anonymous); XXX with -e randombinddn\n"
"  -w PASSWORD  bind password; XXX gets the bind DN's number with randombinddn\n"
"  -y FILE      read the bind password from the first line of FILE\n"
"  -e LIST      execution keywords, comma separated, repeatable (below)\n"
"  -E N         exit when one error code occurs more than N times (default 1000)\n"
"  -f FILTER    search filter (must contain '='); XXX with -e random or -e incr\n"
"  -h HOST      server host (default localhost)\n"
"  -H URL       ldap:// or ldaps:// URL; overrides -h, -p and -Z\n"
"  -i N         empty samples before a \"No activity\" report (default 3)\n"
"  -I CODE      ignore this LDAP result code (repeatable, at most 20)\n"
"  -n N         clients, ldclt's threads (1..10000; default 10), carried by --io-threads OS threads\n"
"  -N N         stop after N samples (default: no limit)\n"
"  -o KEY=VAL   SASL setting, repeatable: mech=EXTERNAL|PLAIN, authid=, authzid=, realm=\n"
"               (PLAIN: authid and a password; EXTERNAL: a client certificate)\n"
"  -p PORT      server port (default 389; 636 with -Z or ldaps://)\n"
"  -q           quiet: hide the errors that -I ignores\n"
"  -Q           super quiet: -q and hide \"No activity\" reports\n"
"  -r N         low bound of the XXX values (random, incr)\n"
"  -R N         high bound of the XXX values (random, incr)\n"
"  -s SCOPE     base, one (onelevel) or subtree (sub); default subtree\n"
"  -S HOST      replication check (not supported yet)\n"
"  -t N         timeout of an operation in seconds (default 30)\n"
"  -T N         each thread stops after N operations (default: no limit)\n"
"  -v           verbose: print the configuration\n"
"  -V           very verbose\n"
"  -W N         sleep N seconds before each operation (default 0)\n"
"  -Z FILE      ldaps as ldclt: the server certificate is not verified unless\n"
"               --tls-cacert/--tls-cacertdir is given (FILE, an NSS db, is not read)\n"
"\n"
"Long options:\n"
"  --help                      print this text and exit\n"
"  --version                   print the version and exit\n"
"  --interval DURATION         sampling interval: 10, 10s, 500ms, 2m, 1h (default 10s)\n"
"  --seed N                    random seed (64-bit); default: a fresh one\n"
"  --connections-per-thread C  connections each thread keeps (1..1000; default 1)\n"
"  --warmup DURATION|Nsamples   run, but leave out of every figure, the first DURATION or N samples\n"
"  --duration DURATION          measured length of the run (instead of -N)\n"
"  --rate OPS                   target rate for the whole run, open loop; latency from the intended start\n"
"  --sweep N1,N2,...            run the workload at each thread count, then print one table\n"
"  --monitor                    read the server's counters (cn=Monitor) before and after, print the delta\n"
"  --start-at TIME              start at a wall-clock time (@EPOCH, ISO 8601, HH:MM[:SS]): hosts in step\n"
"  --fail-if EXPR               exit 10 when e.g. 'p99>5ms', 'errors>0', 'rate<1000' holds at the end\n"
"  --io-threads N               OS threads that carry the -n clients (default: -n, at most the CPUs;\n"
"                               clear-text bindeach: at most half the CPUs)\n"
"  --json FILE                 also write JSON lines records to FILE (- = stdout;\n"
"                              the text then goes to stderr); see docs/results.md\n"
"  --csv FILE                  also write one CSV row per sample and kind to FILE\n"
"  --scenario FILE             read options from FILE first (one per line, # comments);\n"
"                              the command line's own options replace single-valued ones\n"
"                              and add to -e, -I, --modify, --fail-if; see scenarios/\n"
"  --list-scenarios DIR        print the name and description of each DIR/*.scen, exit\n"
"\n"
"Write workloads (beyond ldclt).  Every entry is <RDN from -f>,<-b>; an XXX in a\n"
"PATTERN gets the same number as the XXX of -f for that operation:\n"
"  --modify OP:ATTR=PATTERN    modify the entry: OP replace, add or delete (a delete\n"
"                              without PATTERN removes the attribute); up to 8, all\n"
"                              in one modify request\n"
"  --compare ATTR=PATTERN      compare ATTR of the entry with the value\n"
"  --delete-after-add          delete each entry right after adding it (same DNs)\n"
"  --new-parent DN             where rename,withnewparent moves the entries\n"
"  --mix KIND:WEIGHT,...       weighted mix in one run, e.g. search:80,modify:15,add:5;\n"
"                              kinds search, bind, add, modify, delete, rename, compare,\n"
"                              abandon.  The mix names the operations: leave out\n"
"                              -e esearch, bindonly, add, delete, rename and abandon.\n"
"                              Each kind needs its settings: search and abandon -f;\n"
"                              bind -D; add a class or object=; modify one of --modify,\n"
"                              attreplace=, attreplacefile=; delete/rename -f with XXX\n"
"                              and incr or random; compare --compare\n"
"\n"
"TLS (with -Z, -H ldaps:// or --starttls; the server certificate and its host\n"
"name, or IP address, are verified unless --tls-insecure):\n"
"  --starttls                  StartTLS on each ldap:// connection before binding\n"
"  --tls-cacert FILE           trusted CA certificates (PEM); default: the system's\n"
"  --tls-cacertdir DIR         directory of hashed CA certificates (openssl rehash)\n"
"  --tls-cert FILE --tls-key FILE  client certificate and its key (PEM, unencrypted)\n"
"  --tls-min 1.2|1.3           lowest protocol version\n"
"  --tls-ciphers LIST          OpenSSL cipher list for TLS 1.2 (TLS 1.3 suites unchanged)\n"
"  --tls-insecure              do not verify the server certificate\n"
"  --tls-resume                resume each thread's last TLS session (for bindeach)\n"
"\n"
"Execution keywords (-e):\n"
"  esearch                  search the base with the filter\n"
"  bindonly                 only connect and bind (needs -D, randombinddnfromfile or -o mech)\n"
"  bindeach                 new connection and bind for every operation\n"
"  close                    with bindeach: close the socket instead of unbinding\n"
"  random                   XXX of -f gets a random value in [-r, -R]\n"
"  incr[=STEP]              XXX of -f gets sequential values from -r to -R\n"
"  commoncounter            with incr: one counter shared by all threads\n"
"  noloop                   with incr: a thread stops past -R instead of wrapping\n"
"  counteach                count expected failures as operations too\n"
"  attrlist=A:B:...         attributes to ask for (at most 40)\n"
"  randomattrlist=A:B:...   ask for one random attribute of the list per search\n"
"  attrsonly=0|1            the search's attrsonly flag\n"
"  randombinddn             XXX of -D and -w get a random value\n"
"  randombinddnlow=N        low bound for randombinddn\n"
"  randombinddnhigh=N       high bound for randombinddn\n"
"  randombinddnfromfile=F   bind with random DN<TAB>password lines of F\n"
"  randombase               XXX of -b gets a random value\n"
"  randombaselow=N          low bound for randombase\n"
"  randombasehigh=N         high bound for randombase\n"
"  srchnentries=N           each search must return exactly N entries\n"
"  sampinterval=N           sampling interval in seconds (default 10)\n"
"  timestamp[=FORMAT]       prefix sample lines with strftime FORMAT (default %s)\n"
"  nozeropad                do not zero-pad XXX values\n"
"  smoothshutdown           let threads finish their operation at the end\n"
"  dontsleeponserverdown    no 1 s pause after an ignored server-down error\n"
"  noglobalstats            no periodic global statistics\n"
"  randomauthid             XXX of -o authid (and of -w) get a random value (PLAIN)\n"
"  randomauthidlow=N        low bound for randomauthid\n"
"  randomauthidhigh=N       high bound for randomauthid\n"
"  add                      add entries <RDN from -f>,<base> (needs incr, random or rdn=)\n"
"  person                   with add: objectClass person, cn and sn = the RDN value\n"
"  emailPerson              with add: inetOrgPerson with mail <value>@example.com\n"
"  inetOrgPerson            with add: objectClass inetOrgPerson, cn and sn = the RDN value\n"
"  object=FILE              with add: entry template (\"attr: value\" lines, fields\n"
"                           [A=RNDN(lo;hi;n)], RNDS(n), INCRN(...), INCRNNOLOOP(...),\n"
"                           RNDFROMFILE(f), INCRFROMFILE(f), INCRFROMFILENOLOOP(f), [A])\n"
"  rdn=ATTR:VALUE           with object=: the RDN, same fields (instead of -f, incr, -r/-R)\n"
"  delete                   delete the entries <RDN from -f>,<base> (needs incr or random)\n"
"  rename                   rename entry number N to the RDN of another number\n"
"  abandon                  send a search with the filter and abandon it at once (no answer)\n"
"  withnewparent            with rename: move to --new-parent DN\n"
"  attreplace=ATTR:MASK     replace ATTR with MASK, its X run as random letters\n"
"  attreplacefile=ATTR:FILE replace ATTR with FILE's content (read once)\n"
"  genldif=FILE             write the add workload's entries to FILE instead of adding\n"
"                           them (one thread; ends at -T N or a NOLOOP end)\n"
"  append                   with genldif: append to an existing FILE\n"
"\n"
"The password may also come from the LDBENCH_PASSWORD environment variable.\n"
"Exit status: 0 no problem, 2 error in parameters, 3 max errors reached,\n"
"4 cannot bind, 7 cannot initialize, 99 other error.\n", out);
}
