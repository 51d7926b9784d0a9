/* The command line's shared helpers: the one-line error, strings, strict
 * numbers (util/num.h underneath) and the DN checks. */
#include "cli/ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldap.h>

#include "util/num.h"

/* Write "progname: <message>" into err, one line: control characters that a
 * user's value may carry (a newline in -f, say) become '?'. */
__attribute__((format(printf, 2, 3))) int cli_fail(struct cli_ctx *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (x->err == NULL || x->errcap == 0)
		return -1;
	n = snprintf(x->err, x->errcap, "%s: ", x->c->progname);
	if (n < 0)
		n = 0;
	if ((size_t)n < x->errcap) {
		va_start(ap, fmt);
		vsnprintf(x->err + n, x->errcap - (size_t)n, fmt, ap);
		va_end(ap);
	}
	for (char *p = x->err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

int cli_oom(struct cli_ctx *x)
{
	return cli_fail(x, "out of memory");
}

/* Replace *dst with a copy of s. */
int cli_set_str(struct cli_ctx *x, char **dst, const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		return cli_oom(x);
	free(*dst);
	*dst = d;
	return 0;
}

/* ---------------------------------------------------------------- numbers */

/* Parse the value of option `opt` (sep ' ' for a flag, '=' for a -e keyword)
 * into [min, max]; `what` names the setting in the message (util/num.h). */
int cli_parse_num(struct cli_ctx *x, const char *opt, char sep, const char *arg, long long min, long long max,
                  const char *what, long long *out)
{
	char why[4096];

	if (ldb_num_range(opt, sep, arg, min, max, what, out, why, sizeof why) < 0)
		return cli_fail(x, "%s", why);
	return 0;
}

int cli_parse_int(struct cli_ctx *x, const char *opt, const char *arg, long long min, long long max, const char *what,
                  int *out)
{
	long long v;

	if (cli_parse_num(x, opt, ' ', arg, min, max, what, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

bool cli_dn_is_valid(const char *dn)
{
	LDAPDN parsed = NULL;

	if (ldap_str2dn(dn, &parsed, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		return false;
	ldap_dnfree(parsed);
	return true;
}

/* ldap_str2dn: exactly one RDN of one attribute=value. */
bool cli_rdn_is_valid(const char *s, size_t len)
{
	LDAPDN dn = NULL;
	struct berval bv = { (ber_len_t)len, (char *)(uintptr_t)s };
	bool ok;

	if (len == 0 || memchr(s, '=', len) == NULL)
		return false;
	if (ldap_bv2dn(&bv, &dn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		return false;
	ok = dn != NULL && dn[0] != NULL && dn[1] == NULL && dn[0][0] != NULL && dn[0][1] == NULL;
	ldap_dnfree(dn);
	return ok;
}
