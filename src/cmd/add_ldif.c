/* -e genldif=FILE: the entries the add workload would add, written as LDIF
 * (RFC 2849), and the entry shapes of ldclt's person/emailPerson/inetOrgPerson.
 *
 * The entries come exactly as the add workload's thread 0 makes them: one
 * ldb_rng seeded with (c->seed, 0); per entry, first the number of -f's XXX
 * (incr: from -r, or -r - 1 + step without commoncounter as ldclt, by step;
 * random: ldb_rng_range(-r, -R)), then the template rendered with the same rng.
 */
#include "cmd/add_ldif.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ldif/entry.h"
#include "ldif/ldif.h"
#include "report/settings.h"
#include "values/objtmpl.h"
#include "values/pattern.h"
#include "values/rng.h"

/* the configuration's class numbers are the entry module's */
_Static_assert((int)LDB_CLASS_PERSON == (int)LDB_ENTRY_PERSON &&
                       (int)LDB_CLASS_EMAILPERSON == (int)LDB_ENTRY_EMAILPERSON &&
                       (int)LDB_CLASS_INETORGPERSON == (int)LDB_ENTRY_INETORGPERSON,
               "LDB_CLASS_* and LDB_ENTRY_* differ");

/* ---------------------------------------------------------------- genldif */

struct gen {
	const struct ldb_config *c;
	struct ldb_rng rng;
	struct ldb_objtmpl_cursor cur;
	int64_t next; /* incr: the next value */
	char *rdn;    /* -f rendered */
	size_t rdn_cap;
	char *scratch; /* the template's rendering */
	size_t scratch_cap;
	char *dn;
	size_t dn_cap;
	char *text; /* the entry module's text (types, mail) */
	size_t text_cap;
};

/* The number of -f's XXX for the next entry.  @return 1, or 0 past -R with
 * incr,noloop. */
static int next_number(struct gen *g, int64_t *v)
{
	const struct ldb_config *c = g->c;

	if (c->valmode == LDB_VAL_RANDOM) {
		*v = ldb_rng_range(&g->rng, c->range_low, c->range_high);
		return 1;
	}
	if (c->valmode != LDB_VAL_INCR) {
		*v = 0;
		return 1;
	}
	if (g->next > c->range_high) {
		if (c->noloop) {
			printf("%s[%d]: T000: Hit top incremental value %lld > %lld\n", c->progname, (int)getpid(),
			       (long long)g->next, c->range_high);
			return 0;
		}
		g->next = c->range_low + (g->next - c->range_low) % (c->range_high - c->range_low + 1);
	}
	*v = g->next;
	g->next += c->incr_step;
	return 1;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	char *nb = realloc(*buf, need);

	if (nb == NULL)
		return -1;
	*buf = nb;
	*cap = need;
	return 0;
}

/* The next entry's RDN ("attr=value", from -f or the template's rdn=) and
 * template rendering (e, with a template).  @return 1, 0 the sequence has
 * ended, -1 error. */
static int next_rdn(struct gen *g, struct ldb_obj_entry *e, const char **rdn, size_t *rdn_len)
{
	const struct ldb_config *c = g->c;
	int64_t v;

	*rdn = "";
	*rdn_len = 0;
	if (c->rdn_spec == NULL) {
		if (!next_number(g, &v))
			return 0;
		*rdn_len = ldb_pattern_render_cstr(&c->filter_pat, v, g->rdn, g->rdn_cap);
		*rdn = g->rdn;
	}
	if (c->objtmpl == NULL)
		return 1;
	int r = ldb_objtmpl_render(c->objtmpl, &g->cur, &g->rng, g->scratch, g->scratch_cap, e);

	if (r <= 0)
		return r;
	if (c->rdn_spec != NULL) {
		*rdn = e->rdn;
		*rdn_len = e->rdn_len;
	}
	return 1;
}

