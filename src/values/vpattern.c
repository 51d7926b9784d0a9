/* Value patterns (UnboundID's syntax): parse a value string into nodes once,
 * render them per operation with no allocation.  See vpattern.h.
 *
 * Compile: literal runs (with "[[" and "]]" unescaped) and one node per
 * bracket expression; each node knows the longest value it renders, so the
 * program's maximum is their sum.  Sequences and streams get a slot in the
 * per-client state.
 *
 * Render: the nodes in order, straight into the caller's buffer (which holds
 * the maximum, so no node checks its room); a [ref:N] copies the bytes bracket
 * N wrote, remembered on the stack. */
#include "values/vpattern.h"
#include "values/vpattern_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int vp_fail(const struct vp_err *e, size_t col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e->err == NULL || e->cap == 0)
		return -1;
	/* the pattern shown with at most 60 bytes; one line: control characters as '?' */
	snprintf(e->err, e->cap, "pattern '%.60s%s' column %zu: %s", e->text, strlen(e->text) > 60 ? "..." : "", col,
	         msg);
	for (char *c = e->err; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

bool ldb_vp_has_brackets(const char *text)
{
	for (const char *s = text; *s != '\0'; s++) {
		if (*s != '[')
			continue;
		if (s[1] != '[')
			return true;
		s++; /* "[[": a literal bracket */
	}
	return false;
}

/* ---- numbers ---- */

/* -?digits at s[0..n), within int64_t.  @return the bytes used, 0 for none. */
static size_t parse_i64(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = n > 0 && s[0] == '-';
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	i = neg;
	if (i == n || s[i] < '0' || s[i] > '9')
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (lim - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return i;
}

/* Decimal digits of a magnitude. */
static size_t ndigits(uint64_t v)
{
	size_t n = 1;

	for (uint64_t p = 10; v >= p; p *= 10) {
		n++;
		if (p > UINT64_MAX / 10)
			break;
	}
	return n;
}

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* The length of v written with zero padding to width. */
static size_t num_len(int64_t v, size_t width)
{
	size_t d = ndigits(magnitude(v));

	return (v < 0) + (d > width ? d : width);
}

/* v with zero padding to width, written from its end two digits at a time. */
static size_t put_num(char *dst, int64_t v, size_t width)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	                            "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	                            "8081828384858687888990919293949596979899";
	uint64_t u = magnitude(v);
	size_t nd = ndigits(u), o = 0, len;

	if (v < 0)
		dst[o++] = '-';
	while (nd + o < width + (v < 0))
		dst[o++] = '0';
	len = o + nd;
	char *p = dst + len;

	while (u >= 100) {
		uint64_t r = u % 100;

		u /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	return len;
}

/* "%" and a DecimalFormat made of '#'s then '0's: the zero padding. */
static int parse_fmt(const char *f, size_t n, size_t *width, const struct vp_err *e, size_t col)
{
	size_t i = 0;

	while (i < n && f[i] == '#')
		i++;
	*width = 0;
	while (i < n && f[i] == '0') {
		i++;
		(*width)++;
	}
	if (n == 0 || i != n)
		return vp_fail(e, col,
		               "bad format '%%%.*s': only zero padding (%%0000, optionally after #) is supported",
		               (int)n, f);
	if (*width > 64)
		return vp_fail(e, col, "bad format '%%%.*s': more than 64 digits", (int)n, f);
	return 0;
}

/* "A-B" or "A:B" (sep), then xSTEP (sequential) and %FORMAT. */
static int parse_range(struct vp_node *nd, const char *t, size_t n, size_t col, const struct vp_err *e)
{
	size_t i = parse_i64(t, n, &nd->first), u;

	if (i == 0)
		return vp_fail(e, col, "bad range '[%.*s]': the first bound is not a 64-bit integer", (int)n, t);
	if (i == n || (t[i] != '-' && t[i] != ':'))
		return vp_fail(e, col + 1 + i,
		               "bad range '[%.*s]': expected '-' (random) or ':' (sequential) after %.*s", (int)n, t,
		               (int)i, t);
	nd->op = t[i++] == '-' ? VP_RAND : VP_SEQ;
	if ((u = parse_i64(t + i, n - i, &nd->last)) == 0)
		return vp_fail(e, col + 1 + i, "bad range '[%.*s]': the second bound is not a 64-bit integer", (int)n,
		               t);
	i += u;
	nd->step = 1;
	if (i < n && t[i] == 'x') {
		int64_t step;

		if (nd->op == VP_RAND)
			return vp_fail(e, col + 1 + i,
			               "bad range '[%.*s]': a step (x) is for sequential ranges [A:B] only", (int)n, t);
		u = parse_i64(t + i + 1, n - i - 1, &step);
		if (u == 0 || t[i + 1] == '-' || step == 0)
			return vp_fail(e, col + 1 + i,
			               "bad range '[%.*s]': the step after x must be a positive integer (a "
			               "descending range is written [high:low])",
			               (int)n, t);
		nd->step = (uint64_t)step;
		i += 1 + u;
	}
	if (i < n && t[i] == '%') {
		if (parse_fmt(t + i + 1, n - i - 1, &nd->width, e, col + 1 + i) != 0)
			return -1;
		i = n;
	}
	if (i != n)
		return vp_fail(e, col + 1 + i, "bad range '[%.*s]': unexpected '%c'", (int)n, t, t[i]);
	nd->down = nd->last < nd->first;
	uint64_t span = nd->down ? (uint64_t)nd->first - (uint64_t)nd->last : (uint64_t)nd->last - (uint64_t)nd->first;

	if (nd->op == VP_SEQ && span / nd->step == UINT64_MAX)
		return vp_fail(e, col, "bad range '[%.*s]': more than 2^64-1 values", (int)n, t);
	nd->count = span / nd->step + 1;
	u = num_len(nd->last, nd->width);
	nd->maxlen = num_len(nd->first, nd->width);
	nd->maxlen = u > nd->maxlen ? u : nd->maxlen;
	return 0;
}

/* zipf:A-B:S[%FORMAT]: rank 1 is A. */
static int parse_zipf(struct vp_node *nd, const char *t, size_t n, size_t col, const struct vp_err *e)
{
	const char *colon = memchr(t + 5, ':', n - 5), *pct;
	char num[64], *end;

	if (colon == NULL)
		return vp_fail(e, col, "bad range '[%.*s]': expected [zipf:A-B:EXPONENT]", (int)n, t);
	size_t rlen = (size_t)(colon - t - 5);

	if (parse_range(nd, t + 5, rlen, col + 5, e) != 0)
		return -1;
	if (nd->op != VP_RAND || nd->width != 0)
		return vp_fail(e, col, "bad range '[%.*s]': expected [zipf:A-B:EXPONENT[%%FORMAT]]", (int)n, t);
	pct = memchr(colon, '%', n - (size_t)(colon - t));
	size_t slen = (size_t)((pct ? pct : t + n) - colon - 1);

	if (slen == 0 || slen >= sizeof(num))
		return vp_fail(e, col, "bad range '[%.*s]': zipf's exponent is missing", (int)n, t);
	memcpy(num, colon + 1, slen);
	num[slen] = '\0';
	errno = 0;
	double s = strtod(num, &end);

	if (*end != '\0' || errno != 0 || ldb_zipf_init(&nd->zipf, nd->count, s) != 0)
		return vp_fail(e, col,
		               "bad range '[%.*s]': zipf needs an exponent above 0 and at most 100, and at most "
		               "2^53 values",
		               (int)n, t);
	if (pct != NULL) {
		if (parse_fmt(pct + 1, n - (size_t)(pct - t) - 1, &nd->width, e, col + (size_t)(pct - t)) != 0)
			return -1;
		size_t a = num_len(nd->first, nd->width), b = num_len(nd->last, nd->width);

		nd->maxlen = a > b ? a : b;
	}
	nd->op = VP_ZIPF;
	return 0;
}

/* ---- the other kinds ---- */

/* random:N[:ALPHABET] */
static int parse_random(struct vp_node *nd, const char *t, size_t n, size_t col, const struct vp_err *e)
{
	int64_t len;
	size_t u = parse_i64(t + 7, n - 7, &len);

	if (u == 0 || t[7] == '-' || len < 1 || len > LDB_VP_RANDOM_MAX || (7 + u < n && t[7 + u] != ':'))
		return vp_fail(e, col,
		               "bad random string '[%.*s]': expected [random:LENGTH[:ALPHABET]], length 1 to %d",
		               (int)n, t, LDB_VP_RANDOM_MAX);
	nd->op = VP_STR;
	nd->len = (size_t)len;
	nd->maxlen = nd->len;
	if (7 + u == n) {
		nd->alpha = "abcdefghijklmnopqrstuvwxyz";
		nd->nalpha = 26;
		return 0;
	}
	nd->alpha = t + 8 + u;
	nd->nalpha = (uint32_t)(n - 8 - u);
	if (nd->nalpha == 0)
		return vp_fail(e, col, "bad random string '[%.*s]': the alphabet after ':' is empty", (int)n, t);
	return 0;
}

/* file:, randomfile:, sequentialfile:, streamfile: and the path after it */
static int parse_file(struct vp_node *nd, enum vp_op op, const char *path, size_t n, size_t col, const struct vp_err *e)
{
	char buf[4096];

	if (n >= 3 && memcmp(path, "///", 3) == 0) { /* file:///abs/path */
		path += 2;
		n -= 2;
	} else if (n >= 2 && memcmp(path, "//", 2) == 0) {
		return vp_fail(e, col, "file '%.*s': only local files (file:///path or file:path)", (int)n, path);
	}
	if (n == 0)
		return vp_fail(e, col, "missing file name");
	if (n >= sizeof(buf))
		return vp_fail(e, col, "file name longer than %zu bytes", sizeof(buf) - 1);
	memcpy(buf, path, n);
	buf[n] = '\0';
	nd->op = op;
	if (op == VP_STREAM) {
		if (vp_open_stream(&nd->stream, buf, e, col) != 0)
			return -1;
		nd->maxlen = nd->stream.maxline;
		return 0;
	}
	return vp_load_lines(&nd->lines, buf, e, col, &nd->maxlen);
}

static int parse_ref(struct ldb_vp *p, struct vp_node *nd, const char *t, size_t n, size_t col, const struct vp_err *e)
{
	int64_t k;
	size_t u = parse_i64(t + 4, n - 4, &k);

	if (u == 0 || 4 + u != n || k < 1)
		return vp_fail(e, col, "bad reference '[%.*s]': expected [ref:N], N from 1", (int)n, t);
	if (k > nd->bracket)
		return vp_fail(e, col, "[%.*s] refers to bracket %lld, but %d bracket expression%s precede%s it",
		               (int)n, t, (long long)k, nd->bracket, nd->bracket == 1 ? "" : "s",
		               nd->bracket == 1 ? "s" : "");
	nd->op = VP_REF;
	nd->ref = (int)k - 1;
	p->has_refs = true;
	nd->maxlen = p->node[p->bracket_node[nd->ref]].maxlen;
	return 0;
}

static bool prefix(const char *t, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && memcmp(t, word, w) == 0;
}

/* The bracket t[0..n) (without its brackets); col: the column of its '['. */
static int parse_bracket(struct ldb_vp *p, struct vp_node *nd, const char *t, size_t n, size_t col,
                         const struct vp_err *e)
{
	if (prefix(t, n, "random:"))
		return parse_random(nd, t, n, col, e);
	if (prefix(t, n, "file:"))
		return parse_file(nd, VP_FILE, t + 5, n - 5, col, e);
	if (prefix(t, n, "randomfile:"))
		return parse_file(nd, VP_FILE, t + 11, n - 11, col, e);
	if (prefix(t, n, "sequentialfile:"))
		return parse_file(nd, VP_SEQFILE, t + 15, n - 15, col, e);
	if (prefix(t, n, "streamfile:"))
		return parse_file(nd, VP_STREAM, t + 11, n - 11, col, e);
	if (prefix(t, n, "ref:"))
		return parse_ref(p, nd, t, n, col, e);
	if (prefix(t, n, "zipf:"))
		return parse_zipf(nd, t, n, col, e);
	if (n == 4 && memcmp(t, "uuid", 4) == 0) {
		nd->op = VP_UUID;
		nd->maxlen = 36;
		return 0;
	}
	if (prefix(t, n, "timestamp") && (n == 9 || t[9] == ':')) {
		nd->op = VP_TIME;
		return vp_parse_time(&nd->time, t, n, e, col, &nd->maxlen);
	}
	if (prefix(t, n, "http:") || prefix(t, n, "https:"))
		return vp_fail(e, col,
		               "unknown pattern '[%.*s]': files over HTTP are not supported (download it, then "
		               "[file:PATH])",
		               (int)n, t);
	if (n > 0 && ((t[0] >= '0' && t[0] <= '9') || t[0] == '-'))
		return parse_range(nd, t, n, col, e);
	return vp_fail(e, col,
	               "unknown pattern '[%.*s]' (known: [A-B] [A:B] random: file: randomfile: sequentialfile: "
	               "streamfile: timestamp uuid ref: zipf:; '[[' is a literal '[')",
	               (int)n, t);
}

/* A literal character, appended to the current literal node (or a new one). */
static void put_lit(struct ldb_vp *p, struct vp_node **lit, char **lw, char c)
{
	if (*lit == NULL) {
		*lit = &p->node[p->nnodes++];
		(*lit)->op = VP_LIT;
		(*lit)->bracket = -1;
		(*lit)->slot = -1;
		(*lit)->lit = *lw;
	}
	*(*lw)++ = c;
	(*lit)->litlen++;
	(*lit)->maxlen++;
}

static int parse(struct ldb_vp *p, const struct vp_err *e)
{
	const char *s = p->text;
	size_t n = strlen(s), i = 0;
	char *lw = p->lits;
	struct vp_node *lit = NULL;

	while (i < n) {
		char c = s[i];

		if ((c == '[' || c == ']') && s[i + 1] == c) {
			put_lit(p, &lit, &lw, c);
			i += 2;
			continue;
		}
		if (c == ']')
			return vp_fail(e, i + 1, "unmatched ']' (write ']]' for a literal ']')");
		if (c != '[') {
			put_lit(p, &lit, &lw, c);
			i++;
			continue;
		}
		const char *close = memchr(s + i + 1, ']', n - i - 1);

		if (close == NULL)
			return vp_fail(e, i + 1, "unterminated bracket: no ']' closes this '['");
		if (p->nbrackets == LDB_VP_MAX_BRACKETS)
			return vp_fail(e, i + 1, "more than %d bracket expressions", LDB_VP_MAX_BRACKETS);
		struct vp_node *nd = &p->node[p->nnodes++];

		nd->bracket = p->nbrackets;
		nd->slot = -1;
		nd->stream.fd = -1;
		p->bracket_node[p->nbrackets++] = p->nnodes - 1;
		lit = NULL;
		if (parse_bracket(p, nd, s + i + 1, (size_t)(close - s) - i - 1, i + 1, e) != 0)
			return -1;
		if (nd->op == VP_SEQ || nd->op == VP_SEQFILE || nd->op == VP_STREAM)
			nd->slot = p->nslots++;
		i = (size_t)(close - s) + 1;
	}
	return 0;
}

int ldb_vp_compile(struct ldb_vp **out, const char *text, char *err, size_t cap)
{
	struct vp_err e = { text, err, cap };
	size_t n = strlen(text);
	struct ldb_vp *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return vp_fail(&e, 1, "out of memory");
	p->text = strdup(text);
	p->lits = malloc(n + 1);
	p->node = calloc(n + 1, sizeof(*p->node)); /* one node per byte at most */
	if (p->text == NULL || p->lits == NULL || p->node == NULL) {
		ldb_vp_free(p);
		return vp_fail(&e, 1, "out of memory");
	}
	if (parse(p, &e) != 0) {
		ldb_vp_free(p);
		return -1;
	}
	for (int i = 0; i < p->nnodes; i++)
		p->maxlen += p->node[i].maxlen;
	*out = p;
	return 0;
}

void ldb_vp_free(struct ldb_vp *p)
{
	if (p == NULL)
		return;
	for (int i = 0; p->node != NULL && i < p->nnodes; i++) {
		struct vp_node *nd = &p->node[i];

		free(nd->lines.buf);
		free(nd->lines.line);
		free(nd->lines.len);
		free(nd->time.tok);
		if (nd->op == VP_STREAM && nd->stream.fd >= 0)
			close(nd->stream.fd);
	}
	free(p->node);
	free(p->lits);
	free(p->text);
	free(p);
}

bool ldb_vp_streams(const struct ldb_vp *p)
{
	for (int i = 0; i < p->nnodes; i++)
		if (p->node[i].op == VP_STREAM)
			return true;
	return false;
}

size_t ldb_vp_max_len(const struct ldb_vp *p)
{
	return p->maxlen;
}

int ldb_vp_brackets(const struct ldb_vp *p)
{
	return p->nbrackets;
}

const char *ldb_vp_text(const struct ldb_vp *p)
{
	return p->text;
}

/* ---- per-client state ---- */

int ldb_vp_state_new(const struct ldb_vp *p, unsigned client, unsigned nclients, struct ldb_vp_state **out, char *err,
                     size_t cap)
{
	struct ldb_vp_state *st;

	*out = NULL;
	if (nclients == 0)
		nclients = 1;
	if (client >= nclients) {
		snprintf(err, cap, "pattern '%s': client %u of %u does not exist", p->text, client, nclients);
		return -1;
	}
	st = calloc(1, sizeof(*st) + (size_t)p->nslots * sizeof(st->slot[0]));
	if (st == NULL) {
		snprintf(err, cap, "pattern '%s': out of memory", p->text);
		return -1;
	}
	st->fixed_ms = INT64_MIN;
	st->nslots = p->nslots;
	for (int i = 0; i < p->nnodes; i++) {
		const struct vp_node *nd = &p->node[i];
		struct vp_slot *sl = nd->slot >= 0 ? &st->slot[nd->slot] : NULL;

		if (sl == NULL)
			continue;
		sl->node = i;
		if (nd->op == VP_STREAM) {
			if (vp_stream_slot(&nd->stream, sl, client, nclients) != 0) {
				ldb_vp_state_free(st);
				snprintf(err, cap, "pattern '%s': out of memory", p->text);
				return -1;
			}
			continue;
		}
		sl->count = nd->op == VP_SEQ ? nd->count : nd->lines.n;
		sl->pos = client % sl->count;
		sl->stride = nclients % sl->count;
	}
	*out = st;
	return 0;
}

void ldb_vp_state_free(struct ldb_vp_state *st)
{
	if (st == NULL)
		return;
	for (int i = 0; i < st->nslots; i++)
		free(st->slot[i].buf);
	free(st);
}

void ldb_vp_state_fix_time(struct ldb_vp_state *st, int64_t epoch_ms)
{
	st->fixed_ms = epoch_ms;
}

uint64_t ldb_vp_stream_misses(const struct ldb_vp_state *st)
{
	return st->misses;
}

int ldb_vp_prefetch(const struct ldb_vp *p, struct ldb_vp_state *st)
{
	for (int i = 0; i < st->nslots; i++) {
		struct vp_slot *sl = &st->slot[i];

		if (p->node[sl->node].op != VP_STREAM || sl->tail - sl->head >= sl->cap / 2)
			continue;
		if (vp_refill(&p->node[sl->node].stream, sl) != 0)
			return -1;
	}
	return 0;
}

/* ---- render ---- */

/* This client's next position in a sequence of sl->count. */
static uint64_t next_pos(struct vp_slot *sl)
{
	uint64_t pos = sl->pos;

	if (sl->pos >= sl->count - sl->stride)
		sl->pos -= sl->count - sl->stride;
	else
		sl->pos += sl->stride;
	return pos;
}

static size_t put_uuid(char *dst, struct ldb_rng *rng)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t w[2] = { ldb_rng_next(rng), ldb_rng_next(rng) };
	uint8_t b[16];
	size_t o = 0;

	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)(w[i / 8] >> (8 * (i % 8)));
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 (RFC 4122) */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			dst[o++] = '-';
		dst[o++] = hex[b[i] >> 4];
		dst[o++] = hex[b[i] & 15];
	}
	return o;
}

