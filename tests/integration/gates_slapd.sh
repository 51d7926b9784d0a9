#!/usr/bin/env bash
# Gates that cannot be evaluated never pass, on a real slapd (loglevel stats
# into a logfile, tests/fixture/slapd.sh's FIX_STATS_LOG):
# - a --fail-if whose figure comes from a source the run does not have (the
#   join's without --server-log, repl.* without -S) is refused before any
#   connection: one line naming the option, exit 2;
# - with --server-log and a log that cannot be joined (not a log, a log
#   without the run's lines), a threshold on the join's figures is "not
#   evaluated" (exit 13), and without one the run says the join failed
#   (exit 14); the gate that must trip trips (exit 10);
# - ldbench join --fail-if evaluates on the join's figures (per kind client,
#   server, queue, processing, outside; unindexed; coverage), refuses the
#   run's own (rate, errors), and a log cut before the run's end leaves its
#   thresholds not evaluated (exit 13).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-gates.XXXXXX")
export FIX_STATS_LOG=$logs/stats.log
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
cleanup() { fixture_stop; rm -rf "$logs"; }
fixture_start --users 200
trap cleanup EXIT
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE"
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R200)
join() { # OUT ARGS...: ldbench join, its output to OUT, its status in RC
	local o=$1
	shift
	set +e
	"$LDBENCH" join "$@" >"$o" 2>&1
	RC=$?
	set -e
	cat "$o" >&2
}

# 1. refused before any connection: the join's figures without --server-log, repl.* without -S
c0=$(fixture_total_connections)
for expr in 'server.p99>0.001ms' 'queue.p99>0.001ms' 'processing.p50>1' 'outside.max>1ms' 'unindexed>0' \
	'coverage<100' 'search.server.p99>1ms' 'client.p99>1ms'; do
	run_ldbench "$out" "${common[@]}" -n 1 -T 5 --fail-if "$expr"
	assert_eq 2 "$RC" "--fail-if '$expr' without --server-log: exit 2"
	assert_eq 1 "$(wc -l <"$out")" "one line"
	assert_eq "ldbench: --fail-if '$expr': needs --server-log (its figure comes from the join with the server's access log)" \
		"$(cat "$out")" "its wording"
done
run_ldbench "$out" "${common[@]}" -n 1 -T 5 --fail-if 'repl.p99>1s'
assert_eq 2 "$RC" "--fail-if 'repl.p99>1s' without -S: exit 2"
assert_eq "ldbench: --fail-if 'repl.p99>1s': needs -S (its figure comes from the replication check)" "$(cat "$out")" \
	"its wording"
run_ldbench "$out" "${common[@]}" -n 1 --find-max 'server.p99<5ms' --server-log "$FIX_STATS_LOG"
assert_eq 2 "$RC" "--find-max on the join's figure: exit 2"
assert_match "^ldbench: --find-max 'server.p99<5ms': an objective takes the run's own figures" "$out" "its wording"
c1=$(fixture_total_connections)
assert_eq "$c0" "$c1" "no connection opened by the refused runs"

# 2. the gate that must trip trips (a real join): etime, client and per kind, exit 10
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --op-log "$logs/s1.oplog" --server-log "$FIX_STATS_LOG" \
	--fail-if 'server.p99>0.001ms' --fail-if 'search.client.p50>0.001ms' --fail-if 'coverage<100'
after_s1=$(wc -l <"$FIX_STATS_LOG")
assert_eq 10 "$RC" "a join threshold that holds: exit 10"
assert_match 'Threshold failed: server\.p99>0\.001ms \(server log \(etime\) is [0-9.]+ ms\)$' "$out" "server.p99's line"
assert_match 'Threshold failed: search\.client\.p50>0\.001ms \(server log \(search client\) is [0-9.]+ ms\)$' "$out" \
	"search.client.p50's line"
assert_no_match 'Threshold failed: coverage' "$out" "every operation joined: coverage<100 does not hold"
assert_no_match 'not evaluated' "$out" "every threshold evaluated"

# 3. a log that is not a log: the join fails; a join threshold is not evaluated (13), the run's own
# figures stand; without a threshold the status says the join failed (14)
printf 'hello\nthis is not a log\n' >"$logs/garbage.log"
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --server-log "$logs/garbage.log" --fail-if 'server.p99>3600s'
assert_eq 13 "$RC" "a join threshold on a log that is not one: exit 13"
assert_match 'search: attempted 50, completed 50, succeeded 50, counted 50, errors 0' "$out" "its own figures"
assert_match "Threshold not evaluated: server\.p99>3600s \(server log \(etime\): the server's log could not be joined\)$" \
	"$out" "the threshold's line"
assert_match 'Exit status 13 - Threshold not evaluated \(--fail-if\)\.$' "$out" "ldclt's exit line"
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --server-log "$logs/garbage.log"
assert_eq 14 "$RC" "no join, no threshold: exit 14"
assert_match 'Server log: cannot join: .*garbage\.log' "$out" "one line: cannot join"
assert_match 'Exit status 14 - The server log could not be joined \(--server-log\)\.$' "$out" "ldclt's exit line"
# a threshold that held comes first; ldclt's statuses stay (-E: max errors)
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --server-log "$logs/garbage.log" --fail-if 'search.p50>0.001ms'
assert_eq 10 "$RC" "a run threshold that holds, the join failed: exit 10"

