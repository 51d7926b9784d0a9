/* -e genldif=FILE: the entries the add workload would add, written as LDIF
 * (RFC 2849), and the entry shapes of ldclt's person/emailPerson/inetOrgPerson.
 *
 * The entries come exactly as the add workload's thread 0 makes them: one
 * ldb_rng seeded with (c->seed, 0); per entry, first the number of -f's XXX
 * (incr: from -r, or -r - 1 + step without commoncounter as ldclt, by step;
 * random: ldb_rng_range(-r, -R)), then the template rendered with the same rng.
 */
#include "ldif/genldif.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "values/objtmpl.h"
#include "values/pattern.h"
#include "values/rng.h"

#define MAIL_DOMAIN "@example.com"
#define MAIL_MAX 1024

static bool name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

int ldb_class_entry(int add_class, const char *rdn_attr, size_t alen, const char *rdn_val, size_t vlen,
                    struct ldb_put_value *out, int max)
{
	static _Thread_local char mail[MAIL_MAX];
	static const char *const person[] = { "top", "person" };
	static const char *const inetorg[] = { "top", "person", "organizationalPerson", "inetOrgPerson" };
	const char *const *oc;
	size_t noc;
	int n = 0;

	if (rdn_attr == NULL || rdn_val == NULL || out == NULL || alen == 0 || rdn_attr[alen] != '\0')
		return -1;
	switch (add_class) {
	case LDB_CLASS_PERSON:
		oc = person;
		noc = sizeof person / sizeof person[0];
		break;
	case LDB_CLASS_EMAILPERSON:
	case LDB_CLASS_INETORGPERSON:
		oc = inetorg;
		noc = sizeof inetorg / sizeof inetorg[0];
		break;
	default: return -1;
	}
#define PUT(t, v, l)                                   \
	do {                                               \
		if (n >= max)                                  \
			return -1;                                 \
		out[n].type = (t);                             \
		out[n].val = (v);                              \
		out[n].len = (l);                              \
		n++;                                           \
	} while (0)
	for (size_t k = 0; k < noc; k++)
		PUT("objectClass", oc[k], strlen(oc[k]));
	/* ldclt writes "cn: toto cn" and "sn: toto sn"; the RDN value makes the
	 * entries meaningful (and searchable) instead */
	PUT("cn", rdn_val, vlen);
	PUT("sn", rdn_val, vlen);
	if (!name_is(rdn_attr, alen, "cn") && !name_is(rdn_attr, alen, "sn"))
		PUT(rdn_attr, rdn_val, vlen);
	if (add_class == LDB_CLASS_EMAILPERSON && !name_is(rdn_attr, alen, "mail")) {
		if (memchr(rdn_val, '@', vlen) != NULL) {
			PUT("mail", rdn_val, vlen);
		} else {
			if (vlen + sizeof(MAIL_DOMAIN) > sizeof(mail))
				return -1;
			memcpy(mail, rdn_val, vlen);
			memcpy(mail + vlen, MAIL_DOMAIN, sizeof(MAIL_DOMAIN));
			PUT("mail", mail, vlen + sizeof(MAIL_DOMAIN) - 1);
		}
	}
#undef PUT
	return n;
}

/* ------------------------------------------------------------------- LDIF */

/* RFC 2849: a value is written as is when it is SAFE-STRING (ASCII, no NUL, LF
 * or CR, not starting with space, ':' or '<') and does not end with a space. */
static bool ldif_safe(const char *v, size_t n)
{
	if (n == 0)
		return true;
	if (v[0] == ' ' || v[0] == ':' || v[0] == '<' || v[n - 1] == ' ')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch == 0 || ch == '\n' || ch == '\r' || ch >= 0x80)
			return false;
	}
	return true;
}

