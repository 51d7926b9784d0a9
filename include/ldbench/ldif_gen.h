/* `ldbench gen ...`: LDIF dataset generators (the shapes of 389 DS
 * `dsctl ldifgen`), for slapadd/ldapadd or for a run.
 *
 * Subcommands (more will follow: groups, mod-load, --hash for users):
 *
 *   ldbench gen users --suffix S --parent P --number N
 *                     [--start-idx I] [--width W] [--ldif-file F]
 *
 * writes the suffix entry, every container between the suffix and P (each one
 * an organizationalUnit, organization or dcObject+organization according to its
 * RDN attribute: ou, o or dc), then N users
 *
 *   dn: uid=user<idx>,P
 *   objectClass: top / person / organizationalPerson / inetOrgPerson
 *   uid, cn, sn, givenName: user<idx>
 *   mail: user<idx>@<domain>
 *   userPassword: user<idx>            (plain text: the password is the uid)
 *
 * with idx running from I (default 1) to I+N-1, zero-padded to W digits
 * (default 5, or the digits of the largest index when that is more; a W too
 * small for the largest index is refused).  <domain> is the suffix's dc= values
 * joined with dots ("dc=example,dc=com" -> example.com), or example.com when the
 * suffix has no dc= part.  Output goes to stdout, or to F followed by the line
 * "Successfully created LDIF file: F" on stdout (as dsctl ldifgen prints).
 *
 * Exit statuses: 0 done; 2 (LDB_EXIT_PARAMS) bad command line, with one line on
 * stderr naming the problem and nothing written; 99 (LDB_EXIT_OTHER) the output
 * could not be written (the partial file is removed).
 */
#ifndef LDBENCH_LDIF_GEN_H
#define LDBENCH_LDIF_GEN_H

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

/** What `gen users` writes; filled from the command line by ldb_gen_main. */
struct ldb_gen_users {
	const char *suffix;   /* the naming context, e.g. "dc=example,dc=com" */
	const char *parent;   /* the users' parent: the suffix or below it */
	int64_t number;       /* users to write (>= 0) */
	int64_t start_idx;    /* first index (>= 0) */
	int width;            /* zero-padding of the index; 0 = automatic */
};

/** Write the LDIF of `u` to `out` (no file handling, no success line).
 *  @return 0, 2 with one line in err (bad DN, width too small, ...), or 99 when
 *  writing failed (err says why). */
int ldb_gen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t errcap);

#endif
