/* Request templates: see request.h. */
#include "ops/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values/pattern.h"
#include "proto/deref.h"
#include "proto/wire.h"

/* Strings for one encoding pass: every variable field rendered with its digit
 * run filled by one character. */
struct fill {
	char filter[8192], base[4096], dn[4096], pw[4096];
	char authid[4096]; /* SASL -o authid (its XXX is the LDB_FIELD_BINDDN number) */
};

static int fill_pattern(const struct ldb_pattern *p, bool var, int nd, char ch, char *buf, size_t cap)
{
	size_t w = var ? (size_t)nd : 0;
	if (p->vp != NULL) /* its brackets as markers (ops/vreq.h) */
		return ldb_vp_skeleton(p->vp, buf, cap, (uint8_t)(0x10 + p->slot)) == 0 ? -1 : 0;
	if (p->text == NULL) { /* not given (no -f for a bind load, say) */
		buf[0] = '\0';
		return 0;
	}
	if (!var) {
		if (strlen(p->text) + 1 > cap)
			return -1;
		strcpy(buf, p->text);
		return 0;
	}
	if (p->head_len + w + p->tail_len + 1 > cap)
		return -1;
	memcpy(buf, p->text, p->head_len);
	memset(buf + p->head_len, ch, w);
	memcpy(buf + p->head_len + w, p->tail, p->tail_len);
	buf[p->head_len + w + p->tail_len] = '\0';
	return 0;
}

typedef int (*encode_fn)(struct ldb_bytes *out, const struct ldb_config *c, int variant, const struct fill *f,
                         char *err);

static int enc_search(struct ldb_bytes *out, const struct ldb_config *c, int variant, const struct fill *f, char *err)
{
	const char *one[2] = { NULL, NULL };
	struct ldb_search_args a = {
		.base = f->base,
		.scope = c->scope,
		.attrsonly = c->attrsonly,
		.sizelimit = c->search_sizelimit,
		.filter = f->filter,
		.attrs = NULL,
	};
	if (c->nattrs > 0) {
		if (c->random_attrlist) {
			one[0] = c->attrs[variant];
			a.attrs = one;
		} else {
			a.attrs = (const char *const *)c->attrs;
		}
	}
	if (ldb_wire_encode_search(out, &a, err) != 0)
		return -1;
	/* -e deref: the Controls follow the protocolOp inside the envelope, so
	 * they travel as the template's tail */
	if (c->deref_attr != NULL && c->weight[LDB_OP_SEARCH] > 0)
		return ldb_deref_encode_controls(out, c->deref_attr, c->deref_target, err);
	return 0;
}

/* A SASL bind (-o mech=): EXTERNAL's credentials are the authzid, present
 * but empty without one (an absent initial response makes slapd answer
 * saslBindInProgress with an empty challenge, one more round trip; libldap
 * with Cyrus SASL sends the empty one too); PLAIN's (RFC 4616) are authzid NUL
 * authid NUL password.  The bind DN is empty and realm is not sent (neither
 * mechanism has one). */
static int enc_bind_sasl(struct ldb_bytes *out, const struct ldb_config *c, const struct fill *f, char *err)
{
	const char *z = c->sasl_authzid;
	struct ldb_bytes cred = { 0 };
	int rc;

	if (strcmp(c->sasl_mech, "EXTERNAL") == 0)
		return ldb_wire_encode_bind_sasl(out, "", "EXTERNAL", (const uint8_t *)(z != NULL ? z : ""),
		                                 z != NULL ? strlen(z) : 0, 1, err);
	if ((z != NULL && ldb_bytes_append(&cred, z, strlen(z)) != 0) || ldb_bytes_append(&cred, "", 1) != 0 ||
	    ldb_bytes_append(&cred, f->authid, strlen(f->authid) + 1) != 0 ||
	    ldb_bytes_append(&cred, f->pw, strlen(f->pw)) != 0) {
		if (err != NULL)
			snprintf(err, LDB_WIRE_ERRLEN, "out of memory");
		rc = -1;
	} else {
		rc = ldb_wire_encode_bind_sasl(out, "", c->sasl_mech, cred.data, cred.len, 1, err);
	}
	if (cred.data != NULL)
		explicit_bzero(cred.data, cred.len); /* it holds the password */
	ldb_bytes_free(&cred);
	return rc;
}

