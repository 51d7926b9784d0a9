#!/usr/bin/env bash
# Password policy on login flows against a real slapd with the ppolicy
# overlay (moduleload ppolicy; lockout after 3 failures: pwdMaxFailure 3,
# pwdLockout TRUE):
#   - --ppolicy puts the password policy request control on the login's
#     bind, and --bad-password 100% sends wrong passwords: three passes over
#     users 1..5 (-e incr,noloop: one flow per user and pass) lock the five
#     accounts; every wrong password is refused as expected (49: counted
#     apart, the flows succeed, no error of the run);
#   - a fourth pass with the right passwords: each bind is refused with the
#     accountLocked error, and the accountLocked answers counted (text and
#     JSON) equal the server's view of locked entries (pwdAccountLockedTime);
#   - plain binds (-e bindonly,bindeach) carry it too: 4 wrong passwords for
#     user00007 lock it at the third (the fourth answered accountLocked),
#     then 2 right ones are answered accountLocked.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
FIX_EXTRA_GLOBAL="moduleload ppolicy"
FIX_EXTRA_DB="overlay ppolicy
ppolicy_default cn=default,ou=Policies,dc=example,dc=com
ppolicy_use_lockout"
export FIX_EXTRA_GLOBAL FIX_EXTRA_DB
fixture_start --users 20
LDAPNOINIT=1 ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Policies,$FIX_BASE
objectClass: organizationalUnit
ou: Policies

dn: cn=default,ou=Policies,$FIX_BASE
objectClass: applicationProcess
objectClass: pwdPolicy
cn: default
pwdAttribute: userPassword
pwdMaxFailure: 3
pwdLockout: TRUE
pwdLockoutDuration: 0
LDIF
people="ou=People,$FIX_BASE"
out=$FIX_DIR/out.txt
login=(-h 127.0.0.1 -p "$FIX_PORT" --no-preflight --login -b "$people" -f "(uid=userXXXXX)" -e incr,noloop
	-r 1 -R 5 -n 1 --login-password-attr uid --ppolicy)
for pass in 1 2 3; do
	run_ldbench "$out" "${login[@]}" --bad-password 100%
	assert_eq 0 "$RC" "exit status, wrong passwords, pass $pass"
	assert_match '^ldbench\[[0-9]+\]: login: attempted 5, completed 5, succeeded 5, counted 5, errors 0$' "$out" \
		"pass $pass: 5 flows, their wrong passwords refused as expected"
	assert_match '^ldbench\[[0-9]+\]: bind wrong passwords \(--bad-password\): sent 5, refused 5, accepted 0, other 0$' \
		"$out" "pass $pass: 5 wrong passwords sent, 5 refused"
	assert_match '^ldbench\[[0-9]+\]: bind password policy: responses [0-9]+' "$out" "pass $pass: the policy's line"
done
locked=$(fixture_count "$people" "(pwdAccountLockedTime=*)")
assert_eq 5 "$locked" "slapd locked the 5 accounts"
run_ldbench "$out" "${login[@]}" --json "$FIX_DIR/r.json"
assert_eq 0 "$RC" "exit status, the right passwords on locked accounts"
assert_match '^ldbench\[[0-9]+\]: login: attempted 5, completed 5, succeeded 0, counted 0, errors 5$' "$out" \
	"5 flows, all refused"
assert_match "^ldbench\\[[0-9]+\\]: bind password policy: responses 5, accountLocked $locked\$" "$out" \
	"accountLocked answers = the locked entries ($locked)"
assert_match 'Global error 49 \(Invalid credentials\) occurs +5 times' "$out" "the refused binds are errors here"
/usr/bin/python3 - "$FIX_DIR/r.json" "$locked" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
p = s["ops"]["bind"]["ppolicy"]
assert p["responses"] == 5 and p["accountLocked"] == int(sys.argv[2]), p
assert sum(v for k, v in p.items() if k != "responses") == p["accountLocked"], p
print("ok: the JSON's ops.bind.ppolicy: 5 responses, accountLocked", p["accountLocked"])
PY

# plain binds: the same control and counts
plain=(-h 127.0.0.1 -p "$FIX_PORT" --no-preflight -e bindonly,bindeach,counteach -D "uid=user00007,$people" -n 1
	--ppolicy)
run_ldbench "$out" "${plain[@]}" -w wrong -T 4
assert_eq 0 "$RC" "exit status, 4 plain binds with a wrong password"
assert_match '^ldbench\[[0-9]+\]: bind password policy: responses 4, accountLocked 1$' "$out" \
	"the fourth wrong password answered accountLocked"
run_ldbench "$out" "${plain[@]}" -w user00007 -T 2
assert_match '^ldbench\[[0-9]+\]: bind password policy: responses 2, accountLocked 2$' "$out" \
	"the right password on the locked account: accountLocked twice"
assert_eq 6 "$(fixture_count "$people" "(pwdAccountLockedTime=*)")" "slapd's locked entries: 6"
