#!/usr/bin/env bash
# Faults: the server restarts, stops (SIGSTOP), accepts and never answers,
# closes every connection at once, or is not there at all.  A run goes on
# through a restart and its totals equal what cn=Monitor saw; -t bounds every
# operation; -N/-T runs end on time; reconnects back off (no busy loop); -E/-I
# apply to the client-failure codes (ldclt's: -1 server down or a connect that
# fails, -5 timeout, -11 a TLS set-up that fails); -n 10,000 works and descriptor/thread limits get a clear line.
#
# Needs LDBENCH_BLACKHOLE (tests/tools/blackhole.c, set by tests/CMakeLists.txt;
# by default the one next to $LDBENCH in a build tree).  Time bounds scale by
# LDBENCH_TIME_FACTOR (sanitizer builds).  A sub-check that cannot run here
# (a descriptor limit too low for -n 10000, no root for the thread limit, a
# restart the run did not live through) is named, the others still run, and
# the test then exits 77 (ctest: skipped), never a pass.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"

F=${LDBENCH_TIME_FACTOR:-1}
. "$here/../fixture/blackhole.sh" faults
trap blackhole_cleanup EXIT # set before fixture_start: the fixture's trap runs it after its own
SKIPS=0 SKIPPED=()
skip() { echo "SKIP: $*"; SKIPS=$((SKIPS + 1)); SKIPPED+=("$*"); }

# The last sections check everything and fail at the end, so that one known
# problem does not hide the next.
SOFT_FAILS=0
soft_le() { # max actual what
	if [ "$2" -le "$1" ]; then echo "ok: $3 = $2 (<= $1)"; else echo "FAIL: $3: expected <= $1, got $2" >&2; SOFT_FAILS=$((SOFT_FAILS + 1)); fi
}
soft_match() { # regex file what
	if grep -Eq -- "$1" "$2"; then echo "ok: $3"; else
		head -n 20 "$2" | sed 's/^/    | /' >&2
		echo "FAIL: $3: no line matches /$1/" >&2
		SOFT_FAILS=$((SOFT_FAILS + 1))
	fi
}

# run_timed OUT ARGS...: like run_ldbench, also sets WALL_MS and CPU_MS (user+sys)
run_timed() {
	local out=$1 t0 tf=$WORK/time.txt
	shift
	t0=$(now_ms)
	set +e
	{
		TIMEFORMAT='%3U %3S'
		time timeout 120 "$LDBENCH" "$@" >"$out" 2>&1
	} 2>"$tf"
	RC=$?
	set -e
	WALL_MS=$(($(now_ms) - t0))
	CPU_MS=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$tf")
	echo "ran: ldbench $* -> exit $RC in $WALL_MS ms, cpu $CPU_MS ms"
}

# Figures from a run's output.
samples() { sed -nE 's/^ldbench\[[0-9]+\]: Average rate: .*total: *([0-9]+)$/\1/p' "$1"; }
gerr() { # FILE CODE: "Global error CODE (...) occurs N times" -> N (0 if absent)
	local n
	n=$(sed -nE "s/^ldbench\[[0-9]+\]: Global error $2 \(.*\) occurs +([0-9]+) times$/\1/p" "$1" | tail -n 1)
	echo "${n:-0}"
}
# the number a sed expression takes from the last matching summary line; fails when there is none
summary_number() { # FILE SED-EXPRESSION WHAT
	local n
	n=$(sed -nE "$2" "$1" | tail -n 1)
	[ -n "$n" ] || { cat "$1" >&2; _fail "no '$3' line"; }
	echo "$n"
}
fails() { # FILE KIND (connect timeout down)
	case $2 in
	connect) summary_number "$1" 's/.*Client failures: connect ([0-9]+),.*/\1/p' "Client failures" ;;
	timeout) summary_number "$1" 's/.*Client failures: .*timeout ([0-9]+),.*/\1/p' "Client failures" ;;
	down) summary_number "$1" 's/.*Client failures: .*server down ([0-9]+)$/\1/p' "Client failures" ;;
	esac
}
conn_field() { # FILE opened|reconnects|binds
	case $2 in
	opened) summary_number "$1" 's/.*Connections: opened ([0-9]+),.*/\1/p' "Connections" ;;
	reconnects) summary_number "$1" 's/.*Connections: .*reconnects ([0-9]+),.*/\1/p' "Connections" ;;
	binds) summary_number "$1" 's/.*Connections: .*binds at connect ([0-9]+)$/\1/p' "Connections" ;;
	esac
}
search_field() { # FILE attempted|completed|counted|errors
	summary_number "$1" "s/.*search: .*\\b$2 ([0-9]+).*/\\1/p" "search counter with '$2'"
}

