/* The pre-flight check: before the I/O threads start, on a libldap connection
 * of its own (main thread), does the run's range match the data?
 *
 *   - a search whose -f has an XXX and a range (-r/-R with random or incr):
 *     the filter at the lowest and highest values and three in between, each
 *     must return srchnentries entries (or at least one without srchnentries);
 *     the same for a -f value pattern whose brackets are all number ranges
 *     (or [ref:N]): every range at its first bound, its last and three points
 *     in between (a pattern of other brackets, [uuid], [file:], is not
 *     checked);
 *   - a bind DN with an XXX (randombinddn): a bind as the lowest and the
 *     highest; randombinddnfromfile: its first and last lines;
 *   - writes are not checked (re-adding existing entries, or deleting what
 *     an earlier run added, is often the point; a missing parent is made on
 *     32), nor the searches of a run that also adds, deletes or renames (the
 *     data changes under them), nor SASL binds, nor a -b with an XXX;
 *   - a result code given with -I is expected (the load counts it and goes
 *     on): the line shows it "(ignored: -I 49)" and it fails nothing.
 *
 * The searches and binds it sent are counted (struct ldb_preflight) so that
 * --monitor can leave them out of the server's delta. */
#ifndef LDBENCH_SERVER_PREFLIGHT_H
#define LDBENCH_SERVER_PREFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "conf/config.h"
#include "run/stats.h"
#include "server/say.h"

struct ldb_preflight {
	uint64_t own[LDB_OP_COUNT]; /* operations sent, per kind (search, bind) */
	uint64_t total;             /* all of them, with the connection's unbind */
};

/* Does the run have anything to check?  (false with --no-preflight) */
bool ldb_preflight_wanted(const struct ldb_config *c);

/* Run the checks; one line per check kind through `say` ("Pre-flight: search
 * (uid=user00001) 1 entry, ..."), and one line saying what does not match.
 * @return LDB_EXIT_OK, LDB_EXIT_PREFLIGHT when the range does not match the
 * data, LDB_EXIT_CANNOT_BIND when its connection's TLS handshake failed (a
 * certificate that does not verify: the line says so, as the load's clients
 * would fail); a server that cannot be reached is left to the load. */
int ldb_preflight_run(const struct ldb_config *c, const struct ldb_say *say, struct ldb_preflight *pf);

#endif
