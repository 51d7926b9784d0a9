#!/usr/bin/env bash
# Server-side errors and client failures: tallied by code, -E stops the run
# with exit 3, a refused bind exits 4, a port without a server fails clearly
# and fast, and no password ever shows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 100
out=$FIX_DIR/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT")
secret="Wr0ng-$RANDOM-secret"

# 1. wrong password: error 49 in the tally, exit 4, the password nowhere
run_ldbench "$out" "${srv[@]}" -D "uid=user00001,$FIX_PEOPLE" -w "$secret" -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch -n 2 -T 10
assert_eq 4 "$RC" "exit status of a refused bind"
assert_match '^ldbench\[[0-9]+\]: Global error 49 \(Invalid credentials\) occurs +2 times$' "$out" "error 49 tallied per thread"
assert_match '^ldbench\[[0-9]+\]: Exit status 4 - Cannot bind\.$' "$out" "exit line 4"
assert_no_match "$secret" "$out" "wrong password never printed"

# 2. -E: searches under a base that does not exist fail with 32; the 6th stops the run
run_ldbench "$out" "${srv[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch -E 5 -n 2 -T 1000
assert_eq 3 "$RC" "exit status when -E is passed"
assert_match '^ldbench\[[0-9]+\]: Max error limit reached - exiting\.$' "$out" "max errors line"
assert_match '^ldbench\[[0-9]+\]: Global error 32 \(No such object\) occurs +[0-9]+ times$' "$out" "error 32 tallied"
assert_match '^ldbench\[[0-9]+\]: Exit status 3 - Max errors reached\.$' "$out" "exit line 3"
n32=$(sed -nE 's/.*Global error 32 \(No such object\) occurs +([0-9]+) times$/\1/p' "$out")
assert_ge 6 "$n32" "errors counted up to the limit"

# 3. counteach: expected failures count as operations, so -T ends the run
run_ldbench "$out" "${srv[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch,counteach -n 2 -T 20
assert_eq 0 "$RC" "exit status with counteach"
assert_eq 40 "$(global_total "$out")" "expected failures counted"
assert_match 'Global error 32 \(No such object\) occurs +40 times$' "$out" "and tallied"

# 4. -I: an ignored code never stops the run
run_ldbench "$out" "${srv[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch,sampinterval=1 -E 0 -I 32 -n 1 -N 1
assert_eq 0 "$RC" "exit status with -I 32 -E 0"
assert_match 'Global error 32 \(No such object\) occurs' "$out" "ignored errors still tallied"

# 5. a port where nothing listens: a clear line, exit 4, fast
port=$FIX_PORT
out=$(mktemp)
trap 'rm -f "$out" "$out.json"' EXIT
fixture_stop
start=$(date +%s%N)
run_ldbench "$out" -h 127.0.0.1 -p "$port" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_BASE" -f "(uid=x)" -e esearch -n 3 -T 10
ms=$(( ($(date +%s%N) - start) / 1000000 ))
assert_eq 4 "$RC" "exit status without a server"
# ldclt's line and code: the bind meets the refused connect, -1 (server down)
assert_match '^ldbench\[[0-9]+\]: T000: Cannot ldap_simple_bind_s \(cn=admin,dc=example,dc=com, \*\), error=-1 \(Can.t contact LDAP server\)$' "$out" "connect failure line"
assert_match '^ldbench\[[0-9]+\]: Global error -1 \(Can.t contact LDAP server\) occurs +3 times$' "$out" "connect errors tallied"
assert_le $((3000 * ${LDBENCH_TIME_FACTOR:-1})) "$ms" "milliseconds to give up"
assert_no_match 'nan' "$out" "no nan before the first sample"

# 6. no connection could be opened: ldclt's lines and status stay, and one line of
# ldbench's own says to where and why, once, before the Ending line; JSON too
nolisten="No connection could be opened to 127.0.0.1:$port: Connection refused"
assert_match "^ldbench\[[0-9]+\]: $nolisten\$" "$out" "the unreachable line (-D)"
run_ldbench "$out" -h 127.0.0.1 -p "$port" -b "$FIX_BASE" -f "(uid=x)" -e esearch -T 10 --json "$out.json"
assert_eq 4 "$RC" "exit status without a server and without -D"
assert_eq 10 "$(grep -cE '^ldbench\[[0-9]+\]: T00[0-9]: Cannot ldap_search\(\), error=-1 \(Can.t contact LDAP server\)$' "$out")" \
	"ldclt's ten error lines (-n 10)"
assert_match '^ldbench\[[0-9]+\]: Exit status 4 - Cannot bind\.$' "$out" "ldclt's exit line"
assert_eq 1 "$(grep -c 'No connection could be opened' "$out")" "the unreachable line, once"
assert_match "^ldbench\[[0-9]+\]: $nolisten\$" "$out" "the unreachable line (no -D)"
[ "$(grep -n 'No connection could be opened' "$out" | cut -d: -f1)" -lt "$(grep -n ' Ending at ' "$out" | cut -d: -f1)" ] ||
	_fail "the unreachable line comes after the Ending line"
assert_match "\"connections\":\\{\"opened\":0,\"reconnects\":0,\"setup_binds\":0,\"unreachable\":\\{\"address\":\"127\\.0\\.0\\.1:$port\",\"reason\":\"Connection refused\"\\}[,}]" \
	"$out.json" "the unreachable address and reason in the JSON summary"
# a name that resolves, nothing listening behind it: the name and the address
run_ldbench "$out" -h localhost -p "$port" -b "$FIX_BASE" -f "(uid=x)" -e esearch -n 2 -T 10
assert_eq 4 "$RC" "exit status for a name without a server"
assert_match "^ldbench\[[0-9]+\]: No connection could be opened to localhost \((127\.0\.0\.1|\[::1\]):$port\): Connection refused\$" \
	"$out" "the unreachable line names the host and its address"
echo "errors: all passed"