fixture_start --users 1000
out=$WORK/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")
load=(-f "(uid=userXXXXX)" -e esearch,random,sampinterval=1 -r1 -R1000 --no-preflight)

# FAULTS_PART (set by tests/CMakeLists.txt in the sanitizer builds) runs one
# half: "restarts" (1 to 4, the fixture's slapd) or "listeners" (5 to 11, the
# blackhole listeners, no server, the limits); the normal build runs both.
part() { [[ -z "${FAULTS_PART:-}" || "$FAULTS_PART" == "$1" ]]; }
if part restarts; then
echo "=== 1. restart with the client frozen across it: exact totals"
fixture_monitor_snapshot "$WORK/snap0"
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -N 6 -I -1 -I -11 >"$out" 2>&1 &
LP=$!
t0=$(now_ms)
sleep 2
kill -STOP "$LP"
sleep 0.3 # every request ldbench wrote has been answered by now
pre_s=$(fixture_monitor_delta "$WORK/snap0" Search)
pre_b=$(fixture_monitor_delta "$WORK/snap0" Bind)
fixture_restart
fixture_monitor_snapshot "$WORK/snap1"
kill -CONT "$LP"
t_cont=$(now_ms)
set +e
wait "$LP"
RC=$?
set -e
LP=
t_end=$(now_ms)
wall=$((t_end - t0))
# what was left of the 6 s when the client resumed (the restart's own time,
# slow on a loaded machine, is not the client's), plus 3 s of grace
left=$((6000 - (t_cont - t0)))
((left > 0)) || left=0
post_s=$(fixture_monitor_delta "$WORK/snap1" Search)
post_b=$(fixture_monitor_delta "$WORK/snap1" Bind)
echo "server: searches $pre_s before the restart, $post_s after; binds $pre_b + $post_b"
assert_eq 0 "$RC" "exit status through a restart"
assert_le $(((left + 3000) * F)) "$((t_end - t_cont))" "run time (ms) of -N 6 after the client resumed (whole run: $wall ms)"
assert_ge 1 "$pre_s" "searches before the restart"
assert_ge 1 "$post_s" "searches after the restart"
# A -N run ends with up to one request in flight per connection: the server may
# or may not have completed those; every other request is counted on both sides.
# (Requests written on a connection the server had already closed fail as
# "server down" without reaching it.)
comp=$(search_field "$out" completed) att=$(search_field "$out" attempted)
down=$(fails "$out" down) tmo=$(fails "$out" timeout)
inflight=$((att - comp - down - tmo))
assert_ge 0 "$inflight" "requests in flight when the -N run ended"
assert_le 4 "$inflight" "requests in flight when the -N run ended"
assert_ge "$comp" $((pre_s + post_s)) "cn=Monitor searches before + after >= ldbench's completed"
assert_le $((comp + inflight)) $((pre_s + post_s)) "cn=Monitor searches before + after <= completed + in flight"
assert_eq "$comp" "$(global_total "$out")" "Global average rate total = completed searches"
assert_eq $((pre_b + post_b)) "$(conn_field "$out" binds)" "binds at connect = cn=Monitor binds before + after"
assert_ge 4 "$(conn_field "$out" reconnects)" "reconnects (each of 4 connections)"
assert_eq 6 "$(samples "$out" | wc -l)" "sample lines"

