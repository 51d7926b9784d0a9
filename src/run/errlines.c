/* ldclt's line per failed operation ("T000: Cannot ldap_search(), error=32
 * (No such object)"), printed by the client's I/O thread as the result comes
 * back: formatted into a stack buffer and written with one write(2), no
 * lock, no allocation.  At most LINES_PER_SEC lines a second per client and
 * code; the rest are counted and one line says how many were left out.  -q
 * (and -Q) hide the lines of the codes -I ignores, as ldclt does. */
#include "run/conn.h"

#include <ldap.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/clock.h"

#define LINES_PER_SEC 10
#define WINDOW_NS 1000000000ULL

void ldb_run_vline(const struct ldb_run *run, const char *who, const char *fmt, va_list ap)
{
	char buf[2048];
	int n = snprintf(buf, sizeof buf, "%s%s: ", run->line_prefix, who);
	if (n > 0 && (size_t)n < sizeof buf)
		n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf - 1)
		n = (int)sizeof buf - 2; /* cut, but one line */
	buf[n++] = '\n';
	for (size_t off = 0; off < (size_t)n;) {
		ssize_t k = write(run->line_fd, buf + off, (size_t)n - off);
		if (k <= 0)
			return;
		off += (size_t)k;
	}
}

__attribute__((format(printf, 3, 4))) static void put_line(const struct ldb_run *run, int id, const char *fmt, ...)
{
	char who[16];
	snprintf(who, sizeof who, "T%03d", id);
	va_list ap;
	va_start(ap, fmt);
	ldb_run_vline(run, who, fmt, ap);
	va_end(ap);
}

static void say_held(const struct ldb_client *w, int code, uint64_t held)
{
	if (held == 0)
		return;
	put_line(w->run, w->id,
	         "%llu more lines of error %d (%s) not printed (at most %d a second per thread and error code)",
	         (unsigned long long)held, code, ldap_err2string(code), LINES_PER_SEC);
}

/* Say what was held back; a new window starts. */
void ldb_errlines_flush(struct ldb_client *w)
{
	struct ldb_errlim *e = &w->errlim;
	for (int i = 0; i < LDB_ERRLIM_CODES; i++) {
		say_held(w, e->code[i], e->held[i]);
		e->held[i] = 0;
		e->printed[i] = 0;
	}
}

/* The entry of this code in the window, another code's if the table is full
 * (its held lines said first).  @return whether a line may be printed. */
static bool may_print(struct ldb_client *w, int code, uint64_t now)
{
	struct ldb_errlim *e = &w->errlim;
	if (now - e->window >= WINDOW_NS) {
		ldb_errlines_flush(w);
		e->window = now;
	}
	int i, free_i = -1;
	for (i = 0; i < LDB_ERRLIM_CODES; i++) {
		if (e->used[i] && e->code[i] == code)
			break;
		if (free_i < 0 && (!e->used[i] || (e->printed[i] == 0 && e->held[i] == 0)))
			free_i = i;
	}
	if (i == LDB_ERRLIM_CODES) {
		i = free_i >= 0 ? free_i : LDB_ERRLIM_CODES - 1;
		say_held(w, e->code[i], e->held[i]);
		e->used[i] = true;
		e->code[i] = code;
		e->printed[i] = 0;
		e->held[i] = 0;
	}
	if (e->printed[i] < LINES_PER_SEC) {
		e->printed[i]++;
		return true;
	}
	e->held[i]++;
	return false;
}

/* The line of one failed operation of kind `kind` (its request the last one
 * the client rendered when the run has one request at a time), in the
 * kind's words (its row's errline). */
void ldb_errline(struct ldb_client *w, enum ldb_op kind, int code)
{
	const struct ldb_run *run = w->run;
	const struct ldb_config *c = run->cfg;
	if ((c->quiet || c->super_quiet) && ldb_config_ignored(c, code))
		return;
	if (!may_print(w, code, ldb_now_ns()))
		return;
	const struct ldb_wctx *wc = w->wctx;
	/* one request at a time on one connection: the last DN rendered is the
	 * failed one's; else ldclt's asynchronous forms, without the DN */
	bool dn = wc != NULL && run->depth == 1 && c->conns_per_thread == 1 && wc->dnlen > 0;
	struct ldb_op_failure f = {
		c, dn, dn ? wc->dn : "", dn ? (int)wc->dnlen : 0, dn ? wc->aux : "", code, ldap_err2string(code)
	};
	char text[2048];
	if (ldb_ops[kind]->errline != NULL)
		ldb_ops[kind]->errline(&f, text, sizeof text);
	else
		snprintf(text, sizeof text, "Cannot %s, error=%d (%s)", ldb_op_name(kind), code, f.text);
	put_line(run, w->id, "%s", text);
}
