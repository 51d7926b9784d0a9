/* A lean OpenSSL 3 library context for the load's TLS client.
 *
 * OpenSSL 3.0 decodes the public key of every certificate it parses
 * (d2i_X509, for each certificate the server sends in every handshake) with
 * OSSL_DECODER_CTX_new_for_pkey, which builds its decoder chain afresh each
 * time: it constructs every key management and every decoder of every
 * provider in the library context and matches each decoder against each key
 * type by name.  With the default provider (18 key managements, 40 decoders)
 * that is most of a client handshake's instructions (callgrind: 1.2 million
 * per certificate, two certificates per handshake from the test fixture).
 *
 * The context made here holds one provider, built in: it hands out the
 * default provider's own implementations, run with the default provider's
 * own context, for every operation, except that key managements are only the
 * twelve key types a TLS client meets (RSA, RSA-PSS, EC, X25519, X448,
 * ED25519, ED448, DH, DSA, and HMAC, TLS1-PRF and HKDF) and decoders only the
 * DER SubjectPublicKeyInfo decoders of those types.  The same code does the
 * same cryptography; the chain is built from 12 key managements and 9
 * decoders.  Certificates and PEM files are parsed as before (PEM is not a
 * decoder there); private keys (--tls-cert/--tls-key) need the decoders left
 * out, so a run with a client certificate keeps OpenSSL's default context.
 *
 * Made at start-up; safe to share between threads, as any library context. */
#ifndef LDBENCH_RUN_TLS_LEAN_H
#define LDBENCH_RUN_TLS_LEAN_H

#include <openssl/types.h>

/* The process's lean library context, made on first use and kept until the
 * process ends (an SSL_CTX or SSL may outlive whoever made it), or NULL
 * (OpenSSL's default provider could not be loaded, or out of memory: the
 * caller uses OpenSSL's default context). */
OSSL_LIB_CTX *ldb_tls_lean(void);

#endif
