/* `ldbench gen ...`: LDIF dataset generators.
 *
 * Layout, so that later generators (groups, mod-load, hashed passwords) slot in:
 *  - a subcommand table (gen_cmds) maps the word after `gen` to a function;
 *  - each subcommand parses its options with getopt_long into a plain struct,
 *    then "prepares" it (every check, DN parsing, width) before anything is
 *    opened or written, so a bad option exits 2 with no output;
 *  - the writer (struct gen_out) is one big buffer flushed to a FILE with
 *    fwrite, shared helpers emit attribute lines (base64 when RFC 2849 says a
 *    value is not safe) and the suffix/container entries.
 */
#include "ldbench/ldif_gen.h"

#include <errno.h>
#include <getopt.h>
#include <ldap.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ldbench/config.h"

#define GEN_BUF_SIZE (1u << 20) /* output buffer: 1 MiB */
#define GEN_MAX_WIDTH 32

/* ------------------------------------------------------------------------ */
/* errors */

static void gen_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
gen_err(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || cap == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* output buffer */

struct gen_out {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool failed;     /* a write failed; later writes are dropped */
	int saved_errno; /* errno of the first failure */
};

static int
out_init(struct gen_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->cap = GEN_BUF_SIZE;
	o->buf = malloc(o->cap);
	if (o->buf == NULL)
		return -1;
	return 0;
}

static void
out_flush(struct gen_out *o)
{
	if (o->len > 0 && !o->failed) {
		if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
			o->failed = true;
			o->saved_errno = errno ? errno : EIO;
		}
	}
	o->len = 0;
}

/* Make room for n more bytes.  Returns false when memory ran out. */
static bool
out_reserve(struct gen_out *o, size_t n)
{
	if (o->len + n <= o->cap)
		return true;
	out_flush(o);
	if (n > o->cap) {
		char *nb = realloc(o->buf, n);

		if (nb == NULL) {
			o->failed = true;
			o->saved_errno = ENOMEM;
			return false;
		}
		o->buf = nb;
		o->cap = n;
	}
	return true;
}

static void
out_mem(struct gen_out *o, const void *p, size_t n)
{
	if (!out_reserve(o, n))
		return;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void
out_str(struct gen_out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Flush the buffer and the FILE; free the buffer.  @return 0, or the errno of
 * the first failure. */
static int
out_finish(struct gen_out *o)
{
	out_flush(o);
	if (!o->failed && fflush(o->f) != 0) {
		o->failed = true;
		o->saved_errno = errno ? errno : EIO;
	}
	free(o->buf);
	o->buf = NULL;
	return o->failed ? o->saved_errno : 0;
}

/* ------------------------------------------------------------------------ */
/* LDIF values */

/* RFC 2849: a value may be written as is when it starts with a SAFE-INIT-CHAR,
 * continues with SAFE-CHARs, and (by convention) does not end with a space. */
static bool
ldif_value_is_safe(const char *v, size_t n)
{
	if (n == 0)
		return true;
	unsigned char c0 = (unsigned char)v[0];
	if (c0 == ' ' || c0 == ':' || c0 == '<')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c == 0 || c == '\n' || c == '\r' || c > 0x7f)
			return false;
	}
	return v[n - 1] != ' ';
}

static size_t
base64_encode(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0, i = 0;

	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = tab[v >> 6 & 63];
		out[o++] = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	return o;
}

/* "name: value\n", or "name:: base64\n" when the value is not safe. */
static void
out_attr(struct gen_out *o, const char *name, const char *value, size_t vlen)
{
	size_t nlen = strlen(name);

	if (ldif_value_is_safe(value, vlen)) {
		if (!out_reserve(o, nlen + vlen + 3))
			return;
		char *p = o->buf + o->len;
		memcpy(p, name, nlen);
		p += nlen;
		*p++ = ':';
		*p++ = ' ';
		memcpy(p, value, vlen);
		p += vlen;
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
	} else {
		size_t b64 = (vlen + 2) / 3 * 4;
		if (!out_reserve(o, nlen + b64 + 4))
			return;
		char *p = o->buf + o->len;
		memcpy(p, name, nlen);
		p += nlen;
		*p++ = ':';
		*p++ = ':';
		*p++ = ' ';
		p += base64_encode((const unsigned char *)value, vlen, p);
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
	}
}

