#!/usr/bin/env bash
# The client tells on itself (docs/capacity.md):
#  1. one I/O thread with deep pipelines against a server faster than any
#     client (tests/tools/ldapproxy --answer) is reported as the limit, in the
#     samples, the summary and the JSON;
#  2. a server slowed on purpose (ldapproxy --delay-ms in front of the
#     fixture slapd) with an idle client is never reported as a client limit;
#  3. a client held to a tenth of a CPU by a cgroup v1 CPU quota is reported
#     as the limit (where /sys/fs/cgroup/cpu is not writable, 1 and 2 still
#     run, then the test exits 77, skipped, with the reason).  It runs against the answering stand-in: against slapd on
#     this loaded 2-core machine the server may need the CPU first, and the
#     client then uses less than its tenth.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/ldapproxy.sh"
CG=""
sat_cleanup() {
	proxy_stop_all
	if [ -n "$CG" ] && [ -d "$CG" ]; then rmdir "$CG" 2>/dev/null || true; fi
}
trap sat_cleanup EXIT
fixture_start --users 1000
D=$FIX_DIR
LIMITED='The client limited this run'

search=(-f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 --no-preflight) # the stand-in holds no entries

# 1. the client is the limit: one I/O thread, 8 x 64 in flight, a server that
# answers at once
start_proxy --answer
FAST_PORT=$PX_PORT
# On a loaded machine (the stand-in descheduled) the thread may wait on it
# for a while: up to three tries for a run whose summary says busy.
for try in 1 2 3; do
	rm -f "$D/fast.json"
	run_ldbench "$D/fast.txt" -h 127.0.0.1 -p "$PX_PORT" -b "$FIX_PEOPLE" "${search[@]}" -n 8 --io-threads 1 -a 64 \
		--duration 3s --interval 1s --json "$D/fast.json"
	assert_eq 0 "$RC" "exit status against the answering stand-in"
	grep '^{"type":"summary"' "$D/fast.json" | grep -q '"limited":true,"limit":"busy"' && break
	echo "try $try: the summary did not say busy; again"
done
assert_match "Average rate: " "$D/fast.txt" "samples"
assert_match "^ldbench\[[0-9]+\]: $LIMITED: I/O thread 0 was busy [0-9]+% of the time" "$D/fast.txt" \
	"the saturation line names the busy I/O thread"
assert_match "use --io-threads \(now 1\) or more client hosts|free the client host's CPUs" "$D/fast.txt" "the remedy"
summary=$(grep '^{"type":"summary"' "$D/fast.json" | grep -oE '"client":\{[^}]*\}')
grep -q '"client":{"io_threads":1,' <<<"$summary" || _fail "summary record without its client figures"
grep -q '"limited":true,"limit":"busy"' <<<"$summary" || _fail "summary record does not flag the client: $summary"
grep -q '^{"type":"sample".*"limited":true' "$D/fast.json" || _fail "no sample record flags the client"
echo "ok: one I/O thread with deep pipelines is reported as the limit"

# 2. a slow server (every answer held 30 ms) and an idle client: 8 clients at
# 100/s need 3 in flight; never the saturation line.  On a loaded machine a
# sample may still be late for other reasons: up to three tries.
start_proxy --delay-ms 30 --upstream "$FIX_PORT"
slow_ok=0
for try in 1 2 3; do
	run_ldbench "$D/slow.txt" -h 127.0.0.1 -p "$PX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" \
		"${search[@]}" -n 8 --rate 100 --warmup 1s --duration 3s --interval 1s --json "$D/slow.json"
	assert_eq 0 "$RC" "exit status through the delaying proxy"
	# the server was slow: p50 at least the proxy's 30 ms
	p50=$(sed -nE 's/.*search uncorrected latency \(ms\): .*p50 ([0-9.]+),.*/\1/p' "$D/slow.txt" | tail -n 1)
	awk -v p="$p50" 'BEGIN { exit !(p >= 30) }' || _fail "the proxy did not slow the server (p50 '$p50')"
	if ! grep -q "$LIMITED" "$D/slow.txt" && grep -q '^{"type":"summary".*"limited":false' "$D/slow.json"; then
		slow_ok=1
		break
	fi
	echo "try $try: the slow-server run was reported as client-limited; again"
	grep -E "Client|$LIMITED" "$D/slow.txt" || true
done
assert_eq 1 "$slow_ok" "a slow server with an idle client is not reported as a client limit"
assert_match "Target rate: 100.00/sec, achieved" "$D/slow.txt" "the target line"
echo "ok: a slow server is not the client's limit"

# 3. a tenth of a CPU (cgroup v1 cpu.cfs_quota_us)
root=/sys/fs/cgroup/cpu
if [ ! -w "$root" ] || ! mkdir "$root/ldbench-sat-$$" 2>/dev/null; then
	echo "saturation: SKIPPED: $root is not writable here: no cgroup quota test (1 and 2 passed)"
	exit 77
fi
CG=$root/ldbench-sat-$$
echo 100000 >"$CG/cpu.cfs_period_us"
echo 10000 >"$CG/cpu.cfs_quota_us"
set +e
(
	echo $BASHPID >"$CG/cgroup.procs"
	exec timeout 60 "$LDBENCH" -h 127.0.0.1 -p "$FAST_PORT" -b "$FIX_PEOPLE" "${search[@]}" -n 4 -a 16 \
		--duration 3s --interval 1s --json "$D/cg.json"
) >"$D/cg.txt" 2>&1
RC=$?
set -e
assert_eq 0 "$RC" "exit status under the quota"
assert_match "^ldbench\[[0-9]+\]: $LIMITED: its cgroup's CPU quota throttled it for [0-9]+% of the time \([0-9]+ of [0-9]+ periods\); raise the quota" \
	"$D/cg.txt" "the quota is named as the limit"
grep -q '^{"type":"summary".*"throttled_periods":[1-9][0-9]*,.*"limited":true,"limit":"throttled"' "$D/cg.json" ||
	_fail "summary record does not carry the throttling: $(grep summary "$D/cg.json" | grep -oE '"client":\{[^}]*\}')"
echo "ok: a CPU quota is reported as the limit"
