/* add (-e add): an entry of one of ldclt's classes (person, emailPerson,
 * inetOrgPerson) or of an object= template; its missing parents on demand. */
#include "ops/ops.h"

#include <dirent.h>
#include <errno.h>
#include <ldap.h>
#include <stdlib.h>
#include <string.h>

#include "ldif/entry.h"
#include "util/util.h"

static int check(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	const char *kw = mix ? "--mix add" : "-e add";
	if (c->add_class == LDB_CLASS_NONE && c->object_file == NULL) {
		snprintf(why, cap, "%s needs the entries' shape: -e person, emailPerson, inetOrgPerson or object=FILE",
		         kw);
		return -1;
	}
	if (c->valmode == LDB_VAL_FIXED && c->rdn_spec == NULL) {
		snprintf(why, cap, "%s needs -e incr, -e random or -e rdn=", kw);
		return -1;
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's regular files, sorted by name (the order they are taken in). */
static int list_images(const char *dir, char ***names, size_t *n, char *err, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t max = 0;

	*names = NULL;
	*n = 0;
	if (d == NULL) {
		snprintf(err, cap, "-e imagesdir=%s: cannot open: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type == DT_DIR)
			continue;
		if (*n == max) {
			char **g = realloc(*names, (max = max ? 2 * max : 16) * sizeof *g);
			if (g == NULL)
				break;
			*names = g;
		}
		if (((*names)[*n] = strdup(de->d_name)) == NULL)
			break;
		(*n)++;
	}
	closedir(d);
	if (de != NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	if (*n > 0)
		qsort(*names, *n, sizeof **names, cmp_names);
	return 0;
}

/* One image into o's list; a file too large for the add's room is refused. */
static int load_image(struct ldb_ops_run *o, const char *dir, const char *name, char *err, size_t cap)
{
	char path[4096];
	size_t len = 0;
	char *data = NULL;
	FILE *f;
	int rc;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "rb")) == NULL) {
		snprintf(err, cap, "-e imagesdir: %s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	rc = ldb_read_all(f, LDB_OP_IMAGE_MAX, &data, &len);
	int e = errno;
	fclose(f);
	errno = e;
	if (rc != 0 || len == 0) {
		free(data);
		snprintf(err, cap, "-e imagesdir: %s: %s", path,
		         rc == 0          ? "the file is empty"
		         : errno == EFBIG ? "larger than 48 KiB (an add's room)"
		                          : strerror(errno));
		return -1;
	}
	o->images[o->nimages] = data;
	o->image_lens[o->nimages++] = len;
	return 0;
}

/* -e imagesdir: every file of DIR read now, none in the hot loop. */
static int prepare(struct ldb_ops_run *o, char *err, size_t cap)
{
	const char *dir = o->cfg->imagesdir;
	char **names;
	size_t n;
	int rc = 0;

	if (dir == NULL)
		return 0;
	if (list_images(dir, &names, &n, err, cap) != 0)
		rc = -1;
	else if (n == 0) {
		snprintf(err, cap, "-e imagesdir=%s: no image in the directory", dir);
		rc = -1;
	} else if ((o->images = calloc(n, sizeof *o->images)) == NULL ||
	           (o->image_lens = calloc(n, sizeof *o->image_lens)) == NULL) {
		snprintf(err, cap, "out of memory");
		rc = -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && load_image(o, dir, names[i], err, cap) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

/* What ldclt adds to its classes: a jpegPhoto from imagesdir, in turn (emailPerson,
 * inetOrgPerson), and with deref on an inetOrgPerson the entry's own DN as the
 * dereferenced attribute (secretary). */
static int put_extras(const struct ldb_op_req *r, struct ldb_entry *en)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;

	if (c->objtmpl != NULL)
		return 0;
	if (r->ops->nimages > 0) {
		size_t i = wc->next_image++ % r->ops->nimages;
		if (ldb_entry_put(en, "jpegPhoto", r->ops->images[i], r->ops->image_lens[i]) < 0)
			return -1;
	}
	if (c->deref_attr != NULL && c->add_class == LDB_CLASS_INETORGPERSON)
		return ldb_entry_put(en, c->deref_attr, wc->dn, wc->dnlen);
	return 0;
}

/* The entry (ldif/entry: an object= template's values with the RDN's, or one
 * of ldclt's classes named by -f's RDN), its text in the client's aux. */
static long render(const struct ldb_op_req *r, uint8_t *dst, size_t cap)
{
	const struct ldb_config *c = r->ops->cfg;
	struct ldb_wctx *wc = r->wc;
	struct ldb_obj_entry e;
	struct ldb_entry en;
	const char *a, *val;
	size_t alen, vlen;

	if (c->objtmpl != NULL) {
		int rc = ldb_objtmpl_render(c->objtmpl, &wc->cur, r->rng, wc->scratch, wc->scratch_cap, &e);
		if (rc == 0)
			return -1;
		if (rc < 0 || ldb_dn_build(c, r->v, r->bv, r->rng, wc, e.rdn_len > 0 ? e.rdn : NULL, e.rdn_len) != 0)
			return 0;
	} else if (ldb_dn_build(c, r->v, r->bv, r->rng, wc, NULL, 0) != 0) {
		return 0;
	}
	ldb_dn_split_rdn(wc->dn, wc->dnlen, &a, &alen, &val, &vlen);
	if (c->rnd_string && c->objtmpl == NULL) { /* the value as the server reads the RDN's */
		val = wc->rawval;
		vlen = wc->rawlen;
	}
	ldb_entry_init(&en, wc->pv, (int)(sizeof wc->pv / sizeof wc->pv[0]), wc->aux, sizeof wc->aux);
	if (ldb_entry_add(&en, c->add_class, c->objtmpl != NULL ? &e : NULL, a, alen, val, vlen) < 0 ||
	    put_extras(r, &en) < 0)
		return 0;
	return (long)ldb_wire_put_add(dst, cap, r->msgid, wc->dn, wc->dnlen, en.v, en.n);
}

size_t ldb_add_render_parent(const char *dn, size_t dnlen, int level, int32_t msgid, uint8_t *dst, size_t cap)
{
	/* skip `level` RDNs */
	size_t i = 0;
	for (int l = 0; l < level; l++) {
		while (i < dnlen && dn[i] != ',') {
			if (dn[i] == '\\' && i + 1 < dnlen)
				i++;
			i++;
		}
		if (i >= dnlen)
			return 0;
		i++; /* the comma */
	}
	const char *anc = dn + i, *a, *val;
	size_t anclen = dnlen - i, alen, vlen;
	struct ldb_put_value pv[LDB_ENTRY_CONTAINER_MAX];
	struct ldb_entry e;

	ldb_dn_split_rdn(anc, anclen, &a, &alen, &val, &vlen);
	ldb_entry_init(&e, pv, LDB_ENTRY_CONTAINER_MAX, NULL, 0);
	if (alen == 0 || vlen == 0 || ldb_entry_container(&e, a, alen, val, vlen) < 0)
		return 0; /* no such ancestor, or an RDN type we do not know how to create */
	return ldb_wire_put_add(dst, cap, msgid, anc, anclen, e.v, e.n);
}

static int errline(const struct ldb_op_failure *f, char *out, size_t cap)
{
	if (f->dn_known)
		return snprintf(out, cap, "Cannot add (%.*s), error=%d (%s)", f->dnlen, f->dn, f->code, f->text);
	return snprintf(out, cap, "Cannot add(), error=%d (%s)", f->code, f->text);
}

/* -S: an object= rdn= add is found by the RDN it carried (its template's
 * fields are not the operation's numbers) */
static bool repl_carries(const struct ldb_config *c)
{
	return c->objtmpl != NULL && c->rdn_spec != NULL;
}

/* the RDN: the DN's first, up to its first unescaped comma */
static size_t repl_carry(const struct ldb_config *c, const struct ldb_wctx *wc, const char **from)
{
	size_t n = 0;
	if (!repl_carries(c))
		return 0;
	*from = wc->dn;
	while (n < wc->dnlen && wc->dn[n] != ',')
		n += wc->dn[n] == '\\' && n + 1 < wc->dnlen ? 2 : 1;
	return n;
}

/* -S: the entry exists (an object= rdn= add: the RDN it carried, else -f's
 * with the number) */
static int repl_looks(const struct ldb_config *c, const struct ldb_repl_change *ch, struct ldb_repl_view *v)
{
	bool rdn = repl_carries(c);
	if (ldb_dn_build(c, ch->v, ch->bv, NULL, &v->wc, rdn ? ch->run : NULL, ch->len) != 0)
		return -1;
	v->look[0] = (struct ldb_repl_look){ .dn = v->wc.dn, .present = true };
	return 1;
}

/* the entries' shape (a class, object=, rdn=) and --delete-after-add are an
 * add's; genldif writes such entries too */
static int stray(const struct ldb_config *c, bool mix, char *why, size_t cap)
{
	static const char *const class_kw[] = { [LDB_CLASS_PERSON] = "person",
		                                [LDB_CLASS_EMAILPERSON] = "emailPerson",
		                                [LDB_CLASS_INETORGPERSON] = "inetOrgPerson" };
	(void)mix;
	bool shape = c->add_class != LDB_CLASS_NONE || c->object_file != NULL;
	if ((shape || c->rdn_spec != NULL) && c->genldif_file == NULL) {
		const char *kw = c->object_file != NULL ? "object"
		                 : c->rdn_spec != NULL  ? "rdn"
		                                        : class_kw[c->add_class];
		snprintf(why, cap, "-e %s needs -e add (or genldif=FILE, or add in --mix)", kw);
		return -1;
	}
	if (c->delete_after_add) {
		snprintf(why, cap, "--delete-after-add needs -e add (or add in --mix)");
		return -1;
	}
	return 0;
}

const struct ldb_opdesc ldb_op_add = {
	.name = "add",
	.controls = LDB_CTLF_PROXY | LDB_CTLF_POSTREAD | LDB_CTLF_MANAGEDSAIT | LDB_CTLF_SESSION,
	.json = "add",
	.keyword = "add",
	.monitor = "Add",
	.snmp = "addentryops",
	.response = true,
	.parents = true,
	.changes = LDB_CHANGES_ENTRIES,
	.seen = LDB_SEEN_THERE,
	.pass_rank = 0,
	.print_rank = 2,
	.expected = { LDAP_ALREADY_EXISTS },
	.option_text = "-e add",
	.dn = LDB_OPDN_FILTER_OR_RDN,
	.check = check,
	.prepare = prepare,
	.writes = true,
	.render = render,
	.errline = errline,
	.repl_carries = repl_carries,
	.repl_carry = repl_carry,
	.repl_looks = repl_looks,
	.stray = stray,
	.mode = " add_entries",
};
