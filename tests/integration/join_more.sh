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
	--duration 3s --warmup 500ms --op-log "$logs/a.oplog" --server-log "$FIX_STATS_LOG" --json "$logs/a.json" --csv "$logs/a.csv"
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

na=$JOINED

# 2. the CSV: the join's own header row once, then per kind ("search", "all") and figure a run row
# (OpenLDAP logs qtime: client, etime, queue, processing, outside), then per sample and figure a row
assert_eq 1 "$(grep -c '^join_sample,kind,sent,joined,figure,count,min_us,p50_us,p95_us,p99_us,max_us$' "$logs/a.csv")" \
	"CSV: the join's header row"
assert_eq 10 "$(grep -cE '^run,(search|all),'"$na,$na"',(client|etime|queue|processing|outside),'"$na"',' "$logs/a.csv")" \
	"CSV: 5 figures of search and of all, each of every joined search"
assert_eq $((rows * 5)) "$(grep -cE '^[0-9]+,search,[0-9]+,[0-9]+,(client|etime|queue|processing|outside),' "$logs/a.csv")" \
	"CSV: 5 figures per sample"

# 3. a second run; compare shows the join's p99 figures of both, merge adds the joins
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 --interval 1s \
	--duration 1s --server-log "$FIX_STATS_LOG" --json "$logs/b.json"
