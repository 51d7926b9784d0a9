/* Test helper for the gen tests (test_gen_*.c): a temporary folder per test,
 * ldb_gen_main run with stdout and stderr captured into files, and small text
 * counters.  Include after <cmocka.h>; everything is static inline. */
#ifndef LDBENCH_TEST_GEN_RUN_H
#define LDBENCH_TEST_GEN_RUN_H

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/gen.h"

/* The first entries of `gen users --suffix dc=example,dc=com --number N`
 * (N > 1): the suffix, ou=People, user00001, the start of user00002. */
#define GEN_USERS_HEAD                                    \
	"dn: dc=example,dc=com\n"                         \
	"objectClass: top\n"                              \
	"objectClass: dcObject\n"                         \
	"objectClass: organization\n"                     \
	"dc: example\n"                                   \
	"o: example\n"                                    \
	"\n"                                              \
	"dn: ou=People,dc=example,dc=com\n"               \
	"objectClass: top\n"                              \
	"objectClass: organizationalUnit\n"               \
	"ou: People\n"                                    \
	"\n"                                              \
	"dn: uid=user00001,ou=People,dc=example,dc=com\n" \
	"objectClass: top\n"                              \
	"objectClass: person\n"                           \
	"objectClass: organizationalPerson\n"             \
	"objectClass: inetOrgPerson\n"                    \
	"uid: user00001\n"                                \
	"cn: user00001\n"                                 \
	"sn: user00001\n"                                 \
	"givenName: user00001\n"                          \
	"mail: user00001@example.com\n"                   \
	"userPassword: user00001\n"                       \
	"\n"                                              \
	"dn: uid=user00002,ou=People,dc=example,dc=com\n"

struct ctx {
	char dir[64];
	char ldif[128];
	char out[128];  /* captured stdout */
	char errf[128]; /* captured stderr */
};

static inline int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	strcpy(c->dir, "/tmp/test_gen.XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->ldif, sizeof(c->ldif), "%s/out.ldif", c->dir);
	snprintf(c->out, sizeof(c->out), "%s/stdout", c->dir);
	snprintf(c->errf, sizeof(c->errf), "%s/stderr", c->dir);
	*state = c;
	return 0;
}

static inline int teardown(void **state)
{
	struct ctx *c = *state;

	unlink(c->ldif);
	unlink(c->out);
	unlink(c->errf);
	rmdir(c->dir);
	free(c);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

/* Run ldb_gen_main with stdout and stderr captured into the ctx files.
 * The argument list is NULL-terminated. */
static inline int run_gen(struct ctx *c, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;

	va_start(ap, c);
	for (const char *a; (a = va_arg(ap, const char *)) != NULL;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	int save_out = dup(1), save_err = dup(2);
	int fo = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(c->errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(save_out >= 0 && save_err >= 0 && fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);

	int rc = ldb_gen_main(argc, argv);

	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	return rc;
}

static inline size_t count_prefix_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	const char *p = text;

	while (*p) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

static inline size_t count_char(const char *s, char ch)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

static inline size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

#endif
