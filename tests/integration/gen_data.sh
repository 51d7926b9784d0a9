#!/bin/bash
# `ldbench gen groups | mod-load | tree` and `gen users --hash` against a real
# slapd (tests/fixture/slapd.sh): every generated file loads with ldapadd or
# ldapmodify as the root DN (without -c), and the directory afterwards holds
# exactly the entries, renames, values and counts the generator promised;
# hashed passwords bind.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"

fixture_start --users 100
echo "fixture up on $FIX_URI (pid $FIX_PID)"
W=$FIX_DIR/gen
mkdir -p "$W"

# ldapadd / ldapmodify FILE as the root DN, no -c: any failed record fails.
ldap_apply() { # FILE LOG
	LDAPNOINIT=1 ldapmodify -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$1" >"$2" 2>&1 ||
		{ tail -n 20 "$2" >&2; _fail "ldapmodify -f $1 failed"; }
	echo "ok: applied $(basename "$1")"
}
ldap_add() { # FILE LOG
	LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$1" >"$2" 2>&1 ||
		{ tail -n 20 "$2" >&2; _fail "ldapadd -f $1 failed"; }
	echo "ok: added $(basename "$1")"
}
# Values of ATTR in the entry DN (one per line, base64 ones decoded), as the root DN.
ldap_values() { # DN ATTR
	local line
	LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -LLL -o ldif-wrap=no \
		-b "$1" -s base '(objectClass=*)' "$2" | while IFS= read -r line; do
		case "$line" in
		"$2:: "*) base64 -d <<<"${line#"$2":: }" && echo ;;
		"$2: "*) echo "${line#"$2": }" ;;
		esac
	done
}
changetypes() { # FILE -> "add=N modify=N modrdn=N delete=N"
	local t out=""
	for t in add modify modrdn delete; do
		out+="$t=$(grep -c "^changetype: $t\$" "$1" || true) "
	done
	echo "${out% }"
}

B=$FIX_BASE

# --- groups of the fixture's existing users (no --create-members) ----------
"$LDBENCH" gen groups team --suffix "$B" --number 4 --num-members 50 --member-attr member \
	--member-parent "$FIX_PEOPLE" --ldif-file "$W/groups.ldif" >"$W/out"
assert_eq "Successfully created LDIF file: $W/groups.ldif" "$(cat "$W/out")" "groups success line"
assert_eq 4 "$(grep -c '^dn: ' "$W/groups.ldif")" "groups file: only the 4 groups"
ldap_add "$W/groups.ldif" "$W/groups.log"
assert_eq 4 "$(fixture_count "$B" '(objectClass=groupOfNames)')" "groupOfNames entries"
assert_eq 1 "$(fixture_count "$B" '(cn=team-4)')" "cn=team-4 exists"
assert_eq 0 "$(fixture_count "$B" '(cn=team-5)')" "cn=team-5 absent"
assert_eq 4 "$(fixture_count "$B" "(member=uid=user00050,$FIX_PEOPLE)")" "groups holding user00050"
assert_eq 0 "$(fixture_count "$B" "(member=uid=user00051,$FIX_PEOPLE)")" "groups holding user00051"
assert_eq 50 "$(ldap_values "cn=team-2,$B" member | wc -l)" "members of team-2"

# --- a self-contained groups file (--create-members) under ou=Bench ---------
GB="ou=Bench,$B"
"$LDBENCH" gen groups crew --suffix "$GB" --parent "ou=Groups,$GB" --member-parent "ou=Members,$GB" \
	--number 3 --num-members 20 --create-members --ldif-file "$W/groups2.ldif" >/dev/null
ldap_add "$W/groups2.ldif" "$W/groups2.log"
assert_eq 3 "$(fixture_count "$GB" '(objectClass=organizationalUnit)')" "Bench containers"
assert_eq 20 "$(fixture_count "$GB" '(objectClass=inetOrgPerson)')" "Bench members created once"
assert_eq 20 "$(fixture_count "ou=Members,$GB" '(uid=user*)')" "members under ou=Members"
assert_eq 3 "$(fixture_count "ou=Groups,$GB" '(objectClass=groupOfUniqueNames)')" "groupOfUniqueNames"
assert_eq 3 "$(fixture_count "$GB" "(uniqueMember=uid=user00020,ou=Members,$GB)")" "groups holding user00020"
assert_eq 26 "$(fixture_count "$GB" '(objectClass=*)')" "Bench subtree total"

