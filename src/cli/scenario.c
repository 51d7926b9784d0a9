/* Scenario files: split a file of ldbench options into (line, option, value)
 * triples with shell-like quoting.  See scenario.h. */
#include "cli/scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((format(printf, 5, 6))) static int sc_fail(char *err, size_t errcap, const char *name, int line,
                                                         const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL || errcap == 0)
		return -1;
	if (line > 0)
		n = snprintf(err, errcap, "%s:%d: ", name, line);
	else
		n = snprintf(err, errcap, "%s: ", name);
	if (n < 0)
		n = 0;
	if ((size_t)n < errcap) {
		va_start(ap, fmt);
		vsnprintf(err + n, errcap - (size_t)n, fmt, ap);
		va_end(ap);
	}
	for (char *p = err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

void ldb_scenario_free(struct ldb_scenario *sc)
{
	if (sc == NULL)
		return;
	for (size_t i = 0; i < sc->nopts; i++) {
		free(sc->opts[i].opt);
		free(sc->opts[i].val);
	}
	free(sc->opts);
	free(sc->path);
	free(sc->description);
	memset(sc, 0, sizeof(*sc));
}

/* The description: the comment's text without the '#'s and the blanks around it. */
static char *comment_text(const char *s, size_t len)
{
	while (len > 0 && (*s == '#' || *s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (len == 0)
		return NULL;
	return strndup(s, len);
}

/* Split one line (without its newline) into at most 3 words (the third only
 * to report it).  Each word is written, unquoted, into buf; words[i] point
 * into buf.  @return the number of words, or -1 with *why set. */
static int split_line(const char *s, size_t len, char *buf, char *words[3], const char **why)
{
	size_t i = 0, o = 0;
	int n = 0;

	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len || s[i] == '#')
			return n;
		if (n == 3)
			return n;
		words[n++] = buf + o;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') {
			char ch = s[i++];

			if (ch == '\'') {
				while (i < len && s[i] != '\'')
					buf[o++] = s[i++];
				if (i >= len) {
					*why = "unterminated ' quote";
					return -1;
				}
				i++;
			} else if (ch == '"') {
				while (i < len && s[i] != '"') {
					if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\'))
						i++;
					buf[o++] = s[i++];
				}
				if (i >= len) {
					*why = "unterminated \" quote";
					return -1;
				}
				i++;
			} else if (ch == '\\') {
				if (i >= len) {
					*why = "a backslash at the end of the line (lines do not continue)";
					return -1;
				}
				buf[o++] = s[i++];
			} else {
				buf[o++] = ch;
			}
		}
		buf[o++] = '\0';
	}
}

static bool is_option_word(const char *w)
{
	if (w[0] != '-' || w[1] == '\0')
		return false;
	if (w[1] == '-')
		return w[2] != '\0' && w[2] != '=';
	return true;
}

/* Append one option (and its value) read at `line`.  @return 0, -1 out of memory. */
static int add_opt(struct ldb_scenario *out, size_t *cap, int line, const char *opt, const char *val)
{
	if (out->nopts == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ldb_scenario_opt *o = realloc(out->opts, ncap * sizeof(*o));

		if (o == NULL)
			return -1;
		out->opts = o;
		*cap = ncap;
	}
	struct ldb_scenario_opt *o = &out->opts[out->nopts++];
	o->line = line;
	o->section = out->nsections;
	o->opt = strdup(opt);
	o->val = val != NULL ? strdup(val) : NULL;
	return o->opt == NULL || (val != NULL && o->val == NULL) ? -1 : 0;
}

/* "[workload NAME]" (blanks allowed inside the brackets, a comment after).
 * @return 0, or -1 with the error in err. */
