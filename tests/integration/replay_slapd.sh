#!/bin/bash
# `ldbench replay` of a real slapd's stats log, written while it served
# clients that are not ldbench (ldapsearch, ldapcompare, ldapdelete,
# ldapmodrdn, ldapwhoami, ldapadd, python-ldap's asynchronous searches),
# sent to a slapd restarted from the same LDIF: per kind the target's
# cn=Monitor counters equal the log's operations less those the report says
# were not sent (a bind DN missing from the password map, the rename whose
# new RDN OpenLDAP does not log, the writes without content); results that
# differ (a compare whose value the log does not hold) are reported with
# examples.  Bad input: garbage lines (counted with their places), a line of
# 389 DS's format, an empty log, a missing file (exit 2, no connection).
# Then --timing recorded on a log of a few seconds: the replay lasts as long (5 %)
# and its searches per second follow the log's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replay-slapd.XXXXXX")
export FIX_STATS_LOG=$work/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
fixture_start --users 50
trap 'fixture_stop; rm -rf "$work"' EXIT

settled() { # every connection the log opened is closed
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' ACCEPT from ' "$FIX_STATS_LOG" || true)
		c=$(grep -cE ' fd=[0-9]+ closed' "$FIX_STATS_LOG" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the log after 5 s ($a accepted, $c closed)"
}
jget() { /usr/bin/python3 -I -S -c 'import json,sys; p=json.load(open(sys.argv[1]))["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }

settled
n0=$(wc -l <"$FIX_STATS_LOG")
root=(-x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE")
P=$FIX_PEOPLE
export LDAPNOINIT=1
# 11 connections, each a bind and an unbind
ldapsearch "${root[@]}" -b "$P" '(uid=user00001)' cn mail >/dev/null
ldapsearch -x -H "$FIX_URI" -b "$P" -s one '(uid=user0001*)' 1.1 >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00003,$P" -w user00003 -b "uid=user00003,$P" -s base 1.1 >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00004,$P" -w user00004 -b "$P" '(uid=user00005)' 1.1 >/dev/null
ldapsearch "${root[@]}" -b "ou=nowhere,dc=example,dc=com" '(uid=user00002)' 1.1 >/dev/null 2>&1 || true
ldapadd "${root[@]}" >/dev/null <<LDIF
dn: uid=rp1,$P
objectClass: inetOrgPerson
cn: rp1
sn: rp1
uid: rp1
LDIF
ldapmodrdn "${root[@]}" -r "uid=rp1,$P" uid=rp3 >/dev/null
ldapcompare "${root[@]}" "uid=user00011,$P" uid:user00011 >/dev/null || true
ldapcompare "${root[@]}" "uid=user00011,$P" uid:nope >/dev/null || true
ldapdelete "${root[@]}" "uid=user00040,$P"
ldapwhoami "${root[@]}" >/dev/null
# python-ldap: a bind, 4 searches sent before any result is read, the results, unbind
/usr/bin/python3 - "$FIX_URI" "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "$P" <<'PY'
import sys, ldap
uri, dn, pw, base = sys.argv[1:5]
l = ldap.initialize(uri)
l.simple_bind_s(dn, pw)
ids = [l.search_ext(base, ldap.SCOPE_SUBTREE, "(uid=user%05d)" % n, ["cn"]) for n in (11, 12, 13, 14)]
for i in ids:
    l.result(i)
l.unbind_s()
PY
settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"

# the target: the same data again (slapd started afresh from the LDIF)
fixture_stop
export FIX_STATS_LOG=$work/target.log
fixture_start --users 50
fixture_monitor_snapshot "$work/snap"
conns0=$(fixture_total_connections)
printf '%s\t%s\n' "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "UID=user00003, ou=People, dc=example, dc=com" user00003 \
	>"$work/pw.map"

run_replay() { # OUT ARGS...: the exit status in RC
	local out=$1
	shift
	RC=0
	"$LDBENCH" replay "$@" >"$out" 2>&1 || RC=$?
}
run_replay "$work/out" -h 127.0.0.1 -p "$FIX_PORT" --timing asap --password-map "$work/pw.map" \
	--json "$work/r.json" "$work/run.log"
cat "$work/out"
assert_eq 0 "$RC" "exit status of the replay"
# per kind: the log's requests, those not sent, the target's counters
declare -A rec=([bind]=12 [search]=9 [add]=1 [modrdn]=1 [compare]=2 [delete]=1 [extended]=1 [unbind]=12)
declare -A sent=([bind]=11 [search]=9 [add]=0 [modrdn]=0 [compare]=2 [delete]=1 [extended]=1 [unbind]=12)
declare -A mon=([bind]=Bind [search]=Search [add]=Add [modrdn]=Modrdn [compare]=Compare [delete]=Delete
	[extended]=Extended [unbind]=Unbind)
for t in bind search add modrdn compare delete extended unbind; do
	assert_eq "${rec[$t]}" "$(jget "$work/r.json" "p['kinds']['$t']['read']")" "$t requests in the log"
	assert_eq "${sent[$t]}" "$(jget "$work/r.json" "p['kinds']['$t']['sent']")" "$t replayed"
	assert_eq "${sent[$t]}" "$(fixture_monitor_delta "$work/snap" "${mon[$t]}")" "$t: cn=Monitor's completed"
done
# (12 tool runs, one connection each; a busy machine may log one more, such as
# a client that connected and left without a request: the replay opens it too)
nconn=$(jget "$work/r.json" "p['connections']['recorded']")
assert_ge 12 "$nconn" "the log's connections"
assert_eq "$nconn" "$(jget "$work/r.json" "p['connections']['opened']")" "a connection per recorded one"
assert_eq 12 "$(($(fixture_total_connections) - conns0))" "cn=Monitor's connections"
# not sent, with reasons and the first log lines
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['no-password']['count']")" "the unmapped bind"
assert_eq "['uid=user00004,$P']" "$(jget "$work/r.json" "p['no_password_dns']")" "its DN listed"
assert_match "^  bind DN without a password: uid=user00004,$P\$" "$work/out" "... and in the text"
line=$(grep -n "BIND dn=\"uid=user00004,$P\" method=128" "$work/run.log" | cut -d: -f1)
assert_eq "[$line]" "$(jget "$work/r.json" "p['skipped']['no-password']['first_lines']")" "its log line"
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['rename-no-newrdn']['count']")" "the rename without new RDN"
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['write-no-content']['count']")" "the add without content"
assert_match '^not sent, rename-no-newrdn: 1 \(log lines [0-9]+\)$' "$work/out" "the rename's line"
# results: the searches' entries as recorded (the unmapped user's search ran
# anonymously: the same entry); the compare whose value is not logged differs
assert_eq 0 "$(jget "$work/r.json" "p['kinds']['search']['differ']")" "searches as recorded"
assert_eq 9 "$(jget "$work/r.json" "p['kinds']['search']['compared']")" "every search compared"
assert_eq 1 "$(jget "$work/r.json" "p['kinds']['compare']['differ']")" "the compare of a value not logged"
assert_eq "(5, 6)" "$(jget "$work/r.json" "(p['kinds']['compare']['examples'][0]['recorded_err'], \
p['kinds']['compare']['examples'][0]['got_err'])")" "its example: recorded false, got true"
assert_match '^  conn=[0-9]+ op=1: recorded err=5, got err=6$' "$work/out" "the example's text"
assert_eq 0 "$(jget "$work/r.json" "p['kinds']['delete']['differ']")" "the delete succeeded (data restored)"
assert_eq 0 "$(fixture_count "$P" '(uid=user00040)')" "the replayed delete's entry is gone"
# --threads 2: the recorded connections spread over two sender threads (each
# its own connections, op order kept): per kind the same requests sent, and
# counted by the target, as with one
fixture_monitor_snapshot "$work/snap2"
conns0=$(fixture_total_connections)
run_replay "$work/out2t" -h 127.0.0.1 -p "$FIX_PORT" --timing asap --threads 2 --password-map "$work/pw.map" \
	--json "$work/r2t.json" "$work/run.log"
assert_eq 0 "$RC" "exit status with --threads 2"
for t in bind search add modrdn compare delete extended unbind; do
	assert_eq "${rec[$t]}" "$(jget "$work/r2t.json" "p['kinds']['$t']['read']")" "$t requests in the log (2 threads)"
	assert_eq "${sent[$t]}" "$(jget "$work/r2t.json" "p['kinds']['$t']['sent']")" "$t replayed (2 threads)"
	assert_eq "${sent[$t]}" "$(fixture_monitor_delta "$work/snap2" "${mon[$t]}")" "$t: cn=Monitor's (2 threads)"
done
assert_eq "$nconn" "$(jget "$work/r2t.json" "p['connections']['opened']")" "a connection per recorded one (2 threads)"
assert_eq 12 "$(($(fixture_total_connections) - conns0))" "cn=Monitor's connections (2 threads)"
assert_eq "[$line]" "$(jget "$work/r2t.json" "p['skipped']['no-password']['first_lines']")" "the unmapped bind's line (2 threads)"
assert_eq 9 "$(jget "$work/r2t.json" "p['kinds']['search']['compared']")" "every search compared (2 threads)"

# the passwords from the rule of `ldbench gen users` (password = uid) and the
# root DN's from the default password's file: every bind sent, as recorded
run_replay "$work/out2" -H "ldap://127.0.0.1:$FIX_PORT" --password-rule ldbench \
	--default-password-file "$FIX_PWFILE" --writes synthetic --json "$work/r2.json" "$work/run.log"
cat "$work/out2"
assert_eq 0 "$RC" "exit status with the rule"
assert_eq 12 "$(jget "$work/r2.json" "p['kinds']['bind']['sent']")" "every bind sent"
assert_eq 0 "$(jget "$work/r2.json" "p['kinds']['bind']['differ']")" "every bind as recorded"
assert_eq 0 "$(jget "$work/r2.json" "p['skipped']['no-password']['count']")" "no bind without password"
assert_no_match "$(cat "$FIX_PWFILE")" "$work/out2" "the password never printed"
# --writes synthetic: the add sent with its documented content, accepted
assert_eq 1 "$(jget "$work/r2.json" "p['kinds']['add']['sent']")" "the add sent"
assert_eq 1 "$(jget "$work/r2.json" "p['synthetic_writes']")" "... with synthetic content"
assert_eq 0 "$(jget "$work/r2.json" "p['kinds']['add']['differ']")" "... accepted as recorded"
assert_eq 1 "$(fixture_count "$P" '(&(uid=rp1)(objectClass=organizationalRole)(cn=rp1))')" "the synthetic entry"
# the delete again: its entry is gone now, a result that differs
assert_eq 1 "$(jget "$work/r2.json" "p['kinds']['delete']['differ']")" "the second delete differs"
assert_match '^  conn=[0-9]+ op=1: recorded err=0, got err=32$' "$work/out2" "its example"
# --unmapped-binds anonymous: the unmapped DN's bind sent anonymously
run_replay "$work/out3" -h 127.0.0.1 -p "$FIX_PORT" --password-map "$work/pw.map" --unmapped-binds anonymous \
	--json "$work/r3.json" "$work/run.log"
assert_eq 0 "$RC" "exit status with --unmapped-binds anonymous"
assert_eq 12 "$(jget "$work/r3.json" "p['kinds']['bind']['sent']")" "every bind sent"
assert_eq 1 "$(jget "$work/r3.json" "p['unmapped_anonymous']")" "one of them anonymously"
# --loop 2: the window twice
run_replay "$work/out7" -h 127.0.0.1 -p "$FIX_PORT" --loop 2 --json "$work/r7.json" "$work/run.log"
assert_eq 0 "$RC" "exit status with --loop 2"
assert_eq 18 "$(jget "$work/r7.json" "p['kinds']['search']['sent']")" "the searches twice"
assert_eq $((2 * nconn)) "$(jget "$work/r7.json" "p['connections']['opened']")" "the connections twice"

# bad input: one line and the documented status, no connection opened
bad() { # STATUS REGEX WHAT ARGS...
	local st=$1 re=$2 what=$3
	shift 3
	run_replay "$work/bad" "$@"
	assert_eq "$st" "$RC" "exit status: $what"
	assert_match "$re" "$work/bad" "the line: $what"
}
conns1=$(fixture_total_connections)
tgt=(-h 127.0.0.1 -p "$FIX_PORT")
bad 2 "^ldbench replay: $work/missing.log: " "a missing log" "${tgt[@]}" "$work/missing.log"
bad 2 "^ldbench replay: $work/missing.log: " "a missing log among others" "${tgt[@]}" "$work/run.log" \
	"$work/missing.log"
bad 2 "^ldbench replay: --timing 'soon': not asap or recorded\$" "--timing" "${tgt[@]}" --timing soon "$work/run.log"
bad 2 "^ldbench replay: -H 'ldaps://127.0.0.1:1': not ldap://HOST\[:PORT\]" "ldaps" -H ldaps://127.0.0.1:1 \
	"$work/run.log"
bad 2 "^ldbench replay: --speed '0': not a speed above 0" "--speed 0" "${tgt[@]}" --speed 0 "$work/run.log"
bad 2 "^ldbench replay: --threads '65': not a number in 1..64\$" "--threads 65" "${tgt[@]}" --threads 65 "$work/run.log"
bad 2 "^ldbench replay: --password-map $work/nope: No such file" "a missing map" "${tgt[@]}" \
	--password-map "$work/nope" "$work/run.log"
printf 'uid=x,dc=example,dc=com no tab\n' >"$work/bad.map"
bad 2 "^ldbench replay: --password-map $work/bad.map: line 1: not DN<TAB>password\$" "a map's bad line" \
	"${tgt[@]}" --password-map "$work/bad.map" "$work/run.log"
bad 2 "^ldbench replay: no target: give -H" "no target" "$work/run.log"
bad 2 "^ldbench replay: --profile sends nothing" "--profile with a target" --profile "${tgt[@]}" "$work/run.log"
: >"$work/empty.log"
bad 1 '^ldbench replay: no operation to send in the log$' "an empty log" "${tgt[@]}" "$work/empty.log"
assert_eq "$conns1" "$(fixture_total_connections)" "no connection opened by bad input"
# garbage and a line of 389 DS's format inside the log: counted with their
# places, the rest replayed
sed -e '3i garbage line one' -e '5i [02/Dec/2026:05:52:11.123456789 +0000] conn=9 op=0 SRCH base="" scope=0' \
	"$work/run.log" >"$work/dirty.log"
run_replay "$work/out4" "${tgt[@]}" --password-rule ldbench --default-password-file "$FIX_PWFILE" \
	--json "$work/r4.json" "$work/dirty.log"
assert_eq 0 "$RC" "exit status with garbage lines"
assert_match "^log lines skipped, garbage: 1 \($work/dirty.log:3\)\$" "$work/out4" "the garbage line's place"
assert_match "^log lines skipped, other-format: 1 \($work/dirty.log:6\)\$" "$work/out4" "the 389 DS line's place"
assert_eq 9 "$(jget "$work/r4.json" "p['kinds']['search']['sent']")" "the rest replayed"
assert_eq "['$work/dirty.log', 3]" "$(jget "$work/r4.json" "p['log_skipped']['garbage']['first']")" "in the JSON"

# --timing recorded on a log of a few seconds: searches at uneven rates per second
settled
m0=$(wc -l <"$FIX_STATS_LOG")
burst() { for ((i = 0; i < $1; i++)); do ldapsearch -x -H "$FIX_URI" -b "$P" "(uid=user0000$i)" 1.1 >/dev/null; done; }
burst 4
sleep 0.6
burst 1
sleep 0.6
burst 3
sleep 0.6
burst 1
settled
tail -n +$((m0 + 1)) "$FIX_STATS_LOG" >"$work/timed.log"
settled
m1=$(wc -l <"$FIX_STATS_LOG")
run_replay "$work/out5" "${tgt[@]}" --timing recorded --json "$work/r5.json" "$work/timed.log"
cat "$work/out5"
assert_eq 0 "$RC" "exit status of the recorded-timing replay"
settled
tail -n +$((m1 + 1)) "$FIX_STATS_LOG" >"$work/replayed.log"
assert_eq 9 "$(jget "$work/r5.json" "p['kinds']['search']['sent']")" "the searches replayed"
w=$(jget "$work/r5.json" "p['window_s']")
e=$(jget "$work/r5.json" "p['elapsed_s']")
echo "window ${w}s, replay ${e}s"
assert_eq True "$(/usr/bin/python3 -I -S -c "print(abs($e - $w) <= 0.05 * $w and $w > 2)")" "the replay lasts as the log (5 %)"
assert_match '^lateness against the schedule: p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms$' "$work/out5" \
	"lateness reported"
# SIGINT part way through a slowed replay (x0.25: over 8 s): it stops at once,
# exits 0 and reports what it sent, in the text and the JSON
"$LDBENCH" replay "${tgt[@]}" --timing recorded --speed 0.25 --json "$work/r8.json" "$work/timed.log" \
	>"$work/out8" 2>&1 &
rp=$!
sleep 1.5
kill -0 "$rp" 2>/dev/null || _fail "the slowed replay ended before its SIGINT"
t0=$(date +%s%N)
kill -INT "$rp"
RC=0
wait "$rp" || RC=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$work/out8"
assert_eq 0 "$RC" "exit status after SIGINT"
assert_le $((2000 * ${LDBENCH_TIME_FACTOR:-1})) "$ms" "ms from SIGINT to the replay's end"
assert_match '^interrupted by a signal \(SIGINT or SIGTERM\)' "$work/out8" "the report says it was interrupted"
assert_eq True "$(jget "$work/r8.json" "p['interrupted']")" "interrupted, in the JSON"
sent=$(jget "$work/r8.json" "p['kinds']['search']['sent']")
((sent >= 1 && sent < 9)) || _fail "searches sent before the SIGINT: $sent (1 to 8 expected)"
assert_eq False "$(jget "$work/r5.json" "p['interrupted']")" "a replay that ran to its end: not interrupted"
# per second of each log (from its first line), the searches: the same, or
# one moved to a neighbouring second at a boundary
persec() {
	/usr/bin/python3 -I -S - "$1" <<'PY'
import sys
t = [int(l.split()[0].split('.')[0], 16) + int(l.split()[0].split('.')[1], 16) / 1e9 for l in open(sys.argv[1])]
s = [int(l.split()[0].split('.')[0], 16) + int(l.split()[0].split('.')[1], 16) / 1e9
     for l in open(sys.argv[1]) if ' SRCH base=' in l]
c = [0] * 9
for x in s:
    c[min(8, int(x - t[0]))] += 1
print(' '.join(map(str, c)))
PY
}
rec=$(persec "$work/timed.log")
got=$(persec "$work/replayed.log")
echo "searches per second: recorded $rec, replayed $got"
/usr/bin/python3 -I -S - "$rec" "$got" <<'PY' || _fail "per-second searches do not follow the log: $rec vs $got"
import sys
r, g = [list(map(int, a.split())) for a in sys.argv[1:3]]
assert sum(r) == sum(g) == 9, (r, g)
assert all(abs(a - b) <= 1 for a, b in zip(r, g)), (r, g)
PY
echo "ok: per-second searches follow the log"

# the same log with whole-second timestamps (traditional syslog): the events
# of a second are spread within it, so the first burst's searches, logged
# within one or two seconds, are not sent together at a second's start
TZ=UTC /usr/bin/python3 -I -S - "$work/timed.log" >"$work/timed-syslog.log" <<'PY'
import sys, time
for l in open(sys.argv[1]):
    t, _, rest = l.rstrip("\n").split(" ", 2)
    s = time.strftime("%b %e %H:%M:%S", time.gmtime(int(t.split(".")[0], 16)))
    print("%s host slapd[812]: %s" % (s, rest))
PY
settled
m2=$(wc -l <"$FIX_STATS_LOG")
TZ=UTC run_replay "$work/out6" "${tgt[@]}" --timing recorded --json "$work/r6.json" "$work/timed-syslog.log"
assert_eq 0 "$RC" "exit status of the whole-second replay"
assert_eq 9 "$(jget "$work/r6.json" "p['kinds']['search']['sent']")" "its searches replayed"
settled
span=$(tail -n +$((m2 + 1)) "$FIX_STATS_LOG" | grep ' SRCH base=' | head -n 4 | /usr/bin/python3 -I -S -c '
import sys
t = [int(l.split()[0].split(".")[0], 16) + int(l.split()[0].split(".")[1], 16) / 1e9 for l in sys.stdin]
print("%.3f" % (t[-1] - t[0]))')
echo "the first burst's 4 searches replayed over ${span}s"
assert_eq True "$(/usr/bin/python3 -I -S -c "print($span >= 0.2)")" "whole-second lines spread within their second"
echo "replay_slapd: all checks passed"
