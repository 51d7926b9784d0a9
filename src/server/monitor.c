/* --monitor: see monitor.h. */
#include "server/monitor.h"

#include "ops/ops.h"
#include "side/ldapconn.h"

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
				if (ldb_ops[k]->monitor != NULL && strlen(ldb_ops[k]->monitor) == cn[0]->bv_len &&
				    strncasecmp(cn[0]->bv_val, ldb_ops[k]->monitor, cn[0]->bv_len) == 0) {
					s->completed[k] = n;
					s->have[k] = true;
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

/* cn=snmp,cn=monitor: one counter per kind (the op table's .snmp).  Every
 * simple bind counts in simpleauthbinds (anonymous and failed ones too:
 * anonymousbinds and bindsecurityerrors count them again); SASL binds count
 * in strongauthbinds. */
static int read_389ds(LDAP *ld, struct ldb_monitor_snap *s)
{
	static char a_all[] = "*";
	char *attrs[] = { a_all, NULL };
	LDAPMessage *res = NULL;
	struct timeval tv = { 10, 0 };
	int rc = ldap_search_ext_s(ld, "cn=snmp,cn=monitor", LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, NULL, NULL,
	                           &tv, 0, &res);
	LDAPMessage *e = rc == LDAP_SUCCESS ? ldap_first_entry(ld, res) : NULL;
	if (rc == LDAP_SUCCESS && e == NULL)
		rc = LDAP_NO_SUCH_OBJECT;
	if (e != NULL) {
		struct berval **v = ldap_get_values_len(ld, e, "searchops");
		if (v == NULL)
			rc = LDAP_NO_SUCH_ATTRIBUTE;
		ldap_value_free_len(v);
	}
	if (rc == LDAP_SUCCESS) {
		for (int k = 0; k < LDB_OP_COUNT; k++) {
			if (ldb_ops[k]->snmp == NULL)
				continue;
			s->completed[k] = first_u64(ld, e, ldb_ops[k]->snmp);
			if (ldb_ops[k]->snmp_also != NULL)
				s->completed[k] += first_u64(ld, e, ldb_ops[k]->snmp_also);
			s->have[k] = true;
			s->total += s->completed[k];
		}
		s->kind = LDB_MON_389DS;
	}
	ldap_msgfree(res);
	return rc;
}

int ldb_monitor_read(const struct ldb_config *c, struct ldb_monitor_snap *s, char *err, size_t cap)
{
	char why[768];
	struct ldb_side side;
	struct ldb_side_who who;
	memset(s, 0, sizeof *s);
	/* the run's identity, unless it has an XXX (then anonymously) */
	bool bound = ldb_side_run_who(c, &who);
	const struct ldb_side_opts o = { .who = bound ? &who : NULL };
	struct ldb_target target;
	ldb_target_of_config(&target, c);
	if (ldb_side_open(&side, &target, &o, why, sizeof why) != 0) {
		snprintf(err, cap, "--monitor: %s", why);
		return ldb_side_exit_status(side.fail);
	}
	int rc = read_openldap(side.ld, s);
	if (rc != LDAP_SUCCESS) {
		memset(s, 0, sizeof *s);
		s->probes = 1; /* the cn=Operations search: 389 DS counts it */
		rc = read_389ds(side.ld, s);
	}
	s->bound = bound;
	s->starttls = side.starttls;
	ldb_side_close(&side);
	if (rc != LDAP_SUCCESS) {
		snprintf(err, cap, "--monitor: cannot read the server's counters (cn=Monitor)%s: %s",
		         bound ? "" : " anonymously", ldap_err2string(rc));
		return LDB_EXIT_INIT;
	}
	return 0;
}

void ldb_monitor_delta(const struct ldb_monitor_snap *b, const struct ldb_monitor_snap *a, bool binds,
                       struct ldb_monitor_snap *d)
{
	memset(d, 0, sizeof *d);
	d->kind = a->kind;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		d->have[k] = a->have[k];
		d->completed[k] = a->completed[k] - b->completed[k];
	}
	/* the reads' own traffic (see monitor.h) */
	uint64_t own_search = 1 + a->probes, own_bind = binds && a->bound ? 1 : 0, own_ext = a->starttls ? 1 : 0;
	enum ldb_op search = LDB_OPS_WITH(reads), bind = LDB_OPS_WITH(connect_bind), ext = LDB_OPS_WITH(setup_extended);
	d->completed[search] -= d->completed[search] > own_search ? own_search : d->completed[search];
	d->completed[bind] -= d->completed[bind] > own_bind ? own_bind : d->completed[bind];
	d->completed[ext] -= d->completed[ext] > own_ext ? own_ext : d->completed[ext];
	for (int k = 0; k < LDB_OP_COUNT; k++)
		d->total += d->have[k] ? d->completed[k] : 0;
}

