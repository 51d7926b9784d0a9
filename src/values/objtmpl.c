/* ldclt's entry templates (-e object=FILE, rdn=attr:value): see
 * objtmpl.h.
 *
 * Compile: the rdn spec first, then the file's lines in order, each value cut
 * into parts: literal text, a variable's definition [V=KIND(args)] or a
 * back-reference [V].  A back-reference must follow its definition in that
 * order (so the file may use a variable the rdn defines, as in ldclt's
 * populate example).  Data files of the *FROMFILE kinds are read whole here.
 *
 * Render: the same order; a definition writes its value into scratch and
 * remembers where, a back-reference copies it.  Nothing is allocated; the only
 * shared writes are the commoncounter fetch-adds.
 */
#include "values/objtmpl.h"
#include "util/util.h"
#include "values/pattern.h"
#include "values/vpattern.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NVARS 8
#define MAX_NDIGITS 64
#define MAX_NUMBER 999999999999999999LL /* 18 digits: fits int64_t with room */
#define MAX_RNDS (1 << 20)

enum kind { K_RNDN, K_RNDS, K_INCRN, K_INCRNNOLOOP, K_RNDFROMFILE, K_INCRFROMFILE, K_INCRFROMFILENOLOOP };

static const struct {
	const char *name;
	enum kind kind;
} kinds[] = {
	{ "RNDN", K_RNDN },
	{ "RNDS", K_RNDS },
	{ "INCRN", K_INCRN },
	{ "INCRNNOLOOP", K_INCRNNOLOOP },
	{ "RNDFROMFILE", K_RNDFROMFILE },
	{ "INCRFROMFILE", K_INCRFROMFILE },
	{ "INCRFROMFILENOLOOP", K_INCRFROMFILENOLOOP },
};

struct var {
	bool defined;
	enum kind kind;
	int64_t low, high; /* numbers; for the INCR*FROMFILE kinds 0..nlines-1 */
	int ndigits;       /* numbers: the width, zero-padded */
	size_t len;        /* RNDS */
	char *data;        /* *FROMFILE: the file, lines NUL-terminated in place */
	const char **line;
	size_t *linelen;
	size_t nlines;
	size_t width; /* the longest value it renders */
};

enum part_kind { P_LIT, P_DEF, P_REF };

struct part {
	enum part_kind kind;
	int var;
	const char *lit; /* P_LIT: into the line's own copy */
	size_t len;
};

struct tline {
	char *type;
	const char *shown; /* the type rendered: the first line's spelling of it */
	size_t tlen;
	char *text; /* the value as written, literal parts point into it */
	struct part *parts;
	int nparts;
	struct ldb_vp *vp; /* a value pattern (then no parts) */
	size_t maxlen;     /* the longest value it renders */
};

/* One shared counter per variable, each on its own cache line. */
struct counter {
	_Atomic uint64_t n;
	char pad[64 - sizeof(uint64_t)];
};

struct ldb_objtmpl {
	struct var vars[NVARS];
	bool has_rdn;
	struct tline rdn;
	struct tline attrs[LDB_OBJ_MAX_ATTRS];
	int nattrs;
	bool common;
	bool needs_rng;
	bool streams;        /* some value pattern streams a file */
	struct counter *ctr; /* common only */
	size_t max_size;
};

/* ---- compile ---- */

/* Where an error is: "object file F line N" or "rdn=SPEC". */
struct where {
	const char *path;
	const char *rdn;
	unsigned line;
	char *err;
	size_t cap;
};

static int fail(const struct where *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(const struct where *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->err == NULL || w->cap == 0)
		return -1;
	if (w->rdn != NULL)
		snprintf(w->err, w->cap, "rdn=%s: %s", w->rdn, msg);
	else if (w->line > 0)
		snprintf(w->err, w->cap, "object file %s line %u: %s", w->path, w->line, msg);
	else
		snprintf(w->err, w->cap, "object file %s: %s", w->path, msg);
	return -1;
}

