#!/usr/bin/env bash
# Every record adds up to the summary, against a real slapd:
# 1. the intervals of --json, --csv and --hdr-log (decoded by hdr-histogram-js)
#    add up exactly to the summary record (every count of every kind, the
#    latency counts, the measured seconds), at depth 1 and pipelined (-a 8),
#    under -N, --duration, -T, --warmup and SIGINT: the results that come back
#    after the last sample line are a last, partial interval ("final": true);
# 2. every client that never completed its TCP connect is named in the
#    summary with its reason: a connect still under way at the end (the
#    blackhole tool's "full" listener never accepts: SYNs are dropped), refused
#    (a closed port), timed out (-t); the reasons add up to -n exactly;
# 3. the relations of docs/results.md ("How the counts relate") hold in the
#    JSON summary for every way an operation ends: success, a result-code
#    error, a refused connect, a bind refused at connect, a timeout (-t
#    against a listener that never answers), the server gone mid-run, SIGINT;
#    and ldclt's "Global error" lines count the operations' and the set-ups'
#    codes, as before.
# Needs LDBENCH_BLACKHOLE (tests/tools/blackhole.c), node and npm (hdr-histogram-js).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/blackhole.sh" totals
trap blackhole_cleanup EXIT # before fixture_start: the fixture's trap runs it after its own
command -v node >/dev/null && command -v npm >/dev/null || _fail "node and npm are needed (tests/run.sh installs them)"
command -v python3 >/dev/null || _fail "python3 is needed"
fixture_start --users 500
D=$WORK
srv=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")
load=(-f "(uid=userXXXXX)" -e esearch,random -r1 -R500 --no-preflight)

js=$D/js
mkdir -p "$js"
(cd "$js" && timeout 300 npm install --no-audit --no-fund --silent --prefix "$js" hdr-histogram-js@2 >/dev/null 2>&1) ||
	_fail "npm install hdr-histogram-js failed (is the npm registry reachable?)"
cat >"$js/counts.js" <<'JS'
// counts.js LOG: every interval histogram of LOG decoded; per tag, the sum of their counts
const hdr = require('hdr-histogram-js');
const fs = require('fs');
const reader = new hdr.HistogramLogReader(fs.readFileSync(process.argv[2], 'utf8'));
const sums = {};
let h, n = 0;
while ((h = reader.nextIntervalHistogram()) !== null) {
	sums[h.tag] = (sums[h.tag] || 0) + h.totalCount;
	n++;
}
console.log(JSON.stringify({ histograms: n, counts: sums }));
JS

# adds.py JSON CSV HDRCOUNTS: the sample records, the CSV rows and the hdr log's
# intervals against the summary record; exit 1 with the first difference
cat >"$D/adds.py" <<'PY'
import csv, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
samples = [r for r in recs if r['type'] == 'sample']
summ = [r for r in recs if r['type'] == 'summary'][-1]
bad = []
def eq(what, a, b):
    if a != b:
        bad.append(f'{what}: intervals {a}, summary {b}')
fields = ['attempted', 'completed', 'succeeded', 'counted', 'errors', 'entries', 'exp_hits', 'exp_misses']
for k, o in summ['ops'].items():
    for f in fields:
        eq(f'json {k}.{f}', sum(s['ops'][k][f] for s in samples), o[f])
    eq(f'json {k} latency count', sum(s['ops'][k]['latency_us']['count'] for s in samples), o['latency_us']['count'])
    codes, fails = {}, {}
    for s in samples:
        for c, n in s['ops'][k]['errors_by_code'].items():
            codes[c] = codes.get(c, 0) + n
        for c, n in s['ops'][k]['client_failures'].items():
            fails[c] = fails.get(c, 0) + n
    eq(f'json {k} errors_by_code', codes, o['errors_by_code'])
    eq(f'json {k} client_failures', fails, o['client_failures'])
eq('json counted', sum(s['counted'] for s in samples), summ['counted'])
secs = sum(s['seconds'] for s in samples)
if abs(secs - summ['seconds']) > 1e-6 * (len(samples) + 1):
    bad.append(f'seconds: intervals {secs:.6f}, summary {summ["seconds"]:.6f}')
eq('one final record at most, the last', [i for i, s in enumerate(samples) if s.get('final')] in ([], [len(samples) - 1]), True)
rows = list(csv.DictReader(open(sys.argv[2])))
eq('csv rows', len(rows), len(samples) * len(summ['ops']))
cols = {'attempted': 'attempted', 'completed': 'completed', 'succeeded': 'succeeded', 'counted': 'counted',
        'errors': 'errors', 'entries': 'entries', 'lat_count': None}