# 4. a log without the run's lines (as it was before the run): not evaluated, exit 13; no threshold 14
cp "$FIX_STATS_LOG" "$logs/before.log"
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --server-log "$logs/before.log" --fail-if 'unindexed>0' \
	--op-log "$logs/s4.oplog"
assert_eq 13 "$RC" "unindexed>0 on a log that does not cover the run: exit 13"
assert_match "Threshold not evaluated: unindexed>0 \(server log \(unindexed\): the log does not cover the run\)$" \
	"$out" "the threshold's line"
run_ldbench "$out" "${common[@]}" -n 1 -T 50 --server-log "$logs/before.log"
assert_eq 14 "$RC" "a log that does not cover the run, no threshold: exit 14"

# 5. ldbench join --fail-if: the join's figures, per kind; the run's own refused
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if 'p99>0.001ms'
assert_eq 10 "$RC" "ldbench join: client p99 trips"
assert_match '^Threshold failed: p99>0\.001ms \(is [0-9.]+ ms\)$' "$logs/j.txt" "its line"
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if 'search.server.p99>0.001ms'
assert_eq 10 "$RC" "ldbench join: search's etime trips"
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if 'search.outside.max>0ns'
assert_eq 10 "$RC" "ldbench join: search's outside trips"
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if 'p99>3600s' --fail-if 'coverage<100' \
	--fail-if 'unindexed>0' --fail-if 'bind.p99>1ms'
assert_eq 13 "$RC" "ldbench join: thresholds that do not hold, and one on a kind the run did not have"
assert_match "^Threshold not evaluated: bind\.p99>1ms \(the run measured no operation of the kind\)$" "$logs/j.txt" \
	"the kind the run did not have"
assert_no_match 'Threshold failed' "$logs/j.txt" "none held"
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if 'p99>3600s' --fail-if 'coverage<100'
assert_eq 0 "$RC" "ldbench join: thresholds that do not hold"
for expr in 'rate<1000' 'errors>0' 'search.misses>0' 'repl.p99>1s'; do
	join "$logs/j.txt" --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --fail-if "$expr"
	assert_eq 2 "$RC" "ldbench join --fail-if '$expr': refused"
	assert_eq 1 "$(wc -l <"$logs/j.txt")" "one line"
	assert_match "^ldbench join: --fail-if '$(sed 's/[.]/\\&/g' <<<"$expr")': " "$logs/j.txt" "names it"
	[[ $expr == repl.* ]] || assert_match "ldbench join has the join's figures only" "$logs/j.txt" "says why"
done
# cut before the run's end (as a buffered log): coverage trips, the latencies are not evaluated
# (the run's last 10 lines off: its last searches' results, its unbind)
head -n "$((after_s1 - 10))" "$FIX_STATS_LOG" >"$logs/cut.log"
join "$logs/j.txt" --op-log "$logs/s1.oplog" "$logs/cut.log" --fail-if 'server.p99>3600s'
assert_eq 13 "$RC" "ldbench join on a log cut before the run's end: not evaluated"
assert_match "^Threshold not evaluated: server\.p99>3600s \(the log ends before the run did\)$" "$logs/j.txt" "its line"
# 6. the wait for a buffered log resumes where its last pass stopped: the log as it was before the
# run, written on (by tail -f, as a buffer written out) only once the wait's first resumed pass has
# read it (strace shows its read at an offset; LeakSanitizer off under it): the run's operations all joined, each pass after the
# first reading at or after the log's size before the run, never from its start
cp "$FIX_STATS_LOG" "$logs/grow.log"
size0=$(stat -c %s "$logs/grow.log")
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -o "$logs/trace" -e trace=pread64 -e signal=none "$LDBENCH" "${common[@]}" -n 1 -T 50 \
	--server-log "$logs/grow.log" --server-log-wait 60s >"$out" 2>&1 &
pid=$!
for _ in $(seq 600); do
	grep -qE ', 1048576, [0-9]+\) +=' "$logs/trace" 2>/dev/null && break
	sleep 0.1
done
grep -qE ', 1048576, [0-9]+\) +=' "$logs/trace" || _fail "the wait never resumed a pass (strace: $(tail -n 3 "$logs/trace"))"
tail -c +"$((size0 + 1))" -f "$FIX_STATS_LOG" >>"$logs/grow.log" &
feeder=$!
set +e
wait "$pid"
RC=$?
set -e
kill "$feeder"
cat "$out"
assert_eq 0 "$RC" "the buffered log written on during the wait: joined"
assert_match 'Server log \(openldap\), search: 50 of 50 operations joined \(100\.0 %\)' "$out" "every search joined"
assert_match 'Server log \(openldap\): connections 1, tagged in the log 1; log lines [0-9]+, not used 0;' "$out" \
	"no line read twice nor cut"
offsets=$(sed -nE 's/.*pread64\([0-9]+, .*, 1048576, ([0-9]+)\) +=.*/\1/p' "$logs/trace")
for o in $offsets; do
	assert_ge "$size0" "$o" "a pass of the wait resumes at or after the log's size before the run"
done

# an op-log that cannot be read: a read error, said as one (not "not an op-log", not "out of memory")
join "$logs/j.txt" --op-log "$logs" "$FIX_STATS_LOG"
assert_eq 2 "$RC" "ldbench join on an op-log that is a directory"
assert_eq "ldbench join: $logs: read error: Is a directory" "$(cat "$logs/j.txt")" "one line: a read error"
echo "gates_slapd: all passed"
