/* The entries above the generated ones: --suffix and the containers down to a
 * parent (DN checks, each entry's RDN kind: dc, o or ou), the mail domain the
 * suffix's dc= values make, and their container entries. */
#ifndef LDBENCH_GEN_CONTAINERS_H
#define LDBENCH_GEN_CONTAINERS_H

#include <ldap.h>
#include <stdbool.h>
#include <stddef.h>

struct gen_out;

/* The attribute of a container's RDN, which gives its object classes. */
enum rdn_kind { RDN_DC, RDN_O, RDN_OU };

/* One entry of the tree above the generated objects. */
struct gen_node {
	char *dn; /* ldap_dn2str form; ldap_memfree */
	enum rdn_kind kind;
	char *value; /* the RDN value (malloc) */
};

/* The suffix and the containers down to a parent, top first. */
struct gen_containers {
	struct gen_node *nodes;
	size_t count;
	char *domain; /* mail domain (malloc) */
};

/* Free t's nodes and domain (t may be zeroed or half built). */
void gen_containers_free(struct gen_containers *t);

/* Parse the DN s of option opt into *dn (ldap_dnfree).  @return 0 or -1 with err. */
int gen_parse_dn(const char *opt, const char *s, LDAPDN *dn, char *err, size_t cap);

/* Check that parent is the suffix or below it, and list the entries from the
 * suffix down to the parent.  @return 0 or -1 with err. */
int gen_containers_build(struct gen_containers *t, const char *suffix, const char *parent, const char *popt, char *err,
                         size_t cap);

/* The container entry of an RDN attr=value, its lines after the dn (and
 * changetype) line; extra (NULL: none) a description line. */
void gen_container_write(struct gen_out *o, const char *attr, const char *val, size_t vlen, const char *extra,
                         size_t xlen);

/* One suffix or container entry; with change_add as an ldapmodify add record. */
void gen_node_write(const struct gen_node *nd, struct gen_out *o, bool change_add);

/* The suffix and container entries. */
void gen_containers_write(const struct gen_containers *t, struct gen_out *o, bool change_add);

/* The DN of the lowest entry of t (the parent of what goes below). */
const char *gen_containers_bottom(const struct gen_containers *t);

/* The users' parent: given, or "ou=People,SUFFIX" made in *owned (the caller
 * frees it).  NULL when memory ran out (err says so). */
const char *gen_people_default(const char *given, const char *suffix, char **owned, char *err, size_t cap);

#endif
