#!/usr/bin/env bash
# ldclt's behaviours that ldbench pins on its own (ldclt_compat.sh compares
# the lines with ldclt itself): the count of a run that -N ends equals the
# server's (results in flight are waited for), -a's pending lines, the line
# per failed operation and its limit (printed + held back = the errors), -q,
# -W before the first operation, and -I -1 through a server not up yet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 20
out=$FIX_DIR/out.txt
srv=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
S=(-e sampinterval=1)

# 1. -N ends a pipelined run: the total is what the server completed
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch -a 8 -n 3 -N 2 "${S[@]}"
assert_eq 0 "$RC" "exit status of the -N run"
assert_eq "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "$(global_total "$out")" "total = the server's searches"
assert_match '^ldbench\[[0-9]+\]: Number of samples achieved\. Bye-bye\.\.\.$' "$out" "-N's line"
assert_eq 3 "$(grep -Ec '^ldbench\[[0-9]+\]: T00[0-2]: pendingNb=[0-9]+$' "$out")" "a pendingNb line per thread"
assert_match '^ldbench\[[0-9]+\]: Global total pending operations: 0$' "$out" "nothing left in flight"
assert_eq 1 "$(grep -n 'Global total pending' "$out" | cut -d: -f1 | awk -v g="$(grep -n 'Global average rate' "$out" | cut -d: -f1)" '{ print ($1 < g) }')" \
	"the pending lines come before Global average rate"

# 2. errors by the thousand: at most 10 lines a second per thread and code,
# the rest counted in a line each second; printed + held back = all of them
run_ldbench "$out" "${srv[@]}" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch -n 2 -N 2 -I 32 "${S[@]}"
assert_eq 0 "$RC" "exit status with -I 32"
errs=$(sed -nE 's/.*Global error 32 \(No such object\) occurs +([0-9]+) times$/\1/p' "$out")
lines=$(grep -Ec '^ldbench\[[0-9]+\]: T00[01]: Cannot ldap_search\(\), error=32 \(No such object\)$' "$out")
held=$(sed -nE 's/^ldbench\[[0-9]+\]: T00[01]: ([0-9]+) more lines of error 32 \(No such object\) not printed \(at most 10 a second per thread and error code\)$/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
echo "errors $errs, lines $lines, held back ${held:-0}"
assert_ge 100 "$errs" "errors in 2 s"
assert_ge 20 "$lines" "at least one second's lines per thread"
assert_le $((2 * 10 * 4)) "$lines" "at most 10 a second per thread (4 windows at most in a 2 s run)"
assert_eq "$errs" $((lines + ${held:-0})) "printed + held back = the errors"

# 3. -q: the lines of ignored codes are hidden; not those of the others
run_ldbench "$out" "${srv[@]}" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch -n 1 -N 1 -I 32 -q "${S[@]}"
assert_eq 0 "$(grep -c 'Cannot ldap_search\|more lines of error' "$out")" "-q -I 32: no error line"
assert_match 'Global error 32 \(No such object\) occurs' "$out" "-q: still tallied"
run_ldbench "$out" "${srv[@]}" -b "ou=Nowhere,$FIX_BASE" -f "(uid=x)" -e esearch -n 1 -E 3 -q "${S[@]}"
assert_eq 3 "$RC" "-q without -I: -E stops the run"
assert_ge 1 "$(grep -c 'Cannot ldap_search(), error=32' "$out")" "-q: the lines of codes not ignored"

# 4. ldclt's wording per kind, the DN of the failed operation in it
P='^ldbench\[[0-9]+\]: T000: '
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "cn=zzXX" -e delete,incr,noloop -r 1 -R 2 -n 1 -I 32
assert_match "${P}Cannot ldap_delete \(cn=zz02,$FIX_PEOPLE\), error=32 \(No such object\)$" "$out" "delete's line"
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "cn=zzXX" -e rename,incr,noloop -r 1 -R 2 -n 1 -I 32
assert_match "${P}Cannot rename \(cn=zz01,$FIX_PEOPLE, cn=zz02, $FIX_PEOPLE\), error=32 \(No such object\)$" "$out" "rename's line"
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "cn=dupXX" -e add,person,incr,noloop -r 1 -R 1 -n 1
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "cn=dupXX" -e add,person,incr,noloop -r 1 -R 1 -n 1 -I 68
assert_match "${P}Cannot add \(cn=dup01,$FIX_PEOPLE\), error=68 \(Already exists\)$" "$out" "add's line"

# 5. -W waits before the first operation too: one search, after a second
fixture_monitor_snapshot "$FIX_DIR/snap"
t0=$(date +%s%N)
run_ldbench "$out" "${srv[@]}" -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch -n 1 -T 1 -W 1 "${S[@]}"
ms=$((($(date +%s%N) - t0) / 1000000))
assert_eq 0 "$RC" "exit status of -W 1 -T 1"
assert_ge 1000 "$ms" "milliseconds before the one search ends"
assert_eq 1 "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "the server's one search"

# 6. input files that cannot be used: exit 7, ldclt's Exit line on stdout,
# the reason in one line on stderr, no connection
for kw in "esearch,randombinddnfromfile=/nonexistent/dn.txt" "bindonly,randombinddnfromfile=/" \
	"add,incr,object=/nonexistent/t.ldif" "attreplacefile=description:/nonexistent/v,incr"; do
	rc=0
	"$LDBENCH" "${srv[@]}" -b "$FIX_PEOPLE" -f "cn=uXX" -r 1 -R 9 -e "$kw" >"$out" 2>"$out.err" || rc=$?
	assert_eq 7 "$rc" "-e $kw: exit status"
	assert_match '^ldbench\[[0-9]+\]: Exit status 7 - Cannot initialize ldbench\.$' "$out" "-e $kw: the Exit line"
	assert_eq 1 "$(grep -c '^ldbench: ' "$out.err")" "-e $kw: one line on stderr"
done

# 7. a server that is not up yet: refused connects are -1, which -I -1
# ignores, so the run goes on and measures once the server is there
_fix_kill # the fixture's own stop, keeping its data and port
"$LDBENCH" "${srv[@]}" -b "$FIX_PEOPLE" -f "(uid=user00001)" -e esearch -n 2 -N 4 -I -1 "${S[@]}" >"$out" 2>&1 &
LP=$!
sleep 1
_fix_launch "$FIX_PORT"
RC=0
wait "$LP" || RC=$?
assert_eq 0 "$RC" "exit status through a server that came up late"
assert_match '^ldbench\[[0-9]+\]: T00[01]: Cannot ldap_simple_bind_s \(cn=admin,dc=example,dc=com, \*\), error=-1 \(Can.t contact LDAP server\)$' "$out" "ldclt's line for a refused connect"
assert_match '^ldbench\[[0-9]+\]: Global error -1 \(Can.t contact LDAP server\) occurs +[0-9]+ times$' "$out" "the refused connects as -1"
assert_ge 1 "$(global_total "$out")" "searches once the server is up"
assert_no_match 'thread is dead' "$out" "no thread died"
echo "ldclt_lines: all passed"
