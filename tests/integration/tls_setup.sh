#!/usr/bin/env bash
# The TLS fixture itself (fixture_start --tls), checked with ldap-utils only:
# ldaps and StartTLS with the fixture's CA, a client certificate that binds
# with SASL EXTERNAL as the user its subject maps to, and failures with the
# unrelated CA and with a wrong host name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 20 --tls

for v in FIX_LDAPS_PORT FIX_LDAPS_URI FIX_CA FIX_OTHER_CA FIX_CLIENT_CERT FIX_CLIENT_KEY FIX_CLIENT_DN; do
	[[ -n "${!v:-}" ]] || { echo "FAIL: $v is not set" >&2; exit 1; }
done
for f in "$FIX_CA" "$FIX_OTHER_CA" "$FIX_CLIENT_CERT" "$FIX_CLIENT_KEY"; do
	[[ -s "$f" ]] || { echo "FAIL: $f is missing" >&2; exit 1; }
done
assert_eq "uid=user00001,ou=People,dc=example,dc=com" "$FIX_CLIENT_DN" "client DN"
assert_eq "ldaps://127.0.0.1:$FIX_LDAPS_PORT/" "$FIX_LDAPS_URI" "ldaps URI"

user_dn="uid=user00003,$FIX_PEOPLE"
out=$FIX_DIR/whoami.out

expect_failed() { # what
	((RC != 0)) || { echo "FAIL: $1: succeeded, should have failed" >&2; exit 1; }
}

# whoami TOOL-ARGS...: ldapwhoami; output in $out, status in RC.  Not
# LDAPNOINIT=1, which would also ignore the LDAPTLS_* variables: ldap.conf and
# any ldaprc are kept out with LDAPCONF and LDAPRC instead.
whoami() {
	RC=0
	env -u LDAPNOINIT LDAPCONF=/dev/null LDAPRC=ldbench-no-such-ldaprc timeout 20 ldapwhoami -o nettimeout=5 "$@" >"$out" 2>&1 || { RC=$?; [[ -z "${TLS_DEBUG:-}" ]] || cat "$out" >&2; }
}

# 1. ldaps, simple bind, the right CA (the server certificate names 127.0.0.1)
LDAPTLS_CACERT=$FIX_CA whoami -x -H "$FIX_LDAPS_URI" -D "$user_dn" -w user00003
assert_eq 0 "$RC" "ldaps with the fixture CA"
assert_eq "dn:$user_dn" "$(cat "$out")" "ldaps whoami"

# 2. the server certificate names 127.0.0.1 and localhost (checked offline:
#    localhost may resolve to ::1 first, and the tests only use 127.0.0.1)
srv_cert=$FIX_DIR/tls/server.pem
assert_match 'does match certificate' <(openssl x509 -in "$srv_cert" -noout -checkip 127.0.0.1) "server cert IP"
assert_match 'does match certificate' <(openssl x509 -in "$srv_cert" -noout -checkhost localhost) "server cert name"
assert_match 'does NOT match' <(openssl x509 -in "$srv_cert" -noout -checkhost ldap.example.org) "other name"

# 3. StartTLS on the plain port (-ZZ: TLS is required)
LDAPTLS_CACERT=$FIX_CA whoami -x -ZZ -H "$FIX_URI" -D "$user_dn" -w user00003
assert_eq 0 "$RC" "StartTLS with the fixture CA"
assert_eq "dn:$user_dn" "$(cat "$out")" "StartTLS whoami"

# 4. the client certificate, SASL EXTERNAL: the server maps its subject
LDAPTLS_CACERT=$FIX_CA LDAPTLS_CERT=$FIX_CLIENT_CERT LDAPTLS_KEY=$FIX_CLIENT_KEY \
	whoami -Q -Y EXTERNAL -H "$FIX_LDAPS_URI"
assert_eq 0 "$RC" "SASL EXTERNAL over ldaps"
# (the server shows the mapped DN normalized: lower case)
assert_eq "dn:${FIX_CLIENT_DN,,}" "$(cat "$out")" "EXTERNAL identity over ldaps"
LDAPTLS_CACERT=$FIX_CA LDAPTLS_CERT=$FIX_CLIENT_CERT LDAPTLS_KEY=$FIX_CLIENT_KEY \
	whoami -Q -ZZ -Y EXTERNAL -H "$FIX_URI"
assert_eq 0 "$RC" "SASL EXTERNAL over StartTLS"
assert_eq "dn:${FIX_CLIENT_DN,,}" "$(cat "$out")" "EXTERNAL identity over StartTLS"

# 5. without a client certificate the server still accepts the connection
#    (TLSVerifyClient try), and EXTERNAL has no identity to use
LDAPTLS_CACERT=$FIX_CA whoami -Q -Y EXTERNAL -H "$FIX_LDAPS_URI"
expect_failed "EXTERNAL without a client certificate"
LDAPTLS_CACERT=$FIX_CA whoami -x -H "$FIX_LDAPS_URI"
assert_eq 0 "$RC" "anonymous ldaps without a client certificate"
assert_eq "anonymous" "$(cat "$out")" "anonymous whoami"

# 6. the unrelated CA: verification fails, over ldaps and StartTLS
LDAPTLS_CACERT=$FIX_OTHER_CA LDAPTLS_REQCERT=demand whoami -x -H "$FIX_LDAPS_URI"
expect_failed "ldaps with the other CA"
LDAPTLS_CACERT=$FIX_OTHER_CA LDAPTLS_REQCERT=demand whoami -x -ZZ -H "$FIX_URI"
expect_failed "StartTLS with the other CA"

# 7. a host name the certificate does not name
LDAPTLS_CACERT=$FIX_CA LDAPTLS_REQCERT=demand whoami -x -H "ldaps://127.0.0.2:$FIX_LDAPS_PORT/"
expect_failed "ldaps to 127.0.0.2 (not in the certificate)"

# 8. the certificates themselves: the server's names, the client's subject
openssl verify -CAfile "$FIX_CA" "$FIX_CLIENT_CERT" >/dev/null
if openssl verify -CAfile "$FIX_OTHER_CA" "$FIX_CLIENT_CERT" >/dev/null 2>&1; then
	echo "FAIL: the other CA verifies the client certificate" >&2
	exit 1
fi
assert_match 'CN ?= ?user00001' <(openssl x509 -in "$FIX_CLIENT_CERT" -noout -subject) "client subject"

# 9. a restart keeps both ports
fixture_restart
LDAPTLS_CACERT=$FIX_CA whoami -x -H "$FIX_LDAPS_URI"
assert_eq 0 "$RC" "ldaps after fixture_restart"

echo "tls_setup: ok"