static int parse_section(struct ldb_scenario *out, const char *name, int line, const char *s, size_t l, char *err,
                         size_t errcap)
{
	const char *end = memchr(s, ']', l), *p = s + 1, *q;
	size_t n;

	if (end == NULL)
		return sc_fail(err, errcap, name, line, "'[' without ']': a section line is [workload NAME]");
	for (q = end + 1; q < s + l && (*q == ' ' || *q == '\t' || *q == '\r'); q++)
		;
	if (q < s + l && *q != '#')
		return sc_fail(err, errcap, name, line, "'%.*s' after the section's ']'", (int)(s + l - q), q);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 9 || strncmp(p, "workload", 8) != 0 || (p[8] != ' ' && p[8] != '\t'))
		return sc_fail(err, errcap, name, line, "'%.*s': a section line is [workload NAME]", (int)(end - s + 1),
		               s);
	for (p += 8; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	for (q = end; q > p && (q[-1] == ' ' || q[-1] == '\t'); q--)
		;
	n = (size_t)(q - p);
	bool ok = n > 0 && n < LDB_WORKLOAD_NAME_MAX && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
	for (size_t i = 0; ok && i < n; i++)
		ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
		     p[i] == '_' || p[i] == '-';
	if (!ok)
		return sc_fail(err, errcap, name, line,
		               "workload name '%.*s': a letter, then letters, digits, '_' or '-' (at most %d)", (int)n,
		               p, LDB_WORKLOAD_NAME_MAX - 1);
	for (int i = 0; i < out->nsections; i++)
		if (strlen(out->section[i]) == n && strncmp(out->section[i], p, n) == 0)
			return sc_fail(err, errcap, name, line,
			               "[workload %.*s]: a second section with that name (line %d)", (int)n, p,
			               out->section_line[i]);
	if (out->nsections == LDB_WORKLOADS_MAX)
		return sc_fail(err, errcap, name, line, "at most %d workloads", LDB_WORKLOADS_MAX);
	memcpy(out->section[out->nsections], p, n);
	out->section[out->nsections][n] = '\0';
	out->section_line[out->nsections++] = line;
	return 0;
}

/* One line of a scenario file (l bytes at s, no newline): a comment (the
 * first one is the description), a blank line, or one option and its value.
 * @return 0, or -1 with the error in err. */
static int parse_line(struct ldb_scenario *out, size_t *cap, const char *name, int line, const char *s, size_t l,
                      char *err, size_t errcap)
{
	char *words[3] = { NULL, NULL, NULL };
	const char *why = NULL;
	size_t k = 0;

	if (l > LDB_SCENARIO_MAX_LINE)
		return sc_fail(err, errcap, name, line, "line longer than %d bytes", LDB_SCENARIO_MAX_LINE);
	while (k < l && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k < l && s[k] == '#') {
		if (out->description == NULL)
			out->description = comment_text(s + k, l - k);
		return 0;
	}
	if (k < l && s[k] == '[')
		return parse_section(out, name, line, s + k, l - k, err, errcap);
	char *buf = malloc(l + 3);
	if (buf == NULL)
		return sc_fail(err, errcap, name, line, "out of memory");
	int n = split_line(s, l, buf, words, &why), rc = 0;
	if (n < 0)
		rc = sc_fail(err, errcap, name, line, "%s", why);
	else if (n == 0)
		rc = 0;
	else if (!is_option_word(words[0]))
		rc = sc_fail(err, errcap, name, line,
		             "'%s' is not an option: a line holds one option "
		             "(-x or --name) and its value",
		             words[0]);
	else if (n > 2)
		rc = sc_fail(err, errcap, name, line,
		             "'%s' after '%s %s': one option per line (quote a "
		             "value that holds blanks)",
		             words[2], words[0], words[1]);
	else if (add_opt(out, cap, line, words[0], n == 2 ? words[1] : NULL) != 0)
		rc = sc_fail(err, errcap, name, line, "out of memory");
	free(buf);
	return rc;
}

int ldb_scenario_parse(struct ldb_scenario *sc, const char *name, const char *text, size_t len, char *err,
                       size_t errcap)
{
	struct ldb_scenario out = { 0 };
	size_t cap = 0, pos = 0;
	int line = 0;

	if (err != NULL && errcap > 0)
		err[0] = '\0';
	if (memchr(text, '\0', len) != NULL) {
		size_t at = (size_t)((const char *)memchr(text, '\0', len) - text);
		int l = 1;

		for (size_t k = 0; k < at; k++)
			l += text[k] == '\n';
		return sc_fail(err, errcap, name, l, "a NUL byte: not a text file");
	}
	out.path = strdup(name);
	if (out.path == NULL)
		return sc_fail(err, errcap, name, 0, "out of memory");
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl != NULL ? (size_t)(nl - s) : len - pos;

		pos += l + (nl != NULL);
		if (parse_line(&out, &cap, name, ++line, s, l, err, errcap) != 0) {
			ldb_scenario_free(&out);
			return -1;
		}
	}
	*sc = out;
	return 0;
}

