/* The generator's output buffer, LDIF lines and entries, indexes, errors. */
#include "gen/out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "ldif/entry.h"
#include "ldif/ldif.h"
#include "util/util.h"

#define GEN_BUF_SIZE (1u << 20) /* output buffer: 1 MiB */

void gen_err(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || cap == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* output buffer */

int gen_out_init(struct gen_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->cap = GEN_BUF_SIZE;
	o->buf = malloc(o->cap);
	if (o->buf == NULL)
		return -1;
	return 0;
}

static void gen_out_flush(struct gen_out *o)
{
	if (o->len > 0 && !o->failed) {
		if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
			o->failed = true;
			o->saved_errno = errno ? errno : EIO;
		}
	}
	o->len = 0;
}

/* Make room for n more bytes.  Returns false when memory ran out. */
static bool gen_out_reserve(struct gen_out *o, size_t n)
{
	if (o->len + n <= o->cap)
		return true;
	gen_out_flush(o);
	if (n > o->cap) {
		char *nb = realloc(o->buf, n);

		if (nb == NULL) {
			o->failed = true;
			o->saved_errno = ENOMEM;
			return false;
		}
		o->buf = nb;
		o->cap = n;
	}
	return true;
}

void gen_out_mem(struct gen_out *o, const void *p, size_t n)
{
	if (!gen_out_reserve(o, n))
		return;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void gen_out_str(struct gen_out *o, const char *s)
{
	gen_out_mem(o, s, strlen(s));
}

int gen_out_finish(struct gen_out *o)
{
	gen_out_flush(o);
	if (!o->failed && fflush(o->f) != 0) {
		o->failed = true;
		o->saved_errno = errno ? errno : EIO;
	}
	free(o->buf);
	o->buf = NULL;
	return o->failed ? o->saved_errno : 0;
}

/* ------------------------------------------------------------------------ */
/* LDIF lines and entries (ldif/ldif.h, ldif/entry.h) */

void gen_out_attr(struct gen_out *o, const char *name, const char *value, size_t vlen)
{
	size_t nlen = strlen(name);

	if (!gen_out_reserve(o, ldb_ldif_line_max(nlen, vlen)))
		return;
	o->len += ldb_ldif_put_line(o->buf + o->len, name, nlen, value, vlen);
}

void gen_out_broken(struct gen_out *o)
{
	if (!o->failed) {
		o->failed = true;
		o->saved_errno = EOVERFLOW;
	}
}

void gen_out_entry(struct gen_out *o, const struct ldb_entry *e)
{
	for (int i = 0; i < e->n; i++)
		gen_out_attr(o, e->v[i].type, e->v[i].val, e->v[i].len);
}

void gen_out_attr_str(struct gen_out *o, const char *name, const char *value)
{
	gen_out_attr(o, name, value, strlen(value));
}

size_t gen_put_index(char *dst, uint64_t v, int width)
{
	char tmp[LDB_U64_DEC_MAX];
	size_t n = ldb_u64_dec(tmp, v), len = 0;

	for (size_t pad = n; pad < (size_t)width; pad++)
		dst[len++] = '0';
	memcpy(dst + len, tmp, n);
	return len + n;
}

int gen_digits(uint64_t v)
{
	int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

int gen_missing(const char *opt, char *err, size_t cap)
{
	gen_err(err, cap, "%s is required", opt);
	return LDB_EXIT_PARAMS;
}

int gen_emit_finish(struct gen_out *o, bool hash_failed, char *err, size_t cap)
{
	int e = gen_out_finish(o);

	if (hash_failed) {
		gen_err(err, cap, "hashing a password failed (OpenSSL digest or random generator)");
		return LDB_EXIT_OTHER;
	}
	if (e != 0) {
		gen_err(err, cap, "write failed: %s", strerror(e));
		return LDB_EXIT_OTHER;
	}
	return 0;
}
