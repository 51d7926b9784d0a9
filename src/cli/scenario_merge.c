/* --scenario FILE merged with the command line (the command line wins), and
 * --list-scenarios DIR; cli/scenario splits the file. */
#include "cli/ctx.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/scenario.h"

/* -------------------------------------------------------------- scenarios */

/* Scenario files read by this process.  Their words become elements of the
 * argv the options are parsed from, and some options keep pointers into argv
 * (--json, --csv): they stay until the process ends (reachable, not leaked). */
static struct scen_keep {
	struct scen_keep *next;
	struct ldb_scenario sc;
	char **words; /* the merged argv's copies of the file's words */
	int *line_of;
	/* [workload NAME] sections: each workload's argv (words, line_of owned), the --fail-if values */
	struct scen_wl *wl;
	int nwl;
	const char *fail_if[32];
	int nfail_if;
} * scen_kept;

#define OPT_ID_MAX 1024 /* short options are their character, long ones OPT_* */

/* What a first look at the command line found. */
struct prescan {
	const char *scenario;  /* --scenario FILE */
	int drop[2], ndrop;    /* argv indices holding --scenario and its FILE */
	const char *list_dir;  /* --list-scenarios DIR */
	bool seen[OPT_ID_MAX]; /* options given on the command line */
	/* --set NAME=VALUE and --dataset NAME: the scenario's parameters */
	const char *sets[32];
	int nsets;
	const char *dataset;
	/* --fail-if on the command line: its values and argv indices (a scenario
	 * with sections resolves them once, for the run) */
	const char *fail_if[16];
	int nfail_if;
	int fdrop[32], nfdrop;
};

static size_t ptr_in(const char *p, const char *s)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)s;

	return a >= b && a <= b + strlen(s) ? (size_t)(a - b) + 1 : 0;
}

static int note_param(struct cli_ctx *x, struct prescan *ps, int opt, const char *arg)
{
	if (opt == OPT_DATASET) {
		ps->dataset = arg;
		return 0;
	}
	if (ps->nsets == (int)(sizeof ps->sets / sizeof ps->sets[0]))
		return cli_fail(x, "--set: at most 32 parameters");
	ps->sets[ps->nsets++] = arg;
	return 0;
}

/* The argv indices of an option whose value is `val` (--opt VAL, --opt=VAL). */
static void note_drop(struct prescan *ps, int argc, char **argv, const char *val)
{
	for (int k = 1; k < argc && ps->nfdrop + 2 <= 32; k++) {
		if (argv[k] == val && k > 1) {
			ps->fdrop[ps->nfdrop++] = k - 1;
			ps->fdrop[ps->nfdrop++] = k;
			return;
		}
		if (argv[k] != val && ptr_in(val, argv[k])) {
			ps->fdrop[ps->nfdrop++] = k;
			return;
		}
	}
}

/* getopt over a copy of argv: note --scenario, --list-scenarios and every option
 * given; other problems are left to the real parse.  @return 0 or -1 (err set). */
