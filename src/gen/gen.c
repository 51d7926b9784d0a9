/* `ldbench gen ...`: the subcommands (users, groups, mod-load, tree), each its
 * options and which shape they ask for; the shapes are written by the other
 * gen modules.
 *
 * Layout:
 *  - a subcommand table (gen_cmds) maps the word after `gen` to a function;
 *  - each subcommand parses its options (gen/gen_options) into a plain struct,
 *    then "prepares" it (every check, DN parsing, width) before anything is
 *    opened or written, so a bad option exits 2 with no output;
 *  - the shape writes into one big buffer (gen/out): ldbench's own shapes
 *    (gen/users, gen/groups, gen/modload, gen/tree, over gen/containers and
 *    gen/password) or dsctl ldifgen's (gen/ldifgen).
 */
#include "gen/gen.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "conf/config.h"
#include "gen/groups.h"
#include "gen/ldifgen.h"
#include "gen/modload.h"
#include "gen/gen_options.h"
#include "gen/out.h"
#include "gen/password.h"
#include "gen/tree.h"
#include "gen/users.h"

static int opt_hash(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	(void)argc;
	(void)argv;
	return gen_hash_parse(val, dst, err, cap);
}

/* The simple shape's entries carry no ACI: imported into 389 DS, a non-root
 * account's searches succeed with 0 entries (OpenLDAP's access rules live in
 * slapd's configuration, not in the data).  Said only when the simple shape
 * was named with --shape, the switch between it and dsctl ldifgen's shapes:
 * the file is then meant for 389 DS; a plain `gen users` (OpenLDAP's
 * fixture, the demo) prints nothing but the LDIF.  On stderr, so that the
 * LDIF on stdout stays clean. */
static void gen_aci_note(void)
{
	fputs("ldbench gen users: note: these entries carry no ACI; on 389 DS a search by any account but the "
	      "Directory Manager finds none of them until an ACI allows it, e.g. on the suffix: aci: "
	      "(targetattr!=\"userPassword\")(version 3.0; acl \"ldbench read\"; allow (read, search, compare) "
	      "userdn=\"ldap:///all\";)\n",
	      stderr);
}

static int opt_shape(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	(void)argc;
	(void)argv;
	struct ldb_gen_users *u = dst;
	if (strcmp(val, "simple") == 0 || strcmp(val, "ldifgen") == 0 || strcmp(val, "ldifgen-random") == 0) {
		u->ldifgen = strcmp(val, "simple") != 0;
		u->random_names = strcmp(val, "ldifgen-random") == 0;
		return 0;
	}
	gen_err(err, cap, "--shape: '%s' is not simple, ldifgen or ldifgen-random", val);
	return -1;
}

/* The ldifgen shape's options against the simple shape's. */
static int users_shape_check(struct ldb_gen_users *u, bool localize, bool have_hash, bool rdn_cn, char *err, size_t cap)
{
	if (localize) {
		gen_err(err, cap, "--localize (pseudo-localized names) is not supported");
		return LDB_EXIT_PARAMS;
	}
	if (!u->ldifgen) {
		if (rdn_cn) {
			gen_err(err, cap, "--rdn-cn needs --generic (--shape ldifgen)");
			return LDB_EXIT_PARAMS;
		}
		if (u->start_idx < 0)
			u->start_idx = 1;
		return 0;
	}
	if (!gen_ldifgen_dn_ok(u->suffix, "--suffix", err, cap) ||
	    (u->parent != NULL && !gen_ldifgen_dn_ok(u->parent, "--parent", err, cap)))
		return LDB_EXIT_PARAMS;
	if (u->width != 0 || have_hash) {
		gen_err(err, cap,
		        "%s does not apply to --generic (ldifgen pads to the digits of --number, in clear text)",
		        u->width != 0 ? "--width" : "--hash");
		return LDB_EXIT_PARAMS;
	}
	if (u->start_idx < 0)
		u->start_idx = 0;
	if ((uint64_t)u->number + (uint64_t)u->start_idx > (uint64_t)LDB_GEN_MAX_INDEX) {
		gen_err(err, cap, "--start-idx + --number goes past the largest index %lld",
		        (long long)LDB_GEN_MAX_INDEX);
		return LDB_EXIT_PARAMS;
	}
	u->rdn_cn = rdn_cn;
	return 0;
}