echo "=== 1b. the same with -T (about 5 s of work): exact totals"
# operations per thread for about 5 s at the rate just measured
T=$((comp * 5 / 6 / 4))
((T >= 100)) || T=100
fixture_monitor_snapshot "$WORK/snap0"
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -T "$T" -I -1 -I -11 >"$out" 2>&1 &
LP=$!
sleep 1.5
if kill -STOP "$LP" 2>/dev/null; then
	sleep 0.3
	pre_s=$(fixture_monitor_delta "$WORK/snap0" Search)
	fixture_restart
	fixture_monitor_snapshot "$WORK/snap1"
	kill -CONT "$LP"
	set +e
	wait "$LP"
	RC=$?
	set -e
	LP=
	post_s=$(fixture_monitor_delta "$WORK/snap1" Search)
	echo "server: searches $pre_s before the restart, $post_s after"
	assert_eq 0 "$RC" "exit status of -T $T through a restart"
	assert_ge 1 "$post_s" "searches after the restart"
	assert_eq $((4 * T)) "$(global_total "$out")" "Global average rate total = 4 x -T"
	assert_eq $((pre_s + post_s)) "$(search_field "$out" completed)" "ldbench's completed searches = cn=Monitor before + after"
	assert_ge 4 "$(conn_field "$out" reconnects)" "reconnects (each of 4 connections)"
else
	wait "$LP" || true
	LP=
	skip "-T $T ended before the restart (the machine got much faster)"
fi

echo "=== 2. live restart (server stopped 1 s, then restarted): dip, recovery, failures, -E/-I"
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -N 6 -E 1 -I -1 -I -11 >"$out" 2>&1 &
LP=$!
t0=$(now_ms)
sleep 2
fixture_pause
sleep 1
fixture_restart
t_back=$(now_ms)
fixture_monitor_snapshot "$WORK/snap2"
resumed=
# the back-off is at most 1.25 s (1 s, jitter +25 %); the window leaves room for
# a loaded machine's restart and cn=Monitor reads (2 s was seen to miss there)
while (($(now_ms) - t_back < 3000 * F)); do
	if (($(fixture_monitor_delta "$WORK/snap2" Search) > 0)); then
		resumed=$(($(now_ms) - t_back))
		break
	fi
	sleep 0.1
done
set +e
wait "$LP"
RC=$?
set -e
LP=
wall=$(($(now_ms) - t0))
[ -n "$resumed" ] || { cat "$out" >&2; _fail "no search reached the server within $((3 * F)) s of its return"; }
echo "ok: searches resumed $resumed ms after the server's return"
assert_eq 0 "$RC" "exit status with -E 1 -I -1 -I -11 through a restart"
assert_le $(((6000 + 3000) * F)) "$wall" "run time (ms)"
assert_no_match 'Max error limit' "$out" "ignored client failures never stop the run"
mapfile -t s < <(samples "$out")
assert_eq 6 "${#s[@]}" "sample lines"
max=0 min=
for v in "${s[@]}"; do
	if ((v > max)); then max=$v; fi
	if [ -z "$min" ] || ((v < min)); then min=$v; fi
