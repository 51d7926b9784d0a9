/* Unit tests for the sampler's arithmetic (src/report/sampler.c): the difference
 * of two snapshots, samples over the time measured since the previous one,
 * the interval's latencies alone, the run's summary, "no activity", a restart
 * after warm-up, the run's last partial interval, and no nan when nothing has
 * been measured yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/sampler.h"
#include "report/settings.h"

#define S 1000000000ULL
#define MS 1000000ULL

/* What a reporter saw of the samples. */
struct seen {
	int n;
	struct ldb_sample last;
	uint64_t lat_count, lat_min, lat_max;
	bool lat_null[LDB_OP_COUNT];
};

static void on_sample(void *ctx, const struct ldb_sample *s)
{
	struct seen *v = ctx;
	v->n++;
	v->last = *s;
	const struct ldb_hist *h = s->lat[LDB_OP_SEARCH];
	v->lat_count = h ? ldb_hist_count(h) : 0;
	v->lat_min = h && ldb_hist_count(h) ? h->min : 0;
	v->lat_max = h ? h->max : 0;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		v->lat_null[k] = s->lat[k] == NULL;
	v->last.lat[LDB_OP_SEARCH] = NULL; /* not to be read after the call */
}

/* Two clients on one I/O thread, searches only. */
struct rig {
	struct ldb_config cfg;
	struct ldb_thread_stats *st[2];
	struct ldb_lat lat;
	struct ldb_lat *lats[1];
	char *buf;
	size_t len;
	FILE *out;
	struct ldb_outputs o;
	struct ldb_text text;
	struct seen seen;
	struct ldb_reporter rep;
	struct ldb_sampler smp;
};

static int rig_setup(void **state)
{
	struct rig *r = calloc(1, sizeof *r);
	assert_non_null(r);
	ldb_config_init(&r->cfg);
	r->cfg.interval_ms = 1000;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(posix_memalign((void **)&r->st[i], 64, sizeof *r->st[i]), 0);
		memset(r->st[i], 0, sizeof *r->st[i]);
	}
	assert_int_equal(ldb_hist_init(&r->lat.op[LDB_OP_SEARCH]), 0);
	r->lats[0] = &r->lat;
	r->out = open_memstream(&r->buf, &r->len);
	assert_non_null(r->out);
	ldb_outputs_of_config(&r->o, &r->cfg);
	r->text = (struct ldb_text){ .o = &r->o, .cfg = &r->cfg, .out = r->out, .pid = 7 };
	r->rep = (struct ldb_reporter){ .ctx = &r->seen, .sample = on_sample };
	struct ldb_sampler_src src = { .cfg = &r->cfg,
		                       .st = r->st,
		                       .n = 2,
		                       .lat = r->lats,
		                       .nlat = 1,
		                       .text = &r->text,
		                       .rep = &r->rep,
		                       .nrep = 1 };
	src.used[LDB_H_LAT][LDB_OP_SEARCH] = true;
	assert_int_equal(ldb_sampler_init(&r->smp, &src), 0);
	*state = r;
	return 0;
}

static int rig_teardown(void **state)
{
	struct rig *r = *state;
	ldb_sampler_free(&r->smp);
	ldb_hist_free(&r->lat.op[LDB_OP_SEARCH]);
	fclose(r->out);
	free(r->buf);
	free(r->st[0]);
	free(r->st[1]);
	ldb_config_free(&r->cfg);
	free(r);
	return 0;
}

/* Client i completes n searches of ns each (its counters; the I/O thread's histogram). */
static void searches(struct rig *r, int i, uint64_t n, uint64_t ns)
{
	struct ldb_thread_stats *st = r->st[i];
	ldb_add(&st->op[LDB_OP_SEARCH].attempted, n);
	ldb_add(&st->op[LDB_OP_SEARCH].completed, n);
	ldb_add(&st->op[LDB_OP_SEARCH].succeeded, n);
	ldb_add(&st->op[LDB_OP_SEARCH].counted, n);
	ldb_add(&st->counted, n);
	ldb_hist_record_n(&r->lat.op[LDB_OP_SEARCH], ns, n);
}

/* The text written so far. */
static const char *text(struct rig *r)
{
	fflush(r->out);
	return r->buf ? r->buf : "";
}

