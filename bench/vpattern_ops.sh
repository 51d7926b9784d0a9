#!/usr/bin/env bash
# What a value pattern costs the client per operation, against ldclt's XXX,
# on the same throwaway slapd (tests/fixture/slapd.sh, 127.0.0.1 only):
#   xxx      -f "(uid=userXXXXXX)" -e esearch,random -r 1 -R 999999
#   pattern  -f "(uid=user[1-999999%000000])" -e esearch
# Both ask for the same filters (random six-digit uids, the same responses:
# no such entry), one client, one connection, one request at a time.
#   - user-space instructions per operation (valgrind callgrind): a run of N
#     operations and one of 2N, the difference over N, so start-up drops out;
#     steady on a loaded machine (the count does not depend on the load);
#   - CPU time per operation, user and system (ldbench's own "Client: CPU"
#     line over its operations), alternating runs of 4N, the least of five
#     rounds per case: indicative only, it moves by +-15 % and more on a
#     shared 2-core machine (bench/ab.sh).
#
#   bench/vpattern_ops.sh [N]     (default N = 2000)
# Needs a build in build/ (LDBENCH overrides), slapd, valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
export LDBENCH=${LDBENCH:-$PWD/build/ldbench}
N=${1:-2000}
. tests/fixture/slapd.sh
fixture_start --users 100
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -n 1 --seed 5)
args_of() { # case ops
	case $1 in
	xxx) A=("${common[@]}" -f "(uid=userXXXXXX)" -e esearch,random -r 1 -R 999999 --no-preflight -T "$2") ;;
	pattern) A=("${common[@]}" -f "(uid=user[1-999999%000000])" -e esearch --no-preflight -T "$2") ;;
	esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; fixture_stop' EXIT

echo "callgrind, user-space instructions per operation ((2N run - N run) / N, N = $N)"
declare -A per=()
for c in xxx pattern; do
	declare -A ir=()
	for s in 1 2; do
		args_of "$c" $((s * N))
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$LDBENCH" "${A[@]}" >"$tmp/out" 2>&1 || true
		grep -q 'Exit status 0' "$tmp/out" || { cat "$tmp/out" >&2; echo "vpattern_ops: the $c run failed" >&2; exit 1; }
		ir[$s]=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg")
	done
	per[$c]=$(awk -v a="${ir[1]}" -v b="${ir[2]}" -v n="$N" 'BEGIN { printf "%.0f", (b - a) / n }')
	printf '  %-8s %s instructions/op\n' "$c" "${per[$c]}"
done
awk -v a="${per[xxx]}" -v b="${per[pattern]}" 'BEGIN { printf "  pattern/xxx %.3f (%+.1f %%)\n", b / a, (b / a - 1) * 100 }'

echo "CPU time per operation, user + system (ldbench's Client: CPU line), 4N operations, 5 alternating rounds"
declare -A best=()
for r in 1 2 3 4 5; do
	for c in xxx pattern; do
		args_of "$c" $((4 * N))
		"$LDBENCH" "${A[@]}" >"$tmp/out" 2>&1 || true
		cpu=$(sed -nE 's/.*Client: CPU ([0-9.]+) s.*/\1/p' "$tmp/out")
		us=$(awk -v c="$cpu" -v n=$((4 * N)) 'BEGIN { printf "%.2f", c * 1e6 / n }')
		printf '  round %d %-8s %s us/op\n' "$r" "$c" "$us"
		if [ -z "${best[$c]:-}" ] || awk -v a="$us" -v b="${best[$c]}" 'BEGIN { exit !(a < b) }'; then best[$c]=$us; fi
	done
done
printf '  least per case: xxx %s us/op, pattern %s us/op\n' "${best[xxx]}" "${best[pattern]}"
