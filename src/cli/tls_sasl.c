/* --starttls and --tls-*, -o's SASL settings, -Z's NSS database detection,
 * their cross-checks and -Z's warning. */
#include "cli/ctx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "proto/sasl.h"
#include "values/pattern.h"
#include "util/util.h"

/* --starttls and the --tls-* options; remembers the first one for the checks. */
int cli_handle_tls_option(struct cli_ctx *x, int opt, const char *name, const char *arg)
{
	struct ldb_config *c = x->c;

	if (opt != OPT_STARTTLS && x->tls_opt == NULL)
		x->tls_opt = name;
	if (arg != NULL && arg[0] == '\0')
		return cli_fail(x, "--%s: empty value", name);
	switch (opt) {
	case OPT_STARTTLS: c->starttls = true; return 0;
	case OPT_TLS_CACERT: return cli_set_str(x, &c->tls_cacert, arg);
	case OPT_TLS_CACERTDIR: return cli_set_str(x, &c->tls_cacertdir, arg);
	case OPT_TLS_CERT: return cli_set_str(x, &c->tls_cert, arg);
	case OPT_TLS_KEY: return cli_set_str(x, &c->tls_key, arg);
	case OPT_TLS_CIPHERS: return cli_set_str(x, &c->tls_ciphers, arg);
	case OPT_TLS_INSECURE: c->tls_insecure = true; return 0;
	case OPT_TLS_RESUME: c->tls_resume = true; return 0;
	case OPT_TLS_LIBRARY:
		if ((c->tls_library = ldb_tls_library_of(arg)) == LDB_TLS_LIB_DEFAULT)
			return cli_fail(x, "--tls-library '%s': must be openssl or gnutls", arg);
		return 0;
	case OPT_TLS_MIN:
		if (strcmp(arg, "1.2") == 0)
			c->tls_min = 12;
		else if (strcmp(arg, "1.3") == 0)
			c->tls_min = 13;
		else
			return cli_fail(x, "--tls-min '%s': must be 1.2 or 1.3", arg);
		return 0;
	default: return cli_fail(x, "unknown TLS option");
	}
}

/* -o KEY=VALUE, one setting per -o as ldclt: the KEY is any prefix of a
 * setting's name, case-insensitive, tried in ldclt's order (so "auth=" is
 * authzid). */
int cli_parse_sasl_opt(struct cli_ctx *x, const char *arg)
{
	static const char *const keys[] = { "secProp", "realm", "authzid", "authid", "mech", "flags" };
	struct ldb_config *c = x->c;
	const char *eq = strchr(arg, '=');
	const char *val;
	size_t klen;
	int k;

	if (eq == NULL || eq == arg)
		return cli_fail(x, "-o '%s': expected KEY=VALUE (mech, authid, authzid, realm, secProp, flags)", arg);
	klen = (size_t)(eq - arg);
	val = eq + 1;
	for (k = 0; k < 6; k++)
		if (klen <= strlen(keys[k]) && strncasecmp(arg, keys[k], klen) == 0)
			break;
	if (k == 6)
		return cli_fail(x, "-o '%.*s': unknown SASL setting (mech, authid, authzid, realm, secProp, flags)",
		                (int)klen, arg);
	if (val[0] == '\0')
		return cli_fail(x, "-o %s=: empty value", keys[k]);
	switch (k) {
	case 0: /* secProp: security layers; EXTERNAL and PLAIN have none */ return 0;
	case 1:
		if (c->sasl_realm != NULL)
			return cli_fail(x, "-o realm given twice");
		return cli_set_str(x, &c->sasl_realm, val);
	case 2:
		if (c->sasl_authzid != NULL)
			return cli_fail(x, "-o authzid given twice");
		return cli_set_str(x, &c->sasl_authzid, val);
	case 3:
		if (c->sasl_authid != NULL)
			return cli_fail(x, "-o authid given twice");
		return cli_set_str(x, &c->sasl_authid, val);
	case 4:
		if (c->sasl_mech != NULL)
			return cli_fail(x, "-o mech given twice");
		if (strcasecmp(val, "EXTERNAL") != 0 && strcasecmp(val, "PLAIN") != 0 &&
		    ldb_sasl_mech_lookup(val) == LDB_SASL_NONE)
			return cli_fail(
			        x,
			        "-o mech=%s: not supported (EXTERNAL, PLAIN, CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1, "
			        "SCRAM-SHA-256)",
			        val);
		if (cli_set_str(x, &c->sasl_mech, val) < 0)
			return -1;
		for (char *p = c->sasl_mech; *p != '\0'; p++)
			*p = (char)toupper((unsigned char)*p);
		return 0;
	default: { /* flags: ldbench never prompts, so any of ldclt's values is fine */
		size_t n = strlen(val);

		if (strncasecmp(val, "automatic", n) != 0 && strncasecmp(val, "interactive", n) != 0 &&
		    strncasecmp(val, "quiet", n) != 0)
			return cli_fail(x, "-o flags=%s: must be automatic, interactive or quiet", val);
		return 0;
	}
	}
}

