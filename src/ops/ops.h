/* The operation kinds behind one table: one row (struct ldb_opdesc) per kind
 * of conf/config.h's enum ldb_op, each kind's code in its own file
 * (ops/search.c, bind.c, add.c, modify.c, delete.c, rename.c, compare.c,
 * abandon.c, passmod.c, whoami.c, extended.c, login.c).  Everything that differs between kinds is here: names, what
 * the server's counters call it, the option checks, start-up preparation,
 * rendering of one request, the success rule, ldclt's expected failures and
 * error line, what -S carries and looks for, the -v lines; code outside
 * src/ops/ names no kind (tests/integration/kind_names.sh).  The
 * configuration holds a weight per kind (struct ldb_config's weight[]).
 * docs/design.md ("Operations: one table") says how to add a kind. */
#ifndef LDBENCH_OPS_OPS_H
#define LDBENCH_OPS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/config.h"
#include "ops/dn.h"
#include "ops/request.h"
#include "proto/sasl.h"
#include "proto/wire.h"
#include "values/rng.h"

/* The value patterns kinds compile at start-up (struct ldb_ops_run's vp[]);
 * each client renders them through its own state (struct ldb_wctx's vps[]). */
enum ldb_ops_vp {
	LDB_VP_PASSMOD_USER,
	LDB_VP_PASSMOD_OLD,
	LDB_VP_PASSMOD_NEW,
	LDB_VP_EXTENDED,
	LDB_VP_LOGIN_PW,
	LDB_VP_FLOW, /* a general flow's value patterns (ops/flow.c): LDB_VP_FLOW_MAX of them */
	LDB_VP_FLOW_LAST = LDB_VP_FLOW + 7,
	LDB_OPS_VP
};
_Static_assert(LDB_OPS_VP <= LDB_WCTX_VPS, "struct ldb_wctx holds a state per pattern");

/* The run's shared part of the operations: start-up templates, read-only
 * once the I/O threads start. */
struct ldb_ops_run {
	const struct ldb_config *cfg;
	struct ldb_reqset search, bind; /* encoded once (ops/request) */
	size_t room[LDB_OP_COUNT];      /* output space one request of a kind needs at most */
	/* multi-step operations (the row's more): the bytes of step state a slot
	 * needs for kind k, set by its prepare when the options make it one of
	 * several requests (0: one request, more is never called); state_room
	 * is the largest, allocated per slot when a connection is set up */
	size_t state_size[LDB_OP_COUNT];
	size_t state_room;
	/* -o mech= with a multi-step mechanism: the exchanges' settings (the bind
	 * kind's; mech LDB_SASL_NONE otherwise; host set by run/setup) */
	struct ldb_sasl_conf sasl;
	bool scratch; /* a kind of the run renders through struct ldb_wctx */
	/* -e imagesdir: its files, read once by the add kind's prepare (ops/add.c) */
	char **images;
	size_t *image_lens, nimages;
	struct ldb_vp *vp[LDB_OPS_VP]; /* compiled value patterns (NULL: not used) */
	uint8_t *ext_value;            /* the extended kind's value when fixed (base64 decoded) */
	size_t ext_len;
	/* request controls (ops/kind_controls.c): each kind's Controls encoded once,
	 * and whether its requests carry a proxied authorization identity
	 * rendered per request; appended by the I/O threads to every request */
	struct ldb_bytes ctl[LDB_OP_COUNT];
	bool proxy[LDB_OP_COUNT];
	bool any_ctl[LDB_OP_COUNT];
	/* the login flow (ops/login.c): its search (-b, -f, size limit 2, the
	 * attributes it needs), built from a copy of the configuration it keeps */
	struct ldb_reqset login_search;
	struct ldb_config *login_cfg;
	struct ldb_bytes login_ppolicy; /* --ppolicy: the control its bind carries */
	struct ldb_flow *flow;          /* a general flow's steps (ops/flow.c), NULL: none */
	bool listen_keys;               /* --listeners, --write-record: a flow's write steps keep their keys */
	bool want_ppolicy;              /* --ppolicy: password policy response controls counted */
	bool want_sort, want_read,
	        want_paged; /* response controls counted: sort results, pre/post-read entries, pages */
};

