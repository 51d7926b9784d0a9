/* Unit tests for the table of operation kinds (src/ops/ops.c): the name and
 * keyword lookups, that every row is filled, the success and counteach rules,
 * the weights and the pass that -e lines and --mix give, and the rendering of
 * a request through a row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "ops/ops.h"
#include "proto/wire.h"

#include <lber.h>
#include <ldap.h>
#include "cli_run.h"

#define PARSE(t, ...) cli_run_parse((t), "ldbench", (const char *const[]){ __VA_ARGS__, NULL }, NULL, false)

#define OK(t, ...)                                                                   \
	do {                                                                         \
		if (PARSE((t), __VA_ARGS__) != LDB_CLI_RUN)                          \
			fail_msg("expected a good command line, got: %s", (t)->err); \
	} while (0)

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const char *n = ldb_ops[k]->name;
		char upper[32];
		size_t len = strlen(n);

		assert_int_equal(ldb_op_from_name(n, len, false), k);
		assert_string_equal(ldb_op_name((enum ldb_op)k), n);
		for (size_t i = 0; i <= len; i++)
			upper[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 32 : n[i]);
		assert_int_equal(ldb_op_from_name(upper, len, true), k);
		assert_int_equal(ldb_op_from_name(upper, len, false), -1);
		/* a prefix, or the name and more, is not the name */
		assert_int_equal(ldb_op_from_name(n, len - 1, false), -1);
		assert_int_equal(ldb_op_from_name("searchx", 7, false), -1);
		if (ldb_ops[k]->keyword != NULL)
			assert_int_equal(ldb_op_from_keyword(ldb_ops[k]->keyword), k);
	}
	/* the lookup reads only n bytes: "search.p99" names search */
	assert_int_equal(ldb_op_from_name("search.p99", 6, false), LDB_OP_SEARCH);
	assert_int_equal(ldb_op_from_name("", 0, false), -1);
	assert_int_equal(ldb_op_from_keyword("esearch"), LDB_OP_SEARCH);
	assert_int_equal(ldb_op_from_keyword("bindonly"), LDB_OP_BIND);
	assert_int_equal(ldb_op_from_keyword("search"), -1);
	assert_string_equal(ldb_op_name(LDB_OP_COUNT), "unknown");
}

/* a general flow's row (not one of its steps) */
static bool is_flow_row(int k)
{
	return k >= LDB_OP_FLOW && (k - LDB_OP_FLOW) % (1 + LDB_FLOW_STEPS) == 0;
}

