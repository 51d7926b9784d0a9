#!/usr/bin/env bash
# ldbench report and --html, checked in a real browser: headless Chromium
# renders each page to a screenshot and dumps its DOM; the page must load
# without a script error (the page's own window.onerror hook writes into
# #js-errors; a control page with a broken script proves the hook works), and
# the SVG must hold the expected series: one point per sample record for the
# per-sample charts, one per run for the sweep curves, one per code for errors.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$browser" ]] || _fail "chromium is needed (tests/run.sh installs it)"
command -v python3 >/dev/null || _fail "python3 is needed"
fixture_start --users 200
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
# samples of FILE whose KIND has a non-null p50
nlat() {
	python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and (r := json.loads(l))["type"] == "sample"
          and r["ops"][sys.argv[2]]["latency_us"]["count"] > 0))' "$1" "$2"
}

# the runs: closed loop, --rate (corrected and uncorrected), a sweep with --html, errors
run_ldbench "$D/a.txt" "${common[@]}" -n 2 -N 5 --json "$D/a.json"
assert_eq 0 "$RC" "run a"
run_ldbench "$D/b.txt" "${common[@]}" -n 2 -N 4 --rate 1500 --json "$D/b.json"
assert_eq 0 "$RC" "run b (--rate)"
run_ldbench "$D/s.txt" "${common[@]}" -N 3 --sweep 1,2,3 --json "$D/s.json" --html "$D/s.html"
assert_eq 0 "$RC" "sweep with --html"
# (--no-preflight: the point is a run whose searches all fail, which the pre-flight would stop)
run_ldbench "$D/e.txt" "${common[@]}" -n 1 -N 3 -b ou=nothere,dc=example,dc=com -E 1000000 --no-preflight --json "$D/e.json"
assert_eq 0 "$RC" "run e (every search fails: no such object)"

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

# 2. the sweep's page, written by --html: one point per run on each curve
render "$D/s.html"
assert_eq "" "$(page_errors "$D/s.html")" "s.html: no script error"
assert_eq 3 "$(points "$D/s.html.dom" 'this run' sweep rate)" "sweep: rate by concurrency"
assert_eq 3 "$(points "$D/s.html.dom" 'this run' sweep p99)" "sweep: p99 by concurrency"
n2=$(awk '/"type":"header"/ { r++ } /"type":"sample"/ && r == 2 { n++ } END { print n }' "$D/s.json")
assert_eq "$n2" "$(points "$D/s.html.dom" 'this run n=2' search rate)" "sweep: the n=2 run's samples"

# 3. errors by code over time: code 32 (no such object), one point per sample
"$LDBENCH" report -o "$D/e.html" "$D/e.json" >/dev/null
render "$D/e.html" noshot
assert_eq "" "$(page_errors "$D/e.html")" "e.html: no script error"
assert_eq "$(nsamples "$D/e.json")" "$(points "$D/e.html.dom" 'e.json code 32' errors 32)" "errors of code 32 per sample"

# 4. the hook is not blind: a page with a broken script reports it
sed 's|</body>|<script>no_such_function();</script></body>|' "$D/e.html" >"$D/broken.html"
render "$D/broken.html" noshot
assert_match 'no_such_function' <(page_errors "$D/broken.html") "a script error is seen"

# 5. bad input: exit 2, one line; an output that cannot be written: 7
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
