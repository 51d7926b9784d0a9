/* Unit tests for the write workloads' command line (src/cli/: add, delete,
 * rename, attreplace, attreplacefile, object=/rdn=, genldif, --modify,
 * --compare, --delete-after-add, --new-parent, --mix), their config lines,
 * and src/cmd/add_ldif.c (the class entry shapes and the LDIF writer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "cmd/add_ldif.h"
#include "values/objtmpl.h"
#include "proto/wire.h"
#include "cli_run.h"
#include "report/settings.h"

/* Files the cases name through placeholders (paths hold the pid, so parallel
 * runs of this test do not collide):
 *   @T  the canonical template (objectclass lines, sn, cn, uid: user[A])
 *   @N  a template without the RDN's attribute, with an INCRNNOLOOP field
 *   @B  a template whose line 2 is bad
 *   @E  an empty file
 *   @D  a data file for attreplacefile ("hello\nworld\n")
 *   @X  an existing file (for genldif without append)
 *   @O  a genldif output path that does not exist */
static char path_t[64], path_n[64], path_b[64], path_e[64], path_d[64], path_x[64], path_o[64];

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int group_setup(void **state)
{
	int pid = (int)getpid();

	(void)state;
	unsetenv("LDBENCH_PASSWORD");
	snprintf(path_t, sizeof(path_t), "/tmp/ldbench_tcw_%d_t.ldif", pid);
	snprintf(path_n, sizeof(path_n), "/tmp/ldbench_tcw_%d_n.ldif", pid);
	snprintf(path_b, sizeof(path_b), "/tmp/ldbench_tcw_%d_b.ldif", pid);
	snprintf(path_e, sizeof(path_e), "/tmp/ldbench_tcw_%d_e", pid);
	snprintf(path_d, sizeof(path_d), "/tmp/ldbench_tcw_%d_d", pid);
	snprintf(path_x, sizeof(path_x), "/tmp/ldbench_tcw_%d_x.ldif", pid);
	snprintf(path_o, sizeof(path_o), "/tmp/ldbench_tcw_%d_o.ldif", pid);
	write_file(path_t, "objectclass: top\nobjectclass: person\nobjectclass: organizationalPerson\n"
	                   "objectclass: inetOrgPerson\nsn: user[A]\ncn: user[A]\nuid: user[A]\n");
	write_file(path_n, "objectclass: top\nobjectclass: person\nsn: s[B=INCRNNOLOOP(1;3;1)]\ncn: c[B]\n");
	write_file(path_b, "objectclass: top\nthis line has no colon\n");
	write_file(path_e, "");
	write_file(path_d, "hello\nworld\n");
	write_file(path_x, "dn: dc=x\n\n");
	unlink(path_o);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(path_t);
	unlink(path_n);
	unlink(path_b);
	unlink(path_e);
	unlink(path_d);
	unlink(path_x);
	unlink(path_o);
	return 0;
}

/* A copy of a with every placeholder replaced by its path. */
static char *expand(const char *a)
{
	static const struct {
		const char *ph;
		const char *path;
	} ph[] = {
		{ "@T", path_t }, { "@N", path_n }, { "@B", path_b }, { "@E", path_e },
		{ "@D", path_d }, { "@X", path_x }, { "@O", path_o },
	};
	char buf[512];
	size_t n = 0;

	while (*a != '\0' && n < sizeof(buf) - 80) {
		bool done_ph = false;

		for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
			if (strncmp(a, ph[i].ph, 2) == 0) {
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", ph[i].path);
				a += 2;
				done_ph = true;
				break;
			}
		if (!done_ph)
			buf[n++] = *a++;
	}
	buf[n] = '\0';
	return strdup(buf);
}

#define PARSE(t, ...) cli_run_parse((t), "ldbench", (const char *const[]){ __VA_ARGS__, NULL }, expand, false)

/* ------------------------------------------------------------ good input */

