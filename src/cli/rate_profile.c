/* --rate-profile: see rate_profile.h. */
#include "cli/rate_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/num.h"
#include "util/util.h"

#define MAX_SEGS 256
#define MAX_RATE 1e8

struct prof {
	struct ldb_rate_seg seg[MAX_SEGS];
	int n;
	bool repeat;
	uint64_t default_ms;
	double first_rate; /* for "NX" */
	char *err;
	size_t cap;
};

static double max_of(const struct ldb_rate_seg *seg, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++) {
		if (seg[i].from > m)
			m = seg[i].from;
		if (seg[i].to > m)
			m = seg[i].to;
	}
	return m;
}

static int prof_fail(struct prof *p, const char *what, const char *text)
{
	snprintf(p->err, p->cap, "--rate-profile: %s: '%.80s'", what, text);
	return -1;
}

/* A duration with ms, s, m, h or d (a bare number is seconds). */
static int parse_dur(const char *s, size_t n, uint64_t *ms)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[n - 1] == 'd') {
		buf[n - 1] = 'h';
		if (ldb_parse_duration_ms(buf, ms) < 0)
			return -1;
		*ms *= 24;
		return 0;
	}
	return ldb_parse_duration_ms(buf, ms);
}

/* A rate, or "NX" (a multiple of the first rate). */
static int parse_rate(struct prof *p, const char *s, size_t n, double *r)
{
	char buf[48];
	const char *end;
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (ldb_num_real(buf, &end, r) != 0 || *r < 0 || *r > MAX_RATE)
		return -1;
	if (*end == 'x' || *end == 'X') {
		if (end[1] != '\0' || p->n == 0)
			return -1;
		*r *= p->first_rate;
		return *r <= MAX_RATE ? 0 : -1;
	}
	if (strcmp(end, "/s") != 0 && *end != '\0')
		return -1;
	if (p->n == 0)
		p->first_rate = *r;
	return 0;
}

static int add_seg(struct prof *p, double from, double to, uint64_t ms, const char *text)
{
	if (p->n == MAX_SEGS)
		return prof_fail(p, "at most 256 segments", text);
	if (ms == 0)
		return prof_fail(p, "a segment needs a duration above 0", text);
	p->seg[p->n++] = (struct ldb_rate_seg){ from, to, ms };
	return 0;
}

/* One inline segment: RATE@DUR or FROM-TO@DUR. */
static int inline_seg(struct prof *p, const char *s, size_t n)
{
	char text[96];
	snprintf(text, sizeof text, "%.*s", (int)n, s);
	if (strcmp(text, "repeat") == 0) {
		p->repeat = true;
		return 0;
	}
	const char *at = memchr(s, '@', n);
	uint64_t ms;
	double from, to;
	if (at == NULL || parse_dur(at + 1, n - (size_t)(at + 1 - s), &ms) != 0)
		return prof_fail(p, "expected RATE@DURATION or FROM-TO@DURATION (e.g. 100-2000@30s,2000@1m)", text);
	const char *dash = memchr(s, '-', (size_t)(at - s));
	const char *rate_end = dash != NULL ? dash : at;
	if (parse_rate(p, s, (size_t)(rate_end - s), &from) != 0 ||
	    (dash != NULL && parse_rate(p, dash + 1, (size_t)(at - dash - 1), &to) != 0))
		return prof_fail(p, "not a rate (operations per second)", text);
	if (dash == NULL)
		to = from;
	return add_seg(p, from, to, ms, text);
}

static int parse_inline(struct prof *p, const char *arg)
{
	const char *s = arg;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		if (inline_seg(p, s, n) != 0)
			return -1;
		if (comma == NULL)
			return 0;
		s = comma + 1;
	}
}

/* A header line (key=value) of the variable-rate file.  @return 1 when it
 * was one, 0 when not, -1 on a bad value. */