static int users_ldifgen_fn(const void *plan, FILE *f, char *err, size_t cap)
{
	return gen_ldifgen_users_write(plan, f, err, cap);
}

static int gen_users_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct ldb_gen_users u = { .start_idx = -1 };
	const char *file = NULL;
	bool have_number = false, localize = false, rdn_cn = false, have_hash = false, generic = false;
	bool shape_named = false;
	const struct gen_opt opts[] = {
		{ GU_SUFFIX, GOPT_STR, &u.suffix },
		{ GU_PARENT, GOPT_STR, &u.parent },
		{ GU_NUMBER, GOPT_COUNT, &u.number, LDB_GEN_MAX_INDEX, &have_number },
		{ GU_HASH, GOPT_CALL, &u.hash, .fn = opt_hash, .seen = &have_hash },
		{ GU_GENERIC, GOPT_FLAG, &u.ldifgen, .seen = &generic },
		{ GU_SHAPE, GOPT_CALL, &u, .fn = opt_shape, .seen = &shape_named },
		{ GU_RDN_CN, GOPT_FLAG, &rdn_cn },
		{ GU_LOCALIZE, GOPT_FLAG, &localize },
	};
	const struct gen_cli cli = { gen_users_options, opts, GEN_NOPTS(opts), &file, &u.start_idx,
		                     &u.width,          NULL, "users" };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (u.suffix == NULL)
		return gen_missing("--suffix", err, cap);
	if (!have_number)
		return gen_missing("--number", err, cap);
	if (generic && u.random_names) {
		gen_err(err, cap,
		        "--generic and --shape ldifgen-random: the first names users user<idx>, the second not");
		return LDB_EXIT_PARAMS;
	}
	if ((rc = users_shape_check(&u, localize, have_hash, rdn_cn, err, cap)) != 0)
		return rc;
	if (u.ldifgen)
		return gen_run(&u, users_ldifgen_fn, file, err, cap);

	struct gen_users_plan pl;
	rc = gen_users_prepare(&u, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, gen_users_emit, file, err, cap);
	gen_users_plan_free(&pl);
	if (rc == 0 && shape_named)
		gen_aci_note();
	return rc;
}

/* NAME, the one operand of gen groups. */
static int opt_group_name(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	const char **name = dst;

	(void)argc;
	(void)argv;
	if (*name != NULL) {
		gen_err(err, cap, "unexpected argument '%s' (NAME is '%s')", val, *name);
		return -1;
	}
	*name = val;
	return 0;
}

/* --generic on groups and mod-load: ldifgen's padding, the digits of the
 * count (mod-load --num-users 50: user01..user50), users from 1. */
static int generic_width(int *width, int64_t count, int64_t start, char *err, size_t cap)
{
	if (*width != 0 || start != 1) {
		gen_err(err, cap, "--generic pads to the digits of the count from user 1: no --width, no --start-idx");
		return LDB_EXIT_PARAMS;
	}
	*width = gen_digits(count > 0 ? (uint64_t)count : 0);
	return 0;
}

static int gen_groups_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct gen_groups_opts g = { .number = 1, .num_members = 10000, .start_idx = 1 };
	const char *file = NULL;
	bool generic = false;
	const struct gen_opt opts[] = {
		{ GG_SUFFIX, GOPT_STR, &g.suffix },
		{ GG_PARENT, GOPT_STR, &g.parent },
		{ GG_NUMBER, GOPT_COUNT, &g.number, LDB_GEN_MAX_INDEX },
		{ GG_NUM_MEMBERS, GOPT_COUNT, &g.num_members, LDB_GEN_MAX_INDEX },
		{ GG_CREATE_MEMBERS, GOPT_FLAG, &g.create_members },
		{ GG_MEMBER_PARENT, GOPT_STR, &g.member_parent },
		{ GG_MEMBER_ATTR, GOPT_STR, &g.member_attr },
		{ GG_GENERIC, GOPT_FLAG, &generic },
	};
	const struct gen_opt name = { 0, GOPT_CALL, &g.name, .fn = opt_group_name };
	const struct gen_cli cli = { gen_groups_options, opts,     GEN_NOPTS(opts), &file,
		                     &g.start_idx,       &g.width, &name,           "groups" };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (generic && (rc = generic_width(&g.width, g.num_members, g.start_idx, err, cap)) != 0)
		return rc;
	if (g.name == NULL) {
		gen_err(err, cap, "the group NAME is required (ldbench gen groups NAME ...)");
		return LDB_EXIT_PARAMS;
	}
	if (g.suffix == NULL)
		return gen_missing("--suffix", err, cap);
	if (generic) {
		rc = gen_ldifgen_groups_check(&g, err, cap);
		return rc != 0 ? rc : gen_run(&g, gen_ldifgen_groups_emit, file, err, cap);
	}

	struct gen_groups_plan pl;
	rc = gen_groups_prepare(&g, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, gen_groups_emit, file, err, cap);
	gen_groups_plan_free(&pl);
	return rc;
}