done
echo "samples: ${s[*]}"
assert_ge 1 "$max" "best sample"
assert_le $((max / 2)) "$min" "the dip: worst sample <= half the best"
# (20 %: a slapd just restarted, cold, under a sanitizer build, was seen at 26 % in its first full second)
assert_ge $((max * 2 / 10)) "${s[5]}" "recovery: last sample >= 20 % of the best"
down=$(fails "$out" down) conn=$(fails "$out" connect) tmo=$(fails "$out" timeout)
assert_ge 1 $((down + conn)) "server-down + connect failures counted"
# ldclt's codes: a refused connect is -1 too (server down); -11 only for TLS
assert_eq $((down + conn)) "$(gerr "$out" -1)" "server-down and connect failures = Global error -1"
assert_eq 0 "$(gerr "$out" -11)" "no Global error -11 without TLS"
assert_eq "$tmo" "$(gerr "$out" -5)" "timeouts = Global error -5"
att=$(search_field "$out" attempted) comp=$(search_field "$out" completed)
lost=$((att - comp - down - tmo))
# in flight when the run ended: at most one per connection, never negative
assert_ge 0 "$lost" "attempted - completed - failed"
assert_le 4 "$lost" "attempted - completed - failed"
assert_ge 4 "$(conn_field "$out" reconnects)" "reconnects counted"
assert_match 'Exit status 0 - No problem during execution\.$' "$out" "exit line 0"

echo "=== 3. the same restart without -I: -E 1 stops the run on the client failures"
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -N 5 -E 1 >"$out" 2>&1 &
LP=$!
t0=$(now_ms)
sleep 1
fixture_restart
set +e
wait "$LP"
RC=$?
set -e
LP=
wall=$(($(now_ms) - t0))
assert_eq 3 "$RC" "exit status: max errors reached on -1/-11"
assert_match 'Max error limit reached - exiting\.$' "$out" "max errors line"
assert_match 'Global error (-1|-11) \(' "$out" "client failures tallied by code"
assert_le $((4000 * F)) "$wall" "stopped early (ms)"

echo "=== 4. server SIGSTOPped for 2 s under -t 1: timeouts counted, run ends on time"
fixture_monitor_snapshot "$WORK/snap3"
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -N 5 -t 1 >"$out" 2>&1 &
LP=$!
t0=$(now_ms)
sleep 1
fixture_pause
sleep 2
fixture_resume
set +e
wait "$LP"
RC=$?
set -e
LP=
wall=$(($(now_ms) - t0))
assert_eq 0 "$RC" "exit status (timeouts below -E)"
assert_le $(((5000 + 2000) * F)) "$wall" "run time (ms) of -N 5"
tmo=$(fails "$out" timeout)
assert_ge 4 "$tmo" "timeouts (one per connection at least)"
# each connection: a timeout after >= 1 s, then a new one (connect + bind) that
# times out again 1 s later: about 2 per connection in 2 s
assert_le $((4 * 4)) "$tmo" "timeouts (no more than 4 per connection in 2 s)"
assert_eq "$tmo" "$(gerr "$out" -5)" "timeouts = Global error -5"
mapfile -t s < <(samples "$out")
echo "samples: ${s[*]}"
assert_ge 1 "${s[${#s[@]} - 1]}" "searches again in the last sample"
assert_le $((4 + 4 * 5 * 2)) "$(conn_field "$out" opened)" "connections opened (back-off while stopped)"

