/* -e scalab01, ldclt's modem-pool scenario: see scalab01.h.  Off the I/O
 * threads' hot loop; the pool's use is one atomic counter, the sessions and
 * the users being logged in are under one mutex (a few per login). */
#include "run/scalab01.h"

#include <ldap.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run/clock.h"
#include "run/conn.h"
#include "side/ldapconn.h"

#define LOCK_ATTR "ntUserFlags"
#define ACC_ATTR "ntUserUnitsPerWeek"
#define SUPER_RDN "cn=super user"
#define SUPER_PW "super user password" /* ldclt's, fixed */
#define DN_MAX 512
#define NAP_MS 50 /* sleeps are cut in naps that watch for the end */
#define LINES_PER_SEC 10

struct session {
	char dn[DN_MAX];
	int cost;     /* its duration (s): what the accounting adds */
	uint64_t due; /* when the control thread ends it */
	struct session *next;
};

/* The scenario's shared state: one run at a time. */
static struct {
	struct ldb_run *run;
	pthread_mutex_t mu;
	struct session *list; /* by due time */
	char (*user)[DN_MAX]; /* per client: the user it is logging in ("" none) */
	int in_use, most;     /* the pool (atomics) */
	uint64_t logins, locked, waits;
	pthread_t ctrl;
	bool ctrl_started;
	LDAP *ld;
	struct ldb_s1_totals t; /* the control thread's part */
} s1;

/* ------------------------------------------------------------ small tools */

static bool stopping(void)
{
	return __atomic_load_n(&s1.run->stop, __ATOMIC_RELAXED) != LDB_STOP_NONE;
}

