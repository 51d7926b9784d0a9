/* Value patterns: the compiled program and the per-client state, shared by
 * vpattern.c (parse, render) and vpattern_src.c (files, streams, timestamps,
 * Zipf).  Not for other modules: they use values/vpattern.h. */
#ifndef LDBENCH_VALUES_VPATTERN_INT_H
#define LDBENCH_VALUES_VPATTERN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"
#include "values/vpattern.h"

enum vp_op { VP_LIT, VP_RAND, VP_SEQ, VP_ZIPF, VP_STR, VP_FILE, VP_SEQFILE, VP_STREAM, VP_UUID, VP_TIME, VP_REF };

/* A file's lines, read whole at compile time. */
struct vp_lines {
	char *buf; /* the file, lines NUL-terminated in place */
	const char **line;
	uint32_t *len;
	uint64_t n;
};

/* A file streamed by the clients: an open descriptor (pread: no shared offset). */
struct vp_stream {
	int fd;
	uint64_t size;
	size_t maxline;
};

/* A timestamp: where the time comes from and how it is written. */
enum vp_tkind { VT_GENERALIZED, VT_MILLIS, VT_SECONDS, VT_FORMAT };
struct vp_tok {
	char field; /* a SimpleDateFormat letter, or 0 for the literal character lit */
	char lit;
	uint8_t count; /* the letter's repetitions */
};
struct vp_time {
	enum vp_tkind kind;
	bool random; /* min= and max= given */
	int64_t min_ms;
	uint64_t span_ms; /* max - min */
	struct vp_tok *tok;
	int ntok;
};

struct vp_node {
	enum vp_op op;
	int bracket; /* 0-based bracket number, -1 for literal text */
	int slot;    /* the state slot of a sequence or a stream, else -1 */
	int ref;     /* VP_REF: the 0-based bracket it copies */
	size_t maxlen;
	const char *lit; /* VP_LIT: into the program's literal buffer */
	size_t litlen;
	/* numbers: first value, direction, step, positions in the sequence */
	int64_t first, last;
	uint64_t step, count;
	bool down;
	size_t width; /* zero padding, 0 for none */
	struct ldb_zipf zipf;
	/* random strings */
	const char *alpha;
	uint32_t nalpha;
	size_t len;
	struct vp_lines lines;
	struct vp_stream stream;
	struct vp_time time;
};

struct ldb_vp {
	char *text;
	char *lits; /* the literal parts, unescaped, and the alphabets */
	struct vp_node *node;
	int nnodes;
	int nbrackets;
	int nslots;
	bool has_refs;                         /* render remembers where each bracket's value is */
	int bracket_node[LDB_VP_MAX_BRACKETS]; /* each bracket's node */
	size_t maxlen;
};

/* One sequence or stream of one client. */
struct vp_slot {
	uint64_t pos, stride, count; /* sequences: position, step between clients */
	/* streams: the buffer, its valid bytes [head, tail), the slice, the next read */
	char *buf;
	size_t cap, head, tail;
	uint64_t start, end, next;
	int node;
};

struct ldb_vp_state {
	int64_t fixed_ms; /* INT64_MIN: the clock */
	uint64_t misses;
	int nslots;
	struct vp_slot slot[];
};

/* Error reporting during compile. */
struct vp_err {
	const char *text;
	char *err;
	size_t cap;
};
int vp_fail(const struct vp_err *e, size_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* vpattern_src.c */
int vp_load_lines(struct vp_lines *l, const char *path, const struct vp_err *e, size_t col, size_t *maxlen);
int vp_open_stream(struct vp_stream *s, const char *path, const struct vp_err *e, size_t col);
int vp_parse_time(struct vp_time *t, const char *tok, size_t n, const struct vp_err *e, size_t col, size_t *maxlen);
int vp_stream_slot(const struct vp_stream *s, struct vp_slot *sl, unsigned client, unsigned nclients);
size_t vp_put_time(char *dst, const struct vp_time *t, int64_t now_ms, struct ldb_rng *rng);
size_t vp_put_stream(char *dst, const struct vp_stream *s, struct vp_slot *sl, uint64_t *misses);
int vp_refill(const struct vp_stream *s, struct vp_slot *sl);
int64_t vp_now_ms(void);

#endif
