#!/usr/bin/env bash
# -e abandon (issue 16): as ldclt, each operation is a search abandoned at once,
# counted when sent.  The server's cn=Monitor counts one Abandon per operation:
# ldbench's count must equal it, with several threads, with pipelining, and
# combined with an exact search in one pass.  The runs are paced (--rate): slapd
# defers the requests beyond the few it runs at once on a connection and drops
# what it still holds when the client unbinds, so an unpaced flood of requests
# that nothing answers can end with the server's count below the client's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 200
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# 1. -T: n x T abandons, each one seen by the server
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e abandon,random -r1 -R200 -n 3 -T 40 --rate 120
assert_eq 0 "$RC" "exit status of an abandon -T run"
assert_eq 120 "$(global_total "$out")" "Global average rate total"
assert_eq 120 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side abandons (cn=Monitor)"
assert_eq 120 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches: one per abandon"
assert_match 'abandon: attempted 120, completed 120, succeeded 120, counted 120, errors 0$' "$out" "abandon counters"
assert_no_match 'abandon latency' "$out" "no latency for an operation without an answer"
assert_match '^ldbench\[[0-9]+\]: Global no error occurs during this session\.$' "$out" "no-error line"

# 2. pipelined (-a 8), with --monitor: the server's line beside the client's
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=user00042)" -e abandon -a 8 -n 2 -T 250 --rate 1000 --monitor
assert_eq 0 "$RC" "exit status of a pipelined abandon run"
assert_eq 500 "$(global_total "$out")" "pipelined total"
assert_eq 500 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side pipelined abandons"
assert_match 'Server \(cn=Monitor\): abandon completed 500 \(client: 500 completed, 0 in flight\): agree$' "$out" "--monitor's abandon line"

# 3. a pass of esearch then abandon: one search answered, one abandoned (-T counts both steps)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=user00042)" -e esearch,abandon,srchnentries=1 -n 2 -T 200 --rate 400 -v
assert_eq 0 "$RC" "exit status of esearch,abandon"
assert_eq 200 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side abandons of the pass"
assert_eq 400 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches of the pass"
assert_match 'search: attempted 200, completed 200, succeeded 200, counted 200, errors 0, entries 200' "$out" \
	"the pass's searches"
assert_match 'abandon: attempted 200, completed 200, succeeded 200, counted 200, errors 0$' "$out" \
	"the pass's abandons"
assert_match '^Running mode       = .* exact_search abandon$' "$out" "-v names both"

# 4. its checks
run_ldbench "$out" "${common[@]}" -e abandon,bindeach -f "(uid=user00042)"
assert_eq 2 "$RC" "abandon with bindeach"
assert_match 'abandon and -e bindeach exclude each other' "$out" "abandon with bindeach: why"
run_ldbench "$out" "${common[@]}" -e abandon
assert_eq 2 "$RC" "abandon without -f"
assert_match 'abandon needs a filter' "$out" "abandon without -f: why"
echo "abandon: all passed"