/* --mod-attrs, dsctl style: --mod-attrs sn description ... (up to the next
 * option), and also --mod-attrs sn --mod-attrs description */
static int opt_mod_attrs(void *dst, const char *val, int argc, char **argv, char *err, size_t cap)
{
	if (gen_modload_add_attr(dst, val, err, cap) != 0)
		return -1;
	while (optind < argc && argv[optind][0] != '-') {
		if (gen_modload_add_attr(dst, argv[optind], err, cap) != 0)
			return -1;
		optind++;
	}
	return 0;
}

static int gen_modload_cmd(int argc, char **argv, char *err, size_t cap)
{
	/* dsctl's defaults: 100 of each operation, description */
	struct gen_modload_opts m = { .add = 100, .mod = 100, .modrdn = 100, .del = 100, .start_idx = 1 };
	const char *file = NULL;
	const struct gen_opt opts[] = {
		{ GM_SUFFIX, GOPT_STR, &m.suffix },
		{ GM_PARENT, GOPT_STR, &m.parent },
		{ GM_NUM_USERS, GOPT_COUNT, &m.num_users, LDB_GEN_MAX_INDEX, &m.have_num_users },
		{ GM_CREATE_USERS, GOPT_FLAG, &m.create_users },
		{ GM_DELETE_USERS, GOPT_FLAG, &m.delete_users },
		{ GM_ADD_USERS, GOPT_COUNT, &m.add, LDB_GEN_MAX_INDEX },
		{ GM_MOD_USERS, GOPT_COUNT, &m.mod, LDB_GEN_MAX_INDEX, &m.set_mod },
		{ GM_MODRDN_USERS, GOPT_COUNT, &m.modrdn, LDB_GEN_MAX_INDEX, &m.set_modrdn },
		{ GM_DEL_USERS, GOPT_COUNT, &m.del, LDB_GEN_MAX_INDEX, &m.set_del },
		{ GM_MOD_ATTRS, GOPT_CALL, &m, .fn = opt_mod_attrs },
		{ GM_GENERIC, GOPT_FLAG, &m.generic },
		{ GM_CREATE_PARENT, GOPT_FLAG, &m.create_parent },
		{ GM_RANDOMIZE, GOPT_FLAG, &m.randomize },
	};
	const struct gen_cli cli = { gen_modload_options, opts, GEN_NOPTS(opts), &file, &m.start_idx, &m.width, NULL,
		                     "mod-load" };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (m.generic && (rc = generic_width(&m.width, m.num_users, m.start_idx, err, cap)) != 0)
		return rc;
	if (!m.have_num_users)
		return gen_missing("--num-users", err, cap);
	if (m.parent == NULL)
		return gen_missing("--parent", err, cap);
	if (m.generic) {
		rc = gen_ldifgen_modload_check(&m, err, cap);
		return rc != 0 ? rc : gen_run(&m, gen_ldifgen_modload_emit, file, err, cap);
	}
	if (m.create_parent || m.randomize) {
		gen_err(err, cap, "%s needs --generic (ldifgen's records; here --suffix writes the containers)",
		        m.create_parent ? "--create-parent" : "--randomize");
		return LDB_EXIT_PARAMS;
	}

	struct gen_modload_plan pl;
	rc = gen_modload_prepare(&m, &pl, err, cap);
	if (rc == 0)
		rc = gen_run(&pl, gen_modload_emit, file, err, cap);
	gen_modload_plan_free(&pl);
	return rc;
}

