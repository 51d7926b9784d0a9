/* How the readers of server state say a line without knowing who prints it:
 * the command hands them its text reporter's line function (the server layer
 * sits below the reporters). */
#ifndef LDBENCH_SERVER_SAY_H
#define LDBENCH_SERVER_SAY_H

#include <stdarg.h>
#include <stdio.h>

struct ldb_say {
	void (*line)(void *arg, const char *text); /* one line, without its newline */
	void *arg;
};

static inline void ldb_say(const struct ldb_say *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void ldb_say(const struct ldb_say *s, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->line(s->arg, buf);
}

#endif