static int digits(int64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* A decimal number of digits only, at most MAX_NUMBER. */
static int parse_num(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i;

	if (n == 0 || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Read a data file whole: one value per line, blank lines skipped. */
static int load_data(struct var *v, const char *file, const struct where *w)
{
	FILE *f = fopen(file, "rb");
	size_t size, i, start, n;
	char *buf;

	if (f == NULL)
		return fail(w, "data file %s: %s", file, strerror(errno));
	int rc = ldb_read_all(f, 0, &buf, &size), e = errno;

	fclose(f);
	if (rc != 0 && e == ENOMEM)
		return fail(w, "data file %s: out of memory", file);
	if (rc != 0)
		return fail(w, "data file %s: cannot read: %s", file, strerror(e));
	buf[size] = '\n'; /* in place of the NUL: the last line always ends */

	/* count, then index the lines */
	v->nlines = 0;
	for (i = 0, start = 0; i <= size; i++)
		if (buf[i] == '\n') {
			n = i - start;
			if (n > 0 && buf[i - 1] == '\r')
				n--;
			if (n > 0)
				v->nlines++;
			start = i + 1;
		}
	if (v->nlines == 0) {
		free(buf);
		return fail(w, "data file %s is empty", file);
	}
	v->line = malloc(v->nlines * sizeof(*v->line));
	v->linelen = malloc(v->nlines * sizeof(*v->linelen));
	if (v->line == NULL || v->linelen == NULL) {
		free(buf);
		return fail(w, "data file %s: out of memory", file);
	}
	v->data = buf;
	v->nlines = 0;
	v->width = 0;
	for (i = 0, start = 0; i <= size; i++)
		if (buf[i] == '\n') {
			n = i - start;
			if (n > 0 && buf[i - 1] == '\r')
				n--;
			buf[start + n] = '\0';
			if (n > 0) {
				v->line[v->nlines] = buf + start;
				v->linelen[v->nlines] = n;
				v->nlines++;
				if (n > v->width)
					v->width = n;
			}
			start = i + 1;
		}
	return 0;
}

/* Parse "KIND(args)" of s[0..n) into v. */
static int parse_kind(struct var *v, char name, const char *s, size_t n, const struct where *w)
{
	const char *lp = memchr(s, '(', n), *args;
	size_t klen, alen, i, start, na = 0;
	const char *arg[3];
	size_t arglen[3];
	int64_t num[3];
	bool found = false;

	if (lp == NULL || s[n - 1] != ')')
		return fail(w, "[%c=...]: expected KIND(args)", name);
	klen = (size_t)(lp - s);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == klen && memcmp(kinds[i].name, s, klen) == 0) {
			v->kind = kinds[i].kind;
			found = true;
		}
	if (!found)
		return fail(w,
		            "[%c=%.*s(...)]: unknown kind (RNDN, RNDS, INCRN, INCRNNOLOOP, RNDFROMFILE, INCRFROMFILE, "
		            "INCRFROMFILENOLOOP)",
		            name, (int)klen, s);
	args = lp + 1;
	alen = n - klen - 2;
	/* split at ';' */
	for (i = 0, start = 0; i <= alen; i++) {
		if (i < alen && args[i] != ';')
			continue;
		if (na == 3)
			return fail(w, "[%c=%.*s]: too many arguments", name, (int)n, s);
		arg[na] = args + start;
		arglen[na] = i - start;
		na++;
		start = i + 1;
	}

	switch (v->kind) {
	case K_RNDN:
	case K_INCRN:
	case K_INCRNNOLOOP:
		if (na != 3)
			return fail(w, "[%c=%.*s]: expected (low;high;ndigits)", name, (int)n, s);
		for (i = 0; i < 3; i++)
			if (parse_num(arg[i], arglen[i], &num[i]) != 0)
				return fail(w, "[%c=%.*s]: bad number '%.*s' (0 to %lld)", name, (int)n, s,
				            (int)arglen[i], arg[i], (long long)MAX_NUMBER);
		if (num[0] > num[1])
			return fail(w, "[%c=%.*s]: low %lld > high %lld", name, (int)n, s, (long long)num[0],
			            (long long)num[1]);
		if (num[2] < digits(num[1]))
			return fail(w, "[%c=%.*s]: %lld digits cannot hold %lld", name, (int)n, s, (long long)num[2],
			            (long long)num[1]);
		if (num[2] > MAX_NDIGITS)
			return fail(w, "[%c=%.*s]: ndigits above %d", name, (int)n, s, MAX_NDIGITS);
		v->low = num[0];
		v->high = num[1];
		v->ndigits = (int)num[2];
		v->width = (size_t)v->ndigits;
		return 0;
	case K_RNDS:
		if (na != 1 || parse_num(arg[0], arglen[0], &num[0]) != 0 || num[0] < 1 || num[0] > MAX_RNDS)
			return fail(w, "[%c=%.*s]: expected RNDS(length), length 1 to %d", name, (int)n, s, MAX_RNDS);
		v->len = (size_t)num[0];
		v->width = v->len;
		return 0;
	default: {
		char file[4096];

		if (na != 1 || arglen[0] == 0 || arglen[0] >= sizeof(file))
			return fail(w, "[%c=%.*s]: expected %.*s(file)", name, (int)n, s, (int)klen, s);
		memcpy(file, arg[0], arglen[0]);
		file[arglen[0]] = '\0';
		if (load_data(v, file, w) != 0)
			return -1;
		v->low = 0;
		v->high = (int64_t)v->nlines - 1;
		return 0;
	}
	}
}

/* Which bracket forms s holds: ldclt's fields (a bracket opening with one
 * letter: [A]..[H], [V=KIND(args)], and their misspellings, which ldclt's
 * parser then refuses) and any other bracket expression (a value pattern's,
 * "[[" too: a literal '['). */
static void classify(const char *s, bool *ldclt, bool *other)
{
	*ldclt = *other = false;
	for (; *s != '\0'; s++) {
		if (*s != '[')
			continue;
		if (s[1] == '[') { /* a pattern's escape: ldclt's parser refuses it */
			*other = true;
			s++;
			continue;
		}
		if (isalpha((unsigned char)s[1]) && !isalnum((unsigned char)s[2]))
			*ldclt = true; /* one letter: no pattern reads so ([A], [A=...]) */
		else
			*other = true;
	}
}

/* A value pattern's line: compiled whole. */
static int parse_pattern(struct ldb_objtmpl *t, struct tline *ln, const struct where *w)
{
	char perr[512];

	if (ldb_vp_compile(&ln->vp, ln->text, perr, sizeof(perr)) != 0)
		return fail(w, "%s", perr);
	ln->maxlen = ldb_vp_max_len(ln->vp);
	t->needs_rng = true;
	t->streams |= ldb_vp_streams(ln->vp);
	return 0;
}

/* Cut a value into parts. */
/* One ldclt field at s ("[V]" or "[V=KIND(args)]"): *kind P_REF or P_DEF,
 * *end past its ']'.  @return its variable's index, or -1 (with the line). */
static int parse_field(struct ldb_objtmpl *t, const char *s, const struct where *w, enum part_kind *kind,
                       const char **end)
{
	if (s[1] < 'A' || s[1] > 'H')
		return fail(w, "'%.12s': a variant field is [V] or [V=KIND(args)], V a letter A to H", s);
	int vi = s[1] - 'A';
	if (s[2] == ']') {
		if (!t->vars[vi].defined)
			return fail(w, "[%c] used before any [%c=...] defines it", s[1], s[1]);
		*kind = P_REF;
		*end = s + 3;
		return vi;
	}
	if (s[2] != '=')
		return fail(w, "'%.12s': a variant field is [V] or [V=KIND(args)], V a letter A to H", s);
	const char *e = strchr(s, ']');
	if (e == NULL || e == s + 3)
		return fail(w, "'%.20s': unterminated variant field (no ']')", s);
	if (t->vars[vi].defined)
		return fail(w, "variable %c defined twice", s[1]);
	if (parse_kind(&t->vars[vi], s[1], s + 3, (size_t)(e - s - 3), w) != 0)
		return -1;
	t->vars[vi].defined = true;
	if (t->vars[vi].kind == K_RNDN || t->vars[vi].kind == K_RNDS || t->vars[vi].kind == K_RNDFROMFILE)
		t->needs_rng = true;
	*kind = P_DEF;
	*end = e + 1;
	return vi;
}

static int parse_value(struct ldb_objtmpl *t, struct tline *ln, const struct where *w)
{
	const char *s = ln->text, *lit = s;
	size_t cap = 8;
	int np = 0;

	bool ldclt, other;

	classify(s, &ldclt, &other);
	if (ldclt && other)
		return fail(w,
		            "'%.40s' mixes ldclt's fields ([A]..[H], [V=KIND(args)]) with a value pattern's "
		            "brackets",
		            s);
	if (other)
		return parse_pattern(t, ln, w);
	ln->parts = malloc(cap * sizeof(*ln->parts));
	if (ln->parts == NULL)
		return fail(w, "out of memory");
	ln->maxlen = 0;
	for (;;) {
		const char *end = NULL;
		struct part p = { P_LIT, -1, NULL, 0 };
		int vi;

		if (*s != '\0' && *s != '[') {
			s++;
			continue;
		}
		/* the literal before this point */
		if (s > lit) {
			p.lit = lit;
			p.len = (size_t)(s - lit);
		} else if (*s == '\0') {
			break;
		} else {
			/* a field */
			if ((vi = parse_field(t, s, w, &p.kind, &end)) < 0)
				return -1;
			p.var = vi;
			p.len = t->vars[vi].width;
			s = end;
		}
		if (np == (int)cap) {
			struct part *nps;

			cap *= 2;
			if ((nps = realloc(ln->parts, cap * sizeof(*nps))) == NULL)
				return fail(w, "out of memory");
			ln->parts = nps;
		}
		ln->parts[np++] = p;
		ln->maxlen += p.len;
		lit = s;
	}
	ln->nparts = np;
	return 0;
}

static int valid_type(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		      c == ';' || c == '.'))
			return 0;
	}
	return 1;
}