static void test_add_classes(void **state)
{
	struct run t;

	(void)state;
	OK(&t, "-e", "add,person,incr", "-f", "uid=userXXX", "-r", "0", "-R", "999");
	assert_true(t.c.weight[LDB_OP_ADD] > 0);
	assert_false(t.c.weight[LDB_OP_DELETE] > 0);
	assert_int_equal(t.c.add_class, LDB_CLASS_PERSON);
	assert_int_equal(t.c.valmode, LDB_VAL_INCR);
	assert_string_equal(t.c.filter, "uid=userXXX");
	assert_int_equal(t.c.filter_pat.head_len, 8);
	assert_int_equal(t.c.filter_pat.width, 3);
	assert_null(t.c.objtmpl);
	assert_int_equal(t.c.threads, 10);
	done(&t);

	/* one pair of outer parentheses is dropped: the RDN is what is left */
	OK(&t, "-e", "add,emailPerson,random", "-f", "(cn=uXXXX)", "-r", "0", "-R", "9999");
	assert_int_equal(t.c.add_class, LDB_CLASS_EMAILPERSON);
	assert_string_equal(t.c.filter, "cn=uXXXX");
	assert_string_equal(t.c.filter_pat.text, "cn=uXXXX");
	done(&t);

	/* the same filter serves a search too (wrapped again for it) */
	OK(&t, "-e", "add,inetOrgPerson,incr,commoncounter,noloop,esearch", "-f", "(uid=uXX)", "-r", "0", "-R", "99");
	assert_int_equal(t.c.add_class, LDB_CLASS_INETORGPERSON);
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_true(t.c.commoncounter);
	assert_true(t.c.noloop);
	assert_string_equal(t.c.filter, "uid=uXX");
	done(&t);

	/* the same class twice is harmless */
	OK(&t, "-e", "add,person,person,incr", "-f", "cn=uX", "-r", "0", "-R", "9");
	assert_int_equal(t.c.add_class, LDB_CLASS_PERSON);
	done(&t);
}

/* The issue's populate command: the template compiles, and the start-up check
 * does not use up a value of the shared counter. */
static void test_object_rdn_populate(void **state)
{
	struct run t;
	struct ldb_objtmpl_cursor cur;
	struct ldb_obj_entry e;
	struct ldb_rng rng;
	char scratch[4096];

	(void)state;
	OK(&t, "-e", "add,commoncounter", "-e", "object=@T,rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]");
	assert_true(t.c.weight[LDB_OP_ADD] > 0);
	assert_true(t.c.commoncounter);
	assert_int_equal(t.c.valmode, LDB_VAL_FIXED);
	assert_string_equal(t.c.object_file, path_t);
	assert_string_equal(t.c.rdn_spec, "uid:user[A=INCRNNOLOOP(1000;1999;4)]");
	assert_null(t.c.filter);
	assert_non_null(t.c.objtmpl);
	assert_true(ldb_objtmpl_max_size(t.c.objtmpl) < sizeof(scratch));
	ldb_objtmpl_cursor_init(t.c.objtmpl, &cur);
	ldb_rng_seed(&rng, 1, 0);
	assert_int_equal(ldb_objtmpl_render(t.c.objtmpl, &cur, &rng, scratch, sizeof(scratch), &e), 1);
	assert_int_equal(e.rdn_len, strlen("uid=user1000"));
	assert_memory_equal(e.rdn, "uid=user1000", e.rdn_len);
	assert_int_equal(e.n, 7);
	done(&t);

	/* object= with the RDN from -f; noloop accepted with a template, no incr */
	OK(&t, "-e", "add,object=@N,random", "-f", "cn=xXXX", "-r", "1", "-R", "5");
	assert_null(t.c.rdn_spec);
	assert_non_null(t.c.objtmpl);
	done(&t);
	OK(&t, "-e", "add,noloop,commoncounter", "-e", "object=@T,rdn=uid:u[A=INCRNNOLOOP(0;9;1)]");
	assert_true(t.c.noloop);
	done(&t);
}

