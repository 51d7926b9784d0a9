/* The small JSON reader of json.h: recursive descent over one
 * text, RFC 8259 grammar, a depth limit, exact 64-bit integers. */
#include "report/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *s;
	size_t len, pos;
	char *err;
	size_t cap;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = true;
	if (p->err == NULL || p->cap == 0)
		return;
	n = snprintf(p->err, p->cap, "column %zu: ", p->pos + 1);
	if (n < 0 || (size_t)n >= p->cap)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->cap - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Byte c as an error shows it: itself when printable ASCII, else \xNN (the
 * error stays one line of text). */
static const char *shown(char c, char buf[8])
{
	unsigned char u = (unsigned char)c;
	if (u > 0x20 && u < 0x7f)
		snprintf(buf, 8, "%c", c);
	else
		snprintf(buf, 8, "\\x%02x", u);
	return buf;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static struct ldb_json *new_node(struct parser *p, enum ldb_json_type t)
{
	struct ldb_json *v = calloc(1, sizeof *v);
	if (v == NULL)
		fail(p, "out of memory");
	else
		v->type = t;
	return v;
}

/* A growing byte buffer for decoded strings. */
struct buf {
	char *d;
	size_t n, cap;
};

static int buf_put(struct buf *b, const char *src, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *d = realloc(b->d, cap);
		if (d == NULL)
			return -1;
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->n, src, n);
	b->n += n;
	b->d[b->n] = '\0';
	return 0;
}

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;
	if (p->len - p->pos < 4) {
		fail(p, "truncated \\u escape");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else {
			p->pos--;
			fail(p, "bad hex digit in \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static size_t utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* After "\\u": one code point (a surrogate pair joined), as UTF-8 in o.
 * @return its length, or 0 with the error set. */
static size_t parse_unicode(struct parser *p, char o[4])
{
	unsigned cp, lo;
	if (hex4(p, &cp) != 0)
		return 0;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		fail(p, "lone low surrogate in \\u escape");
		return 0;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
			fail(p, "high surrogate without its low half");
			return 0;
		}
		p->pos += 2;
		if (hex4(p, &lo) != 0)
			return 0;
		if (lo < 0xdc00 || lo > 0xdfff) {
			fail(p, "high surrogate without its low half");
			return 0;
		}
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0) {
		fail(p, "\\u0000 in a string");
		return 0;
	}
	return utf8(cp, o);
}

/* After a backslash: the escaped character(s) in o.  @return their length, or
 * 0 with the error set. */
static size_t parse_escape(struct parser *p, char o[4])
{
	if (p->pos >= p->len) {
		fail(p, "unterminated string");
		return 0;
	}
	char e = p->s[p->pos++];
	switch (e) {
	case '"': o[0] = '"'; return 1;
	case '\\': o[0] = '\\'; return 1;
	case '/': o[0] = '/'; return 1;
	case 'b': o[0] = '\b'; return 1;
	case 'f': o[0] = '\f'; return 1;
	case 'n': o[0] = '\n'; return 1;
	case 'r': o[0] = '\r'; return 1;
	case 't': o[0] = '\t'; return 1;
	case 'u': return parse_unicode(p, o);
	default:
		p->pos--;
		char b[8];
		fail(p, "bad escape '\\%s'", shown(e, b));
		return 0;
	}
}

/* At the opening quote: decode the string into *out (malloc'ed). */
static int parse_string(struct parser *p, char **out, size_t *outlen)
{
	struct buf b = { 0 };

	p->pos++; /* '"' */
	if (buf_put(&b, "", 0) != 0)
		goto oom;
	for (;;) {
		size_t start = p->pos;
		while (p->pos < p->len && p->s[p->pos] != '"' && p->s[p->pos] != '\\' &&
		       (unsigned char)p->s[p->pos] >= 0x20)
			p->pos++;
		if (buf_put(&b, p->s + start, p->pos - start) != 0)
			goto oom;
		if (p->pos >= p->len) {
			fail(p, "unterminated string");
			goto bad;
		}
		char c = p->s[p->pos];
		if (c == '"') {
			p->pos++;
			break;
		}
		if (c != '\\') {
			fail(p, "control character in a string");
			goto bad;
		}
		p->pos++;
		char o[4];
		size_t n = parse_escape(p, o);
		if (n == 0)
			goto bad;
		if (buf_put(&b, o, n) != 0)
			goto oom;
	}
	*out = b.d;
	*outlen = b.n;
	return 0;
oom:
	fail(p, "out of memory");
bad:
	free(b.d);
	return -1;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static struct ldb_json *parse_number(struct parser *p)
{
	size_t start = p->pos;

	if (peek(p) == '-')
		p->pos++;
	if (peek(p) == '0') {
		p->pos++;
	} else if (is_digit(peek(p))) {
		while (is_digit(peek(p)))
			p->pos++;
	} else {
		fail(p, "bad number");
		return NULL;
	}
	if (peek(p) == '.') {
		p->pos++;
		if (!is_digit(peek(p))) {
			fail(p, "bad number: digits must follow '.'");
			return NULL;
		}
		while (is_digit(peek(p)))
			p->pos++;
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		p->pos++;
		if (peek(p) == '+' || peek(p) == '-')
			p->pos++;
		if (!is_digit(peek(p))) {
			fail(p, "bad number: digits must follow the exponent");
			return NULL;
		}
		while (is_digit(peek(p)))
			p->pos++;
	}
	struct ldb_json *v = new_node(p, LDB_JSON_NUMBER);
	if (v == NULL)
		return NULL;
	v->len = p->pos - start;
	v->text = strndup(p->s + start, v->len);
	if (v->text == NULL) {
		free(v);
		fail(p, "out of memory");
		return NULL;
	}
	v->number = strtod(v->text, NULL);
	return v;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);
	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
		return false;
	p->pos += n;
	return true;
}

static struct ldb_json *parse_value(struct parser *p, int depth);

/* Array or object, at its opening bracket. */
static struct ldb_json *parse_container(struct parser *p, int depth, bool object)
{
	char close = object ? '}' : ']';
	struct ldb_json *v, **tail;

	if (depth >= LDB_JSON_MAX_DEPTH) {
		fail(p, "nested deeper than %d levels", LDB_JSON_MAX_DEPTH);
		return NULL;
	}
	v = new_node(p, object ? LDB_JSON_OBJECT : LDB_JSON_ARRAY);
	if (v == NULL)
		return NULL;
	tail = &v->child;
	p->pos++;
	skip_ws(p);
	if (peek(p) == close) {
		p->pos++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;
		skip_ws(p);
		if (object) {
			if (peek(p) != '"') {
				fail(p, "expected a member name");
				goto bad;
			}
			if (parse_string(p, &key, &klen) != 0)
				goto bad;
			skip_ws(p);
			if (peek(p) != ':') {
				free(key);
				fail(p, "expected ':'");
				goto bad;
			}
			p->pos++;
		}
		struct ldb_json *e = parse_value(p, depth + 1);
		if (e == NULL) {
			free(key);
			goto bad;
		}
		e->key = key;
		*tail = e;
		tail = &e->next;
		v->count++;
		skip_ws(p);
		if (peek(p) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p) == close) {
			p->pos++;
			return v;
		}
		fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
		goto bad;
	}
bad:
	ldb_json_free(v);
	return NULL;
}

