#!/usr/bin/env bash
# The connection ramp (docs/capacity.md): per sample how many
# clients are connected, how many connections are being opened and how many
# clients have not started; at the end how many never started.  -n 10000 with
# --ramp-up 40s in a 2 s run: only about a twentieth of the clients begin a
# connect, so the count of those that never started is large and known
# within wide bounds, whatever the machine's speed.  Then a run whose ramp
# ends inside it: every client connected, no "never started" line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 1000
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)"
	-e esearch,random -r1 -R1000)

run_ldbench "$D/big.txt" "${common[@]}" -n 10000 --ramp-up 40s --duration 2s --interval 1s --json "$D/big.json"
assert_eq 0 "$RC" "exit status of the -n 10000 run"
assert_match "^ldbench\[[0-9]+\]: Clients: [0-9]+ of 10000 connected, [0-9]+ connections opening, [0-9]+ not started yet$" \
	"$D/big.txt" "the per-sample ramp line"
never=$(sed -nE 's/.*Clients that never started: ([0-9]+) of 10000 .*/\1/p' "$D/big.txt")
[ -n "$never" ] || _fail "no 'Clients that never started' line"
assert_ge 8000 "$never" "clients that never started (2 s of a 40 s ramp)"
assert_le 9990 "$never" "clients that never started"
summary=$(grep '^{"type":"summary"' "$D/big.json" | grep -oE '"client":\{[^}]*\}')
grep -qE "\"clients\":10000,\"clients_connected\":[1-9][0-9]*,\"connections_opening\":[0-9]+,\"clients_not_started\":$never," \
	<<<"$summary" || _fail "summary record's ramp: $summary"
up=$(grep -oE '"clients_connected":[0-9]+' <<<"$summary" | cut -d: -f2)
assert_ge 10 "$up" "clients connected by the end"
# the server saw about as many connections as the clients that started
assert_match "Connections: opened [1-9][0-9]*," "$D/big.txt" "connections opened"

run_ldbench "$D/small.txt" "${common[@]}" -n 50 --ramp-up 500ms --duration 2s --interval 1s --json "$D/small.json"
assert_eq 0 "$RC" "exit status of the ramped -n 50 run"
assert_no_match "Clients that never started" "$D/small.txt" "every client started"
grep -q '"clients":50,"clients_connected":50,"connections_opening":0,"clients_not_started":0,' \
	<(grep '^{"type":"summary"' "$D/small.json") || _fail "the -n 50 summary's ramp"
assert_match "Connections: opened 50," "$D/small.txt" "50 connections"

# --rate-profile: a step from 200/s to 600/s, each sample with its target
run_ldbench "$D/prof.txt" "${common[@]}" -n 8 --rate-profile 200@1s,600@1s --duration 2s --interval 1s \
	--json "$D/prof.json"
assert_eq 0 "$RC" "exit status of a --rate-profile run"
t1=$(grep '^{"type":"sample","index":1,' "$D/prof.json" | grep -oE '"rate":[0-9.]+,"rate_target":[0-9.]+')
t2=$(grep '^{"type":"sample","index":2,' "$D/prof.json" | grep -oE '"rate":[0-9.]+,"rate_target":[0-9.]+')
assert_eq 200.000 "${t1##*:}" "first sample's target"
assert_eq 600.000 "${t2##*:}" "second sample's target"
r1=$(sed -E 's/"rate":([0-9]+).*/\1/' <<<"$t1")
r2=$(sed -E 's/"rate":([0-9]+).*/\1/' <<<"$t2")
assert_le 400 "$r1" "first sample's rate follows its target"
assert_ge 400 "$r2" "second sample's rate follows its target"
assert_match "Target rate: 600.00/sec, achieved" "$D/prof.txt" "the sample's target line"
printf 'format=rate-and-duration\nrepeat=no\n300,1s\n2X,1s\n' >"$D/profile.txt"
run_ldbench "$D/prof2.txt" "${common[@]}" -n 8 --rate-profile "$D/profile.txt" --duration 2s --interval 1s \
	--json "$D/prof2.json"
assert_eq 0 "$RC" "exit status with a variable-rate file"
grep -q '^{"type":"sample","index":2,.*"rate_target":600.000,' "$D/prof2.json" || _fail "the file's 2X step"
run_ldbench "$D/prof3.txt" "${common[@]}" --rate-profile 100@1s --rate 100
assert_eq 2 "$RC" "--rate-profile with --rate"
assert_match "^ldbench: --rate and --rate-profile exclude each other" "$D/prof3.txt" "its message"
echo "ok: ramp"
