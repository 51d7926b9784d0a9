#!/usr/bin/env bash
# --find-max against the fixture slapd (docs/capacity.md): with an
# objective the server can meet it finds a rate R (exit 0, the table, the JSON
# records that compare and merge accept); plain --rate runs confirm the
# objective holds at R and fails at 1.5 R; an impossible objective ends with
# status 12.  The objective is generous on latency (p99 < 300 ms) so that what
# breaks it above R is the server's saturation (the rate not reached, a queue
# that grows), not noise on this loaded machine; R is the best of several
# steps near the edge, so the confirmation at R allows five tries (and 90 % of
# the rate), the one at 1.5 R three.  A sanitizer build does not confirm R
# (nor run 2,000 clients): it runs the rest, then exits 77 (ctest: skipped).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 1000
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)"
	-e esearch,random -r1 -R1000 -n 4 --interval 1s)
step=(--warmup 500ms --duration 2s)

# 1. a meetable objective
findmax_round() { # $1: the round; sets R (the rate found) and N (its clients)
	run_ldbench "$D/fm$1.txt" "${common[@]}" "${step[@]}" --find-max 'p99<300ms,errors<1' --find-max-steps 8 \
		--find-max-tolerance 10% --json "$D/fm$1.json"
	assert_eq 0 "$RC" "exit status of a find-max that found a rate"
	final=$(grep '^{"type":"find_max"' "$D/fm$1.json")
	grep -q '"found":true' <<<"$final" || _fail "final record: $final"
	R=$(grep -oE '"rate":[0-9.]+' <<<"$final" | head -n 1 | cut -d: -f2)
	N=$(grep -oE '"threads":[0-9]+' <<<"$final" | cut -d: -f2)
	echo "round $1: found R = $R/s with $N clients"
	sed -n '/Find-max of/,/Highest rate/p' "$D/fm$1.txt" # the steps, for a reader of a failure
	assert_match "Find-max stopped: (the tolerance is reached|the step budget is spent)" "$D/fm$1.txt" "the stop line"
}
findmax_round 1
assert_match "Find-max probe: closed loop with 4 clients" "$D/fm1.txt" "the closed-loop probe"
assert_match "^Step	Target \(ops/s\)	Achieved \(ops/s\)	Clients	p50 \(ms\)	p99 \(ms\)	p99.9 \(ms\)	Errors	Result$" \
	"$D/fm1.txt" "the table's header"
assert_match "^1	[0-9.]+	[0-9.]+	[0-9]+	[0-9.]+	[0-9.]+	[0-9.]+	[0-9]+	(pass|fail)" "$D/fm1.txt" "the first step's row"
assert_match "Highest rate that met the objective: [0-9.]+/s" "$D/fm1.txt" "the result line"
nsteps=$(grep -c '^{"type":"find_max_step"' "$D/fm1.json")
assert_eq "$nsteps" "$(grep -oE '"steps":[0-9]+' <<<"$final" | cut -d: -f2)" "a record per step"
assert_ge 2 "$nsteps" "steps"
assert_le 8 "$nsteps" "steps within the budget"
passed=$(grep '^{"type":"find_max_step".*"passed":true' "$D/fm1.json" | grep -c "\"target\":$R,") || true
assert_eq 1 "$passed" "the step at R passed"
# every step but the probe's summary is there, and compare/merge take the file
assert_eq "$((nsteps + 1))" "$(grep -c '^{"type":"summary"' "$D/fm1.json")" "a summary per step and the probe"
run_ldbench "$D/cmp.txt" compare "$D/fm1.json" -- "$D/fm1.json"
assert_eq 0 "$RC" "compare accepts the find-max records"
run_ldbench "$D/merge.txt" merge "$D/fm1.json" "$D/fm1.json"
assert_eq 0 "$RC" "merge accepts the find-max records"

