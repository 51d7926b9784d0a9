#!/usr/bin/env bash
# -S's live metrics against real OpenLDAP replication (tests/fixture/slapd_repl.sh)
# and a real Prometheus (tests/fixture/prometheus.sh) scraping every second:
# adds at --rate for about 10 s, every 3rd checked on the consumer (one I/O thread: -S takes every
# Nth write of each I/O thread, so two threads splitting 600 writes 301/299 would check 199); during the
# run the endpoint already holds delays; afterwards Prometheus' HTTP API gives
# ldbench_replication_delay_seconds_count{consumer} = the summary's seen,
# ldbench_replication_checked_total = its checked, _unseen_total,
# _superseded_total and _dropped_total = its own, exactly, and a p99 from the
# histogram within 10 % of the summary's (when the delays are above 1 ms); the
# Grafana dashboard's replication delay queries return data.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd_repl.sh"
. "$here/../fixture/assert.sh"
command -v curl >/dev/null || _fail "curl is needed"
. "$here/../fixture/prometheus.sh"
repl_start --users 20
trap 'prom_stop; _repl_on_exit' EXIT
out=$FIX_DIR/out.txt
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Bench,$FIX_BASE
objectClass: organizationalUnit
ou: Bench
LDIF
bench="ou=Bench,$FIX_BASE"
repl_wait_count "$REPL_CURI" "$bench" '(objectClass=*)' 1
summary_field() { # FILE CONSUMER FIELD, of "Replication summary X: checked N, seen N, ..."
	sed -nE "s|.*Replication summary $2:.*[ ,]$3 ([0-9]+)[ ,].*|\1|p" "$1"
}

mport=$(prom_free_port)
prom_start "$FIX_DIR" "127.0.0.1:$mport" || _fail "prometheus did not start"
echo "ok: prometheus on 127.0.0.1:$PROM_PORT, scraping 127.0.0.1:$mport"
"$LDBENCH" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$bench" -f "cn=rXXXX" \
	-e add,person,incr,commoncounter,noloop -r1000 -R1599 -n 2 --io-threads 1 --rate 60 --interval 1s \
	-S "$REPL_CURI" --repl-sample 3 --metrics-listen "127.0.0.1:$mport" --metrics-linger 30s \
	--json "$FIX_DIR/run.json" >"$out" 2>&1 &
ld=$!
t0=$(date +%s)
sleep 3
curl -s -m 5 -o "$FIX_DIR/scrape.txt" "http://127.0.0.1:$mport/metrics" || _fail "no endpoint during the run"
assert_match "^ldbench_replication_delay_seconds_count\\{consumer=\"$REPL_CURI\"\\} [1-9]" "$FIX_DIR/scrape.txt" \
	"delays during the run"
rc=0
wait "$ld" || rc=$?
cat "$out"
assert_eq 0 "$rc" "the run's exit status"
last() { prom_query "last_over_time($1{consumer=\"$REPL_CURI\"}[5m])" | cut -d' ' -f2; }
seen=$(summary_field "$out" "$REPL_CURI" seen)
checked=$(summary_field "$out" "$REPL_CURI" checked)
assert_eq 200 "$checked" "writes checked (every 3rd of 600)"
assert_eq "$seen" "$(last ldbench_replication_delay_seconds_count)" "the delay histogram's _count = the summary's seen"
assert_eq "$checked" "$(last ldbench_replication_checked_total)" "checked"
for f in unseen superseded dropped; do
	assert_eq "$(summary_field "$out" "$REPL_CURI" "$f")" "$(last "ldbench_replication_${f}_total")" "$f"
done
mine=$(sed -nE "s|.*Replication summary $REPL_CURI: .*delay min/p50/p95/p99/max [0-9.]+/[0-9.]+/[0-9.]+/([0-9.]+)/.*|\1|p" "$out")
theirs=$(prom_query "histogram_quantile(0.99, last_over_time(ldbench_replication_delay_seconds_bucket{consumer=\"$REPL_CURI\"}[5m]))" | cut -d' ' -f2)
echo "p99: summary $mine ms, histogram_quantile $theirs s"
assert_eq True "$(/usr/bin/python3 -I -S -c "m=$mine/1e3; t=$theirs; print(m < 1e-3 or abs(t - m) <= 0.10 * m)")" \
	"the histogram's p99 within 10 % of the summary's"
echo "ok: Prometheus holds -S's seen, checked, unseen, superseded, dropped and delays"
prom_dashboard_data ldbench_replication_ "$t0" "$(($(date +%s) + 1))" || _fail "the dashboard's -S panel has no data"
echo "ok: the dashboard's replication delay queries return data"