# --- mod-load: adds, modifies, modrdns, deletes applied without -c ----------
WB="ou=WriteBench,$B"
"$LDBENCH" gen mod-load --num-users 20 --create-users --suffix "$WB" --parent "$WB" \
	--mod-attrs sn description --add-users 3 --mod-users 5 --modrdn-users 4 --del-users 6 \
	--ldif-file "$W/mod.ldif" >/dev/null
assert_eq "add=24 modify=5 modrdn=4 delete=6" "$(changetypes "$W/mod.ldif")" "mod-load changetypes"
ldap_apply "$W/mod.ldif" "$W/mod.log"
# 20 users - 6 deleted + 3 added
assert_eq 17 "$(fixture_count "$WB" '(objectClass=inetOrgPerson)')" "WriteBench users after the load"
assert_eq 3 "$(fixture_count "$WB" '(uid=addUser*)')" "added users"
for i in 1 2 3 4; do
	assert_eq 1 "$(fixture_count "cn=user0000$i,$WB" '(objectClass=*)')" "user0000$i renamed to cn="
	assert_eq 0 "$(fixture_count "uid=user0000$i,$WB" '(objectClass=*)')" "uid=user0000$i gone"
done
assert_eq 0 "$(fixture_count "$WB" '(uid=user00001)')" "deleteoldrdn removed the uid value"
assert_eq 1 "$(fixture_count "uid=user00005,$WB" '(objectClass=*)')" "user00005 not renamed"
assert_eq "user00002 modified" "$(ldap_values "cn=user00002,$WB" sn)" "sn of user00002 (modified, renamed)"
assert_eq "user00005 modified" "$(ldap_values "uid=user00005,$WB" description)" "description of user00005"
assert_eq "user00006" "$(ldap_values "uid=user00006,$WB" sn)" "sn of user00006 unchanged"
assert_eq 0 "$(fixture_count "$WB" '(|(uid=user00015)(uid=user00016)(uid=user00020))')" "users 15..20 deleted"
assert_eq 1 "$(fixture_count "$WB" '(uid=user00014)')" "user00014 kept"

# the dsctl guide's clean add+modify file: exactly 10 adds and 10 modifies
"$LDBENCH" gen mod-load --num-users 10 --create-users --parent "ou=Clean,$B" --suffix "ou=Clean,$B" \
	--mod-attrs sn --add-users 0 --mod-users 10 --modrdn-users 0 --del-users 0 \
	--ldif-file "$W/clean.ldif" >/dev/null
assert_eq "add=11 modify=10 modrdn=0 delete=0" "$(changetypes "$W/clean.ldif")" "clean file (+ ou=Clean)"
ldap_apply "$W/clean.ldif" "$W/clean.log"
assert_eq 10 "$(fixture_count "ou=Clean,$B" '(sn=user* modified)')" "10 modified sn values"

# --delete-users: everything the file created goes away again
RB="ou=Round,$B"
"$LDBENCH" gen mod-load --num-users 10 --create-users --suffix "$RB" --parent "$RB" --add-users 2 \
	--mod-users 3 --modrdn-users 3 --del-users 2 --delete-users --ldif-file "$W/round.ldif" >/dev/null
assert_eq "add=13 modify=3 modrdn=3 delete=12" "$(changetypes "$W/round.ldif")" "round-trip changetypes"
ldap_apply "$W/round.ldif" "$W/round.log"
assert_eq 1 "$(fixture_count "$RB" '(objectClass=*)')" "only ou=Round is left"

# --- the tree: depth 3, fanout 3, 3 entries per container -------------------
TB="ou=Tree,$B"
"$LDBENCH" gen tree --depth 3 --fanout 3 --entries 3 --suffix "$TB" --ldif-file "$W/tree.ldif" \
	>/dev/null 2>"$W/tree.err"
assert_eq "ldbench gen tree: 40 containers (levels 0-3, the top entry included), 120 entries, 160 in all" \
	"$(cat "$W/tree.err")" "tree counts on stderr"
ldap_add "$W/tree.ldif" "$W/tree.log"
assert_eq 40 "$(fixture_count "$TB" '(objectClass=organizationalUnit)')" "tree containers (1+3+9+27)"
assert_eq 120 "$(fixture_count "$TB" '(objectClass=inetOrgPerson)')" "tree entries (3 per container)"
assert_eq 52 "$(fixture_count "ou=unit2,$TB" '(objectClass=*)')" "subtree ou=unit2: 13 containers + 39 entries"
assert_eq 4 "$(fixture_count "ou=unit3,ou=unit1,ou=unit2,$TB" '(objectClass=*)')" "a level-3 container: itself + 3 entries, no children"
assert_eq 0 "$(fixture_count "$TB" '(ou=unit4)')" "no fourth sub-container"
assert_eq 1 "$(fixture_count "$TB" '(cn=entry00120)')" "last entry number"

