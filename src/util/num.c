/* Numbers on command lines and in records: see num.h. */
#include "util/num.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ldb_num_ll(const char *s, long long *out)
{
	const char *p = s;
	char *end;
	long long v;

	if (s == NULL || *s == '\0')
		return LDB_NUM_JUNK;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return LDB_NUM_JUNK;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return LDB_NUM_JUNK;
	if (errno == ERANGE)
		return v > 0 ? LDB_NUM_HIGH : LDB_NUM_LOW;
	*out = v;
	return LDB_NUM_OK;
}

int ldb_num_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	bool high = false;

	if (s == NULL || *s == '\0')
		return LDB_NUM_JUNK;
	for (const char *p = s; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return LDB_NUM_JUNK;
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			high = true;
		else
			v = v * 10 + d;
	}
	if (high)
		return LDB_NUM_HIGH;
	*out = v;
	return LDB_NUM_OK;
}

int ldb_num_range(const char *opt, char sep, const char *arg, long long min, long long max, const char *what,
                  long long *out, char *err, size_t cap)
{
	long long v = 0;
	int rc = ldb_num_ll(arg, &v);

	if (rc == LDB_NUM_OK && v >= min && v <= max) {
		*out = v;
		return 0;
	}
	if (err == NULL || cap == 0)
		return -1;
	if (rc == LDB_NUM_JUNK) {
		snprintf(err, cap, "%s%c'%s': not a whole number", opt, sep, arg);
		return -1;
	}
	/* no real upper limit: INT_MAX or LLONG_MAX only say what the type holds */
	bool open_ended = max == LLONG_MAX || max == INT_MAX || max == LLONG_MAX / 1000;

	if (open_ended && (rc == LDB_NUM_HIGH || (rc == LDB_NUM_OK && v > max)))
		snprintf(err, cap, "%s%c%s: %s is too large", opt, sep, arg, what);
	else if (rc == LDB_NUM_LOW && min == LLONG_MIN)
		snprintf(err, cap, "%s%c%s: %s is too small", opt, sep, arg, what);
	else if (open_ended)
		snprintf(err, cap, "%s%c%s: %s must be at least %lld", opt, sep, arg, what, min);
	else
		snprintf(err, cap, "%s%c%s: %s must be between %lld and %lld", opt, sep, arg, what, min, max);
	return -1;
}

int ldb_num_count(const char *opt, const char *s, int64_t max, int64_t *out, char *err, size_t cap)
{
	uint64_t v = 0;
	const char *why = NULL;

	if (*s == '\0') {
		if (err != NULL && cap > 0)
			snprintf(err, cap, "%s: empty value", opt);
		return -1;
	}
	if (*s == '-')
		why = "is negative";
	for (const char *p = s; why == NULL && *p != '\0'; p++) {
		if (*p < '0' || *p > '9') {
			why = "is not a decimal number";
			break;
		}
		unsigned d = (unsigned)(*p - '0');

		if (max < 0 || v > ((uint64_t)max - d) / 10 || v * 10 + d > (uint64_t)max) {
			if (err != NULL && cap > 0)
				snprintf(err, cap, "%s: '%s' is too large (at most %lld)", opt, s, (long long)max);
			return -1;
		}
		v = v * 10 + d;
	}
	if (why != NULL) {
		if (err != NULL && cap > 0)
			snprintf(err, cap, "%s: '%s' %s", opt, s, why);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

int ldb_parse_duration_ms(const char *s, uint64_t *ms)
{
	const char *p = s;
	uint64_t v = 0, mult;

	if (s == NULL || !isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		p++;
	}
	if (*p == '\0' || strcmp(p, "s") == 0)
		mult = 1000;
	else if (strcmp(p, "ms") == 0)
		mult = 1;
	else if (strcmp(p, "m") == 0)
		mult = 60000;
	else if (strcmp(p, "h") == 0)
		mult = 3600000;
	else
		return -1;
	if (v != 0 && v > UINT64_MAX / mult)
		return -1;
	*ms = v * mult;
	return 0;
}

/* The digits at p: @return how many. */
static size_t digits(const char *p)
{
	size_t n = 0;

	while (isdigit((unsigned char)p[n]))
		n++;
	return n;
}

int ldb_num_real(const char *s, const char **end, double *out)
{
	const char *p = s;
	size_t whole, frac = 0;

	if (s == NULL)
		return -1;
	if (*p == '+' || *p == '-')
		p++;
	whole = digits(p);
	p += whole;
	if (*p == '.') {
		frac = digits(p + 1);
		if (whole == 0 && frac == 0)
			return -1;
		p += 1 + frac;
	}
	if (whole == 0 && frac == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (digits(q) > 0)
			p = q + digits(q);
	}
	/* the grammar above is a subset of strtod's: it reads exactly [s, p) */
	char *e;
	double v = strtod(s, &e);

	if (e != p || !isfinite(v))
		return -1;
	*out = v;
	*end = p;
	return 0;
}