/* -Z PATH names an NSS database when PATH is one of its files, or a directory
 * holding one, or a file beside one (ldclt uses PATH's directory). */
static bool is_nss_db(const char *path)
{
	static const char *const files[] = { "cert9.db", "cert8.db", "key4.db", "key3.db" };
	char buf[4096];
	const char *base = strrchr(path, '/');
	size_t dlen;

	if (strncmp(path, "sql:", 4) == 0 || strncmp(path, "dbm:", 4) == 0)
		return true;
	base = base != NULL ? base + 1 : path;
	dlen = (size_t)(base - path);
	for (int i = 0; i < 4; i++) {
		if (strcmp(base, files[i]) == 0)
			return true;
		/* PATH as a directory */
		if (snprintf(buf, sizeof buf, "%s/%s", path, files[i]) < (int)sizeof buf && access(buf, F_OK) == 0)
			return true;
		/* PATH's directory */
		if (snprintf(buf, sizeof buf, "%.*s%s", (int)dlen, dlen ? path : "./", files[i]) < (int)sizeof buf &&
		    access(buf, F_OK) == 0)
			return true;
	}
	return false;
}

/* A multi-step exchange keeps its fields in a fixed-size state: the
 * authentication ID (its XXX rendered), password, authzid and realm fit
 * LDB_SASL_FIELD_MAX bytes. */
static int check_sasl_lengths(struct cli_ctx *x)
{
	const struct ldb_config *c = x->c;
	/* an XXX run renders no longer than it is (the range is checked against its width) */
	const struct {
		const char *what, *val;
	} f[] = { { "-o authid", c->sasl_authid },
		  { "the password", c->password },
		  { "-o authzid", c->sasl_authzid },
		  { "-o realm", c->sasl_realm } };
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].val != NULL && strlen(f[i].val) > LDB_SASL_FIELD_MAX)
			return cli_fail(x, "%s is too long for -o mech=%s (at most %d bytes)", f[i].what, c->sasl_mech,
			                LDB_SASL_FIELD_MAX);
	return 0;
}

/* The TLS options against each other and the library (the checks the
 * replay's command line shares: conf/target), then -Z's.  @return 0 or -1. */
static int check_tls(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	struct ldb_target t;
	char opt[64], err[256];

	ldb_target_of_config(&t, c);
	if (x->tls_opt != NULL)
		snprintf(opt, sizeof opt, "--%s", x->tls_opt);
	if (ldb_target_check_tls(&t, x->tls_opt != NULL ? opt : NULL, "ldaps (-Z, -H ldaps://)", "-Z, -H ldaps://", err,
	                         sizeof err) != 0)
		return cli_fail(x, "%s", err);
	c->tls_library = t.tls.library;
	if (c->tls_certdb != NULL && c->ldaps) {
		c->tls_nssdb = is_nss_db(c->tls_certdb);
		/* ldclt's -Z checks nothing: the same here, unless a CA is given */
		if (c->tls_cacert == NULL && c->tls_cacertdir == NULL)
			c->tls_insecure = true;
	}
	return 0;
}

