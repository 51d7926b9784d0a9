#!/usr/bin/env bash
# ldbench report and --html, checked in a real browser: headless Chromium
# renders each page to a screenshot and dumps its DOM; the page must load
# without a script error (the page's own window.onerror hook writes into
# #js-errors; a control page with a broken script proves the hook works), and
# the SVG must hold the expected series: one point per sample record for the
# per-sample charts, one per run for the sweep curves, one per code for errors;
# a run joined with slapd's log (--server-log) shows its stacked view per kind.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$browser" ]] || _fail "chromium is needed (tests/run.sh installs it)"
command -v python3 >/dev/null || _fail "python3 is needed"
jlogs=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-rhtml.XXXXXX")
export FIX_STATS_LOG=$jlogs/stats.log # loglevel stats: the join's run below reads it
fixture_start --users 200
trap 'fixture_stop; rm -rf "$jlogs"' EXIT
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE"
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R200 --interval 200ms)

# render PAGE [noshot]: DOM into PAGE.dom, screenshot PAGE.png (unless noshot), browser log PAGE.log
render() {
	local prof
	prof=$(mktemp -d "$D/chrome.XXXXXX")
	local opts=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
		--disable-component-update --disable-sync --user-data-dir="$prof" --window-size=1366,768
		--enable-logging=stderr --v=0)
	: >"$1.log"
	if [[ "${2:-}" != noshot ]]; then
		timeout 120 "$browser" "${opts[@]}" --screenshot="$1.png" "file://$1" >/dev/null 2>"$1.log" ||
			_fail "chromium --screenshot $1: $(tail -n 3 "$1.log")"
		[[ -s "$1.png" ]] || _fail "no screenshot of $1"
	fi
	timeout 120 "$browser" "${opts[@]}" --dump-dom "file://$1" >"$1.dom" 2>>"$1.log" ||
		_fail "chromium --dump-dom $1: $(tail -n 3 "$1.log")"
	rm -rf "$prof"
	# LDBENCH_REPORT_KEEP=DIR keeps the pages and screenshots to look at
	[[ -z "${LDBENCH_REPORT_KEEP:-}" ]] || cp "$1" "$1".* "$LDBENCH_REPORT_KEEP"/
}
# The script errors a page reported (its #js-errors text, and console errors in the log).
page_errors() {
	python3 - "$1.dom" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<pre id="js-errors">(.*?)</pre>', dom, re.S)
print(m.group(1).strip() if m else 'no #js-errors element')
PY
	grep -E 'Uncaught|CONSOLE.*(Error|error)' "$1.log" || true
}
# points DOM NAME KIND METRIC: the points of that series (-1 when absent); checks data-points too
points() {
	python3 - "$@" <<'PY'
import html.parser, sys
dom, name, kind, metric = sys.argv[1:5]
class P(html.parser.HTMLParser):
    found = -1
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'polyline' and a.get('data-name') == name and a.get('data-kind') == kind and a.get('data-metric') == metric:
            n = len(a['points'].split()) if a['points'] else 0
            if str(n) != a['data-points']:
                sys.exit('data-points %s but %d points' % (a['data-points'], n))
            self.found = n
p = P(); p.feed(open(dom, encoding='utf-8').read()); print(p.found)
PY
}
nsamples() { grep -c '^{"type":"sample"' "$1"; }
# ms_only PAGE: one unit for latency on the whole page, ms as the text, said in every header and axis
ms_only() {
	assert_no_match 'µs|&micro;' "$D/$1.html.dom" "$1.html: no latency in microseconds"
	assert_match '<th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th>' "$D/$1.html.dom" "$1.html: totals in ms"
	charts "$D/$1.html.dom" | awk -F'|' -v p="$1" '$1 ~ /latency/ && $2 !~ /^(p99 )?latency \(ms(, log scale)?\)$/ {
		print p ".html: chart \"" $1 "\" has the axis \"" $2 "\""; bad = 1 } END { exit bad }' || _fail "a latency axis not in ms"
}
# compare's table, one line per row: KIND|LABEL|BASE MEDIAN|CHANGE MEDIAN|CHANGE %, from the
# page's DOM (table.compare) or from `ldbench compare`'s text (cmp_rows dom|text FILE)
cmp_rows() {
	python3 - "$@" <<'PY'
import html.parser, re, sys
how, path = sys.argv[1:3]
src = open(path, encoding='utf-8').read()
if how == 'text':
    for l in src.splitlines()[2:]:
        if l.startswith('('):
            continue
        if 'only in the' in l:
            print('%s|%s' % (l[:8].strip(), l[9:].strip())); continue
        f = l[18:].split()
        print('|'.join([l[:8].strip(), l[9:17].strip(), f[0], f[2], f[4]]))
    sys.exit(0)
class P(html.parser.HTMLParser):
    on = False; row = None; rows = []
    def handle_starttag(self, tag, attrs):
        if tag == 'table' and ('class', 'compare') in attrs: self.on = True
        elif self.on and tag == 'tr': self.row = []
        elif self.on and tag == 'td' and self.row is not None: self.row.append('')
    def handle_endtag(self, tag):
        if tag == 'table': self.on = False
        elif self.on and tag == 'tr' and self.row: self.rows.append(self.row); self.row = None
    def handle_data(self, d):
        if self.on and self.row: self.row[-1] += d
p = P(); p.feed(src)
for r in p.rows:
    r = [c.strip() for c in r]
    print('|'.join(r if len(r) == 2 else [r[0], r[1], r[2], r[4], r[6]]))
PY
}
# The charts of a DOM, one line each: TITLE|AXIS LABEL (y)|x tick labels (space separated)|
# y tick values low..high|markers: NAME=RADIUS,... (the circles of sparse series)
charts() {
	python3 - "$1" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    cur = None; text = None; charts = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and 'chart' in (a.get('class') or ''):
            self.cur = {'title': '', 'ylabel': '', 'x': [], 'y': [], 'marks': []}
        elif self.cur is not None and tag == 'text':
            cls = a.get('class'); rot = 'rotate' in (a.get('transform') or '')
            self.text = ['', cls, a.get('text-anchor'), rot]
        elif self.cur is not None and tag == 'circle' and a.get('class') == 'mark':
            self.cur['marks'].append('%s=%s' % (a.get('data-name'), a.get('r')))
    def handle_data(self, d):
        if self.text is not None: self.text[0] += d
    def handle_endtag(self, tag):
        if tag == 'text' and self.text is not None and self.cur is not None:
            t, cls, anchor, rot = self.text; self.text = None
            if cls == 'title': self.cur['title'] = t
            elif cls == 'label' and rot: self.cur['ylabel'] = t
            elif cls == 'tick' and anchor == 'middle': self.cur['x'].append(t)
            elif cls == 'tick' and anchor == 'end': self.cur['y'].append(t)
        elif tag == 'svg' and self.cur is not None and self.cur['title']:
            self.charts.append(self.cur); self.cur = None
def val(t):
    return float(t[:-1]) * 1e3 if t.endswith('k') else float(t[:-1]) * 1e6 if t.endswith('M') else float(t)
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
for c in p.charts:
    ys = sorted(val(v) for v in c['y'])
    print('%s|%s|%s|%g..%g|%s' % (c['title'], c['ylabel'], ' '.join(c['x']), ys[0], ys[-1], ','.join(c['marks'])))
PY
}
# rowcells DOM TABLE-CLASS ATTR VALUE: the cells of the rows of that table whose ATTR is VALUE,
# one row a line: data-col=text pairs, space separated
rowcells() {
	python3 - "$@" <<'PY'
import html.parser, sys
dom, cls, attr, val = sys.argv[1:5]
class P(html.parser.HTMLParser):
    on = False; row = None; col = None; rows = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'table': self.on = cls in (a.get('class') or '').split()
        elif self.on and tag == 'tr' and a.get(attr) == val: self.row = []
        elif self.row is not None and tag == 'td': self.col = [a.get('data-col') or '?', '']
    def handle_data(self, d):
        if self.col is not None: self.col[1] += d
    def handle_endtag(self, tag):
        if tag == 'td' and self.col is not None:
            self.row.append('%s=%s' % tuple(self.col)); self.col = None
        elif tag == 'tr' and self.row is not None:
            self.rows.append(' '.join(self.row)); self.row = None
        elif tag == 'table': self.on = False
p = P(); p.feed(open(dom, encoding='utf-8').read())
print('\n'.join(p.rows))
PY
}
# col NAME: the value of data-col NAME in the rowcells line on stdin
col() { tr ' ' '\n' | sed -n "s/^$1=//p"; }
# samples of FILE whose KIND has a non-null p50
nlat() {
	python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and (r := json.loads(l))["type"] == "sample"
          and r["ops"][sys.argv[2]]["latency_us"]["count"] > 0))' "$1" "$2"
}

