#!/usr/bin/env bash
# --csv as other tools read it, unchanged: Python's csv module, pandas (one header row,
# every row of its width, every number a plain number: no unit suffix, no
# quoting; epoch_s the wall clock of the run) and gnuplot (separator ',',
# columns by header name; its sums equal the JSON records').
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
command -v python3 >/dev/null || _fail "python3 is needed"
# Debian's pandas goes with Debian's python3 (a python3 earlier in PATH may not have it)
pandas_py=/usr/bin/python3
"$pandas_py" -c 'import pandas' 2>/dev/null || _fail "pandas is needed (python3-pandas; tests/run.sh installs it)"
command -v gnuplot >/dev/null || _fail "gnuplot is needed (gnuplot-nox; tests/run.sh installs it)"
fixture_start --users 200
D=$FIX_DIR
before=$(date +%s)
run_ldbench "$D/a.txt" -h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" \
	-f "(uid=userXXXXX)" -e esearch,random -r1 -R200 -n 2 -N 4 --interval 200ms --csv "$D/a.csv" --json "$D/a.json"
assert_eq 0 "$RC" "run with --csv"
after=$(date +%s)

python3 - "$D/a.csv" "$D/a.json" "$before" "$after" >"$D/py.txt" <<'PY' || _fail "csv module: $(cat "$D/py.txt")"
import csv, json, re, sys
path, recs, before, after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = list(csv.reader(open(path, newline='')))
head, body = rows[0], rows[1:]
assert head[0] == 'sample' and head[-1] == 'epoch_s', head
assert len(set(head)) == len(head), 'duplicate column names'
text = ('kind', 'errors_by_code')
number = re.compile(r'^-?[0-9]+(\.[0-9]+)?$')
for i, r in enumerate(body, 2):
    assert len(r) == len(head), 'line %d: %d fields' % (i, len(r))
    for name, v in zip(head, r):
        if name in text:
            continue
        assert v == '' or number.match(v), 'line %d: %s=%r is not a plain number' % (i, name, v)
    assert r[head.index('kind')] in ('search', 'bind'), r
    t = float(r[head.index('epoch_s')])
    assert before - 1 <= t <= after + 1, 'epoch_s %s outside the run' % t
samples = [json.loads(l) for l in open(recs) if '"type":"sample"' in l]
search = [r for r in body if r[head.index('kind')] == 'search']
assert len(search) == len(samples), (len(search), len(samples))
for r, s in zip(search, samples):
    assert int(r[head.index('counted')]) == s['ops']['search']['counted']
    assert float(r[head.index('lat_p99_us')]) == s['ops']['search']['latency_us']['p99']
print('rows', len(body), 'counted', sum(int(r[head.index('counted')]) for r in search))
PY
rows=$(awk '{ print $2 }' "$D/py.txt")
counted=$(awk '{ print $4 }' "$D/py.txt")
assert_eq 8 "$rows" "CSV rows: 4 samples x 2 kinds"

# pandas (Debian's python3-pandas, installed by tests/run.sh): read_csv unchanged, the
# numbers as numbers, the same search total, epoch_s as a time
"$pandas_py" - "$D/a.csv" "$counted" >"$D/pd.txt" 2>&1 <<'PY' || _fail "pandas: $(cat "$D/pd.txt")"
import sys
import pandas
df = pandas.read_csv(sys.argv[1])
assert df['counted'].dtype.kind in 'iu', df['counted'].dtype
assert df['lat_p99_us'].dtype.kind in 'iuf', df['lat_p99_us'].dtype
assert int(df[df.kind == 'search']['counted'].sum()) == int(sys.argv[2])
t = pandas.to_datetime(df.epoch_s, unit='s')
assert t.is_monotonic_increasing
print('pandas rows', len(df))
PY
assert_match '^pandas rows 8$' "$D/pd.txt" "pandas read every row"

cat >"$D/g.gp" <<EOF
set datafile separator ','
set datafile columnheaders
stats '$D/a.csv' using (strcol("kind") eq "search" ? column("counted") : 0) nooutput
print sprintf("counted %d records %d", STATS_sum, STATS_records)
stats '$D/a.csv' using (column("epoch_s")) nooutput
print sprintf("epoch %d %d", STATS_min, STATS_max)
set terminal dumb
set output '$D/plot.txt'
set xdata time
set timefmt "%s"
plot '$D/a.csv' using (column("epoch_s")):(strcol("kind") eq "search" ? column("rate") : NaN) with lines title 'rate'
EOF
gnuplot "$D/g.gp" >"$D/g.txt" 2>&1 || _fail "gnuplot: $(cat "$D/g.txt")"
assert_no_match 'warning|invalid|error' "$D/g.txt" "gnuplot read the file without complaint"
assert_match "^counted $counted records 8\$" "$D/g.txt" "gnuplot's sum of the search counts"
read -r _ emin emax < <(grep '^epoch' "$D/g.txt")
assert_ge "$((before - 1))" "$emin" "gnuplot's first epoch_s"
assert_le "$((after + 1))" "$emax" "gnuplot's last epoch_s"
[[ -s "$D/plot.txt" ]] || _fail "gnuplot drew nothing"
echo "report_csv: all checks passed"
