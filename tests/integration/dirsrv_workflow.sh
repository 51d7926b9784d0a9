#!/bin/bash
# The 389 DS guide's workflow end to end on the ctest fixture "dirsrv"
# (tests/fixture/dirsrv.sh): the fixture's data is the real `dsctl ldifgen
# users --generic` imported offline; its validation counts; `ldbench gen users
# --generic` writes the same tree as dsctl ldifgen (diffed, random values
# masked); an ldbench LDIF imported into a second backend the guide's way is
# readable by a non-root account (ldifgen's ACIs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsflow.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
w=$DS_WIDTH

# 1. the guide's validation counts on the imported ldifgen data
assert_eq "$DS_USERS" "$(dirsrv_count "$DS_PEOPLE" '(uid=user*)')" "imported users"
first=$(printf "user%0${w}d" "$DS_FIRST") last=$(printf "user%0${w}d" "$DS_LAST")
assert_eq 1 "$(dirsrv_count "$DS_PEOPLE" "(uid=$first)")" "lowest user $first"
assert_eq 1 "$(dirsrv_count "$DS_PEOPLE" "(uid=$last)")" "highest user $last"
assert_eq 0 "$(dirsrv_count "$DS_PEOPLE" "(uid=$(printf "user%0${w}d" 0))")" "no user 0"
assert_eq 7 "$(dirsrv_count "$DS_BASE" '(objectClass=organizationalUnit)')" "ldifgen's seven OUs"
# a non-root account finds entries: ldifgen's "Anonymous Access" ACI
n=$(LDAPNOINIT=1 ldapsearch -x -H "$DS_URI" -D "uid=$first,$DS_PEOPLE" -w "$first" -b "$DS_PEOPLE" \
	"(uid=$last)" 1.1 | grep -c '^dn:' || true)
assert_eq 1 "$n" "an application account (uid=$first) reads $last"

# 2. ldbench gen users --generic against dsctl ldifgen users --generic: the
#    same entries in the same order with the same attributes; random values
#    (names, places, titles, the ou attribute, constants of lib389's own) masked
#    mod-load's random modify values (and which of --mod-attrs) masked too;
#    ldifgen ends a delete record with a line holding one space (OpenLDAP's
#    ldapmodify refuses it: "extra lines at end"), ldbench with an empty line
mask() {
	sed 's/^ $//' "$1" | awk 'BEGIN { RS = ""; FS = "\n" }
	{
		user = $1 ~ /^dn: (uid|cn)=/
		rattr = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^ /) continue
			n = $i; sub(/:.*/, "", n); v = substr($i, length(n) + 2)
			if (n == "replace") { rattr = tolower(substr(v, 2)); v = "*" }
			else if (rattr != "" && tolower(n) == rattr) { n = "*"; v = "*" }
			if (user && tolower(n) ~ /^(sn|givenname|description|initials|l|title|ou|postaladdress|usercertificate;binary|homephone|telephonenumber|facsimiletelephonenumber|mobile|pager|roomnumber|carlicense)$/) v = "*"
			print n ":" v
		}
		print ""
	}'
}
for args in "--number 200 --suffix $DS_BASE --parent $DS_PEOPLE --start-idx 1" \
	"--number 9 --suffix o=corp --parent ou=bench,o=corp" \
	"--number 1000 --suffix dc=example,dc=com --parent ou=groups,dc=example,dc=com --start-idx 5"; do
	# shellcheck disable=SC2086
	PREFIX=$DS_PREFIX dsctl "$DS_NAME" ldifgen users --generic $args --ldif-file "$work/theirs.ldif" >/dev/null
	# shellcheck disable=SC2086
	"$LDBENCH" gen users --generic $args --ldif-file "$work/ours.ldif" >/dev/null
	mask "$work/theirs.ldif" >"$work/theirs.masked"
	mask "$work/ours.ldif" >"$work/ours.masked"
	if ! diff "$work/theirs.masked" "$work/ours.masked" >"$work/diff"; then
		head -20 "$work/diff" >&2
		_fail "gen users --generic $args differs from dsctl ldifgen (above: < dsctl, > ldbench)"
	fi
	echo "ok: gen users --generic $args = dsctl ldifgen ($(grep -c '^dn:' "$work/ours.ldif") entries)"
