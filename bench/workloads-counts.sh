#!/usr/bin/env bash
# Several workloads in one run ([workload NAME] sections) against each alone,
# in user-space instructions (valgrind callgrind), as a marginal cost: a run of
# N operations and one of 2N, the difference, so that start-up drops out.
#   A   8 clients, an exact search (-T fixed per client)
#   B   4 clients, searches over a value pattern (uid=user[1-10000])
#   A+B both as two workloads of one run (the same lines in two sections)
# Prints the instructions per operation of each, and A+B against A and B
# alone (the sum of their instructions over the sum of their operations).
# Wall-clock CPU scatters by +-15 % on the 2-core machine that also runs the
# server; these counts do not.  No traffic leaves 127.0.0.1.
#
#   bench/workloads-counts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[ "${1:-}" = "--help" ] && { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev slapd ldap-utils valgrind gawk
bench_build "$ROOT" "$ROOT/build-bench"
bin=$ROOT/build-bench/ldbench
tmp=$(mktemp -d)

# shellcheck source=tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"
fixture_start --users 10000 --nosync
echo "workloads-counts: slapd pid $FIX_PID on $FIX_URI"

scen() { # FILE SCALE WHICH(a|b|ab)
	local s=$2
	{
		echo "--no-preflight"
		echo "-b $FIX_PEOPLE"
		if [ "$3" != b ]; then
			[ "$3" = ab ] && echo "[workload a]"
			printf '%s\n' "-n 8" "-e esearch" "-f (uid=user00042)" "-T $((1000 * s))"
		fi
		if [ "$3" != a ]; then
			[ "$3" = ab ] && echo "[workload b]"
			printf '%s\n' "-n 4" "-e esearch" "-f (uid=user[1-10000%00000])" "-T $((2000 * s))"
		fi
	} >"$1"
}
declare -A ops=([a]=8000 [b]=8000 [ab]=16000)
declare -A per
for w in a b ab; do
	declare -A ir=()
	for s in 1 2; do
		scen "$tmp/$w.scen" "$s" "$w"
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" --scenario "$tmp/$w.scen" \
			-h 127.0.0.1 -p "$FIX_PORT" >"$tmp/out" 2>&1 || true
		grep -q 'Exit status 0' "$tmp/out" || { cat "$tmp/out" >&2; echo "workloads-counts: run $w failed" >&2; exit 1; }
		ir[$s]=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg")
	done
	per[$w]=$((ir[2] - ir[1]))
	printf '  %-4s %8d operations: %s instructions/op\n' "$w" "${ops[$w]}" \
		"$(awk -v d="${per[$w]}" -v n="${ops[$w]}" 'BEGIN { printf "%.0f", d / n }')"
done
awk -v a="${per[a]}" -v b="${per[b]}" -v ab="${per[ab]}" -v n="${ops[ab]}" 'BEGIN {
	printf "  A+B in one run: %.0f instructions/op; A and B alone: %.0f; ratio %.3f\n", ab / n, (a + b) / n, ab / (a + b) }'
rm -rf "$tmp"