# the runs: closed loop, --rate (corrected and uncorrected), a sweep with --html, errors;
# a and b check srchnentries=1 over 250 uids of 200 users: hits and misses (--no-preflight:
# the misses are the point), which compare's table shows
nentries=(-e srchnentries=1 -R250 --no-preflight)
run_ldbench "$D/a.txt" "${common[@]}" "${nentries[@]}" -n 2 -N 5 --json "$D/a.json"
assert_eq 0 "$RC" "run a"
run_ldbench "$D/b.txt" "${common[@]}" "${nentries[@]}" -n 2 -N 4 --rate 1500 --json "$D/b.json"
assert_eq 0 "$RC" "run b (--rate)"
run_ldbench "$D/s.txt" "${common[@]}" -N 3 --sweep 1,2,3 --json "$D/s.json" --html "$D/s.html"
assert_eq 0 "$RC" "sweep with --html"
# (--no-preflight: the point is a run whose searches all fail, which the pre-flight would stop)
run_ldbench "$D/e.txt" "${common[@]}" -n 1 -N 3 -b ou=nothere,dc=example,dc=com -E 1000000 --no-preflight --json "$D/e.json"
assert_eq 0 "$RC" "run e (every search fails: no such object)"
# a run of one sample; a --rate-profile run (its mean target is not its peak)
run_ldbench "$D/one.txt" "${common[@]}" -n 1 -N 1 --json "$D/one.json"
assert_eq 0 "$RC" "run one (a single sample)"
run_ldbench "$D/p.txt" "${common[@]}" -n 2 --rate-profile 500-1000@1s --duration 1s --interval 250ms --json "$D/p.json"
assert_eq 0 "$RC" "run p (--rate-profile)"

