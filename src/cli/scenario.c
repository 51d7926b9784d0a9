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
	o->opt = strdup(opt);
	o->val = val != NULL ? strdup(val) : NULL;
	return o->opt == NULL || (val != NULL && o->val == NULL) ? -1 : 0;
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