/* Sleep ms, in naps.  @return true when the run stops meanwhile. */
static bool nap(long ms)
{
	while (ms > 0 && !stopping()) {
		long step = ms > NAP_MS ? NAP_MS : ms;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return stopping();
}

/* A line in ldclt's form ("NAME[PID]: T000: ..."), one write(2). */
__attribute__((format(printf, 2, 3))) static void say(const char *who, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ldb_run_vline(s1.run, who, fmt, ap);
	va_end(ap);
}

/* A client's error lines: at most LINES_PER_SEC a second (a failing modify
 * loops without sleeping), -q/-Q hide the ignored codes'. */
struct limit {
	uint64_t window;
	int printed;
	uint64_t held;
};
static bool may_say(struct limit *l, const struct ldb_config *c, int code, const char *who)
{
	if ((c->quiet || c->super_quiet) && ldb_config_ignored(c, code))
		return false;
	uint64_t now = ldb_now_ns();
	if (now - l->window >= 1000000000ULL) {
		if (l->held > 0)
			say(who, "%llu more error lines not printed (at most %d a second per thread)",
			    (unsigned long long)l->held, LINES_PER_SEC);
		l->window = now;
		l->printed = 0;
		l->held = 0;
	}
	if (l->printed < LINES_PER_SEC) {
		l->printed++;
		return true;
	}
	l->held++;
	return false;
}

/* The pool: take a modem if one is free. */
static bool modem_take(int max)
{
	int n = __atomic_load_n(&s1.in_use, __ATOMIC_RELAXED);
	do {
		if (n >= max)
			return false;
	} while (!__atomic_compare_exchange_n(&s1.in_use, &n, n + 1, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	int most = __atomic_load_n(&s1.most, __ATOMIC_RELAXED);
	while (n + 1 > most &&
	       !__atomic_compare_exchange_n(&s1.most, &most, n + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return true;
}

static void modem_give(void)
{
	__atomic_sub_fetch(&s1.in_use, 1, __ATOMIC_ACQ_REL);
}

/* No other client is logging in as dn now: claim it for client id. */
static bool user_claim(int id, const char *dn)
{
	const struct ldb_config *c = s1.run->cfg;
	bool free_ = true;
	pthread_mutex_lock(&s1.mu);
	for (int i = 0; i < c->threads && free_; i++)
		if (i != id && strcmp(s1.user[i], dn) == 0)
			free_ = false;
	if (free_)
		snprintf(s1.user[id], DN_MAX, "%s", dn);
	pthread_mutex_unlock(&s1.mu);
	return free_;
}

static void user_release(int id)
{
	pthread_mutex_lock(&s1.mu);
	s1.user[id][0] = '\0';
	pthread_mutex_unlock(&s1.mu);
}

/* ------------------------------------------------------------ LDAP calls */

/* A side connection (side/ldapconn: the run's address and TLS; -t on every
 * operation) bound as dn: NULL with *rc the bind's (or the connect's) code
 * and one line in err. */
static LDAP *open_bound(const struct ldb_config *c, const char *dn, const char *pw, int *rc, char *err, size_t cap)
{
	const struct ldb_side_who who = { .dn = dn, .password = pw };
	const struct ldb_side_opts o = { .op_timeout = true, .v2 = c->ldap_v2, .who = &who };
	struct ldb_side side;
	struct ldb_target t;
	ldb_target_of_config(&t, c);
	if (ldb_side_open(&side, &t, &o, err, cap) != 0) {
		*rc = side.rc != LDAP_SUCCESS ? side.rc : LDAP_OTHER;
		return NULL;
	}
	*rc = LDAP_SUCCESS;
	return side.ld;
}

/* The value of attr in entry dn ("" when it has none), as ldclt reads it:
 * a base search for (attr=*) asking for attr.  @return the search's code. */
static int read_attr(LDAP *ld, const char *dn, const char *attr, char *val, size_t cap)
{
	char filter[64];
	char *attrs[] = { (char *)attr, NULL };
	LDAPMessage *res = NULL;
	snprintf(filter, sizeof filter, "(%s=*)", attr);
	val[0] = '\0';
	int rc = ldap_search_ext_s(ld, dn, LDAP_SCOPE_BASE, filter, attrs, 0, NULL, NULL, NULL, -1, &res);
	if (rc == LDAP_SUCCESS) {
		LDAPMessage *e = ldap_first_entry(ld, res);
		struct berval **v = e != NULL ? ldap_get_values_len(ld, e, attr) : NULL;
		if (v != NULL && v[0] != NULL)
			snprintf(val, cap, "%.*s", (int)v[0]->bv_len, v[0]->bv_val);
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return rc;
}

static int write_attr(LDAP *ld, const char *dn, const char *attr, const char *val)
{
	char *vals[] = { (char *)val, NULL };
	LDAPMod mod = { .mod_op = LDAP_MOD_REPLACE, .mod_type = (char *)attr, .mod_values = vals };
	LDAPMod *mods[] = { &mod, NULL };
	return ldap_modify_ext_s(ld, dn, mods, NULL, NULL);
}

/* ------------------------------------------------------------ a client */

/* One operation of a client: its counters and latency. */
static void count(struct ldb_client *w, enum ldb_op k, int rc, uint64_t t0)
{
	struct ldb_opstats *o = &w->st->op[k];
	ldb_add(&o->attempted, 1);
	if (rc < 0) {
		ldb_add(&o->fails[rc == LDAP_TIMEOUT ? LDB_FAIL_TIMEOUT : LDB_FAIL_CONNECT], 1);
		ldb_note_error(w, k, rc);
		return;
	}
	ldb_add(&o->completed, 1);
	ldb_hist_record(&w->lat->op[k], ldb_now_ns() - t0);
	if (rc == 0)
		ldb_add(&o->succeeded, 1);
	else
		ldb_note_error(w, k, rc);
}

struct client {
	struct ldb_client *w;
	const struct ldb_config *c;
	char who[8]; /* "T000" */
	char dn[DN_MAX], pw[DN_MAX];
	LDAP *ld;
	struct limit lim;
};

/* Steps 1 and 2: a modem, then a new connection bound as a random user.
 * @return 1 bound, 0 try again, -1 the client ends. */
static int login_bind(struct client *k)
{
	const struct ldb_config *c = k->c;
	while (!modem_take(c->s1_maxcnxnb)) {
		__atomic_add_fetch(&s1.waits, 1, __ATOMIC_RELAXED);
		if (nap(1000L * ldb_rng_range(&k->w->rng, 0, c->s1_wait)))
			return -1;
	}
	if (k->ld != NULL) { /* ldclt keeps the last connection until the next login */
		ldap_unbind_ext_s(k->ld, NULL, NULL);
		k->ld = NULL;
		ldb_add(&k->w->st->conns_up, (uint64_t)-1);
	}
	int64_t v = ldb_rng_range(&k->w->rng, c->binddn_low, c->binddn_high);
	ldb_pattern_render_cstr(&c->bind_dn_pat, v, k->dn, sizeof k->dn);
	if (ldb_pattern_has_var(&c->password_pat))
		ldb_pattern_render_cstr(&c->password_pat, v, k->pw, sizeof k->pw);
	else
		snprintf(k->pw, sizeof k->pw, "%s", c->password);
	int rc;
	char why[512]; /* ldclt's line says it (ldb_errline) */
	uint64_t t0 = ldb_now_ns();
	ldb_add(&k->w->st->connects, 1);
	ldb_add(&k->w->st->connect_tries, 1);
	k->ld = open_bound(c, k->dn, k->pw, &rc, why, sizeof why);
	count(k->w, LDB_OP_BIND, rc, t0);
	if (rc == LDAP_SUCCESS) {
		ldb_add(&k->w->st->conns_up, 1);
		return 1;
	}
	modem_give(); /* ldclt keeps it: its pool leaks one modem per failed bind */
	ldb_errline(k->w, LDB_OP_BIND, rc);
	if (ldb_config_ignored(c, rc))
		return 0;
	k->w->st->status = LDB_EXIT_CANNOT_BIND;
	return -1;
}

/* Step 3: is the user logged in already?  @return 1 no, 0 yes (the modem
 * went back), -1 the search failed (the client ends, as ldclt's). */
static int login_check(struct client *k)
{
	char val[32];
	uint64_t t0 = ldb_now_ns();
	int rc = read_attr(k->ld, k->dn, LOCK_ATTR, val, sizeof val);
	count(k->w, LDB_OP_SEARCH, rc, t0);
	if (rc != LDAP_SUCCESS) {
		if (may_say(&k->lim, k->c, rc, k->who)) {
			say(k->who, "Cannot ldap_search (%s in %s), error=%d (%s)", LOCK_ATTR, k->dn, rc,
			    ldap_err2string(rc));
			say(k->who, "Cannot read lock attribute of %s", k->dn);
		}
		modem_give();
		k->w->st->status = LDB_EXIT_OTHER;
		return -1;
	}
	if (k->c->verbose >= 2)
		say(k->who, "entry %s lock read", k->dn);
	if (strcmp(val, "1") == 0) {
		__atomic_add_fetch(&s1.locked, 1, __ATOMIC_RELAXED);
		modem_give();
		return 0;
	}
	return 1;
}

/* Step 4: lock the user, hand the session to the control thread.  @return
 * true when the login counts. */
static bool login_lock(struct client *k)
{
	uint64_t t0 = ldb_now_ns();
	int rc = write_attr(k->ld, k->dn, LOCK_ATTR, "1");
	count(k->w, LDB_OP_MODIFY, rc, t0);
	if (rc != LDAP_SUCCESS) {
		/* another client may have locked it meanwhile: not fatal (ldclt) */
		if (may_say(&k->lim, k->c, rc, k->who)) {
			say(k->who, "Cannot ldap_modify_ext_s (%s in %s), error=%d (%s)", LOCK_ATTR, k->dn, rc,
			    ldap_err2string(rc));
			say(k->who, "Cannot write lock attribute of %s", k->dn);
		}
		modem_give();
		return false;
	}
	if (k->c->verbose >= 2)
		say(k->who, "entry %s lock written", k->dn);
	struct session *s = malloc(sizeof *s);
	if (s == NULL) {
		modem_give();
		return false;
	}
	snprintf(s->dn, sizeof s->dn, "%s", k->dn);
	s->cost = (int)ldb_rng_range(&k->w->rng, 1, k->c->s1_cnxduration);
	s->due = ldb_now_ns() + (uint64_t)s->cost * 1000000000ULL;
	pthread_mutex_lock(&s1.mu);
	struct session **p = &s1.list;
	while (*p != NULL && (*p)->due <= s->due)
		p = &(*p)->next;
	s->next = *p;
	*p = s;
	pthread_mutex_unlock(&s1.mu);
	if (k->c->verbose >= 2)
		say(k->who, "entry %s login added duration %6d", k->dn, s->cost);
	return true;
}

/* One login attempt.  @return -1 when the client ends. */
static int login(struct client *k)
{
	int rc = login_bind(k);
	if (rc <= 0)
		return rc;
	while (!user_claim(k->w->id, k->dn))
		if (nap(1000))
			return -1;
	rc = login_check(k);
	bool counted = rc > 0 && login_lock(k);
	user_release(k->w->id);
	if (rc < 0)
		return -1;
	if (!counted)
		return 0;
	__atomic_add_fetch(&s1.logins, 1, __ATOMIC_RELAXED);
	ldb_add(&k->w->st->op[LDB_OP_BIND].counted, 1);
	ldb_add(&k->w->st->counted, 1);
	return nap(1000L * ldb_rng_range(&k->w->rng, 0, k->c->s1_wait)) ? -1 : 0;
}

void *ldb_s1_client_main(void *arg)
{
	struct ldb_iothread *r = arg;
	struct client k = { .w = &r->w[0], .c = s1.run->cfg };
	__atomic_store_n(&r->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	snprintf(k.who, sizeof k.who, "T%03d", k.w->id);
	while (!stopping()) {
		if (k.c->ops_per_thread >= 0 && (long long)ldb_load(&k.w->st->counted) >= k.c->ops_per_thread)
			break;
		if (k.c->wait_sec > 0 && nap(1000L * k.c->wait_sec)) /* -W: before each attempt, as ldclt */
			break;
		if (login(&k) < 0)
			break;
	}
	if (k.ld != NULL) {
		ldap_unbind_ext_s(k.ld, NULL, NULL);
		ldb_add(&k.w->st->conns_up, (uint64_t)-1);
	}
	ldb_errlines_flush(k.w);
	__atomic_store_n(&r->lat.ended, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&k.w->st->dead, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------ the control thread */

static int ctrl_op(enum ldb_op k, int rc)
{
	s1.t.ctrl_ops[k]++;
	if (rc != LDAP_SUCCESS)
		s1.t.ctrl_errors++;
	return rc;
}

/* End one session: the accounting, then the unlock, then the modem.
 * @return 0, or -1 (ldclt then exits). */
static int session_end(const struct session *s)
{
	const struct ldb_config *c = s1.run->cfg;
	char val[32], buf[32];
	int rc = ctrl_op(LDB_OP_SEARCH, read_attr(s1.ld, s->dn, ACC_ATTR, val, sizeof val));
	if (rc != LDAP_SUCCESS) {
		say("ctrl", "Cannot ldap_search (%s in %s), error=%d (%s)", ACC_ATTR, s->dn, rc, ldap_err2string(rc));
		say("ctrl", "Cannot read accounting attribute of %s", s->dn);
		return -1;
	}
	if (val[0] == '\0')
		say("ctrl", "No accounting attribute for %s - assume it is 0", s->dn);
	snprintf(buf, sizeof buf, "%lld", atoll(val) + s->cost);
	const char *what = "accounting";
	rc = ctrl_op(LDB_OP_MODIFY, write_attr(s1.ld, s->dn, ACC_ATTR, buf));
	if (rc == LDAP_SUCCESS) {
		what = "lock (unlock)";
		rc = ctrl_op(LDB_OP_MODIFY, write_attr(s1.ld, s->dn, LOCK_ATTR, "0"));
	}
	if (rc != LDAP_SUCCESS) {
		say("ctrl", "Cannot ldap_modify_ext_s (%s), error=%d (%s)", s->dn, rc, ldap_err2string(rc));
		say("ctrl", "Cannot write %s attribute of %s", what, s->dn);
		return -1;
	}
	if (c->verbose >= 2)
		say("ctrl", "entry %s unlocked", s->dn);
	modem_give();
	s1.t.ended++;
	return 0;
}

/* The sessions due now, off the list. */
static struct session *take_due(uint64_t now, int *total)
{
	pthread_mutex_lock(&s1.mu);
	struct session *head = s1.list, **p = &s1.list;
	*total = 0;
	for (struct session *s = s1.list; s != NULL; s = s->next)
		(*total)++;
	while (*p != NULL && (*p)->due <= now)
		p = &(*p)->next;
	if (p == &s1.list) {
		head = NULL; /* nothing due */
	} else {
		s1.list = *p;
		*p = NULL;
	}
	pthread_mutex_unlock(&s1.mu);
	return head;
}

static void *ctrl_main(void *arg)
{
	(void)arg;
	while (!nap(1000)) {
		int total, ended = 0;
		struct session *s = take_due(ldb_now_ns(), &total);
		while (s != NULL) {
			struct session *next = s->next;
			if (s1.t.status == LDB_EXIT_OK && session_end(s) != 0) {
				say("ctrl", "cannot unlock %s", s->dn);
				s1.t.status = LDB_EXIT_OTHER;
				int none = LDB_STOP_NONE; /* ldclt exits: the clients end */
				__atomic_compare_exchange_n(&s1.run->stop, &none, LDB_STOP_DONE, false,
				                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			}
			ended++;
			free(s);
			s = next;
		}
		if (s1.run->cfg->verbose >= 1)
			say("ctrl", "nb entries unlocked / total : %3d / %5d", ended, total);
	}
	return NULL;
}

int ldb_s1_begin(struct ldb_run *run, int *status, char *err, size_t cap)
{
	const struct ldb_config *c = run->cfg;
	char dn[DN_MAX];
	int rc;
	memset(&s1, 0, sizeof s1);
	s1.run = run;
	pthread_mutex_init(&s1.mu, NULL);
	s1.user = calloc((size_t)c->threads, sizeof *s1.user);
	*status = LDB_EXIT_OTHER;
	if (s1.user == NULL) {
		snprintf(err, cap, "out of memory for scalab01");
		return -1;
	}
	snprintf(dn, sizeof dn, "%s,%s", SUPER_RDN, c->base);
	char why[512];
	s1.ld = open_bound(c, dn, SUPER_PW, &rc, why, sizeof why);
	ctrl_op(LDB_OP_BIND, rc);
	if (s1.ld == NULL) {
		*status = LDB_EXIT_CANNOT_BIND;
		if (rc == LDAP_SERVER_DOWN || rc == LDAP_CONNECT_ERROR) /* the connection or its TLS */
			snprintf(err, cap, "scalab01: the control connection: %s", why);
		else
			snprintf(err, cap, "scalab01: the control connection cannot bind as %s: error=%d (%s)", dn, rc,
			         ldap_err2string(rc));
		return -1;
	}
	if ((rc = pthread_create(&s1.ctrl, NULL, ctrl_main, NULL)) != 0) {
		snprintf(err, cap, "cannot start scalab01's control thread: %s", strerror(rc));
		return -1;
	}
	s1.ctrl_started = true;
	*status = LDB_EXIT_OK;
	return 0;
}

void ldb_s1_end(struct ldb_s1_totals *t)
{
	memset(t, 0, sizeof *t);
	if (s1.run == NULL)
		return;
	if (s1.ctrl_started) {
		int none = LDB_STOP_NONE;
		__atomic_compare_exchange_n(&s1.run->stop, &none, LDB_STOP_DONE, false, __ATOMIC_RELAXED,
		                            __ATOMIC_RELAXED);
		pthread_join(s1.ctrl, NULL);
	}
	if (s1.ld != NULL)
		ldap_unbind_ext_s(s1.ld, NULL, NULL);
	for (struct session *s = s1.list, *next; s != NULL; s = next) {
		next = s->next;
		s1.t.open_at_end++;
		free(s);
	}
	*t = s1.t;
	t->logins = s1.logins;
	t->locked = s1.locked;
	t->modem_waits = s1.waits;
	t->most_in_use = s1.most;
	free(s1.user);
	pthread_mutex_destroy(&s1.mu);
	memset(&s1, 0, sizeof s1);
}

void ldb_s1_kinds(bool used[LDB_OP_COUNT])
{
	used[LDB_OP_SEARCH] = used[LDB_OP_MODIFY] = true;
}
