/* bench/json_speed.c's jansson pass (json_speed.h). */
#include <jansson.h>
#include <stdio.h>

#include "json_speed.h"

/* Member key of o, or NULL.  Not json_object_get: json-c, linked in the same
 * program, exports a function of that name (its reference count). */
static json_t *member(json_t *o, const char *key)
{
	return o != NULL ? json_object_iter_value(json_object_iter_at(o, key)) : NULL;
}

uint64_t ldb_bench_pass_jansson(const struct lines *l, size_t *refused, char *why, size_t cap)
{
	uint64_t sum = 0;
	json_error_t e;
	*refused = 0;
	for (size_t i = 0; i < l->count; i++) {
		json_t *j = json_loadb(l->s[i], l->n[i], JSON_REJECT_DUPLICATES, &e);
		if (j == NULL) { /* counted, and the first reason kept: the pass goes on */
			if ((*refused)++ == 0)
				snprintf(why, cap, "%s (column %d)", e.text, e.column);
			continue;
		}
		json_t *c = member(member(member(j, "ops"), "search"), "completed");
		if (json_is_integer(c))
			sum += (uint64_t)json_integer_value(c);
		json_decref(j);
	}
	return sum;
}
