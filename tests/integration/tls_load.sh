#!/usr/bin/env bash
# TLS loads: ldaps and StartTLS with 16 clients and zero errors (the server
# counts the same operations), certificates checked by default (unknown CA and
# wrong host name refused with a clear line, --tls-insecure passes and says
# so), SASL EXTERNAL with a client certificate (the server sees the identity),
# bindeach stage histograms, and no password in any output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 500 --tls
out=$FIX_DIR/out.txt
all=$FIX_DIR/all-output.txt
: >"$all"
keep() { cat "$out" >>"$all"; }
search=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R500 --no-preflight)
ldaps=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT")

# 1. ldaps, 16 clients, verified: zero errors, the server counts the same searches
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${ldaps[@]}" --tls-cacert "$FIX_CA" "${search[@]}" -n 16 -T 50; keep
assert_eq 0 "$RC" "exit status over ldaps"
assert_match 'Global no error occurs during this session\.$' "$out" "no error over ldaps"
assert_eq 800 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches over ldaps"
assert_match 'TLS: handshakes 16, resumed [0-9]+, server certificate verified$' "$out" "16 verified handshakes"

# 2. StartTLS likewise
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" --starttls --tls-cacert "$FIX_CA" "${search[@]}" -n 16 -T 50; keep
assert_eq 0 "$RC" "exit status over StartTLS"
assert_eq 800 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches over StartTLS"
assert_eq 16 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "one StartTLS per connection"
assert_match 'TLS: handshakes 16, ' "$out" "16 StartTLS handshakes"
# StartTLS's answer does not prove the connection: its bind does, once (a first
# connect is no reconnect)
assert_match 'Connections: opened 16, reconnects 0, binds at connect 16$' "$out" "no reconnect counted over StartTLS"

# 3. an unknown CA fails verification with a clear line; --tls-insecure passes and says so
run_ldbench "$out" "${ldaps[@]}" --tls-cacert "$FIX_OTHER_CA" "${search[@]}" -n 2 -T 10; keep
assert_eq 4 "$RC" "exit status with an unknown CA"
assert_match '^ldbench\[[0-9]+\]: T000: Cannot connect \(TLS\): certificate verify failed: ' "$out" "verification failure line"
run_ldbench "$out" "${ldaps[@]}" --tls-insecure "${search[@]}" -n 2 -T 10; keep
assert_eq 0 "$RC" "exit status with --tls-insecure"
assert_match 'server certificate NOT verified' "$out" "insecure said"

# 3b. -Z as ldclt's: ldaps without verification unless a CA is given, said by a warning and the
# TLS line; with --tls-cacert it verifies (an unknown CA is refused).  README.md says exactly this.
zdb=$FIX_DIR/no-such-nss-db
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_LDAPS_PORT" -Z "$zdb" "${search[@]}" -n 2 -T 10; keep
assert_eq 0 "$RC" "-Z without a CA: connects (the fixture's CA is not in the system's store)"
assert_match 'Global no error occurs during this session\.$' "$out" "-Z: no error"
assert_match "^ldbench: warning: -Z: the server certificate is NOT verified \\(as with ldclt\\); give --tls-cacert FILE \\(PEM\\) to verify it\$" \
	"$out" "-Z: the warning line"
assert_match 'TLS: handshakes 2, resumed [0-9]+, server certificate NOT verified \(--tls-insecure or -Z without a CA\)$' \
	"$out" "-Z: the TLS line says NOT verified"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_LDAPS_PORT" -Z "$zdb" --tls-cacert "$FIX_OTHER_CA" "${search[@]}" -n 2 -T 10; keep
assert_eq 4 "$RC" "-Z with an unknown CA: refused"
assert_match 'Cannot connect \(TLS\): certificate verify failed: ' "$out" "-Z --tls-cacert: verified"
assert_no_match 'warning: -Z' "$out" "-Z --tls-cacert: no warning"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_LDAPS_PORT" -Z "$zdb" --tls-cacert "$FIX_CA" "${search[@]}" -n 2 -T 10; keep
assert_eq 0 "$RC" "-Z with the server's CA"
assert_match 'TLS: handshakes 2, resumed [0-9]+, server certificate verified$' "$out" "-Z --tls-cacert: the TLS line"
readme=$(tr -s ' \n' '  ' <"${LDBENCH_SOURCE_DIR:-$here/../..}/README.md")
for said in "-Z FILE\` gives ldaps (port 636 by default) as ldclt's does, and as ldclt's it does not verify the server certificate unless \`--tls-cacert\` or \`--tls-cacertdir\` is given" \
	"the run says so in a warning and in its \`TLS:\` line"; do
	grep -qF -- "$said" <<<"$readme" || _fail "README.md does not say what -Z does, as tested here: '$said'"