/* One request to render: the operation's numbers and a client's state. */
struct ldb_op_req {
	const struct ldb_ops_run *ops;
	struct ldb_wctx *wc; /* the client's scratch (NULL unless ops->scratch) */
	struct ldb_rng *rng; /* the client's generator */
	int64_t v, bv;       /* the number of -f's XXX, and of -b's with randombase */
	int32_t msgid;
	int32_t msgid2;      /* a second message id, for kinds with msgids 2 */
	struct ldb_vpc *vpc; /* the client's value patterns (NULL when the run has none) */
	/* multi-step operations: the slot's step state (state_size[kind] bytes,
	 * kept from one request of the operation to the next; NULL when the
	 * kind is one request), and which request of the operation this is
	 * (0 the first; render starts the state over at 0) */
	uint8_t *state;
	uint16_t round;
	bool setup; /* the request opens the connection (a connection's bind), no operation of the load */
};

/* The result of one request of a multi-step operation, for the row's more. */
struct ldb_op_reply {
	int rc;                      /* its result code; more may replace it (a client-side failure) */
	const struct ldb_resp *resp; /* the decoded result (proto/wire.h) */
	const uint8_t *msg;          /* the whole LDAPMessage (resp->len bytes), its controls included */
	uint8_t note;                /* more's note on it (enum ldb_op_note), counted by the I/O thread */
};

/* What more may note on a flow's step: a bind sent with a wrong password on
 * purpose (--bad-password) refused (49, then the step's result is a
 * success), accepted (0), or answered otherwise. */
enum ldb_op_note { LDB_NOTE_NONE, LDB_NOTE_BAD_REFUSED, LDB_NOTE_BAD_ACCEPTED, LDB_NOTE_BAD_OTHER, LDB_NOTE_COUNT };

/* The answer to a bind sent with a wrong password on purpose: noted, and its
 * refusal (49) made the expected success (the plain binds', a login's and a
 * flow's bind steps). */
static inline void ldb_note_bad_password(struct ldb_op_reply *rep)
{
	enum { SUCCESS = 0, INVALID_CREDENTIALS = 49 }; /* RFC 4511's result codes */
	rep->note = rep->rc == INVALID_CREDENTIALS ? LDB_NOTE_BAD_REFUSED
	            : rep->rc == SUCCESS           ? LDB_NOTE_BAD_ACCEPTED
	                                           : LDB_NOTE_BAD_OTHER;
	if (rep->rc == INVALID_CREDENTIALS)
		rep->rc = SUCCESS;
}

/* Write the request into dst.  @return bytes written; 0 when it does not
 * fit; -1 when an entry template has passed the top of a NOLOOP field. */
typedef long ldb_op_render_fn(const struct ldb_op_req *r, uint8_t *dst, size_t cap);

#define LDB_OP_CODES 4
#define LDB_OP_STEPS LDB_FLOW_STEPS /* the most steps of a flow (struct ldb_opdesc's nsteps) */

/* What a kind changes on the server. */
enum ldb_op_change {
	LDB_CHANGES_NOTHING,
	LDB_CHANGES_VALUES,  /* an entry's values (modify) */
	LDB_CHANGES_ENTRIES, /* which entries exist, and where (add, delete, rename) */
};

/* How a listener (--listeners, run/listen_match) sees a kind's change: not
 * followed, an entry that is there (add), a value it carries (modify), an
 * entry gone (delete), an entry moved (rename). */
enum ldb_op_seen { LDB_SEEN_NOT = 0, LDB_SEEN_THERE, LDB_SEEN_VALUE, LDB_SEEN_GONE, LDB_SEEN_MOVED };
/* LDB_SEEN_MOVED (rename): the entry at its new DN (its repl_looks' first
 * look), whatever the notification carries (sync: the entry with its new DN,
 * its state modify or add; psearch: changeType modDN). */

/* A failed request, for ldclt's line about it (run/errlines.c). */
struct ldb_op_failure {
	const struct ldb_config *cfg;
	bool dn_known;   /* one request at a time: dn is the failed request's entry */
	const char *dn;  /* "" when not known */
	int dnlen;       /* 0 when not known */
	const char *aux; /* rename: the new RDN (NUL-ended), "" when not known */
	int code;
	const char *text; /* the code's text (ldap_err2string) */
};

/* The replication check (-S) sees a change by base searches on a consumer:
 * each look searches dn with (attr=value), or (!(attr=value)) when negate,
 * or any entry when attr is NULL; the change is visible when every look
 * finds the entry (present) or does not (!present), in order. */
