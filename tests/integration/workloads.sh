#!/usr/bin/env bash
# Several workloads in one run ([workload NAME] sections of a scenario file)
# against a real slapd, through the decoding proxy (tests/tools/ldapcapture.py):
#   - bg: one client walking the whole tree with a paged search; fg: a search
#     load at a fixed rate.  The proxy sees the paged results control only on
#     bg's one connection, on every search of it, and fg's searches only on
#     fg's four connections;
#   - fg's rate (its count over the measured time) is its target within 1 %;
#   - each workload's counts add up to the total (text, JSON, CSV), and
#     slapd's Search counter (cn=Monitor) equals bg's pages plus fg's searches,
#     as the proxy counted them;
#   - the HTML page has a section per workload; merge and compare of two
#     runs go per workload, matched by name;
#   - --fail-if fg.search.p99 reads fg's own figures (exit 10 and its line
#     when it holds, 0 when not); the text has a block per workload;
#   - think time per workload: two workloads, two think times, each its own
#     target rate in its own lines;
#   - compare --fail-if naming a workload (fg.search.rate...): fg's own change,
#     the one its table shows; one-sided: does not hold; unknown: exit 2;
#   - the HTML page charts each workload's rate from its own samples;
#   - two workloads, each with a flow of its own (search, compare on @{1.dn}):
#     each flow's and step's counts its workload's, sums = slapd's Search and
#     Compare; one flow in two workloads: shared rows, counts per workload;
#   - the HTML page charts each workload's latency (p50, p99) from its own
#     samples beside its rate, its table holds the summary's figures; `report
#     r1 -- r3` draws both runs' series on one chart per workload, and its
#     compare section has a table per workload (the text compare's change);
#   - live metrics: /metrics scraped every second during the bg/fg run; each
#     workload's ldbench_workload_operations_total and its histogram's _count
#     in the last scrape equal its summary's completed, mid-run ones are
#     between 0 and those, and the workloads' sum equals the run's
#     ldbench_operations_total;
#   - eight workloads (the most), each with a flow of its own, through the
#     proxy: each flow's rows equal the proxy's requests of that flow, their
#     sums slapd's counters; a ninth flow is refused;
#   - bad input: one line each, exit 2, nothing sent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 300
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
people="ou=People,$FIX_BASE"
out=$FIX_DIR/out.txt
scen=$FIX_DIR/bgfg.scen
cat >"$scen" <<EOF
# background paged walk, foreground searches at a fixed rate
--no-preflight
[workload bg]
-n 1
-e esearch
-b $FIX_BASE
-s subtree
-f (objectClass=*)
--simple-page-size 50
[workload fg]
-n 4
-e esearch
-b $people
-f (uid=user[1-300%00000])
--rate 100
EOF

start_capture "$FIX_PORT" "$FIX_DIR/cap1.jsonl"
fixture_monitor_snapshot "$FIX_DIR/mon1"
# live metrics: scraped every second (a scrape a file) until the run ends; the
# endpoint lingers until the final figures are scraped once
mport=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$FIX_DIR/scrapes"
(i=0; while [ ! -e "$FIX_DIR/scrapes/stop" ]; do
	i=$((i + 1))
	curl -sf -m 5 -o "$FIX_DIR/scrapes/tmp" "http://127.0.0.1:$mport/metrics" &&
		mv "$FIX_DIR/scrapes/tmp" "$FIX_DIR/scrapes/$(printf %04d "$i")"
	sleep 1
done) &
scraper=$!
run_ldbench "$out" --scenario "$scen" -H "$CAP_URI" --duration 20s -i 5 --json "$FIX_DIR/r1.json" \
	--csv "$FIX_DIR/r1.csv" --html "$FIX_DIR/r1.html" --hdr-log "$FIX_DIR/r1.hlog" --fail-if 'fg.search.p99>20s' --fail-if 'bg.search.errors>0' \
	--metrics-listen "127.0.0.1:$mport" --metrics-linger 60s
