/* Entry shapes: see entry.h. */
#include "ldif/entry.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

static const char *const person_oc[] = { "top", "person" };
static const char *const inetorg_oc[] = { "top", "person", "organizationalPerson", "inetOrgPerson" };

static bool type_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

void ldb_entry_init(struct ldb_entry *e, struct ldb_put_value *v, int max, char *text, size_t cap)
{
	e->v = v;
	e->n = 0;
	e->max = max;
	e->text = text;
	e->used = 0;
	e->cap = text != NULL ? cap : 0;
}

int ldb_entry_put(struct ldb_entry *e, const char *type, const char *val, size_t len)
{
	if (e->n >= e->max)
		return -1;
	e->v[e->n++] = (struct ldb_put_value){ type, val, len };
	return 0;
}

char *ldb_entry_text(struct ldb_entry *e, size_t n)
{
	if (n > e->cap - e->used)
		return NULL;
	char *p = e->text + e->used;

	e->used += n;
	return p;
}

static int put_classes(struct ldb_entry *e, const char *const *oc, size_t noc)
{
	for (size_t k = 0; k < noc; k++)
		if (ldb_entry_put(e, "objectClass", oc[k], strlen(oc[k])) < 0)
			return -1;
	return 0;
}

/* attr as a NUL-terminated type: itself when it is one, else a copy. */
static const char *type_of(struct ldb_entry *e, const char *attr, size_t alen)
{
	if (attr[alen] == '\0')
		return attr;
	char *t = ldb_entry_text(e, alen + 1);

	if (t == NULL)
		return NULL;
	memcpy(t, attr, alen);
	t[alen] = '\0';
	return t;
}

/* "a" "b" concatenated in the text.  @return 0 with *out, or -1. */
static int text_cat(struct ldb_entry *e, const char *a, size_t alen, const char *b, size_t blen, const char **out)
{
	char *t = ldb_entry_text(e, alen + blen);

	if (t == NULL)
		return -1;
	memcpy(t, a, alen);
	memcpy(t + alen, b, blen);
	*out = t;
	return 0;
}

/* emailPerson's mail: the value when it is an address, else value@example.com */
static int put_class_mail(struct ldb_entry *e, const char *val, size_t vlen)
{
	static const char dom[] = LDB_ENTRY_MAIL_DOMAIN;
	const char *m;

	if (memchr(val, '@', vlen) != NULL)
		return ldb_entry_put(e, "mail", val, vlen);
	if (text_cat(e, val, vlen, dom, sizeof dom - 1, &m) < 0)
		return -1;
	return ldb_entry_put(e, "mail", m, vlen + sizeof dom - 1);
}

int ldb_entry_class(struct ldb_entry *e, int cls, const char *attr, size_t alen, const char *val, size_t vlen)
{
	if (attr == NULL || val == NULL || alen == 0)
		return -1;
	switch (cls) {
	case LDB_ENTRY_PERSON:
		if (put_classes(e, person_oc, sizeof person_oc / sizeof person_oc[0]) < 0)
			return -1;
		break;
	case LDB_ENTRY_EMAILPERSON:
	case LDB_ENTRY_INETORGPERSON:
		if (put_classes(e, inetorg_oc, sizeof inetorg_oc / sizeof inetorg_oc[0]) < 0)
			return -1;
		break;
	default: return -1;
	}
	/* ldclt writes "cn: toto cn" and "sn: toto sn"; the RDN value makes the
	 * entries meaningful (and searchable) instead */
	if (ldb_entry_put(e, "cn", val, vlen) < 0 || ldb_entry_put(e, "sn", val, vlen) < 0)
		return -1;
	if (!type_is(attr, alen, "cn") && !type_is(attr, alen, "sn")) {
		const char *t = type_of(e, attr, alen);

		if (t == NULL || ldb_entry_put(e, t, val, vlen) < 0)
			return -1;
	}
	if (cls == LDB_ENTRY_EMAILPERSON && !type_is(attr, alen, "mail"))
		return put_class_mail(e, val, vlen);
	return 0;
}

int ldb_entry_add(struct ldb_entry *e, int cls, const struct ldb_obj_entry *tmpl, const char *attr, size_t alen,
                  const char *val, size_t vlen)
{
	if (tmpl == NULL)
		return ldb_entry_class(e, cls, attr, alen, val, vlen);
	bool has_rdn = false;

	for (int i = 0; i < tmpl->n; i++) {
		const struct ldb_obj_value *t = &tmpl->v[i];

		if (ldb_entry_put(e, t->type, t->val, t->len) < 0)
			return -1;
		if (type_is(attr, alen, t->type) && t->len == vlen && memcmp(t->val, val, vlen) == 0)
			has_rdn = true;
	}
	if (has_rdn)
		return 0;
	const char *type = alen > 0 ? type_of(e, attr, alen) : NULL;

	if (type == NULL)
		return -1;
	return ldb_entry_put(e, type, val, vlen);
}

/* The container shapes: the RDN type, its structural classes, extra
 * attributes that take the RDN value (organization needs o: for dc=). */