#define LDB_REPL_LOOKS 2
struct ldb_repl_look {
	const char *dn;
	const char *attr; /* NULL: (objectClass=*) */
	const char *val;
	size_t vlen;
	bool negate;
	bool present;
};

/* A watcher's scratch for one change: the DNs and the value the looks point into. */
struct ldb_repl_view {
	struct ldb_wctx wc; /* the DN the operation's numbers give */
	char dn2[LDB_DN_MAX];
	char val[LDB_REPL_FILE_MAX + 1024];
	struct ldb_repl_look look[LDB_REPL_LOOKS];
};

/* One sampled change: the operation's numbers, and what its request carried
 * that its numbers cannot rebuild (run[0..len)). */
struct ldb_repl_change {
	int64_t v, bv;
	const char *run;
	size_t len;
};

/* Where among the cli's cross-checks a kind's own checks run: with the
 * entries' (shape, numbering), with the filter's, with the bind DN's; with
 * --mix, all but the entries' run with the mix's. */
enum ldb_op_check_at { LDB_CHECK_ENTRIES, LDB_CHECK_FILTER, LDB_CHECK_BINDER, LDB_CHECK_MIX };

/* Where the entry a request names comes from. */
enum ldb_op_dn {
	LDB_OPDN_NONE,          /* none (search has its base, bind its DN) */
	LDB_OPDN_FILTER,        /* -f's RDN (with the XXX) under -b */
	LDB_OPDN_FILTER_OR_RDN, /* the same, unless -e rdn= names the entries */
};

