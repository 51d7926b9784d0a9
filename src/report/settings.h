/* The -v block ("Host to connect    = ..."): ldclt's layout, each operation
 * kind's lines from the operation table; never the password. */
#ifndef LDBENCH_REPORT_SETTINGS_H
#define LDBENCH_REPORT_SETTINGS_H

#include <stdio.h>

#include "conf/config.h"

void ldb_config_print(const struct ldb_config *c, FILE *out);

#endif