static void
out_attr_str(struct gen_out *o, const char *name, const char *value)
{
	out_attr(o, name, value, strlen(value));
}

/* Decimal v zero-padded to width; returns the length (no NUL). */
static size_t
put_index(char *dst, uint64_t v, int width)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	size_t len = 0;
	for (size_t pad = n; pad < (size_t)width; pad++)
		dst[len++] = '0';
	while (n > 0)
		dst[len++] = tmp[--n];
	return len;
}

static int
digits_u64(uint64_t v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* ------------------------------------------------------------------------ */
/* command-line helpers */

/* Strict unsigned decimal: digits only, no sign, no blanks, <= max. */
static int
parse_count(const char *opt, const char *s, int64_t max, int64_t *out, char *err, size_t cap)
{
	uint64_t v = 0;

	if (*s == '\0') {
		gen_err(err, cap, "%s: empty value", opt);
		return -1;
	}
	if (*s == '-') {
		gen_err(err, cap, "%s: '%s' is negative", opt, s);
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			gen_err(err, cap, "%s: '%s' is not a decimal number", opt, s);
			return -1;
		}
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > (uint64_t)max) {
			gen_err(err, cap, "%s: '%s' is too large (at most %lld)", opt, s, (long long)max);
			return -1;
		}
	}
	*out = (int64_t)v;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* DNs and the naming-context entries */

enum rdn_kind { RDN_DC, RDN_O, RDN_OU };

static int
rdn_kind_of(LDAPRDN rdn, enum rdn_kind *kind, const char *what, char *err, size_t cap)
{
	if (rdn[0] == NULL || rdn[1] != NULL) {
		gen_err(err, cap, "%s: multi-valued RDNs are not supported", what);
		return -1;
	}
	LDAPAVA *ava = rdn[0];
	if (ava->la_flags & LDAP_AVA_BINARY) {
		gen_err(err, cap, "%s: #hex RDN values are not supported", what);
		return -1;
	}
	const char *a = ava->la_attr.bv_val;
	size_t n = ava->la_attr.bv_len;
	if (n == 2 && strncasecmp(a, "dc", 2) == 0)
		*kind = RDN_DC;
	else if (n == 1 && strncasecmp(a, "o", 1) == 0)
		*kind = RDN_O;
	else if (n == 2 && strncasecmp(a, "ou", 2) == 0)
		*kind = RDN_OU;
	else {
		gen_err(err, cap, "%s: RDN attribute '%.*s' is not one of dc, o, ou", what, (int)n, a);
		return -1;
	}
	if (ava->la_value.bv_len == 0 || memchr(ava->la_value.bv_val, '\0', ava->la_value.bv_len) != NULL) {
		gen_err(err, cap, "%s: empty or binary RDN value", what);
		return -1;
	}
	return 0;
}

static bool
rdn_equal(LDAPRDN a, LDAPRDN b)
{
	LDAPAVA *x = a[0], *y = b[0];

	if (a[1] != NULL || b[1] != NULL)
		return false;
	return x->la_attr.bv_len == y->la_attr.bv_len &&
	       strncasecmp(x->la_attr.bv_val, y->la_attr.bv_val, x->la_attr.bv_len) == 0 &&
	       x->la_value.bv_len == y->la_value.bv_len &&
	       strncasecmp(x->la_value.bv_val, y->la_value.bv_val, x->la_value.bv_len) == 0;
}

static size_t
dn_len(LDAPDN dn)
{
	size_t n = 0;

	while (dn != NULL && dn[n] != NULL)
		n++;
	return n;
}

/* One entry of the tree above the generated objects. */
struct gen_node {
	char *dn;            /* ldap_dn2str form; ldap_memfree */
	enum rdn_kind kind;
	char *value;         /* the RDN value (malloc) */
};

