#!/usr/bin/env bash
# General flows (--flow NAME, --step 'KIND key=value ...': docs/guide.md
# "Flows") against a real slapd, through the decoding proxy
# (tests/tools/ldapcapture.py --entries):
#   - a 3-step flow: search a user (one client walks uid 46..55 of 50 users
#     in turn, -T 10: 46..50, 51..55, 46..50), modify its description to the
#     entry's mail value, compare the description with it.  Every modify's
#     and compare's DN is the DN the preceding search of the same connection
#     returned, their value the entry's mail; the 5 numbers nobody has end
#     their flows as "no entry" (-14) at the search, with no second step;
#     each step's own line and JSON row, and slapd's Search, Modify and
#     Compare counters equal the steps' counts; afterwards every user found
#     has description = mail;
#   - an add step whose DN and values are the found entry's uid and mail;
#   - the login as a flow (search, bind as @{1.dn} with the entry's uid as
#     the password, a group search named groups): the group search has its
#     own row, apart from the user search;
#   - --login --login-groups: its group step on a row of its own too;
#   - --bad-password on plain binds (-e bindonly,bindeach): the wrong
#     passwords the proxy saw are the count the summary gives, refused by
#     slapd, counted apart and not as errors;
#   - bad input: one line, exit 2, no connection opened.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 50
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
people="ou=People,$FIX_BASE"
out=$FIX_DIR/out.txt
P='^ldbench\[[0-9]+\]: '

# ---- a search, a modify and a compare of what the search returned
start_capture "$FIX_PORT" "$FIX_DIR/cap1.jsonl" --entries
fixture_monitor_snapshot "$FIX_DIR/mon1"
run_ldbench "$out" -H "$CAP_URI" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -n 1 -T 10 --flow upd \
	--step "search base=$people filter=(uid=user[46:55%00000]) name=user" \
	--step 'modify dn=@{1.dn} attr=description value=@{1.attr:mail}' \
	--step 'compare dn=@{user.dn} attr=description value=@{user.attr:mail}' \
	--json "$FIX_DIR/r1.json"
assert_eq 0 "$RC" "exit status, 15 flows"
capture_stop_all
assert_match "${P}upd: attempted 15, completed 15, succeeded 10, counted 10, errors 5\$" "$out" "15 flows, 5 without an entry"
assert_match "${P}upd.user: attempted 15, completed 15, succeeded 10, counted 10, errors 5, entries 10\$" "$out" \
	"the search step: 15 searches, 10 entries, 5 ended the flow (no entry)"
assert_match "${P}upd.2.modify: attempted 10, completed 10, succeeded 10, counted 10, errors 0\$" "$out" "10 modifies"
assert_match "${P}upd.3.compare: attempted 10, completed 10, succeeded 10, counted 10, errors 0\$" "$out" "10 compares"
assert_match 'Global error -14 \(No results returned\) occurs +5 times' "$out" "5 flows ended as no entry, counted once"
assert_match 'T000: Cannot run flow upd, error=-14 \(no entry\)$' "$out" "the no-entry line"
assert_match "${P}upd latency" "$out" "the flow's latency line"
assert_eq 15 "$(fixture_monitor_delta "$FIX_DIR/mon1" Search)" "slapd's searches = the search step's"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/mon1" Modify)" "slapd's modifies = the modify step's"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/mon1" Compare)" "slapd's compares = the compare step's"
/usr/bin/python3 - "$FIX_DIR/r1.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
ops = s["ops"]
assert ops["upd"]["completed"] == 15 and ops["upd"]["succeeded"] == 10, ops["upd"]
assert ops["upd"]["errors_by_code"] == {"-14": 5}, ops["upd"]
assert ops["upd.user"]["completed"] == 15 and ops["upd.user"]["errors_by_code"] == {"-14": 5}, ops["upd.user"]
assert ops["upd.2.modify"]["succeeded"] == 10 and ops["upd.3.compare"]["succeeded"] == 10, ops
assert "search" not in ops and "modify" not in ops, sorted(ops)
print("ok: the JSON rows of the flow and its steps")
PY
/usr/bin/python3 - "$FIX_DIR/cap1.jsonl" "$people" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
people = sys.argv[2]
last, n = {}, {"search": 0, "modify": 0, "compare": 0, "noentry": 0}
for l in lines:
    c = l["conn"]
    if l["op"] == "searchRequest":
        assert l["base"] == people and l["attributes"] == ["mail"], l
        if c in last and not last[c]["entries"]:
            n["noentry"] += 1
        last[c] = {"msgid": l["msgid"], "entries": [], "steps": []}
        n["search"] += 1
    elif l["op"] == "searchResEntry":
        assert l["msgid"] == last[c]["msgid"], l
        last[c]["entries"].append(l["dn"])
    elif l["op"] in ("modifyRequest", "compareRequest"):
        e = last[c]["entries"]
        assert len(e) == 1, (l, last[c])
        uid = e[0].split(",")[0][4:]
        mail = uid + "@example.com"
        assert l["dn"] == e[0], (l, e)
        if l["op"] == "modifyRequest":
            assert last[c]["steps"] == [], last[c]
            ch = l["changes"]
            assert len(ch) == 1 and ch[0]["op"] == "replace" and ch[0]["type"] == "description", ch
            assert ch[0]["values"] == [mail], (ch, mail)
            n["modify"] += 1
        else:
            assert last[c]["steps"] == ["modifyRequest"], last[c]
            assert l["type"] == "description" and l["value"] == mail, l
            n["compare"] += 1
        last[c]["steps"].append(l["op"])