fi
if part listeners; then
echo "=== 5. a listener that accepts and never answers"
start_blackhole silent
silent_port=$BH_PORT silent_pid=$BH_PID
bh=(-h 127.0.0.1 -p "$silent_port" -b "$FIX_PEOPLE" -f "(uid=x)")
run_timed "$out" "${bh[@]}" -D "$FIX_ROOTDN" -w secret -e esearch,sampinterval=1 -n 4 -t 1 -N 3
assert_eq 0 "$RC" "exit status, -N 3 -t 1 against silence"
assert_le $(((3000 + 2000) * F)) "$WALL_MS" "run time (ms)"
tmo=$(fails "$out" timeout)
assert_ge 4 "$tmo" "timeouts of the opening binds"
assert_le $((4 * 4)) "$tmo" "timeouts (at most one per connection and second)"
assert_eq "$tmo" "$(gerr "$out" -5)" "timeouts = Global error -5"
assert_le $((500 * F)) "$CPU_MS" "CPU time (ms)"
run_timed "$out" "${bh[@]}" -e esearch,sampinterval=1 -n 4 -N 2
assert_eq 0 "$RC" "exit status, -N 2 with the default -t against silence"
assert_le $(((2000 + 2000) * F)) "$WALL_MS" "run time (ms) with the default timeout"
run_timed "$out" "${bh[@]}" -e esearch -n 2 -T 5 -t 1 -E 3
assert_eq 3 "$RC" "exit status, -T 5 -t 1 -E 3 against silence"
assert_match 'Max error limit reached - exiting\.$' "$out" "max errors line"
assert_ge 4 "$(gerr "$out" -5)" "timeouts counted up to the limit"
assert_le $((6000 * F)) "$WALL_MS" "run time (ms) of a -T run that gets no answer"
run_timed "$out" "${bh[@]}" -e esearch,sampinterval=1 -n 2 -T 5 -t 1 -I -5 -N 3
assert_eq 0 "$RC" "exit status, -T 5 -I -5 -N 3 against silence"
assert_le $(((3000 + 2000) * F)) "$WALL_MS" "run time (ms) of -T with -N"

echo "=== 6. a listener that closes every connection at once"
start_blackhole close
close_port=$BH_PORT
bh=(-h 127.0.0.1 -p "$close_port" -b "$FIX_PEOPLE" -f "(uid=x)")
for mode in bind; do # without a bind: section 11
	cred=(-D "$FIX_ROOTDN" -w secret)
	run_timed "$out" "${bh[@]}" "${cred[@]}" -e esearch,sampinterval=1 -n 4 -N 3 -I -1 -I -11
	assert_eq 0 "$RC" "exit status ($mode), -I -1 -I -11"
	assert_le $(((3000 + 2000) * F)) "$WALL_MS" "run time (ms, $mode)"
	down=$(fails "$out" down) conn=$(fails "$out" connect)
	assert_ge 4 $((down + conn)) "server-down + connect failures ($mode)"
	assert_eq $((down + conn)) "$(gerr "$out" -1)" "server-down and connect failures = Global error -1 ($mode)"
	attempts=$(($(conn_field "$out" opened) + conn))
	# capped back-off: a few attempts per second and client, not a busy loop
	assert_le $((4 + 4 * 5 * 3)) "$attempts" "connection attempts in 3 s, 4 clients ($mode)"
	assert_le $((500 * F)) "$CPU_MS" "CPU time (ms, $mode)"
done
run_timed "$out" "${bh[@]}" -D "$FIX_ROOTDN" -w secret -e esearch -n 2 -N 5 -E 3
assert_eq 3 "$RC" "exit status with -E 3 and no -I"
assert_match 'Max error limit reached - exiting\.$' "$out" "max errors line on -1"

echo "=== 7. no server at all: bounded reconnect attempts, little CPU"
fixture_port=$FIX_PORT
dead_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
	echo $((fixture_port + 1)))
run_timed "$out" -h 127.0.0.1 -p "$dead_port" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 -n 20 -N 3 -I -11 -I -1
assert_eq 0 "$RC" "exit status with -I -11 -I -1 and no server"
assert_le $(((3000 + 2000) * F)) "$WALL_MS" "run time (ms)"
n11=$(gerr "$out" -1)
assert_ge 40 "$n11" "connect attempts (-1, as ldclt) of 20 clients in 3 s (they keep trying)"
assert_le $((20 * 5 * 3)) "$n11" "connect attempts (-1): at most 5 per client and second"
assert_le $((500 * F)) "$CPU_MS" "CPU time (ms) while the server is down"

echo "=== 8. -n 10000 over a few I/O threads"
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && ((hard < 10100)); then
	skip "-n 10000: the hard descriptor limit is $hard"
