/* Option tables: see optable.h. */
#include "util/optable.h"

#include <string.h>

const struct ldb_opt *ldb_opt_find(const struct ldb_opt *t, const char *word)
{
	if (word[0] != '-' || word[1] == '\0')
		return NULL;
	if (word[1] != '-') {
		for (; word[2] == '\0' && (t->name != NULL || t->letter != 0); t++)
			if (t->letter == (unsigned char)word[1])
				return t;
		return NULL;
	}
	const char *name = word + 2;
	size_t n = strcspn(name, "=");
	for (; t->name != NULL || t->letter != 0; t++)
		if (t->name != NULL && strlen(t->name) == n && strncmp(t->name, name, n) == 0)
			return t;
	return NULL;
}

const struct ldb_opt *ldb_opt_by_id(const struct ldb_opt *t, int id)
{
	for (; t->name != NULL || t->letter != 0; t++)
		if (t->id == id)
			return t;
	return NULL;
}

int ldb_opt_getopt(const struct ldb_opt *t, struct option *lo, size_t nlo, char *shorts, size_t nshorts)
{
	size_t nl = 0, ns = 0;
	if (nshorts < 2 || nlo < 1)
		return -1;
	shorts[ns++] = ':'; /* a missing value is ':', told from an unknown option '?' */
	for (; t->name != NULL || t->letter != 0; t++) {
		if (t->letter != 0) {
			if (ns + 3 > nshorts)
				return -1;
			shorts[ns++] = (char)t->letter;
			if (ldb_opt_valued(t))
				shorts[ns++] = ':';
		}
		if (t->name != NULL) {
			if (nl + 2 > nlo)
				return -1;
			lo[nl++] = (struct option){ t->name, ldb_opt_valued(t) ? required_argument : no_argument, NULL,
				                    t->id };
		}
	}
	shorts[ns] = '\0';
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

/* "  -x META" or "  --name META" and the padding to col; a longer one is
 * followed by two blanks. */
static void help_tag(const struct ldb_opt *o, int col, FILE *out)
{
	int n = o->name != NULL ? fprintf(out, "  --%s", o->name) : fprintf(out, "  -%c", o->letter);
	if (ldb_opt_valued(o))
		n += fprintf(out, " %s", o->metavar);
	fprintf(out, "%*s", n + 2 <= col ? col - n : 2, "");
}

void ldb_opt_help(const struct ldb_opt *t, int col_short, int col, FILE *out)
{
	for (; t->name != NULL || t->letter != 0; t++) {
		if (t->head != NULL)
			fputs(t->head, out);
		if (t->help == NULL)
			continue;
		int c = t->name == NULL ? col_short : col;
		help_tag(t, c, out);
		for (const char *p = t->help;;) {
			size_t n = strcspn(p, "\n");
			fprintf(out, "%.*s\n", (int)n, p);
			if (p[n] == '\0')
				break;
			p += n + 1;
			fprintf(out, "%*s", c, "");
		}
	}
}

void ldb_opt_dump(const char *cmd, const struct ldb_opt *t, FILE *out)
{
	for (; t->name != NULL || t->letter != 0; t++) {
		if (t->help == NULL)
			continue;
		if (t->name != NULL)
			fprintf(out, "%s\t--%s\t%s\t", cmd, t->name, ldb_opt_valued(t) ? t->metavar : "-");
		else
			fprintf(out, "%s\t-%c\t%s\t", cmd, t->letter, ldb_opt_valued(t) ? t->metavar : "-");
		for (const char *h = t->help; *h != '\0'; h++) /* its --help text on one line */
			fputc(*h == '\n' || *h == '\t' ? ' ' : *h, out);
		fputc('\n', out);
	}
}
