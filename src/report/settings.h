/* The load's settings as the reports show them: the -v block ("Host to
 * connect    = ..."): ldclt's layout, each operation kind's lines from the
 * operation table, never the password; and the load's struct ldb_outputs
 * (report/reporter.h) with its header record's "config" object. */
#ifndef LDBENCH_REPORT_SETTINGS_H
#define LDBENCH_REPORT_SETTINGS_H

#include <stdio.h>

#include "conf/config.h"
#include "report/reporter.h"

void ldb_config_print(const struct ldb_config *c, FILE *out);

/* What the load's reporters and text read, from its configuration c (which
 * must outlive o): its result files, live metrics, text lines and header. */
void ldb_outputs_of_config(struct ldb_outputs *o, const struct ldb_config *c);

#endif