static int enc_bind(struct ldb_bytes *out, const struct ldb_config *c, int variant, const struct fill *f, char *err)
{
	int v = c->ldap_v2 ? 2 : 3; /* -e v2 */

	if (c->sasl_mech != NULL)
		return enc_bind_sasl(out, c, f, err);
	if (c->binddn_file_n > 0) {
		const char *pw = c->binddn_file_pws[variant];
		return ldb_wire_encode_bind_simple_v(out, v, c->binddn_file_dns[variant], pw, strlen(pw), err);
	}
	if (c->bind_dn == NULL)
		return ldb_wire_encode_bind_simple_v(out, v, "", "", 0, err);
	return ldb_wire_encode_bind_simple_v(out, v, f->dn, f->pw, strlen(f->pw), err);
}

static int make_fill(struct fill *f, const struct ldb_config *c, const struct ldb_reqset *s,
                     const int nd[LDB_FIELD_COUNT], int which, char ch)
{
	int rc = 0;
	rc |= fill_pattern(&c->filter_pat, s->var[LDB_FIELD_FILTER], nd[LDB_FIELD_FILTER],
	                   which == LDB_FIELD_FILTER ? ch : '0', f->filter, sizeof f->filter);
	rc |= fill_pattern(&c->base_pat, s->var[LDB_FIELD_BASE], nd[LDB_FIELD_BASE], which == LDB_FIELD_BASE ? ch : '0',
	                   f->base, sizeof f->base);
	rc |= fill_pattern(&c->bind_dn_pat, s->var[LDB_FIELD_BINDDN], nd[LDB_FIELD_BINDDN],
	                   which == LDB_FIELD_BINDDN ? ch : '0', f->dn, sizeof f->dn);
	rc |= fill_pattern(&c->password_pat, s->var[LDB_FIELD_BINDDN] && ldb_pattern_has_var(&c->password_pat),
	                   nd[LDB_FIELD_BINDDN], which == LDB_FIELD_BINDDN ? ch : '0', f->pw, sizeof f->pw);
	rc |= fill_pattern(&c->sasl_authid_pat, s->var[LDB_FIELD_BINDDN] && ldb_pattern_has_var(&c->sasl_authid_pat),
	                   nd[LDB_FIELD_BINDDN], which == LDB_FIELD_BINDDN ? ch : '0', f->authid, sizeof f->authid);
	return rc;
}

/* Encode one template: the bytes with every field at '0', then each variable
 * field at '1' to find where its digits sit. */
static int build_one(struct ldb_tmpl *t, const struct ldb_config *c, const struct ldb_reqset *s, encode_fn enc,
                     int variant, const int nd[LDB_FIELD_COUNT], char *err, size_t cap)
{
	struct fill *f = malloc(sizeof *f);
	struct ldb_bytes base = { 0 }, alt = { 0 };
	char werr[LDB_WIRE_ERRLEN] = "";
	int rc = -1;

	if (f == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	if (make_fill(f, c, s, nd, -1, '0') != 0) {
		snprintf(err, cap, "request too long");
		goto out;
	}
	if (enc(&base, c, variant, f, werr) != 0) {
		snprintf(err, cap, "%s", werr);
		goto out;
	}
	t->npatch = 0;
	for (int fld = 0; fld < LDB_FIELD_COUNT; fld++) {
		if (!s->var[fld])
			continue;
		alt.len = 0;
		if (make_fill(f, c, s, nd, fld, '1') != 0 || enc(&alt, c, variant, f, werr) != 0 ||
		    alt.len != base.len) {
			snprintf(err, cap, "cannot build the request template");
			goto out;
		}
		for (size_t i = 0; i < base.len;) {
			if (base.data[i] == alt.data[i]) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < base.len && base.data[j] != alt.data[j])
				j++;
			if ((int)(j - i) != nd[fld] || t->npatch == LDB_MAX_PATCH) {
				snprintf(err, cap, "cannot build the request template");
				goto out;
			}
			t->patch[t->npatch++] = (struct ldb_patch){ .off = (uint32_t)i,
				                                    .width = (uint16_t)(j - i),
				                                    .field = (uint8_t)fld };
			i = j;
		}
	}
	t->body = base.data;
	t->len = (uint32_t)base.len;
	base.data = NULL;
	rc = 0;
out:
	ldb_bytes_free(&base);
	ldb_bytes_free(&alt);
	free(f);
	return rc;
}

static size_t combo_count(const struct ldb_reqset *s)
{
	size_t n = 1;
	for (int f = 0; f < LDB_FIELD_COUNT; f++)
		if (s->var[f])
			n *= (size_t)(s->nd_hi[f] - s->nd_lo[f] + 1);
	return n;
}

