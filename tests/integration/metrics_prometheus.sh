#!/usr/bin/env bash
# --metrics-listen against a real Prometheus (Debian's prometheus, started here
# on 127.0.0.1 with a temporary directory) and a real slapd:
# 1. bad input: a port in use, a bad address or port, --metrics-linger alone:
#    one line each, exit 2, and no LDAP connection made;
# 2. Prometheus scrapes a search load (10 s, sampled every second) every
#    second; --metrics-linger holds the endpoint until the final figures are
#    scraped; then Prometheus' HTTP API gives, per kind:
#    sum(ldbench_operations_total) = the summary's completed, exactly;
#    the histogram's _count = the same; histogram_quantile(0.99) within 10 % of
#    the summary's p99; ldbench_run_info's run_id = the records' header's;
#    ok operations / ldbench_measured_seconds within 2 % of the summary's rate;
#    every query of the Grafana dashboard (packaging/grafana/ldbench-dashboard.json)
#    evaluates over the run and returns data (the errors' query: data only when
#    the summary counts errors; -S's and the replay's panels: none, they have
#    their own tests);
# 3. hostile scrapers during that run (a fixed --rate): 100 idle connections,
#    a client sending garbage, a reader that never reads; the endpoint still
#    answers GET /metrics (200) and anything else with 404, the run ends
#    without an error, and its achieved rate (the summary's, over measured
#    time) is the target's within 1 % (CPU is measured in
#    bench/metrics_overhead.sh, not asserted here).
# 4. two ldbench processes ("hosts") scraped together: sum without (instance)
#    of ldbench_operations_total = ldbench merge of their records' completed;
# 5. --metrics-push to a real Pushgateway (Debian's prometheus-pushgateway):
#    after the run the gateway holds, in the group job=ldbench,instance=HOST,
#    the summary's completed per kind and the histogram's _count; a gateway
#    that refuses: one warning line, the failures counted, the run goes on
#    (exit 0); a URL that is not http://: exit 2.
# Exit 77 (skipped) without prometheus or prometheus-pushgateway (tests/run.sh
# installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/prometheus.sh"
for tool in prometheus prometheus-pushgateway; do
	command -v $tool >/dev/null || { echo "skipped: $tool is not installed (apt-get install $tool)"; exit 77; }
done
command -v python3 >/dev/null || _fail "python3 is needed"
command -v curl >/dev/null || _fail "curl is needed"
fixture_start --users 500
D=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-metrics.XXXXXX")
prom_pid="" gw_pid=""
cleanup() {
	[[ -n "$prom_pid" ]] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	[[ -n "$gw_pid" ]] && kill "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	rm -rf "$D"
}
_FIX_PREV_EXIT_TRAP=cleanup
srv=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")
load=(-f "(uid=userXXXXX)" -e esearch,random -r1 -R500 --no-preflight -n 4)

# --- Prometheus, scraping the endpoint every second ---------------------------
mport=$(prom_free_port)
mport2=$(prom_free_port)
prom_start "$D" "127.0.0.1:$mport" "127.0.0.1:$mport2" || _fail "prometheus did not start"
pport=$PROM_PORT prom_pid=$PROM_PID
echo "ok: prometheus on 127.0.0.1:$pport, scraping 127.0.0.1:$mport"

# --- 1. bad input ----------------------------------------------------------------
before=$(fixture_total_connections)
bad() { # WHAT PATTERN ARGS...: one line on stderr matching PATTERN, exit 2
	local what=$1 pat=$2 rc=0
	shift 2
	"$LDBENCH" "${srv[@]}" "${load[@]}" -N 1 "$@" >"$D/bad.out" 2>"$D/bad.err" || rc=$?
	assert_eq 2 "$rc" "$what: exit status"
	assert_eq 1 "$(wc -l <"$D/bad.err")" "$what: lines on stderr"
	grep -qE -- "$pat" "$D/bad.err" || _fail "$what: '$(cat "$D/bad.err")' does not say $pat"
	echo "ok: $what: $(cat "$D/bad.err")"
}
bad "port in use" "cannot listen: Address already in use" --metrics-listen "127.0.0.1:$pport"
bad "bad address" "bad address '300.1.2.3'" --metrics-listen 300.1.2.3:9464
bad "host name" "bad address 'localhost'" --metrics-listen localhost:9464
bad "bad port" "bad port 'x'" --metrics-listen 127.0.0.1:x
bad "port 0" "bad port '0'" --metrics-listen 0
bad "linger alone" "--metrics-linger needs --metrics-listen" --metrics-linger 5s
bad "push URL" "--metrics-push 'ftp://x': not an http" --metrics-push ftp://x
bad "bad linger" "--metrics-linger 'soon': not a duration" --metrics-listen "$mport" --metrics-linger soon
assert_eq "$before" "$(fixture_total_connections)" "LDAP connections made by the bad invocations"

