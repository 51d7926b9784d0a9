#!/usr/bin/env bash
# ldbench against an earlier ldbench in counts that do not depend on how the
# two cores happen to be shared: the same fixed number of operations on the
# same throwaway slapd, for the work tree's build and a base revision's,
#   - system calls and task-clock per operation (perf stat, tracepoint counts),
#     alternating base/new runs;
#   - user-space instructions per operation (valgrind callgrind) as a marginal
#     cost: a run of N operations and one of 2N, the difference over N, so that
#     start-up drops out; the client's threads only (callgrind
#     --separate-threads, every thread but the main one: its once-a-second
#     sampling follows valgrind's slowness, not the operations).  Besides the
#     clear-text workloads, LDAPS persistent (random searches) and LDAPS
#     bindeach, verified (--tls-cacert), with each build's default TLS library.
# The server: the test fixture's slapd (4 threads) or, with --server 389ds, a
# 389 DS instance of its own (tests/fixture/dirsrv.sh, as root: dscreate,
# 10,000 users uid=user00001..user10000 with password = uid, LDAPS with the
# instance's CA), made once per run and removed at exit, also after a failure.
# Wall-clock CPU per operation scatters by +-15% on a 2-core machine that also
# runs the server (bench/ab.sh); these counts show a change of a few percent.
# No traffic leaves 127.0.0.1.
#
#   bench/ab-counts.sh [--base REV | --base-bin BIN] [--rounds K] [--no-callgrind]
#                      [--no-perf] [--only REGEX] [--cg-reps K]
#                      [--server slapd|389ds]
#     --base REV      the revision to compare with (default: HEAD), built from a
#                     git worktree into build-bench-base/
#     --base-bin BIN  an ldbench binary already built (a Release build of the
#                     base) instead of --base: nothing built for it
#     --rounds K      perf stat rounds per workload and build (default 3)
#     --no-callgrind  only the perf stat part
#     --no-perf       only the callgrind part
#     --only REGEX    only the workloads whose name matches (e.g. 'ldaps')
#     --cg-reps K     callgrind pairs of runs per workload and build, alternating
#                     base and new (default 1); each pair's figure is printed
#     --server KIND   slapd (default) or 389ds (bench_server_start; root)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

base=HEAD base_bin= rounds=3 callgrind=1 perf=1 only= cg_reps=1 server=slapd
while (($# > 0)); do
	case $1 in
	--base) base=${2:?--base needs a revision}; shift 2 ;;
	--base-bin) base_bin=${2:?--base-bin needs a binary}; shift 2 ;;
	--no-perf) perf=0; shift ;;
	--only) only=${2:?--only needs a regular expression}; shift 2 ;;
	--cg-reps) cg_reps=${2:?--cg-reps needs a value}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
	--no-callgrind) callgrind=0; shift ;;
	--server) server=${2:?--server needs slapd or 389ds}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ab-counts: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ab-counts: --rounds must be a whole number >= 1" >&2; exit 2; }
[[ "$cg_reps" =~ ^[1-9][0-9]*$ ]] || { echo "ab-counts: --cg-reps must be a whole number >= 1" >&2; exit 2; }
[[ $server == slapd || $server == 389ds ]] || { echo "ab-counts: --server must be slapd or 389ds" >&2; exit 2; }
[[ -z $base_bin || -x $base_bin ]] || { echo "ab-counts: --base-bin $base_bin is not an executable" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
pkgs=(cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev zlib1g-dev slapd ldap-utils valgrind gawk git)
((perf)) && pkgs+=(linux-perf)
[[ $server == 389ds ]] && pkgs+=(389-ds-base python3-lib389 libnss3-tools openssl)
bench_install_missing "${pkgs[@]}"

declare -A BIN
if [[ -n $base_bin ]]; then
	echo "ab-counts: building the work tree (new), Release; base: $base_bin"
	bench_build "$ROOT" "$ROOT/build-bench"
	BIN=([new]=$ROOT/build-bench/ldbench [base]=$base_bin)
else
	bench_build_pair ab-counts "$ROOT" "$base"
	# the base's binary is built: its source tree goes now, so that the
	# server's EXIT trap (bench_server_start's) need not also remove it
	git -C "$ROOT" worktree remove --force "$_BENCH_BASE_WT"
	trap - EXIT
fi

# slapd: the test fixture's (4 threads, --nosync, --tls); 389ds: an instance of
# its own, removed by the EXIT trap bench_server_start sets before making it
bench_server_start "$server"
tmp=$(mktemp -d)
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=AddBench,$FIX_BASE
objectClass: organizationalUnit
ou: AddBench
LDIF
echo "ab-counts: $BENCH_SERVER, pid $FIX_PID, on $FIX_URI"

lo=1000000
args_of() { # WORKLOAD SCALE : sets A (arguments) and N (operations)
	local s=$2 c=(-h 127.0.0.1 -p "$FIX_PORT")
	local rnd=(-b "$FIX_PEOPLE" -f '(uid=userXXXXX)' -e esearch,random -r1 -R10000)
	local tls=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA")
	case $1 in
	"exact -n 16") A=("${c[@]}" -b "$FIX_PEOPLE" -f '(uid=user00042)' -e esearch -n 16 -T $((3000 * s))); N=$((48000 * s)) ;;
	"random -n 64") A=("${c[@]}" "${rnd[@]}" -n 64 -T $((750 * s))); N=$((48000 * s)) ;;
	"random -n 4 -a 16") A=("${c[@]}" "${rnd[@]}" -n 4 -a 16 -T $((12500 * s))); N=$((50000 * s)) ;;
	"bindeach -n 16")
		A=("${c[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX
			-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 16 -T $((1000 * s)))
		N=$((16000 * s)) ;;
	"modify -n 8")
		A=("${c[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -f "uid=userXXXXX"
			-e attreplace=description:XXXXXXXX,random -r1 -R10000 -n 8 -T $((2000 * s)))
		N=$((16000 * s)) ;;
	"add -n 4")
		A=("${c[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=AddBench,$FIX_BASE" -f "cn=aXXXXXXXX"
			-e add,person,incr,commoncounter,noloop -r "$lo" -R $((lo + 999999)) -n 4 -T $((1500 * s)))
		N=$((6000 * s)) lo=$((lo + 1000000)) ;;
	"random -n 1000") A=("${c[@]}" "${rnd[@]}" -n 1000 -T $((50 * s))); N=$((50000 * s)) ;;
	"ldaps random -n 16") A=("${tls[@]}" "${rnd[@]}" -n 16 -T $((500 * s))); N=$((8000 * s)) ;;
	"ldaps bindeach -n 4")
		A=("${tls[@]}" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX
			-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=10000 -n 4 -T $((25 * s)))
		N=$((100 * s)) ;;
	esac
}
workloads=()
for w in "exact -n 16" "random -n 64" "random -n 4 -a 16" "bindeach -n 16" "modify -n 8" "add -n 4" "random -n 1000" \
	"ldaps random -n 16" "ldaps bindeach -n 4"; do
	[[ -z $only || $w =~ $only ]] && workloads+=("$w")