static size_t put_random(char *dst, const struct vp_node *nd, struct ldb_rng *rng)
{
	const uint64_t m = nd->nalpha;
	size_t i = 0;

	/* two characters per draw, each by multiply-shift on 32 bits */
	while (i < nd->len) {
		uint64_t x = ldb_rng_next(rng);

		dst[i++] = nd->alpha[((x & 0xffffffffu) * m) >> 32];
		if (i < nd->len)
			dst[i++] = nd->alpha[((x >> 32) * m) >> 32];
	}
	return nd->len;
}

static int64_t seq_value(const struct vp_node *nd, uint64_t pos)
{
	uint64_t d = pos * nd->step;

	return (int64_t)(nd->down ? (uint64_t)nd->first - d : (uint64_t)nd->first + d);
}

static size_t put_node(const struct vp_node *nd, struct ldb_vp_state *st, struct ldb_rng *rng, char *dst)
{
	uint64_t k;

	switch (nd->op) {
	case VP_LIT: memcpy(dst, nd->lit, nd->litlen); return nd->litlen;
	case VP_RAND: return put_num(dst, ldb_rng_range(rng, nd->first, nd->last), nd->width);
	case VP_SEQ: return put_num(dst, seq_value(nd, next_pos(&st->slot[nd->slot])), nd->width);
	case VP_ZIPF: return put_num(dst, seq_value(nd, ldb_zipf_draw(&nd->zipf, rng) - 1), nd->width);
	case VP_STR: return put_random(dst, nd, rng);
	case VP_FILE:
	case VP_SEQFILE:
		k = nd->op == VP_FILE ? (uint64_t)ldb_rng_range(rng, 0, (int64_t)nd->lines.n - 1)
		                      : next_pos(&st->slot[nd->slot]);
		memcpy(dst, nd->lines.line[k], nd->lines.len[k]);
		return nd->lines.len[k];
	case VP_STREAM: return vp_put_stream(dst, &nd->stream, &st->slot[nd->slot], &st->misses);
	case VP_UUID: return put_uuid(dst, rng);
	case VP_TIME: return vp_put_time(dst, &nd->time, st->fixed_ms != INT64_MIN ? st->fixed_ms : vp_now_ms(), rng);
	case VP_REF: return 0; /* copied by the caller */
	}
	return 0;
}

