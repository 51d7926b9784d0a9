/* Per-thread counters and their sums: see stats.h. */
#include "run/stats.h"

#include <string.h>
#include <sys/mman.h>

const char *ldb_stage_name(enum ldb_stage st)
{
	switch (st) {
	case LDB_STAGE_CONNECT: return "connect";
	case LDB_STAGE_CYCLE: return "cycle";
	case LDB_STAGE_TLS: return "tls";
	case LDB_STAGE_ROUND: return "round";
	default: return "?";
	}
}

void ldb_lat_reset(struct ldb_lat *lat)
{
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (lat->op[k].counts != NULL)
			ldb_hist_reset(&lat->op[k]);
		if (lat->uop[k].counts != NULL)
			ldb_hist_reset(&lat->uop[k]);
	}
	for (int k = 0; k < LDB_STAGE_COUNT; k++)
		if (lat->stage[k].counts != NULL)
			ldb_hist_reset(&lat->stage[k]);
	if (lat->lag.counts != NULL)
		ldb_hist_reset(&lat->lag);
}

static void add_opstats(struct ldb_opstats *dst, const struct ldb_opstats *src)
{
	dst->attempted += ldb_load(&src->attempted);
	dst->completed += ldb_load(&src->completed);
	dst->succeeded += ldb_load(&src->succeeded);
	dst->counted += ldb_load(&src->counted);
	dst->exp_hits += ldb_load(&src->exp_hits);
	dst->exp_misses += ldb_load(&src->exp_misses);
	dst->entries += ldb_load(&src->entries);
	dst->deref_values += ldb_load(&src->deref_values);
	dst->sort_results += ldb_load(&src->sort_results);
	dst->sort_failed += ldb_load(&src->sort_failed);
	dst->preread_entries += ldb_load(&src->preread_entries);
	dst->postread_entries += ldb_load(&src->postread_entries);
	dst->pages += ldb_load(&src->pages);
	dst->referrals += ldb_load(&src->referrals);
	dst->referrals_followed += ldb_load(&src->referrals_followed);
	dst->referrals_followed_ok += ldb_load(&src->referrals_followed_ok);
	dst->ppolicy_responses += ldb_load(&src->ppolicy_responses);
	for (int i = 0; i < LDB_PP_COUNT; i++)
		dst->ppolicy[i] += ldb_load(&src->ppolicy[i]);
	for (int i = 0; i < LDB_NOTE_COUNT; i++)
		dst->bad_password[i] += ldb_load(&src->bad_password[i]);
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		dst->codes[i] += ldb_load(&src->codes[i]);
	for (int i = 0; i < LDB_FAIL_COUNT; i++)
		dst->fails[i] += ldb_load(&src->fails[i]);
}

static void add_setup(struct ldb_setupstats *dst, const struct ldb_setupstats *src)
{
	for (int i = 0; i < LDB_FAIL_COUNT; i++)
		dst->fails[i] += ldb_load(&src->fails[i]);
	dst->bind_refused += ldb_load(&src->bind_refused);
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		dst->codes[i] += ldb_load(&src->codes[i]);
}

/* A client that never completed a TCP connect but began one: why. */
static void count_unconnected(struct ldb_totals *t, const struct ldb_thread_stats *s)
{
	if (ldb_load(&s->connects) > 0 || ldb_load(&s->connect_tries) == 0)
		return;
	switch (__atomic_load_n(&s->connect_end, __ATOMIC_RELAXED)) {
	case LDB_CONNECT_END_NONE:
	case LDB_CONNECT_END_PENDING: t->clients_pending++; break;
	case LDB_CONNECT_END_REFUSED: t->clients_refused++; break;
	case LDB_CONNECT_END_TIMEOUT: t->clients_timed_out++; break;
	default: t->clients_failed++; break;
	}
}

int ldb_stats_unused_rows(const struct ldb_thread_stats *s, int k)
{
	if (k < LDB_OP_FLOW || (k - LDB_OP_FLOW) % (1 + LDB_FLOW_STEPS) != 0)
		return 0;
	return ldb_load(&s->op[k].attempted) == 0 ? 1 + LDB_FLOW_STEPS : 0;
}

void ldb_totals_collect(struct ldb_totals *t, struct ldb_thread_stats *const *threads, int n)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; i < n; i++) {
		const struct ldb_thread_stats *s = threads[i];
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			int skip = ldb_stats_unused_rows(s, k);
			if (skip > 0) {
				k += skip - 1; /* a flow slot this client never ran: its rows are all zero */
				continue;
			}
			add_opstats(&t->op[k], &s->op[k]);
		}
		t->counted += ldb_load(&s->counted);
		t->connects += ldb_load(&s->connects);
		t->reconnects += ldb_load(&s->reconnects);
		t->setup_binds += ldb_load(&s->setup_binds);
		t->setup_extended += ldb_load(&s->setup_extended);
		t->tls_handshakes += ldb_load(&s->tls_handshakes);
		t->tls_resumed += ldb_load(&s->tls_resumed);
		t->parents_created += ldb_load(&s->parents_created);
		t->parent_exists += ldb_load(&s->parent_exists);
		t->parent_noparent += ldb_load(&s->parent_noparent);
		t->parent_other += ldb_load(&s->parent_other);
		t->parent_retries += ldb_load(&s->parent_retries);
		if (__atomic_load_n(&s->dead, __ATOMIC_ACQUIRE))
			t->dead++;
		int64_t up = (int64_t)ldb_load(&s->conns_up), opening = (int64_t)ldb_load(&s->conns_opening);
		t->conns_up += up;
		t->conns_opening += opening;
		t->clients_up += up > 0;
		t->clients_waiting += ldb_load(&s->connect_tries) == 0;
		uint64_t all_up = ldb_load(&s->all_up_ns);
		t->conns_lost += ldb_load(&s->conns_lost);
		t->clients_all_up += all_up > 0;
		if (all_up > t->all_up_ns)
			t->all_up_ns = all_up;
		count_unconnected(t, s);
		add_setup(&t->setup, &s->setup);
		for (int c = 0; c < LDB_CODE_SLOTS; c++)
			t->step_codes[c] += ldb_load(&s->step_codes[c]);
	}
}

uint64_t ldb_opstats_errors(const struct ldb_opstats *s)
{
	uint64_t n = 0;
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		n += s->codes[i];
	return n;
}

uint64_t ldb_setup_errors(const struct ldb_setupstats *s)
{
	uint64_t n = 0;
	for (int i = 0; i < LDB_CODE_SLOTS; i++)
		n += s->codes[i];
	return n;
}

int ldb_totals_never_connected(const struct ldb_totals *t)
{
	return t->clients_waiting + t->clients_pending + t->clients_refused + t->clients_timed_out + t->clients_failed;
}

struct ldb_thread_stats *ldb_thread_stats_new(void)
{
	void *p =
	        mmap(NULL, sizeof(struct ldb_thread_stats), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void ldb_thread_stats_free(struct ldb_thread_stats *st)
{
	if (st != NULL)
		munmap(st, sizeof *st);
}
