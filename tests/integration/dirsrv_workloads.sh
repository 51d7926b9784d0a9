#!/bin/bash
# Several workloads in one run on the ctest fixture "dirsrv" (389 DS, 10,000
# ldifgen users), the shape of a 389 DS report: a background paged walk of
# the whole tree (bg: one client, --simple-page-size 500) beside a foreground
# bind+search load at a fixed rate (fg: ldclt's -e bindeach,esearch, a
# connection, a bind and a search per operation, 8 clients, 40/s):
#   - each workload's counts are its own and add up to the total (text, JSON);
#   - fg's rate (its count over its measured time) is the one its block shows,
#     and the block says "target not reached" exactly when it is 1 % short;
#   - cn=snmp,cn=monitor: searchops grew by bg's pages plus fg's searches,
#     simpleauthbinds by fg's binds plus the connections' own binds (each plus
#     at most one request per client sent as the run stopped, its answer not
#     counted).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dswl.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
pad=$(printf '0%.0s' $(seq "$DS_WIDTH"))
cat >"$work/w.scen" <<EOF
# a paged walk beside bind+search
--no-preflight
[workload bg]
-n 1
-e esearch
-b $DS_BASE
-s subtree
-f (objectClass=*)
--simple-page-size 500
[workload fg]
-n 8
-e bindeach,esearch
-b $DS_PEOPLE
-f (uid=user[$((10#$DS_FIRST))-$((10#$DS_LAST))%$pad])
--rate 40
EOF
# a dirsrv_snmp read shows its own bind and the previous read's search
snmp_delta() { # ATTR BEFORE
	echo $(($(dirsrv_snmp "$1") - $2 - 1))
}
s0=$(dirsrv_snmp searchops)
b0=$(dirsrv_snmp simpleauthbinds)
run_ldbench "$out" --scenario "$work/w.scen" -h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -y "$DS_PWFILE" \
	--duration 15s --json "$work/r.json"
assert_eq 0 "$RC" "exit status, bg and fg on 389 DS"
searches=$(snmp_delta searchops "$s0")
binds=$(snmp_delta simpleauthbinds "$b0")
line() { sed -nE "s/^ldbench\\[[0-9]+\\]: $1: attempted [0-9]+, completed ([0-9]+),.*/\\1/p" "$out"; }
assert_eq "$(line search)" "$(($(line 'bg: search') + $(line 'fg: search')))" "bg's and fg's searches add up"
assert_match '^ldbench\[[0-9]+\]: fg: Target rate: 40\.00/sec, achieved ' "$out" "fg's target"
/usr/bin/python3 - "$work/r.json" "$searches" "$binds" "$out" <<'PY'
import json, re, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
bg, fg = s["workloads"]["bg"], s["workloads"]["fg"]
pages = bg["ops"]["search"]["pages"]
fgs = fg["ops"]["search"]["completed"]
fgb = fg["ops"]["bind"]["completed"]
assert bg["ops"]["search"]["completed"] > 0 and pages > 20 * bg["ops"]["search"]["completed"] - 20, bg["ops"]["search"]
assert fgb == fgs and bg["ops"].get("bind", {}).get("completed", 0) == 0, (fgb, fgs, bg["ops"].get("bind"))
rate = fgs / fg["seconds"]
# the walk slows the foreground: fg's rate holds, or its block says it did not
pct = 100.0 * (rate - 40) / 40
text = open(sys.argv[4]).read()
said = re.search(r"\]: fg: Target rate: 40\.00/sec, achieved ([0-9.]+)/sec \(([-+][0-9.]+) %\)(: target not reached)?", text)
assert said and abs(float(said.group(1)) - rate) < 0.01, ("fg's line", said and said.group(0), rate)
assert (said.group(3) is not None) == (pct < -1.0), ("the line says whether the target was reached", said.group(0))
assert s["ops"]["search"]["completed"] == bg["ops"]["search"]["completed"] + fgs
# a request sent as the run stopped may have no answer counted (bg's last page
# request, an fg search): at most one per client, 9
assert 0 <= int(sys.argv[2]) - (pages + fgs) <= 9, ("searchops", sys.argv[2], pages, fgs)
setup = s["connections"]["setup_binds"]
# a bind sent as the run stopped may have no answer counted: at most one per fg client
assert 0 <= int(sys.argv[3]) - (fgb + setup) <= 8, ("simpleauthbinds", sys.argv[3], fgb, setup)
print("ok: bg %d walks (%d pages), fg %d bind+search at %.2f/s; searchops %s, simpleauthbinds %s" %
      (bg["ops"]["search"]["completed"], pages, fgs, rate, sys.argv[2], sys.argv[3]))
PY
echo "PASS: dirsrv_workloads"