static struct ldb_json *parse_value(struct parser *p, int depth)
{
	struct ldb_json *v;

	skip_ws(p);
	switch (peek(p)) {
	case '{': return parse_container(p, depth, true);
	case '[': return parse_container(p, depth, false);
	case '"':
		v = new_node(p, LDB_JSON_STRING);
		if (v != NULL && parse_string(p, &v->text, &v->len) != 0) {
			free(v);
			v = NULL;
		}
		return v;
	case 't':
	case 'f':
		if (literal(p, "true") || literal(p, "false")) {
			bool is_true = p->s[p->pos - 1] == 'e' && p->s[p->pos - 4] == 't';
			v = new_node(p, LDB_JSON_BOOL);
			if (v != NULL)
				v->boolean = is_true;
			return v;
		}
		break;
	case 'n':
		if (literal(p, "null"))
			return new_node(p, LDB_JSON_NULL);
		break;
	case -1: fail(p, "unexpected end of text"); return NULL;
	default:
		if (peek(p) == '-' || is_digit(peek(p)))
			return parse_number(p);
		break;
	}
	char b[8];
	fail(p, "unexpected character '%s'", shown(p->s[p->pos], b));
	return NULL;
}

struct ldb_json *ldb_json_parse(const char *text, size_t len, char *err, size_t cap)
{
	struct parser p = { .s = text, .len = len, .err = err, .cap = cap };
	struct ldb_json *v;

	if (err != NULL && cap > 0)
		err[0] = '\0';
	if (text == NULL) {
		p.len = 0;
		p.s = "";
	}
	v = parse_value(&p, 0);
	if (v == NULL)
		return NULL;
	skip_ws(&p);
	if (p.pos < p.len) {
		fail(&p, "unexpected text after the value");
		ldb_json_free(v);
		return NULL;
	}
	return v;
}

void ldb_json_free(struct ldb_json *v)
{
	while (v != NULL) {
		struct ldb_json *next = v->next;
		ldb_json_free(v->child);
		free(v->text);
		free(v->key);
		free(v);
		v = next;
	}
}

const struct ldb_json *ldb_json_get(const struct ldb_json *obj, const char *key)
{
	if (obj == NULL || obj->type != LDB_JSON_OBJECT || key == NULL)
		return NULL;
	for (const struct ldb_json *m = obj->child; m != NULL; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const struct ldb_json *ldb_json_path(const struct ldb_json *obj, const char *path)
{
	char name[256];

	while (obj != NULL && path != NULL) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof name)
			return NULL;
		memcpy(name, path, n);
		name[n] = '\0';
		obj = ldb_json_get(obj, name);
		path = dot ? dot + 1 : NULL;
	}
	return obj;
}

int ldb_json_u64(const struct ldb_json *v, uint64_t *out)
{
	if (v == NULL || v->type != LDB_JSON_NUMBER || v->text[0] == '-')
		return -1;
	for (size_t i = 0; i < v->len; i++)
		if (!is_digit((unsigned char)v->text[i]))
			return -1;
	errno = 0;
	unsigned long long x = strtoull(v->text, NULL, 10);
	if (errno == ERANGE)
		return -1;
	*out = (uint64_t)x;
	return 0;
}

int ldb_json_ll(const struct ldb_json *v, long long *out)
{
	if (v == NULL || v->type != LDB_JSON_NUMBER)
		return -1;
	for (size_t i = v->text[0] == '-' ? 1 : 0; i < v->len; i++)
		if (!is_digit((unsigned char)v->text[i]))
			return -1;
	errno = 0;
	long long x = strtoll(v->text, NULL, 10);
	if (errno == ERANGE)
		return -1;
	*out = x;
	return 0;
}

int ldb_json_double(const struct ldb_json *v, double *out)
{
	if (v == NULL || v->type != LDB_JSON_NUMBER || !isfinite(v->number))
		return -1;
	*out = v->number;
	return 0;
}

const char *ldb_json_str(const struct ldb_json *v)
{
	return v != NULL && v->type == LDB_JSON_STRING ? v->text : NULL;
}

void ldb_json_put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p != '\0'; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}
