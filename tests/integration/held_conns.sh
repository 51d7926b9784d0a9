#!/usr/bin/env bash
# Held connections (docs/guide.md "Held connections"), against a real slapd:
#  1. -n 5000 --held held 20 s with 200 probes/s: every probe answered, the
#     server's current connections (cn=Monitor) equal to N while it runs,
#     ldbench's maximum resident set under 35 MB, the summary's held line
#     and JSON record (all connected, none lost);
#  2. a server restart in the middle of a held run: every connection lost
#     once and opened again (counted), all N up at the end, probes after it;
#  3. --source-address 127.0.0.2,127.0.0.3: the server sees the connections
#     from both addresses, half each (cn=Monitor's peers);
#  4. bad input: more connections than the descriptor limit, a source
#     address not on this host: one line each, exit 2, no connection.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"

F=${LDBENCH_TIME_FACTOR:-1}
N=5000
if ((F > 1)); then
	N=1000
	echo "(sanitizer build: -n $N, and the resident set is not bounded: the sanitizer's shadow memory)"
fi
hard=$(ulimit -Hn)
if [[ "$hard" != unlimited ]] && ((hard < 2 * N + 200)); then
	echo "SKIP: the hard descriptor limit ($hard) is below what slapd and ldbench need for $N connections"
	exit 77
fi
ulimit -n "$hard" # slapd (started below) and ldbench hold N descriptors each
[[ -x /usr/bin/time ]] || { echo "SKIP: no /usr/bin/time"; exit 77; }

fixture_start --users 1000
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)"
	-e esearch,random -r1 -R1000)

current() { # the server's current connections, the reading one excluded
	echo $(($(_fix_read_attr cn=Current,cn=Connections,cn=Monitor monitorCounter) - 1))
}
wait_current() { # N SECONDS: until the server has N connections (else the last count)
	local want=$1 end=$((SECONDS + $2)) n
	while :; do
		n=$(current)
		if ((n == want || SECONDS >= end)); then
			echo "$n"
			return
		fi
		sleep 0.5
	done
}
summary_field() { # FILE KEY: a number of the summary record's "held" object
	grep '^{"type":"summary"' "$1" | grep -oE "\"held\":\\{[^}]*\\}" | grep -oE "\"$2\":[0-9.]+" | cut -d: -f2
}

echo "=== 1. $N connections held 20 s, 200 probes/s"
/usr/bin/time -v -o "$D/time1.txt" timeout 120 "$LDBENCH" "${common[@]}" -n $N --held --rate 200 \
	--connect-rate 2500/s --warmup 4s --duration 20s --interval 5s --json "$D/held.json" >"$D/held.txt" 2>&1 &
pid=$!
up=$(wait_current $N $((30 * F)))
assert_eq $N "$up" "the server's current connections while held"
set +e
wait $pid
RC=$?
set -e
assert_eq 0 "$RC" "exit status of the held run"
assert_match "^ldbench\[[0-9]+\]: Held connections: $N of $N up at the end, lost 0, re-opened 0; all $N connected [0-9.]+ s after the start$" \
	"$D/held.txt" "the held line"
att=$(grep '^{"type":"summary"' "$D/held.json" | grep -oE '"search":\{"attempted":[0-9]+,"completed":[0-9]+,"succeeded":[0-9]+')
a=$(sed -E 's/.*"attempted":([0-9]+).*/\1/' <<<"$att")
s=$(sed -E 's/.*"succeeded":([0-9]+).*/\1/' <<<"$att")
assert_ge 3000 "$a" "probes in the 20 s measured (200/s)"
assert_le 4400 "$a" "probes in the 20 s measured (200/s)"
assert_eq "$a" "$s" "probes answered with success"
assert_eq $N "$(summary_field "$D/held.json" connections)" "JSON held.connections"
assert_eq $N "$(summary_field "$D/held.json" up)" "JSON held.up"
assert_eq 0 "$(summary_field "$D/held.json" lost)" "JSON held.lost"
[[ -n "$(summary_field "$D/held.json" all_connected_s)" ]] || _fail "JSON held.all_connected_s is not a number"
rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$D/time1.txt")
echo "ldbench's maximum resident set: $rss KiB for $N held connections"
((F > 1)) || assert_le $((35 * 1024)) "$rss" "maximum resident set (KiB)"
# the server opened exactly N connections for the run, its binds with them
assert_match "Connections: opened $N, reconnects 0, binds at connect $N" "$D/held.txt" "connections opened"

