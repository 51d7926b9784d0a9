/* User entries uid=user<idx>,PARENT (gen users' simple shape, groups
 * --create-members, mod-load): the index range and its padding, the user
 * writer, and the simple shape of `gen users`. */
#ifndef LDBENCH_GEN_USERS_H
#define LDBENCH_GEN_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/containers.h"
#include "gen/gen.h"

struct gen_hasher;
struct gen_out;

/* The users' index range and its zero-padding. */
struct gen_idx {
	uint64_t first, count;
	int width;
};

/* Writes user entries below one parent: the DN and the entry's text built in
 * scratch buffers sized once, the password hashed when a hasher is set. */
struct gen_user_writer {
	const char *parent; /* the users' parent DN */
	size_t plen;
	const char *domain;
	size_t dlen;
	struct gen_hasher *hasher; /* NULL: clear-text passwords */
	bool hash_failed;
	char *dn;    /* scratch: "uid=" name "," parent */
	char *mail;  /* scratch: the entry's text (name "@" domain) */
	size_t scap; /* of dn and mail */
	char *name;  /* points into dn */
	size_t nlen, dnl;
};

#define GEN_PREFIX_MAX 8 /* "addUser" + NUL */

/* gen users' simple shape, checked: the containers down to the parent, the
 * index range, the password form. */
struct gen_users_plan {
	struct gen_containers tree;
	struct gen_idx idx;
	enum ldb_gen_hash hash;
};

/* Check start/number/width (number_opt names the count option in messages)
 * and fill ip.  @return 0 or -1 with err. */
int gen_idx_prepare(const char *number_opt, int64_t number, int64_t start, int width, struct gen_idx *ip, char *err,
                    size_t cap);

/* Build "uid=<prefix><idx>,parent" in w->dn (rdn: "uid" or "cn"); w->name and
 * w->nlen are the RDN value. */
void gen_uw_name(struct gen_user_writer *w, const char *rdn, const char *prefix, uint64_t idx, int width);

/* One full user entry; with change_add as an ldapmodify add record. */
void gen_uw_entry(struct gen_user_writer *w, struct gen_out *o, const char *prefix, uint64_t idx, int width,
                  bool change_add);

/* The user writer (users below parent, mail at domain, passwords hashed by h
 * unless NULL) and the output of an emitter.
 * @return 0, or LDB_EXIT_OTHER with err and nothing left to free. */
int gen_emit_begin(struct gen_user_writer *w, const char *parent, const char *domain, struct gen_hasher *h,
                   struct gen_out *o, FILE *f, char *err, size_t cap);

/* Free the user writer of gen_emit_begin and finish the output; @return 0 or 99
 * with err. */
int gen_emit_end(struct gen_user_writer *w, struct gen_out *o, char *err, size_t cap);

/* Check u (the simple shape) and fill pl; nothing is written.
 * @return 0, 2 (bad option) or 99 with err; free pl with gen_users_plan_free
 * either way. */
int gen_users_prepare(const struct ldb_gen_users *u, struct gen_users_plan *pl, char *err, size_t cap);

/* Free what gen_users_prepare made. */
void gen_users_plan_free(struct gen_users_plan *pl);

/* Write the simple shape of the gen_users_plan plan to f: the containers,
 * then the users.  @return 0 or 99 with err (a write or a hash failed). */
int gen_users_emit(const void *plan, FILE *f, char *err, size_t cap);

#endif
