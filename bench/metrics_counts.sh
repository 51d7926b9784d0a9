#!/usr/bin/env bash
# What --metrics-listen (and --metrics-push) cost the load, in user-space
# instructions per operation (valgrind callgrind: every thread of the client,
# the I/O threads, the main thread's sampler and renderer, the endpoint thread
# ldb-metrics, the push thread ldb-push), counts that do not depend on how busy
# the machine is (bench/metrics_overhead.sh measures CPU seconds, which scatter
# by +-20 % on a shared 2-core machine).  No traffic leaves 127.0.0.1.
#
#   bench/metrics_counts.sh [--server slapd|389ds] [--short S] [--long L]
#                           [--rounds K] [--no-push]
#     --server KIND  the server (bench_server_start: slapd, slapd16, 389ds;
#                    default slapd)
#     --short S, --long L  the two run lengths in seconds (default 6 and 18)
#     --rounds K     runs of each length and side (default 1; the medians)
#     --no-push      leave out the --metrics-push side
#
# Sides, all with --interval 1s (the text is rendered at each sample):
#   off   no endpoint;
#   on    --metrics-listen, scraped every second by a curl loop (as a
#         Prometheus would);
#   push  --metrics-push to a local prometheus-pushgateway (a push a second).
# Start-up drops out by subtraction: each side runs --duration S and
# --duration L; instructions per operation = (I(L) - I(S)) / (ops(L) - ops(S)),
# ops from the summary's "Global average rate ... total".  The L - S seconds in
# between hold L - S samples and about L - S scrapes, at the rate the client
# keeps under valgrind: that rate is printed beside the native one (a run
# without valgrind), and since both are bound by the server here they are
# close, so scrapes per operation are those of a real run.  Where they are
# not, scale: the endpoint's cost is per second, its share per operation goes
# as native rate / valgrind rate ("at native rate" column).
# The endpoint's own instructions: callgrind's inclusive counts of serve()
# (the ldb-metrics thread), on_begin/on_sample/on_end (the text rendered in
# the main thread) and pusher() (the ldb-push thread), the same subtraction.
# Workloads: pipelined searches (-n 4 -a 16, random uid) and a connection per
# bind (bindeach -n 16).  TSV in build-bench/results/<date>-metrics-counts.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

server=slapd short=6 long=18 rounds=1 push=1
while (($# > 0)); do
	case $1 in
	--server) server=${2:?--server needs a kind}; shift 2 ;;
	--short) short=${2:?--short needs a value}; shift 2 ;;
	--long) long=${2:?--long needs a value}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
	--no-push) push=0; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "metrics_counts: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
for v in "$short" "$long" "$rounds"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "metrics_counts: --short, --long and --rounds take whole numbers >= 1" >&2; exit 2; }
done
((long > short)) || { echo "metrics_counts: --long must be more than --short" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
pkgs=(cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev slapd ldap-utils valgrind curl gawk)
((push)) && pkgs+=(prometheus-pushgateway)
bench_install_missing "${pkgs[@]}"
echo "metrics_counts: building the work tree, Release with -g (callgrind's function names; same code)"
build=$ROOT/build-bench-g
mkdir -p "$build"
if ! { cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DLDBENCH_TESTS=OFF &&
	cmake --build "$build" -j "$(nproc)"; } >"$build/bench-build.log" 2>&1; then
	cat "$build/bench-build.log" >&2
	exit 1
fi
bin=$build/ldbench
export LDBENCH=$bin LDBENCH_SOURCE_DIR=$ROOT
bench_server_start "$server"
echo "== $BENCH_SERVER on $FIX_URI (pid $FIX_PID), runs of $short s and $long s, $rounds round(s), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"

stamp=$(date +%Y-%m-%d_%H%M%S)
resdir=$ROOT/build-bench/results logdir=$ROOT/build-bench/results/$stamp-metrics-counts
mkdir -p "$logdir"
tsv=$resdir/$stamp-metrics-counts.tsv
printf 'server\tworkload\tside\tround\tseconds\tops\tinstructions\tendpoint_instructions\tscrapes\n' >"$tsv"

free_port() {
	local p
	while :; do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % 22000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
gw_pid=""
if ((push)); then
	gw_port=$(free_port)
	prometheus-pushgateway --web.listen-address="127.0.0.1:$gw_port" >"$logdir/pushgateway.log" 2>&1 &
	gw_pid=$!
	# beside the server's EXIT trap (bench_server_start's), not instead of it
	eval "prev=($(trap -p EXIT))"
	trap 'kill "$gw_pid" 2>/dev/null || true; '"${prev[2]:-}" EXIT
	for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$gw_port/metrics" && break; sleep 0.2; done
fi

common=(-h 127.0.0.1 -p "$FIX_PORT" --interval 1s)
names=("search -n 4 -a 16" "bindeach -n 16")
args_of() { # INDEX SECONDS: sets A
	case $1 in
	0) A=("${common[@]}" --duration "$2s" -b "$FIX_PEOPLE" -f '(uid=userXXXXX)' -e esearch,random -r1 -R10000 -n 4 -a 16) ;;
	1) A=("${common[@]}" --duration "$2s" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX
		-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 16) ;;
	esac
}
rate_of() { sed -n 's/.*Global average rate:.*(\([0-9.]*\)\/sec).*/\1/p' "$1" | tail -n 1; }
# The endpoint's inclusive instructions in a callgrind file: its thread's
# function, the renderer's callbacks, the push thread's.
endpoint_ir() {
	callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$1" 2>/dev/null |
		awk '{ gsub(",", "", $1) }
			$0 ~ /metrics\.c:serve |metrics_text\.c:on_(begin|sample|end) |metrics_push\.c:pusher / { s += $1 }
			END { print s + 0 }'
}
run_one() { # INDEX SIDE SECONDS ROUND
	local out=$logdir/$1-$2-$3s-$4 A port="" scr="" vpid n ir ep k=0
	args_of "$1" "$3"
	case $2 in
	on) port=$(free_port) && A+=(--metrics-listen "127.0.0.1:$port") ;;
	push) A+=(--metrics-push "http://127.0.0.1:$gw_port") ;;
	esac
	valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$bin" "${A[@]}" >"$out.log" 2>&1 &
	vpid=$!
	if [[ $2 == on ]]; then
		(while kill -0 "$vpid" 2>/dev/null; do
			curl -s -m 1 -o /dev/null "http://127.0.0.1:$port/metrics" && echo x
			sleep 1
		done >"$out.scrapes") &
		scr=$!
	fi
	wait "$vpid" || echo "metrics_counts: ${names[$1]} ($2, $3 s) failed: $out.log" >&2
	[[ -n $scr ]] && { wait "$scr" 2>/dev/null || true; k=$(wc -l <"$out.scrapes"); }
	n=$(bench_global_total "$out.log")
	ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$out.cg")
	ep=$(endpoint_ir "$out.cg")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$BENCH_SERVER" "${names[$1]}" "$2" "$4" "$3" "$n" "$ir" "$ep" "$k" >>"$tsv"
	printf '  %-18s %-4s %3s s  %9s ops  %6s ops/s  %14s instr  endpoint %11s  scrapes %s\n' "${names[$1]}" "$2" "$3" \
		"$n" "$(rate_of "$out.log")" "$ir" "$ep" "$k"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

