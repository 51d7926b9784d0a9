/* Value patterns in UnboundID's syntax (searchrate, modrate, authrate): a
 * value string made of literal text and bracket expressions, compiled once at
 * start-up into a program, rendered per operation into a caller's buffer with
 * no allocation, no lock and bounded time.
 *
 *   text            literal; "[[" is a literal '[', "]]" a literal ']'
 *   [1-1000]        a uniform random integer in [1, 1000]
 *   [1:1000]        sequential: 1, 2, ... 1000, then 1 again (wrap-around)
 *   [1:1000x5]      sequential with a step: 1, 6, 11, ... (the next value past
 *                   the end wraps to the first)
 *   [1000:1]        descending: 1000, 999, ... 1, then 1000 again
 *   [1-1000%0000]   any numeric range with zero padding to 4 digits ("0042");
 *                   the format is a run of '0' (optionally after '#'s)
 *   [zipf:1-1000000:0.99]  Zipf over the range: the first bound is rank 1 (the
 *                   hottest), P(rank k) is proportional to k^-s, s > 0 (here
 *                   0.99); a format may follow: [zipf:1-999:1.2%000]
 *   [random:8:abcdef]  8 characters drawn from the alphabet; [random:8] draws
 *                   from the lowercase letters a-z
 *   [file:PATH]     a random line of the file (also [randomfile:PATH])
 *   [sequentialfile:PATH]  the file's lines in order, wrapping at the end
 *   [streamfile:PATH]  the same for a file too large for memory (see below)
 *   [uuid]          an RFC 4122 version 4 UUID from the client's generator
 *   [timestamp]     the current time, generalized time with milliseconds
 *                   (20240102030405.678Z); [timestamp:format=milliseconds],
 *                   [timestamp:format=seconds] (since the epoch) or
 *                   [timestamp:format=yyyy-MM-dd'T'HH:mm:ss.SSSX] (Java's
 *                   SimpleDateFormat letters y M d H m s S, Z (+0000), X (Z),
 *                   'quoted text'); [timestamp:min=GT:max=GT[:format=...]] a
 *                   random time between two generalized times.  Always UTC.
 *   [ref:N]         the value the N-th bracket expression of this string
 *                   produced (counting from 1; only earlier ones)
 *
 * File paths may be written as UnboundID's file URLs too ([file:///tmp/x]).
 * Files hold one value per line; blank lines are skipped, a CR before the
 * newline is dropped.
 *
 * Sequences are partitioned across the clients, interleaved: client i of n
 * takes positions i, i+n, i+2n, ... of the global sequence (modulo its length),
 * so that n clients running at one pace produce the global sequence together,
 * each value once per lap, without the shared atomic counter every client
 * would contend on (UnboundID's choice).  The same holds for the lines of a
 * [sequentialfile:]; a [streamfile:] is cut into n contiguous slices of whole
 * lines, one per client, each streamed in order and wrapped.
 *
 * Streaming: the state holds a fixed buffer per [streamfile:] (allocated with
 * the state, never during rendering).  Rendering takes the next line from it
 * and only reads the file (one bounded pread) when no whole line is left; a
 * caller that wants no read in its hot loop calls ldb_vp_prefetch() at its
 * idle points, which tops up buffers that are half empty.
 *
 * Random draws use the caller's per-client generator (values/rng), so a run
 * with --seed renders the same values again.
 */
#ifndef LDBENCH_VALUES_VPATTERN_H
#define LDBENCH_VALUES_VPATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values/rng.h"

struct ldb_vp;       /* a compiled pattern: immutable, shared by all clients */
struct ldb_vp_state; /* one client's positions and stream buffers */

/** Bracket expressions in one pattern, at most. */
#define LDB_VP_MAX_BRACKETS 64
/** The longest line a value file may hold. */
#define LDB_VP_LINE_MAX 65536
/** The longest [random:N] string. */
#define LDB_VP_RANDOM_MAX 65536

/** Does text hold a bracket expression (a '[' that is not part of "[[")?
 *  Lets a caller choose between ldclt's XXX and a value pattern. */
bool ldb_vp_has_brackets(const char *text);

/** Compile text.  Value files are read (or, for [streamfile:], scanned once
 *  for their longest line) here.
 *  @return 0, or -1 with one line in err (cap bytes) naming the column and the
 *  problem, e.g. "pattern '(uid=[1-)' column 6: unterminated bracket". */
