#!/usr/bin/env bash
# What the replication check (-S) costs the write load (the bar: the
# rate with -S on one consumer within 10 % of the same run without it, at the
# default sampling).  The same modify load on a supplier, without -S and with -S
# on its consumer, in alternating pairs (off on, on off, off on, ...) so that
# drift on the machine falls on both; each run has its own warm-up, left out of
# its rate.  Servers:
#   slapd   tests/fixture/slapd_repl.sh: a syncprov provider and a
#           refreshAndPersist consumer, 1,000 users
#   389ds   tests/fixture/dirsrv_repl.sh: two 389 DS instances and one
#           agreement; 1,000 entries added through ldbench and replicated first
# No traffic leaves 127.0.0.1.
#
#   bench/repl.sh [--server slapd|389ds|all] [--seconds S] [--pairs K]
#                 [--threads N] [--sample SPEC] [--warmup D] [--max-steal S]
#     --server      which pair (default all: both, one after the other)
#     --seconds S   measured load per run (default 8)
#     --pairs K     off/on pairs counted (default 4)
#     --threads N   -n (default 4)
#     --sample SPEC --repl-sample of the "on" runs (default: none given, 50/s)
#     --warmup D    each run's warm-up (default 2s)
#     --max-steal S a pair in which the host stole more than S seconds of CPU
#                   from this machine during either run is shown but left out
#                   of the medians (default 0.2: 1 % of 2 CPUs' 10 s); pairs
#                   are run until K are clean, 3 K at most
#
# Prints each run's rate and each pair's on/off ratio, then per server the
# median and range of the pair ratios (the figure the bar is read on: a pair's
# two runs are next to each other in time), the medians of the rates, and the
# replication figures of the last "on" run.  Beside the rates, the CPU each
# write cost the client and the two servers together (ldbench's user+system
# time, the servers' from /proc), which the host's noise moves less than a
# rate, and the CPU time the host stole from this machine during each run.  The machine's load average is
# printed first: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
servers=all secs=8 pairs=4 threads=4 sample= warmup=2s max_steal=0.2
while (($# > 0)); do
	case $1 in
	--server) servers=${2:?--server needs a value}; shift 2 ;;
	--seconds) secs=${2:?--seconds needs a value}; shift 2 ;;
	--pairs) pairs=${2:?--pairs needs a value}; shift 2 ;;
	--threads) threads=${2:?--threads needs a value}; shift 2 ;;
	--sample) sample=${2:?--sample needs a value}; shift 2 ;;
	--warmup) warmup=${2:?--warmup needs a value}; shift 2 ;;
	--max-steal) max_steal=${2:?--max-steal needs a value}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "repl: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case $servers in
all) servers="slapd 389ds" ;;
slapd | 389ds) ;;
*) echo "repl: --server: slapd, 389ds or all" >&2; exit 2 ;;
esac
. bench/lib.sh
warmup_s=$(awk -v w="$warmup" 'BEGIN { v = w + 0; if (w ~ /ms$/) v /= 1000; print v }')
echo "repl: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
bench_build "$ROOT" "$ROOT/build-bench"
export LDBENCH=$ROOT/build-bench/ldbench LDBENCH_SOURCE_DIR=$ROOT