for k, o in summ['ops'].items():
    for c, f in cols.items():
        want = o['latency_us']['count'] if f is None else o[f]
        eq(f'csv {k}.{c}', sum(int(r[c]) for r in rows if r['kind'] == k), want)
hdr = json.load(open(sys.argv[3]))
eq('hdr histograms', hdr['histograms'], len(samples) * len(summ['ops']))
for k, o in summ['ops'].items():
    eq(f'hdr {k} count', hdr['counts'].get(k, 0), o['latency_us']['count'])
final = 'with a final partial interval' if samples and samples[-1].get('final') else 'no partial interval'
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print(f'adds up: {len(samples)} intervals ({final}), search completed {summ["ops"]["search"]["completed"]}')
PY

# check_adds NAME: the files of run NAME add up
check_adds() {
	node "$js/counts.js" "$D/$1.hlog" >"$D/$1.hdr.json" || _fail "hdr-histogram-js could not read $1.hlog"
	python3 "$D/adds.py" "$D/$1.json" "$D/$1.csv" "$D/$1.hdr.json" >"$D/$1.adds" 2>&1 ||
		_fail "$1: the records do not add up to the summary: $(cat "$D/$1.adds")"
	echo "ok: $1: $(cat "$D/$1.adds")"
}
recs() { echo --json "$D/$1.json" --csv "$D/$1.csv" --hdr-log "$D/$1.hlog"; }

# relations.py JSON TEXT CAP: docs/results.md's relations in the summary record
# (CAP: the most requests that can be in flight, -n x connections x -a); the
# text's "Global error" lines = the operations' codes + the set-ups'
cat >"$D/relations.py" <<'PY'
import json, re, sys
summ = [json.loads(l) for l in open(sys.argv[1]) if '"type":"summary"' in l][-1]
cap = int(sys.argv[3])
bad = []
codes = {}
for k, o in summ['ops'].items():
    fails = sum(o['client_failures'].values())
    if not o['succeeded'] <= o['completed'] <= o['attempted']:
        bad.append(f'{k}: succeeded {o["succeeded"]} <= completed {o["completed"]} <= attempted {o["attempted"]}')
    if o['errors'] != sum(o['errors_by_code'].values()):
        bad.append(f'{k}: errors {o["errors"]} != sum of errors_by_code')
    if o['errors'] != o['completed'] - o['succeeded'] + fails:
        bad.append(f'{k}: errors {o["errors"]} != completed - succeeded + client failures ({o["completed"]} - {o["succeeded"]} + {fails})')
    inflight = o['attempted'] - o['completed'] - fails
    if not 0 <= inflight <= cap:
        bad.append(f'{k}: in flight at the end {inflight} not in [0, {cap}]')
    for c, n in o['errors_by_code'].items():
        codes[c] = codes.get(c, 0) + n
conn = summ['connections']
su = conn['setup_failures']
if su['errors'] != sum(su['errors_by_code'].values()):
    bad.append(f'setup: errors {su["errors"]} != sum of errors_by_code')
if su['errors'] != su['connect'] + su['tls'] + su['timeout'] + su['server_down'] + su['bind_refused']:
    bad.append(f'setup: errors {su["errors"]} != its failures + binds refused')
for c, n in su['errors_by_code'].items():
    codes[c] = codes.get(c, 0) + n
nc = conn['never_connected']
if nc['total'] != nc['not_started'] + nc['pending'] + nc['refused'] + nc['timed_out'] + nc['failed']:
    bad.append(f'never_connected: total {nc["total"]} != the sum of its reasons')
if nc['total'] > summ['threads']:
    bad.append(f'never_connected: {nc["total"]} > clients {summ["threads"]}')
text = {}
for line in open(sys.argv[2], errors='replace'):
    m = re.search(r'Global error (-?\d+) \(.*\) occurs +(\d+) times$', line)
    if m:
        text[m.group(1)] = int(m.group(2))
if text != codes:
    bad.append(f'Global error lines {text} != operations\' + set-ups\' codes {codes}')
if bad:
    print('\n'.join(bad))
    sys.exit(1)
o = summ['ops'].get('search') or next(iter(summ['ops'].values()))
print(f'relations hold: attempted {o["attempted"]}, completed {o["completed"]}, succeeded {o["succeeded"]}, '
      f'errors {o["errors"]}, client failures {sum(o["client_failures"].values())}, set-up errors {su["errors"]}, '
      f'never connected {nc["total"]}, codes {codes}')