/* The suffix and the containers down to a parent, top first. */
struct gen_tree {
	struct gen_node *nodes;
	size_t count;
	char *domain;        /* mail domain (malloc) */
};

static void
tree_free(struct gen_tree *t)
{
	for (size_t i = 0; i < t->count; i++) {
		ldap_memfree(t->nodes[i].dn);
		free(t->nodes[i].value);
	}
	free(t->nodes);
	free(t->domain);
	memset(t, 0, sizeof(*t));
}

static int
parse_dn(const char *opt, const char *s, LDAPDN *dn, char *err, size_t cap)
{
	*dn = NULL;
	if (s == NULL || *s == '\0') {
		gen_err(err, cap, "%s: empty DN", opt);
		return -1;
	}
	if (ldap_str2dn(s, dn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS || *dn == NULL) {
		if (*dn != NULL)
			ldap_dnfree(*dn);
		*dn = NULL;
		gen_err(err, cap, "%s: '%s' is not a valid DN", opt, s);
		return -1;
	}
	return 0;
}

/* Check that parent is the suffix or below it, and list the entries from the
 * suffix down to the parent.  @return 0 or -1 with err. */
static int
tree_build(struct gen_tree *t, const char *suffix, const char *parent, char *err, size_t cap)
{
	LDAPDN sdn = NULL, pdn = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (parse_dn("--suffix", suffix, &sdn, err, cap) != 0)
		goto out;
	if (parse_dn("--parent", parent, &pdn, err, cap) != 0)
		goto out;

	size_t ns = dn_len(sdn), np = dn_len(pdn);
	for (size_t i = 0; i < ns; i++) {
		enum rdn_kind k;
		if (sdn[i][0] == NULL || sdn[i][1] != NULL) {
			gen_err(err, cap, "--suffix: multi-valued RDNs are not supported");
			goto out;
		}
		if (i == 0 && rdn_kind_of(sdn[i], &k, "--suffix", err, cap) != 0)
			goto out;
	}
	if (np < ns) {
		gen_err(err, cap, "--parent '%s' is not under --suffix '%s'", parent, suffix);
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		if (pdn[np - ns + i][1] != NULL || !rdn_equal(pdn[np - ns + i], sdn[i])) {
			gen_err(err, cap, "--parent '%s' is not under --suffix '%s'", parent, suffix);
			goto out;
		}
	}

	t->count = np - ns + 1;
	t->nodes = calloc(t->count, sizeof(*t->nodes));
	if (t->nodes == NULL) {
		gen_err(err, cap, "out of memory");
		t->count = 0;
		goto out;
	}
	/* node j (0 = suffix) is the DN made of pdn[np - ns - j ..]. */
	for (size_t j = 0; j < t->count; j++) {
		size_t first = np - ns - j;
		LDAPRDN rdn = pdn[first];
		struct gen_node *nd = &t->nodes[j];

		if (rdn_kind_of(rdn, &nd->kind, j == 0 ? "--suffix" : "--parent", err, cap) != 0)
			goto out;
		nd->value = strndup(rdn[0]->la_value.bv_val, rdn[0]->la_value.bv_len);
		if (nd->value == NULL ||
		    ldap_dn2str(pdn + first, &nd->dn, LDAP_DN_FORMAT_LDAPV3 | LDAP_DN_PRETTY) != LDAP_SUCCESS ||
		    nd->dn == NULL) {
			gen_err(err, cap, "cannot build the DN of the entry %zu below the suffix", j);
			goto out;
		}
	}

	/* mail domain: the dc= values of the suffix, in order. */
	size_t dlen = 0;
	for (size_t i = 0; i < ns; i++) {
		LDAPAVA *a = sdn[i][0];
		if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0)
			dlen += a->la_value.bv_len + 1;
	}
	if (dlen == 0) {
		t->domain = strdup("example.com");
	} else {
		t->domain = malloc(dlen);
		if (t->domain != NULL) {
			char *p = t->domain;
			for (size_t i = 0; i < ns; i++) {
				LDAPAVA *a = sdn[i][0];
				if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0) {
					if (p != t->domain)
						*p++ = '.';
					memcpy(p, a->la_value.bv_val, a->la_value.bv_len);
					p += a->la_value.bv_len;
				}
			}
			*p = '\0';
		}
	}
	if (t->domain == NULL) {
		gen_err(err, cap, "out of memory");
		goto out;
	}
	rc = 0;
