/* The generator's output: one big buffer flushed to a FILE with fwrite, the
 * LDIF lines (ldif/ldif.h: base64 when RFC 2849 says a value is not safe)
 * and entries (ldif/entry.h) written into it, the zero-padded index, and the
 * one-line error message every gen module fills. */
#ifndef LDBENCH_GEN_OUT_H
#define LDBENCH_GEN_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ldb_entry;

/* Widest zero-padding of an index (--width). */
#define GEN_MAX_WIDTH 32

/* The output: bytes gathered in buf, written with fwrite when it is full. */
struct gen_out {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool failed;     /* a write failed; later writes are dropped */
	int saved_errno; /* errno of the first failure */
};

/* The one-line message of a failure into err (cap bytes; nothing when NULL). */
void gen_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An empty output to f, its 1 MiB buffer allocated.  @return 0 or -1 (no memory). */
int gen_out_init(struct gen_out *o, FILE *f);

/* n bytes as they are; gen_out_str: a string. */
void gen_out_mem(struct gen_out *o, const void *p, size_t n);

void gen_out_str(struct gen_out *o, const char *s);

/* Flush the buffer and the FILE; free the buffer.  @return 0, or the errno of
 * the first failure. */
int gen_out_finish(struct gen_out *o);

/* "name: value\n", or "name:: base64\n" when the value is not safe. */
void gen_out_attr(struct gen_out *o, const char *name, const char *value, size_t vlen);

/* An entry gen cannot build (its text storage is sized for every shape):
 * the output fails. */
void gen_out_broken(struct gen_out *o);

/* Every value of e, one line each. */
void gen_out_entry(struct gen_out *o, const struct ldb_entry *e);

/* gen_out_attr of a string. */
void gen_out_attr_str(struct gen_out *o, const char *name, const char *value);

/* Decimal v zero-padded to width; returns the length (no NUL). */
size_t gen_put_index(char *dst, uint64_t v, int width);

/* The decimal digits of v (1 for 0). */
int gen_digits(uint64_t v);

/* The message of a missing required option; @return LDB_EXIT_PARAMS. */
int gen_missing(const char *opt, char *err, size_t cap);

/* Finish the output (gen_out_finish); @return 0, or 99 with err when hash_failed
 * or a write failed. */
int gen_emit_finish(struct gen_out *o, bool hash_failed, char *err, size_t cap);

#endif
