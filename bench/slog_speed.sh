#!/bin/bash
# The server log reader's speed (src/logs/slog.h) in lines and MB per CPU
# second of one core, on logs made of real servers' lines.
#
#   bench/slog_speed.sh [MB] [SEED...]
#
# Without SEED: a slapd of tests/fixture/slapd.sh with `loglevel stats`
# serves ldbench (random uid searches, then binds, a connection each) for a
# few seconds, and its stats log is the seed.  Each SEED given (a 389 DS
# access log, a slapd log) is measured as well.  For each seed,
# bench/slog_speed.c repeats its lines into a file of MB megabytes (default
# 200; conn= numbers moved up per repetition), plain and gzip'd, and reads
# it to the end: CPU time of the reading thread (CLOCK_PROCESS_CPUTIME_ID),
# not wall time, so the figure stays steady on a shared machine; still,
# read it as this machine's, at this load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib.sh
source "$root/bench/lib.sh"
mb=${1:-200}
shift || true
bench_build "$root" "$root/build-bench"
cmake --build "$root/build-bench" --target ldbench-slog-speed >/dev/null
speed=$root/build-bench/ldbench-slog-speed
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-slogspeed.XXXXXX")
seeds=("$@")
if ((${#seeds[@]} == 0)); then
	export LDBENCH=$root/build-bench/ldbench LDBENCH_SOURCE_DIR=$root FIX_STATS_LOG=$work/stats.log
	# shellcheck source=../tests/fixture/slapd.sh
	source "$root/tests/fixture/slapd.sh"
	fixture_start --users 1000
	trap 'fixture_stop; rm -rf "$work"' EXIT
	"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$(cat "$FIX_PWFILE")" -b "$FIX_PEOPLE" \
		-f 'uid=userXXXXX' -r1 -R1000 -e esearch,random -n 2 -T 5000 --no-preflight >/dev/null 2>&1
	"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D 'uid=userXXXXX,ou=People,dc=example,dc=com' -w userXXXXX \
		-e bindeach,bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=1000 -n 2 -T 500 --no-preflight \
		>/dev/null 2>&1
	fixture_stop
	cp "$FIX_STATS_LOG" "$work/seed-openldap.log"
	seeds=("$work/seed-openldap.log")
else
	trap 'rm -rf "$work"' EXIT
fi
for s in "${seeds[@]}"; do
	echo "seed $s: $(wc -l <"$s") lines, $(wc -c <"$s") bytes"
	echo "  plain: $("$speed" "$s" "$work/big.log" "$mb")"
	echo "  gzip:  $("$speed" "$s" "$work/big.log.gz" "$mb" --gz)"
	rm -f "$work/big.log" "$work/big.log.gz"
done
echo "(one core's CPU time; the machine may be shared: compare figures of one run, not across runs)"
