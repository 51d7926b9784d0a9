/* Write requests for one operation number: see ops_write.h. */
#include "ops/ops_write.h"

#include "ldif/genldif.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ldb_wctx_init(struct ldb_wctx *wc, const struct ldb_config *c)
{
	memset(wc, 0, sizeof *wc);
	if (c->objtmpl != NULL) {
		ldb_objtmpl_cursor_init(c->objtmpl, &wc->cur);
		wc->scratch_cap = ldb_objtmpl_max_size(c->objtmpl);
		wc->scratch = malloc(wc->scratch_cap ? wc->scratch_cap : 1);
		if (wc->scratch == NULL)
			return -1;
	}
	return 0;
}

void ldb_wctx_free(struct ldb_wctx *wc)
{
	free(wc->scratch);
	wc->scratch = NULL;
}

enum ldb_modform ldb_modform_of(const struct ldb_config *c)
{
	if (c->nmods > 0)
		return LDB_MODF_SPEC;
	if (c->op_attreplace)
		return LDB_MODF_ATTREPLACE;
	return LDB_MODF_ATTREPLACEFILE;
}

/* The pattern rendered with v into dst (no NUL).  0 when it does not fit. */
static size_t put_pattern(const struct ldb_pattern *p, int64_t v, char *dst, size_t cap)
{
	if (p->text == NULL)
		return 0;
	if (!ldb_pattern_has_var(p)) {
		size_t n = strlen(p->text);
		if (n > cap)
			return 0;
		memcpy(dst, p->text, n);
		return n;
	}
	return ldb_pattern_render(p, v, dst, cap);
}

/* RDN from -f (one pair of outer parentheses dropped), then ",", then the base. */
static int build_dn(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_wctx *wc, const char *rdn,
                    size_t rdnlen)
{
	size_t n = 0;
	if (rdn != NULL) {
		if (rdnlen + 1 > sizeof wc->dn)
			return -1;
		memcpy(wc->dn, rdn, rdnlen);
		n = rdnlen;
	} else {
		n = put_pattern(&c->filter_pat, v, wc->dn, sizeof wc->dn - 1);
		if (n == 0)
			return -1;
		if (n >= 2 && wc->dn[0] == '(' && wc->dn[n - 1] == ')') {
			memmove(wc->dn, wc->dn + 1, n - 2);
			n -= 2;
		}
	}
	if (c->base != NULL && c->base[0] != '\0') {
		wc->dn[n++] = ',';
		size_t b = put_pattern(&c->base_pat, c->randombase ? bv : 0, wc->dn + n, sizeof wc->dn - n - 1);
		if (b == 0)
			return -1;
		n += b;
	}
	wc->dn[n] = '\0';
	wc->dnlen = n;
	return 0;
}

/* attr=value of an RDN at the start of s (up to the first unescaped ',' or
 * '+' or the end). */
static void split_rdn(const char *s, size_t len, const char **attr, size_t *alen, const char **val, size_t *vlen)
{
	size_t i = 0;
	while (i < len && s[i] != '=')
		i++;
	*attr = s;
	*alen = i;
	size_t j = i < len ? i + 1 : i, k = j;
	while (k < len && s[k] != ',' && s[k] != '+') {
		if (s[k] == '\\' && k + 1 < len)
			k++;
		k++;
	}
	*val = s + j;
	*vlen = k - j;
}

static bool same_attr(const char *a, size_t alen, const char *b)
{
	return strlen(b) == alen && strncasecmp(a, b, alen) == 0;
}