static void test_diff(void **state)
{
	(void)state;
	struct ldb_totals a, b, d;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.op[LDB_OP_SEARCH].attempted = 100;
	b.op[LDB_OP_SEARCH].attempted = 60;
	a.op[LDB_OP_BIND].codes[ldb_code_slot(49)] = 7;
	b.op[LDB_OP_BIND].codes[ldb_code_slot(49)] = 2;
	a.op[LDB_OP_ADD].fails[LDB_FAIL_TIMEOUT] = 3;
	a.op[LDB_OP_COMPARE].entries = 9;
	b.op[LDB_OP_COMPARE].entries = 9;
	a.counted = 50;
	b.counted = 20;
	a.connects = 8;
	b.connects = 5;
	a.reconnects = 2;
	a.setup_binds = 4;
	b.setup_binds = 1;
	a.tls_handshakes = 6;
	a.tls_resumed = 3;
	b.tls_resumed = 1;
	a.parents_created = 1;
	a.dead = 2;
	b.dead = 1;
	ldb_sampler_diff(&d, &a, &b);
	assert_int_equal(d.op[LDB_OP_SEARCH].attempted, 40);
	assert_int_equal(d.op[LDB_OP_BIND].codes[ldb_code_slot(49)], 5);
	assert_int_equal(d.op[LDB_OP_ADD].fails[LDB_FAIL_TIMEOUT], 3);
	assert_int_equal(d.op[LDB_OP_COMPARE].entries, 0);
	assert_int_equal(d.op[LDB_OP_SEARCH].completed, 0);
	assert_int_equal(d.counted, 30);
	assert_int_equal(d.connects, 3);
	assert_int_equal(d.reconnects, 2);
	assert_int_equal(d.setup_binds, 3);
	assert_int_equal(d.tls_handshakes, 6);
	assert_int_equal(d.tls_resumed, 2);
	assert_int_equal(d.parents_created, 1);
	assert_int_equal(d.dead, 2); /* a state, not a count */
}

static void test_rate(void **state)
{
	(void)state;
	assert_true(ldb_rate(10, 2.0) == 5.0);
	assert_true(ldb_rate(0, 2.0) == 0.0);
	assert_true(ldb_rate(10, 0.0) == 0.0);
	assert_true(ldb_rate(0, 0.0) == 0.0);
	assert_true(ldb_rate(10, -1.0) == 0.0);
}

static void test_samples(void **state)
{
	struct rig *r = *state;
	uint64_t t0 = 5 * S;
	ldb_sampler_start(&r->smp, t0);
	searches(r, 0, 10, 1 * MS);
	searches(r, 1, 5, 1 * MS);
	ldb_sampler_take(&r->smp, t0 + 2 * S);
	assert_int_equal(r->seen.n, 1);
	assert_int_equal(r->seen.last.index, 1);
	assert_true(r->seen.last.seconds == 2.0);
	assert_true(r->seen.last.t_end == 2.0);
	assert_int_equal(r->seen.last.counted, 15);
	assert_int_equal(r->seen.last.delta.op[LDB_OP_SEARCH].completed, 15);
	assert_int_equal(r->seen.last.threads, 2);
	assert_int_equal(r->seen.lat_count, 15);
	assert_true(r->seen.lat_null[LDB_OP_BIND]); /* a kind not in use */
	assert_non_null(strstr(text(r), "Average rate:    7.50/thr  (   7.50/sec), total:     15\n"));

	/* the next interval holds only what happened in it */
	searches(r, 0, 4, 3 * MS);
	ldb_sampler_take(&r->smp, t0 + 2 * S + 500 * MS);
	assert_int_equal(r->seen.last.index, 2);
	assert_true(r->seen.last.seconds == 0.5);
	assert_true(r->seen.last.t_end == 2.5);
	assert_int_equal(r->seen.last.counted, 4);
	assert_int_equal(r->seen.last.delta.op[LDB_OP_SEARCH].completed, 4);
	assert_int_equal(r->seen.lat_count, 4);
	assert_true(r->seen.lat_min >= 2990 * 1000 && r->seen.lat_min <= 3010 * 1000);
	assert_non_null(strstr(text(r), "(   8.00/sec), total:      4\n"));

	/* the whole run: everything since the start */
	struct ldb_summary sum;
	ldb_sampler_summary(&r->smp, t0 + 4 * S, &sum);
	assert_true(sum.seconds == 4.0);
	assert_int_equal(sum.counted, 19);
	assert_int_equal(sum.tot.op[LDB_OP_SEARCH].completed, 19);
	assert_int_equal(sum.threads, 2);
	assert_non_null(sum.lat[LDB_OP_SEARCH]);
	assert_int_equal(ldb_hist_count(sum.lat[LDB_OP_SEARCH]), 19);
	assert_null(sum.lat[LDB_OP_BIND]);
	assert_null(sum.ulat[LDB_OP_SEARCH]);
	assert_null(sum.stage[LDB_STAGE_CONNECT]);
	assert_true(ldb_rate(sum.counted, sum.seconds) == 4.75);
}

/* The run's last, partial interval: to the reporters only, with what came
 * after the last sample; nothing when that span is empty. */
static void test_final(void **state)
{
	struct rig *r = *state;
	ldb_sampler_start(&r->smp, 0);
	searches(r, 0, 6, 1 * MS);
	ldb_sampler_take(&r->smp, 1 * S);
	size_t len = strlen(text(r));
	ldb_sampler_final(&r->smp, 1 * S); /* an empty span: no record */
	assert_int_equal(r->seen.n, 1);
	searches(r, 1, 3, 2 * MS);
	ldb_sampler_final(&r->smp, 1 * S); /* no time, but results (a drain): a record */
	assert_int_equal(r->seen.n, 2);
	assert_true(r->seen.last.final);
	assert_int_equal(r->seen.last.index, 2);
	assert_true(r->seen.last.seconds == 0.0);
	assert_int_equal(r->seen.last.delta.op[LDB_OP_SEARCH].completed, 3);
	assert_int_equal(r->seen.lat_count, 3);
	assert_int_equal(strlen(text(r)), len); /* no text line */
	searches(r, 1, 2, 2 * MS);
	ldb_sampler_final(&r->smp, 1 * S + 250 * MS); /* a signal between two samples */
	assert_int_equal(r->seen.n, 3);
	assert_true(r->seen.last.seconds == 0.25);
	assert_int_equal(r->seen.last.counted, 2);
	struct ldb_summary sum;
	ldb_sampler_summary(&r->smp, 1 * S + 250 * MS, &sum);
	assert_int_equal(sum.counted, 6 + 3 + 2); /* the intervals add up to it */
	assert_int_equal(ldb_hist_count(sum.lat[LDB_OP_SEARCH]), 11);
}

