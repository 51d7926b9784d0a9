#!/usr/bin/env bash
# -e abandon: as ldclt, each operation is a search abandoned at once,
# counted when sent.  The server's cn=Monitor counts one Abandon per operation:
# ldbench's count must equal it, paced (--rate) and unpaced, with several
# threads, with pipelining, with -N, and combined with an exact search in one
# pass.  slapd defers the requests beyond the few it runs at once on a
# connection, closes a connection with more than conn_max_pending of them
# waiting and drops what it still holds when the client unbinds, and nothing
# answers an abandon: so every connection sends a WhoAmI after every 32
# abandons and waits for its answer before it sends more, and a last one before
# its Unbind (cn=Monitor's Extended count pins that pacing in the -T cases).
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

# 4. unpaced (no --rate), several threads: exact, and 2000/32 = 62 syncs and a
# final one per connection (the WhoAmIs in cn=Monitor's Extended)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e abandon,random -r1 -R200 -n 3 -T 2000
assert_eq 0 "$RC" "exit status of an unpaced abandon run"
assert_eq 6000 "$(global_total "$out")" "unpaced total"
assert_eq 6000 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side unpaced abandons"
assert_eq 6000 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side unpaced searches"
assert_eq 189 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "the syncs: 63 WhoAmIs per connection"
assert_match 'abandon: attempted 6000, completed 6000, succeeded 6000, counted 6000, errors 0$' "$out" \
	"unpaced abandon counters"
assert_match 'Connections: opened 3, reconnects 0,' "$out" "no connection closed by the server"

# 5. unpaced and pipelined (-a 8), with --monitor
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=user00042)" -e abandon -a 8 -n 2 -T 2000 --monitor
assert_eq 0 "$RC" "exit status of an unpaced pipelined abandon run"
assert_eq 4000 "$(global_total "$out")" "unpaced pipelined total"
assert_eq 4000 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side unpaced pipelined abandons"
assert_eq 126 "$(fixture_monitor_delta "$FIX_DIR/snap" Extended)" "the pipelined run's syncs"
assert_match 'abandon: attempted 4000, completed 4000, succeeded 4000, counted 4000, errors 0$' "$out" \
	"unpaced pipelined abandon counters"
assert_match 'Server \(cn=Monitor\): abandon completed 4000 \(client: 4000 completed, 0 in flight\): agree$' "$out" \
	"--monitor's abandon line, unpaced"
assert_match 'T000: pendingNb=0$' "$out" "a sync in flight is no pending operation"

# 5b. unpaced, pipelined, a pass of two steps: -T stops at its count exactly
# (a pass under way counts both its steps; it once overshot by a few passes)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=user00042)" -e esearch,abandon,srchnentries=1 -a 8 -n 2 -T 2000
assert_eq 0 "$RC" "exit status of an unpaced pipelined esearch,abandon run"
assert_eq 4000 "$(global_total "$out")" "unpaced pipelined pass total"
assert_eq 2000 "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side abandons of the pipelined pass"
assert_eq 4000 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches of the pipelined pass"

# 6. unpaced until -N: whatever was sent when the run stopped, the server took up
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e abandon,random -r1 -R200 -n 2 -N 2 --interval 500ms
assert_eq 0 "$RC" "exit status of an unpaced -N abandon run"
total=$(global_total "$out")
[[ $total -gt 0 ]] || _fail "the -N run sent no abandon"
assert_eq "$total" "$(fixture_monitor_delta "$FIX_DIR/snap" Abandon)" "server-side abandons of the -N run"
assert_eq "$total" "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches of the -N run"
assert_match "abandon: attempted $total, completed $total, succeeded $total, counted $total, errors 0\$" "$out" \
	"-N abandon counters"

# 7. its checks
run_ldbench "$out" "${common[@]}" -e abandon,bindeach -f "(uid=user00042)"
assert_eq 2 "$RC" "abandon with bindeach"
assert_match 'abandon and -e bindeach exclude each other' "$out" "abandon with bindeach: why"
run_ldbench "$out" "${common[@]}" -e abandon
assert_eq 2 "$RC" "abandon without -f"
assert_match 'abandon needs a filter' "$out" "abandon without -f: why"
echo "abandon: all passed"
