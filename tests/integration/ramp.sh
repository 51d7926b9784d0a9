#!/usr/bin/env bash
# The connection ramp (issue 13, docs/capacity.md): per sample how many
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
assert_ge 8500 "$never" "clients that never started (2 s of a 40 s ramp)"
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
echo "ok: ramp"
