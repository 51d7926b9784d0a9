#!/bin/bash
# Gates that cannot be evaluated never pass, on 389 DS (the ctest fixture
# "dirsrv"; its access log buffered, as by default, or not):
# - a --fail-if on the join's figures without --server-log, or repl.*
#   without -S, is refused before any connection (one line, exit 2);
# - the buffered log that never shows the run's end within
#   --server-log-wait: a threshold on the join's figures is not evaluated
#   (exit 13), without one the run says the join failed (exit 14);
# - unbuffered: the gates that must trip trip (unindexed searches, the
#   server's processing time, per kind; exit 10), in the run and in
#   ldbench join, which refuses the run's own figures.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsgates.XXXXXX")
trap 'dirsrv_log_buffering on || true; rm -rf "$work"' EXIT
out=$work/out
access=$(dirsrv_access_log)
[[ -f "$access" ]] || _fail "no access log at '$access'"
X=$(printf 'X%.0s' $(seq "$DS_WIDTH"))
root=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -b "$DS_PEOPLE")
search=("${root[@]}" -f "uid=user$X" -e esearch,random -r "$DS_FIRST" -R "$((DS_FIRST + 999))")

# 1. refused before any connection (cn=monitor's count: each read adds its own connection)
c0=$(dirsrv_monitor totalconnections)
for expr in 'server.p99>0.001ms' 'queue.p99>1ms' 'processing.p99>1ms' 'outside.p99>1ms' 'unindexed>0' \
	'search.coverage<100'; do
	run_ldbench "$out" "${search[@]}" -n 1 -T 5 --fail-if "$expr"
	assert_eq 2 "$RC" "--fail-if '$expr' without --server-log: exit 2"
	assert_eq "ldbench: --fail-if '$expr': needs --server-log (its figure comes from the join with the server's access log)" \
		"$(cat "$out")" "one line, its wording"
done
run_ldbench "$out" "${search[@]}" -n 1 -T 5 --fail-if 'repl.unseen>0'
assert_eq 2 "$RC" "--fail-if 'repl.unseen>0' without -S: exit 2"
assert_eq "ldbench: --fail-if 'repl.unseen>0': needs -S (its figure comes from the replication check)" "$(cat "$out")" \
	"one line, its wording"
c1=$(dirsrv_monitor totalconnections)
assert_eq "$((c0 + 1))" "$c1" "no connection but the monitor read's own"

# 2. buffered: the run's end is not in the log within --server-log-wait (389 DS may write its buffer
# out during a run: a run whose lines all came in time is tried again, three times at most)
dirsrv_log_buffering on
for try in 1 2 3; do
	run_ldbench "$out" "${search[@]}" -n 1 -T 50 --server-log "$access" --server-log-wait 1s \
		--fail-if 'unindexed>0' --fail-if 'server.p99>3600s'
	grep -q "the run's last operation is not in the log" "$out" && break
	echo "try $try: 389 DS wrote its buffer out during the run; again"
done
assert_eq 13 "$RC" "thresholds on a join without the run's end: not evaluated, exit 13"
# (none of the run's lines written yet, or some: either reason)
why="(the log does not cover the run|the log ends before the run did)"
assert_match "Threshold not evaluated: unindexed>0 \(server log \(unindexed\): $why\)$" "$out" "unindexed's line"
assert_match "Threshold not evaluated: server\.p99>3600s \(server log \(etime\): $why\)$" "$out" "server.p99's line"
assert_match 'search: attempted 50, completed 50, succeeded 50, counted 50, errors 0' "$out" "the run's own figures"
# (under strace, which LeakSanitizer cannot run under: each pass of the wait after the first reads the log from where the last one stopped,
# at or after the log's size before the run, never from its start)
for try in 1 2 3; do
	size0=$(stat -c %s "$access")
	set +e
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 \
		strace -f -qq -o "$work/trace" -e trace=pread64 -e signal=none \
		"$LDBENCH" "${search[@]}" -n 1 -T 50 --server-log "$access" --server-log-wait 1s >"$out" 2>&1
	RC=$?
	set -e
	grep -q "the run's last operation is not in the log" "$out" && break
	echo "try $try: 389 DS wrote its buffer out during the run; again"
done
cat "$out"
assert_eq 14 "$RC" "no threshold: exit 14, the join failed"
assert_match 'Exit status 14 - The server log could not be joined \(--server-log\)\.$' "$out" "ldclt's exit line"
offsets=$(sed -nE 's/.*pread64\([0-9]+, .*, 1048576, ([0-9]+)\) +=.*/\1/p' "$work/trace")
assert_ge 1 "$(wc -w <<<"$offsets")" "the wait's passes read on from an offset"
for o in $offsets; do
	assert_ge "$size0" "$o" "a pass of the wait resumes at or after the log's size before the run"
done

# 3. unbuffered: unindexed searches (roomNumber has no index) trip their gates, per kind too
dirsrv_log_buffering off
run_ldbench "$out" "${root[@]}" -f "(roomNumber=*9*)" -e esearch -n 1 -T 10 --no-preflight --server-log "$access" \
	--op-log "$work/u.oplog" --fail-if 'search.processing.p50>0.001ms' --fail-if 'coverage<100'
assert_eq 10 "$RC" "search.processing.p50>0.001ms holds: exit 10"
assert_match 'Threshold failed: search\.processing\.p50>0\.001ms \(server log \(search processing\) is [0-9.]+ ms\)$' \
	"$out" "its line"
assert_no_match 'Threshold (failed|not evaluated): coverage' "$out" "every search joined"
j() { # ARGS...: ldbench join on the unindexed run, output in $work/j.txt, status in RC
	set +e
	"$LDBENCH" join --op-log "$work/u.oplog" "$access" "$@" >"$work/j.txt" 2>&1
	RC=$?
	set -e
	cat "$work/j.txt" >&2
}
j --fail-if 'unindexed>9'
assert_eq 10 "$RC" "ldbench join: unindexed>9 holds (10 unindexed searches)"
assert_match '^Threshold failed: unindexed>9 \(is 10\)$' "$work/j.txt" "its line"
j --fail-if 'search.server.min>0ns'
assert_eq 10 "$RC" "ldbench join: search's etime"
j --fail-if 'search.p99>0.001ms'
assert_eq 10 "$RC" "ldbench join: search's client latency"
j --fail-if 'unindexed>10' --fail-if 'queue.p99>3600s' --fail-if 'coverage<100'
assert_eq 0 "$RC" "ldbench join: thresholds that do not hold"
j --fail-if 'errors>0'
assert_eq 2 "$RC" "ldbench join: errors refused"
assert_match "^ldbench join: --fail-if 'errors>0': ldbench join has the join's figures only" "$work/j.txt" "says why"
echo "dirsrv_gates: all passed"
