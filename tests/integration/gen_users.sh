#!/bin/bash
# `ldbench gen users` against a real slapd (tests/fixture/slapd.sh): the
# generated LDIF loads with slapadd, the users exist and can bind, and the
# fixture's monitor delta helpers are exact.
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

start=$SECONDS
fixture_start --users 2000
echo "fixture up on $FIX_URI (pid $FIX_PID) in $((SECONDS - start)) s"
check "FIX_USERS" 2000 "$FIX_USERS"
check "root pw file mode" 600 "$(stat -c %a "$FIX_PWFILE")"

check "users under ou=People" 2000 "$(fixture_count "$FIX_PEOPLE" '(objectClass=inetOrgPerson)')"
check "whole tree" 2002 "$(fixture_count "$FIX_BASE" '(objectClass=*)')"
check "uid=user00001 exists" 1 "$(fixture_count "$FIX_PEOPLE" '(uid=user00001)')"
check "uid=user02000 exists" 1 "$(fixture_count "$FIX_PEOPLE" '(uid=user02000)')"
check "uid=user02001 absent" 0 "$(fixture_count "$FIX_PEOPLE" '(uid=user02001)')"
check "uid=user00000 absent" 0 "$(fixture_count "$FIX_PEOPLE" '(uid=user00000)')"
check "cn substring index" 10 "$(fixture_count "$FIX_PEOPLE" '(cn=user0199*)')"
check "mail" 1 "$(fixture_count "$FIX_PEOPLE" '(mail=user00042@example.com)')"
check "missing base counts 0" 0 "$(fixture_count "ou=Nobody,$FIX_BASE" '(objectClass=*)')"