static long render_add(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_wctx *wc, struct ldb_rng *rng,
                       int32_t msgid, uint8_t *dst, size_t cap)
{
	int n = 0;
	if (c->objtmpl != NULL) {
		struct ldb_obj_entry e;
		int rc = ldb_objtmpl_render(c->objtmpl, &wc->cur, rng, wc->scratch, wc->scratch_cap, &e);
		if (rc == 0)
			return -1;
		if (rc < 0)
			return 0;
		if (build_dn(c, v, bv, wc, e.rdn_len > 0 ? e.rdn : NULL, e.rdn_len) != 0)
			return 0;
		bool has_rdn = false;
		const char *a, *val;
		size_t alen, vlen;
		split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
		for (int i = 0; i < e.n; i++) {
			wc->pv[n++] = (struct ldb_put_value){ e.v[i].type, e.v[i].val, e.v[i].len };
			if (same_attr(a, alen, e.v[i].type) && e.v[i].len == vlen && memcmp(e.v[i].val, val, vlen) == 0)
				has_rdn = true;
		}
		/* the RDN's value must be in the entry (OpenLDAP refuses it otherwise) */
		if (!has_rdn && alen + 1 <= 64 && n < (int)(sizeof wc->pv / sizeof wc->pv[0])) {
			memcpy(wc->aux, a, alen);
			wc->aux[alen] = '\0';
			wc->pv[n++] = (struct ldb_put_value){ wc->aux, val, vlen };
		}
	} else {
		if (build_dn(c, v, bv, wc, NULL, 0) != 0)
			return 0;
		const char *a, *val;
		size_t alen, vlen;
		split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
		/* a NUL-terminated copy of the RDN's type */
		if (alen + 1 > 64)
			return 0;
		memcpy(wc->aux, a, alen);
		wc->aux[alen] = '\0';
		n = ldb_class_entry(c->add_class, wc->aux, alen, val, vlen, wc->pv, (int)(sizeof wc->pv / sizeof wc->pv[0]));
		if (n < 0)
			return 0;
	}
	return (long)ldb_wire_put_add(dst, cap, msgid, wc->dn, wc->dnlen, wc->pv, n);
}

static long render_modify(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_wctx *wc,
                          struct ldb_rng *rng, int32_t msgid, uint8_t *dst, size_t cap)
{
	if (build_dn(c, v, bv, wc, NULL, 0) != 0)
		return 0;
	int n = 0;
	size_t used = 0;
	switch (ldb_modform_of(c)) {
	case LDB_MODF_SPEC:
		for (int i = 0; i < c->nmods; i++) {
			const struct ldb_modspec *m = &c->mods[i];
			if (m->val.text == NULL || m->val.text[0] == '\0') {
				wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, NULL, 0 };
				continue;
			}
			size_t len = put_pattern(&m->val, v, wc->vals + used, sizeof wc->vals - used);
			if (len == 0)
				return 0;
			wc->pm[n++] = (struct ldb_put_mod){ m->op, m->attr, wc->vals + used, len };
			used += len;
		}
		break;
	case LDB_MODF_ATTREPLACE: {
		/* ldclt: the mask's X run becomes a random string (letters here) */
		const struct ldb_pattern *p = &c->attreplace_mask;
		size_t len = p->head_len + p->width + p->tail_len;
		if (len > sizeof wc->vals)
			return 0;
		memcpy(wc->vals, p->text, p->head_len);
		for (size_t i = 0; i < p->width; i++)
			wc->vals[p->head_len + i] = (char)('a' + ldb_rng_range(rng, 0, 25));
		memcpy(wc->vals + p->head_len + p->width, p->tail, p->tail_len);
		wc->pm[n++] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplace_attr, wc->vals, len };
		break;
	}
	case LDB_MODF_ATTREPLACEFILE:
		wc->pm[n++] = (struct ldb_put_mod){ LDB_MOD_REPLACE, c->attreplacefile_attr, c->attreplacefile_data,
		                                    c->attreplacefile_len };
		break;
	}
	return (long)ldb_wire_put_modify(dst, cap, msgid, wc->dn, wc->dnlen, wc->pm, n);
}

static long render_rename(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_wctx *wc, int32_t msgid,
                          uint8_t *dst, size_t cap)
{
	if (build_dn(c, v, bv, wc, NULL, 0) != 0)
		return 0;
	size_t rdnlen = 0;
	const char *newsup = NULL;
	size_t newsuplen = 0;
	if (c->withnewparent) {
		/* the same RDN under --new-parent */
		const char *a, *val;
		size_t alen, vlen;
		split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
		rdnlen = (size_t)(val + vlen - wc->dn);
		memcpy(wc->aux, wc->dn, rdnlen);
		newsup = c->new_parent;
		newsuplen = strlen(c->new_parent);
	} else {
		/* the number moved one range up: uid=user1042 -> uid=user2042 for -r1000 -R1999 */
		int64_t span = c->range_high - c->range_low + 1;
		rdnlen = put_pattern(&c->filter_pat, v + span, wc->aux, sizeof wc->aux);
		if (rdnlen == 0)
			return 0;
		if (rdnlen >= 2 && wc->aux[0] == '(' && wc->aux[rdnlen - 1] == ')') {
			memmove(wc->aux, wc->aux + 1, rdnlen - 2);
			rdnlen -= 2;
		}
	}
	return (long)ldb_wire_put_modrdn(dst, cap, msgid, wc->dn, wc->dnlen, wc->aux, rdnlen, 1, newsup, newsuplen);
}

