#!/usr/bin/env bash
# Every request carries what the command line asked for, whichever path wrote
# it: ldclt's XXX templates (ops/request), value patterns (ops/vreq), entry
# templates (object= rdn=, with patterns or ldclt's fields), the write kinds'
# own encoders, the abandons' searches and the extended kinds.  A table: one
# row per request path of each kind, run once through the capture proxy
# (tests/tools/ldapcapture.py) in front of a real slapd with every control
# that kind carries; each request of the row's operation is decoded and its
# controls compared with the values written out here in DER, control by
# control (OID, criticality, value):
#   --control (every kind), sort, assertion, proxied authorization (the
#   identity its pattern renders, in turn), pre-read, post-read, permissive
#   modify, ManageDsaIT, subentries, session tracking, -e deref, and paged
#   results: every page of a search carries the page size and the server's
#   cookie, the first page none, every later page the same search again (a
#   pattern's value or a template's number is the search's, not the next
#   operation's), and the pages counted on the search line are the requests
#   that went out.  The binds that open connections carry none.
# Then a search answered in one page: one request, counted as one page.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
FIX_EXTRA_DB="access to * by * write"
export FIX_EXTRA_DB
fixture_start --users 60
. "$here/../fixture/ldapcapture.sh"
trap 'capture_stop_all; fixture_stop' EXIT
out=$FIX_DIR/out.txt
people=$FIX_PEOPLE
printf 'objectclass: inetOrgPerson\nsn: s[1-9]\ncn: c[1:99]\n' >"$FIX_DIR/vp.tmpl"
printf 'objectclass: inetOrgPerson\nsn: s[B=RNDN(1;9;1)]\ncn: cn\n' >"$FIX_DIR/ldclt.tmpl"

# The controls, by name: the options that ask for each.
declare -A CTL=(
	[gen]="--control 1.2.3.4:false:abc"
	[sort]="--sort-order -uid"
	[assertion]="--assertion-filter (objectClass=*)"
	[proxy]="--proxy-as dn:uid=user0000[1:2],$people"
	[preread]="--pre-read-attribute description"
	[postread]="--post-read-attribute description"
	[permissive]="--permissive-modify"
	[dsait]="--manage-dsa-it"
	[subentries]="--rfc3672-subentries false"
	[session]="--session-tracking ldb-paths"
	[paged]="--simple-page-size 3"
	[deref]="-e deref=seeAlso:cn"
)
# Each kind's controls (its row's in src/ops/, and --control on all).
declare -A KIND_CTL=(
	[search]="gen sort assertion proxy dsait subentries session paged deref"
	[bind]="gen session"
	[add]="gen proxy postread dsait session"
	[modify]="gen assertion proxy preread postread permissive dsait session"
	[delete]="gen assertion proxy preread dsait session"
	[rename]="gen assertion proxy preread postread dsait session"
	[compare]="gen assertion proxy dsait session"
	[abandon]="gen"
	[passmod]="gen"
	[whoami]="gen"
	[extended]="gen"
)
# The paths: name | kind | its operation's requests | the workload's options
# (the identity and -b are added: the root DN, ou=People; @user=RDN: -D and
# -w from it).  The first bind of a connection is the connection's own, with
# no control, but with bindeach, where it is the load's.
ROWS=(
	"search-template|search|searchRequest:8|-f uid=user000X* -e esearch,incr,noloop -r1 -R2"
	"search-pattern|search|searchRequest:8|-f (uid=user000[1:2]*) -e esearch -T 2"
	"search-fixed|search|searchRequest:4|-f (uid=user0001*) -e esearch -T 1"
	"bind-template|bind|bindRequest:4|-e bindonly,randombinddn,randombinddnlow=1,randombinddnhigh=4 -T 4 @user=uid=userXXXXX"
	"bind-pattern|bind|bindRequest:4|-e bindonly -T 4 @user=uid=user[1:4%00000]"
	"bind-bindeach|bind|bindRequest:3|-e bindonly,bindeach -T 3 @user=uid=user[1:4%00000]"
	"add-class|add|addRequest:3|-e add,person,incr,noloop -f cn=addXXXXX -r1 -R3"
	"add-template-pattern|add|addRequest:3|-e add -T 3 -e object=$FIX_DIR/vp.tmpl,rdn=uid:tp[1:3]"
	"add-template-ldclt|add|addRequest:3|-e add -T 3 -e object=$FIX_DIR/ldclt.tmpl,rdn=uid:tl[A=INCRNNOLOOP(1;3;1)]"
	"modify-template|modify|modifyRequest:3|-f uid=userXXXXX -e incr,noloop -r1 -R3 --modify replace:description=m-XXXXX"
	"modify-pattern|modify|modifyRequest:3|-f uid=user[1:3%00000] -T 3 --modify replace:description=m[1-9]"
	"delete-template|delete|delRequest:2|-f uid=userXXXXX -e delete,incr,noloop -r51 -R52"
	"rename-template|rename|modDNRequest:2|-f uid=userXXXXX -e rename,incr,noloop -r56 -R59"
	"compare-template|compare|compareRequest:3|-f uid=userXXXXX -e incr,noloop -r1 -R3 --compare uid=userXXXXX"
	"compare-pattern|compare|compareRequest:3|-f uid=user[1:3%00000] -T 3 --compare uid=user[1:3%00000]"
	"abandon-template|abandon|searchRequest:3 abandonRequest:3|-f uid=userXXXXX -e abandon,incr,noloop -r1 -R3"
	"abandon-pattern|abandon|searchRequest:3 abandonRequest:3|-f (uid=user[1:3%00000]) -e abandon -T 3"
	"passmod-pattern|passmod|extendedReq:2|--passmod --passmod-user uid=user[4:5%00000],$people --passmod-new pw -T 2"
	"whoami|whoami|extendedReq:2|--whoami -T 2"
	"extended-pattern|extended|extendedReq:2|--extended 1.3.6.1.4.1.4203.1.11.3 -T 2"
)

