#!/usr/bin/env bash
# Machine-readable results against a real slapd: --json and --csv beside the
# text (same totals as the text and as cn=Monitor), --json - on stdout, merge of
# two concurrent runs, compare and its --fail-if exit statuses, bad input.
# No python: the files are read back by ldbench itself (compare and merge parse
# every line) and checked with grep/sed/awk.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 1000
out=$FIX_DIR/out.txt
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# The last record of TYPE in FILE.
record() { grep "^{\"type\":\"$2\"" "$1" | tail -n 1; }
# The Nth (default 1st) "NAME":value in a record given on stdin.
field() { grep -oE "\"$1\":(\"[^\"]*\"|[-0-9.]+|null)" | sed -n "${2:-1}p" | sed -E 's/^"[^"]*"://; s/^"(.*)"$/\1/'; }
# Microseconds with 3 decimals ("123.456") as whole nanoseconds.
ns() { local v=${1/./}; echo $((10#$v)); }

# 1. a -T run with --json and --csv: counts equal the text and the server's
fixture_monitor_snapshot "$D/snap"
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1 -r1 -R1000 \
	-n 4 -T 500 --interval 200ms --json "$D/r.json" --csv "$D/r.csv" --no-preflight
assert_eq 0 "$RC" "exit status of a -T run with --json and --csv"
text_total=$(global_total "$out")
assert_eq 2000 "$text_total" "text total"
assert_eq 2000 "$(fixture_monitor_delta "$D/snap" Search)" "server-side searches (cn=Monitor)"

# every line is one record: a header first, samples, a summary last
assert_eq header "$(head -n 1 "$D/r.json" | field type)" "first record"
assert_eq summary "$(tail -n 1 "$D/r.json" | field type)" "last record"
nlines=$(wc -l <"$D/r.json")
nsamples=$(grep -c '^{"type":"sample"' "$D/r.json")
assert_eq "$nlines" "$((nsamples + 2))" "lines = header + samples + summary"
assert_ge 1 "$nsamples" "sample records"
assert_eq 1 "$(head -n 1 "$D/r.json" | field schema)" "schema version"
assert_match '"command":"[^"]*-w \*\*\*\*\*' "$D/r.json" "command line with the password masked"
assert_no_match "$FIX_ROOTPW" "$D/r.json" "password never in the records"
assert_match '^\{"type":"header".*"start":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"' "$D/r.json" "ISO 8601 start time"
# ldbench's own reader parses every line (compare of the file with itself)
set +e; "$LDBENCH" compare "$D/r.json" -- "$D/r.json" >"$D/cmp.txt" 2>&1; rc=$?; set -e
assert_eq 0 "$rc" "compare of a run with itself"

sum=$(record "$D/r.json" summary)
assert_eq "$text_total" "$(field counted <<<"$sum")" "JSON summary counted = text total"
# ops.search comes first: the 1st attempted/completed/... of the record are search's
for f in attempted completed succeeded exp_hits; do
	assert_eq 2000 "$(field "$f" <<<"$sum")" "JSON summary search $f"
done
assert_eq 0 "$(field exp_misses <<<"$sum")" "JSON summary search misses"
assert_eq 2000 "$(field counted 2 <<<"$sum")" "JSON summary search counted"
line=$(grep -E 'search: attempted' "$out")
assert_eq "$(sed -E 's/.*entries ([0-9]+).*/\1/' <<<"$line")" "$(field entries <<<"$sum")" "JSON entries = text entries"
# the text prints p50 in ms with 3 decimals, the record in us with 3: the same value
p50_us=$(field p50 <<<"$sum")
p50_ms=$(sed -nE 's/.*search latency \(ms\): min [0-9.]+, mean [0-9.]+, p50 ([0-9.]+),.*/\1/p' "$out")
assert_eq "$p50_ms" "$(awk -v n="$(ns "$p50_us")" 'BEGIN { printf "%.3f", n / 1e6 }')" "JSON p50 = text p50"
assert_match '"histogram":"v1;2000;' "$D/r.json" "lossless histogram of 2000 values"
# the samples add up to the summary
s=0
while read -r c; do s=$((s + c)); done < <(grep '^{"type":"sample"' "$D/r.json" | sed -E 's/^[^}]*"counted":([0-9]+).*/\1/')
assert_eq 2000 "$s" "sum of the samples' counted"

# CSV: a header row, then one row per sample and kind, every row as wide as the header
head -n 1 "$D/r.csv" | grep -q '^sample,t_s,seconds,threads,kind,attempted,completed,' || _fail "CSV header: $(head -n 1 "$D/r.csv")"
echo "ok: CSV header row"
assert_eq 1 "$(awk -F, '{ print NF }' "$D/r.csv" | sort -u | wc -l)" "every CSV row has the header's width"
kinds=$(sed -nE 's/^\{"type":"sample".*"ops":\{(.*)$/\1/p' "$D/r.json" | head -n 1 | grep -oE '"(search|bind)":\{' | wc -l)
assert_eq "$((nsamples * kinds + 1))" "$(wc -l <"$D/r.csv")" "CSV rows = samples x kinds + header"
assert_eq 2000 "$(awk -F, '$5 == "search" { s += $9 } END { print s }' "$D/r.csv")" "CSV search counted adds up"

# 2. --json -: records on stdout, the text on stderr
set +e
timeout 120 "$LDBENCH" "${common[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 50 --json - >"$D/so.json" 2>"$D/se.txt"
rc=$?
set -e
assert_eq 0 "$rc" "exit status with --json -"
assert_eq 0 "$(grep -vc '^{"type":"' "$D/so.json" || true)" "stdout holds only records"
assert_match 'Global average rate: .*total: +50$' "$D/se.txt" "the text on stderr"
assert_eq 50 "$(record "$D/so.json" summary | field counted)" "summary on stdout"

# 3. merge: two ldbench processes at the same time
fixture_monitor_snapshot "$D/snap"
set +e
timeout 120 "$LDBENCH" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 2 -T 800 --no-preflight \
	--json "$D/a.json" >"$D/a.txt" 2>&1 &
pa=$!
timeout 120 "$LDBENCH" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R1000 -n 3 -T 400 -a 4 --no-preflight \
	--json "$D/b.json" >"$D/b.txt" 2>&1 &
pb=$!
wait "$pa"; ra=$?
wait "$pb"; rb=$?
"$LDBENCH" merge --json "$D/m.json" "$D/a.json" "$D/b.json" >"$D/merge.txt" 2>&1; rm=$?
set -e
assert_eq "0 0 0" "$ra $rb $rm" "exit statuses of the two runs and of merge"
assert_eq 1 "$(wc -l <"$D/m.json")" "one merged record"
ca=$(record "$D/a.json" summary | field counted)
cb=$(record "$D/b.json" summary | field counted)
cm=$(field counted <"$D/m.json")
assert_eq 1600 "$ca" "first run's count"
assert_eq 1200 "$cb" "second run's count"
assert_eq "$((ca + cb))" "$cm" "merged count = sum"
assert_eq "$cm" "$(fixture_monitor_delta "$D/snap" Search)" "merged count = server-side searches"
assert_eq "$((ca + cb))" "$(field count <"$D/m.json")" "merged histogram count = sum"
assert_match '"histogram":"v1;2800;' "$D/m.json" "merged histogram holds every value"
assert_match '"merged":\{"runs":2,' "$D/m.json" "merged member"
pa50=$(ns "$(record "$D/a.json" summary | field p50)")
pb50=$(ns "$(record "$D/b.json" summary | field p50)")
pm50=$(ns "$(field p50 <"$D/m.json")")
lo=$((pa50 < pb50 ? pa50 : pb50)); hi=$((pa50 < pb50 ? pb50 : pa50))
assert_ge "$lo" "$pm50" "merged p50 (ns) >= the smaller input p50"
assert_le "$hi" "$pm50" "merged p50 (ns) <= the larger input p50"
amax=$(ns "$(record "$D/a.json" summary | field max)")
bmax=$(ns "$(record "$D/b.json" summary | field max)")
assert_eq "$((amax > bmax ? amax : bmax))" "$(ns "$(field max <"$D/m.json")")" "merged max = larger max"
assert_match '^search +2800 +2800 ' "$D/merge.txt" "merge table"
# a merged record can be merged again and compared
set +e; "$LDBENCH" merge "$D/m.json" --json - >"$D/mm.json" 2>/dev/null; rc=$?; set -e
assert_eq 0 "$rc" "merge of a merged record"
assert_eq 1 "$(wc -l <"$D/mm.json")" "merge --json -: the record alone on stdout"
assert_eq 2800 "$(field counted <"$D/mm.json")" "merged again: same count"
# without --json: the table alone on stdout, nothing on stderr
set +e; "$LDBENCH" merge "$D/m.json" >"$D/mt.txt" 2>"$D/mt.err"; rc=$?; set -e
assert_eq 0 "$rc" "merge without --json"
assert_match '^merged 1 run: ' "$D/mt.txt" "merge without --json: the table"
assert_match '^kind +completed +counted +rate/s +p50 ms ' "$D/mt.txt" "merge table: latencies in ms"
assert_no_match '[{}]' "$D/mt.txt" "merge without --json: no record on stdout"
assert_eq 0 "$(wc -c <"$D/mt.err")" "merge without --json: nothing on stderr"

# 4. compare: the same files give 0% and exit 0 even under --fail-if
set +e
"$LDBENCH" compare --fail-if 'rate<-5%' --fail-if 'p99>+10%' "$D/a.json" "$D/b.json" "$D/r.json" -- \
	"$D/a.json" "$D/b.json" "$D/r.json" >"$D/cmp.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "compare of the same runs"
assert_match '^search +rate /s +[0-9.]+ +\[[0-9.]+\.\.[0-9.]+\] +[0-9.]+ +\[[0-9.]+\.\.[0-9.]+\] +\+0\.0%$' "$D/cmp.txt" "rate change 0%"
assert_match '^search +p99 ms .* \+0\.0%$' "$D/cmp.txt" "p99 change 0%"
# options anywhere (GNU style): after the CHANGE files, as README.md shows; a
# second -- ends the options (a file whose name begins with a dash)
cp "$D/r.json" "$D/-r.json"
set +e
(cd "$D" && "$LDBENCH" compare r.json -- a.json --fail-if 'rate<-99%' -- -r.json) >"$D/cmp2.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "compare with the options after the files"
assert_match "^fail-if 'rate<-99%': does not hold$" "$D/cmp2.txt" "compare: the option after the files is read"
assert_match '^\(1 base run, 2 change runs;' "$D/cmp2.txt" "compare: -r.json after the second -- is a change file"
assert_match "^fail-if 'rate<-5%': does not hold$" "$D/cmp.txt" "rate condition does not hold"
# a crafted worse run: a tenth of the rate, ten times the p99
record "$D/r.json" summary | sed -E 's/"rate":([0-9]+)[0-9]\.[0-9]+/"rate":\1.000/g; s/"p99":([0-9]+)\./"p99":\10./g' >"$D/worse.json"
assert_ge "$(($(ns "$(record "$D/r.json" summary | field p99)") * 9))" "$(ns "$(field p99 <"$D/worse.json")")" "crafted p99 about ten times worse"
for c in 'rate<-5%' 'p99>+10%' 'search.rate<-50%'; do
	set +e; "$LDBENCH" compare --fail-if "$c" "$D/r.json" -- "$D/worse.json" >"$D/cmp.txt" 2>&1; rc=$?; set -e
	assert_eq 1 "$rc" "compare --fail-if '$c' against a worse run"
	assert_match "^fail-if '$(sed 's/[.+]/\\&/g' <<<"$c")': holds \(search " "$D/cmp.txt" "verdict line of '$c'"
done
set +e; "$LDBENCH" compare --fail-if 'rate>+5%' "$D/r.json" -- "$D/worse.json" >"$D/cmp.txt" 2>&1; rc=$?; set -e
assert_eq 0 "$rc" "a condition that does not hold: exit 0"
# medians of 3 vs 3: one bad run among three good ones does not move the median
set +e
"$LDBENCH" compare --fail-if 'p99>+10%' --fail-if 'rate<-5%' "$D/r.json" "$D/r.json" "$D/r.json" -- "$D/r.json" "$D/r.json" "$D/worse.json" >"$D/cmp.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "one worse run of three: the median holds"
assert_match '^\(3 base runs, 3 change runs' "$D/cmp.txt" "3 vs 3 runs"

# 5. bad input: exit 2 and one line on stderr
printf '{"type":"header","schema":1}\n{"type":"sample",\n' >"$D/broken.json"
printf '{"type":"summary","schema":99,"ops":{}}\n' >"$D/future.json"
check_bad() { # what expected-regex command...
	local what=$1 re=$2; shift 2
	set +e; "$@" >"$D/bad.out" 2>"$D/bad.err"; local rc=$?; set -e
	assert_eq 2 "$rc" "$what: exit status"
	assert_eq 1 "$(wc -l <"$D/bad.err")" "$what: one line on stderr"
	assert_match "$re" "$D/bad.err" "$what: message"
}
check_bad "malformed line" "broken\.json:2: not JSON: column [0-9]+: " "$LDBENCH" compare "$D/broken.json" -- "$D/r.json"
head -n 1 "$D/r.json" >"$D/header-only.json"
check_bad "no summary" "header-only\.json: no summary record" "$LDBENCH" merge "$D/a.json" "$D/header-only.json"
check_bad "missing file" "nothere\.json: cannot read: No such file" "$LDBENCH" merge "$D/nothere.json"
check_bad "other schema" "schema 99; this ldbench reads schema 1" "$LDBENCH" compare "$D/future.json" -- "$D/r.json"
check_bad "bad expression" "'p99>10': the value must end with '%'" "$LDBENCH" compare --fail-if 'p99>10' "$D/r.json" -- "$D/r.json"
check_bad "no separator" "need BASE files, then --" "$LDBENCH" compare "$D/r.json" "$D/r.json"
record "$D/r.json" summary | sed -E 's/,"histogram":"[^"]*"//g' >"$D/nohist.json"
check_bad "summary without a histogram" "search has no histogram" "$LDBENCH" merge "$D/nohist.json"
printf '{"type":"summary","schema":1}\n' >"$D/empty.json"
check_bad "summary without fields" "summary record: seconds, rate" "$LDBENCH" merge "$D/empty.json"

# 6. a records file that cannot be created: cannot initialize, nothing sent
run_ldbench "$out" "${common[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 5 --json "$D/no/such/dir/r.json"
assert_eq 7 "$RC" "exit status when --json cannot be created"
assert_match "^ldbench: --json $D/no/such/dir/r\.json: cannot create: No such file or directory$" "$out" "one clear line"
run_ldbench "$out" "${common[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 5 --json - --csv -
assert_eq 2 "$RC" "--json - and --csv - together"
echo "records: all passed"
