#!/usr/bin/env bash
# What a login flow costs the client per request, against the same search and
# bind as a mix, on the same throwaway slapd (tests/fixture/slapd.sh, 127.0.0.1
# only), runs alternating (flow, mix, mix, flow, ...) so that drift on the
# machine falls on both:
#   flow  --login -f '(uid=user[1-1000%00000])' --login-password-attr uid:
#         a search asking for uid, then a bind as the DN found with its uid
#   mix   --mix search:1,bind:1 with the same search (-e attrlist=uid) and a
#         bind as 'uid=user[1:1000%00000],...' with the same password
#   gflow the same two requests as a general flow (--flow, --step: the search
#         step asking for uid, the bind step as @{1.dn} with @{1.attr:uid})
# All send the same number of requests: -n clients x 2 x FLOWS (a flow's
# -T counts flows of two requests, the mix's -T operations).  Per run: the
# requests from slapd's cn=Monitor (Search + Bind), client CPU (user+system)
# from /usr/bin/time; prints each run's CPU per request (us) and the medians,
# flow/mix.  Indicative only on a shared machine (see docs/performance.md).
# With --callgrind instead: user-space instructions per request (valgrind
# callgrind, the whole process) as a marginal cost, a run of FLOWS flows a
# client and one of 2 x FLOWS, the difference over the difference of slapd's
# request counts (start-up drops out), for gflow, flow and mix: the whole
# process's, and the I/O threads' alone (callgrind --separate-threads: every
# thread but the main one, which starts the run and samples it once a second,
# a cost that grows with the run's length under valgrind's slowdown).
#
#   bench/login_flow.sh [--callgrind] [FLOWS] [PAIRS]
#       (default 5000 flows a client, 3 pairs; --callgrind: 1000 flows a client)
# Needs a build in build/ (LDBENCH overrides), slapd, /usr/bin/time, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
export LDBENCH=${LDBENCH:-$PWD/build/ldbench}
CG=0
if [[ ${1:-} == --callgrind ]]; then
	CG=1
	shift
fi
FLOWS=${1:-$((CG ? 1000 : 5000))} PAIRS=${2:-3}
. bench/lib.sh
. tests/fixture/slapd.sh
fixture_start --users 1000
people=ou=People,$FIX_BASE
common=(-h 127.0.0.1 -p "$FIX_PORT" -b "$people" -n 4 --no-preflight)
args() { # case flows: sets a
	case $1 in
	flow) a=(--login -f '(uid=user[1-1000%00000])' --login-password-attr uid -T "$2") ;;
	gflow) a=(--flow login --step "search base=$people filter=(uid=user[1-1000%00000]) attrs=uid"
		--step 'bind dn=@{1.dn} password=@{1.attr:uid}' -T "$2") ;;
	mix) a=(--mix search:1,bind:1 -f '(uid=user[1-1000%00000])' -e attrlist=uid
		-D "uid=user[1:1000%00000],$people" -w 'user[1:1000%00000]' -T $((2 * $2))) ;;
	esac
}
requests() { # monitor-snapshot
	echo $(($(fixture_monitor_delta "$1" Search) + $(fixture_monitor_delta "$1" Bind)))
}
if ((CG)); then
	for c in gflow flow mix; do
		declare -A ir=() io=() rq=()
		for s in 1 2; do
			args "$c" $((s * FLOWS))
			fixture_monitor_snapshot "$FIX_DIR/cg.mon"
			rm -f "$FIX_DIR"/cg-*
			valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$FIX_DIR/cg" "$LDBENCH" \
				"${common[@]}" "${a[@]}" >"$FIX_DIR/cg.out" 2>&1 || true
			# each thread's file: its first summary (or totals) line
			ir[$s]=$(awk '/^(summary|totals):/ && !seen[FILENAME]++ { n += $2 } END { print n }' "$FIX_DIR"/cg-*)
			io[$s]=$(awk '/^(summary|totals):/ && !seen[FILENAME]++ && FILENAME !~ /-01$/ { n += $2 } END { print n }' \
				"$FIX_DIR"/cg-*)
			rq[$s]=$(requests "$FIX_DIR/cg.mon")
		done
		printf '%-6s requests %s and %s: %s instructions/request, I/O threads %s\n' "$c" "${rq[1]}" "${rq[2]}" \
			"$(awk -v a="${ir[1]}" -v b="${ir[2]}" -v m="${rq[1]}" -v n="${rq[2]}" 'BEGIN { printf "%.0f", (b - a) / (n - m) }')" \
			"$(awk -v a="${io[1]}" -v b="${io[2]}" -v m="${rq[1]}" -v n="${rq[2]}" 'BEGIN { printf "%.0f", (b - a) / (n - m) }')"
	done
	exit 0
fi
run() { # case out
	local a
	args "$1" "$FLOWS"
	fixture_monitor_snapshot "$2.mon"
	bench_measure "$2" 600 "$LDBENCH" "${common[@]}" "${a[@]}"
	local n cpu
	n=$(requests "$2.mon")
	read -r _ _ u s _ <"$2.m"
	cpu=$(awk -v u="$u" -v s="$s" -v n="$n" 'BEGIN { printf "%.2f", (u + s) * 1e6 / n }')
	echo "$1 requests $n cpu/request ${cpu}us"
	echo "$1 $cpu" >>"$FIX_DIR/all"
}
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then order=(flow gflow mix); else order=(mix gflow flow); fi
	for c in "${order[@]}"; do run "$c" "$FIX_DIR/$c.$p"; done
done
awk '{ v[$1] = v[$1] " " $2 } END {
	for (c in v) { n = split(v[c], a, " "); asort(a); m[c] = a[int((n + 1) / 2)] }
	printf "median cpu/request: flow %.2fus, gflow %.2fus, mix %.2fus, flow/mix %.3f, gflow/mix %.3f\n",
		m["flow"], m["gflow"], m["mix"], m["flow"] / m["mix"], m["gflow"] / m["mix"] }' \
	"$FIX_DIR/all"