static int gen_tree_cmd(int argc, char **argv, char *err, size_t cap)
{
	struct gen_tree_opts to = { 0 };
	const char *file = NULL;
	const struct gen_opt opts[] = {
		{ GT_SUFFIX, GOPT_STR, &to.suffix },
		{ GT_DEPTH, GOPT_COUNT, &to.depth, GEN_MAX_DEPTH, &to.have_depth },
		{ GT_FANOUT, GOPT_COUNT, &to.fanout, LDB_GEN_MAX_INDEX, &to.have_fanout },
		{ GT_ENTRIES, GOPT_COUNT, &to.entries, LDB_GEN_MAX_INDEX, &to.have_entries },
	};
	const struct gen_cli cli = { gen_tree_options, opts, GEN_NOPTS(opts), &file, NULL, NULL, NULL, "tree" };
	int rc = gen_parse(&cli, argc, argv, err, cap);

	if (rc != 0)
		return rc;
	if (!to.have_depth)
		return gen_missing("--depth", err, cap);
	if (!to.have_fanout)
		return gen_missing("--fanout", err, cap);
	if (!to.have_entries)
		return gen_missing("--entries", err, cap);

	struct gen_tree_plan pl;
	rc = gen_tree_prepare(&to, &pl, err, cap);
	if (rc == 0) {
		rc = gen_run(&pl, gen_tree_emit, file, err, cap);
		if (rc == 0) {
			fflush(stdout);
			fprintf(stderr,
			        "ldbench gen tree: %llu containers (levels 0-%d, the top entry included), "
			        "%llu entries, %llu in all\n",
			        (unsigned long long)pl.n_containers, pl.depth, (unsigned long long)pl.n_entries,
			        (unsigned long long)(pl.n_containers + pl.n_entries));
		}
	}
	gen_tree_plan_free(&pl);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* dispatch */

struct gen_cmd {
	const char *name;
	int (*run)(int argc, char **argv, char *err, size_t cap);
	const char *usage;
	const struct ldb_opt *table; /* its options (gen/gen_tables.c) */
};

static const struct gen_cmd gen_cmds[] = {
	{ "users", gen_users_cmd,
	  "ldbench gen users --suffix DN [--parent DN] --number N [--start-idx I] [--width W]\n"
	  "                  [--hash clear|ssha|ssha256|ssha512] [--ldif-file F]\n"
	  "    suffix entry, containers down to --parent (default ou=People,SUFFIX), then N inetOrgPerson\n"
	  "    entries uid=user<I..I+N-1>,PARENT (index zero-padded to W, default 5), password = uid\n"
	  "    (clear text, or salted SHA-1/256/512; slapd needs the pw-sha2 module for the last two).\n"
	  "ldbench gen users --generic|--shape ldifgen --suffix DN [--parent DN] --number N\n"
	  "                  [--start-idx I] [--rdn-cn] [--ldif-file F]\n"
	  "    what `dsctl INST ldifgen users --generic` writes: the suffix with its three ACIs, seven OUs\n"
	  "    (accounting ... people, groups), PARENT, users uid=user<1+I..N+I> (I default 0) padded to\n"
	  "    the digits of N (200 users: user001..user200), ldifgen's attributes, password = uid.\n"
	  "    --shape simple (the default without --generic) is the shape above; named, it also says on\n"
	  "    stderr that its entries carry no ACI, which 389 DS needs for non-root searches.\n"
	  "    --shape ldifgen-random: ldifgen users without --generic (uid JSmith<i>, cn \"John Smith\").\n"
	  "    groups and mod-load take --generic too: the records of dsctl ldifgen groups / mod-load.\n",
	  gen_users_options },
	{ "groups", gen_groups_cmd,
	  "ldbench gen groups NAME --suffix DN [--parent DN] [--number N] [--num-members M]\n"
	  "                  [--create-members] [--member-parent DN] [--member-attr member|uniqueMember]\n"
	  "                  [--start-idx I] [--width W] [--ldif-file F]\n"
	  "    N (default 1) groups cn=NAME-<1..N>,PARENT (default SUFFIX), groupOfUniqueNames (default) or\n"
	  "    groupOfNames, each with M (default 10000) members uid=user<I..>,MEMBER-PARENT (default\n"
	  "    ou=People,SUFFIX); --create-members also writes the suffix, the containers and the M users.\n"
	  "    --generic: dsctl ldifgen groups' records (members below SUFFIX, cn: the group DN, ACIs).\n",
	  gen_groups_options },
	{ "mod-load", gen_modload_cmd,
	  "ldbench gen mod-load --num-users N --parent DN [--suffix DN] [--create-users] [--add-users A]\n"
	  "                  [--mod-users M] [--modrdn-users R] [--del-users D] [--delete-users]\n"
	  "                  [--mod-attrs ATTR...] [--start-idx I] [--width W] [--ldif-file F]\n"
	  "    ldapmodify records: (--suffix) adds of the containers, (--create-users) N user adds, A adds\n"
	  "    of addUser<i>, M modifies (replace each --mod-attrs, default description), R modrdns to\n"
	  "    cn=<uid>, D deletes of the last users, (--delete-users) deletes of all that remain.\n"
	  "    A, M, R and D default to 100; M, R and D cannot exceed N.\n"
	  "    --generic [--create-parent] [--randomize]: dsctl ldifgen mod-load's records, counting down.\n",
	  gen_modload_options },
	{ "tree", gen_tree_cmd,
	  "ldbench gen tree --depth D --fanout F --entries E [--suffix DN] [--ldif-file F]\n"
	  "    the top entry (default dc=example,dc=com) and F sub-containers ou=unit<k> per container down\n"
	  "    to level D, E inetOrgPerson entries cn=entry<n> in every container; counts on stderr.\n",
	  gen_tree_options },
};

void ldb_gen_usage(FILE *out)
{
	fputs("Usage:\n", out);
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++)
		fputs(gen_cmds[i].usage, out);
	fputs("Each subcommand's options: ldbench gen SUBCOMMAND --help.\n", out);
	fputs("Writes LDIF to stdout, or to the --ldif-file.\n"
	      "Options may come anywhere on the line (GNU style); -- ends them.\n",
	      out);
}

