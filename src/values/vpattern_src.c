/* Value patterns' sources other than numbers: value files (read whole, or
 * streamed through a client's fixed buffer), timestamps, and the Zipf
 * sampler.  See vpattern.h. */
#include "values/vpattern_int.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- value files read whole ---- */

/* Walk buf[0..size) line by line (the last line may lack its newline): the
 * nonblank lines, without a CR before the newline.  With l->line set, index
 * them and cut them with a NUL. */
static uint64_t index_lines(char *buf, size_t size, struct vp_lines *l, size_t *longest)
{
	uint64_t n = 0;
	size_t start = 0;

	*longest = 0;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && buf[i] != '\n')
			continue;
		size_t len = i - start;

		if (len > 0 && buf[start + len - 1] == '\r')
			len--;
		if (len > 0) {
			if (l->line != NULL) {
				buf[start + len] = '\0';
				l->line[n] = buf + start;
				l->len[n] = (uint32_t)len;
			}
			n++;
			if (len > *longest)
				*longest = len;
		}
		start = i + 1;
	}
	return n;
}

int vp_load_lines(struct vp_lines *l, const char *path, const struct vp_err *e, size_t col, size_t *maxlen)
{
	FILE *f = fopen(path, "rb");
	size_t size;
	char *buf;

	if (f == NULL)
		return vp_fail(e, col, "file %s: %s", path, strerror(errno));
	int rc = ldb_read_all(f, 0, &buf, &size), err = errno;

	fclose(f);
	if (rc != 0)
		return vp_fail(e, col, "file %s: cannot read: %s", path, strerror(err));
	memset(l, 0, sizeof(*l));
	l->n = index_lines(buf, size, l, maxlen);
	if (l->n == 0) {
		free(buf);
		return vp_fail(e, col, "file %s has no line", path);
	}
	if (*maxlen > LDB_VP_LINE_MAX) {
		free(buf);
		return vp_fail(e, col, "file %s has a line longer than %d bytes", path, LDB_VP_LINE_MAX);
	}
	l->line = malloc(l->n * sizeof(*l->line));
	l->len = malloc(l->n * sizeof(*l->len));
	if (l->line == NULL || l->len == NULL) {
		free(buf);
		return vp_fail(e, col, "file %s: out of memory", path);
	}
	l->buf = buf;
	index_lines(buf, size, l, maxlen);
	return 0;
}

/* ---- streamed files ---- */

#define SCAN_CHUNK (1 << 20)
#define STREAM_BUF (1 << 16)

/* Read the file once, keeping nothing: its longest line, and whether it has
 * one at all. */
static int scan_stream(int fd, size_t *longest, uint64_t *nlines)
{
	char *chunk = malloc(SCAN_CHUNK);
	size_t cur = 0;
	ssize_t got;
	char prev = 0;

	if (chunk == NULL)
		return -1;
	*longest = 0;
	*nlines = 0;
	while ((got = read(fd, chunk, SCAN_CHUNK)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(chunk);
			return -1;
		}
		for (ssize_t i = 0; i < got; prev = chunk[i++]) {
			if (chunk[i] != '\n') {
				cur++;
				continue;
			}
			size_t len = cur - (cur > 0 && prev == '\r');

			*nlines += len > 0;
			*longest = len > *longest ? len : *longest;
			cur = 0;
		}
	}
	*nlines += cur > 0;
	*longest = cur > *longest ? cur : *longest;
	free(chunk);
	return 0;
}

int vp_open_stream(struct vp_stream *s, const char *path, const struct vp_err *e, size_t col)
{
	struct stat sb;
	uint64_t nlines;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	s->fd = -1;
	if (fd < 0)
		return vp_fail(e, col, "file %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return vp_fail(e, col, "file %s: not a regular file", path);
	}
	if (scan_stream(fd, &s->maxline, &nlines) != 0) {
		int err = errno;

		close(fd);
		return vp_fail(e, col, "file %s: cannot read: %s", path, strerror(err));
	}
	if (nlines == 0 || s->maxline > LDB_VP_LINE_MAX) {
		close(fd);
		if (nlines == 0)
			return vp_fail(e, col, "file %s has no line", path);
		return vp_fail(e, col, "file %s has a line longer than %d bytes", path, LDB_VP_LINE_MAX);
	}
	s->fd = fd;
	s->size = (uint64_t)sb.st_size;
	return 0;
}