n["noentry"] += sum(1 for v in last.values() if not v["entries"])
assert n == {"search": 15, "modify": 10, "compare": 10, "noentry": 5}, n
print("ok: each modify and compare on the DN its search returned, with its mail; 5 searches without an entry and no second step")
PY
for u in 46 47 48 49 50; do
	assert_eq "user000$u@example.com" "$(_fix_read_attr "uid=user000$u,$people" description)" "user000$u's description = its mail"
done

# ---- the login as a flow: the group search's own row
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Groups,$FIX_BASE
objectClass: organizationalUnit
ou: Groups

dn: ou=Notes,$FIX_BASE
objectClass: organizationalUnit
ou: Notes

dn: cn=g1,ou=Groups,$FIX_BASE
objectClass: groupOfNames
cn: g1
member: uid=user00001,$people
member: uid=user00002,$people
LDIF
fixture_monitor_snapshot "$FIX_DIR/mon2"
run_ldbench "$out" -H "$FIX_URI" -n 2 -T 10 --flow auth \
	--step "search base=$people filter=(uid=user[1-2%00000]) sizelimit=2" \
	--step 'bind dn=@{1.dn} password=@{1.attr:uid}' \
	--step "search base=ou=Groups,$FIX_BASE filter=(member=@{1.dn}) name=groups" --json "$FIX_DIR/r2.json"
assert_eq 0 "$RC" "exit status, 20 login flows"
assert_match "${P}auth: attempted 20, completed 20, succeeded 20, counted 20, errors 0\$" "$out" "20 flows"
assert_match "${P}auth.1.search: attempted 20, completed 20, succeeded 20, counted 20, errors 0, entries 20\$" "$out" "the user search"
assert_match "${P}auth.2.bind: attempted 20, completed 20, succeeded 20, counted 20, errors 0\$" "$out" "the binds"
assert_match "${P}auth.groups: attempted 20, completed 20, succeeded 20, counted 20, errors 0, entries 20\$" "$out" \
	"the group search on its own line"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/mon2" Search)" "slapd's searches = the two search steps'"
assert_eq 20 "$(fixture_monitor_delta "$FIX_DIR/mon2" Bind)" "slapd's binds = the bind step's"
# compare and merge read a flow's rows by the names its --flow gave them (a process that did not run it)
"$LDBENCH" compare "$FIX_DIR/r2.json" -- "$FIX_DIR/r2.json" >"$out" 2>&1
assert_eq 0 "$?" "compare of a flow's records"
assert_match '^auth\.2\.bind +rate /s +[0-9.]+ ' "$out" "compare's row for the flow's bind step"
assert_match '^auth\.groups +p99 ms ' "$out" "compare's row for the named step"
"$LDBENCH" merge --json "$FIX_DIR/m.json" "$FIX_DIR/r1.json" "$FIX_DIR/r2.json" >"$out" 2>&1
assert_eq 0 "$?" "merge of two runs with two flows"
/usr/bin/python3 - "$FIX_DIR/m.json" "$FIX_DIR/r1.json" <<'PY'
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]["ops"]
upd = [json.loads(l) for l in open(sys.argv[2]) if '"summary"' in l][-1]["ops"]["upd"]
assert ops["auth"]["completed"] == 20 and ops["auth.2.bind"]["completed"] == 20, ops.get("auth")
assert ops["upd"]["completed"] == upd["completed"] and ops["upd"]["errors"] == upd["errors"], (ops.get("upd"), upd)
print("ok: merge holds both flows' rows: upd %d, auth 20" % upd["completed"])
PY

# ---- --login's group step: on its own row too (and still under search, as before)
run_ldbench "$out" -H "$FIX_URI" -n 2 -T 10 --login -b "$people" -f '(uid=user[1-2%00000])' \
	--login-password-attr uid --login-groups "ou=Groups,$FIX_BASE"
assert_eq 0 "$RC" "exit status, 20 logins with the group step"
assert_match "${P}login.groups: attempted 20, completed 20, succeeded 20, counted 20, errors 0\$" "$out" \
	"the group step's own line"
