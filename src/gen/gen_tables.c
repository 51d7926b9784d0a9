/* The gen subcommands' options, one row each (util/optable.h): their names,
 * values and --help lines.  Where each value goes is the subcommand's own
 * business (gen/gen.c binds each id to its field); the parse
 * (gen/gen_options.c) and --help come from these rows. */
#include "gen/gen_options.h"

#define LDIF_FILE                                                                                     \
	{                                                                                             \
		"ldif-file", 0, "F", GEN_OPT_LDIF_FILE, "write the LDIF to F instead of stdout", NULL \
	}
#define HELP                                              \
	{                                                 \
		"help", 0, NULL, GEN_OPT_HELP, NULL, NULL \
	}
#define START_IDX(what)                                                                    \
	{                                                                                  \
		"start-idx", 0, "I", GEN_OPT_START_IDX, "the first " what "'s index", NULL \
	}
#define WIDTH                                                                          \
	{                                                                              \
		"width", 0, "W", GEN_OPT_WIDTH, "zero-pad the index to W digits", NULL \
	}

const struct ldb_opt gen_users_options[] = {
	{ "suffix", 0, "DN", GU_SUFFIX, "the suffix entry (required)", NULL },
	{ "parent", 0, "DN", GU_PARENT, "the users' container (default ou=People,SUFFIX)", NULL },
	{ "number", 0, "N", GU_NUMBER, "how many users (required)", NULL },
	START_IDX("user"),
	WIDTH,
	{ "hash", 0, "clear|ssha|ssha256|ssha512", GU_HASH, "the password's scheme (default clear)", NULL },
	{ "generic", 0, NULL, GU_GENERIC, "dsctl ldifgen users --generic's file", NULL },
	{ "shape", 0, "simple|ldifgen|ldifgen-random", GU_SHAPE, "ldbench's own shape or one of ldifgen's", NULL },
	{ "rdn-cn", 0, NULL, GU_RDN_CN, "ldifgen's shapes: the users named cn=", NULL },
	{ "localize", 0, NULL, GU_LOCALIZE, "refused (dsctl's, not supported)", NULL },
	LDIF_FILE,
	HELP,
	LDB_OPT_END
};

const struct ldb_opt gen_groups_options[] = {
	{ "suffix", 0, "DN", GG_SUFFIX, "the suffix entry (required)", NULL },
	{ "parent", 0, "DN", GG_PARENT, "the groups' container (default SUFFIX)", NULL },
	{ "number", 0, "N", GG_NUMBER, "how many groups (default 1)", NULL },
	{ "num-members", 0, "M", GG_NUM_MEMBERS, "members of each group (default 10000)", NULL },
	{ "create-members", 0, NULL, GG_CREATE_MEMBERS, "also write the member users", NULL },
	{ "member-parent", 0, "DN", GG_MEMBER_PARENT, "the members' container", NULL },
	{ "member-attr", 0, "ATTR", GG_MEMBER_ATTR, "the membership attribute (member, uniqueMember)", NULL },
	{ "generic", 0, NULL, GG_GENERIC, "dsctl ldifgen groups' records", NULL },
	START_IDX("member"),
	WIDTH,
	LDIF_FILE,
	HELP,
	LDB_OPT_END
};

const struct ldb_opt gen_modload_options[] = {
	{ "num-users", 0, "N", GM_NUM_USERS, "the users the records name (required)", NULL },
	{ "parent", 0, "DN", GM_PARENT, "the users' container (required)", NULL },
	{ "suffix", 0, "DN", GM_SUFFIX, "also add the containers below DN", NULL },
	{ "create-users", 0, NULL, GM_CREATE_USERS, "first add the N users", NULL },
	{ "add-users", 0, "A", GM_ADD_USERS, "adds of new users (default 100)", NULL },
	{ "mod-users", 0, "M", GM_MOD_USERS, "modifies (default 100)", NULL },
	{ "modrdn-users", 0, "R", GM_MODRDN_USERS, "modrdns (default 100)", NULL },
	{ "del-users", 0, "D", GM_DEL_USERS, "deletes (default 100)", NULL },
	{ "delete-users", 0, NULL, GM_DELETE_USERS, "at the end, delete every user left", NULL },
	{ "mod-attrs", 0, "ATTR...", GM_MOD_ATTRS, "the attributes the modifies replace (default description)", NULL },
	{ "generic", 0, NULL, GM_GENERIC, "dsctl ldifgen mod-load's records", NULL },
	{ "create-parent", 0, NULL, GM_CREATE_PARENT, "with --generic: the parent entry first", NULL },
	{ "randomize", 0, NULL, GM_RANDOMIZE, "with --generic: the kinds mixed at random", NULL },
	START_IDX("user"),
	WIDTH,
	LDIF_FILE,
	HELP,
	LDB_OPT_END
};

const struct ldb_opt gen_tree_options[] = {
	{ "depth", 0, "D", GT_DEPTH, "levels of containers (required)", NULL },
	{ "fanout", 0, "F", GT_FANOUT, "containers in each container (required)", NULL },
	{ "entries", 0, "E", GT_ENTRIES, "entries in each container (required)", NULL },
	{ "suffix", 0, "DN", GT_SUFFIX, "the top entry (default dc=example,dc=com)", NULL },
	LDIF_FILE,
	HELP,
	LDB_OPT_END
};
