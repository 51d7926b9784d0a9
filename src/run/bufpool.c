/* Connection buffers lent by the I/O thread: see bufpool.h. */
#include "run/bufpool.h"

#include <stdlib.h>

#include "run/conn.h"

#define CHUNK 16 /* buffers made at once when a list is empty */

void ldb_bufpool_init(struct ldb_bufpool *p, size_t in_size, size_t out_size, bool lend)
{
	*p = (struct ldb_bufpool){ .in_size = in_size, .out_size = out_size, .lend = lend };
}

static void free_list(void *head)
{
	while (head != NULL) {
		void *next = *(void **)head;
		free(head);
		head = next;
	}
}

void ldb_bufpool_close(struct ldb_bufpool *p)
{
	free_list(p->free_in);
	free_list(p->free_out);
	p->free_in = p->free_out = NULL;
	p->nfree_in = p->nfree_out = 0;
	p->closed = true;
}

/* One buffer of `size` from the list, which grows by CHUNK when empty. */
static uint8_t *pop(struct ldb_bufpool *p, void **head, size_t *nfree, size_t size)
{
	if (*head == NULL) {
		for (int k = 0; k < CHUNK; k++) {
			void *b = malloc(size);
			if (b == NULL)
				break;
			*(void **)b = *head;
			*head = b;
			++*nfree;
			p->made++;
		}
		if (*head == NULL)
			return NULL;
	}
	void *b = *head;
	*head = *(void **)b;
	--*nfree;
	return b;
}

static void push(struct ldb_bufpool *p, void **head, size_t *nfree, void *b)
{
	if (p->closed) {
		free(b);
		return;
	}
	*(void **)b = *head;
	*head = b;
	++*nfree;
}

int ldb_bufs_take(struct ldb_conn *cn)
{
	struct ldb_bufpool *p = &cn->w->runner->bufs;
	if (cn->ln.in == NULL) {
		if ((cn->ln.in = pop(p, &p->free_in, &p->nfree_in, p->in_size)) == NULL)
			return -1;
		cn->ln.in_cap = p->in_size;
		cn->ln.in_len = 0;
	}
	if (cn->ln.out == NULL) {
		if ((cn->ln.out = pop(p, &p->free_out, &p->nfree_out, p->out_size)) == NULL)
			return -1;
		cn->ln.out_cap = p->out_size;
		cn->ln.out_len = cn->ln.out_off = 0;
	}
	return 0;
}

void ldb_bufs_give(struct ldb_conn *cn)
{
	struct ldb_bufpool *p = &cn->w->runner->bufs;
	if (!p->lend)
		return; /* kept (a busy load; a replay's connections own theirs) */
	if (cn->ln.in != NULL && cn->ln.in_cap == p->in_size) {
		push(p, &p->free_in, &p->nfree_in, cn->ln.in);
		cn->ln.in = NULL;
		cn->ln.in_cap = cn->ln.in_len = 0;
	}
	if (cn->ln.out != NULL && cn->ln.out_cap == p->out_size) {
		push(p, &p->free_out, &p->nfree_out, cn->ln.out);
		cn->ln.out = NULL;
		cn->ln.out_cap = cn->ln.out_len = cn->ln.out_off = 0;
	}
}

void ldb_bufs_idle(struct ldb_conn *cn)
{
	if (!cn->w->runner->bufs.lend)
		return;
	if (cn->inflight == 0 && cn->ln.in_len == 0 && cn->ln.out_off == cn->ln.out_len && cn->ln.skip == 0 &&
	    !cn->syncing && cn->retry_len == 0) {
		ldb_bufs_give(cn);
		/* nothing of an idle held connection can time out: its deadline
		 * leaves the heap (re-armed by its next request), which then holds
		 * the busy few, not every connection (a probe's pace timer went up
		 * log2(N) levels: +120 instructions a probe at N = 1000) */
		if (cn->state == CS_READY)
			ldb_timer_cancel(&cn->w->runner->timers, &cn->tm);
	}
}