struct ldb_opdesc {
	const char *name;           /* "search": text, JSON records, --mix, --fail-if, compare */
	const char *json;           /* its key in the JSON records' "ops" */
	const char *keyword;        /* the -e keyword that runs it ("esearch"), NULL: its options do */
	const char *monitor;        /* OpenLDAP cn=Operations,cn=Monitor entry ("Search") */
	const char *snmp;           /* 389 DS cn=snmp,cn=monitor attribute ("searchops"); NULL: none */
	const char *snmp_also;      /* a second one the server counts it in ("strongauthbinds"); NULL: none */
	bool reads;                 /* the readers of server state (--monitor, the pre-flight check) search:
	                            * the server counts their searches as this kind */
	bool fallback;              /* a run that asks for no kind does this one (ldclt's default: a search) */
	bool config_word;           /* its keyword is the records' config "operation" (the first such
	                            * kind of the run in pass order; none: "none") */
	bool fatal;                 /* a failure ends its client, unless counteach (ldclt's bind) */
	bool pair;                  /* with incr and no --mix, a pass takes two numbers (rename: the
	                            * entry and its new name) */
	uint8_t changes;            /* enum ldb_op_change: what it changes (-S follows those that do) */
	uint8_t seen;               /* enum ldb_op_seen: how --listeners' matcher keys its change */
	bool response;              /* the server answers it (a slot completes on its result);
	                            * false: done once sent, and counted then */
	uint8_t msgids;             /* message ids one request takes (0 or 1: one) */
	bool filter;                /* its request carries -f as a search filter */
	bool alone;                 /* must be alone on its connection (a bind: RFC 4511 4.2.1) */
	bool entries;               /* its results carry entries (search: counted, srchnentries) */
	bool connect_bind;          /* the binds that open connections are of this kind (the server counts them) */
	bool setup_extended;        /* the server counts the connections' own extended requests (StartTLS,
	                            * the abandons' sync WhoAmI) in this kind's counter */
	bool parents;               /* a 32 (no such object) creates the missing parents, then retries */
	uint16_t controls;          /* LDB_CTLF_*: the named request controls its requests carry when asked */
	bool writes;                /* renders through the client's scratch (ldb_wctx), in up to
	                            * LDB_OP_WRITE_ROOM bytes: what prepare does when it is NULL */
	const char *mode;           /* its word of -v's "Running mode" (" add_entries") when print_mode is NULL */
	uint8_t dn;                 /* enum ldb_op_dn */
	uint8_t pass_rank;          /* its place in ldclt's pass of combined operations */
	uint8_t print_rank;         /* its place among the -v "Running mode" words and lines */
	uint8_t check_at;           /* enum ldb_op_check_at */
	int also_ok[LDB_OP_CODES];  /* result codes besides 0 that are a success (0-ended) */
	int expected[LDB_OP_CODES]; /* failures counteach counts as operations (0-ended) */
	bool expected_any;          /* every failure counts with counteach */
	/* its options ask for it (modify: --modify, attreplace; compare: --compare);
	 * NULL: only its -e keyword or --mix does */
	bool (*asked)(const struct ldb_config *c);
	bool (*asked_row)(const struct ldb_config *c, int k); /* same, for rows that share one (k: the row's kind) */
	/* the option that asks for it, as a user writes it ("-e esearch"), for messages;
	 * option() when it depends on the options (ldb_op_option reads either) */
	const char *option_text;
	const char *(*option)(const struct ldb_config *c);
	/* the cross-checks of its options once the kinds are known (mix: named in
	 * --mix): 0, or -1 with a message (no program name) in why */
	int (*check)(const struct ldb_config *c, bool mix, char *why, size_t cap);
	/* its options given while the run does not do it (mix: --mix names it
	 * not): 0, or -1 with a message in why ("-e attrlist needs -e esearch") */
	int (*stray)(const struct ldb_config *c, bool mix, char *why, size_t cap);
	/* start-up: templates in o (o->cfg set); 0, or -1 with one line in err;
	 * NULL: nothing to build (a write kind's room and scratch are set for it) */
	int (*prepare)(struct ldb_ops_run *o, char *err, size_t cap);
	ldb_op_render_fn *render;
	/* A multi-step operation (a SASL bind's exchange, a search followed
	 * through its pages): hot path, after each result of a request of this
	 * kind whose state_size is not 0 (the operation's own requests and the
	 * bind that opens a connection), it decides from rep (the result code,
	 * the raw response: a bind's serverSaslCreds, a search done's controls)
	 * and r->state whether the operation goes on: true renders the next
	 * request (r->round + 1) into the same slot with a fresh message id;
	 * false ends it with rep->rc as its result.  Allocates nothing.  NULL:
	 * every operation is one request. */
	bool (*more)(const struct ldb_op_req *r, struct ldb_op_reply *rep);
	/* A multi-step operation that reads the entries of its searches (the
	 * login flow: the DN found): hot path, each SearchResultEntry of a
	 * request of this kind, before its result; msg[0..len) the whole
	 * message, body[0..bodylen) its protocolOp's contents.  NULL: entries
	 * are only counted. */
	void (*entry)(const struct ldb_op_req *r, const uint8_t *body, size_t bodylen);
	/* Hot path, with ops->listen_keys: the keys (proto/lkey.h) of the write
	 * the step r->round sent (its entry's DN, its change's: 0, not
	 * followed).  @return its kind (enum ldb_op), or -1: the step writes
	 * nothing.  NULL: the kind has none. */
	int (*keys)(const struct ldb_op_req *r, uint64_t *dnkey, uint64_t *key);
	/* A flow (the login): request r->round of an operation is step
	 * min(round, nsteps - 1), counted as its kind step_kind[] too (requests,
	 * results, codes, latency from its own send), beside the flow's figures
	 * under this kind.  0: not a flow. */
	uint8_t nsteps;
	uint8_t step_kind[LDB_OP_STEPS];
	/* a flow whose step that ends it is counted with the flow's reason (its
	 * more's rep->rc: "no entry"), not the server's code (the login: false) */
	bool step_reason;
	/* a second row step j is also counted on (0: none): the login's group
	 * search, apart from its user search while both stay under search */
	uint8_t step_also[LDB_OP_STEPS];
	/* left out of the lists of kind names messages give (a general flow's
	 * rows: their names are the user's); a step row (nsteps 0) is only a row
	 * of figures, never sent alone */
	bool unlisted;
	/* ldclt's line for a failed request, after the "NAME[PID]: T000: "
	 * prefix: its length, as snprintf; NULL: "Cannot NAME, error=..." */
	int (*errline)(const struct ldb_op_failure *f, char *out, size_t cap);
	/* -S: under these options its request writes something its numbers
	 * cannot rebuild (attreplace's random run, an object= rdn= add's RDN);
	 * repl_carry (hot path, one call per request) points *from at it:
	 * its length, 0 for none */
	bool (*repl_carries)(const struct ldb_config *c);
	size_t (*repl_carry)(const struct ldb_config *c, const struct ldb_wctx *wc, const char **from);
	/* -S: the looks that see the change ch on a consumer, built in v: their
	 * number, or -1 when they cannot be built (never visible); NULL: seen at once */
	int (*repl_looks)(const struct ldb_config *c, const struct ldb_repl_change *ch, struct ldb_repl_view *v);
	/* -S: can the watchers see its changes under these options?  0, or -1
	 * with a message in why (cli/repl_options.c) */
	int (*repl_check)(const struct ldb_config *c, char *why, size_t cap);
	void (*print_mode)(const struct ldb_config *c, FILE *out);  /* its words of -v's "Running mode"
	                                                            * when they depend on options */
	void (*print_ldclt)(const struct ldb_config *c, FILE *out); /* its lines among ldclt's -v lines */
	void (*print)(const struct ldb_config *c, FILE *out);       /* its own -v lines, with ldbench's */
};

