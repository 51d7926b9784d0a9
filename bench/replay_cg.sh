#!/bin/bash
# Instructions per request (valgrind --tool=callgrind), the replay against a
# synthetic run of the same searches: steadier than CPU time on a shared
# machine.
#
#   bench/replay_cg.sh BUILD LOG [LINES]
#
# LOG: a stats log such as bench/replay_speed.sh's big.log (KEEP=1 keeps it).
# Two cuts of LOG (LINES and 2*LINES lines, default 10000) are replayed with
# --timing asap against tests/tools/ldapproxy --answer, and `ldbench -e
# esearch` (one connection) sends as many searches; the difference of the
# two runs' instruction counts over the difference of their requests is the
# cost of one request, without the start-up's (dynamic linking, threads).
set -euo pipefail
build=${1:?build dir}
log=${2:?stats log}
lines=${3:-10000}
proxy=$(find "$build" -name ldapproxy -type f -perm -u+x | head -n 1)
[[ -x "$proxy" ]] || { echo "no ldapproxy in $build"; exit 77; }
command -v valgrind >/dev/null || { echo "no valgrind"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replaycg.XXXXXX")
"$proxy" --answer --port-file "$work/port" >"$work/proxy.log" 2>&1 &
ppid=$!
trap 'kill "$ppid" 2>/dev/null || true; rm -rf "$work"' EXIT
for ((i = 0; i < 100; i++)); do
	[[ -s $work/port ]] && break
	sleep 0.05
done
port=$(cat "$work/port")
declare -a req srch rir sir
base=$(grep -m 1 -oE 'SRCH base="[^"]*"' "$log" | sed 's/SRCH base="//; s/"$//')
ir() { grep -oE 'refs: +[0-9,]+' "$1" | tr -d ', ' | sed 's/refs://'; }
for k in 1 2; do
	head -n $((lines * k)) "$log" >"$work/l$k.log"
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/ldbench" replay -h 127.0.0.1 -p "$port" \
		--timing asap --json "$work/r$k.json" "$work/l$k.log" >/dev/null 2>"$work/cg$k"
	read -r "req[k]" "srch[k]" < <(/usr/bin/python3 -I -S -c 'import json,sys; k=json.loads(open(sys.argv[1]).read().splitlines()[-1])["replay"]["kinds"]; print(sum(v["sent"] for v in k.values()), k["search"]["sent"])' "$work/r$k.json")
	rir[k]=$(ir "$work/cg$k")
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/ldbench" -h 127.0.0.1 -p "$port" -b "$base" \
		-f 'uid=userXXXXX' -r1 -R1000 -e esearch,random -n 1 --no-preflight -e attrlist=cn -T "${srch[$k]}" \
		>"$work/s$k" 2>"$work/sg$k"
	sir[k]=$(ir "$work/sg$k")
done
r=$(((rir[2] - rir[1]) / (req[2] - req[1])))
s=$(((sir[2] - sir[1]) / (srch[2] - srch[1])))
echo "replay: ${req[1]} / ${req[2]} requests, ${rir[1]} / ${rir[2]} instructions: $r per request"
echo "synthetic: ${srch[1]} / ${srch[2]} searches, ${sir[1]} / ${sir[2]} instructions: $s per search"
echo "ratio: $(echo "scale=2; $r / $s" | bc -l)"