/* The offset of the first line that starts at or after off (size if none). */
static uint64_t line_start(const struct vp_stream *s, uint64_t off)
{
	char b[4096];

	if (off == 0)
		return 0;
	off--; /* a newline just before off makes off a line start */
	while (off < s->size) {
		ssize_t got = pread(s->fd, b, sizeof(b), (off_t)off);

		if (got <= 0)
			return s->size;
		char *nl = memchr(b, '\n', (size_t)got);

		if (nl != NULL)
			return off + (uint64_t)(nl - b) + 1;
		off += (uint64_t)got;
	}
	return s->size;
}

int vp_stream_slot(const struct vp_stream *s, struct vp_slot *sl, unsigned client, unsigned nclients)
{
	__extension__ typedef unsigned __int128 u128;

	sl->start = line_start(s, (uint64_t)((u128)s->size * client / nclients));
	sl->end = line_start(s, (uint64_t)((u128)s->size * (client + 1) / nclients));
	if (sl->start >= sl->end) { /* more clients than lines: the whole file */
		sl->start = 0;
		sl->end = s->size;
	}
	sl->next = sl->start;
	sl->cap = s->maxline + 1 > STREAM_BUF ? s->maxline + 1 : STREAM_BUF;
	sl->head = sl->tail = 0;
	sl->buf = malloc(sl->cap);
	return sl->buf == NULL ? -1 : 0;
}

int vp_refill(const struct vp_stream *s, struct vp_slot *sl)
{
	if (sl->head > 0) {
		memmove(sl->buf, sl->buf + sl->head, sl->tail - sl->head);
		sl->tail -= sl->head;
		sl->head = 0;
	}
	uint64_t want = sl->cap - sl->tail;

	if (want > sl->end - sl->next)
		want = sl->end - sl->next;
	if (want == 0)
		return 0;
	ssize_t got;

	do {
		got = pread(s->fd, sl->buf + sl->tail, (size_t)want, (off_t)sl->next);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	if (got == 0) { /* the file shrank: this slice ends here */
		sl->end = sl->next;
		return 0;
	}
	sl->tail += (size_t)got;
	sl->next += (uint64_t)got;
	return 0;
}

/* The next nonblank line in the buffer; the tail of the slice counts as a
 * line even without its newline.  @return its length, -1 for none. */
static long take_line(struct vp_slot *sl, const char **line)
{
	while (sl->head < sl->tail) {
		char *p = sl->buf + sl->head;
		size_t left = sl->tail - sl->head, len;
		char *nl = memchr(p, '\n', left);

		if (nl != NULL)
			len = (size_t)(nl - p);
		else if (sl->next >= sl->end || left == sl->cap)
			len = left; /* the slice's last line, or a line the buffer cannot hold */
		else
			return -1;
		sl->head += nl != NULL ? len + 1 : len;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len > 0) {
			*line = p;
			return (long)len;
		}
	}
	return -1;
}

size_t vp_put_stream(char *dst, const struct vp_stream *s, struct vp_slot *sl, uint64_t *misses)
{
	const char *line;

	/* bounded: at most three reads (the rest of the slice, then its start again) */
	for (int tries = 0; tries < 3; tries++) {
		long len = take_line(sl, &line);

		if (len >= 0) {
			size_t n = (size_t)len < s->maxline ? (size_t)len : s->maxline;

			memcpy(dst, line, n);
			return n;
		}
		if (sl->next >= sl->end && sl->head >= sl->tail) { /* wrap */
			sl->next = sl->start;
			sl->head = sl->tail = 0;
		}
		if (vp_refill(s, sl) != 0)
			break;
	}
	(*misses)++;
	return 0;
}