assert_match "${P}search: attempted 40, completed 40, succeeded 40, counted 40, errors 0, entries 40\$" "$out" \
	"the user and group searches together under search, as before"

# ---- an add built from what the search returned: its DN and its values
fixture_monitor_snapshot "$FIX_DIR/mon4"
run_ldbench "$out" -H "$FIX_URI" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -n 1 -T 5 --flow note \
	--step "search base=$people filter=(uid=user[1:5%00000]) attrs=mail" \
	--step "add dn=cn=@{1.attr:uid},ou=Notes,$FIX_BASE entry=objectClass:device;cn:@{1.attr:uid};description:@{1.attr:mail}"
assert_eq 0 "$RC" "exit status, 5 flows with an add"
assert_match "${P}note.2.add: attempted 5, completed 5, succeeded 5, counted 5, errors 0\$" "$out" "5 adds"
assert_eq 5 "$(fixture_monitor_delta "$FIX_DIR/mon4" Add)" "slapd's adds = the add step's"
assert_eq 5 "$(fixture_count "ou=Notes,$FIX_BASE" "(objectClass=device)")" "5 entries added"
assert_eq user00003@example.com "$(_fix_read_attr "cn=user00003,ou=Notes,$FIX_BASE" description)" \
	"the added entry's description: its user's mail"

# ---- --bad-password on plain binds, a connection per bind
start_capture "$FIX_PORT" "$FIX_DIR/cap3.jsonl"
fixture_monitor_snapshot "$FIX_DIR/mon3"
run_ldbench "$out" -H "$CAP_URI" -e bindonly,bindeach -D "uid=user00007,$people" -w user00007 -n 1 -T 40 \
	--bad-password 50%
assert_eq 0 "$RC" "exit status, 40 plain binds"
capture_stop_all
wrong=$(/usr/bin/python3 -c '
import json, sys
b = [x for x in map(json.loads, open(sys.argv[1])) if x["op"] == "bindRequest"]
assert len(b) == 40, len(b)
assert all(x["dn"] == sys.argv[2] for x in b)
print(sum(1 for x in b if x["password"] != "user00007"))' "$FIX_DIR/cap3.jsonl" "uid=user00007,$people")
[[ $wrong -gt 0 && $wrong -lt 40 ]] || _fail "50% wrong passwords: $wrong of 40"
assert_match "${P}bind wrong passwords \\(--bad-password\\): sent $wrong, refused $wrong, accepted 0, other 0\$" "$out" \
	"the wrong passwords the proxy saw, all refused"
assert_match "${P}bind: attempted 40, completed 40, succeeded 40, counted 40, errors 0\$" "$out" "refused on purpose: no error"
assert_match 'Global no error occurs during this session' "$out" "no 49 among the errors"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/mon3" Bind)" "slapd's binds"

# ---- bad input: one line, exit 2, before any connection (nothing listens on port 1)
bad() { # WHAT EXPECTED-LINE ARGS...
	local what=$1 line=$2
	shift 2
	run_ldbench "$out" -H ldap://127.0.0.1:1 -n 1 -T 1 "$@"
	assert_eq 2 "$RC" "$what: exit 2"
	assert_eq 1 "$(wc -l <"$out")" "$what: one line"
	assert_match "$line" "$out" "$what"
}
bad "a later step's value" '--step 2: @\{3.dn\}: no earlier step of the flow has that number or name' \
	--step "search base=$people" --step 'modify dn=@{3.dn} attr=description value=x' --step "search base=$people"
bad "a bind's DN" '--step 2: @\{1.dn\}: that step is no search: only a search returns an entry' \
	--step 'bind dn=cn=x password=y' --step 'delete dn=@{1.dn}'
bad "its own value" '--step 1: @\{1.count\}: no earlier step' --step "search base=$people filter=(cn=@{1.count})"
bad "an unknown kind" "--step 1: 'frobnicate': unknown step kind" --step 'frobnicate dn=x'
bad "an empty flow" '--flow empty: the flow has no step' --flow empty
bad "an empty step" '--step 2: an empty step' --step "search base=$people" --step ' '
bad "a key of another kind" "--step 1: 'password': not a key of this step's kind" --step "search base=$people password=x"
bad "a missing key" '--step 1: dn= missing' --step 'compare attr=cn value=x'
bad "an entry without a type" "--step 1: entry='cn x': write TYPE:VALUE" --step 'add dn=cn=x entry=cn x'
bad "an extensible filter" "--step 1: filter '\\(cn:dn:=x\\)': not a filter a flow sends" \
	--step "search base=$people filter=(cn:dn:=x)"
bad "a flow --mix does not name" '--step with --mix: name the flow in --mix' -b "$people" --mix search:1 \
	--step "search base=$people"
bad "--bad-password with no bind" '--bad-password needs binds to send' -e esearch -b "$people" --bad-password 5%
echo "ok: flows"
