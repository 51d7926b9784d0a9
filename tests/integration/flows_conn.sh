#!/usr/bin/env bash
# A connection per flow (-e bindeach with a flow: docs/guide.md "Flows")
# against a real slapd, through the decoding proxy (tests/tools/ldapcapture.py):
#   - --flow with -e bindeach and -D: each flow on a connection of its own
#     (the bind of -D, the flow's steps in order, the unbind) and each
#     connection carries exactly one flow, a flow that ends as "no entry"
#     too (its search alone); slapd's cn=Monitor connection total grows by
#     the number of flows, the summary's "Connections: opened" line says it;
#   - [workload] sections: one workload's flow with -e bindeach (a connection
#     per flow), the other's on its one persistent connection;
#   - scenarios/authrate.scen with -e bindeach: a connection per login (its
#     search, the bind as the DN found, the unbind).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 50
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
people="ou=People,$FIX_BASE"
out=$FIX_DIR/out.txt
P='^ldbench\[[0-9]+\]: '

# check_conns CAPTURE KINDS FLOWS [SHORT]: every connection's requests, in
# order, are one flow and its unbind: KINDS (request names, "bind search
# compare"), or, for exactly SHORT connections, KINDS up to its search (a
# search that found nobody ends the flow); FLOWS connections in all
check_conns() {
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
cap, kinds, flows = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
short = kinds[:kinds.index("search") + 1] if len(sys.argv) > 4 else None
conns = {}
for l in map(json.loads, open(cap)):
    if l["op"].endswith("Request"):
        conns.setdefault(l["conn"], []).append(l["op"][:-len("Request")])
assert len(conns) == flows, ("connections", len(conns), "flows", flows)
full = kinds + ["unbind"]
n_short = 0
for c, ops in conns.items():
    if ops == full:
        continue
    assert short is not None and ops == short + ["unbind"], (c, ops, full)
    n_short += 1
if short is not None:
    assert n_short == int(sys.argv[4]), ("flows ended at the search", n_short, sys.argv[4])
print("ok: %d connections, each one flow (%s), %d ended at the search" % (len(conns), " ".join(full), n_short))
PY
}

# ---- --flow -e bindeach -D: one client walking uid 46..55 of 50 users, -T 10:
# 15 flows, 5 of them "no entry" (a search, no compare)
start_capture "$FIX_PORT" "$FIX_DIR/cap1.jsonl"
c0=$(fixture_total_connections)
run_ldbench "$out" -H "$CAP_URI" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -e bindeach -n 1 -T 10 --flow upd \
	--step "search base=$people filter=(uid=user[46:55%00000])" \
	--step 'compare dn=@{1.dn} attr=uid value=x'
assert_eq 0 "$RC" "exit status, 15 flows with bindeach"
capture_stop_all
assert_match "${P}upd: attempted 15, completed 15, succeeded 10, counted 10, errors 5\$" "$out" "15 flows, 5 without an entry"
assert_match "${P}upd\\.2\\.compare: attempted 10, completed 10, succeeded 10, " "$out" "10 compares"
assert_match "${P}Connections: opened 15, reconnects 0, binds at connect 0\$" "$out" "a connection per flow"
assert_eq 15 "$(($(fixture_total_connections) - c0))" "slapd's connections: one per flow"
check_conns "$FIX_DIR/cap1.jsonl" "bind search compare" 15 5

# ---- two workloads: p's flows on one persistent connection, e's (-e bindeach) one connection each
cat >"$FIX_DIR/conn.scen" <<EOF
--no-preflight
--step 'search base=$people filter=(uid=user[1-50%00000])'
--step 'compare dn=@{1.dn} attr=uid value=x'
[workload p]
--flow fp
-n 1
-T 4
[workload e]
--flow fe
-e bindeach
-n 1
-T 5
EOF
start_capture "$FIX_PORT" "$FIX_DIR/cap2.jsonl"
c0=$(fixture_total_connections)
run_ldbench "$out" --scenario "$FIX_DIR/conn.scen" -H "$CAP_URI" --duration 60s
assert_eq 0 "$RC" "exit status, a persistent and a bindeach workload"
capture_stop_all
assert_match "${P}p: fp: attempted 4, completed 4, succeeded 4, " "$out" "p's 4 flows"
assert_match "${P}e: fe: attempted 5, completed 5, succeeded 5, " "$out" "e's 5 flows"
assert_match "${P}p: Connections: opened 1, " "$out" "p: one connection"
assert_match "${P}e: Connections: opened 5, " "$out" "e: a connection per flow"
assert_eq 6 "$(($(fixture_total_connections) - c0))" "slapd's connections: p's one and e's five"
/usr/bin/python3 - "$FIX_DIR/cap2.jsonl" <<'PY'
import json, sys
conns = {}
for l in map(json.loads, open(sys.argv[1])):
    conns.setdefault(l["conn"], []).append(l["op"])
ops = sorted(conns.values(), key=len)
one = ["searchRequest", "compareRequest", "unbindRequest"]
assert len(ops) == 6 and ops[:5] == [one] * 5, ops
assert ops[5] == ["searchRequest", "compareRequest"] * 4 + ["unbindRequest"], ops[5]
print("ok: e's five connections one flow each, p's four flows on its one")
PY

# ---- scenarios/authrate.scen with -e bindeach: a connection per login
start_capture "$FIX_PORT" "$FIX_DIR/cap3.jsonl"
c0=$(fixture_total_connections)
fixture_monitor_snapshot "$FIX_DIR/mon3"
run_ldbench "$out" --scenario "$src/scenarios/authrate.scen" -H "$CAP_URI" --set "base=$people" \
	--set 'filter=(uid=user[1-50%00000])' --set password_attr=uid --set clients=2 -T 6 -e bindeach
assert_eq 0 "$RC" "exit status, 12 logins with bindeach"
capture_stop_all
assert_match "${P}login: attempted 12, completed 12, succeeded 12, counted 12, errors 0\$" "$out" "12 logins"
assert_match "${P}Connections: opened 12, " "$out" "a connection per login"
assert_eq 12 "$(($(fixture_total_connections) - c0))" "slapd's connections: one per login"
assert_eq 12 "$(fixture_monitor_delta "$FIX_DIR/mon3" Bind)" "slapd's binds: the logins'"
check_conns "$FIX_DIR/cap3.jsonl" "search bind" 12
/usr/bin/python3 - "$FIX_DIR/cap3.jsonl" "$people" <<'PY'
import json, re, sys
conns = {}
for l in map(json.loads, open(sys.argv[1])):
    conns.setdefault(l["conn"], []).append(l)
for c, ls in conns.items():
    uid = re.fullmatch(r"\(uid=(user\d{5})\)", ls[0]["filter"]).group(1)
    assert ls[1]["dn"] == "uid=%s,%s" % (uid, sys.argv[2]), (c, ls)
print("ok: each connection's bind is the DN its own search looked for")
PY
echo "PASS: flows_conn"
