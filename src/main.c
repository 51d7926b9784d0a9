/* ldbench: dispatch, wiring, exit status. */
#include <stdio.h>
#include <string.h>

#include "ldbench/cli.h"
#include "ldbench/config.h"
#include "ldbench/ldif_gen.h"
#include "ldbench/sampler.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "gen") == 0)
		return ldb_gen_main(argc - 1, argv + 1);

	struct ldb_config cfg;
	char err[512];
	ldb_config_init(&cfg);
	switch (ldb_cli_parse(&cfg, argc, argv, err, sizeof err)) {
	case LDB_CLI_EXIT_OK:
		ldb_config_free(&cfg);
		return 0;
	case LDB_CLI_ERROR:
		fprintf(stderr, "%s\n", err);
		ldb_config_free(&cfg);
		return LDB_EXIT_PARAMS;
	case LDB_CLI_RUN:
		break;
	}
	int status = ldb_run_load(&cfg, stdout);
	ldb_config_free(&cfg);
	return status;
}