# 2. at R the objective holds, at 1.5 R it fails: --fail-if states its negation.
# A sanitizer build's client is several times slower and its speed moves: its
# R says nothing about the server, so the confirmations run in normal builds.
# The server's capacity on this 2-core machine moves with what else runs (by
# half, measured with a compiler beside it), so a round whose R the --rate runs
# do not confirm is followed by a new find-max and its confirmation, three
# rounds at most: the test fails when find-max is wrong three times running.
confirm() { # 0 when R holds (five tries) and 1.5 R fails (three tries)
	local lo R15 lo15 try
	# (the confirmation at R allows 90 % of the rate where a step needs 95 %)
	lo=$(awk -v r="$R" 'BEGIN { printf "%.0f", r * 0.90 }')
	R15=$(awk -v r="$R" 'BEGIN { printf "%.2f", r * 1.5 }')
	lo15=$(awk -v r="$R" 'BEGIN { printf "%.0f", r * 1.5 * 0.95 }')
	for try in 1 2 3 4 5 0; do
		[ "$try" != 0 ] || { echo "round: the objective did not hold at R = $R/s"; return 1; }
		run_ldbench "$D/atR.txt" "${common[@]}" "${step[@]}" -n "$N" --rate "$R" \
			--fail-if 'p99>=300ms' --fail-if 'errors>=1' --fail-if "rate<$lo"
		[ "$RC" = 0 ] && break
		grep -E "Threshold failed|limited|Target rate: .* \(" "$D/atR.txt" || true
		assert_eq 10 "$RC" "a --rate run at R either holds or fails its threshold"
	done
	for try in 1 2 3 0; do
		[ "$try" != 0 ] || { echo "round: the objective held at 1.5 R = $R15/s"; return 1; }
		run_ldbench "$D/at15.txt" "${common[@]}" "${step[@]}" -n "$N" --rate "$R15" \
			--fail-if 'p99>=300ms' --fail-if 'errors>=1' --fail-if "rate<$lo15"
		[ "$RC" = 10 ] && break
		assert_eq 0 "$RC" "a --rate run at 1.5 R either holds or fails its threshold"
	done
	assert_match "Threshold failed: " "$D/at15.txt" "the failing threshold named"
	echo "ok: the objective holds at R = $R/s and fails at 1.5 R = $R15/s"
}
if [ "${LDBENCH_TIME_FACTOR:-1}" -gt 1 ]; then
	skipped="sanitizer build: no confirmation of R at R and 1.5 R, no 2,000 clients"
	echo "SKIP: $skipped"
else
	confirmed=0
	for round in 1 2 3; do
		[ "$round" = 1 ] || findmax_round "$round"
		if confirm; then confirmed=$round; break; fi
	done
	assert_ge 1 "$confirmed" "the round whose R the --rate runs confirmed"

	# a target past 2,000 clients' slots: the clients stop at 2,000, each with a deeper
	# pipeline (2 x 1.5 M/s x 2 ms guessed = 6,000 slots: 3 each; the retry 4 times that);
	# the server's binds say every client connected (and one pre-flight bind a step)
	fixture_monitor_snapshot "$D/snap"
	run_ldbench "$D/deep.txt" "${common[@]}" --warmup 200ms --duration 1s --find-max 'p99<1s' \
		--find-max-start 1500000 --find-max-steps 2 --json "$D/deep.json"
	assert_eq 12 "$RC" "exit status of an unreachable target"
	assert_match "Find-max step 1: target 1500000.00/s with 2000 clients, 3 requests in flight each$" "$D/deep.txt" \
		"the first step's clients and depth"
	assert_match "Find-max step 2: target 1500000.00/s with 2000 clients, 12 requests in flight each$" "$D/deep.txt" \
		"the retry's: four times the slots"
	assert_eq 2 "$(grep -c '^{"type":"find_max_step".*"threads":2000,"depth":\(3\|12\),' "$D/deep.json")" \
		"the step records' clients and depth"
	assert_eq 4002 "$(fixture_monitor_delta "$D/snap" Bind)" "server-side binds of two steps of 2,000 clients"
fi

# 3. an impossible objective: the distinct status
run_ldbench "$D/none.txt" "${common[@]}" --warmup 200ms --duration 1s --find-max 'p99<1us' --find-max-start 200 \
	--find-max-steps 2 --json "$D/none.json"
assert_eq 12 "$RC" "exit status when no rate met the objective"
assert_match "No rate met the objective p99<1us\.$" "$D/none.txt" "the result line"
assert_match "Exit status 0 - No problem during execution" "$D/none.txt" "each step's own end"
assert_eq 2 "$(grep -c '^{"type":"find_max_step".*"passed":false' "$D/none.json")" "two failed steps"
grep -q '^{"type":"find_max".*"found":false.*"status":12' "$D/none.json" || _fail "final record of no capacity"

# 4. bad input: one line, exit 2, no connection
run_ldbench "$D/bad.txt" "${common[@]}" --find-max 'p99<' 
assert_eq 2 "$RC" "a bad objective"
assert_match "^ldbench: --find-max 'p99<': expected a number" "$D/bad.txt" "its message"
run_ldbench "$D/bad2.txt" "${common[@]}" --find-max 'p99<5ms' --rate 100
assert_eq 2 "$RC" "--find-max with --rate"
run_ldbench "$D/bad4.txt" "${common[@]}" --find-max 'p99<5ms' --fail-if 'errors>0'
assert_eq 2 "$RC" "--find-max with --fail-if"
assert_match "^ldbench: --find-max's objective is what each step must meet: leave out --fail-if$" "$D/bad4.txt" \
	"its message"
run_ldbench "$D/bad3.txt" "${common[@]}" --find-max-tolerance 5%
assert_eq 2 "$RC" "a find-max option without --find-max"
if [[ -n "${skipped:-}" ]]; then
	echo "findmax: SKIPPED: $skipped (the rest passed)"
	exit 77
fi
echo "ok: find-max"