int ldb_scenario_load(struct ldb_scenario *sc, const char *path, char *err, size_t errcap)
{
	struct stat st;
	char *text;
	size_t got = 0;
	int fd, rc;

	if (path[0] == '\0')
		return sc_fail(err, errcap, "--scenario", 0, "empty file name");
	/* O_NONBLOCK: a FIFO must not block the start-up; it is refused below */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sc_fail(err, errcap, path, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return sc_fail(err, errcap, path, 0, "not a regular file");
	}
	if (st.st_size > LDB_SCENARIO_MAX_BYTES) {
		close(fd);
		return sc_fail(err, errcap, path, 0, "larger than %d bytes", LDB_SCENARIO_MAX_BYTES);
	}
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL) {
		close(fd);
		return sc_fail(err, errcap, path, 0, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, text + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(text);
			close(fd);
			return sc_fail(err, errcap, path, 0, "cannot read: %s", strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	rc = ldb_scenario_parse(sc, path, text, got, err, errcap);
	free(text);
	return rc;
}

/* ------------------------------------------------------------ parameters */

#define MAX_PARAMS 32

struct params {
	char *name[MAX_PARAMS], *value[MAX_PARAMS];
	bool cli[MAX_PARAMS]; /* set on the command line: a dataset does not replace it */
	int n;
};

static void params_free(struct params *p)
{
	for (int i = 0; i < p->n; i++) {
		free(p->name[i]);
		free(p->value[i]);
	}
}

static int param_find(const struct params *p, const char *name, size_t len)
{
	for (int i = 0; i < p->n; i++)
		if (strlen(p->name[i]) == len && memcmp(p->name[i], name, len) == 0)
			return i;
	return -1;
}

static const char *param_get(const struct params *p, const char *name)
{
	int i = param_find(p, name, strlen(name));
	return i >= 0 ? p->value[i] : NULL;
}

/* Set name (len bytes) to value.  @return 0, -1 when the table is full or out of memory. */
static int param_put(struct params *p, const char *name, size_t len, const char *value, bool cli)
{
	int i = param_find(p, name, len);
	if (i >= 0 && p->cli[i] && !cli)
		return 0;
	if (i < 0) {
		if (p->n == MAX_PARAMS || (p->name[p->n] = strndup(name, len)) == NULL)
			return -1;
		p->value[p->n] = NULL;
		i = p->n++;
	}
	char *v = strdup(value);
	if (v == NULL)
		return -1;
	free(p->value[i]);
	p->value[i] = v;
	p->cli[i] = cli;
	return 0;
}

static bool name_char(char ch, bool first)
{
	return (ch >= 'a' && ch <= 'z') || ch == '_' || (!first && ch >= '0' && ch <= '9');
}

/* "NAME=VALUE" into the table.  @return 0, or -1 with why set. */
static int param_assign(struct params *p, const char *s, bool cli, const char **why)
{
	const char *eq = strchr(s, '=');
	size_t n = eq != NULL ? (size_t)(eq - s) : 0;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i], i == 0))
			n = 0;
	if (n == 0) {
		*why = "expected NAME=VALUE, NAME in lower-case letters, digits and _ (e.g. first=1)";
		return -1;
	}
	if (param_put(p, s, n, eq + 1, cli) != 0) {
		*why = "too many parameters (at most 32)";
		return -1;
	}
	return 0;
}

/* The named datasets, from the count (and ldifgen's start index): the first
 * and last number, the width of the number, the parent of the users. */
static int dataset_params(struct params *p, const char *dataset, char *err, size_t cap)
{
	const char *cs = param_get(p, "count"), *ss = param_get(p, "start_idx");
	char *end;
	long long count = cs ? strtoll(cs, &end, 10) : -1, start = 1;
	if (cs == NULL || *cs == '\0' || *end != '\0' || count < 1)
		return snprintf(err, cap, "--dataset %s needs the number of users: --set count=N", dataset), -1;
	if (ss != NULL && (start = strtoll(ss, &end, 10), *ss == '\0' || *end != '\0' || start < 0))
		return snprintf(err, cap, "--set start_idx='%s': not a number", ss), -1;
	long long first, last, width;
	if (strcmp(dataset, "ldifgen") == 0) {
		/* dsctl ldifgen users --generic --start-idx S --number N: user(S+1) to
		 * user(S+N), zero-padded to the digits of N (lib389 dbgen.py) */
		first = start + 1;
		last = start + count;
		width = snprintf(NULL, 0, "%lld", count);
	} else if (strcmp(dataset, "ldbench") == 0) {
		/* ldbench gen users --number N: user00001 to userN, 5 digits */
		first = 1;
		last = count;
		width = 5;
	} else {
		return snprintf(err, cap, "--dataset '%s': the datasets are ldifgen and ldbench", dataset), -1;
	}
	char num[3][24];
	snprintf(num[0], sizeof num[0], "%lld", first);
	snprintf(num[1], sizeof num[1], "%lld", last);
	snprintf(num[2], sizeof num[2], "%lld", width);
	if (param_put(p, "first", 5, num[0], false) || param_put(p, "last", 4, num[1], false) ||
	    param_put(p, "width", 5, num[2], false) || param_put(p, "parent", 6, "ou=People,dc=example,dc=com", false))
		return snprintf(err, cap, "out of memory"), -1;
	return 0;
}