# check.py CAPTURE OUT NAME KIND WANT CONTROLS PEOPLE RC: the row's requests
# against the controls written out in DER here (not by ldbench's encoder)
cat >"$FIX_DIR/check.py" <<'PY'
import base64, json, re, socket, sys
cap, outf, name, kind, want, names, people, rc = sys.argv[1:9]
names = names.split()
reqs = [json.loads(l) for l in open(cap)]
text = open(outf).read()
bad = []
def fail(what):
    bad.append(what)
def der(tag, body):
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    k = (n.bit_length() + 7) // 8
    return bytes([tag, 0x80 | k]) + n.to_bytes(k, "big") + body
def s(v): return der(0x04, v.encode())
def b64(b): return base64.b64encode(b).decode()
host = socket.gethostname()[:255]
fixed = {
    "gen": ("1.2.3.4", False, b"abc"),
    "sort": ("1.2.840.113556.1.4.473", False, der(0x30, der(0x30, s("uid") + der(0x81, b"\xff")))),
    "assertion": ("1.3.6.1.1.12", True, der(0x87, b"objectClass")),
    "preread": ("1.3.6.1.1.13.1", True, der(0x30, s("description"))),
    "postread": ("1.3.6.1.1.13.2", True, der(0x30, s("description"))),
    "permissive": ("1.2.840.113556.1.4.1413", False, None),
    "dsait": ("2.16.840.1.113730.3.4.2", False, None),
    "subentries": ("1.3.6.1.4.1.4203.1.10.1", True, der(0x01, b"\x00")),
    "session": ("1.3.6.1.4.1.21008.108.63.1", False,
                der(0x30, s("") + s(host) + s("1.3.6.1.4.1.21008.108.63.1.3") + s("ldb-paths"))),
    "deref": ("1.3.6.1.4.1.4203.666.5.16", False, der(0x30, der(0x30, s("seeAlso") + der(0x30, s("cn"))))),
}
PAGED = "1.2.840.113556.1.4.319"
PROXY = "2.16.840.1.113730.3.4.18"
def ctl(oid, crit, val):
    return {"oid": oid, "critical": crit, "value": None if val is None else b64(val)}
def canon(c): return json.dumps(c, sort_keys=True)
def tlv(b, i):
    t, n, j = b[i], b[i + 1], i + 2
    if n & 0x80:
        k = n & 0x7F
        n, j = int.from_bytes(b[j:j + k], "big"), j + k
    return t, j, j + n
def paged_value(v):
    b = base64.b64decode(v)
    t, s0, e0 = tlv(b, 0)
    ti, si, ei = tlv(b, s0)
    tc, sc, ec = tlv(b, ei)
    if (t, ti, tc, e0, ec) != (0x30, 0x02, 0x04, len(b), e0):
        return None
    return int.from_bytes(b[si:ei], "big"), b[sc:ec]

if rc != "0":
    fail("exit status %s" % rc)
conns = set()
for r in reqs:
    if r["op"] == "bindRequest" and r["conn"] not in conns and name != "bind-bindeach":
        conns.add(r["conn"])
        r["op"] = "connection's bind"
        if r["controls"]:
            fail("a bind that opens a connection carries controls: %s" % r["controls"])
    if r["op"] == "undecodable":
        fail("undecodable request: %s" % r["error"])