/* Render, remembering where each bracket's value went when span is given (or
 * when a [ref:N] needs it). */
static size_t render(const struct ldb_vp *p, struct ldb_vp_state *st, struct ldb_rng *rng, char *out, size_t cap,
                     uint32_t span[][2])
{
	size_t off[LDB_VP_MAX_BRACKETS], len[LDB_VP_MAX_BRACKETS];
	size_t o = 0;

	if (cap < p->maxlen)
		return 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct vp_node *nd = &p->node[i];
		size_t n;

		if (nd->op == VP_REF) {
			n = len[nd->ref];
			memmove(out + o, out + off[nd->ref], n);
		} else {
			n = put_node(nd, st, rng, out + o);
		}
		if (nd->bracket >= 0 && (p->has_refs || span != NULL)) {
			off[nd->bracket] = o;
			len[nd->bracket] = n;
			if (span != NULL) {
				span[nd->bracket][0] = (uint32_t)o;
				span[nd->bracket][1] = (uint32_t)n;
			}
		}
		o += n;
	}
	return o;
}

size_t ldb_vp_render(const struct ldb_vp *p, struct ldb_vp_state *st, struct ldb_rng *rng, char *out, size_t cap)
{
	return render(p, st, rng, out, cap, NULL);
}

size_t ldb_vp_render_spans(const struct ldb_vp *p, struct ldb_vp_state *st, struct ldb_rng *rng, char *out, size_t cap,
                           uint32_t span[][2])
{
	return render(p, st, rng, out, cap, span);
}