/* a kind fits a byte (step_kind[], the op-log's records, the pass) */
_Static_assert(LDB_OP_COUNT <= 256, "operation kinds are kept in a uint8_t");

/* The table: one row per kind, in enum ldb_op's order (ops.c). */
extern const struct ldb_opdesc *ldb_ops[LDB_OP_COUNT];

/* The check of a kind whose entries -f's XXX numbers (delete, rename): it
 * needs -e incr or -e random.  0, or -1 with the message in why. */
int ldb_op_check_numbered(const struct ldb_config *c, bool mix, const char *name, char *why, size_t cap);

/* rename with incr: the number whose RDN entry v is renamed to (v + step,
 * wrapped into the range), as ldclt; ops/rename.c, also read by -S's watcher. */
int64_t ldb_rename_next(const struct ldb_config *c, int64_t v);

/* The first kind (in table order) whose row has the flag at offset `flag`
 * (offsetof(struct ldb_opdesc, reads), ...), or -1: the readers of server
 * state find the kind of their searches, the bind that opens connections. */
int ldb_ops_flagged(size_t flag);
#define LDB_OPS_WITH(field) ((enum ldb_op)ldb_ops_flagged(offsetof(struct ldb_opdesc, field)))

/* The option that asks for kind k, as a user writes it ("-e esearch"). */
const char *ldb_op_option(enum ldb_op k, const struct ldb_config *c);

/* "search", "bind", ...: the row's name. */
const char *ldb_op_name(enum ldb_op op);
/* The kind named name[0..n) (exactly, or ignoring case), or -1. */
int ldb_op_from_name(const char *name, size_t n, bool icase);
/* The kind the -e keyword runs, or -1. */
int ldb_op_from_keyword(const char *kw);
/* Kind k is asked for: by its options when it has them (asked), else by
 * its weight (its -e keyword, or --mix). */
bool ldb_op_given(const struct ldb_config *c, enum ldb_op k);

/* Hot path: the result code rc of a request of kind k. */
static inline bool ldb_op_succeeded(enum ldb_op k, int rc)
{
	if (rc == 0)
		return true;
	for (int i = 0; i < LDB_OP_CODES && ldb_ops[k]->also_ok[i] != 0; i++)
		if (ldb_ops[k]->also_ok[i] == rc)
			return true;
	return false;
}

/* Hot path: the kind request `round` of a flow of kind k is counted as
 * (its row's step_kind), or -1 when k is not a flow. */
static inline int ldb_op_step_kind(enum ldb_op k, unsigned round)
{
	unsigned n = ldb_ops[k]->nsteps;
	if (n == 0)
		return -1;
	return ldb_ops[k]->step_kind[round < n ? round : n - 1];
}

/* Hot path: the second row request `round` of a flow of kind k is counted
 * on (its row's step_also), or 0. */
static inline int ldb_op_step_also(enum ldb_op k, unsigned round)
{
	unsigned n = ldb_ops[k]->nsteps;
	return n == 0 ? 0 : ldb_ops[k]->step_also[round < n ? round : n - 1];
}

/* A failure that ldclt's counteach counts as an operation. */
static inline bool ldb_op_expected_failure(enum ldb_op k, int rc)
{
	if (ldb_ops[k]->expected_any)
		return true;
	for (int i = 0; i < LDB_OP_CODES && ldb_ops[k]->expected[i] != 0; i++)
		if (ldb_ops[k]->expected[i] == rc)
			return true;
	return false;
}

