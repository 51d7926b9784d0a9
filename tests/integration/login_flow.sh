#!/usr/bin/env bash
# The login flow (--login, scenarios/authrate.scen) against a real slapd,
# through the decoding proxy (tests/tools/ldapcapture.py --entries):
#   - every bind's name is the DN of the one entry the preceding search of
#     the same connection returned, and its password the entry's uid
#     (--set password_attr=uid: the fixture's password is the uid);
#   - a filter value that matches nobody ends the flow as "no entry"
#     (error -14) with no bind sent: one client walks uid 46..55 of 50
#     users in turn (-T 10: 46..50, 51..55, 46..50), so exactly 15 flows,
#     5 of them without an entry;
#   - slapd's Search and Bind counters (cn=Monitor) equal the steps'
#     counts (the summary's search and bind lines, the JSON's);
#   - with --set groups=BASE each bind that succeeded is followed by a
#     search below BASE for (member=DN) on the same connection.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 50
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
people="ou=People,$FIX_BASE"
scen=$src/scenarios/authrate.scen
out=$FIX_DIR/out.txt

# one client, in turn over 46..55: 5 users found, 5 not, 5 found again
start_capture "$FIX_PORT" "$FIX_DIR/cap1.jsonl" --entries
fixture_monitor_snapshot "$FIX_DIR/mon1"
run_ldbench "$out" --scenario "$scen" -H "$CAP_URI" --set "base=$people" \
	--set 'filter=(uid=user[46:55%00000])' --set password_attr=uid --set clients=1 -T 10 \
	--json "$FIX_DIR/r1.json"
assert_eq 0 "$RC" "exit status, 15 login flows"
capture_stop_all
assert_match '^ldbench\[[0-9]+\]: login: attempted 15, completed 15, succeeded 10, counted 10, errors 5$' "$out" \
	"15 flows: 10 logins, 5 failed"
assert_match '^ldbench\[[0-9]+\]: search: attempted 15, completed 15, succeeded 15, counted 15, errors 0, entries 10$' \
	"$out" "15 searches, 10 entries"
assert_match '^ldbench\[[0-9]+\]: bind: attempted 10, completed 10, succeeded 10, counted 10, errors 0$' "$out" \
	"10 binds, all accepted"
assert_match 'Global error -14 \(No results returned\) occurs +5 times' "$out" "5 flows ended as no entry"
assert_match 'T000: Cannot log in, error=-14 \(no entry\)$' "$out" "the no-entry line"
assert_eq 15 "$(fixture_monitor_delta "$FIX_DIR/mon1" Search)" "slapd's searches = the search steps"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/mon1" Bind)" "slapd's binds = the bind steps"
/usr/bin/python3 - "$FIX_DIR/r1.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
ops = s["ops"]
assert ops["login"]["completed"] == 15 and ops["login"]["succeeded"] == 10, ops["login"]
assert ops["search"]["completed"] == 15 and ops["bind"]["completed"] == 10, (ops["search"], ops["bind"])
assert ops["login"]["errors_by_code"] == {"-14": 5}, ops["login"]["errors_by_code"]
print("ok: the JSON summary's login, search and bind")
PY
/usr/bin/python3 - "$FIX_DIR/cap1.jsonl" "$people" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
people = sys.argv[2]
flows, noentry, binds = 0, 0, 0
last = {}  # per connection: the last search's msgid and its entries
for l in lines:
    c = l["conn"]
    if l["op"] == "searchRequest":
        assert l["base"] == people and l["sizelimit"] == 2 and l["attributes"] == ["uid"], l
        if c in last and not last[c]["entries"] and not last[c]["bound"]:
            noentry += 1
        last[c] = {"msgid": l["msgid"], "entries": [], "bound": False}
        flows += 1
    elif l["op"] == "searchResEntry":
        assert l["msgid"] == last[c]["msgid"], l
        last[c]["entries"].append(l["dn"])
    elif l["op"] == "bindRequest":
        e = last[c]["entries"]
        assert len(e) == 1 and not last[c]["bound"], (l, last[c])
        assert l["dn"] == e[0], (l["dn"], e)
        assert l["password"] == e[0].split(",")[0][4:], "the password is the entry's uid"
        last[c]["bound"] = True
        binds += 1
noentry += sum(1 for v in last.values() if not v["entries"] and not v["bound"])
assert (flows, binds, noentry) == (15, 10, 5), (flows, binds, noentry)
print("ok: 15 searches, each bind as the DN its search returned, 5 searches without an entry and no bind")
PY

# the group step: two groups, user00001..3 in g1, user00001 also in g2
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Groups,$FIX_BASE
objectClass: organizationalUnit
ou: Groups

dn: cn=g1,ou=Groups,$FIX_BASE
objectClass: groupOfNames
cn: g1
member: uid=user00001,$people
member: uid=user00002,$people
member: uid=user00003,$people

dn: cn=g2,ou=Groups,$FIX_BASE
objectClass: groupOfNames
cn: g2
member: uid=user00001,$people
LDIF
start_capture "$FIX_PORT" "$FIX_DIR/cap2.jsonl"
fixture_monitor_snapshot "$FIX_DIR/mon2"
run_ldbench "$out" --scenario "$scen" -H "$CAP_URI" --set "base=$people" \
	--set 'filter=(uid=user[1-3%00000])' --set password_attr=uid --set "groups=ou=Groups,$FIX_BASE" \
	--set clients=2 -T 20 --json "$FIX_DIR/r2.json"
assert_eq 0 "$RC" "exit status, logins with the group step"
capture_stop_all
assert_match '^ldbench\[[0-9]+\]: login: attempted 40, completed 40, succeeded 40, counted 40, errors 0$' "$out" \
	"40 flows of three steps"
# 40 users found, and each in one group or two (user00001)
assert_match '^ldbench\[[0-9]+\]: search: attempted 80, completed 80, succeeded 80, counted 80, errors 0, entries ([89][0-9]|1[01][0-9]|120)$' \
	"$out" "80 searches (user and groups), 80 to 120 entries"
assert_eq 80 "$(fixture_monitor_delta "$FIX_DIR/mon2" Search)" "slapd's searches = 2 per flow"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/mon2" Bind)" "slapd's binds = 1 per flow"
/usr/bin/python3 - "$FIX_DIR/cap2.jsonl" "ou=Groups,$FIX_BASE" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
groups = sys.argv[2]
prev = {}
n = 0
for l in lines:
    c = l["conn"]
    if l["op"] == "searchRequest" and l["base"] == groups:
        b = prev.get(c)
        assert b is not None and b["op"] == "bindRequest", (l, b)
        assert l["filter"] == "(member=%s)" % b["dn"] and l["attributes"] == ["1.1"], (l, b)
        n += 1
    prev[c] = l
assert n == 40, n
print("ok: 40 group searches, each (member=DN) of the bind before it on its connection")
PY
