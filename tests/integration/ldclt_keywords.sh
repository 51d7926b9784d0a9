#!/usr/bin/env bash
# ldclt's -e keywords that ldbench used to refuse: v2, string and
# ascii, deref, imagesdir, random strings from ldclt's printable set, and the
# NSS client-certificate keywords (refused, naming the PEM options).  Each is
# checked by what the server saw: cn=Monitor counts, entries present
# afterwards, values returned.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
FIX_EXTRA_GLOBAL="moduleload deref" FIX_EXTRA_DB="overlay deref" fixture_start --users 50
out=$FIX_DIR/out.txt
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# 1. NSS client certificates: one line naming the PEM options, exit 2, no connection
for kw in cltcertname=me keydbfile=/tmp/key3.db keydbpin=secret; do
	fixture_monitor_snapshot "$FIX_DIR/snap"
	run_ldbench "$out" "${common[@]}" -f "(uid=user00001)" -e esearch -e "$kw" -n1 -T1
	assert_eq 2 "$RC" "-e $kw: exit status"
	assert_match "^ldbench: -e ${kw%%=*}: .*--tls-cert FILE --tls-key FILE" "$out" "-e $kw names the PEM options"
	assert_eq 1 "$(wc -l <"$out")" "-e $kw: one line"
done

# 2. v2: the binds say version 2.  Without "allow bind_v2" slapd refuses them
# (protocolError, 2); with it they succeed: the server saw version 2.
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2,counteach -n1 -T5 -I 2
assert_eq 5 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "v2 binds the server answered (refused)"
assert_match 'bind: attempted 5, completed 5, succeeded 0' "$out" "v2 binds refused without allow bind_v2"
assert_match 'Global error  2 \(Protocol error\) occurs     5 times' "$out" "refused with protocolError"
sed -i '/^threads /a allow bind_v2' "$FIX_DIR/slapd.conf"
fixture_restart
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2 -n2 -T5
assert_eq 0 "$RC" "v2 binds with allow bind_v2: exit status"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "v2 binds the server completed"
assert_match 'bind: attempted 10, completed 10, succeeded 10' "$out" "v2 binds succeed with allow bind_v2"
run_ldbench "$out" "${common[@]}" -e bindonly,bindeach,v2 -o mech=EXTERNAL -n1 -T1
assert_eq 2 "$RC" "v2 with SASL"
assert_match 'v2 and -o mech exclude each other' "$out" "v2 with SASL: why"

# The values of ATTR in the entries under BASE matching FILTER, one a line,
# base64 ones decoded (not through the fixture's ledger: no snapshot is open).
values() { # BASE FILTER ATTR
	local line
	LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -LLL -o ldif-wrap=no \
		-b "$1" "$2" "$3" | while IFS= read -r line; do
		case "$line" in
		"$3:: "*) printf '%s\n' "${line#*:: }" | base64 -d; echo ;;
		"$3: "*) printf '%s\n' "${line#*: }" ;;
		esac
	done
}
# every line of FILE is PREFIX and N characters of ldclt's printable set less
# the DN and filter specials
all_printable() { # FILE N PREFIX
	local bad
	bad=$(LC_ALL=C grep -cvE "^$3[]!\$%&'./0-9:?@A-Z[^_\`a-z{|}~-]{$2}\$" "$1" || true)
	assert_eq 0 "$bad" "values outside the printable set in $1"
}

# 3. string,ascii on adds: -f's X run is 6 random 7-bit bytes, escaped in the DN
# (RFC 4514), the entry's cn the same bytes unescaped: every add succeeds
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "cn=sXXXXXX" -e add,person,random,string,ascii -r0 -R9 -n1 -T 40
assert_eq 0 "$RC" "string,ascii adds: exit status"
assert_match 'add: attempted 40, completed 40, succeeded 40' "$out" "string,ascii adds all succeed"
assert_eq 40 "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "string,ascii adds the server completed"
values "$FIX_PEOPLE" "(&(objectClass=person)(cn=s*))" cn | grep -v '^toto' >"$FIX_DIR/cn.txt"
assert_eq 40 "$(wc -l <"$FIX_DIR/cn.txt")" "string,ascii entries present afterwards"
assert_eq 0 "$(LC_ALL=C grep -cvE '^s[ -~]{6}$' "$FIX_DIR/cn.txt" || true)" "each cn is s and 6 7-bit characters"
assert_ge 1 "$(LC_ALL=C grep -cE '^s.*[^A-Za-z0-9]' "$FIX_DIR/cn.txt" || true)" "some hold characters a DN escapes"