static void test_rows_filled(void **state)
{
	struct ldb_config defaults;
	ldb_config_init(&defaults);
	bool pass_seen[LDB_OP_COUNT] = { false }, print_seen[LDB_OP_COUNT] = { false };

	(void)state;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		const struct ldb_opdesc *d = ldb_ops[k];

		assert_non_null(d);
		if (d->unlisted && d->nsteps == 0) { /* a general flow's step: a row of figures (ops/flow.c) */
			assert_true((k > LDB_OP_FLOW || k == LDB_OP_LOGIN_GROUPS) && d->name != NULL &&
			            d->monitor == NULL && !d->asked && !d->asked_row);
			continue;
		}
		assert_non_null(d->name);
		assert_non_null(d->json);
		/* a flow (the login) has no server counter: its steps are counted as their kinds */
		assert_int_equal(d->monitor == NULL, d->nsteps > 0);
		assert_int_equal(d->nsteps > 0, k == LDB_OP_LOGIN || is_flow_row(k));
		assert_true(d->name[0] != '\0' && d->json[0] != '\0' && (d->monitor == NULL || d->monitor[0] != '\0'));
		for (unsigned j = 0; j < d->nsteps; j++) /* a step is a kind of its own, not a flow */
			assert_int_equal(ldb_ops[d->step_kind[j]]->nsteps, 0);
		/* 389 DS's cn=snmp counts every kind but abandon, the extended operations and the flows */
		if (k == LDB_OP_ABANDON || k == LDB_OP_PASSMOD || k == LDB_OP_WHOAMI || k == LDB_OP_EXTENDED ||
		    k == LDB_OP_LOGIN || is_flow_row(k))
			assert_null(d->snmp);
		else
			assert_true(d->snmp != NULL && d->snmp[0] != '\0');
		/* only abandon goes unanswered, and it takes two message ids */
		assert_int_equal(d->response, k != LDB_OP_ABANDON);
		assert_int_equal(d->msgids > 1, k == LDB_OP_ABANDON);
		/* something prepares it: its own start-up, or the write kinds' room and scratch */
		assert_true(d->prepare != NULL || d->writes);
		/* compare prints no word of its own in -v's running mode; every other kind one */
		assert_int_equal(d->print_mode != NULL || d->mode != NULL, k != LDB_OP_COMPARE);
		assert_non_null(d->render);
		assert_true(d->option != NULL || d->option_text != NULL);
		assert_non_null(ldb_op_option((enum ldb_op)k, &defaults));
		assert_true(d->keyword != NULL || d->asked != NULL || d->asked_row != NULL); /* something asks for it */
		assert_true(d->pass_rank < LDB_OP_COUNT && !pass_seen[d->pass_rank]);
		assert_true(d->print_rank < LDB_OP_COUNT && !print_seen[d->print_rank]);
		pass_seen[d->pass_rank] = print_seen[d->print_rank] = true;
		assert_true(d->check_at <= LDB_CHECK_MIX);
		assert_true(d->dn <= LDB_OPDN_FILTER_OR_RDN);
		for (int j = 0; j < k; j++) {
			assert_string_not_equal(ldb_ops[j]->name, d->name);
			/* one cn=Monitor entry per kind, but the extended operations' (and
			 * the connections' own StartTLS and sync WhoAmI): Extended */
			if (d->monitor == NULL || ldb_ops[j]->monitor == NULL)
				continue;
			if (!d->setup_extended || !ldb_ops[j]->setup_extended)
				assert_string_not_equal(ldb_ops[j]->monitor, d->monitor);
			else
				assert_string_equal(ldb_ops[j]->monitor, "Extended");
		}
	}
	/* OpenLDAP's cn=Operations names */
	assert_string_equal(ldb_ops[LDB_OP_RENAME]->monitor, "Modrdn");
	assert_string_equal(ldb_ops[LDB_OP_SEARCH]->snmp, "searchops");
	/* a bind is alone on its connection, and the binds at connect are binds */
	assert_true(ldb_ops[LDB_OP_BIND]->alone && ldb_ops[LDB_OP_BIND]->connect_bind);
	assert_false(ldb_ops[LDB_OP_SEARCH]->alone);
	assert_true(ldb_ops[LDB_OP_SEARCH]->entries);
	assert_true(ldb_ops[LDB_OP_ADD]->parents);
	assert_string_equal(ldb_op_option(LDB_OP_SEARCH, &defaults), "-e esearch");
	assert_string_equal(ldb_op_option(LDB_OP_MODIFY, &defaults), "--modify");
	ldb_config_free(&defaults);
}

static void test_success_and_counteach(void **state)
{
	(void)state;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		assert_true(ldb_op_succeeded((enum ldb_op)k, 0));
		assert_false(ldb_op_succeeded((enum ldb_op)k, 32));
		assert_false(ldb_op_succeeded((enum ldb_op)k, -1));
	}
	/* compare: true and false are both answers */
	assert_true(ldb_op_succeeded(LDB_OP_COMPARE, 5));
	assert_true(ldb_op_succeeded(LDB_OP_COMPARE, 6));
	assert_false(ldb_op_succeeded(LDB_OP_SEARCH, 5));
	assert_false(ldb_op_succeeded(LDB_OP_MODIFY, 6));
	/* ldclt's expected failures */
	assert_true(ldb_op_expected_failure(LDB_OP_SEARCH, 32));
	assert_false(ldb_op_expected_failure(LDB_OP_SEARCH, 68));
	assert_true(ldb_op_expected_failure(LDB_OP_ADD, 68));
	assert_false(ldb_op_expected_failure(LDB_OP_ADD, 32));
	assert_true(ldb_op_expected_failure(LDB_OP_DELETE, 32));
	assert_true(ldb_op_expected_failure(LDB_OP_MODIFY, 32));
	assert_true(ldb_op_expected_failure(LDB_OP_COMPARE, 32));
	assert_true(ldb_op_expected_failure(LDB_OP_RENAME, 68));
	assert_true(ldb_op_expected_failure(LDB_OP_RENAME, 32));
	assert_true(ldb_op_expected_failure(LDB_OP_RENAME, 2));
	assert_false(ldb_op_expected_failure(LDB_OP_RENAME, 50));
	assert_true(ldb_op_expected_failure(LDB_OP_BIND, 49));
	assert_true(ldb_op_expected_failure(LDB_OP_BIND, -1));
}

