#!/bin/bash
# The replay's cost (src/run/replay*.c), on a log a real slapd wrote.
#
#   bench/replay_speed.sh [MB]
#
# A slapd of tests/fixture/slapd.sh with `loglevel stats` serves ldapsearch
# (a connection each) and python-ldap (one connection, 300 searches in turn)
# and its stats log is the seed; bench/slog_speed.c repeats its lines into a
# log of MB megabytes (default 100; conn= numbers moved up per repetition).
# Then, against tests/tools/ldapproxy --answer (a server faster than any
# client: the client is the limit):
#  1. the replay reader: `ldbench replay --timing asap` of the big log, its
#     lines per CPU second of the whole process (feeder and sender), and the
#     log reader alone (slog_speed) for reference;
#  2. CPU per operation: the replay's (user+system per request sent) and a
#     synthetic run of the same searches (`ldbench -e esearch`, one
#     connection, the same count) on the same stand-in;
#  3. the same searches replayed on one connection (the big log's search
#     lines renumbered into one recorded connection): the replay without the
#     recorded connections' opens and closes, the synthetic run's shape;
#  4. memory: the replay's max RSS on the big log;
#  5. the synthetic reference with the log's own connections: its short
#     sessions as `-e esearch,bindeach` (a connection per search), its long
#     ones at the one-connection run's cost, weighted by the log's counts
#     (bindeach's CPU per operation from runs of 1,000 and 3,000: start-up out).
# CPU time, not wall time, so the figures stay steady on a shared machine;
# still, read them as this machine's, at this load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib.sh
source "$root/bench/lib.sh"
mb=${1:-100}
build=${LDBENCH_BENCH_BUILD:-$root/build-bench}
[[ -n "${LDBENCH_BENCH_BUILD:-}" ]] || bench_build "$root" "$build"
cmake --build "$build" --target ldbench-slog-speed >/dev/null
cmake --build "$build" --target ldapproxy >/dev/null 2>&1 || true
proxy=$(find "$build" -name ldapproxy -type f -perm -u+x | head -n 1)
[[ -x "$proxy" ]] || { echo "no ldapproxy built in $build (a build with the tests)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replayspeed.XXXXXX")
export LDBENCH=$build/ldbench LDBENCH_SOURCE_DIR=$root FIX_STATS_LOG=$work/stats.log
# shellcheck source=../tests/fixture/slapd.sh
source "$root/tests/fixture/slapd.sh"
fixture_start --users 1000
trap 'fixture_stop; kill "${ppid:-}" 2>/dev/null || true; [[ -n "${KEEP:-}" ]] || rm -rf "$work"' EXIT
n0=$(wc -l <"$FIX_STATS_LOG")
for i in 1 2 3 4 5; do
	LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -b "$FIX_PEOPLE" "(uid=user0000$i)" cn >/dev/null
done
/usr/bin/python3 - "$FIX_URI" "$FIX_PEOPLE" <<'PY'
import sys, ldap
l = ldap.initialize(sys.argv[1])
l.simple_bind_s("", "")
for n in range(300):
    l.search_s(sys.argv[2], ldap.SCOPE_SUBTREE, "(uid=user%05d)" % (n % 1000 + 1), ["cn"])
l.unbind_s()
PY
sleep 0.5
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/seed.log"
fixture_stop
echo "seed: $(wc -l <"$work/seed.log") lines of slapd's stats log"
echo "log reader alone: $("$build/ldbench-slog-speed" "$work/seed.log" "$work/big.log" "$mb")"
lines=$(wc -l <"$work/big.log")
"$proxy" --answer --port-file "$work/port" >"$work/proxy.log" 2>&1 &
ppid=$!
for ((i = 0; i < 100; i++)); do
	[[ -s $work/port ]] && break
	sleep 0.05
done
port=$(cat "$work/port")
/usr/bin/time -f '%U %S %M' -o "$work/time" "$LDBENCH" replay -h 127.0.0.1 -p "$port" --timing asap \
	--json "$work/r.json" "$work/big.log" >"$work/out" 2>&1 || true
read -r u s rss < <(tail -n 1 "$work/time")
sent=$(/usr/bin/python3 -I -S -c 'import json,sys; k=json.loads(open(sys.argv[1]).read().splitlines()[-1])["replay"]["kinds"]; print(sum(v["sent"] for v in k.values()))' "$work/r.json")
searches=$(/usr/bin/python3 -I -S -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["replay"]["kinds"]["search"]["sent"])' "$work/r.json")
cpu=$(echo "$u + $s" | bc -l)
printf 'replay: %d lines (%s MB), %d requests sent (%d searches) in %.2f CPU s: %.0f lines/CPU s, %.2f us CPU per request, max RSS %d MiB\n' \
	"$lines" "$mb" "$sent" "$searches" "$cpu" "$(echo "$lines / $cpu" | bc -l)" "$(echo "$cpu * 1000000 / $sent" | bc -l)" $((rss / 1024))
/usr/bin/time -f '%U %S %M' -o "$work/time2" "$LDBENCH" -h 127.0.0.1 -p "$port" -b "$FIX_PEOPLE" -f 'uid=userXXXXX' \
	-r1 -R1000 -e esearch,random -n 1 --no-preflight -e "attrlist=cn" -T "$searches" >"$work/syn" 2>&1 || true