static void put_base64(FILE *f, const char *v, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)v;
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		unsigned x = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];

		fputc(tab[x >> 18], f);
		fputc(tab[(x >> 12) & 63], f);
		fputc(tab[(x >> 6) & 63], f);
		fputc(tab[x & 63], f);
	}
	if (n - i == 1) {
		unsigned x = (unsigned)p[i] << 16;

		fputc(tab[x >> 18], f);
		fputc(tab[(x >> 12) & 63], f);
		fputs("==", f);
	} else if (n - i == 2) {
		unsigned x = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;

		fputc(tab[x >> 18], f);
		fputc(tab[(x >> 12) & 63], f);
		fputc(tab[(x >> 6) & 63], f);
		fputc('=', f);
	}
}

/* "type: value" or "type:: base64"; the dn line is the same with a two-part value. */
static void put_line(FILE *f, const char *type, const char *v, size_t n)
{
	if (ldif_safe(v, n)) {
		fprintf(f, "%s: ", type);
		fwrite(v, 1, n, f);
	} else {
		fprintf(f, "%s:: ", type);
		put_base64(f, v, n);
	}
	fputc('\n', f);
}

/* ---------------------------------------------------------------- genldif */

struct gen {
	const struct ldb_config *c;
	struct ldb_rng rng;
	struct ldb_objtmpl_cursor cur;
	int64_t next;           /* incr: the next value */
	char *rdn;              /* -f rendered */
	size_t rdn_cap;
	char *scratch;          /* the template's rendering */
	size_t scratch_cap;
	char *dn;
	size_t dn_cap;
	char *attr;             /* the RDN's attribute, NUL-terminated (classes) */
};

/* The number of -f's XXX for the next entry.  @return 1, or 0 past -R with
 * incr,noloop. */
static int next_number(struct gen *g, int64_t *v)
{
	const struct ldb_config *c = g->c;

	if (c->valmode == LDB_VAL_RANDOM) {
		*v = ldb_rng_range(&g->rng, c->range_low, c->range_high);
		return 1;
	}
	if (c->valmode != LDB_VAL_INCR) {
		*v = 0;
		return 1;
	}
	if (g->next > c->range_high) {
		if (c->noloop) {
			printf("%s[%d]: T000: Hit top incremental value %lld > %lld\n", c->progname, (int)getpid(),
			       (long long)g->next, c->range_high);
			return 0;
		}
		g->next = c->range_low + (g->next - c->range_low) % (c->range_high - c->range_low + 1);
	}
	*v = g->next;
	g->next += c->incr_step;
	return 1;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	char *nb = realloc(*buf, need);

	if (nb == NULL)
		return -1;
	*buf = nb;
	*cap = need;
	return 0;
}

/* Write one entry.  @return 1 written, 0 the sequence has ended, -1 error. */
static int gen_entry(struct gen *g, FILE *f)
{
	const struct ldb_config *c = g->c;
	struct ldb_obj_entry e;
	struct ldb_put_value cv[LDB_CLASS_ENTRY_MAX];
	const char *rdn = "";
	size_t rdn_len = 0, blen = strlen(c->base);
	int64_t v;
	int r;

	if (c->rdn_spec == NULL) {
		if (!next_number(g, &v))
			return 0;
		rdn_len = ldb_pattern_render_cstr(&c->filter_pat, v, g->rdn, g->rdn_cap);
		rdn = g->rdn;
	}
	if (c->objtmpl != NULL) {
		r = ldb_objtmpl_render(c->objtmpl, &g->cur, &g->rng, g->scratch, g->scratch_cap, &e);
		if (r == 0)
			return 0;
		if (r < 0)
			return -1;
		if (c->rdn_spec != NULL) {
			rdn = e.rdn;
			rdn_len = e.rdn_len;
		}
	}
	if (grow(&g->dn, &g->dn_cap, rdn_len + 1 + blen + 1) < 0)
		return -1;
	memcpy(g->dn, rdn, rdn_len);
	g->dn[rdn_len] = ',';
	memcpy(g->dn + rdn_len + 1, c->base, blen + 1);
	put_line(f, "dn", g->dn, rdn_len + 1 + blen);

	const char *eq = memchr(rdn, '=', rdn_len);

	if (eq == NULL)
		return -1;
	size_t alen = (size_t)(eq - rdn);
	const char *val = eq + 1;
	size_t vlen = rdn_len - alen - 1;

	if (c->objtmpl == NULL) {
		if (g->attr == NULL && (g->attr = strndup(rdn, alen)) == NULL)
			return -1;
		int n = ldb_class_entry(c->add_class, g->attr, alen, val, vlen, cv, LDB_CLASS_ENTRY_MAX);

		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++)
			put_line(f, cv[i].type, cv[i].val, cv[i].len);
	} else {
		bool has_rdn_value = false;

		for (int i = 0; i < e.n; i++) {
			put_line(f, e.v[i].type, e.v[i].val, e.v[i].len);
			if (name_is(rdn, alen, e.v[i].type) && e.v[i].len == vlen && memcmp(e.v[i].val, val, vlen) == 0)
				has_rdn_value = true;
		}
		/* a directory refuses an entry without its RDN's value: add it when
		 * the template leaves it out (the add workload does the same) */
		if (!has_rdn_value) {
			fwrite(rdn, 1, alen, f);
			if (ldif_safe(val, vlen)) {
				fputs(": ", f);
				fwrite(val, 1, vlen, f);
			} else {
				fputs(":: ", f);
				put_base64(f, val, vlen);
			}
			fputc('\n', f);
		}
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 1;
}

