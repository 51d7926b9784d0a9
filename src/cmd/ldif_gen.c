/* `ldbench gen ...`: LDIF dataset generators (users, groups, mod-load, tree).
 *
 * Layout:
 *  - a subcommand table (gen_cmds) maps the word after `gen` to a function;
 *  - each subcommand parses its options with getopt_long into a plain struct,
 *    then "prepares" it (every check, DN parsing, width) before anything is
 *    opened or written, so a bad option exits 2 with no output;
 *  - the writer (struct gen_out) is one big buffer flushed to a FILE with
 *    fwrite; the lines come from ldif/ldif.h (base64 when RFC 2849 says a
 *    value is not safe) and the entries' attributes from ldif/entry.h (users,
 *    tree leaves, group heads, the suffix and container entries).
 */
#include "cmd/ldif_gen.h"

#include <errno.h>
#include <getopt.h>
#include <ldap.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "conf/config.h"
#include "ldif/entry.h"
#include "ldif/ldif.h"
#include "util/num.h"
#include "util/util.h"
#include "values/rng.h"

#define GEN_BUF_SIZE (1u << 20) /* output buffer: 1 MiB */
#define GEN_MAX_WIDTH 32

/* ------------------------------------------------------------------------ */
/* errors */

static void gen_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void gen_err(char *err, size_t cap, const char *fmt, ...)
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

static int out_init(struct gen_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->cap = GEN_BUF_SIZE;
	o->buf = malloc(o->cap);
	if (o->buf == NULL)
		return -1;
	return 0;
}

static void out_flush(struct gen_out *o)
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
static bool out_reserve(struct gen_out *o, size_t n)
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

