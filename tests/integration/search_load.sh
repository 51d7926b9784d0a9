#!/usr/bin/env bash
# Search loads against a real slapd: the counts ldbench prints equal what the
# server's cn=Monitor saw, random searches hit real entries and spread over the
# range, pipelining and several connections per thread count exactly.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 1000
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# 1. exact search, -T: n x T searches, each counted by the server
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=user00042)" -e esearch,srchnentries=1 -n 4 -T 250
assert_eq 0 "$RC" "exit status of an exact -T run"
assert_eq 1000 "$(global_total "$out")" "Global average rate total"
assert_eq 1000 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches (cn=Monitor)"
assert_match '^ldbench\[[0-9]+\]: Global no error occurs during this session\.$' "$out" "no-error line"
assert_match '^ldbench\[[0-9]+\]: Exit status 0 - No problem during execution\.$' "$out" "exit line"
assert_match 'search: attempted 1000, completed 1000, succeeded 1000, counted 1000, errors 0, entries 1000, expected-result hits 1000, misses 0$' "$out" "search counters"
assert_match '^ldbench\[[0-9]+\]: search latency \(ms\): min [0-9.]+, mean [0-9.]+, p50 [0-9.]+, p95 [0-9.]+, p99 [0-9.]+, p99\.9 [0-9.]+, max [0-9.]+$' "$out" "latency summary line"
assert_match '^ldbench\[[0-9]+\]: Global average rate: +[0-9]+\.[0-9]{2}/thr  \( *[0-9]+\.[0-9]{2}/sec\), total: +1000$' "$out" "ldclt's global rate format"
assert_no_match 'nan' "$out" "no nan anywhere"
assert_no_match "$FIX_ROOTPW" "$out" "password never printed"

# 2. random searches over the whole population: every one finds its entry
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R1000 -n 4 -T 500 --seed 7
assert_eq 0 "$RC" "exit status of a random -T run"
# the server also saw the pre-flight's 5 searches (lowest, highest, three between)
assert_eq 2005 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side random searches + pre-flight"
assert_match ': Pre-flight: search \(uid=user00001\) 1, \(uid=user00250\) 1, \(uid=user00500\) 1, \(uid=user00750\) 1, \(uid=user01000\) 1 entries$' "$out" "pre-flight line"
assert_match 'expected-result hits 2000, misses 0$' "$out" "every random uid exists"

# the values spread uniformly over [-r, -R]: with users 1..1000 and a range of
# 1..2000, about half of the searches find their entry (binomial, sd ~ 22); the
# pre-flight check would stop such a range (user01500 and user02000 are not there)
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R2000 -n 2 -T 1000 --no-preflight
hits=$(sed -nE 's/.*expected-result hits ([0-9]+), misses.*/\1/p' "$out")
assert_ge 880 "$hits" "hits over a range twice the population"
assert_le 1120 "$hits" "hits over a range twice the population"
# --seed makes a one-thread run repeat itself exactly; without it runs differ
for s in a b; do
	run_ldbench "$FIX_DIR/$s.txt" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R2000 -n 1 -T 400 --seed 11
done
ha=$(sed -nE 's/.*expected-result hits ([0-9]+), misses.*/\1/p' "$FIX_DIR/a.txt")
hb=$(sed -nE 's/.*expected-result hits ([0-9]+), misses.*/\1/p' "$FIX_DIR/b.txt")
assert_eq "$ha" "$hb" "same seed, same hits"

# 3. out of range: uid=user01001.. do not exist: the pre-flight check stops the run (exit 11);
#    with --no-preflight the misses are counted, not fatal, and the summary warns
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1001 -R2000 -n 2 -T 100
assert_eq 11 "$RC" "exit status of a range outside the data"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1001 -R2000 -n 2 -T 100 --no-preflight
assert_eq 0 "$RC" "exit status with misses"
assert_match 'expected-result hits 0, misses 200$' "$out" "misses counted"
assert_match ': Warning: 200 of 200 expected-result checks missed' "$out" "the warning"

# 4. 16 in flight on each of 2 connections (-a 16), and 3 connections per thread
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 2 -a 16 -T 1500 --no-preflight
assert_eq 0 "$RC" "exit status, pipelined"
assert_eq 3000 "$(global_total "$out")" "pipelined total (exactly n x T)"
assert_eq 3000 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side pipelined searches"

fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 2 -a 4 --connections-per-thread 3 -T 600 --no-preflight
assert_eq 0 "$RC" "exit status, 3 connections per thread"
assert_eq 1200 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches over 6 connections"
assert_match 'Connections: opened 6, reconnects 0, binds at connect 6$' "$out" "six connections, six binds"

# 5. fixed duration: -N samples of sampinterval, rates over measured time
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,sampinterval=1 -r1 -R1000 -n 2 -N 2
assert_eq 0 "$RC" "exit status, -N run"
assert_eq 2 "$(grep -cE '^ldbench\[[0-9]+\]: Average rate: +[0-9]+\.[0-9]{2}/thr  \( *[0-9]+\.[0-9]{2}/sec\), total: +[0-9]+$' "$out")" "two sample lines"
assert_match '^ldbench\[[0-9]+\]: search latency \(ms\): min [0-9.]+, p50 [0-9.]+, p95 [0-9.]+, p99 [0-9.]+, max [0-9.]+$' "$out" "per-sample latency line"
assert_match 'Number of samples achieved\. Bye-bye\.\.\.$' "$out" "end of samples line"

# 6. attrlist followed by another keyword in the same -e is not lost
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,attrlist=uid:cn,srchnentries=1 -r1 -R1000 -n 1 -T 20
assert_eq 0 "$RC" "attrlist then srchnentries"
assert_match 'expected-result hits 20, misses 0$' "$out" "srchnentries after attrlist applied"
echo "search_load: all passed"

# 7. without --seed every run draws a fresh seed (shown by -v); with it, the given one
run_ldbench "$FIX_DIR/s1.txt" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 1 -T 5 -v
run_ldbench "$FIX_DIR/s2.txt" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 1 -T 5 -v
s1=$(sed -nE 's/^Seed += ([0-9]+) \(fresh\)$/\1/p' "$FIX_DIR/s1.txt")
s2=$(sed -nE 's/^Seed += ([0-9]+) \(fresh\)$/\1/p' "$FIX_DIR/s2.txt")
[ -n "$s1" ] && [ "$s1" != "$s2" ] || _fail "fresh seeds: '$s1' and '$s2'"
echo "ok: fresh seeds differ ($s1, $s2)"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 1 -T 5 -v --seed 42
assert_match '^Seed += 42$' "$out" "given seed shown"

# 8. a link named ldclt prints ldclt's prefix
ln -s "$LDBENCH" "$FIX_DIR/ldclt"
set +e; "$FIX_DIR/ldclt" "${common[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 3 >"$out" 2>&1; rc=$?; set -e
assert_eq 0 "$rc" "exit status through a link named ldclt"
assert_match '^ldclt\[[0-9]+\]: Global average rate: +3\.00/thr  \( *[0-9]+\.[0-9]{2}/sec\), total: +3$' "$out" "ldclt[PID]: prefix"
assert_match '^ldclt\[[0-9]+\]: Exit status 0 - No problem during execution\.$' "$out" "ldclt exit line"
echo "search_load: all passed (with seeds and link)"
