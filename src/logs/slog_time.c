/* The timestamps of server log lines (logs/slog.h says how each is read):
 * 389 DS's [dd/Mon/yyyy:hh:mm:ss(.frac) +hhmm], slapd's hex
 * seconds.nanoseconds, traditional syslog's "Mon dd hh:mm:ss", ISO 8601 /
 * RFC 3339 and RFC 5424's.  No sscanf, no allocation, mktime once an hour. */
#include <string.h>
#include <time.h>

#include "logs/slog_int.h"

#define NS 1000000000LL

int64_t ldb_slog_days(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int ldb_slog_month(const char *p)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	for (int i = 0; i < 12; i++)
		if (memcmp(p, names + 3 * i, 3) == 0)
			return i + 1;
	return 0;
}

/* n decimal digits at p, or -1. */
static int dig(const char *p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if ((unsigned)(p[i] - '0') > 9)
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

/* A fraction of a second ".ddd..." at *pp (up to end): its nanoseconds and
 * resolution; *pp past it.  No fraction: 0 and a resolution of 1 s. */
static int64_t frac(const char **pp, const char *end, int64_t *res)
{
	const char *p = *pp;
	int64_t v = 0, scale = NS;
	*res = NS;
	if (p >= end || *p != '.')
		return 0;
	for (p++; p < end && (unsigned)(*p - '0') <= 9; p++)
		if (scale > 1) {
			scale /= 10;
			v += (*p - '0') * scale;
		}
	*res = scale;
	*pp = p;
	return v;
}

/* Civil time, UTC, in seconds; -1 for fields out of range (years 1970 to
 * 2200: nanoseconds since the epoch fit in 63 bits until 2262). */
static int64_t civil(int y, int mo, int d, int h, int mi, int s)
{
	if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    s < 0 || s > 60)
		return -1;
	return ldb_slog_days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
}

/* Local civil time (no zone in the log) in ns: at the fixed offset, or by
 * mktime once per hour of the log. */
static int64_t local_ns(struct ldb_slog_tctx *t, int y, int mo, int d, int h, int mi, int s)
{
	const int64_t u = civil(y, mo, d, h, mi, s);
	if (u < 0)
		return LDB_SLOG_NO_TIME;
	if (t->off_set)
		return (u - t->off_s) * NS;
	const int64_t key = u / 3600;
	if (key != t->hour_key) {
		struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_isdst = -1 };
		const time_t tt = mktime(&tm);
		if (tt == (time_t)-1)
			return LDB_SLOG_NO_TIME;
		t->hour_key = key;
		t->hour_ns = (int64_t)tt * NS;
	}
	return t->hour_ns + (int64_t)(mi * 60 + s) * NS;
}

/* [02/Dec/2026:05:52:11.123456789 +0000] */
static const char *stamp_389(const char *p, const char *end, int64_t *ns, int64_t *res)
{
	if (end - p < 28)
		return NULL;
	const int d = dig(p + 1, 2), mo = ldb_slog_month(p + 4), y = dig(p + 8, 4), h = dig(p + 13, 2),
	          mi = dig(p + 16, 2), s = dig(p + 19, 2);
	if (p[3] != '/' || p[7] != '/' || p[12] != ':' || p[15] != ':' || p[18] != ':')
		return NULL;
	const char *q = p + 21;
	const int64_t f = frac(&q, end, res);
	if (end - q < 8 || q[0] != ' ' || (q[1] != '+' && q[1] != '-') || q[6] != ']')
		return NULL;
	const int oh = dig(q + 2, 2), om = dig(q + 4, 2);
	const int64_t u = civil(y, mo, d, h, mi, s);
	if (u < 0 || oh < 0 || om < 0)
		return NULL;
	const int64_t off = (oh * 3600 + om * 60) * (q[1] == '-' ? -1 : 1);
	*ns = (u - off) * NS + f;
	return q[7] == ' ' ? q + 8 : q + 7;
}

/* A lower-case hex digit's value; 0 for any other byte too (told from '0'
 * by the byte itself). */
static const unsigned char hexd[256] = {
	['0'] = 0, ['1'] = 1, ['2'] = 2,  ['3'] = 3,  ['4'] = 4,  ['5'] = 5,  ['6'] = 6,  ['7'] = 7,
	['8'] = 8, ['9'] = 9, ['a'] = 10, ['b'] = 11, ['c'] = 12, ['d'] = 13, ['e'] = 14, ['f'] = 15,
};

/* n lower-case hex digits at p into *v, by the table.  @return 0, or -1. */
static int hexv(const char *p, int n, int64_t *v)
{
	int64_t x = 0;
	for (int i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)p[i], d = hexd[c];
		if (d == 0 && c != '0')
			return -1;
		x = x * 16 + d;
	}
	*v = x;
	return 0;
}

/* 6b0f493d.25c648d0 0x7f26df9fe6c0 (slapd's own: seconds.nanoseconds, the thread) */
static const char *stamp_hex(const char *p, const char *end, int64_t *ns, int64_t *res)
{
	int64_t s, n;
	if (end - p < 19 || p[8] != '.' || p[17] != ' ' || hexv(p, 8, &s) || hexv(p + 9, 8, &n) || n >= NS)
		return NULL;
	*ns = s * NS + n;
	*res = 1;
	p += 18;
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	return sp ? sp + 1 : NULL;
}

/* 618fe870 (slapd's debug output on stderr before 2.5, kept by container
 * images' logs: whole seconds in hex, no thread) */
