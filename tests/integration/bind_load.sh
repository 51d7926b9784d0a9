#!/usr/bin/env bash
# Bind loads: bindeach opens a connection per bind, bindonly without bindeach
# re-binds on the same connection (real traffic, unlike ldclt), random bind DNs
# hit real accounts; the server's bind count matches ldbench's exactly.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 500
out=$FIX_DIR/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT" -b "$FIX_PEOPLE")

# 1. one account, one connection and one bind per operation
fixture_monitor_snapshot "$FIX_DIR/snap"
conns0=$(fixture_total_connections)
run_ldbench "$out" "${srv[@]}" -D "uid=user00002,$FIX_PEOPLE" -w user00002 -e bindeach,bindonly -n 4 -T 50 \
	--json "$FIX_DIR/b.json"
assert_eq 0 "$RC" "exit status, bindeach"
# clear-text bindeach defaults to half the CPUs' I/O threads (at least 1, at most -n)
cpus=$(nproc)
want=$((cpus / 2 < 1 ? 1 : cpus / 2))
want=$((want > 4 ? 4 : want))
assert_eq "$want" "$(grep -oE '"io_threads":[0-9]+' "$FIX_DIR/b.json" | head -n 1 | cut -d: -f2)" \
	"default I/O threads for bindeach on $cpus CPUs"
assert_eq 200 "$(global_total "$out")" "bindeach total"
assert_eq 200 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds"
assert_eq 200 "$(fixture_monitor_delta "$FIX_DIR/snap" Unbind)" "server-side unbinds"
assert_eq 200 "$(( $(fixture_total_connections) - conns0 ))" "server-side connections"
assert_match '^ldbench\[[0-9]+\]: connect latency \(ms\): min ' "$out" "connect stage latency"
assert_match '^ldbench\[[0-9]+\]: cycle latency \(ms\): min ' "$out" "whole cycle latency"
assert_match 'bind: attempted 200, completed 200, succeeded 200, counted 200, errors 0$' "$out" "bind counters"

# 2. with close: no unbind is sent
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${srv[@]}" -D "uid=user00002,$FIX_PEOPLE" -w user00002 -e bindeach,bindonly,close -n 2 -T 20
assert_eq 0 "$RC" "exit status, bindeach close"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds with close"
assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Unbind)" "no unbind with close"

# 3. random accounts over the whole population (same number in -D and -w)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${srv[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
	-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=500 -n 4 -T 100 --no-preflight
assert_eq 0 "$RC" "exit status, random binds"
assert_eq 400 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side random binds"
assert_match 'Global no error occurs during this session\.$' "$out" "every random account bound"

# 4. bindonly without bindeach: binds again on the same connection each time
fixture_monitor_snapshot "$FIX_DIR/snap"
conns0=$(fixture_total_connections)
run_ldbench "$out" "${srv[@]}" -D "uid=user00003,$FIX_PEOPLE" -w user00003 -e bindonly -n 2 -T 100
assert_eq 0 "$RC" "exit status, bindonly"
assert_eq 200 "$(global_total "$out")" "bindonly total"
assert_eq 202 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds (200 + 2 at connect)"
assert_eq 2 "$(( $(fixture_total_connections) - conns0 ))" "two connections only"

# 5. bindeach with searches: connect, bind, search, unbind for each operation
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${srv[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -f "(uid=userXXXXX)" \
	-e esearch,bindeach,random,srchnentries=1 -r1 -R500 -n 2 -T 60 --no-preflight
assert_eq 0 "$RC" "exit status, bindeach search"
assert_eq 120 "$(global_total "$out")" "bindeach search total"
assert_eq 120 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches"
assert_eq 120 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds"
assert_match 'expected-result hits 120, misses 0$' "$out" "bindeach searches find their entry"
assert_no_match "$FIX_ROOTPW" "$out" "password never printed"
echo "bind_load: all passed"