static const struct {
	const char *type;
	const char *oc[2];
	const char *also;
} containers[] = {
	{ "ou", { "organizationalUnit", NULL }, NULL },
	{ "o", { "organization", NULL }, NULL },
	{ "cn", { "organizationalRole", NULL }, NULL },
	{ "dc", { "dcObject", "organization" }, "o" },
	{ "l", { "locality", NULL }, NULL },
};

int ldb_entry_container(struct ldb_entry *e, const char *attr, size_t alen, const char *val, size_t vlen)
{
	if (vlen == 0)
		return -1;
	for (size_t i = 0; i < sizeof containers / sizeof containers[0]; i++) {
		if (!type_is(attr, alen, containers[i].type))
			continue;
		if (ldb_entry_put(e, "objectClass", "top", 3) < 0)
			return -1;
		for (size_t k = 0; k < 2 && containers[i].oc[k] != NULL; k++)
			if (ldb_entry_put(e, "objectClass", containers[i].oc[k], strlen(containers[i].oc[k])) < 0)
				return -1;
		if (ldb_entry_put(e, containers[i].type, val, vlen) < 0)
			return -1;
		if (containers[i].also != NULL)
			return ldb_entry_put(e, containers[i].also, val, vlen);
		return 0;
	}
	return -1;
}

/* "name@domain" in the text as mail. */
static int put_mail(struct ldb_entry *e, const char *name, size_t nlen, const char *domain, size_t dlen)
{
	char *t = ldb_entry_text(e, nlen + 1 + dlen);

	if (t == NULL)
		return -1;
	memcpy(t, name, nlen);
	t[nlen] = '@';
	memcpy(t + nlen + 1, domain, dlen);
	return ldb_entry_put(e, "mail", t, nlen + 1 + dlen);
}

int ldb_entry_user(struct ldb_entry *e, const char *name, size_t nlen, const char *domain, size_t dlen, const char *pw,
                   size_t pwlen)
{
	if (put_classes(e, inetorg_oc, sizeof inetorg_oc / sizeof inetorg_oc[0]) < 0 ||
	    ldb_entry_put(e, "uid", name, nlen) < 0 || ldb_entry_put(e, "cn", name, nlen) < 0 ||
	    ldb_entry_put(e, "sn", name, nlen) < 0 || ldb_entry_put(e, "givenName", name, nlen) < 0 ||
	    put_mail(e, name, nlen, domain, dlen) < 0)
		return -1;
	return ldb_entry_put(e, "userPassword", pw, pwlen);
}

/* Text pieces appended to one text value. */
struct text_val {
	char *p;
	size_t len, cap;
};

static void tv_str(struct text_val *t, const char *s)
{
	size_t n = strlen(s);

	if (n > t->cap - t->len)
		n = t->cap - t->len;
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

static void tv_u64(struct text_val *t, uint64_t v, int width)
{
	char d[LDB_U64_DEC_MAX];
	size_t n = ldb_u64_dec(d, v);

	for (; (size_t)width > n && t->len < t->cap; width--)
		t->p[t->len++] = '0';
	if (n > t->cap - t->len)
		n = t->cap - t->len;
	memcpy(t->p + t->len, d, n);
	t->len += n;
}

/* Start a text value of at most cap bytes.  @return 0 or -1 (text full). */
static int tv_begin(struct ldb_entry *e, struct text_val *t, size_t cap)
{
	t->p = ldb_entry_text(e, cap);
	t->len = 0;
	t->cap = cap;
	return t->p != NULL ? 0 : -1;
}

int ldb_entry_tree_leaf(struct ldb_entry *e, const char *name, size_t nlen, const char *domain, size_t dlen,
                        uint64_t num, int level)
{
	struct text_val tel, desc;

	if (put_classes(e, inetorg_oc, sizeof inetorg_oc / sizeof inetorg_oc[0]) < 0 ||
	    ldb_entry_put(e, "cn", name, nlen) < 0 || ldb_entry_put(e, "sn", name, nlen) < 0 ||
	    ldb_entry_put(e, "uid", name, nlen) < 0 || put_mail(e, name, nlen, domain, dlen) < 0)
		return -1;
	/* "+1 555 " 7 digits; "tree entry " 20 digits " at level " 10 digits */
	if (tv_begin(e, &tel, 7 + 7) < 0 || tv_begin(e, &desc, 11 + 20 + 10 + 11) < 0)
		return -1;
	tv_str(&tel, "+1 555 ");
	tv_u64(&tel, num % 10000000u, 7);
	tv_str(&desc, "tree entry ");
	tv_u64(&desc, num, 0);
	tv_str(&desc, " at level ");
	if (level < 0)
		tv_str(&desc, "-");
	tv_u64(&desc, level < 0 ? (uint64_t) - (int64_t)level : (uint64_t)level, 0);
	if (ldb_entry_put(e, "telephoneNumber", tel.p, tel.len) < 0)
		return -1;
	return ldb_entry_put(e, "description", desc.p, desc.len);
}

int ldb_entry_group(struct ldb_entry *e, int unique, const char *cn, size_t cnlen)
{
	const char *oc = unique ? "groupOfUniqueNames" : "groupOfNames";

	if (ldb_entry_put(e, "objectClass", "top", 3) < 0 || ldb_entry_put(e, "objectClass", oc, strlen(oc)) < 0)
		return -1;
	return ldb_entry_put(e, "cn", cn, cnlen);
}
