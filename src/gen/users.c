/* User entries and the simple shape of gen users. */
#include "gen/users.h"

#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "gen/ldifgen.h"
#include "gen/out.h"
#include "gen/password.h"
#include "ldif/entry.h"

/* user indexes */

int gen_idx_prepare(const char *number_opt, int64_t number, int64_t start, int width, struct gen_idx *ip, char *err,
                    size_t cap)
{
	if (number < 0 || start < 0 || number > LDB_GEN_MAX_INDEX || start > LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "%s and --start-idx must be between 0 and %lld", number_opt,
		        (long long)LDB_GEN_MAX_INDEX);
		return -1;
	}
	if (number > 0 && start > LDB_GEN_MAX_INDEX - (number - 1)) {
		gen_err(err, cap, "--start-idx %lld + %s %lld goes past the largest index %lld", (long long)start,
		        number_opt, (long long)number, (long long)LDB_GEN_MAX_INDEX);
		return -1;
	}
	if (width < 0 || width > GEN_MAX_WIDTH) {
		gen_err(err, cap, "--width must be between 1 and %d", GEN_MAX_WIDTH);
		return -1;
	}
	ip->first = (uint64_t)start;
	ip->count = (uint64_t)number;
	uint64_t last = ip->count > 0 ? ip->first + ip->count - 1 : ip->first;
	int need = gen_digits(last);
	if (width > 0) {
		if (width < need && ip->count > 0) {
			gen_err(err, cap, "--width %d is too small: index %llu needs %d digits", width,
			        (unsigned long long)last, need);
			return -1;
		}
		ip->width = width;
	} else {
		ip->width = need > LDB_GEN_DEFAULT_WIDTH ? need : LDB_GEN_DEFAULT_WIDTH;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* user entries (gen users, groups --create-members, mod-load) */

static int uw_init(struct gen_user_writer *w, const char *parent, const char *domain, struct gen_hasher *h)
{
	memset(w, 0, sizeof(*w));
	w->parent = parent;
	w->plen = strlen(parent);
	w->domain = domain;
	w->dlen = strlen(domain);
	w->hasher = h;
	w->scap = 4 + GEN_PREFIX_MAX + GEN_MAX_WIDTH + 24 + 1 + (w->plen > w->dlen ? w->plen : w->dlen) + 1;
	w->dn = malloc(w->scap);
	w->mail = malloc(w->scap);
	return w->dn != NULL && w->mail != NULL ? 0 : -1;
}

static void uw_free(struct gen_user_writer *w)
{
	free(w->dn);
	free(w->mail);
	w->dn = w->mail = NULL;
}

void gen_uw_name(struct gen_user_writer *w, const char *rdn, const char *prefix, uint64_t idx, int width)
{
	size_t rl = strlen(rdn), pl = strlen(prefix);

	memcpy(w->dn, rdn, rl);
	w->dn[rl] = '=';
	w->name = w->dn + rl + 1;
	memcpy(w->name, prefix, pl);
	w->nlen = pl + gen_put_index(w->name + pl, idx, width);
	w->dnl = rl + 1 + w->nlen;
	w->dn[w->dnl++] = ',';
	memcpy(w->dn + w->dnl, w->parent, w->plen);
	w->dnl += w->plen;
}

void gen_uw_entry(struct gen_user_writer *w, struct gen_out *o, const char *prefix, uint64_t idx, int width,
                  bool change_add)
{
	struct ldb_put_value v[16];
	struct ldb_entry e;
	char hv[GEN_HASH_MAX];
	const char *pw;
	size_t pwl;

	gen_uw_name(w, "uid", prefix, idx, width);
	pw = w->name;
	pwl = w->nlen;
	if (w->hasher != NULL && w->hasher->kind != LDB_GEN_HASH_CLEAR) {
		pwl = gen_hasher_value(w->hasher, w->name, w->nlen, hv);
		if (pwl == 0)
			w->hash_failed = true;
		pw = hv;
	}
	ldb_entry_init(&e, v, 16, w->mail, w->scap);
	if (ldb_entry_user(&e, w->name, w->nlen, w->domain, w->dlen, pw, pwl) < 0) {
		gen_out_broken(o);
		return;
	}
	gen_out_attr(o, "dn", w->dn, w->dnl);
	if (change_add)
		gen_out_mem(o, "changetype: add\n", 16);
	gen_out_entry(o, &e);
	gen_out_mem(o, "\n", 1);
}

int gen_emit_begin(struct gen_user_writer *w, const char *parent, const char *domain, struct gen_hasher *h,
                   struct gen_out *o, FILE *f, char *err, size_t cap)
{
	if (uw_init(w, parent, domain, h) != 0 || gen_out_init(o, f) != 0) {
		uw_free(w);
		gen_err(err, cap, "out of memory");
		return LDB_EXIT_OTHER;
	}
	return 0;
}

int gen_emit_end(struct gen_user_writer *w, struct gen_out *o, char *err, size_t cap)
{
	bool hash_failed = w->hash_failed;

	uw_free(w);
	return gen_emit_finish(o, hash_failed, err, cap);
}

int gen_users_prepare(const struct ldb_gen_users *u, struct gen_users_plan *pl, char *err, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	if (u->suffix == NULL)
		return gen_missing("--suffix", err, cap);
	if (gen_idx_prepare("--number", u->number, u->start_idx, u->width, &pl->idx, err, cap) != 0)
		return LDB_EXIT_PARAMS;
	if ((unsigned)u->hash > LDB_GEN_HASH_SSHA512) {
		gen_err(err, cap, "--hash: unknown kind %d", (int)u->hash);
		return LDB_EXIT_PARAMS;
	}
	pl->hash = u->hash;

	char *parent_default = NULL;
	const char *parent = gen_people_default(u->parent, u->suffix, &parent_default, err, cap);
	if (parent == NULL)
		return LDB_EXIT_OTHER;
	int rc = gen_containers_build(&pl->tree, u->suffix, parent, "--parent", err, cap);
	free(parent_default);
	return rc == 0 ? 0 : LDB_EXIT_PARAMS;
}

void gen_users_plan_free(struct gen_users_plan *pl)
{
	gen_containers_free(&pl->tree);
}

int gen_users_emit(const void *plan, FILE *f, char *err, size_t cap)
{
	const struct gen_users_plan *pl = plan;
	struct gen_out o;
	struct gen_user_writer w;
	struct gen_hasher h;
	const struct gen_containers *t = &pl->tree;

	if (gen_hasher_init(&h, pl->hash, err, cap) != 0 ||
	    gen_emit_begin(&w, gen_containers_bottom(t), t->domain, &h, &o, f, err, cap) != 0) {
		gen_hasher_free(&h);
		return LDB_EXIT_OTHER;
	}
	gen_containers_write(t, &o, false);
	for (uint64_t i = 0; i < pl->idx.count && !o.failed && !w.hash_failed; i++)
		gen_uw_entry(&w, &o, "user", pl->idx.first + i, pl->idx.width, false);
	gen_hasher_free(&h);
	return gen_emit_end(&w, &o, err, cap);
}

int ldb_gen_users_write(const struct ldb_gen_users *u, FILE *out, char *err, size_t errcap)
{
	if (u->ldifgen)
		return gen_ldifgen_users_write(u, out, err, errcap);
	struct gen_users_plan pl;
	int rc = gen_users_prepare(u, &pl, err, errcap);

	if (rc == 0)
		rc = gen_users_emit(&pl, out, err, errcap);
	gen_users_plan_free(&pl);
	return rc;
}