static int prescan_argv(struct cli_ctx *x, int argc, char **argv, struct prescan *ps)
{
	char **copy = malloc(sizeof(*copy) * (size_t)(argc + 1));
	int opt, rc = 0, nscen = 0;

	if (copy == NULL)
		return cli_oom(x);
	for (int i = 0; i < argc; i++)
		copy[i] = argv[i];
	copy[argc] = NULL;
	optind = 0;
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, copy, cli_short_options(), cli_long_options(), NULL)) != -1) {
		if (opt == ':' && (optopt == OPT_SCENARIO || optopt == OPT_LIST_SCENARIOS)) {
			rc = cli_fail(x, "--%s needs a value", cli_long_name(optopt));
			break;
		}
		if (opt > 0 && opt < OPT_ID_MAX && opt != '?' && opt != ':')
			ps->seen[opt] = true;
		if (opt == OPT_FAIL_IF && ps->nfail_if < 16) {
			ps->fail_if[ps->nfail_if++] = optarg;
			note_drop(ps, argc, argv, optarg);
		}
		if (opt == OPT_SET || opt == OPT_DATASET) {
			rc = note_param(x, ps, opt, optarg);
		} else if (opt == OPT_LIST_SCENARIOS) {
			ps->list_dir = optarg;
		} else if (opt == OPT_SCENARIO) {
			if (++nscen > 1) {
				rc = cli_fail(x, "--scenario: one scenario file per run");
				break;
			}
			ps->scenario = optarg;
			for (int k = 1; k < argc; k++) {
				if (argv[k] == optarg && k > 1) { /* --scenario FILE */
					ps->drop[0] = k - 1;
					ps->drop[1] = k;
					ps->ndrop = 2;
					break;
				}
				if (argv[k] != optarg && ptr_in(optarg, argv[k])) { /* --scenario=FILE */
					ps->drop[0] = k;
					ps->ndrop = 1;
					break;
				}
			}
		}
	}
	free(copy);
	optind = 0;
	if (rc == 0 && ps->scenario == NULL && ps->list_dir == NULL && (ps->nsets > 0 || ps->dataset != NULL))
		rc = cli_fail(x, "--%s sets a scenario's parameters: it needs --scenario FILE",
		              ps->nsets > 0 ? "set" : "dataset");
	return rc;
}

/* Check one option of a scenario file against the option tables.
 * @return 0 and *id (the short option's character or the long option's OPT_*), or -1. */
static int check_scenario_opt(struct cli_ctx *x, const char *path, const struct ldb_scenario_opt *o, int *id)
{
	const char *w = o->opt;
	bool takes, attached;

	if (w[1] != '-') {
		const char *p = w[1] != ':' ? strchr(cli_short_options() + 1, w[1]) : NULL;

		if (p == NULL)
			return cli_fail(x, "%s:%d: unknown option '-%c' (see --help)", path, o->line, w[1]);
		takes = p[1] == ':';
		attached = w[2] != '\0';
		if (!takes && attached)
			return cli_fail(x, "%s:%d: '%s': one option per line", path, o->line, w);
		*id = (unsigned char)w[1];
	} else {
		const char *name = w + 2, *eq = strchr(name, '=');
		size_t n = eq != NULL ? (size_t)(eq - name) : strlen(name);
		const struct option *lo = cli_long_options();

		while (lo->name != NULL && !(strlen(lo->name) == n && strncmp(lo->name, name, n) == 0))
			lo++;
		if (lo->name == NULL)
			return cli_fail(x,
			                "%s:%d: unknown option '--%.*s' (see --help; a scenario file spells long "
			                "options in full)",
			                path, o->line, (int)n, name);
		takes = lo->has_arg == required_argument;
		attached = eq != NULL;
		if (!takes && attached)
			return cli_fail(x, "%s:%d: --%s takes no value", path, o->line, lo->name);
		*id = lo->val;
	}
	if (takes && attached && o->val != NULL)
		return cli_fail(x, "%s:%d: '%s %s': two values for one option", path, o->line, w, o->val);
	if (takes && !attached && o->val == NULL)
		return cli_fail(x, "%s:%d: %s needs a value", path, o->line, w);
	if (!takes && o->val != NULL)
		return cli_fail(x, "%s:%d: %s takes no value ('%s')", path, o->line, w, o->val);
	switch (*id) {
	case 'w':
	case 'y':
		return cli_fail(x,
		                "%s:%d: -%c: a password does not belong in a scenario file; give -w, -y or "
		                "LDBENCH_PASSWORD on the command line",
		                path, o->line, *id);
	case OPT_SCENARIO:
	case OPT_LIST_SCENARIOS:
	case OPT_DATASET:
	case OPT_HELP:
	case OPT_VERSION:
		return cli_fail(x, "%s:%d: --%s has no place in a scenario file", path, o->line, cli_long_name(*id));
	default: return 0;
	}
}

/* Options of the file that a command-line option replaces although they are
 * not the same option (they exclude or override each other). */
