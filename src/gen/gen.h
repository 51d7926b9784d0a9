/* `ldbench gen ...`: LDIF dataset generators (the shapes of 389 DS
 * `dsctl ldifgen`), for slapadd/ldapadd/ldapmodify or for a run.
 *
 * Every subcommand writes to stdout, or to --ldif-file F followed by the line
 * "Successfully created LDIF file: F" on stdout (as dsctl ldifgen prints).
 * User names are "user" + index zero-padded to W digits (--width W, default 5,
 * or the digits of the largest index when that is more; a W too small for the
 * largest index is refused), index from --start-idx I (default 1).  The mail
 * domain is the --suffix's dc= values joined with dots ("dc=example,dc=com" ->
 * example.com), or example.com when it has none.  Container entries (the
 * --suffix and everything between it and a parent) are organizationalUnit,
 * organization or dcObject+organization according to their RDN attribute
 * (ou, o or dc; nothing else is accepted).  --suffix is the topmost entry the
 * file creates, not necessarily the server's naming context: "ou=Bench,
 * dc=example,dc=com" makes a file that ldapadd loads into a running server.
 *
 *   ldbench gen users --suffix S [--parent P] --number N [--start-idx I]
 *                     [--width W] [--hash clear|ssha|ssha256|ssha512] [--ldif-file F]
 *     the suffix entry, the containers down to P (default ou=People,S), then N
 *     users
 *       dn: uid=user<idx>,P
 *       objectClass: top / person / organizationalPerson / inetOrgPerson
 *       uid, cn, sn, givenName: user<idx>
 *       mail: user<idx>@<domain>
 *       userPassword: user<idx>     (the password is the uid; with --hash
 *                                    {SSHA}, {SSHA256} or {SSHA512}
 *                                    base64(digest(password + salt) + salt),
 *                                    8 random salt bytes per user)
 *     slapd checks {SSHA} itself; {SSHA256}/{SSHA512} need `moduleload pw-sha2`.
 *     This simple shape has no ACIs: a 389 DS backend it is imported into
 *     answers non-root searches with nothing until one is added.  With
 *     --shape simple named (the switch between it and ldifgen's 389 DS
 *     shapes) a note on stderr says so; without --shape, nothing but the LDIF.
 *
 *   ldbench gen users --generic|--shape ldifgen --suffix S [--parent P]
 *                     --number N [--start-idx I] [--rdn-cn] [--ldif-file F]
 *     the file `dsctl INSTANCE ldifgen users --generic` writes with the same
 *     options: S as ldifgen writes it (objectClass domain/organization/
 *     organizationalunit/country/nscontainer by its RDN, three ACIs: self
 *     write, write for cn=Directory Administrators,ou=Groups,S, anonymous
 *     read/search/compare), ou=accounting, product development, product
 *     testing, human resources, payroll, people, groups below S, P (as S is
 *     written) unless it is one of those seven, then users uid=user<idx>,P
 *     (cn= with --rdn-cn) for idx = 1+I .. N+I (I default 0: ldifgen adds
 *     --start-idx to a count from 1, so --start-idx 1 starts at user2),
 *     zero-padded to the digits of N (200 users: user001..user200), each an
 *     inetOrgPerson + inetUser with ldifgen's attributes (cn and uid the name,
 *     userPassword the name in clear text, mail name@example.com and
 *     idx@example.com, random sn, givenName, l, ou, title).  Without P every
 *     user goes below one of the seven OUs picked at random, as in ldifgen.
 *     --width and --hash do not apply; --localize is refused.
 *     --shape ldifgen-random: ldifgen users without --generic: the same tree,
 *     users uid=<given initial><family><i> (i = 1..N, --start-idx ignored as
 *     ldifgen does), cn "Given Family" (the RDN with --rdn-cn).
 *
 *   ldbench gen groups NAME [--number N] [--num-members M] [--create-members]
 *                     --suffix S [--parent P] [--member-parent MP]
 *                     [--member-attr member|uniqueMember] [--start-idx I]
 *                     [--width W] [--ldif-file F]
 *     N (default 1) groups cn=NAME-1..NAME-N,P (P default S), each a
 *     groupOfNames (--member-attr member) or groupOfUniqueNames (uniqueMember,
 *     the default as in dsctl) with M (default 10000, as in dsctl) values
 *     uid=user<I..I+M-1>,MP (MP default ou=People,S).  With --create-members
 *     the file first holds S, the containers down to P and MP, and the M
 *     member users (each once, as `gen users` writes them); without it the
 *     file holds only the groups, for a tree that already has P and the users.
 *
 *   ldbench gen mod-load --num-users N --parent P [--suffix S] [--create-users]
 *                     [--add-users A] [--mod-users M] [--modrdn-users R]
 *                     [--del-users D] [--delete-users] [--mod-attrs ATTR...]
 *                     [--start-idx I] [--width W] [--ldif-file F]
 *     changetype records for ldapmodify (without -c), in this order:
 *       with S: adds of S and the containers down to P;
 *       with --create-users: N adds of uid=user<I..I+N-1>,P;
 *       A adds of uid=addUser<1..A>,P (default 100);
 *       M modifies (default 100) of users 1..M: one replace per --mod-attrs
 *         attribute (default description), value "<uid> modified";
 *       R modrdns (default 100) of users 1..R to newrdn cn=<uid>, deleteoldrdn 1;
 *       D deletes (default 100) of users N-D+1..N (by their cn= DN when renamed);
 *       with --delete-users: deletes of users 1..N-D and of the A added users.
 *     M, R and D above N are refused; uid and objectClass cannot be --mod-attrs.
 *
 *   ldbench gen tree --depth D --fanout F --entries E [--suffix S] [--ldif-file F]
 *     the top entry S (default dc=example,dc=com) is the level-0 container;
 *     every container above level D has F sub-containers ou=unit<1..F>, and
 *     every container (the top included) holds E inetOrgPerson leaves
 *     cn=entry<n> (n numbered 1.. across the whole tree, in file order).
 *     Containers = 1 + F + ... + F^D, entries = E * containers; the counts are
 *     printed on stderr at the end (D 5, F 5, E 5: 3906 containers, 19530
 *     entries).
 *
 *   ldbench gen groups NAME --generic --suffix S [--parent P] [--number N]
 *                     [--num-members M] [--create-members] [--member-parent MP]
 *                     [--member-attr ATTR] [--ldif-file F]
 *     what `dsctl INSTANCE ldifgen groups` writes, record for record: S, P and
 *     MP as ldifgen writes them (with the three ACIs; P and MP only when they
 *     are not S, MP once), then per group k = 1..N: (--create-members) M
 *     generic users uid=group_entry<k>-<i>,MP, then cn=NAME-k,P (P default
 *     S): objectclass top, groupOfUniqueNames, groupOfNames, inetAdmin, "cn:"
 *     the group's whole DN, M values ATTR (default uniquemember, as given):
 *     those users, or uid=user<i>,MP (MP default S); i padded to the digits
 *     of M.  ldifgen's generic user: cn "NAME EMAN", sn the name reversed,
 *     givenName the name, ldifgen's attribute set.
 *
 *   ldbench gen mod-load --generic --num-users N --parent P [--create-parent]
 *                     [--create-users] [--add-users A] [--mod-users M]
 *                     [--modrdn-users R] [--del-users D] [--delete-users]
 *                     [--mod-attrs ATTR...] [--randomize] [--ldif-file F]
 *     what `dsctl INSTANCE ldifgen mod-load` writes, record for record:
 *     (--create-parent) P with the ACIs and no changetype; (--create-users)
 *     adds of user1..N; adds of addUserA..1; modifies of userM..1, each one
 *     replace of an attribute picked from ATTR (default description) with a
 *     random value; modrdns of userR..1, newrdn "cn=user<k>,P" (the whole DN,
 *     as ldifgen); deletes of uid=userD..1; (--delete-users) deletes of the
 *     users neither renamed nor deleted, then of the added and renamed ones in
 *     the order they came.  --randomize interleaves the four kinds at random.
 *     Counts may pass N.  One difference: delete records end with an empty
 *     line (ldifgen: a line holding a space, which ldapmodify refuses).
 *
  * Exit statuses: 0 done; 2 (LDB_EXIT_PARAMS) bad command line, with one line on
 * stderr naming the problem and nothing written; 99 (LDB_EXIT_OTHER) the output
 * could not be written or hashed (the partial file is removed).
 */
