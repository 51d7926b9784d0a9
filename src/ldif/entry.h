/* Entry shapes: what an entry of each kind holds, as (type, value) pairs in
 * storage the caller provides, for every writer of entries: the add workload
 * (on the wire), -e genldif and `ldbench gen` (as LDIF).
 *
 *  - ldclt's classes for -e add: person, emailPerson, inetOrgPerson, and the
 *    add entry itself (an -e object template's values, or a class entry);
 *  - container entries: the suffix and parents that gen writes and the add
 *    workload creates on noSuchObject;
 *  - gen's datasets: users, tree leaves, group heads.
 *
 * Hot-path rules: no allocation, no stdio, no locks.  Values point to static
 * strings, to the caller's arguments, or into the entry's text storage (values
 * the module builds, e.g. a mail address, and NUL-terminated copies of types).
 * Every function appends to the entry and returns 0, or -1 when the values or
 * the text storage are full or the input is refused (the entry is then
 * incomplete: discard it). */
#ifndef LDBENCH_LDIF_ENTRY_H
#define LDBENCH_LDIF_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"
#include "values/objtmpl.h"

/* ldclt's entry classes; the same numbers as the configuration's LDB_CLASS_*. */
enum ldb_entry_class {
	LDB_ENTRY_PERSON = 1,
	LDB_ENTRY_EMAILPERSON = 2,
	LDB_ENTRY_INETORGPERSON = 3,
};

/* The most values of a class entry, of a container entry. */
#define LDB_ENTRY_CLASS_MAX 8
#define LDB_ENTRY_CONTAINER_MAX 5
/* The mail domain of emailPerson entries. */
#define LDB_ENTRY_MAIL_DOMAIN "@example.com"

/* An entry being built: values v[0..n) of at most max, text[0..used) of cap. */
struct ldb_entry {
	struct ldb_put_value *v;
	int n, max;
	char *text;
	size_t used, cap;
};

/** Start an empty entry on the caller's arrays (text may be NULL with cap 0
 *  for shapes that build no value). */
void ldb_entry_init(struct ldb_entry *e, struct ldb_put_value *v, int max, char *text, size_t cap);

/** Forget the values and the text (the storage is kept). */
static inline void ldb_entry_reset(struct ldb_entry *e)
{
	e->n = 0;
	e->used = 0;
}

/** Append one value; type must stay NUL-terminated while the entry is used. */
int ldb_entry_put(struct ldb_entry *e, const char *type, const char *val, size_t len);

/** n bytes of the entry's text storage, or NULL when it is full. */
char *ldb_entry_text(struct ldb_entry *e, size_t n);

/** The entry of class cls (LDB_ENTRY_*) whose RDN is attr=val.
 *
 *  person:        objectClass top, person; cn and sn = the RDN value; the RDN
 *                 attribute too when it is neither cn nor sn.
 *  inetOrgPerson: objectClass top, person, organizationalPerson, inetOrgPerson;
 *                 cn, sn and the RDN attribute as for person.
 *  emailPerson:   as inetOrgPerson, plus mail: <value>@example.com in the text
 *                 (the value itself when it holds an '@'; nothing more when the
 *                 RDN attribute is mail).  emailPerson is a Netscape class that
 *                 OpenLDAP's schema lacks, hence inetOrgPerson.
 *
 *  attr is the start of the RDN ("uid=..."), or a type NUL-terminated at alen:
 *  attr[alen] is read, and when it is NUL, attr itself becomes the type, else a
 *  copy in the text.  -1 also for an unknown class or an empty type. */
int ldb_entry_class(struct ldb_entry *e, int cls, const char *attr, size_t alen, const char *val, size_t vlen);

/** The add workload's entry (and -e genldif's) for the RDN attr=val (attr as
 *  for ldb_entry_class): with tmpl (an -e object entry rendered) its values,
 *  plus attr: val when the template leaves the RDN's value out (a directory
 *  refuses an entry without it); without tmpl, the entry of class cls. */
int ldb_entry_add(struct ldb_entry *e, int cls, const struct ldb_obj_entry *tmpl, const char *attr, size_t alen,
                  const char *val, size_t vlen);

/** The container entry whose RDN is attr=val: objectClass top and
 *  organizationalUnit + ou for ou=, organization + o for o=,
 *  organizationalRole + cn for cn=, dcObject + organization + dc + o (the same
 *  value) for dc=, locality + l for l=.  -1 for any other type (no entry is
 *  made for it) and for an empty value.  Types are static strings: no text is used. */
int ldb_entry_container(struct ldb_entry *e, const char *attr, size_t alen, const char *val, size_t vlen);

/** gen's users: objectClass top, person, organizationalPerson, inetOrgPerson;
 *  uid, cn, sn, givenName = name; mail: name@domain (in the text);
 *  userPassword: pw. */
int ldb_entry_user(struct ldb_entry *e, const char *name, size_t nlen, const char *domain, size_t dlen, const char *pw,
                   size_t pwlen);

/** gen tree's leaves: the inetOrgPerson classes; cn, sn, uid = name;
 *  mail: name@domain; telephoneNumber: +1 555 <num mod 10^7, 7 digits>;
 *  description: tree entry <num> at level <level> (all three in the text). */
int ldb_entry_tree_leaf(struct ldb_entry *e, const char *name, size_t nlen, const char *domain, size_t dlen,
                        uint64_t num, int level);

/** The text a tree leaf needs beyond nlen + dlen. */
#define LDB_ENTRY_TREE_LEAF_TEXT 96

/** A group without its members: objectClass top, groupOfUniqueNames (unique)
 *  or groupOfNames; cn.  The caller adds the uniqueMember / member values. */
int ldb_entry_group(struct ldb_entry *e, int unique, const char *cn, size_t cnlen);

#endif
