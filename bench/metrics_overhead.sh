#!/usr/bin/env bash
# What --metrics-listen costs the load: the same workloads with and without the
# endpoint, scraped every second by a curl loop (as a Prometheus would), runs
# alternating (off, on, on, off, ...) so that drift on the machine falls on
# both.  Both sides sample every second (--interval 1s): the difference is the
# endpoint's (the text rendered at each sample, its thread, the scrapes).
# No traffic leaves 127.0.0.1.
#
#   bench/metrics_overhead.sh [--server slapd|389ds] [--seconds S] [--pairs K]
#     --server KIND  the server (bench_server_start: slapd, slapd16, 389ds;
#                    default slapd)
#     --seconds S    load per run (default 8)
#     --pairs K      off/on pairs per workload (default 3)
#
# Workloads: pipelined searches (-n 4 -a 16, random uid) and a connection per
# bind (bindeach -n 16).  Per run: operations from the server's counters
# (bench_mon_delta), the client's CPU (user+system, /usr/bin/time); at S-1
# seconds the process's RSS (/proc/PID/status VmRSS) and, with the endpoint,
# its thread's CPU so far (/proc/PID/task/TID/schedstat of the thread named
# ldb-metrics, in ns), per second of the run, and the main thread's (it
# samples every second on both sides, and renders the text with the endpoint).
# Prints per workload the median client CPU per operation off and on, on/off
# with the spread of the pairs' ratios, the median RSS off and on, and the
# endpoint thread's CPU per second.  TSV in build-bench/results/<date>-metrics.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

server=slapd secs=8 pairs=3
while (($# > 0)); do
	case $1 in
	--server) server=${2:?--server needs a kind}; shift 2 ;;
	--seconds) secs=${2:?--seconds needs a value}; shift 2 ;;
	--pairs) pairs=${2:?--pairs needs a value}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "metrics_overhead: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$secs" =~ ^[2-9]$|^[1-9][0-9]+$ ]] || { echo "metrics_overhead: --seconds must be a whole number >= 2" >&2; exit 2; }
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "metrics_overhead: --pairs must be a whole number >= 1" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev slapd ldap-utils time curl gawk
echo "metrics_overhead: building the work tree, Release"
bench_build "$ROOT" "$ROOT/build-bench"
bin=$ROOT/build-bench/ldbench
bench_server_start "$server"
echo "== $BENCH_SERVER on $FIX_URI (pid $FIX_PID), $secs s per run, $pairs pairs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

stamp=$(date +%Y-%m-%d_%H%M%S)
resdir=$ROOT/build-bench/results logdir=$ROOT/build-bench/results/$stamp-metrics-logs
mkdir -p "$logdir"
tsv=$resdir/$stamp-metrics.tsv
printf 'server\tworkload\tside\trun\tops\tcpu_s\tcpu_us_per_op\trss_kb\tthread_cpu_ms_per_s\tmain_cpu_ms_per_s\n' >"$tsv"

