#!/usr/bin/env bash
# --hdr-log against a real slapd, read by an independent reader: hdr-histogram-js
# (the npm registry's HdrHistogram port, installed into a temporary folder) must
# decode every interval line, and its counts and percentiles must equal the JSON
# records' within the histogram's precision (1/1024 of the value: the slot width).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
command -v node >/dev/null && command -v npm >/dev/null || _fail "node and npm are needed (tests/run.sh installs them)"
fixture_start --users 200
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE"
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R200 -n 2 --interval 200ms)

js=$D/js
mkdir -p "$js"
(cd "$js" && timeout 300 npm install --no-audit --no-fund --silent --prefix "$js" hdr-histogram-js@2 >/dev/null 2>&1) ||
	_fail "npm install hdr-histogram-js failed (is the npm registry reachable?)"
cat >"$js/check.js" <<'JS'
// check.js LOG JSON TAGS...: every interval histogram of LOG against the sample records of JSON
const hdr = require('hdr-histogram-js');
const fs = require('fs');
const [log, recs, ...tags] = process.argv.slice(2);
const samples = fs.readFileSync(recs, 'utf8').split('\n').filter(l => l).map(JSON.parse)
	.filter(r => r.type === 'sample');
const reader = new hdr.HistogramLogReader(fs.readFileSync(log, 'utf8'));
const lines = fs.readFileSync(log, 'utf8').split('\n').filter(l => l.startsWith('Tag=')).length;
const close = (a, b, what) => { // b: ldbench's microseconds; a: the reader's nanoseconds
	if (b === null) throw new Error(what + ': null in the records');
	if (Math.abs(a - b * 1000) > b * 1000 / 1024 + 1) throw new Error(`${what}: reader ${a} ns, ldbench ${b} us`);
};
let n = 0, h, last = -1;
while ((h = reader.nextIntervalHistogram()) !== null) {
	const s = samples[Math.floor(n / tags.length)], tag = tags[n % tags.length];
	if (h.tag !== tag) throw new Error(`histogram ${n}: tag ${h.tag}, expected ${tag}`);
	const [kind, unc] = tag.split('-');
	const lat = unc ? s.ops[kind].uncorrected.latency_us : s.ops[kind].latency_us;
	const what = `sample ${s.index} ${tag}`;
	if (h.totalCount !== lat.count) throw new Error(`${what}: count ${h.totalCount} != ${lat.count}`);
	if (lat.count > 0) {
		close(h.getValueAtPercentile(50), lat.p50, what + ' p50');
		close(h.getValueAtPercentile(95), lat.p95, what + ' p95');
		close(h.getValueAtPercentile(99), lat.p99, what + ' p99');
		close(h.maxValue, lat.max, what + ' max');
		close(h.minNonZeroValue, lat.min, what + ' min');
	}
	if (h.startTimeStampMsec < last) throw new Error(`${what}: start goes back`);
	last = h.startTimeStampMsec;
	n++;
}
if (n !== lines) throw new Error(`decoded ${n} histograms of ${lines} lines`);
if (n !== samples.length * tags.length) throw new Error(`${n} histograms for ${samples.length} samples`);
console.log(`decoded ${n} histograms`);
JS

# 1. a closed-loop run: one search and one bind line per sample
run_ldbench "$D/a.txt" "${common[@]}" -N 5 --json "$D/a.json" --hdr-log "$D/a.hlog"
assert_eq 0 "$RC" "exit status with --hdr-log"
assert_match '^#\[StartTime: [0-9]+\.[0-9]{3} \(seconds since epoch\), ' "$D/a.hlog" "StartTime header"
assert_match '^#\[BaseTime: [0-9]+\.[0-9]{3} \(seconds since epoch\)\]$' "$D/a.hlog" "BaseTime header"
assert_match '^Tag=search,[0-9.]+,[0-9.]+,[0-9.]+,HISTFAA' "$D/a.hlog" "a search interval line"
assert_eq 10 "$(grep -c '^Tag=' "$D/a.hlog")" "interval lines: 5 samples x 2 kinds"
node "$js/check.js" "$D/a.hlog" "$D/a.json" search bind >"$D/check.txt" || _fail "hdr-histogram-js: $(cat "$D/check.txt")"
assert_match '^decoded 10 histograms$' "$D/check.txt" "hdr-histogram-js decoded every line"

# 2. with --rate: the corrected and the uncorrected histogram of each kind
run_ldbench "$D/b.txt" "${common[@]}" -N 4 --rate 1500 --json "$D/b.json" --hdr-log "$D/b.hlog"
assert_eq 0 "$RC" "exit status with --rate and --hdr-log"
node "$js/check.js" "$D/b.hlog" "$D/b.json" search search-uncorrected bind bind-uncorrected >"$D/check.txt" ||
	_fail "hdr-histogram-js (--rate): $(cat "$D/check.txt")"
assert_match '^decoded 16 histograms$' "$D/check.txt" "hdr-histogram-js decoded the corrected and uncorrected lines"

# 3. a file that cannot be created: exit 7 before any connection; and no name
run_ldbench "$D/c.txt" "${common[@]}" -N 1 --hdr-log "$D/nodir/x.hlog"
assert_eq 7 "$RC" "--hdr-log into a missing directory"
assert_match 'hdr-log .*cannot create' "$D/c.txt" "its line"
run_ldbench "$D/c.txt" "${common[@]}" -N 1 --hdr-log -
assert_eq 2 "$RC" "--hdr-log - is refused"
echo "hdrlog: all checks passed"