static void test_delete_rename_attreplace(void **state)
{
	struct run t;

	(void)state;
	OK(&t, "-e", "delete,incr", "-f", "uid=uXXX", "-r", "0", "-R", "999");
	assert_true(t.c.weight[LDB_OP_DELETE] > 0);
	assert_false(t.c.weight[LDB_OP_ADD] > 0);
	done(&t);
	OK(&t, "-e", "rename,withnewparent,random", "-f", "uid=uXXX", "-r", "0", "-R", "999", "--new-parent",
	   "ou=moved,dc=example,dc=com");
	assert_true(t.c.weight[LDB_OP_RENAME] > 0);
	assert_true(t.c.withnewparent);
	assert_string_equal(t.c.new_parent, "ou=moved,dc=example,dc=com");
	done(&t);
	OK(&t, "-e", "attreplace=description:zzXXXXXXzz,incr", "-f", "uid=uXXX", "-r", "0", "-R", "999");
	assert_true(t.c.attreplace_attr != NULL);
	assert_string_equal(t.c.attreplace_attr, "description");
	assert_string_equal(t.c.attreplace_mask.text, "zzXXXXXXzz");
	assert_int_equal(t.c.attreplace_mask.head_len, 2);
	assert_int_equal(t.c.attreplace_mask.width, 6);
	done(&t);
	/* a fixed -f: the same entry each time */
	OK(&t, "-e", "attreplacefile=description:@D", "-f", "uid=fixed");
	assert_true(t.c.attreplacefile_attr != NULL);
	assert_string_equal(t.c.attreplacefile_attr, "description");
	assert_int_equal(t.c.attreplacefile_len, 12);
	assert_memory_equal(t.c.attreplacefile_data, "hello\nworld\n", 12);
	done(&t);
}

static void test_modify_compare(void **state)
{
	struct run t;

	(void)state;
	OK(&t, "--modify", "replace:description=d XXXX", "--modify", "add:telephoneNumber=+1 555 XXXX", "--modify",
	   "delete:mail", "--modify", "delete:seeAlso=", "--modify", "delete:cn=old", "-e", "incr,nozeropad", "-f",
	   "uid=uXXXX", "-r", "0", "-R", "9999");
	assert_int_equal(t.c.nmods, 5);
	assert_int_equal(t.c.mods[0].op, LDB_MOD_REPLACE);
	assert_string_equal(t.c.mods[0].attr, "description");
	assert_string_equal(t.c.mods[0].val.text, "d XXXX");
	assert_int_equal(t.c.mods[0].val.width, 4);
	assert_false(t.c.mods[0].val.zeropad); /* nozeropad came after */
	assert_int_equal(t.c.mods[1].op, LDB_MOD_ADD);
	assert_string_equal(t.c.mods[1].attr, "telephoneNumber");
	assert_int_equal(t.c.mods[2].op, LDB_MOD_DELETE);
	assert_string_equal(t.c.mods[2].attr, "mail");
	assert_string_equal(t.c.mods[2].val.text, "");
	assert_string_equal(t.c.mods[3].attr, "seeAlso");
	assert_string_equal(t.c.mods[3].val.text, "");
	assert_string_equal(t.c.mods[4].val.text, "old");
	assert_false(t.c.attreplace_attr != NULL);
	done(&t);

	OK(&t, "--compare", "uid=uXXX", "-e", "random", "-f", "uid=uXXX", "-r", "0", "-R", "999");
	assert_string_equal(t.c.compare_attr, "uid");
	assert_string_equal(t.c.compare_val.text, "uXXX");
	assert_true(t.c.compare_val.zeropad);
	done(&t);

	OK(&t, "-e", "add,person,incr", "--delete-after-add", "-f", "cn=uXXX", "-r", "0", "-R", "999");
	assert_true(t.c.delete_after_add);
	done(&t);
}

