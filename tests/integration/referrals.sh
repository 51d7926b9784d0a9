#!/usr/bin/env bash
# -e referral=on|rebind: referrals followed as libldap follows them for ldclt.
# Two slapds: the fixture's, holding a referral entry ou=moved that points to
# a second one, which holds ou=moved's entries (readable by bound users only).
# Checked by what both servers saw (cn=Monitor), by the entries returned
# (none to the anonymous chase of `on`, all to -D's of `rebind`), and by
# ldbench's own counts; referral=off still counts without following.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd_repl.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 20
out=$FIX_DIR/out.txt

# the second server: the same suffix, ou=moved's children for bound users only
_repl_conf "$FIX_DIR/second" 0
sed -i "/^index entryCSN/a access to dn.children=\"ou=moved,$FIX_BASE\" by users read by * none\naccess to * by * read" \
	"$FIX_DIR/second/slapd.conf"
_repl_launch "$FIX_DIR/second"
SPID=$_REPL_PID
SURI="ldap://127.0.0.1:$_REPL_PORT/"
trap 'set +e; _repl_kill "$SPID"; fixture_stop' EXIT
{
	printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: example\n\n' "$FIX_BASE"
	printf 'dn: ou=moved,%s\nobjectClass: organizationalUnit\nou: moved\n\n' "$FIX_BASE"
	for u in ref1 ref2; do
		printf 'dn: uid=%s,ou=moved,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\n\n' "$u" "$FIX_BASE" \
			"$u" "$u" "$u"
	done
} | LDAPNOINIT=1 ldapadd -x -H "$SURI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
printf 'dn: ou=moved,%s\nobjectClass: referral\nobjectClass: extensibleObject\nou: moved\nref: %sou=moved,%s\n' \
	"$FIX_BASE" "$SURI" "$FIX_BASE" | LDAPNOINIT=1 ldapadd -M -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null

# The second server's completed Binds and Searches, one line "BIND SEARCH".
# Each read adds one Bind and one Search to what the next read sees.
second_ops() {
	LDAPNOINIT=1 ldapsearch -x -LLL -H "$SURI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -b "cn=Operations,cn=Monitor" \
		'(|(cn=Bind)(cn=Search))' cn monitorOpCompleted |
		awk '/^cn: /{k=$2} /^monitorOpCompleted: /{v[k]=$2} END{print v["Bind"], v["Search"]}'
}
# second_delta BEFORE: the load's Binds and Searches there since BEFORE
second_delta() {
	local b s nb ns
	read -r b s <<<"$1"
	read -r nb ns <<<"$(second_ops)"
	echo "$((nb - b - 1)) $((ns - s - 1))"
}
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")

# 1. a result 10 followed anonymously (on): one bind per client there, each
# search sent on; the anonymous chase sees none of ou=moved's children
fixture_monitor_snapshot "$FIX_DIR/snap"
before=$(second_ops)
run_ldbench "$out" "${common[@]}" -b "ou=moved,$FIX_BASE" -f "(uid=ref1)" -e esearch,referral=on -n2 -T3 \
	--json "$FIX_DIR/on.json"
assert_eq 0 "$RC" "referral=on: exit status"
assert_match 'search: attempted 6, completed 6, succeeded 6, counted 6, errors 0, entries 0, referrals 6, referrals followed 6, followed ok 6$' \
	"$out" "referral=on: every result 10 followed, each answered by the second server"
assert_eq "2 6" "$(second_delta "$before")" "referral=on: the second server's binds (one per client) and searches"
assert_eq 6 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "referral=on: the first server's searches"
assert_match '"referrals":6,"referrals_followed":6,"referrals_followed_ok":6' "$FIX_DIR/on.json" \
	"referral=on: the JSON summary"

# 2. the same with rebind: bound with -D/-w there, the entry is returned
before=$(second_ops)
run_ldbench "$out" "${common[@]}" -b "ou=moved,$FIX_BASE" -f "(uid=ref1)" -e esearch,referral=rebind,srchnentries=1 \
	-n2 -T3
assert_eq 0 "$RC" "referral=rebind: exit status"
assert_match 'search: attempted 6, completed 6, succeeded 6, counted 6, errors 0, entries 6, expected-result hits 6, misses 0, referrals 6, referrals followed 6, followed ok 6$' \
	"$out" "referral=rebind: bound with -D, the chase reads the entry"
assert_eq "2 6" "$(second_delta "$before")" "referral=rebind: the second server's binds and searches"

# 3. search references: a subtree search above ou=moved gets one; followed,
# the search goes on at the URL's DN on the second server
before=$(second_ops)
run_ldbench "$out" "${common[@]}" -b "$FIX_BASE" -f "(uid=ref2)" -e esearch,referral=rebind,srchnentries=1 -n1 -T4
assert_eq 0 "$RC" "search references: exit status"
assert_match 'search: attempted 4, completed 4, succeeded 4, counted 4, errors 0, entries 4, expected-result hits 4, misses 0, referrals 4, referrals followed 4, followed ok 4$' \
	"$out" "search references followed: the second server's entry counted"
assert_eq "1 4" "$(second_delta "$before")" "search references: the second server's bind and searches"

# 4. a referred server that is down: followed, not ok, the result stays 10
printf 'dn: ou=gone,%s\nobjectClass: referral\nobjectClass: extensibleObject\nou: gone\nref: ldap://127.0.0.1:9/ou=gone,%s\n' \
	"$FIX_BASE" "$FIX_BASE" | LDAPNOINIT=1 ldapadd -M -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
run_ldbench "$out" "${common[@]}" -b "ou=gone,$FIX_BASE" -f "(uid=x)" -e esearch,referral=on -I 10 -n1 --duration 1s
assert_eq 0 "$RC" "referred server down: exit status"
n=$(sed -nE 's/.*search: attempted [0-9]+, completed ([0-9]+), succeeded 0, counted 0, errors \1, entries 0, referrals \1, referrals followed \1, followed ok 0$/\1/p' "$out")
assert_ge 1 "${n:-0}" "referred server down: each followed, none ok"
assert_match "Global error 10 \\(Referral\\) occurs +$n times" "$out" "referred server down: the results stay referrals"

# 5. referral=off: counted, never followed; the second server sees nothing
before=$(second_ops)
run_ldbench "$out" "${common[@]}" -b "ou=moved,$FIX_BASE" -f "(uid=ref1)" -e esearch,referral=off -I 10 -n1 --duration 1s
assert_eq 0 "$RC" "referral=off: exit status"
n=$(sed -nE 's/.*search: attempted [0-9]+, completed ([0-9]+), succeeded 0, counted 0, errors \1, entries 0, referrals \1$/\1/p' "$out")
assert_ge 1 "${n:-0}" "referral=off: every result 10 counted as a referral"
assert_eq "0 0" "$(second_delta "$before")" "referral=off: nothing sent to the second server"

echo "referrals: all passed"