done
echo "ok: README.md says what -Z does"

# 4. a host name the certificate does not carry (127.0.0.2 is loopback too)
run_ldbench "$out" -H "ldaps://127.0.0.2:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA" "${search[@]}" -n 1 -T 5; keep
assert_eq 4 "$RC" "exit status with a wrong host name"
assert_match 'Cannot connect \(TLS\): certificate verify failed: .*(hostname|IP address) mismatch' "$out" "host name failure line"

# 5. SASL EXTERNAL with the client certificate: the server binds the mapped identity
run_ldbench "$out" "${ldaps[@]}" --tls-cacert "$FIX_CA" --tls-cert "$FIX_CLIENT_CERT" --tls-key "$FIX_CLIENT_KEY" \
	-o mech=EXTERNAL -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch,srchnentries=1 -n 2 -T 20 --io-threads 1 &
pid=$!
# while it runs, its connections are bound as the mapped DN
seen=""
for _ in $(seq 1 50); do
	seen=$(ldapsearch -LLL -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b cn=Connections,cn=Monitor \
		'(monitorConnectionAuthzDN=*)' monitorConnectionAuthzDN 2>/dev/null |
		sed -nE 's/^monitorConnectionAuthzDN: (.*)$/\1/p' | grep -i "^$FIX_CLIENT_DN\$" | head -n 1 || true)
	[ -n "$seen" ] && break
	sleep 0.05
done
wait "$pid" && RC=0 || RC=$?
assert_eq 0 "$RC" "exit status with SASL EXTERNAL"
# a -T 20 run can end before the monitor read: check with a longer one if needed
if [ -z "$seen" ]; then
	timeout 60 "$LDBENCH" "${ldaps[@]}" --tls-cacert "$FIX_CA" --tls-cert "$FIX_CLIENT_CERT" --tls-key "$FIX_CLIENT_KEY" \
		-o mech=EXTERNAL -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch,sampinterval=1 -n 1 -N 2 >"$out" 2>&1 &
	pid=$!
	sleep 1
	seen=$(ldapsearch -LLL -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b cn=Connections,cn=Monitor \
		'(monitorConnectionAuthzDN=*)' monitorConnectionAuthzDN | sed -nE 's/^monitorConnectionAuthzDN: (.*)$/\1/p' |
		grep -i "^$FIX_CLIENT_DN\$" | head -n 1 || true)
	wait "$pid" || true
fi
assert_eq "$(echo "$FIX_CLIENT_DN" | tr 'A-Z' 'a-z')" "$(echo "$seen" | tr 'A-Z' 'a-z')" "identity the server bound"

# 6. bindeach over ldaps: connect, TLS, bind and cycle histograms; the stages add up
run_ldbench "$out" "${ldaps[@]}" --tls-cacert "$FIX_CA" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
	-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=500 -n 4 -T 50; keep
assert_eq 0 "$RC" "exit status, bindeach over ldaps"
for st in connect tls bind cycle; do
	assert_match "^ldbench\[[0-9]+\]: $st latency \(ms\): min [0-9.]+, mean [0-9.]+," "$out" "$st stage histogram"
done
mean() { sed -nE "s/.*: $1 latency \(ms\): min [0-9.]+, mean ([0-9.]+),.*/\1/p" "$out"; }
awk -v c="$(mean connect)" -v t="$(mean tls)" -v b="$(mean bind)" -v y="$(mean cycle)" 'BEGIN {
	s = c + t + b; printf "stages %.3f ms of a %.3f ms cycle\n", s, y
	exit !(s <= y * 1.05 && s >= y * 0.5) }' || _fail "the stages do not add up to the cycle"

# 7. no password in any output of this test
assert_no_match "$FIX_ROOTPW" "$all" "root password never printed"
echo "tls_load: all passed"
