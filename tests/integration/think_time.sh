#!/usr/bin/env bash
# --think-time against a real slapd: N clients, each starting an operation
# (here a login flow, then plain searches) once per think time T, for a fixed
# duration D, complete about N*D/T of them (a generous bound: 75 % to 110 %,
# the run's first and last moments aside; exponential draws, fixed by --seed,
# 60 % to 140 %: no timing window is asserted), and
# slapd's Search and Bind counters (cn=Monitor) equal ldbench's own counts.
# The three distributions run: constant, uniform, exponential.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 50
out=$FIX_DIR/out.txt
people="ou=People,$FIX_BASE"
base=(-h 127.0.0.1 -p "$FIX_PORT" --no-preflight -b "$people" -f '(uid=user[1-50%00000])' -n 4 --duration 4s
	--seed 7)
count() { sed -nE "s/^ldbench\\[[0-9]+\\]: $1: attempted [0-9]+, completed ([0-9]+),.*/\\1/p" "$out"; }

for dist in 200ms uniform:100ms-300ms exponential:200ms; do
	fixture_monitor_snapshot "$FIX_DIR/mon"
	run_ldbench "$out" "${base[@]}" --login --login-password-attr uid --think-time "$dist"
	assert_eq 0 "$RC" "exit status, logins with --think-time $dist"
	flows=$(count login)
	# 4 clients x 4 s / 0.2 s = 80 flows
	lo=60 hi=88
	[[ $dist != exponential:* ]] || lo=48 hi=112
	assert_ge "$lo" "$flows" "--think-time $dist: at least $lo of 80 flows"
	assert_le "$hi" "$flows" "--think-time $dist: at most $hi of 80 flows"
	assert_eq "$(count search)" "$(fixture_monitor_delta "$FIX_DIR/mon" Search)" "slapd's searches = ldbench's"
	assert_eq "$(count bind)" "$(fixture_monitor_delta "$FIX_DIR/mon" Bind)" "slapd's binds = ldbench's"
	assert_match 'Target rate: 20\.00/sec' "$out" "the think time's rate: 4 clients / 0.2 s"
done

fixture_monitor_snapshot "$FIX_DIR/mon"
run_ldbench "$out" "${base[@]}" -e esearch --think-time 0.1s
assert_eq 0 "$RC" "exit status, searches with --think-time 0.1s"
n=$(count search)
assert_ge 120 "$n" "searches: at least 75 % of 160"
assert_le 176 "$n" "searches: at most 110 % of 160"
assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/mon" Search)" "slapd's searches = ldbench's"