/* "attr: value" (or the rdn's "attr:value") into ln. */
static int parse_line(struct ldb_objtmpl *t, struct tline *ln, const char *s, const struct where *w)
{
	const char *colon = strchr(s, ':'), *b = s, *e, *v;

	if (colon == NULL)
		return fail(w, "no ':' (expected attr: value)");
	while (*b == ' ' || *b == '\t')
		b++;
	e = colon;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (!valid_type(b, (size_t)(e - b)))
		return fail(w, "bad attribute name '%.*s'", (int)(colon - s), s);
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	ln->tlen = (size_t)(e - b);
	ln->type = strndup(b, ln->tlen);
	ln->text = strdup(v);
	if (ln->type == NULL || ln->text == NULL)
		return fail(w, "out of memory");
	return parse_value(t, ln, w);
}

static int load_file(struct ldb_objtmpl *t, struct where *w)
{
	FILE *f = fopen(w->path, "r");
	char *line = NULL;
	size_t lcap = 0;
	ssize_t n;
	int rc = 0;

	if (f == NULL)
		return fail(w, "%s", strerror(errno));
	while ((n = getline(&line, &lcap, f)) >= 0) {
		const char *p;

		w->line++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '\0' || line[0] == '#')
			continue;
		if (t->nattrs == LDB_OBJ_MAX_ATTRS) {
			rc = fail(w, "more than %d attributes", LDB_OBJ_MAX_ATTRS);
			break;
		}
		if ((rc = parse_line(t, &t->attrs[t->nattrs++], line, w)) != 0)
			break;
	}
	if (rc == 0 && ferror(f))
		rc = fail(w, "cannot read: %s", strerror(errno));
	free(line);
	fclose(f);
	if (rc == 0 && t->nattrs == 0) {
		w->line = 0;
		rc = fail(w, "no attributes");
	}
	return rc;
}

