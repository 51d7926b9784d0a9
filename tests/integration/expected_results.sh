#!/usr/bin/env bash
# Runs that cannot silently measure nothing, against a real slapd:
# the pre-flight check of a search range and of a randombinddn range (its
# lines, exit 11, --no-preflight), the warning after ldclt's "no error" line
# when searches missed, misses and hits as --fail-if metrics, --monitor's
# delta with the pre-flight left out, and parent creation's container adds
# counted by result, equal to what cn=Monitor saw.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 200
out=$FIX_DIR/out.txt
snap=$FIX_DIR/snap
root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
search=("${root[@]}" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,random,srchnentries=1)

# 1. a range past the data (users 1..200): the searched values, one line saying so, exit 11, no load
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${search[@]}" -r 101 -R 300 -n 2 -T 50
assert_eq 11 "$RC" "exit status of a range past the data"
assert_match '^ldbench\[[0-9]+\]: Pre-flight: search \(uid=user00101\) 1, \(uid=user00150\) 1, \(uid=user00200\) 1, \(uid=user00250\) 0, \(uid=user00300\) 0 entries$' "$out" "pre-flight line: lowest, three between, highest"
assert_match '^ldbench\[[0-9]+\]: Pre-flight failed: the filter \(uid=user00250\) \(value 250 of -r 101 -R 300\) returns 0 entries, expected 1 \(srchnentries\): the range does not match the data under ou=People,dc=example,dc=com \(--no-preflight runs anyway\)$' "$out" "the one line"
assert_match '^ldbench\[[0-9]+\]: Exit status 11 - The range does not match the data \(pre-flight check\)\.$' "$out" "exit line"
assert_no_match 'Global average rate' "$out" "no load ran"
assert_eq 5 "$(fixture_monitor_delta "$snap" Search)" "the server saw only the pre-flight's 5 searches"
# without srchnentries: at least one entry each
run_ldbench "$out" "${root[@]}" -b "$FIX_PEOPLE" -f "(uid=userXXXXX)" -e esearch,incr -r 150 -R 250 -n 1 -T 5
assert_eq 11 "$RC" "exit status without srchnentries"
assert_match 'Pre-flight failed: the filter \(uid=user00225\) \(value 225 of -r 150 -R 250\) returns 0 entries, expected at least 1:' "$out" "at least one entry expected"

# 2. --no-preflight runs it: ldclt's no-error line stays, the warning comes right after it
run_ldbench "$out" "${search[@]}" -r 101 -R 300 -n 2 -T 50 --no-preflight --seed 3 --json "$FIX_DIR/miss.json"
assert_eq 0 "$RC" "exit status with --no-preflight"
assert_no_match 'Pre-flight' "$out" "no pre-flight line"
misses=$(sed -nE 's/.*expected-result hits ([0-9]+), misses ([0-9]+)$/\2/p' "$out")
hits=$(sed -nE 's/.*expected-result hits ([0-9]+), misses ([0-9]+)$/\1/p' "$out")
assert_eq 100 "$((hits + misses))" "hits + misses = searches"
assert_ge 1 "$misses" "some searches missed"
assert_eq "Warning: $misses of 100 expected-result checks missed (srchnentries=1): no LDAP error does not mean every filter matched." \
	"$(grep -A1 'Global no error occurs during this session\.$' "$out" | tail -n 1 | sed 's/^ldbench\[[0-9]*\]: //')" "the warning after ldclt's line"

# 3. --fail-if 'misses>0' fails the same run (exit 10), 'search.hits<100' too; neither on a full match
run_ldbench "$out" "${search[@]}" -r 101 -R 300 -n 2 -T 50 --no-preflight --seed 3 --fail-if 'misses>0' --fail-if 'search.hits<100'
assert_eq 10 "$RC" "exit status of --fail-if misses>0"
assert_match "Threshold failed: misses>0 \\(search is $misses\\)\$" "$out" "misses threshold line"
assert_match "Threshold failed: search.hits<100 \\(search is $hits\\)\$" "$out" "hits threshold line"
assert_match 'Exit status 10 - Threshold exceeded' "$out" "exit line of the threshold"

