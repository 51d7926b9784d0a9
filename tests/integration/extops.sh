#!/usr/bin/env bash
# The extended operations as load, against a real slapd: passmod (RFC 3062),
# whoami (RFC 4532) and a generic extended request by OID.  Per kind the
# client's counts equal cn=Monitor's Extended count; passmod changes a
# password (ldapwhoami binds with the new one afterwards) or sets the same
# one again (the default: the user still binds with it); an OID slapd does
# not know is a counted protocolError (2); a mixed run is compared by
# --monitor as one line (the three share slapd's Extended counter), and the
# abandons' sync WhoAmI and the connections' StartTLS are not counted as a
# whoami (the server counts them with it: --monitor adds them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
# users change their own password (slapd's default ACL lets nobody write)
FIX_EXTRA_DB=$'access to attrs=userPassword by self write by anonymous auth by * none\naccess to * by * read'
export FIX_EXTRA_DB
fixture_start --users 100 --tls
out=$FIX_DIR/out.txt
user() { echo "uid=user$(printf %05d "$1"),$FIX_PEOPLE"; }
as_user=(-h 127.0.0.1 -p "$FIX_PORT" -D "$(user 1)" -w user00001)
as_root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
binds_with() { # DN PASSWORD: ldapwhoami's exit status
	local rc=0
	LDAPNOINIT=1 ldapwhoami -x -H "ldap://127.0.0.1:$FIX_PORT" -D "$1" -w "$2" >"$FIX_DIR/who.txt" 2>&1 || rc=$?
	echo "$rc"
}

# 1. whoami: n x T requests, each counted by slapd; --monitor agrees
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${as_root[@]}" --whoami -n 2 -T 50 --monitor -v
assert_eq 0 "$RC" "exit status of a whoami run"
assert_eq 100 "$(global_total "$out")" "whoami total"
assert_match 'whoami: attempted 100, completed 100, succeeded 100, counted 100, errors 0$' "$out" "whoami counters"
assert_eq 100 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "server-side Extended (cn=Monitor)"
assert_match 'Server \(cn=Monitor\): whoami completed 100 \(client: 100 completed, 0 in flight\): agree$' "$out" \
	"--monitor's whoami line"
assert_match '^Who am I\? += 1\.3\.6\.1\.4\.1\.4203\.1\.11\.3 \(RFC 4532\)$' "$out" "-v line"
assert_match 'whoami latency \(ms\)' "$out" "timed as the others"

# 2. passmod's default: the bound user sets its own password again
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -D "$(user 2)" -w user00002 --passmod -n 2 -T 20 -v
assert_eq 0 "$RC" "exit status of a default passmod run"
assert_match 'passmod: attempted 40, completed 40, succeeded 40, counted 40, errors 0$' "$out" "passmod counters"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "server-side Extended of the passmods"
assert_eq 0 "$(binds_with "$(user 2)" user00002)" "user00002 still binds with its password"
assert_match '^  oldPasswd += -w.s \(not shown\)$' "$out" "-v: the old password from -w, not shown"
assert_no_match 'user00002$' "$out" "the password itself is never printed"

# 3. a new password from a pattern: the user changes it, then binds with it only
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -D "$(user 3)" -w user00003 --passmod --passmod-new 'fresh-[1:1]' -n 1 -T 1
assert_eq 0 "$RC" "exit status of a passmod with --passmod-new"
assert_match 'passmod: attempted 1, completed 1, succeeded 1, counted 1, errors 0$' "$out" "one change"
assert_eq 0 "$(binds_with "$(user 3)" fresh-1)" "user00003 binds with its new password"
assert_match "^dn:$(user 3)$" "$FIX_DIR/who.txt" "ldapwhoami's identity"
assert_eq 49 "$(binds_with "$(user 3)" user00003)" "and no longer with the old one"

# 4. an administrator's resets: --passmod-user and --passmod-new in step (sequences)
run_ldbench "$out" "${as_root[@]}" --passmod --passmod-user "uid=user[10:12%00000],$FIX_PEOPLE" \
	--passmod-new 'reset-[10:12]' -n 1 -T 3
assert_eq 0 "$RC" "exit status of the resets"
assert_match 'passmod: attempted 3, completed 3, succeeded 3, counted 3, errors 0$' "$out" "three resets"
for i in 10 11 12; do
	assert_eq 0 "$(binds_with "$(user "$i")" "reset-$i")" "user000$i binds with reset-$i"
done

# 5. a generic extended request: an OID slapd does not know is its result code
# 2, an error as any other (-T counts successes: -E 9 ends the run at the 10th)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${as_user[@]}" --extended '1.2.3.4.5:value [1-9]' -n 1 -T 10 -E 9 -v
assert_eq 3 "$RC" "exit status of unknown extended requests (max errors reached)"
assert_match 'extended: attempted 10, completed 10, succeeded 0, counted 0, errors 10$' "$out" "counted as errors"
assert_match 'Global error +2 \(Protocol error\) occurs +10 times' "$out" "result code 2, protocolError"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "server-side Extended of the unknown OID"
assert_match '^Extended request += 1\.2\.3\.4\.5 value "value \[1-9\]"$' "$out" "-v line"

