#!/usr/bin/env bash
# Value patterns (UnboundID's syntax) against a real slapd, through the capture
# proxy (tests/tools/ldapcapture.py): what ldbench sent is decoded by an
# independent decoder and checked value by value: sequences in their order and
# partitioned over the clients, random values within their range, file lines,
# UUIDs, back-references and literal brackets, -b, -D and -w patterns (binds
# that succeed), and the server's counters equal to what the capture saw;
# an entry template whose values and rdn are patterns: the entries added hold
# exactly the values promised.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
. "$here/../fixture/ldapcapture.sh"
fixture_start --users 100
trap 'capture_stop_all; fixture_stop' EXIT
out=$FIX_DIR/out.txt

# capture ARGS...: one ldbench run through a fresh capture proxy; CAP_OUT
# holds what it sent once the proxy has stopped (the load's requests only:
# the pre-flight check of a -f pattern, tests/integration/preflight_patterns.sh,
# is left out)
capture() {
	start_capture "$FIX_PORT"
	run_ldbench "$out" -h 127.0.0.1 -p "$CAP_PORT" --no-preflight "$@"
	capture_stop_all
}
# py EXPR-SCRIPT: a Python check over the capture's requests (list `reqs`);
# it prints what it checked and exits non-zero on a failure
py() {
	/usr/bin/python3 - "$CAP_OUT" <<EOF || _fail "capture check failed (see above)"
import json, re, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
def op(name): return [r for r in reqs if r["op"] == name]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
    print("ok:", what)
$1
EOF
}
root=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW")

# 1. a sequential range over 4 clients: each client takes every 4th value of
# the global sequence from its own start, together each value once
fixture_monitor_snapshot "$FIX_DIR/snap"
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=user[1:40%00000])" -e esearch,srchnentries=1 -n 4 -T 10
assert_eq 0 "$RC" "exit status of a sequential run"
assert_match 'search: attempted 40, completed 40, succeeded 40, counted 40, errors 0, entries 40, expected-result hits 40, misses 0$' "$out" "every sequential value named an entry"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches"
py '
s = op("searchRequest")
check(len(s) == 40, "40 searches captured")
nums = [int(re.fullmatch(r"\(uid=user(\d{5})\)", r["filter"]).group(1)) for r in s]
check(sorted(nums) == list(range(1, 41)), "values 1..40, each once, zero-padded to 5 digits")
by = {}
for r, n in zip(s, nums): by.setdefault(r["conn"], []).append(n)
check(len(by) == 4, "4 connections")
for c, v in by.items():
    check(v == list(range(v[0], v[0] + 40, 4)) and 1 <= v[0] <= 4, "client of conn %d: %s (start + 4k, in order)" % (c, v[:3]))
'

# 2. a random range: within its bounds, spread; with --seed the same values again
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=user[1-100%00000])" -e esearch,srchnentries=1 -n 1 -T 60 --seed 11
assert_eq 0 "$RC" "exit status of a random run"
cp "$CAP_OUT" "$FIX_DIR/random1"
py '
nums = [int(re.fullmatch(r"\(uid=user(\d{5})\)", r["filter"]).group(1)) for r in op("searchRequest")]
check(len(nums) == 60 and min(nums) >= 1 and max(nums) <= 100, "60 random values within 1..100")
check(len(set(nums)) >= 30, "spread: %d distinct of 60" % len(set(nums)))
'
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=user[1-100%00000])" -e esearch,srchnentries=1 -n 1 -T 60 --seed 11
filters() { /usr/bin/python3 -c 'import json,sys; print(" ".join(json.loads(l).get("filter","") for l in open(sys.argv[1]) if "searchRequest" in l))' "$1"; }
assert_eq "$(filters "$FIX_DIR/random1")" "$(filters "$CAP_OUT")" "--seed 11 twice: the same values in the same order"

# 3. value files: a sequential file in order (wrapping), a random line from the set
printf 'user00007\nuser00003\n\nuser00099\r\nuser00042\n' >"$FIX_DIR/uids.txt"
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=[sequentialfile:$FIX_DIR/uids.txt])" -e esearch,srchnentries=1 -n 1 -T 9
assert_eq 0 "$RC" "exit status of a sequential file run"
py '
f = [r["filter"] for r in op("searchRequest")]
want = ["(uid=user%05d)" % n for n in (7, 3, 99, 42, 7, 3, 99, 42, 7)]
check(f == want, "the file lines in order, blank line skipped, CR dropped, wrapped: %s" % f[:5])
'
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=[file:$FIX_DIR/uids.txt])" -e esearch,srchnentries=1 -n 2 -T 20
assert_eq 0 "$RC" "exit status of a random file run"
py '
f = {r["filter"] for r in op("searchRequest")}
check(f <= {"(uid=user00007)", "(uid=user00003)", "(uid=user00099)", "(uid=user00042)"} and len(f) >= 3, "random lines of the file: %s" % sorted(f))
'

# 4. UUIDs, a back-reference and literal brackets in one filter
capture "${root[@]}" -b "$FIX_PEOPLE" -f "(|(description=[uuid])(cn=v[1-999]-[ref:2]-[[x]]))" -e esearch -n 2 -T 15
assert_eq 0 "$RC" "exit status of a uuid/ref run"
py '
u, refs = [], 0
for r in op("searchRequest"):
    m = re.fullmatch(r"\(\|\(description=([^)]*)\)\(cn=v(\d+)-(\d+)-\[x\]\)\)", r["filter"])
    check(m is not None, "filter shape %s" % r["filter"]) if m is None else None
    u.append(m.group(1))
    refs += m.group(2) == m.group(3) and 1 <= int(m.group(2)) <= 999