echo "=== 2. a server restart while 1000 connections are held"
M=$((1000 / F))
timeout 120 "$LDBENCH" "${common[@]}" -n $M --held --rate 100 --duration $((14 * F))s --interval 1s -E 1000000 \
	--json "$D/restart.json" >"$D/restart.txt" 2>&1 &
pid=$!
assert_eq $M "$(wait_current $M $((20 * F)))" "connections held before the restart"
fixture_restart
assert_eq $M "$(wait_current $M $((20 * F)))" "connections held after the restart"
set +e
wait $pid
RC=$?
set -e
echo "exit status $RC (probes in flight at the restart count as server-down failures)"
assert_eq $M "$(summary_field "$D/restart.json" up)" "JSON held.up after the restart"
assert_eq $M "$(summary_field "$D/restart.json" lost)" "connections lost at the restart"
assert_eq $M "$(summary_field "$D/restart.json" reopened)" "connections re-opened"
assert_match "Held connections: $M of $M up at the end, lost $M, re-opened $M;" "$D/restart.txt" "the held line"
last=$(grep '^{"type":"sample"' "$D/restart.json" | tail -n 1 | grep -oE '^\{"type":"sample","index":[0-9]+,"t":[0-9.]+,"seconds":[0-9.]+,"counted":[0-9]+' | sed -E 's/.*"counted"://')
assert_ge $((50 / F)) "$last" "probes answered in the last second (they resumed)"

echo "=== 3. --source-address 127.0.0.2,127.0.0.3"
timeout 60 "$LDBENCH" "${common[@]}" -n 20 --held --rate 20 --duration 6s \
	--source-address 127.0.0.2,127.0.0.3 >"$D/src.txt" 2>&1 &
pid=$!
assert_eq 20 "$(wait_current 20 $((20 * F)))" "connections from the source addresses"
peers=$(_fix_search -b cn=Connections,cn=Monitor -s one '(objectClass=*)' monitorConnectionPeerAddress)
assert_eq 10 "$(grep -c 'monitorConnectionPeerAddress: IP=127.0.0.2:' <<<"$peers" || true)" "connections from 127.0.0.2"
assert_eq 10 "$(grep -c 'monitorConnectionPeerAddress: IP=127.0.0.3:' <<<"$peers" || true)" "connections from 127.0.0.3"
set +e
wait $pid
RC=$?
set -e
assert_eq 0 "$RC" "exit status with --source-address"

echo "=== 4. bad input: one line, exit 2, no connection"
before=$(fixture_total_connections)
set +e
(
	ulimit -n 1000
	exec timeout 30 "$LDBENCH" "${common[@]}" -n 5000 --held --rate 10 --duration 2s
) >"$D/fd.out" 2>"$D/fd.err"
RC=$?
set -e
assert_eq 2 "$RC" "exit status, -n 5000 --held above a descriptor limit of 1000"
assert_eq 1 "$(wc -l <"$D/fd.err")" "lines on stderr"
assert_match "^ldbench: 5000 connections need about [0-9]+ file descriptors, but the limit is 1000 \(ulimit -n; the hard limit 1000\)$" \
	"$D/fd.err" "the descriptor line"
run_ldbench "$D/src_bad.txt" "${common[@]}" -n 10 --held --source-address 127.0.0.2,192.0.2.7 --duration 2s
assert_eq 2 "$RC" "exit status, a source address not on this host"
assert_eq 1 "$(wc -l <"$D/src_bad.txt")" "lines"
assert_match "^ldbench: --source-address 192\.0\.2\.7: not an address of this host \(Cannot assign requested address\)$" \
	"$D/src_bad.txt" "the source address line"
assert_eq "$before" "$(fixture_total_connections)" "connections opened by the bad invocations (the reads excluded)"
echo "ok: held_conns"
