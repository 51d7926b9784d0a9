/* The pre-flight check: see preflight.h. */
#include "server/preflight.h"

#include "ops/ops.h"
#include "proto/wire.h"
#include "side/ldapconn.h"
#include "values/vpattern.h"

#include <ldap.h>
#include <stdlib.h>
#include <string.h>

#define NVALS 5 /* the lowest, three in between, the highest */
#define LINE 1024

/* -f's value pattern has a lowest and a highest value (every bracket a
 * number range, values/vpattern.h ldb_vp_ranged), -b none. */
static bool pattern_search(const struct ldb_config *c)
{
	const struct ldb_vp *vp = c->filter_pat.vp;
	return vp != NULL && ldb_vp_ranged(vp) && ldb_vp_max_len(vp) + 3 < LINE && c->base_pat.vp == NULL &&
	       !ldb_pattern_has_var(&c->base_pat);
}

/* A run that also adds, deletes or renames (changes which entries exist)
 * changes the data it searches: its misses may be the point.  With -e string
 * the X run is random bytes, not numbers: there is no lowest or highest value
 * to look for.  Its searches are of the readers' kind (ops.h): -f's XXX over
 * a range, or its value pattern over its ranges. */
static bool search_wanted(const struct ldb_config *c)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		if (c->weight[k] > 0 && ldb_ops[k]->changes == LDB_CHANGES_ENTRIES)
			return false;
	if (c->rnd_string || c->filter == NULL || c->weight[LDB_OPS_WITH(reads)] == 0)
		return false;
	return pattern_search(c) || (c->valmode != LDB_VAL_FIXED && c->range_low >= 0 && c->range_high >= 0 &&
	                             ldb_pattern_has_var(&c->filter_pat) && !ldb_pattern_has_var(&c->base_pat));
}

static bool bind_wanted(const struct ldb_config *c)
{
	return (c->randombinddn && !c->randomauthid && ldb_pattern_has_var(&c->bind_dn_pat)) || c->binddn_file_n > 0;
}

bool ldb_preflight_wanted(const struct ldb_config *c)
{
	return !c->no_preflight && c->sasl_mech == NULL && (search_wanted(c) || bind_wanted(c));
}

/* The connection (side/ldapconn: the run's address and TLS, not bound yet).
 * A server that cannot be reached is the load's to report, in ldclt's words
 * (NULL, nothing said); a TLS handshake that fails (a certificate that does
 * not verify) stops the run here, as it would stop the load's clients: one
 * line and *status 4. */
static LDAP *open_conn(const struct ldb_config *c, const struct ldb_say *t, struct ldb_preflight *pf, int *status)
{
	struct ldb_side side;
	char why[768];
	const struct ldb_side_opts o = { .who = NULL };
	struct ldb_target target;
	ldb_target_of_config(&target, c);
	int rc = ldb_side_open(&side, &target, &o, why, sizeof why);
	if (side.starttls) {
		pf->total++; /* the StartTLS extended operation, counted with the extended kinds */
		pf->own[LDB_OPS_WITH(setup_extended)]++;
	}
	if (rc == 0)
		return side.ld;
	if (side.fail == LDB_SIDE_TLS) {
		ldb_say(t, "Pre-flight: %s", why);
		*status = ldb_side_exit_status(side.fail);
	}
	return NULL;
}