/* The pass of a parsed command line, as kind names joined by ',' */
static const char *pass_of(const struct ldb_config *c, char *buf, size_t cap)
{
	uint8_t pass[LDB_OP_COUNT];
	int n = ldb_ops_pass(c, pass);
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "", ldb_op_name(pass[i]));
	return buf;
}

static void assert_weights(const struct ldb_config *c, const int want[LDB_OP_COUNT])
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] != want[k])
			fail_msg("weight of %s: %d, expected %d", ldb_op_name((enum ldb_op)k), c->weight[k], want[k]);
}

static void test_pass_from_e(void **state)
{
	struct run t;
	char buf[128];

	(void)state;
	/* the keywords in any order: the pass is ldclt's order */
	OK(&t, "-e", "delete,add,person,incr", "-f", "uid=uXXX", "-r", "1", "-R", "5");
	assert_weights(&t.c, (const int[LDB_OP_COUNT]){ [LDB_OP_ADD] = 1, [LDB_OP_DELETE] = 1 });
	assert_false(t.c.mix);
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "add,delete");
	done(&t);

	OK(&t, "-e", "rename,esearch,attreplace=description:XXX,incr", "-f", "uid=uXXX", "-r", "1", "-R", "5");
	assert_weights(&t.c,
	               (const int[LDB_OP_COUNT]){ [LDB_OP_SEARCH] = 1, [LDB_OP_MODIFY] = 1, [LDB_OP_RENAME] = 1 });
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "modify,search,rename");
	done(&t);

	OK(&t, "-e", "esearch,bindonly", "-f", "uid=u", "-D", "cn=x", "-w", "pw");
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "bind,search");
	done(&t);

	/* abandon comes last, after the search it shares the filter with */
	OK(&t, "-e", "abandon,esearch", "-f", "uid=u");
	assert_weights(&t.c, (const int[LDB_OP_COUNT]){ [LDB_OP_SEARCH] = 1, [LDB_OP_ABANDON] = 1 });
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "search,abandon");
	done(&t);

	/* --compare and --modify ask for their kinds by themselves */
	OK(&t, "--compare", "cn=uXXX", "--modify", "replace:sn=sXXX", "-f", "uid=uXXX", "-e", "random", "-r", "1", "-R",
	   "5");
	assert_weights(&t.c, (const int[LDB_OP_COUNT]){ [LDB_OP_MODIFY] = 1, [LDB_OP_COMPARE] = 1 });
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "modify,compare");
	done(&t);

	/* --delete-after-add: a delete in the pass, not a kind asked for */
	OK(&t, "-e", "add,person,incr", "--delete-after-add", "-f", "uid=uXXX", "-r", "1", "-R", "5");
	assert_weights(&t.c, (const int[LDB_OP_COUNT]){ [LDB_OP_ADD] = 1 });
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "add,delete");
	done(&t);
}

static void test_weights_from_mix(void **state)
{
	struct run t;
	char buf[128];

	(void)state;
	OK(&t, "--mix", "search:7,rename:2,compare:1", "--compare", "cn=x", "-e", "incr", "-f", "uid=uXXX", "-r", "1",
	   "-R", "9");
	assert_true(t.c.mix);
	assert_weights(&t.c,
	               (const int[LDB_OP_COUNT]){ [LDB_OP_SEARCH] = 7, [LDB_OP_RENAME] = 2, [LDB_OP_COMPARE] = 1 });
	/* ldb_ops_pass still gives the kinds in ldclt's order (the worker draws by weight) */
	assert_string_equal(pass_of(&t.c, buf, sizeof buf), "compare,search,rename");
	done(&t);

	/* an -e kind and --mix exclude each other; the message names both from the row */
	assert_int_equal(PARSE(&t, "--mix", "add:1", "-e", "rename"), LDB_CLI_ERROR);
	assert_string_equal(t.err, "ldbench: -e rename and --mix exclude each other: --mix names the operations "
	                           "(e.g. --mix rename:1)");
	done(&t);
	/* the unknown-kind message lists the table's names */
	assert_int_equal(PARSE(&t, "--mix", "abandonx:1"), LDB_CLI_ERROR);
	assert_string_equal(t.err, "ldbench: --mix 'abandonx:1': unknown kind 'abandonx' (search, bind, add, modify, "
	                           "delete, rename, compare, abandon, passmod, whoami, extended, login)");
	done(&t);
}

