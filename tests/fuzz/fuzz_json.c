/* libFuzzer target: the JSON reader of our records (src/report/json.h).
 *
 * The input is one JSON text for ldb_json_parse.  When it is refused, the
 * error must be one line that names its column.  When it parses, the tree must
 * hold together (a container's count is its children's, a string has no NUL
 * and its length, a number its source text), and writing the tree back (names
 * and strings with ldb_json_put_string, numbers as written) must parse again
 * into the same tree.  Aborts otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tree(const struct ldb_json *v)
{
	size_t n = 0;
	switch (v->type) {
	case LDB_JSON_STRING:
		if (v->text == NULL || strlen(v->text) != v->len)
			abort();
		break;
	case LDB_JSON_NUMBER:
		if (v->text == NULL || v->len == 0 || strlen(v->text) != v->len)
			abort();
		break;
	case LDB_JSON_ARRAY:
	case LDB_JSON_OBJECT:
		for (const struct ldb_json *c = v->child; c != NULL; c = c->next, n++) {
			if ((v->type == LDB_JSON_OBJECT) != (c->key != NULL))
				abort();
			check_tree(c);
		}
		if (n != v->count)
			abort();
		break;
	default: break;
	}
}

static void write_tree(FILE *f, const struct ldb_json *v)
{
	switch (v->type) {
	case LDB_JSON_NULL: fputs("null", f); break;
	case LDB_JSON_BOOL: fputs(v->boolean ? "true" : "false", f); break;
	case LDB_JSON_NUMBER: fputs(v->text, f); break;
	case LDB_JSON_STRING: ldb_json_put_string(f, v->text); break;
	case LDB_JSON_ARRAY:
	case LDB_JSON_OBJECT:
		fputc(v->type == LDB_JSON_ARRAY ? '[' : '{', f);
		for (const struct ldb_json *c = v->child; c != NULL; c = c->next) {
			if (c != v->child)
				fputc(',', f);
			if (c->key != NULL) {
				ldb_json_put_string(f, c->key);
				fputc(':', f);
			}
			write_tree(f, c);
		}
		fputc(v->type == LDB_JSON_ARRAY ? ']' : '}', f);
		break;
	}
}

static int same(const struct ldb_json *a, const struct ldb_json *b)
{
	if (a->type != b->type || a->boolean != b->boolean || a->count != b->count ||
	    (a->key == NULL) != (b->key == NULL) || (a->key != NULL && strcmp(a->key, b->key) != 0) ||
	    (a->text == NULL) != (b->text == NULL) || (a->text != NULL && strcmp(a->text, b->text) != 0))
		return 0;
	const struct ldb_json *x = a->child, *y = b->child;
	for (; x != NULL && y != NULL; x = x->next, y = y->next)
		if (!same(x, y))
			return 0;
	return x == NULL && y == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[200];
	if (size > 65536)
		return 0;
	struct ldb_json *v = ldb_json_parse((const char *)data, size, err, sizeof err);
	if (v == NULL) { /* one line, naming its column */
		if (strncmp(err, "column ", 7) != 0 && strcmp(err, "out of memory") != 0)
			abort();
		if (strchr(err, '\n') != NULL)
			abort();
		return 0;
	}
	check_tree(v);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) {
		ldb_json_free(v);
		return 0;
	}
	write_tree(f, v);
	fclose(f);
	struct ldb_json *w = ldb_json_parse(buf, len, err, sizeof err);
	if (w == NULL || !same(v, w))
		abort();
	uint64_t u;
	long long ll;
	double d;
	(void)ldb_json_u64(v, &u);
	(void)ldb_json_ll(v, &ll);
	(void)ldb_json_double(v, &d);
	(void)ldb_json_path(v, "ops.search.latency_us");
	ldb_json_free(w);
	ldb_json_free(v);
	free(buf);
	return 0;
}