done
# ldifgen users without --generic (random names): ldbench gen users --shape
# ldifgen-random, the same tree with the names masked, and in both files every
# user is uid=<initial><family name><i>, cn "<given> <family>", mail <i>@...
names_masked() {
	sed -E 's/^dn: (uid|cn)=[^,]*,/dn: \1=*,/; s/^(cn|uid|userPassword): .*/\1: */; s/^mail: [^0-9].*/mail: */' "$1" \
		>"$1.n"
	mask "$1.n"
}
names_ok() { # the users whose names do not follow ldifgen's pattern
	awk 'BEGIN { RS = ""; FS = "\n" } $1 ~ /^dn: uid=/ {
		delete a; m = ""
		for (i = 2; i <= NF; i++) { n = $i; sub(/: .*/, "", n); v = substr($i, length(n) + 3); a[n] = v
			if (n == "mail" && v ~ /^[0-9]+@/) m = v }
		sub(/@.*/, "", m)
		if (a["uid"] != substr(a["givenName"], 1, 1) a["sn"] m || a["cn"] != a["givenName"] " " a["sn"] ||
		    $1 != "dn: uid=" a["uid"] "," substr($1, index($1, ",") + 1) || m != ++k) print $1
	}' "$1"
}
for args in "--number 300 --suffix $DS_BASE --parent $DS_PEOPLE" "--number 20 --suffix o=corp --start-idx 7"; do
	# shellcheck disable=SC2086
	PREFIX=$DS_PREFIX dsctl "$DS_NAME" ldifgen users $args --ldif-file "$work/theirs.ldif" >/dev/null
	# shellcheck disable=SC2086
	"$LDBENCH" gen users --shape ldifgen-random $args --ldif-file "$work/ours.ldif" >/dev/null
	if [[ $args != *--parent* ]]; then # both put every user below one OU picked at random
		sed -i -E 's/^(dn: uid=[^,]*),ou=[^,]*,/\1,ou=*,/' "$work/theirs.ldif" "$work/ours.ldif"
	fi
	names_masked "$work/theirs.ldif" >"$work/theirs.masked"
	names_masked "$work/ours.ldif" >"$work/ours.masked"
	if ! diff "$work/theirs.masked" "$work/ours.masked" >"$work/diff"; then
		head -20 "$work/diff" >&2
		_fail "gen users --shape ldifgen-random $args differs from dsctl ldifgen users (above: < dsctl, > ldbench)"
	fi
	echo "ok: gen users --shape ldifgen-random $args = dsctl ldifgen users, names masked"
	assert_eq "" "$(names_ok "$work/theirs.ldif" | head -3)" "dsctl ldifgen users $args: uid = initial, family name, i"
	assert_eq "" "$(names_ok "$work/ours.ldif" | head -3)" "gen users --shape ldifgen-random $args: the same names"
done
# the seed guide's warning: with --start-idx 1 the first uid is user002 (200 users)
"$LDBENCH" gen users --generic --number 200 --suffix "$DS_BASE" --parent "$DS_PEOPLE" --start-idx 1 >"$work/u.ldif"
assert_eq "dn: uid=user002,$DS_PEOPLE" "$(grep -m1 '^dn: uid=' "$work/u.ldif")" "first user with --start-idx 1"
assert_eq "dn: uid=user201,$DS_PEOPLE" "$(grep '^dn: uid=' "$work/u.ldif" | tail -1)" "last user with --start-idx 1"

# 3. the guide's import of an ldbench file into a backend of its own (online
#    import task), then validation counts and a non-root search
"$LDBENCH" gen users --generic --number 500 --suffix o=ldb17 --parent ou=people,o=ldb17 \
	--ldif-file "$work/bench.ldif" >/dev/null
chmod 644 "$work/bench.ldif"
PREFIX=$DS_PREFIX dsconf -D "$DS_ROOTDN" -y "$DS_PWFILE" "$DS_URI" backend create --suffix o=ldb17 \
	--be-name ldb17 >/dev/null
PREFIX=$DS_PREFIX dsconf -D "$DS_ROOTDN" -y "$DS_PWFILE" "$DS_URI" backend import ldb17 "$work/bench.ldif" \
	>"$work/import.log" 2>&1 || { cat "$work/import.log" >&2; _fail "dsconf backend import"; }