/* A row renders what the wire module encodes for the same DN. */
static void test_render_through_row(void **state)
{
	struct run t;
	struct ldb_ops_run o;
	struct ldb_wctx *wc = malloc(sizeof *wc);
	struct ldb_rng rng;
	bool used[LDB_OP_COUNT] = { [LDB_OP_DELETE] = true };
	char err[256];
	uint8_t got[512], want[512];
	static const char dn[] = "uid=u042,ou=p,dc=example,dc=com";

	(void)state;
	assert_non_null(wc);
	OK(&t, "-e", "delete,incr", "-f", "uid=uXXX", "-b", "ou=p,dc=example,dc=com", "-r", "1", "-R", "999");
	assert_int_equal(ldb_ops_prepare(&o, &t.c, used, err, sizeof err), 0);
	assert_true(o.scratch);
	assert_int_equal(o.room[LDB_OP_DELETE], LDB_OP_WRITE_ROOM);
	assert_true(o.room[LDB_OP_BIND] > 0); /* the binds at connect are always ready */
	assert_int_equal(ldb_wctx_init(wc, &t.c), 0);
	ldb_rng_seed(&rng, 1, 0);
	struct ldb_op_req r = { &o, wc, &rng, 42, 0, 7 };
	long n = ldb_ops[LDB_OP_DELETE]->render(&r, got, sizeof got);
	size_t m = ldb_wire_put_delete(want, sizeof want, 7, dn, strlen(dn));
	assert_true(n > 0);
	assert_int_equal((size_t)n, m);
	assert_memory_equal(got, want, m);
	assert_string_equal(wc->dn, dn);
	/* no room: nothing written */
	assert_int_equal(ldb_ops[LDB_OP_DELETE]->render(&r, got, 4), 0);
	ldb_wctx_free(wc);
	free(wc);
	ldb_ops_free(&o);
	done(&t);
}

/* The extended operations through their rows: passmod's default (the bound
 * user's password set again), its patterns stepping together through the
 * client's states, and --extended's base64 value decoded once. */
static long render_kind(struct run *t, enum ldb_op k, int32_t msgid, uint8_t *got, size_t cap, int times)
{
	struct ldb_ops_run o;
	struct ldb_wctx *wc = malloc(sizeof *wc);
	struct ldb_rng rng;
	bool used[LDB_OP_COUNT] = { false };
	char err[256];
	long n = 0;

	used[k] = true;

	assert_non_null(wc);
	assert_int_equal(ldb_ops_prepare(&o, &t->c, used, err, sizeof err), 0);
	assert_int_equal(ldb_wctx_init(wc, &t->c), 0);
	assert_int_equal(ldb_ops_client_init(&o, wc, 0, 1, err, sizeof err), 0);
	ldb_rng_seed(&rng, 1, 0);
	struct ldb_op_req r = { &o, wc, &rng, 0, 0, msgid };
	for (int i = 0; i < times; i++)
		n = ldb_ops[k]->render(&r, got, cap);
	ldb_wctx_free(wc);
	free(wc);
	ldb_ops_free(&o);
	return n;
}