static int build_all(struct ldb_reqset *s, const struct ldb_config *c, encode_fn enc, char *err, size_t cap)
{
	size_t combos = combo_count(s);
	s->n = combos * (size_t)s->nvariants;
	s->t = calloc(s->n, sizeof *s->t);
	if (s->t == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	for (int v = 0; v < s->nvariants; v++) {
		for (size_t k = 0; k < combos; k++) {
			int nd[LDB_FIELD_COUNT] = { 0 };
			size_t rest = k;
			for (int f = LDB_FIELD_COUNT - 1; f >= 0; f--) {
				if (!s->var[f])
					continue;
				size_t span = (size_t)(s->nd_hi[f] - s->nd_lo[f] + 1);
				nd[f] = s->nd_lo[f] + (int)(rest % span);
				rest /= span;
			}
			struct ldb_tmpl *t = &s->t[(size_t)v * combos + k];
			if (build_one(t, c, s, enc, v, nd, err, cap) != 0)
				return -1;
			if (t->len + LDB_WIRE_ENVELOPE_MAX > s->maxlen)
				s->maxlen = t->len + LDB_WIRE_ENVELOPE_MAX;
		}
	}
	return 0;
}

/* A request with a value pattern: its programs, one per variant. */
static int build_vp(struct ldb_reqset *s, const struct ldb_config *c, encode_fn enc, char *err, size_t cap)
{
	const int nd[LDB_FIELD_COUNT] = { 0 };
	struct ldb_bytes b = { 0 };
	char werr[LDB_WIRE_ERRLEN] = "";
	struct fill *f;
	int rc = -1;

	for (int fld = 0; fld < LDB_FIELD_COUNT; fld++)
		if (s->var[fld]) {
			snprintf(err, cap,
			         "ldclt's XXX numbers (-e random, incr, randombase, randombinddn, randomauthid) and a "
			         "value pattern cannot share one request: write each varying value as a pattern");
			return -1;
		}
	s->vr = calloc((size_t)s->nvariants, sizeof *s->vr);
	f = malloc(sizeof *f);
	if (s->vr == NULL || f == NULL) {
		free(f);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	for (int v = 0; v < s->nvariants; v++) {
		b.len = 0;
		if (make_fill(f, c, s, nd, -1, '0') != 0) {
			snprintf(err, cap, "request too long");
			goto out;
		}
		if (enc(&b, c, v, f, werr) != 0) {
			snprintf(err, cap, "%s (a value pattern's bracket must stand inside one value)", werr);
			goto out;
		}
		if (ldb_vreq_build(&s->vr[v], b.data, b.len, c, err, cap) != 0)
			goto out;
		if (s->vr[v].maxlen > s->maxlen)
			s->maxlen = s->vr[v].maxlen;
	}
	rc = 0;
out:
	ldb_bytes_free(&b);
	free(f);
	return rc;
}

static void set_field(struct ldb_reqset *s, int f, const struct ldb_pattern *p, long long lo, long long hi)
{
	s->var[f] = true;
	if (s->zeropad) {
		s->nd_lo[f] = s->nd_hi[f] = (int)p->width;
	} else {
		s->nd_lo[f] = ldb_digits(lo);
		s->nd_hi[f] = ldb_digits(hi);
	}
}

int ldb_reqset_build_search(struct ldb_reqset *s, const struct ldb_config *c, char *err, size_t cap)
{
	memset(s, 0, sizeof *s);
	s->zeropad = c->zeropad || c->rnd_string; /* -e string fills the whole run */
	s->nvariants = (c->random_attrlist && c->nattrs > 0) ? c->nattrs : 1;
	if (c->valmode != LDB_VAL_FIXED && ldb_pattern_has_var(&c->filter_pat))
		set_field(s, LDB_FIELD_FILTER, &c->filter_pat, c->range_low, c->range_high);
	if (c->randombase && ldb_pattern_has_var(&c->base_pat))
		set_field(s, LDB_FIELD_BASE, &c->base_pat, c->base_low, c->base_high);
	const struct ldb_pattern *vals[] = { c->filter != NULL ? &c->filter_pat : NULL, &c->base_pat };
	if (ldb_vreq_any(vals, 2))
		return build_vp(s, c, enc_search, err, cap);
	return build_all(s, c, enc_search, err, cap);
}

int ldb_reqset_build_bind(struct ldb_reqset *s, const struct ldb_config *c, char *err, size_t cap)
{
	memset(s, 0, sizeof *s);
	s->zeropad = c->zeropad;
	s->nvariants = c->binddn_file_n > 0 ? (int)c->binddn_file_n : 1;
	if (c->binddn_file_n == 0 && c->randombinddn && c->bind_dn != NULL && ldb_pattern_has_var(&c->bind_dn_pat)) {
		set_field(s, LDB_FIELD_BINDDN, &c->bind_dn_pat, c->binddn_low, c->binddn_high);
		/* The password's run takes the same number; with zero padding its
		 * width must equal the DN's for one template to serve both. */
		if (s->zeropad && ldb_pattern_has_var(&c->password_pat) &&
		    c->password_pat.width != c->bind_dn_pat.width) {
			snprintf(err, cap, "the XXX runs of -D and -w must have the same width with randombinddn");
			return -1;
		}
	}
	if (c->sasl_mech != NULL && c->randomauthid && ldb_pattern_has_var(&c->sasl_authid_pat)) {
		set_field(s, LDB_FIELD_BINDDN, &c->sasl_authid_pat, c->authid_low, c->authid_high);
		if (s->zeropad && ldb_pattern_has_var(&c->password_pat) &&
		    c->password_pat.width != c->sasl_authid_pat.width) {
			snprintf(err, cap,
			         "the XXX runs of -o authid and -w must have the same width with randomauthid");
			return -1;
		}
	}
	const struct ldb_pattern *vals[] = { c->bind_dn != NULL ? &c->bind_dn_pat : NULL,
		                             c->bind_dn != NULL || c->sasl_mech != NULL ? &c->password_pat : NULL,
		                             c->sasl_mech != NULL ? &c->sasl_authid_pat : NULL };
	if (c->binddn_file_n == 0 && ldb_vreq_any(vals, 3))
		return build_vp(s, c, enc_bind, err, cap);
	return build_all(s, c, enc_bind, err, cap);
}

int ldb_reqset_build_fixed(struct ldb_reqset *s, const uint8_t *op, size_t len)
{
	memset(s, 0, sizeof *s);
	s->nvariants = 1;
	s->n = 1;
	s->t = calloc(1, sizeof *s->t);
	if (s->t == NULL)
		return -1;
	s->t->body = malloc(len ? len : 1);
	if (s->t->body == NULL)
		return -1;
	memcpy(s->t->body, op, len);
	s->t->len = (uint32_t)len;
	s->maxlen = len + LDB_WIRE_ENVELOPE_MAX;
	return 0;
}

void ldb_reqset_free(struct ldb_reqset *s)
{
	for (size_t i = 0; s->t != NULL && i < s->n; i++)
		free(s->t[i].body);
	free(s->t);
	for (int v = 0; s->vr != NULL && v < s->nvariants; v++)
		ldb_vreq_free(&s->vr[v]);
	free(s->vr);
	memset(s, 0, sizeof *s);
}

size_t ldb_req_render(const struct ldb_reqset *s, int variant, const int64_t vals[LDB_FIELD_COUNT], int32_t msgid,
                      uint8_t *dst, size_t cap)
{
	size_t k = 0, mult = 1;
	if (!s->zeropad) {
		for (int f = LDB_FIELD_COUNT - 1; f >= 0; f--) {
			if (!s->var[f])
				continue;
			k += (size_t)(ldb_digits(vals[f]) - s->nd_lo[f]) * mult;
			mult *= (size_t)(s->nd_hi[f] - s->nd_lo[f] + 1);
		}
	} else {
		mult = 1;
	}
	size_t combos = s->zeropad ? 1 : mult;
	const struct ldb_tmpl *t = &s->t[(size_t)variant * combos + k];
	size_t n = ldb_wire_frame(dst, cap, msgid, t->body, t->len);
	if (n == 0)
		return 0;
	uint8_t *body = dst + (n - t->len);
	for (int i = 0; i < t->npatch; i++)
		ldb_put_number((char *)body + t->patch[i].off, vals[t->patch[i].field], t->patch[i].width);
	return n;
}

void ldb_req_fill_bytes(const struct ldb_reqset *s, int variant, int field, uint8_t *dst, size_t n, bool ascii,
                        struct ldb_rng *rng)
{
	const struct ldb_tmpl *t = &s->t[variant];
	uint8_t *body = dst + (n - t->len);

	for (int i = 0; i < t->npatch; i++)
		if (t->patch[i].field == field)
			ldb_put_random_bytes(body + t->patch[i].off, t->patch[i].width, ascii, rng);
}
