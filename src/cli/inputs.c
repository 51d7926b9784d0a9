/* Files read at start-up: -y's password, randombinddnfromfile's DN<TAB>password
 * lines, attreplacefile's value, and the object= template (with rdn=). */
#include "cli/ctx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values/objtmpl.h"
#include "values/rng.h"
#include "util/util.h"

#define MAX_ATTRFILE (16u << 20) /* attreplacefile: at most 16 MiB */

/* Strip a trailing "\n" or "\r\n". */
static size_t chomp(char *s, size_t len)
{
	if (len > 0 && s[len - 1] == '\n')
		s[--len] = '\0';
	if (len > 0 && s[len - 1] == '\r')
		s[--len] = '\0';
	return len;
}

/* -y FILE: the password is the first line, without its newline. */
int cli_read_password_file(struct cli_ctx *x, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (f == NULL)
		return cli_fail(x, "-y %s: cannot open: %s", path, strerror(errno));
	errno = 0;
	n = getline(&line, &cap, f);
	if (n < 0) {
		int e = errno;

		fclose(f);
		free(line);
		if (e != 0)
			return cli_fail(x, "-y %s: cannot read: %s", path, strerror(e));
		return cli_fail(x, "-y %s: the file is empty", path);
	}
	fclose(f);
	if (chomp(line, (size_t)n) == 0) {
		explicit_bzero(line, cap);
		free(line);
		return cli_fail(x, "-y %s: the first line (the password) is empty", path);
	}
	if (x->c->password != NULL) {
		explicit_bzero(x->c->password, strlen(x->c->password));
		free(x->c->password);
	}
	x->c->password = line;
	return 0;
}

/* Append one DN and its password to the config's lists (copies). */
static int binddn_push(struct cli_ctx *x, size_t *room, const char *dn, const char *pw)
{
	struct ldb_config *c = x->c;

	if (c->binddn_file_n == *room) {
		size_t nroom = *room ? *room * 2 : 64;
		char **dns = realloc(c->binddn_file_dns, nroom * sizeof(*dns));

		if (dns == NULL)
			return cli_oom(x);
		c->binddn_file_dns = dns;
		char **pws = realloc(c->binddn_file_pws, nroom * sizeof(*pws));

		if (pws == NULL)
			return cli_oom(x);
		c->binddn_file_pws = pws;
		*room = nroom;
	}
	char *d = strdup(dn);
	char *p = strdup(pw);

	if (d == NULL || p == NULL) {
		free(d);
		free(p);
		return cli_oom(x);
	}
	c->binddn_file_dns[c->binddn_file_n] = d;
	c->binddn_file_pws[c->binddn_file_n] = p;
	c->binddn_file_n++;
	return 0;
}

/* One line of the file, without its newline (not empty). */
static int binddn_line(struct cli_ctx *x, const char *path, size_t lineno, char *line, size_t *room)
{
	char *tab = strchr(line, '\t');

	if (tab == NULL)
		return cli_fail(x, "-e randombinddnfromfile=%s line %zu: expected DN<TAB>password", path, lineno);
	*tab = '\0';
	if (line[0] == '\0' || !cli_dn_is_valid(line))
		return cli_fail(x, "-e randombinddnfromfile=%s line %zu: invalid DN '%s'", path, lineno, line);
	if (tab[1] == '\0')
		return cli_fail(x, "-e randombinddnfromfile=%s line %zu: empty password", path, lineno);
	return binddn_push(x, room, line, tab + 1);
}

/* randombinddnfromfile=F: "DN<TAB>password" lines, loaded now. */
int cli_load_binddn_file(struct cli_ctx *x, const char *path)
{
	struct ldb_config *c = x->c;
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0, room = 0;
	ssize_t n;
	int rc = -1;

	if (c->binddn_file != NULL)
		return cli_fail(x, "-e randombinddnfromfile given twice");
	if (cli_set_str(x, &c->binddn_file, path) < 0)
		return -1;
	f = fopen(path, "re");
	if (f == NULL)
		return cli_init_fail(x, "-e randombinddnfromfile=%s: cannot open: %s", path, strerror(errno));
	for (;;) {
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (errno != 0) {
				cli_init_fail(x, "-e randombinddnfromfile=%s: cannot read: %s", path, strerror(errno));
				goto out;
			}
			break;
		}
		lineno++;
		if (chomp(line, (size_t)n) == 0)
			continue;
		if (binddn_line(x, path, lineno, line, &room) < 0)
			goto out;
	}
	if (c->binddn_file_n == 0) {
		cli_init_fail(x, "-e randombinddnfromfile=%s: no DN<TAB>password line in the file", path);
		goto out;
	}
	rc = 0;