assert_eq 0 "$RC" "exit status, bg and fg for 20 s"
touch "$FIX_DIR/scrapes/stop"
wait "$scraper"
capture_stop_all
sleep 1
mon=$(fixture_monitor_delta "$FIX_DIR/mon1" Search)
line() { sed -nE "s/^ldbench\\[[0-9]+\\]: $1: attempted [0-9]+, completed ([0-9]+),.*/\\1/p" "$out"; }
bg=$(line 'bg: search')
fg=$(line 'fg: search')
total=$(line search)
assert_eq "$total" "$((bg + fg))" "text: bg's and fg's searches add up to the total"
assert_match '^ldbench\[[0-9]+\]: bg: Global average rate: ' "$out" "bg's summary block"
assert_match '^ldbench\[[0-9]+\]: fg: Target rate: 100\.00/sec, achieved ' "$out" "fg's target in its block"
assert_match '^ldbench\[[0-9]+\]: fg: Average rate: ' "$out" "fg's sample lines"
assert_match '^<h3>bg \(this run\): 1 clients, [0-9.]+ s</h3>$' "$FIX_DIR/r1.html" "the page's section for bg"
assert_match '^<h3>fg \(this run\): 4 clients, [0-9.]+ s</h3>$' "$FIX_DIR/r1.html" "the page's section for fg"
for w in bg fg; do # each workload's rate chart: a point per sample of its own
	want=$(grep -c "\"type\":\"sample\".*\"workload\":\"$w\"" "$FIX_DIR/r1.json" || true)
	assert_match "data-name=\"$w search\" data-kind=\"search\" data-metric=\"rate\" data-points=\"$want\"" \
		"$FIX_DIR/r1.html" "$w's rate chart: its $want samples"
done
assert_match "<title>fg: rate per sample</title>" "$FIX_DIR/r1.html" "fg's chart's title"
assert_match "<title>fg: latency per sample</title>" "$FIX_DIR/r1.html" "fg's latency chart's title"
for w in bg fg; do # each workload's latency chart: p50 and p99, a point per sample of its own
	want=$(grep -c "\"type\":\"sample\".*\"workload\":\"$w\"" "$FIX_DIR/r1.json" || true)
	for m in p50 p99; do
		nm="$w search $m"
		[ "$w/$m" = fg/p99 ] && nm="$nm \\(corrected\\)" # fg has a target rate: the corrected p99
		assert_match "data-name=\"$nm\" data-kind=\"search\" data-metric=\"$m\" data-points=\"$want\"" \
			"$FIX_DIR/r1.html" "$w's latency chart: $m, its $want samples"
	done
done
assert_match "data-name=\"fg search p99-uncorrected\" data-kind=\"search\" data-metric=\"p99-uncorrected\" " \
	"$FIX_DIR/r1.html" "fg's latency chart: its uncorrected p99 too (a target rate)"
assert_no_match "data-name=\"bg search p99-uncorrected\"" "$FIX_DIR/r1.html" "bg's: no uncorrected p99 (closed loop)"
/usr/bin/python3 - "$FIX_DIR/r1.json" "$FIX_DIR/r1.csv" "$FIX_DIR/cap1.jsonl" "$mon" "$FIX_BASE" "$people" "$FIX_DIR/r1.hlog" <<'PY'
import csv, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
head, summ = recs[0], recs[-1]
assert head["config"]["workloads"] == ["bg", "fg"], head["config"]
w = summ["workloads"]
assert sorted(w) == ["bg", "fg"], list(w)
bg, fg = w["bg"]["ops"]["search"], w["fg"]["ops"]["search"]
tot = summ["ops"]["search"]
for k in ("attempted", "completed", "succeeded", "entries", "pages"):
    assert bg.get(k, 0) + fg.get(k, 0) == tot.get(k, 0), (k, bg.get(k), fg.get(k), tot.get(k))
assert w["bg"]["threads"] == 1 and w["fg"]["threads"] == 4 and summ["threads"] == 5
assert bg["errors"] == 0 and fg["errors"] == 0 and fg.get("pages", 0) == 0 and bg["pages"] > 0
# fg's rate: its count over the measured time, within 1 % of 100/s
rate = fg["completed"] / w["fg"]["seconds"]
assert abs(rate - 100) <= 1.0, ("fg's rate", rate)
assert w["fg"]["rate_target"] == 100 and w["bg"]["rate_target"] == 0
# the samples: a record per workload per interval, then the total's
samples = [r for r in recs if r["type"] == "sample"]
by = {}
for r in samples:
    by.setdefault(r["index"], {})[r.get("workload")] = r["ops"]["search"]["completed"]
