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
# and its searches per second follow the log's.  Then --fail-if, the run's
# records (JSON, CSV, HTML, compare, merge) and --interval samples of a
# replay.  Then recorded pipelining
# stays pipelined: python-ldap's asynchronous searches replayed through
# ldapproxy --delay-ms 200 --report-outstanding keep, per connection, the
# depth the log recorded (1 for ldapsearch).
# At the end TLS to the target (ldaps and StartTLS, OpenSSL and GnuTLS): the
# same counts; a certificate that does not verify sends nothing (no bind), exit 4.
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

jget() { /usr/bin/python3 -I -S -c 'import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }

fixture_stats_settled
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
fixture_stats_settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"

# the target: the same data again (slapd started afresh from the LDIF)
fixture_stop
export FIX_STATS_LOG=$work/target.log
fixture_start --users 50 --tls
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
assert_eq "$nconn" "$(($(fixture_total_connections) - conns0))" "cn=Monitor's connections: the replay's"
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
# --threads 2: the recorded connections dealt to two sender threads by one
# reader (each its own connections, op order kept): the log opened and read
# by that one reader (strace; LeakSanitizer off under it), per kind the same requests sent, and
# counted by the target, as with one
fixture_monitor_snapshot "$work/snap2"
conns0=$(fixture_total_connections)
RC=0
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -o "$work/trace2t" -e trace=openat -e signal=none \
	"$LDBENCH" replay -h 127.0.0.1 -p "$FIX_PORT" --timing asap --threads 2 --password-map "$work/pw.map" \
	--json "$work/r2t.json" "$work/run.log" >"$work/out2t" 2>&1 || RC=$?
assert_eq 0 "$RC" "exit status with --threads 2"
# one reader: logs/lines opens a file twice, a peek at its first line (format,
# first time) then its read, as with --threads 1 (each thread did both before: 4)
assert_eq 2 "$(grep -c "\"$work/run.log\", O_RDONLY" "$work/trace2t" || true)" \
	"the log opened by one reader (its peek and its read, 2 threads)"
for t in bind search add modrdn compare delete extended unbind; do
	assert_eq "${rec[$t]}" "$(jget "$work/r2t.json" "p['kinds']['$t']['read']")" "$t requests in the log (2 threads)"
	assert_eq "${sent[$t]}" "$(jget "$work/r2t.json" "p['kinds']['$t']['sent']")" "$t replayed (2 threads)"
	assert_eq "${sent[$t]}" "$(fixture_monitor_delta "$work/snap2" "${mon[$t]}")" "$t: cn=Monitor's (2 threads)"
done
assert_eq "$nconn" "$(jget "$work/r2t.json" "p['connections']['opened']")" "a connection per recorded one (2 threads)"
assert_eq "$nconn" "$(($(fixture_total_connections) - conns0))" "cn=Monitor's connections (2 threads)"
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
# ... and the log's own figures once: its requests, its connections; the passes said
assert_eq "9 $nconn 2" "$(jget "$work/r7.json" "'%d %d %d' % (p['kinds']['search']['read'], \
p['connections']['recorded'], p['passes'])")" "--loop 2: the log's searches and connections once, 2 passes"
assert_match "^replay of a openldap log: [0-9]+ lines, window [0-9.]+ s, $nconn recorded connections; 2 passes \(--loop\)\$" \
	"$work/out7" "--loop 2: the text's first line"