/* Write one entry.  @return 1 written, 0 the sequence has ended, -1 error. */
static int gen_entry(struct gen *g, FILE *f)
{
	const struct ldb_config *c = g->c;
	struct ldb_obj_entry e;
	struct ldb_put_value pv[LDB_OBJ_MAX_ATTRS + LDB_ENTRY_CLASS_MAX];
	struct ldb_entry en;
	const char *rdn;
	size_t rdn_len, blen = strlen(c->base);
	int r = next_rdn(g, &e, &rdn, &rdn_len);

	if (r <= 0)
		return r;
	if (grow(&g->dn, &g->dn_cap, rdn_len + 1 + blen + 1) < 0 ||
	    grow(&g->text, &g->text_cap, rdn_len + sizeof LDB_ENTRY_MAIL_DOMAIN + 1) < 0)
		return -1;
	memcpy(g->dn, rdn, rdn_len);
	g->dn[rdn_len] = ',';
	memcpy(g->dn + rdn_len + 1, c->base, blen + 1);
	ldb_ldif_fput_line(f, "dn", 2, g->dn, rdn_len + 1 + blen);

	const char *eq = memchr(rdn, '=', rdn_len);

	if (eq == NULL)
		return -1;
	size_t alen = (size_t)(eq - rdn);

	/* the same entry the add workload sends, its RDN's attribute first (as
	 * ldclt writes it; ldclt then repeats it, ldbench does not) */
	ldb_entry_init(&en, pv, (int)(sizeof pv / sizeof pv[0]), g->text, g->text_cap);
	if (ldb_entry_add(&en, c->add_class, c->objtmpl != NULL ? &e : NULL, rdn, alen, eq + 1, rdn_len - alen - 1) < 0)
		return -1;
	const char *val = eq + 1;
	size_t vlen = rdn_len - alen - 1;
	ldb_ldif_fput_line(f, rdn, alen, val, vlen);
	for (int i = 0; i < en.n; i++) {
		size_t tl = strlen(pv[i].type);
		if (tl == alen && strncasecmp(pv[i].type, rdn, alen) == 0 && pv[i].len == vlen &&
		    memcmp(pv[i].val, val, vlen) == 0)
			continue; /* written first */
		ldb_ldif_fput_line(f, pv[i].type, tl, pv[i].val, pv[i].len);
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 1;
}

/* Open c->genldif_file and set g up.  @return the file, or NULL (after the
 * message) when it cannot be opened; *oom when memory ran out. */
static FILE *gen_open(struct gen *g, const struct ldb_config *c, bool *oom)
{
	FILE *f = fopen(c->genldif_file, c->genldif_append ? "ae" : "wxe");

	*oom = false;
	if (f == NULL) {
		fprintf(stderr, "%s: -e genldif=%s: cannot open: %s\n", c->progname, c->genldif_file, strerror(errno));
		return NULL;
	}
	ldb_rng_seed(&g->rng, c->seed, 0);
	if (c->objtmpl != NULL) {
		char err[512];

		if (ldb_objtmpl_cursor_open(c->objtmpl, &g->cur, 0, 1, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: %s\n", c->progname, err);
			fclose(f);
			return NULL;
		}
		g->scratch_cap = ldb_objtmpl_max_size(c->objtmpl) + 1;
	}
	g->next = c->commoncounter ? c->range_low : c->range_low - 1 + c->incr_step;
	g->rdn_cap = (c->filter_pat.text != NULL ? strlen(c->filter_pat.text) : 0) + 32;
	g->rdn = malloc(g->rdn_cap);
	g->scratch = g->scratch_cap > 0 ? malloc(g->scratch_cap) : NULL;
	*oom = g->rdn == NULL || (g->scratch_cap > 0 && g->scratch == NULL);
	return f;
}

/* ldclt's lines at the end of a run (one thread, one sample), the rate over
 * the measured time. */
static void gen_summary(const struct ldb_config *c, int pid, long long n, const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
	double rate = sec > 0 ? (double)n / sec : 0.0;
	const char *p = c->progname;
	printf("%s[%d]: T000: thread is dead.\n", p, pid);
	printf("%s[%d]: Average rate: %7.2f/thr  (%7.2f/sec), total: %6lld\n", p, pid, (double)n, rate, n);
	printf("%s[%d]: All threads are dead - exit.\n", p, pid);
	printf("%s[%d]: Global average rate: %7.2f/thr  (%6.2f/sec), total: %6lld\n", p, pid, (double)n, rate, n);
	printf("%s[%d]: Global number times \"no activity\" reports: never\n", p, pid);
	printf("%s[%d]: Global number of dead threads: 1\n", p, pid);
	printf("%s[%d]: Global no error occurs during this session.\n", p, pid);
	time_t wall = time(NULL);
	printf("%s[%d]: Ending at %s", p, pid, ctime(&wall));
	printf("%s[%d]: Exit status %d - %s\n", p, pid, LDB_EXIT_OK, ldb_exit_text_prog(LDB_EXIT_OK, p));
}

int ldb_genldif_run(const struct ldb_config *c)
{
	struct gen g = { .c = c };
	FILE *f;
	long long n = 0;
	int r = 1, pid = (int)getpid();
	bool oom;

	char line[96];
	ldb_version_line(line, sizeof line, c->progname);
	printf("%s\n", line);
	if (c->verbose > 0)
		ldb_config_print(c, stdout);
	if ((f = gen_open(&g, c, &oom)) == NULL)
		return LDB_EXIT_INIT;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	time_t wall = time(NULL);
	printf("%s[%d]: Starting at %s\n", c->progname, pid, ctime(&wall));
	if (oom) {
		fprintf(stderr, "%s: out of memory\n", c->progname);
		r = -1;
	} else {
		printf("%s[%d]: genldif: writing %s%s\n", c->progname, pid, c->genldif_file,
		       c->genldif_append ? " (append)" : "");
		fflush(stdout);
	}
	while (r > 0 && (c->ops_per_thread < 0 || n < c->ops_per_thread)) {
		r = gen_entry(&g, f);
		if (r > 0)
			n++;
	}
	if (fclose(f) != 0 && r >= 0) {
		fprintf(stderr, "%s: -e genldif=%s: cannot write: %s\n", c->progname, c->genldif_file, strerror(errno));
		r = -1;
	} else if (r < 0 && g.rdn != NULL) {
		fprintf(stderr, "%s: -e genldif=%s: cannot write entry %lld\n", c->progname, c->genldif_file, n + 1);
	}
	ldb_objtmpl_cursor_close(&g.cur);
	free(g.rdn);
	free(g.scratch);
	free(g.dn);
	free(g.text);
	if (r < 0)
		return LDB_EXIT_INIT;
	printf("%s[%d]: genldif: %lld entries written to %s\n", c->progname, pid, n, c->genldif_file);
	gen_summary(c, pid, n, &t0);
	return LDB_EXIT_OK;
}