# 4. a matching range passes the pre-flight; --monitor leaves its 5 searches (and bind) out: exact
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${search[@]}" -r 1 -R 200 -n 2 -T 50 --monitor --fail-if 'misses>0' --json "$FIX_DIR/hit.json"
assert_eq 0 "$RC" "exit status of a matching range"
assert_match ': Pre-flight: search \(uid=user00001\) 1, \(uid=user00050\) 1, \(uid=user00100\) 1, \(uid=user00150\) 1, \(uid=user00200\) 1 entries$' "$out" "pre-flight line of a matching range"
assert_match 'expected-result hits 100, misses 0$' "$out" "every search hit"
assert_no_match '^ldbench\[[0-9]+\]: Warning: ' "$out" "no warning when nothing missed"
assert_match ': Server \(cn=Monitor\): search completed 100 \(client: 100 completed, 0 in flight\): agree$' "$out" "--monitor: the load's searches only"
assert_eq 107 "$(fixture_monitor_delta "$snap" Search)" "the server saw the load's 100, the pre-flight's 5 and --monitor's 2 reads"

# compare: misses as a count of the change side's runs
set +e
"$LDBENCH" compare --fail-if 'misses>0' --fail-if 'hits<-10%' "$FIX_DIR/hit.json" -- "$FIX_DIR/miss.json" >"$FIX_DIR/cmp.txt" 2>&1
rc=$?
set -e
assert_eq 1 "$rc" "compare's exit status when misses>0 holds"
assert_match "^search +misses +0 .* +$misses " "$FIX_DIR/cmp.txt" "compare's misses row"
assert_match "^fail-if 'misses>0': holds \(search misses $misses\)\$" "$FIX_DIR/cmp.txt" "compare's misses verdict"
assert_match "^fail-if 'hits<-10%': holds \(search hits -$misses\.0%\)\$" "$FIX_DIR/cmp.txt" "compare's hits change"
set +e
"$LDBENCH" compare --fail-if 'misses>0' "$FIX_DIR/miss.json" -- "$FIX_DIR/hit.json" >"$FIX_DIR/cmp.txt" 2>&1
rc=$?
set -e
assert_eq 0 "$rc" "compare's exit status when the change side missed nothing"

# 5. randombinddn: the pre-flight binds as the lowest and the highest
pat=(-h 127.0.0.1 -p "$FIX_PORT" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX -e bindeach,bindonly,randombinddn)
run_ldbench "$out" "${pat[@]}" -e randombinddnlow=150,randombinddnhigh=250 -n 1 -T 5
assert_eq 11 "$RC" "exit status of a bind range past the data"
assert_match ": Pre-flight: bind as uid=user00150,$FIX_PEOPLE: Success; as uid=user00250,$FIX_PEOPLE: Invalid credentials\$" "$out" "pre-flight bind line"
assert_match ": Pre-flight failed: the highest bind DN uid=user00250,$FIX_PEOPLE does not bind \\(Invalid credentials\\): the randombinddn range does not match the data \\(--no-preflight runs anyway\\)\$" "$out" "pre-flight bind failure line"
# binds past the last user expected to fail, their codes ignored on purpose (-I): the
# pre-flight says so and the run goes on, as ldclt's does; without -I it still stops
ign=(-h 127.0.0.1 -p "$FIX_PORT" -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX -b "$FIX_PEOPLE" -f "(uid=user00001)"
	-e esearch,bindeach,randombinddn,randombinddnlow=195,randombinddnhigh=205 -n 2 -N 1 -e sampinterval=1)
run_ldbench "$out" "${ign[@]}" -I 49 -I 32
assert_eq 0 "$RC" "exit status of a bind range past the data with -I 49"
assert_match ": Pre-flight: bind as uid=user00195,$FIX_PEOPLE: Success; as uid=user00205,$FIX_PEOPLE: Invalid credentials \\(ignored: -I 49\\)\$" "$out" "pre-flight bind line with the ignored code"
assert_no_match "Pre-flight failed" "$out" "no pre-flight failure"
assert_match "Global error 49 \\(Invalid credentials\\) occurs +[0-9]+ times\$" "$out" "the load ran and met its ignored failures"
assert_match "^ldbench\[[0-9]+\]: Exit status 0 - No problem during execution\.\$" "$out" "ldclt's exit line"
if [ -x "${LDCLT:-/usr/bin/ldclt}" ]; then
	set +e
	timeout 60 "${LDCLT:-/usr/bin/ldclt}" "${ign[@]}" -I 49 -I 32 >"$FIX_DIR/ldclt.txt" 2>&1
	rc=$?
	set -e
	assert_eq 0 "$rc" "ldclt's exit status for the same command"
