/* --monitor: see monitor.h. */
#include "out/monitor.h"

#include "ops/ops.h"

#include <ldap.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint64_t first_u64(LDAP *ld, LDAPMessage *e, const char *attr)
{
	struct berval **v = ldap_get_values_len(ld, e, attr);
	uint64_t n = 0;
	if (v != NULL && v[0] != NULL) {
		char buf[32];
		size_t len = v[0]->bv_len < sizeof buf - 1 ? v[0]->bv_len : sizeof buf - 1;
		memcpy(buf, v[0]->bv_val, len);
		buf[len] = '\0';
		n = strtoull(buf, NULL, 10);
	}
	ldap_value_free_len(v);
	return n;
}

static int read_openldap(LDAP *ld, struct ldb_monitor_snap *s)
{
	static char a_cn[] = "cn", a_opc[] = "monitorOpCompleted";
	char *attrs[] = { a_cn, a_opc, NULL };
	LDAPMessage *res = NULL;
	struct timeval tv = { 10, 0 };
	int rc = ldap_search_ext_s(ld, "cn=Operations,cn=Monitor", LDAP_SCOPE_ONELEVEL, "(objectClass=*)", attrs, 0,
	                           NULL, NULL, &tv, 0, &res);
	if (rc != LDAP_SUCCESS) {
		ldap_msgfree(res);
		return rc;
	}
	int found = 0;
	for (LDAPMessage *e = ldap_first_entry(ld, res); e != NULL; e = ldap_next_entry(ld, e)) {
		struct berval **cn = ldap_get_values_len(ld, e, "cn");
		if (cn != NULL && cn[0] != NULL) {
			uint64_t n = first_u64(ld, e, "monitorOpCompleted");
			s->total += n;
			for (int k = 0; k < LDB_OP_COUNT; k++)
				if (strlen(ldb_ops[k]->monitor) == cn[0]->bv_len &&
				    strncasecmp(cn[0]->bv_val, ldb_ops[k]->monitor, cn[0]->bv_len) == 0) {
					s->completed[k] = n;
					found++;
				}
		}
		ldap_value_free_len(cn);
	}
	ldap_msgfree(res);
	if (found == 0)
		return LDAP_NO_SUCH_OBJECT;
	s->kind = LDB_MON_OPENLDAP;
	return LDAP_SUCCESS;
}

static int read_389ds(LDAP *ld, struct ldb_monitor_snap *s)
{
	static char done[] = "opscompleted", init[] = "opsinitiated";
	char *attrs[] = { done, init, NULL };
	LDAPMessage *res = NULL;
	struct timeval tv = { 10, 0 };
	int rc = ldap_search_ext_s(ld, "cn=monitor", LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, NULL, NULL, &tv, 0,
	                           &res);
	if (rc == LDAP_SUCCESS) {
		LDAPMessage *e = ldap_first_entry(ld, res);
		struct berval **v = e ? ldap_get_values_len(ld, e, "opscompleted") : NULL;
		if (v == NULL)
			rc = LDAP_NO_SUCH_ATTRIBUTE;
		else {
			s->total = first_u64(ld, e, "opscompleted");
			s->kind = LDB_MON_389DS;
		}
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return rc;
}

int ldb_monitor_read(const struct ldb_config *c, struct ldb_monitor_snap *s, char *err, size_t cap)
{
	char url[512];
	LDAP *ld = NULL;
	memset(s, 0, sizeof *s);
	if (c->uri != NULL)
		snprintf(url, sizeof url, "%s", c->uri);
	else
		snprintf(url, sizeof url, "%s://%s:%d", c->ldaps ? "ldaps" : "ldap", c->host, c->port);
	int rc = ldap_initialize(&ld, url);
	if (rc != LDAP_SUCCESS) {
		snprintf(err, cap, "--monitor: cannot use %s: %s", url, ldap_err2string(rc));
		return -1;
	}
	int v3 = LDAP_VERSION3;
	struct timeval net = { (time_t)c->timeout_sec, 0 };
	ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v3);
	ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
	ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &net);
	if (c->ldaps) {
		int never = LDAP_OPT_X_TLS_NEVER, zero = 0;
		ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &never);
		ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &zero);
	}
	/* the root DN, or whoever -D is: the bind DN must not have an XXX */
	if (c->bind_dn != NULL && !ldb_pattern_has_var(&c->bind_dn_pat)) {
		struct berval cred = { c->password ? strlen(c->password) : 0, c->password };
		rc = ldap_sasl_bind_s(ld, c->bind_dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
		if (rc != LDAP_SUCCESS) {
			snprintf(err, cap, "--monitor: cannot bind as %s: %s", c->bind_dn, ldap_err2string(rc));
			ldap_unbind_ext_s(ld, NULL, NULL);
			return -1;
		}
	}
	rc = read_openldap(ld, s);
	if (rc != LDAP_SUCCESS) {
		memset(s, 0, sizeof *s);
		rc = read_389ds(ld, s);
	}
	ldap_unbind_ext_s(ld, NULL, NULL);
	if (rc != LDAP_SUCCESS) {
		snprintf(err, cap, "--monitor: cannot read the server's counters (cn=Monitor)%s: %s",
		         c->bind_dn != NULL && !ldb_pattern_has_var(&c->bind_dn_pat) ? "" : " anonymously",
		         ldap_err2string(rc));
		return -1;
	}
	return 0;
}

void ldb_monitor_delta(const struct ldb_monitor_snap *b, const struct ldb_monitor_snap *a, bool binds,
                       struct ldb_monitor_snap *d)
{
	memset(d, 0, sizeof *d);
	d->kind = a->kind;
	for (int k = 0; k < LDB_OP_COUNT; k++)
		d->completed[k] = a->completed[k] - b->completed[k];
	d->total = a->total - b->total;
	/* the reads' own traffic (a read is a search, after a bind with -D): the
	 * first read's search completed after it read; the second read's bind
	 * completed before it read */
	if (d->completed[LDB_OP_SEARCH] > 0)
		d->completed[LDB_OP_SEARCH]--;
	if (binds && d->completed[LDB_OP_BIND] > 0)
		d->completed[LDB_OP_BIND]--;
	uint64_t own = 1 + (binds ? 1 : 0) + 1; /* search, bind, and the first read's unbind */
	d->total = d->total > own ? d->total - own : 0;
}

void ldb_monitor_discount(struct ldb_monitor_snap *d, const uint64_t own[LDB_OP_COUNT], uint64_t total)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		d->completed[k] = d->completed[k] > own[k] ? d->completed[k] - own[k] : 0;
	d->total = d->total > total ? d->total - total : 0;
}
