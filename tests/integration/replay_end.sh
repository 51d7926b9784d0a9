#!/usr/bin/env bash
# A replay ends, and every request it sent is answered or reported.
# 1. slapd's stats log of ldbench's own bindeach run with --server-log (per
#    connection the tag search, then the bind): slapd may log the bind's
#    RESULT before the tag search's, as it does for some connections of any
#    such run; the test makes every connection of the recording so (the
#    search's result line moved after the bind's, the order slapd wrote for
#    those), so that the shape does not depend on the machine's timing.
#    Replayed with --password-rule ldbench against the same slapd: the bind
#    waits for the search's answer whatever the log's order (slapd abandons
#    what is outstanding when a bind arrives), the replay ends, every request
#    is answered, cn=Monitor counts them.
# 2. Every wait is bounded by --drain: a target that accepts and never
#    answers (tests/tools/blackhole) ends the replay after the waits, the
#    requests counted unanswered; an ldaps target that never answers the
#    handshake fails the connections, its reason reported, exit 4.
# Every replay runs under `timeout`: a hang fails the test instead of ctest's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/blackhole.sh
source "$here/../fixture/blackhole.sh" replay-end
export FIX_STATS_LOG=$WORK/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
trap blackhole_cleanup EXIT
fixture_start --users 500
tf=${LDBENCH_TIME_FACTOR:-1}
jget() { /usr/bin/python3 -I -S -c 'import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }
run_replay() { # OUT SECONDS ARGS...: the exit status in RC (124: still running after SECONDS)
	local out=$1 secs=$2
	shift 2
	RC=0
	timeout -k 5 "$secs" "$LDBENCH" replay "$@" >"$out" 2>&1 || RC=$?
	cat "$out"
}

# 1. the recording: 600 connections, each a tag search and a bind
n0=$(wc -l <"$FIX_STATS_LOG")
run_ldbench "$WORK/run.txt" -h 127.0.0.1 -p "$FIX_PORT" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
	-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=500 -n 2 -T 300 --no-preflight \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status of the recorded bindeach run"
assert_match 'Server log \(openldap\): connections 600, tagged in the log 600;' "$WORK/run.txt" "a tag per connection"
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$WORK/recorded.log"
# per tagged connection (its op=0 the tag search, its op=1 the bind) the
# search's result line after the bind's; those slapd already wrote so, counted
awk '
/ op=0 SRCH base="" .*filter="\(description=ldbench-/ { split($3, a, "="); tag[a[2]] = 1 }
{
	split($3, a, "="); c = a[2]
	if ($3 ~ /^conn=/ && tag[c] && $4 == "op=0" && $5 == "SEARCH" && $6 == "RESULT" && !bound[c]) { held[c] = $0; next }
	if ($3 ~ /^conn=/ && tag[c] && $4 == "op=1" && $5 == "RESULT") { bound[c] = 1; if (!(c in held)) natural++ }
	if ((c in held) && $4 ~ /^fd=/ && $5 == "closed") { print held[c]; delete held[c] } # (a connection closed without its bind result)
	print
	if ((c in held) && $4 == "op=1" && $5 == "RESULT") { sub(/^[^ ]+/, $1, held[c]); print held[c]; delete held[c] }
}
END { for (c in held) print held[c]; print natural + 0 > "/dev/stderr" }' "$WORK/recorded.log" >"$WORK/bindfirst.log" 2>"$WORK/natural"
cp "$WORK"/*.log /tmp/trust/ && echo "connections whose bind result slapd logged before the tag search's: $(cat "$WORK/natural") of 600"
# the precondition, from what the test made: every tagged connection so
shape=$(awk '
/ op=0 SRCH base="" .*filter="\(description=ldbench-/ { split($3, a, "="); tag[a[2]] = 1 }
$4 == "op=1" && $5 == "RESULT" { split($3, a, "="); b[a[2]] = 1 }
$4 == "op=0" && $5 == "SEARCH" && $6 == "RESULT" { split($3, a, "="); if (tag[a[2]] && b[a[2]]) n++ }
END { print n + 0 }' "$WORK/bindfirst.log")
assert_eq 600 "$shape" "tagged connections whose bind result precedes the search's"

fixture_monitor_snapshot "$WORK/snap"
run_replay "$WORK/out1" $((60 * tf)) -h 127.0.0.1 -p "$FIX_PORT" --password-rule ldbench --drain 30s \
	--json "$WORK/r1.json" "$WORK/bindfirst.log"
assert_eq 0 "$RC" "exit status of the replay (124: it did not end)"
assert_eq "600 600 600 0" "$(jget "$WORK/r1.json" "'%d %d %d %d' % (p['kinds']['bind']['read'], \
p['kinds']['bind']['sent'], p['kinds']['bind']['answered'], p['kinds']['bind']['differ'])")" \
	"binds: read, sent, answered, differing"
assert_eq "600 600 600 0" "$(jget "$WORK/r1.json" "'%d %d %d %d' % (p['kinds']['search']['read'], \
p['kinds']['search']['sent'], p['kinds']['search']['answered'], p['kinds']['search']['differ'])")" \
	"tag searches: read, sent, answered, differing"
assert_eq 0 "$(jget "$WORK/r1.json" "p['unanswered']")" "no request unanswered"
assert_eq 600 "$(fixture_monitor_delta "$WORK/snap" Search)" "cn=Monitor: every search completed"
assert_eq 600 "$(fixture_monitor_delta "$WORK/snap" Bind)" "cn=Monitor: every bind completed"

# SIGTERM part way through the same log slowed 100 times (its 600 connections'
# messages fill the feeder's ring of 1,024 slots many times over: the log is
# part read when the signal comes): the report gives the log's format and
# the lines and window read, not "unknown", 0
"$LDBENCH" replay -h 127.0.0.1 -p "$FIX_PORT" --password-rule ldbench --timing recorded --speed 0.01 \
	--json "$WORK/r-term.json" "$WORK/bindfirst.log" >"$WORK/out-term" 2>&1 &
rp=$!
sleep 1
kill -TERM "$rp"
RC=0
wait "$rp" || RC=$?
cat "$WORK/out-term"
assert_eq 0 "$RC" "exit status after SIGTERM"
assert_match '^interrupted by a signal \(SIGINT or SIGTERM\)' "$WORK/out-term" "interrupted"
assert_match '^replay of a openldap log: [1-9][0-9]* lines, window [0-9.]+ s, [1-9][0-9]* recorded connections$' \
	"$WORK/out-term" "the text's first line: the format, the lines and connections read"
assert_eq "openldap True True" "$(jget "$WORK/r-term.json" "'%s %s %s' % (p['format'], p['lines'] > 0, \
p['window_s'] > 0)")" "JSON: the format, lines and window read"
assert_eq True "$(jget "$WORK/r-term.json" "p['connections']['recorded'] < 600")" "the log part read"

# 2. a target that never answers: each wait ends after --drain 1s.  Two
# recorded connections (a tag search, a bind, an unbind each): per connection
# the bind waits for the search's answer, the unbind for the bind's, 1 s each
conns=$(awk '/ op=0 SRCH base="" .*filter="\(description=ldbench-/ && n++ < 2 { printf "%s%s", (n > 1 ? "|" : ""), $3 }' \
	"$WORK/recorded.log")
grep -E "($conns) " "$WORK/recorded.log" >"$WORK/two.log"
start_blackhole silent
run_replay "$WORK/out2" $((30 * tf)) -h 127.0.0.1 -p "$BH_PORT" --password-rule ldbench --drain 1s \
	--json "$WORK/r2.json" "$WORK/two.log"
assert_eq 0 "$RC" "exit status against a silent target (124: it did not end)"
assert_eq "2 2 2 0 0" "$(jget "$WORK/r2.json" "'%d %d %d %d %d' % (p['connections']['opened'], \
p['kinds']['search']['sent'], p['kinds']['bind']['sent'], p['kinds']['search']['answered'], \
p['kinds']['bind']['answered'])")" "connections opened, searches and binds sent, none answered"
assert_eq 4 "$(jget "$WORK/r2.json" "p['unanswered']")" "the searches and binds counted unanswered"
assert_match '^requests unanswered: 4$' "$WORK/out2" "... and said"
assert_eq 2 "$(jget "$WORK/r2.json" "p['kinds']['unbind']['sent']")" "the unbinds sent after their waits"
# ldaps to the same silent target: the handshake never ends, the connections fail after --drain
run_replay "$WORK/out3" $((30 * tf)) -H "ldaps://127.0.0.1:$BH_PORT" --tls-insecure --password-rule ldbench \
	--drain 1s --json "$WORK/r3.json" "$WORK/two.log"
assert_eq 4 "$RC" "exit status, a TLS handshake never answered (124: it did not end)"
assert_match '^first connection failure: connection set-up \(--drain\): Connection timed out$' "$WORK/out3" \
	"the reason"
assert_eq "2 2 0" "$(jget "$WORK/r3.json" "'%d %d %d' % (p['connections']['opened'], \
p['connections']['failed'], p['kinds']['bind']['sent'])")" "connections opened, failed, binds sent"
echo "replay_end: all checks passed"
