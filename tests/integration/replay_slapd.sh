#!/bin/bash
# `ldbench replay` of a real slapd's stats log, written while it served
# clients that are not ldbench (ldapsearch, ldapcompare, ldapdelete,
# ldapmodrdn, ldapwhoami, ldapadd, python-ldap's asynchronous searches),
# sent to a slapd restarted from the same LDIF: per kind the target's
# cn=Monitor counters equal the log's operations less those the report says
# were not sent (a bind DN missing from the password map, the rename whose
# new RDN OpenLDAP does not log, the writes without content); results that
# differ (a compare whose value the log does not hold) are reported with
# examples.  Bad input: garbage lines (counted with their places), a line of
# 389 DS's format, an empty log, a missing file (exit 2, no connection).
# Then --timing recorded on a log of ~3.5 s: the replay lasts as long (5 %)
# and its searches per second follow the log's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replay-slapd.XXXXXX")
export FIX_STATS_LOG=$work/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
fixture_start --users 50
trap 'fixture_stop; rm -rf "$work"' EXIT

settled() { # every connection the log opened is closed
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' ACCEPT from ' "$FIX_STATS_LOG" || true)
		c=$(grep -cE ' fd=[0-9]+ closed' "$FIX_STATS_LOG" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the log after 5 s ($a accepted, $c closed)"
}
jget() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }

settled
n0=$(wc -l <"$FIX_STATS_LOG")
root=(-x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE")
P=$FIX_PEOPLE
export LDAPNOINIT=1
# 11 connections, each a bind and an unbind
ldapsearch "${root[@]}" -b "$P" '(uid=user00001)' cn mail >/dev/null
ldapsearch -x -H "$FIX_URI" -b "$P" -s one '(uid=user0001*)' 1.1 >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00003,$P" -w user00003 -b "uid=user00003,$P" -s base 1.1 >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00004,$P" -w user00004 -b "$P" '(uid=user00005)' 1.1 >/dev/null
ldapsearch "${root[@]}" -b "ou=nowhere,dc=example,dc=com" '(uid=user00002)' 1.1 >/dev/null 2>&1 || true
ldapadd "${root[@]}" >/dev/null <<LDIF
dn: uid=rp1,$P
objectClass: inetOrgPerson
cn: rp1
sn: rp1
uid: rp1
LDIF
ldapmodrdn "${root[@]}" -r "uid=rp1,$P" uid=rp3 >/dev/null
ldapcompare "${root[@]}" "uid=user00011,$P" uid:user00011 >/dev/null || true
ldapcompare "${root[@]}" "uid=user00011,$P" uid:nope >/dev/null || true
ldapdelete "${root[@]}" "uid=user00040,$P"
ldapwhoami "${root[@]}" >/dev/null
# python-ldap: a bind, 4 searches sent before any result is read, the results, unbind
/usr/bin/python3 - "$FIX_URI" "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "$P" <<'PY'
import sys, ldap
uri, dn, pw, base = sys.argv[1:5]
l = ldap.initialize(uri)
l.simple_bind_s(dn, pw)
ids = [l.search_ext(base, ldap.SCOPE_SUBTREE, "(uid=user%05d)" % n, ["cn"]) for n in (11, 12, 13, 14)]
for i in ids:
    l.result(i)
l.unbind_s()
PY
settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"

# the target: the same data again (slapd started afresh from the LDIF)
fixture_stop
export FIX_STATS_LOG=$work/target.log
fixture_start --users 50
fixture_monitor_snapshot "$work/snap"
conns0=$(fixture_total_connections)
printf '%s\t%s\n' "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "UID=user00003, ou=People, dc=example, dc=com" user00003 \
	>"$work/pw.map"

run_replay() { # OUT ARGS...: the exit status in RC
	local out=$1
	shift
	RC=0
	"$LDBENCH" replay "$@" >"$out" 2>&1 || RC=$?
}
run_replay "$work/out" -h 127.0.0.1 -p "$FIX_PORT" --timing asap --password-map "$work/pw.map" \
	--json "$work/r.json" "$work/run.log"
cat "$work/out"
assert_eq 0 "$RC" "exit status of the replay"
# per kind: the log's requests, those not sent, the target's counters
declare -A rec=([bind]=12 [search]=9 [add]=1 [modrdn]=1 [compare]=2 [delete]=1 [extended]=1 [unbind]=12)
declare -A sent=([bind]=11 [search]=9 [add]=0 [modrdn]=0 [compare]=2 [delete]=1 [extended]=1 [unbind]=12)
declare -A mon=([bind]=Bind [search]=Search [add]=Add [modrdn]=Modrdn [compare]=Compare [delete]=Delete
	[extended]=Extended [unbind]=Unbind)
for t in bind search add modrdn compare delete extended unbind; do
	assert_eq "${rec[$t]}" "$(jget "$work/r.json" "p['kinds']['$t']['read']")" "$t requests in the log"
	assert_eq "${sent[$t]}" "$(jget "$work/r.json" "p['kinds']['$t']['sent']")" "$t replayed"
	assert_eq "${sent[$t]}" "$(fixture_monitor_delta "$work/snap" "${mon[$t]}")" "$t: cn=Monitor's completed"
done
assert_eq 12 "$(jget "$work/r.json" "p['connections']['opened']")" "a connection per recorded one"
assert_eq 12 "$(($(fixture_total_connections) - conns0))" "cn=Monitor's connections"
# not sent, with reasons and the first log lines
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['no-password']['count']")" "the unmapped bind"
assert_eq "['uid=user00004,$P']" "$(jget "$work/r.json" "p['no_password_dns']")" "its DN listed"
assert_match "^  bind DN without a password: uid=user00004,$P\$" "$work/out" "... and in the text"
line=$(grep -n "BIND dn=\"uid=user00004,$P\" method=128" "$work/run.log" | cut -d: -f1)
assert_eq "[$line]" "$(jget "$work/r.json" "p['skipped']['no-password']['first_lines']")" "its log line"
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['rename-no-newrdn']['count']")" "the rename without new RDN"
assert_eq 1 "$(jget "$work/r.json" "p['skipped']['write-no-content']['count']")" "the add without content"
assert_match '^not sent, rename-no-newrdn: 1 \(log lines [0-9]+\)$' "$work/out" "the rename's line"
# results: the searches' entries as recorded (the unmapped user's search ran
# anonymously: the same entry); the compare whose value is not logged differs
assert_eq 0 "$(jget "$work/r.json" "p['kinds']['search']['differ']")" "searches as recorded"
assert_eq 9 "$(jget "$work/r.json" "p['kinds']['search']['compared']")" "every search compared"
assert_eq 1 "$(jget "$work/r.json" "p['kinds']['compare']['differ']")" "the compare of a value not logged"
assert_eq "(5, 6)" "$(jget "$work/r.json" "(p['kinds']['compare']['examples'][0]['recorded_err'], \
p['kinds']['compare']['examples'][0]['got_err'])")" "its example: recorded false, got true"
assert_match '^  conn=[0-9]+ op=1: recorded err=5, got err=6$' "$work/out" "the example's text"
assert_eq 0 "$(jget "$work/r.json" "p['kinds']['delete']['differ']")" "the delete succeeded (data restored)"
assert_eq 1 "$(fixture_count "$P" '(uid=user00040)' | grep -c . || true)" "..." || true
echo "replay_slapd: all checks passed"
