#!/usr/bin/env bash
# ldbench against an earlier ldbench: the client CPU per operation of the work
# tree's build and of a base revision's build, on the same throwaway slapd, the
# same workloads, runs alternating (base, new, new, base, ...) so that drift on
# the machine falls on both.  The workloads: exact and random searches (one
# pipelined), bindeach, LDAPS searches and LDAPS bindeach (verified), modifies.  Also the cost of many clients: the same search
# workload at -n 64, -n 1000 and -n 10000, as a ratio to -n 64, in steady state:
# each of those runs twice, S and 3S seconds long, and the CPU per operation is
# the difference of the two (CPU3 - CPU1) / (ops3 - ops1), so that opening and
# closing 10,000 connections, which both runs pay once, drops out.  No traffic
# leaves 127.0.0.1.
#
#   bench/ab.sh [--base REV] [--seconds S] [--pairs K] [--threads T,...] [--only REGEX]
#     --base REV     the revision to compare with (default: HEAD); built from a
#                    git worktree into build-bench-base/
#     --seconds S    load per run (default 4)
#     --pairs K      base/new pairs per workload (default 3); the table shows
#                    the median of each tool's K runs
#     --threads T,.. slapd worker-thread counts, one server configuration each
#                    (default 4,16: the fixture's and slapd's default)
#     --only REGEX   only the workloads whose names match
#
# Per run: operations from cn=Monitor, client CPU (user+system) from
# /usr/bin/time.  Prints per configuration and workload the median client CPU
# per operation of both builds, new/base, and for the -n 1000 / -n 10000 rows
# their CPU per operation over the -n 64 row of the same build.  TSV in
# build-bench/results/<date>-ab.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

base=HEAD secs=4 pairs=3 threads=4,16 only=
while (($# > 0)); do
	case $1 in
	--base) base=${2:?--base needs a revision}; shift 2 ;;
	--seconds) secs=${2:?--seconds needs a value}; shift 2 ;;
	--pairs) pairs=${2:?--pairs needs a value}; shift 2 ;;
	--threads) threads=${2:?--threads needs a list}; shift 2 ;;
	--only) only=${2:?--only needs a regex}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ab: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$secs" =~ ^[1-9][0-9]*$ ]] || { echo "ab: --seconds must be a whole number >= 1" >&2; exit 2; }
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "ab: --pairs must be a whole number >= 1" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "ab: --threads takes counts like 4,16" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev slapd ldap-utils time coreutils gawk git

declare -A BIN
bench_build_pair ab "$ROOT" "$base"
ulimit -n "$(ulimit -Hn)" # -n 10000 needs more than the usual 1024 descriptors

stamp=$(date +%Y-%m-%d_%H%M%S)
resdir=$ROOT/build-bench/results logdir=$ROOT/build-bench/results/$stamp-ab-logs
mkdir -p "$logdir"
tsv=$resdir/$stamp-ab.tsv
printf 'slapd_threads\tworkload\ttool\trun\tops_monitor\tcpu_s\tcpu_us_per_op\n' >"$tsv" # steady rows: the differences

# shellcheck source=tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"

names=() ops=() argv=()
workload() { # NAME OP ARGS...
	[[ -z $only || $1 =~ $only ]] || return 0
	names+=("$1") ops+=("$2")
	shift 2
	[[ $1 == -N ]] || { echo "ab: workload ${names[-1]}: the arguments start with -N" >&2; exit 2; }
	local q
	printf -v q '%q ' "$@"
	argv+=("$q")
}
define_workloads() {
	names=() ops=() argv=()
	local common=(-N 1 -h 127.0.0.1 -p "$FIX_PORT")
	local random=("${common[@]}" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random -r1 -R10000)
	local exact=("${common[@]}" -b "$FIX_PEOPLE" -f "(uid=user00042)" -e esearch)
	workload "exact -n 16" Search "${exact[@]}" -n 16
	workload "random -n 4 -a 16" Search "${random[@]}" -n 4 -a 16
	workload "bindeach -n 16" Bind "${common[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
		-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 16
	# over TLS (the fixture's ldaps port, verified against its CA): a persistent search load, and
	# bindeach, where every operation pays a handshake (resumed when the server allows)
	local ldaps=(-N 1 -H "ldaps://127.0.0.1:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA")
	workload "ldaps random -n 16" Search "${ldaps[@]}" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random \
		-r1 -R10000 -n 16
	workload "ldaps bindeach -n 16" Bind "${ldaps[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX \
		-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 16
	workload "modify -n 8" Modify "${common[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" \
		-f "uid=userXXXXX" -e attreplace=description:XXXXXXXX,random -r1 -R10000 -n 8
	workload "random -n 64" Search "${random[@]}" -n 64
	workload "random -n 1000" Search "${random[@]}" -n 1000
	workload "random -n 10000" Search "${random[@]}" -n 10000
}