read -r u2 s2 rss2 < <(tail -n 1 "$work/time2")
cpu2=$(echo "$u2 + $s2" | bc -l)
done2=$(grep -oE 'search: attempted [0-9]+, completed [0-9]+' "$work/syn" | tail -n 1 | awk '{print $5}' | tr -d ,)
[[ -n "$done2" && "$done2" != 0 ]] || { tail "$work/syn"; echo "the synthetic run did not complete"; exit 1; }
printf 'synthetic: %d searches (ldbench -e esearch, one connection) in %.2f CPU s: %.2f us CPU per search, max RSS %d MiB\n' \
	"$done2" "$cpu2" "$(echo "$cpu2 * 1000000 / $done2" | bc -l)" $((rss2 / 1024))
/usr/bin/python3 -I -S - "$work/big.log" "$work/one.log" <<'PY'
import re, sys
seq, first, out = {}, True, open(sys.argv[2], "w")
for line in open(sys.argv[1]):
    m = re.match(r"(\S+ \S+) conn=(\d+) op=(\d+) (SRCH|SEARCH RESULT)(.*)", line)
    if not m:
        continue
    ts, c, o, kw, rest = m.groups()
    n = seq.setdefault((c, o), len(seq))
    if first:
        out.write(f"{ts} conn=1 fd=12 ACCEPT from IP=127.0.0.1:1 (IP=127.0.0.1:2)\n")
        first = False
    out.write(f"{ts} conn=1 op={n} {kw}{rest}\n")
out.write(f"{ts} conn=1 fd=12 closed\n")
PY
/usr/bin/time -f '%U %S %M' -o "$work/time3" "$LDBENCH" replay -h 127.0.0.1 -p "$port" --timing asap \
	--json "$work/r1.json" "$work/one.log" >"$work/out1" 2>&1 || true
read -r u3 s3 rss3 < <(tail -n 1 "$work/time3")
sent3=$(/usr/bin/python3 -I -S -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["replay"]["kinds"]["search"]["sent"])' "$work/r1.json")
cpu3=$(echo "$u3 + $s3" | bc -l)
printf 'replay on one connection: %d searches in %.2f CPU s: %.2f us CPU per search, max RSS %d MiB\n' \
	"$sent3" "$cpu3" "$(echo "$cpu3 * 1000000 / $sent3" | bc -l)" $((rss3 / 1024))
# The synthetic reference with the log's own connections: the log's short
# sessions (ldapsearch: a connection, a bind, a search, an unbind) are what
# `-e esearch,bindeach` runs (a connection per operation), its long ones
# (python-ldap) what the one-connection run above runs; their CPU per
# operation, weighted by the log's counts, against the replay's.
declare -A c4
read -r nshort nlong < <(/usr/bin/python3 -I -S - "$work/big.log" <<'PY'
import re, sys
ops = {}  # conn -> its requests' op numbers (slapd logs a search on two lines)
for line in open(sys.argv[1]):
    m = re.search(r" conn=(\d+) op=(\d+) (BIND|SRCH|UNBIND|CMP|ADD|MOD|DEL|EXT|MODRDN|ABANDON) ", line)
    if m:
        ops.setdefault(m.group(1), set()).add(m.group(2))
print(sum(1 for o in ops.values() if len(o) <= 3), sum(len(o) for o in ops.values() if len(o) > 3))
PY
)
# a bindeach run's CPU per operation: the difference of 1,000 and 3,000 (its
# start-up drops out, as the replay's is a share of far more requests)
for n4 in 1000 3000; do
	/usr/bin/time -f '%U %S %M' -o "$work/time4" "$LDBENCH" -h 127.0.0.1 -p "$port" -b "$FIX_PEOPLE" \
		-f 'uid=userXXXXX' -r1 -R1000 -e esearch,random,bindeach -n 1 --no-preflight -e "attrlist=cn" -T "$n4" \
		>"$work/syn4" 2>&1 || true
	read -r u4 s4 _ < <(tail -n 1 "$work/time4")
	grep -qE "search: attempted [0-9,]+, completed ${n4:0:1},?${n4:1}" "$work/syn4" ||
		{ tail "$work/syn4"; echo "the bindeach run of $n4 did not complete"; exit 1; }
	c4[$n4]=$(echo "$u4 + $s4" | bc -l)
done
cpu4=$(echo "${c4[3000]} - ${c4[1000]}" | bc -l) done4=2000
ref=$(echo "$cpu4 / $done4 * $nshort + $cpu2 / $done2 * $nlong" | bc -l)
printf 'synthetic with the log'"'"'s connections: %d short sessions as -e bindeach (%.2f us CPU each: connect, bind, search, unbind), %d requests of long ones at the one-connection run'"'"'s %.2f us: %.2f CPU s for the replay'"'"'s %.2f (%.2fx)\n' \
	"$nshort" "$(echo "$cpu4 * 1000000 / $done4" | bc -l)" "$nlong" "$(echo "$cpu2 * 1000000 / $done2" | bc -l)" \
	"$ref" "$cpu" "$(echo "$cpu / $ref" | bc -l)"
echo "(CPU time of the whole process; a loaded, shared machine: compare figures of one run, not across runs)"
