/* --hdr-log: see hdrlog.h.  The encoding, from HdrHistogram's published
 * format: a 40-byte big-endian header (cookie, payload length, normalizing
 * index offset 0, significant digits, lowest discernible value, highest
 * trackable value, integer-to-double ratio 1.0), then the counts as ZigZag
 * LEB128 varints with a run of zeros written as minus its length; that whole
 * buffer deflated (zlib stream) behind an 8-byte header (compressed cookie,
 * compressed length), and the result in base64. */
#include "report/hdrlog.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "ops/ops.h"

#define V2_COOKIE 0x1c849313u            /* V2 encoding, 8-byte words */
#define V2_COMPRESSED_COOKIE 0x1c849314u /* its deflated form */
#define HEADER_LEN 40
#define SIG_DIGITS 3
#define LOWEST 1

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (56 - 8 * i));
}

/* ZigZag, then LEB128 with at most 9 bytes (the ninth carries 8 bits). */
static size_t put_varint(unsigned char *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;
	while (n < 8 && z >= 0x80) {
		p[n++] = (unsigned char)(z | 0x80);
		z >>= 7;
	}
	p[n++] = (unsigned char)z;
	return n;
}

/* The uncompressed V2 buffer of h; *len its length.  malloc'ed. */
static unsigned char *encode_plain(const struct ldb_hist *h, size_t *len)
{
	uint32_t last = 0;
	bool any = false;
	for (uint32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i] != 0) {
			last = i;
			any = true;
		}
	uint32_t n = any ? last + 1 : 0;
	unsigned char *b = malloc(HEADER_LEN + 9 * (size_t)n + 1);
	if (b == NULL)
		return NULL;
	size_t o = HEADER_LEN;
	for (uint32_t i = 0; i < n;) {
		uint32_t z = i;
		while (z < n && h->counts[z] == 0)
			z++;
		if (z - i > 1) {
			o += put_varint(b + o, -(int64_t)(z - i));
			i = z;
		} else {
			o += put_varint(b + o, (int64_t)h->counts[i]);
			i++;
		}
	}
	double ratio = 1.0;
	uint64_t rbits;
	memcpy(&rbits, &ratio, sizeof rbits);
	put32(b, V2_COOKIE);
	put32(b + 4, (uint32_t)(o - HEADER_LEN));
	put32(b + 8, 0);
	put32(b + 12, SIG_DIGITS);
	put64(b + 16, LOWEST);
	put64(b + 24, LDB_HIST_HIGHEST);
	put64(b + 32, rbits);
	*len = o;
	return b;
}

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc(4 * ((n + 2) / 3) + 1), *o = s;
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*o++ = tab[(v >> 18) & 63];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return s;
}

char *ldb_hdrlog_encode(const struct ldb_hist *h)
{
	size_t plen;
	unsigned char *plain = encode_plain(h, &plen);
	if (plain == NULL)
		return NULL;
	uLongf zlen = compressBound((uLong)plen);
	unsigned char *z = malloc(8 + zlen);
	char *out = NULL;
	if (z != NULL && compress2(z + 8, &zlen, plain, (uLong)plen, Z_DEFAULT_COMPRESSION) == Z_OK) {
		put32(z, V2_COMPRESSED_COOKIE);
		put32(z + 4, (uint32_t)zlen);
		out = base64(z, 8 + zlen);
	}
	free(z);
	free(plain);
	return out;
}

/* ------------------------------------------------------------ reporter */

struct hdrlog {
	FILE *f;
	const char *path;
	const char *progname;
	bool headed; /* the header is written at the first sample */
};

/* The header, at the first sample: the start is the wall clock now less the
 * sample's end (the run's measured start, after --start-at and --warmup). */
static void put_header(struct hdrlog *r, const struct ldb_sample *s)
{
	char when[64] = "";
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	double start = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - s->t_end;
	time_t secs = (time_t)start;
	if (gmtime_r(&secs, &tm) != NULL)
		strftime(when, sizeof when, "%a %b %d %H:%M:%S UTC %Y", &tm);
	fprintf(r->f, "#[Logged with ldbench %s]\n", LDBENCH_VERSION);
	fprintf(r->f, "#[Histogram log format version 1.3]\n");
	fprintf(r->f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start, when);
	fprintf(r->f, "#[BaseTime: %.3f (seconds since epoch)]\n", start);
	fprintf(r->f, "#[Values in nanoseconds; interval max in milliseconds]\n");
	fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n", r->f);
	r->headed = true;
}

static void put_line(FILE *f, const char *tag, const char *suffix, const struct ldb_sample *s, const struct ldb_hist *h)
{
	char *enc = ldb_hdrlog_encode(h);
	if (enc == NULL)
		return; /* out of memory: the line is left out, the run goes on */
	double start = s->t_end - s->seconds;
	fprintf(f, "Tag=%s%s,%.3f,%.3f,%.3f,%s\n", tag, suffix, start > 0 ? start : 0, s->seconds, (double)h->max / 1e6,
	        enc);
	free(enc);
}

static void hl_sample(void *ctx, const struct ldb_sample *s)
{
	struct hdrlog *r = ctx;
	if (s->workload != NULL) /* [workload] sections: the run's own sample (the total) follows */
		return;
	if (!r->headed)
		put_header(r, s);
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		if (s->lat[k] == NULL)
			continue;
		const char *kn = ldb_op_name((enum ldb_op)k);
		put_line(r->f, kn, "", s, s->lat[k]);
		if (s->ulat[k] != NULL)
			put_line(r->f, kn, "-uncorrected", s, s->ulat[k]);
	}
	fflush(r->f);
}

static void hl_close(void *ctx)
{
	struct hdrlog *r = ctx;
	if (r == NULL)
		return;
	bool bad = fflush(r->f) != 0 || ferror(r->f);
	if (fclose(r->f) != 0 || bad)
		fprintf(stderr, "%s: writing %s failed: the HdrHistogram log is incomplete\n", r->progname, r->path);
	free(r);
}

int ldb_hdrlog_open(const struct ldb_outputs *c, bool append, struct ldb_reporter *out, char *err, size_t cap)
{
	struct hdrlog *r = calloc(1, sizeof *r);
	if (r == NULL) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	r->path = c->hdrlog_path;
	r->progname = c->progname;
	r->f = fopen(r->path, append ? "a" : "w");
	if (r->f == NULL) {
		snprintf(err, cap, "--hdr-log %s: cannot create: %s", r->path, strerror(errno));
		free(r);
		return -1;
	}
	*out = (struct ldb_reporter){ .ctx = r, .sample = hl_sample, .close = hl_close };
	return 0;
}