# --- hashed passwords --------------------------------------------------------
for h in ssha ssha256 ssha512; do
	HB="ou=Hash-$h,$B"
	"$LDBENCH" gen users --suffix "$HB" --parent "$HB" --number 3 --hash "$h" \
		--ldif-file "$W/users-$h.ldif" >/dev/null
	ldap_add "$W/users-$h.ldif" "$W/users-$h.log"
	tag=$(tr '[:lower:]' '[:upper:]' <<<"$h")
	# (ldapsearch always shows userPassword base64-encoded; ldap_values decodes)
	ldap_values "uid=user00002,$HB" userPassword >"$W/stored-$h"
	assert_match "^\\{$tag\\}[A-Za-z0-9+/]+=*$" "$W/stored-$h" "stored userPassword is {$tag}base64"
done

# {SSHA} is built into slapd
who=$(LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00002,ou=Hash-ssha,$B" -w user00002)
assert_eq "dn:uid=user00002,ou=Hash-ssha,$B" "$who" "bind with an {SSHA} password"
rc=0
LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00002,ou=Hash-ssha,$B" -w user00003 >/dev/null 2>&1 || rc=$?
assert_eq 49 "$rc" "wrong password refused (invalidCredentials)"

# {SSHA256}/{SSHA512} need the pw-sha2 module; the fixture's slapd.conf does
# not load it (yet), so add it to this run's generated conf and restart.
if ! grep -q '^moduleload pw-sha2' "$FIX_DIR/slapd.conf"; then
	[[ -e /usr/lib/ldap/pw-sha2.so ]] || _fail "/usr/lib/ldap/pw-sha2.so is not installed"
	sed -i 's/^moduleload back_mdb$/&\nmoduleload pw-sha2/' "$FIX_DIR/slapd.conf"
	assert_match '^moduleload pw-sha2$' "$FIX_DIR/slapd.conf" "pw-sha2 added to this run's slapd.conf"
	fixture_restart
fi
for h in ssha256 ssha512; do
	who=$(LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00003,ou=Hash-$h,$B" -w user00003)
	assert_eq "dn:uid=user00003,ou=Hash-$h,$B" "$who" "bind with an {${h^^}} password"
	rc=0
	LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00003,ou=Hash-$h,$B" -w user00002 >/dev/null 2>&1 || rc=$?
	assert_eq 49 "$rc" "{${h^^}}: wrong password refused"
done

# --- bad options: exit 2, one stderr line, no stdout, no file ----------------
bad() { # DESCRIPTION ARGS...
	local what=$1 rc=0
	shift
	rm -f "$W/bad.ldif"
	"$LDBENCH" gen "$@" --ldif-file "$W/bad.ldif" >"$W/bad.out" 2>"$W/bad.err" || rc=$?
	assert_eq 2 "$rc" "$what: exit 2"
	assert_eq 1 "$(wc -l <"$W/bad.err")" "$what: one stderr line"
	assert_eq 0 "$(wc -c <"$W/bad.out")" "$what: no stdout"
	assert_eq no "$([[ -e "$W/bad.ldif" ]] && echo yes || echo no)" "$what: no file"
	echo "    stderr: $(cat "$W/bad.err")"
}
bad "mod-users above num-users" mod-load --num-users 10 --parent "$WB" --mod-users 11
bad "mod-load default counts above num-users" mod-load --num-users 10 --parent "$WB"
bad "mod-load uid attribute" mod-load --num-users 10 --parent "$WB" --mod-attrs uid --add-users 0 \
	--mod-users 1 --modrdn-users 0 --del-users 0
bad "mod-load without --parent" mod-load --num-users 10
bad "groups without NAME" groups --suffix "$B"
bad "groups bad member attr" groups g --suffix "$B" --member-attr owner
bad "groups zero members" groups g --suffix "$B" --num-members 0
bad "groups member-parent outside suffix" groups g --suffix "$B" --member-parent ou=People,dc=other
bad "tree without --depth" tree --fanout 2 --entries 1
bad "tree too deep" tree --depth 33 --fanout 1 --entries 1
bad "tree zero fanout" tree --depth 2 --fanout 0 --entries 1
bad "tree overflow" tree --depth 32 --fanout 1000 --entries 1
bad "users bad hash" users --suffix "$B" --number 1 --hash md5

echo "all checks passed"