PY
check_rel() { # NAME CAP WHAT
	python3 "$D/relations.py" "$D/$1.json" "$D/$1.txt" "$2" >"$D/$1.rel" 2>&1 || _fail "$3: $(cat "$D/$1.rel")"
	echo "ok: $3: $(cat "$D/$1.rel")"
}
jget() { # NAME PYTHON-EXPRESSION-ON-s (the summary record)
	python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"summary\"' in l][-1]; print($2)" "$D/$1.json"
}

echo "=== 1. the intervals add up to the summary"
run_ldbench "$D/n1.txt" "${srv[@]}" "${load[@]}" -n 4 -N 3 --interval 300ms $(recs n1)
assert_eq 0 "$RC" "exit status (-N, depth 1)"
check_adds n1
check_rel n1 4 "relations, successes at depth 1"
run_ldbench "$D/n8.txt" "${srv[@]}" "${load[@]}" -n 4 -a 8 -N 3 --interval 300ms $(recs n8)
assert_eq 0 "$RC" "exit status (-N, -a 8)"
check_adds n8
check_rel n8 32 "relations, successes at -a 8"
assert_eq 3 "$(grep -c 'Average rate:' "$D/n8.txt")" "ldclt's sample lines: one per -N sample, none for the end"
run_ldbench "$D/d8.txt" "${srv[@]}" "${load[@]}" -n 4 -a 8 --duration 1100ms --interval 300ms $(recs d8)
assert_eq 0 "$RC" "exit status (--duration, -a 8)"
check_adds d8
run_ldbench "$D/t8.txt" "${srv[@]}" "${load[@]}" -n 4 -a 8 -T 700 --interval 200ms $(recs t8)
assert_eq 0 "$RC" "exit status (-T, -a 8)"
check_adds t8
assert_eq 2800 "$(jget t8 "s['ops']['search']['completed']")" "-T: 4 x 700 searches completed"
run_ldbench "$D/w8.txt" "${srv[@]}" "${load[@]}" -n 4 -a 8 --warmup 400ms -N 2 --interval 300ms $(recs w8)
assert_eq 0 "$RC" "exit status (--warmup, -a 8)"
check_adds w8
check_rel w8 32 "relations after a warm-up (its operations in flight count in the measurement)"
for depth in 1 8; do
	"$LDBENCH" "${srv[@]}" "${load[@]}" -n 4 -a $depth --interval 300ms $(recs s$depth) >"$D/s$depth.txt" 2>&1 &
	LP=$!
	sleep 1.5 # a signal between two samples
	kill -INT "$LP"
	set +e
	wait "$LP"
	RC=$?
	set -e
	LP=
	assert_eq 0 "$RC" "exit status after SIGINT (-a $depth)"
	assert_match 'Catch SIGINT - exit' "$D/s$depth.txt" "SIGINT's line (-a $depth)"
	assert_match '"final":true' "$D/s$depth.json" "SIGINT: a final partial interval (-a $depth)"
	check_adds s$depth
	check_rel s$depth $((4 * depth)) "relations after SIGINT (-a $depth)"
done
assert_eq "$(grep -c '^{"type":"sample"' "$D/s8.json")" "$(($(grep -c 'Average rate:' "$D/s8.txt") + 1))" \
	"SIGINT: the records have ldclt's sample lines + the final interval"

echo "=== 2. clients that never connected, by reason (= -n)"
start_blackhole full
full=$BH_PORT
run_ldbench "$D/p.txt" -h 127.0.0.1 -p "$full" -b "$FIX_PEOPLE" "${load[@]}" -n 6 -N 2 --interval 300ms --json "$D/p.json"
assert_eq 0 "$RC" "exit status: connects still under way at the end"
assert_match 'Clients that never connected: 6 of 6 \(connect still under way at the end 6, refused 0, timed out 0, failed otherwise 0, never began one 0\)$' \
	"$D/p.txt" "the summary names the 6 clients still connecting"
nc="s['connections']['never_connected']"
assert_eq "6 6 0" "$(jget p "$nc['total'], $nc['pending'], $nc['refused'] + $nc['timed_out'] + $nc['failed'] + $nc['not_started']")" \
	"JSON never_connected: total, pending, the others"
