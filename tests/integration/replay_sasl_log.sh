#!/bin/bash
# The stats log of a real slapd serving SASL binds (DIGEST-MD5, two requests
# each, and EXTERNAL over ldaps with the fixture's client certificate) and
# simple binds with a wrong password, read as the server wrote it:
# - a SASL bind's second line (`BIND authcid=... authzid=...`, same op=) is
#   no request: replay --profile's binds = cn=Monitor's, and the replay reads
#   as many binds as the server completed;
# - --write-scenario keeps the mechanism of the top bind that succeeded
#   (EXTERNAL, three times) over the DN whose binds failed (err=49, three);
# - the replay lists a bind DN without a password once however many binds
#   it has, and, when no connection can be opened, says how many it tried;
# - slapd's debug output as 2.4 wrote it on stderr, kept by container
#   images (`618fe870 conn=1000 fd=12 ACCEPT ...`: hex whole seconds, no
#   thread), is read: the same lines of this run with 2.4's prefix (the
#   slapd here, 2.5, writes seconds.nanoseconds and its thread).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
[[ -n "$(find /usr/lib -name 'libdigestmd5.so*' 2>/dev/null | head -n 1)" ]] ||
	{ echo "SKIP: Cyrus SASL's DIGEST-MD5 plugin (libsasl2-modules) is missing"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-sasllog.XXXXXX")
export FIX_STATS_LOG=$work/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
fixture_start --users 20 --sasl --tls
trap 'fixture_stop; rm -rf "$work"' EXIT
export LDAPNOINIT=1
P=$FIX_PEOPLE

# every connection the log opened is closed (the clients' unbinds logged)
settled() {
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' ACCEPT from ' "$FIX_STATS_LOG" || true)
		c=$(grep -cE ' fd=[0-9]+ closed' "$FIX_STATS_LOG" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the log after 5 s ($a accepted, $c closed)"
}
# a member of the profile's JSON, or of the replay's last record (JSON lines)
jget() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; print(eval(sys.argv[2]))' "$1" "$2"; }
rget() { python3 -c 'import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }

settled
fixture_monitor_snapshot "$work/snap"
n0=$(wc -l <"$FIX_STATS_LOG")
for u in user00002 user00003 user00004; do
	ldapwhoami -H "$FIX_URI" -Y DIGEST-MD5 -U "$u" -w "$u" >/dev/null 2>&1 || _fail "DIGEST-MD5 bind as $u"
done
for _ in 1 2 3; do
	# (LDAPNOINIT=1 would also ignore LDAPTLS_*: ldap.conf and ldaprc kept out otherwise)
	env -u LDAPNOINIT LDAPCONF=/dev/null LDAPRC=ldbench-no-such-ldaprc LDAPTLS_CACERT="$FIX_CA" \
		LDAPTLS_CERT="$FIX_CLIENT_CERT" LDAPTLS_KEY="$FIX_CLIENT_KEY" \
		ldapwhoami -Q -Y EXTERNAL -H "$FIX_LDAPS_URI" >/dev/null || _fail "EXTERNAL bind"
done
for _ in 1 2 3; do
	if ldapwhoami -x -H "$FIX_URI" -D "uid=user00005,$P" -w wrong >/dev/null 2>&1; then
		_fail "a wrong password accepted"
	fi
done
settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"
grep -q ' BIND authcid=' "$work/run.log" || _fail "slapd wrote no SASL bind's second line"
binds=$(fixture_monitor_delta "$work/snap" Bind)
assert_eq 12 "$binds" "cn=Monitor's binds: 2 per DIGEST-MD5 exchange, 1 per EXTERNAL and simple bind"

# 1. the profile: as many bind requests as the server completed
"$LDBENCH" replay --profile --json "$work/p.json" --write-scenario "$work/s.scen" "$work/run.log" >"$work/out"
cat "$work/out"
assert_eq "$binds" "$(jget "$work/p.json" "p['ops']['bind']['requests']")" "profile: bind requests = cn=Monitor's"
assert_eq "{'0': 6, '14': 3, '49': 3}" "$(jget "$work/p.json" "p['ops']['bind']['codes']")" \
	"profile: bind results (14: SASL bind in progress)"
assert_eq 9 "$(jget "$work/p.json" "p['connections']['opened']")" "profile: connections"

# 2. the scenario keeps EXTERNAL, which succeeded, not the DN whose binds failed
cat "$work/s.scen"
assert_match '^-o mech=EXTERNAL$' "$work/s.scen" "scenario: the mechanism of the top successful bind"
assert_no_match '^-D ' "$work/s.scen" "scenario: no simple bind"
assert_no_match 'user00005' "$work/s.scen" "scenario: not the DN whose binds failed"
run_ldbench "$work/run" --scenario "$work/s.scen" -H "$FIX_LDAPS_URI" --tls-cacert "$FIX_CA" \
	--tls-cert "$FIX_CLIENT_CERT" --tls-key "$FIX_CLIENT_KEY" -e bindeach --duration 1s --seed 1
cat "$work/run"
assert_eq 0 "$RC" "the written scenario runs"
assert_match '^ldbench\[[0-9]+\]: bind: attempted [1-9][0-9]*, completed [1-9][0-9]*, succeeded [1-9][0-9]*, .*errors 0' \
	"$work/run" "its EXTERNAL binds succeed"

# 3. the replay reads the binds the server completed; the DN without a
# password once; SASL binds not sent (the exchange is not in the log)
RC=0
"$LDBENCH" replay -h 127.0.0.1 -p "$FIX_PORT" --timing asap --json "$work/r.json" "$work/run.log" >"$work/r.out" 2>&1 ||
	RC=$?
cat "$work/r.out"
assert_eq "$binds" "$(rget "$work/r.json" "p['kinds']['bind']['read']")" "replay: binds read = cn=Monitor's"
assert_eq 9 "$(rget "$work/r.json" "p['skipped']['sasl']['count']")" "replay: SASL binds not sent"
assert_eq 3 "$(rget "$work/r.json" "p['skipped']['no-password']['count']")" "replay: binds without a password"
assert_eq "['uid=user00005,$P']" "$(rget "$work/r.json" "p['no_password_dns']")" "replay: its DN listed once"
assert_eq 1 "$(grep -c '^  bind DN without a password: ' "$work/r.out")" "replay: ... once in the text"

# 4. 2.4's prefix on the same lines
sed -E 's/^([0-9a-f]{8})\.[0-9a-f]{8} 0x[0-9a-f]+ /\1 /' "$work/run.log" >"$work/docker.log"
head -n 2 "$work/docker.log"
"$LDBENCH" replay --profile --json "$work/d.json" "$work/docker.log" >"$work/d.out" 2>&1 ||
	{ cat "$work/d.out"; _fail "2.4's stderr format refused"; }
assert_eq openldap "$(jget "$work/d.json" "p['format']")" "2.4's stderr: format"
assert_eq "$binds" "$(jget "$work/d.json" "p['ops']['bind']['requests']")" "2.4's stderr: binds"
assert_eq 9 "$(jget "$work/d.json" "p['connections']['opened']")" "2.4's stderr: connections"
skips="{k: v['lines'] for k, v in p['skipped'].items()}"
assert_eq "$(jget "$work/p.json" "$skips")" "$(jget "$work/d.json" "$skips")" \
	"2.4's stderr: the lines skipped of the original"
assert_eq "$(jget "$work/p.json" "p['requests']")" "$(jget "$work/d.json" "p['requests']")" \
	"2.4's stderr: the requests of the original"
assert_eq "$(jget "$work/p.json" "p['series']['start_ns']")" "$(jget "$work/d.json" "p['series']['start_ns']")" \
	"2.4's stderr: the times (the first line's second)"

# 5. no connection opened: the replay says how many it attempted
fixture_stop
RC=0
"$LDBENCH" replay -h 127.0.0.1 -p "$FIX_PORT" --timing asap "$work/run.log" >"$work/f.out" 2>&1 || RC=$?
cat "$work/f.out"
assert_match '^connections attempted 9: established 0, failed 9, lost 0; ' "$work/f.out" "replay: connections attempted"
echo "replay_sasl_log: all passed"
