/* Held connections (docs/guide.md "Held connections"): with --held, -n N
 * connections carried by one client per I/O thread, probed at the run's
 * rate (--rate, --probe-every), each probe on a random idle connection; the
 * first connects paced (--connect-rate) and bound to the source addresses
 * in turn (--source-address); the counts of connections lost and the time
 * all were first up; the pre-flight of the local ports (cmd/load's). */
#ifndef LDBENCH_RUN_HELD_H
#define LDBENCH_RUN_HELD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf/config.h"

struct ldb_client;
struct ldb_conn;

/* Connections of client `id`: its share of --held's N, else --connections-per-thread. */
int ldb_held_nconns(const struct ldb_config *c, int id);
/* --connect-rate: how long after the start connection k of client id first connects. */
uint64_t ldb_held_connect_after(const struct ldb_config *c, int id, int k);
/* --source-address: the next address in turn (port 0), for the new connection's bind. @return its length. */
socklen_t ldb_held_next_source(const struct ldb_config *c, struct sockaddr_storage *ss);
/* Source address k as a socket address (port 0). @return its length. */
socklen_t ldb_source_sockaddr(const struct ldb_config *c, int k, struct sockaddr_storage *ss);
/* --held: the pacing deadline passed: the probes due, each on a random
 * idle connection (none idle: look again in a millisecond). */
void ldb_held_paced(struct ldb_client *w, uint64_t now);
/* A connection is ready for a probe: the client's pacing deadline armed. */
void ldb_held_wait(struct ldb_client *w, uint64_t now);
/* A connection's state class changed (0 idle, 1 being opened, 2 up):
 * connections lost while up, the time this client's were all up. */
void ldb_held_moved(struct ldb_conn *cn, int from, int to);
/* Before any connection: the local ports one source address has against the
 * connections to the server's one address.  @return 0, or -1 with one line
 * in err (what is short and how to raise it). */
int ldb_held_preflight(const struct ldb_config *c, long conns, char *err, size_t cap);
/* The same against the local port range [lo, hi] and nsources addresses (0: one). */
int ldb_held_ports(long conns, int nsources, long lo, long hi, char *err, size_t cap);

#endif