for i, d in by.items():
    assert set(d) == {"bg", "fg", None}, (i, d)
    assert d["bg"] + d["fg"] == d[None], (i, d)
# --hdr-log: the run's intervals only (a workload's samples are not the run's), one line each
hlines = [l for l in open(sys.argv[7]) if l.startswith("Tag=search,")]
assert len(hlines) == len(by), ("hdr-log lines", len(hlines), "intervals", len(by))
# CSV: the same per workload, the total's rows with an empty workload
rows = list(csv.DictReader(open(sys.argv[2])))
assert rows and all(r["workload"] in ("bg", "fg", "") for r in rows), rows[:3]
cs = {}
for r in rows:
    cs.setdefault(r["sample"], {})[r["workload"]] = int(r["completed"])
for i, d in cs.items():
    assert d["bg"] + d["fg"] == d[""], (i, d)
# the proxy: the paged results control on bg's connection only, on every search of it
cap = [json.loads(l) for l in open(sys.argv[3])]
paged, plain = {}, {}
for l in cap:
    if l["op"] != "searchRequest":
        continue
    has = any(c["oid"] == "1.2.840.113556.1.4.319" for c in l["controls"])
    (paged if has else plain).setdefault(l["conn"], []).append(l)
assert len(paged) == 1, ("connections with paged searches", sorted(paged))
assert not set(paged) & set(plain), "a connection with paged and plain searches"
assert len(plain) == 4, ("fg's connections", sorted(plain))
assert all(l["base"] == sys.argv[5] and l["scope"] == 2 for v in paged.values() for l in v)
assert all(l["base"] == sys.argv[6] for v in plain.values() for l in v)
npaged = sum(len(v) for v in paged.values())
nplain = sum(len(v) for v in plain.values())
assert nplain == fg["completed"], ("fg's searches seen", nplain, fg["completed"])
# bg's last page request may be unanswered when the drain ends: sent, not a page
assert npaged - bg["pages"] in (0, 1), ("bg's pages seen", npaged, bg["pages"])
assert int(sys.argv[4]) == npaged + nplain, ("slapd's Search", sys.argv[4], npaged, nplain)
print("ok: bg %d walks (%d pages), fg %d searches at %.2f/s; slapd counted %s" %
      (bg["completed"], npaged, fg["completed"], rate, sys.argv[4]))
PY
# the page's workload tables hold the summary's figures (ms, as the run's table); the metrics' last
# scrape holds each workload's final counts, earlier ones less, and the workloads add up to the run's
/usr/bin/python3 - "$FIX_DIR/r1.json" "$FIX_DIR/r1.html" "$FIX_DIR/scrapes" <<'PY'
import json, os, re, sys
summ = [json.loads(l) for l in open(sys.argv[1])][-1]
page = open(sys.argv[2]).read()
for name, w in summ["workloads"].items():
    o = w["ops"]["search"]
    lat = o["latency_us"]
    row = ('<tr><td>%s</td><td>search</td><td class="n">%s</td><td class="n">[0-9.]+</td><td class="n">%.3f</td>'
           '<td class="n">%.3f</td><td class="n">%.3f</td><td class="n">%.3f</td>' %
           (name, o["counted"], lat["p50"] / 1e3, lat["p99"] / 1e3, lat["p99.9"] / 1e3, lat["max"] / 1e3))
    assert re.search(row, page), ("the page's row of " + name, row)
files = sorted(f for f in os.listdir(sys.argv[3]) if f.isdigit())
assert len(files) >= 5, ("scrapes", files)
line = re.compile(r'^(ldbench_(?:workload_)?operations_total|ldbench_workload_operation_duration_seconds_count)'
                  r'\{(.*)\} ([0-9]+)$')
def read(f):
    got = {}
    for l in open(os.path.join(sys.argv[3], f)):
        m = line.match(l.strip())
        if m:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            key = (m.group(1), labels.get("workload"), labels.get("kind"))
            got[key] = got.get(key, 0) + int(m.group(3))
    return got
last = read(files[-1])
for name, w in summ["workloads"].items():
    want = w["ops"]["search"]["completed"]
    assert last.get(("ldbench_workload_operations_total", name, "search")) == want, (name, want, last)
    assert last.get(("ldbench_workload_operation_duration_seconds_count", name, "search")) == \
        w["ops"]["search"]["latency_us"]["count"], (name, last)
