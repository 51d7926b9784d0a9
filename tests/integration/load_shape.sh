#!/usr/bin/env bash
# Load shape: warm-up left out of every figure (checked against cn=Monitor),
# --duration, an open-loop --rate that hits its target and whose corrected
# latency shows a server pause that the uncorrected one hides, and --sweep.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 1000
out=$FIX_DIR/out.txt
search=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE"
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 --no-preflight)
f=${LDBENCH_TIME_FACTOR:-1}

# 1. warm-up: the server saw warm-up + measured operations; the figures only the latter
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${search[@]}" -n 2 --warmup 1s -T 500
assert_eq 0 "$RC" "exit status with --warmup"
warm=$(sed -nE 's/.*Warm-up done after [0-9.]+ s \(([0-9]+) operations left out\): measurement starts now\.$/\1/p' "$out")
assert_ge 1 "$warm" "operations left out"
total=$(global_total "$out")
assert_eq 1000 "$total" "measured total (-T counts after warm-up)"
assert_eq $((warm + total)) "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches = warm-up + measured"
assert_match 'search: attempted [0-9]+, completed 1000, succeeded 1000, counted 1000' "$out" "counters restart after warm-up"

# 2. --duration: measured time is the duration, whatever the interval
run_ldbench "$out" "${search[@]}" -n 2 --duration 2s --interval 500ms
assert_eq 0 "$RC" "exit status with --duration"
secs=$(sed -nE 's/.*Measured time: ([0-9]+)\.([0-9]{3}) s$/\1\2/p' "$out")
assert_ge 2000 "$secs" "measured milliseconds"
assert_le $((2000 + 300 * f)) "$secs" "measured milliseconds (the stop's margin scaled as the other time bounds)"
assert_eq 4 "$(grep -c 'Average rate:' "$out")" "four half-second samples"
assert_match 'Duration reached\. Bye-bye\.\.\.$' "$out" "duration line"

# 3. --rate: the target is met within 1 % when the server can serve it
run_ldbench "$out" "${search[@]}" -n 4 --rate 2000 --duration 3s --interval 1s
assert_eq 0 "$RC" "exit status with --rate"
pct=$(sed -nE 's/.*Target rate: 2000\.00\/sec, achieved [0-9.]+\/sec \(([-+][0-9.]+) %\).*/\1/p' "$out")
echo "achieved vs target: $pct %"
awk -v p="$pct" 'BEGIN { exit !(p >= -1.0 && p <= 1.0) }' || _fail "rate off target by $pct %"
assert_match 'search uncorrected latency \(ms\): min ' "$out" "uncorrected latency kept beside"

# 4. a 1 s server pause: corrected latency shows it, uncorrected hides it
(sleep 1.2; fixture_pause; sleep 1; fixture_resume) &
pauser=$!
run_ldbench "$out" "${search[@]}" -n 4 --rate 1000 --duration 4s --interval 4s -t 30
wait "$pauser"
assert_eq 0 "$RC" "exit status across the pause"
p95c=$(sed -nE 's/.*: search latency \(ms\): min [0-9.]+, mean [0-9.]+, p50 [0-9.]+, p95 ([0-9]+)\..*/\1/p' "$out")
p95u=$(sed -nE 's/.*: search uncorrected latency \(ms\): min [0-9.]+, mean [0-9.]+, p50 [0-9.]+, p95 ([0-9]+)\..*/\1/p' "$out")
assert_ge 300 "$p95c" "corrected p95 (ms) includes the pause"
assert_le $((100 * f)) "$p95u" "uncorrected p95 (ms) does not"

# 5. --sweep: one run per thread count, then one table
run_ldbench "$out" "${search[@]}" --sweep 1,2,4 -T 100
assert_eq 0 "$RC" "exit status of a sweep"
assert_match 'Sweep of 3 runs \(search latency\):$' "$out" "sweep header"
assert_match '^Concurrency	Rate \(ops/s\)	p50 \(ms\)	p99 \(ms\)	Errors$' "$out" "sweep columns"
for n in 1 2 4; do
	assert_match "^$n	[0-9]+\.[0-9]{2}	[0-9]+\.[0-9]{3}	[0-9]+\.[0-9]{3}	0$" "$out" "sweep row for $n threads"
done
assert_eq 3 "$(grep -c 'Exit status 0' "$out")" "three runs"
echo "load_shape: all passed"

# 6. --monitor: the server's own counts printed beside the client's, and equal
#    to what the fixture reads from cn=Monitor
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${search[@]}" -n 4 -T 250 --monitor
assert_eq 0 "$RC" "exit status with --monitor"
assert_match '^ldbench\[[0-9]+\]: Server \(cn=Monitor\): search completed 1000 \(client: 1000 completed, 0 in flight\): agree$' "$out" "server searches beside the client's"
assert_match '^ldbench\[[0-9]+\]: Server \(cn=Monitor\): bind completed 4 \(client: 4 completed, 0 in flight\): agree$' "$out" "server binds beside the client's"
# the run's own monitor reads are one bind and one search each
assert_eq $((1000 + 2)) "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "fixture sees the searches and the two reads"
echo "load_shape: monitor passed"

# 7. --fail-if on a plain run: exit 10 and one line per threshold that holds
run_ldbench "$out" "${search[@]}" -n 2 -T 100 --fail-if 'p99>0.001us' --fail-if 'errors>0' --fail-if 'rate<1'
assert_eq 10 "$RC" "exit status when a threshold holds"
assert_match '^ldbench\[[0-9]+\]: Threshold failed: p99>0\.001us \(search is [0-9]+\.[0-9]{3} ms\)$' "$out" "the failed threshold"
assert_no_match 'Threshold failed: errors>0' "$out" "errors>0 does not hold"
assert_no_match 'Threshold failed: rate<1' "$out" "rate<1 does not hold"
assert_match '^ldbench\[[0-9]+\]: Exit status 10 - Threshold exceeded \(--fail-if\)\.$' "$out" "exit line 10"
run_ldbench "$out" "${search[@]}" -n 2 -T 100 --fail-if 'p99>10s' --fail-if 'search.errors>0'
assert_eq 0 "$RC" "exit status when no threshold holds"
echo "load_shape: fail-if passed"

# 8. --start-at: several hosts start together; the run waits for the second given
at=$(( $(date +%s) + 2 ))
run_ldbench "$out" "${search[@]}" -n 1 -T 10 --start-at "@$at"
assert_eq 0 "$RC" "exit status with --start-at"
assert_match '^ldbench\[[0-9]+\]: Waiting until .* to start \(--start-at\)\.$' "$out" "waiting line"
started=$(date -d "$(sed -nE 's/.*: Starting at (.*)$/\1/p' "$out")" +%s)
assert_ge "$at" "$started" "started at or after the agreed second"
assert_eq 10 "$(global_total "$out")" "operations after the wait"
assert_match '^ldbench\[[0-9]+\]: search entries returned: 10 \([0-9.]+/sec\)$' "$out" "entries returned per second"
echo "load_shape: start-at passed"
