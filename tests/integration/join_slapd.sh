#!/usr/bin/env bash
# The join with the server's log on a real slapd (loglevel stats into a
# logfile, tests/fixture/slapd.sh's FIX_STATS_LOG): every completed operation
# of the measured window found by its connection's tag and its op=, for
# searches, binds and writes, at depth 1 and pipelined (-a); a 5 ms delaying
# proxy moves "outside", not etime; bad input (not a log, a log that does
# not cover the run, a truncated one) says so in one line, with the run's own
# figures untouched.
# JOIN_PART=rings (set by tests/CMakeLists.txt in the sanitizer builds) runs
# cases 1 to 3 only: the op-log's rings between two I/O threads and the
# writer thread (--op-log, --io-threads 2), pipelined, and bindeach.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-join.XXXXXX")
export FIX_STATS_LOG=$logs/stats.log
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/ldapproxy.sh"
cleanup() { proxy_stop_all; fixture_stop; rm -rf "$logs"; }
fixture_start --users 500
trap cleanup EXIT
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# KIND's client count (completed) and the join's line agree: "KIND: N of N operations joined (100.0 %)"
joined_all() { # KIND FILE WHAT
	local n
	n=$(sed -nE "s/.* $1: attempted [0-9]+, completed ([0-9]+),.*/\1/p" "$2" | tail -n 1)
	assert_ge 1 "${n:-0}" "$3: the client completed some"
	grep -E 'Server log|: (Warm|warm)' "$2" >&2 || true
	assert_match "Server log \(openldap\), $1: $n of $n operations joined \(100\.0 %\)" "$2" "$3: every one joined"
}
# the figure's p50 in ms, from the join's text: fig KIND FIGURE FILE
fig() {
	awk -v k="$1" -v f="$2" '$0 ~ "Server log \\(openldap\\), " k ":" {on = 1; next}
		/Server log/ {on = 0} on && $2 == f {for (i = 3; i < NF; i++) if ($i == "p50") print $(i + 1)}' "$3" | tail -n 1
}

# 1. searches, depth 1, with a warm-up: the measured ones only; ldbench join afterwards agrees
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 --io-threads 2 --duration 1s \
	--warmup 500ms --op-log "$logs/s1.oplog" --server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, searches with --server-log"
joined_all search "$out" "searches at depth 1"
assert_match 'Server log \(openldap\): connections 2, tagged in the log 2;' "$out" "both connections tagged"
# the verdict: a part that dominates (twice the next at least), or none
assert_match "Server log \(openldap\): (.*: (queue \(qtime\)|processing \(etime - qtime\)|outside) dominates at p99: [0-9.]+ ms of the client's [0-9.]+ ms p99 \([0-9]+ %\), etime [0-9.]+ ms, ([0-9.]+ times the next part|the other parts 0)|no part dominates at p99: .* \([0-9.]+ times\) of the client's [0-9.]+ ms p99, etime [0-9.]+ ms)$" \
	"$out" "the verdict"
assert_match '^ldbench\[[0-9]+\]:   queue +min [0-9.]+ p50 .* ms \(qtime\)$' "$out" "the queue line: the sample table's name"
assert_match '^ldbench\[[0-9]+\]:   processing +min [0-9.]+ p50 .* ms \(etime - qtime\)$' "$out" "the processing line"
set +e
"$LDBENCH" join --op-log "$logs/s1.oplog" "$FIX_STATS_LOG" --json "$logs/s1.json" >"$logs/s1.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "ldbench join exit status"
n=$(sed -nE 's/.* search: attempted [0-9]+, completed ([0-9]+),.*/\1/p' "$out" | tail -n 1)
assert_match "search: $n of $n operations joined" "$logs/s1.txt" "ldbench join: the same count"
assert_match "\"search\":\\{\"sent\":$n,\"joined\":$n,\"coverage\":100\\.000" "$logs/s1.json" "JSON: sent and joined"
assert_match '"qtime"|"queue":\{' "$logs/s1.json" "JSON: queue figures"
assert_match '"verdict":"' "$logs/s1.json" "JSON: the verdict"
# the log copied and compressed later: the same join
gzip -c "$FIX_STATS_LOG" >"$logs/copy.log.gz"
"$LDBENCH" join --op-log "$logs/s1.oplog" "$logs/copy.log.gz" >"$logs/s1gz.txt"
assert_match "search: $n of $n operations joined" "$logs/s1gz.txt" "ldbench join on a .gz copy"

# 2. pipelined searches (-a 8), and the JSON summary record carries the join
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 -a 8 -T 300 \
	--server-log "$FIX_STATS_LOG" --json "$logs/s2.json"
assert_eq 0 "$RC" "exit status, pipelined searches"
joined_all search "$out" "pipelined searches"
assert_match '"type":"summary".*"join":\{"server":"openldap"' "$logs/s2.json" "the summary record's join"

# 3. binds (a bind is alone on its connection: depth 1), and bindeach (a connection, a tag, each)
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -D "uid=user00003,$FIX_PEOPLE" -w user00003 -e bindonly -n 2 -T 100 \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, binds"
joined_all bind "$out" "binds"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -D "uid=user00003,$FIX_PEOPLE" -w user00003 -e bindeach,bindonly \
	-n 2 -T 30 --server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, bindeach"