static void test_extended_ops_render(void **state)
{
	static const char oid[] = "1.3.6.1.4.1.4203.1.11.1";
	struct run t;
	uint8_t got[512], want[512], value[256];
	(void)state;

	OK(&t, "--passmod", "-D", "uid=u1,dc=x", "-w", "secret");
	const char *v[3] = { NULL, "secret", "secret" };
	size_t len[3] = { 0, 6, 6 };
	size_t vn = ldb_wire_put_tagged_seq(value, sizeof value, v, len, 3);
	size_t m = ldb_wire_put_extended(want, sizeof want, 9, oid, strlen(oid), value, vn);
	assert_int_equal(render_kind(&t, LDB_OP_PASSMOD, 9, got, sizeof got, 1), (long)m);
	assert_memory_equal(got, want, m);
	done(&t);

	/* the third request of two sequences in step: user 12, pw12; no old password */
	OK(&t, "--passmod", "--passmod-user", "uid=u[10:12]", "--passmod-new", "pw[10:12]", "-D", "cn=admin", "-w",
	   "x");
	const char *v2[3] = { "uid=u12", NULL, "pw12" };
	size_t len2[3] = { 7, 0, 4 };
	vn = ldb_wire_put_tagged_seq(value, sizeof value, v2, len2, 3);
	m = ldb_wire_put_extended(want, sizeof want, 3, oid, strlen(oid), value, vn);
	assert_int_equal(render_kind(&t, LDB_OP_PASSMOD, 3, got, sizeof got, 3), (long)m);
	assert_memory_equal(got, want, m);
	done(&t);

	OK(&t, "--extended", "1.2.3::aGVsbG8=", "-D", "cn=admin", "-w", "x");
	m = ldb_wire_put_extended(want, sizeof want, 5, "1.2.3", 5, "hello", 5);
	assert_int_equal(render_kind(&t, LDB_OP_EXTENDED, 5, got, sizeof got, 1), (long)m);
	assert_memory_equal(got, want, m);
	done(&t);

	OK(&t, "--whoami");
	m = ldb_wire_put_extended(want, sizeof want, 6, "1.3.6.1.4.1.4203.1.11.3", 23, NULL, 0);
	assert_int_equal(render_kind(&t, LDB_OP_WHOAMI, 6, got, sizeof got, 1), (long)m);
	assert_memory_equal(got, want, m);
	done(&t);
}

/* abandon: the search's request, then an AbandonRequest of its id under a
 * second id, byte for byte what liblber encodes. */
static void test_abandon_render(void **state)
{
	struct run t;
	struct ldb_ops_run o;
	struct ldb_rng rng;
	bool used[LDB_OP_COUNT] = { [LDB_OP_ABANDON] = true };
	char err[256];
	uint8_t got[1024], search[1024];
	static const int32_t ids[][2] = { { 7, 8 }, { 127, 128 }, { 300, 70000 }, { 0x7fffffef, 0x12345678 } };

	(void)state;
	OK(&t, "-e", "abandon,random", "-f", "uid=uXXX", "-r", "1", "-R", "999");
	assert_int_equal(ldb_ops_prepare(&o, &t.c, used, err, sizeof err), 0);
	assert_non_null(o.search.t); /* abandon builds the search's template itself */
	assert_true(o.room[LDB_OP_ABANDON] > o.search.maxlen);
	ldb_rng_seed(&rng, 1, 0);
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		struct ldb_op_req r = { &o, NULL, &rng, 42, 0, ids[i][0], ids[i][1] };
		long n = ldb_ops[LDB_OP_ABANDON]->render(&r, got, sizeof got);
		long ns = ldb_op_search.render(&r, search, sizeof search);
		assert_true(ns > 0 && n > ns);
		assert_memory_equal(got, search, (size_t)ns);

		BerElement *ber = ber_alloc_t(LBER_USE_DER);
		struct berval *bv = NULL;
		assert_true(ber_printf(ber, "{iti}", (ber_int_t)ids[i][1], (ber_tag_t)LDAP_REQ_ABANDON,
		                       (ber_int_t)ids[i][0]) >= 0);
		assert_int_equal(ber_flatten(ber, &bv), 0);
		assert_int_equal((size_t)(n - ns), bv->bv_len);
		assert_memory_equal(got + ns, bv->bv_val, bv->bv_len);
		ber_bvfree(bv);
		ber_free(ber, 1);
		/* no room for the abandon: nothing */
		assert_int_equal(ldb_ops[LDB_OP_ABANDON]->render(&r, got, (size_t)ns + 2), 0);
	}
	ldb_ops_free(&o);
	done(&t);

	/* its checks */
	assert_int_equal(PARSE(&t, "-e", "abandon"), LDB_CLI_ERROR);
	assert_string_equal(t.err, "ldbench: -e abandon needs a filter (-f): it abandons a search");
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "abandon,bindeach", "-f", "uid=u"), LDB_CLI_ERROR);
	assert_string_equal(t.err,
	                    "ldbench: -e abandon and -e bindeach exclude each other: nothing answers an abandon");
	done(&t);
}

