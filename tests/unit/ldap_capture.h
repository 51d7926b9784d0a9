/* Test helper: libldap as the reference client.  libldap writes into one end
 * of a socketpair, the test reads the other and compares the bytes with what
 * its own encoder wrote.  Include after <cmocka.h>; everything is static
 * inline, so a test uses what it needs.  Used as the CMocka group state:
 * ldap_capture_setup / ldap_capture_teardown. */
#ifndef LDBENCH_TEST_LDAP_CAPTURE_H
#define LDBENCH_TEST_LDAP_CAPTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <lber.h>
#include <ldap.h>
#include <openldap.h>

#define BIG (1u << 20)

struct ldap_capture {
	int fds[2];
	LDAP *ld;
	uint8_t *got;  /* what libldap sent */
	uint8_t *mine; /* what we wrote */
	int msgid;     /* libldap's last message id (for the messages) */
};

static inline int ldap_capture_setup(void **state)
{
	struct ldap_capture *r = calloc(1, sizeof(*r));
	int v3 = LDAP_VERSION3, sz = 4 << 20;

	assert_non_null(r);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, r->fds), 0);
	setsockopt(r->fds[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(r->fds[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	assert_int_equal(ldap_init_fd(r->fds[0], LDAP_PROTO_TCP, "ldap://127.0.0.1", &r->ld), LDAP_SUCCESS);
	assert_int_equal(ldap_set_option(r->ld, LDAP_OPT_PROTOCOL_VERSION, &v3), LDAP_OPT_SUCCESS);
	r->got = malloc(BIG);
	r->mine = malloc(BIG);
	assert_non_null(r->got);
	assert_non_null(r->mine);
	*state = r;
	return 0;
}

static inline int ldap_capture_teardown(void **state)
{
	struct ldap_capture *r = *state;

	if (r->ld != NULL)
		ldap_unbind_ext(r->ld, NULL, NULL); /* closes fds[0] */
	close(r->fds[1]);
	free(r->got);
	free(r->mine);
	free(r);
	return 0;
}

/* Everything libldap has written so far, into r->got. */
static inline size_t ldap_capture_read(struct ldap_capture *r)
{
	size_t n = 0;
	ssize_t k;

	while (n < BIG && (k = recv(r->fds[1], r->got + n, BIG - n, MSG_DONTWAIT)) > 0)
		n += (size_t)k;
	return n;
}

/* What libldap just sent equals r->mine[0..m), which is not empty; on a
 * difference, the sizes and the first differing byte go to stderr. */
static inline void ldap_capture_expect(struct ldap_capture *r, size_t m, const char *what)
{
	size_t n = ldap_capture_read(r), i;

	if (n != m || memcmp(r->got, r->mine, n) != 0) {
		fprintf(stderr, "%s, msgid %d: libldap %zu bytes, ours %zu\n", what, r->msgid, n, m);
		for (i = 0; i < n && i < m; i++)
			if (r->got[i] != r->mine[i]) {
				fprintf(stderr, "first difference at byte %zu: %02x vs %02x\n", i, r->got[i],
				        r->mine[i]);
				break;
			}
	}
	assert_true(m > 0);
	assert_int_equal(n, m);
	assert_memory_equal(r->got, r->mine, n);
}

#endif
