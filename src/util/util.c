/* Small helpers shared by several modules (util.h). */
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

size_t ldb_u64_dec(char *dst, uint64_t v)
{
	char tmp[LDB_U64_DEC_MAX];
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		dst[len++] = tmp[--n];
	return len;
}

int ldb_read_all(FILE *f, size_t max, char **buf, size_t *len)
{
	char *b = NULL;
	size_t n = 0, cap = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = realloc(b, ncap);

			if (nb == NULL) {
				free(b);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
			cap = ncap;
		}
		size_t k = fread(b + n, 1, cap - n - 1, f);

		n += k;
		if (max > 0 && n > max) {
			free(b);
			errno = EFBIG;
			return -1;
		}
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		free(b);
		errno = e;
		return -1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

void ldb_hugepages(void *p, size_t n)
{
	const uintptr_t page = 4096;
	if (p == NULL || n < ((size_t)4 << 20))
		return;
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
	(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}