void ldb_gen_usage_of(const char *name, FILE *out)
{
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++) {
		if (strcmp(name, gen_cmds[i].name) != 0)
			continue;
		fprintf(out, "Usage:\n%s", gen_cmds[i].usage);
		ldb_opt_help(gen_cmds[i].table, 4, 24, out);
	}
	fputs("Writes LDIF to stdout, or to the --ldif-file.\n"
	      "Options may come anywhere on the line (GNU style); -- ends them.\n",
	      out);
}

void ldb_gen_dump_options(FILE *out)
{
	char cmd[32];
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++) {
		snprintf(cmd, sizeof cmd, "gen:%s", gen_cmds[i].name);
		ldb_opt_dump(cmd, gen_cmds[i].table, out);
	}
}

int ldb_gen_main(int argc, char **argv)
{
	char err[512] = "";

	if (argc < 2) {
		fprintf(stderr, "ldbench gen: missing subcommand (one of: users, groups, mod-load, tree); "
		                "see 'ldbench gen --help'\n");
		return LDB_EXIT_PARAMS;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		ldb_gen_usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(gen_cmds) / sizeof(gen_cmds[0]); i++) {
		if (strcmp(argv[1], gen_cmds[i].name) != 0)
			continue;
		int rc = gen_cmds[i].run(argc - 1, argv + 1, err, sizeof(err));
		if (rc < 0)
			return 0;
		if (rc != 0) {
			/* one line: drop anything after a newline in the message */
			err[strcspn(err, "\n")] = '\0';
			fprintf(stderr, "ldbench gen %s: %s\n", gen_cmds[i].name, err);
		}
		fflush(stdout);
		return rc;
	}
	fprintf(stderr, "ldbench gen: unknown subcommand '%s' (one of: users, groups, mod-load, tree)\n", argv[1]);
	return LDB_EXIT_PARAMS;
}
