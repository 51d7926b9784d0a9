#!/bin/bash
# `ldbench replay --profile` on the stats log of a real slapd serving clients
# that are not ldbench (ldap-utils, python-ldap's asynchronous requests): the
# operations per type equal what the clients sent (and cn=Monitor's
# counters), the result codes are the ones the server gave, the filter
# shapes are masked as documented, --from/--to cut the window, and
# --write-scenario writes a scenario ldbench accepts and runs against the
# same slapd.  Bad input: options, an empty log, a file of no known format,
# a missing file, garbage lines inside a log (counted with their places).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replay.XXXXXX")
export FIX_STATS_LOG=$work/stats.log
# shellcheck source-path=SCRIPTDIR source=../fixture/slapd.sh
source "$here/../fixture/slapd.sh"
fixture_start --users 50
trap 'fixture_stop; rm -rf "$work"' EXIT

# every connection the log opened is closed (the clients' unbinds logged)
settled() {
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' ACCEPT from ' "$FIX_STATS_LOG" || true)
		c=$(grep -cE ' fd=[0-9]+ closed' "$FIX_STATS_LOG" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the log after 5 s ($a accepted, $c closed)"
}
# a member of the profile's JSON: jget FILE PYTHON-EXPRESSION-ON-p
jget() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; print(eval(sys.argv[2]))' "$1" "$2"; }

