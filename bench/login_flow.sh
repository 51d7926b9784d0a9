#!/usr/bin/env bash
# What a login flow costs the client per request, against the same search and
# bind as a mix, on the same throwaway slapd (tests/fixture/slapd.sh, 127.0.0.1
# only), runs alternating (flow, mix, mix, flow, ...) so that drift on the
# machine falls on both:
#   flow  --login -f '(uid=user[1-1000%00000])' --login-password-attr uid:
#         a search asking for uid, then a bind as the DN found with its uid
#   mix   --mix search:1,bind:1 with the same search (-e attrlist=uid) and a
#         bind as 'uid=user[1:1000%00000],...' with the same password
# Both send the same number of requests: -n clients x 2 x FLOWS (the flow's
# -T counts flows of two requests, the mix's -T operations).  Per run: the
# requests from slapd's cn=Monitor (Search + Bind), client CPU (user+system)
# from /usr/bin/time; prints each run's CPU per request (us) and the medians,
# flow/mix.  Indicative only on a shared machine (see docs/performance.md).
#
#   bench/login_flow.sh [FLOWS] [PAIRS]    (default 5000 flows a client, 3 pairs)
# Needs a build in build/ (LDBENCH overrides), slapd, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
export LDBENCH=${LDBENCH:-$PWD/build/ldbench}
FLOWS=${1:-5000} PAIRS=${2:-3}
. bench/lib.sh
. tests/fixture/slapd.sh
fixture_start --users 1000
people=ou=People,$FIX_BASE
common=(-h 127.0.0.1 -p "$FIX_PORT" -b "$people" -n 4 --no-preflight)
run() { # case out
	local a
	case $1 in
	flow) a=(--login -f '(uid=user[1-1000%00000])' --login-password-attr uid -T "$FLOWS") ;;
	mix) a=(--mix search:1,bind:1 -f '(uid=user[1-1000%00000])' -e attrlist=uid
		-D "uid=user[1:1000%00000],$people" -w 'user[1:1000%00000]' -T $((2 * FLOWS))) ;;
	esac
	fixture_monitor_snapshot "$2.mon"
	bench_measure "$2" 600 "$LDBENCH" "${common[@]}" "${a[@]}"
	local n cpu
	n=$(($(fixture_monitor_delta "$2.mon" Search) + $(fixture_monitor_delta "$2.mon" Bind)))
	read -r _ _ u s _ <"$2.m"
	cpu=$(awk -v u="$u" -v s="$s" -v n="$n" 'BEGIN { printf "%.2f", (u + s) * 1e6 / n }')
	echo "$1 requests $n cpu/request ${cpu}us"
	echo "$1 $cpu" >>"$FIX_DIR/all"
}
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then order=(flow mix); else order=(mix flow); fi
	for c in "${order[@]}"; do run "$c" "$FIX_DIR/$c.$p"; done
done
awk '{ v[$1] = v[$1] " " $2 } END {
	for (c in v) { n = split(v[c], a, " "); asort(a); m[c] = a[int((n + 1) / 2)] }
	printf "median cpu/request: flow %.2fus, mix %.2fus, flow/mix %.3f\n", m["flow"], m["mix"], m["flow"] / m["mix"] }' \
	"$FIX_DIR/all"