static int simple_bind(LDAP *ld, const char *dn, const char *pw, struct ldb_preflight *pf)
{
	struct berval cred = { pw ? strlen(pw) : 0, (char *)pw };
	pf->own[LDB_OPS_WITH(connect_bind)]++;
	pf->total++;
	return ldap_sasl_bind_s(ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
}

/* The DN and password of bind check i (0 the lowest, 1 the highest). */
static void bind_identity(const struct ldb_config *c, int i, char *dn, char *pw, size_t cap)
{
	if (c->binddn_file_n > 0) {
		size_t at = i == 0 ? 0 : c->binddn_file_n - 1;
		snprintf(dn, cap, "%s", c->binddn_file_dns[at]);
		snprintf(pw, cap, "%s", c->binddn_file_pws[at] ? c->binddn_file_pws[at] : "");
		return;
	}
	long long v = i == 0 ? c->binddn_low : c->binddn_high;
	ldb_pattern_render_cstr(&c->bind_dn_pat, v, dn, cap);
	if (ldb_pattern_has_var(&c->password_pat))
		ldb_pattern_render_cstr(&c->password_pat, v, pw, cap);
	else
		snprintf(pw, cap, "%s", c->password ? c->password : "");
}

/* The server could not be asked: the load reports it, in ldclt's words. */
static bool unreachable(int rc)
{
	return rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR || rc == LDAP_TIMEOUT || rc == LDAP_UNAVAILABLE ||
	       rc == LDAP_BUSY;
}

/* " (ignored: -I N)" when -I names rc: the user expects it, the load counts
 * it and goes on, so the check does not hold it against the range. */
static const char *ignored_note(const struct ldb_config *c, int rc, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (rc != LDAP_SUCCESS && ldb_config_ignored(c, rc))
		snprintf(buf, cap, " (ignored: -I %d)", rc);
	return buf;
}

/* A bind result that says the DN does not match the data. */
static bool bind_mismatch(const struct ldb_config *c, int rc)
{
	return (rc == LDAP_INVALID_CREDENTIALS || rc == LDAP_NO_SUCH_OBJECT || rc == LDAP_INVALID_DN_SYNTAX) &&
	       !ldb_config_ignored(c, rc);
}

/* Bind as the lowest and the highest.  @return the exit status (-1: the
 * server could not be asked); the connection stays bound as the lowest when
 * both worked (the searches then run as the load's first identity). */
static int check_binds(const struct ldb_config *c, LDAP *ld, const struct ldb_say *t, struct ldb_preflight *pf)
{
	char dn[2][512], pw[512], note[2][32];
	int rc[2];
	for (int i = 1; i >= 0; i--) {
		bind_identity(c, i, dn[i], pw, sizeof pw);
		rc[i] = simple_bind(ld, dn[i], pw, pf);
	}
	if (unreachable(rc[0]) || unreachable(rc[1]))
		return -1; /* the load reports it */
	ldb_say(t, "Pre-flight: bind as %s: %s%s; as %s: %s%s", dn[0], ldap_err2string(rc[0]),
	        ignored_note(c, rc[0], note[0], sizeof note[0]), dn[1], ldap_err2string(rc[1]),
	        ignored_note(c, rc[1], note[1], sizeof note[1]));
	for (int i = 0; i < 2; i++)
		if (bind_mismatch(c, rc[i])) {
			ldb_say(t,
			        "Pre-flight failed: the %s bind DN %s does not bind (%s): the %s does not match "
			        "the data (--no-preflight runs anyway)",
			        i == 0 ? "lowest" : "highest", dn[i], ldap_err2string(rc[i]),
			        c->binddn_file_n > 0 ? "randombinddnfromfile file" : "randombinddn range");
			return LDB_EXIT_PREFLIGHT;
		}
	return LDB_EXIT_OK;
}

/* The filter at value v, with the parentheses libldap wants. */
static void filter_at(const struct ldb_config *c, long long v, char *buf, size_t cap)
{
	char f[LINE];
	ldb_pattern_render_cstr(&c->filter_pat, v, f, sizeof f);
	snprintf(buf, cap, f[0] == '(' ? "%s" : "(%s)", f);
}

/* The filter at point i of NVALS: -f's XXX at a value from -r to -R (*v),
 * or its value pattern with every range at that point of its span. */
static void filter_point(const struct ldb_config *c, int i, char *buf, size_t cap, long long *v)
{
	if (pattern_search(c)) {
		char f[LINE];
		size_t n = ldb_vp_render_at(c->filter_pat.vp, i, NVALS, f, sizeof f - 1);
		f[n] = '\0';
		snprintf(buf, cap, f[0] == '(' ? "%s" : "(%s)", f);
		return;
	}
	*v = c->range_low + (long long)((double)(c->range_high - c->range_low) * i / (NVALS - 1));
	filter_at(c, *v, buf, cap);
}

/* Entries the filter at value v returns; -1 with the result code in *rc when
 * the search failed (a size limit is not a failure: at least that many). */
static long long count_entries(const struct ldb_config *c, LDAP *ld, const char *filter, int *rc,
                               struct ldb_preflight *pf)
{
	static char none[] = LDAP_NO_ATTRS;
	char *attrs[] = { none, NULL };
	LDAPMessage *res = NULL;
	struct timeval tv = { (time_t)c->timeout_sec, 0 };
	static const int scope[] = { [LDB_SCOPE_BASE] = LDAP_SCOPE_BASE,
		                     [LDB_SCOPE_ONE] = LDAP_SCOPE_ONELEVEL,
		                     [LDB_SCOPE_SUB] = LDAP_SCOPE_SUBTREE };
	pf->own[LDB_OPS_WITH(reads)]++;
	pf->total++;
	*rc = ldap_search_ext_s(ld, c->base, scope[c->scope], filter, attrs, 0, NULL, NULL, &tv, 0, &res);
	long long n = res ? ldap_count_entries(ld, res) : 0;
	ldap_msgfree(res);
	if (*rc == LDAP_SIZELIMIT_EXCEEDED || *rc == LDAP_ADMINLIMIT_EXCEEDED)
		*rc = LDAP_SUCCESS;
	return *rc == LDAP_SUCCESS || *rc == LDAP_NO_SUCH_OBJECT ? n : -1;
}

/* The line that says which filter does not match, and why. */
static void say_mismatch(const struct ldb_config *c, const struct ldb_say *t, const char *filter, int at, long long v,
                         long long got)
{
	char want[64], where[LINE + 96];
	snprintf(want, sizeof want, c->expect_entries >= 0 ? "%lld (srchnentries)" : "at least 1", c->expect_entries);
	if (pattern_search(c)) {
		if (at == 0 || at == NVALS - 1)
			snprintf(where, sizeof where, "every range of %s at its %s bound", c->filter,
			         at == 0 ? "first" : "last");
		else
			snprintf(where, sizeof where, "every range of %s at %d/%d of the way", c->filter, at,
			         NVALS - 1);
		ldb_say(t,
		        "Pre-flight failed: the filter %s (%s) returns %lld entries, expected %s: the pattern "
		        "does not match the data under %s (--no-preflight runs anyway)",
		        filter, where, got, want, c->base);
		return;
	}
	ldb_say(t,
	        "Pre-flight failed: the filter %s (value %lld of -r %lld -R %lld) returns %lld entries, "
	        "expected %s: the range does not match the data under %s (--no-preflight runs anyway)",
	        filter, v, c->range_low, c->range_high, got, want, c->base);
}

/* The filter at the lowest, the highest and three values in between.  A
 * search that fails (not for want of entries) is shown, not held against
 * the range: the load's errors will say what is wrong. */
static int check_searches(const struct ldb_config *c, LDAP *ld, const struct ldb_say *t, struct ldb_preflight *pf)
{
	char line[LINE], filter[LINE], prev[LINE] = "", bad_filter[LINE] = "";
	long long v = -1, bad = -1, got = 0;
	int rc = LDAP_SUCCESS, bad_at = -1;
	size_t len = (size_t)snprintf(line, sizeof line, "Pre-flight: search");
	for (int i = 0; i < NVALS; i++) {
		filter_point(c, i, filter, sizeof filter, &v);
		if (strcmp(filter, prev) == 0)
			continue;
		snprintf(prev, sizeof prev, "%s", filter);
		long long n = count_entries(c, ld, filter, &rc, pf);
		if (n < 0 && unreachable(rc))
			return LDB_EXIT_OK;
		char note[32];
		ignored_note(c, rc, note, sizeof note); /* a base -I 32 expects to be missing */
		if (n >= 0 && !note[0] && !(c->expect_entries >= 0 ? n == c->expect_entries : n > 0) && bad_at < 0) {
			bad_at = i;
			bad = v;
			got = n;
			snprintf(bad_filter, sizeof bad_filter, "%s", filter);
		}
		if (len >= sizeof line)
			continue;
		if (n >= 0)
			len += (size_t)snprintf(line + len, sizeof line - len, "%s %s %lld%s", i ? "," : "", filter, n,
			                        note);
		else
			len += (size_t)snprintf(line + len, sizeof line - len, "%s %s error %d (%s)%s", i ? "," : "",
			                        filter, rc, ldap_err2string(rc), note);
	}
	ldb_say(t, "%s entries", line);
	if (bad_at < 0)
		return LDB_EXIT_OK;
	say_mismatch(c, t, bad_filter, bad_at, bad, got);
	return LDB_EXIT_PREFLIGHT;
}

int ldb_preflight_run(const struct ldb_config *c, const struct ldb_say *t, struct ldb_preflight *pf)
{
	memset(pf, 0, sizeof *pf);
	if (!ldb_preflight_wanted(c))
		return LDB_EXIT_OK;
	/* a server that cannot be reached is the load's to report, in ldclt's words */
	int status = LDB_EXIT_OK;
	LDAP *ld = open_conn(c, t, pf, &status);
	if (ld == NULL)
		return status;
	if (bind_wanted(c)) {
		status = check_binds(c, ld, t, pf);
	} else if (c->bind_dn != NULL) {
		int rc = simple_bind(ld, c->bind_dn, c->password, pf);
		if (rc != LDAP_SUCCESS) {
			/* the load's own bind fails the same way: it says so */
			ldap_unbind_ext_s(ld, NULL, NULL);
			pf->total++;
			return LDB_EXIT_OK;
		}
	}
	if (status == LDB_EXIT_OK && search_wanted(c))
		status = check_searches(c, ld, t, pf);
	if (status < 0)
		status = LDB_EXIT_OK;
	ldap_unbind_ext_s(ld, NULL, NULL);
	pf->total++; /* the unbind */
	return status;
}
