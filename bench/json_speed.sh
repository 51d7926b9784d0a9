#!/bin/bash
# What reading ldbench's JSON records costs (src/report/json.h, read by merge,
# compare, report and the join's records), per record, against the JSON
# libraries Debian packages (json-c, jansson: installed when missing).
#
#   bench/json_speed.sh [MB]
#
# A slapd of tests/fixture/slapd.sh serves two ldbench runs (random uid
# searches, then a search/bind/modify mix) with --interval 100ms, their
# records written with --json: a header, a sample every 100 ms, a summary with
# its histograms.  bench/json_speed.c repeats those lines in memory until they
# hold MB megabytes (default 200: a merge of many runs' files) and parses
# them with each reader; it prints CPU time per record (one core), the best of
# three passes.  Read the figures as this machine's, at this load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib.sh
source "$root/bench/lib.sh"
mb=${1:-200}
bench_install_missing libjson-c-dev libjansson-dev
bench_build "$root" "$root/build-bench"
cmake -S "$root" -B "$root/build-bench" >/dev/null # json-c/jansson found if just installed
cmake --build "$root/build-bench" --target ldbench-json-speed >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-jsonspeed.XXXXXX")
export LDBENCH=$root/build-bench/ldbench LDBENCH_SOURCE_DIR=$root
# shellcheck source=../tests/fixture/slapd.sh
source "$root/tests/fixture/slapd.sh"
fixture_start --users 1000
trap 'fixture_stop; rm -rf "$work"' EXIT
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$(cat "$FIX_PWFILE")" -b "$FIX_PEOPLE" --no-preflight
	--interval 100ms -N 30)
"$LDBENCH" "${common[@]}" -f 'uid=userXXXXX' -r1 -R1000 -e esearch,random -n 2 --json "$work/a.json" >/dev/null 2>&1
"$LDBENCH" "${common[@]}" -f 'uid=userXXXXX' -r1 -R1000 -e random -n 2 --mix search:8,bind:1,modify:1 -e attreplace=description:XXXXXXXX \
	--json "$work/b.json" >/dev/null 2>&1 || true
fixture_stop
cat "$work/a.json" "$work/b.json" >"$work/seed.json"
echo "seed: $(wc -l <"$work/seed.json") records, $(wc -c <"$work/seed.json") bytes; repeated to $mb MB"
"$root/build-bench/ldbench-json-speed" "$work/seed.json" "$mb"
echo "(one core's CPU time; the machine may be shared: compare figures of one run, not across runs)"
