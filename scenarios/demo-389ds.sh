#!/usr/bin/env bash
# The demo on 389 Directory Server (ldclt's home server): installs what is
# missing, builds ldbench, makes a throwaway 389 DS instance on 127.0.0.1 the
# guide's way (dscreate, `dsctl NAME ldifgen users --generic --number 10000`,
# offline import; tests/fixture/dirsrv.sh), runs the guide's random-UID
# search and random-bind loads with --monitor (the server's per-kind counts
# from cn=snmp,cn=monitor beside the client's), an LDAPS search with the
# certificate verified, and lib389's populate command; then removes the
# instance.  Nothing leaves this machine.  Needs root (dscreate).
#   scenarios/demo-389ds.sh [SECONDS_PER_LOAD]      (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
secs=${1:-10}

. "$ROOT/tests/fixture/packages.sh"
install_missing demo cmake make gcc pkg-config libldap-dev libssl-dev libgnutls28-dev libcmocka-dev ldap-utils openssl \
	389-ds-base python3-lib389 libnss3-tools

echo "demo: building"
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=Release -DLDBENCH_TESTS=OFF >/dev/null
cmake --build "$ROOT/build" -j "$(nproc)" >/dev/null
export LDBENCH=$ROOT/build/ldbench LDBENCH_SOURCE_DIR=$ROOT

. "$ROOT/tests/fixture/dirsrv.sh"
trap dirsrv_remove EXIT
echo "demo: creating a 389 DS instance with 10,000 ldifgen users (about a minute)"
dirsrv_create --users 10000
echo "demo: 389 DS $DS_NAME on $DS_URI and $DS_LDAPS_URI, users uid=user00001..user10000,$DS_PEOPLE"
export LDBENCH_PASSWORD=$DS_ROOTPW # keeps the password off the command line
X=XXXXX

echo
echo "=== random exact-UID searches (the guide's), 4 threads x 16 in flight, ${secs} s, --monitor"
"$LDBENCH" -h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -b "$DS_PEOPLE" \
	-f "(uid=user$X)" -e esearch,random,srchnentries=1,attrlist=uid:cn -r1 -R10000 \
	-n 4 -a 16 --interval "${secs}s" -N 1 --monitor

echo
echo "=== the same over LDAPS on the secure port, the certificate verified against the instance CA"
"$LDBENCH" -H "$DS_LDAPS_URI" --tls-cacert "$DS_CA" -D "$DS_ROOTDN" -b "$DS_PEOPLE" \
	-f "(uid=user$X)" -e esearch,random -r1 -R10000 -n 4 --interval "${secs}s" -N 1 --monitor

echo
echo "=== random binds over the population (lib389's bind_loadtest), 4 threads, ${secs} s"
unset LDBENCH_PASSWORD
"$LDBENCH" -h 127.0.0.1 -p "$DS_PORT" -D "uid=user$X,$DS_PEOPLE" -w "user$X" \
	-e randombinddn,randombinddnlow=1,randombinddnhigh=10000 -e bindonly \
	-n 4 --interval "${secs}s" -N 1 --monitor

echo
echo "=== lib389's populate command: 200 entries from a template (object=, rdn=)"
tmpl=$DS_DIR/populate.ldif
printf '%s\n' "objectClass: top" "objectclass: person" "objectClass: organizationalPerson" \
	"objectClass: inetorgperson" "sn: user[A]" "cn: user[A]" "userPassword: user[A]" >"$tmpl"
LDAPNOINIT=1 ldapadd -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null <<LDIF
dn: ou=populate,$DS_BASE
objectClass: organizationalUnit
ou: populate
LDIF
export LDBENCH_PASSWORD=$DS_ROOTPW
"$LDBENCH" -h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -b "ou=populate,$DS_BASE" -n 4 --monitor \
	-e add,commoncounter -e "object=$tmpl,rdn=uid:user[A=INCRNNOLOOP(1000;1199;4)]"
echo "demo: entries below ou=populate: $(dirsrv_count "ou=populate,$DS_BASE" '(uid=user*)')"
unset LDBENCH_PASSWORD

echo
echo "demo: removing the instance"
dirsrv_remove
trap - EXIT