int ldb_vp_compile(struct ldb_vp **out, const char *text, char *err, size_t cap);
void ldb_vp_free(struct ldb_vp *p);

/** The longest value p can render (so that buffers are sized once). */
size_t ldb_vp_max_len(const struct ldb_vp *p);
/** The number of bracket expressions. */
int ldb_vp_brackets(const struct ldb_vp *p);
/** Does p stream a file ([streamfile:]: ldb_vp_prefetch has work)? */
bool ldb_vp_streams(const struct ldb_vp *p);
/** The text as given. */
const char *ldb_vp_text(const struct ldb_vp *p);

/** A state for client `client` (0-based) of `nclients`: its share of every
 *  sequence and stream.  @return 0, or -1 with one line in err. */
int ldb_vp_state_new(const struct ldb_vp *p, unsigned client, unsigned nclients, struct ldb_vp_state **out, char *err,
                     size_t cap);
void ldb_vp_state_free(struct ldb_vp_state *st);
/** Make [timestamp] read a fixed time (milliseconds since the epoch) instead
 *  of the clock; INT64_MIN goes back to the clock.  For tests. */
void ldb_vp_state_fix_time(struct ldb_vp_state *st, int64_t epoch_ms);
/** Stream reads that found no line (the file shrank or is blank in this
 *  client's slice): the value was then rendered empty. */
uint64_t ldb_vp_stream_misses(const struct ldb_vp_state *st);

/** Render the next value into out (no NUL added).  cap must be at least
 *  ldb_vp_max_len(p).  @return the length, or 0 when cap is too small (an
 *  empty pattern also renders 0 bytes). */
size_t ldb_vp_render(const struct ldb_vp *p, struct ldb_vp_state *st, struct ldb_rng *rng, char *out, size_t cap);

/** The same, and where each bracket's value went: span[k] = {offset, length}
 *  of bracket k (0-based) in out.  span needs ldb_vp_brackets(p) rows. */
size_t ldb_vp_render_spans(const struct ldb_vp *p, struct ldb_vp_state *st, struct ldb_rng *rng, char *out, size_t cap,
                           uint32_t span[][2]);

/** Is every bracket of p a number range (random, sequential, Zipf) or a
 *  [ref:N]?  Such a pattern has a lowest and a highest value: the pre-flight
 *  check renders it at points of its ranges (ldb_vp_render_at). */
bool ldb_vp_ranged(const struct ldb_vp *p);
/** Render p (ldb_vp_ranged) with every range at point `at` of `points`
 *  evenly spaced from its first bound (0) to its last (points - 1); a
 *  [ref:N] copies its bracket's value as usual.  Start-up use (no state, no
 *  generator).  @return the length (no NUL added), or 0 when p is not ranged,
 *  the point is not one of them or cap is below ldb_vp_max_len(p). */
size_t ldb_vp_render_at(const struct ldb_vp *p, int at, int points, char *out, size_t cap);

/** The skeleton of p for a request template (encoded once, holes filled per
 *  operation): its literal text (unescaped: "[[" is '['), every bracket
 *  expression k (0-based) written as the marker LDB_VP_MARK, tag, 0x40 + k
 *  (LDB_VP_MARK_LEN bytes), NUL-ended.  Never longer than the text.
 *  @return the length, 0 when cap is too small. */
#define LDB_VP_MARK '\x01'
#define LDB_VP_MARK_LEN 3
size_t ldb_vp_skeleton(const struct ldb_vp *p, char *out, size_t cap, uint8_t tag);

/** Top up the stream buffers that are less than half full (one pread each).
 *  Call it outside the hot loop.  @return 0, or -1 on a read error. */
int ldb_vp_prefetch(const struct ldb_vp *p, struct ldb_vp_state *st);

/** Rejection-inversion Zipf sampler (Hörmann and Derflinger, 1996): ranks
 *  1..n, P(k) proportional to k^-s, O(1) expected time, no allocation. */
struct ldb_zipf {
	uint64_t n;
	double s;
	double h_x1, h_n, shortcut; /* the integral's bounds, the acceptance shortcut */
};
/** @return 0, or -1 when n is 0 or above 2^53, or s is not in (0, 100]. */
int ldb_zipf_init(struct ldb_zipf *z, uint64_t n, double s);
uint64_t ldb_zipf_draw(const struct ldb_zipf *z, struct ldb_rng *rng);

#endif
