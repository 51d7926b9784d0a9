#!/usr/bin/env bash
# The load's two TLS libraries (--tls-library openssl and gnutls) against
# slapd with an EC (P-256) and an RSA server key: bindeach,bindonly over ldaps
# binds every time (the server counts the binds, one handshake each); the
# server certificate is verified by default with either library: an unknown
# CA fails every handshake, counted as TLS failures and named, and no bind
# (no password) reaches the server; a host name the certificate does not
# carry is refused; --tls-insecure connects.  --tls-ciphers with gnutls and
# an unknown library name are usage errors (exit 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out.txt

# usage errors first, before any server
run_ldbench "$out" -H ldaps://127.0.0.1:1 --tls-library gnutls --tls-ciphers ECDHE-ECDSA-AES128-GCM-SHA256 \
	-b dc=x -f '(uid=x)' -e esearch -n 1 -T 1
assert_eq 2 "$RC" "--tls-ciphers with gnutls: exit status"
assert_match 'tls-ciphers is an OpenSSL cipher list: not with --tls-library gnutls' "$out" "--tls-ciphers with gnutls"
run_ldbench "$out" -H ldaps://127.0.0.1:1 --tls-library nss -b dc=x -f '(uid=x)' -e esearch -n 1 -T 1
assert_eq 2 "$RC" "unknown library: exit status"
assert_match "tls-library 'nss': must be openssl or gnutls" "$out" "unknown library named"
LDBENCH_TLS_LIBRARY=nss run_ldbench "$out" -H ldaps://127.0.0.1:1 -b dc=x -f '(uid=x)' -e esearch -n 1 -T 1
assert_eq 2 "$RC" "unknown library in LDBENCH_TLS_LIBRARY: exit status"
assert_match "LDBENCH_TLS_LIBRARY 'nss': must be openssl or gnutls" "$out" "unknown library in the environment"

for key in ec rsa; do
	fixture_start --users 100 --tls --tls-key "$key" --nosync
	ldaps=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT")
	search=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1
		-r1 -R100 --no-preflight)
	binds=(-D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX -e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=100 --no-preflight)
	for lib in openssl gnutls; do
		what="$lib, $key key"
		# 1. a bind per connection, verified: every bind reaches the server
		fixture_monitor_snapshot "$FIX_DIR/snap"
		run_ldbench "$out" "${ldaps[@]}" --tls-library "$lib" --tls-cacert "$FIX_CA" "${binds[@]}" -n 2 -T 20
		assert_eq 0 "$RC" "$what: bindeach,bindonly exit status"
		assert_match 'Global no error occurs during this session\.$' "$out" "$what: no error"
		assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "$what: server-side binds"
		assert_match 'TLS: handshakes 40, resumed 0, server certificate verified$' "$out" "$what: 40 verified handshakes"
		[[ $key == ec ]] || continue

		# 2. an unknown CA: every handshake fails, counted and named; no bind is sent
		fixture_monitor_snapshot "$FIX_DIR/snap"
		run_ldbench "$out" "${ldaps[@]}" --tls-library "$lib" --tls-cacert "$FIX_OTHER_CA" "${search[@]}" -n 2 -T 5
		assert_eq 4 "$RC" "$what: exit status with an unknown CA"
		assert_match '^ldbench\[[0-9]+\]: T00[01]: Cannot connect \(TLS\): certificate verify failed: (unable to get local issuer certificate|self-signed certificate in certificate chain)$' \
			"$out" "$what: the verification failure named"
		# the same words from either library
		line=$(sed -nE 's/^ldbench\[[0-9]+\]: T000: Cannot connect \(TLS\): //p' "$out" | head -n 1)
		[[ $lib == openssl ]] && openssl_line=$line
		assert_eq "$openssl_line" "$line" "$what: the failure line is OpenSSL's"
		assert_match 'Client failures: connect 0, tls [1-9][0-9]*, ' "$out" "$what: TLS failures counted"
		assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "$what: no bind reached the server"
		assert_no_match "$FIX_ROOTPW" "$out" "$what: no password printed"

		# 3. a host name the certificate does not carry (127.0.0.2 is loopback too)
		fixture_monitor_snapshot "$FIX_DIR/snap"
		run_ldbench "$out" -H "ldaps://127.0.0.2:$FIX_LDAPS_PORT" --tls-library "$lib" --tls-cacert "$FIX_CA" \
			"${search[@]}" -n 1 -T 5
		assert_eq 4 "$RC" "$what: exit status with a wrong host name"
		assert_match 'Cannot connect \(TLS\): certificate verify failed: IP address mismatch \(the certificate is not for 127\.0\.0\.2\)$' \
			"$out" "$what: the host name failure named"
		assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "$what: no bind to the wrong host"

		# 4. --tls-insecure: the unknown CA connects, and the run says so
		fixture_monitor_snapshot "$FIX_DIR/snap"
		run_ldbench "$out" "${ldaps[@]}" --tls-library "$lib" --tls-cacert "$FIX_OTHER_CA" --tls-insecure \
			"${search[@]}" -n 2 -T 5
		assert_eq 0 "$RC" "$what: exit status with --tls-insecure"
		assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "$what: searches with --tls-insecure"
		assert_match 'TLS: handshakes 2, resumed 0, server certificate NOT verified' "$out" "$what: insecure said"
	done
	fixture_stop
done
echo "tls_library: all passed"