for opcount in want.split():
    op, count = opcount.split(":")
    got = [r for r in reqs if r["op"] == op]
    if len(got) != int(count):
        fail("%d %s, expected %s" % (len(got), op, count))
    searches = []
    for i, r in enumerate(got):
        exp = [ctl(*fixed[n]) for n in names if n in fixed and (op != "abandonRequest" or n == "gen")]
        if "proxy" in names:
            exp.append(ctl(PROXY, True, ("dn:uid=user0000%d,%s" % (1 + i % 2, people)).encode()))
        seen = [c for c in r["controls"] if c["oid"] != PAGED]
        if sorted(map(canon, seen)) != sorted(map(canon, exp)):
            fail("%s %d: controls %s, expected %s" % (op, i, seen, exp))
        if "paged" not in names or op != "searchRequest":
            continue
        pg = [c for c in r["controls"] if c["oid"] == PAGED]
        v = paged_value(pg[0]["value"]) if len(pg) == 1 and not pg[0]["critical"] else None
        if v is None or v[0] != 3:
            fail("%s %d: no paged results control of size 3 (%s)" % (op, i, pg))
            continue
        body = {k: r[k] for k in ("base", "scope", "filter", "attributes", "typesonly")}
        if v[1] == b"":
            searches.append([body])
        elif not searches or searches[-1][0] != body:
            fail("%s %d: a later page that is not its search again: %s after %s" %
                 (op, i, body, searches[-1][0] if searches else None))
        else:
            searches[-1].append(body)
    if "paged" in names and op == "searchRequest":
        m = re.search(r"search: attempted (\d+),.* entries (\d+),.* pages (\d+)$", text, re.M)
        if m is None or int(m.group(3)) != len(got) or int(m.group(1)) != len(searches):
            fail("search line %s: expected %d searches of %d pages in all" %
                 (m.group(0) if m else None, len(searches), len(got)))
        if any(len(p) != 4 for p in searches):
            fail("pages per search %s, expected 4 (10 entries, 3 a page)" % [len(p) for p in searches])
for b in bad:
    print("FAIL %s: %s" % (name, b), file=sys.stderr)
if not bad:
    print("ok %s: %s, each with %s" % (name, want, " ".join(names)))
sys.exit(1 if bad else 0)
PY

failed=0
for row in "${ROWS[@]}"; do
	IFS='|' read -r name kind want args <<<"$row"
	ctl=()
	for k in ${KIND_CTL[$kind]}; do
		# shellcheck disable=SC2206
		ctl+=(${CTL[$k]})
	done
	# shellcheck disable=SC2206
	a=($args)
	who=(-D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
	if [[ ${a[-1]} == @user=* ]]; then # a bind load: -D and -w from the row
		u=${a[-1]#@user=}
		unset 'a[-1]'
		who=(-D "$u,$people" -w "${u#uid=}")
	fi
	start_capture "$FIX_PORT" "$FIX_DIR/$name.jsonl"
	run_ldbench "$out" -h 127.0.0.1 -p "$CAP_PORT" "${who[@]}" -b "$people" --no-preflight -n 1 "${a[@]}" "${ctl[@]}"
	rc=$RC
	capture_stop_all
	cp "$out" "$FIX_DIR/$name.out"
	if ! /usr/bin/python3 "$FIX_DIR/check.py" "$FIX_DIR/$name.jsonl" "$FIX_DIR/$name.out" "$name" \
		"$kind" "$want" "${KIND_CTL[$kind]}" "$people" "$rc"; then
		failed=$((failed + 1))
		sed 's/^/  | /' "$out" | head -n 20
	fi
done
assert_eq 0 "$failed" "request paths whose requests lack a control asked for"

# A search answered in one page is one page: pages of 20, 10 entries a search,
# on either path; one request each, its control the size and no cookie.
for f in "uid=user000X*|-e esearch,incr,noloop -r1 -R3" "(uid=user000[1:3]*)|-e esearch -T 3"; do
	IFS='|' read -r filter opts <<<"$f"
	start_capture "$FIX_PORT" "$FIX_DIR/one-page.jsonl"
	# shellcheck disable=SC2086
	run_ldbench "$out" -h 127.0.0.1 -p "$CAP_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$people" --no-preflight \
		-n 1 -f "$filter" $opts --simple-page-size 20
	assert_eq 0 "$RC" "exit status, one page a search ($filter)"
	capture_stop_all
	assert_match 'search: attempted 3, completed 3, succeeded 3, counted 3, errors 0, entries 30, pages 3$' "$out" \
		"three searches of one page each ($filter)"
	assert_eq "3 MAUCARQEAA==" "$(/usr/bin/python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
s = [r["controls"] for r in s if r["op"] == "searchRequest"]
v = {c["value"] for cs in s for c in cs if c["oid"] == "1.2.840.113556.1.4.319"}
print(len(s), " ".join(sorted(v)))' "$FIX_DIR/one-page.jsonl")" "three requests, each asking pages of 20 with no cookie ($filter)"
done
echo "controls_paths: all passed"
