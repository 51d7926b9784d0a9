#!/bin/bash
# ldbench's workloads on the ctest fixture "dirsrv" (389 DS, 10,000 ldifgen
# users): exact and random uid searches, bindeach+bindonly, random binds,
# verified LDAPS, adds with parent creation, lib389's populate command, and
# --monitor's per-kind lines (cn=snmp,cn=monitor) agreeing with the client;
# server counts checked on their own through dirsrv_snmp as well.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsload.XXXXXX")
cleanup() {
	dirsrv_search -b "$DS_BASE" '(|(ou=ldb17add)(ou=ldb17pop))' 1.1 2>/dev/null | sed -n 's/^dn: //p' |
		while read -r dn; do LDAPNOINIT=1 ldapdelete -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" -r "$dn"; done || true
	rm -rf "$work"
}
trap cleanup EXIT
out=$work/out
w=$DS_WIDTH
X=$(printf 'X%.0s' $(seq "$w"))
root=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW")
agree() { # KIND SERVER CLIENT WHAT: the --monitor line of KIND agrees
	assert_match "^ldbench\[[0-9]+\]: Server \(cn=snmp,cn=monitor\): $1 completed $2 \(client: $3 completed, [0-9]+ in flight\): agree$" \
		"$out" "$4"
}
# a dirsrv_snmp read shows its own bind and the previous read's search:
# between two reads the server counted the load plus one bind and one search
snmp_delta() { # ATTR BEFORE
	echo $(($(dirsrv_snmp "$1") - $2 - 1))
}

# 1. exact search, bound as the root DN, --monitor
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=$(printf "user%0${w}d" 42)" -e esearch -n 2 -T 250 --monitor
assert_eq 0 "$RC" "exit status of the exact search"
agree search 500 500 "exact searches: server and client agree"
agree bind 2 2 "the two connections' binds agree"

# 2. random uid searches over the whole range, --monitor in JSON too
s0=$(dirsrv_snmp searchops)
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -r"$DS_FIRST" -R"$DS_LAST" -e esearch,random \
	-n 2 -T 300 --monitor --json "$work/run.json"
assert_eq 0 "$RC" "exit status of the random search"
assert_match 'search: attempted 600, completed 600, succeeded 600, counted 600, errors 0, entries 600' "$out" \
	"every random uid matched one entry"
agree search 600 600 "random searches agree"
# searchops: the load and the two --monitor reads (each a cn=Operations probe and cn=snmp)
assert_eq 609 "$(snmp_delta searchops "$s0")" "searchops of the run (load + --monitor's 4 + the pre-flight's 5)"
assert_match '"server":\{"source":"cn=snmp,cn=monitor","ops":\{"search":\{"server_completed":600,"client_completed":600,"in_flight":0,"agree":true\}' \
	"$work/run.json" "JSON summary's server member"

# 3. bindeach + bindonly as one user: one connection and bind per operation
b0=$(dirsrv_snmp simpleauthbinds)
u42=$(printf "user%0${w}d" 42)
run_ldbench "$out" -h 127.0.0.1 -p "$DS_PORT" -D "uid=$u42,$DS_PEOPLE" -w "$u42" -e bindeach,bindonly -n 2 -T 100 --monitor
assert_eq 0 "$RC" "exit status of bindeach,bindonly"
agree bind 200 200 "bindeach binds agree"
# the load and the two --monitor reads, each bound as -D
assert_eq 202 "$(snmp_delta simpleauthbinds "$b0")" "server binds of bindeach,bindonly and --monitor's 2"

# 4. random binds (lib389's bind_loadtest): uid=userXXXX with password userXXXX
b0=$(dirsrv_snmp simpleauthbinds)
run_ldbench "$out" -h 127.0.0.1 -p "$DS_PORT" -D "uid=user$X,$DS_PEOPLE" -w "user$X" \
	-e "randombinddn,randombinddnlow=$DS_FIRST,randombinddnhigh=$DS_LAST" -e bindonly -n 2 -T 150 --monitor
