#!/usr/bin/env bash
# What the replication check (-S) costs the write load: the same modify load on
# a syncprov provider (tests/fixture/slapd_repl.sh, a refreshAndPersist consumer
# beside it) without -S and with -S on the consumer at the default sampling
# (--repl-sample 50/s), runs alternating (off, on, on, off, ...) so that drift
# on the machine falls on both.  The issue's bar: the rate with -S within 10 %
# of the rate without.  No traffic leaves 127.0.0.1.
#
#   bench/repl.sh [--seconds S] [--pairs K] [--threads N] [--sample SPEC]
#     --seconds S   load per run (default 5)
#     --pairs K     off/on pairs (default 3); the table shows medians
#     --threads N   -n (default 4)
#     --sample SPEC --repl-sample of the "on" runs (default: none given, 50/s)
#
# Prints each run's rate, then the medians, on/off, and the replication
# figures of the last "on" run.  The machine's load average is printed first:
# run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
secs=5 pairs=3 threads=4 sample=
while (($# > 0)); do
	case $1 in
	--seconds) secs=${2:?--seconds needs a value}; shift 2 ;;
	--pairs) pairs=${2:?--pairs needs a value}; shift 2 ;;
	--threads) threads=${2:?--threads needs a value}; shift 2 ;;
	--sample) sample=${2:?--sample needs a value}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "repl: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
. bench/lib.sh
echo "repl: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
bench_build "$ROOT" "$ROOT/build-bench"
export LDBENCH=$ROOT/build-bench/ldbench LDBENCH_SOURCE_DIR=$ROOT
. tests/fixture/slapd_repl.sh
repl_start --users 1000
load=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "uid=userXXXXX"
	-r1 -R1000 -e random --modify "replace:description=dXXXXX" -n "$threads" --duration "${secs}s"
	--interval "${secs}s")
on=(-S "$REPL_CURI")
[[ -n "$sample" ]] && on+=(--repl-sample "$sample")
rate_of() { sed -nE 's/.*Global average rate: .*\(([0-9.]+)\/sec\).*/\1/p' "$1" | tail -n 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
out=$FIX_DIR/run.txt
declare -a off_rates on_rates
run() { # off|on
	local extra=()
	[[ "$1" == on ]] && extra=("${on[@]}")
	"$LDBENCH" "${load[@]}" "${extra[@]}" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
	local r
	r=$(rate_of "$out")
	echo "repl: $1 $r/s"
	if [[ "$1" == on ]]; then
		on_rates+=("$r")
		grep 'Replication summary' "$out" >"$FIX_DIR/last_on.txt" || true
	else
		off_rates+=("$r")
	fi
}
for ((i = 0; i < pairs; i++)); do
	if ((i % 2 == 0)); then run off; run on; else run on; run off; fi
done
off=$(printf '%s\n' "${off_rates[@]}" | median)
onm=$(printf '%s\n' "${on_rates[@]}" | median)
echo "repl: median without -S $off/s, with -S $onm/s, on/off $(awk -v a="$onm" -v b="$off" 'BEGIN { printf "%.3f", a / b }')"
sed 's/^/repl: last run with -S: /' "$FIX_DIR/last_on.txt"
