/* GNU-style command lines of the subcommands: see argv.h. */
#include "util/argv.h"

#include <stdlib.h>
#include <string.h>

/* Does word w (without '=') name an option of t that takes a value? */
static bool is_valued(const char *w, const struct ldb_opt *t)
{
	const struct ldb_opt *o = t != NULL ? ldb_opt_find(t, w) : NULL;
	return o != NULL && ldb_opt_valued(o) && strchr(w, '=') == NULL;
}

int ldb_argv_sort(int argc, char *const *argv, const struct ldb_opt *t, bool split, struct ldb_argv *out)
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
			if (is_valued(w, t) && i + 1 < argc)
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

enum ldb_argv_got ldb_argv_next(const struct ldb_argv *a, int *i, const struct ldb_opt *t, const struct ldb_opt **o,
                                const char **v)
{
	const char *w = a->opt[*i], *eq = w[1] == '-' ? strchr(w, '=') : NULL;
	*v = NULL;
	*o = ldb_opt_find(t, w);
	if (*o == NULL)
		return LDB_ARGV_UNKNOWN;
	if (!ldb_opt_valued(*o))
		return eq != NULL ? LDB_ARGV_NOT_VALUED : LDB_ARGV_OPT;
	if (eq != NULL)
		*v = eq + 1;
	else if (*i + 1 < a->nopt)
		*v = a->opt[++*i];
	return *v != NULL ? LDB_ARGV_OPT : LDB_ARGV_NO_VALUE;
}