int cli_check_tls_sasl(struct cli_ctx *x)
{
	struct ldb_config *c = x->c;
	char why[512];

	if (check_tls(x) != 0)
		return -1;
	/* SASL */
	if (c->sasl_mech == NULL) {
		if (c->sasl_authid != NULL || c->sasl_authzid != NULL || c->sasl_realm != NULL)
			return cli_fail(x,
			                "-o %s needs -o mech= (EXTERNAL, PLAIN, CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1, "
			                "SCRAM-SHA-256)",
			                c->sasl_authid != NULL    ? "authid"
			                : c->sasl_authzid != NULL ? "authzid"
			                                          : "realm");
		if (c->randomauthid)
			return cli_fail(x, "-e randomauthid needs -o mech= (not EXTERNAL) with an XXX in -o authid");
		return 0;
	}
	if (c->bind_dn != NULL)
		return cli_fail(x, "-D and -o mech exclude each other (a SASL bind names its user with -o authid)");
	if (c->randombinddn || c->binddn_file != NULL)
		return cli_fail(x, "-e %s and -o mech exclude each other (use -e randomauthid)",
		                c->randombinddn ? "randombinddn" : "randombinddnfromfile");
	if (strcmp(c->sasl_mech, "EXTERNAL") == 0) {
		if (c->tls_cert == NULL)
			return cli_fail(x,
			                "-o mech=EXTERNAL needs a client certificate (--tls-cert FILE --tls-key FILE)");
		if (c->sasl_authid != NULL || c->randomauthid)
			return cli_fail(x,
			                "-o authid is not used by EXTERNAL: the identity is the client certificate's "
			                "(-o authzid asks for another)");
		return 0;
	}
	/* PLAIN and the multi-step mechanisms */
	if (c->sasl_authid == NULL)
		return cli_fail(x, "-o mech=%s needs -o authid=USER", c->sasl_mech);
	if (c->password == NULL)
		return cli_fail(x, "-o mech=%s needs a password (-w, -y or LDBENCH_PASSWORD)", c->sasl_mech);
	if (ldb_sasl_mech_lookup(c->sasl_mech) != LDB_SASL_NONE && check_sasl_lengths(x) < 0)
		return -1;
	/* a multi-step exchange draws its ID from -o authid's XXX (randomauthid), not from a value pattern */
	if (ldb_sasl_mech_lookup(c->sasl_mech) != LDB_SASL_NONE &&
	    (c->sasl_authid_pat.vp != NULL || c->password_pat.vp != NULL))
		return cli_fail(x, "-o mech=%s takes no value pattern in -o authid or -w: use XXX with -e randomauthid",
		                c->sasl_mech);
	if (c->randomauthid) {
		if (!ldb_pattern_has_var(&c->sasl_authid_pat))
			return cli_fail(x, "-e randomauthid needs an XXX placeholder in -o authid");
		if (cli_check_range_given(x, "randomauthid", c->authid_low, c->authid_high, "randomauthidlow",
		                          "randomauthidhigh") < 0)
			return -1;
		if (ldb_pattern_check_range(&c->sasl_authid_pat, c->authid_low, c->authid_high, "randomauthidhigh", why,
		                            sizeof(why)) < 0)
			return cli_fail(x, "%s", why);
		if (ldb_pattern_has_var(&c->password_pat) && (size_t)ldb_digits(c->authid_high) > c->password_pat.width)
			return cli_fail(x,
			                "randomauthidhigh %lld needs %d digits but the XXX of the password "
			                "(-w) has %zu X",
			                c->authid_high, ldb_digits(c->authid_high), c->password_pat.width);
		/* the worker draws the number of LDB_FIELD_BINDDN from these */
		c->binddn_low = c->authid_low;
		c->binddn_high = c->authid_high;
	}
	return 0;
}

/* The -Z warning (stderr, once, when the run goes ahead). */
void cli_warn_certdb(const struct ldb_config *c)
{
	if (c->tls_certdb == NULL || !c->ldaps)
		return;
	if (c->tls_nssdb)
		fprintf(stderr,
		        "%s: warning: -Z %s is an NSS database, which ldbench cannot read (its TLS reads PEM files); "
		        "%s\n",
		        c->progname, c->tls_certdb,
		        c->tls_insecure ? "the server certificate is NOT verified (as with ldclt); give "
		                          "--tls-cacert FILE (PEM) to verify it"
		                        : "it is ignored: the server certificate is verified with --tls-cacert");
	else if (c->tls_insecure)
		fprintf(stderr,
		        "%s: warning: -Z: the server certificate is NOT verified (as with ldclt); give "
		        "--tls-cacert FILE (PEM) to verify it\n",
		        c->progname);
}
