#!/usr/bin/env bash
# Multi-step SASL binds (-o mech=, ldclt's way) against slapd with Cyrus
# SASL (the fixture's --sasl: clear-text userPassword, authz-regexp): for
# CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1 and SCRAM-SHA-256, bindeach and bindonly
# runs succeed with random authentication IDs, every request of every
# exchange reaches the server (its Bind count equals the round trips ldbench
# timed), a wrong password is the server's 49, counted, and each outcome is
# the one the server's own ldapwhoami -Y gets for the same identity and
# password.  An unknown mechanism is refused before any connection.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
command -v ldapwhoami >/dev/null || { echo "SKIP: no ldapwhoami"; exit 77; }
[[ -e /usr/lib/x86_64-linux-gnu/sasl2/libscram.so || -n "$(find /usr/lib -name 'libscram.so*' 2>/dev/null | head -n 1)" ]] ||
	{ echo "SKIP: Cyrus SASL's scram plugin (libsasl2-modules) is missing"; exit 77; }
fixture_start --users 50 --sasl
out=$FIX_DIR/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT")
mechs=$(LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -b "" -s base supportedSASLMechanisms)

# The round trips ldbench timed (the summary record's stages.round count).
rounds() { grep -oE '"round":\{"latency_us":\{"count":[0-9]+' "$1" | tail -n 1 | grep -oE '[0-9]+$'; }

# The outcome of ldapwhoami -Y MECH -U ID -w PW: 0, or its LDAP code.
whoami_rc() {
	set +e
	LDAPNOINIT=1 ldapwhoami -H "$FIX_URI" -Y "$1" -U "$2" -w "$3" >/dev/null 2>&1
	local rc=$?
	set -e
	echo "$rc"
}

# The outcome of one ldbench bind: 0, or the code it counted.
ldbench_rc() {
	run_ldbench "$out" "${srv[@]}" -o mech="$1" -o authid="$2" -w "$3" -e bindeach,bindonly,counteach -n 1 -T 1 >&2
	if grep -qE 'bind: attempted 1, completed 1, succeeded 1, counted 1, errors 0$' "$out"; then
		echo 0
	else
		sed -nE 's/.*Global error ([0-9-]+) .*/\1/p' "$out" | head -n 1
	fi
}

for mech in CRAM-MD5 DIGEST-MD5 SCRAM-SHA-1 SCRAM-SHA-256; do
	grep -qx "supportedSASLMechanisms: $mech" <<<"$mechs" || _fail "slapd does not offer $mech"

	# 1. bindeach,bindonly: an exchange per connection, random IDs over all 50 users
	fixture_monitor_snapshot "$FIX_DIR/snap"
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o authid=userXXXXX -w userXXXXX \
		-e bindeach,bindonly,randomauthid,randomauthidlow=1,randomauthidhigh=50 -n 2 -T 10 --json "$FIX_DIR/a.json"
	assert_eq 0 "$RC" "$mech bindeach exit status"
	assert_match 'bind: attempted 20, completed 20, succeeded 20, counted 20, errors 0$' "$out" "$mech bindeach counters"
	assert_match '^ldbench\[[0-9]+\]: per-request latency \(ms\): min ' "$out" "$mech round trip latency line"
	n=$(rounds "$FIX_DIR/a.json")
	assert_ge 40 "$n" "$mech: at least two round trips per exchange"
	assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "$mech: server-side binds = requests sent"
	per=$((n / 20))
	assert_eq "$((per * 20))" "$n" "$mech: every exchange the same number of requests"

	# 2. bindonly on a persistent connection bound the same way when it opens
	fixture_monitor_snapshot "$FIX_DIR/snap"
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o authid=user00007 -w user00007 -e bindonly -n 1 -T 10 \
		--json "$FIX_DIR/b.json"
	assert_eq 0 "$RC" "$mech bindonly exit status"
	assert_match 'binds at connect 1$' "$out" "$mech: the connection's own bind"
	assert_match 'bind: attempted 10, completed 10, succeeded 10, counted 10, errors 0$' "$out" "$mech bindonly counters"
	assert_eq "$((per * 10))" "$(rounds "$FIX_DIR/b.json")" "$mech bindonly round trips"
	assert_eq "$((per * 11))" "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" \
		"$mech: server-side binds (the load's and the connection's)"

	# 3. a wrong password: the server's 49, counted (counteach), never a crash
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o authid=user00003 -w wrong -e bindeach,bindonly,counteach -n 1 -T 5
	assert_eq 0 "$RC" "$mech wrong password with counteach"
	assert_match 'bind: attempted 5, completed 5, succeeded 0, counted 5, errors 5$' "$out" "$mech wrong password counters"
	assert_match 'Global error 49 \(Invalid credentials\) occurs +5 times' "$out" "$mech wrong password code"
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o authid=user00003 -w wrong -e bindeach,bindonly -n 1 -T 5
	assert_eq 4 "$RC" "$mech wrong password ends the client (ldclt's bind)"

	# 4. the same outcome as the server's own client
	for case in "user00004 user00004" "user00004 user00005" "nosuchuser nosuchuser" "user00050 user00050"; do
		read -r id pw <<<"$case"
		assert_eq "$(whoami_rc "$mech" "$id" "$pw")" "$(ldbench_rc "$mech" "$id" "$pw")" \
			"$mech as $id with password $pw: ldbench and ldapwhoami agree"
	done
done

# 5. an unknown mechanism: one line, exit 2, no connection
conns0=$(fixture_total_connections)
run_ldbench "$out" "${srv[@]}" -o mech=SCRAM-SHA-3 -o authid=user00001 -w user00001 -e bindonly -n 1 -T 1
assert_eq 2 "$RC" "unknown mechanism"
assert_eq 1 "$(wc -l <"$out")" "one line"
assert_match 'mech=SCRAM-SHA-3: not supported' "$out" "the line names it"
assert_eq "$conns0" "$(fixture_total_connections)" "no connection for an unknown mechanism"
echo "PASS"