declare -A med
measure() { # THREADS INDEX TOOL RUN SECONDS : one run; prints "ops cpu_s"
	local out=$logdir/t$1-$(printf '%02d' "$2")-$3-$4-$5s snap=$logdir/snap args n
	eval "args=(${argv[$2]})"
	fixture_monitor_snapshot "$snap"
	bench_measure "$out" $(($5 * 4 + 60)) "${BIN[$3]}" "${args[@]}" -e "sampinterval=$5"
	n=$(fixture_monitor_delta "$snap" "${ops[$2]}")
	local rc _w u s _b _sl
	read -r rc _w u s _b _sl <"$out.m"
	[[ $rc == 0 ]] || echo "ab: ${names[$2]} ($3) exited with $rc: $out.log" >&2
	echo "$n $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
}
run_one() { # THREADS INDEX TOOL RUN
	local n cpu n3 cpu3 per
	read -r n cpu < <(measure "$1" "$2" "$3" "$4" "$secs")
	if [[ ${names[$2]} =~ ^random\ -n ]]; then # steady state: a run 3 times as long, minus this one
		read -r n3 cpu3 < <(measure "$1" "$2" "$3" "$4" $((secs * 3)))
		per=$(awk -v a="$cpu" -v b="$cpu3" -v m="$n" -v k="$n3" 'BEGIN { printf "%.2f", (k > m ? (b - a) * 1e6 / (k - m) : 0) }')
		n=$((n3 - n)) cpu=$(awk -v a="$cpu" -v b="$cpu3" 'BEGIN { printf "%.2f", b - a }')
	else
		per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", (n > 0 ? c * 1e6 / n : 0) }')
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "${names[$2]}" "$3" "$4" "$n" "$cpu" "$per" >>"$tsv"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

IFS=, read -r -a tlist <<<"$threads"
for t in "${tlist[@]}"; do
	fixture_start --users 10000 --threads "$t" --nosync --tls
	define_workloads
	echo "== slapd with $t worker threads (pid $FIX_PID on $FIX_URI), $secs s per run, $pairs pairs"
	for i in "${!names[@]}"; do
		for ((k = 1; k <= pairs; k++)); do
			if ((k % 2)); then run_one "$t" "$i" base "$k"; run_one "$t" "$i" new "$k"
			else run_one "$t" "$i" new "$k"; run_one "$t" "$i" base "$k"; fi
		done
		for tool in base new; do
			med[$t,$i,$tool]=$(awk -F'\t' -v t="$t" -v w="${names[$i]}" -v x="$tool" \
				'$1 == t && $2 == w && $3 == x { print $7 }' "$tsv" | median)
		done
		printf '  %-18s base %8s us/op   new %8s us/op   new/base %s\n' "${names[$i]}" "${med[$t,$i,base]}" \
			"${med[$t,$i,new]}" "$(awk -v a="${med[$t,$i,new]}" -v b="${med[$t,$i,base]}" \
				'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"
	done
	ref=-1
	for i in "${!names[@]}"; do [[ ${names[$i]} != "random -n 64" ]] || ref=$i; done
	if ((ref >= 0)); then
		for i in "${!names[@]}"; do
			[[ ${names[$i]} =~ ^random\ -n\ (1000|10000)$ ]] || continue
			printf '  %-18s over -n 64: base %s, new %s\n' "${names[$i]}" \
				"$(awk -v a="${med[$t,$i,base]}" -v b="${med[$t,$ref,base]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
				"$(awk -v a="${med[$t,$i,new]}" -v b="${med[$t,$ref,new]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
		done
	fi
	fixture_stop
done
echo "ab: every run in $tsv"