/* One operation of a run without --mix: the kinds with a weight (and a delete
 * after each add with --delete-after-add) in ldclt's order; a search when
 * there is none.  @return the number of steps written to pass. */
int ldb_ops_pass(const struct ldb_config *c, uint8_t pass[LDB_OP_COUNT]);

/* The option checks of every used kind that checks at `at` (in table order). */
int ldb_ops_check(const struct ldb_config *c, enum ldb_op_check_at at, char *why, size_t cap);

/* The options of a kind the run does not do (stray): 0, or -1 with the
 * first kind's message (in table order). */
int ldb_ops_strays(const struct ldb_config *c, char *why, size_t cap);

/* Start-up: prepare every kind in use (used[k]).  @return 0, or -1 with err. */
/* The attribute listeners read a modify's value from (--listen-attr, -e
 * attreplace's or --modify's, else the first step of o's flow that replaces
 * one; o may be NULL), or NULL (ops/flow.c). */
const char *ldb_listen_value_attr(const struct ldb_config *c, const struct ldb_ops_run *o);
int ldb_ops_prepare(struct ldb_ops_run *o, const struct ldb_config *c, const bool used[LDB_OP_COUNT], char *err,
                    size_t cap);
void ldb_ops_free(struct ldb_ops_run *o);
/* A client's states of the run's value patterns (client of nclients), in
 * its scratch.  @return 0, or -1 with one line in err. */
int ldb_ops_client_init(const struct ldb_ops_run *o, struct ldb_wctx *wc, unsigned client, unsigned nclients, char *err,
                        size_t cap);

/* Start-up: the request controls of every used kind into o->ctl[] (the
 * generic ones, then the named ones its row carries), and the room they
 * take added to o->room[] (ops/kind_controls.c).  0, or -1 with one line in err. */
int ldb_ops_controls(struct ldb_ops_run *o, const struct ldb_config *c, const bool used[LDB_OP_COUNT], char *err,
                     size_t cap);
void ldb_ops_controls_free(struct ldb_ops_run *o);

/* -v, in print_rank's order: every used kind's mode words; its lines among
 * ldclt's (ldclt true), or its own. */
void ldb_ops_print_mode(const struct ldb_config *c, FILE *out);
void ldb_ops_print(const struct ldb_config *c, bool ldclt, FILE *out);

/* One "Key = value" line of -v, the key padded as ldclt does. */
#define LDB_VKEY "%-19s= "

/* The rows, one file each (ops/search.c, ...). */
extern const struct ldb_opdesc ldb_op_search, ldb_op_bind, ldb_op_add, ldb_op_modify, ldb_op_delete, ldb_op_rename,
        ldb_op_compare, ldb_op_abandon, ldb_op_passmod, ldb_op_whoami, ldb_op_extended, ldb_op_login;
/* The general flows' rows (ops/flow.c), LDB_OP_FLOW on: per slot a flow row
 * and its step rows, made by ldb_flow_rows_init (before main: ops.c); their
 * names, nsteps and entries are set from the options by the flow's check,
 * before any thread starts. */
extern struct ldb_opdesc ldb_op_flows[LDB_OP_COUNT - LDB_OP_FLOW];
void ldb_flow_rows_init(void);
extern const struct ldb_opdesc ldb_op_login_groups;
/* A flow's row named in a results file, for a process that did not run it
 * (compare, merge read records by name): the kind it takes, -1 none. */
int ldb_flow_adopt_row(const char *name);

/* Output space a write kind's request may take (its prepare sets room[]). */
#define LDB_OP_WRITE_ROOM (64 * 1024)
/* The largest -e imagesdir file: a jpegPhoto and the rest of the entry fit the room. */
#define LDB_OP_IMAGE_MAX (48 * 1024)

/* The ancestor `level` RDNs above dn (1 = the parent) as an entry to add:
 * organizationalUnit for ou=, organization for o=, organizationalRole for cn=,
 * dcObject+organization for dc=, locality for l=.  (The add kind's missing
 * parents, ops/add.c.)  @return bytes written; 0 if there is no such ancestor,
 * its RDN type is none of those, or there is no room. */
size_t ldb_add_render_parent(const char *dn, size_t dnlen, int level, int32_t msgid, uint8_t *dst, size_t cap);

#endif