total = last[("ldbench_operations_total", None, "search")]
assert total == summ["ops"]["search"]["completed"], (total, summ["ops"]["search"]["completed"])
assert total == sum(last[("ldbench_workload_operations_total", n, "search")] for n in summ["workloads"]), last
mid = [read(f) for f in files[:-1]]
mid = [g for g in mid if g.get(("ldbench_workload_operations_total", "fg", "search"), 0) > 0]
assert mid, "no scrape during the run with fg's searches"
for g in mid:
    for n in summ["workloads"]:
        assert g.get(("ldbench_workload_operations_total", n, "search"), 0) <= \
            summ["workloads"][n]["ops"]["search"]["completed"], (n, g)
    assert sum(g.get(("ldbench_workload_operations_total", n, "search"), 0) for n in summ["workloads"]) == \
        g[("ldbench_operations_total", None, "search")], g
print("ok: the page's workload rows; %d scrapes, the last: bg %d, fg %d, total %d" % (
    len(files), last[("ldbench_workload_operations_total", "bg", "search")],
    last[("ldbench_workload_operations_total", "fg", "search")], total))
PY

# --fail-if on fg's own p99: held (exit 10, its line); an unknown kind of a workload is bad input.
# Bound as the root DN with -w on the command line: every workload binds with it (the word is
# hidden from ps only once every workload has read it: the stars were their password once)
run_ldbench "$out" --scenario "$scen" -H "$FIX_URI" -D "$FIX_ROOTDN" -w "$(cat "$FIX_PWFILE")" --duration 3s \
	--fail-if 'fg.search.p99>1us' --json "$FIX_DIR/r3.json"
assert_eq 10 "$RC" "exit status, fg.search.p99>1us held"
assert_match '^ldbench\[[0-9]+\]: Connections: opened [0-9]+, reconnects 0, binds at connect [1-9][0-9]*$' "$out" \
	"every workload's connections bound with the command line's -w"
assert_match '^ldbench\[[0-9]+\]: Threshold failed: fg\.search\.p99>1us \(search is [0-9.]+ ms\)$' "$out" \
	"the threshold's line names fg's figure"

# merge and compare of the two runs: per workload, matched by name
"$LDBENCH" merge --json "$FIX_DIR/m.json" "$FIX_DIR/r1.json" "$FIX_DIR/r3.json" >"$out"
assert_match '^workload bg: threads 2, counted [0-9]+, rate [0-9.]+/s \(sum\)$' "$out" "merge's line for bg"
/usr/bin/python3 - "$FIX_DIR/m.json" "$FIX_DIR/r1.json" "$FIX_DIR/r3.json" <<'PY'
import json, sys
m = json.loads(open(sys.argv[1]).read())
ins = [[json.loads(l) for l in open(f)][-1] for f in sys.argv[2:]]
for name, threads in (("bg", 2), ("fg", 8)):
    w = m["workloads"][name]
    assert w["threads"] == threads, (name, w["threads"])
    for k in ("completed", "entries"):
        assert w["ops"]["search"][k] == sum(i["workloads"][name]["ops"]["search"][k] for i in ins), (name, k)
    assert w["ops"]["search"]["latency_us"]["count"] == w["ops"]["search"]["completed"], name
assert m["ops"]["search"]["completed"] == sum(m["workloads"][n]["ops"]["search"]["completed"] for n in ("bg", "fg"))
print("ok: merge adds each workload's records by name")
PY
"$LDBENCH" compare "$FIX_DIR/r1.json" -- "$FIX_DIR/r3.json" >"$out"
assert_match '^workload bg:$' "$out" "compare's table for bg"
assert_match '^workload fg:$' "$out" "compare's table for fg"
sed -n '/^workload fg:$/,$p' "$out" >"$out.fg"
assert_match '^search +rate /s +(99|100|101)\.[0-9]+ ' "$out.fg" "fg's base rate in fg's table (its 100/s)"
# the report page of the two: each workload's charts hold both runs' series; a compare table per workload
"$LDBENCH" report -o "$FIX_DIR/cmp.html" "$FIX_DIR/r1.json" -- "$FIX_DIR/r3.json" >/dev/null
for f in r1 r3; do
	for w in bg fg; do
		want=$(grep -c "\"type\":\"sample\".*\"workload\":\"$w\"" "$FIX_DIR/$f.json" || true)
		assert_match "data-name=\"$f\\.json $w search p99( \\(corrected\\))?\" data-kind=\"search\" data-metric=\"p99\" data-points=\"$want\"" \
			"$FIX_DIR/cmp.html" "report: $f's $w p99 series ($want samples) on $w's chart"
	done
