#!/usr/bin/env bash
# Request controls as sent, through the capture proxy (tests/tools/ldapcapture.py)
# in front of a real slapd: every search carries --control's OID, criticality
# and value, then ManageDsaIT (not critical, no value), then proxied
# authorization (critical) with the identity its pattern renders per request
# (a sequence: user00001, user00002, user00001, ...); the modifies carry the
# --control whose KIND= names them, the searches do not; the binds that open
# the connections carry none.  Then --sort-order through a capture that also
# records the entries the server sent back: each search's entries arrive in
# the order asked for (uid descending), all of them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
FIX_EXTRA_GLOBAL="moduleload sssvlv"
FIX_EXTRA_DB="overlay sssvlv"
export FIX_EXTRA_GLOBAL FIX_EXTRA_DB
fixture_start --users 20
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
start_capture "$FIX_PORT"
out=$FIX_DIR/out.txt
people="ou=People,dc=example,dc=com"
c=(-h 127.0.0.1 -p "$CAP_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$people" --no-preflight
	--control 1.2.3.4:false:abc --manage-dsa-it
	--proxy-as "dn:uid=user0000[1:2],$people")
run_ldbench "$out" "${c[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 4
assert_eq 0 "$RC" "exit status, searches through the capture"
run_ldbench "$out" "${c[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R2 -n 1 --modify "replace:description=c" \
	--control modify=1.2.3.5:false::AAEC
assert_eq 0 "$RC" "exit status, modifies through the capture"
capture_stop_all
/usr/bin/python3 - "$CAP_OUT" "$people" <<'PY'
import base64, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
people = sys.argv[2]
def b64(s): return base64.b64encode(s.encode()).decode()
binds = [l for l in lines if l["op"] == "bindRequest"]
searches = [l for l in lines if l["op"] == "searchRequest"]
mods = [l for l in lines if l["op"] == "modifyRequest"]
assert len(binds) == 2 and all(b["controls"] == [] for b in binds), binds
assert len(searches) == 4 and len(mods) == 2, (len(searches), len(mods))
for i, l in enumerate(searches + mods):
    i = i if i < 4 else i - 4
    want = [{"oid": "1.2.3.4", "critical": False, "value": b64("abc")}]
    if l["op"] == "modifyRequest":
        want.append({"oid": "1.2.3.5", "critical": False, "value": "AAEC"})
    want.append({"oid": "2.16.840.1.113730.3.4.2", "critical": False, "value": None})
    want.append({"oid": "2.16.840.1.113730.3.4.18", "critical": True,
                 "value": b64("dn:uid=user0000%d,%s" % (1 + i % 2, people))})
    assert l["controls"] == want, (i, l["controls"], want)
print("ok: 6 requests with their controls as sent, the binds with none")
PY

# server-side sort: the entries as received, through a second capture
start_capture "$FIX_PORT" "$FIX_DIR/sorted.jsonl" --entries
run_ldbench "$out" -h 127.0.0.1 -p "$CAP_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$people" --no-preflight \
	-f "(uid=user0000*)" -e esearch -n 1 -T 3 --sort-order "-uid:caseIgnoreOrderingMatch"
assert_eq 0 "$RC" "exit status, sorted searches through the capture"
assert_match 'sort results 3, not sorted 0$' "$out" "three sort results, all sorted"
capture_stop_all
/usr/bin/python3 - "$FIX_DIR/sorted.jsonl" "$people" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
want = ["uid=user0000%d,%s" % (i, sys.argv[2]) for i in range(9, 0, -1)]
searches = [l for l in lines if l["op"] == "searchRequest"]
assert len(searches) == 3, len(searches)
for s in searches:
    got = [l["dn"] for l in lines if l["op"] == "searchResEntry" and l["msgid"] == s["msgid"]]
    assert got == want, (s["msgid"], got)
print("ok: 3 sorted searches, each with user00009 .. user00001 in that order")
PY
echo "controls_capture: all passed"