/* in with ${NAME} replaced, into out when not NULL; ${NAME:w} the same
 * zero-padded to the width parameter; ${XXX} is as many X as the width says.  @return the length, or -1 with the unknown
 * name in *bad (*badlen bytes). */
static long expand_to(const struct params *p, const char *in, char *out, const char **bad, size_t *badlen)
{
	const char *w = param_get(p, "width");
	long width = w ? strtol(w, NULL, 10) : 0, len = 0;
	for (const char *q = in; *q != '\0';) {
		const char *close = q[0] == '$' && q[1] == '{' ? strchr(q, '}') : NULL;
		if (close == NULL) {
			if (out)
				out[len] = *q;
			len++, q++;
			continue;
		}
		const char *name = q + 2;
		size_t n = (size_t)(close - name);
		bool pad = n > 2 && memcmp(close - 2, ":w", 2) == 0;
		int i = param_find(p, name, pad ? n - 2 : n);
		if (n == 3 && memcmp(name, "XXX", 3) == 0 && width > 0 && width <= 18) {
			if (out)
				memset(out + len, 'X', (size_t)width);
			len += width;
		} else if (i >= 0) {
			/* ${NAME:w}: zero-padded to the width, as an XXX run renders it */
			size_t vl = strlen(p->value[i]),
			       zeros = pad && width > 0 && (size_t)width > vl ? (size_t)width - vl : 0;
			if (out) {
				memset(out + len, '0', zeros);
				memcpy(out + len + (long)zeros, p->value[i], vl);
			}
			len += (long)(zeros + vl);
		} else {
			*bad = name;
			*badlen = n;
			return -1;
		}
		q = close + 1;
	}
	if (out)
		out[len] = '\0';
	return len;
}

/* ${...} replaced in *s.  @return 0, 1 out of memory, or -1 (unknown name). */
static int expand(const struct params *p, char **s, const char **bad, size_t *badlen)
{
	if (*s == NULL || strstr(*s, "${") == NULL)
		return 0;
	long n = expand_to(p, *s, NULL, bad, badlen);
	if (n < 0)
		return -1;
	char *out = malloc((size_t)n + 1);
	if (out == NULL)
		return 1;
	expand_to(p, *s, out, bad, badlen);
	free(*s);
	*s = out;
	return 0;
}

/* The file's --set lines into the table, taken out of its options. */
static int file_params(struct ldb_scenario *sc, struct params *p, char *err, size_t cap)
{
	size_t keep = 0;
	for (size_t i = 0; i < sc->nopts; i++) {
		struct ldb_scenario_opt *o = &sc->opts[i];
		bool set = strcmp(o->opt, "--set") == 0, attached = strncmp(o->opt, "--set=", 6) == 0;
		const char *why = NULL;
		if (!set && !attached) {
			sc->opts[keep++] = *o;
			continue;
		}
		const char *v = attached ? o->opt + 6 : o->val;
		if (v == NULL || param_assign(p, v, false, &why) != 0) {
			sc_fail(err, cap, sc->path, o->line, "--set %s: %s", v ? v : "",
			        why ? why : "needs NAME=VALUE");
			for (size_t j = i; j < sc->nopts; j++)
				sc->opts[keep++] = sc->opts[j];
			sc->nopts = keep;
			return -1;
		}
		free(o->opt);
		free(o->val);
	}
	sc->nopts = keep;
	return 0;
}

int ldb_scenario_apply(struct ldb_scenario *sc, const char *const *sets, size_t nsets, const char *dataset, char *err,
                       size_t cap)
{
	struct params p = { 0 };
	int rc = file_params(sc, &p, err, cap);
	for (size_t i = 0; rc == 0 && i < nsets; i++) {
		const char *why = NULL;
		if (param_assign(&p, sets[i], true, &why) != 0)
			rc = sc_fail(err, cap, "--set", 0, "'%s': %s", sets[i], why);
	}
	if (rc == 0 && dataset != NULL)
		rc = dataset_params(&p, dataset, err, cap);
	for (size_t i = 0; rc == 0 && i < sc->nopts; i++) {
		struct ldb_scenario_opt *o = &sc->opts[i];
		const char *bad = NULL;
		size_t badlen = 0;
		int e = expand(&p, &o->opt, &bad, &badlen);
		if (e == 0)
			e = expand(&p, &o->val, &bad, &badlen);
		if (e > 0)
			rc = sc_fail(err, cap, sc->path, o->line, "out of memory");
		else if (e < 0)
			rc = sc_fail(err, cap, sc->path, o->line,
			             "${%.*s}: no such parameter (the file's --set lines and the command line's "
			             "--set NAME=VALUE give them)",
			             (int)badlen, bad);
	}
	params_free(&p);
	return rc;
}
