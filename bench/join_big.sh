#!/usr/bin/env bash
# The join's speed and memory on a big server log (docs/performance.md, the
# join's part): `ldbench join` timed with /usr/bin/time (user + system CPU
# of the process, its max RSS), the log's MB read per CPU second.
#
#   bench/join_big.sh [--mb N] [--ops N] [--oplog FILE --log FILE]
#     --mb N     the big logs' size in MB (default 1000)
#     --ops N    searches per client of the seed run, 4 clients (default 50000)
#     --oplog FILE --log FILE   a seed run already made (its op-log, slapd's
#                stats log of it) instead of a new one
#
# The seed: a slapd of tests/fixture/slapd.sh with `loglevel stats` serves one
# run (4 clients on 2 I/O threads, random uid searches, --op-log), its log
# made only of that run's operations.  From it (bench/join_big.py):
#   1. the seed itself;
#   2. "run": a log of MB made only of a run's operations (the seed's lines
#      repeated, each copy its own connections, conn= and tags; the op-log
#      repeated to match): memory grows with the operations;
#   3. "window": a log of MB where the seed run is a small window inside other
#      runs' traffic (their tags of another run id): memory stays the seed's.
# Each join's output is checked: every search joined.  CPU time, not rates:
# the machine may be shared.  No traffic leaves 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
mb=1000 ops=50000 oplog='' log=''
while (($# > 0)); do
	case $1 in
	--mb) mb=${2:?--mb needs a value}; shift 2 ;;
	--ops) ops=${2:?--ops needs a value}; shift 2 ;;
	--oplog) oplog=${2:?--oplog needs a file}; shift 2 ;;
	--log) log=${2:?--log needs a file}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "join_big: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[[ "$mb" =~ ^[1-9][0-9]*$ && "$ops" =~ ^[1-9][0-9]*$ ]] ||
	{ echo "join_big: --mb and --ops must be whole numbers >= 1" >&2; exit 2; }
[[ -z "$oplog" && -z "$log" ]] || [[ -f "$oplog" && -f "$log" ]] ||
	{ echo "join_big: --oplog and --log go together, both existing files" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_install_missing cmake make gcc pkg-config libldap-dev libssl-dev zlib1g-dev slapd ldap-utils python3
LDBENCH=${LDBENCH:-}
if [[ -z "$LDBENCH" ]]; then
	bench_build "$ROOT" "$ROOT/build-bench"
	LDBENCH=$ROOT/build-bench/ldbench
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-joinbig.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z "$oplog" ]]; then
	export LDBENCH LDBENCH_SOURCE_DIR=$ROOT FIX_STATS_LOG=$work/seed.log
	# shellcheck source=../tests/fixture/slapd.sh
	source "$ROOT/tests/fixture/slapd.sh"
	fixture_start --users 10000
	trap 'fixture_stop; rm -rf "$work"' EXIT
	: >"$FIX_STATS_LOG" # the run's lines only (the fixture's own set-up before)
	"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" \
		-f "(uid=userXXXXX)" -e esearch,random -r1 -R10000 -n 4 --io-threads 2 -T "$ops" \
		--op-log "$work/seed.oplog" >"$work/seed.run" 2>&1
	fixture_stop
	trap 'rm -rf "$work"' EXIT
	oplog=$work/seed.oplog log=$work/seed.log
fi

# one join: NAME OPLOG LOG: the line of figures
join_one() {
	local name=$1 op=$2 lg=$3 bytes n
	bytes=$(stat -c %s "$lg")
	n=$(($(stat -c %s "$op") / 32 - 2)) # the records, about (the header is 80 bytes)
	/usr/bin/time -f '%U %S %M' -o "$work/$name.time" "$LDBENCH" join --op-log "$op" "$lg" >"$work/$name.out"
	grep -Eq '^Server log \(openldap\), search: ([0-9]+) of \1 operations joined' "$work/$name.out" ||
		{ echo "join_big: $name: not every search joined:" >&2; head -3 "$work/$name.out" >&2; exit 1; }
	read -r u s rss <"$work/$name.time"
	awk -v name="$name" -v b="$bytes" -v u="$u" -v s="$s" -v rss="$rss" -v n="$n" 'BEGIN {
		printf "%-7s log %7.1f MB, %8d records: CPU %.2f s (user %.2f, sys %.2f), %.0f MB/s, max RSS %.0f MB (%.0f bytes a record)\n",
			name, b / 1e6, n, u + s, u, s, b / 1e6 / (u + s), rss / 1024, rss * 1024 / n }'
}

echo "== the join of a slapd stats log, ldbench $("$LDBENCH" --version 2>/dev/null | head -1)"
join_one seed "$oplog" "$log"
python3 "$ROOT/bench/join_big.py" run "$oplog" "$log" "$mb" "$work/run.oplog" "$work/run.log" >/dev/null
join_one run "$work/run.oplog" "$work/run.log"
rm -f "$work/run.oplog" "$work/run.log"
python3 "$ROOT/bench/join_big.py" window "$oplog" "$log" "$mb" "$work/window.log" >/dev/null
join_one window "$oplog" "$work/window.log"