static bool cli_replaces(const struct prescan *ps, int id)
{
	switch (id) {
	case 'N': return ps->seen[OPT_DURATION];
	case OPT_DURATION: return ps->seen['N'];
	case 'n': return ps->seen[OPT_SWEEP];
	case OPT_SWEEP: return ps->seen['n'];
	case 'h':
	case 'p': return ps->seen['H'];
	case 'H': return ps->seen['h'] || ps->seen['p'];
	default: return false;
	}
}

/* Options that are the run's, not a workload's: the target, its TLS, the
 * outputs, the sampling, the thresholds, the I/O threads, the features that
 * watch the whole run. */
static bool run_wide(int id)
{
	switch (id) {
	case 'h':
	case 'p':
	case 'H':
	case 'N':
	case 'Z':
	case 'S':
	case 'P':
	case OPT_INTERVAL:
	case OPT_SEED:
	case OPT_WARMUP:
	case OPT_MONITOR:
	case OPT_START_AT:
	case OPT_FAIL_IF:
	case OPT_IO_THREADS:
	case OPT_JSON:
	case OPT_CSV:
	case OPT_HDR_LOG:
	case OPT_HTML:
	case OPT_OP_LOG:
	case OPT_SERVER_LOG:
	case OPT_SERVER_LOG_WAIT:
	case OPT_NO_PREFLIGHT:
	case OPT_STARTTLS:
	case OPT_SWEEP: return true;
	default:
		return (id >= OPT_METRICS_LISTEN && id < OPT_METRICS_END) ||
		       (id >= OPT_FIND_MAX && id < OPT_CAPACITY_END && id != OPT_RAMP_UP && id != OPT_START_AFTER) ||
		       (id >= OPT_TLS_CACERT && id <= OPT_TLS_LIBRARY);
	}
}

/* An option in a [workload] section: one a workload may have of its own. */
static int check_section_opt(struct cli_ctx *x, const char *path, const struct ldb_scenario_opt *o, int id)
{
	if (!run_wide(id))
		return 0;
	return cli_fail(x,
	                "%s:%d: %s is the run's, not a workload's: give it before the first [workload] section or "
	                "on the command line",
	                path, o->line, o->opt);
}

/* A --fail-if of the file: its value. */
static const char *opt_value(const struct ldb_scenario_opt *o)
{
	const char *eq = strchr(o->opt, '=');
	return o->val != NULL ? o->val : eq != NULL ? eq + 1 : "";
}

/* Workload s's argv: argv[0], the file's common options and section s+1's
 * (--fail-if left out; those the command line replaces left out), then the
 * command line without --scenario FILE and --fail-if.  @return 0 or -1. */
static int section_argv(struct scen_keep *k, int s, int argc, char **argv, const struct prescan *ps, const int *ids,
                        struct scen_wl *w)
{
	char **words = calloc(2 * k->sc.nopts + (size_t)argc + 1, sizeof(*words));
	int *line_of = calloc(2 * k->sc.nopts + 2, sizeof(*line_of)), n = 0;
	if (words == NULL || line_of == NULL) {
		free(words);
		free(line_of);
		return -1;
	}
	words[n++] = argv[0];
	for (size_t i = 0; i < k->sc.nopts; i++) {
		const struct ldb_scenario_opt *o = &k->sc.opts[i];
		if ((o->section != 0 && o->section != s + 1) || ids[i] == OPT_FAIL_IF || cli_replaces(ps, ids[i]))
			continue;
		line_of[n] = o->line;
		words[n++] = o->opt;
		if (o->val != NULL) {
			line_of[n] = o->line;
			words[n++] = o->val;
		}
	}
	w->nfile = n - 1;
	for (int i = 1; i < argc; i++) {
		bool dropped = false;
		for (int d = 0; d < ps->ndrop; d++)
			dropped |= ps->drop[d] == i;
		for (int d = 0; d < ps->nfdrop; d++)
			dropped |= ps->fdrop[d] == i;
		if (!dropped)
			words[n++] = argv[i];
	}
	words[n] = NULL;
	w->name = k->sc.section[s];
	w->argv = words;
	w->argc = n;
	w->line_of = line_of;
	return 0;
}