cleanup_backend() {
	echo 'Yes I am sure' | PREFIX=$DS_PREFIX dsconf -D "$DS_ROOTDN" -y "$DS_PWFILE" "$DS_URI" backend delete ldb17 \
		>/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup_backend EXIT
# the import task may still be running when dsconf returns; searches then fail (1)
for ((i = 0; i < 300; i++)); do
	[[ $(dirsrv_count ou=people,o=ldb17 '(uid=user*)' 2>/dev/null) == 500 ]] && break
	sleep 0.2
done
assert_eq 500 "$(dirsrv_count ou=people,o=ldb17 '(uid=user*)')" "users imported from ldbench gen"
assert_eq 1 "$(dirsrv_count ou=people,o=ldb17 '(uid=user001)')" "user001"
assert_eq 1 "$(dirsrv_count ou=people,o=ldb17 '(uid=user500)')" "user500"
assert_eq 1 "$(dirsrv_count ou=people,o=ldb17 '(mail=42@example.com)')" "ldifgen's second mail value"
run_ldbench "$work/out" -h 127.0.0.1 -p "$DS_PORT" -D uid=user001,ou=people,o=ldb17 -w user001 \
	-b ou=people,o=ldb17 -f "uid=userXXX" -r1 -R500 -e esearch,random -n 2 -T 200
assert_eq 0 "$RC" "search as an application account"
assert_match 'search: attempted 400, completed 400, succeeded 400, counted 400, errors 0, entries 400' "$work/out" \
	"every search as uid=user001 found its entry (ldifgen's ACI)"

# 4. gen groups / mod-load --generic against dsctl ldifgen groups / mod-load:
#    the same records in the same order (masked as above)
same_as_ldifgen() { # KIND ARGS...: diff ldbench gen KIND --generic with dsctl ldifgen KIND
	local kind=$1
	shift
	PREFIX=$DS_PREFIX dsctl "$DS_NAME" ldifgen "$kind" "$@" --ldif-file "$work/theirs.ldif" >/dev/null
	"$LDBENCH" gen "$kind" --generic "$@" --ldif-file "$work/ours.ldif" >/dev/null
	mask "$work/theirs.ldif" >"$work/theirs.masked"
	mask "$work/ours.ldif" >"$work/ours.masked"
	if ! diff "$work/theirs.masked" "$work/ours.masked" >"$work/diff"; then
		head -20 "$work/diff" >&2
		_fail "gen $kind --generic $* differs from dsctl ldifgen (above: < dsctl, > ldbench)"
	fi
	echo "ok: gen $kind --generic $* = dsctl ldifgen ($(grep -c '^dn:' "$work/ours.ldif") records)"
}
same_as_ldifgen groups g --num-members 50 --suffix "$DS_BASE" --member-parent "$DS_PEOPLE"
same_as_ldifgen groups staff --number 3 --num-members 120 --create-members --suffix o=corp \
	--parent ou=groups,o=corp --member-parent ou=people,o=corp --member-attr member
same_as_ldifgen groups all --suffix dc=example,dc=com # 10000 members below the suffix
same_as_ldifgen mod-load --num-users 50 --parent "$DS_PEOPLE" --add-users 5 --mod-users 2 --modrdn-users 0 \
	--del-users 0
same_as_ldifgen mod-load --num-users 120 --parent ou=people,dc=example,dc=com --create-parent --create-users \
	--delete-users --add-users 12 --mod-users 30 --modrdn-users 20 --del-users 25 --mod-attrs description title
same_as_ldifgen mod-load --num-users 50 --parent ou=people,o=corp # 100 of each, past user50 as ldifgen
# ldifgen's group members are below the suffix unless --member-parent; a group's cn is its DN
"$LDBENCH" gen groups g --generic --num-members 3 --suffix o=corp >"$work/g.ldif"
assert_eq "uid=user1,o=corp uid=user2,o=corp uid=user3,o=corp" \
	"$(grep '^uniquemember:' "$work/g.ldif" | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//')" "members below the suffix"
assert_eq "cn: cn=g-1,o=corp" "$(grep '^cn:' "$work/g.ldif")" "the group's cn as ldifgen writes it"
# --randomize: the same records in another order; each kind still counts down
# and --delete-users deletes what is left in the order it came
args=(--num-users 40 --parent ou=people,o=corp --create-users --delete-users --add-users 10 --mod-users 10
	--modrdn-users 10 --del-users 10 --randomize)
PREFIX=$DS_PREFIX dsctl "$DS_NAME" ldifgen mod-load "${args[@]}" --ldif-file "$work/theirs.ldif" >/dev/null
"$LDBENCH" gen mod-load --generic "${args[@]}" --ldif-file "$work/ours.ldif" >/dev/null
records() { mask "$1" | awk 'BEGIN { RS = "" } { gsub(/\n/, "|"); print }' | sort; }
assert_eq "$(records "$work/theirs.ldif" | md5sum)" "$(records "$work/ours.ldif" | md5sum)" \
	"gen mod-load --generic --randomize: the records of dsctl ldifgen, as a set"
kinds() { # the DNs of the records of one changetype, in file order
	sed 's/^ $//' "$1" | awk -v ct="$2" 'BEGIN { RS = ""; FS = "\n" } $2 == "changetype: " ct { print $1 }'
}
assert_eq "$(kinds "$work/theirs.ldif" modrdn | tr '\n' ' ')" "$(kinds "$work/ours.ldif" modrdn | tr '\n' ' ')" \
	"--randomize: modrdns count down as ldifgen's"
assert_match 'dn: uid=user10,ou=people,o=corp' <(kinds "$work/ours.ldif" modrdn | head -1) "first modrdn: user10"
order() { # the interleaving of addUser adds and modrdns, and of their cleanup deletes
	sed 's/^ $//' "$1" | awk 'BEGIN { RS = ""; FS = "\n" }
		$2 == "changetype: add" && $1 ~ /addUser/ { a = a "A" } $2 == "changetype: modrdn" { a = a "R" }
		$2 == "changetype: delete" && $1 ~ /addUser/ { d = d "A" } $2 == "changetype: delete" && $1 ~ /^dn: cn=/ { d = d "R" }
		END { print a, d }'
}
read -r ops dels <<<"$(order "$work/theirs.ldif")"
assert_eq 20 "${#ops}" "dsctl ldifgen --randomize: 10 addUser adds and 10 modrdns"
assert_eq "$ops" "$dels" "dsctl ldifgen --randomize: the cleanup deletes in the order of the adds and modrdns"
read -r ops dels <<<"$(order "$work/ours.ldif")"
assert_eq 20 "${#ops}" "gen mod-load --randomize: 10 addUser adds and 10 modrdns"
assert_eq "$ops" "$dels" "gen mod-load --randomize: the cleanup deletes in the order of the adds and modrdns"