assert_eq 1 "$(jget "$work/r.json" "p['passes']")" "one pass without --loop"

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
bad 2 "^ldbench replay: -H 'http://127.0.0.1:1': not ldap://HOST\[:PORT\] or ldaps://" "a URI not LDAP's" \
	-H http://127.0.0.1:1 "$work/run.log"
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
fixture_stats_settled
m0=$(wc -l <"$FIX_STATS_LOG")
burst() { for ((i = 0; i < $1; i++)); do ldapsearch -x -H "$FIX_URI" -b "$P" "(uid=user0000$i)" 1.1 >/dev/null; done; }
burst 4
sleep 0.8
burst 1
sleep 0.8
burst 3
sleep 0.8
burst 1
fixture_stats_settled
tail -n +$((m0 + 1)) "$FIX_STATS_LOG" >"$work/timed.log"
fixture_stats_settled
m1=$(wc -l <"$FIX_STATS_LOG")
run_replay "$work/out5" "${tgt[@]}" --timing recorded --json "$work/r5.json" "$work/timed.log"
cat "$work/out5"
assert_eq 0 "$RC" "exit status of the recorded-timing replay"
fixture_stats_settled
tail -n +$((m1 + 1)) "$FIX_STATS_LOG" >"$work/replayed.log"
assert_eq 9 "$(jget "$work/r5.json" "p['kinds']['search']['sent']")" "the searches replayed"
w=$(jget "$work/r5.json" "p['window_s']")
e=$(jget "$work/r5.json" "p['elapsed_s']")
echo "window ${w}s, replay ${e}s"
# (the window is at least its three pauses, 2.4 s, whatever the machine's speed)
assert_eq True "$(/usr/bin/python3 -I -S -c "print($w >= 2.4)")" "the recorded window holds its pauses"
assert_eq True "$(/usr/bin/python3 -I -S -c "print(abs($e - $w) <= 0.05 * $w)")" "the replay lasts as the log (5 %)"
assert_match '^lateness against the schedule: p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms$' "$work/out5" \
	"lateness reported"
