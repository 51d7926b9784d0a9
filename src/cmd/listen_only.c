/* A listeners-only run: see listen_only.h. */
#include "cmd/listen_only.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/listen_lines.h"
#include "report/reporter.h"
#include "report/settings.h"
#include "run/iothread_plan.h"
#include "run/listen.h"
#include "run/run.h"
#include "run/signals.h"

#define FD_SPARE 32

/* --json FILE: the listeners' object on a line of its own. */
static int put_json(const struct ldb_config *c, const struct ldb_listen_figs *f)
{
	FILE *j = strcmp(c->json_path, "-") == 0 ? stdout : fopen(c->json_path, "w");
	if (j == NULL) {
		fprintf(stderr, "%s: --json %s: cannot create\n", c->progname, c->json_path);
		return LDB_EXIT_OTHER;
	}
	fputs("{\"type\":\"listeners\",", j);
	ldb_listen_put_json(j, f);
	fputs("}\n", j);
	if (j != stdout ? fclose(j) != 0 : fflush(j) != 0) {
		fprintf(stderr, "%s: --json %s: cannot write\n", c->progname, c->json_path);
		return LDB_EXIT_OTHER;
	}
	return 0;
}

/* The listeners up: wait for --duration or a signal, then their end. */
static int listen_for(const struct ldb_config *c, struct ldb_listen *ls, struct ldb_text *t,
                      const struct ldb_signals *sig)
{
	ldb_text_line(t, "Listeners: %d up below %s, no load of their own: every notification is recorded%s%s",
	              c->listeners, c->listen_base, c->listen_record != NULL ? " to " : " nowhere (no --listen-record)",
	              c->listen_record != NULL ? c->listen_record : "");
	bool signalled = false;
	if (c->duration_ms > 0)
		signalled = ldb_signals_wait(sig, c->duration_ms * 1000000ULL);
	else
		while (!signalled)
			signalled = ldb_signals_wait(sig, 1000000000ULL);
	if (signalled)
		fprintf(t->out, "\nCatch SIGINT - exit...\n");
	ldb_listen_finish(ls);
	struct ldb_listen_figs f;
	memset(&f, 0, sizeof f);
	if (ldb_hist_init(&f.delay) != 0)
		return LDB_EXIT_INIT;
	ldb_listen_read(ls, &f);
	ldb_listen_text(&f, t);
	int status = 0;
	uint64_t n;
	const char *e = ldb_listen_recorded(ls, &n);
	if (e != NULL && e[0] != '\0') {
		ldb_text_line(t, "%s", e);
		status = LDB_EXIT_OTHER;
	} else if (e != NULL) {
		ldb_text_line(t, "Listeners: %llu notifications recorded to %s", (unsigned long long)n,
		              c->listen_record);
	}
	if (c->json_path != NULL && put_json(c, &f) != 0)
		status = LDB_EXIT_OTHER;
	ldb_hist_free(&f.delay);
	return status;
}

int ldb_listen_only(const struct ldb_config *c, FILE *out)
{
	struct ldb_signals sig;
	ldb_signals_take(&sig);
	struct ldb_outputs o;
	ldb_outputs_of_config(&o, c);
	struct ldb_text t = { .o = &o, .cfg = c, .out = out, .pid = getpid() };
	struct ldb_run run;
	memset(&run, 0, sizeof run);
	char err[512];
	/* the engine's run for its target and TLS alone: no operation planned
	 * (an empty --mix; shallow, read only) */
	struct ldb_config none = *c;
	none.mix = true;
	memset(none.weight, 0, sizeof none.weight);
	if (ldb_run_init(&run, &none, err, sizeof err) != 0 ||
	    ldb_fd_raise(c->listeners + FD_SPARE, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", c->progname, err);
		ldb_run_free(&run);
		return LDB_EXIT_PARAMS;
	}
	ldb_text_banner(&t);
	struct ldb_listen *ls = NULL;
	int status = ldb_listen_start(c, &run, 1, &ls, err, sizeof err);
	if (status != 0)
		fprintf(stderr, "%s: %s\n", c->progname, err);
	else
		status = listen_for(c, ls, &t, &sig);
	ldb_listen_free(ls);
	ldb_text_end(&t, status);
	ldb_run_free(&run);
	ldb_signals_settle(&sig);
	return status;
}
