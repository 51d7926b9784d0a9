/* The dsctl ldifgen dialect (--generic, --shape ldifgen, ldifgen-random): the
 * files `dsctl INSTANCE ldifgen users|groups|mod-load` writes, record for
 * record, with their ACIs and quirks; the random parts from a fresh seed, as
 * dsctl's. */
#ifndef LDBENCH_GEN_LDIFGEN_H
#define LDBENCH_GEN_LDIFGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gen/gen.h"

struct gen_groups_opts;
struct gen_modload_opts;

/* gen users --generic (--shape ldifgen, ldifgen-random) to out, after the
 * ldifgen shape's own checks (the command line makes more). */
int gen_ldifgen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t cap);

/* A DN ldifgen can write as a container: c, cn, dc, o or ou first. */
bool gen_ldifgen_dn_ok(const char *s, const char *opt, char *err, size_t cap);

/* What `dsctl ldifgen groups` writes for the gen_groups_opts plan, to f.
 * @return 0 or 99 with err. */
int gen_ldifgen_groups_emit(const void *plan, FILE *f, char *err, size_t cap);

/* ldifgen's checks of its groups options (it checks no DN nesting). */
int gen_ldifgen_groups_check(struct gen_groups_opts *g, char *err, size_t cap);

/* What `dsctl ldifgen mod-load` writes for the gen_modload_opts plan, to f.
 * @return 0 or 99 with err. */
int gen_ldifgen_modload_emit(const void *plan, FILE *f, char *err, size_t cap);

/* ldifgen's mod-load options: no --suffix (--create-parent writes the
 * parent), counts may pass --num-users (those records name users that do not
 * exist, as ldifgen's do). */
int gen_ldifgen_modload_check(struct gen_modload_opts *m, char *err, size_t cap);

#endif
