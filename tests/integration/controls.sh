#!/usr/bin/env bash
# Request controls against a real slapd (with the sssvlv overlay for
# server-side sort, loaded by this test only): the server acts on each one,
# and what it returns is counted.
#   sort: every search answered with a sort result of 0 (sorted), and a key
#     without an ordering rule answered 18 (inappropriate matching), counted;
#   a critical control slapd does not know: 12 (unavailableCriticalExtension)
#     counted per search, the run ends at -E as for any error; not critical:
#     ignored, no error;
#   proxied authorization: an entry only user00002 and user00003 may read
#     (ACL), searched bound as user00001 (allowed to proxy as them by authzTo):
#     without the control no entry; as a pattern over both, every search finds
#     it; as user00004 (not allowed): 123 (authorizationDenied) counted;
#   pre-read and post-read: one entry each per modify (the server's Modify
#     count), and the value the post-read asked for is the one written;
#   assertion: a modify whose assertion holds succeeds, one that fails is 122;
#   permissive modify: adding a value already there succeeds with it, is 20
#     (attributeOrValueExists) without;
#   ManageDsaIT, RFC 3672 subentries (only subentries: none here) and session
#     tracking are taken;
#   simple paged results: every entry once per search, a page per server
#     search, the pages counted and timed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
people="ou=People,dc=example,dc=com"
u() { echo "uid=user$1,$people"; }
FIX_EXTRA_GLOBAL=$(printf '%s\n' "moduleload sssvlv" "authz-policy to")
FIX_EXTRA_DB=$(printf '%s\n' "overlay sssvlv" \
	"access to attrs=userPassword by anonymous auth by * none" \
	"access to dn.exact=\"$(u 00010)\" by dn.exact=\"$(u 00002)\" read by dn.exact=\"$(u 00003)\" read by * none" \
	"access to * by * write")
export FIX_EXTRA_GLOBAL FIX_EXTRA_DB
fixture_start --users 50
out=$FIX_DIR/out.txt
root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" --no-preflight)

# 1. sort: nine entries (user00001..9) sorted by uid, descending
run_ldbench "$out" "${root[@]}" -f "(uid=user0000*)" -e esearch -n 1 -T 10 --sort-order "-uid:caseIgnoreOrderingMatch"
assert_eq 0 "$RC" "exit status, sorted searches"
assert_match 'search: attempted 10, completed 10, succeeded 10, counted 10, errors 0, entries 90, sort results 10, not sorted 0$' "$out" "ten sort results, all sorted"
# uid has no ordering rule of its own in slapd's schema: the server says 18
run_ldbench "$out" "${root[@]}" -f "(uid=user0000*)" -e esearch -n 1 -T 5 -E 4 --sort-order uid
assert_eq 3 "$RC" "exit status, a sort key the server cannot order (-E 4)"
assert_match 'Global error 18 \(Inappropriate matching\) occurs +5 times$' "$out" "18 counted"

# 2. a critical control the server does not know: 12, counted; not critical: ignored
run_ldbench "$out" "${root[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 5 -E 6 --control 1.3.6.1.4.1.99999.1:true:x
assert_eq 3 "$RC" "exit status, unknown critical control (-E 6)"
assert_match 'Global error 12 \(Critical extension is unavailable\) occurs +7 times$' "$out" "12 counted"
assert_match 'search: attempted 7, completed 7, succeeded 0, counted 0, errors 7' "$out" "every search refused"
run_ldbench "$out" "${root[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 5 --control 1.3.6.1.4.1.99999.1:false:x
assert_eq 0 "$RC" "exit status, unknown control not critical"
assert_match 'search: attempted 5, completed 5, succeeded 5, counted 5, errors 0, entries 5$' "$out" "ignored by the server"

# 3. proxied authorization: user00001 may act as user00002 and user00003
tmp=$FIX_DIR/authz.ldif
printf 'dn: %s\nchangetype: modify\nadd: authzTo\nauthzTo: dn:%s\nauthzTo: dn:%s\n' "$(u 00001)" "$(u 00002)" "$(u 00003)" >"$tmp"
LDAPNOINIT=1 ldapmodify -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$tmp" >/dev/null
as1=(-h 127.0.0.1 -p "$FIX_PORT" -D "$(u 00001)" -w user00001 -b "$(u 00010)" -s base --no-preflight)
run_ldbench "$out" "${as1[@]}" -f "(objectClass=*)" -e esearch -n 1 -T 4 -E 10
assert_match 'search: attempted [0-9]+, completed [0-9]+, succeeded 0, counted 0, errors [0-9]+, entries 0' "$out" "user00001 alone reads nothing"
assert_match 'Global error 32 \(No such object\)' "$out" "the entry is hidden from user00001"
run_ldbench "$out" "${as1[@]}" -f "(objectClass=*)" -e esearch -n 1 -T 6 --proxy-as "dn:uid=user0000[2:3],$people"
assert_eq 0 "$RC" "exit status, proxied as user00002 and user00003"
assert_match 'search: attempted 6, completed 6, succeeded 6, counted 6, errors 0, entries 6$' "$out" "every proxied search reads the entry"
run_ldbench "$out" "${as1[@]}" -f "(objectClass=*)" -e esearch -n 1 -T 3 -E 2 --proxy-as "dn:$(u 00004)" --json "$FIX_DIR/r.json"
assert_eq 3 "$RC" "exit status, proxied as user00004"
assert_match 'Global illegal errors \(codes not in \[-19, 122\]\) occurs +3 times$' "$out" "123 counted (ldclt's line for codes above 122)"
assert_match '"type":"summary".*"search":\{[^}]*"errors_by_code":\{"illegal":3\}' "$FIX_DIR/r.json" "123 counted in the summary record (as ldclt counts codes above 122)"