int ldb_objtmpl_compile(struct ldb_objtmpl **out, const char *path, const char *rdn_spec, bool common, char *err,
                        size_t cap)
{
	struct ldb_objtmpl *t;
	struct where w = { path, NULL, 0, err, cap };
	int i;

	if (err != NULL && cap > 0)
		err[0] = '\0';
	if (out != NULL)
		*out = NULL;
	if (out == NULL || (path == NULL && rdn_spec == NULL)) {
		if (err != NULL && cap > 0)
			snprintf(err, cap, "object template: no object file and no rdn");
		return -1;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		if (err != NULL && cap > 0)
			snprintf(err, cap, "object template: out of memory");
		return -1;
	}
	t->common = common;
	if (rdn_spec != NULL) {
		w.rdn = rdn_spec;
		t->has_rdn = true;
		if (parse_line(t, &t->rdn, rdn_spec, &w) != 0)
			goto bad;
		w.rdn = NULL;
	}
	if (path != NULL && load_file(t, &w) != 0)
		goto bad;
	if (common) {
		t->ctr = aligned_alloc(64, NVARS * sizeof(*t->ctr));
		if (t->ctr == NULL) {
			fail(&w, "out of memory");
			goto bad;
		}
		for (i = 0; i < NVARS; i++)
			atomic_init(&t->ctr[i].n, 0);
	}
	/* lines of one type (ASCII case-insensitive) show the same pointer, which
	 * lets ldb_wire_put_add() group them without comparing the strings */
	for (i = 0; i < t->nattrs; i++) {
		int j;

		t->attrs[i].shown = t->attrs[i].type;
		for (j = 0; j < i; j++)
			if (strcasecmp(t->attrs[j].type, t->attrs[i].type) == 0) {
				t->attrs[i].shown = t->attrs[j].shown;
				break;
			}
	}
	t->max_size = t->has_rdn ? t->rdn.tlen + 1 + t->rdn.maxlen + 1 : 0;
	for (i = 0; i < t->nattrs; i++)
		t->max_size += t->attrs[i].maxlen + 1;
	*out = t;
	return 0;
bad:
	ldb_objtmpl_free(t);
	return -1;
}