# 1. two files overlaid, with the compare table
"$LDBENCH" report -o "$D/m.html" "$D/a.json" -- "$D/b.json" >"$D/r.txt" || _fail "report: $(cat "$D/r.txt")"
assert_match "written to $D/m.html" "$D/r.txt" "report's line"
for p in m s; do
	assert_no_match '<(link|img|iframe|object|embed)[ >]|<script[^>]* src=|url\(|@import|https?://' "$D/$p.html" \
		"$p.html: nothing fetched"
	assert_match "Content-Security-Policy\" content=\"default-src 'none'" "$D/$p.html" "$p.html: a policy that forbids fetches"
done
render "$D/m.html"
assert_eq "" "$(page_errors "$D/m.html")" "m.html: no script error"
assert_eq "$(nsamples "$D/a.json")" "$(points "$D/m.html.dom" a.json search rate)" "a.json: one rate point per sample"
assert_eq "$(nsamples "$D/b.json")" "$(points "$D/m.html.dom" b.json search rate)" "b.json: one rate point per sample"
assert_eq "$(nlat "$D/a.json" search)" "$(points "$D/m.html.dom" 'a.json p99' search p99)" "a.json: p99 points"
assert_eq "$(nlat "$D/b.json" search)" "$(points "$D/m.html.dom" 'b.json p99 (corrected)' search p99)" "b.json: corrected p99"
assert_eq "$(nlat "$D/b.json" search)" "$(points "$D/m.html.dom" 'b.json p99-uncorrected' search p99-uncorrected)" \
	"b.json: uncorrected p99"