static void test_mix(void **state)
{
	struct run t;

	(void)state;
	OK(&t, "--mix", "search:80,modify:15,add:5", "--modify", "replace:description=x", "-e", "person,incr", "-f",
	   "cn=uXXX", "-r", "0", "-R", "999");
	assert_int_equal(t.c.weight[LDB_OP_SEARCH], 80);
	assert_int_equal(t.c.weight[LDB_OP_MODIFY], 15);
	assert_int_equal(t.c.weight[LDB_OP_ADD], 5);
	assert_int_equal(t.c.weight[LDB_OP_DELETE], 0);
	assert_int_equal(t.c.weight[LDB_OP_BIND], 0);
	/* the kinds become the operation flags */
	assert_true(t.c.weight[LDB_OP_SEARCH] > 0);
	assert_true(t.c.weight[LDB_OP_ADD] > 0);
	assert_false(t.c.weight[LDB_OP_DELETE] > 0);
	assert_false(t.c.weight[LDB_OP_RENAME] > 0);
	assert_false(t.c.weight[LDB_OP_BIND] > 0);
	done(&t);

	OK(&t, "--mix", "bind:1,compare:3,delete:2,rename:4", "-D", "cn=admin", "-w", "secret", "--compare", "cn=x",
	   "-e", "random", "-f", "cn=uXX", "-r", "0", "-R", "99");
	assert_int_equal(t.c.weight[LDB_OP_BIND], 1);
	assert_int_equal(t.c.weight[LDB_OP_COMPARE], 3);
	assert_true(t.c.weight[LDB_OP_BIND] > 0);
	assert_true(t.c.weight[LDB_OP_DELETE] > 0);
	assert_true(t.c.weight[LDB_OP_RENAME] > 0);
	assert_false(t.c.weight[LDB_OP_SEARCH] > 0);
	done(&t);
}

static void test_genldif_parse(void **state)
{
	struct run t;

	(void)state;
	OK(&t, "-e", "genldif=@O,object=@T,rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]", "-n", "4");
	assert_string_equal(t.c.genldif_file, path_o);
	assert_false(t.c.genldif_append);
	assert_false(t.c.weight[LDB_OP_ADD] > 0);
	assert_int_equal(t.c.threads, 1);
	done(&t);
	OK(&t, "-e", "genldif=@X,append,person,incr,noloop", "-f", "cn=uXX", "-r", "0", "-R", "99");
	assert_true(t.c.genldif_append);
	assert_int_equal(t.c.add_class, LDB_CLASS_PERSON);
	done(&t);
	OK(&t, "-e", "genldif=@O,inetOrgPerson,random", "-f", "cn=uXX", "-r", "0", "-R", "99", "-T", "5");
	assert_int_equal(t.c.ops_per_thread, 5);
	done(&t);
}

static void test_config_print_write(void **state)
{
	struct run t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	/* --compare needs compare in the mix */
	assert_int_equal(PARSE(&t, "--mix", "search:80,modify:15,add:5", "--modify", "replace:description=vXXX", "-e",
	                       "person,incr", "-f", "cn=uXXX", "-r", "0", "-R", "999", "--compare", "cn=uXXX"),
	                 LDB_CLI_ERROR);
	done(&t);

	OK(&t, "--mix", "search:80,modify:15,add:5", "--modify", "replace:description=vXXX", "-e", "person,incr", "-f",
	   "cn=uXXX", "-r", "0", "-R", "999", "--delete-after-add");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ldb_config_print(&t.c, f);
	fclose(f);
	assert_non_null(strstr(buf, " add_entries"));
	assert_non_null(strstr(buf, "Object class       = person\n"));
	assert_non_null(strstr(buf, "Modify             = replace description \"vXXX\"\n"));
	assert_non_null(strstr(buf, "Mix                = search:80,add:5,modify:15\n"));
	assert_non_null(strstr(buf, "Delete after add   = yes\n"));
	free(buf);
	done(&t);

	buf = NULL;
	OK(&t, "-e", "genldif=@O,object=@T,rdn=uid:u[A=INCRNNOLOOP(0;9;1)]");
	f = open_memstream(&buf, &len);
	ldb_config_print(&t.c, f);
	fclose(f);
	assert_non_null(strstr(buf, " genldif"));
	assert_non_null(strstr(buf, "Object template    = "));
	assert_non_null(strstr(buf, "RDN                = \"uid:u[A=INCRNNOLOOP(0;9;1)]\"\n"));
	assert_non_null(strstr(buf, "Genldif file       = "));
	free(buf);
	done(&t);
}

/* ------------------------------------------------------------ bad input */

struct bad_case {
	const char *args[24];
	const char *needle;
};

#define XR "-r", "0", "-R", "999"