done
# callgrind's: the workloads of the load's speed target (client CPU per operation)
cg_workloads=()
for w in "exact -n 16" "random -n 64" "random -n 4 -a 16" "bindeach -n 16" "ldaps random -n 16" "ldaps bindeach -n 4"; do
	[[ -z $only || $w =~ $only ]] && cg_workloads+=("$w")
done

# The instructions of every thread but the first (callgrind --separate-threads).
client_ir() { # TOOL
	local f=$tmp/cg n total=0
	rm -f "$f" "$f"-*
	valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$f" "${BIN[$1]}" "${A[@]}" >"$tmp/out" 2>&1 ||
		echo "ab-counts: $w ($1) under callgrind exited with $?: $(tail -n 1 "$tmp/out")" >&2
	for t in "$f"-*; do
		[[ $t == "$f-01" ]] && continue
		n=$(awk '/^(summary|totals):/ { print $2; exit }' "$t")
		total=$((total + n))
	done
	echo "$total"
}

if ((perf)); then
echo
echo "perf stat, fixed counts, $rounds alternating rounds: system calls and task-clock per operation"
printf '  %-18s %-5s %s\n' workload build 'per round: syscalls/op task-clock-us/op'
for w in "${workloads[@]}"; do
	declare -A line=([base]="" [new]="")
	for ((r = 1; r <= rounds; r++)); do
		order=(base new)
		((r % 2)) || order=(new base)
		for tool in "${order[@]}"; do
			args_of "$w" 1
			perf stat -x, -e raw_syscalls:sys_enter -e task-clock -o "$tmp/stat" "${BIN[$tool]}" "${A[@]}" \
				>"$tmp/out" 2>&1 || echo "ab-counts: $w ($tool) exited with $?: $(tail -n 1 "$tmp/out")" >&2
			line[$tool]+=$(awk -F, -v n="$N" '/task-clock/ { t = $1 } /raw_syscalls/ { c = $1 }
				END { printf " %.2f %.2f |", c / n, t * 1000 / n }' "$tmp/stat")
		done
	done
	printf '  %-18s %-5s%s\n' "$w" base "${line[base]}"
	printf '  %-18s %-5s%s\n' "$w" new "${line[new]}"
done
fi

if ((callgrind)); then
	echo
	echo "callgrind, user-space instructions per operation in the client's threads (the 2N run minus the N run, over N)"
	for w in "${cg_workloads[@]}"; do
		declare -A per=([base]="" [new]="")
		for ((r = 1; r <= cg_reps; r++)); do
			order=(base new)
			((r % 2)) || order=(new base)
			for tool in "${order[@]}"; do
				args_of "$w" 1
				a=$(client_ir "$tool")
				args_of "$w" 2
				b=$(client_ir "$tool")
				args_of "$w" 1
				per[$tool]+=" $(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.0f", (b - a) / n }')"
			done
		done
		printf '  %-20s %-5s%s instructions/op\n' "$w" base "${per[base]}"
		printf '  %-20s %-5s%s instructions/op\n' "$w" new "${per[new]}"
	done
fi
rm -rf "$tmp"