static void out_mem(struct gen_out *o, const void *p, size_t n)
{
	if (!out_reserve(o, n))
		return;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void out_str(struct gen_out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Flush the buffer and the FILE; free the buffer.  @return 0, or the errno of
 * the first failure. */
static int out_finish(struct gen_out *o)
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
/* LDIF lines and entries (ldif/ldif.h, ldif/entry.h) */

/* "name: value\n", or "name:: base64\n" when the value is not safe. */
static void out_attr(struct gen_out *o, const char *name, const char *value, size_t vlen)
{
	size_t nlen = strlen(name);

	if (!out_reserve(o, ldb_ldif_line_max(nlen, vlen)))
		return;
	o->len += ldb_ldif_put_line(o->buf + o->len, name, nlen, value, vlen);
}

/* An entry gen cannot build (its text storage is sized for every shape):
 * the output fails. */
static void out_broken(struct gen_out *o)
{
	if (!o->failed) {
		o->failed = true;
		o->saved_errno = EOVERFLOW;
	}
}

/* Every value of e, one line each. */
static void out_entry(struct gen_out *o, const struct ldb_entry *e)
{
	for (int i = 0; i < e->n; i++)
		out_attr(o, e->v[i].type, e->v[i].val, e->v[i].len);
}

static void out_attr_str(struct gen_out *o, const char *name, const char *value)
{
	out_attr(o, name, value, strlen(value));
}

/* Decimal v zero-padded to width; returns the length (no NUL). */
static size_t put_index(char *dst, uint64_t v, int width)
{
	char tmp[LDB_U64_DEC_MAX];
	size_t n = ldb_u64_dec(tmp, v), len = 0;

	for (size_t pad = n; pad < (size_t)width; pad++)
		dst[len++] = '0';
	memcpy(dst + len, tmp, n);
	return len + n;
}

static int digits_u64(uint64_t v)
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

/* The message of a missing required option; @return LDB_EXIT_PARAMS. */
static int missing(const char *opt, char *err, size_t cap)
{
	gen_err(err, cap, "%s is required", opt);
	return LDB_EXIT_PARAMS;
}

/* ------------------------------------------------------------------------ */
/* DNs and the naming-context entries */

enum rdn_kind { RDN_DC, RDN_O, RDN_OU };

static int rdn_kind_of(LDAPRDN rdn, enum rdn_kind *kind, const char *what, char *err, size_t cap)
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

static bool rdn_equal(LDAPRDN a, LDAPRDN b)
{
	LDAPAVA *x = a[0], *y = b[0];

	if (a[1] != NULL || b[1] != NULL)
		return false;
	return x->la_attr.bv_len == y->la_attr.bv_len &&
	       strncasecmp(x->la_attr.bv_val, y->la_attr.bv_val, x->la_attr.bv_len) == 0 &&
	       x->la_value.bv_len == y->la_value.bv_len &&
	       strncasecmp(x->la_value.bv_val, y->la_value.bv_val, x->la_value.bv_len) == 0;
}

static size_t dn_len(LDAPDN dn)
{
	size_t n = 0;

	while (dn != NULL && dn[n] != NULL)
		n++;
	return n;
}

/* One entry of the tree above the generated objects. */
struct gen_node {
	char *dn; /* ldap_dn2str form; ldap_memfree */
	enum rdn_kind kind;
	char *value; /* the RDN value (malloc) */
};

/* The suffix and the containers down to a parent, top first. */
struct gen_tree {
	struct gen_node *nodes;
	size_t count;
	char *domain; /* mail domain (malloc) */
};

static void tree_free(struct gen_tree *t)
{
	for (size_t i = 0; i < t->count; i++) {
		ldap_memfree(t->nodes[i].dn);
		free(t->nodes[i].value);
	}
	free(t->nodes);
	free(t->domain);
	memset(t, 0, sizeof(*t));
}

static int parse_dn(const char *opt, const char *s, LDAPDN *dn, char *err, size_t cap)
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

/* The suffix's RDNs are single-valued, its first is dc, o or ou, and the
 * parent (np RDNs) ends with the suffix (ns RDNs).  @return 0 or -1 with err. */
static int tree_check(LDAPDN sdn, size_t ns, LDAPDN pdn, size_t np, const char *suffix, const char *parent,
                      const char *popt, char *err, size_t cap)
{
	for (size_t i = 0; i < ns; i++) {
		enum rdn_kind k;
		if (sdn[i][0] == NULL || sdn[i][1] != NULL) {
			gen_err(err, cap, "--suffix: multi-valued RDNs are not supported");
			return -1;
		}
		if (i == 0 && rdn_kind_of(sdn[i], &k, "--suffix", err, cap) != 0)
			return -1;
	}
	if (np < ns) {
		gen_err(err, cap, "%s '%s' is not under --suffix '%s'", popt, parent, suffix);
		return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		if (pdn[np - ns + i][1] != NULL || !rdn_equal(pdn[np - ns + i], sdn[i])) {
			gen_err(err, cap, "%s '%s' is not under --suffix '%s'", popt, parent, suffix);
			return -1;
		}
	}
	return 0;
}

/* t's nodes: the suffix (ns RDNs) and each entry down to the parent pdn.
 * @return 0 or -1 with err. */
static int tree_nodes(struct gen_tree *t, LDAPDN pdn, size_t np, size_t ns, const char *popt, char *err, size_t cap)
{
	t->count = np - ns + 1;
	t->nodes = calloc(t->count, sizeof(*t->nodes));
	if (t->nodes == NULL) {
		gen_err(err, cap, "out of memory");
		t->count = 0;
		return -1;
	}
	/* node j (0 = suffix) is the DN made of pdn[np - ns - j ..]. */
	for (size_t j = 0; j < t->count; j++) {
		size_t first = np - ns - j;
		LDAPRDN rdn = pdn[first];
		struct gen_node *nd = &t->nodes[j];

		if (rdn_kind_of(rdn, &nd->kind, j == 0 ? "--suffix" : popt, err, cap) != 0)
			return -1;
		nd->value = strndup(rdn[0]->la_value.bv_val, rdn[0]->la_value.bv_len);
		if (nd->value == NULL ||
		    ldap_dn2str(pdn + first, &nd->dn, LDAP_DN_FORMAT_LDAPV3 | LDAP_DN_PRETTY) != LDAP_SUCCESS ||
		    nd->dn == NULL) {
			gen_err(err, cap, "cannot build the DN of the entry %zu below the suffix", j);
			return -1;
		}
	}
	return 0;
}

/* The mail domain: the dc= values of the suffix, in order, joined with dots;
 * example.com without any.  NULL when memory ran out. */
static char *tree_domain(LDAPDN sdn, size_t ns)
{
	size_t dlen = 0;

	for (size_t i = 0; i < ns; i++) {
		LDAPAVA *a = sdn[i][0];
		if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0)
			dlen += a->la_value.bv_len + 1;
	}
	if (dlen == 0)
		return strdup("example.com");
	char *d = malloc(dlen), *p = d;

	if (d == NULL)
		return NULL;
	for (size_t i = 0; i < ns; i++) {
		LDAPAVA *a = sdn[i][0];
		if (a->la_attr.bv_len == 2 && strncasecmp(a->la_attr.bv_val, "dc", 2) == 0) {
			if (p != d)
				*p++ = '.';
			memcpy(p, a->la_value.bv_val, a->la_value.bv_len);
			p += a->la_value.bv_len;
		}
	}
	*p = '\0';
	return d;
}

/* Check that parent is the suffix or below it, and list the entries from the
 * suffix down to the parent.  @return 0 or -1 with err. */
static int tree_build(struct gen_tree *t, const char *suffix, const char *parent, const char *popt, char *err,
                      size_t cap)
{
	LDAPDN sdn = NULL, pdn = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (parse_dn("--suffix", suffix, &sdn, err, cap) != 0 || parse_dn(popt, parent, &pdn, err, cap) != 0)
		goto out;
	size_t ns = dn_len(sdn), np = dn_len(pdn);

	if (tree_check(sdn, ns, pdn, np, suffix, parent, popt, err, cap) != 0 ||
	    tree_nodes(t, pdn, np, ns, popt, err, cap) != 0)
		goto out;
	t->domain = tree_domain(sdn, ns);
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

/* The container entry of an RDN attr=value, its lines after the dn (and
 * changetype) line; extra (NULL: none) a description line. */
static void container_write(struct gen_out *o, const char *attr, const char *val, size_t vlen, const char *extra,
                            size_t xlen)
{
	struct ldb_put_value v[LDB_ENTRY_CONTAINER_MAX];
	struct ldb_entry e;

	ldb_entry_init(&e, v, LDB_ENTRY_CONTAINER_MAX, NULL, 0);
	if (ldb_entry_container(&e, attr, strlen(attr), val, vlen) < 0) {
		out_broken(o);
		return;
	}
	out_entry(o, &e);
	if (extra != NULL)
		out_attr(o, "description", extra, xlen);
	out_mem(o, "\n", 1);
}

/* One suffix or container entry; with change_add as an ldapmodify add record. */
static void node_write(const struct gen_node *nd, struct gen_out *o, bool change_add)
{
	static const char *const kind_attr[] = { [RDN_DC] = "dc", [RDN_O] = "o", [RDN_OU] = "ou" };

	out_attr_str(o, "dn", nd->dn);
	if (change_add)
		out_str(o, "changetype: add\n");
	container_write(o, kind_attr[nd->kind], nd->value, strlen(nd->value), NULL, 0);
}

/* The suffix and container entries. */
static void tree_write(const struct gen_tree *t, struct gen_out *o, bool change_add)
{
	for (size_t i = 0; i < t->count; i++)
		node_write(&t->nodes[i], o, change_add);
}

/* ------------------------------------------------------------------------ */
/* user indexes */

/* The users' index range and its zero-padding. */
struct idx_plan {
	uint64_t first, count;
	int width;
};

/* Check start/number/width (number_opt names the count option in messages)
 * and fill ip.  @return 0 or -1 with err. */
static int idx_prepare(const char *number_opt, int64_t number, int64_t start, int width, struct idx_plan *ip, char *err,
                       size_t cap)
{
	if (number < 0 || start < 0 || number > LDB_GEN_MAX_INDEX || start > LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "%s and --start-idx must be between 0 and %lld", number_opt,
		        (long long)LDB_GEN_MAX_INDEX);
		return -1;
	}
	if (number > 0 && start > LDB_GEN_MAX_INDEX - (number - 1)) {
		gen_err(err, cap, "--start-idx %lld + %s %lld goes past the largest index %lld", (long long)start,
		        number_opt, (long long)number, (long long)LDB_GEN_MAX_INDEX);
		return -1;
	}
	if (width < 0 || width > GEN_MAX_WIDTH) {
		gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
		return -1;
	}
	ip->first = (uint64_t)start;
	ip->count = (uint64_t)number;
	uint64_t last = ip->count > 0 ? ip->first + ip->count - 1 : ip->first;
	int need = digits_u64(last);
	if (width > 0) {
		if (width < need && ip->count > 0) {
			gen_err(err, cap, "--width %d is too small: index %llu needs %d digits", width,
			        (unsigned long long)last, need);
			return -1;
		}
		ip->width = width;
	} else {
		ip->width = need > LDB_GEN_DEFAULT_WIDTH ? need : LDB_GEN_DEFAULT_WIDTH;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* salted password hashes */

#define GEN_SALT_LEN 8
#define GEN_SALT_POOL (GEN_SALT_LEN * 1024)
#define GEN_HASH_MAX 128 /* "{SSHA512}" + base64(64 + 8 bytes) = 105 */

struct pw_hasher {
	enum ldb_gen_hash kind;
	const EVP_MD *md;
	const char *tag;
	size_t taglen;
	EVP_MD_CTX *ctx;
	unsigned char salts[GEN_SALT_POOL]; /* RAND_bytes in bulk */
	size_t salt_pos;
};

static const char *hash_name(enum ldb_gen_hash kind)
{
	switch (kind) {
	case LDB_GEN_HASH_SSHA: return "ssha";
	case LDB_GEN_HASH_SSHA256: return "ssha256";
	case LDB_GEN_HASH_SSHA512: return "ssha512";
	case LDB_GEN_HASH_CLEAR: break;
	}
	return "clear";
}

static int parse_hash(const char *s, enum ldb_gen_hash *out, char *err, size_t cap)
{
	static const enum ldb_gen_hash all[] = { LDB_GEN_HASH_CLEAR, LDB_GEN_HASH_SSHA, LDB_GEN_HASH_SSHA256,
		                                 LDB_GEN_HASH_SSHA512 };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcasecmp(s, hash_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	}
	gen_err(err, cap, "--hash: '%s' is not one of clear, ssha, ssha256, ssha512", s);
	return -1;
}

/* @return 0, or -1 with err (h is then safe to hasher_free). */
static int hasher_init(struct pw_hasher *h, enum ldb_gen_hash kind, char *err, size_t cap)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	switch (kind) {
	case LDB_GEN_HASH_SSHA:
		h->md = EVP_sha1();
		h->tag = "{SSHA}";
		break;
	case LDB_GEN_HASH_SSHA256:
		h->md = EVP_sha256();
		h->tag = "{SSHA256}";
		break;
	case LDB_GEN_HASH_SSHA512:
		h->md = EVP_sha512();
		h->tag = "{SSHA512}";
		break;
	case LDB_GEN_HASH_CLEAR: return 0;
	}
	h->taglen = strlen(h->tag);
	h->ctx = EVP_MD_CTX_new();
	h->salt_pos = GEN_SALT_POOL; /* empty: filled on first use */
	if (h->md == NULL || h->ctx == NULL) {
		gen_err(err, cap, "--hash %s: digest not available", hash_name(kind));
		return -1;
	}
	return 0;
}

static void hasher_free(struct pw_hasher *h)
{
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

/* The userPassword value of pw into out (GEN_HASH_MAX bytes).
 * @return its length, or 0 when the digest or the random generator failed. */
static size_t hasher_value(struct pw_hasher *h, const char *pw, size_t n, char *out)
{
	unsigned char buf[EVP_MAX_MD_SIZE + GEN_SALT_LEN];
	unsigned int dlen = 0;

	if (h->salt_pos + GEN_SALT_LEN > GEN_SALT_POOL) {
		if (RAND_bytes(h->salts, GEN_SALT_POOL) != 1)
			return 0;
		h->salt_pos = 0;
	}
	const unsigned char *salt = h->salts + h->salt_pos;
	h->salt_pos += GEN_SALT_LEN;
	if (EVP_DigestInit_ex(h->ctx, h->md, NULL) != 1 || EVP_DigestUpdate(h->ctx, pw, n) != 1 ||
	    EVP_DigestUpdate(h->ctx, salt, GEN_SALT_LEN) != 1 || EVP_DigestFinal_ex(h->ctx, buf, &dlen) != 1)
		return 0;
	memcpy(buf + dlen, salt, GEN_SALT_LEN);
	memcpy(out, h->tag, h->taglen);
	return h->taglen + ldb_base64_encode(buf, dlen + GEN_SALT_LEN, out + h->taglen);
}

/* ------------------------------------------------------------------------ */
/* user entries (gen users, groups --create-members, mod-load) */

struct user_writer {
	const char *parent; /* the users' parent DN */
	size_t plen;
	const char *domain;
	size_t dlen;
	struct pw_hasher *hasher; /* NULL: clear-text passwords */
	bool hash_failed;
	char *dn;    /* scratch: "uid=" name "," parent */
	char *mail;  /* scratch: the entry's text (name "@" domain) */
	size_t scap; /* of dn and mail */
	char *name;  /* points into dn */
	size_t nlen, dnl;
};

#define GEN_PREFIX_MAX 8 /* "addUser" + NUL */

static int uw_init(struct user_writer *w, const char *parent, const char *domain, struct pw_hasher *h)
{
	memset(w, 0, sizeof(*w));
	w->parent = parent;
	w->plen = strlen(parent);
	w->domain = domain;
	w->dlen = strlen(domain);
	w->hasher = h;
	w->scap = 4 + GEN_PREFIX_MAX + GEN_MAX_WIDTH + 24 + 1 + (w->plen > w->dlen ? w->plen : w->dlen) + 1;
	w->dn = malloc(w->scap);
	w->mail = malloc(w->scap);
	return w->dn != NULL && w->mail != NULL ? 0 : -1;
}

static void uw_free(struct user_writer *w)
{
	free(w->dn);
	free(w->mail);
	w->dn = w->mail = NULL;
}

/* Build "uid=<prefix><idx>,parent" in w->dn (rdn: "uid" or "cn"); w->name and
 * w->nlen are the RDN value. */
static void uw_name(struct user_writer *w, const char *rdn, const char *prefix, uint64_t idx, int width)
{
	size_t rl = strlen(rdn), pl = strlen(prefix);

	memcpy(w->dn, rdn, rl);
	w->dn[rl] = '=';
	w->name = w->dn + rl + 1;
	memcpy(w->name, prefix, pl);
	w->nlen = pl + put_index(w->name + pl, idx, width);
	w->dnl = rl + 1 + w->nlen;
	w->dn[w->dnl++] = ',';
	memcpy(w->dn + w->dnl, w->parent, w->plen);
	w->dnl += w->plen;
}

/* One full user entry; with change_add as an ldapmodify add record. */
static void uw_entry(struct user_writer *w, struct gen_out *o, const char *prefix, uint64_t idx, int width,
                     bool change_add)
{
	struct ldb_put_value v[16];
	struct ldb_entry e;
	char hv[GEN_HASH_MAX];
	const char *pw;
	size_t pwl;

	uw_name(w, "uid", prefix, idx, width);
	pw = w->name;
	pwl = w->nlen;
	if (w->hasher != NULL && w->hasher->kind != LDB_GEN_HASH_CLEAR) {
		pwl = hasher_value(w->hasher, w->name, w->nlen, hv);
		if (pwl == 0)
			w->hash_failed = true;
		pw = hv;
	}
	ldb_entry_init(&e, v, 16, w->mail, w->scap);
	if (ldb_entry_user(&e, w->name, w->nlen, w->domain, w->dlen, pw, pwl) < 0) {
		out_broken(o);
		return;
	}
	out_attr(o, "dn", w->dn, w->dnl);
	if (change_add)
		out_mem(o, "changetype: add\n", 16);
	out_entry(o, &e);
	out_mem(o, "\n", 1);
}

/* The user writer (users below parent, mail at domain, passwords hashed by h
 * unless NULL) and the output of an emitter.
 * @return 0, or LDB_EXIT_OTHER with err and nothing left to free. */
static int emit_begin(struct user_writer *w, const char *parent, const char *domain, struct pw_hasher *h,
                      struct gen_out *o, FILE *f, char *err, size_t cap)
{
	if (uw_init(w, parent, domain, h) != 0 || out_init(o, f) != 0) {
		uw_free(w);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	return 0;
}

/* The DN of the lowest entry of t (the parent of what goes below). */
static const char *tree_bottom(const struct gen_tree *t)
{
	return t->nodes[t->count - 1].dn;
}

/* Finish the output; @return 0 or 99 with err. */
static int emit_finish(struct gen_out *o, bool hash_failed, char *err, size_t cap)
{
	int e = out_finish(o);

	if (hash_failed) {
		gen_err(err, cap, "hashing a password failed (OpenSSL digest or random generator)");
		return LDB_EXIT_OTHER;
	}
	if (e != 0) {
		gen_err(err, cap, "write failed: %s", strerror(e));
		return LDB_EXIT_OTHER;
	}
	return 0;
}

/* Free the user writer of emit_begin and finish the output; @return 0 or 99
 * with err. */
static int emit_end(struct user_writer *w, struct gen_out *o, char *err, size_t cap)
{
	bool hash_failed = w->hash_failed;

	uw_free(w);
	return emit_finish(o, hash_failed, err, cap);
}

/* ------------------------------------------------------------------------ */
/* gen users */

/* The users' parent: given, or "ou=People,SUFFIX" made in *owned (the caller
 * frees it).  NULL when memory ran out (err says so). */
static const char *people_default(const char *given, const char *suffix, char **owned, char *err, size_t cap)
{
	*owned = NULL;
	if (given != NULL)
		return given;
	if (asprintf(owned, "ou=People,%s", suffix) < 0) {
		*owned = NULL;
		gen_err(err, cap, "out of memory");
		return NULL;
	}
	return *owned;
}

struct users_plan {
	struct gen_tree tree;
	struct idx_plan idx;
	enum ldb_gen_hash hash;
};

static int users_prepare(const struct ldb_gen_users *u, struct users_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (u->suffix == NULL)
		return missing("--suffix", err, cap);
	if (idx_prepare("--number", u->number, u->start_idx, u->width, &pl->idx, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	if ((unsigned)u->hash > LDB_GEN_HASH_SSHA512) {
		gen_err(err, cap, "--hash: unknown kind %d", (int)u->hash);
		return LDB_EXIT_PARAMS;
	}
	pl->hash = u->hash;

	char *parent_default = NULL;
	const char *parent = people_default(u->parent, u->suffix, &parent_default, err, cap);
	if (parent == NULL)
		return LDB_EXIT_OTHER;
	int rc = tree_build(&pl->tree, u->suffix, parent, "--parent", err, cap);
	free(parent_default);
	return rc == 0 ? 0 : LDB_EXIT_PARAMS;
}

static void users_plan_free(struct users_plan *pl)
{
	tree_free(&pl->tree);
}

static int users_emit(const struct users_plan *pl, FILE *f, char *err, size_t cap)
{
	struct gen_out o;
	struct user_writer w;
	struct pw_hasher h;
	const struct gen_tree *t = &pl->tree;

	if (hasher_init(&h, pl->hash, err, cap) != 0 ||
	    emit_begin(&w, tree_bottom(t), t->domain, &h, &o, f, err, cap) != 0) {
		hasher_free(&h);
		return LDB_EXIT_OTHER;
	}
	tree_write(t, &o, false);
	for (uint64_t i = 0; i < pl->idx.count && !o.failed && !w.hash_failed; i++)
		uw_entry(&w, &o, "user", pl->idx.first + i, pl->idx.width, false);
	hasher_free(&h);
	return emit_end(&w, &o, err, cap);
}

/* An ldifgen-shaped emitter's output buffer and its random numbers (a fresh
 * seed, as dsctl's). */
static int lg_start(struct gen_out *o, struct ldb_rng *r, FILE *f, char *err, size_t cap)
{
	if (out_init(o, f) != 0) {
		gen_err(err, cap, "out of memory");
		return -1;
	}
	ldb_rng_seed(r, ldb_rng_fresh_seed(), 0);
	return 0;
}

static int users_emit_ldifgen(const struct ldb_gen_users *u, FILE *f, char *err, size_t cap);
static bool lg_dn_ok(const char *s, const char *opt, char *err, size_t cap);

/* The ldifgen shape's own checks (the command line makes more). */
static int users_ldifgen_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t cap)
{
	if (u->suffix == NULL)
		return missing("--suffix", err, cap);
	if (u->number < 0 || u->start_idx < 0 || u->number > LDB_GEN_MAX_INDEX ||
	    u->start_idx > LDB_GEN_MAX_INDEX - u->number) {
		gen_err(err, cap, "--number and --start-idx must be between 0 and %lld together",
		        (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	if (!lg_dn_ok(u->suffix, "--suffix", err, cap) ||
	    (u->parent != NULL && !lg_dn_ok(u->parent, "--parent", err, cap)))
		return LDB_EXIT_PARAMS;
	return users_emit_ldifgen(u, out, err, cap);
}

int ldb_gen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t errcap)
{
	if (u->ldifgen)
		return users_ldifgen_write(u, out, err, errcap);
	struct users_plan pl;
	int rc = users_prepare(u, &pl, err, errcap);

	if (rc == 0)
		rc = users_emit(&pl, out, err, errcap);
	users_plan_free(&pl);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* gen users --generic (--shape ldifgen): the tree of `dsctl ldifgen users
 * --generic`, entry for entry where a filter or a script can notice: the
 * suffix entry with the three ACIs ldifgen writes, its seven organizational
 * units, the parent (when it is not one of them), then users numbered
 * 1 + I .. N + I (I = --start-idx, default 0) zero-padded to the digits of N,
 * each with ldifgen's attribute set.  The random parts (given and family
 * names, l, title, the ou attribute) are our own lists; the certificate is a
 * throwaway self-signed one of about the same size. */

static const char *const lg_ous[] = {
	"accounting", "product development", "product testing", "human resources", "payroll", "people", "groups"
};
static const char *const lg_given[] = { "Ada",  "Boris", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro",
	                                "Ines", "Jonas", "Keiko", "Lars",   "Mira",  "Nuno",  "Olga",  "Pavel" };
static const char *const lg_family[] = { "Abbott", "Brandt", "Castro", "Dalton", "Eriksen",  "Fischer",
	                                 "Garcia", "Horvat", "Ivanov", "Jensen", "Kowalski", "Larsen",
	                                 "Moreau", "Novak",  "Okafor", "Petrov" };
static const char *const lg_places[] = { "Lisbon", "Oslo", "Tartu", "Ghent", "Porto", "Turku", "Bergen", "Graz" };
static const char *const lg_levels[] = { "Senior", "Junior", "Chief", "Associate", "Principal" };
static const char *const lg_jobs[] = { "Engineer", "Manager",  "Analyst", "Architect",
	                               "Clerk",    "Designer", "Tester",  "Writer" };
static const char lg_cert[] =
        "MIICMzCCAZygAwIBAgITKEm/a5jJoxgP0ubiTVsOrg5pCzANBgkqhkiG9w0BAQsFADAsMRAwDgYDVQQKDAdleGFtcGxlMRgw"
        "FgYDVQQDDA9sZGJlbmNoIFMxIENlcnQwHhcNMjYxMjAxMTAzOTM1WhcNMzYxMTI4MTAzOTM1WjAsMRAwDgYDVQQKDAdleGFt"
        "cGxlMRgwFgYDVQQDDA9sZGJlbmNoIFMxIENlcnQwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBANH4xZwTGLbnI+WzlFXe"
        "cjHrNEY1x/Kt4WLfU1wa/dy8UlKXLsU1gD4dx8om0sWIhdfTNreZwNK3FkxAzslPfhJHNJmkjGnVXGIAzhNOxW4YRwmZyB/F"
        "0olFRerf7cFumDHCyVA/bFHOoPbdNbmX93KGlRDDDL7nFGCvlFQqKW2jAgMBAAGjUzBRMB0GA1UdDgQWBBTD0qxJ5H7XIn5k"
        "veDQTJHDzArEmDAfBgNVHSMEGDAWgBTD0qxJ5H7XIn5kveDQTJHDzArEmDAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEB"
        "CwUAA4GBACPukyVtA9xCULnp2kfoyvz9mDNTSzn6M0EdMqpY1/nuyHQ3Sqdynnw7T6WKT/SWuxL/+nMTgSAjveXDg3ZbN4Hc"
        "EAvMU3tEpRusge3jRkhPTuGUeNWU4mzFsllTy6kSJgREpIwp7Av4XwXKazZRh/9CK8dn0zYygNmqk5baily2";

#define LG_PICK(r, a) ((a)[ldb_rng_range((r), 0, (int64_t)(sizeof(a) / sizeof((a)[0])) - 1)])

/* The suffix (or a parent) entry as ldifgen writes it: objectClass by the RDN
 * attribute, and three ACIs: self write, a Directory Administrators group's
 * write, anonymous read/search/compare. */
static void lg_node(struct gen_out *o, const char *dn, bool change_add)
{
	static const struct {
		const char *attr, *oc;
	} kinds[] = { { "c", "country" },
		      { "cn", "nscontainer" },
		      { "dc", "domain" },
		      { "o", "organization" },
		      { "ou", "organizationalunit" } };
	const char *eq = strchr(dn, '='), *comma = strchr(dn, ',');
	size_t al = eq ? (size_t)(eq - dn) : 0;
	size_t vl = eq ? (comma ? (size_t)(comma - eq - 1) : strlen(eq + 1)) : 0;
	const char *oc = NULL;
	char aci[1024];

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strlen(kinds[i].attr) == al && strncasecmp(dn, kinds[i].attr, al) == 0)
			oc = kinds[i].oc;
	out_attr_str(o, "dn", dn);
	if (change_add)
		out_str(o, "changetype: add\n");
	out_str(o, "objectClass: top\n");
	out_attr_str(o, "objectClass", oc ? oc : "organizationalunit");
	char attr[16];
	snprintf(attr, sizeof attr, "%.*s", (int)(al < sizeof attr ? al : sizeof attr - 1), dn);
	for (char *p = attr; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	out_attr(o, attr, eq + 1, vl);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Self Write\"; allow(write) userdn = "
	         "\"ldap:///self\";)",
	         dn);
	out_attr_str(o, "aci", aci);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Directory Admin Group\"; allow(write) groupdn "
	         "= \"ldap:///cn=Directory Administrators,ou=Groups,%s\";)",
	         dn, dn);
	out_attr_str(o, "aci", aci);
	snprintf(aci, sizeof aci,
	         "(target=ldap:///%s)(targetattr=*)(version 3.0; acl \"Anonymous Access\"; allow(read, search, "
	         "compare) userdn = \"ldap:///anyone\";)",
	         dn);
	out_attr_str(o, "aci", aci);
	out_str(o, "\n");
}

/* A user's names: the RDN value, cn, givenName and sn. */
struct lg_names {
	const char *name, *cn, *first, *last;
};

/* One ldifgen user: n->name is the RDN value (user<idx>), num its index unpadded. */
static void lg_user(struct gen_out *o, struct ldb_rng *r, const char *rdn, const struct lg_names *n, uint64_t num,
                    const char *parent, bool change_add)
{
	const char *name = n->name, *first = n->first, *last = n->last, *ou = LG_PICK(r, lg_ous);
	char buf[1024];

	/* ldifgen's cn= RDN is the cn (the name, or "First Last" with random names) */
	snprintf(buf, sizeof buf, "%s=%s,%s", rdn, strcmp(rdn, "cn") == 0 ? n->cn : name, parent);
	out_attr_str(o, "dn", buf);
	if (change_add)
		out_str(o, "changetype: add\n");
	out_str(o, "objectClass: top\nobjectClass: person\nobjectClass: organizationalPerson\n"
	           "objectClass: inetOrgPerson\nobjectclass: inetUser\n");
	out_attr_str(o, "cn", n->cn);
	out_attr_str(o, "sn", last);
	out_attr_str(o, "uid", name);
	out_attr_str(o, "givenName", first);
	snprintf(buf, sizeof buf, "2;%llu;CN=ldbench demo,O=Example,C=US [1] This is %s %s's description.",
	         (unsigned long long)num, first, last);
	out_attr_str(o, "description", buf);
	out_attr_str(o, "userPassword", name);
	out_str(o, "departmentNumber: 1230\nemployeeType: Manager\nhomePhone: +1 555 010-1001\n");
	snprintf(buf, sizeof buf, "%c. %c", first[0], last[0]);
	out_attr_str(o, "initials", buf);
	out_str(o, "telephoneNumber: +1 555 010-1002\nfacsimileTelephoneNumber: +1 555 010-1003\n"
	           "mobile: +1 555 010-1004\npager: +1 555 010-1005\nroomNumber: 4242\ncarLicense: LDB1742\n");
	out_attr_str(o, "l", LG_PICK(r, lg_places));
	out_attr_str(o, "ou", ou);
	snprintf(buf, sizeof buf, "%s@example.com", name);
	out_attr_str(o, "mail", buf);
	snprintf(buf, sizeof buf, "%llu@example.com", (unsigned long long)num);
	out_attr_str(o, "mail", buf);
	snprintf(buf, sizeof buf, "518, Dept #851, Room#%s", ou);
	out_attr_str(o, "postalAddress", buf);
	snprintf(buf, sizeof buf, "%s %s", LG_PICK(r, lg_levels), LG_PICK(r, lg_jobs));
	out_attr_str(o, "title", buf);
	out_str(o, "usercertificate;binary:: ");
	out_str(o, lg_cert);
	out_str(o, "\n\n");
}

/* ldifgen's index: the digits of count, at least (more when idx has more). */
static void lg_name(char *dst, size_t cap, const char *prefix, uint64_t idx, uint64_t count)
{
	char num[LDB_U64_DEC_MAX + GEN_MAX_WIDTH];
	size_t n = put_index(num, idx, digits_u64(count));
	snprintf(dst, cap, "%s%.*s", prefix, (int)n, num);
}

/* Whether parent's RDN value is one of the seven OUs ldifgen always writes. */
static bool lg_is_std_ou(const char *parent)
{
	const char *eq = strchr(parent, '='), *comma = strchr(parent, ',');
	if (eq == NULL)
		return false;
	size_t vl = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
	for (size_t i = 0; i < sizeof lg_ous / sizeof lg_ous[0]; i++)
		if (strlen(lg_ous[i]) == vl && strncasecmp(eq + 1, lg_ous[i], vl) == 0)
			return true;
	return false;
}

static int users_emit_ldifgen(const struct ldb_gen_users *u, FILE *f, char *err, size_t cap)
{
	struct gen_out o;
	struct ldb_rng r;
	char parent_buf[1024], name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH + 16], cn[64];

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	lg_node(&o, u->suffix, false);
	for (size_t i = 0; i < sizeof lg_ous / sizeof lg_ous[0]; i++) {
		snprintf(parent_buf, sizeof parent_buf, "ou=%s,%s", lg_ous[i], u->suffix);
		out_attr_str(&o, "dn", parent_buf);
		out_str(&o, "objectClass: top\nobjectClass: organizationalUnit\n");
		out_attr_str(&o, "ou", lg_ous[i]);
		out_str(&o, "\n");
	}
	const char *parent = u->parent;
	if (parent != NULL && !lg_is_std_ou(parent))
		lg_node(&o, parent, false);
	if (parent == NULL) { /* as ldifgen: every user below one OU picked at random */
		snprintf(parent_buf, sizeof parent_buf, "ou=%s,%s", LG_PICK(&r, lg_ous), u->suffix);
		parent = parent_buf;
	}
	for (uint64_t i = 1; i <= (uint64_t)u->number && !o.failed; i++) {
		uint64_t idx = i + (uint64_t)u->start_idx;
		struct lg_names nm = { name, name, LG_PICK(&r, lg_given), LG_PICK(&r, lg_family) };
		if (u->random_names) { /* ldifgen without --generic: uid JSmith<i>, cn "John Smith" */
			idx = i;
			snprintf(name, sizeof name, "%c%s%llu", nm.first[0], nm.last, (unsigned long long)i);
			snprintf(cn, sizeof cn, "%s %s", nm.first, nm.last);
			nm.cn = cn;
		} else {
			lg_name(name, sizeof name, "user", idx, (uint64_t)u->number);
		}
		lg_user(&o, &r, u->rdn_cn ? "cn" : "uid", &nm, idx, parent, false);
	}
	return emit_finish(&o, false, err, cap);
}

/* ------------------------------------------------------------------------ */
/* output files and option parsing shared by the subcommands */

/* Open the output (stdout when path is NULL). */
static FILE *gen_open(const char *path, char *err, size_t cap)
{
	if (path == NULL)
		return stdout;
	FILE *f = fopen(path, "w");
	if (f == NULL)
		gen_err(err, cap, "--ldif-file: cannot create '%s': %s", path, strerror(errno));
	return f;
}

/* Close the output; on failure remove a partial file.  Returns rc updated. */
static int gen_close(FILE *f, const char *path, int rc, char *err, size_t cap)
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

/* getopt_long values: the options every subcommand has, then OPT_TABLE + i for
 * the i-th entry of the subcommand's own table. */
enum {
	OPT_LDIF_FILE = 1000,
	OPT_HELP,
	OPT_START_IDX,
	OPT_WIDTH,
	OPT_TABLE,
};

/* The message of a getopt_long error ('?' or ':'). */
static int opt_error(int c, char **argv, char *err, size_t cap)
{
	if (c == ':')
		gen_err(err, cap, "%s needs a value", argv[optind - 1]);
	else if (optopt > 0 && optopt < 256)
		gen_err(err, cap, "unknown option '-%c'", optopt);
	else if (optopt != 0)
		gen_err(err, cap, "option '%s' takes no value", argv[optind - 1]);
	else
		gen_err(err, cap, "unknown or ambiguous option '%s'", argv[optind - 1]);
	return LDB_EXIT_PARAMS;
}

/* Options every subcommand has: --ldif-file, --width, --start-idx.
 * @return 1 when c was not one of them, 0 handled, LDB_EXIT_PARAMS bad. */
static int opt_common(int c, const char **file, int64_t *start_idx, int *width, char *err, size_t cap)
{
	int64_t v;

	switch (c) {
	case OPT_LDIF_FILE:
		if (*optarg == '\0') {
			gen_err(err, cap, "--ldif-file: empty file name");
			return LDB_EXIT_PARAMS;
		}
		*file = optarg;
		return 0;
	case OPT_START_IDX:
		if (start_idx == NULL)
			return 1;
		return ldb_num_count("--start-idx", optarg, LDB_GEN_MAX_INDEX, start_idx, err, cap) == 0
		               ? 0
		               : LDB_EXIT_PARAMS;
	case OPT_WIDTH:
		if (width == NULL)
			return 1;
		if (ldb_num_count("--width", optarg, GEN_MAX_WIDTH, &v, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		if (v == 0) {
			gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
			return LDB_EXIT_PARAMS;
		}
		*width = (int)v;
		return 0;
	default: return 1;
	}
}

/* How a subcommand option stores its value. */
enum gen_opt_kind {
	GOPT_STR,   /* dst is const char **: the value as given */
	GOPT_COUNT, /* dst is int64_t *: parse_count up to max */
	GOPT_FLAG,  /* dst is bool *, set; the option takes no value */
	GOPT_CALL,  /* fn(dst, value, ...): anything else; 0 or -1 with err */
};

typedef int (*gen_opt_fn)(void *dst, const char *val, int argc, char **argv, char *err, size_t cap);

/* One option of a subcommand, besides --ldif-file, --help, --start-idx, --width. */
struct gen_opt {
	const char *name; /* long name without "--" */
	enum gen_opt_kind kind;
	void *dst;
	int64_t max;   /* GOPT_COUNT */
	bool *seen;    /* set when the option is given; may be NULL */
	gen_opt_fn fn; /* GOPT_CALL */
};

#define GEN_MAX_OPTS 16

/* A subcommand's command line. */
struct gen_cli {
	const struct gen_opt *opts;
	size_t nopts;
	const char **file;
	int64_t *start_idx; /* NULL: no --start-idx nor --width */
	int *width;
	const struct gen_opt *operand; /* NULL: operands are refused */
};

/* Store val as o says.  @return 0 or LDB_EXIT_PARAMS with err. */
static int opt_store(const struct gen_opt *o, const char *val, int argc, char **argv, char *err, size_t cap)
{
	char name[64]; /* "--" and a long name of our tables */

	switch (o->kind) {
	case GOPT_STR: *(const char **)o->dst = val; break;
	case GOPT_FLAG: *(bool *)o->dst = true; break;
	case GOPT_COUNT:
		snprintf(name, sizeof(name), "--%s", o->name);
		if (ldb_num_count(name, val, o->max, o->dst, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		break;
	case GOPT_CALL:
		if (o->fn(o->dst, val, argc, argv, err, cap) != 0)
			return LDB_EXIT_PARAMS;
		break;
	}
	if (o->seen != NULL)
		*o->seen = true;
	return 0;
}

/* Parse a subcommand's arguments (argv[0] is its name) as cli says.
 * @return 0, -1 when --help was printed (exit 0), or LDB_EXIT_PARAMS. */
static int gen_parse(const struct gen_cli *cli, int argc, char **argv, char *err, size_t cap)
{
	struct option lo[GEN_MAX_OPTS + 5];
	size_t n = 0;
	int c, r;

	lo[n++] = (struct option){ "ldif-file", required_argument, NULL, OPT_LDIF_FILE };
	lo[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	if (cli->start_idx != NULL) {
		lo[n++] = (struct option){ "start-idx", required_argument, NULL, OPT_START_IDX };
		lo[n++] = (struct option){ "width", required_argument, NULL, OPT_WIDTH };
	}
	for (size_t i = 0; i < cli->nopts && i < GEN_MAX_OPTS; i++)
		lo[n++] = (struct option){ cli->opts[i].name,
			                   cli->opts[i].kind == GOPT_FLAG ? no_argument : required_argument, NULL,
			                   OPT_TABLE + (int)i };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };

	optind = 0; /* glibc: full re-initialisation (we may be called more than once) */
	opterr = 0;
	/* "-": operands (NAME) may come anywhere, returned as option 1 */
	while ((c = getopt_long(argc, argv, cli->operand != NULL ? "-:" : "+:", lo, NULL)) != -1) {
		if ((r = opt_common(c, cli->file, cli->start_idx, cli->width, err, cap)) != 1) {
			if (r != 0)
				return r;
			continue;
		}
		if (c == OPT_HELP) {
			ldb_gen_usage(stdout);
			return -1; /* handled: exit 0 */
		}
		if (c == 1 && cli->operand != NULL)
			r = opt_store(cli->operand, optarg, argc, argv, err, cap);
		else if (c >= OPT_TABLE && c < OPT_TABLE + (int)cli->nopts)
			r = opt_store(&cli->opts[c - OPT_TABLE], optarg, argc, argv, err, cap);
		else
			return opt_error(c, argv, err, cap);
		if (r != 0)
			return r;
	}
	/* getopt stops at "--" (or, with "+", at the first operand): the rest */
	for (; optind < argc; optind++) {
		if (cli->operand == NULL) {
			gen_err(err, cap, "unexpected argument '%s'", argv[optind]);
			return LDB_EXIT_PARAMS;
		}
		if ((r = opt_store(cli->operand, argv[optind], argc, argv, err, cap)) != 0)
			return r;
	}
	return 0;
}

#define GEN_NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* Prepare-open-emit-close, the same for every subcommand. */
typedef int (*emit_fn)(const void *plan, FILE *f, char *err, size_t cap);

static int gen_run(const void *plan, emit_fn emit, const char *file, char *err, size_t cap)
{
	FILE *f = gen_open(file, err, cap);

	if (f == NULL)
		return LDB_EXIT_PARAMS;
	int rc = emit(plan, f, err, cap);
	return gen_close(f, file, rc, err, cap);
}

static int users_emit_fn(const void *plan, FILE *f, char *err, size_t cap)
{
	return users_emit(plan, f, err, cap);
}

static int opt_hash(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	(void)argc;
	(void)argv;
	return parse_hash(val, dst, err, cap);
}

/* The simple shape's entries carry no ACI: imported into 389 DS,
 * a non-root account's searches succeed with 0 entries.  On stderr, so that
 * the LDIF on stdout stays clean. */
static void gen_aci_note(void)
{
	fputs("ldbench gen users: note: these entries carry no ACI; on 389 DS a search by any account but the "
	      "Directory Manager finds none of them until an ACI allows it, e.g. on the suffix: aci: "
	      "(targetattr!=\"userPassword\")(version 3.0; acl \"ldbench read\"; allow (read, search, compare) "
	      "userdn=\"ldap:///all\";)\n",
	      stderr);
}

static int opt_shape(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	(void)argc;
	(void)argv;
	struct ldb_gen_users *u = dst;
	if (strcmp(val, "simple") == 0 || strcmp(val, "ldifgen") == 0 || strcmp(val, "ldifgen-random") == 0) {
		u->ldifgen = strcmp(val, "simple") != 0;
		u->random_names = strcmp(val, "ldifgen-random") == 0;
		return 0;
	}
	gen_err(err, cap, "--shape: '%s' is not simple, ldifgen or ldifgen-random", val);
	return -1;
}

/* A DN ldifgen can write as a container: c, cn, dc, o or ou first. */
static bool lg_dn_ok(const char *s, const char *opt, char *err, size_t cap)
{
	static const char *const ok[] = { "c", "cn", "dc", "o", "ou" };
	LDAPDN dn = NULL;
	if (parse_dn(opt, s, &dn, err, cap) != 0)
		return false;
	bool good = false;
	if (dn != NULL && dn[0] != NULL)
		for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
			good |= strlen(ok[i]) == dn[0][0]->la_attr.bv_len &&
			        strncasecmp(dn[0][0]->la_attr.bv_val, ok[i], dn[0][0]->la_attr.bv_len) == 0;
	if (dn != NULL)
		ldap_dnfree(dn);
	if (!good)
		gen_err(err, cap, "%s '%s': ldifgen writes c=, cn=, dc=, o= or ou= entries only", opt, s);
	return good;
}

/* The ldifgen shape's options against the simple shape's. */
static int users_shape_check(struct ldb_gen_users *u, bool localize, bool have_hash, bool rdn_cn, char *err, size_t cap)
{
	if (localize) {
		gen_err(err, cap, "--localize (pseudo-localized names) is not supported");
		return LDB_EXIT_PARAMS;
	}
	if (!u->ldifgen) {
		if (rdn_cn) {
			gen_err(err, cap, "--rdn-cn needs --generic (--shape ldifgen)");
			return LDB_EXIT_PARAMS;
		}
		if (u->start_idx < 0)
			u->start_idx = 1;
		return 0;
	}
	if (!lg_dn_ok(u->suffix, "--suffix", err, cap) ||
	    (u->parent != NULL && !lg_dn_ok(u->parent, "--parent", err, cap)))
		return LDB_EXIT_PARAMS;
	if (u->width != 0 || have_hash) {
		gen_err(err, cap,
		        "%s does not apply to --generic (ldifgen pads to the digits of --number, in clear text)",
		        u->width != 0 ? "--width" : "--hash");
		return LDB_EXIT_PARAMS;
	}
	if (u->start_idx < 0)
		u->start_idx = 0;
	if ((uint64_t)u->number + (uint64_t)u->start_idx > (uint64_t)LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "--start-idx + --number goes past the largest index %lld",
		        (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	u->rdn_cn = rdn_cn;
	return 0;
}

static int users_ldifgen_fn(const void *plan, FILE *f, char *err, size_t cap)
{
	return users_ldifgen_write(plan, f, err, cap);
}

static int gen_users_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct ldb_gen_users u = { .start_idx = -1 };
	const char *file = NULL;
	bool have_number = false, localize = false, rdn_cn = false, have_hash = false, generic = false;
	const struct gen_opt opts[] = {
		{ "suffix", GOPT_STR, &u.suffix },
		{ "parent", GOPT_STR, &u.parent },
		{ "number", GOPT_COUNT, &u.number, LDB_GEN_MAX_INDEX, &have_number },
		{ "hash", GOPT_CALL, &u.hash, .fn = opt_hash, .seen = &have_hash },
		{ "generic", GOPT_FLAG, &u.ldifgen, .seen = &generic },
		{ "shape", GOPT_CALL, &u, .fn = opt_shape },
		{ "rdn-cn", GOPT_FLAG, &rdn_cn },
		{ "localize", GOPT_FLAG, &localize },
	};
	const struct gen_cli cli = { opts, GEN_NOPTS(opts), &file, &u.start_idx, &u.width, NULL };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (u.suffix == NULL)
		return missing("--suffix", err, cap);
	if (!have_number)
		return missing("--number", err, cap);
	if (generic && u.random_names) {
		gen_err(err, cap,
		        "--generic and --shape ldifgen-random: the first names users user<idx>, the second not");
		return LDB_EXIT_PARAMS;
	}
	if ((rc = users_shape_check(&u, localize, have_hash, rdn_cn, err, cap)) != 0)
		return rc;
	if (u.ldifgen)
		return gen_run(&u, users_ldifgen_fn, file, err, cap);

	struct users_plan pl;
	rc = users_prepare(&u, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, users_emit_fn, file, err, cap);
	users_plan_free(&pl);
	if (rc == 0)
		gen_aci_note();
	return rc;
}

/* ------------------------------------------------------------------------ */
/* gen groups */

#define GEN_MAX_NAME 256

struct groups_plan {
	const char *name;
	size_t name_len;
	uint64_t number;
	struct idx_plan members;
	bool create_members;
	bool unique;           /* uniqueMember / groupOfUniqueNames */
	struct gen_tree gtree; /* suffix .. --parent */
	struct gen_tree mtree; /* suffix .. --member-parent */
};

static void groups_plan_free(struct groups_plan *pl)
{
	tree_free(&pl->gtree);
	tree_free(&pl->mtree);
}

/* NAME becomes the cn of "cn=NAME-<i>": refuse what a DN would need escaped. */
static int check_group_name(const char *name, char *err, size_t cap)
{
	size_t n = strlen(name);

	if (n == 0) {
		gen_err(err, cap, "NAME: empty group name");
		return -1;
	}
	if (n > GEN_MAX_NAME) {
		gen_err(err, cap, "NAME: longer than %d bytes", GEN_MAX_NAME);
		return -1;
	}
	if (name[0] == '#' || name[0] == ' ' || name[n - 1] == ' ') {
		gen_err(err, cap, "NAME: '%s' cannot start with '#' or a space nor end with a space", name);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (ch < 0x20 || ch == 0x7f) {
			gen_err(err, cap, "NAME: control character in the group name");
			return -1;
		}
		if (strchr(",+\"\\<>;=", ch) != NULL) {
			gen_err(err, cap, "NAME: character '%c' in '%s' is not allowed in a group name", ch, name);
			return -1;
		}
	}
	return 0;
}

struct groups_opts {
	const char *name, *suffix, *parent, *member_parent, *member_attr;
	int64_t number, num_members, start_idx;
	int width;
	bool create_members;
};

static int groups_prepare(const struct groups_opts *g, struct groups_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (check_group_name(g->name, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	pl->name = g->name;
	pl->name_len = strlen(g->name);
	if (g->number < 1) {
		gen_err(err, cap, "--number must be at least 1");
		return LDB_EXIT_PARAMS;
	}
	if (g->num_members < 1) {
		gen_err(err, cap, "--num-members must be at least 1 (%s requires a member)",
		        g->member_attr != NULL && strcasecmp(g->member_attr, "member") == 0 ? "groupOfNames"
		                                                                            : "groupOfUniqueNames");
		return LDB_EXIT_PARAMS;
	}
	pl->number = (uint64_t)g->number;
	if (g->member_attr == NULL || strcasecmp(g->member_attr, "uniqueMember") == 0)
		pl->unique = true;
	else if (strcasecmp(g->member_attr, "member") == 0)
		pl->unique = false;
	else {
		gen_err(err, cap, "--member-attr: '%s' is not member or uniqueMember", g->member_attr);
		return LDB_EXIT_PARAMS;
	}
	if (idx_prepare("--num-members", g->num_members, g->start_idx, g->width, &pl->members, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	pl->create_members = g->create_members;

	char *mp_default = NULL;
	const char *mp = people_default(g->member_parent, g->suffix, &mp_default, err, cap);
	if (mp == NULL)
		return LDB_EXIT_OTHER;
	int rc = tree_build(&pl->gtree, g->suffix, g->parent != NULL ? g->parent : g->suffix, "--parent", err, cap);
	if (rc == 0)
		rc = tree_build(&pl->mtree, g->suffix, mp, "--member-parent", err, cap);
	free(mp_default);
	return rc == 0 ? 0 : LDB_EXIT_PARAMS;
}

static int groups_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct groups_plan *pl = plan;
	const char *gparent = tree_bottom(&pl->gtree);
	const char *attr = pl->unique ? "uniqueMember" : "member";
	size_t gplen = strlen(gparent);
	struct gen_out o;
	struct user_writer w;
	struct ldb_put_value hv[4];
	struct ldb_entry head;
	/* "cn=" NAME "-" index "," parent */
	char *gdn = malloc(3 + pl->name_len + 1 + 24 + 1 + gplen + 1);

	if (gdn == NULL) {
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	if (emit_begin(&w, tree_bottom(&pl->mtree), pl->gtree.domain, NULL, &o, f, err, cap) != 0) {
		free(gdn);
		return LDB_EXIT_OTHER;
	}
	if (pl->create_members) {
		tree_write(&pl->gtree, &o, false);
		for (size_t i = 0; i < pl->mtree.count; i++) {
			bool seen = false;
			for (size_t j = 0; j < pl->gtree.count && !seen; j++)
				seen = strcasecmp(pl->mtree.nodes[i].dn, pl->gtree.nodes[j].dn) == 0;
			if (!seen)
				node_write(&pl->mtree.nodes[i], &o, false);
		}
		for (uint64_t i = 0; i < pl->members.count && !o.failed; i++)
			uw_entry(&w, &o, "user", pl->members.first + i, pl->members.width, false);
	}

	ldb_entry_init(&head, hv, 4, NULL, 0);
	memcpy(gdn, "cn=", 3);
	memcpy(gdn + 3, pl->name, pl->name_len);
	gdn[3 + pl->name_len] = '-';
	char *cn = gdn + 3;
	for (uint64_t g = 1; g <= pl->number && !o.failed; g++) {
		size_t cnl = pl->name_len + 1 + put_index(cn + pl->name_len + 1, g, 1);
		size_t dl = 3 + cnl;
		gdn[dl++] = ',';
		memcpy(gdn + dl, gparent, gplen);
		dl += gplen;
		out_attr(&o, "dn", gdn, dl);
		ldb_entry_reset(&head);
		if (ldb_entry_group(&head, pl->unique, cn, cnl) < 0)
			out_broken(&o);
		out_entry(&o, &head);
		for (uint64_t i = 0; i < pl->members.count && !o.failed; i++) {
			uw_name(&w, "uid", "user", pl->members.first + i, pl->members.width);
			out_attr(&o, attr, w.dn, w.dnl);
		}
		out_mem(&o, "\n", 1);
	}
	free(gdn);
	return emit_end(&w, &o, err, cap);
}

/* NAME, the one operand of gen groups. */
static int opt_group_name(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	const char **name = dst;

	(void)argc;
	(void)argv;
	if (*name != NULL) {
		gen_err(err, cap, "unexpected argument '%s' (NAME is '%s')", val, *name);
		return -1;
	}
	*name = val;
	return 0;
}

/* --generic on groups and mod-load: ldifgen's padding, the digits of the
 * count (mod-load --num-users 50: user01..user50), users from 1. */
static int generic_width(int *width, int64_t count, int64_t start, char *err, size_t cap)
{
	if (*width != 0 || start != 1) {
		gen_err(err, cap, "--generic pads to the digits of the count from user 1: no --width, no --start-idx");
		return LDB_EXIT_PARAMS;
	}
	*width = digits_u64(count > 0 ? (uint64_t)count : 0);
	return 0;
}

static int groups_emit_ldifgen(const void *plan, FILE *f, char *err, size_t cap);
static int groups_ldifgen_check(struct groups_opts *g, char *err, size_t cap);

static int gen_groups_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct groups_opts g = { .number = 1, .num_members = 10000, .start_idx = 1 };
	const char *file = NULL;
	bool generic = false;
	const struct gen_opt opts[] = {
		{ "suffix", GOPT_STR, &g.suffix },
		{ "parent", GOPT_STR, &g.parent },
		{ "number", GOPT_COUNT, &g.number, LDB_GEN_MAX_INDEX },
		{ "num-members", GOPT_COUNT, &g.num_members, LDB_GEN_MAX_INDEX },
		{ "create-members", GOPT_FLAG, &g.create_members },
		{ "member-parent", GOPT_STR, &g.member_parent },
		{ "member-attr", GOPT_STR, &g.member_attr },
		{ "generic", GOPT_FLAG, &generic },
	};
	const struct gen_opt name = { "NAME", GOPT_CALL, &g.name, .fn = opt_group_name };
	const struct gen_cli cli = { opts, GEN_NOPTS(opts), &file, &g.start_idx, &g.width, &name };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (generic && (rc = generic_width(&g.width, g.num_members, g.start_idx, err, cap)) != 0)
		return rc;
	if (g.name == NULL) {
		gen_err(err, cap, "the group NAME is required (ldbench gen groups NAME ...)");
		return LDB_EXIT_PARAMS;
	}
	if (g.suffix == NULL)
		return missing("--suffix", err, cap);
	if (generic) {
		rc = groups_ldifgen_check(&g, err, cap);
		return rc != 0 ? rc : gen_run(&g, groups_emit_ldifgen, file, err, cap);
	}

	struct groups_plan pl;
	rc = groups_prepare(&g, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, groups_emit, file, err, cap);
	groups_plan_free(&pl);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* gen mod-load */

#define GEN_MAX_MOD_ATTRS 32
#define GEN_MAX_ATTR_LEN 64

struct modload_plan {
	struct gen_tree tree; /* suffix .. parent (or parent alone) */
	bool containers;      /* --suffix given: add the tree */
	bool create_users, delete_users;
	struct idx_plan users; /* the N users */
	uint64_t add, mod, modrdn, del;
	int add_width; /* width of addUser<i> */
	const char *attrs[GEN_MAX_MOD_ATTRS];
	size_t nattrs;
};

struct modload_opts {
	const char *suffix, *parent;
	int64_t num_users, add, mod, modrdn, del, start_idx;
	int width;
	bool have_num_users, create_users, delete_users;
	bool set_mod, set_modrdn, set_del; /* given on the command line */
	bool generic;                      /* --generic: ldifgen's records */
	bool create_parent, randomize;     /* --generic only */
	const char *attrs[GEN_MAX_MOD_ATTRS];
	size_t nattrs;
};

/* An attribute description: a name (letter, then letters, digits, '-') and
 * options (";" name). */
static bool attr_desc_ok(const char *a)
{
	size_t n = strlen(a);

	if (n == 0 || n > GEN_MAX_ATTR_LEN)
		return false;
	bool start = true;
	for (size_t i = 0; i < n; i++) {
		char ch = a[i];
		bool alpha = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
		bool digit = ch >= '0' && ch <= '9';
		if (start) {
			if (!alpha && !(digit && i > 0))
				return false;
			start = false;
		} else if (ch == ';') {
			start = true;
		} else if (!alpha && !digit && ch != '-') {
			return false;
		}
	}
	return !start;
}

static int modload_add_attr(struct modload_opts *m, const char *a, char *err, size_t cap)
{
	if (!attr_desc_ok(a)) {
		gen_err(err, cap, "--mod-attrs: '%s' is not an attribute name", a);
		return -1;
	}
	if (strcasecmp(a, "uid") == 0 || strncasecmp(a, "uid;", 4) == 0) {
		gen_err(err, cap, "--mod-attrs: uid is the users' RDN attribute and cannot be replaced");
		return -1;
	}
	if (strcasecmp(a, "objectClass") == 0 || strncasecmp(a, "objectClass;", 12) == 0) {
		gen_err(err, cap, "--mod-attrs: objectClass cannot be replaced");
		return -1;
	}
	for (size_t i = 0; i < m->nattrs; i++) {
		if (strcasecmp(m->attrs[i], a) == 0) {
			gen_err(err, cap, "--mod-attrs: '%s' is given twice", a);
			return -1;
		}
	}
	if (m->nattrs == GEN_MAX_MOD_ATTRS) {
		gen_err(err, cap, "--mod-attrs: more than %d attributes", GEN_MAX_MOD_ATTRS);
		return -1;
	}
	m->attrs[m->nattrs++] = a;
	return 0;
}

static int modload_prepare(const struct modload_opts *m, struct modload_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (idx_prepare("--num-users", m->num_users, m->start_idx, m->width, &pl->users, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	const struct {
		const char *opt;
		int64_t v;
		bool set;
	} counts[] = {
		{ "--mod-users", m->mod, m->set_mod },
		{ "--modrdn-users", m->modrdn, m->set_modrdn },
		{ "--del-users", m->del, m->set_del },
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (counts[i].v > m->num_users) {
			gen_err(err, cap,
			        "%s %lld%s is more than --num-users %lld (only existing users can be changed)",
			        counts[i].opt, (long long)counts[i].v, counts[i].set ? "" : " (the default)",
			        (long long)m->num_users);
			return LDB_EXIT_PARAMS;
		}
	}
	if (m->add < 0 || m->add > LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "--add-users must be between 0 and %lld", (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	pl->add = (uint64_t)m->add;
	pl->mod = (uint64_t)m->mod;
	pl->modrdn = (uint64_t)m->modrdn;
	pl->del = (uint64_t)m->del;
	int aw = digits_u64(pl->add);
	pl->add_width = aw > pl->users.width || m->generic ? aw : pl->users.width;
	pl->create_users = m->create_users;
	pl->delete_users = m->delete_users;
	if (m->nattrs == 0) {
		pl->attrs[0] = "description";
		pl->nattrs = 1;
	} else {
		memcpy(pl->attrs, m->attrs, m->nattrs * sizeof(m->attrs[0]));
		pl->nattrs = m->nattrs;
	}
	pl->containers = m->suffix != NULL;
	if (tree_build(&pl->tree, m->suffix != NULL ? m->suffix : m->parent, m->parent, "--parent", err, cap) != 0)
		return LDB_EXIT_PARAMS;
	return 0;
}

/* "dn: ...\nchangetype: <ct>\n" */
static void change_head(struct gen_out *o, const char *dn, size_t dnl, const char *ct)
{
	out_attr(o, "dn", dn, dnl);
	out_str(o, "changetype: ");
	out_str(o, ct);
	out_mem(o, "\n", 1);
}

/* The delete record of the user rdn=<prefix><idx>. */
static void delete_record(struct user_writer *w, struct gen_out *o, const char *rdn, const char *prefix, uint64_t idx,
                          int width)
{
	uw_name(w, rdn, prefix, idx, width);
	change_head(o, w->dn, w->dnl, "delete");
	out_mem(o, "\n", 1);
}

static int modload_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct modload_plan *pl = plan;
	const struct gen_tree *t = &pl->tree;
	const uint64_t n = pl->users.count, first = pl->users.first;
	const int width = pl->users.width;
	struct gen_out o;
	struct user_writer w;
	char val[GEN_PREFIX_MAX + GEN_MAX_WIDTH + 24 + 16];

	if (emit_begin(&w, tree_bottom(t), t->domain, NULL, &o, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	if (pl->containers)
		tree_write(t, &o, true);
	if (pl->create_users)
		for (uint64_t i = 0; i < n && !o.failed; i++)
			uw_entry(&w, &o, "user", first + i, width, true);
	for (uint64_t i = 1; i <= pl->add && !o.failed; i++)
		uw_entry(&w, &o, "addUser", i, pl->add_width, true);

	/* modifies: users 1..M, one replace per attribute */
	for (uint64_t i = 0; i < pl->mod && !o.failed; i++) {
		uw_name(&w, "uid", "user", first + i, width);
		memcpy(val, w.name, w.nlen);
		memcpy(val + w.nlen, " modified", 9);
		size_t vl = w.nlen + 9;
		change_head(&o, w.dn, w.dnl, "modify");
		for (size_t a = 0; a < pl->nattrs; a++) {
			out_attr_str(&o, "replace", pl->attrs[a]);
			out_attr(&o, pl->attrs[a], val, vl);
			out_mem(&o, "-\n", 2);
		}
		out_mem(&o, "\n", 1);
	}
	/* modrdns: users 1..R become cn=<uid> */
	for (uint64_t i = 0; i < pl->modrdn && !o.failed; i++) {
		uw_name(&w, "uid", "user", first + i, width);
		change_head(&o, w.dn, w.dnl, "modrdn");
		memcpy(val, "cn=", 3);
		memcpy(val + 3, w.name, w.nlen);
		out_attr(&o, "newrdn", val, 3 + w.nlen);
		out_str(&o, "deleteoldrdn: 1\n\n");
	}
	/* deletes: users N-D+1..N, by their new DN when renamed; then the rest */
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the D deletes; pass 1 (--delete-users): users 1..N-D */
		uint64_t a = pass == 0 ? n - pl->del : 0, b = pass == 0 ? n : n - pl->del;
		if (pass == 1 && !pl->delete_users)
			break;
		for (uint64_t i = a; i < b && !o.failed; i++)
			delete_record(&w, &o, i < pl->modrdn ? "cn" : "uid", "user", first + i, width);
	}
	if (pl->delete_users) {
		for (uint64_t i = 1; i <= pl->add && !o.failed; i++)
			delete_record(&w, &o, "uid", "addUser", i, pl->add_width);
	}
	return emit_end(&w, &o, err, cap);
}

/* --mod-attrs, dsctl style: --mod-attrs sn description ... (up to the next
 * option), and also --mod-attrs sn --mod-attrs description */
static int opt_mod_attrs(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	if (modload_add_attr(dst, val, err, cap) != 0)
		return -1;
	while (optind < argc && argv[optind][0] != '-') {
		if (modload_add_attr(dst, argv[optind], err, cap) != 0)
			return -1;
		optind++;
	}
	return 0;
}

static int modload_emit_ldifgen(const void *plan, FILE *f, char *err, size_t cap);
static int modload_ldifgen_check(struct modload_opts *m, char *err, size_t cap);

static int gen_modload_cmd(int argc, char **argv, char *err, size_t cap)
{
	/* dsctl's defaults: 100 of each operation, description */
	struct modload_opts m = { .add = 100, .mod = 100, .modrdn = 100, .del = 100, .start_idx = 1 };
	const char *file = NULL;
	const struct gen_opt opts[] = {
		{ "suffix", GOPT_STR, &m.suffix },
		{ "parent", GOPT_STR, &m.parent },
		{ "num-users", GOPT_COUNT, &m.num_users, LDB_GEN_MAX_INDEX, &m.have_num_users },
		{ "create-users", GOPT_FLAG, &m.create_users },
		{ "delete-users", GOPT_FLAG, &m.delete_users },
		{ "add-users", GOPT_COUNT, &m.add, LDB_GEN_MAX_INDEX },
		{ "mod-users", GOPT_COUNT, &m.mod, LDB_GEN_MAX_INDEX, &m.set_mod },
		{ "modrdn-users", GOPT_COUNT, &m.modrdn, LDB_GEN_MAX_INDEX, &m.set_modrdn },
		{ "del-users", GOPT_COUNT, &m.del, LDB_GEN_MAX_INDEX, &m.set_del },
		{ "mod-attrs", GOPT_CALL, &m, .fn = opt_mod_attrs },
		{ "generic", GOPT_FLAG, &m.generic },
		{ "create-parent", GOPT_FLAG, &m.create_parent },
		{ "randomize", GOPT_FLAG, &m.randomize },
	};
	const struct gen_cli cli = { opts, GEN_NOPTS(opts), &file, &m.start_idx, &m.width, NULL };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (m.generic && (rc = generic_width(&m.width, m.num_users, m.start_idx, err, cap)) != 0)
		return rc;
	if (!m.have_num_users)
		return missing("--num-users", err, cap);
	if (m.parent == NULL)
		return missing("--parent", err, cap);
	if (m.generic) {
		rc = modload_ldifgen_check(&m, err, cap);
		return rc != 0 ? rc : gen_run(&m, modload_emit_ldifgen, file, err, cap);
	}
	if (m.create_parent || m.randomize) {
		gen_err(err, cap, "%s needs --generic (ldifgen's records; here --suffix writes the containers)",
		        m.create_parent ? "--create-parent" : "--randomize");
		return LDB_EXIT_PARAMS;
	}

	struct modload_plan pl;
	rc = modload_prepare(&m, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, modload_emit, file, err, cap);
	tree_free(&pl.tree);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* groups and mod-load --generic: the records of `dsctl ldifgen groups` and
 * `dsctl ldifgen mod-load`, in their order, with their quirks (a group's cn
 * is its whole DN; a modrdn's newrdn is the whole new DN; mod-load counts
 * down).  Their users are ldifgen's "generic user": cn "NAME EMAN", sn the
 * name reversed, givenName the name. */

/* One generic user prefix<idx> (padded to the digits of count) below parent. */
static void lg_generic_user(struct gen_out *o, struct ldb_rng *r, const char *prefix, uint64_t idx, uint64_t count,
                            const char *parent, bool change_add)
{
	char name[GEN_MAX_NAME + LDB_U64_DEC_MAX + GEN_MAX_WIDTH + 16], rev[sizeof name], cn[2 * sizeof name + 2];

	lg_name(name, sizeof name, prefix, idx, count);
	size_t n = strlen(name);
	for (size_t i = 0; i < n; i++)
		rev[i] = name[n - 1 - i];
	rev[n] = '\0';
	snprintf(cn, sizeof cn, "%s %s", name, rev);
	const struct lg_names nm = { name, cn, name, rev };
	lg_user(o, r, "uid", &nm, idx, parent, change_add);
}

/* The group head and its member values; k is the group's number. */
static void lg_group(struct gen_out *o, const struct groups_opts *g, const char *parent, const char *mparent,
                     uint64_t k)
{
	char dn[2 * GEN_MAX_NAME + 1024], name[GEN_MAX_NAME + 48];
	uint64_t m = (uint64_t)g->num_members;

	snprintf(dn, sizeof dn, "cn=%s-%llu,%s", g->name, (unsigned long long)k, parent);
	out_attr_str(o, "dn", dn);
	out_str(o, "objectclass: top\nobjectclass: groupOfUniqueNames\nobjectclass: groupOfNames\n"
	           "objectclass: inetAdmin\n");
	out_attr_str(o, "cn", dn);
	for (uint64_t i = 1; i <= m && !o->failed; i++) {
		char pre[GEN_MAX_NAME + 32];
		if (g->create_members)
			snprintf(pre, sizeof pre, "group_entry%llu-", (unsigned long long)k);
		else
			snprintf(pre, sizeof pre, "user");
		lg_name(name, sizeof name, pre, i, m);
		snprintf(dn, sizeof dn, "uid=%s,%s", name, mparent);
		out_attr_str(o, g->member_attr, dn);
	}
	out_str(o, "\n");
}

static int groups_emit_ldifgen(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct groups_opts *g = plan;
	const char *parent = g->parent != NULL ? g->parent : g->suffix;
	const char *mparent = g->member_parent != NULL ? g->member_parent : g->suffix;
	struct gen_out o;
	struct ldb_rng r;

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	lg_node(&o, g->suffix, false);
	/* as ldifgen: containers compared as strings, each written once */
	if (strcmp(parent, g->suffix) != 0)
		lg_node(&o, parent, false);
	if (strcmp(mparent, g->suffix) != 0 && strcmp(mparent, parent) != 0)
		lg_node(&o, mparent, false);
	for (uint64_t k = 1; k <= (uint64_t)g->number && !o.failed; k++) {
		char pre[GEN_MAX_NAME + 32];
		snprintf(pre, sizeof pre, "group_entry%llu-", (unsigned long long)k);
		for (uint64_t i = 1; g->create_members && i <= (uint64_t)g->num_members && !o.failed; i++)
			lg_generic_user(&o, &r, pre, i, (uint64_t)g->num_members, mparent, false);
		lg_group(&o, g, parent, mparent, k);
	}
	return emit_finish(&o, false, err, cap);
}

/* ldifgen's checks of its groups options (it checks no DN nesting). */
static int groups_ldifgen_check(struct groups_opts *g, char *err, size_t cap)
{
	if (g->member_attr == NULL)
		g->member_attr = "uniquemember";
	if (!attr_desc_ok(g->member_attr)) {
		gen_err(err, cap, "--member-attr: '%s' is not an attribute name", g->member_attr);
		return LDB_EXIT_PARAMS;
	}
	if (check_group_name(g->name, err, cap) != 0 || !lg_dn_ok(g->suffix, "--suffix", err, cap) ||
	    (g->parent != NULL && !lg_dn_ok(g->parent, "--parent", err, cap)) ||
	    (g->member_parent != NULL && !lg_dn_ok(g->member_parent, "--member-parent", err, cap)))
		return LDB_EXIT_PARAMS;
	return 0;
}

/* mod-load --generic's random modify value: 10 to 30 characters. */
static void lg_mod_value(struct ldb_rng *r, char *v)
{
	static const char chars[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_#@%&()?~$^*-=+{}|.,";
	int64_t n = ldb_rng_range(r, 10, 30);

	for (int64_t i = 0; i < n; i++)
		v[i] = chars[ldb_rng_range(r, 0, (int64_t)sizeof chars - 2)];
	v[n] = '\0';
}

enum lg_op { LG_ADD, LG_MOD, LG_MODRDN, LG_DEL };

/* One mod-load record of kind op for user (or addUser) k. */
static void lg_ml_record(struct gen_out *o, struct ldb_rng *r, const struct modload_opts *m, enum lg_op op, uint64_t k)
{
	char name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH], buf[1024], val[32];
	uint64_t n = (uint64_t)m->num_users;

	if (op == LG_ADD) {
		lg_generic_user(o, r, "addUser", k, (uint64_t)m->add, m->parent, true);
		return;
	}
	lg_name(name, sizeof name, "user", k, n);
	snprintf(buf, sizeof buf, "uid=%s,%s", name, m->parent);
	out_attr_str(o, "dn", buf);
	if (op == LG_MOD) {
		const char *attr = m->attrs[ldb_rng_range(r, 0, (int64_t)m->nattrs - 1)];
		lg_mod_value(r, val);
		out_str(o, "changetype: modify\n");
		out_attr_str(o, "replace", attr);
		out_attr_str(o, attr, val);
	} else if (op == LG_MODRDN) {
		snprintf(buf, sizeof buf, "cn=%s,%s", name, m->parent);
		out_str(o, "changetype: modrdn\n");
		out_attr_str(o, "newrdn", buf);
		out_str(o, "deleteoldrdn: 1\n");
	} else {
		out_str(o, "changetype: delete\n");
	}
	out_str(o, "\n");
}

/* A delete record of rdn=<prefix><idx padded to count>,parent. */
static void lg_ml_delete(struct gen_out *o, const char *rdn, const char *prefix, uint64_t idx, uint64_t count,
                         const char *parent)
{
	char name[GEN_PREFIX_MAX + LDB_U64_DEC_MAX + GEN_MAX_WIDTH], buf[1024];

	lg_name(name, sizeof name, prefix, idx, count);
	snprintf(buf, sizeof buf, "%s=%s,%s", rdn, name, parent);
	out_attr_str(o, "dn", buf);
	out_str(o, "changetype: delete\n\n");
}

/* The adds, modifies, modrdns and deletes, each kind counting down from its
 * count; in sequence, or (--randomize) each next record of a kind picked at
 * random among the kinds with records left.  seq (NULL: not kept) gets the
 * kinds of the adds and modrdns in their order, for lg_ml_cleanup. */
static void lg_ml_ops(struct gen_out *o, struct ldb_rng *r, const struct modload_opts *m, unsigned char *seq)
{
	uint64_t left[4] = { (uint64_t)m->add, (uint64_t)m->mod, (uint64_t)m->modrdn, (uint64_t)m->del };

	if (!m->randomize) {
		for (int op = LG_ADD; op <= LG_DEL; op++)
			for (; left[op] > 0 && !o->failed; left[op]--)
				lg_ml_record(o, r, m, (enum lg_op)op, left[op]);
		return;
	}
	for (;;) {
		int kinds[4], nk = 0;
		for (int op = LG_ADD; op <= LG_DEL; op++)
			if (left[op] > 0)
				kinds[nk++] = op;
		if (nk == 0 || o->failed)
			return;
		int op = kinds[ldb_rng_range(r, 0, nk - 1)];
		if (seq != NULL && (op == LG_ADD || op == LG_MODRDN))
			*seq++ = (unsigned char)op;
		lg_ml_record(o, r, m, (enum lg_op)op, left[op]--);
	}
}

/* --delete-users at the end: what ldifgen's list of entries still holds,
 * in its order: the users neither renamed nor deleted, then the added users
 * (uid=addUser<k>) and the renamed ones (cn=user<k>) as they came: all adds
 * then all modrdns, or in the order seq kept (--randomize). */
static void lg_ml_cleanup(struct gen_out *o, const struct modload_opts *m, const unsigned char *seq)
{
	uint64_t n = (uint64_t)m->num_users, gone = (uint64_t)(m->modrdn > m->del ? m->modrdn : m->del);
	uint64_t add = (uint64_t)m->add, mrdn = (uint64_t)m->modrdn;

	for (uint64_t k = gone + 1; k <= n && !o->failed; k++)
		lg_ml_delete(o, "uid", "user", k, n, m->parent);
	while ((add > 0 || mrdn > 0) && !o->failed) {
		bool is_add = seq != NULL ? *seq++ == LG_ADD : add > 0;
		if (is_add)
			lg_ml_delete(o, "uid", "addUser", add--, (uint64_t)m->add, m->parent);
		else
			lg_ml_delete(o, "cn", "user", mrdn--, n, m->parent);
	}
}

static int modload_emit_ldifgen(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct modload_opts *m = plan;
	struct gen_out o;
	struct ldb_rng r;

	if (lg_start(&o, &r, f, err, cap) != 0)
		return LDB_EXIT_OTHER;
	if (m->create_parent) /* as ldifgen: a plain entry, no changetype */
		lg_node(&o, m->parent, false);
	for (uint64_t k = 1; m->create_users && k <= (uint64_t)m->num_users && !o.failed; k++)
		lg_generic_user(&o, &r, "user", k, (uint64_t)m->num_users, m->parent, true);
	unsigned char *seq = NULL;
	if (m->randomize && m->delete_users && (seq = malloc((size_t)(m->add + m->modrdn) + 1)) == NULL) {
		out_finish(&o);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	lg_ml_ops(&o, &r, m, seq);
	if (m->delete_users && !o.failed)
		lg_ml_cleanup(&o, m, seq);
	free(seq);
	return emit_finish(&o, false, err, cap);
}

/* ldifgen's mod-load options: no --suffix (--create-parent writes the
 * parent), counts may pass --num-users (those records name users that do not
 * exist, as ldifgen's do). */
static int modload_ldifgen_check(struct modload_opts *m, char *err, size_t cap)
{
	if (m->suffix != NULL) {
		gen_err(err, cap, "--suffix does not apply to --generic (ldifgen writes the parent: --create-parent)");
		return LDB_EXIT_PARAMS;
	}
	if (!lg_dn_ok(m->parent, "--parent", err, cap))
		return LDB_EXIT_PARAMS;
	if (m->nattrs == 0) {
		m->attrs[0] = "description";
		m->nattrs = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* gen tree */

#define GEN_MAX_DEPTH 32

struct tree_plan {
	struct gen_tree top; /* the top entry alone */
	int depth;
	uint64_t fanout, entries;
	uint64_t n_containers, n_entries;
	int width; /* of the entry numbers */
};

/* Emission state: one DN buffer per level. */
struct tree_state {
	const struct tree_plan *pl;
	struct gen_out *o;
	char *dn[GEN_MAX_DEPTH + 1];
	size_t dnl[GEN_MAX_DEPTH + 1];
	size_t dcap;   /* capacity of each dn[] */
	char *scratch; /* leaf DN */
	char *text;    /* the leaf entry's text (mail, telephoneNumber, description) */
	size_t text_cap;
	uint64_t next; /* next leaf number */
	uint64_t containers_done;
};

static void tree_leaves(struct tree_state *ts, int level)
{
	const struct tree_plan *pl = ts->pl;
	struct gen_out *o = ts->o;
	const char *domain = pl->top.domain;
	size_t domlen = strlen(domain);
	char name[8 + 24 + GEN_MAX_WIDTH];
	struct ldb_put_value v[16];
	struct ldb_entry e;

	ldb_entry_init(&e, v, 16, ts->text, ts->text_cap);
	for (uint64_t k = 0; k < pl->entries && !o->failed; k++) {
		uint64_t num = ts->next++;
		memcpy(name, "entry", 5);
		size_t nl = 5 + put_index(name + 5, num, pl->width);
		char *d = ts->scratch;
		memcpy(d, "cn=", 3);
		memcpy(d + 3, name, nl);
		size_t dl = 3 + nl;
		d[dl++] = ',';
		memcpy(d + dl, ts->dn[level], ts->dnl[level]);
		dl += ts->dnl[level];
		ldb_entry_reset(&e);
		if (ldb_entry_tree_leaf(&e, name, nl, domain, domlen, num, level) < 0) {
			out_broken(o);
			return;
		}
		out_attr(o, "dn", d, dl);
		out_entry(o, &e);
		out_mem(o, "\n", 1);
	}
}

/* The container at `level` (its DN already in ts->dn[level]), its leaves and
 * its sub-containers, parents before children. */
static void tree_container(struct tree_state *ts, int level, uint64_t k)
{
	const struct tree_plan *pl = ts->pl;
	struct gen_out *o = ts->o;
	char unit[32], desc[64];

	if (level == 0) {
		node_write(&pl->top.nodes[0], o, false);
	} else {
		out_attr(o, "dn", ts->dn[level], ts->dnl[level]);
		int ul = snprintf(unit, sizeof(unit), "unit%llu", (unsigned long long)k);
		int dl = snprintf(desc, sizeof(desc), "tree container at level %d", level);
		container_write(o, "ou", unit, (size_t)ul, desc, (size_t)dl);
	}
	ts->containers_done++;
	tree_leaves(ts, level);
	if (level == pl->depth)
		return;
	for (uint64_t c = 1; c <= pl->fanout && !o->failed; c++) {
		char *d = ts->dn[level + 1];
		int ll = snprintf(d, ts->dcap, "ou=unit%llu,", (unsigned long long)c);
		memcpy(d + ll, ts->dn[level], ts->dnl[level]);
		ts->dnl[level + 1] = (size_t)ll + ts->dnl[level];
		tree_container(ts, level + 1, c);
	}
}

struct tree_opts {
	const char *suffix;
	int64_t depth, fanout, entries;
	bool have_depth, have_fanout, have_entries;
};

static int tree_prepare(const struct tree_opts *to, struct tree_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (to->depth > GEN_MAX_DEPTH) {
		gen_err(err, cap, "--depth must be at most %d", GEN_MAX_DEPTH);
		return LDB_EXIT_PARAMS;
	}
	if (to->fanout < 1) {
		gen_err(err, cap, "--fanout must be at least 1");
		return LDB_EXIT_PARAMS;
	}
	/* containers = 1 + F + ... + F^D, entries = E * containers, all <= max */
	uint64_t level = 1, sum = 1, max = (uint64_t)LDB_GEN_MAX_INDEX;
	for (int d = 1; d <= to->depth; d++) {
		if (level > max / (uint64_t)to->fanout || sum > max - level * (uint64_t)to->fanout) {
			gen_err(err, cap, "--depth %lld with --fanout %lld makes more than %lld containers",
			        (long long)to->depth, (long long)to->fanout, (long long)LDB_GEN_MAX_INDEX);
			return LDB_EXIT_PARAMS;
		}
		level *= (uint64_t)to->fanout;
		sum += level;
	}
	if (to->entries > 0 && (sum > max / (uint64_t)to->entries || sum * (uint64_t)to->entries > max - sum)) {
		gen_err(err, cap, "--entries %lld in %llu containers makes more than %lld entries",
		        (long long)to->entries, (unsigned long long)sum, (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	pl->depth = (int)to->depth;
	pl->fanout = (uint64_t)to->fanout;
	pl->entries = (uint64_t)to->entries;
	pl->n_containers = sum;
	pl->n_entries = sum * pl->entries;
	int need = digits_u64(pl->n_entries);
	pl->width = need > LDB_GEN_DEFAULT_WIDTH ? need : LDB_GEN_DEFAULT_WIDTH;
	const char *s = to->suffix != NULL ? to->suffix : "dc=example,dc=com";
	if (tree_build(&pl->top, s, s, "--suffix", err, cap) != 0)
		return LDB_EXIT_PARAMS;
	return 0;
}

static int tree_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct tree_plan *pl = plan;
	struct tree_state ts = { .pl = pl, .next = 1 };
	struct gen_out o;
	const char *top = pl->top.nodes[0].dn;
	size_t tl = strlen(top);
	/* every level adds at most "ou=unit" + 20 digits + "," */
	size_t dcap = tl + (size_t)pl->depth * 28 + 1;
	bool oom = out_init(&o, f) != 0;

	ts.o = &o;
	ts.dcap = dcap;
	for (int d = 0; d <= pl->depth && !oom; d++)
		oom = (ts.dn[d] = malloc(dcap)) == NULL;
	ts.text_cap = 8 + 24 + GEN_MAX_WIDTH + 1 + strlen(pl->top.domain) + LDB_ENTRY_TREE_LEAF_TEXT;
	if (!oom)
		oom = (ts.scratch = malloc(dcap + 8 + 24 + GEN_MAX_WIDTH + tl)) == NULL;
	if (!oom)
		oom = (ts.text = malloc(ts.text_cap)) == NULL;
	if (oom) {
		for (int d = 0; d <= pl->depth; d++)
			free(ts.dn[d]);
		free(ts.scratch);
		if (o.buf != NULL)
			out_finish(&o);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	memcpy(ts.dn[0], top, tl);
	ts.dnl[0] = tl;
	tree_container(&ts, 0, 0);
	for (int d = 0; d <= pl->depth; d++)
		free(ts.dn[d]);
	free(ts.scratch);
	free(ts.text);
	return emit_finish(&o, false, err, cap);
}

static int gen_tree_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct tree_opts to = { 0 };
	const char *file = NULL;
	const struct gen_opt opts[] = {
		{ "suffix", GOPT_STR, &to.suffix },
		{ "depth", GOPT_COUNT, &to.depth, GEN_MAX_DEPTH, &to.have_depth },
		{ "fanout", GOPT_COUNT, &to.fanout, LDB_GEN_MAX_INDEX, &to.have_fanout },
		{ "entries", GOPT_COUNT, &to.entries, LDB_GEN_MAX_INDEX, &to.have_entries },
	};
	const struct gen_cli cli = { opts, GEN_NOPTS(opts), &file, NULL, NULL, NULL };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (!to.have_depth)
		return missing("--depth", err, cap);
	if (!to.have_fanout)
		return missing("--fanout", err, cap);
	if (!to.have_entries)
		return missing("--entries", err, cap);

	struct tree_plan pl;
	rc = tree_prepare(&to, &pl, err, cap);
	if (rc == 0) {
		rc = gen_run(&pl, tree_emit, file, err, cap);
		if (rc == 0) {
			fflush(stdout);
			fprintf(stderr,
			        "ldbench gen tree: %llu containers (levels 0-%d, the top entry included), "
			        "%llu entries, %llu in all\n",
			        (unsigned long long)pl.n_containers, pl.depth, (unsigned long long)pl.n_entries,
			        (unsigned long long)(pl.n_containers + pl.n_entries));
		}
	}
	tree_free(&pl.top);
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
	{ "users", gen_users_cmd,
	  "ldbench gen users --suffix DN [--parent DN] --number N [--start-idx I] [--width W]\n"
	  "                  [--hash clear|ssha|ssha256|ssha512] [--ldif-file F]\n"
	  "    suffix entry, containers down to --parent (default ou=People,SUFFIX), then N inetOrgPerson\n"
	  "    entries uid=user<I..I+N-1>,PARENT (index zero-padded to W, default 5), password = uid\n"
	  "    (clear text, or salted SHA-1/256/512; slapd needs the pw-sha2 module for the last two).\n"
	  "ldbench gen users --generic|--shape ldifgen --suffix DN [--parent DN] --number N\n"
	  "                  [--start-idx I] [--rdn-cn] [--ldif-file F]\n"
	  "    what `dsctl INST ldifgen users --generic` writes: the suffix with its three ACIs, seven OUs\n"
	  "    (accounting ... people, groups), PARENT, users uid=user<1+I..N+I> (I default 0) padded to\n"
	  "    the digits of N (200 users: user001..user200), ldifgen's attributes, password = uid.\n"
	  "    --shape simple (the default without --generic) is the shape above.\n"
	  "    --shape ldifgen-random: ldifgen users without --generic (uid JSmith<i>, cn \"John Smith\").\n"
	  "    groups and mod-load take --generic too: the records of dsctl ldifgen groups / mod-load.\n" },
	{ "groups", gen_groups_cmd,
	  "ldbench gen groups NAME --suffix DN [--parent DN] [--number N] [--num-members M]\n"
	  "                  [--create-members] [--member-parent DN] [--member-attr member|uniqueMember]\n"
	  "                  [--start-idx I] [--width W] [--ldif-file F]\n"
	  "    N (default 1) groups cn=NAME-<1..N>,PARENT (default SUFFIX), groupOfUniqueNames (default) or\n"
	  "    groupOfNames, each with M (default 10000) members uid=user<I..>,MEMBER-PARENT (default\n"
	  "    ou=People,SUFFIX); --create-members also writes the suffix, the containers and the M users.\n"
	  "    --generic: dsctl ldifgen groups' records (members below SUFFIX, cn: the group DN, ACIs).\n" },
	{ "mod-load", gen_modload_cmd,
	  "ldbench gen mod-load --num-users N --parent DN [--suffix DN] [--create-users] [--add-users A]\n"
	  "                  [--mod-users M] [--modrdn-users R] [--del-users D] [--delete-users]\n"
	  "                  [--mod-attrs ATTR...] [--start-idx I] [--width W] [--ldif-file F]\n"
	  "    ldapmodify records: (--suffix) adds of the containers, (--create-users) N user adds, A adds\n"
	  "    of addUser<i>, M modifies (replace each --mod-attrs, default description), R modrdns to\n"
	  "    cn=<uid>, D deletes of the last users, (--delete-users) deletes of all that remain.\n"
	  "    A, M, R and D default to 100; M, R and D cannot exceed N.\n"
	  "    --generic [--create-parent] [--randomize]: dsctl ldifgen mod-load's records, counting down.\n" },
	{ "tree", gen_tree_cmd,
	  "ldbench gen tree --depth D --fanout F --entries E [--suffix DN] [--ldif-file F]\n"
	  "    the top entry (default dc=example,dc=com) and F sub-containers ou=unit<k> per container down\n"
	  "    to level D, E inetOrgPerson entries cn=entry<n> in every container; counts on stderr.\n" },
};

void ldb_gen_usage(FILE *out)
{
	fputs("Usage:\n", out);
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++)
		fputs(gen_cmds[i].usage, out);
	fputs("Writes LDIF to stdout, or to the --ldif-file.\n"
	      "Options may come anywhere on the line (GNU style); -- ends them.\n",
	      out);
}

int ldb_gen_main(int argc, char **argv)
{
	char err[512] = "";

	if (argc < 2) {
		fprintf(stderr, "ldbench gen: missing subcommand (one of: users, groups, mod-load, tree); "
		                "see 'ldbench gen --help'\n");
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
	fprintf(stderr, "ldbench gen: unknown subcommand '%s' (one of: users, groups, mod-load, tree)\n", argv[1]);
	return LDB_EXIT_PARAMS;
}
