#!/usr/bin/env bash
# --metrics-listen during `ldbench replay` (and during --find-max), against a
# real Prometheus (tests/fixture/prometheus.sh) and a real slapd:
# 1. bad input to the replay: a bad address, a port in use, --metrics-linger
#    alone: one line each, exit 2, no LDAP connection made;
# 2. a log of a few seconds (an ldbench search load at --rate, a compare of a
#    value the log does not hold, a bind whose DN has no password) replayed
#    with --timing recorded at half speed (8 s) while Prometheus scrapes every second, after 50 of
#    the 200 users the searches look for were deleted (their searches now find no entry: they
#    differ, all through the replay): during the replay the endpoint answers with
#    command="replay", the answers, the requests sent and those differing so far; Prometheus
#    holds, at some scrape before the replay's end, a value of ldbench_replay_sent_total and of
#    ldbench_replay_differing_total (searches) above 0 and below the final one (published at each
#    sample, not only at the end), and no value that goes down; afterwards its HTTP API gives, per kind,
#    sum(ldbench_operations_total) = the replay report's answered, exactly, and
#    ldbench_replay_sent_total = its sent; ldbench_replay_differing_total =
#    its differ (the compare: 1); ldbench_replay_not_sent_total{reason} = its
#    skipped (no-password: 1); ldbench_replay_unanswered_total = its unanswered;
#    ldbench_replay_lateness_seconds_count = the
#    lateness histogram's count; ldbench_measured_seconds = its elapsed time;
#    the Grafana dashboard's replay queries (lateness; sent and differing; not sent and
#    unanswered) return data;
# 3. --find-max: the endpoint serves each load of the search in turn, with
#    command="find-max" and counters that grow.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
command -v curl >/dev/null || _fail "curl is needed"
# shellcheck source-path=SCRIPTDIR source=../fixture/prometheus.sh
source "$here/../fixture/prometheus.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-metrics-replay.XXXXXX")
export FIX_STATS_LOG=$work/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
fixture_start --users 200
_FIX_PREV_EXIT_TRAP='prom_stop; jobs -p | xargs -r kill 2>/dev/null; rm -rf "$work"'
P=$FIX_PEOPLE
jget() { /usr/bin/python3 -I -S -c 'import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }

# --- the log -------------------------------------------------------------------
fixture_stats_settled
n0=$(wc -l <"$FIX_STATS_LOG")
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$P" -f "(uid=userXXXXX)" \
	-e esearch,random -r1 -R200 --no-preflight -n 2 --rate 150 --duration 4s >"$work/rec.out" 2>&1 ||
	_fail "the recorded load: $(tail -3 "$work/rec.out")"
export LDAPNOINIT=1
ldapcompare -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" "uid=user00011,$P" uid:nope >/dev/null || true
ldapsearch -x -H "$FIX_URI" -D "uid=user00004,$P" -w user00004 -b "$P" '(uid=user00005)' 1.1 >/dev/null
fixture_stats_settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"
# 50 of the 200 users gone: their searches (a quarter, all through the log) find no entry now
for i in $(seq 101 150); do printf 'uid=user%05d,%s\n' "$i" "$P"; done >"$work/gone.txt"
ldapdelete -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$work/gone.txt" ||
	_fail "could not delete the users of $work/gone.txt"
assert_eq 0 "$(fixture_count "$P" '(|(uid=user00101)(uid=user00150))')" "deleted users left"
printf '%s\t%s\n' "$FIX_ROOTDN" "$FIX_ROOTPW" >"$work/pw.map"
tgt=(-h 127.0.0.1 -p "$FIX_PORT" --password-map "$work/pw.map")

mport=$(prom_free_port)
prom_start "$work" "127.0.0.1:$mport" || _fail "prometheus did not start"
prom_scraping || _fail "prometheus did not scrape within 60 s"
echo "ok: prometheus on 127.0.0.1:$PROM_PORT, scraping 127.0.0.1:$mport"

# --- 1. bad input ----------------------------------------------------------------
before=$(fixture_total_connections)
bad() { # WHAT PATTERN ARGS...: one line on stderr matching PATTERN, exit 2
	local what=$1 pat=$2 rc=0
	shift 2
	"$LDBENCH" replay "${tgt[@]}" "$@" "$work/run.log" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
	assert_eq 2 "$rc" "replay, $what: exit status"
	assert_eq 1 "$(wc -l <"$work/bad.err")" "replay, $what: lines on stderr"
	grep -qE -- "$pat" "$work/bad.err" || _fail "replay, $what: '$(cat "$work/bad.err")' does not say $pat"
	echo "ok: replay, $what: $(cat "$work/bad.err")"
}
bad "port in use" "cannot listen: Address already in use" --metrics-listen "127.0.0.1:$PROM_PORT"
bad "bad address" "bad address '300.1.2.3'" --metrics-listen 300.1.2.3:9464
bad "linger alone" "--metrics-linger needs --metrics-listen" --metrics-linger 5s
bad "push URL" "--metrics-push 'ftp://x': not an http" --metrics-push ftp://x
assert_eq "$before" "$(fixture_total_connections)" "LDAP connections made by the bad invocations"

# --- 2. a scraped replay -----------------------------------------------------------
rc=0
t0=$(date +%s)
"$LDBENCH" replay "${tgt[@]}" --timing recorded --speed 0.5 --interval 1s --metrics-listen "127.0.0.1:$mport" \
	--metrics-linger 30s --json "$work/r.json" "$work/run.log" >"$work/r.out" 2>&1 &
rp=$!
sleep 2.5
code=$(curl -s -m 5 -o "$work/scrape.txt" -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
assert_eq 200 "$code" "GET /metrics during the replay"
assert_match '^ldbench_run_info\{.*command="replay"\} 1$' "$work/scrape.txt" "the replay's run_info"
assert_match '^ldbench_operations_total\{kind="search",code="0"\} [1-9]' "$work/scrape.txt" "searches answered so far"
assert_match '^ldbench_replay_lateness_seconds_count [1-9]' "$work/scrape.txt" "lateness so far"
assert_match '^ldbench_replay_sent_total\{kind="search"\} [1-9]' "$work/scrape.txt" "searches sent so far"
assert_match '^ldbench_replay_differing_total\{kind="search"\} [1-9]' "$work/scrape.txt" "searches differing so far"
assert_match '^ldbench_replay_not_sent_total\{reason="sasl"\} 0$' "$work/scrape.txt" "not sent so far"
wait "$rp" || rc=$?
t1=$(date +%s)
assert_eq 0 "$rc" "the scraped replay's exit status"
cat "$work/r.out"
# Prometheus' values of METRIC over the replay (one a second, up to when it
# ended): "N M F" with N values, M of them above 0 and below the last one F;
# fails when one goes down
midrun() {
	/usr/bin/python3 -I -S - "$PROM_PORT" "$1" "$t0" "$t1" <<'PY'
import json, sys, urllib.parse, urllib.request
port, expr, t0, t1 = sys.argv[1:5]
url = f'http://127.0.0.1:{port}/api/v1/query_range?' + urllib.parse.urlencode(
    {'query': expr, 'start': t0, 'end': t1, 'step': '1'})
d = json.load(urllib.request.urlopen(url, timeout=10))
r = d['data']['result'] if d.get('status') == 'success' else []
if len(r) != 1:
    sys.exit(f'{expr}: {len(r)} series over the replay')
v = [float(x[1]) for x in r[0]['values']]
if any(b < a for a, b in zip(v, v[1:])):
    sys.exit(f'{expr} went down: {v}')
print(len(v), sum(1 for x in v if 0 < x < v[-1]), int(v[-1]))
PY
}
for mtr in sent differing; do
	read -r n mid fin <<<"$(midrun "ldbench_replay_${mtr}_total{kind=\"search\"}")" || _fail "$mtr over the replay"
	assert_ge 1 "$mid" "Prometheus' values of ldbench_replay_${mtr}_total (search) above 0, below the final $fin, of $n"
	echo "ok: ldbench_replay_${mtr}_total (search) live: $mid of $n values before the end between 0 and $fin"
done
last() { prom_query "last_over_time($1[5m])"; }
declare -A run_kind=([bind]=bind [search]=search [compare]=compare [unbind]="")
for t in bind search compare; do
	k=${run_kind[$t]}
	answered=$(jget "$work/r.json" "p['kinds']['$t']['answered']")
	assert_eq "kind=$k $answered" "$(prom_query "sum by (kind) (last_over_time(ldbench_operations_total{kind=\"$k\"}[5m]))")" \
		"$t: Prometheus' operations = the replay's answered"
	assert_eq "kind=$k $(jget "$work/r.json" "p['kinds']['$t']['sent']")" "$(last "ldbench_replay_sent_total{kind=\"$k\"}")" \
		"$t: sent"
	assert_eq "kind=$k $(jget "$work/r.json" "p['kinds']['$t']['differ']")" \
		"$(last "ldbench_replay_differing_total{kind=\"$k\"}")" "$t: differing"
	echo "ok: $t: answered $answered in Prometheus as in the report"
done
assert_ge 300 "$(jget "$work/r.json" "p['kinds']['search']['answered']")" "searches replayed"
assert_eq 1 "$(jget "$work/r.json" "p['kinds']['compare']['differ']")" "the compare differs"
assert_eq "reason=no-password 1" "$(last 'ldbench_replay_not_sent_total{reason="no-password"}')" "not sent: no password"
assert_eq "reason=sasl 0" "$(last 'ldbench_replay_not_sent_total{reason="sasl"}')" "not sent: sasl"
assert_eq "- $(jget "$work/r.json" "p['unanswered']")" "$(last ldbench_replay_unanswered_total)" "unanswered"
assert_ge 50 "$(jget "$work/r.json" "p['kinds']['search']['differ']")" "searches differing (of users deleted)"
assert_eq "- $(jget "$work/r.json" "p['lateness']['count']")" "$(last ldbench_replay_lateness_seconds_count)" \
	"lateness histogram's count"
e=$(jget "$work/r.json" "p['elapsed_s']")
m=$(last ldbench_measured_seconds | cut -d' ' -f2)
assert_eq True "$(/usr/bin/python3 -I -S -c "print(abs($m - $e) < 1e-3)")" "measured seconds $m = elapsed $e"
echo "ok: Prometheus holds the replay's answered, sent, differing, not sent, lateness, elapsed"
prom_dashboard_data ldbench_replay_ "$t0" "$(($(date +%s) + 1))" || _fail "a dashboard replay panel has no data"
echo "ok: the dashboard's replay queries (lateness, sent and differing, not sent and unanswered) return data"

# --- 3. --find-max -------------------------------------------------------------------
fport=$(prom_free_port)
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$P" -f "(uid=userXXXXX)" \
	-e esearch,random -r1 -R200 --no-preflight -n 2 --find-max 'p99<1s' --find-max-steps 2 --duration 2s \
	--find-max-start 100 --interval 1s --metrics-listen "127.0.0.1:$fport" >"$work/fm.out" 2>&1 &
fm=$!
sleep 1.5
curl -s -m 5 -o "$work/fm1.txt" "http://127.0.0.1:$fport/metrics" || _fail "no endpoint during --find-max"
assert_match '^ldbench_run_info\{.*command="find-max"\} 1$' "$work/fm1.txt" "find-max's run_info"
wait "$fm" || true
echo "ok: --find-max serves the endpoint: $(grep -c '^ldbench_' "$work/fm1.txt") series"