assert_eq -1 "$(points "$D/m.html.dom" 'a.json p99-uncorrected' search p99-uncorrected)" "no uncorrected series without --rate"
assert_ge 10 "$(points "$D/m.html.dom" 'b.json uncorrected' search spectrum-uncorrected)" "b.json: uncorrected spectrum"
assert_ge 10 "$(points "$D/m.html.dom" 'a.json' search spectrum)" "a.json: spectrum from p50 to max"
assert_eq -1 "$(points "$D/m.html.dom" 'a.json' bind rate)" "no chart of a kind that did nothing"
assert_match '<tr data-kind="search" data-metric="p99"><td>search</td>' "$D/m.html.dom" "compare table row"
# the same figures as ldbench compare prints
"$LDBENCH" compare "$D/a.json" -- "$D/b.json" >"$D/c.txt"
pct=$(awk '$1 == "search" && $2 == "rate" { print $NF }' "$D/c.txt")
grep -q "data-metric=\"rate\">.*<td class=\"n\">$pct</td></tr>" "$D/m.html.dom" || _fail "compare's rate change $pct not in the page"
assert_match 'id="no-errors"' "$D/m.html.dom" "no errors: said so"
# the page's compare table is the text's, row for row: kind, label (misses and hits with
# srchnentries), the medians in the same unit, the change
assert_eq "search|rate /s search|p50 ms search|p99 ms search|misses search|hits" \
	"$(cmp_rows text "$D/c.txt" | cut -d'|' -f1,2 | tr '\n' ' ' | sed 's/ $//')" "compare's text rows with srchnentries"
assert_eq "$(cmp_rows text "$D/c.txt")" "$(cmp_rows dom "$D/m.html.dom")" \
	"compare table: the page's rows (labels, medians, change) are the text's"
ms_only m

# 2. the sweep's page, written by --html: one point per run on each curve
render "$D/s.html"
assert_eq "" "$(page_errors "$D/s.html")" "s.html: no script error"
assert_eq 3 "$(points "$D/s.html.dom" 'this run' sweep rate)" "sweep: rate by concurrency"
assert_eq 3 "$(points "$D/s.html.dom" 'this run' sweep p99)" "sweep: p99 by concurrency"
n2=$(awk '/"type":"header"/ { r++ } /"type":"sample"/ && r == 2 { n++ } END { print n }' "$D/s.json")
assert_eq "$n2" "$(points "$D/s.html.dom" 'this run n=2' search rate)" "sweep: the n=2 run's samples"
ms_only s

# 3. a run of one sample: a marker a person sees, an axis of whole seconds from 0, the values in ms
"$LDBENCH" report -o "$D/one.html" "$D/one.json" >/dev/null
render "$D/one.html" noshot
assert_eq "" "$(page_errors "$D/one.html")" "one.html: no script error"
assert_eq 1 "$(nsamples "$D/one.json")" "one sample"
ms_only one
charts "$D/one.html.dom" >"$D/one.charts"
cat "$D/one.charts"
rate_chart=$(grep '^search: rate per sample|' "$D/one.charts")
assert_eq "0 1" "$(cut -d'|' -f3 <<<"$rate_chart")" "one sample: the time axis reads 0 to 1 s, whole seconds"
assert_eq "one.json=5.0" "$(cut -d'|' -f5 <<<"$rate_chart")" "one sample: the lone rate point has a marker (radius 5)"
lat_chart=$(grep '^search: latency per sample|' "$D/one.charts")
assert_eq "0 1" "$(cut -d'|' -f3 <<<"$lat_chart")" "one sample: the latency chart's time axis"
assert_eq "one.json p50=5.0,one.json p99=5.0" "$(cut -d'|' -f5 <<<"$lat_chart")" "one sample: p50 and p99 markers"
# the y axes hold the values in ms: the log axis spans the sample's p50..p99 within a decade
# each side, and the spectrum's reaches the run's max
read -r p50 p99 < <(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "\"sample\"" in l][0]["ops"]["search"]["latency_us"]
print(s["p50"] / 1e3, s["p99"] / 1e3)' "$D/one.json")
mx=$(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][0]["ops"]["search"]["latency_us"]
print(s["max"] / 1e3)' "$D/one.json")
in_decade() { # LOW..HIGH VMIN VMAX: LOW <= VMIN, VMAX <= HIGH, within a decade
	awk -v r="$1" -v a="$2" -v b="$3" 'BEGIN { split(r, x, /\.\./); exit !(x[1] <= a && a < 10 * x[1] && b <= x[2] && x[2] <= 10 * b) }'
}
in_decade "$(cut -d'|' -f4 <<<"$lat_chart")" "$p50" "$p99" ||
	_fail "one sample: latency axis $(cut -d'|' -f4 <<<"$lat_chart") does not hold p50 $p50 ms, p99 $p99 ms"
