/* Signals of a run: see signals.h. */
#include "run/signals.h"

#include <pthread.h>
#include <time.h>

void ldb_signals_take(struct ldb_signals *s)
{
	sigemptyset(&s->stop);
	sigaddset(&s->stop, SIGINT);
	sigaddset(&s->stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s->stop, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void ldb_signals_settle(const struct ldb_signals *s)
{
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&s->stop, NULL, &zero) > 0)
		;
}

bool ldb_signals_wait(const struct ldb_signals *s, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };
	int sig = sigtimedwait(&s->stop, NULL, &ts);
	return sig == SIGINT || sig == SIGTERM;
}
