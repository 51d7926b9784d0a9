#!/bin/bash
# The login flow (--login) on the ctest fixture "dirsrv" (389 DS, ldifgen
# users, password = uid): one client walks the last 5 users and 5 numbers past
# the last in turn (-T 10: 5 found, 5 not, 5 found again: 15 flows), each bind
# as the DN its search returned with the entry's uid as its password; the 5
# numbers nobody has end as "no entry" (-14) with no bind sent; --monitor's
# lines (cn=snmp,cn=monitor: searchops, simpleauthbinds) agree with the
# steps' counts.
# Then password policy: the global policy with lockout after 3 failures
# (passwordLockout on, passwordMaxFailure 3; put back, and the 5 users
# unlocked, on exit): three passes of --bad-password 100% --ppolicy over 5
# users lock them; a pass with the right passwords is answered accountLocked,
# as many times as 389 DS holds locked entries (accountUnlockTime).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dslogin.XXXXXX")
uid() { printf "user%0${DS_WIDTH}d" "$1"; }
lo=$((10#$DS_LAST - 10)) hi=$((10#$DS_LAST - 6))
config() { # on|off
	LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null <<LDIF
dn: cn=config
changetype: modify
replace: passwordLockout
passwordLockout: $1
-
replace: passwordMaxFailure
passwordMaxFailure: 3
LDIF
}
cleanup() {
	config off || true
	for ((u = lo; u <= hi; u++)); do
		LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null 2>&1 <<LDIF || true
dn: uid=$(uid "$u"),$DS_PEOPLE
changetype: modify
delete: passwordRetryCount
-
delete: accountUnlockTime
LDIF
	done
	rm -rf "$work"
}
trap cleanup EXIT
out=$work/out
pad=$(printf '0%.0s' $(seq "$DS_WIDTH"))
first=$((10#$DS_LAST - 4)) last=$((10#$DS_LAST + 5))
run_ldbench "$out" -h 127.0.0.1 -p "$DS_PORT" --no-preflight --login -b "$DS_PEOPLE" \
	-f "(uid=user[$first:$last%$pad])" --login-password-attr uid -n 1 -T 10 --monitor
assert_eq 0 "$RC" "exit status, 15 login flows on 389 DS"
assert_match '^ldbench\[[0-9]+\]: login: attempted 15, completed 15, succeeded 10, counted 10, errors 5$' "$out" \
	"15 flows: 10 logins, 5 without an entry"
assert_match '^ldbench\[[0-9]+\]: search: attempted 15, completed 15, succeeded 15, counted 15, errors 0, entries 10$' \
	"$out" "15 searches, 10 entries"
assert_match '^ldbench\[[0-9]+\]: bind: attempted 10, completed 10, succeeded 10, counted 10, errors 0$' "$out" \
	"10 binds (none for the 5 without an entry)"
assert_match 'Global error -14 \(No results returned\) occurs +5 times' "$out" "5 flows ended as no entry"
assert_match '^ldbench\[[0-9]+\]: Server \(cn=snmp,cn=monitor\): search completed 15 \(client: 15 completed, 0 in flight\): agree$' \
	"$out" "389 DS's searchops = the search steps"
assert_match '^ldbench\[[0-9]+\]: Server \(cn=snmp,cn=monitor\): bind completed 10 \(client: 10 completed, 0 in flight\): agree$' \
	"$out" "389 DS's simpleauthbinds = the bind steps"

# password policy: lockout after 3 failures
config on
X=$(printf 'X%.0s' $(seq "$DS_WIDTH"))
login=(-h 127.0.0.1 -p "$DS_PORT" --no-preflight --login -b "$DS_PEOPLE" -f "(uid=user$X)" -e incr,noloop
	-r "$lo" -R "$hi" -n 1 --login-password-attr uid --ppolicy)
for pass in 1 2 3; do
	run_ldbench "$out" "${login[@]}" --bad-password 100%
	assert_eq 0 "$RC" "exit status, wrong passwords, pass $pass"
	assert_match '^ldbench\[[0-9]+\]: bind wrong passwords \(--bad-password\): sent 5, refused [0-9]+, accepted 0, ' \
		"$out" "pass $pass: 5 wrong passwords sent, none accepted"
done
locked=$(dirsrv_count "$DS_PEOPLE" "(&(accountUnlockTime=*)(|$(for ((u = lo; u <= hi; u++)); do printf '(uid=%s)' "$(uid "$u")"; done)))")
assert_eq 5 "$locked" "389 DS locked the 5 accounts"
run_ldbench "$out" "${login[@]}" --json "$work/r.json"
assert_eq 0 "$RC" "exit status, the right passwords on locked accounts"
assert_match "^ldbench\\[[0-9]+\\]: bind password policy: responses 5, accountLocked $locked\$" "$out" \
	"accountLocked answers = the locked entries ($locked)"
/usr/bin/python3 - "$work/r.json" "$locked" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
p = s["ops"]["bind"]["ppolicy"]
assert p["accountLocked"] == int(sys.argv[2]), p
print("ok: ops.bind.ppolicy.accountLocked", p["accountLocked"])
PY