/* Section s's own options alone: do they ask for an operation kind? */
static bool section_asks_kind(const struct scen_keep *k, int s, char *argv0)
{
	char **words = calloc(2 * k->sc.nopts + 2, sizeof(*words));
	int n = 0;
	if (words == NULL)
		return true; /* the real parse will run out of memory too */
	words[n++] = argv0;
	for (size_t i = 0; i < k->sc.nopts; i++) {
		const struct ldb_scenario_opt *o = &k->sc.opts[i];
		if (o->section != s + 1)
			continue;
		words[n++] = o->opt;
		if (o->val != NULL)
			words[n++] = o->val;
	}
	bool asks = cli_argv_asks_kind(n, words);
	free(words);
	return asks;
}

/* A scenario with [workload NAME] sections: an argv per workload (the first
 * is the run's), the --fail-if values of the file and the command line.
 * k->line_of holds the options' ids.  @return 0, or -1 (err set). */
static int merge_sections(struct cli_ctx *x, int argc, char **argv, const struct prescan *ps, struct scen_keep *k,
                          char ***margv, int *margc, struct scen_map *m)
{
	int nw = k->sc.nsections;
	const int *ids = k->line_of;
	for (size_t i = 0; i < k->sc.nopts; i++)
		if (ids[i] == OPT_START_AFTER && k->sc.opts[i].section == 0)
			return cli_fail(x, "%s:%d: --start-after is a workload's own: give it in a [workload] section",
			                ps->scenario, k->sc.opts[i].line);
	if (ps->seen[OPT_START_AFTER])
		return cli_fail(x, "--start-after is a workload's own: give it in a [workload] section of %s",
		                ps->scenario);
	for (int s = 0; s < nw; s++)
		if (!section_asks_kind(k, s, argv[0]))
			return cli_fail(
			        x,
			        "%s:%d: [workload %s] names no operation kind: give it its own -e, --mix or kind "
			        "option",
			        ps->scenario, k->sc.section_line[s], k->sc.section[s]);
	if ((k->wl = calloc((size_t)nw, sizeof(*k->wl))) == NULL)
		return cli_oom(x);
	k->nwl = nw;
	for (int s = 0; s < nw; s++)
		if (section_argv(k, s, argc, argv, ps, ids, &k->wl[s]) != 0)
			return cli_oom(x);
	for (size_t i = 0; i < k->sc.nopts && k->nfail_if < 32; i++)
		if (ids[i] == OPT_FAIL_IF)
			k->fail_if[k->nfail_if++] = opt_value(&k->sc.opts[i]);
	for (int i = 0; i < ps->nfail_if && k->nfail_if < 32; i++)
		k->fail_if[k->nfail_if++] = ps->fail_if[i];
	m->path = k->sc.path;
	m->line_of = k->wl[0].line_of;
	m->nfile = k->wl[0].nfile;
	m->wl = k->wl;
	m->nwl = nw;
	m->fail_if = k->fail_if;
	m->nfail_if = k->nfail_if;
	*margv = k->wl[0].argv;
	*margc = k->wl[0].argc;
	return 0;
}

/* Load the scenario, check its options, and build the merged argv: argv[0], the
 * file's options (those the command line replaces left out), then the command
 * line without --scenario FILE.  @return 0, or -1 (err set). */
static int merge_scenario(struct cli_ctx *x, int argc, char **argv, const struct prescan *ps, char ***margv, int *margc,
                          struct scen_map *m)
{
	struct scen_keep *k = calloc(1, sizeof(*k));
	char why[600];
	int n = 0;