# 6. a known OID by --extended, and a base64 value: an administrator's
# password modify written by hand (SEQUENCE { [0] user20, [2] "b64-pw" })
run_ldbench "$out" "${as_user[@]}" --extended 1.3.6.1.4.1.4203.1.11.3 -n 1 -T 5
assert_match 'extended: attempted 5, completed 5, succeeded 5, counted 5, errors 0$' "$out" "a WhoAmI by OID"
dn20=$(user 20)
value=$(python3 -c 'import base64,sys
dn=sys.argv[1].encode(); pw=b"b64-pw"
body=bytes([0x80,len(dn)])+dn+bytes([0x82,len(pw)])+pw
print(base64.b64encode(bytes([0x30,len(body)])+body).decode())' "$dn20")
run_ldbench "$out" "${as_root[@]}" --extended "1.3.6.1.4.1.4203.1.11.1::$value" -n 1 -T 1
assert_match 'extended: attempted 1, completed 1, succeeded 1, counted 1, errors 0$' "$out" "a password modify in base64"
assert_eq 0 "$(binds_with "$dn20" b64-pw)" "user00020 binds with the base64 request's password"

# 7. a mixed run: one --monitor line for the kinds slapd counts together (as
# the root DN, who reads cn=Monitor: passmod resets user00004's password to itself)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${as_root[@]}" --mix passmod:5,whoami:1,extended:1 --passmod-user "$(user 4)" \
	--passmod-new user00004 --extended 1.3.6.1.4.1.4203.1.11.3 -n 2 -T 70 --monitor --json "$FIX_DIR/r.json"
assert_eq 0 "$RC" "exit status of the mixed run"
assert_eq 140 "$(global_total "$out")" "mixed total"
assert_eq 140 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "server-side Extended of the mix"
sum=0
for k in passmod whoami extended; do
	n=$(sed -nE "s/.* $k: attempted ([0-9]+), completed \\1, succeeded \\1, counted \\1, errors 0\$/\\1/p" "$out")
	assert_ge 1 "${n:-0}" "$k in the mix"
	sum=$((sum + n))
done
assert_eq 140 "$sum" "the kinds' counts add up"
assert_match 'Server \(cn=Monitor\): passmod\+whoami\+extended completed 140 \(client: 140 completed, 0 in flight\): agree$' \
	"$out" "--monitor's one line for the shared counter"
assert_match '"passmod\+whoami\+extended":\{"server_completed":140,"client_completed":140,"in_flight":0,"agree":true\}' \
	"$FIX_DIR/r.json" "the JSON summary's server member"
assert_eq 0 "$(binds_with "$(user 4)" user00004)" "user00004 still binds after the mix"

# 8. with abandons: their sync WhoAmIs are Extended for slapd, not whoamis for the client
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${as_root[@]}" -b "$FIX_PEOPLE" -f '(uid=user00001)' --mix abandon:3,whoami:1 -n 1 -T 400 --monitor
assert_eq 0 "$RC" "exit status of abandons with whoamis"
whoamis=$(sed -nE 's/.* whoami: attempted ([0-9]+), completed \1, succeeded \1, counted \1, errors 0$/\1/p' "$out")
ext=$(fixture_monitor_delta "$FIX_DIR/snap" Extended)
assert_ge 1 "${whoamis:-0}" "whoamis in the mix"
assert_ge $((whoamis + 1)) "$ext" "slapd's Extended holds the syncs too"
assert_match "Server \\(cn=Monitor\\): whoami completed $ext \\(client: $ext completed, 0 in flight\\): agree\$" "$out" \
	"--monitor adds the syncs to the client's side"
# 9. with --starttls: each connection's StartTLS is Extended for slapd, not a whoami
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${as_root[@]}" --starttls --tls-cacert "$FIX_CA" --whoami -n 3 -T 20 --monitor
assert_eq 0 "$RC" "exit status of whoamis over StartTLS"
assert_match 'whoami: attempted 60, completed 60, succeeded 60, counted 60, errors 0$' "$out" "whoamis only"
assert_match 'Connections: opened 3, ' "$out" "three connections, three StartTLS"
ext=$(fixture_monitor_delta "$FIX_DIR/snap" Extended)
# 60 whoamis, 3 StartTLS of the load, 1 of the pre-flight, 1 of the second
# --monitor read (the first read's is in its own snapshot)
assert_eq 65 "$ext" "slapd's Extended: the whoamis, the run's StartTLS and the side connections' own"
assert_match 'Server \(cn=Monitor\): whoami completed 63 \(client: 63 completed, 0 in flight\): agree$' "$out" \
	"--monitor: the StartTLS on the client's side, the monitor reads' and the pre-flight's left out"
echo "extops: all passed"