spec_chart=$(grep '^search: latency by percentile' "$D/one.charts")
awk -v r="$(cut -d'|' -f4 <<<"$spec_chart")" -v m="$mx" 'BEGIN { split(r, x, /\.\./); exit !(m <= x[2] && x[2] <= 10 * m) }' ||
	_fail "spectrum axis $(cut -d'|' -f4 <<<"$spec_chart") does not end within a decade above the max $mx ms"
want=$(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][0]["ops"]["search"]["latency_us"]
print("<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>" % (s["p50"] / 1e3, s["p99"] / 1e3))' "$D/one.json")
assert_match "$want" "$D/one.html.dom" "totals: p50 and p99 in ms"

# 4. errors by code over time: code 32 (no such object), one point per sample; on the same page,
# a --rate-profile run: the page's target is the text's (the mean target over the run), the peak labelled
"$LDBENCH" report -o "$D/e.html" "$D/e.json" "$D/p.json" >/dev/null
render "$D/e.html" noshot
assert_eq "" "$(page_errors "$D/e.html")" "e.html: no script error"
assert_eq "$(nsamples "$D/e.json")" "$(points "$D/e.html.dom" 'e.json code 32' errors 32)" "errors of code 32 per sample"
ms_only e
target=$(sed -nE 's/.*Target rate: ([0-9.]+)\/sec, achieved .*\(.*/\1/p' "$D/p.txt" | tail -n 1)
assert_match "data-col=\"rate-target\">$target \(mean; peak 1000.00\)</td>" "$D/e.html.dom" \
	"rate-profile: the mean target $target as the text, the peak labelled"
assert_match 'data-col="rate-target">1500.00</td>' "$D/m.html.dom" "--rate 1500: the target, no peak"
assert_match 'data-col="rate-target">-</td>' "$D/m.html.dom" "closed loop: no target"

