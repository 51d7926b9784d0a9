/* --rate-profile: the target rate over a run's time, from a file or an
 * inline spec.
 *
 * Inline spec (comma-separated segments):
 *   RATE@DURATION            hold RATE for DURATION          500@10s
 *   FROM-TO@DURATION         ramp linearly from FROM to TO   100-2000@30s
 *   ...,repeat               start over after the last one
 * A file holds UnboundID's variable-rate format: an optional
 * "format=rate-and-duration" header line, optional "default-duration=D" and
 * "repeat=yes|no" lines, '#' comments, then "RATE,DURATION" lines (RATE may
 * be "NX": N times the first rate given; DURATION may be left out with a
 * default-duration; units ms, s, m, h, d).  A step is two holds in a row. */
#ifndef LDBENCH_CLI_RATE_PROFILE_H
#define LDBENCH_CLI_RATE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

/* Parse arg (a readable file's name, else an inline spec) into c's
 * rate_profile.  @return 0, or -1 with one line in err. */
int ldb_rate_profile_parse(struct ldb_config *c, const char *arg, char *err, size_t cap);

/* The target rate `ms` after measurement started (after the last segment:
 * the last rate, or again from the first with repeat). */
double ldb_rate_profile_at(const struct ldb_config *c, uint64_t ms);

/* The highest rate of the profile. */
double ldb_rate_profile_max(const struct ldb_config *c);

#endif