static const struct bad_case bad_cases[] = {
	/* add */
	{ { "-e", "add,incr", "-f", "cn=uXXX", XR }, "-e add needs the entries' shape: -e person" },
	{ { "-e", "add,person", "-f", "cn=u" }, "-e add needs -e incr, -e random or -e rdn=" },
	{ { "-e", "add,person,incr", XR }, "-e add needs -f with the entries' RDN" },
	{ { "-e", "esearch,person", "-f", "cn=u" }, "-e person needs -e add" },
	{ { "-e", "esearch,object=@T", "-f", "cn=u" }, "-e object needs -e add" },
	{ { "-e", "add,person,inetOrgPerson,incr", "-f", "cn=uXXX", XR },
	  "-e person and -e inetOrgPerson exclude each other" },
	{ { "-e", "add,emailPerson,object=@T,incr", "-f", "cn=uXXX", XR },
	  "-e emailPerson and -e object exclude each other" },
	{ { "-e", "add,person,incr", "-f", "(&(cn=uXXX)(sn=a))", XR }, "needs an RDN, one attr=value" },
	{ { "-e", "add,person,incr", "-f", "cn=a+sn=uXXX", XR }, "needs an RDN, one attr=value" },
	{ { "-e", "add,person,incr", "-f", "cn=#zzXXX", XR }, "needs an RDN" },
	{ { "-e", "add,person,incr", "-f", "cn=uXXX", "-r", "0", "-R", "1000" }, "-R 1000 needs 4 digits" },
	{ { "-e", "add,person", "-e", "object=@T", "-f", "cn=u" }, "-e person and -e object exclude each other" },
	/* object= and rdn= */
	{ { "-e", "add,rdn=uid:u[A=INCRN(0;9;1)]" }, "-e rdn needs -e object=FILE" },
	{ { "-e", "add,object=@T,rdn=uid:u[A=INCRN(0;9;1)]", "-f", "uid=u" }, "-e rdn and -f exclude each other" },
	{ { "-e", "add,incr,object=@T,rdn=uid:u[A=INCRN(0;9;1)]" }, "-e rdn and -e incr exclude each other" },
	{ { "-e", "add,object=@T,rdn=uid:u[A=INCRN(0;9;1)]", "-R", "5" }, "-e rdn and -R exclude each other" },
	{ { "-e", "add,object=@T,rdn=uid" }, "-e rdn=uid: expected rdn=ATTR:VALUE" },
	{ { "-e", "add,object=@T,rdn=uid:#zz[A=INCRN(0;9;1)]" }, "is not a valid RDN" },
	{ { "-e", "add,object=/nonexistent/t.ldif,rdn=uid:u[A=INCRN(0;9;1)]" },
	  "-e object=/nonexistent/t.ldif: cannot open" },
	{ { "-e", "add,object=@B,rdn=uid:u[A=INCRN(0;9;1)]" }, "line 2" },
	{ { "-e", "add,object=@T,rdn=uid:u[A=BOGUS(1)]" }, "unknown kind" },
	{ { "-e", "add,object=@T", "-e", "object=@T,incr", "-f", "uid=uXXX", XR }, "-e object given twice" },
	{ { "-e", "esearch,commoncounter", "-f", "cn=u" }, "-e commoncounter needs -e incr (or an object= template)" },
	{ { "-e", "esearch,noloop", "-f", "cn=u" }, "-e noloop needs -e incr (or an object= template)" },
	/* delete, rename */
	{ { "-e", "delete", "-f", "cn=u" }, "-e delete needs -e incr or -e random" },
	{ { "-e", "delete,incr", XR }, "-e delete needs -f with the entries' RDN" },
	{ { "-e", "rename", "-f", "cn=u" }, "-e rename needs -e incr or -e random" },
	{ { "-e", "delete,withnewparent,incr", "-f", "cn=uXXX", XR }, "-e withnewparent needs -e rename" },
	{ { "-e", "rename,incr", "-f", "cn=uXXX", XR, "--new-parent", "ou=x" },
	  "--new-parent needs -e rename,withnewparent" },
	{ { "-e", "rename,withnewparent,incr", "-f", "cn=uXXX", XR, "--new-parent", "not a dn" },
	  "--new-parent 'not a dn': invalid DN" },
	/* attreplace, attreplacefile */
	{ { "-e", "attreplace=description", "-f", "cn=u" }, "expected attreplace=ATTR:MASK" },
	{ { "-e", "attreplace=description:", "-f", "cn=u" }, "expected attreplace=ATTR:MASK" },
	{ { "-e", "attreplace=desc ription:XX", "-f", "cn=u" }, "invalid attribute name 'desc ription'" },
	{ { "-e", "attreplace=a:XX", "-e", "attreplace=b:XX", "-f", "cn=u" }, "-e attreplace given twice" },
	{ { "-e", "attreplace=description:XXX" }, "-e attreplace needs -f with the entries' RDN" },
	{ { "-e", "attreplacefile=description:/nonexistent/data", "-f", "cn=u" }, "/nonexistent/data: cannot open" },
	{ { "-e", "attreplacefile=description:@E", "-f", "cn=u" }, "the file is empty" },
	{ { "-e", "attreplacefile=description:/", "-f", "cn=u" }, "cannot read" },
	{ { "-e", "attreplacefile=description", "-f", "cn=u" }, "expected attreplacefile=ATTR:FILE" },
	/* --modify, --compare, --delete-after-add */
	{ { "--modify", "frob:description=x", "-f", "cn=u" }, "the operation must be replace, add or delete" },
	{ { "--modify", "description=x", "-f", "cn=u" }, "expected OP:ATTR=PATTERN" },
	{ { "--modify", "replace:description", "-f", "cn=u" }, "replace needs a value pattern" },
	{ { "--modify", "add:description=", "-f", "cn=u" }, "add needs a value pattern" },
	{ { "--modify", "replace:=x", "-f", "cn=u" }, "invalid attribute name" },
	{ { "--modify", "replace:description=vXXX", "-f", "cn=u" },
	  "XXX gets the entry's number and needs -e random or -e incr" },
	{ { "--modify", "replace:description=vXX", "-e", "incr", "-f", "cn=uXXX", XR },
	  "--modify description: -R 999 needs 3 digits" },
	{ { "--modify", "delete:a", "--modify", "delete:b", "--modify", "delete:c", "--modify",
	    "delete:d", "--modify", "delete:e", "--modify", "delete:f", "--modify", "delete:g",
	    "--modify", "delete:h", "--modify", "delete:i", "-f",       "cn=u" },
	  "--modify: at most 8 modifications" },
	{ { "--modify", "delete:description" }, "--modify needs -f with the entries' RDN" },
	{ { "--compare", "cn", "-f", "cn=u" }, "--compare 'cn': expected ATTR=PATTERN" },
	{ { "--compare", "cn=a", "--compare", "cn=b", "-f", "cn=u" }, "--compare given twice" },
	{ { "--compare", "cn=uXX", "-f", "cn=u" }, "XXX gets the entry's number" },
	{ { "-e", "esearch", "-f", "cn=u", "--delete-after-add" }, "--delete-after-add needs -e add" },
	/* --mix */
	{ { "--mix", "search:80,frob:5", "-f", "cn=u" }, "unknown kind 'frob'" },
	{ { "--mix", "search:0", "-f", "cn=u" }, "the weight of search must be a whole number from 1 to 1000000" },
	{ { "--mix", "search:x", "-f", "cn=u" }, "the weight of search" },
	{ { "--mix", "search:5a", "-f", "cn=u" }, "the weight of search" },
	{ { "--mix", "search:1,search:2", "-f", "cn=u" }, "search given twice" },
	{ { "--mix", "search:1,", "-f", "cn=u" }, "trailing comma" },
	{ { "--mix", "search", "-f", "cn=u" }, "expected KIND:WEIGHT" },
	{ { "--mix", "search:1", "--mix", "search:1", "-f", "cn=u" }, "--mix given twice" },
	{ { "--mix", "search:1", "-e", "esearch", "-f", "cn=u" }, "-e esearch and --mix exclude each other" },
	{ { "--mix", "search:1,add:1", "-e", "add,person,incr", "-f", "cn=uXXX", XR },
	  "-e add and --mix exclude each other" },
	{ { "--mix", "search:1,modify:1", "-f", "cn=u" },
	  "--mix modify needs --modify, -e attreplace or -e attreplacefile" },
	{ { "--mix", "search:1", "--modify", "delete:cn", "-f", "cn=u" }, "--modify needs modify in --mix" },
	{ { "--mix", "modify:1", "--modify", "delete:cn", "-e", "attreplace=sn:XX", "-f", "cn=u" },
	  "give one of --modify" },
	{ { "--mix", "compare:1", "-f", "cn=u" }, "--mix compare needs --compare" },
	{ { "--mix", "search:1", "--compare", "cn=a", "-f", "cn=u" }, "--compare needs compare in --mix" },
	{ { "--mix", "add:1", "-e", "incr", "-f", "cn=uXXX", XR }, "--mix add needs the entries' shape" },
	{ { "--mix", "bind:1" }, "--mix bind needs -D" },
	{ { "--mix", "search:1" }, "--mix search needs a filter (-f)" },
	{ { "--mix", "delete:1", "-f", "cn=u" }, "--mix delete needs -e incr or -e random" },
	/* genldif */
	{ { "-e", "genldif=@O,add,person,incr", "-f", "cn=uXX", "-r", "0", "-R", "99", "-T", "5" },
	  "leave out -e add" },
	{ { "-e", "genldif=@O,esearch,person,incr", "-f", "cn=uXX", "-r", "0", "-R", "99", "-T", "5" },
	  "leave out -e esearch" },
	{ { "-e", "genldif=@O,person,incr", "--mix", "search:1", "-f", "cn=uXX", "-r", "0", "-R", "99" },
	  "leave out --mix" },
	{ { "-e", "genldif=@O,incr", "-f", "cn=uXX", "-r", "0", "-R", "99", "-T", "5" },
	  "-e genldif needs the entries' shape" },
	{ { "-e", "genldif=@O,person", "-f", "cn=u", "-T", "5" }, "-e genldif needs -e incr, -e random or -e rdn=" },
	{ { "-e", "genldif=@O,person,incr", "-f", "cn=uXX", "-r", "0", "-R", "99" }, "-e genldif needs an end" },
	{ { "-e", "genldif=@O,person,random", "-f", "cn=uXX", "-r", "0", "-R", "99" }, "-e genldif needs an end" },
	{ { "-e", "genldif=@O,object=@T,rdn=uid:u[A=INCRN(0;9;1)]" }, "-e genldif needs an end" },
	{ { "-e", "genldif=@X,person,incr,noloop", "-f", "cn=uXX", "-r", "0", "-R", "99" }, "exists (use -e append)" },
	{ { "-e", "genldif=/nonexistent/dir/g.ldif,person,incr,noloop", "-f", "cn=uXX", "-r", "0", "-R", "99" },
	  "cannot create the file in /nonexistent/dir" },
	{ { "-e", "esearch,append", "-f", "cn=u" }, "-e append needs -e genldif=FILE" },
	{ { "-e", "genldif=@O,genldif=@O" }, "-e genldif given twice" },
	{ { "-e", "genldif=@O,person,incr,noloop,randombase,randombaselow=0,randombasehigh=9", "-b", "ou=X,dc=x", "-f",
	    "cn=uXX", "-r", "0", "-R", "99" },
	  "leave out -e randombase" },
	/* nothing to do */
	{ { "-f", "cn=a" }, "nothing to do: give -e esearch or -e bindonly (or add" },
};

