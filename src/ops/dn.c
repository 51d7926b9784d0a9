/* The write kinds' scratch and DNs: see dn.h. */
#include "ops/dn.h"
#include "ops/vreq.h"

#include <stdlib.h>
#include <string.h>

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
	ldb_objtmpl_cursor_close(&wc->cur);
	for (int i = 0; i < LDB_WCTX_VPS; i++) {
		ldb_vp_state_free(wc->vps[i]);
		wc->vps[i] = NULL;
	}
}

size_t ldb_dn_put_pattern(const struct ldb_pattern *p, int64_t v, char *dst, size_t cap)
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

size_t ldb_dn_put_value(const struct ldb_pattern *p, int64_t v, struct ldb_wctx *wc, struct ldb_rng *rng, char *dst,
                        size_t cap)
{
	const char *val;
	if (p->vp == NULL)
		return ldb_dn_put_pattern(p, v, dst, cap);
	if (wc->vpc == NULL || rng == NULL)
		return 0;
	size_t n = ldb_vpc_render(wc->vpc, p, rng, &val);
	if (n > cap)
		return 0;
	memcpy(dst, val, n);
	return n;
}

/* -e string: -f's head, its X run as random bytes escaped (RFC 4514), its
 * tail; wc->rawval gets the RDN's value unescaped. */
static size_t put_string_rdn(const struct ldb_config *c, struct ldb_rng *rng, struct ldb_wctx *wc, char *dst,
                             size_t cap)
{
	const struct ldb_pattern *p = &c->filter_pat;
	const char *eq = memchr(p->text, '=', p->head_len);
	size_t vhead = eq != NULL ? p->head_len - (size_t)(eq + 1 - p->text) : 0;

	if (p->head_len + 3 * p->width + p->tail_len > cap || vhead + p->width + p->tail_len > sizeof wc->rawval)
		return 0;
	memcpy(dst, p->text, p->head_len);
	memcpy(wc->rawval, p->text + p->head_len - vhead, vhead);
	uint8_t *raw = (uint8_t *)wc->rawval + vhead;
	ldb_put_random_bytes(raw, p->width, c->rnd_ascii, rng);
	size_t n = p->head_len + ldb_escape_dn_value(dst + p->head_len, raw, p->width);
	memcpy(dst + n, p->tail, p->tail_len);
	memcpy(wc->rawval + vhead + p->width, p->tail, p->tail_len);
	wc->rawlen = vhead + p->width + p->tail_len;
	return n + p->tail_len;
}

int ldb_dn_build(const struct ldb_config *c, int64_t v, int64_t bv, struct ldb_rng *rng, struct ldb_wctx *wc,
                 const char *rdn, size_t rdnlen)
{
	size_t n = 0;
	if (rdn != NULL) {
		if (rdnlen + 1 > sizeof wc->dn)
			return -1;
		memcpy(wc->dn, rdn, rdnlen);
		n = rdnlen;
	} else {
		bool str = c->rnd_string && ldb_pattern_has_var(&c->filter_pat);
		n = str ? put_string_rdn(c, rng, wc, wc->dn, sizeof wc->dn - 1)
		        : ldb_dn_put_value(&c->filter_pat, v, wc, rng, wc->dn, sizeof wc->dn - 1);
		if (n == 0)
			return -1;
		if (n >= 2 && wc->dn[0] == '(' && wc->dn[n - 1] == ')') {
			memmove(wc->dn, wc->dn + 1, n - 2);
			n -= 2;
			if (str && wc->rawlen > 0)
				wc->rawlen--; /* its ')' */
		}
	}
	if (c->base != NULL && c->base[0] != '\0') {
		wc->dn[n++] = ',';
		size_t b = ldb_dn_put_value(&c->base_pat, c->randombase ? bv : 0, wc, rng, wc->dn + n,
		                            sizeof wc->dn - n - 1);
		if (b == 0)
			return -1;
		n += b;
	}
	wc->dn[n] = '\0';
	wc->dnlen = n;
	return 0;
}

void ldb_dn_split_rdn(const char *s, size_t len, const char **attr, size_t *alen, const char **val, size_t *vlen)
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
