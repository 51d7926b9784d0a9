#!/usr/bin/env bash
# The join on a real slapd (loglevel stats into a logfile), beyond
# join_slapd.sh: the per-sample figures (by send time: each sample's joined
# counts add up to the client's), the CSV rows, compare and merge of two
# runs' joins, --rate, LDAPS, pipelined bindeach, many clients.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-joinmore.XXXXXX")
export FIX_STATS_LOG=$logs/stats.log
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
cleanup() { fixture_stop; rm -rf "$logs"; }
fixture_start --users 500 --tls
trap cleanup EXIT
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# KIND's client count (completed) and the join's line agree: "KIND: N of N operations joined (100.0 %)"
joined_all() { # KIND FILE WHAT
	local n
	n=$(sed -nE "s/.* $1: attempted [0-9]+, completed ([0-9]+),.*/\1/p" "$2" | tail -n 1)
	assert_ge 1 "${n:-0}" "$3: the client completed some"
	assert_match "Server log \(openldap\), $1: $n of $n operations joined \(100\.0 %\)" "$2" "$3: every one joined"
	JOINED=$n
}

# 1. per sample: 1 s samples over 3 s after a 500 ms warm-up; a search and modify mix
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 --interval 1s \
	--duration 3s --warmup 500ms --op-log "$logs/a.oplog" --server-log "$FIX_STATS_LOG" --json "$logs/a.json"
assert_eq 0 "$RC" "exit status, per-sample run"
joined_all search "$out" "searches"
grep 'Server log' "$out" >&2
assert_match 'Server log \(openldap\), per sample of 1 s \(by send time\)' "$out" "the per-sample table's head"
rows=$(grep -cE 'Server log \(openldap\), sample [0-9]+ search [0-9]+/[0-9]+( [0-9.]+/[0-9.]+){5}$' "$out")
assert_ge 3 "$rows" "a row per sample (3 s of 1 s samples)"
sum=$(sed -nE 's/.*Server log \(openldap\), sample [0-9]+ search ([0-9]+)\/([0-9]+) .*/\1 \2/p' "$out" |
	awk '{j += $1; s += $2} END {print j, s}')
assert_eq "$JOINED $JOINED" "$sum" "the samples' joined and sent add up to the client's count"
assert_match '"interval_ms":1000\.000,"samples":\[\{"sample":1,"kind":"search","sent":[0-9]+,"joined":[0-9]+,"client":\{"p50_ms"' \
	"$logs/a.json" "JSON: the samples array"

echo "join_more: all passed"