# 4. string on searches: the filter's run is random bytes (BER carries them
# unescaped); the server answers every one, nothing matches
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(cn=XXXXXXXX)" -e esearch,random,string -r0 -R9 -n2 -T 15
assert_eq 0 "$RC" "string searches: exit status"
assert_eq 30 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "string searches the server completed"
assert_match 'search: attempted 30, completed 30, succeeded 30, counted 30, errors 0, entries 0' "$out" \
	"string searches"

# 5. RNDS and attreplace draw from ldclt's printable set (less the specials)
printf 'objectclass: inetOrgPerson\nsn: rnds\ndescription: [B=RNDS(24)]\n' >"$FIX_DIR/rnds.tmpl"
run_ldbench "$out" "${common[@]}" -e add,commoncounter -e "object=$FIX_DIR/rnds.tmpl,rdn=cn:r[A=INCRNNOLOOP(0;19;2)]" \
	-n1
assert_eq 0 "$RC" "RNDS adds: exit status"
values "$FIX_PEOPLE" "(sn=rnds)" description >"$FIX_DIR/rnds.txt"
assert_eq 20 "$(wc -l <"$FIX_DIR/rnds.txt")" "RNDS entries present afterwards"
all_printable "$FIX_DIR/rnds.txt" 24 ""
run_ldbench "$out" "${common[@]}" -f "cn=rXX" -e attreplace=description:aXXXXXXXXXXXX,incr,noloop -r0 -R19 -n1
assert_eq 0 "$RC" "attreplace: exit status"
values "$FIX_PEOPLE" "(sn=rnds)" description >"$FIX_DIR/rep.txt"
assert_eq 20 "$(wc -l <"$FIX_DIR/rep.txt")" "attreplace: one value each"
all_printable "$FIX_DIR/rep.txt" 12 a

# 6. deref: inetOrgPerson adds carry secretary: <their own DN>; esearch sends
# the dereference control and counts the values the server dereferenced
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "cn=dXX" -e add,inetOrgPerson,incr,noloop,deref -r0 -R9 -n1
assert_eq 0 "$RC" "deref adds: exit status"
assert_eq 10 "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "deref adds the server completed"
values "$FIX_PEOPLE" "(cn=d05)" secretary >"$FIX_DIR/sec.txt"
assert_eq "cn=d05,$FIX_PEOPLE" "$(cat "$FIX_DIR/sec.txt")" "secretary is the entry's own DN"
# (--no-preflight: the count below is the load's own searches, without the pre-flight's five)
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "(cn=dXX)" -e esearch,random,deref -r0 -R9 -n2 -T 10 --no-preflight --json "$FIX_DIR/d.json"
assert_eq 0 "$RC" "deref searches: exit status"
assert_eq 20 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "deref searches the server completed"
assert_match 'search: attempted 20, completed 20, succeeded 20, counted 20, errors 0, entries 20, deref values 20$' \
	"$out" "one dereferenced value per entry"
assert_match '"deref_values":20' "$FIX_DIR/d.json" "the JSON summary counts them"
run_ldbench "$out" "${common[@]}" -f "(cn=d0X)" -e esearch,random,deref=secretary:sn -r0 -R9 -n1 -T 5
assert_match 'entries 5, deref values 5$' "$out" "deref=secretary:sn"
run_ldbench "$out" "${common[@]}" -f "(uid=user0000X)" -e esearch,random,deref -r1 -R9 -n1 -T 5
assert_match 'entries 5, deref values 0$' "$out" "no secretary, nothing dereferenced"

