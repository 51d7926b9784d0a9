/* Bounded top-N tables and filter shapes (logtop.h). */
#include "report/logtop.h"

#include <stdlib.h>
#include <string.h>

int ldb_ltop_init(struct ldb_ltop *t, int cap)
{
	memset(t, 0, sizeof *t);
	if (cap < 1 || cap > (1 << 20))
		return -1;
	t->cap = cap;
	t->nbucket = 1;
	while (t->nbucket < 2 * cap)
		t->nbucket *= 2;
	t->ent = calloc((size_t)cap, sizeof *t->ent);
	t->heap = calloc((size_t)cap, sizeof *t->heap);
	t->bucket = malloc((size_t)t->nbucket * sizeof *t->bucket);
	if (t->ent == NULL || t->heap == NULL || t->bucket == NULL)
		return -1;
	for (int i = 0; i < t->nbucket; i++)
		t->bucket[i] = -1;
	return 0;
}

void ldb_ltop_free(struct ldb_ltop *t)
{
	free(t->ent);
	free(t->heap);
	free(t->bucket);
	memset(t, 0, sizeof *t);
}

static uint32_t hash(const char *k, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

static void swap_heap(struct ldb_ltop *t, int a, int b)
{
	int x = t->heap[a];
	t->heap[a] = t->heap[b];
	t->heap[b] = x;
	t->ent[t->heap[a]].heap = a;
	t->ent[t->heap[b]].heap = b;
}

static void sift_down(struct ldb_ltop *t, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < t->n && t->ent[t->heap[l]].count < t->ent[t->heap[m]].count)
			m = l;
		if (r < t->n && t->ent[t->heap[r]].count < t->ent[t->heap[m]].count)
			m = r;
		if (m == i)
			return;
		swap_heap(t, i, m);
		i = m;
	}
}