else
	echo "SKIP: ldclt is not installed: its exit status for the same command not compared"
fi
run_ldbench "$out" "${ign[@]}" -I 32
assert_eq 11 "$RC" "exit status of the same range with 49 not ignored"
assert_match ": Pre-flight failed: the highest bind DN uid=user00205,$FIX_PEOPLE does not bind \\(Invalid credentials\\)" "$out" "its failure line"
# a search base that -I 32 expects to be missing: not a range that misses the data
run_ldbench "$out" "${root[@]}" -b "ou=Nowhere,$FIX_BASE" -f "(uid=userXXXXX)" -e esearch,random -r 1 -R 9 -I 32 \
	-n 1 -N 1 -e sampinterval=1
assert_eq 0 "$RC" "exit status of searches under a missing base with -I 32"
assert_match ": Pre-flight: search \\(uid=user00001\\) 0 \\(ignored: -I 32\\), \\(uid=user00003\\) 0 \\(ignored: -I 32\\)," "$out" "pre-flight search line with the ignored code"
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${pat[@]}" -e randombinddnlow=1,randombinddnhigh=200 -n 1 -T 5
assert_eq 0 "$RC" "exit status of a matching bind range"
assert_eq 7 "$(fixture_monitor_delta "$snap" Bind)" "5 binds and the pre-flight's 2"
assert_match 'Global no error occurs during this session\.$' "$out" "every bind worked"

# 6. parent creation: 4 threads add under a missing container; its adds counted by result,
#    and the server's adds = entries + container adds + adds sent again
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${root[@]}" -b "ou=Fresh,$FIX_BASE" -f "cn=pXXXX" -e add,person,incr,commoncounter,noloop \
	-r 1 -R 100 -n 4 --json "$FIX_DIR/p.json"
assert_eq 0 "$RC" "exit status of adds under a missing parent"
assert_eq 100 "$(fixture_count "ou=Fresh,$FIX_BASE" '(objectClass=person)')" "entries added"
line=$(grep ': Parent entries: ' "$out" | sed 's/^ldbench\[[0-9]*\]: //')
re='^Parent entries: container adds ([0-9]+) \(created ([0-9]+), already existed ([0-9]+), no parent 0, other errors 0\), adds sent again ([0-9]+)$'
[[ "$line" =~ $re ]] || { cat "$out" >&2; echo "FAIL: parent line '$line'" >&2; exit 1; }
c=${BASH_REMATCH[1]} k=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]} s=${BASH_REMATCH[4]}
assert_eq 1 "$k" "one container created (ou=Fresh)"
assert_eq "$c" "$((k + e))" "container adds = created + already existed"
assert_ge 1 "$s" "adds sent again"
assert_eq "$((100 + c + s))" "$(fixture_monitor_delta "$snap" Add)" "server's adds = entries + container adds + adds sent again"
assert_match 'Intermediate nodes created: 1$' "$out" "ldclt-style line"
assert_match "\"parents\":\\{\"adds\":$c,\"created\":1,\"already_exists\":$e,\"no_parent\":0,\"other\":0,\"retried\":$s\\}" "$FIX_DIR/p.json" "JSON parents"

# 7. gen users' simple shape, named with --shape (picked for 389 DS), says that 389 DS needs an
#    ACI for non-root searches (on stderr: the LDIF on stdout stays clean); tests/integration/gen_users.sh
#    checks that a plain `gen users` says nothing
"$LDBENCH" gen users --shape simple --suffix "$FIX_BASE" --number 2 >"$FIX_DIR/g.ldif" 2>"$FIX_DIR/g.err"
assert_match '^ldbench gen users: note: these entries carry no ACI; on 389 DS a search by any account but the Directory Manager finds none of them until an ACI allows it' "$FIX_DIR/g.err" "gen's ACI note"
assert_no_match 'note:' "$FIX_DIR/g.ldif" "the LDIF without the note"
echo "expected_results: all passed"