/* Kinds j and k are counted in one counter of the server (OpenLDAP's Extended). */
static bool same_counter(enum ldb_monitor_kind kind, int j, int k)
{
	const char *a = kind == LDB_MON_389DS ? ldb_ops[j]->snmp : ldb_ops[j]->monitor;
	const char *b = kind == LDB_MON_389DS ? ldb_ops[k]->snmp : ldb_ops[k]->monitor;
	return a != NULL && b != NULL && strcasecmp(a, b) == 0;
}

/* The first kind (table order) counted with k: a shared counter's figures are its. */
static int lead_kind(enum ldb_monitor_kind kind, int k)
{
	for (int j = 0; j < k; j++)
		if (same_counter(kind, j, k))
			return j;
	return k;
}

bool ldb_monitor_compare(const struct ldb_monitor_snap *d, const struct ldb_totals *tot, int k,
                         struct ldb_monitor_cmp *out)
{
	memset(out, 0, sizeof *out);
	if (!d->have[k])
		return false;
	int lead = lead_kind(d->kind, k);
	bool setup_extended = false;
	out->server = d->completed[lead];
	for (int j = lead; j < LDB_OP_COUNT; j++) {
		if (j != lead && !same_counter(d->kind, j, lead))
			continue;
		const struct ldb_opstats *o = &tot->op[j];
		out->client += o->completed;
		if (o->pages > o->completed) /* a paged search is a search per page to the server */
			out->client += o->pages - o->completed;
		out->in_flight += o->attempted > o->completed ? o->attempted - o->completed : 0;
		if (ldb_ops[j]->connect_bind)
			out->client += tot->setup_binds;
		if (ldb_ops[j]->parents) /* parent creation's container adds, and the adds it sent again */
			out->client += tot->parents_created + tot->parent_exists + tot->parent_noparent +
			               tot->parent_other + tot->parent_retries;
		setup_extended |= ldb_ops[j]->setup_extended;
	}
	if (setup_extended) /* the connections' StartTLS and sync WhoAmI */
		out->client += tot->setup_extended;
	out->agree = out->server >= out->client && out->server - out->client <= out->in_flight;
	return true;
}

bool ldb_monitor_line_name(const struct ldb_monitor_snap *d, const bool used[LDB_OP_COUNT], int k, char *name,
                           size_t cap)
{
	size_t n = 0;
	name[0] = '\0';
	for (int j = 0; j < LDB_OP_COUNT; j++) {
		if (!used[j] || (j != k && !same_counter(d->kind, j, k)))
			continue;
		if (j < k)
			return false; /* an earlier kind's line says it */
		int w = snprintf(name + n, cap - n, "%s%s", n > 0 ? "+" : "", ldb_op_name((enum ldb_op)j));
		n += w > 0 && (size_t)w < cap - n ? (size_t)w : 0;
	}
	return true;
}

const char *ldb_monitor_source(const struct ldb_monitor_snap *s)
{
	return s->kind == LDB_MON_389DS ? "cn=snmp,cn=monitor" : "cn=Monitor";
}

void ldb_monitor_put_json(FILE *f, const struct ldb_monitor_snap *d, const struct ldb_totals *tot,
                          const bool used[LDB_OP_COUNT])
{
	fprintf(f, ",\"server\":{\"source\":\"%s\",\"ops\":{", ldb_monitor_source(d));
	bool first = true;
	for (int k = 0; k < LDB_OP_COUNT; k++) {
		struct ldb_monitor_cmp m;
		char name[128];
		if (!used[k] || !ldb_monitor_compare(d, tot, k, &m) ||
		    !ldb_monitor_line_name(d, used, k, name, sizeof name))
			continue;
		fprintf(f,
		        "%s\"%s\":{\"server_completed\":%llu,\"client_completed\":%llu,\"in_flight\":%llu,"
		        "\"agree\":%s}",
		        first ? "" : ",", name, (unsigned long long)m.server, (unsigned long long)m.client,
		        (unsigned long long)m.in_flight, m.agree ? "true" : "false");
		first = false;
	}
	fputs("}}", f);
}

void ldb_monitor_discount(struct ldb_monitor_snap *d, const uint64_t own[LDB_OP_COUNT], uint64_t total)
{
	for (int k = 0; k < LDB_OP_COUNT; k++)
		d->completed[k] = d->completed[k] > own[k] ? d->completed[k] - own[k] : 0;
	d->total = d->total > total ? d->total - total : 0;
}