done
assert_eq 1 "$(grep -c '<title>fg: latency per sample</title>' "$FIX_DIR/cmp.html")" "report: one latency chart for fg, both runs on it"
for w in bg fg; do
	pct=$(sed -n "/^workload $w:\$/,/^\$/p" "$out" | sed -nE 's/^search +p99 ms .* ([-+][0-9]+\.[0-9])%$/\1/p')
	[ -n "$pct" ] || _fail "compare's text: no p99 change for $w"
	pct=${pct/+/[+]}
	assert_match "<table class=\"compare\" data-workload=\"$w\">.*<tr data-kind=\"search\" data-metric=\"p99\">.*<td class=\"n\">$pct%</td></tr>" \
		<(tr -d '\n' <"$FIX_DIR/cmp.html" | sed 's#</table>#</table>\n#g' | grep "data-workload=\"$w\"") \
		"report: $w's compare table's p99 change is the text's ($pct%)"
done

# think time per workload: a 20 clients, 100 ms (200/s); b 10 clients, 250 ms (40/s)
cat >"$FIX_DIR/think.scen" <<EOF
--no-preflight
-b $people
-e esearch
-f (uid=user[1-300%00000])
[workload a]
-e esearch
-n 20
--think-time 100ms
[workload b]
-e esearch
-n 10
--think-time uniform:200ms-300ms
EOF
run_ldbench "$out" --scenario "$FIX_DIR/think.scen" -H "$FIX_URI" --duration 10s --seed 3 --json "$FIX_DIR/r2.json"
assert_eq 0 "$RC" "exit status, think time per workload"
assert_match '^ldbench\[[0-9]+\]: a: Target rate: 200\.00/sec, achieved ' "$out" "a's think time: 20 / 0.1 s"
assert_match '^ldbench\[[0-9]+\]: b: Target rate: 40\.00/sec, achieved ' "$out" "b's think time: 10 / 0.25 s"
assert_match '^ldbench\[[0-9]+\]: Target rate: 240\.00/sec, achieved ' "$out" "the total's: 240/s"
/usr/bin/python3 - "$FIX_DIR/r2.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
for name, want in (("a", 200), ("b", 40)):
    w = s["workloads"][name]
    rate = w["ops"]["search"]["completed"] / w["seconds"]
    assert abs(rate - want) <= 0.02 * want, (name, rate, want)
print("ok: a %.2f/s, b %.2f/s" % tuple(s["workloads"][n]["ops"]["search"]["completed"] / s["workloads"][n]["seconds"]
                                     for n in ("a", "b")))
PY

# compare --fail-if naming a workload: fg's own figures (its change the one fg's table shows)
"$LDBENCH" compare --fail-if 'fg.search.rate>-100%' --fail-if 'fg.search.rate<-100%' "$FIX_DIR/r1.json" -- \
	"$FIX_DIR/r3.json" >"$out" && RC=0 || RC=$?