who=$(LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00042,$FIX_PEOPLE" -w user00042)
check "ldapwhoami as user00042" "dn:uid=user00042,$FIX_PEOPLE" "$who"
rc=0
LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user00042,$FIX_PEOPLE" -w wrong >/dev/null 2>&1 || rc=$?
check "wrong password refused (invalidCredentials)" 49 "$rc"

# The monitor helpers: the fixture's own reads must not show in the deltas.
# An anonymous `ldapsearch -x` sends a Bind (anonymous) and a Search; an
# `ldapwhoami -x -D ... -w ...` sends a Bind and a WhoAmI Extended operation.
snap=$FIX_DIR/snap
fixture_monitor_snapshot "$snap"
conns0=$(fixture_total_connections)
for i in 1 2 3 4 5; do
	LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -b "$FIX_PEOPLE" -LLL "(uid=user0000$i)" dn >/dev/null
done
# fixture reads in the middle are subtracted too
check "count between" 1 "$(fixture_count "$FIX_PEOPLE" '(uid=user00007)')"
check "5 searches: Search delta" 5 "$(fixture_monitor_delta "$snap" Search)"
check "5 searches: Search delta again (reads do not accumulate)" 5 "$(fixture_monitor_delta "$snap" Search)"
check "5 searches: Bind delta (anonymous binds)" 5 "$(fixture_monitor_delta "$snap" Bind)"
check "5 searches: Unbind delta" 5 "$(fixture_monitor_delta "$snap" Unbind)"
check "5 searches: Extended delta" 0 "$(fixture_monitor_delta "$snap" Extended)"

fixture_monitor_snapshot "$snap"
for i in 1 2 3 4 5; do
	LDAPNOINIT=1 ldapwhoami -x -H "$FIX_URI" -D "uid=user0000$i,$FIX_PEOPLE" -w "user0000$i" >/dev/null
done
check "5 binds: Bind delta" 5 "$(fixture_monitor_delta "$snap" Bind)"
check "5 binds: Bind delta again" 5 "$(fixture_monitor_delta "$snap" Bind)"
check "5 binds: Search delta" 0 "$(fixture_monitor_delta "$snap" Search)"
check "5 binds: Extended delta (WhoAmI)" 5 "$(fixture_monitor_delta "$snap" Extended)"
check "5 binds: Unbind delta" 5 "$(fixture_monitor_delta "$snap" Unbind)"
check "5 binds: Modify delta" 0 "$(fixture_monitor_delta "$snap" Modify)"
check "connections delta" 10 "$(($(fixture_total_connections) - conns0))"
# One read sees its own Search as initiated but not completed; the next read
# sees it completed.
initiated=$(fixture_monitor_initiated Search)
completed=$(fixture_monitor_completed Search)
check "Search completed (next read) = initiated (this read)" "$initiated" "$completed"

# Pause/resume and restart keep the data and the port.
fixture_pause
rc=0
LDAPNOINIT=1 timeout 2 ldapsearch -x -H "$FIX_URI" -o nettimeout=1 -l 1 -b "" -s base >/dev/null 2>&1 || rc=$?
check "paused server does not answer" 1 "$((rc != 0))"
fixture_resume
port=$FIX_PORT
oldpid=$FIX_PID
fixture_restart
check "restart keeps the port" "$port" "$FIX_PORT"
check "restart changes the pid" 1 "$((oldpid != FIX_PID))"
check "data survives restart" 2000 "$(fixture_count "$FIX_PEOPLE" '(uid=*)')"
check "counters restart from zero" 0 "$(fixture_total_connections)"

# Bad options: exit 2, exactly one line on stderr, nothing on stdout.
bad() { # DESCRIPTION ARGS...
	local what=$1 rc=0 out err
	shift
	out=$("$LDBENCH" gen users "$@" 2>"$FIX_DIR/bad.err") || rc=$?
	err=$(cat "$FIX_DIR/bad.err")
	check "$what: exit 2" 2 "$rc"
	check "$what: one stderr line" 1 "$(wc -l <"$FIX_DIR/bad.err")"
	check "$what: no stdout" "" "$out"
	echo "    stderr: $err"
}
bad "junk number" --suffix "$FIX_BASE" --number 12abc
bad "negative number" --suffix "$FIX_BASE" --number -3
bad "overflow" --suffix "$FIX_BASE" --number 123456789012345678901234567890
bad "unknown option" --suffix "$FIX_BASE" --number 3 --frobnicate
bad "missing --number" --suffix "$FIX_BASE"
bad "width too small" --suffix "$FIX_BASE" --number 100000 --width 4
bad "parent outside suffix" --suffix "$FIX_BASE" --parent ou=People,dc=other --number 3
bad "unwritable file" --suffix "$FIX_BASE" --number 3 --ldif-file /nonexistent/dir/x.ldif

# And the success line of --ldif-file.
out=$("$LDBENCH" gen users --suffix "$FIX_BASE" --number 3 --ldif-file "$FIX_DIR/three.ldif")
check "success line" "Successfully created LDIF file: $FIX_DIR/three.ldif" "$out"
check "three users in the file" 3 "$(grep -c '^dn: uid=user' "$FIX_DIR/three.ldif")"

# The 389 DS note (the simple shape carries no ACI) only where it applies.  A plain `gen users`,
# the command of this fixture and of scenarios/demo.sh: nothing on stderr; and on OpenLDAP, whose
# access rules are in slapd.conf (here the default, read for all), a non-root account reads the
# entries such a file made.
"$LDBENCH" gen users --suffix "$FIX_BASE" --parent "$FIX_PEOPLE" --number 3 \
	--ldif-file "$FIX_DIR/plain.ldif" >/dev/null 2>"$FIX_DIR/plain.err"
check "plain gen users: nothing on stderr" "" "$(cat "$FIX_DIR/plain.err")"
check "a non-root account reads the generated users on OpenLDAP" 10 \
	"$(LDAPNOINIT=1 ldapsearch -x -H "$FIX_URI" -D "uid=user00042,$FIX_PEOPLE" -w user00042 \
		-b "$FIX_PEOPLE" -LLL '(uid=user0004*)' dn | grep -c '^dn: ')"
# --shape simple named (chosen over ldifgen's 389 DS shapes): the same LDIF, and the note, one
# line on stderr
"$LDBENCH" gen users --shape simple --suffix "$FIX_BASE" --parent "$FIX_PEOPLE" --number 3 \
	--ldif-file "$FIX_DIR/named.ldif" >/dev/null 2>"$FIX_DIR/named.err"
check "--shape simple: the same LDIF" "" "$(cmp "$FIX_DIR/plain.ldif" "$FIX_DIR/named.ldif" 2>&1)"
check "--shape simple: the 389 DS note" 1 \
	"$(grep -c '^ldbench gen users: note: these entries carry no ACI; on 389 DS a search by any account but the Directory Manager finds none of them until an ACI allows it' "$FIX_DIR/named.err")"
check "--shape simple: nothing else on stderr" 1 "$(wc -l <"$FIX_DIR/named.err")"
# ldifgen's shape carries its own ACIs: no note
"$LDBENCH" gen users --generic --suffix "$FIX_BASE" --number 3 >"$FIX_DIR/generic.ldif" 2>"$FIX_DIR/generic.err"
check "--generic: nothing on stderr" "" "$(cat "$FIX_DIR/generic.err")"
check "--generic: the suffix's three ACIs in the file" 3 "$(grep -c '^aci: ' "$FIX_DIR/generic.ldif")"

if ((fails > 0)); then
	echo "$fails check(s) failed" >&2
	exit 1
fi
echo "all checks passed"