check_rel p 6 "relations, connects under way (their requests in flight)"
run_ldbench "$D/pt.txt" -h 127.0.0.1 -p "$full" "${srv[@]:4}" "${load[@]}" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -n 6 -N 3 -t 1 --interval 500ms --json "$D/pt.json"
assert_eq 4 "$RC" "exit status: every connect timed out (-t 1): Cannot bind, as ldclt"
assert_match 'Clients that never connected: 6 of 6 \(connect still under way at the end 0, refused 0, timed out 6, failed otherwise 0, never began one 0\)$' \
	"$D/pt.txt" "the summary names the 6 clients whose connect timed out"
assert_match 'Connection set-ups failed \(no operation went on them\): connect 6, tls 0, timeout 0, server down 0, bind refused 0$' \
	"$D/pt.txt" "their 6 connects failed as set-ups"
check_rel pt 6 "relations, connects timed out"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
run_ldbench "$D/r.txt" -h 127.0.0.1 -p "$closed" -b "$FIX_PEOPLE" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" "${load[@]}" -n 6 -N 2 --interval 300ms --json "$D/r.json"
assert_eq 4 "$RC" "exit status: connects refused"
assert_match 'Clients that never connected: 6 of 6 \(connect still under way at the end 0, refused 6, timed out 0, failed otherwise 0, never began one 0\)$' \
	"$D/r.txt" "the summary names the 6 refused clients"
assert_match 'Global error -1 \(Can.t contact LDAP server\) occurs +6 times$' "$D/r.txt" "ldclt's line: 6 times -1"
assert_eq "0 0 6" "$(python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"summary\"' in l][-1]; o=s['ops']['search']; print(o['attempted'], o['errors'], s['connections']['setup_failures']['connect'])" "$D/r.json")" \
	"refused: no search attempted, none in error, 6 set-ups failed"
check_rel r 6 "relations, connects refused"

echo "=== 3. the relations for every way an operation ends"
run_ldbench "$D/e.txt" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "ou=nowhere,$FIX_PEOPLE" \
	"${load[@]}" -n 2 -N 2 --interval 300ms -I 32 --json "$D/e.json"
assert_eq 0 "$RC" "exit status: result 32 ignored with -I 32"
assert_ge 1 "$(python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"summary\"' in l][-1]; print(s['ops']['search']['errors_by_code'].get('32', 0))" "$D/e.json")" "results 32"
check_rel e 2 "relations, result-code errors"
run_ldbench "$D/b.txt" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w wrong-password -b "$FIX_PEOPLE" "${load[@]}" -n 2 -N 2 --json "$D/b.json"
assert_eq 4 "$RC" "exit status: bind refused at connect (Cannot bind, as ldclt)"
assert_match 'Global error 49 \(Invalid credentials\) occurs +2 times$' "$D/b.txt" "ldclt's line: 2 times 49"
assert_no_match 'bind: attempted 0' "$D/b.txt" "no bind line with errors and no attempt"
assert_match 'Connection set-ups failed \(no operation went on them\): connect 0, tls 0, timeout 0, server down 0, bind refused 2$' \
	"$D/b.txt" "the 2 binds refused at connect"
check_rel b 2 "relations, bind refused at connect"
start_blackhole silent
run_ldbench "$D/to.txt" -h 127.0.0.1 -p "$BH_PORT" -b "$FIX_PEOPLE" "${load[@]}" -n 3 -a 4 -t 1 -N 3 --interval 500ms -I -5 --json "$D/to.json"
assert_eq 0 "$RC" "exit status: timeouts ignored with -I -5"
assert_ge 12 "$(python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"summary\"' in l][-1]; print(s['ops']['search']['client_failures']['timeout'])" "$D/to.json")" \
	"timeouts: each of the 12 requests in flight at least once"
check_rel to 12 "relations, timeouts (-t 1, a listener that never answers)"
# the server gone mid-run (killed; its port then refuses): -I -1 keeps the clients going
"$LDBENCH" "${srv[@]}" "${load[@]}" -n 3 -a 4 -N 5 --interval 300ms -I -1 --json "$D/g.json" >"$D/g.txt" 2>&1 &
LP=$!
sleep 0.8
fixture_stop
set +e
wait "$LP"
RC=$?
set -e
LP=
assert_eq 0 "$RC" "exit status: the server gone, -I -1"
assert_ge 1 "$(python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"summary\"' in l][-1]; su=s['connections']['setup_failures']; print(s['ops']['search']['client_failures']['server_down'] + su['connect'] + su['server_down'])" "$D/g.json")" \
	"failures counted once the server was gone"
check_rel g 12 "relations, the server gone mid-run"
echo "totals: all checks passed"