static long render_compare(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_wctx *wc, int32_t msgid,
                           uint8_t *dst, size_t cap)
{
	if (build_dn(c, v, bv, wc, NULL, 0) != 0)
		return 0;
	size_t len = put_pattern(&c->compare_val, v, wc->vals, sizeof wc->vals);
	if (len == 0 && c->compare_val.text != NULL && c->compare_val.text[0] != '\0')
		return 0;
	return (long)ldb_wire_put_compare(dst, cap, msgid, wc->dn, wc->dnlen, c->compare_attr, wc->vals, len);
}

long ldb_write_render(const struct ldb_config *c, enum ldb_op k, int64_t v, int64_t bv, struct ldb_wctx *wc,
                      struct ldb_rng *rng, int32_t msgid, uint8_t *dst, size_t cap)
{
	switch (k) {
	case LDB_OP_ADD: return render_add(c, v, bv, wc, rng, msgid, dst, cap);
	case LDB_OP_MODIFY: return render_modify(c, v, bv, wc, rng, msgid, dst, cap);
	case LDB_OP_DELETE:
		if (build_dn(c, v, bv, wc, NULL, 0) != 0)
			return 0;
		return (long)ldb_wire_put_delete(dst, cap, msgid, wc->dn, wc->dnlen);
	case LDB_OP_RENAME: return render_rename(c, v, bv, wc, msgid, dst, cap);
	case LDB_OP_COMPARE: return render_compare(c, v, bv, wc, msgid, dst, cap);
	default: return 0;
	}
}

size_t ldb_write_render_parent(const char *dn, size_t dnlen, int level, int32_t msgid, uint8_t *dst, size_t cap)
{
	/* skip `level` RDNs */
	size_t i = 0;
	for (int l = 0; l < level; l++) {
		while (i < dnlen && dn[i] != ',') {
			if (dn[i] == '\\' && i + 1 < dnlen)
				i++;
			i++;
		}
		if (i >= dnlen)
			return 0;
		i++; /* the comma */
	}
	const char *anc = dn + i;
	size_t anclen = dnlen - i;
	const char *a, *val;
	size_t alen, vlen;
	split_rdn(anc, anclen, &a, &alen, &val, &vlen);
	if (alen == 0 || vlen == 0)
		return 0;
	struct ldb_put_value pv[4];
	int n = 0;
	static const char top[] = "top";
	pv[n++] = (struct ldb_put_value){ "objectClass", top, 3 };
	if (same_attr(a, alen, "ou")) {
		pv[n++] = (struct ldb_put_value){ "objectClass", "organizationalUnit", 18 };
		pv[n++] = (struct ldb_put_value){ "ou", val, vlen };
	} else if (same_attr(a, alen, "o")) {
		pv[n++] = (struct ldb_put_value){ "objectClass", "organization", 12 };
		pv[n++] = (struct ldb_put_value){ "o", val, vlen };
	} else if (same_attr(a, alen, "cn")) {
		pv[n++] = (struct ldb_put_value){ "objectClass", "organizationalRole", 18 };
		pv[n++] = (struct ldb_put_value){ "cn", val, vlen };
	} else if (same_attr(a, alen, "dc")) {
		pv[n++] = (struct ldb_put_value){ "objectClass", "dcObject", 8 };
		pv[n++] = (struct ldb_put_value){ "objectClass", "organization", 12 };
		pv[n++] = (struct ldb_put_value){ "dc", val, vlen };
	} else if (same_attr(a, alen, "l")) {
		pv[n++] = (struct ldb_put_value){ "objectClass", "locality", 8 };
		pv[n++] = (struct ldb_put_value){ "l", val, vlen };
	} else {
		return 0; /* an RDN type we do not know how to create */
	}
	if (same_attr(a, alen, "dc")) {
		/* organization needs o: the dc value */
		struct ldb_put_value pv2[5] = { pv[0], pv[1], pv[2], pv[3], { "o", val, vlen } };
		return ldb_wire_put_add(dst, cap, msgid, anc, anclen, pv2, 5);
	}
	return ldb_wire_put_add(dst, cap, msgid, anc, anclen, pv, n);
}