assert_eq 0 "$RC" "exit status, second run"
joined_all search "$out" "second run"
nb=$JOINED
"$LDBENCH" compare "$logs/a.json" -- "$logs/b.json" >"$logs/cmp.txt"
cat "$logs/cmp.txt" >&2
p99() { # FILE KIND FIGURE: the JSON's join p99 in ms, 3 decimals
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][-1]["join"]
k = r["all"] if sys.argv[2] == "all" else r["kinds"][sys.argv[2]]
print("%.3f" % k[sys.argv[3]]["p99_ms"])' "$@"
}
for fig in "server:etime" "outside:outside" "queue:queue" "processing:processing"; do
	label=${fig%%:*} key=${fig#*:}
	a=$(p99 "$logs/a.json" search "$key") b=$(p99 "$logs/b.json" search "$key")
	assert_match "^search +$label p99 +$a +$b +[-+][0-9.]+ +([-+][0-9.]+%|n/a)$" "$logs/cmp.txt" "compare: search $label p99"
done
assert_eq 8 "$(grep -cE '^(search|all) +(server|outside|queue|processing) p99 ' "$logs/cmp.txt")" "compare: 4 join lines per kind"
"$LDBENCH" merge --json "$logs/m.json" "$logs/a.json" "$logs/b.json" >"$logs/merge.txt"
cat "$logs/merge.txt" >&2
n=$((na + nb))
assert_match "Server log \(openldap\), search: $n of $n operations joined \(100\.0 %\)" "$logs/merge.txt" \
	"merge: the joins' counts add"
assert_match "\"join\":\{\"server\":\"openldap\".*\"search\":\{\"sent\":$n,\"joined\":$n,.*\"client\":\{[^}]*\"count\":$n,\"histogram\":\"" \
	"$logs/m.json" "merge: the merged record's join, its histograms added"
# the merged p99 comes from the added histograms: between the two runs' own
m99=$(p99 "$logs/m.json" search client)
lo=$(printf '%s\n%s\n' "$(p99 "$logs/a.json" search client)" "$(p99 "$logs/b.json" search client)" | sort -g | head -n 1)
hi=$(printf '%s\n%s\n' "$(p99 "$logs/a.json" search client)" "$(p99 "$logs/b.json" search client)" | sort -g | tail -n 1)
assert_eq 1 "$(awk -v m="$m99" -v l="$lo" -v h="$hi" 'BEGIN {print (m >= l - 0.002 && m <= h + 0.002) ? 1 : 0}')" \
	"merge: client p99 $m99 between the runs' $lo and $hi"

# 4. --rate: every operation joined; client and outside timed from the send, and said so
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 2 --rate 400 --duration 1s \
	--server-log "$FIX_STATS_LOG" --json "$logs/r.json"
assert_eq 0 "$RC" "exit status, --rate"
joined_all search "$out" "--rate searches"
assert_match 'Server log \(openldap\): --rate: client and outside are timed from the send' "$out" "--rate: which latency"
assert_match '"client_from":"send","rate":true' "$logs/r.json" "--rate: the JSON says so"
# the join's client figure is the uncorrected latency (from the send): its max is the run's uncorrected max
jmax=$(python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][-1]
print("%.3f %.3f" % (r["join"]["kinds"]["search"]["client"]["max_ms"], r["ops"]["search"]["uncorrected"]["latency_us"]["max"] / 1e3))' \
	"$logs/r.json")
assert_eq "${jmax% *}" "${jmax#* }" "--rate: the join's client max is the run's uncorrected max"

# 5. LDAPS: the tag and every search over TLS
run_ldbench "$out" -H "ldaps://127.0.0.1:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" \
	-b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 4 -T 50 --server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, ldaps"
joined_all search "$out" "ldaps searches"
assert_match 'Server log \(openldap\): connections 4, tagged in the log 4;' "$out" "ldaps: every connection tagged"

# 6. bindeach pipelined (-a 4): a connection, a tag, a bind and a search per cycle, all joined
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random,bindeach -r1 -R500 -n 2 -a 4 -T 40 \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, bindeach -a 4"
joined_all search "$out" "bindeach searches"
joined_all bind "$out" "bindeach binds"
assert_match 'Server log \(openldap\): connections 80, tagged in the log 80;' "$out" "bindeach: a tag per connection"

# 7. many clients on 2 I/O threads: every connection tagged, every operation joined
run_ldbench "$out" "${common[@]}" -f "(uid=userXXXXX)" -e esearch,random -r1 -R500 -n 500 --io-threads 2 -T 4 \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, 500 clients"
joined_all search "$out" "500 clients"
assert_match 'Server log \(openldap\): connections 500, tagged in the log 500;' "$out" "500 clients: every connection tagged"

# 8. the kind logged against the kind sent: a copy of the log whose first MOD of a run's connection
# reads DEL (hand-made bad input) joins every modify but that one, and says why
run_ldbench "$out" "${common[@]}" -f "uid=userXXXXX" -e attreplace=description:mXXXXXX,random -r1 -R500 -n 1 -T 20 \
	--op-log "$logs/k.oplog"
assert_eq 0 "$RC" "exit status, modifies for the kind check"
conn=$(grep -E 'conn=[0-9]+ op=0 SRCH base="" scope=0 deref=0 filter="\(description=ldbench-' "$FIX_STATS_LOG" | tail -n 1 |
	sed -E 's/.* conn=([0-9]+) op=0 .*/\1/')
first=$(grep -nE " conn=$conn op=[0-9]+ MOD dn=" "$FIX_STATS_LOG" | head -n 1 | cut -d: -f1)
assert_ge 1 "${first:-0}" "the connection's first MOD line"
sed -E "${first}s/ MOD dn=/ DEL dn=/" "$FIX_STATS_LOG" >"$logs/kind.log"
"$LDBENCH" join --op-log "$logs/k.oplog" "$logs/kind.log" >"$logs/kind.txt"
cat "$logs/kind.txt" >&2
assert_match 'Server log \(openldap\), modify: 19 of 20 operations joined \(95\.0 %\); 1 logged as another kind;' \
	"$logs/kind.txt" "one modify logged as a delete: not joined, counted"
assert_match '1 operations logged as another kind than the one sent: not joined' "$logs/kind.txt" "the note says why"
"$LDBENCH" join --op-log "$logs/k.oplog" "$FIX_STATS_LOG" >"$logs/kind.txt"
assert_match 'modify: 20 of 20 operations joined' "$logs/kind.txt" "the server's own log: all 20"

# 9. a pipelined mix of kinds: each joined whole, none logged as another kind
run_ldbench "$out" "${common[@]}" -f "uid=userXXXXX" -r1 -R500 -n 2 -a 2 --mix search:4,compare:2,whoami:1,extended:1,modify:1 \
	--compare "description=x" --extended 1.3.6.1.4.1.4203.1.11.3 -e attreplace=description:qXXXXXX,random -T 200 \
	--server-log "$FIX_STATS_LOG"
assert_eq 0 "$RC" "exit status, a mix"
for k in search compare whoami extended modify; do
	joined_all "$k" "$out" "the mix's $k"
done
assert_no_match 'logged as another kind' "$out" "no kind mismatch"

echo "join_more: all passed"
