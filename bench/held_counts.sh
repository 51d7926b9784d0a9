#!/usr/bin/env bash
# What a probe of held connections costs the client against the same search
# on busy connections, in user-space instructions (valgrind callgrind: counts
# that do not depend on how busy the shared machine is), to check that a
# probe costs no more than the same operation on busy connections (within
# 10 %).  No traffic leaves 127.0.0.1.
#
#   bench/held_counts.sh [--held N] [--rate R] [--short S] [--long L]
#
# The fixture's slapd (tests/fixture/slapd.sh, 1000 users); one random uid
# search each operation (-e esearch,random), instructions of the load's I/O
# threads (--toggle-collect=ldb_iothread_main), marginal per operation:
# (I(L) - I(S)) / (ops(L) - ops(S)), so the connect phase, the binds and the
# start drop out by the subtraction.
#  held:       -n N --held --rate R --connect-rate 2500/s, S and L seconds;
#  busy, rate: -n 16 --rate R (the same rate on 16 busy connections), and
#              -n 1 --rate R (on one: every operation its own wake-up, as a
#              probe's; the 16 share some wake-ups, and how many varies);
#  busy:       -n 16 closed loop (-T), as many operations as the held runs.
# Prints a table and the ratios; the figures go to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=1000 R=200 short=4 long=12
while (($# > 0)); do
	case $1 in
	--held) N=${2:?}; shift 2 ;;
	--rate) R=${2:?}; shift 2 ;;
	--short) short=${2:?}; shift 2 ;;
	--long) long=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "held_counts: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "held_counts: valgrind is not installed" >&2; exit 2; }
command -v jq >/dev/null || { echo "held_counts: jq is not installed" >&2; exit 2; }
bin=${LDBENCH:-$ROOT/build/ldbench}
[[ -x $bin ]] || { echo "held_counts: build $bin first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
export LDBENCH=$bin LDBENCH_SOURCE_DIR=$ROOT
# shellcheck source=tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"
fixture_start --users 1000
D=$FIX_DIR
ulimit -n "$(ulimit -Hn)"
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE"
	-f '(uid=userXXXXX)' -r1 -R1000 -e esearch,random)

run() { # OUT ARGS...: prints "instructions operations"
	local out=$1
	shift
	valgrind --tool=callgrind --toggle-collect=ldb_iothread_main --callgrind-out-file="$out.cg" \
		"$bin" "${common[@]}" "$@" --json "$out.json" >"$out" 2>"$out.vg"
	local ins ops
	ins=$(awk '/^(summary|totals):/ { print $2; exit }' "$out.cg")
	ops=$(grep '"type":"summary"' "$out.json" | jq '.ops.search.completed')
	echo "$ins $ops"
}
per() { # "I_S OPS_S" "I_L OPS_L"
	awk -v s="$1" -v l="$2" 'BEGIN { split(s, a, " "); split(l, b, " ");
		printf "%.0f", (b[1] - a[1]) / (b[2] - a[2]) }'
}

echo "== held: -n $N --held --rate $R, ${short}s and ${long}s"
h_s=$(run "$D/h_s" -n "$N" --held --rate "$R" --connect-rate 2500/s --duration "${short}s")
h_l=$(run "$D/h_l" -n "$N" --held --rate "$R" --connect-rate 2500/s --duration "${long}s")
echo "== busy at the same rate: -n 16 --rate $R"
r_s=$(run "$D/r_s" -n 16 --rate "$R" --duration "${short}s")
r_l=$(run "$D/r_l" -n 16 --rate "$R" --duration "${long}s")
o_s=$(run "$D/o_s" -n 1 --rate "$R" --duration "${short}s")
o_l=$(run "$D/o_l" -n 1 --rate "$R" --duration "${long}s")
echo "== busy, closed loop: -n 16 -T"
ts=$(((${h_s#* } + 15) / 16)) tl=$(((${h_l#* } + 15) / 16))
b_s=$(run "$D/b_s" -n 16 -T "$ts")
b_l=$(run "$D/b_l" -n 16 -T "$tl")

ph=$(per "$h_s" "$h_l") pr=$(per "$r_s" "$r_l") po=$(per "$o_s" "$o_l") pb=$(per "$b_s" "$b_l")
printf '%-46s %12s %10s\n' "client instructions per search (callgrind)" "per op" "held / it"
printf '%-46s %12s %10s\n' "held: -n $N --held --rate $R" "$ph" ""
printf '%-46s %12s %10s\n' "busy at the same rate: -n 16 --rate $R" "$pr" "$(awk -v a="$ph" -v b="$pr" 'BEGIN { printf "%.3f", a / b }')"
printf '%-46s %12s %10s\n' "busy at the same rate: -n 1 --rate $R" "$po" "$(awk -v a="$ph" -v b="$po" 'BEGIN { printf "%.3f", a / b }')"
printf '%-46s %12s %10s\n' "busy, closed loop: -n 16 -T" "$pb" "$(awk -v a="$ph" -v b="$pb" 'BEGIN { printf "%.3f", a / b }')"
echo "(operations: held ${h_s#* } / ${h_l#* }, busy-rate ${r_s#* } / ${r_l#* } and ${o_s#* } / ${o_l#* }, busy ${b_s#* } / ${b_l#* })"