# 4b. a run joined with slapd's log, written by --html: per kind two stacked bars (p50, p99) of
# queue, processing and outside, their lengths the JSON's figures, and the verdict line
run_ldbench "$D/j.txt" "${common[@]}" -n 2 -N 2 --server-log "$FIX_STATS_LOG" --json "$D/j.json" --html "$D/j.html"
assert_eq 0 "$RC" "run j (--server-log, --html)"
render "$D/j.html" noshot
assert_eq "" "$(page_errors "$D/j.html")" "j.html: no script error"
assert_match '<h2 id="join">Where the time went: the server.s log</h2>' "$D/j.html.dom" "j.html: the join's section"
parts=$(python3 - "$D/j.html.dom" "$D/j.json" <<'PY'
import html.parser, json, sys
dom, rec = sys.argv[1:3]
j = [json.loads(l) for l in open(rec) if '"summary"' in l][-1]["join"]["kinds"]["search"]
class P(html.parser.HTMLParser):
    n = 0; bad = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'rect' and a.get('class') == 'part':
            self.n += 1
            want = '%.3f' % j[a['data-part']][a['data-at'] + '_ms']
            if a['data-ms'] != want or float(a['width']) < 0:
                self.bad.append('%s %s %s != %s' % (a['data-part'], a['data-at'], a['data-ms'], want))
p = P(); p.feed(open(dom, encoding='utf-8').read())
print(p.n, ';'.join(p.bad) or 'ok')
PY
)
assert_eq "6 ok" "$parts" "j.html: 3 parts x 2 bars of search, each the JSON's figure"
verdict=$(python3 -c 'import json, sys, html
print(html.escape([json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][-1]["join"]["verdict"], quote=False))' "$D/j.json")
grep -qF "this run (openldap): $verdict</p>" "$D/j.html.dom" || _fail "j.html: the verdict line"

# 4c. a replay of a real slapd log (ldapsearch and ldapcompare 0.6 s apart: a window over 1.5 s),
# written by --html with no --interval: sampled as a load is (a point per sample, not one for the
# whole replay); the Runs table gives it no clients and no seed; the Replay section shows its log,
# window, threads, connections, lateness, per kind what was sent and what differed, and what was
# not sent and why, each the JSON's figure
settled() { # every connection the stats log opened is closed
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' ACCEPT from ' "$FIX_STATS_LOG" || true)
		c=$(grep -cE ' fd=[0-9]+ closed' "$FIX_STATS_LOG" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the stats log after 5 s ($a accepted, $c closed)"
}
settled
n0=$(wc -l <"$FIX_STATS_LOG")
for u in 1 2 3; do
	ldapsearch -x -H "$FIX_URI" -b "$FIX_PEOPLE" "(uid=user0000$u)" 1.1 >/dev/null
	sleep 0.6
done
# the root DN's bind: no password given to the replay (not sent); the compare of a value the
# log does not hold (OpenLDAP logs the attribute only): recorded false, replayed true
ldapcompare -x -H "$FIX_URI" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" "uid=user00011,$FIX_PEOPLE" uid:nope >/dev/null || true
settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$D/rp.log"
tgt=(-h 127.0.0.1 -p "$FIX_PORT")
run_ldbench "$D/rp.txt" replay "${tgt[@]}" --timing recorded --json "$D/rp.json" --html "$D/rp.html" "$D/rp.log"
assert_eq 0 "$RC" "replay with --html"
render "$D/rp.html" noshot
assert_eq "" "$(page_errors "$D/rp.html")" "rp.html: no script error"
jr() { python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "\"summary\"" in l][-1]["replay"]
print(eval(sys.argv[2]))' "$1" "$2"; }
ns=$(nsamples "$D/rp.json")
assert_ge 2 "$ns" "a replay of a log window over 1 s: sampled every second by default"
nsearch=$(python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and (r := json.loads(l))["type"] == "sample" and "search" in r["ops"]))' "$D/rp.json")
assert_eq "$nsearch" "$(points "$D/rp.html.dom" 'this run' search rate)" "rp.html: one rate point per sample holding searches"
assert_match '^ldbench\[[0-9]+\]: Average rate: ' "$D/rp.txt" "the replay's sample lines"
run=$(rowcells "$D/rp.html.dom" runs data-run 0)
assert_eq "replay - - -" "$(for c in operation clients depth seed; do col $c <<<"$run"; done | tr '\n' ' ' | sed 's/ $//')" \
	"rp.html: a replay has no clients, depth or seed"
row=$(rowcells "$D/rp.html.dom" replay data-run 0)
want=$(jr "$D/rp.json" "' '.join([r['format'], str(r['lines']), '%.3f' % r['window_s'], r['timing'], '1',
	str(r['connections']['recorded']), str(r['connections']['opened']), str(r['unanswered']),
	'%.3f' % r['lateness']['p50_ms'], '%.3f' % r['lateness']['p99_ms'], '%.3f' % r['lateness']['max_ms']])")
assert_eq "$want" "$(for c in format lines window timing threads conns-recorded conns-opened unanswered \
	late-p50 late-p99 late-max; do col $c <<<"$row"; done | tr '\n' ' ' | sed 's/ $//')" \
	"rp.html: the replay's log, window, threads, connections, lateness (the JSON's)"
assert_eq "openldap recorded 1" "$(jr "$D/rp.json" "r['format'] + ' ' + r['timing'] + ' ' + str(int(r['window_s'] > 1.5))")" \
	"the log replayed: slapd's, on its schedule, its window over 1.5 s"
k=$(rowcells "$D/rp.html.dom" replay-kinds data-kind search)
assert_eq "3 3 3 0" "$(for c in read sent answered differ; do col $c <<<"$k"; done | tr '\n' ' ' | sed 's/ $//')" \
	"rp.html: the 3 searches read, sent, answered, none differing"
k=$(rowcells "$D/rp.html.dom" replay-kinds data-kind compare)
assert_eq "1 1 1" "$(for c in sent differ differ_code; do col $c <<<"$k"; done | tr '\n' ' ' | sed 's/ $//')" \
	"rp.html: the compare's result differs, by its code"