/* Nothing measured yet: no time, no operation; every figure 0, never nan. */
static void test_no_sample_yet(void **state)
{
	struct rig *r = *state;
	ldb_sampler_start(&r->smp, 3 * S);
	struct ldb_summary sum;
	ldb_sampler_summary(&r->smp, 3 * S, &sum);
	assert_true(sum.seconds == 0.0);
	assert_int_equal(sum.counted, 0);
	assert_true(ldb_rate(sum.counted, sum.seconds) == 0.0);
	assert_int_equal(ldb_hist_count(sum.lat[LDB_OP_SEARCH]), 0);
	ldb_text_summary(&r->text, &sum);
	/* a sample of no time, and one whose clock was read before the start */
	ldb_sampler_take(&r->smp, 3 * S);
	assert_true(r->seen.last.seconds == 0.0);
	ldb_sampler_take(&r->smp, 2 * S);
	assert_true(r->seen.last.seconds == 0.0);
	assert_true(r->seen.last.t_end == 0.0);
	ldb_sampler_summary(&r->smp, 1 * S, &sum);
	assert_true(sum.seconds == 0.0);
	assert_int_equal(r->seen.n, 2);
	assert_non_null(strstr(text(r), "(   0.00/sec), total:      0\n"));
	assert_null(strstr(text(r), "nan"));
}

/* ldclt's "no activity": a client whose count has not moved for
 * inactivity + 1 samples, then again every inactivity + 1; not a dead one. */
static void test_no_activity(void **state)
{
	struct rig *r = *state;
	r->cfg.inactivity = 1;
	r->smp.active[0] = r->smp.active[1] = 2; /* as ldb_sampler_init sets them for -i */
	ldb_sampler_start(&r->smp, 0);
	for (int i = 1; i <= 4; i++) {
		searches(r, 0, 1, MS);
		ldb_sampler_take(&r->smp, (uint64_t)i * S);
	}
	assert_int_equal(r->smp.no_activity, 2);
	assert_int_equal(r->smp.inact_tot[1], 2);
	assert_int_equal(r->smp.inact_tot[0], 0);
	assert_non_null(strstr(text(r), "T001: No activity for 2 seconds --     1 in row, total     1\n"));
	assert_non_null(strstr(text(r), "T001: No activity for 2 seconds --     2 in row, total     2\n"));
	assert_null(strstr(text(r), "T000: No activity"));
	/* client 1 moves: the row starts again; then it dies: no more reports */
	searches(r, 1, 1, MS);
	ldb_sampler_take(&r->smp, 5 * S);
	assert_int_equal(r->smp.inact_row[1], 0);
	__atomic_store_n(&r->st[1]->dead, 1, __ATOMIC_RELEASE);
	for (int i = 6; i <= 9; i++) {
		searches(r, 0, 1, MS);
		ldb_sampler_take(&r->smp, (uint64_t)i * S);
	}
	assert_int_equal(r->smp.no_activity, 2);
}

/* After warm-up the clients restart from zero and so does the sampler. */
static void test_restart(void **state)
{
	struct rig *r = *state;
	ldb_sampler_start(&r->smp, 0);
	searches(r, 0, 100, 9 * MS);
	ldb_sampler_take(&r->smp, 1 * S);
	assert_int_equal(r->seen.last.counted, 100);
	/* what a client does when measurement starts */
	memset(r->st[0]->op, 0, sizeof r->st[0]->op);
	r->st[0]->counted = 0;
	ldb_lat_reset(&r->lat);
	ldb_sampler_start(&r->smp, 10 * S);
	searches(r, 0, 6, 2 * MS);
	ldb_sampler_take(&r->smp, 12 * S);
	assert_true(r->seen.last.seconds == 2.0);
	assert_true(r->seen.last.t_end == 2.0);
	assert_int_equal(r->seen.last.counted, 6);
	assert_int_equal(r->seen.lat_count, 6);
	assert_true(r->seen.lat_max < 3 * MS);
	struct ldb_summary sum;
	ldb_sampler_summary(&r->smp, 13 * S, &sum);
	assert_true(sum.seconds == 3.0);
	assert_int_equal(sum.counted, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_rate),
		cmocka_unit_test_setup_teardown(test_samples, rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_no_sample_yet, rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_no_activity, rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_restart, rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_final, rig_setup, rig_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