# --- 2. and 3. a scraped run, with hostile clients -------------------------------
cat >"$D/hostile.py" <<'PY'
# hostile.py PORT SECONDS: 100 idle connections, one sending garbage, one asking
# for /metrics and never reading, all held SECONDS (reconnected when closed)
import socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
def conn(send=b''):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    try:
        s.connect(('127.0.0.1', port))
        if send:
            s.sendall(send)
    except OSError:
        pass
    return s
end = time.time() + secs
held = []
while time.time() < end:
    for s in held:
        s.close()
    held = [conn() for _ in range(100)]
    held.append(conn(b'\x00\xffGARBAGE / HTTP/9\r\n\r\n' * 50))
    held.append(conn(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'))
    time.sleep(2)
PY
rc=0
rate=200 # a fixed rate: the hostile clients must not change what the load achieves
t0=$(date +%s)
"$LDBENCH" "${srv[@]}" "${load[@]}" --rate "$rate" --interval 1s --duration 10s --metrics-listen "127.0.0.1:$mport" \
	--metrics-linger 30s --json "$D/run.json" >"$D/run.out" 2>&1 &
ld=$!
sleep 3
python3 "$D/hostile.py" "$mport" 5 &
hostile=$!
sleep 2
code=$(curl -s -m 5 -o "$D/scrape.txt" -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
assert_eq 200 "$code" "GET /metrics among 100 idle connections, garbage and a slow reader"
grep -q '^ldbench_operations_total{kind="search",code="0"} [1-9]' "$D/scrape.txt" || _fail "no searches counted in the scrape"
assert_no_match '^(# TYPE )?ldbench_workload_' "$D/scrape.txt" "a run without [workload] sections: no workload series"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/other")
assert_eq 404 "$code" "GET /other"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$mport/metrics")
assert_eq 404 "$code" "POST /metrics"
echo "ok: the endpoint answers among hostile clients (200, 404, 404)"
wait "$hostile" || true
wait "$ld" || rc=$?
t1=$(date +%s)
assert_eq 0 "$rc" "the scraped run's exit status"
# the summary, and what Prometheus holds (the series went stale with the
# endpoint: last_over_time reads their last values)
cat >"$D/check.py" <<'PY'
import json, sys, urllib.parse, urllib.request
port, rec = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(rec)]
head = next(r for r in recs if r['type'] == 'header')
summ = [r for r in recs if r['type'] == 'summary'][-1]
def q(expr):
    url = f'http://127.0.0.1:{port}/api/v1/query?' + urllib.parse.urlencode({'query': expr})
    d = json.load(urllib.request.urlopen(url, timeout=10))
    assert d['status'] == 'success', d
    return {r['metric'].get('kind', r['metric'].get('run_id', '')): float(r['value'][1]) for r in d['data']['result']}
bad = []
ops = q('sum by (kind) (last_over_time(ldbench_operations_total[5m]))')
cnt = q('sum by (kind) (last_over_time(ldbench_operation_duration_seconds_count[5m]))')
p99 = q('histogram_quantile(0.99, sum by (kind, le) (last_over_time(ldbench_operation_duration_seconds_bucket[5m])))')
info = q('last_over_time(ldbench_run_info[5m])')
for kind, o in summ['ops'].items():
    c = o['completed']
    if c == 0:
        continue
    got = ops.get(kind)
    print(f'{kind}: summary completed {c}, prometheus {got}, _count {cnt.get(kind)}')
    if got != c: bad.append(f'{kind}: sum(ldbench_operations_total) {got} != completed {c}')
    if cnt.get(kind) != c: bad.append(f'{kind}: _count {cnt.get(kind)} != completed {c}')
    mine = o['latency_us']['p99'] / 1e6
    theirs = p99.get(kind)
    print(f'{kind}: p99 summary {mine * 1e6:.1f} us, histogram_quantile {theirs * 1e6:.1f} us')
    if theirs is None or abs(theirs - mine) > 0.10 * mine:
        bad.append(f'{kind}: histogram_quantile p99 {theirs} not within 10 % of {mine}')
# the rate over the run: the counters over the measured seconds, as the summary's
measured = q('last_over_time(ldbench_measured_seconds[5m])').get('')
ok_ops = q('sum(last_over_time(ldbench_operations_total{code="0"}[5m]))').get('')
mine = summ['rate']
theirs = ok_ops / measured if ok_ops and measured else None
print(f'rate: summary {mine}/s, prometheus {ok_ops} / {measured} s = {theirs}/s; target {summ["rate_target"]}/s')
if theirs is None or abs(theirs - mine) > 0.02 * mine:
    bad.append(f'rate over the run {theirs} not within 2 % of the summary\'s {mine}')
# the hostile clients did not slow the load: its achieved rate is its target's (1 %)
if abs(mine - summ['rate_target']) > 0.01 * summ['rate_target']:
    bad.append(f'achieved rate {mine} not within 1 % of the target {summ["rate_target"]} with hostile scrapers')
if list(info) != [head['run_id']]:
    bad.append(f'run_info run_id {list(info)} != header {head["run_id"]}')
if sum(o['completed'] for o in summ['ops'].values()) < 1000:
    bad.append('fewer than 1000 operations: the run did not load')
for b in bad:
    print('FAIL:', b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
python3 "$D/check.py" "$pport" "$D/run.json" || { cat "$D/run.out" >&2; _fail "Prometheus does not hold the summary's figures"; }
echo "ok: Prometheus holds the summary's completed per kind, _count, p99 within 10 %, the rate over the run within 2 %, the run id"
echo "ok: with 100 idle connections, garbage and a slow reader the load achieved its --rate within 1 %"
cat >"$D/dashboard.py" <<'PY'
# dashboard.py PORT DASHBOARD RECORDS T0 T1: every panel query over the run
import json, sys, urllib.parse, urllib.request
port, dash, rec, t0, t1 = sys.argv[1:6]
summ = [json.loads(l) for l in open(rec) if '"type":"summary"' in l][-1]
errors = sum(o['errors'] for o in summ['ops'].values())
bad, n = [], 0
for p in json.load(open(dash))['panels']:
    for t in p['targets']:
        e = t['expr'].replace('$__rate_interval', '5s').replace('$instance', '.*')
        url = f'http://127.0.0.1:{port}/api/v1/query_range?' + urllib.parse.urlencode(
            {'query': e, 'start': t0, 'end': t1, 'step': '1'})
        d = json.load(urllib.request.urlopen(url, timeout=10))
        got = len(d['data']['result']) if d.get('status') == 'success' else -1
        want_data = errors > 0 if 'code!="0"' in e else True
        if 'ldbench_replication_' in e or 'ldbench_replay_' in e:
            want_data = False  # -S's and the replay's: metrics_repl.sh and metrics_replay.sh
        print(f'{p["title"]} [{t["refId"]}]: {got} series')
        if got < 0 or (got > 0) != want_data:
            bad.append(f'{p["title"]}: {e}: {got} series')
        n += 1
for b in bad:
    print('FAIL:', b, file=sys.stderr)
print(f'{n} queries')
sys.exit(1 if bad or n < 12 else 0)
PY
dashboard=${LDBENCH_SOURCE_DIR:-$here/../..}/packaging/grafana/ldbench-dashboard.json
python3 "$D/dashboard.py" "$pport" "$dashboard" "$D/run.json" "$t0" "$t1" || _fail "a dashboard query"
echo "ok: every query of the dashboard returns data from Prometheus"

# --- 4. two "hosts" ------------------------------------------------------------------
pids=()
for i in 1 2; do
	p=$mport
	((i == 2)) && p=$mport2
	"$LDBENCH" "${srv[@]}" "${load[@]}" --interval 1s --duration 4s --metrics-listen "127.0.0.1:$p" \
		--metrics-linger 30s --json "$D/host$i.json" >"$D/host$i.out" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || _fail "a two-host run failed"; done
"$LDBENCH" merge "$D/host1.json" "$D/host2.json" --json "$D/merged.json" >"$D/merge.out" || _fail "ldbench merge"
cat >"$D/hosts.py" <<'PY'
import json, sys, urllib.parse, urllib.request
port, merged = sys.argv[1], sys.argv[2]
summ = [json.loads(l) for l in open(merged) if '"type":"summary"' in l][-1]
def q(expr):
    url = f'http://127.0.0.1:{port}/api/v1/query?' + urllib.parse.urlencode({'query': expr})
    d = json.load(urllib.request.urlopen(url, timeout=10))
    return {r['metric']['kind']: float(r['value'][1]) for r in d['data']['result']}
# each instance's last values (the first run's series of the same instance are older)
got = q('sum without (instance) (sum by (kind, instance) (last_over_time(ldbench_operations_total[20s])))')
bad = []
for kind, o in summ['ops'].items():
    if o['completed'] == 0:
        continue
    print(f"{kind}: merged completed {o['completed']}, prometheus {got.get(kind)}")
    if got.get(kind) != o['completed']:
        bad.append(kind)
sys.exit(1 if bad or not got else 0)
PY
python3 "$D/hosts.py" "$pport" "$D/merged.json" || _fail "Prometheus' sum over the two hosts is not ldbench merge's"
echo "ok: two hosts: sum without (instance) equals ldbench merge's completed"

# --- 5. --metrics-push ---------------------------------------------------------------
for attempt in 1 2 3 4 5; do
	gport=$(prom_free_port)
	prometheus-pushgateway --web.listen-address="127.0.0.1:$gport" >"$D/gateway.log" 2>&1 &
	gw_pid=$!
	for _ in $(seq 1 100); do
		curl -sf "http://127.0.0.1:$gport/-/ready" >/dev/null 2>&1 && break 2
		kill -0 "$gw_pid" 2>/dev/null || break
		sleep 0.2
	done
	kill "$gw_pid" 2>/dev/null; wait "$gw_pid" 2>/dev/null || true
	gw_pid=""
done
[[ -n "$gw_pid" ]] || { cat "$D/gateway.log" >&2; _fail "prometheus-pushgateway did not start"; }
"$LDBENCH" "${srv[@]}" "${load[@]}" --interval 1s --duration 3s --metrics-push "http://127.0.0.1:$gport" \
	--json "$D/push.json" >"$D/push.out" 2>&1 || _fail "the pushed run failed: $(tail -3 "$D/push.out")"
assert_no_match "metrics-push" "$D/push.out" "warnings of a pushed run"
curl -sf "http://127.0.0.1:$gport/metrics" >"$D/gateway.txt" || _fail "the gateway's /metrics"
cat >"$D/pushed.py" <<'PY'
import json, re, socket, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
summ = [r for r in recs if r['type'] == 'summary'][-1]
ops, cnt = {}, {}
inst = socket.gethostname()
for line in open(sys.argv[2]):
    m = re.match(r'(ldbench_operations_total|ldbench_operation_duration_seconds_count)\{(.*)\} (\S+)$', line)
    if not m:
        continue
    labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
    if labels.get('job') != 'ldbench' or labels.get('instance') != inst:
        continue
    d = ops if m.group(1) == 'ldbench_operations_total' else cnt
    d[labels['kind']] = d.get(labels['kind'], 0) + float(m.group(3))
bad = []
for kind, o in summ['ops'].items():
    if o['completed'] == 0:
        continue
    print(f"{kind}: summary completed {o['completed']}, gateway {ops.get(kind)}, _count {cnt.get(kind)}")
    if ops.get(kind) != o['completed'] or cnt.get(kind) != o['completed']:
        bad.append(kind)
if not ops or sum(ops.values()) < 100:
    bad.append('nothing pushed')
sys.exit(1 if bad else 0)
PY
python3 "$D/pushed.py" "$D/push.json" "$D/gateway.txt" || _fail "the gateway does not hold the summary's figures"
echo "ok: the gateway holds the summary's completed per kind and _count"
# a gateway that refuses: a port nothing listens on
nport=$(prom_free_port)
rc=0
"$LDBENCH" "${srv[@]}" "${load[@]}" --interval 1s --duration 3s --metrics-push "http://127.0.0.1:$nport" \
	--json "$D/refused.json" >"$D/refused.out" 2>"$D/refused.err" || rc=$?
assert_eq 0 "$rc" "a run whose gateway refuses: exit status"
assert_eq 1 "$(grep -c 'metrics-push.*Connection refused (the run goes on' "$D/refused.err")" "warning lines of a refusing gateway"
grep -qE 'metrics-push .*: ([4-9]|[1-9][0-9]+) of \1 pushes failed' "$D/refused.err" || _fail "no count of the failed pushes: $(cat "$D/refused.err")"
grep -q '"type":"summary"' "$D/refused.json" || _fail "no summary record with a refusing gateway"
echo "ok: a refusing gateway: $(tr '\n' '|' <"$D/refused.err")"
