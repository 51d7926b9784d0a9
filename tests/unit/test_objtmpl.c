/* objtmpl: ldclt's entry templates.  Exact renders with a seeded generator,
 * INCRN sequences per cursor and shared (also from two threads at once),
 * back-references, the *FROMFILE kinds, every compile error, the scratch bound,
 * and ldclt's canonical populate template. */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "values/objtmpl.h"
#include "values/pattern.h"
#include "values/rng.h"
#include "proto/wire.h"

static char dir[64];
static char scratch[1 << 16];

static int group_setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_objtmpl.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write text to dir/name; @return the path (in a ring of 8 static buffers:
 * copy it to keep it longer). */
static const char *put_file(const char *name, const char *text)
{
	static char paths[8][256];
	static int k;
	char *p = paths[k++ % 8];
	FILE *f;

	snprintf(p, 256, "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

static struct ldb_objtmpl *compile_ok(const char *path, const char *rdn, bool common)
{
	struct ldb_objtmpl *t = NULL;
	char err[512];

	if (ldb_objtmpl_compile(&t, path, rdn, common, err, sizeof(err)) != 0)
		fail_msg("compile failed: %s", err);
	assert_non_null(t);
	assert_true(ldb_objtmpl_max_size(t) <= sizeof(scratch));
	return t;
}

static int render(const struct ldb_objtmpl *t, struct ldb_objtmpl_cursor *c, struct ldb_rng *r, struct ldb_obj_entry *e)
{
	return ldb_objtmpl_render(t, c, r, scratch, sizeof(scratch), e);
}

static void assert_value(const struct ldb_obj_entry *e, int i, const char *type, const char *val)
{
	assert_true(i < e->n);
	assert_string_equal(e->v[i].type, type);
	assert_int_equal(e->v[i].len, strlen(val));
	assert_memory_equal(e->v[i].val, val, strlen(val));
}

/* ---- the canonical populate template ---- */

static void populate(bool common)
{
	const char *path = put_file("populate.tmpl", "# ldclt populate\n"
	                                             "objectclass: inetOrgPerson\n"
	                                             "\n"
	                                             "sn: [A]\n"
	                                             "cn: user [A]\n"
	                                             "uid: user[A]\n"
	                                             "objectclass: organizationalPerson\n");
	struct ldb_objtmpl *t = compile_ok(path, "uid:user[A=INCRNNOLOOP(1000;1999;4)]", common);
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	char want[64];
	int i;

	ldb_objtmpl_cursor_init(t, &c);
	for (i = 1000; i <= 1999; i++) {
		assert_int_equal(render(t, &c, NULL, &e), 1);
		snprintf(want, sizeof(want), "uid=user%d", i);
		assert_string_equal(e.rdn, want);
		assert_int_equal(e.rdn_len, strlen(want));
		assert_int_equal(e.n, 5);
		assert_value(&e, 0, "objectclass", "inetOrgPerson");
		snprintf(want, sizeof(want), "%d", i);
		assert_value(&e, 1, "sn", want);
		snprintf(want, sizeof(want), "user %d", i);
		assert_value(&e, 2, "cn", want);
		snprintf(want, sizeof(want), "user%d", i);
		assert_value(&e, 3, "uid", want);
		assert_value(&e, 4, "objectclass", "organizationalPerson");
	}
	assert_int_equal(render(t, &c, NULL, &e), 0);
	assert_int_equal(render(t, &c, NULL, &e), 0);
	ldb_objtmpl_free(t);
}

static void test_populate_canonical(void **state)
{
	(void)state;
	populate(false);
	populate(true);
}

/* Types that differ only in case share the first spelling's pointer, and a
 * rendered entry makes the add request the start-up encoder makes for the
 * same entry grouped by hand. */
static void test_types_and_add(void **state)
{
	const char *path = put_file("types.tmpl", "objectClass: top\n"
	                                          "cn: c[A]\n"
	                                          "OBJECTCLASS: person\n"
	                                          "sn: s[A]\n"
	                                          "objectclass: inetOrgPerson\n");
	struct ldb_objtmpl *t = compile_ok(path, "uid:u[A=INCRN(7;9;1)]", false);
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	struct ldb_put_value pv[LDB_OBJ_MAX_ATTRS];
	static const char *const oc[] = { "top", "person", "inetOrgPerson", NULL };
	static const char *const cn[] = { "c7", NULL }, *const sn[] = { "s7", NULL };
	struct ldb_attr_values av[] = { { "objectClass", oc }, { "cn", cn }, { "sn", sn } };
	struct ldb_bytes op = { 0 };
	uint8_t a[512], b[512];
	size_t na, nb;
	int i;

	(void)state;
	ldb_objtmpl_cursor_init(t, &c);
	assert_int_equal(render(t, &c, NULL, &e), 1);
	assert_string_equal(e.rdn, "uid=u7");
	assert_int_equal(e.n, 5);
	assert_ptr_equal(e.v[2].type, e.v[0].type);
	assert_ptr_equal(e.v[4].type, e.v[0].type);
	assert_string_equal(e.v[0].type, "objectClass");
	assert_ptr_not_equal(e.v[1].type, e.v[0].type);
	for (i = 0; i < e.n; i++) {
		pv[i].type = e.v[i].type;
		pv[i].val = e.v[i].val;
		pv[i].len = e.v[i].len;
	}
	na = ldb_wire_put_add(a, sizeof(a), 9, "uid=u7,o=x", 10, pv, e.n);
	assert_int_equal(ldb_wire_encode_add(&op, "uid=u7,o=x", av, 3, NULL), 0);
	nb = ldb_wire_frame(b, sizeof(b), 9, op.data, op.len);
	ldb_bytes_free(&op);
	assert_true(na > 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	ldb_objtmpl_free(t);
}

/* ---- INCRN sequences ---- */

static const char *rdn_value(const struct ldb_obj_entry *e)
{
	return strchr(e->rdn, '=') + 1;
}

static void test_incr_per_cursor(void **state)
{
	struct ldb_objtmpl *t;
	struct ldb_objtmpl_cursor c1, c2;
	struct ldb_obj_entry e;
	static const char *const loop[] = { "05", "06", "07", "08", "05", "06", "07", "08", "05" };
	int i;

	(void)state;
	/* INCRN: each cursor walks low..high and wraps, independently */
	t = compile_ok(NULL, "cn:[A=INCRN(5;8;2)]", false);
	ldb_objtmpl_cursor_init(t, &c1);
	ldb_objtmpl_cursor_init(t, &c2);
	for (i = 0; i < 9; i++) {
		assert_int_equal(render(t, &c1, NULL, &e), 1);
		assert_memory_equal(e.rdn, "cn=", 3);
		assert_string_equal(rdn_value(&e), loop[i]);
		assert_int_equal(e.n, 0);
		if (i % 2 == 0) {
			assert_int_equal(render(t, &c2, NULL, &e), 1);
			assert_string_equal(rdn_value(&e), loop[i / 2]);
		}
	}
	ldb_objtmpl_free(t);

	/* INCRNNOLOOP: each cursor gives low..high once, then 0 for good */
	t = compile_ok(NULL, "cn:[A=INCRNNOLOOP(5;8;2)]", false);
	ldb_objtmpl_cursor_init(t, &c1);
	ldb_objtmpl_cursor_init(t, &c2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(render(t, &c1, NULL, &e), 1);
		assert_string_equal(rdn_value(&e), loop[i]);
	}
	assert_int_equal(render(t, &c1, NULL, &e), 0);
	assert_int_equal(render(t, &c1, NULL, &e), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(render(t, &c2, NULL, &e), 1);
		assert_string_equal(rdn_value(&e), loop[i]);
	}
	assert_int_equal(render(t, &c2, NULL, &e), 0);
	ldb_objtmpl_free(t);

	/* a wide zero pad */
	t = compile_ok(NULL, "cn:x[A=INCRN(0;3;12)]y", false);
	ldb_objtmpl_cursor_init(t, &c1);
	assert_int_equal(render(t, &c1, NULL, &e), 1);
	assert_string_equal(e.rdn, "cn=x000000000000y");
	assert_int_equal(e.rdn_len, 17);
	ldb_objtmpl_free(t);
}

static void test_incr_common(void **state)
{
	struct ldb_objtmpl *t;
	struct ldb_objtmpl_cursor c1, c2;
	struct ldb_obj_entry e;
	static const char *const loop[] = { "05", "06", "07", "08", "05", "06" };
	int seen[4] = { 0 }, i;

	(void)state;
	/* INCRN shared: the cursors share one sequence that wraps */
	t = compile_ok(NULL, "cn:[A=INCRN(5;8;2)]", true);
	ldb_objtmpl_cursor_init(t, &c1);
	ldb_objtmpl_cursor_init(t, &c2);
	for (i = 0; i < 6; i++) {
		assert_int_equal(render(t, i % 3 ? &c1 : &c2, NULL, &e), 1);
		assert_string_equal(rdn_value(&e), loop[i]);
	}
	ldb_objtmpl_free(t);

	/* INCRNNOLOOP shared: each value exactly once over both cursors, then 0 */
	t = compile_ok(NULL, "cn:[A=INCRNNOLOOP(5;8;2)]", true);
	ldb_objtmpl_cursor_init(t, &c1);
	ldb_objtmpl_cursor_init(t, &c2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(render(t, i % 2 ? &c1 : &c2, NULL, &e), 1);
		seen[atoi(rdn_value(&e)) - 5]++;
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(render(t, &c1, NULL, &e), 0);
	assert_int_equal(render(t, &c2, NULL, &e), 0);
	ldb_objtmpl_free(t);
}

#define NTHREAD_VALUES 200000

struct thr {
	const struct ldb_objtmpl *t;
	unsigned char *seen; /* own array: merged after the join */
	char *scratch;
	int count;
	pthread_barrier_t *start;
};

static void *thr_body(void *arg)
{
	struct thr *a = arg;
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	int rc;

	ldb_objtmpl_cursor_init(a->t, &c);
	pthread_barrier_wait(a->start); /* both threads draw at the same time */
	while ((rc = ldb_objtmpl_render(a->t, &c, NULL, a->scratch, 256, &e)) == 1) {
		long v = strtol(e.v[0].val, NULL, 10);

		if (v >= 0 && v < NTHREAD_VALUES && e.v[0].len == 6)
			a->seen[v]++;
		a->count++;
	}
	return rc == 0 ? a : NULL;
}

static void test_incr_common_threads(void **state)
{
	const char *path = put_file("threads.tmpl", "employeeNumber: [A=INCRNNOLOOP(0;199999;6)]\n");
	struct ldb_objtmpl *t = compile_ok(path, NULL, true);
	struct thr a[2];
	pthread_t th[2];
	pthread_barrier_t start;
	void *ret;
	int i, k, total = 0;

	(void)state;
	assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
	for (k = 0; k < 2; k++) {
		a[k].start = &start;
		a[k].t = t;
		a[k].seen = calloc(NTHREAD_VALUES, 1);
		a[k].scratch = malloc(256);
		a[k].count = 0;
		assert_non_null(a[k].seen);
		assert_non_null(a[k].scratch);
	}
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, thr_body, &a[k]), 0);
	for (k = 0; k < 2; k++) {
		assert_int_equal(pthread_join(th[k], &ret), 0);
		assert_ptr_equal(ret, &a[k]);
		total += a[k].count;
	}
	assert_int_equal(total, NTHREAD_VALUES);
	for (i = 0; i < NTHREAD_VALUES; i++)
		if (a[0].seen[i] + a[1].seen[i] != 1)
			fail_msg("value %d rendered %d times", i, a[0].seen[i] + a[1].seen[i]);
	for (k = 0; k < 2; k++) {
		free(a[k].seen);
		free(a[k].scratch);
	}
	pthread_barrier_destroy(&start);
	ldb_objtmpl_free(t);
}

/* ---- random kinds with a seeded generator, back-references ---- */

static void test_random_exact(void **state)
{
	const char *path = put_file("rnd.tmpl", "employeeNumber: [B]\n"
	                                        "description: <[C=RNDS(7)]>\n"
	                                        "displayName: [C]/[B]/[C]\n");
	struct ldb_objtmpl *t = compile_ok(path, "cn:n[B=RNDN(10;20;3)]", false);
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	struct ldb_rng r, mirror;
	int i, k, hits[11] = { 0 };
	char want[64], s7[8];

	(void)state;
	ldb_rng_seed(&r, 42, 3);
	ldb_rng_seed(&mirror, 42, 3);
	ldb_objtmpl_cursor_init(t, &c);
	for (i = 0; i < 2000; i++) {
		int64_t n;

		assert_int_equal(render(t, &c, &r, &e), 1);
		/* the same draws in the same order: RNDN one ranged draw, RNDS
		 * ldb_put_printable's (values/pattern) */
		n = ldb_rng_range(&mirror, 10, 20);
		ldb_put_printable(s7, 7, &mirror);
		s7[7] = '\0';
		snprintf(want, sizeof(want), "cn=n%03d", (int)n);
		assert_string_equal(e.rdn, want);
		snprintf(want, sizeof(want), "%03d", (int)n);
		assert_value(&e, 0, "employeeNumber", want);
		snprintf(want, sizeof(want), "<%s>", s7);
		assert_value(&e, 1, "description", want);
		snprintf(want, sizeof(want), "%s/%03d/%s", s7, (int)n, s7);
		assert_value(&e, 2, "displayName", want);
		for (k = 0; k < 7; k++)
			assert_true(s7[k] > ' ' && s7[k] < 0x7f && strchr("\"#()*+,;<=>\\", s7[k]) == NULL);
		hits[n - 10]++;
	}
	for (k = 0; k < 11; k++)
		assert_true(hits[k] > 100); /* about 182 each */

	/* a random kind needs a generator */
	assert_int_equal(render(t, &c, NULL, &e), -1);
	ldb_objtmpl_free(t);

	/* the same seed renders the same, another seed differently */
	{
		struct ldb_objtmpl *t2 = compile_ok(NULL, "cn:[D=RNDS(16)]", false);
		char a[32], b[32];

		ldb_objtmpl_cursor_init(t2, &c);
		ldb_rng_seed(&r, 7, 0);
		assert_int_equal(render(t2, &c, &r, &e), 1);
		assert_int_equal(e.rdn_len, 19);
		strcpy(a, e.rdn);
		ldb_rng_seed(&r, 7, 0);
		assert_int_equal(render(t2, &c, &r, &e), 1);
		assert_string_equal(e.rdn, a);
		ldb_rng_seed(&r, 8, 0);
		assert_int_equal(render(t2, &c, &r, &e), 1);
		strcpy(b, e.rdn);
		assert_string_not_equal(a, b);
		ldb_objtmpl_free(t2);
	}
}

/* ---- *FROMFILE ---- */

static void test_fromfile(void **state)
{
	const char *data = put_file("names.txt", "alpha\nbeta\r\n\n  \ngamma"); /* no final newline */
	char tmpl[1024];
	const char *path;
	struct ldb_objtmpl *t;
	struct ldb_objtmpl_cursor c, c2;
	struct ldb_obj_entry e;
	struct ldb_rng r;
	static const char *const seq[] = { "alpha", "beta", "  ", "gamma" };
	int i, hits[4] = { 0 };

	(void)state;
	snprintf(tmpl, sizeof(tmpl), "cn: [A=INCRFROMFILE(%s)]\nsn: x[A]\n", data);
	path = put_file("incrfile.tmpl", tmpl);
	t = compile_ok(path, NULL, false);
	ldb_objtmpl_cursor_init(t, &c);
	for (i = 0; i < 9; i++) {
		char want[16];

		assert_int_equal(render(t, &c, NULL, &e), 1);
		assert_value(&e, 0, "cn", seq[i % 4]);
		snprintf(want, sizeof(want), "x%s", seq[i % 4]);
		assert_value(&e, 1, "sn", want);
	}
	ldb_objtmpl_free(t);

	/* NOLOOP, per cursor and shared */
	snprintf(tmpl, sizeof(tmpl), "cn: [A=INCRFROMFILENOLOOP(%s)]\n", data);
	path = put_file("incrfilenoloop.tmpl", tmpl);
	t = compile_ok(path, NULL, false);
	ldb_objtmpl_cursor_init(t, &c);
	for (i = 0; i < 4; i++) {
		assert_int_equal(render(t, &c, NULL, &e), 1);
		assert_value(&e, 0, "cn", seq[i]);
	}
	assert_int_equal(render(t, &c, NULL, &e), 0);
	ldb_objtmpl_free(t);
	t = compile_ok(path, NULL, true);
	ldb_objtmpl_cursor_init(t, &c);
	ldb_objtmpl_cursor_init(t, &c2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(render(t, i % 2 ? &c : &c2, NULL, &e), 1);
		assert_value(&e, 0, "cn", seq[i]);
	}
	assert_int_equal(render(t, &c, NULL, &e), 0);
	assert_int_equal(render(t, &c2, NULL, &e), 0);
	ldb_objtmpl_free(t);

	/* RNDFROMFILE: every line, nothing else */
	snprintf(tmpl, sizeof(tmpl), "cn: [A=RNDFROMFILE(%s)]\n", data);
	path = put_file("rndfile.tmpl", tmpl);
	t = compile_ok(path, NULL, false);
	assert_int_equal(ldb_objtmpl_max_size(t), 6); /* "alpha" + NUL */
	ldb_objtmpl_cursor_init(t, &c);
	ldb_rng_seed(&r, 1, 1);
	for (i = 0; i < 400; i++) {
		int k, found = 0;

		assert_int_equal(render(t, &c, &r, &e), 1);
		for (k = 0; k < 4; k++)
			if (e.v[0].len == strlen(seq[k]) && memcmp(e.v[0].val, seq[k], e.v[0].len) == 0) {
				hits[k]++;
				found = 1;
			}
		assert_true(found);
	}
	for (i = 0; i < 4; i++)
		assert_true(hits[i] > 50);
	ldb_objtmpl_free(t);
}

/* ---- the scratch bound ---- */

static void test_max_size(void **state)
{
	const char *data = put_file("long.txt", "a\nbbbbbbbbbbbbbbbbbbbb\nccc\n");
	char tmpl[512];
	const char *path;
	struct ldb_objtmpl *t;
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	struct ldb_rng r;
	size_t max;
	char *buf;
	int i;

	(void)state;
	snprintf(tmpl, sizeof(tmpl), "cn: [A=INCRFROMFILE(%s)]-[B=RNDS(5)]\nsn: [A][A]\nmail: [C=RNDN(0;9;2)]@x\n",
	         data);
	path = put_file("max.tmpl", tmpl);
	t = compile_ok(path, "uid:u[D=INCRN(0;99;3)]", false);
	max = ldb_objtmpl_max_size(t);
	/* uid=u + 3 + NUL, cn 20 + 1 + 5 + NUL, sn 40 + NUL, mail 2 + 2 + NUL */
	assert_int_equal(max, 9 + 27 + 41 + 5);
	buf = malloc(max);
	assert_non_null(buf);
	ldb_objtmpl_cursor_init(t, &c);
	ldb_rng_seed(&r, 3, 0);
	/* one byte short: refused before anything is consumed */
	assert_int_equal(ldb_objtmpl_render(t, &c, &r, buf, max - 1, &e), -1);
	for (i = 0; i < 6; i++) {
		size_t used;

		memset(buf, 0, max);
		assert_int_equal(ldb_objtmpl_render(t, &c, &r, buf, max, &e), 1);
		used = (size_t)(e.v[2].val + e.v[2].len + 1 - buf);
		assert_true(used <= max);
		if (i % 3 == 1)
			assert_int_equal(used, max); /* the 20-byte line fills it exactly */
		assert_int_equal(e.v[1].len, 2 * (e.v[0].len - 6));
	}
	/* the first render was refused: the rdn counter starts at 000 */
	ldb_objtmpl_cursor_init(t, &c);
	assert_int_equal(ldb_objtmpl_render(t, &c, &r, buf, max - 1, &e), -1);
	assert_int_equal(ldb_objtmpl_render(t, &c, &r, buf, max, &e), 1);
	assert_string_equal(e.rdn, "uid=u000");
	free(buf);
	ldb_objtmpl_free(t);
}

/* ---- compile errors ---- */

/* ---- value patterns (UnboundID's syntax) as attribute values ---- */

static void test_value_patterns(void **state)
{
	const char *path = put_file("vp.tmpl", "objectclass: inetOrgPerson\n"
	                                       "sn: [A=INCRN(1;9;2)]\n"
	                                       "description: emp [1:6%000]\n"
	                                       "mail: [random:4:ab]@example.com\n"
	                                       "cn: u[5-7] [[x]]\n"
	                                       "title: [[literal]]\n");
	struct ldb_objtmpl *t = compile_ok(path, "uid:u[100:1]", false);
	struct ldb_objtmpl_cursor c[2];
	struct ldb_obj_entry e;
	struct ldb_rng r;
	char err[256], want[32];
	int i, k;

	(void)state;
	ldb_rng_seed(&r, 7, 0);
	/* a cursor without states cannot render a pattern line */
	ldb_objtmpl_cursor_init(t, &c[0]);
	assert_int_equal(render(t, &c[0], &r, &e), -1);
	/* two clients share the sequences out, interleaved */
	for (k = 0; k < 2; k++)
		if (ldb_objtmpl_cursor_open(t, &c[k], (unsigned)k, 2, err, sizeof(err)) != 0)
			fail_msg("cursor_open: %s", err);
	for (i = 0; i < 6; i++) {
		k = i % 2;
		assert_int_equal(render(t, &c[k], &r, &e), 1);
		snprintf(want, sizeof(want), "uid=u%d", 100 - i);
		assert_int_equal(e.rdn_len, strlen(want));
		assert_memory_equal(e.rdn, want, strlen(want));
		assert_int_equal(e.n, 6);
		assert_value(&e, 0, "objectclass", "inetOrgPerson");
		snprintf(want, sizeof(want), "%02d", i / 2 + 1); /* ldclt's INCRN: per cursor */
		assert_value(&e, 1, "sn", want);
		snprintf(want, sizeof(want), "emp %03d", i + 1);
		assert_value(&e, 2, "description", want);
		assert_int_equal(e.v[3].len, 4 + strlen("@example.com"));
		assert_memory_equal(e.v[3].val + 4, "@example.com", strlen("@example.com"));
		for (int j = 0; j < 4; j++)
			assert_true(e.v[3].val[j] == 'a' || e.v[3].val[j] == 'b');
		assert_int_equal(e.v[4].len, strlen("u5 [x]"));
		assert_true(e.v[4].val[1] >= '5' && e.v[4].val[1] <= '7');
		assert_memory_equal(e.v[4].val + 2, " [x]", 4);
		assert_value(&e, 5, "title", "[literal]");
	}
	/* the sequence wraps: client 0's next is 1 again after 1, 3, 5 */
	assert_int_equal(render(t, &c[0], &r, &e), 1);
	assert_value(&e, 2, "description", "emp 001");
	for (k = 0; k < 2; k++)
		ldb_objtmpl_cursor_close(&c[k]);
	ldb_objtmpl_free(t);
}

/* a [streamfile:] line: its lines in order, read ahead by _prefetch */
static void test_value_pattern_stream(void **state)
{
	char lines[256], text[512], err[256];
	struct ldb_objtmpl *t;
	struct ldb_objtmpl_cursor c;
	struct ldb_obj_entry e;
	struct ldb_rng r;

	(void)state;
	snprintf(lines, sizeof(lines), "%s", put_file("lines.txt", "one\ntwo\nthree\n"));
	snprintf(text, sizeof(text), "cn: x\ndescription: [streamfile:%s]!\n", lines);
	t = compile_ok(put_file("stream.tmpl", text), NULL, false);
	assert_true(ldb_objtmpl_streams(t));
	ldb_rng_seed(&r, 1, 0);
	if (ldb_objtmpl_cursor_open(t, &c, 0, 1, err, sizeof(err)) != 0)
		fail_msg("cursor_open: %s", err);
	ldb_objtmpl_prefetch(t, &c);
	for (int i = 0; i < 4; i++) {
		static const char *const want[] = { "one!", "two!", "three!", "one!" };

		assert_int_equal(render(t, &c, &r, &e), 1);
		assert_value(&e, 1, "description", want[i]);
		ldb_objtmpl_prefetch(t, &c);
	}
	ldb_objtmpl_cursor_close(&c);
	ldb_objtmpl_free(t);
}

/* Compiling must fail with exactly one line that starts with prefix and
 * holds what. */
static void expect_error(const char *path, const char *rdn, const char *prefix, const char *what)
{
	struct ldb_objtmpl *t = (struct ldb_objtmpl *)&t;
	char err[512];

	memset(err, 'z', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	if (ldb_objtmpl_compile(&t, path, rdn, false, err, sizeof(err)) != -1)
		fail_msg("compiled, wanted an error with %s", what);
	assert_null(t);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || strstr(err, what) == NULL)
		fail_msg("error '%s', wanted '%s' ... '%s'", err, prefix, what);
	assert_null(strchr(err, '\n'));
}

static void bad_line(const char *text, unsigned line, const char *what)
{
	const char *path = put_file("bad.tmpl", text);
	char prefix[300];

	snprintf(prefix, sizeof(prefix), "object file %s line %u: ", path, line);
	expect_error(path, NULL, prefix, what);
}

static void test_errors(void **state)
{
	char empty[256], text[4096], prefix[300];
	const char *path;
	int i;

	(void)state;
	snprintf(empty, sizeof(empty), "%s", put_file("empty.txt", "\n\n\r\n"));
	bad_line("cn: x\nsn: [A=FOO(1)]\n", 2, "unknown kind");
	bad_line("cn: [A=rndn(1;2;1)]\n", 1, "unknown kind");
	bad_line("# c\n\ncn: [A=RNDN(1;x;3)]\n", 3, "bad number");
	bad_line("cn: [A=RNDN(-1;5;3)]\n", 1, "bad number");
	bad_line("cn: [A=RNDN(1;5;)]\n", 1, "bad number");
	bad_line("cn: [A=INCRN(1;2)]\n", 1, "expected (low;high;ndigits)");
	bad_line("cn: [A=INCRN(1;2;3;4)]\n", 1, "too many arguments");
	bad_line("cn: [A=INCRN(1;1234567890123456789;19)]\n", 1, "bad number");
	bad_line("cn: [A=RNDS(0)]\n", 1, "RNDS(length)");
	bad_line("cn: [A=RNDS(abc)]\n", 1, "RNDS(length)");
	bad_line("cn: [A=INCRN(9;1;3)]\n", 1, "low 9 > high 1");
	bad_line("cn: [A=INCRNNOLOOP(0;1000;3)]\n", 1, "3 digits cannot hold 1000");
	bad_line("cn: [A=RNDN(0;9;0)]\n", 1, "0 digits cannot hold 9");
	bad_line("cn: [A=RNDN(0;9;65)]\n", 1, "ndigits");
	bad_line("sn: x\ncn: [C]\n", 2, "[C] used before");
	bad_line("cn: [A]x[A=RNDN(1;2;1)]\n", 1, "[A] used before");
	bad_line("cn: [A=RNDN(1;2;1)]\nsn: [A=RNDN(1;2;1)]\n", 2, "variable A defined twice");
	bad_line("cn: [A=RNDN(1;2;1)][A=RNDS(2)]\n", 1, "variable A defined twice");
	bad_line("cn: [I]\n", 1, "A to H");
	bad_line("cn: [a=RNDN(1;2;1)]\n", 1, "A to H");
	bad_line("cn: [A=RNDN(1;2;1)\n", 1, "unterminated");
	bad_line("cn: [A=RNDN 1;2;1]\n", 1, "KIND(args)");
	bad_line("cn: [A+]\n", 1, "A to H");
	bad_line("cn: x\nno colon here\n", 2, "no ':'");
	bad_line(": x\n", 1, "bad attribute name");
	bad_line("c n: x\n", 1, "bad attribute name");
	bad_line("cn: [A=INCRFROMFILE(/nonexistent/ldbench/file)]\n", 1, "data file /nonexistent/ldbench/file");
	snprintf(text, sizeof(text), "cn: [A=RNDFROMFILE(%s)]\n", empty);
	bad_line(text, 1, "is empty");
	snprintf(text, sizeof(text), "cn: [A=INCRFROMFILENOLOOP(%s)]\n", dir); /* a directory cannot be read */
	bad_line(text, 1, "cannot read");
	bad_line("cn: [A=RNDFROMFILE()]\n", 1, "RNDFROMFILE(file)");
	/* value patterns: both forms in one value, a bad pattern, a missing file */
	bad_line("cn: x\nsn: [A=RNDN(1;2;1)] [1-5]\n", 2, "mixes ldclt's fields");
	bad_line("cn: u[B] [1:9]\n", 1, "mixes ldclt's fields");
	bad_line("cn: u[1-\n", 1, "unterminated bracket");
	bad_line("cn: u[nope:1]\n", 1, "unknown pattern");
	bad_line("cn: [file:/nonexistent/ldbench/file]\n", 1, "/nonexistent/ldbench/file");

	/* 41 attributes: the 41st (line 43, after a comment and a blank) is refused */
	text[0] = '\0';
	strcat(text, "# many\n\n");
	for (i = 0; i < 41; i++)
		sprintf(text + strlen(text), "description: %d\n", i);
	bad_line(text, 43, "more than 40 attributes");
	/* 40 are fine */
	text[0] = '\0';
	for (i = 0; i < 40; i++)
		sprintf(text + strlen(text), "description: %d\n", i);
	path = put_file("forty.tmpl", text);
	ldb_objtmpl_free(compile_ok(path, NULL, false));

	/* the file itself */
	snprintf(prefix, sizeof(prefix), "object file %s/missing.tmpl: ", dir);
	snprintf(text, sizeof(text), "%s/missing.tmpl", dir);
	expect_error(text, NULL, prefix, "No such file");
	path = put_file("comments.tmpl", "# only\n\n   \n");
	snprintf(prefix, sizeof(prefix), "object file %s: ", path);
	expect_error(path, NULL, prefix, "no attributes");

	/* the rdn spec */
	expect_error(NULL, "uid", "rdn=uid: ", "no ':'");
	expect_error(NULL, "uid:[A=NOPE(1)]", "rdn=uid:[A=NOPE(1)]: ", "unknown kind");
	expect_error(NULL, "uid:[B]", "rdn=uid:[B]: ", "[B] used before");
	expect_error(NULL, "uid:[1-", "rdn=uid:[1-: ", "unterminated bracket");
	expect_error(NULL, "uid:[A=RNDN(1;2;1)][1-2]", "rdn=uid:[A=RNDN(1;2;1)][1-2]: ", "mixes ldclt's fields");
	path = put_file("redef.tmpl", "cn: x\nsn: [A=RNDS(3)]\n");
	snprintf(prefix, sizeof(prefix), "object file %s line 2: ", path);
	expect_error(path, "uid:[A=INCRN(1;2;1)]", prefix, "variable A defined twice");
	expect_error(NULL, NULL, "object template", "no object file and no rdn");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_populate_canonical),
		cmocka_unit_test(test_types_and_add),
		cmocka_unit_test(test_incr_per_cursor),
		cmocka_unit_test(test_incr_common),
		cmocka_unit_test(test_incr_common_threads),
		cmocka_unit_test(test_random_exact),
		cmocka_unit_test(test_fromfile),
		cmocka_unit_test(test_max_size),
		cmocka_unit_test(test_value_patterns),
		cmocka_unit_test(test_value_pattern_stream),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
