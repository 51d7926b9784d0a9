/* GNU-style command lines of the subcommands: see argv.h. */
#include "util/argv.h"

#include <stdlib.h>
#include <string.h>

static bool is_valued(const char *w, const char *const *valued)
{
	for (size_t i = 0; valued != NULL && valued[i] != NULL; i++)
		if (strcmp(w, valued[i]) == 0)
			return true;
	return false;
}

int ldb_argv_sort(int argc, char *const *argv, const char *const *valued, bool split, struct ldb_argv *out)
{
	size_t n = argc > 1 ? (size_t)argc : 1;
	memset(out, 0, sizeof *out);
	out->split = -1;
	out->opt = calloc(2 * n, sizeof *out->opt); /* one block: opt[] then arg[] */
	if (out->opt == NULL)
		return -1;
	out->arg = out->opt + n;
	bool options = true;
	for (int i = 1; i < argc; i++) {
		char *w = argv[i];
		if (options && strcmp(w, "--") == 0) {
			if (split && out->split < 0)
				out->split = out->narg;
			else
				options = false;
		} else if (options && w[0] == '-' && w[1] != '\0') {
			out->opt[out->nopt++] = w;
			if (is_valued(w, valued) && i + 1 < argc)
				out->opt[out->nopt++] = argv[++i];
		} else {
			out->arg[out->narg++] = w;
		}
	}
	return 0;
}

void ldb_argv_free(struct ldb_argv *a)
{
	free(a->opt);
	a->opt = a->arg = NULL;
	a->nopt = a->narg = 0;
}

bool ldb_argv_is(const char *o, const char *name)
{
	size_t n = strlen(name);
	return strncmp(o, name, n) == 0 && (o[n] == '\0' || o[n] == '=');
}

const char *ldb_argv_value(const struct ldb_argv *a, int *i, const char *name)
{
	const char *o = a->opt[*i];
	size_t n = strlen(name);
	if (o[n] == '=')
		return o + n + 1;
	return *i + 1 < a->nopt ? a->opt[++*i] : NULL;
}