static void sift_up(struct ldb_ltop *t, int i)
{
	while (i > 0 && t->ent[t->heap[(i - 1) / 2]].count > t->ent[t->heap[i]].count) {
		swap_heap(t, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void unlink_slot(struct ldb_ltop *t, int s)
{
	struct ldb_ltop_ent *e = &t->ent[s];
	int *p = &t->bucket[hash(e->key, e->len) & (uint32_t)(t->nbucket - 1)];
	while (*p != s)
		p = &t->ent[*p].next;
	*p = e->next;
}

struct ldb_ltop_ent *ldb_ltop_add(struct ldb_ltop *t, const char *key, size_t len, bool *fresh)
{
	char cut[LDB_LTOP_KEY];
	if (len > LDB_LTOP_KEY - 1) {
		memcpy(cut, key, LDB_LTOP_KEY - 4);
		memcpy(cut + LDB_LTOP_KEY - 4, "...", 3);
		key = cut;
		len = LDB_LTOP_KEY - 1;
	}
	t->total++;
	uint32_t b = hash(key, len) & (uint32_t)(t->nbucket - 1);
	for (int s = t->bucket[b]; s >= 0; s = t->ent[s].next) {
		struct ldb_ltop_ent *e = &t->ent[s];
		if (e->len == len && memcmp(e->key, key, len) == 0) {
			e->count++;
			sift_down(t, e->heap);
			*fresh = false;
			return e;
		}
	}
	int s;
	uint64_t base = 0;
	if (t->n < t->cap) {
		s = t->n;
		t->heap[t->n] = s;
		t->ent[s].heap = t->n++;
	} else {
		s = t->heap[0];
		base = t->ent[s].count;
		unlink_slot(t, s);
		t->evictions++;
	}
	struct ldb_ltop_ent *e = &t->ent[s];
	memcpy(e->key, key, len);
	e->key[len] = '\0';
	e->len = (uint16_t)len;
	e->count = base + 1;
	e->error = base;
	e->exlen = 0;
	e->run_off = -1;
	e->next = t->bucket[b];
	t->bucket[b] = s;
	sift_up(t, e->heap);
	sift_down(t, e->heap);
	*fresh = true;
	return e;
}

static int by_count(const void *a, const void *b)
{
	const struct ldb_ltop_ent *x = *(const struct ldb_ltop_ent *const *)a;
	const struct ldb_ltop_ent *y = *(const struct ldb_ltop_ent *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

int ldb_ltop_sorted(const struct ldb_ltop *t, const struct ldb_ltop_ent **out, int max)
{
	const struct ldb_ltop_ent **all = malloc((size_t)(t->n ? t->n : 1) * sizeof *all);
	if (all == NULL)
		return 0;
	for (int i = 0; i < t->n; i++)
		all[i] = &t->ent[i];
	qsort(all, (size_t)t->n, sizeof *all, by_count);
	int n = t->n < max ? t->n : max;
	memcpy(out, all, (size_t)n * sizeof *out);
	free(all);
	return n;
}

/* Shape writer: bytes into out, at most cap - 1 of them. */
struct shape_out {
	char *p;
	size_t n, cap;
	bool cut;
};

static void put(struct shape_out *o, char c)
{
	if (o->n + 1 < o->cap)
		o->p[o->n++] = c;
	else
		o->cut = true;
}

/* One assertion value v[0..n): "*" stays, else each piece between stars
 * becomes '?'.  The first digit run of the values goes to *run. */
static void mask_value(struct shape_out *o, const char *f, size_t i, size_t end, struct ldb_ltop_run *run)
{
	if (end - i == 1 && f[i] == '*') {
		put(o, '*');
		return;
	}
	bool in_piece = false;
	for (size_t j = i; j < end; j++) {
		if (f[j] == '*') {
			put(o, '*');
			in_piece = false;
			continue;
		}
		if (!in_piece)
			put(o, '?');
		in_piece = true;
		if (f[j] == '\\') { /* an escape \xx: not a digit run of the value */
			j += 2;
			continue;
		}
		if (run->off < 0 && f[j] >= '0' && f[j] <= '9') {
			size_t k = j;
			while (k < end && f[k] >= '0' && f[k] <= '9')
				k++;
			run->off = (int)j;
			run->len = (int)(k - j);
		}
	}
}

/* One item from f[i] (after its '('): the attribute and operator, then the
 * value up to ')' or the end.  @return where it ends. */
static size_t shape_item(struct shape_out *o, const char *f, size_t i, size_t n, struct ldb_ltop_run *run)
{
	while (i < n && f[i] != '=' && f[i] != ')') {
		char c = f[i++];
		put(o, c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c);
	}
	if (i >= n || f[i] == ')')
		return i;
	put(o, f[i++]); /* '=' (after ~ > < : already copied) */
	size_t end = i;
	while (end < n && f[end] != ')')
		end += (f[end] == '\\' && end + 1 < n) ? 2 : 1;
	if (end > n)
		end = n;
	if (end > i)
		mask_value(o, f, i, end, run);
	return end;
}

size_t ldb_filter_shape(const char *f, size_t n, char *out, size_t cap, struct ldb_ltop_run *run)
{
	struct shape_out o = { out, 0, cap, false };
	run->off = -1;
	run->len = 0;
	size_t i = 0;
	if (n > 0 && f[0] != '(') /* a filter logged without its parentheses */
		i = shape_item(&o, f, 0, n, run);
	while (i < n) {
		char c = f[i];
		put(&o, c);
		i++;
		if (c != '(')
			continue;
		if (i < n && (f[i] == '&' || f[i] == '|' || f[i] == '!')) {
			put(&o, f[i++]);
			continue;
		}
		if (i < n && f[i] != '(')
			i = shape_item(&o, f, i, n, run);
	}
	if (o.cut && cap >= 4) {
		memcpy(out + cap - 4, "...", 3);
		o.n = cap - 1;
	}
	out[o.n] = '\0';
	return o.n;
}

static int64_t run_value(const char *p, int len)
{
	int64_t v = 0;
	for (int i = 0; i < len && i < 18; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

void ldb_ltop_add_filter(struct ldb_ltop *t, const char *f, size_t n)
{
	char shape[LDB_LTOP_KEY];
	struct ldb_ltop_run run;
	bool fresh;
	size_t len = ldb_filter_shape(f, n, shape, sizeof shape, &run);
	struct ldb_ltop_ent *e = ldb_ltop_add(t, shape, len, &fresh);
	if (fresh) {
		e->exlen = (uint16_t)(n < LDB_LTOP_KEY - 1 ? n : LDB_LTOP_KEY - 1);
		memcpy(e->ex, f, e->exlen);
		e->ex[e->exlen] = '\0';
		e->run_off = run.off >= 0 && run.off + run.len <= e->exlen ? run.off : -1;
		e->run_len = run.len;
		e->lo = INT64_MAX;
		e->hi = -1;
		e->wmin = 1 << 30;
		e->wmax = 0;
	}
	if (e->run_off < 0 || run.off < 0)
		return;
	int64_t v = run_value(f + run.off, run.len);
	e->lo = v < e->lo ? v : e->lo;
	e->hi = v > e->hi ? v : e->hi;
	e->wmin = run.len < e->wmin ? run.len : e->wmin;
	e->wmax = run.len > e->wmax ? run.len : e->wmax;
}