else
	n=10000
	if ((F > 1)); then n=2000; echo "(sanitizer build: -n $n)"; fi
	run_timed "$out" -h 127.0.0.1 -p "$silent_port" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 -n $n -N 2
	assert_eq 0 "$RC" "exit status, -n $n"
	assert_eq $n "$(conn_field "$out" opened)" "connections opened"
	soft_le $(((2000 + 8000) * F)) "$WALL_MS" "run time (ms), -n $n (-N 2 must end on time)"
fi
run_ldbench "$out" -h 127.0.0.1 -p "$silent_port" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch -n 10001 -N 1
assert_eq 2 "$RC" "exit status, -n 10001"

echo "=== 9. not enough threads: one clear line"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "thread limit: needs root and setpriv (RLIMIT_NPROC is enforced for another user only)"
else
	chmod 755 "$WORK"
	set +e
	setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c 'ulimit -u 6; exec timeout 60 "$@"' _ \
		"$LDBENCH" -h 127.0.0.1 -p "$silent_port" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch -n 50 --io-threads 50 \
		-N 2 >"$WORK/threads.txt" 2>&1
	RC=$?
	set -e
	echo "ran: (as nobody, ulimit -u 6) ldbench -n 50 --io-threads 50 -> exit $RC"
	if grep -q 'Permission denied\|cannot execute' "$WORK/threads.txt"; then
		skip "thread limit: nobody cannot run $LDBENCH"
	else
		assert_match 'cannot start I/O thread [0-9]+ of 50' "$WORK/threads.txt" "a line naming the thread that failed"
		[ "$RC" -ne 0 ] || _fail "exit status 0 although threads could not start"
		echo "ok: exit status $RC"
	fi
fi

echo "=== 10. not enough descriptors: one clear line"
set +e
(
	ulimit -n 256
	timeout 60 "$LDBENCH" -h 127.0.0.1 -p "$silent_port" -b "$FIX_PEOPLE" -f "(uid=x)" -e esearch,sampinterval=1 \
		-n 1000 -N 2 >"$out" 2>&1
)
RC=$?
set -e
echo "ran: (ulimit -n 256) ldbench -n 1000 -> exit $RC"
soft_match '(descriptor|open files|ulimit -n|RLIMIT_NOFILE|NOFILE)' "$out" "a line naming the descriptor limit"
soft_le 20 "$(grep -c 'Cannot connect' "$out" || true)" "no flood of 'Cannot connect' lines for EMFILE"

echo "=== 11. a listener that closes every connection at once, no bind"
# The TCP connect succeeds every time, so the back-off must not start again
# from its minimum on connect alone (nothing ever worked on the connection).
run_timed "$out" "${bh[@]}" -e esearch,sampinterval=1 -n 4 -N 3 -I -1 -I -11
assert_eq 0 "$RC" "exit status (no bind), -I -1 -I -11"
assert_le $(((3000 + 2000) * F)) "$WALL_MS" "run time (ms, no bind)"
down=$(fails "$out" down) conn=$(fails "$out" connect)
assert_ge 4 $((down + conn)) "server-down + connect failures (no bind)"
assert_eq $((down + conn)) "$(gerr "$out" -1)" "server-down and connect failures = Global error -1 (no bind)"
assert_le $((500 * F)) "$CPU_MS" "CPU time (ms, no bind)"
soft_le $((4 + 4 * 5 * 3)) $(($(conn_field "$out" opened) + conn)) "connection attempts in 3 s, 4 clients (no bind)"

stop_blackhole "$silent_pid"
fi
((SOFT_FAILS == 0)) || _fail "$SOFT_FAILS check(s) failed above"
if ((SKIPS > 0)); then
	echo "faults: SKIPPED: $SKIPS sub-check(s) could not run (the others passed):"
	printf '  %s\n' "${SKIPPED[@]}"
	exit 77
fi
echo "faults: all passed${FAULTS_PART:+ (the $FAULTS_PART half)}"