sides=(off on)
((push)) && sides+=(push)
declare -A native
for i in 0 1; do
	args_of "$i" "$short"
	"$bin" "${A[@]}" >"$logdir/$i-native.log" 2>&1 || true
	native[$i]=$(rate_of "$logdir/$i-native.log")
	echo "  ${names[$i]}: native rate ${native[$i]} ops/s ($short s, no endpoint)"
	for ((r = 1; r <= rounds; r++)); do
		for side in "${sides[@]}"; do
			run_one "$i" "$side" "$short" "$r"
			run_one "$i" "$side" "$long" "$r"
		done
	done
done

echo
echo "user-space instructions per operation, all threads, (I($long s) - I($short s)) / (ops($long s) - ops($short s))"
printf '  %-18s %-4s %8s %8s %8s %10s %12s %11s\n' workload side "instr/op" "on/off" "vg ops/s" "native" "endpoint/op" "at native"
for i in 0 1; do
	w=${names[$i]}
	per() { # SIDE COLUMN: the median over rounds of (long - short) of COLUMN, over (long - short) ops
		awk -F'\t' -v w="$w" -v s="$1" -v c="$2" -v a="$short" -v b="$long" '$2 == w && $3 == s {
			v[$4, $5] = $c; o[$4, $5] = $6; r[$4] = 1 }
			END { for (k in r) if (o[k, b] > o[k, a]) printf "%.1f\n", (v[k, b] - v[k, a]) / (o[k, b] - o[k, a]) }' "$tsv" | median
	}
	off=$(per off 7)
	for side in "${sides[@]}"; do
		ipo=$(per "$side" 7) epo=$(per "$side" 8)
		vrate=$(awk -F'\t' -v w="$w" -v s="$side" -v b="$long" '$2 == w && $3 == s && $5 == b { print $6 / b }' "$tsv" | median)
		printf '  %-18s %-4s %8.0f %8.4f %8.0f %10.0f %12.1f %11.4f\n' "$w" "$side" "$ipo" \
			"$(awk -v a="$ipo" -v b="$off" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$vrate" "${native[$i]:-0}" "$epo" \
			"$(awk -v e="$epo" -v b="$off" -v v="$vrate" -v n="${native[$i]:-0}" 'BEGIN { print (b > 0 && n > 0 ? 1 + e * v / n / b : 0) }')"
	done
done
echo "(on/off: the side's instructions per operation over off's; endpoint/op: serve + on_begin/on_sample/on_end +"
echo " pusher, inclusive, per operation; at native: 1 + endpoint/op x (valgrind rate / native rate) / off, the share"
echo " at the rate of a run without valgrind; TSV $tsv, callgrind files in $logdir)"
