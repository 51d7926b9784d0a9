/* ldbench-slog-speed: how fast the server log reader (src/logs/slog.h) reads,
 * in lines and MB per CPU second of one core.
 *
 *   ldbench-slog-speed SEED OUT MB [--gz]
 *
 * SEED: a log written by a real server (a slapd stats log, a 389 DS access
 * log).  OUT gets SEED's lines repeated until it holds MB megabytes, each
 * repetition's conn= numbers moved up by 1,000,000 (so connections stay
 * distinct); --gz: written gzip'd.  Then OUT is read to its end, every event
 * taken, and the reader's CPU time (CLOCK_PROCESS_CPUTIME_ID: one thread,
 * so one core; the page cache warm from the write) is printed:
 *   "lines N bytes B events E skipped S cpu_s C lines_per_s L mb_per_s M".
 * CPU time, not wall time: the figure stays steady on a shared machine.
 * Built on request: cmake --build build --target ldbench-slog-speed */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "logs/slog.h"
#include "util/util.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One line of SEED, its conn number moved up by add, into out. */
static size_t renumber(const char *p, size_t n, uint64_t add, char *out)
{
	const char *c = memmem(p, n, "conn=", 5);
	if (!c || add == 0) {
		memcpy(out, p, n);
		return n;
	}
	c += 5;
	const char *e = c;
	uint64_t v = 0;
	while (e < p + n && *e >= '0' && *e <= '9')
		v = v * 10 + (uint64_t)(*e++ - '0');
	if (e == c) {
		memcpy(out, p, n);
		return n;
	}
	size_t k = (size_t)(c - p);
	memcpy(out, p, k);
	k += ldb_u64_dec(out + k, v + add);
	memcpy(out + k, e, (size_t)(p + n - e));
	return k + (size_t)(p + n - e);
}

static int generate(const char *seed, size_t slen, const char *path, uint64_t want, int gz)
{
	FILE *f = gz ? NULL : fopen(path, "w");
	gzFile z = gz ? gzopen(path, "wb1") : NULL;
	char *line = malloc(slen + 64);
	if ((!f && !z) || !line)
		return -1;
	uint64_t written = 0;
	for (uint64_t rep = 0; written < want; rep++)
		for (size_t at = 0; at < slen && written < want;) {
			const char *nl = memchr(seed + at, '\n', slen - at);
			const size_t n = nl ? (size_t)(nl - seed - at) + 1 : slen - at;
			const size_t m = renumber(seed + at, n, rep * 1000000, line);
			if (gz ? gzwrite(z, line, (unsigned)m) != (int)m : fwrite(line, 1, m, f) != m)
				return -1;
			written += m;
			at += n;
		}
	free(line);
	return gz ? (gzclose(z) == Z_OK ? 0 : -1) : fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: ldbench-slog-speed SEED OUT MB [--gz]\n");
		return 2;
	}
	FILE *sf = fopen(argv[1], "r");
	char *seed;
	size_t slen;
	if (!sf || ldb_read_all(sf, 0, &seed, &slen) || slen == 0) {
		fprintf(stderr, "ldbench-slog-speed: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(sf);
	const int gz = argc > 4 && !strcmp(argv[4], "--gz");
	if (generate(seed, slen, argv[2], (uint64_t)atol(argv[3]) << 20, gz)) {
		fprintf(stderr, "ldbench-slog-speed: cannot write %s\n", argv[2]);
		return 2;
	}
	char err[600];
	const char *paths[] = { argv[2] };
	const double t0 = cpu_s();
	struct ldb_slog *r = ldb_slog_open(paths, 1, NULL, err, sizeof err);
	if (!r) {
		fprintf(stderr, "ldbench-slog-speed: %s\n", err);
		return 2;
	}
	struct ldb_slog_event ev;
	uint64_t events = 0, skipped = 0;
	int got;
	while ((got = ldb_slog_next(r, &ev)) > 0) {
		events++;
		skipped += ev.kind == LDB_SLOG_SKIP;
	}
	const double t = cpu_s() - t0;
	const struct ldb_slog_stats *st = ldb_slog_stats(r);
	printf("lines %" PRIu64 " bytes %" PRIu64 " events %" PRIu64 " skipped %" PRIu64
	       " cpu_s %.3f lines_per_s %.0f mb_per_s %.1f\n",
	       st->lines, st->bytes, events, skipped, t, (double)st->lines / t, (double)st->bytes / t / 1e6);
	ldb_slog_close(r);
	free(seed);
	return got < 0;
}