assert_eq 1 "$RC" "compare's exit status, fg.search.rate>-100% held"
assert_match "^fail-if 'fg\\.search\\.rate<-100%': does not hold\$" "$out" "fg's rate did not fall by 100 %"
fgpct=$(sed -nE "s/^fail-if 'fg\\.search\\.rate>-100%': holds \\(fg\\.search rate ([-+][0-9]+\\.[0-9])%\\)\$/\\1/p" "$out")
tablepct=$(sed -n '/^workload fg:$/,$p' "$out" | sed -nE 's/^search +rate \/s .* ([-+][0-9]+\.[0-9])%$/\1/p')
assert_eq "$tablepct" "$fgpct" "the condition's change is fg's table's (not the run's)"
"$LDBENCH" compare --fail-if 'fg.search.rate>=0%' "$FIX_DIR/r1.json" -- "$FIX_DIR/r2.json" >"$out" && RC=0 || RC=$?
assert_eq 0 "$RC" "compare's exit status, fg only in the base runs"
assert_match "^fail-if 'fg\\.search\\.rate>=0%': does not hold\$" "$out" "a workload on one side only: not compared"
"$LDBENCH" compare --fail-if 'x.search.p99>+10%' "$FIX_DIR/r1.json" -- "$FIX_DIR/r3.json" >"$out" 2>&1 && RC=0 || RC=$?
assert_eq 2 "$RC" "compare's exit status, an unknown workload"
assert_eq 1 "$(wc -l <"$out")" "one line: compare's unknown workload"
assert_match "^ldbench compare: --fail-if 'x\\.search\\.p99>\\+10%': no workload 'x' in the runs \\(their workloads: bg, fg\\)\$" \
	"$out" "compare's line for an unknown workload"

# two workloads, each with a flow of its own (a search, then a compare on the
# DN found): each flow's and each step's counts are its own workload's, on
# rows of its own; their sums are slapd's Search and Compare counters
cat >"$FIX_DIR/flows.scen" <<EOF
--no-preflight
[workload a]
-n 1
-T 12
--flow fa
--step 'search base=$people filter=(uid=user[1-6%00000])'
--step 'compare dn=@{1.dn} attr=uid value=x'
[workload b]
-n 2
-T 7
--flow fb
--step 'search base=$people filter=(uid=user[295:304%00000])'
--step 'compare dn=@{1.dn} attr=sn value=x'
EOF
fixture_monitor_snapshot "$FIX_DIR/mon5"
run_ldbench "$out" --scenario "$FIX_DIR/flows.scen" -H "$FIX_URI" --duration 60s --json "$FIX_DIR/r5.json"
assert_eq 0 "$RC" "exit status, two workloads with a flow each"
assert_match '^ldbench\[[0-9]+\]: a: fa: attempted 12, completed 12, succeeded 12, counted 12, errors 0$' "$out" \
	"a's flows"
assert_match '^ldbench\[[0-9]+\]: a: fa\.2\.compare: attempted 12, completed 12, ' "$out" "a's compare step"
assert_match '^ldbench\[[0-9]+\]: b: fb: attempted ([0-9]+), completed \1, succeeded 14, counted 14, errors ' "$out" \
	"b's flows: 14 with an entry (-T 7, 2 clients)"
assert_match '^ldbench\[[0-9]+\]: b: fb\.2\.compare: attempted 14, completed 14, ' "$out" "b's compare step"
/usr/bin/python3 - "$FIX_DIR/r5.json" "$(fixture_monitor_delta "$FIX_DIR/mon5" Search)" \
	"$(fixture_monitor_delta "$FIX_DIR/mon5" Compare)" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
a, b = s["workloads"]["a"]["ops"], s["workloads"]["b"]["ops"]
assert not [k for k in b if k.startswith("fa")] and not [k for k in a if k.startswith("fb")], (sorted(a), sorted(b))
assert a["fa"]["completed"] == 12 and a["fa"]["succeeded"] == 12, a["fa"]
assert a["fa.1.search"]["completed"] == 12 and a["fa.2.compare"]["completed"] == 12, a
# b: 2 clients, 7 flows each with an entry (-T) over users 295..304 (300 exist): the others end as "no entry"
n = b["fb"]["completed"]
assert n > 14 and b["fb.1.search"]["completed"] == n and b["fb.2.compare"]["completed"] == 14, b
assert b["fb"]["succeeded"] == 14 and b["fb"]["errors_by_code"] == {"-14": n - 14}, b["fb"]
tot = s["ops"]
assert tot["fa"]["completed"] == 12 and tot["fb"]["completed"] == n, sorted(tot)
assert tot["fb.2.compare"]["completed"] == 14 and tot["fa.2.compare"]["completed"] == 12, sorted(tot)
searches, compares = 12 + n, 12 + 14
assert int(sys.argv[2]) == searches, ("slapd's Search", sys.argv[2], searches)
assert int(sys.argv[3]) == compares, ("slapd's Compare", sys.argv[3], compares)
print("ok: a 12 flows, b %d flows (14 found); slapd %s searches, %s compares" % (n, sys.argv[2], sys.argv[3]))
PY