/* The add's missing parents: dc= is a dcObject and an organization. */
static void test_parent_shapes(void **state)
{
	static const char dn[] = "uid=u1,ou=people,dc=example,dc=com";
	uint8_t got[512], want[512];

	(void)state;
	struct ldb_put_value ou[] = { { "objectClass", "top", 3 },
		                      { "objectClass", "organizationalUnit", 18 },
		                      { "ou", "people", 6 } };
	size_t n = ldb_add_render_parent(dn, strlen(dn), 1, 3, got, sizeof got);
	size_t m = ldb_wire_put_add(want, sizeof want, 3, "ou=people,dc=example,dc=com", 27, ou, 3);
	assert_true(n > 0);
	assert_int_equal(n, m);
	assert_memory_equal(got, want, m);

	struct ldb_put_value dc[] = { { "objectClass", "top", 3 },
		                      { "objectClass", "dcObject", 8 },
		                      { "objectClass", "organization", 12 },
		                      { "dc", "example", 7 },
		                      { "o", "example", 7 } };
	n = ldb_add_render_parent(dn, strlen(dn), 2, 4, got, sizeof got);
	m = ldb_wire_put_add(want, sizeof want, 4, "dc=example,dc=com", 17, dc, 5);
	assert_int_equal(n, m);
	assert_memory_equal(got, want, m);
	/* past the top, or an RDN type it cannot make */
	assert_int_equal(ldb_add_render_parent(dn, strlen(dn), 4, 5, got, sizeof got), 0);
	assert_int_equal(ldb_add_render_parent("uid=a,x=b", 9, 1, 5, got, sizeof got), 0);
}

/* The rows that name a kind for the rest of the program: the readers'
 * search, the bind that opens connections, the default, what each changes. */
static void test_roles_from_rows(void **state)
{
	(void)state;
	assert_int_equal(LDB_OPS_WITH(reads), LDB_OP_SEARCH);
	assert_int_equal(LDB_OPS_WITH(connect_bind), LDB_OP_BIND);
	assert_int_equal(LDB_OPS_WITH(fallback), LDB_OP_SEARCH);
	assert_int_equal(LDB_OPS_WITH(pair), LDB_OP_RENAME);
	assert_int_equal(LDB_OPS_WITH(fatal), LDB_OP_BIND);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		bool write = k == LDB_OP_ADD || k == LDB_OP_MODIFY || k == LDB_OP_DELETE || k == LDB_OP_RENAME;
		assert_int_equal(ldb_ops[k]->changes != LDB_CHANGES_NOTHING, write);
		assert_int_equal(ldb_ops[k]->repl_looks != NULL, write); /* -S sees every change */
		assert_int_equal(ldb_ops[k]->repl_carry != NULL, ldb_ops[k]->repl_carries != NULL);
	}
	assert_int_equal(ldb_ops[LDB_OP_MODIFY]->changes, LDB_CHANGES_VALUES);
	assert_string_equal(ldb_ops[LDB_OP_BIND]->snmp_also, "strongauthbinds");
}

/* ldclt's line for a failed request, in each kind's words. */
static void test_error_lines(void **state)
{
	struct ldb_config c;
	char out[256];
	(void)state;
	ldb_config_init(&c);
	free(c.bind_dn);
	c.bind_dn = strdup("cn=m");
	struct ldb_op_failure known = { &c, true, "cn=a,o=b", 8, "cn=z", 32, "No such object" };
	struct ldb_op_failure unknown = { &c, false, "", 0, "", 68, "Already exists" };
	ldb_ops[LDB_OP_ADD]->errline(&known, out, sizeof out);
	assert_string_equal(out, "Cannot add (cn=a,o=b), error=32 (No such object)");
	ldb_ops[LDB_OP_ADD]->errline(&unknown, out, sizeof out);
	assert_string_equal(out, "Cannot add(), error=68 (Already exists)");
	ldb_ops[LDB_OP_RENAME]->errline(&known, out, sizeof out);
	assert_string_equal(out, "Cannot rename (cn=a,o=b, cn=z, o=b), error=32 (No such object)");
	ldb_ops[LDB_OP_MODIFY]->errline(&unknown, out, sizeof out);
	assert_string_equal(out, "Cannot modify (), error=68 (Already exists)");
	ldb_ops[LDB_OP_BIND]->errline(&known, out, sizeof out);
	assert_string_equal(out, "Cannot ldap_simple_bind_s (cn=m, *), error=32 (No such object)");
	assert_null(ldb_ops[LDB_OP_COMPARE]->errline); /* "Cannot compare, ...": run/errlines.c */
	ldb_config_free(&c);
}