check(all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", x) for x in u), "30 version 4 UUIDs, well formed")
check(len(set(u)) == 30, "all different")
check(refs == 30, "[ref:2] equals the second bracket every time; [[x]] is a literal [x]")
'

# 5. -b, -D and -w patterns: base searches over a sequence of entries, binds
# as users whose password follows the same sequence
capture "${root[@]}" -b "uid=user[1:6%00000],$FIX_PEOPLE" -s base -f "(objectClass=*)" -e esearch,srchnentries=1 -n 2 -T 6
assert_eq 0 "$RC" "exit status of a -b pattern run"
py '
b = sorted(r["base"] for r in op("searchRequest"))
check(b == sorted(["uid=user%05d,ou=People,dc=example,dc=com" % n for n in list(range(1, 7)) * 2]), "bases user00001..6, twice each")
'
fixture_monitor_snapshot "$FIX_DIR/snap"
capture -D "uid=user[1:100%00000],$FIX_PEOPLE" -w "user[1:100%00000]" -e bindonly -n 2 -T 10
assert_eq 0 "$RC" "exit status of -D/-w pattern binds"
assert_match 'bind: attempted [0-9]+, completed [0-9]+, succeeded [0-9]+, counted [0-9]+, errors 0' "$out" "every bind succeeded"
binds=$(grep -c '"bindRequest"' "$CAP_OUT")
assert_eq "$binds" "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "server-side binds = binds captured"
py '
b = op("bindRequest")
check(len(b) >= 20, "%d binds" % len(b))
check(all(r["dn"] == "uid=%s,ou=People,dc=example,dc=com" % r["password"] for r in b), "each DN and its password from the same sequence")
check(len({r["dn"] for r in b}) == len(b), "no DN twice within one lap")
'

# 6. --compare and --modify values take patterns too
capture "${root[@]}" -b "$FIX_PEOPLE" -f "uid=user[1:5%00000]" --compare "uid=user[1:5%00000]" -n 1 -T 5
assert_eq 0 "$RC" "exit status of a compare run"
py '
c = op("compareRequest")
check([r["value"] for r in c] == ["user%05d" % n for n in range(1, 6)], "compare values in order")
check(all(r["dn"].startswith("uid=" + r["value"] + ",") for r in c), "entry DNs from the -f pattern")
'
capture "${root[@]}" -b "$FIX_PEOPLE" -f "uid=user[1:3%00000]" --modify "replace:description=d[random:6:ab]" -n 1 -T 3
assert_eq 0 "$RC" "exit status of a modify run"
py '
m = op("modifyRequest")
check(len(m) == 3 and all(re.fullmatch(r"d[ab]{6}", r["changes"][0]["values"][0]) for r in m), "modify values: d + 6 of [ab]")
'
# 7. an entry template (-e object=) whose attribute values and rdn are
# patterns, beside ldclt's own fields: two clients of 10 adds each share the
# sequences out, so the directory holds exactly 1..20 once each
tmpl=$FIX_DIR/vp.tmpl
cat >"$tmpl" <<'T'
objectclass: inetOrgPerson
sn: s[A=RNDN(1;9;1)]
cn: c[random:8:abcdefgh]
description: emp [1:20%000000]
mail: [random:8:abcdefgh]@example.com
employeeNumber: [100-199]
T
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" "${root[@]}" -b "$FIX_PEOPLE" -n 2 -T 10 \
	-e add -e "object=$tmpl,rdn=uid:tpl[1:20%00]"
assert_eq 0 "$RC" "exit status of the template adds"
assert_eq 20 "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "server-side adds"
assert_eq 20 "$(fixture_count "$FIX_PEOPLE" '(uid=tpl*)')" "entries added = server's adds"
ldapsearch -x -LLL -o ldif-wrap=no -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b "$FIX_PEOPLE" '(uid=tpl*)' \
	uid sn cn description mail employeeNumber >"$FIX_DIR/tpl.ldif"
/usr/bin/python3 - "$FIX_DIR/tpl.ldif" <<'EOF' || _fail "template entries check failed (see above)"
import re, sys
ents = [dict(l.split(": ", 1) for l in b.splitlines() if ": " in l) for b in open(sys.argv[1]).read().split("\n\n") if b.strip()]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
    print("ok:", what)
check(sorted(e["description"] for e in ents) == ["emp %06d" % n for n in range(1, 21)], "descriptions: exactly emp 000001..000020")
check(sorted(e["uid"] for e in ents) == ["tpl%02d" % n for n in range(1, 21)], "rdn: exactly tpl01..tpl20")
check(all(re.fullmatch(r"[a-h]{8}@example\.com", e["mail"]) for e in ents), "mail: 8 of [a-h] @example.com")
check(all(re.fullmatch(r"c[a-h]{8}", e["cn"]) for e in ents), "cn: c + 8 of [a-h]")
check(all(100 <= int(e["employeeNumber"]) <= 199 for e in ents), "employeeNumber in 100..199")
check(all(re.fullmatch(r"s[1-9]", e["sn"]) for e in ents), "sn: ldclt's RNDN beside the patterns")
EOF
# a value mixing both forms is refused at start-up, naming file and line
printf 'objectclass: person\nsn: [A=RNDN(1;9;1)] [1-5]\ncn: x\n' >"$FIX_DIR/mixed.tmpl"
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" "${root[@]}" -b "$FIX_PEOPLE" -e add -e "object=$FIX_DIR/mixed.tmpl,rdn=uid:m[1-5]"
assert_eq 2 "$RC" "exit status of a mixed template"
assert_match "object file $FIX_DIR/mixed.tmpl line 2: .*mixes ldclt's fields" "$out" "the mixed value's line"
echo "value_patterns: all passed"