ex=$(python3 - "$D/rp.html.dom" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    on = False; cells = []; td = None
    def handle_starttag(self, tag, attrs):
        if tag == 'table': self.on = ('class', 'replay-differ') in attrs
        elif self.on and tag == 'td': self.td = ''
    def handle_data(self, d):
        if self.td is not None: self.td += d
    def handle_endtag(self, tag):
        if tag == 'td' and self.td is not None: self.cells.append(self.td); self.td = None
        elif tag == 'table': self.on = False
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read()); print(' '.join(p.cells))
PY
)
assert_eq "$(jr "$D/rp.json" "' '.join(['compare', str(r['kinds']['compare']['examples'][0]['conn']),
	str(r['kinds']['compare']['examples'][0]['op']), '5 6 - -'])")" "$ex" \
	"rp.html: the differing compare's example: recorded false (5), got true (6)"
ns_row=$(rowcells "$D/rp.html.dom" replay-not-sent data-reason no-password)
assert_eq "1 $(jr "$D/rp.json" "', '.join(str(n) for n in r['skipped']['no-password']['first_lines'])")" \
	"$(col count <<<"$ns_row") $(sed -n 's/.* lines=//p' <<<"$ns_row")" \
	"rp.html: the bind not sent (no password), with its log line"
# --threads 2: not sampled (--interval is refused there), the threads said
run_ldbench "$D/rp2.txt" replay "${tgt[@]}" --threads 2 --json "$D/rp2.json" --html "$D/rp2.html" "$D/rp.log"
assert_eq 0 "$RC" "replay --threads 2 with --html"
assert_eq 1 "$(nsamples "$D/rp2.json")" "--threads 2: the whole replay one sample"
assert_eq 2 "$(rowcells "$D/rp2.html" replay data-run 0 | col threads)" "rp2.html: 2 threads"
assert_eq "" "$(rowcells "$D/rp2.html" replay data-run 0 | col late-p50 | tr -d -)" "--timing asap: no lateness"

# 4d. the compare pages mark the sides: m.html (a.json -- b.json), e.html (e.json p.json: the first the base)
for c in "m a.json b.json" "e e.json p.json"; do
	read -r pg base change <<<"$c"
	assert_eq base "$(rowcells "$D/$pg.html.dom" runs data-side base | col side)" "$pg.html: the base run marked"
	assert_eq change "$(rowcells "$D/$pg.html.dom" runs data-side change | col side)" "$pg.html: the change run marked"
	assert_match "<tr data-run=\"0\" data-side=\"base\"><td>$base</td>" "$D/$pg.html.dom" "$pg.html: $base is the base"
	assert_match "<tr data-run=\"1\" data-side=\"change\"><td>$change</td>" "$D/$pg.html.dom" "$pg.html: $change the change"
	assert_match "<p class=\"note\" data-side=\"base\">base: <span class=\"side-base\">$base</span></p>" \
		"$D/$pg.html.dom" "$pg.html: the compare names the base file"
	assert_match "<p class=\"note\" data-side=\"change\">change: <span class=\"side-change\">$change</span></p>" \
		"$D/$pg.html.dom" "$pg.html: ... and the change file"
done
assert_no_match 'data-side' "$D/one.html.dom" "one file: no sides"

# 5. the hook is not blind: a page with a broken script reports it
sed 's|</body>|<script>no_such_function();</script></body>|' "$D/e.html" >"$D/broken.html"
render "$D/broken.html" noshot
assert_match 'no_such_function' <(page_errors "$D/broken.html") "a script error is seen"

# 6. bad input: exit 2, one line; an output that cannot be written: 7
set +e
"$LDBENCH" report >"$D/x.txt" 2>&1; rc1=$?
echo 'not json' >"$D/bad.json"
"$LDBENCH" report -o "$D/x.html" "$D/bad.json" >"$D/y.txt" 2>&1; rc2=$?
"$LDBENCH" report -o "$D/nodir/x.html" "$D/a.json" >"$D/z.txt" 2>&1; rc3=$?
set -e
assert_eq 2 "$rc1" "report without files"
assert_eq 2 "$rc2" "report of a file that is not JSON"
assert_match 'bad.json:1: not JSON' "$D/y.txt" "its line"
assert_eq 1 "$(wc -l <"$D/y.txt")" "one line"
assert_eq 7 "$rc3" "report into a missing directory"
echo "report_html: all checks passed"