size_t ldb_vp_skeleton(const struct ldb_vp *p, char *out, size_t cap, uint8_t tag)
{
	size_t o = 0;

	for (int i = 0; i < p->nnodes; i++) {
		const struct vp_node *nd = &p->node[i];
		size_t n = nd->op == VP_LIT ? nd->litlen : LDB_VP_MARK_LEN;
		if (o + n + 1 > cap)
			return 0;
		if (nd->op == VP_LIT) {
			memcpy(out + o, nd->lit, n);
		} else {
			out[o] = LDB_VP_MARK;
			out[o + 1] = (char)tag;
			out[o + 2] = (char)(0x40 + nd->bracket);
		}
		o += n;
	}
	out[o] = '\0';
	return o;
}

/* A number range's bracket, or a [ref:N] (the value of an earlier one). */
static bool ranged_node(const struct vp_node *nd)
{
	return nd->op == VP_LIT || nd->op == VP_RAND || nd->op == VP_SEQ || nd->op == VP_ZIPF || nd->op == VP_REF;
}

bool ldb_vp_ranged(const struct ldb_vp *p)
{
	for (int i = 0; i < p->nnodes; i++)
		if (!ranged_node(&p->node[i]))
			return false;
	return p->nbrackets > 0;
}

size_t ldb_vp_render_at(const struct ldb_vp *p, int at, int points, char *out, size_t cap)
{
	size_t off[LDB_VP_MAX_BRACKETS], len[LDB_VP_MAX_BRACKETS];
	size_t o = 0;

	if (cap < p->maxlen || !ldb_vp_ranged(p) || points < 2 || at < 0 || at >= points)
		return 0;
	for (int i = 0; i < p->nnodes; i++) {
		const struct vp_node *nd = &p->node[i];
		size_t n;

		if (nd->op == VP_LIT) {
			memcpy(out + o, nd->lit, nd->litlen);
			n = nd->litlen;
		} else if (nd->op == VP_REF) {
			n = len[nd->ref];
			memmove(out + o, out + off[nd->ref], n);
		} else { /* position at/(points-1) of the range, from its first bound */
			uint64_t pos = (uint64_t)((long double)(nd->count - 1) * at / (points - 1));
			n = put_num(out + o, seq_value(nd, pos), nd->width);
		}
		if (nd->bracket >= 0) {
			off[nd->bracket] = o;
			len[nd->bracket] = n;
		}
		o += n;
	}
	return o;
}
