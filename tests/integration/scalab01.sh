#!/usr/bin/env bash
# -e scalab01, ldclt's modem-pool scenario: random users log in (bind, read
# ntUserFlags, write ntUserFlags: 1), at most scalab01_maxcnxnb sessions at
# once; a control connection bound as "cn=super user,<-b>" ends each session
# after 1..scalab01_cnxduration s (ntUserUnitsPerWeek += duration,
# ntUserFlags: 0).  Checked by what the server saw: cn=Monitor's Bind, Search
# and Modify counts against ldbench's, the locked users sampled during the
# run (never more than the pool), the entries afterwards; bad settings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"

# The two NT attributes of 389 DS's schema (50ns-directory), as strings; the
# users get extensibleObject.  Users write their own flag, the super user both.
schema=$(mktemp -d)
trap 'rm -rf "$schema"' EXIT
cat >"$schema/nt.schema" <<'S'
attributetype ( 2.16.840.1.113730.3.1.523 NAME 'ntUserFlags'
	EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 2.16.840.1.113730.3.1.63 NAME 'ntUserUnitsPerWeek'
	EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
S
super="cn=super user,dc=example,dc=com"
FIX_EXTRA_GLOBAL="include $schema/nt.schema" \
	FIX_EXTRA_DB="access to attrs=ntUserFlags,ntUserUnitsPerWeek by self write by dn.exact=\"$super\" write by * read
access to * by * read" fixture_start --users 20
out=$FIX_DIR/out.txt
{
	for i in 1 2 3 4 5 6; do
		printf 'dn: uid=user%05d,%s\nchangetype: modify\nadd: objectClass\nobjectClass: extensibleObject\n' "$i" "$FIX_PEOPLE"
		# user 6 is logged in already (by no session of this run: it stays so)
		[[ $i == 6 ]] && printf -- '-\nadd: ntUserFlags\nntUserFlags: 1\n'
		echo
	done
	printf 'dn: %s\nchangetype: add\nobjectClass: person\ncn: super user\nsn: super\nuserPassword: super user password\n\n' "$super"
} | LDAPNOINIT=1 ldapmodify -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
users=(-h 127.0.0.1 -p "$FIX_PORT" -b dc=example,dc=com -D "uid=userXXXXX,$FIX_PEOPLE" -w userXXXXX
	-e randombinddnlow=1,randombinddnhigh=6 --no-preflight)

# 1. the pool: 4 clients, 2 modems, sessions of 1..2 s, 0..1 s between attempts
fixture_monitor_snapshot "$FIX_DIR/snap"
conns0=$(fixture_total_connections)
set +e
timeout 60 "$LDBENCH" "${users[@]}" -e scalab01,scalab01_maxcnxnb=2,scalab01_cnxduration=2,scalab01_wait=1 \
	-f cn=ignored -e sampinterval=2 -N 3 -n 4 >"$out" 2>&1 &
pid=$!
set -e
most=0
for _ in 1 2 3 4 5; do
	sleep 1
	n=$(fixture_count "$FIX_PEOPLE" "(ntUserFlags=1)")
	((n > most)) && most=$n
done
set +e
wait "$pid"
RC=$?
set -e
cat "$out"
assert_eq 0 "$RC" "scalab01 run: exit status"
assert_le 3 "$most" "users locked at once during the run: at most the 2 modems, and user 6"
line=$(grep '^ldbench\[[0-9]*\]: scalab01: logins' "$out" || grep 'scalab01: logins' "$out")
num() { sed -nE "s/.*$1 ([0-9]+).*/\1/p" <<<"$line"; }
logins=$(num logins)
assert_ge 1 "$logins" "logins"
assert_eq "$logins" "$(global_total "$out")" "ldclt's total counts the logins"
assert_match "most in use [12] of 2" "$out" "the pool's highest use"
kind() { sed -nE "s/.*$1: attempted ([0-9]+), completed ([0-9]+).*/\2/p" "$out" | tail -n 1; }
cb=$(sed -nE 's/.*\(binds ([0-9]+), searches ([0-9]+), modifies ([0-9]+).*/\1 \2 \3/p' "$out")
read -r ctl_b ctl_s ctl_m <<<"$cb"
assert_eq 1 "$ctl_b" "the control connection binds once"
assert_eq "$(($(kind bind) + ctl_b))" "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "binds: server = clients + control"
assert_eq "$(($(kind search) + ctl_s))" "$(fixture_monitor_delta "$FIX_DIR/snap" Search)" "searches: server = clients + control"
assert_eq "$(($(kind modify) + ctl_m))" "$(fixture_monitor_delta "$FIX_DIR/snap" Modify)" "modifies: server = clients + control"
# a connection per login attempt, and the control's
assert_eq "$(($(kind bind) + 1))" "$(($(fixture_total_connections) - conns0))" "connections opened"
# each login: a search and a lock; each ended session: a search and two writes
ended=$(num "sessions ended")
open=$(num "sessions still open")
assert_eq "$((logins - ended))" "$open" "sessions: logins = ended + still open"
assert_eq "$((2 * ended))" "$ctl_m" "the control's writes: accounting and unlock per session"
assert_eq "$((open + 1))" "$(fixture_count "$FIX_PEOPLE" "(ntUserFlags=1)")" "users locked afterwards: the open sessions and user 6"
if ((ended > 0)); then
	assert_ge 1 "$(fixture_count "$FIX_PEOPLE" "(ntUserUnitsPerWeek=*)")" "the accounting written"
	assert_match 'ctrl: No accounting attribute for uid=user0000[1-5],.* - assume it is 0' "$out" "ldclt's line for a first session"
fi

# The sessions still open stay locked, as after ldclt: unlock users 1-5 for
# the next runs (else a client may find every user logged in, and try forever).
unlock() {
	for i in 1 2 3 4 5; do
		printf 'dn: uid=user%05d,%s\nchangetype: modify\nreplace: ntUserFlags\nntUserFlags: 0\n\n' "$i" "$FIX_PEOPLE"
	done | LDAPNOINIT=1 ldapmodify -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
}

# 2. -T: two logins a client, then the threads end
unlock
run_ldbench "$out" "${users[@]}" -e scalab01,scalab01_wait=1,scalab01_cnxduration=1 -n 2 -T 2
assert_eq 0 "$RC" "scalab01 -T: exit status"
assert_eq 4 "$(global_total "$out")" "scalab01 -T 2 -n 2: four logins"
assert_match 'thread is dead' "$out" "the clients end at -T"

# -V: ldclt's lines per step of a login, and -v's settings
unlock
run_ldbench "$out" "${users[@]}" -V -e scalab01,scalab01_wait=1,scalab01_maxcnxnb=7 -n 1 -T 1
assert_eq 0 "$RC" "scalab01 -V: exit status"
assert_match '^Running mode *= .*very_verbose randombinddn bind_each_operation scalab01$' "$out" "-v's mode words"
assert_match '^Scalab01 max nb cnx= 7$' "$out" "-v's Scalab01 lines"
assert_match 'T000: entry uid=user0000[1-5],ou=People,dc=example,dc=com lock written$' "$out" "-V: the lock written"
assert_match 'T000: entry uid=user0000[1-5],.* login added duration +[0-9]+$' "$out" "-V: the session handed over"

# 3. bad settings: one line, exit 2, nothing sent
fixture_monitor_snapshot "$FIX_DIR/snap"
for bad in "scalab01_maxcnxnb=0" "scalab01_cnxduration=-1" "scalab01_wait=x" "scalab01_wait" "scalab01,esearch" \
	"scalab01=3"; do
	run_ldbench "$out" "${users[@]}" -e "$bad" -n1 -T1
	assert_eq 2 "$RC" "-e $bad: exit status"
	assert_eq 1 "$(wc -l <"$out")" "-e $bad: one line"
	cat "$out"
done
run_ldbench "$out" -h 127.0.0.1 -p "$FIX_PORT" -e scalab01 -n1 -T1
assert_eq 2 "$RC" "scalab01 without -D"
assert_match 'scalab01 needs -D' "$out" "scalab01 without -D: why"
assert_eq 0 "$(fixture_monitor_delta "$FIX_DIR/snap" Bind)" "bad settings: no bind sent"

# 4. no super user under -b: the control connection cannot bind, exit 4 (ldclt's)
run_ldbench "$out" "${users[@]/dc=example,dc=com/ou=People,dc=example,dc=com}" -e scalab01 -n1 -T1
assert_eq 4 "$RC" "no super user: exit status"
assert_match 'control connection cannot bind as cn=super user,ou=People' "$out" "no super user: why"
echo "scalab01: all checks passed"