#ifndef LDBENCH_GEN_GEN_H
#define LDBENCH_GEN_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Default zero-padding of the user index (user00001). */
#define LDB_GEN_DEFAULT_WIDTH 5
/* Largest index accepted (fits int64 with room for start+number arithmetic). */
#define LDB_GEN_MAX_INDEX 999999999999999999LL /* 18 digits */

/** Entry point of `ldbench gen ...`: argv[0] is "gen", argv[1] the subcommand.
 *  `--help` (or `gen help`) prints the usage on stdout and returns 0.
 *  @return the process exit status: 0, 2 (bad options) or 99 (write error). */
int ldb_gen_main(int argc, char **argv);

/** Print the usage of every gen subcommand. */
void ldb_gen_usage(FILE *out);

/** Print the usage of gen subcommand name, with its option lines (its table). */
void ldb_gen_usage_of(const char *name, FILE *out);

/** The subcommands' option tables, one line per option (util/optable.h's
 *  ldb_opt_dump, commands "gen:users" ...): `ldbench --dump-options`. */
void ldb_gen_dump_options(FILE *out);

/** userPassword form of `gen users --hash`. */
enum ldb_gen_hash {
	LDB_GEN_HASH_CLEAR = 0, /* the password itself */
	LDB_GEN_HASH_SSHA,      /* {SSHA}: SHA-1 */
	LDB_GEN_HASH_SSHA256,   /* {SSHA256}: SHA-256 (slapd: pw-sha2 module) */
	LDB_GEN_HASH_SSHA512,   /* {SSHA512}: SHA-512 (slapd: pw-sha2 module) */
};

/** What `gen users` writes; filled from the command line by ldb_gen_main. */
struct ldb_gen_users {
	const char *suffix;     /* the naming context, e.g. "dc=example,dc=com" */
	const char *parent;     /* the users' parent: the suffix or below it */
	int64_t number;         /* users to write (>= 0) */
	int64_t start_idx;      /* first index (>= 0) */
	int width;              /* zero-padding of the index; 0 = automatic */
	enum ldb_gen_hash hash; /* userPassword form (0: clear text) */
	bool ldifgen;           /* --generic / --shape ldifgen: dsctl ldifgen's tree */
	bool rdn_cn;            /* --rdn-cn (ldifgen shape): cn=user<idx> RDNs */
	bool random_names;      /* --shape ldifgen-random: ldifgen without --generic */
};

/** Write the LDIF of `u` to `out` (no file handling, no success line).
 *  @return 0, 2 with one line in err (bad DN, width too small, ...), or 99 when
 *  writing or hashing failed (err says why). */
int ldb_gen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t errcap);

#endif