static const char *stamp_hex_s(const char *p, const char *end, int64_t *ns, int64_t *res)
{
	int64_t s;
	if (end - p < 10 || p[8] != ' ' || hexv(p, 8, &s))
		return NULL;
	*ns = s * NS;
	*res = NS;
	return p + 9;
}

/* "host slapd[812]: " after a syslog timestamp: the message after the tag. */
static const char *syslog_tag(const char *p, const char *end)
{
	const char *sp = memchr(p, ' ', (size_t)(end - p)); /* the host */
	if (!sp)
		return NULL;
	const char *colon = memchr(sp + 1, ':', (size_t)(end - sp - 1));
	if (!colon || colon + 1 >= end || colon[1] != ' ')
		return NULL;
	return colon + 2;
}

/* Dec  2 05:52:11 host slapd[812]: */
static const char *stamp_trad(struct ldb_slog_tctx *t, const char *p, const char *end, int64_t *ns, int64_t *res)
{
	if (end - p < 16 || p[3] != ' ' || p[6] != ' ' || p[9] != ':' || p[12] != ':' || p[15] != ' ')
		return NULL;
	const int mo = ldb_slog_month(p), d = dig(p + 4 + (p[4] == ' '), 2 - (p[4] == ' ')), h = dig(p + 7, 2),
	          mi = dig(p + 10, 2), s = dig(p + 13, 2);
	if (!mo || d < 1)
		return NULL;
	const int y = t->ref_month && mo > t->ref_month ? t->year - 1 : t->year;
	*ns = local_ns(t, y, mo, d, h, mi, s);
	*res = NS;
	return *ns == LDB_SLOG_NO_TIME ? NULL : syslog_tag(p + 16, end);
}

/* 2026-12-02T05:52:11.123456+00:00 (or Z, +0000, no zone: local) */
static const char *stamp_iso(struct ldb_slog_tctx *t, const char *p, const char *end, int64_t *ns, int64_t *res)
{
	if (end - p < 20 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ') || p[13] != ':' ||
	    p[16] != ':')
		return NULL;
	const int y = dig(p, 4), mo = dig(p + 5, 2), d = dig(p + 8, 2), h = dig(p + 11, 2), mi = dig(p + 14, 2),
	          s = dig(p + 17, 2);
	const char *q = p + 19;
	const int64_t f = frac(&q, end, res);
	if (q < end && *q == 'Z') {
		const int64_t u = civil(y, mo, d, h, mi, s);
		*ns = u < 0 ? LDB_SLOG_NO_TIME : u * NS + f;
		q++;
	} else if (q < end && (*q == '+' || *q == '-') && end - q >= 5) {
		const int colon = q[3] == ':', oh = dig(q + 1, 2), om = dig(q + 3 + colon, 2);
		const int64_t u = civil(y, mo, d, h, mi, s);
		*ns = u < 0 || oh < 0 || om < 0 ? LDB_SLOG_NO_TIME
		                                : (u - (oh * 3600 + om * 60) * (*q == '-' ? -1 : 1)) * NS + f;
		q += 5 + colon;
	} else {
		*ns = local_ns(t, y, mo, d, h, mi, s);
		if (*ns != LDB_SLOG_NO_TIME)
			*ns += f;
	}
	if (*ns == LDB_SLOG_NO_TIME || q >= end || *q != ' ')
		return NULL;
	return q + 1;
}

/* <167>1 2026-12-02T05:52:11.123Z host slapd 812 - - msg */
static const char *stamp_5424(struct ldb_slog_tctx *t, const char *p, const char *end, int64_t *ns, int64_t *res)
{
	const char *q = memchr(p, '>', (size_t)(end - p) < 6 ? (size_t)(end - p) : 6);
	if (!q || end - q < 3 || q[1] != '1' || q[2] != ' ')
		return NULL;
	q = stamp_iso(t, q + 3, end, ns, res);
	for (int f = 0; q && f < 4; f++) { /* host, app, procid, msgid */
		const char *sp = memchr(q, ' ', (size_t)(end - q));
		q = sp ? sp + 1 : NULL;
	}
	if (q && q < end && *q == '[') /* structured data: skipped up to "] " */
		q = memchr(q, ']', (size_t)(end - q)) ? (const char *)memchr(q, ']', (size_t)(end - q)) + 2 : NULL;
	else if (q && q < end && *q == '-')
		q += 2;
	return q && q <= end ? q : NULL;
}

const char *ldb_slog_prefix(struct ldb_slog_tctx *t, const char *p, const char *end, enum ldb_slog_format *fmt,
                            int64_t *ns, int64_t *res)
{
	const char *m = NULL;
	*fmt = LDB_SLOG_FMT_UNKNOWN;
	*ns = LDB_SLOG_NO_TIME;
	*res = 0;
	if (p >= end)
		return NULL;
	if (*p == '[') {
		m = stamp_389(p, end, ns, res);
		*fmt = m ? LDB_SLOG_FMT_389 : LDB_SLOG_FMT_UNKNOWN;
		return m;
	}
	if (end - p > 10 && p[8] == '.')
		m = stamp_hex(p, end, ns, res);
	else if (end - p > 9 && p[8] == ' ')
		m = stamp_hex_s(p, end, ns, res);
	else if (*p == '<')
		m = stamp_5424(t, p, end, ns, res);
	else if ((unsigned)(*p - '0') <= 9) {
		m = stamp_iso(t, p, end, ns, res);
		m = m ? syslog_tag(m, end) : NULL;
	} else if ((unsigned)(*p - 'A') < 26)
		m = stamp_trad(t, p, end, ns, res);
	if (m)
		*fmt = LDB_SLOG_FMT_OPENLDAP;
	else
		*ns = LDB_SLOG_NO_TIME;
	return m;
}
