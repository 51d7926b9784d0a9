#!/bin/bash
# -e genldif=FILE against a real slapd (tests/fixture/slapd.sh): the issue's
# populate template with rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)] writes exactly
# the 1000 entries uid=user1000..user1999, which ldapadd loads (as the root DN,
# under a parent added first); -e append adds to the file; an existing file
# without append exits 2 and is left alone; -n N > 1 is noted and ignored.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"

fails=0
check() { # DESCRIPTION EXPECTED ACTUAL
	if [[ "$2" == "$3" ]]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: expected '$2', got '$3'" >&2
		fails=$((fails + 1))
	fi
}

fixture_start --users 10
parent="ou=GenLdif,$FIX_BASE"
work=$FIX_DIR/genldif
mkdir -p "$work"
cd "$work"   # relative file names, as a user would type them

cat >tmpl.ldif <<'TMPL'
objectclass: top
objectclass: person
objectclass: organizationalPerson
objectclass: inetOrgPerson
sn: user[A]
cn: user[A]
uid: user[A]
TMPL

# -n 4: one line on stderr, one thread writes
rc=0
"$LDBENCH" -n 4 -b "$parent" -e "genldif=out.ldif,object=tmpl.ldif" \
	-e "rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]" >gen.out 2>gen.err || rc=$?
check "genldif exit status" 0 "$rc"
check "-n 4 noted on stderr (one line)" 1 "$(grep -c 'genldif: -n 4 ignored' gen.err)"
check "count line" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: genldif: 1000 entries written to out.ldif$' gen.out)"
check "entries in the file" 1000 "$(grep -c '^dn: ' out.ldif)"
check "distinct DNs" 1000 "$(grep '^dn: ' out.ldif | sort -u | wc -l)"
check "first entry" "dn: uid=user1000,$parent" "$(grep -m1 '^dn: ' out.ldif)"
check "last entry" "dn: uid=user1999,$parent" "$(grep '^dn: ' out.ldif | tail -n 1)"
check "names are exactly user1000..user1999" "$(seq -f 'dn: uid=user%g,'"$parent" 1000 1999)" \
	"$(grep '^dn: ' out.ldif)"
# the RDN's attribute first, as ldclt writes it (ldclt repeats it later; ldbench does not)
check "each entry's attributes" "$(printf '%s\n' "dn: uid=user1234,$parent" 'uid: user1234' 'objectclass: top' \
	'objectclass: person' 'objectclass: organizationalPerson' 'objectclass: inetOrgPerson' \
	'sn: user1234' 'cn: user1234')" \
	"$(grep -A7 "^dn: uid=user1234," out.ldif)"

# it loads: the parent first, then the file, as the root DN
printf 'dn: %s\nobjectClass: organizationalUnit\nou: GenLdif\n' "$parent" |
	LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
rc=0
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f out.ldif >add.out 2>add.err || rc=$?
check "ldapadd of the file" 0 "$rc"
check "entries under the parent" 1000 "$(fixture_count "$parent" '(objectClass=inetOrgPerson)')"
check "uid=user1000 exists" 1 "$(fixture_count "$parent" '(uid=user1000)')"
check "uid=user1999 exists" 1 "$(fixture_count "$parent" '(uid=user1999)')"
check "uid=user0999 absent" 0 "$(fixture_count "$parent" '(uid=user0999)')"
check "uid=user2000 absent" 0 "$(fixture_count "$parent" '(uid=user2000)')"

# ldclt's lines around the run, for scripts that read them
check "version line" 1 "$(grep -Ec '^ldbench version ' gen.out)"
check "Starting line" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: Starting at ' gen.out)"
check "dead thread line" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: T000: thread is dead\.$' gen.out)"
check "Global average rate" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: Global average rate: +[0-9.]+/thr  \( *[0-9.]+/sec\), total: +1000$' gen.out)"
check "Global dead threads" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: Global number of dead threads: 1$' gen.out)"
check "Exit line" 1 "$(grep -Ec '^ldbench\[[0-9]+\]: Exit status 0 - No problem during execution\.$' gen.out)"

# an existing file without append: exit 7 (ldclt's "Cannot initialize"), one
# line on stderr, ldclt's lines on stdout, the file untouched
sum=$(md5sum <out.ldif)
rc=0
"$LDBENCH" -b "$parent" -e "genldif=out.ldif,object=tmpl.ldif" \
	-e "rdn=uid:user[A=INCRNNOLOOP(2000;2009;4)]" >gen2.out 2>gen2.err || rc=$?
check "existing file without append: exit status" 7 "$rc"
check "existing file without append: message" "ldbench: genldif file out.ldif exists (use -e append)" \
	"$(cat gen2.err)"
check "existing file without append: Exit line" 1 \
	"$(grep -Ec '^ldbench\[[0-9]+\]: Exit status 7 - Cannot initialize ldbench\.$' gen2.out)"
check "existing file untouched" "$sum" "$(md5sum <out.ldif)"

# append: 10 more, after the first 1000
rc=0
"$LDBENCH" -b "$parent" -e "genldif=out.ldif,append,object=tmpl.ldif" \
	-e "rdn=uid:user[A=INCRNNOLOOP(2000;2009;4)]" >gen3.out 2>gen3.err || rc=$?
check "append: exit status" 0 "$rc"
check "append: stderr empty" "" "$(cat gen3.err)"
check "append: entries in the file" 1010 "$(grep -c '^dn: ' out.ldif)"
check "append: the first 1000 kept" "$(seq -f 'dn: uid=user%g,'"$parent" 1000 1999)" \
	"$(grep '^dn: ' out.ldif | head -n 1000)"
check "append: the new ones last" "$(seq -f 'dn: uid=user%g,'"$parent" 2000 2009)" \
	"$(grep '^dn: ' out.ldif | tail -n 10)"

# a class entry (person, incr,noloop over -r/-R) loads too
rc=0
"$LDBENCH" -b "$parent" -e "genldif=person.ldif,person,incr,noloop" -f "cn=pXXX" -r 1 -R 20 \
	>gen4.out 2>gen4.err || rc=$?
check "person: exit status" 0 "$rc"
check "person: entries" 20 "$(grep -c '^dn: ' person.ldif)"
rc=0
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f person.ldif >/dev/null 2>add2.err || rc=$?
check "person: ldapadd" 0 "$rc"
check "person: entries in the directory" 20 "$(fixture_count "$parent" '(&(objectClass=person)(cn=p*)(sn=p*))')"

if ((fails > 0)); then
	echo "$fails failure(s)" >&2
	exit 1
fi
echo "all genldif checks passed"
