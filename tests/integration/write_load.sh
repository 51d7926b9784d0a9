#!/usr/bin/env bash
# Write loads against a real slapd, each checked against what the directory
# holds afterwards: N adds create exactly N entries, delete removes exactly
# those, rename moves them, modify changes the value, the canonical populate
# command creates user1000..user1999 and nothing else, missing parents are
# created, and a mix run's per-kind counts equal cn=Monitor's per-kind deltas.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 200
out=$FIX_DIR/out.txt
root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Bench,$FIX_BASE
objectClass: organizationalUnit
ou: Bench

dn: ou=Moved,$FIX_BASE
objectClass: organizationalUnit
ou: Moved
LDIF
bench="ou=Bench,$FIX_BASE"
count() { fixture_count "$1" "$2"; }

# 1. 300 adds with a common counter and noloop: exactly cn=b0100..b0399
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e add,person,incr,commoncounter,noloop -r100 -R399 -n 4
assert_eq 0 "$RC" "exit status of the adds"
assert_eq 300 "$(global_total "$out")" "adds counted"
assert_eq 300 "$(fixture_monitor_delta "$FIX_DIR/snap" Add)" "server-side adds"
assert_eq 300 "$(count "$bench" '(objectClass=person)')" "entries in the directory"
assert_eq 1 "$(count "$bench" '(cn=b0100)')" "first entry"
assert_eq 1 "$(count "$bench" '(cn=b0399)')" "last entry"
assert_eq 0 "$(count "$bench" '(cn=b0400)')" "nothing past -R"
assert_match 'T00[0-3]: Hit top incremental value' "$out" "noloop's line"

# 2. adding them again: 68 each, tallied; with counteach they count
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e add,person,incr,commoncounter,noloop,counteach -r100 -R149 -n 2
assert_eq 0 "$RC" "exit status of repeated adds"
assert_match 'Global error 68 \(Already exists\) occurs +50 times$' "$out" "already-exists tallied"
assert_eq 50 "$(global_total "$out")" "counteach counts the expected failures"

# 3. modify: replace a value from a pattern; the directory holds the new values
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" --modify "replace:description=descXXXX" -e incr,noloop -r100 -R199 -n 2
assert_eq 0 "$RC" "exit status of the modifies"
assert_eq 100 "$(count "$bench" '(description=desc*)')" "modified entries"
assert_eq 1 "$(count "$bench" '(&(cn=b0142)(description=desc0142))')" "the value follows the entry's number"
# attreplace (ldclt): a random string in place of the X run
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e attreplace=telephoneNumber:555XXXX,random -r100 -R399 -n 2 -T 20
assert_eq 0 "$RC" "exit status of attreplace"
assert_ge 1 "$(count "$bench" '(telephoneNumber=555*)')" "attreplace values written"

# 4. compare: true for the value just written
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" --compare "description=descXXXX" -e random -r100 -R199 -n 2 -T 50
assert_eq 0 "$RC" "exit status of the compares"
assert_match 'compare: attempted 100, completed 100, succeeded 100, counted 100, errors 0$' "$out" "compares succeed"

# 5. rename, as ldclt: entry N takes the RDN of N+1 (two numbers a rename).
# With a new parent: b0100 -> ou=Moved/b0101, b0102 -> b0103, ... b0148 -> b0149
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e rename,withnewparent,incr,commoncounter,noloop --new-parent "ou=Moved,$FIX_BASE" -r100 -R149 -n 2
assert_eq 0 "$RC" "exit status of the renames"
assert_eq 25 "$(count "ou=Moved,$FIX_BASE" '(cn=b*)')" "entries moved"
assert_eq 1 "$(count "ou=Moved,$FIX_BASE" '(cn=b0149)')" "b0148 became ou=Moved/b0149"
assert_eq 0 "$(count "ou=Moved,$FIX_BASE" '(cn=b0148)')" "no b0148 under ou=Moved"
assert_eq 275 "$(count "$bench" '(objectClass=person)')" "entries left behind"
# withnewparent without --new-parent (ldclt): the new superior is the entry's own parent
run_ldbench "$out" "${root[@]}" -b "ou=Moved,$FIX_BASE" -f "cn=bXXXX" -e rename,withnewparent,incr,noloop -r101 -R102 -n 1
assert_eq 0 "$RC" "exit status of withnewparent without --new-parent"
assert_eq 1 "$(count "ou=Moved,$FIX_BASE" '(cn=b0102)')" "b0101 became b0102 in place"
assert_eq 0 "$(count "ou=Moved,$FIX_BASE" '(cn=b0101)')" "b0101 is gone"
# in place: b0101 -> b0102 (free since b0102 moved)
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e rename,incr,noloop -r101 -R102 -n 1
assert_eq 0 "$RC" "exit status of in-place renames"
assert_match 'Global average rate: .*total: +1$' "$out" "one rename counted"
assert_eq 1 "$(count "$bench" '(cn=b0102)')" "b0101 became b0102"
assert_eq 0 "$(count "$bench" '(cn=b0101)')" "b0101 is gone"