rate_of() { sed -nE 's/.*Global average rate: .*\(([0-9.]+)\/sec\).*/\1/p' "$1" | tail -n 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# CPU ticks of the servers (supplier and consumer) and the machine's steal
server_ticks() { echo $(($(bench_proc_ticks "$spid") + $(bench_proc_ticks "$cpid"))); }
steal_ticks() { awk '$1 == "cpu" { print $9; exit }' /proc/stat; }

# one run: off|on; prints "RATE CLIENT_US SERVERS_US STEAL_S": the rate, the CPU
# per write of ldbench and of both servers (over the whole run, warm-up
# included: writes = rate x (warm-up + measured time)), the host's steal
run() {
	local extra=() out=$work/run.txt s0 s1 t0 t1
	[[ "$1" == on ]] && extra=("${on[@]}" --json "$work/on.json")
	rm -f "$work/on.json"
	s0=$(server_ticks) t0=$(steal_ticks)
	/usr/bin/time -f '%U %S' -o "$work/time.txt" "$LDBENCH" "${load[@]}" "${extra[@]}" >"$out" 2>&1 ||
		{ cat "$out" >&2; exit 1; }
	s1=$(server_ticks) t1=$(steal_ticks)
	if [[ "$1" == on ]]; then
		grep 'Replication summary' "$out" >"$work/last_on.txt" || true
		# the watcher's own load on the consumer: its base searches over the run
		grep '^{"type":"summary"' "$work/on.json" | grep -oE '"searches":[0-9]+' | tail -n 1 | cut -d: -f2 |
			awk -v s="$secs" '{ printf "watcher: %d base searches on the consumer (%.0f/s)\n", $1, $1 / s }' \
				>>"$work/last_on.txt"
	fi
	local r
	r=$(rate_of "$out")
	awk -v r="$r" -v secs="$secs" -v w="$warmup_s" -v sb=$((s1 - s0)) -v st=$((t1 - t0)) -v hz="$(bench_hz)" \
		'{ n = r * (secs + w); printf "%s %.1f %.1f %.2f\n", r, ($1 + $2) * 1e6 / n, sb / hz * 1e6 / n, st / hz }' \
		"$work/time.txt"
}

# the pairs on the pair of servers set up: the table of one server
measure() { # LABEL
	local i a b r c clean ratios=() offs=() ons=() cpus=()
	for ((i = 0; ${#ratios[@]} < pairs && i < 3 * pairs; i++)); do
		if ((i % 2 == 0)); then a=($(run off)); b=($(run on)); else b=($(run on)); a=($(run off)); fi
		r=$(awk -v a="${a[0]}" -v b="${b[0]}" 'BEGIN { printf "%.3f", b / a }')
		c=$(awk -v a="${a[1]}" -v b="${a[2]}" -v x="${b[1]}" -v y="${b[2]}" 'BEGIN { printf "%.3f", (x + y) / (a + b) }')
		clean=$(awk -v a="${a[3]}" -v b="${b[3]}" -v m="$max_steal" 'BEGIN { print (a <= m && b <= m) ? 1 : 0 }')
		echo "repl: $1 pair $((i + 1)): off ${a[0]}/s, on ${b[0]}/s, on/off $r;" \
			"CPU per write (client + servers) off ${a[1]} + ${a[2]} us, on ${b[1]} + ${b[2]} us, on/off $c;" \
			"steal ${a[3]} s, ${b[3]} s$( ((clean)) || echo ': left out')"
		((clean)) || continue
		ratios+=("$r") offs+=("${a[0]}") ons+=("${b[0]}") cpus+=("$c")
	done
	if ((${#ratios[@]} == 0)); then
		echo "repl: $1: every pair had more than $max_steal s stolen by the host: no figure"
		return 0
	fi
	pairs_seen=$i
	local lo hi
	lo=$(printf '%s\n' "${ratios[@]}" | sort -g | head -n 1)
	hi=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -n 1)
	echo "repl: $1: on/off median of ${#ratios[@]} pairs (of $pairs_seen run) $(printf '%s\n' "${ratios[@]}" | median) (range $lo..$hi);" \
		"median rate without -S $(printf '%s\n' "${offs[@]}" | median)/s, with -S $(printf '%s\n' "${ons[@]}" | median)/s"
	echo "repl: $1: CPU per write on/off, median of ${#ratios[@]} pairs $(printf '%s\n' "${cpus[@]}" | median)" \
		"(range $(printf '%s\n' "${cpus[@]}" | sort -g | head -n 1)..$(printf '%s\n' "${cpus[@]}" | sort -g | tail -n 1))"
	sed "s/^/repl: $1: last run with -S: /" "$work/last_on.txt"
}

for server in $servers; do
	if [[ $server == slapd ]]; then
		(
			. tests/fixture/slapd_repl.sh
			repl_start --users 1000
			work=$FIX_DIR spid=$FIX_PID cpid=$REPL_CPID
			load=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "uid=userXXXXX"
				-r1 -R1000 -e random --modify "replace:description=dXXXXX" -n "$threads" --warmup "$warmup"
				--duration "${secs}s" --interval "${secs}s")
			on=(-S "$REPL_CURI")
			[[ -n "$sample" ]] && on+=(--repl-sample "$sample")
			measure "slapd (syncprov, refreshAndPersist)"
		)
	else
		(
			. tests/fixture/dirsrv_repl.sh
			dsrepl_start
			work=$DSR_DIR
			spid=$(pgrep -f "slapd-$DSR_SNAME" | head -n 1) cpid=$(pgrep -f "slapd-$DSR_CNAME" | head -n 1)
			sup=(-h 127.0.0.1 -p "$DSR_SPORT" -D "$DSR_ROOTDN" -w "$DSR_ROOTPW" -b "$DSR_BASE")
			"$LDBENCH" "${sup[@]}" -f "cn=dXXXX" -r0 -R999 -n 2 -e add,person,incr,commoncounter,noloop \
				>"$work/populate.txt" 2>&1 || { cat "$work/populate.txt" >&2; exit 1; }
			for ((i = 0; i < 120; i++)); do
				[[ "$(dsrepl_count "$DSR_CURI" "$DSR_BASE" '(objectClass=person)')" == 1000 ]] && break
				sleep 0.5
			done
			load=("${sup[@]}" -f "cn=dXXXX" -r0 -R999 -e random --modify "replace:description=dXXXXX"
				-n "$threads" --warmup "$warmup" --duration "${secs}s" --interval "${secs}s")
			on=(-S "127.0.0.1:$DSR_CPORT")
			[[ -n "$sample" ]] && on+=(--repl-sample "$sample")
			measure "389 DS (one agreement)"
		)
	fi
done