# eight workloads (the most), each with a flow of its own (workload wI: I
# flows of a search of userI, then a compare on the DN found, one client),
# through the proxy: each flow's rows count its own workload's requests, the
# proxy saw I searches of userI and I compares of its DN, and slapd's Search
# and Compare counters are the flows' sums (36)
{
	echo --no-preflight
	for i in 1 2 3 4 5 6 7 8; do
		printf '[workload w%d]\n-n 1\n-T %d\n--flow f%d\n' "$i" "$i" "$i"
		printf -- "--step 'search base=%s filter=(uid=user0000%d)'\n" "$people" "$i"
		printf -- "--step 'compare dn=@{1.dn} attr=uid value=user0000%d'\n" "$i"
	done
} >"$FIX_DIR/flows8.scen"
start_capture "$FIX_PORT" "$FIX_DIR/cap8.jsonl"
fixture_monitor_snapshot "$FIX_DIR/mon8"
run_ldbench "$out" --scenario "$FIX_DIR/flows8.scen" -H "$CAP_URI" --duration 60s --json "$FIX_DIR/r8.json"
assert_eq 0 "$RC" "exit status, eight workloads with a flow each"
capture_stop_all
for i in 1 2 3 4 5 6 7 8; do
	assert_match "^ldbench\[[0-9]+\]: w$i: f$i: attempted $i, completed $i, succeeded $i, counted $i, errors 0\$" "$out" \
		"w$i's $i flows"
	assert_match "^ldbench\[[0-9]+\]: w$i: f$i\.2\.compare: attempted $i, completed $i, succeeded $i, " "$out" \
		"w$i's $i compares"
	assert_match "^ldbench\[[0-9]+\]: f$i: attempted $i, completed $i, succeeded $i, " "$out" "the total's f$i row"
done
assert_eq 36 "$(fixture_monitor_delta "$FIX_DIR/mon8" Search)" "slapd's searches: the eight flows' (1 + ... + 8)"
assert_eq 36 "$(fixture_monitor_delta "$FIX_DIR/mon8" Compare)" "slapd's compares: the eight flows'"
/usr/bin/python3 - "$FIX_DIR/r8.json" "$FIX_DIR/cap8.jsonl" "$people" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
cap = [json.loads(l) for l in open(sys.argv[2])]
people = sys.argv[3]
for i in range(1, 9):
    w = s["workloads"]["w%d" % i]["ops"]
    assert sorted(w) == ["f%d" % i, "f%d.1.search" % i, "f%d.2.compare" % i], (i, sorted(w))
    assert w["f%d.1.search" % i]["completed"] == i and w["f%d.2.compare" % i]["completed"] == i, (i, w)
    assert s["ops"]["f%d" % i]["completed"] == i, (i, s["ops"]["f%d" % i])
    uid = "user%05d" % i
    srch = [l for l in cap if l["op"] == "searchRequest" and l["filter"] == "(uid=%s)" % uid]
    cmp_ = [l for l in cap if l["op"] == "compareRequest" and l["dn"] == "uid=%s,%s" % (uid, people)]
    assert len(srch) == i and len(cmp_) == i, (i, len(srch), len(cmp_))
    assert all(l["value"] == uid for l in cmp_), cmp_
assert sum(1 for l in cap if l["op"] == "searchRequest") == 36, "the proxy's searches"
print("ok: eight workloads' flows, each its own rows; the proxy's counts per flow equal them")
PY
# compare and merge adopt the eight flows' rows by name (a process that did not run them)
"$LDBENCH" compare "$FIX_DIR/r8.json" -- "$FIX_DIR/r8.json" >"$out" 2>&1
assert_eq 0 "$?" "compare of eight flows' records"
assert_match '^f8\.2\.compare +rate /s +[0-9.]+ ' "$out" "compare's row for the eighth flow's compare step"
"$LDBENCH" merge --json "$FIX_DIR/m8.json" "$FIX_DIR/r8.json" "$FIX_DIR/r8.json" >"$out" 2>&1
assert_eq 0 "$?" "merge of two runs with eight flows"
/usr/bin/python3 - "$FIX_DIR/m8.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
for i in range(1, 9):
    assert s["ops"]["f%d" % i]["completed"] == 2 * i, (i, s["ops"].get("f%d" % i))
    assert s["ops"]["f%d.2.compare" % i]["completed"] == 2 * i, i