/* An option of a kind the run does not do names the kind it needs. */
static void test_strays(void **state)
{
	struct run t;
	(void)state;
	assert_int_equal(PARSE(&t, "-e", "bindonly,attrlist=cn", "-D", "cn=m", "-w", "x"), LDB_CLI_ERROR);
	assert_string_equal(t.err, "ldbench: -e attrlist needs -e esearch");
	done(&t);
	assert_int_equal(PARSE(&t, "-e", "esearch,person", "-f", "cn=u"), LDB_CLI_ERROR);
	assert_string_equal(t.err, "ldbench: -e person needs -e add (or genldif=FILE, or add in --mix)");
	done(&t);
	OK(&t, "-e", "esearch", "-f", "cn=u");
	char why[256] = "";
	assert_int_equal(ldb_ops_strays(&t.c, why, sizeof why), 0);
	t.c.withnewparent = true;
	assert_int_equal(ldb_ops_strays(&t.c, why, sizeof why), -1);
	assert_string_equal(why, "-e withnewparent needs -e rename");
	done(&t);
}

/* The flow slots' rows: each slot's flow row and steps where LDB_OP_FLOW_ROW
 * and LDB_OP_FLOW_STEP say, named "flow", "flow-b", ... until named; a
 * results file's flows adopted by name, a slot each, the ninth refused. */
static void test_flow_slots(void **state)
{
	char name[32];
	(void)state;
	assert_int_equal(LDB_OP_COUNT, LDB_OP_FLOW + LDB_FLOW_SLOTS * (1 + LDB_FLOW_STEPS));
	for (int sl = 0; sl < LDB_FLOW_SLOTS; sl++) {
		const struct ldb_opdesc *f = ldb_ops[LDB_OP_FLOW_ROW(sl)];
		assert_true(f->nsteps > 0 && f->asked_row != NULL);
		for (int i = 0; i < LDB_FLOW_STEPS; i++) {
			assert_int_equal(f->step_kind[i], LDB_OP_FLOW_STEP(sl, i));
			assert_int_equal(ldb_ops[LDB_OP_FLOW_STEP(sl, i)]->nsteps, 0);
		}
	}
	assert_string_equal(ldb_ops[LDB_OP_FLOW_ROW(1)]->name, "flow-b");
	assert_string_equal(ldb_ops[LDB_OP_FLOW_STEP(7, 2)]->name, "flow-h.3");
	for (int sl = 0; sl < LDB_FLOW_SLOTS; sl++) {
		snprintf(name, sizeof name, "ad%d", sl);
		assert_int_equal(ldb_flow_adopt_row(name), LDB_OP_FLOW_ROW(sl));
		snprintf(name, sizeof name, "ad%d.1.search", sl);
		assert_int_equal(ldb_flow_adopt_row(name), LDB_OP_FLOW_STEP(sl, 0));
		snprintf(name, sizeof name, "ad%d.2.bind", sl);
		assert_int_equal(ldb_flow_adopt_row(name), LDB_OP_FLOW_STEP(sl, 1));
		assert_string_equal(ldb_ops[LDB_OP_FLOW_STEP(sl, 1)]->name, name);
	}
	assert_int_equal(ldb_flow_adopt_row("ad3"), LDB_OP_FLOW_ROW(3)); /* a name adopted: its slot again */
	assert_int_equal(ldb_flow_adopt_row("ninth"), -1);
	assert_int_equal(ldb_flow_adopt_row("ninth.1.search"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_rows_filled),
		cmocka_unit_test(test_success_and_counteach),
		cmocka_unit_test(test_pass_from_e),
		cmocka_unit_test(test_weights_from_mix),
		cmocka_unit_test(test_render_through_row),
		cmocka_unit_test(test_extended_ops_render),
		cmocka_unit_test(test_parent_shapes),
		cmocka_unit_test(test_abandon_render),
		cmocka_unit_test(test_roles_from_rows),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_strays),
		cmocka_unit_test(test_flow_slots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