# 7. imagesdir: the jpegPhoto of each inetOrgPerson add is the next file of
# DIR (in name order, read at start-up); an empty or missing DIR: exit 7
mkdir "$FIX_DIR/img"
for i in 1 2 3; do
	head -c $((1000 * i + 7)) /dev/urandom >"$FIX_DIR/img/p$i.jpg"
done
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${common[@]}" -f "cn=iXX" -e add,inetOrgPerson,incr,noloop -e "imagesdir=$FIX_DIR/img" -r0 -R5 -n1
assert_eq 0 "$RC" "imagesdir adds: exit status"
assert_eq 6 "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "imagesdir adds the server completed"
for k in 0 1 2 3 4 5; do
	values "$FIX_PEOPLE" "(cn=i0$k)" jpegPhoto >"$FIX_DIR/photo"
	truncate -s -1 "$FIX_DIR/photo" # the newline values() adds
	cmp -s "$FIX_DIR/photo" "$FIX_DIR/img/p$((k % 3 + 1)).jpg" || _fail "cn=i0$k: jpegPhoto is not p$((k % 3 + 1)).jpg"
done
mkdir "$FIX_DIR/noimg"
for d in "$FIX_DIR/noimg" "$FIX_DIR/missing"; do
	fixture_monitor_snapshot "$FIX_DIR/snap"
	run_ldbench "$out" "${common[@]}" -f "cn=jXX" -e add,inetOrgPerson,incr -e "imagesdir=$d" -r0 -R5 -n1 -T1
	assert_eq 7 "$RC" "imagesdir=$d: exit status"
	assert_match "^ldbench: -e imagesdir=$d: (no image in the directory|cannot open: No such file or directory)$" \
		"$out" "imagesdir=$d: why"
	assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "imagesdir=$d: no connection"
done

# 8. referrals: a referral entry (to a second server's port, never contacted)
# makes a search at it end in result 10 and a subtree search above it return a
# search reference; both are counted as referrals, not followed
printf 'dn: ou=moved,%s\nobjectClass: referral\nobjectClass: extensibleObject\nou: moved\nref: ldap://127.0.0.1:9/ou=moved,%s\n' \
	"$FIX_BASE" "$FIX_BASE" | LDAPNOINIT=1 ldapadd -M -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
fixture_monitor_snapshot "$FIX_DIR/snap"
# (-I 10 keeps the run going and -T counts successes only: a short --duration)
run_ldbench "$out" "${common[@]}" -b "ou=moved,$FIX_BASE" -f "(uid=x)" -e esearch,referral=off -I 10 -n1 \
	--duration 1s
assert_eq 0 "$RC" "referral results: exit status"
n=$(sed -nE 's/.*search: attempted [0-9]+, completed ([0-9]+), succeeded 0, counted 0, errors \1, entries 0, referrals \1$/\1/p' "$out")
assert_ge 1 "${n:-0}" "every referral result (10) counted as a referral"
assert_match "Global error 10 \\(Referral\\) occurs +$n times" "$out" "the results are referrals (10)"
assert_ge "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "searches at the referral the server answered"
run_ldbench "$out" "${common[@]}" -b "$FIX_BASE" -f "(uid=user00001)" -e esearch,srchnentries=1 -n1 -T4 --json "$FIX_DIR/r.json"
assert_eq 0 "$RC" "search references: exit status"
assert_match 'search: attempted 4, completed 4, succeeded 4, counted 4, errors 0, entries 4, expected-result hits 4, misses 0, referrals 4$' \
	"$out" "one search reference per search, the entry beside it"
assert_match '"referrals":4' "$FIX_DIR/r.json" "the JSON summary counts them"
# following them (referral=on|rebind) is tests/integration/referrals.sh's; rebind needs -D and -w
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch,referral=rebind -n1 -T1
assert_eq 2 "$RC" "referral=rebind without -D: exit status"
assert_match "referral=rebind needs -D and -w" "$out" "referral=rebind without -D: why"

echo "ldclt_keywords: all passed"
