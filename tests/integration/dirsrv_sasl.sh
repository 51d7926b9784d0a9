#!/bin/bash
# Multi-step SASL binds on the ctest fixture "dirsrv" (389 DS, Cyrus SASL):
# CRAM-MD5, DIGEST-MD5, SCRAM-SHA-1 and SCRAM-SHA-256 against users whose
# userPassword is clear text (the fixture's import keeps ldifgen's clear
# values; 389 DS's default uid mapping finds the user).  bindeach,bindonly
# with random authentication IDs succeeds, cn=snmp's strongauthbinds grows
# by every request of every exchange (the round trips ldbench timed), a
# wrong password is the server's 49, counted; and the outcome is
# ldapwhoami -Y's, for a user with a clear password and for one whose
# password 389 DS stored hashed (its default PBKDF2-SHA512: no SASL
# password mechanism can work with it, and both clients get 49).  A
# mechanism the server does not allow is its 7, counted.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
export LDAPNOINIT=1
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dssasl.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/out
w=$DS_WIDTH
X=$(printf 'X%.0s' $(seq "$w"))
u() { printf 'user%0*d' "$w" "$1"; }
srv=(-h 127.0.0.1 -p "$DS_PORT")
mechs=$(dirsrv_search -b "" -s base supportedSASLMechanisms)
rounds() { grep -oE '"round":\{"latency_us":\{"count":[0-9]+' "$1" | tail -n 1 | grep -oE '[0-9]+$'; }

# a user whose password 389 DS hashes (set over LDAP: the default storage scheme)
hashed=$(u "$DS_LAST")
printf 'dn: uid=%s,%s\nchangetype: modify\nreplace: userPassword\nuserPassword: %s\n' "$hashed" "$DS_PEOPLE" "$hashed" |
	ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null
dirsrv_search -b "uid=$hashed,$DS_PEOPLE" -s base userPassword | grep -qi '^userPassword:: e1BCS0RGMi' ||
	_fail "$hashed's password is not stored hashed (PBKDF2)"

whoami_rc() {
	set +e
	ldapwhoami -H "$DS_URI" -Y "$1" -U "$2" -w "$3" >/dev/null 2>&1
	local rc=$?
	set -e
	echo "$rc"
}
ldbench_rc() {
	run_ldbench "$out" "${srv[@]}" -o mech="$1" -o authid="$2" -w "$3" -e bindeach,bindonly,counteach -n 1 -T 1 >&2
	if grep -qE 'bind: attempted 1, completed 1, succeeded 1, counted 1, errors 0$' "$out"; then
		echo 0
	else
		sed -nE 's/.*Global error ([0-9-]+) .*/\1/p' "$out" | head -n 1
	fi
}

for mech in CRAM-MD5 DIGEST-MD5 SCRAM-SHA-1 SCRAM-SHA-256; do
	grep -qx "supportedSASLMechanisms: $mech" <<<"$mechs" || _fail "389 DS does not offer $mech"
	# 1. random IDs among the clear-text users; a read shows its own bind (simple), not ours.
	# (From the 101st: the fixture's first users are the ones other cases change,
	# such as dirsrv_extops's password modify, which 389 DS stores hashed.)
	strong0=$(dirsrv_snmp strongauthbinds)
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o "authid=user$X" -w "user$X" \
		-e "bindeach,bindonly,randomauthid,randomauthidlow=$((DS_FIRST + 100)),randomauthidhigh=$((DS_LAST - 1))" \
		-n 2 -T 10 --json "$work/a.json"
	[[ $RC == 0 ]] || cat "$out" >&2
	assert_eq 0 "$RC" "$mech bindeach exit status"
	assert_match 'bind: attempted 20, completed 20, succeeded 20, counted 20, errors 0$' "$out" "$mech bindeach counters"
	n=$(rounds "$work/a.json")
	assert_ge 40 "$n" "$mech: at least two round trips per exchange"
	assert_eq "$n" "$(( $(dirsrv_snmp strongauthbinds) - strong0 ))" "$mech: strongauthbinds = requests sent"

	# 2. a wrong password: the server's 49, counted
	run_ldbench "$out" "${srv[@]}" -o mech="$mech" -o "authid=$(u 3)" -w wrong -e bindeach,bindonly,counteach -n 1 -T 3
	assert_match 'bind: attempted 3, completed 3, succeeded 0, counted 3, errors 3$' "$out" "$mech wrong password counters"
	assert_match 'Global error 49 \(Invalid credentials\) occurs +3 times' "$out" "$mech wrong password code"

	# 3. as the server's own client does
	for case in "$(u 4) $(u 4)" "$(u 4) $(u 5)" "$hashed $hashed"; do
		read -r id pw <<<"$case"
		assert_eq "$(whoami_rc "$mech" "$id" "$pw")" "$(ldbench_rc "$mech" "$id" "$pw")" \
			"$mech as $id with password $pw: ldbench and ldapwhoami agree"
	done
	assert_eq 49 "$(ldbench_rc "$mech" "$hashed" "$hashed")" "$mech against a hashed password"
done
# 4. a mechanism the server does not allow (nsslapd-allowed-sasl-mechanisms
# without CRAM-MD5): the server's 7, counted, as ldapwhoami gets it
ds_allow() {
	ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null
}
trap 'printf "dn: cn=config\nchangetype: modify\ndelete: nsslapd-allowed-sasl-mechanisms\n" | ds_allow 2>/dev/null || true; rm -rf "$work"' EXIT
printf 'dn: cn=config\nchangetype: modify\nreplace: nsslapd-allowed-sasl-mechanisms\nnsslapd-allowed-sasl-mechanisms: %s\n' \
	"EXTERNAL, DIGEST-MD5, SCRAM-SHA-1, SCRAM-SHA-256" | ds_allow
run_ldbench "$out" "${srv[@]}" -o mech=CRAM-MD5 -o "authid=$(u 4)" -w "$(u 4)" -e bindeach,bindonly,counteach -n 1 -T 3
assert_match 'bind: attempted 3, completed 3, succeeded 0, counted 3, errors 3$' "$out" "refused mechanism counters"
assert_match 'Global error +7 \(Authentication method not supported\) occurs +3 times' "$out" "refused mechanism code"
assert_eq 7 "$(whoami_rc CRAM-MD5 "$(u 4)" "$(u 4)")" "ldapwhoami's code for the refused mechanism"
printf 'dn: cn=config\nchangetype: modify\ndelete: nsslapd-allowed-sasl-mechanisms\n' | ds_allow
assert_eq 0 "$(ldbench_rc CRAM-MD5 "$(u 4)" "$(u 4)")" "CRAM-MD5 allowed again"
echo "PASS"
