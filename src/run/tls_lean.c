/* The load's lean OpenSSL library context: see tls_lean.h. */
#include "run/tls_lean.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>
#include <openssl/provider.h>

/* Key types a TLS client meets in certificates, key shares and record MACs
 * (HMAC keys for TLS 1.2's CBC suites); the default provider's others
 * (DHX, SM2, SCRYPT, SIPHASH, POLY1305, CMAC) are left out. */
static const char *const kept_keys[] = { "RSA",   "RSA-PSS", "EC",  "X25519", "X448",     "ED25519",
	                                 "ED448", "DH",      "DSA", "HMAC",   "TLS1-PRF", "HKDF" };

static OSSL_PROVIDER *deflt;         /* the default provider, in OpenSSL's default context */
static OSSL_ALGORITHM *lean_keymgmt; /* the kept key managements */
static OSSL_ALGORITHM *lean_decoder; /* DER SubjectPublicKeyInfo decoders of the kept types */
static pthread_once_t lean_once = PTHREAD_ONCE_INIT;
static bool lean_ready;

/* The first name of an algorithm ("EC" of "EC:id-ecPublicKey:1.2..."). */
static bool first_name_kept(const char *names)
{
	size_t n = strcspn(names, ":");

	for (size_t i = 0; i < sizeof kept_keys / sizeof kept_keys[0]; i++)
		if (strlen(kept_keys[i]) == n && strncmp(names, kept_keys[i], n) == 0)
			return true;
	return false;
}

static bool is_spki_der(const char *props)
{
	return props != NULL && strstr(props, "input=der") != NULL &&
	       strstr(props, "structure=SubjectPublicKeyInfo") != NULL;
}

/* A copy of the default provider's table for op, with only the kept rows
 * (and the zero row that ends it); NULL when out of memory. */
static OSSL_ALGORITHM *filtered(int op)
{
	int no_cache = 0;
	const OSSL_ALGORITHM *all = OSSL_PROVIDER_query_operation(deflt, op, &no_cache);
	size_t n = 0, k = 0;

	while (all != NULL && all[n].algorithm_names != NULL)
		n++;
	OSSL_ALGORITHM *out = calloc(n + 1, sizeof *out);

	for (size_t i = 0; out != NULL && i < n; i++) {
		if (!first_name_kept(all[i].algorithm_names))
			continue;
		if (op == OSSL_OP_DECODER && !is_spki_der(all[i].property_definition))
			continue;
		out[k++] = all[i];
	}
	if (all != NULL)
		OSSL_PROVIDER_unquery_operation(deflt, op, all);
	return out;
}

static void lean_init_once(void)
{
	deflt = OSSL_PROVIDER_load(NULL, "default");
	if (deflt == NULL)
		return;
	lean_keymgmt = filtered(OSSL_OP_KEYMGMT);
	lean_decoder = filtered(OSSL_OP_DECODER);
	lean_ready = lean_keymgmt != NULL && lean_decoder != NULL && lean_keymgmt[0].algorithm_names != NULL &&
	             lean_decoder[0].algorithm_names != NULL;
}

static const OSSL_ALGORITHM *lean_query(void *provctx, int op, int *no_cache)
{
	(void)provctx;
	*no_cache = 0;
	if (op == OSSL_OP_KEYMGMT)
		return lean_keymgmt;
	if (op == OSSL_OP_DECODER)
		return lean_decoder;
	return OSSL_PROVIDER_query_operation(deflt, op, no_cache);
}

static void lean_unquery(void *provctx, int op, const OSSL_ALGORITHM *algs)
{
	(void)provctx;
	if (op != OSSL_OP_KEYMGMT && op != OSSL_OP_DECODER)
		OSSL_PROVIDER_unquery_operation(deflt, op, algs);
}

static int lean_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb, void *arg)
{
	(void)provctx;
	return OSSL_PROVIDER_get_capabilities(deflt, capability, cb, arg);
}

static void lean_teardown(void *provctx)
{
	(void)provctx; /* the context is the default provider's, which stays */
}

typedef void (*lean_fn)(void);

static const OSSL_DISPATCH lean_dispatch[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, (lean_fn)lean_teardown },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION, (lean_fn)lean_query },
	{ OSSL_FUNC_PROVIDER_UNQUERY_OPERATION, (lean_fn)lean_unquery },
	{ OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (lean_fn)lean_capabilities },
	{ 0, NULL },
};

/* The provider's entry point: the default provider's implementations, run
 * with the default provider's own context. */
static int lean_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
                              void **provctx)
{
	(void)handle;
	(void)in;
	*provctx = OSSL_PROVIDER_get0_provider_ctx(deflt);
	*out = lean_dispatch;
	return *provctx != NULL;
}

/* The process's one lean context, made on first use; never freed (it must
 * outlive every SSL_CTX and SSL made in it, as OpenSSL's default context). */
static OSSL_LIB_CTX *lean_lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lean_lib_once(void)
{
	pthread_once(&lean_once, lean_init_once);
	if (!lean_ready)
		return;
	OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

	if (lib == NULL)
		return;
	if (OSSL_PROVIDER_add_builtin(lib, "ldbench-lean", lean_provider_init) != 1 ||
	    OSSL_PROVIDER_load(lib, "ldbench-lean") == NULL) {
		OSSL_LIB_CTX_free(lib);
		return;
	}
	lean_lib = lib;
}

OSSL_LIB_CTX *ldb_tls_lean(void)
{
	pthread_once(&lib_once, lean_lib_once);
	return lean_lib;
}