common=(-h 127.0.0.1 -p "$FIX_PORT" --duration "${secs}s" --interval 1s)
names=("search -n 4 -a 16" "bindeach -n 16")
ops=(Search Bind)
args_of() { # INDEX: sets A
	case $1 in
	0) A=("${common[@]}" -b "$FIX_PEOPLE" -f '(uid=userXXXXX)' -e esearch,random -r1 -R10000 -n 4 -a 16) ;;
	1) A=("${common[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX
		-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 16) ;;
	esac
}
free_port() {
	local p
	while :; do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % 22000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
thread_ns() { # PID NAME: the thread's CPU time in ns (schedstat: finer than stat's ticks), 0 when not found
	local t
	for t in /proc/"$1"/task/*; do
		[[ "$(cat "$t/comm" 2>/dev/null)" == "$2" ]] || continue
		cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0
		return
	done
	echo 0
}
run_one() { # INDEX SIDE(off|on) RUN
	local out=$logdir/$1-$2-$3 snap=$logdir/snap port="" A tpid lpid scr="" rss=0 th=0 mn=0 n
	args_of "$1"
	[[ $2 == on ]] && port=$(free_port) && A+=(--metrics-listen "127.0.0.1:$port")
	bench_mon_snapshot "$snap"
	/usr/bin/time -f '%e %U %S' -o "$out.time" timeout -k 5 $((secs * 4 + 60)) "$bin" "${A[@]}" >"$out.log" 2>&1 &
	tpid=$!
	if [[ $2 == on ]]; then
		(while kill -0 "$tpid" 2>/dev/null; do curl -s -m 1 -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep 1; done) &
		scr=$!
	fi
	sleep $((secs - 1))
	lpid=$(pgrep -n -x ldbench -P "$(pgrep -n -P "$tpid" || echo 0)" 2>/dev/null || pgrep -n -x ldbench -P "$tpid" || true)
	if [[ -n $lpid ]]; then
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$lpid/status" 2>/dev/null || echo 0)
		[[ $2 == on ]] && th=$(thread_ns "$lpid" ldb-metrics)
		mn=$(cut -d' ' -f1 "/proc/$lpid/task/$lpid/schedstat" 2>/dev/null || echo 0)
	fi
	wait "$tpid" || echo "metrics_overhead: ${names[$1]} ($2) failed: $out.log" >&2
	[[ -n $scr ]] && wait "$scr" 2>/dev/null || true
	n=$(bench_mon_delta "$snap" "${ops[$1]}")
	local u s
	read -r _ u s < <(tail -n 1 "$out.time")
	awk -v sv="$BENCH_SERVER" -v w="${names[$1]}" -v side="$2" -v r="$3" -v n="$n" -v u="$u" -v s="$s" \
		-v rss="${rss:-0}" -v th="$th" -v mn="$mn" -v secs="$secs" \
		'BEGIN { printf "%s\t%s\t%s\t%s\t%d\t%.2f\t%.3f\t%d\t%.3f\t%.3f\n", sv, w, side, r, n, u + s,
			(n > 0 ? (u + s) * 1e6 / n : 0), rss, th / 1e6 / (secs - 1), mn / 1e6 / (secs - 1) }' >>"$tsv"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for i in 0 1; do
	for ((r = 1; r <= pairs; r++)); do
		if ((r % 2)); then run_one "$i" off "$r"; run_one "$i" on "$r"; else run_one "$i" on "$r"; run_one "$i" off "$r"; fi
	done
done

printf '%-20s %10s %10s %7s %14s %8s %8s %9s %9s %9s\n' workload "off us/op" "on us/op" on/off "pair ratios" \
	"RSS off" "RSS on" "thr ms/s" "main off" "main on"
for w in "${names[@]}"; do
	col() { awk -F'\t' -v w="$w" -v s="$1" -v c="$2" '$2 == w && $3 == s { print $c }' "$tsv" | median; }
	ratios=$(awk -F'\t' -v w="$w" '$2 == w { v[$4, $3] = $7; r[$4] = 1 } END { for (k in r) if (v[k, "off"] > 0) printf "%.3f\n", v[k, "on"] / v[k, "off"] }' "$tsv" | sort -n)
	off=$(col off 7) on=$(col on 7)
	printf '%-20s %10s %10s %7s %14s %8s %8s %9s %9s %9s\n' "$w" "$off" "$on" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" \
		"$(head -n 1 <<<"$ratios")..$(tail -n 1 <<<"$ratios")" "$(col off 8)" "$(col on 8)" "$(col on 9)" \
		"$(col off 10)" "$(col on 10)"
done
echo "(client CPU per operation from /usr/bin/time; RSS in kB at S-1 s; thr: the endpoint thread's CPU, main: the"
echo " main thread's (it samples, and renders the text with the endpoint), ms per s of run; the curl loop's own CPU"
echo " not counted; TSV $tsv)"