	if (k == NULL)
		return cli_oom(x);
	if (ldb_scenario_load(&k->sc, ps->scenario, why, sizeof why) != 0 ||
	    ldb_scenario_apply(&k->sc, ps->sets, (size_t)ps->nsets, ps->dataset, why, sizeof why) != 0) {
		ldb_scenario_free(&k->sc);
		free(k);
		return cli_fail(x, "%s", why);
	}
	k->words = calloc(2 * k->sc.nopts + (size_t)argc + 1, sizeof(*k->words));
	k->line_of = calloc(2 * k->sc.nopts + 2, sizeof(*k->line_of));
	if (k->words == NULL || k->line_of == NULL) {
		ldb_scenario_free(&k->sc);
		free(k->words);
		free(k->line_of);
		free(k);
		return cli_oom(x);
	}
	k->words[n++] = argv[0];
	for (size_t i = 0; i < k->sc.nopts; i++) {
		const struct ldb_scenario_opt *o = &k->sc.opts[i];
		int id = 0;

		if (check_scenario_opt(x, ps->scenario, o, &id) < 0 ||
		    (o->section > 0 && check_section_opt(x, ps->scenario, o, id) < 0)) {
			ldb_scenario_free(&k->sc);
			free(k->words);
			free(k->line_of);
			free(k);
			return -1;
		}
		if (k->sc.nsections > 0) {
			k->line_of[i] = id; /* the sections' merge reads the ids */
			continue;
		}
		if (cli_replaces(ps, id))
			continue;
		k->line_of[n] = o->line;
		k->words[n++] = o->opt;
		if (o->val != NULL) {
			k->line_of[n] = o->line;
			k->words[n++] = o->val;
		}
	}
	if (k->sc.nsections > 0) {
		k->next = scen_kept;
		scen_kept = k; /* kept whatever happens: the process ends soon after a failure */
		return merge_sections(x, argc, argv, ps, k, margv, margc, m);
	}
	m->path = k->sc.path;
	m->line_of = k->line_of;
	m->nfile = n - 1;
	for (int i = 1; i < argc; i++) {
		bool dropped = false;

		for (int d = 0; d < ps->ndrop; d++)
			dropped |= ps->drop[d] == i;
		if (!dropped)
			k->words[n++] = argv[i];
	}
	k->words[n] = NULL;
	k->next = scen_kept;
	scen_kept = k;
	*margv = k->words;
	*margc = n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --list-scenarios DIR: "NAME  DESCRIPTION" per DIR/NAME.scen, sorted.  A file
 * that does not load or holds a bad option gets its error line on stderr.
 * @return 1 (listed: exit 0) or -1 (err set: exit 2). */
static int list_scenarios(struct cli_ctx *x, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, width = 0;
	int bad = 0;

	if (d == NULL)
		return cli_fail(x, "--list-scenarios %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".scen") != 0)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*nn));

			if (nn == NULL)
				break;
			names = nn;
		}
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) - 5 > width)
			width = strlen(names[i]) - 5;
	for (size_t i = 0; i < n; i++) {
		struct ldb_scenario sc = { 0 };
		char why[600];
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(plen);
		int id, ok;

		if (path == NULL)
			break;
		snprintf(path, plen, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		ok = ldb_scenario_load(&sc, path, why, sizeof why) == 0;
		if (!ok)
			fprintf(stderr, "%s: %s\n", x->c->progname, why);
		for (size_t j = 0; ok && j < sc.nopts; j++)
			if (check_scenario_opt(x, path, &sc.opts[j], &id) < 0) {
				fprintf(stderr, "%s\n", x->err != NULL ? x->err : "bad option");
				ok = false;
			}
		bad += !ok;
		if (ok)
			printf("%-*.*s  %s\n", (int)width, (int)(strlen(names[i]) - 5), names[i],
			       sc.description != NULL ? sc.description : "(no description)");
		ldb_scenario_free(&sc);
		free(path);
		free(names[i]);
	}
	free(names);
	fflush(stdout);
	if (bad > 0)
		return cli_fail(x, "--list-scenarios %s: %d scenario file%s with errors (above)", dir, bad,
		                bad > 1 ? "s" : "");
	return 1;
}

int cli_scenario_argv(struct cli_ctx *x, int argc, char **argv, char ***margv, int *margc, struct scen_map *m)
{
	struct prescan *ps = calloc(1, sizeof(*ps));
	int rc;

	if (ps == NULL)
		return cli_oom(x);
	rc = prescan_argv(x, argc, argv, ps);
	if (rc == 0 && ps->list_dir != NULL)
		rc = list_scenarios(x, ps->list_dir);
	else if (rc == 0 && ps->scenario != NULL)
		rc = merge_scenario(x, argc, argv, ps, margv, margc, m);
	free(ps);
	return rc;
}
