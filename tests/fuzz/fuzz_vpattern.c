/* libFuzzer target: UnboundID-style value patterns (values/vpattern).
 *
 * Input: 1 byte (bits 0-2: the client count less one, bits 3-5: the client),
 * 8 bytes of seed (little endian), then the pattern text (cut at the first
 * NUL).  Texts naming a file are skipped (the fuzzer must not read the
 * machine's files).  Compiles the text; a refusal must say why on one line.
 * An accepted pattern is rendered 16 times into a heap buffer of exactly its
 * maximum length (so that ASan sees any overrun) and once into one byte less,
 * which must write nothing; a back-reference-free program with the same seed
 * must render the same bytes again. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values/rng.h"
#include "values/vpattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render_all(const struct ldb_vp *p, unsigned client, unsigned n, uint64_t seed)
{
	struct ldb_vp_state *st, *st2;
	struct ldb_rng rng, rng2;
	char err[512];
	size_t max = ldb_vp_max_len(p);
	char *buf = malloc(max ? max : 1), *again = malloc(max ? max : 1);

	if (buf == NULL || again == NULL || ldb_vp_state_new(p, client, n, &st, err, sizeof(err)) != 0) {
		free(buf);
		free(again);
		return;
	}
	if (ldb_vp_state_new(p, client, n, &st2, err, sizeof(err)) != 0)
		abort();
	ldb_vp_state_fix_time(st, 1700000000000);
	ldb_vp_state_fix_time(st2, 1700000000000);
	ldb_rng_seed(&rng, seed, client);
	ldb_rng_seed(&rng2, seed, client);
	for (int i = 0; i < 16; i++) {
		size_t len = ldb_vp_render(p, st, &rng, buf, max);
		size_t len2 = ldb_vp_render(p, st2, &rng2, again, max);

		if (len > max || len != len2 || memcmp(buf, again, len) != 0)
			abort(); /* over the bound, or not reproducible */
	}
	if (max > 0 && ldb_vp_render(p, st, &rng, buf, max - 1) != 0)
		abort();
	ldb_vp_state_free(st);
	ldb_vp_state_free(st2);
	free(buf);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 9 || size > 4096)
		return 0;
	unsigned n = (data[0] & 7) + 1, client = ((unsigned)data[0] >> 3 & 7) % n;
	uint64_t seed = 0;

	for (int i = 8; i >= 1; i--)
		seed = seed << 8 | data[i];
	size_t tlen = size - 9;
	char *text = malloc(tlen + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data + 9, tlen);
	text[tlen] = '\0';
	if (strstr(text, "file:") != NULL) {
		free(text);
		return 0;
	}
	struct ldb_vp *p;
	char err[512];

	err[0] = '\0';
	if (ldb_vp_compile(&p, text, err, sizeof(err)) != 0) {
		/* one line naming the column */
		if (err[0] == '\0' || strstr(err, " column ") == NULL || strchr(err, '\n') != NULL)
			abort();
		free(text);
		return 0;
	}
	if (strcmp(ldb_vp_text(p), text) != 0)
		abort();
	if (!ldb_vp_has_brackets(text) && ldb_vp_brackets(p) != 0)
		abort();
	render_all(p, client, n, seed);
	ldb_vp_free(p);
	free(text);
	return 0;
}
