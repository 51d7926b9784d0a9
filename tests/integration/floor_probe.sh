#!/usr/bin/env bash
# bench/vs-ldclt.sh's floor probe (bench/floor_probe.c) does the operations it
# reports: its bindeach cycles are the server's binds, unbinds and connections,
# its adds are entries in the directory, and bad arguments exit 2.  The same
# for its LDAPS twin (bench/floor_probe_tls.c) with each TLS library, with and
# without verification.
# Needs LDBENCH_FLOOR_PROBE and LDBENCH_FLOOR_PROBE_TLS (set by ctest).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
probe=${LDBENCH_FLOOR_PROBE:?LDBENCH_FLOOR_PROBE must name the built ldbench-floor-probe}
probe_tls=${LDBENCH_FLOOR_PROBE_TLS:?LDBENCH_FLOOR_PROBE_TLS must name the built ldbench-floor-probe-tls}
fixture_start --users 200 --tls
out=$FIX_DIR/out.txt
ops() { sed -nE 's/.*: ([0-9]+) operations, ([0-9]+) failed, .*/\1/p' "$out"; }
failed() { sed -nE 's/.*: ([0-9]+) operations, ([0-9]+) failed, .*/\2/p' "$out"; }

# 1. bindeach: each reported cycle is one connection, one bind and one unbind
fixture_monitor_snapshot "$FIX_DIR/snap"
conns0=$(fixture_total_connections)
RC=0
"$probe" bindeach -p "$FIX_PORT" -n 2 -s 1 --people "$FIX_PEOPLE" --users 200 >"$out" 2>&1 || RC=$?
assert_eq 0 "$RC" "exit status of the bindeach probe"
assert_match '^floor-probe: bindeach: 2 clients, 1 s: [0-9]+ operations, 0 failed, [0-9.]+ us of client CPU per operation$' \
	"$out" "the probe's line"
n=$(ops)
assert_ge 10 "$n" "bind cycles in a second"
assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds"
assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" Unbind)" "server-side unbinds"
assert_eq "$n" "$(($(fixture_total_connections) - conns0))" "server-side connections"

# 2. add: the entries are there, numbered from --first, as ldbench's person
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=AddBench,$FIX_BASE
objectClass: organizationalUnit
ou: AddBench
LDIF
fixture_monitor_snapshot "$FIX_DIR/snap"
RC=0
LDBENCH_PASSWORD=$(cat "$FIX_PWFILE") "$probe" add -p "$FIX_PORT" -n 2 -s 1 --base "ou=AddBench,$FIX_BASE" \
	--bind-dn "$FIX_ROOTDN" --first 7000 >"$out" 2>&1 || RC=$?
assert_eq 0 "$RC" "exit status of the add probe"
n=$(ops)
assert_ge 10 "$n" "adds in a second"
assert_eq 0 "$(failed)" "failed adds"
assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "server-side adds"
assert_eq "$n" "$(fixture_count "ou=AddBench,$FIX_BASE" '(&(objectClass=person)(cn=a*))')" "entries added"
assert_eq 1 "$(fixture_count "ou=AddBench,$FIX_BASE" '(&(cn=a00007000)(sn=a00007000))')" "the first number"
assert_eq 1 "$(fixture_count "ou=AddBench,$FIX_BASE" "(cn=a$(printf '%08d' $((7000 + n - 1))))")" "the last number"

# 3. a wrong password: every operation fails, exit 1, the password never printed
RC=0
LDBENCH_PASSWORD=not-the-password "$probe" add -p "$FIX_PORT" -n 1 -s 1 --base "ou=AddBench,$FIX_BASE" \
	--bind-dn "$FIX_ROOTDN" --first 8000 >"$out" 2>&1 || RC=$?
assert_eq 1 "$RC" "exit status when the bind fails"
assert_eq 1 "$(failed)" "the failed bind"
assert_no_match "not-the-password" "$out" "password not printed"

# 4. bad arguments: one line, exit 2, no connection
for bad in "search -p $FIX_PORT -n 1 -s 1" "bindeach -p 0 -n 1 -s 1 --people x --users 1" \
	"bindeach -p $FIX_PORT -n 1 -s 1" "add -p $FIX_PORT -n 1 -s 1 --base x --bind-dn y --first -1" \
	"bindeach -p $FIX_PORT -n 1 -s"; do
	conns0=$(fixture_total_connections)
	RC=0
	# shellcheck disable=SC2086 # the words are the arguments
	env -u LDBENCH_PASSWORD "$probe" $bad >"$out" 2>&1 || RC=$?
	assert_eq 2 "$RC" "exit status of: $bad"
	assert_eq 1 "$(wc -l <"$out")" "one line for: $bad"
	assert_eq "$conns0" "$(fixture_total_connections)" "no connection for: $bad"
done
# 5. the LDAPS probe: each cycle a connection with a full handshake, a bind and an
# unbind; verified against the right CA, refused against another one
libs=(openssl openssl-lean)
"$probe_tls" gnutls 2>&1 | grep -q 'must be openssl' || libs+=(gnutls)
for lib in "${libs[@]}"; do
	for ca in none "$FIX_CA"; do
		extra=()
		[[ $ca == none ]] || extra=(--cacert "$ca")
		fixture_monitor_snapshot "$FIX_DIR/snap"
		conns0=$(fixture_total_connections)
		RC=0
		"$probe_tls" "$lib" -p "$FIX_LDAPS_PORT" -n 2 -c 5 --people "$FIX_PEOPLE" --users 200 "${extra[@]}" \
			>"$out" 2>&1 || RC=$?
		assert_eq 0 "$RC" "exit status of the $lib probe (CA: $ca)"
		assert_match "^floor-probe-tls: $lib: 2 clients, 0 s: 10 operations, 0 failed, [0-9.]+ us of client CPU per operation\$" \
			"$out" "the $lib probe's line"
		assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds ($lib)"
		assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Unbind)" "server-side unbinds ($lib)"
		assert_eq 10 "$(($(fixture_total_connections) - conns0))" "server-side connections ($lib)"
	done
	fixture_monitor_snapshot "$FIX_DIR/snap"
	RC=0
	"$probe_tls" "$lib" -p "$FIX_LDAPS_PORT" -n 1 -c 3 --people "$FIX_PEOPLE" --users 200 --cacert "$FIX_OTHER_CA" \
		>"$out" 2>&1 || RC=$?
	assert_eq 1 "$RC" "exit status of the $lib probe with another CA"
	assert_match ': 0 operations, 3 failed,' "$out" "every handshake refused ($lib)"
	assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "no bind reached the server ($lib)"
done
RC=0
"$probe_tls" openssl -p "$FIX_LDAPS_PORT" -n 1 --people "$FIX_PEOPLE" --users 200 >"$out" 2>&1 || RC=$?
assert_eq 2 "$RC" "exit status without -s or -c"
assert_eq 1 "$(wc -l <"$out")" "one line without -s or -c"
echo "floor_probe: all passed"
