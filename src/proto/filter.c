/* RFC 4515 search filter strings to BER (RFC 4511 Filter), through liblber.
 *
 * A recursive-descent parser over the string that writes each Filter CHOICE into
 * a BerElement as it goes.  It accepts the language libldap's ldap_search_ext()
 * accepts (so a filter that worked with ldclt works here) and emits the same
 * bytes; the two exceptions are listed in wire.h.  Start-up code: it allocates.
 */
#include "proto/wire.h"

#include <lber.h>
#include <ldap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than this is refused rather than risking the stack. */
#define FILTER_MAX_DEPTH 256
/* How much of the filter an error message quotes. */
#define FILTER_QUOTE_MAX 80

struct fparse {
	BerElement *ber;
	const char *text; /* the whole filter, quoted in messages */
	char *err;
	uint8_t *scratch; /* unescaped values; as long as the filter */
};

__attribute__((format(printf, 2, 3))) static int fail(struct fparse *fp, const char *fmt, ...)
{
	char why[160];
	size_t tl;
	va_list ap;

	if (fp->err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tl = strlen(fp->text);
	snprintf(fp->err, LDB_WIRE_ERRLEN, "bad filter '%.*s%s': %s",
	         (int)(tl > FILTER_QUOTE_MAX ? FILTER_QUOTE_MAX : tl), fp->text, tl > FILTER_QUOTE_MAX ? "..." : "",
	         why);
	return -1;
}

/* Length to quote of a piece of the filter in a message. */
static int qlen(size_t n)
{
	return n > 40 ? 40 : (int)n;
}

static int nomem(struct fparse *fp)
{
	return fail(fp, "out of memory while encoding");
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_keychar(int c)
{
	return is_alpha(c) || is_digit(c) || c == '-';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A descriptor (ALPHA *keychar) or a dotted number (no empty arc). */
static int is_oid(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	if (is_alpha((unsigned char)s[0])) {
		for (i = 1; i < n; i++)
			if (!is_keychar((unsigned char)s[i]))
				return 0;
		return 1;
	}
	if (!is_digit((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++) {
		if (s[i] == '.') {
			if (s[i - 1] == '.')
				return 0;
		} else if (!is_digit((unsigned char)s[i])) {
			return 0;
		}
	}
	return s[n - 1] != '.';
}

/* An attribute description: oid *(";" 1*keychar). */
static int is_desc(const char *s, size_t n)
{
	const char *semi = memchr(s, ';', n);
	size_t i, optlen = 0;

	if (semi == NULL)
		return is_oid(s, n);
	if (!is_oid(s, (size_t)(semi - s)))
		return 0;
	for (i = (size_t)(semi - s) + 1; i < n; i++) {
		if (s[i] == ';') {
			if (optlen == 0)
				return 0;
			optlen = 0;
		} else if (is_keychar((unsigned char)s[i])) {
			optlen++;
		} else {
			return 0;
		}
	}
	return optlen > 0;
}

/* Length of the escape at s[0] == '\\' within n bytes (3 for \XX, 2 for the
 * LDAPv2 forms), 0 if it is not a valid escape; *byte gets its value. */
static size_t escape_len(const char *s, size_t n, uint8_t *byte)
{
	int hi, lo;

	if (n < 2)
		return 0;
	hi = hexval((unsigned char)s[1]);
	if (hi >= 0) {
		if (n < 3 || (lo = hexval((unsigned char)s[2])) < 0)
			return 0;
		*byte = (uint8_t)(hi * 16 + lo);
		return 3;
	}
	switch (s[1]) {
	case '(':
	case ')':
	case '*':
	case '\\': *byte = (uint8_t)s[1]; return 2;
	default: return 0;
	}
}

/* Decode an assertion value into fp->scratch; '*' is not allowed here. */
static int unescape(struct fparse *fp, const char *s, size_t n, size_t *outlen)
{
	size_t i = 0, o = 0, el;
	uint8_t b = 0;

	while (i < n) {
		switch (s[i]) {
		case '(':
		case ')':
		case '*': return fail(fp, "unescaped '%.*s' in a value (write it as \\28, \\29 or \\2a)", 1, s + i);
		case '\\':
			el = escape_len(s + i, n - i, &b);
			if (el == 0)
				return fail(fp, "bad escape '%.*s' (expected \\ and two hex digits)",
				            qlen(n - i < 3 ? n - i : 3), s + i);
			fp->scratch[o++] = b;
			i += el;
			break;
		default: fp->scratch[o++] = (uint8_t)s[i++];
		}
	}
	*outlen = o;
	return 0;
}

static int put_tagged_value(struct fparse *fp, ber_tag_t tag, const char *s, size_t n)
{
	size_t len = 0;

	if (unescape(fp, s, n, &len) != 0)
		return -1;
	if (ber_printf(fp->ber, "to", tag, (const char *)fp->scratch, (ber_len_t)len) == -1)
		return nomem(fp);
	return 0;
}

static int ci_is_dn(const char *s, size_t n)
{
	return n == 2 && (s[0] == 'd' || s[0] == 'D') && (s[1] == 'n' || s[1] == 'N');
}

/* attr [":dn"] [":" rule] ":=" value, or [":dn"] ":" rule ":=" value;
 * a is the part before ":=". */
static int put_extensible(struct fparse *fp, const char *a, size_t alen, const char *v, size_t vlen)
{
	const char *type = a, *rule = NULL, *c1, *c2;
	size_t typelen = alen, rulelen = 0;
	int dnattrs = 0, has_rule = 0;

	c1 = memchr(a, ':', alen);
	if (c1 != NULL) {
		const char *rest = c1 + 1;
		size_t restlen = alen - (size_t)(rest - a);

		typelen = (size_t)(c1 - a);
		c2 = memchr(rest, ':', restlen);
		if (c2 == NULL) {
			if (ci_is_dn(rest, restlen)) {
				dnattrs = 1;
				if (!is_desc(type, typelen))
					return fail(fp, "extensible match ':dn:=' needs an attribute");
			} else {
				has_rule = 1;
				rule = rest;
				rulelen = restlen;
			}
		} else {
			if (!ci_is_dn(rest, (size_t)(c2 - rest)))
				return fail(
				        fp,
				        "bad extensible match: expected ':dn' before the matching rule, got ':%.*s'",
				        qlen((size_t)(c2 - rest)), rest);
			dnattrs = 1;
			has_rule = 1;
			rule = c2 + 1;
			rulelen = alen - (size_t)(rule - a);
		}
	}
	if (typelen == 0 && rulelen == 0)
		return fail(fp, "extensible match needs an attribute or a matching rule");
	if (has_rule && rulelen == 0)
		return fail(fp, "extensible match with an empty matching rule");
	if (typelen > 0 && !is_desc(type, typelen))
		return fail(fp, "bad attribute description '%.*s'", qlen(typelen), type);
	if (has_rule && !is_oid(rule, rulelen))
		return fail(fp, "bad matching rule '%.*s'", qlen(rulelen), rule);

	if (ber_printf(fp->ber, "t{", LDAP_FILTER_EXT) == -1)
		return nomem(fp);
	if (has_rule && ber_printf(fp->ber, "to", LDAP_FILTER_EXT_OID, rule, (ber_len_t)rulelen) == -1)
		return nomem(fp);
	if (typelen > 0 && ber_printf(fp->ber, "to", LDAP_FILTER_EXT_TYPE, type, (ber_len_t)typelen) == -1)
		return nomem(fp);
	if (put_tagged_value(fp, LDAP_FILTER_EXT_VALUE, v, vlen) != 0)
		return -1;
	if (dnattrs && ber_printf(fp->ber, "tb", LDAP_FILTER_EXT_DNATTRS, (ber_int_t)1) == -1)
		return nomem(fp);
	if (ber_printf(fp->ber, "}") == -1)
		return nomem(fp);
	return 0;
}

/* attr "=" value with at least one unescaped '*' that is not the whole value;
 * stars[0..nstars) are the offsets of the stars in v. */
static int put_substrings(struct fparse *fp, const char *a, size_t alen, const char *v, size_t vlen,
                          const size_t *stars, size_t nstars)
{
	size_t i;

	if (ber_printf(fp->ber, "t{o{", LDAP_FILTER_SUBSTRINGS, a, (ber_len_t)alen) == -1)
		return nomem(fp);
	if (stars[0] > 0 && put_tagged_value(fp, LDAP_SUBSTRING_INITIAL, v, stars[0]) != 0)
		return -1;
	for (i = 1; i < nstars; i++) {
		size_t from = stars[i - 1] + 1;

		if (stars[i] == from)
			return fail(fp, "empty substring between two '*'");
		if (put_tagged_value(fp, LDAP_SUBSTRING_ANY, v + from, stars[i] - from) != 0)
			return -1;
	}
	if (stars[nstars - 1] + 1 < vlen &&
	    put_tagged_value(fp, LDAP_SUBSTRING_FINAL, v + stars[nstars - 1] + 1, vlen - stars[nstars - 1] - 1) != 0)
		return -1;
	if (ber_printf(fp->ber, "}}") == -1)
		return nomem(fp);
	return 0;
}

/* attr "=" value: equality, presence or substrings. */
static int put_equalish(struct fparse *fp, const char *a, size_t alen, const char *v, size_t vlen)
{
	size_t i = 0, nstars = 0, el;
	size_t *stars;
	uint8_t b;
	int rc;

	/* Count the unescaped stars, checking escapes and parentheses. */
	while (i < vlen) {
		if (v[i] == '*') {
			nstars++;
			i++;
		} else if (v[i] == '\\') {
			el = escape_len(v + i, vlen - i, &b);
			if (el == 0)
				return fail(fp, "bad escape '%.*s' (expected \\ and two hex digits)",
				            qlen(vlen - i < 3 ? vlen - i : 3), v + i);
			i += el;
		} else if (v[i] == '(' || v[i] == ')') {
			return fail(fp, "unescaped '%.*s' in a value (write it as \\28 or \\29)", 1, v + i);
		} else {
			i++;
		}
	}
	if (nstars == 0) {
		size_t len = 0;

		if (unescape(fp, v, vlen, &len) != 0)
			return -1;
		if (ber_printf(fp->ber, "t{oo}", LDAP_FILTER_EQUALITY, a, (ber_len_t)alen, (const char *)fp->scratch,
		               (ber_len_t)len) == -1)
			return nomem(fp);
		return 0;
	}
	if (vlen == 1) {
		if (ber_printf(fp->ber, "to", LDAP_FILTER_PRESENT, a, (ber_len_t)alen) == -1)
			return nomem(fp);
		return 0;
	}
	stars = malloc(nstars * sizeof(*stars));
	if (stars == NULL)
		return nomem(fp);
	nstars = 0;
	for (i = 0; i < vlen;) {
		if (v[i] == '*')
			stars[nstars++] = i++;
		else if (v[i] == '\\')
			i += escape_len(v + i, vlen - i, &b);
		else
			i++;
	}
	rc = put_substrings(fp, a, alen, v, vlen, stars, nstars);
	free(stars);
	return rc;
}

/* One item, the text between '(' and ')' (or a whole filter without them). */
static int put_item(struct fparse *fp, const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	const char *v;
	size_t alen, vlen;
	ber_tag_t tag;

	if (eq == NULL)
		return fail(fp, "missing '=' in '%.*s'", qlen(n), s);
	alen = (size_t)(eq - s);
	v = eq + 1;
	vlen = n - alen - 1;
	if (alen == 0)
		return fail(fp, "missing attribute before '='");
	switch (s[alen - 1]) {
	case '<': tag = LDAP_FILTER_LE; break;
	case '>': tag = LDAP_FILTER_GE; break;
	case '~': tag = LDAP_FILTER_APPROX; break;
	case ':': return put_extensible(fp, s, alen - 1, v, vlen);
	default:
		if (!is_desc(s, alen))
			return fail(fp, "bad attribute description '%.*s'", qlen(alen), s);
		return put_equalish(fp, s, alen, v, vlen);
	}
	alen--;
	if (!is_desc(s, alen))
		return fail(fp, "bad attribute description '%.*s'", qlen(alen), s);
	if (ber_printf(fp->ber, "t{o", tag, s, (ber_len_t)alen) == -1)
		return nomem(fp);
	if (put_tagged_value(fp, LBER_OCTETSTRING, v, vlen) != 0)
		return -1;
	if (ber_printf(fp->ber, "}") == -1)
		return nomem(fp);
	return 0;
}

static int put_paren(struct fparse *fp, const char **pp, int depth);

/* The members of '&' or '|' up to and including the closing ')'. */
static int put_list(struct fparse *fp, const char **pp, int depth, ber_tag_t tag)
{
	const char *p = *pp;

	if (ber_printf(fp->ber, "t{", tag) == -1)
		return nomem(fp);
	for (;;) {
		while (is_space((unsigned char)*p))
			p++;
		if (*p == ')')
			break;
		if (*p == '\0')
			return fail(fp, "missing ')'");
		if (*p != '(')
			return fail(fp, "expected '(' at '%.*s'", qlen(strlen(p)), p);
		if (put_paren(fp, &p, depth + 1) != 0)
			return -1;
	}
	if (ber_printf(fp->ber, "}") == -1)
		return nomem(fp);
	*pp = p + 1;
	return 0;
}

/* A parenthesised filter starting at **pp == '('; *pp moves past its ')'. */
static int put_paren(struct fparse *fp, const char **pp, int depth)
{
	const char *p = *pp + 1, *q;

	if (depth > FILTER_MAX_DEPTH)
		return fail(fp, "nested more than %d levels deep", FILTER_MAX_DEPTH);
	while (is_space((unsigned char)*p))
		p++;
	switch (*p) {
	case '&':
	case '|':
		p++;
		if (put_list(fp, &p, depth, p[-1] == '&' ? LDAP_FILTER_AND : LDAP_FILTER_OR) != 0)
			return -1;
		break;
	case '!':
		p++;
		while (is_space((unsigned char)*p))
			p++;
		if (*p == '\0')
			return fail(fp, "missing ')'");
		if (*p != '(')
			return fail(fp, "'!' must be followed by one '(filter)'");
		if (ber_printf(fp->ber, "t{", LDAP_FILTER_NOT) == -1)
			return nomem(fp);
		if (put_paren(fp, &p, depth + 1) != 0)
			return -1;
		if (*p != ')')
			return fail(fp, "%s", *p ? "'!' takes exactly one filter" : "missing ')'");
		if (ber_printf(fp->ber, "}") == -1)
			return nomem(fp);
		p++;
		break;
	case '\0': return fail(fp, "missing ')'");
	case ')': return fail(fp, "empty '()'");
	default:
		for (q = p; *q != ')'; q++) {
			if (*q == '\0')
				return fail(fp, "missing ')'");
			if (*q == '(')
				return fail(fp, "unescaped '(' inside '(%.*s...)'", qlen((size_t)(q - p)), p);
			if (*q == '\\' && q[1] != '\0')
				q++;
		}
		if (put_item(fp, p, (size_t)(q - p)) != 0)
			return -1;
		p = q + 1;
	}
	*pp = p;
	return 0;
}

int ldb_filter_put(struct berelement *ber, const char *filter, char *err)
{
	struct fparse fp = { ber, filter ? filter : "", err, NULL };
	const char *p = fp.text;
	size_t n = strlen(p);
	int rc;

	if (err != NULL)
		err[0] = '\0';
	if (ber == NULL)
		return fail(&fp, "no encoder");
	if (strspn(p, " \t\n") == n)
		return fail(&fp, "empty filter");
	if (is_space((unsigned char)*p))
		return fail(&fp, "leading white space");
	fp.scratch = malloc(n + 1);
	if (fp.scratch == NULL)
		return nomem(&fp);
	if (*p == '(') {
		rc = put_paren(&fp, &p, 1);
		if (rc == 0 && *p != '\0')
			rc = fail(&fp, "unexpected '%.*s' after the filter", qlen(strlen(p)), p);
	} else {
		rc = put_item(&fp, p, n);
	}
	free(fp.scratch);
	return rc;
}

int ldb_filter_encode(struct ldb_bytes *out, const char *filter, char *err)
{
	BerElement *ber;
	struct berval bv;
	int rc;

	if (err != NULL)
		err[0] = '\0';
	ber = ber_alloc_t(LBER_USE_DER);
	if (ber == NULL) {
		if (err != NULL)
			snprintf(err, LDB_WIRE_ERRLEN, "out of memory");
		return -1;
	}
	rc = ldb_filter_put(ber, filter, err);
	if (rc == 0) {
		if (ber_flatten2(ber, &bv, 0) != 0 || ldb_bytes_append(out, bv.bv_val, bv.bv_len) != 0) {
			if (err != NULL)
				snprintf(err, LDB_WIRE_ERRLEN, "out of memory");
			rc = -1;
		}
	}
	ber_free(ber, 1);
	return rc;
}