int ldb_genldif_run(const struct ldb_config *c)
{
	struct gen g = { .c = c };
	FILE *f;
	long long n = 0;
	int r = 1, pid = (int)getpid();

	if (c->verbose > 0)
		ldb_config_print(c, stdout);
	f = fopen(c->genldif_file, c->genldif_append ? "ae" : "wxe");
	if (f == NULL) {
		fprintf(stderr, "%s: -e genldif=%s: cannot open: %s\n", c->progname, c->genldif_file, strerror(errno));
		return LDB_EXIT_INIT;
	}
	ldb_rng_seed(&g.rng, c->seed, 0);
	if (c->objtmpl != NULL) {
		ldb_objtmpl_cursor_init(c->objtmpl, &g.cur);
		g.scratch_cap = ldb_objtmpl_max_size(c->objtmpl) + 1;
	}
	g.next = c->commoncounter ? c->range_low : c->range_low - 1 + c->incr_step;
	g.rdn_cap = (c->filter_pat.text != NULL ? strlen(c->filter_pat.text) : 0) + 32;
	g.rdn = malloc(g.rdn_cap);
	g.scratch = g.scratch_cap > 0 ? malloc(g.scratch_cap) : NULL;
	if (g.rdn == NULL || (g.scratch_cap > 0 && g.scratch == NULL)) {
		fprintf(stderr, "%s: out of memory\n", c->progname);
		r = -1;
	} else {
		printf("%s[%d]: genldif: writing %s%s\n", c->progname, pid, c->genldif_file,
		       c->genldif_append ? " (append)" : "");
		fflush(stdout);
	}
	while (r > 0 && (c->ops_per_thread < 0 || n < c->ops_per_thread)) {
		r = gen_entry(&g, f);
		if (r > 0)
			n++;
	}
	if (fclose(f) != 0 && r >= 0) {
		fprintf(stderr, "%s: -e genldif=%s: cannot write: %s\n", c->progname, c->genldif_file,
		        strerror(errno));
		r = -1;
	} else if (r < 0 && g.rdn != NULL) {
		fprintf(stderr, "%s: -e genldif=%s: cannot write entry %lld\n", c->progname, c->genldif_file, n + 1);
	}
	free(g.rdn);
	free(g.scratch);
	free(g.dn);
	free(g.attr);
	if (r < 0)
		return LDB_EXIT_INIT;
	printf("%s[%d]: genldif: %lld entries written to %s\n", c->progname, pid, n, c->genldif_file);
	printf("%s[%d]: Exit status %d - %s\n", c->progname, pid, LDB_EXIT_OK,
	       ldb_exit_text_prog(LDB_EXIT_OK, c->progname));
	return LDB_EXIT_OK;
}
