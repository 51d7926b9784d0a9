#!/usr/bin/env bash
# Signals: SIGINT and SIGTERM end a run within a second, whatever the server
# does (answers, never answers, is stopped), print the summary and exit with
# ldclt's status (0 when nothing went wrong); the counts stay consistent with
# cn=Monitor.  SIGPIPE (sent, from a closed socket or a closed stdout) never
# kills a run.
#
# ldbench is started with SIGINT/SIGTERM/SIGPIPE at their default actions (as
# from a terminal), since a background job of a script inherits SIGINT ignored.
# Needs LDBENCH_BLACKHOLE (see faults.sh).  Time bounds scale by
# LDBENCH_TIME_FACTOR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"

F=${LDBENCH_TIME_FACTOR:-1}
. "$here/../fixture/blackhole.sh" signals
trap blackhole_cleanup EXIT

# start OUT ARGS...: ldbench in the background with default signal actions
start() {
	local out=$1
	shift
	env --default-signal=INT,TERM,PIPE "$LDBENCH" "$@" >"$out" 2>&1 &
	LP=$!
	local shown="$*"
	[ -z "${FIX_ROOTPW:-}" ] || shown=${shown//$FIX_ROOTPW/***}
	echo "started: ldbench $shown (pid $LP)"
}
# stop_with SIG: send it, wait; sets RC and MS (from the signal to the exit)
stop_with() {
	local t0
	kill -0 "$LP" 2>/dev/null || _fail "ldbench ended before SIG$1 was sent"
	t0=$(now_ms)
	kill -"$1" "$LP"
	set +e
	wait "$LP"
	RC=$?
	set -e
	MS=$(($(now_ms) - t0))
	LP=
	echo "SIG$1 -> exit $RC after $MS ms"
}
search_field() { # FILE FIELD
	local n
	n=$(sed -nE "s/.*search: .*\\b$2 ([0-9]+).*/\\1/p" "$1" | tail -n 1)
	[ -n "$n" ] || { cat "$1" >&2; _fail "no search counter line with '$2'"; }
	echo "$n"
}
summary_checks() { # FILE what
	assert_match '^ldbench\[[0-9]+\]: Global average rate: .*total: +[0-9]+$' "$1" "summary printed ($2)"
	assert_match '^ldbench\[[0-9]+\]: Exit status 0 - No problem during execution\.$' "$1" "exit line 0 ($2)"
	assert_no_match 'nan' "$1" "no nan ($2)"
}

fixture_start --users 1000
out=$WORK/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")
load=(-f "(uid=userXXXXX)" -e esearch,random,sampinterval=1 -r1 -R1000 --no-preflight)

for sig in INT TERM; do
	echo "=== SIG$sig under load: within a second, summary, status 0, counts agree with cn=Monitor"
	fixture_monitor_snapshot "$WORK/snap"
	start "$out" "${srv[@]}" "${load[@]}" -n 4 -a 2 -N 100
	sleep 2.5
	stop_with "$sig"
	assert_eq 0 "$RC" "exit status after SIG$sig"
	assert_le $((1000 * F)) "$MS" "ms from SIG$sig to exit"
	summary_checks "$out" "SIG$sig"
	if [ "$sig" = INT ]; then
		assert_match '^Catch SIGINT - exit\.\.\.$' "$out" "ldclt's SIGINT line"
	fi
	comp=$(search_field "$out" completed) att=$(search_field "$out" attempted)
	server=$(fixture_monitor_delta "$WORK/snap" Search)
	echo "server searches $server, ldbench attempted $att, completed $comp"
	assert_ge 1 "$comp" "searches completed before SIG$sig"
	# requests in flight at the signal (at most 4 x 2) may or may not have been served
	assert_ge "$comp" "$server" "cn=Monitor searches >= completed"
	assert_le "$att" "$server" "cn=Monitor searches <= attempted"
	assert_le 8 $((att - comp)) "requests in flight at the signal"
	assert_eq "$comp" "$(global_total "$out")" "Global average rate total = completed"
done

echo "=== SIGINT again and again during the shutdown: the summary is never lost"
# ldclt always prints its summary and Exit line; further signals while the run
# stops, joins and prints must not kill it (they used to once the signal mask
# was given back before the summary).
for round in 1 2 3; do
	start "$out" "${srv[@]}" "${load[@]}" -n 4 -N 100
	sleep 1.5
	kill -0 "$LP" 2>/dev/null || _fail "ldbench ended before the first SIGINT"
	# as fast as the shell can: the first one stops the run, the others land
	# while it joins, prints and exits (until the process is gone)
	for ((k = 0; k < 200000; k++)); do
		kill -INT "$LP" 2>/dev/null || break
	done
	set +e
	wait "$LP"
	RC=$?
	set -e
	LP=
	echo "round $round: $k SIGINTs sent -> exit $RC"
	assert_eq 0 "$RC" "exit status after repeated SIGINTs (round $round)"
	summary_checks "$out" "repeated SIGINTs, round $round"
	assert_match '^Catch SIGINT - exit\.\.\.$' "$out" "ldclt's SIGINT line (round $round)"
done

echo "=== SIGINT while the server never answers (a bind and a search pending)"
start_blackhole silent
for extra in "" "bindeach"; do
	e=esearch,sampinterval=1
	[ -n "$extra" ] && e=$e,$extra
	start "$out" -h 127.0.0.1 -p "$BH_PORT" -D "$FIX_ROOTDN" -w secret -b "$FIX_PEOPLE" -f "(uid=x)" -e "$e" -n 4 -N 100
	sleep 1.5
	stop_with INT
	assert_eq 0 "$RC" "exit status after SIGINT (${extra:-persistent})"
	assert_le $((1000 * F)) "$MS" "ms from SIGINT to exit (${extra:-persistent})"
	summary_checks "$out" "silent server, ${extra:-persistent}"
done
start "$out" -h 127.0.0.1 -p "$BH_PORT" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 -n 500 -N 100
sleep 2
stop_with TERM
assert_eq 0 "$RC" "exit status after SIGTERM, 500 clients waiting"
assert_le $((1000 * F)) "$MS" "ms from SIGTERM to exit, 500 clients waiting"

echo "=== SIGINT while the server is stopped (SIGSTOP)"
start "$out" "${srv[@]}" "${load[@]}" -n 4 -N 100
sleep 1
fixture_pause
sleep 1
stop_with INT
fixture_resume
assert_eq 0 "$RC" "exit status after SIGINT with the server stopped"
assert_le $((1000 * F)) "$MS" "ms from SIGINT to exit with the server stopped"
summary_checks "$out" "stopped server"

echo "=== SIGINT during the back-off (no server)"
fixture_stop
start "$out" -h 127.0.0.1 -p "${FIX_PORT}" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 -n 4 -N 100 -I -1
sleep 2
stop_with INT
assert_eq 0 "$RC" "exit status after SIGINT, -I -1 (a refused connect, as ldclt) and no server"
assert_le $((1000 * F)) "$MS" "ms from SIGINT to exit during the back-off"

echo "=== SIGPIPE: sent to the process, from sockets closed under it, from a closed stdout"
start_blackhole close
start "$out" -h 127.0.0.1 -p "$BH_PORT" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 -n 4 -a 8 -N 3 -I -1 -I -11
sleep 1
kill -PIPE "$LP"
sleep 0.2
kill -0 "$LP" 2>/dev/null || { cat "$out" >&2; _fail "ldbench died of a SIGPIPE sent to it"; }
echo "ok: alive after kill -PIPE"
set +e
wait "$LP"
RC=$?
set -e
LP=
assert_eq 0 "$RC" "exit status after SIGPIPE and broken connections"
summary_checks "$out" "SIGPIPE"
# stdout is a pipe whose reader is gone before ldbench writes its first line
set +e
env --default-signal=PIPE "$LDBENCH" -h 127.0.0.1 -p "$BH_PORT" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 \
	-n 2 -N 2 -I -1 -I -11 2>"$WORK/err.txt" | (exec 0<&-; sleep 3)
rc=${PIPESTATUS[0]}
set -e
echo "ran: ldbench | (reader closed) -> exit $rc"
[ "$rc" -ne $((128 + 13)) ] || _fail "ldbench was killed by SIGPIPE writing to a closed stdout"
echo "ok: not killed by SIGPIPE on stdout (exit $rc)"
echo "signals: all passed"
