/* ldbench: dispatch, wiring, exit status. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "cmd/compare_runs.h"
#include "gen/gen.h"
#include "cmd/load.h"
#include "cmd/merge.h"
#include "cmd/join_cmd.h"
#include "cmd/listen_join.h"
#include "cmd/listen_only.h"
#include "cmd/report_page.h"
#include "cmd/sweep.h"
#include "cmd/findmax.h"
#include "cmd/add_ldif.h"
#include "cmd/replay_cmd.h"
#include "report/reporter.h"
#include "report/metrics.h"
#include "report/settings.h"

/* Every command's option table, one line per option (util/optable.h):
 * `ldbench --dump-options`, undocumented, what tests/integration/options_table.sh
 * holds against --help and docs/ldbench.1. */
static int dump_options(void)
{
	ldb_cli_dump_options(stdout);
	ldb_opt_dump("replay", ldb_replay_options, stdout);
	ldb_opt_dump("join", ldb_join_options, stdout);
	ldb_opt_dump("listen-join", ldb_listen_join_options, stdout);
	ldb_opt_dump("merge", ldb_merge_options, stdout);
	ldb_opt_dump("compare", ldb_compare_options, stdout);
	ldb_opt_dump("report", ldb_report_options, stdout);
	ldb_gen_dump_options(stdout);
	return fflush(stdout) == 0 ? 0 : LDB_EXIT_OTHER;
}

int main(int argc, char **argv)
{
	static const char dump_flag[] = "--dump-options"; /* not a subcommand (docs.sh reads the dispatch) */
	if (argc == 2 && strcmp(argv[1], dump_flag) == 0)
		return dump_options();
	if (argc > 1 && strcmp(argv[1], "gen") == 0)
		return ldb_gen_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return ldb_compare_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return ldb_merge_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "join") == 0)
		return ldb_join_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "listen-join") == 0)
		return ldb_listen_join_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return ldb_report_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "replay") == 0)
		return ldb_replay_main(argc - 1, argv + 1);

	struct ldb_config cfg;
	char err[512];
	ldb_config_init(&cfg);
	switch (ldb_cli_parse(&cfg, argc, argv, err, sizeof err)) {
	case LDB_CLI_EXIT_OK: ldb_config_free(&cfg); return 0;
	case LDB_CLI_ERROR:
		fprintf(stderr, "%s\n", err);
		ldb_config_free(&cfg);
		return LDB_EXIT_PARAMS;
	case LDB_CLI_INIT_ERROR: {
		/* an unusable input file: ldclt's "Cannot initialize", exit 7 */
		struct ldb_outputs o;
		ldb_outputs_of_config(&o, &cfg);
		struct ldb_text t = { .o = &o, .cfg = &cfg, .out = stdout, .pid = getpid() };
		fprintf(stderr, "%s\n", err);
		ldb_text_init_failed(&t);
		ldb_config_free(&cfg);
		return LDB_EXIT_INIT;
	}
	case LDB_CLI_RUN: break;
	}
	if (cfg.genldif_file) {
		int st = ldb_genldif_run(&cfg);
		ldb_config_free(&cfg);
		return st;
	}
	/* records on stdout (--json - or --csv -): the text goes to stderr */
	FILE *out = (cfg.json_path && !strcmp(cfg.json_path, "-")) || (cfg.csv_path && !strcmp(cfg.csv_path, "-"))
	                    ? stderr
	                    : stdout;
	/* --metrics-listen, --metrics-push: the port taken, the URL checked before any LDAP connection */
	if ((cfg.metrics.listen != NULL || cfg.metrics.push != NULL) &&
	    ldb_metrics_open(&cfg.metrics, cfg.progname, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", cfg.progname, err);
		ldb_config_free(&cfg);
		return LDB_EXIT_PARAMS;
	}
	int status = cfg.listen_only     ? ldb_listen_only(&cfg, out)
	             : cfg.nfind_max > 0 ? ldb_find_max(&cfg, out)
	             : cfg.nsweep > 0    ? ldb_sweep(&cfg, out)
	                                 : ldb_run_load(&cfg, out, NULL);
	ldb_metrics_close(&cfg.metrics);
	ldb_config_free(&cfg);
	return status;
}