# SIGINT part way through a slowed replay (x0.25: at least 9.6 s): it stops at once,
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
fixture_stats_settled
m2=$(wc -l <"$FIX_STATS_LOG")
TZ=UTC run_replay "$work/out6" "${tgt[@]}" --timing recorded --json "$work/r6.json" "$work/timed-syslog.log"
assert_eq 0 "$RC" "exit status of the whole-second replay"
assert_eq 9 "$(jget "$work/r6.json" "p['kinds']['search']['sent']")" "its searches replayed"
fixture_stats_settled
span=$(tail -n +$((m2 + 1)) "$FIX_STATS_LOG" | grep ' SRCH base=' | head -n 4 | /usr/bin/python3 -I -S -c '
import sys
t = [int(l.split()[0].split(".")[0], 16) + int(l.split()[0].split(".")[1], 16) / 1e9 for l in sys.stdin]
print("%.3f" % (t[-1] - t[0]))')
echo "the first burst's 4 searches replayed over ${span}s"
assert_eq True "$(/usr/bin/python3 -I -S -c "print($span >= 0.2)")" "whole-second lines spread within their second"

# --fail-if on a replay: the run's grammar and FAIL lines, exit status 10 when
# one holds.  The log again (the compare of a value the log lacks differs;
# not sent: the unmapped bind, the rename without new RDN, the add)
run_replay "$work/out9" "${tgt[@]}" --password-map "$work/pw.map" --fail-if 'differ>1000' --fail-if 'errors>1000' \
	--fail-if 'search.p99>3600s' --fail-if 'skipped>3' "$work/run.log"
assert_eq 0 "$RC" "exit status: no threshold held"
assert_no_match 'Threshold failed' "$work/out9" "no FAIL line"
run_replay "$work/out9" "${tgt[@]}" --password-map "$work/pw.map" --fail-if 'compare.differ>0' --fail-if 'skipped>=3' \
	--fail-if 'search.differ>0' --fail-if 'p99>3600s' "$work/run.log"
cat "$work/out9"
assert_eq 10 "$RC" "exit status: thresholds held"
assert_match '^ldbench\[[0-9]+\]: Threshold failed: compare\.differ>0 \(compare is 1\)$' "$work/out9" "the differing compare"
assert_match '^ldbench\[[0-9]+\]: Threshold failed: skipped>=3 \(replay is 3\)$' "$work/out9" "the requests not sent"
assert_eq 2 "$(grep -c 'Threshold failed' "$work/out9")" "only the thresholds that held"
# late.LATENCY: the lateness against the schedule (recorded timing, x10)
run_replay "$work/out10" "${tgt[@]}" --timing recorded --speed 10 --fail-if 'late.max>=0' --fail-if 'late.p99>3600s' \
	"$work/timed.log"
assert_eq 10 "$RC" "exit status: the lateness threshold held"
assert_match '^ldbench\[[0-9]+\]: Threshold failed: late\.max>=0 \(late is [0-9]+\.[0-9]{3} ms\)$' "$work/out10" \
	"the lateness line"
assert_eq 1 "$(grep -c 'Threshold failed' "$work/out10")" "late.p99>3600s did not hold"
# a bad --fail-if: one line, exit 2, before any connection
conns2=$(fixture_total_connections)
bad 2 "^ldbench replay: --fail-if 'p99>5parsecs': unknown unit 'parsecs'" "a bad unit" "${tgt[@]}" \
	--fail-if 'p99>5parsecs' "$work/run.log"
assert_eq 1 "$(wc -l <"$work/bad")" "one line"
bad 2 "^ldbench replay: --fail-if 'repl.p99>1ms': unknown operation kind 'repl'" "the replication check's" \
	"${tgt[@]}" --fail-if 'repl.p99>1ms' "$work/run.log"
bad 2 "^ldbench replay: --fail-if 'search.skipped>0': skipped counts" "skipped with a kind" "${tgt[@]}" \
	--fail-if 'search.skipped>0' "$work/run.log"
assert_eq "$conns2" "$(fixture_total_connections)" "no connection opened by a bad --fail-if"

# the run's records from two replays of the same log (as of an old and a new
# server): the JSON summary, CSV and HTML, read by compare and merge
run_replay "$work/out11" "${tgt[@]}" --json "$work/base.json" --csv "$work/base.csv" --html "$work/base.html" \
	"$work/timed.log"
assert_eq 0 "$RC" "exit status of the first replay with records"
run_replay "$work/out12" "${tgt[@]}" --json "$work/change.json" "$work/timed.log"
assert_eq 0 "$RC" "exit status of the second"
sget() { /usr/bin/python3 -I -S -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]; h=r[0]; s=r[-1]; print(eval(sys.argv[2]))' "$1" "$2"; }
assert_eq "header replay" "$(sget "$work/base.json" "h['type'] + ' ' + h['config']['operation']")" "the header says a replay"
assert_eq "9 9 9 0" "$(sget "$work/base.json" "' '.join(str(s['ops']['search'][k]) for k in ('attempted', 'completed', 'succeeded', 'errors'))")" \
	"the summary's searches"
assert_eq 9 "$(sget "$work/base.json" "s['ops']['search']['latency_us']['count']")" "their latencies"
assert_eq 9 "$(sget "$work/base.json" "s['replay']['kinds']['search']['sent']")" "the fidelity report beside them"
assert_eq 9 "$(sget "$work/base.json" "s['ops']['bind']['attempted']")" "the anonymous binds"
assert_match '^1,[0-9.]+,[0-9.]+,1,search,9,9,9,9,0,' "$work/base.csv" "the CSV's search row"
assert_match 'ldbench' "$work/base.html" "the HTML report written"
RC=0
"$LDBENCH" compare "$work/base.json" -- "$work/change.json" --fail-if 'rate<-100%' >"$work/cmp" 2>&1 || RC=$?
cat "$work/cmp"
assert_eq 0 "$RC" "compare of two replays"
assert_match '^search ' "$work/cmp" "compare's search row"
assert_match '^bind ' "$work/cmp" "compare's bind row"
RC=0
"$LDBENCH" merge --json "$work/merged.json" "$work/base.json" "$work/change.json" >"$work/merge" 2>&1 || RC=$?
cat "$work/merge"
assert_eq 0 "$RC" "merge of two replays"
assert_eq "18 18" "$(sget "$work/merged.json" "str(s['ops']['search']['attempted']) + ' ' + str(s['ops']['search']['latency_us']['count'])")" \
	"merged searches: the sum"
# the run's samples during a replay (--interval): a line per interval as a
# run's, sample records that add up to the summary
run_replay "$work/out13" "${tgt[@]}" --timing recorded --interval 500ms --json "$work/smp.json" --csv "$work/smp.csv" \
	"$work/timed.log"
cat "$work/out13"
assert_eq 0 "$RC" "exit status of the sampled replay"
lines=$(grep -cE '^ldbench\[[0-9]+\]: Average rate: +[0-9.]+/thr  \( *[0-9.]+/sec\), total: +[0-9]+$' "$work/out13" || true)
assert_ge 4 "$lines" "a sample line per 500 ms of a replay of over 2 s"
assert_eq 9 "$(sget "$work/smp.json" "sum(x['ops'].get('search', {}).get('completed', 0) for x in r if x['type'] == 'sample')")" \
	"the samples' searches add up"
assert_eq 9 "$(sget "$work/smp.json" "sum(x['ops'].get('search', {}).get('latency_us', {}).get('count', 0) for x in r if x['type'] == 'sample')")" \
	"... and their latencies"
assert_eq "$lines" "$(sget "$work/smp.json" "len([x for x in r if x['type'] == 'sample' and not x.get('final')])")" \
	"a sample record per line"
assert_eq 9 "$(awk -F, '$5 == "search" { n += $7 } END { print n }' "$work/smp.csv")" "the CSV rows' searches"

# Recorded pipelining stays pipelined.  python-ldap sends 4 searches before it
# (the first a big one)
# reads any result (3 rounds on one connection; slapd paused with SIGSTOP
# while they go out), ldapsearch one request at a time; the log holds what
# the server saw of it (a search answered before the next was read is logged
# before it: the depth the log shows may vary from run to run).  The expected depth per connection follows the replay's rule
# (docs/replay.md "Pipelining rule") on the log's events: a pipelined request
# is sent without waiting, any other waits for the connection's answers.
# Replayed through ldapproxy --delay-ms 200 --report-outstanding in front of
# the same slapd: no answer comes back before what is sent without waiting
# is sent, so per connection the proxy's largest count of requests
# outstanding is that depth (1 for ldapsearch), and its requests the log's.
# shellcheck source-path=SCRIPTDIR source=../fixture/ldapproxy.sh
source "$here/../fixture/ldapproxy.sh"
trap 'proxy_stop_all; fixture_stop; rm -rf "$work"' EXIT
depths() { # LOG: "requests max-depth" per recorded connection, sorted
	"$(dirname "$LDBENCH")/tests/slogstat" --events "$1" | /usr/bin/python3 -I -S -c '
import re, sys
conns = {}
def flush(c):
    p, c["pend"] = c["pend"], None
    if p is None or p["type"] == "abandon":
        return
    if p["type"] == "unbind":
        c["cur"] = 0
        return
    c["cur"] = c["cur"] + 1 if p["pipelined"] else 1
    c["n"] += 1
    c["max"] = max(c["max"], c["cur"])
for l in sys.stdin:
    m = re.match(r"event (\w+) \S+ t=(-?\d+) conn=(-?\d+) op=(-?\d+)(?: type=(\w+))?", l)
    if not m:
        continue
    kind, t, conn, op, typ = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
    if kind in ("open", "request"):
        c = conns.setdefault(conn, dict(awaiting=-1, bind=False, pend=None, cur=0, n=0, max=0))
    c = conns.get(conn)
    if c is None:
        continue
    if kind == "request":
        flush(c)
        c["pend"] = dict(op=op, t=t, type=typ, after=c["awaiting"],
                         pipelined=c["awaiting"] >= 0 and not c["bind"])
        if typ in ("abandon", "unbind"):
            flush(c)
        else:
            c["awaiting"], c["bind"] = op, typ == "bind"
    elif kind == "result":
        if c["awaiting"] == op:
            c["awaiting"] = -1
        p = c["pend"]
        if p and p["pipelined"] and p["after"] == op and t - p["t"] < 250000:
            p["pipelined"] = False
        if p and p["op"] == op:
            flush(c)
    elif kind == "close":
        flush(c)
for c in conns.values():
    flush(c)
print("\n".join(sorted("%d %d" % (c["n"], c["max"]) for c in conns.values())))'
}
# Each round's first search returns 400 entries of an OU of their own: the
# server takes milliseconds over it, so the round's other searches, read
# meanwhile, are logged well before its result, whatever the machine's speed
# (with only small searches a quiet machine answers each within the replay's
# 250 us margin, and its log shows no pipelining).
/usr/bin/python3 -I -S -c '
import sys
print("dn: ou=bulk,dc=example,dc=com\nobjectClass: organizationalUnit\nou: bulk\n")
for i in range(400):
    print("dn: cn=b%03d,ou=bulk,dc=example,dc=com\nobjectClass: person\ncn: b%03d\nsn: %s\n" % (i, i, "s" * 200))
' >"$work/bulk.ldif"
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$work/bulk.ldif" >/dev/null
fixture_stats_settled
m3=$(wc -l <"$FIX_STATS_LOG")
for ((try = 1; try <= 5; try++)); do
	/usr/bin/python3 - "$FIX_URI" "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "$P" "$FIX_PID" <<'PY'
import os, signal, sys, ldap
uri, dn, pw, base, pid = sys.argv[1:6]
l = ldap.initialize(uri)
l.simple_bind_s(dn, pw)
for r in range(3):
    # slapd paused while the 4 requests go out: they wait in its socket
    # together, so its log shows them outstanding together, however loaded
    # the machine (running, slapd may answer each before the next arrives)
    os.kill(int(pid), signal.SIGSTOP)
    try:
        ids = [l.search_ext("ou=bulk,dc=example,dc=com", ldap.SCOPE_SUBTREE, "(cn=*)")]
        ids += [l.search_ext(base, ldap.SCOPE_SUBTREE, "(uid=user%05d)" % (n + 4 * r), ["cn"])
                for n in (11, 12, 13)]
    finally:
        os.kill(int(pid), signal.SIGCONT)
    for i in ids:
        l.result(i)
l.unbind_s()
PY
	ldapsearch -x -H "$FIX_URI" -b "$P" '(uid=user00020)' cn >/dev/null
	fixture_stats_settled
	tail -n +$((m3 + 1)) "$FIX_STATS_LOG" >"$work/pipe.log"
	depths "$work/pipe.log" >"$work/depth.want"
	# a recording where the server logged some pipelining (a round's searches
	# logged before the previous one's result); else one more
	awk '$2 >= 2 { f = 1 } END { exit !f }' "$work/depth.want" && break
done
echo "recorded (requests, depth) per connection: $(paste -sd, "$work/depth.want") ($((try > 5 ? 5 : try)) recording(s))"
awk '$2 >= 2 { f = 1 } END { exit !f }' "$work/depth.want" ||
	_fail "5 recordings of python-ldap's asynchronous searches and none logged as pipelined"
start_proxy --delay-ms 200 --upstream "$FIX_PORT" --report-outstanding
run_replay "$work/out-pipe" -h 127.0.0.1 -p "$PX_PORT" --timing asap --password-map "$work/pw.map" \
	--json "$work/r-pipe.json" "$work/pipe.log"
cat "$work/out-pipe"
assert_eq 0 "$RC" "exit status of the replay through the delaying proxy"
assert_eq 0 "$(jget "$work/r-pipe.json" "p['unanswered']")" "every request answered"
pconn=$(wc -l <"$work/depth.want")
for ((i = 0; i < 100; i++)); do
	(($(grep -c '^ldapproxy: connection ' "$FIX_DIR/proxy.log" || true) >= pconn)) && break
	sleep 0.05
done
sed -nE 's/^ldapproxy: connection [0-9]+: requests ([0-9]+), responses [0-9]+, max outstanding ([0-9]+)$/\1 \2/p' \
	"$FIX_DIR/proxy.log" | sort >"$work/depth.got"
echo "replayed (requests, depth) per connection: $(paste -sd, "$work/depth.got")"
assert_eq "$(cat "$work/depth.want")" "$(cat "$work/depth.got")" "per connection, the requests and the depth as recorded"
grep -qx '2 1' "$work/depth.got" || _fail "ldapsearch's connection (a bind, a search) not replayed one request at a time"
echo "ok: recorded pipelining stays pipelined"

# TLS to the target: ldaps and StartTLS with the fixture's CA, each with both
# libraries (one with a client certificate, which slapd asks for); per kind the target's cn=Monitor counts the requests the reports
# say were sent, as in the plain case (StartTLS adds an extended operation per
# connection).  A snapshot per pair of replays: each costs seconds on a loaded
# machine.
snap_no=0
snap() { # the next cn=Monitor snapshot, after the last client's unbind is counted
	sleep 0.2
	snap_no=$((snap_no + 1))
	fixture_monitor_snapshot "$work/snap$snap_no"
}
mon_delta() { # OP: completed between the last two snapshots, the fixture's own reads subtracted
	awk -v op="$1" '$1 == op { if (FNR == NR) { c = $2; l = $3 } else print ($2 - c) - ($3 - l) }' \
		"$work/snap$((snap_no - 1))" "$work/snap$snap_no"
}
tls_case() { # NAME ARGS...
	local name=$1 got
	shift
	run_replay "$work/out-$name" "$@" --password-map "$work/pw.map" --json "$work/r-$name.json" "$work/run.log"
	cat "$work/out-$name"
	assert_eq 0 "$RC" "exit status, $name"
	got=$(jget "$work/r-$name.json" "' '.join(str(x) for x in [p['connections']['opened'], \
p['connections']['failed'], p['kinds']['search']['answered']] + [p['kinds'][t]['sent'] for t in \
'bind search compare delete extended unbind'.split()])")
	assert_eq "$nconn 0 9 ${sent[bind]} ${sent[search]} ${sent[compare]} ${sent[delete]} ${sent[extended]} \
${sent[unbind]}" "$got" "$name: connections opened and failed, searches answered, per kind sent"
}
tls_pair_done() { # WHAT EXTRA_EXTENDED [UP_TO]: the target's counts for the last two replays
	local t e got
	snap
	for t in bind search compare delete extended unbind; do
		e=0
		[[ $t == extended ]] && e=$2
		got=$(mon_delta "${mon[$t]}")
		if [[ $t == extended && -n ${3:-} && $got -gt $((2 * ${sent[$t]} + e)) ]]; then
			assert_le $((2 * ${sent[$t]} + $3)) "$got" "$1: $t, cn=Monitor's completed (at most)"
		else
			assert_eq $((2 * ${sent[$t]} + e)) "$got" "$1: $t, cn=Monitor's completed"
		fi
	done
}
S=127.0.0.1:$FIX_LDAPS_PORT
snap
tls_case ldaps-gnutls -H "ldaps://$S" --tls-cacert "$FIX_CA" --tls-library gnutls
tls_case ldaps-openssl -H "ldaps://$S" --tls-cacert "$FIX_CA" --tls-library openssl \
	--tls-cert "$FIX_CLIENT_CERT" --tls-key "$FIX_CLIENT_KEY"
tls_pair_done "ldaps, GnuTLS and OpenSSL" 0
tls_case starttls-gnutls -H "ldap://127.0.0.1:$FIX_PORT" --starttls --tls-cacert "$FIX_CA" --tls-library gnutls
tls_case starttls-openssl -h 127.0.0.1 -p "$FIX_PORT" --starttls --tls-cacert "$FIX_CA" --tls-library openssl
# a StartTLS on each connection with a request; a recorded connection without
# any (a busy machine's log may hold one) may close before its StartTLS is sent
nreq=$(grep -oE 'conn=[0-9]+ op=[0-9]+ ' "$work/run.log" | cut -d' ' -f1 | sort -u | wc -l)
tls_pair_done "StartTLS, GnuTLS and OpenSSL" $((2 * nreq)) $((2 * nconn))
# a certificate that does not verify (no CA: the system's store; another CA;
# a name the certificate does not hold): every connection fails before any
# LDAP byte, no bind goes out (so no password), exit 4, the reason reported
nsent=$(jget "$work/r.json" "sum(k['sent'] for k in p['kinds'].values())")
tls_refused() { # NAME REGEX ARGS...
	local name=$1 re=$2
	shift 2
	run_replay "$work/out-$name" "$@" --password-map "$work/pw.map" --json "$work/r-$name.json" "$work/run.log"
	cat "$work/out-$name"
	assert_eq 4 "$RC" "exit status, $name"
	assert_eq "0 $nsent" "$(jget "$work/r-$name.json" "'%d %d' % (p['kinds']['bind']['sent'], \
p['skipped']['connection-failed']['count'])")" "$name: no bind sent, every request connection-failed"
	assert_match "^first connection failure: TLS: certificate verify failed: $re" "$work/out-$name" "$name: why"
}
tls_refused no-ca-gnutls 'self-signed certificate in certificate chain$' -H "ldaps://$S" --tls-library gnutls
tls_refused other-ca-openssl 'self-signed certificate in certificate chain$' -H "ldaps://$S" \
	--tls-cacert "$FIX_OTHER_CA" --tls-library openssl
tls_refused other-ca-starttls 'self-signed certificate in certificate chain$' -h 127.0.0.1 -p "$FIX_PORT" \
	--starttls --tls-cacert "$FIX_OTHER_CA"
tls_refused wrong-name 'IP address mismatch \(the certificate is not for 127.0.0.2\)$' \
	-H "ldaps://127.0.0.2:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA"
# --tls-insecure: the same peer accepted, the binds sent, a warning
run_replay "$work/out-insecure" -H "ldaps://$S" --tls-cacert "$FIX_OTHER_CA" --tls-insecure \
	--password-map "$work/pw.map" --json "$work/r-insecure.json" "$work/run.log"
assert_eq 0 "$RC" "exit status, --tls-insecure"
assert_match '^ldbench replay: warning: --tls-insecure: the server certificate is NOT verified$' \
	"$work/out-insecure" "the warning"
snap
assert_eq "${sent[bind]}" "$(mon_delta Bind)" "binds: none from the four refused replays, those of --tls-insecure"
# (a StartTLS per connection with a request; the one without any, when the log
# holds it, may close before its StartTLS is sent, as above)
ext=$(mon_delta Extended)
assert_le $((nconn + ${sent[extended]})) "$ext" "extended: at most a StartTLS per recorded connection"
assert_ge $((nreq + ${sent[extended]})) "$ext" \
	"extended: the refused StartTLS replay's StartTLS, the --tls-insecure replay's"
# bad TLS options: one line, exit 2, no connection
conns2=$(fixture_total_connections)
bad 2 '^ldbench replay: --tls-cacert needs TLS: give -H ldaps:// or --starttls$' "a TLS option without TLS" \
	"${tgt[@]}" --tls-cacert "$FIX_CA" "$work/run.log"
bad 2 "^ldbench replay: --tls-cacert $work/nope.pem: No such file or directory\$" "a missing CA file" \
	-H "ldaps://$S" --tls-cacert "$work/nope.pem" "$work/run.log"
bad 2 '^ldbench replay: --starttls and -H ldaps:// exclude each other' "--starttls with ldaps" -H "ldaps://$S" \
	--starttls "$work/run.log"
bad 2 "^ldbench replay: --tls-library 'nss': must be openssl or gnutls\$" "--tls-library" -H "ldaps://$S" \
	--tls-library nss "$work/run.log"
bad 2 "^ldbench replay: -Z '$FIX_CA': ldclt's ldaps, which verifies nothing" "-Z" -Z "$FIX_CA" \
	"${tgt[@]}" "$work/run.log"
assert_eq "$conns2" "$(fixture_total_connections)" "no connection opened by bad TLS options"
echo "replay_slapd: all checks passed"