joined_all bind "$out" "bindeach binds"
assert_match 'Server log \(openldap\): connections 60, tagged in the log 60;' "$out" "a tag per connection"
if [[ ${JOIN_PART:-} == rings ]]; then
	echo "join_slapd: all passed (cases 1 to 3: JOIN_PART=rings)"
	exit 0
fi

# 4. writes at depth 1 and pipelined
run_ldbench "$out" "${common[@]}" -f "uid=userXXXXX" -e attreplace=description:aXXXXXX,random -r1 -R500 -n 2 -T 100 \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, modifies"
joined_all modify "$out" "modifies at depth 1"
run_ldbench "$out" "${common[@]}" -f "uid=userXXXXX" -e attreplace=description:bXXXXXX,random -r1 -R500 -n 2 -a 4 \
	-T 100 --server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, pipelined modifies"
joined_all modify "$out" "pipelined modifies"

# 5. a 5 ms delay on each response between ldbench and slapd: outside rises by it, etime does not
start_proxy --delay-ms 5 --upstream "$FIX_PORT"
run_ldbench "$out" -h 127.0.0.1 -p "$PX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" \
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 -T 100 --server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status through the proxy"
joined_all search "$out" "searches through the proxy"
outside=$(fig search outside "$out")
etime=$(fig search etime "$out")
echo "through a 5 ms proxy: outside p50 $outside ms, etime p50 $etime ms"
assert_eq 1 "$(awk -v v="$outside" 'BEGIN {print (v >= 4) ? 1 : 0}')" "outside p50 >= 4 ms ($outside)"
assert_eq 1 "$(awk -v v="$etime" 'BEGIN {print (v < 2) ? 1 : 0}')" "etime p50 < 2 ms ($etime)"
assert_match 'Server log \(openldap\): the delay is outside the server \(network or client handling\): outside dominates at p99: [0-9.]+ ms of the client.s [0-9.]+ ms p99 \([0-9]+ %\), etime [0-9.]+ ms, ' "$out" \
	"the verdict: outside"

# 6. bad input: a log that is not there (exit 2 before any connection), not a log, a log that does
# not cover the run, a truncated log
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch -n 1 -T 5 --server-log "$logs/none.log"
assert_eq 2 "$RC" "--server-log of a missing file: exit 2"
assert_eq 1 "$(wc -l <"$out")" "one line"
assert_match "^ldbench: --server-log $logs/none\.log: cannot read: No such file or directory$" "$out" "its wording"
printf 'hello\nthis is not a log\n' >"$logs/garbage.log"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 1 -T 50 \
	--op-log "$logs/s6.oplog" --server-log "$logs/garbage.log"
assert_eq 14 "$RC" "a run whose log is not a log: exit 14, the join failed"
assert_match 'search: attempted 50, completed 50, succeeded 50, counted 50, errors 0' "$out" "its own figures"
assert_match 'Server log: cannot join: .*garbage\.log' "$out" "one line: cannot join"
set +e
"$LDBENCH" join --op-log "$logs/s6.oplog" "$logs/garbage.log" >"$logs/bad.txt" 2>&1
rc=$?
set -e
assert_eq 2 "$rc" "ldbench join on a file that is not a log"
assert_eq 1 "$(wc -l <"$logs/bad.txt")" "one line"
set +e
"$LDBENCH" join --op-log "$logs/garbage.log" "$FIX_STATS_LOG" >"$logs/bad.txt" 2>&1
rc=$?
set -e
assert_eq 2 "$rc" "ldbench join on an op-log that is not one"
assert_match 'not an ldbench op-log' "$logs/bad.txt" "says so"
# the log as it was before the run: none of the run's tags in it
cp "$FIX_STATS_LOG" "$logs/before.log"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 1 -T 50 --op-log "$logs/s7.oplog"
set +e
"$LDBENCH" join --op-log "$logs/s7.oplog" "$logs/before.log" >"$logs/bad.txt" 2>&1
rc=$?
set -e
assert_eq 5 "$rc" "ldbench join on a log that does not cover the run"
assert_match 'the log does not cover the run: none of its 1 connections. tags is in it' "$logs/bad.txt" "says so"
# cut short in the middle of the run: the coverage says why
lines=$(wc -l <"$FIX_STATS_LOG")
before=$(wc -l <"$logs/before.log")
head -n $(((lines + before) / 2)) "$FIX_STATS_LOG" >"$logs/cut.log"
set +e
"$LDBENCH" join --op-log "$logs/s7.oplog" "$logs/cut.log" >"$logs/bad.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "ldbench join on a truncated log"
assert_match 'search: [0-9]+ of 50 operations joined .*no RESULT line for its op=' "$logs/bad.txt" "the missing ones"
assert_no_match 'search: 50 of 50' "$logs/bad.txt" "not all joined"
assert_match 'the log ends before the run did' "$logs/bad.txt" "why"
echo "join_slapd: all passed"
