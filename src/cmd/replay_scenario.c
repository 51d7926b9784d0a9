/* `ldbench replay --profile --write-scenario` (replay.h): the profile as a
 * scenario file of ldbench options (cli/scenario.h).
 *
 * What it holds: --mix with the log's searches and binds as weights (the
 * kinds whose request the log gives whole enough; the others are listed in
 * comments: writes and compares lack their content, extended operations,
 * abandons and unbinds are not kinds of the mix); -f, the example of the top
 * filter shape with its first digit run made an XXX run (-e random between
 * the lowest and highest number the log held, -e nozeropad when the runs'
 * widths differ); -b the top non-empty base; -s the most used scope; the
 * top bind that succeeded as it was made: -D its DN for a simple bind (its
 * password is not in the log: give -w or -y), -o mech= for SASL (EXTERNAL:
 * the client certificate to give); without one, -D the top non-empty bind
 * DN of the requests;
 * -n the peak of connections open at once (1..10000); --rate-profile the
 * log's rate per interval (at most MAX_SEGS holds; intervals merged to fit),
 * scaled to the share of the mix's kinds, and --duration its length. */
#include "cmd/replay_cmd.h"

#include <inttypes.h>
#include <string.h>

#define MAX_SEGS 200

/* A value as one scenario word: '...', or "..." when it holds a '. */
static void put_word(FILE *out, const char *s)
{
	if (strchr(s, '\'') == NULL) {
		fprintf(out, "'%s'", s);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* The first kept entry whose key is not empty, or NULL. */
static const struct ldb_ltop_ent *top_nonempty(const struct ldb_ltop *t)
{
	const struct ldb_ltop_ent *e[LDB_LPROF_TOPCAP];
	int n = ldb_ltop_sorted(t, e, LDB_LPROF_TOPCAP);
	for (int i = 0; i < n; i++)
		if (e[i]->len > 0)
			return e[i];
	return NULL;
}

/* The top bind that succeeded ("MECH DN"; a simple bind with a DN, or a
 * SASL one), or NULL: none in the log's lines. */
static const struct ldb_ltop_ent *top_bind_ok(const struct ldb_ltop *t)
{
	const struct ldb_ltop_ent *e[LDB_LPROF_TOPCAP];
	int n = ldb_ltop_sorted(t, e, LDB_LPROF_TOPCAP);
	for (int i = 0; i < n; i++)
		if (e[i]->len > 7 || strncmp(e[i]->key, "SIMPLE ", e[i]->len) != 0)
			return e[i];
	return NULL;
}

/* The binds' options: the top bind that succeeded as it was made (-D for a
 * simple one, -o mech= for SASL), else the top DN of the requests. */
static void put_bind(const struct ldb_lprof *p, const struct ldb_ltop_ent *dn, FILE *out)
{
	const struct ldb_ltop_ent *ok = top_bind_ok(&p->binds_ok);
	const char *sp = ok ? strchr(ok->key, ' ') : NULL;
	if (sp == NULL || strncmp(ok->key, "SIMPLE ", 7) == 0) {
		fputs("-D ", out);
		put_word(out, sp ? sp + 1 : dn->key);
		fputc('\n', out);
		return;
	}
	fprintf(out, "-o mech=%.*s\n", (int)(sp - ok->key), ok->key);
	if (strncmp(ok->key, "EXTERNAL ", 9) == 0)
		fprintf(out, "# EXTERNAL bound as %s: give its client certificate (--tls-cert FILE --tls-key FILE)\n",
		        sp + 1);
	else
		fprintf(out, "# %.*s bound as %s: give -o authid= and its password (-w or -y)\n", (int)(sp - ok->key),
		        ok->key, sp + 1);
}

/* -f and its -e random, -r, -R from the top filter shape. */
static void put_filter(const struct ldb_lprof *p, FILE *out)
{
	const struct ldb_ltop_ent *e[1];
	if (ldb_ltop_sorted(&p->filters, e, 1) != 1)
		return;
	const struct ldb_ltop_ent *f = e[0];
	char tmpl[LDB_LTOP_KEY + 64];
	if (f->run_off < 0 || f->hi < 0) {
		fputs("-f ", out);
		put_word(out, f->ex);
		fputc('\n', out);
		return;
	}
	int w = f->wmax;
	snprintf(tmpl, sizeof tmpl, "%.*s%.*s%s", f->run_off, f->ex, w, "XXXXXXXXXXXXXXXXXX",
	         f->ex + f->run_off + f->run_len);
	fputs("-f ", out);
	put_word(out, tmpl);
	fprintf(out, "\n-e random\n-r %" PRId64 "\n-R %" PRId64 "\n", f->lo, f->hi);
	if (f->wmin != f->wmax)
		fputs("-e nozeropad\n", out);
}

static void put_rate(const struct ldb_lprof *p, double share, FILE *out)
{
	int group = (p->npts + MAX_SEGS - 1) / MAX_SEGS;
	if (group < 1)
		group = 1;
	int64_t seg_ms = p->interval_ns * group / 1000000;
	fputs("--rate-profile ", out);
	for (int i = 0; i < p->npts; i += group) {
		uint64_t n = 0;
		for (int j = i; j < i + group && j < p->npts; j++)
			n += p->pts[j].requests;
		fprintf(out, "%s%.6g@%" PRId64 "ms", i ? "," : "", share * (double)n * 1000.0 / (double)seg_ms, seg_ms);
	}
	int64_t total = (int64_t)((p->npts + group - 1) / group) * seg_ms;
	fprintf(out, "\n--duration %" PRId64 "ms\n", total);
}

static void put_header(const struct ldb_lprof *p, const char *logs, FILE *out)
{
	fprintf(out,
	        "# The traffic of %s: %" PRIu64 " requests, peak %" PRIu64 " connections open (ldbench replay "
	        "--profile)\n#\n",
	        logs, p->requests, p->peak);
	fputs("# Written by `ldbench replay --profile --write-scenario`: the mix of searches and binds,\n"
	      "# the rate over time and the top filter shape of the log (docs/replay.md).  The bind's\n"
	      "# password is not in the log: give -w or -y (and -h, -p) on the command line.\n",
	      out);
	for (int k = 1; k < LDB_SLOG_NOPTYPES; k++) {
		if (k == LDB_SLOG_OP_SEARCH || k == LDB_SLOG_OP_BIND || p->kind[k].requests == 0)
			continue;
		fprintf(out, "# not in the mix: %s %" PRIu64 " (%.1f%%)%s\n",
		        ldb_slog_optype_name((enum ldb_slog_optype)k), p->kind[k].requests,
		        100.0 * (double)p->kind[k].requests / (double)p->requests,
		        k == LDB_SLOG_OP_UNBIND ? ": a connection's end" : ": the log does not hold its content");
	}
	const struct ldb_ltop_ent *e[5];
	int n = ldb_ltop_sorted(&p->filters, e, 5);
	for (int i = 0; i < n; i++)
		fprintf(out, "# filter shape %d: %s (%" PRIu64 " searches)\n", i + 1, e[i]->key, e[i]->count);
}

int ldb_replay_write_scenario(const struct ldb_lprof *p, const char *logs, FILE *out, char *err, size_t cap)
{
	uint64_t ns = p->kind[LDB_SLOG_OP_SEARCH].requests, nb = p->kind[LDB_SLOG_OP_BIND].requests;
	const struct ldb_ltop_ent *dn = top_nonempty(&p->binddns), *base = top_nonempty(&p->bases);
	if (ns == 0 || p->filters.n == 0)
		ns = 0;
	if (dn == NULL && top_bind_ok(&p->binds_ok) == NULL)
		nb = 0;
	if (ns + nb == 0) {
		snprintf(err, cap, "the log holds no search nor bind with a DN: nothing a scenario can send");
		return -1;
	}
	put_header(p, logs, out);
	fputs("--mix ", out);
	if (ns)
		fprintf(out, "search:%" PRIu64 "%s", ns, nb ? "," : "");
	if (nb)
		fprintf(out, "bind:%" PRIu64, nb);
	fputc('\n', out);
	if (ns) {
		put_filter(p, out);
		if (base) {
			fputs("-b ", out);
			put_word(out, base->key);
			fputc('\n', out);
		}
		static const char *const scope[] = { "base", "one", "sub", "sub" };
		int s = 2;
		for (int i = 0; i < 4; i++)
			s = p->scopes[i] > p->scopes[s] ? i : s;
		fprintf(out, "-s %s\n", scope[s]);
	}
	if (nb)
		put_bind(p, dn, out);
	uint64_t conns = p->peak < 1 ? 1 : p->peak > 10000 ? 10000 : p->peak;
	fprintf(out, "-n %" PRIu64 "\n", conns);
	put_rate(p, (double)(ns + nb) / (double)p->requests, out);
	return 0;
}