# 6. delete: exactly those
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=bXXXX" -e delete,incr,commoncounter,noloop -r150 -R349 -n 4
assert_eq 0 "$RC" "exit status of the deletes"
assert_eq 200 "$(fixture_monitor_delta "$FIX_DIR/snap" Delete)" "server-side deletes"
assert_eq 75 "$(count "$bench" '(objectClass=person)')" "what is left (b0102, b0103..b0149 odd, b0350..b0399)"

# 7. the canonical populate command: uid=user1000..user1999 and nothing else
cat >"$FIX_DIR/tmpl.ldif" <<'T'
objectclass: top
objectclass: person
objectclass: organizationalPerson
objectclass: inetOrgPerson
sn: user[A]
cn: user[A]
T
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Populate,$FIX_BASE
objectClass: organizationalUnit
ou: Populate
LDIF
run_ldbench "$out" "${root[@]}" -b "ou=Populate,$FIX_BASE" -n 4 \
	-e add,commoncounter -e "object=$FIX_DIR/tmpl.ldif,rdn=uid:user[A=INCRNNOLOOP(1000;1999;4)]"
assert_eq 0 "$RC" "exit status of the populate command"
assert_eq 1000 "$(count "ou=Populate,$FIX_BASE" '(uid=user*)')" "populated entries"
assert_eq 1 "$(count "ou=Populate,$FIX_BASE" '(uid=user1000)')" "first"
assert_eq 1 "$(count "ou=Populate,$FIX_BASE" '(uid=user1999)')" "last"
assert_eq 0 "$(count "ou=Populate,$FIX_BASE" '(|(uid=user0999)(uid=user2000))')" "none outside"
assert_match 'Global no error occurs during this session\.$' "$out" "no error while populating"

# 8. missing parents are created on 32, then the add goes through
run_ldbench "$out" "${root[@]}" -b "ou=Deep,ou=Deeper,$FIX_BASE" -f "cn=dXX" -e add,person,incr,noloop -r1 -R10 -n 1
assert_eq 0 "$RC" "exit status with missing parents"
assert_eq 10 "$(count "ou=Deep,ou=Deeper,$FIX_BASE" '(objectClass=person)')" "entries under created parents"
assert_match 'Intermediate nodes created: 2$' "$out" "two parents created"
# ou=Deep first (32: its parent is missing), ou=Deeper, ou=Deep again, then the add again
assert_match 'Parent entries: container adds 3 \(created 2, already existed 0, no parent 1, other errors 0\), adds sent again 1$' "$out" "the container adds by result"

# 9. --delete-after-add leaves the directory as it found it
before=$(count "$FIX_BASE" '(objectClass=*)')
# (a wide range: two clients drawing the same number at the same time would see 68, then 32)
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=tXXXXXX" -e add,inetOrgPerson,random --delete-after-add -r1 -R999999 -n 2 -T 100
assert_eq 0 "$RC" "exit status of add+delete"
assert_eq "$before" "$(count "$FIX_BASE" '(objectClass=*)')" "the directory as it was"
assert_match 'add: attempted 100, completed 100, succeeded 100' "$out" "100 adds (-T counts both kinds)"
assert_match 'delete: attempted 100, completed 100, succeeded 100' "$out" "100 deletes"

# 10. a weighted mix: each kind's count equals the server's delta for that kind
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -b "ou=Populate,$FIX_BASE" -f "uid=userXXXX" \
	--mix search:80,modify:15,compare:5 --modify "replace:description=mixXXXX" --compare "uid=userXXXX" \
	-e random -r1000 -R1999 -n 4 -T 500 --no-preflight
assert_eq 0 "$RC" "exit status of the mix"
assert_eq 2000 "$(global_total "$out")" "mix total"
for kind in search modify compare; do
	n=$(sed -nE "s/.*: $kind: attempted ([0-9]+), completed.*/\1/p" "$out")
	assert_ge 1 "$n" "$kind operations in the mix"
	mon=$(case $kind in search) echo Search ;; modify) echo Modify ;; compare) echo Compare ;; esac)
	assert_eq "$n" "$(fixture_monitor_delta "$FIX_DIR/snap" "$mon")" "server-side $kind count"
done
assert_match '^ldbench\[[0-9]+\]: modify latency \(ms\): min ' "$out" "a latency line per kind"
echo "write_load: all passed"
