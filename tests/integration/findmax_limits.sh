#!/usr/bin/env bash
# --find-max says what it will cost and what stopped it, and tells the
# server's limit from the client's (docs/capacity.md), in short steps:
#  1. the bound announced before the first step (steps x step length);
#  2. the stop line: an objective no step can meet ("no step met"), a budget
#     that ends a search that keeps passing;
#  3. a saturated server (tests/tools/ldapproxy --answer --capacity 100: one
#     worker, 10 ms a request, whatever the client's CPU): the step past its
#     capacity queued, and its line blames the server, not "too few requests
#     in flight", and its second run has the same clients;
#  4. a slow server that does not queue (ldapproxy --delay-ms 30 in front of
#     slapd: every answer 30 ms late, however many in flight) with one
#     client for 200/s: the client's slots are the limit, "too few requests
#     in flight", and the second run has four times the clients.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/ldapproxy.sh"
fm_cleanup() {
	proxy_stop_all
	fixture_stop
}
fixture_start --users 100
trap fm_cleanup EXIT
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)"
	-e esearch,random -r1 -R100 -n 1 --interval 1s --warmup 200ms --duration 1s)

# 1-2. an objective no step can meet: 2/s, again, 1/s, again, then below 1/s
run_ldbench "$D/none.txt" "${common[@]}" --find-max 'p99<1us' --find-max-start 2
assert_eq 12 "$RC" "exit status when no rate met the objective"
assert_match "^ldbench\[[0-9]+\]: Find-max: at most 12 steps \(a failed step's second run counts among them\) of 0\.200 s warm-up \+ 1\.000 s measured \+ up to 1\.000 s for the answers in flight: at most 26\.4 s, the connects and pre-flight checks aside$" \
	"$D/none.txt" "the bound, before the first step"
[ "$(grep -n 'Find-max: at most' "$D/none.txt" | cut -d: -f1)" -lt "$(grep -n 'Find-max step 1:' "$D/none.txt" | head -n 1 | cut -d: -f1)" ] ||
	_fail "the bound comes after the first step"
assert_match "^ldbench\[[0-9]+\]: Find-max stopped: no step met the objective, down to 1\.00/s\.$" "$D/none.txt" \
	"the stop line: no step met"

# a budget that ends a search whose steps keep passing (50/s and 100/s, p99 under a second)
run_ldbench "$D/budget.txt" "${common[@]}" --find-max 'p99<1s' --find-max-start 50 --find-max-steps 2
assert_match "^ldbench\[[0-9]+\]: Find-max: at most 2 steps \(a failed step's second run counts among them\) of 0\.200 s warm-up \+ 1\.000 s measured \+ up to 1\.000 s for the answers in flight: at most 4\.4 s, the connects and pre-flight checks aside$" \
	"$D/budget.txt" "the bound of two steps"
assert_match "^ldbench\[[0-9]+\]: Find-max stopped: the step budget is spent \(--find-max-steps 2\)" "$D/budget.txt" \
	"the stop line: the budget"
# without --find-max-start the closed-loop probe counts in the bound
run_ldbench "$D/probe.txt" "${common[@]}" --find-max 'p99<1s' --find-max-steps 2 --find-max-tolerance 50%
assert_match "^ldbench\[[0-9]+\]: Find-max: at most 2 steps \(a failed step's second run counts among them\) after a closed-loop probe of 0\.200 s warm-up \+ 1\.000 s measured \+ up to 1\.000 s for the answers in flight: at most 6\.6 s" \
	"$D/probe.txt" "the bound with the probe"
assert_match "^ldbench\[[0-9]+\]: Find-max stopped: (the step budget is spent|the tolerance is reached)" "$D/probe.txt" \
	"the stop line after a probe"

# 3. a saturated server: 30/s and 60/s pass at its quiet 10 ms, 120/s queues
start_proxy --answer --capacity 100
run_ldbench "$D/sat.txt" -h 127.0.0.1 -p "$PX_PORT" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch -n 1 --interval 1s \
	--warmup 200ms --duration 1s --find-max 'errors<1' --find-max-start 30 --find-max-steps 4 --json "$D/sat.json"
sed -n '/Find-max of/,$p' "$D/sat.txt"
assert_eq 0 "$RC" "exit status: 60/s met the objective"
assert_match "^3	120\.00	[0-9.]+	[0-9]+	.*	fail \(achieved [0-9.]+% of the target\); the server is the limit: it queued \(mean latency [0-9.]+ ms, [0-9.]+x the quiet [0-9.]+ ms\)$" \
	"$D/sat.txt" "the saturated step's row blames the server"
assert_match "^ldbench\[[0-9]+\]: Find-max step 3: fail \(achieved [0-9.]+% of the target\); the server is the limit: it queued" \
	"$D/sat.txt" "the saturated step's line blames the server"
assert_no_match "too few requests in flight" "$D/sat.txt" "no step blames the client's requests in flight"
# (the clients follow the latency measured so far: 3 on a quiet machine)
c3=$(sed -nE 's/.*Find-max step 3: target 120\.00\/s with ([0-9]+) clients$/\1/p' "$D/sat.txt")
[[ -n "$c3" ]] || _fail "no line for step 3's target"
assert_match "Find-max step 4: target 120\.00/s with $c3 clients$" "$D/sat.txt" "its second run: the same clients"
grep -q '^{"type":"find_max_step","step":3,.*"short_of_inflight":true,"server_limited":true,' "$D/sat.json" ||
	_fail "step 3's record: $(grep '"step":3,' "$D/sat.json")"
assert_match "^ldbench\[[0-9]+\]: Find-max stopped: the step budget is spent \(--find-max-steps 4\)\.$" "$D/sat.txt" \
	"the stop line of the saturated search"

# 4. a slow server that does not queue, one client for 200/s: the client's slots
start_proxy --delay-ms 30 --upstream "$FIX_PORT"
run_ldbench "$D/slow.txt" -h 127.0.0.1 -p "$PX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=x)" \
	-e esearch -n 1 --interval 1s --warmup 200ms --duration 1s --find-max 'errors<1' --find-max-start 200 \
	--find-max-steps 2
sed -n '/Find-max of/,$p' "$D/slow.txt"
assert_match "^ldbench\[[0-9]+\]: Find-max step 1: fail \(achieved [0-9.]+% of the target\); too few requests in flight$" \
	"$D/slow.txt" "the slow server's step: too few requests in flight"
assert_match "Find-max step 2: target 200\.00/s with 4 clients$" "$D/slow.txt" "its second run: four times the clients"
assert_no_match "the server is the limit" "$D/slow.txt" "the client's slots are not blamed on the server"
echo "findmax_limits: all passed"