# 4. pre-read and post-read: an entry each per modify
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R20 -n 1 --modify "replace:description=d-XXXXX" \
	--pre-read-attribute description --post-read-attribute description,uid
assert_eq 0 "$RC" "exit status, modifies with pre-read and post-read"
assert_eq 20 "$(fixture_monitor_delta "$FIX_DIR/snap" Modify)" "server-side modifies"
assert_match 'modify: attempted 20, completed 20, succeeded 20, counted 20, errors 0, pre-read entries 20, post-read entries 20$' "$out" "an entry of each per modify"
assert_eq 1 "$(fixture_count "$FIX_PEOPLE" "(description=d-00017)")" "the value written"

# 5. assertion: holds, then fails (122)
run_ldbench "$out" "${root[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R5 -n 1 --modify "replace:description=a-XXXXX" --assertion-filter "(description=d-*)"
assert_eq 0 "$RC" "exit status, assertion holds"
assert_match 'modify: attempted 5, completed 5, succeeded 5' "$out" "five modifies under a true assertion"
run_ldbench "$out" "${root[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R5 -n 1 --modify "replace:description=b-XXXXX" --assertion-filter "(description=d-*)"
assert_match 'Global error 122 \(Assertion Failed\) occurs +5 times$' "$out" "122 counted"
assert_eq 0 "$(fixture_count "$FIX_PEOPLE" "(description=b-*)")" "nothing written under a false assertion"

# 6. permissive modify: adding a value already there
run_ldbench "$out" "${root[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R5 -n 1 --modify "add:description=a-XXXXX"
assert_match 'Global error 20 \(Type or value exists\) occurs +5 times$' "$out" "20 without the control"
run_ldbench "$out" "${root[@]}" -f "uid=userXXXXX" -e incr,noloop -r1 -R5 -n 1 --modify "add:description=a-XXXXX" --permissive-modify
assert_eq 0 "$RC" "exit status, permissive modify"
assert_match 'modify: attempted 5, completed 5, succeeded 5, counted 5, errors 0' "$out" "taken with the control"

# 7. ManageDsaIT, subentries (only subentries: none under People), session tracking
run_ldbench "$out" "${root[@]}" -f "(uid=user0001*)" -e esearch -n 1 -T 3 --manage-dsa-it --session-tracking ldbench-test
assert_eq 0 "$RC" "exit status, ManageDsaIT and session tracking"
assert_match 'search: attempted 3, completed 3, succeeded 3, counted 3, errors 0, entries 30$' "$out" "searches with both"
run_ldbench "$out" "${root[@]}" -f "(objectClass=*)" -e esearch -n 1 -T 3 --rfc3672-subentries true
assert_eq 0 "$RC" "exit status, subentries"
assert_match 'search: attempted 3, completed 3, succeeded 3, counted 3, errors 0, entries 0$' "$out" "no subentry under People"

# 8. simple paged results: a search is all its pages, every entry once; the
#    server counts one search per page; one paged search at a time on a
#    connection (slapd refuses a second one while the first is under way)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -f "(uid=user*)" -e esearch,srchnentries=50 -n 2 -T 3 --simple-page-size 7
assert_eq 0 "$RC" "exit status, paged searches"
assert_match 'search: attempted 6, completed 6, succeeded 6, counted 6, errors 0, entries 300, expected-result hits 6, misses 0, pages 48$' "$out" "6 searches of 8 pages, 50 entries each"
assert_eq 48 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "server-side searches: one per page"
# --monitor: the server's count of searches is the pages'
run_ldbench "$out" "${root[@]}" -f "(uid=user*)" -e esearch,srchnentries=50 -n 2 -T 3 --simple-page-size 7 --monitor
assert_eq 0 "$RC" "exit status, paged searches with --monitor"
assert_match 'Server \(cn=Monitor\): search completed 48 \(client: 48 completed, 0 in flight\): agree$' "$out" \
	"--monitor counts a paged search's pages"
assert_eq "$(fixture_count "$FIX_PEOPLE" "(uid=user*)")" 50 "the server's count of the entries"
assert_match '^ldbench\[[0-9]+\]: per-request latency \(ms\): min [0-9.]+, mean' "$out" "per-page latency line"

# 9. bad input: one line, exit 2, no connection
before=$(fixture_total_connections)
for bad in "--control 1.2.x" "--control 1.2.3:yes" "--control 1.2.3:true::@@@@" "--control nokind=1.2.3" \
	"--sort-order -" "--assertion-filter (cn=x" "--proxy-as dn:uid=[1-" "--pre-read-attribute cn" \
	"--simple-page-size 0"; do
	# shellcheck disable=SC2086
	run_ldbench "$out" "${root[@]}" -f "(uid=user00001)" -e esearch -n 1 -T 1 $bad
	assert_eq 2 "$RC" "exit status of $bad"
	assert_eq 1 "$(wc -l <"$out")" "one line for $bad"
done
assert_eq "$before" "$(fixture_total_connections)" "no connection opened by bad input"
echo "controls: all passed"
