/* Server access logs read as events (logs/slog.h): a stub until the parsers
 * land; the names are final. */
#include <stdio.h>

#include "logs/slog.h"

struct ldb_slog {
	int unused;
};

struct ldb_slog *ldb_slog_open(const char *const *paths, size_t npaths, const struct ldb_slog_opts *opts, char *err,
                               size_t errlen)
{
	(void)paths;
	(void)opts;
	snprintf(err, errlen, "%s: server log reader not built yet", npaths ? paths[0] : "-");
	return NULL;
}

struct ldb_slog *ldb_slog_open_mem(const char *buf, size_t len, const char *name, const struct ldb_slog_opts *opts)
{
	(void)buf;
	(void)len;
	(void)name;
	(void)opts;
	return NULL;
}

int ldb_slog_next(struct ldb_slog *r, struct ldb_slog_event *ev)
{
	(void)r;
	(void)ev;
	return 0;
}

enum ldb_slog_format ldb_slog_format(const struct ldb_slog *r)
{
	(void)r;
	return LDB_SLOG_FMT_UNKNOWN;
}

const struct ldb_slog_stats *ldb_slog_stats(const struct ldb_slog *r)
{
	(void)r;
	return NULL;
}

const char *ldb_slog_error(const struct ldb_slog *r)
{
	(void)r;
	return "";
}

void ldb_slog_close(struct ldb_slog *r)
{
	(void)r;
}

const char *ldb_slog_optype_name(enum ldb_slog_optype t)
{
	static const char *const n[LDB_SLOG_NOPTYPES] = { "none",     "bind",    "search", "add",
		                                          "modify",   "delete",  "modrdn", "compare",
		                                          "extended", "abandon", "unbind", "other" };
	return (unsigned)t < LDB_SLOG_NOPTYPES ? n[t] : "?";
}

const char *ldb_slog_skip_name(enum ldb_slog_skip s)
{
	static const char *const n[LDB_SLOG_NSKIPS] = { "none",         "known",     "unknown-op", "garbage",
		                                        "other-format", "bad-field", "too-long",   "truncated" };
	return (unsigned)s < LDB_SLOG_NSKIPS ? n[s] : "?";
}

const char *ldb_slog_format_name(enum ldb_slog_format f)
{
	return f == LDB_SLOG_FMT_389 ? "389ds" : f == LDB_SLOG_FMT_OPENLDAP ? "openldap" : "unknown";
}