print("ok: merge holds the eight flows' rows, each twice its run's")
PY

# one flow (its steps before the first section) in two workloads: shared rows, each workload's counts its own
cat >"$FIX_DIR/flows2.scen" <<EOF
--no-preflight
--step 'search base=$people filter=(uid=user[1-6%00000])'
--step 'compare dn=@{1.dn} attr=uid value=x'
[workload a]
--flow fs
-n 1
-T 5
[workload b]
--flow fs
-n 2
-T 3
EOF
fixture_monitor_snapshot "$FIX_DIR/mon6"
run_ldbench "$out" --scenario "$FIX_DIR/flows2.scen" -H "$FIX_URI" --duration 60s
assert_eq 0 "$RC" "exit status, one flow in two workloads"
assert_match '^ldbench\[[0-9]+\]: a: fs\.2\.compare: attempted 5, completed 5, succeeded 5, ' "$out" "a's 5 flows"
assert_match '^ldbench\[[0-9]+\]: b: fs\.2\.compare: attempted 6, completed 6, succeeded 6, ' "$out" "b's 6 flows"
assert_match '^ldbench\[[0-9]+\]: fs: attempted 11, completed 11, succeeded 11, ' "$out" "the total's 11 flows"
assert_eq 11 "$(fixture_monitor_delta "$FIX_DIR/mon6" Search)" "slapd's searches: the two workloads' flows"
assert_eq 11 "$(fixture_monitor_delta "$FIX_DIR/mon6" Compare)" "slapd's compares: the two workloads' flows"

# bad input: one line each, exit 2, before any connection
start_capture "$FIX_PORT" "$FIX_DIR/cap2.jsonl"
bf=(-b "$people" -f "(uid=x)") # the run's -b and -f (none for flows alone)
bad() { # expected-line scenario-text [args]
	local want=$1 text=$2
	shift 2
	printf '%s\n' "$text" >"$FIX_DIR/bad.scen"
	run_ldbench "$out" --scenario "$FIX_DIR/bad.scen" -H "$CAP_URI" ${bf[@]+"${bf[@]}"} "$@"
	assert_eq 2 "$RC" "exit status: $want"
	assert_eq 1 "$(wc -l <"$out")" "one line: $want"
	assert_match "^ldbench: $want\$" "$out" "the line: $want"
}
bad "$FIX_DIR/bad.scen:3: \\[workload b\\] names no operation kind: give it its own -e, --mix or kind option" \
	$'[workload a]\n-e esearch\n[workload b]\n-n 2'
bad "$FIX_DIR/bad.scen:3: \\[workload a\\]: a second section with that name \\(line 1\\)" \
	$'[workload a]\n-e esearch\n[workload a]\n-e esearch'
bad "--fail-if 'x\\.search\\.p99>5ms': unknown workload 'x' \\(the workloads: a, b\\)" \
	$'[workload a]\n-e esearch\n[workload b]\n-e esearch' --fail-if 'x.search.p99>5ms'
bad "$FIX_DIR/bad.scen:3: -h is the run's, not a workload's: give it before the first \\[workload\\] section or on the command line" \
	$'[workload a]\n-e esearch\n-h 127.0.0.1'
bad "$FIX_DIR/bad.scen:2: --json is the run's, not a workload's: give it before the first \\[workload\\] section or on the command line" \
	$'[workload a]\n--json x.json\n-e esearch'
bf=()
nine=$(for i in 1 2 3 4 5 6 7 8 9; do printf '[workload w%d]\n--flow f%d\n--step whoami\n' "$i" "$i"; done)
bad "--flow: at most 8 different flows in a run \\(in \\[workload w9\\]\\)" "$nine"
bad "--flow x: two workloads' flows have this name \\(in \\[workload b\\]\\)" \
	$'[workload a]\n--flow x\n--step whoami\n[workload b]\n--flow x\n--step whoami\n--step whoami'
capture_stop_all
assert_eq 0 "$(wc -l <"$FIX_DIR/cap2.jsonl")" "nothing sent by the bad invocations"
echo "PASS: workloads"