static int file_header(struct prof *p, const char *line)
{
	if (strcasecmp(line, "format=rate-and-duration") == 0)
		return 1;
	if (strncasecmp(line, "default-duration=", 17) == 0)
		return parse_dur(line + 17, strlen(line + 17), &p->default_ms) == 0
		               ? 1
		               : prof_fail(p, "bad default-duration", line);
	if (strncasecmp(line, "repeat=", 7) == 0) {
		const char *v = line + 7;
		if (strcasecmp(v, "yes") && strcasecmp(v, "no") && strcasecmp(v, "true") && strcasecmp(v, "false"))
			return prof_fail(p, "repeat= takes yes or no", line);
		p->repeat = !strcasecmp(v, "yes") || !strcasecmp(v, "true");
		return 1;
	}
	if (strchr(line, '=') != NULL)
		return prof_fail(p, "unknown header line", line);
	return 0;
}

/* One line of the file: blanks taken off, comments and headers, RATE[,DUR]. */
static int file_line(struct prof *p, char *line)
{
	char *e = line + strlen(line);
	while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	int h = file_header(p, line);
	if (h != 0)
		return h < 0 ? -1 : 0;
	char *comma = strchr(line, ',');
	uint64_t ms = p->default_ms;
	double r;
	if (comma != NULL && parse_dur(comma + 1, strlen(comma + 1), &ms) != 0)
		return prof_fail(p, "bad duration", line);
	if (parse_rate(p, line, comma ? (size_t)(comma - line) : strlen(line), &r) != 0)
		return prof_fail(p, "not a rate (operations per second, or NX)", line);
	return add_seg(p, r, r, ms, line);
}

static int parse_file(struct prof *p, FILE *f)
{
	char line[256];
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (file_line(p, line) != 0)
			return -1;
	}
	return 0;
}

int ldb_rate_profile_parse(struct ldb_config *c, const char *arg, char *err, size_t cap)
{
	struct prof *p = calloc(1, sizeof *p);
	if (p == NULL) {
		snprintf(err, cap, "--rate-profile: out of memory");
		return -1;
	}
	p->err = err;
	p->cap = cap;
	FILE *f = strchr(arg, '@') == NULL ? fopen(arg, "r") : NULL;
	int rc;
	if (f != NULL) {
		rc = parse_file(p, f);
		fclose(f);
	} else if (strchr(arg, '@') == NULL) {
		snprintf(err, cap, "--rate-profile '%s': cannot read the file (%s), nor is it a spec like 100-2000@30s",
		         arg, strerror(errno));
		rc = -1;
	} else {
		rc = parse_inline(p, arg);
	}
	if (rc == 0 && p->n == 0)
		rc = prof_fail(p, "no segment", arg);
	if (rc == 0 && max_of(p->seg, p->n) <= 0)
		rc = prof_fail(p, "every rate is 0", arg);
	if (rc == 0) {
		free(c->rate_profile);
		c->rate_profile = malloc((size_t)p->n * sizeof *p->seg);
		if (c->rate_profile == NULL)
			rc = prof_fail(p, "out of memory", arg);
		else
			memcpy(c->rate_profile, p->seg, (size_t)p->n * sizeof *p->seg);
		c->nrate_profile = rc == 0 ? p->n : 0;
		c->rate_profile_repeat = p->repeat;
	}
	free(p);
	return rc;
}

double ldb_rate_profile_max(const struct ldb_config *c)
{
	return max_of(c->rate_profile, c->nrate_profile);
}

double ldb_rate_profile_at(const struct ldb_config *c, uint64_t ms)
{
	uint64_t total = 0;
	for (int i = 0; i < c->nrate_profile; i++)
		total += c->rate_profile[i].ms;
	if (c->nrate_profile == 0 || total == 0)
		return 0;
	if (ms >= total && !c->rate_profile_repeat)
		return c->rate_profile[c->nrate_profile - 1].to;
	ms %= total;
	for (int i = 0; i < c->nrate_profile; i++) {
		const struct ldb_rate_seg *s = &c->rate_profile[i];
		if (ms < s->ms)
			return s->from + (s->to - s->from) * (double)ms / (double)s->ms;
		ms -= s->ms;
	}
	return c->rate_profile[c->nrate_profile - 1].to;
}