fixture_monitor_snapshot "$work/snap"
settled
n0=$(wc -l <"$FIX_STATS_LOG")
root=(-x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE")
P=$FIX_PEOPLE
export LDAPNOINIT=1

# first part: 5 connections of ldapsearch (6 searches: -f gives two)
ldapsearch "${root[@]}" -b "$P" '(uid=user00001)' cn mail >/dev/null
ldapsearch -x -H "$FIX_URI" -b "$P" -s one '(uid=user0001*)' 1.1 >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00003,$P" -w user00003 -b "uid=user00003,$P" -s base 1.1 >/dev/null
printf '%s\n' user00042 user00007 |
	ldapsearch "${root[@]}" -b "$P" -f - '(&(objectClass=inetOrgPerson)(uid=%s))' 1.1 >/dev/null
ldapsearch "${root[@]}" -b "ou=nowhere,dc=example,dc=com" '(uid=user00002)' 1.1 >/dev/null 2>&1 || true
settled
sleep 1.2
cut=$(date +%s.%N)
sleep 1.2

# second part: writes, compares, whoami (7 connections) and python-ldap (1)
ldapadd "${root[@]}" >/dev/null <<LDIF
dn: uid=rp1,$P
objectClass: inetOrgPerson
cn: rp1
sn: rp1
uid: rp1

dn: uid=rp2,$P
objectClass: inetOrgPerson
cn: rp2
sn: rp2
uid: rp2
LDIF
ldapmodify "${root[@]}" >/dev/null <<LDIF
dn: uid=rp1,$P
changetype: modify
replace: description
description: one

dn: uid=rp2,$P
changetype: modify
add: mail
mail: rp2@example.com
LDIF
ldapmodrdn "${root[@]}" -r "uid=rp1,$P" uid=rp3 >/dev/null
ldapcompare "${root[@]}" "uid=rp2,$P" uid:rp2 >/dev/null || true
ldapcompare "${root[@]}" "uid=rp2,$P" uid:nope >/dev/null || true
ldapdelete "${root[@]}" "uid=rp3,$P" "uid=rp2,$P"
ldapwhoami "${root[@]}" >/dev/null
# python-ldap: one connection, a simple bind, then 4 searches and a compare
# sent before any result is read (asynchronous), then the results, unbind
/usr/bin/python3 - "$FIX_URI" "$FIX_ROOTDN" "$(cat "$FIX_PWFILE")" "$P" <<'PY'
import sys, ldap
uri, dn, pw, base = sys.argv[1:5]
l = ldap.initialize(uri)
l.simple_bind_s(dn, pw)
ids = [l.search_ext(base, ldap.SCOPE_SUBTREE, "(uid=user%05d)" % n, ["cn"]) for n in (11, 12, 13, 14)]
ids.append(l.compare_ext("uid=user00011," + base, "uid", "user00011"))
for i in ids[:4]:
    l.result(i)
try:
    l.result(ids[4])
except ldap.COMPARE_TRUE:
    pass
l.unbind_s()
PY
settled
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"

run_profile() { # OUT ARGS...: the exit status in RC
	local out=$1
	shift
	RC=0
	"$LDBENCH" replay "$@" >"$out" 2>&1 || RC=$?
}
run_profile "$work/out" --profile --json "$work/p.json" "$work/run.log"
cat "$work/out"
assert_eq 0 "$RC" "exit status of the profile"

# sent: 13 connections, each one bind and one unbind
declare -A sent=([bind]=13 [search]=10 [add]=2 [modify]=2 [modrdn]=1 [compare]=3 [delete]=2 [extended]=1
	[unbind]=13)
declare -A mon=([bind]=Bind [search]=Search [add]=Add [modify]=Modify [modrdn]=Modrdn [compare]=Compare
	[delete]=Delete [extended]=Extended [unbind]=Unbind)
for t in bind search add modify modrdn compare delete extended unbind; do
	assert_eq "${sent[$t]}" "$(jget "$work/p.json" "p['ops']['$t']['requests']")" "$t requests = sent"
	assert_eq "$(fixture_monitor_delta "$work/snap" "${mon[$t]}")" \
		"$(jget "$work/p.json" "p['ops']['$t']['requests']")" "$t requests = cn=Monitor's completed"
done
assert_eq 47 "$(jget "$work/p.json" "p['requests']")" "requests in all"
assert_eq openldap "$(jget "$work/p.json" "p['format']")" "format"
assert_eq 13 "$(jget "$work/p.json" "p['connections']['opened']")" "connections opened"
assert_eq 13 "$(jget "$work/p.json" "p['connections']['closed']")" "connections closed"
assert_eq 0 "$(jget "$work/p.json" "p['connections']['open_at_end']")" "none open at the end"
# result codes: the search under a missing base 32, compare true 6 (twice) and false 5
assert_eq "{'0': 9, '32': 1}" "$(jget "$work/p.json" "p['ops']['search']['codes']")" "search result codes"
assert_eq "{'5': 1, '6': 2}" "$(jget "$work/p.json" "p['ops']['compare']['codes']")" "compare result codes"
assert_eq "{'0': 13}" "$(jget "$work/p.json" "p['ops']['bind']['codes']")" "bind result codes"
for t in add modify modrdn delete extended; do
	assert_eq "{'0': ${sent[$t]}}" "$(jget "$work/p.json" "p['ops']['$t']['codes']")" "$t result codes"
done
assert_eq 0 "$(jget "$work/p.json" "p['ops'].get('unbind', {}).get('results', 0)")" "no result for unbinds"
# entries: user00001, 10 for user0001*, the base entry, the two ANDs, 4 python searches
assert_eq 18 "$(jget "$work/p.json" "p['ops']['search']['entries']")" "entries returned"
# OpenLDAP logs qtime and etime
assert_eq 10 "$(jget "$work/p.json" "p['ops']['search']['times']['etime']['count']")" "search etimes"
assert_eq 10 "$(jget "$work/p.json" "p['ops']['search']['times']['qtime']['count']")" "search qtimes"
assert_eq False "$(jget "$work/p.json" "'wtime' in p['ops']['search']['times']")" "no wtime in OpenLDAP's log"
# filter shapes, values masked; the top table is exact
assert_eq "True" "$(jget "$work/p.json" "p['filters']['exact']")" "exact filter counts"
assert_eq "[('(uid=?)', 6), ('(&(objectclass=?)(uid=?))', 2), ('(objectclass=*)', 1), ('(uid=?*)', 1)]" \
	"$(jget "$work/p.json" "[(e['key'], e['count']) for e in p['filters']['top']]")" "filter shapes"
assert_match '^ +6 +60\.0%  "\(uid=\?\)"$' "$work/out" "the text's top shape"
assert_eq "[('$FIX_ROOTDN', 11), ('', 1), ('uid=user00003,$P', 1)]" \
	"$(jget "$work/p.json" "[(e['key'], e['count']) for e in p['bind_dns']['top']]")" "bind DNs"
assert_eq "{'base': 1, 'one': 1, 'sub': 8, 'children': 0}" "$(jget "$work/p.json" "p['scopes']")" "scopes"
assert_match '^  search    requests 10 \(21\.3%\), results 10, codes 0:9 32:1, entries 18, unindexed 0$' \
	"$work/out" "the text's search line"
assert_match '^connections: opened 13, closed 13, peak open 1 at ' "$work/out" "the text's connections"

# the window: --to the pause cuts the first part (5 connections: 6
# searches, 5 binds, 5 unbinds), --from it the second
run_profile "$work/out1" --profile --to "@$cut" --json "$work/p1.json" "$work/run.log"
assert_eq 0 "$RC" "exit status with --to"
assert_eq 16 "$(jget "$work/p1.json" "p['requests']")" "requests before the pause"
assert_eq 6 "$(jget "$work/p1.json" "p['ops']['search']['requests']")" "searches before the pause"
assert_eq 5 "$(jget "$work/p1.json" "p['ops']['bind']['requests']")" "binds before the pause"
assert_eq False "$(jget "$work/p1.json" "'add' in p['ops']")" "no add before the pause"
# the 5 connections closed before the pause: none open at its end, also
# when the next line comes more than the 60 s past --to where reading stops
# (that line, the second part's first ACCEPT, counted as open): the same
# lines with the second part's times 120 s later
conns="' '.join(str(p['connections'][k]) for k in ('opened', 'closed', 'open_at_end'))"
assert_eq "5 5 0" "$(jget "$work/p1.json" "$conns")" "connections opened, closed, open at the end of --to's window"
/usr/bin/python3 - "$cut" "$work/run.log" >"$work/later.log" <<'PY'
import sys
cut = float(sys.argv[1])
for line in open(sys.argv[2]):
    t = int(line[:8], 16) + int(line[9:17], 16) / 1e9
    print(line[:8] if t < cut else "%08x" % (int(line[:8], 16) + 120), line[8:], sep="", end="")
PY
run_profile "$work/out1l" --profile --to "@$cut" --json "$work/p1l.json" "$work/later.log"
assert_eq 0 "$RC" "exit status with --to, the second part later"
assert_eq "5 5 0" "$(jget "$work/p1l.json" "$conns")" "... connections opened, closed, open at the end"
run_profile "$work/out2" --profile --from "@$cut" --json "$work/p2.json" "$work/run.log"
assert_eq 0 "$RC" "exit status with --from"
assert_eq 31 "$(jget "$work/p2.json" "p['requests']")" "requests after the pause"
assert_eq 4 "$(jget "$work/p2.json" "p['ops']['search']['requests']")" "searches after the pause (python-ldap's)"
assert_eq 8 "$(jget "$work/p2.json" "p['connections']['opened']")" "connections after the pause"
run_profile "$work/out3" --profile --from "@$cut" --to "@${cut%.*}" "$work/run.log"
assert_eq 2 "$RC" "--from after --to"
assert_match "^ldbench replay: --from @$cut is not before --to @${cut%.*}\$" "$work/out3" "... its line"

# the scenario of the first part: searches and binds as logged, run on slapd
run_profile "$work/out4" --profile --to "@$cut" --write-scenario "$work/part1.scen" "$work/run.log"
assert_eq 0 "$RC" "exit status with --write-scenario"
cat "$work/part1.scen"
assert_match '^--mix search:6,bind:5$' "$work/part1.scen" "the mix's weights"
# the AND and (uid=?) tie at 2: the first by name; its digit run is XXX
assert_match "^-f '\(&\(objectClass=inetOrgPerson\)\(uid=userXXXXX\)\)'\$" "$work/part1.scen" \
	"the top shape's template"
assert_match '^-r 7$' "$work/part1.scen" "its lowest number"
assert_match '^-R 42$' "$work/part1.scen" "its highest number"
assert_match "^-b 'ou=People,dc=example,dc=com'\$" "$work/part1.scen" "the top base"
assert_match "^-D '$FIX_ROOTDN'\$" "$work/part1.scen" "the top bind DN"
assert_match '^--rate-profile [0-9.]+@1000ms(,[0-9.]+@1000ms)*$' "$work/part1.scen" "the rate per second"
assert_match '^# not in the mix: unbind 5 ' "$work/part1.scen" "unbinds said"
run_ldbench "$work/run" --scenario "$work/part1.scen" -h 127.0.0.1 -p "$FIX_PORT" -y "$FIX_PWFILE" --interval 1s --seed 1
cat "$work/run"
assert_eq 0 "$RC" "the written scenario runs"
assert_match '^ldbench\[[0-9]+\]: search: attempted [1-9][0-9]*, completed [1-9][0-9]*, succeeded [1-9][0-9]*, .*errors 0' \
	"$work/run" "its searches succeed"

# bad input: one line, documented exit status
bad() { # STATUS REGEX WHAT ARGS...
	local st=$1 re=$2 what=$3
	shift 3
	run_profile "$work/bad" "$@"
	assert_eq "$st" "$RC" "exit status: $what"
	assert_match "$re" "$work/bad" "the line: $what"
}
: >"$work/empty.log"
printf 'hello\nthis is not a log\n' >"$work/junk.log"
bad 2 '^ldbench replay: no target: give -H' "no --profile and no target" "$work/run.log"
bad 2 '^ldbench replay: no log given' "no log" --profile
bad 2 "^ldbench replay: --top '0': not a number in 1..256\$" "--top 0" --profile --top 0 "$work/run.log"
bad 2 "^ldbench replay: --from 'yesterday': not a time" "--from junk" --profile --from yesterday "$work/run.log"
bad 2 "^ldbench replay: unknown option '--nope'" "unknown option" --profile --nope "$work/run.log"
bad 2 "^ldbench replay: $work/missing.log: " "a missing log" --profile "$work/missing.log"
bad 2 "^ldbench replay: $work/junk.log: not a 389 DS access log nor an OpenLDAP stats log" "a file of no known format" \
	--profile "$work/junk.log"
bad 1 '^ldbench replay: no operation in the log$' "an empty log" --profile "$work/empty.log"
bad 1 '^ldbench replay: no operation in the log between --from and --to$' "an empty window" --profile \
	--from "@${cut%.*}" --to "@$((${cut%.*} + 1))" "$work/run.log"
# garbage lines inside the log: counted with their places, the rest profiled
sed -e '3i garbage line one' -e '5i 0x garbage two' "$work/run.log" >"$work/dirty.log"
run_profile "$work/out5" --profile --json "$work/p5.json" "$work/dirty.log"
assert_eq 0 "$RC" "exit status with garbage lines"
assert_match "^skipped lines: garbage 2 \(first: $work/dirty.log:3 $work/dirty.log:6\)\$" "$work/out5" \
	"garbage lines counted with their places"
assert_eq 47 "$(jget "$work/p5.json" "p['requests']")" "the rest of the log profiled"
echo "replay_profile: all checks passed"