out:
	if (sdn != NULL)
		ldap_dnfree(sdn);
	if (pdn != NULL)
		ldap_dnfree(pdn);
	if (rc != 0)
		tree_free(t);
	return rc;
}

/* The suffix and container entries. */
static void
tree_write(const struct gen_tree *t, struct gen_out *o)
{
	for (size_t i = 0; i < t->count; i++) {
		const struct gen_node *nd = &t->nodes[i];

		out_attr_str(o, "dn", nd->dn);
		out_str(o, "objectClass: top\n");
		switch (nd->kind) {
		case RDN_DC:
			out_str(o, "objectClass: dcObject\nobjectClass: organization\n");
			out_attr_str(o, "dc", nd->value);
			out_attr_str(o, "o", nd->value);
			break;
		case RDN_O:
			out_str(o, "objectClass: organization\n");
			out_attr_str(o, "o", nd->value);
			break;
		case RDN_OU:
			out_str(o, "objectClass: organizationalUnit\n");
			out_attr_str(o, "ou", nd->value);
			break;
		}
		out_str(o, "\n");
	}
}

/* ------------------------------------------------------------------------ */
/* gen users */

struct users_plan {
	struct gen_tree tree;
	uint64_t first, count;
	int width;
};

static int
users_prepare(const struct ldb_gen_users *u, struct users_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (u->suffix == NULL) {
		gen_err(err, cap, "--suffix is required");
		return LDB_EXIT_PARAMS;
	}
	if (u->number < 0 || u->start_idx < 0 || u->number > LDB_GEN_MAX_INDEX ||
	    u->start_idx > LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "--number and --start-idx must be between 0 and %lld", (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	if (u->number > 0 && u->start_idx > LDB_GEN_MAX_INDEX - (u->number - 1)) {
		gen_err(err, cap, "--start-idx %lld + --number %lld goes past the largest index %lld",
		        (long long)u->start_idx, (long long)u->number, (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	if (u->width < 0 || u->width > GEN_MAX_WIDTH) {
		gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
		return LDB_EXIT_PARAMS;
	}
	pl->first = (uint64_t)u->start_idx;
	pl->count = (uint64_t)u->number;
	uint64_t last = pl->count > 0 ? pl->first + pl->count - 1 : pl->first;
	int need = digits_u64(last);
	if (u->width > 0) {
		if (u->width < need && pl->count > 0) {
			gen_err(err, cap, "--width %d is too small: index %llu needs %d digits", u->width,
			        (unsigned long long)last, need);
			return LDB_EXIT_PARAMS;
		}
		pl->width = u->width;
	} else {
		pl->width = need > LDB_GEN_DEFAULT_WIDTH ? need : LDB_GEN_DEFAULT_WIDTH;
	}

	char *parent_default = NULL;
	const char *parent = u->parent;
	if (parent == NULL) {
		if (asprintf(&parent_default, "ou=People,%s", u->suffix) < 0) {
			gen_err(err, cap, "out of memory");
			return LDB_EXIT_OTHER;
		}
		parent = parent_default;
	}
	int rc = tree_build(&pl->tree, u->suffix, parent, err, cap);
	free(parent_default);
	return rc == 0 ? 0 : LDB_EXIT_PARAMS;
}

static void
users_plan_free(struct users_plan *pl)
{
	tree_free(&pl->tree);
}

static int
users_emit(const struct users_plan *pl, FILE *f, char *err, size_t cap)
{
	struct gen_out o;
	const struct gen_tree *t = &pl->tree;
	const char *parent_dn = t->nodes[t->count - 1].dn;
	size_t plen = strlen(parent_dn), dlen = strlen(t->domain);
	/* scratch: "uid=" name "," parent  /  name "@" domain */
	size_t scap = 4 + GEN_MAX_WIDTH + 24 + 1 + (plen > dlen ? plen : dlen) + 1;
	char *dn = malloc(scap), *mail = malloc(scap);
	static const char classes[] = "objectClass: top\n"
	                              "objectClass: person\n"
	                              "objectClass: organizationalPerson\n"
	                              "objectClass: inetOrgPerson\n";

	if (dn == NULL || mail == NULL || out_init(&o, f) != 0) {
		free(dn);
		free(mail);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	tree_write(t, &o);

	for (uint64_t i = 0; i < pl->count && !o.failed; i++) {
		/* name = "user" + index, written straight into both scratch buffers */
		char *name = dn + 4;
		memcpy(dn, "uid=user", 8);
		size_t nlen = 4 + put_index(dn + 8, pl->first + i, pl->width);
		size_t dnl = 4 + nlen;
		dn[dnl++] = ',';
		memcpy(dn + dnl, parent_dn, plen);
		dnl += plen;

		memcpy(mail, name, nlen);
		mail[nlen] = '@';
		memcpy(mail + nlen + 1, t->domain, dlen);
		size_t ml = nlen + 1 + dlen;

		out_attr(&o, "dn", dn, dnl);
		out_mem(&o, classes, sizeof(classes) - 1);
		out_attr(&o, "uid", name, nlen);
		out_attr(&o, "cn", name, nlen);
		out_attr(&o, "sn", name, nlen);
		out_attr(&o, "givenName", name, nlen);
		out_attr(&o, "mail", mail, ml);
		out_attr(&o, "userPassword", name, nlen);
		out_mem(&o, "\n", 1);
	}
	free(dn);
	free(mail);
	int e = out_finish(&o);
	if (e != 0) {
		gen_err(err, cap, "write failed: %s", strerror(e));
		return LDB_EXIT_OTHER;
	}
	return 0;
}

int
ldb_gen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t errcap)
{
	struct users_plan pl;
	int rc = users_prepare(u, &pl, err, errcap);

	if (rc == 0)
		rc = users_emit(&pl, out, err, errcap);
	users_plan_free(&pl);
	return rc;
}

/* Open the output (stdout when path is NULL). */
static FILE *
gen_open(const char *path, char *err, size_t cap)
{
	if (path == NULL)
		return stdout;
	FILE *f = fopen(path, "w");
	if (f == NULL)
		gen_err(err, cap, "--ldif-file: cannot create '%s': %s", path, strerror(errno));
	return f;
}

/* Close the output; on failure remove a partial file.  Returns rc updated. */
static int
gen_close(FILE *f, const char *path, int rc, char *err, size_t cap)
{
	if (path == NULL)
		return rc;
	if (fclose(f) != 0 && rc == 0) {
		gen_err(err, cap, "--ldif-file: closing '%s' failed: %s", path, strerror(errno));
		rc = LDB_EXIT_OTHER;
	}
	if (rc != 0)
		unlink(path);
	else
		printf("Successfully created LDIF file: %s\n", path);
	return rc;
}

enum { OPT_SUFFIX = 1000, OPT_PARENT, OPT_NUMBER, OPT_START_IDX, OPT_WIDTH, OPT_LDIF_FILE, OPT_HELP };

static int
gen_users_cmd(int argc, char **argv, char *err, size_t cap)
{
	static const struct option opts[] = {
		{"suffix", required_argument, NULL, OPT_SUFFIX},
		{"parent", required_argument, NULL, OPT_PARENT},
		{"number", required_argument, NULL, OPT_NUMBER},
		{"start-idx", required_argument, NULL, OPT_START_IDX},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"ldif-file", required_argument, NULL, OPT_LDIF_FILE},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	struct ldb_gen_users u = {.start_idx = 1};
	const char *file = NULL;
	bool have_number = false;
	int64_t v;
	int c;

	optind = 0; /* glibc: full re-initialisation (we may be called more than once) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SUFFIX:
			u.suffix = optarg;
			break;
		case OPT_PARENT:
			u.parent = optarg;
			break;
		case OPT_NUMBER:
			if (parse_count("--number", optarg, LDB_GEN_MAX_INDEX, &u.number, err, cap) != 0)
				return LDB_EXIT_PARAMS;
			have_number = true;
			break;
		case OPT_START_IDX:
			if (parse_count("--start-idx", optarg, LDB_GEN_MAX_INDEX, &u.start_idx, err, cap) != 0)
				return LDB_EXIT_PARAMS;
			break;
		case OPT_WIDTH:
			if (parse_count("--width", optarg, GEN_MAX_WIDTH, &v, err, cap) != 0)
				return LDB_EXIT_PARAMS;
			if (v == 0) {
				gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
				return LDB_EXIT_PARAMS;
			}
			u.width = (int)v;
			break;
		case OPT_LDIF_FILE:
			if (*optarg == '\0') {
				gen_err(err, cap, "--ldif-file: empty file name");
				return LDB_EXIT_PARAMS;
			}
			file = optarg;
			break;
		case OPT_HELP:
			ldb_gen_usage(stdout);
			return -1; /* handled: exit 0 */
		case ':':
			gen_err(err, cap, "%s needs a value", argv[optind - 1]);
			return LDB_EXIT_PARAMS;
		default:
			if (optopt != 0)
				gen_err(err, cap, "unknown option '-%c'", optopt);
			else
				gen_err(err, cap, "unknown or ambiguous option '%s'", argv[optind - 1]);
			return LDB_EXIT_PARAMS;
		}
	}
	if (optind < argc) {
		gen_err(err, cap, "unexpected argument '%s'", argv[optind]);
		return LDB_EXIT_PARAMS;
	}
	if (u.suffix == NULL) {
		gen_err(err, cap, "--suffix is required");
		return LDB_EXIT_PARAMS;
	}
	if (!have_number) {
		gen_err(err, cap, "--number is required");
		return LDB_EXIT_PARAMS;
	}

	struct users_plan pl;
	int rc = users_prepare(&u, &pl, err, cap);
	if (rc == 0) {
		FILE *f = gen_open(file, err, cap);
		if (f == NULL) {
			rc = LDB_EXIT_PARAMS;
		} else {
			rc = users_emit(&pl, f, err, cap);
			rc = gen_close(f, file, rc, err, cap);
		}
	}
	users_plan_free(&pl);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* dispatch */

struct gen_cmd {
	const char *name;
	int (*run)(int argc, char **argv, char *err, size_t cap);
	const char *usage;
};

static const struct gen_cmd gen_cmds[] = {
	{"users", gen_users_cmd,
	 "ldbench gen users --suffix DN [--parent DN] --number N [--start-idx I] [--width W] [--ldif-file F]\n"
	 "    suffix entry, containers down to --parent (default ou=People,SUFFIX), then N inetOrgPerson\n"
	 "    entries uid=user<I..I+N-1>,PARENT (index zero-padded to W, default 5), password = uid.\n"},
};

void
ldb_gen_usage(FILE *out)
{
	fputs("Usage:\n", out);
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++)
		fputs(gen_cmds[i].usage, out);
	fputs("Writes LDIF to stdout, or to the --ldif-file.\n", out);
}

int
ldb_gen_main(int argc, char **argv)
{
	char err[512] = "";

	if (argc < 2) {
		fprintf(stderr, "ldbench gen: missing subcommand (one of: users); see 'ldbench gen --help'\n");
		return LDB_EXIT_PARAMS;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		ldb_gen_usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++) {
		if (strcmp(argv[1], gen_cmds[i].name) != 0)
			continue;
		int rc = gen_cmds[i].run(argc - 1, argv + 1, err, sizeof(err));
		if (rc < 0)
			return 0;
		if (rc != 0) {
			/* one line: drop anything after a newline in the message */
			err[strcspn(err, "\n")] = '\0';
			fprintf(stderr, "ldbench gen %s: %s\n", gen_cmds[i].name, err);
		}
		fflush(stdout);
		return rc;
	}
	fprintf(stderr, "ldbench gen: unknown subcommand '%s' (one of: users)\n", argv[1]);
	return LDB_EXIT_PARAMS;
}