/* ---- timestamps ---- */

int64_t vp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Days since 1970-01-01 of a civil date, and back (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	uint64_t yoe = (uint64_t)(y - era * 400);
	uint64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	uint64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

struct civil {
	int64_t year;
	unsigned month, day, hour, min, sec, ms;
};

static void civil_from_ms(int64_t ms, struct civil *c)
{
	int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
	int64_t rest = ms - days * 86400000;
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	uint64_t doe = (uint64_t)(z - era * 146097);
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint64_t mp = (5 * doy + 2) / 153;

	c->day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	c->month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	c->year = (int64_t)yoe + era * 400 + (c->month <= 2);
	c->hour = (unsigned)(rest / 3600000);
	c->min = (unsigned)(rest / 60000 % 60);
	c->sec = (unsigned)(rest / 1000 % 60);
	c->ms = (unsigned)(rest % 1000);
}

/* n digits of s as a number, each a digit. */
static int digits_at(const char *s, int n, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Generalized time YYYYMMDDhh[mm[ss]][.fff]Z in s[0..n): milliseconds since the epoch. */
static int parse_gt(const char *s, size_t n, int64_t *ms)
{
	unsigned y, mo, d, h, mi = 0, se = 0, frac = 0, scale = 100;
	size_t i = 10;

	if (n < 11 || s[n - 1] != 'Z' || digits_at(s, 4, &y) || digits_at(s + 4, 2, &mo) || digits_at(s + 6, 2, &d) ||
	    digits_at(s + 8, 2, &h))
		return -1;
	if (i + 2 < n && digits_at(s + i, 2, &mi) == 0) {
		i += 2;
		if (i + 2 < n && digits_at(s + i, 2, &se) == 0)
			i += 2;
	}
	if (i < n - 1 && (s[i] == '.' || s[i] == ',')) {
		if (++i == n - 1)
			return -1;
		for (; i < n - 1 && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
			frac += (unsigned)(s[i] - '0') * scale;
	}
	if (i != n - 1 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return -1;
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 + (int64_t)se * 1000 + frac;
	return 0;
}

/* The letters of SimpleDateFormat this module writes, and their longest output. */
static size_t field_max(char f, unsigned count)
{
	size_t m = f == 'y' ? (count == 2 ? 2 : 4) : f == 'S' ? 3 : f == 'Z' ? 5 : f == 'X' ? 1 : 2;

	if (f == 'Z' || f == 'X' || (f == 'y' && count == 2))
		return m;
	return count > m ? count : m;
}

static int parse_format(struct vp_time *t, const char *f, size_t n, const struct vp_err *e, size_t col, size_t *maxlen)
{
	*maxlen = 0;
	t->tok = malloc((n + 1) * sizeof(*t->tok));
	if (t->tok == NULL)
		return vp_fail(e, col, "out of memory");
	t->ntok = 0;
	for (size_t i = 0; i < n;) {
		struct vp_tok *k = &t->tok[t->ntok++];
		char c = f[i];

		k->field = 0;
		k->count = 1;
		if (c == '\'') { /* 'quoted', '' a quote */
			size_t j = i + 1;

			if (j < n && f[j] == '\'') {
				k->lit = '\'';
				i += 2;
				(*maxlen)++;
				continue;
			}
			t->ntok--;
			for (; j < n && f[j] != '\''; j++) {
				t->tok[t->ntok++] = (struct vp_tok){ 0, f[j], 1 };
				(*maxlen)++;
			}
			if (j == n)
				return vp_fail(e, col, "bad format '%.*s': unterminated quote", (int)n, f);
			i = j + 1;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			k->lit = c;
			i++;
			(*maxlen)++;
			continue;
		}
		if (strchr("yMdHmsSZX", c) == NULL)
			return vp_fail(e, col, "bad format '%.*s': '%c' is not supported (y M d H m s S Z X)", (int)n,
			               f, c);
		size_t j = i;

		while (j < n && f[j] == c && j - i < 255)
			j++;
		k->field = c;
		k->count = (uint8_t)(j - i);
		if (c == 'M' && k->count > 2)
			return vp_fail(e, col, "bad format '%.*s': month names (MMM) are not supported", (int)n, f);
		*maxlen += field_max(c, k->count);
		i = j;
	}
	return 0;
}

/* The format part, "milliseconds", "seconds" or a SimpleDateFormat. */
static int parse_time_format(struct vp_time *t, const char *f, size_t n, const struct vp_err *e, size_t col,
                             size_t *maxlen)
{
	if (n == 12 && memcmp(f, "milliseconds", 12) == 0) {
		t->kind = VT_MILLIS;
		*maxlen = 20;
		return 0;
	}
	if (n == 7 && memcmp(f, "seconds", 7) == 0) {
		t->kind = VT_SECONDS;
		*maxlen = 20;
		return 0;
	}
	if (n == 0)
		return vp_fail(e, col, "bad format: empty format=");
	t->kind = VT_FORMAT;
	return parse_format(t, f, n, e, col, maxlen);
}

int vp_parse_time(struct vp_time *t, const char *tok, size_t n, const struct vp_err *e, size_t col, size_t *maxlen)
{
	const char *s = tok + 9, *end = tok + n; /* after "timestamp" */

	memset(t, 0, sizeof(*t));
	t->kind = VT_GENERALIZED;
	*maxlen = 19;
	if (s == end)
		return 0;
	if (end - s > 5 && memcmp(s, ":min=", 5) == 0) {
		const char *mx = memmem(s, (size_t)(end - s), ":max=", 5);
		const char *fm = mx ? memmem(mx, (size_t)(end - mx), ":format=", 8) : NULL;
		const char *mxend = fm ? fm : end;
		int64_t lo, hi;

		if (mx == NULL)
			return vp_fail(e, col, "bad timestamp: min= needs max=");
		if (parse_gt(s + 5, (size_t)(mx - s - 5), &lo) != 0 || parse_gt(mx + 5, (size_t)(mxend - mx - 5), &hi))
			return vp_fail(e, col,
			               "bad timestamp: min= and max= take generalized times (YYYYMMDDhhmmss.fffZ)");
		if (hi <= lo)
			return vp_fail(e, col, "bad timestamp: min= is not before max=");
		t->random = true;
		t->min_ms = lo;
		t->span_ms = (uint64_t)(hi - lo);
		if (fm == NULL)
			return 0;
		return parse_time_format(t, fm + 8, (size_t)(end - fm - 8), e, col, maxlen);
	}
	if (end - s >= 8 && memcmp(s, ":format=", 8) == 0)
		return parse_time_format(t, s + 8, (size_t)(end - s - 8), e, col, maxlen);
	return vp_fail(e, col, "unknown pattern '[%.*s]': a timestamp takes :format=F or :min=GT:max=GT[:format=F]",
	               (int)n, tok);
}

/* v zero-padded to width (v >= 0, fits the width when width >= its digits). */
static size_t put_pad(char *dst, uint64_t v, unsigned width)
{
	char tmp[LDB_U64_DEC_MAX];
	size_t n = ldb_u64_dec(tmp, v), o = 0;

	while (o + n < width)
		dst[o++] = '0';
	memcpy(dst + o, tmp, n);
	return o + n;
}

static size_t put_signed(char *dst, int64_t v)
{
	if (v >= 0)
		return ldb_u64_dec(dst, (uint64_t)v);
	dst[0] = '-';
	return 1 + ldb_u64_dec(dst + 1, (uint64_t)0 - (uint64_t)v);
}

static size_t put_field(char *dst, const struct vp_tok *k, const struct civil *c)
{
	switch (k->field) {
	case 'y':
		if (k->count == 2)
			return put_pad(dst, (uint64_t)(c->year % 100), 2);
		return put_pad(dst, (uint64_t)c->year, k->count);
	case 'M': return put_pad(dst, c->month, k->count);
	case 'd': return put_pad(dst, c->day, k->count);
	case 'H': return put_pad(dst, c->hour, k->count);
	case 'm': return put_pad(dst, c->min, k->count);
	case 's': return put_pad(dst, c->sec, k->count);
	case 'S': return put_pad(dst, c->ms, k->count);
	case 'Z': memcpy(dst, "+0000", 5); return 5;
	case 'X': dst[0] = 'Z'; return 1;
	default: dst[0] = k->lit; return 1;
	}
}

size_t vp_put_time(char *dst, const struct vp_time *t, int64_t now_ms, struct ldb_rng *rng)
{
	int64_t ms = t->random ? t->min_ms + ldb_rng_range(rng, 0, (int64_t)t->span_ms) : now_ms;
	struct civil c;
	size_t o = 0;

	/* years 0000 to 9999, which the maximum length counts on */
	if (ms < -62167219200000LL)
		ms = -62167219200000LL;
	else if (ms > 253402300799999LL)
		ms = 253402300799999LL;
	if (t->kind == VT_MILLIS)
		return put_signed(dst, ms);
	if (t->kind == VT_SECONDS)
		return put_signed(dst, ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
	civil_from_ms(ms, &c);
	if (t->kind == VT_FORMAT) {
		for (int i = 0; i < t->ntok; i++)
			o += put_field(dst + o, &t->tok[i], &c);
		return o;
	}
	o = put_pad(dst, (uint64_t)c.year, 4);
	o += put_pad(dst + o, c.month, 2);
	o += put_pad(dst + o, c.day, 2);
	o += put_pad(dst + o, c.hour, 2);
	o += put_pad(dst + o, c.min, 2);
	o += put_pad(dst + o, c.sec, 2);
	dst[o++] = '.';
	o += put_pad(dst + o, c.ms, 3);
	dst[o++] = 'Z';
	return o;
}

/* ---- Zipf: rejection-inversion (Hörmann and Derflinger 1996) ----
 * h(x) = x^-s is the density's hat; H is its integral, written with
 * expm1/log1p so that s = 1 (where H is log x) needs no special case. */

/* expm1(x)/x, 1 at 0 */
static double expm1_over(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x / 2.0 * (1.0 + x / 3.0);
}

/* log1p(x)/x, 1 at 0 */
static double log1p_over(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
}

static double zipf_h(double s, double x)
{
	return exp(-s * log(x));
}

static double zipf_H(double s, double x)
{
	double lx = log(x);

	return expm1_over((1.0 - s) * lx) * lx;
}

static double zipf_Hinv(double s, double x)
{
	double t = x * (1.0 - s);

	if (t < -1.0) /* rounding at the edge */
		t = -1.0;
	return exp(log1p_over(t) * x);
}

int ldb_zipf_init(struct ldb_zipf *z, uint64_t n, double s)
{
	if (n == 0 || n > (1ULL << 53) || !(s > 0.0) || !(s <= 100.0))
		return -1;
	z->n = n;
	z->s = s;
	z->h_x1 = zipf_H(s, 1.5) - 1.0;
	z->h_n = zipf_H(s, (double)n + 0.5);
	z->shortcut = 2.0 - zipf_Hinv(s, zipf_H(s, 2.5) - zipf_h(s, 2.0));
	return 0;
}

uint64_t ldb_zipf_draw(const struct ldb_zipf *z, struct ldb_rng *rng)
{
	for (;;) {
		double u = z->h_n + ldb_rng_double(rng) * (z->h_x1 - z->h_n);
		double x = zipf_Hinv(z->s, u);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (kd < 1.0)
			kd = 1.0;
		else if (kd > (double)z->n)
			kd = (double)z->n;
		k = (uint64_t)kd;
		if (kd - x <= z->shortcut || u >= zipf_H(z->s, kd + 0.5) - zipf_h(z->s, kd))
			return k;
	}
}