static void test_bad_input(void **state)
{
	(void)state;
	assert_true(sizeof(bad_cases) / sizeof(bad_cases[0]) >= 40);
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct run t;

		cli_run_bad(&t, i, bad_cases[i].args, bad_cases[i].needle, expand);
		done(&t);
	}
	/* none of them created the genldif output */
	assert_int_not_equal(access(path_o, F_OK), 0);
}

/* ---------------------------------------------------------------- genldif.c */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Lines that start with "dn: ". */
static size_t count_dns(const char *s)
{
	size_t n = 0;

	for (const char *p = s; *p != '\0'; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (strncmp(p, "dn: ", 4) == 0)
			n++;
	return n;
}

static void test_genldif_run(void **state)
{
	struct run t;
	char *s;

	(void)state;
	unlink(path_o);
	/* person, incr by 2 without commoncounter: ldclt starts at -r - 1 + step */
	OK(&t, "-e", "genldif=@O,person,incr=2", "-f", "(cn=uXX)", "-r", "10", "-R", "99", "-T", "3", "-b",
	   "ou=p,dc=x");
	assert_int_equal(ldb_genldif_run(&t.c), 0);
	done(&t);
	s = slurp(path_o);
	/* the RDN's attribute first, as ldclt */
	assert_string_equal(s, "dn: cn=u11,ou=p,dc=x\ncn: u11\nobjectClass: top\nobjectClass: person\nsn: u11\n\n"
	                       "dn: cn=u13,ou=p,dc=x\ncn: u13\nobjectClass: top\nobjectClass: person\nsn: u13\n\n"
	                       "dn: cn=u15,ou=p,dc=x\ncn: u15\nobjectClass: top\nobjectClass: person\nsn: u15\n\n");
	free(s);

	/* append, incr,noloop ends at -R; the template lacks the RDN's value: added */
	OK(&t, "-e", "genldif=@O,append,object=@N,incr,noloop,commoncounter", "-f", "uid=uX", "-r", "8", "-R", "9");
	assert_int_equal(ldb_genldif_run(&t.c), 0);
	done(&t);
	s = slurp(path_o);
	assert_true(strncmp(s, "dn: cn=u11,ou=p,dc=x\n", 21) == 0); /* the first run is kept */
	assert_non_null(strstr(
	        s, "dn: uid=u8,dc=example,dc=com\nuid: u8\nobjectclass: top\nobjectclass: person\nsn: s1\ncn: c1\n\n"
	           "dn: uid=u9,dc=example,dc=com\nuid: u9\nobjectclass: top\nobjectclass: person\nsn: s2\ncn: c2\n\n"));
	assert_null(strstr(s, "uid=u10"));
	free(s);

	/* the template's NOLOOP field ends it: 3 values of B */
	unlink(path_o);
	OK(&t, "-e", "genldif=@O,object=@N,incr", "-f", "uid=uXX", "-r", "0", "-R", "99");
	assert_int_equal(ldb_genldif_run(&t.c), 0);
	done(&t);
	s = slurp(path_o);
	assert_non_null(strstr(s, "dn: uid=u02,dc=example,dc=com\n"));
	assert_null(strstr(s, "dn: uid=u03"));
	free(s);

	/* the canonical populate template: 1000 entries, user1000..user1999 */
	unlink(path_o);
	OK(&t, "-e", "genldif=@O,object=@T,rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]");
	assert_int_equal(ldb_genldif_run(&t.c), 0);
	done(&t);
	s = slurp(path_o);
	assert_int_equal(count_dns(s), 1000);
	assert_true(strncmp(s, "dn: uid=user1000,dc=example,dc=com\nuid: user1000\nobjectclass: top\n", 66) == 0);
	assert_non_null(strstr(s, "\ndn: uid=user1999,dc=example,dc=com\nuid: user1999\n"));
	assert_null(strstr(s, "user2000"));
	free(s);
	unlink(path_o);
}

static void test_usage_write(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char *const items[] = {
		"--modify OP:ATTR=PATTERN",
		"--compare ATTR=PATTERN",
		"--delete-after-add",
		"--new-parent DN",
		"--mix KIND:WEIGHT",
		" add ",
		" person ",
		" emailPerson ",
		" inetOrgPerson ",
		"object=FILE",
		"rdn=ATTR:VALUE",
		" delete ",
		" rename ",
		"withnewparent",
		"attreplace=ATTR:MASK",
		"attreplacefile=ATTR:FILE",
		"genldif=FILE",
		" append ",
	};

	(void)state;
	assert_non_null(f);
	ldb_cli_usage("ldbench", f);
	fclose(f);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (strstr(buf, items[i]) == NULL)
			fail_msg("usage lacks '%s'", items[i]);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_classes),
		cmocka_unit_test(test_object_rdn_populate),
		cmocka_unit_test(test_delete_rename_attreplace),
		cmocka_unit_test(test_modify_compare),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_genldif_parse),
		cmocka_unit_test(test_config_print_write),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_genldif_run),
		cmocka_unit_test(test_usage_write),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
