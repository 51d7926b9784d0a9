/* The replay's passwords (run/replay.h): a DN<TAB>password map, a rule, a
 * default.  Built at start-up; looked up by the feeder thread only. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "run/replay.h"

struct pw_entry {
	char *dn; /* normalized */
	char *pw;
};

struct ldb_rp_pw {
	struct pw_entry *e;
	size_t n, cap;
	char *def;
	bool has_rule, rule_ldbench;
	regex_t re;
	char *repl;
};

static struct ldb_rp_pw *pw_get(struct ldb_rp_pw **pw)
{
	if (*pw == NULL)
		*pw = calloc(1, sizeof **pw);
	return *pw;
}

/* dn's normal form into out: ASCII lower case, the spaces after a comma
 * dropped.  @return its length, or -1 when it does not fit. */
static int normalize(const char *dn, size_t n, char *out, size_t cap, bool lower)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (dn[i] == ' ' && k > 0 && out[k - 1] == ',')
			continue;
		if (k + 1 >= cap)
			return -1;
		out[k++] = lower ? (char)tolower((unsigned char)dn[i]) : dn[i];
	}
	out[k] = '\0';
	return (int)k;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct pw_entry *)a)->dn, ((const struct pw_entry *)b)->dn);
}

/* One "DN<TAB>password" line into the map.  @return 0, -1 out of memory. */
static int add_line(struct ldb_rp_pw *p, const char *dn, size_t dnlen, const char *pw)
{
	char norm[4096];
	if (normalize(dn, dnlen, norm, sizeof norm, true) < 0)
		return 0; /* not a DN a log line would hold */
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct pw_entry *e = realloc(p->e, cap * sizeof *e);
		if (e == NULL)
			return -1;
		p->e = e;
		p->cap = cap;
	}
	p->e[p->n].dn = strdup(norm);
	p->e[p->n].pw = strdup(pw);
	if (p->e[p->n].dn == NULL || p->e[p->n].pw == NULL)
		return -1;
	p->n++;
	return 0;
}

int ldb_rp_pw_load(struct ldb_rp_pw **pw, const char *path, char *err, size_t errlen)
{
	struct ldb_rp_pw *p = pw_get(pw);
	FILE *f = p ? fopen(path, "r") : NULL;
	if (f == NULL) {
		snprintf(err, errlen, "--password-map %s: %s", path, p ? strerror(errno) : "out of memory");
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long no = 0;
	int rc = 0;
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		no++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		if (tab == NULL || tab == line) {
			snprintf(err, errlen, "--password-map %s: line %lu: not DN<TAB>password", path, no);
			rc = -1;
		} else if (add_line(p, line, (size_t)(tab - line), tab + 1) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	}
	free(line);
	fclose(f);
	if (rc == 0)
		qsort(p->e, p->n, sizeof *p->e, cmp_entry);
	return rc;
}

int ldb_rp_pw_default(struct ldb_rp_pw **pw, const char *password)
{
	struct ldb_rp_pw *p = pw_get(pw);
	if (p == NULL)
		return -1;
	free(p->def);
	p->def = strdup(password);
	return p->def ? 0 : -1;
}

int ldb_rp_pw_rule(struct ldb_rp_pw **pw, const char *rule, char *err, size_t errlen)
{
	struct ldb_rp_pw *p = pw_get(pw);
	const char *eq = strrchr(rule, '=');
	if (p == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (strcmp(rule, "ldbench") == 0) {
		p->has_rule = p->rule_ldbench = true;
		return 0;
	}
	if (eq == NULL || eq == rule) {
		snprintf(err, errlen, "--password-rule '%s': not REGEX=REPLACEMENT nor 'ldbench'", rule);
		return -1;
	}
	char re[1024];
	snprintf(re, sizeof re, "%.*s", (int)(eq - rule), rule);
	int rc = regcomp(&p->re, re, REG_EXTENDED | REG_ICASE);
	if (rc != 0) {
		char m[200];
		regerror(rc, &p->re, m, sizeof m);
		snprintf(err, errlen, "--password-rule '%s': %s", re, m);
		return -1;
	}
	p->repl = strdup(eq + 1);
	p->has_rule = p->repl != NULL;
	return p->has_rule ? 0 : -1;
}

/* The rule's replacement with \1..\9 from m into out.  @return length or -1. */
static int expand(const char *repl, const char *dn, const regmatch_t *m, char *out, size_t cap)
{
	size_t k = 0;
	for (const char *r = repl; *r; r++) {
		const char *s = r;
		size_t n = 1;
		if (r[0] == '\\' && r[1] >= '1' && r[1] <= '9') {
			const regmatch_t *g = &m[r[1] - '0'];
			if (g->rm_so < 0)
				return -1;
			s = dn + g->rm_so;
			n = (size_t)(g->rm_eo - g->rm_so);
			r++;
		}
		if (k + n + 1 > cap)
			return -1;
		memcpy(out + k, s, n);
		k += n;
	}
	out[k] = '\0';
	return (int)k;
}

static int by_rule(const struct ldb_rp_pw *p, const char *dn, char *out, size_t cap)
{
	if (p->rule_ldbench) {
		/* `ldbench gen users`: password = uid, the first RDN's value */
		if (strncasecmp(dn, "uid=", 4) != 0)
			return -1;
		size_t n = strcspn(dn + 4, ",+");
		if (n == 0 || n + 1 > cap)
			return -1;
		memcpy(out, dn + 4, n);
		out[n] = '\0';
		return (int)n;
	}
	regmatch_t m[10];
	if (regexec(&p->re, dn, 10, m, 0) != 0)
		return -1;
	return expand(p->repl, dn, m, out, cap);
}

int ldb_rp_pw_find(const struct ldb_rp_pw *p, const char *dn, size_t n, char *out, size_t cap)
{
	char norm[4096];
	if (p == NULL || normalize(dn, n, norm, sizeof norm, true) < 0)
		return -1;
	struct pw_entry key = { norm, NULL };
	const struct pw_entry *e = p->n ? bsearch(&key, p->e, p->n, sizeof *p->e, cmp_entry) : NULL;
	const char *pw = e ? e->pw : NULL;
	if (pw == NULL && p->has_rule) {
		normalize(dn, n, norm, sizeof norm, false); /* the rule sees the case as logged */
		int k = by_rule(p, norm, out, cap);
		if (k >= 0)
			return k;
	}
	if (pw == NULL)
		pw = p->def;
	if (pw == NULL || strlen(pw) + 1 > cap)
		return -1;
	memcpy(out, pw, strlen(pw) + 1);
	return (int)strlen(pw);
}

void ldb_rp_pw_free(struct ldb_rp_pw *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].dn);
		free(p->e[i].pw);
	}
	free(p->e);
	free(p->def);
	if (p->has_rule && !p->rule_ldbench)
		regfree(&p->re);
	free(p->repl);
	free(p);
}