assert_eq 0 "$RC" "exit status of random binds"
assert_match 'bind: attempted 300, completed 300, succeeded 300' "$out" "every random bind succeeded"
agree bind 302 302 "random binds and the 2 binds at connect agree"
# --monitor reads anonymously here (the -D has XXX): no bind of its own
assert_eq 304 "$(snmp_delta simpleauthbinds "$b0")" "server-side random binds, binds at connect and the pre-flight's lowest and highest"

# 5. LDAPS on the secure port, the server certificate verified against the instance CA
run_ldbench "$out" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -H "$DS_LDAPS_URI" --tls-cacert "$DS_CA" -b "$DS_PEOPLE" \
	-f "uid=$u42" -e esearch -n 2 -T 160 --monitor
assert_eq 0 "$RC" "exit status over LDAPS"
assert_match 'TLS: handshakes 2, resumed 0, server certificate verified' "$out" "certificate verified (IP:127.0.0.1)"
agree search 320 320 "LDAPS searches agree (opscompleted would not)"
# the fixture's listeners: 127.0.0.1 only, on both ports
listen=$(ss -Hltn | awk -v p=":$DS_PORT" -v s=":$DS_LDAPS_PORT" '$4 ~ p "$" || $4 ~ s "$" { print $4 }' | sort | tr '\n' ' ')
assert_eq "127.0.0.1:$DS_PORT 127.0.0.1:$DS_LDAPS_PORT " "$listen" "389 DS listens on 127.0.0.1 only"

# 6. adds below missing parents: the parents are created on 32
a0=$(dirsrv_snmp addentryops)
run_ldbench "$out" "${root[@]}" -b "ou=Deep,ou=Deeper,ou=ldb17add,$DS_BASE" -f "cn=dXX" -e add,person,incr,noloop \
	-r1 -R10 -n 1 --monitor
assert_eq 0 "$RC" "exit status of adds with missing parents"
assert_eq 10 "$(dirsrv_count "ou=Deep,ou=Deeper,ou=ldb17add,$DS_BASE" '(objectClass=person)')" "entries below created parents"
assert_eq 3 "$(dirsrv_count "ou=ldb17add,$DS_BASE" '(objectClass=organizationalUnit)')" "the three parents"
assert_match 'Intermediate nodes created: 3$' "$out" "three parents created"
# 10 adds, 3 parents, and the failed attempts (the first add, Deep, Deeper: 32)
assert_eq 16 "$(($(dirsrv_snmp addentryops) - a0))" "server-side adds, failed attempts included"
# the client's side counts them too: 10 adds, 3 container adds, 3 adds sent again
assert_match 'Server \(cn=snmp,cn=monitor\): add completed 16 \(client: 16 completed, 0 in flight\): agree$' "$out" \
	"--monitor: adds with parent creation agree"

# 7. lib389's populate command (Ldclt.create_users): object= and rdn=; 50 entries
#    only: 389 DS hashes each userPassword with PBKDF2-SHA512 (about 20 adds/s here)
cat >"$work/tmpl.ldif" <<'T'
objectClass: top
objectclass: person
objectClass: organizationalPerson
objectClass: inetorgperson
sn: user[A]
cn: user[A]
givenName: user[A]
description: description [A]
userPassword: user[A]
mail: user[A]@example.com
T
LDAPNOINIT=1 ldapadd -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null <<LDIF
dn: ou=ldb17pop,$DS_BASE
objectClass: organizationalUnit
ou: ldb17pop
LDIF
run_ldbench "$out" "${root[@]}" -b "ou=ldb17pop,$DS_BASE" -n 2 --monitor \
	-e add,commoncounter -e "object=$work/tmpl.ldif,rdn=uid:user[A=INCRNNOLOOP(1000;1049;4)]"
assert_eq 0 "$RC" "exit status of the populate command"
assert_eq 50 "$(dirsrv_count "ou=ldb17pop,$DS_BASE" '(uid=user*)')" "populated entries"
assert_eq 1 "$(dirsrv_count "ou=ldb17pop,$DS_BASE" '(uid=user1049)')" "last populated"
assert_eq 0 "$(dirsrv_count "ou=ldb17pop,$DS_BASE" '(|(uid=user0999)(uid=user1050))')" "none outside the range"
agree add 50 50 "populate adds agree"