out:
	if (line != NULL) {
		explicit_bzero(line, cap);
		free(line);
	}
	fclose(f);
	return rc;
}

int cli_load_attrfile(struct cli_ctx *x, const char *path)
{
	struct ldb_config *c = x->c;
	FILE *f;
	char *buf;
	size_t len;

	f = fopen(path, "rbe");
	if (f == NULL)
		return cli_init_fail(x, "-e attreplacefile: %s: cannot open: %s", path, strerror(errno));
	int rc = ldb_read_all(f, MAX_ATTRFILE, &buf, &len), e = errno;

	fclose(f);
	if (rc != 0 && e == ENOMEM)
		return cli_oom(x);
	if (rc != 0 && e == EFBIG)
		return cli_fail(x, "-e attreplacefile: %s: larger than %u MiB", path, MAX_ATTRFILE >> 20);
	if (rc != 0)
		return cli_init_fail(x, "-e attreplacefile: %s: cannot read: %s", path, strerror(e));
	if (len == 0) {
		free(buf);
		return cli_init_fail(x, "-e attreplacefile: %s: the file is empty", path);
	}
	c->attreplacefile_data = buf;
	c->attreplacefile_len = len;
	return 0;
}

/* Whether the rdn spec or the object file has a *NOLOOP field that ends the
 * sequence (an unreadable file says yes: its compile reports it). */
bool cli_template_has_noloop(const struct ldb_config *c)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (c->rdn_spec != NULL && strstr(c->rdn_spec, "NOLOOP(") != NULL)
		return true;
	if (c->object_file == NULL)
		return false;
	f = fopen(c->object_file, "re");
	if (f == NULL)
		return true;
	while (!found && getline(&line, &cap, f) >= 0)
		found = strstr(line, "NOLOOP(") != NULL;
	free(line);
	fclose(f);
	return found;
}

/* object=FILE (and rdn=): compiled last, once every option is known.  A
 * trial copy without the shared counters renders one entry first, so the RDN
 * is checked without using up a value. */
int cli_compile_objtmpl(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	struct ldb_objtmpl *t = NULL;
	struct ldb_objtmpl_cursor cur;
	struct ldb_obj_entry e;
	struct ldb_rng rng;
	char why[512];
	char *scratch;
	int r;

	if (c->object_file == NULL)
		return 0;
	FILE *f = fopen(c->object_file, "re");
	if (f == NULL)
		return cli_init_fail(x, "-e object=%s: cannot open: %s", c->object_file, strerror(errno));
	fclose(f);
	if (ldb_objtmpl_compile(&t, c->object_file, c->rdn_spec, false, why, sizeof(why)) < 0)
		return cli_fail(x, "%s", why);
	if (c->rdn_spec != NULL) {
		scratch = malloc(ldb_objtmpl_max_size(t) + 1);
		if (scratch == NULL) {
			ldb_objtmpl_free(t);
			return cli_oom(x);
		}
		if (ldb_objtmpl_cursor_open(t, &cur, 0, 1, why, sizeof(why)) != 0) {
			free(scratch);
			ldb_objtmpl_free(t);
			return cli_fail(x, "%s", why);
		}
		ldb_rng_seed(&rng, c->seed, 0);
		r = ldb_objtmpl_render(t, &cur, &rng, scratch, ldb_objtmpl_max_size(t) + 1, &e);
		ldb_objtmpl_cursor_close(&cur);
		if (r == 1 && !cli_rdn_is_valid(e.rdn, e.rdn_len)) {
			cli_fail(x, "-e rdn=%s: the first entry's RDN '%.*s' is not a valid RDN", c->rdn_spec,
			         (int)e.rdn_len, e.rdn);
			free(scratch);
			ldb_objtmpl_free(t);
			return -1;
		}
		free(scratch);
	}
	ldb_objtmpl_free(t);
	if (ldb_objtmpl_compile(&c->objtmpl, c->object_file, c->rdn_spec, c->commoncounter, why, sizeof(why)) < 0)
		return cli_fail(x, "%s", why);
	return 0;
}