static void free_line(struct tline *ln)
{
	free(ln->type);
	free(ln->text);
	free(ln->parts);
	ldb_vp_free(ln->vp);
}

void ldb_objtmpl_free(struct ldb_objtmpl *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; i < NVARS; i++) {
		free(t->vars[i].data);
		free(t->vars[i].line);
		free(t->vars[i].linelen);
	}
	free_line(&t->rdn);
	for (i = 0; i < t->nattrs; i++)
		free_line(&t->attrs[i]);
	free(t->ctr);
	free(t);
}

void ldb_objtmpl_cursor_init(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur)
{
	int i;

	for (i = 0; i < NVARS; i++)
		cur->next[i] = t != NULL ? t->vars[i].low : 0;
	memset(cur->vst, 0, sizeof(cur->vst));
}

int ldb_objtmpl_cursor_open(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur, unsigned client,
                            unsigned nclients, char *err, size_t cap)
{
	int i;

	ldb_objtmpl_cursor_init(t, cur);
	if (t == NULL)
		return 0;
	for (i = 0; i <= t->nattrs; i++) {
		const struct tline *ln = i < t->nattrs ? &t->attrs[i] : &t->rdn;

		if (ln->vp != NULL && ldb_vp_state_new(ln->vp, client, nclients, &cur->vst[i], err, cap) != 0) {
			ldb_objtmpl_cursor_close(cur);
			return -1;
		}
	}
	return 0;
}

bool ldb_objtmpl_streams(const struct ldb_objtmpl *t)
{
	return t != NULL && t->streams;
}

void ldb_objtmpl_prefetch(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur)
{
	for (int i = 0; t != NULL && t->streams && i <= t->nattrs; i++) {
		const struct tline *ln = i < t->nattrs ? &t->attrs[i] : &t->rdn;

		if (ln->vp != NULL && cur->vst[i] != NULL)
			(void)ldb_vp_prefetch(ln->vp, cur->vst[i]); /* a failed read renders as a miss */
	}
}

void ldb_objtmpl_cursor_close(struct ldb_objtmpl_cursor *cur)
{
	for (size_t i = 0; i < sizeof(cur->vst) / sizeof(cur->vst[0]); i++) {
		ldb_vp_state_free(cur->vst[i]);
		cur->vst[i] = NULL;
	}
}

size_t ldb_objtmpl_max_size(const struct ldb_objtmpl *t)
{
	return t != NULL ? t->max_size : 0;
}

/* ---- render (hot path) ---- */

/* The next index of an INCR* variable, in low..high.
 * @return 1, or 0 when a NOLOOP kind has passed its top. */
static int incr_next(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur, int vi, int64_t *out)
{
	const struct var *v = &t->vars[vi];
	bool noloop = v->kind == K_INCRNNOLOOP || v->kind == K_INCRFROMFILENOLOOP;
	uint64_t range = (uint64_t)(v->high - v->low) + 1;
	int64_t x;

	if (t->common) {
		/* one shared sequence: each fetch-add hands out the next value */
		uint64_t c = atomic_fetch_add_explicit(&t->ctr[vi].n, 1, memory_order_relaxed);

		if (noloop && c >= range)
			return 0;
		*out = v->low + (int64_t)(c % range);
		return 1;
	}
	x = cur->next[vi];
	if (x > v->high || x < v->low) {
		if (noloop)
			return 0;
		x = v->low;
	}
	cur->next[vi] = x + 1;
	*out = x;
	return 1;
}

static void put_number(char *p, int64_t x, int ndigits)
{
	int i;

	for (i = ndigits - 1; i >= 0; i--) {
		p[i] = (char)('0' + x % 10);
		x /= 10;
	}
}

/* Render one line's value at p; @return its length, -1 past a NOLOOP top, or
 * -2 for a value pattern without its state (a cursor only _init'ed). */
static long render_value(const struct ldb_objtmpl *t, const struct tline *ln, struct ldb_objtmpl_cursor *cur,
                         struct ldb_rng *rng, char *p, const char **vp, size_t *vl)
{
	char *start = p;
	int i;

	if (ln->vp != NULL) { /* the state is the line's: attrs[i] at i, the rdn's last */
		struct ldb_vp_state *st = cur->vst[ln == &t->rdn ? t->nattrs : (int)(ln - t->attrs)];

		if (st == NULL)
			return -2;
		p += ldb_vp_render(ln->vp, st, rng, p, ln->maxlen);
		*p = '\0';
		return (long)(p - start);
	}

	for (i = 0; i < ln->nparts; i++) {
		const struct part *pt = &ln->parts[i];
		const struct var *v;
		int64_t x;

		switch (pt->kind) {
		case P_LIT:
			memcpy(p, pt->lit, pt->len);
			p += pt->len;
			break;
		case P_REF:
			memcpy(p, vp[pt->var], vl[pt->var]);
			p += vl[pt->var];
			break;
		case P_DEF:
			v = &t->vars[pt->var];
			vp[pt->var] = p;
			switch (v->kind) {
			case K_RNDN:
				put_number(p, ldb_rng_range(rng, v->low, v->high), v->ndigits);
				p += v->ndigits;
				break;
			case K_INCRN:
			case K_INCRNNOLOOP:
				if (!incr_next(t, cur, pt->var, &x))
					return -1;
				put_number(p, x, v->ndigits);
				p += v->ndigits;
				break;
			case K_RNDS:
				ldb_put_printable(p, v->len, rng); /* ldclt's printable set (values/pattern) */
				p += v->len;
				break;
			case K_RNDFROMFILE:
				x = ldb_rng_range(rng, 0, (int64_t)v->nlines - 1);
				memcpy(p, v->line[x], v->linelen[x]);
				p += v->linelen[x];
				break;
			default:
				if (!incr_next(t, cur, pt->var, &x))
					return -1;
				memcpy(p, v->line[x], v->linelen[x]);
				p += v->linelen[x];
				break;
			}
			vl[pt->var] = (size_t)(p - vp[pt->var]);
			break;
		}
	}
	*p = '\0';
	return (long)(p - start);
}

int ldb_objtmpl_render(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *cur, struct ldb_rng *rng, char *scratch,
                       size_t cap, struct ldb_obj_entry *e)
{
	const char *vp[NVARS] = { NULL };
	size_t vl[NVARS] = { 0 };
	char *p = scratch;
	long n;
	int i;

	if (t == NULL || cur == NULL || scratch == NULL || e == NULL || cap < t->max_size ||
	    (t->needs_rng && rng == NULL))
		return -1;
	e->rdn = "";
	e->rdn_len = 0;
	if (t->has_rdn) {
		memcpy(p, t->rdn.type, t->rdn.tlen);
		p[t->rdn.tlen] = '=';
		n = render_value(t, &t->rdn, cur, rng, p + t->rdn.tlen + 1, vp, vl);
		if (n < 0)
			return n == -1 ? 0 : -1;
		e->rdn = p;
		e->rdn_len = t->rdn.tlen + 1 + (size_t)n;
		p += e->rdn_len + 1;
	}
	for (i = 0; i < t->nattrs; i++) {
		n = render_value(t, &t->attrs[i], cur, rng, p, vp, vl);
		if (n < 0)
			return n == -1 ? 0 : -1;
		e->v[i].type = t->attrs[i].shown;
		e->v[i].val = p;
		e->v[i].len = (size_t)n;
		p += n + 1;
	}
	e->n = t->nattrs;
	return 1;
}
