#!/bin/bash
# The server log reader (src/logs/slog.h, driven by tests/tools/slogstat) on
# the access log of the ctest fixture "dirsrv" (389 DS) serving ldap-utils,
# buffering off: per operation type the reader's count equals what the
# clients sent and cn=snmp,cn=monitor's counters; every request paired with
# its result; connections opened = closed; an unindexed search's notes=A
# (or U); the same lines in the older formats (whole-second time, etime
# only, integer etime), and a rotated set (access.YYYYmmdd-HHMMSS, .gz)
# given out of order; replay --profile's counts and server times (wtime,
# optime, etime) from the same lines.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
STAT=${LDBENCH_SLOGSTAT:-}
[[ -x "$STAT" ]] || { echo "SKIP: no slogstat (LDBENCH_SLOGSTAT; run through ctest)"; exit 77; }
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsslog.XXXXXX")
P=$DS_PEOPLE
export LDAPNOINIT=1
root=(-x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE")
cleanup() {
	ldapdelete "${root[@]}" "uid=slog2,$P" "uid=slog3,$P" >/dev/null 2>&1 || true
	dirsrv_log_buffering on || true
	rm -rf "$work"
}
trap cleanup EXIT
dirsrv_log_buffering off
log=$(dirsrv_access_log)
[[ -r "$log" ]] || _fail "cannot read the access log $log"

# every connection the log opened is closed
settled() {
	local try a c
	for ((try = 0; try < 100; try++)); do
		a=$(grep -c ' connection from ' "$log" || true)
		c=$(grep -cE ' fd=[0-9]+ (closed|Disconnect) ' "$log" || true)
		((a == c)) && return 0
		sleep 0.05
	done
	_fail "connections still open in the log after 5 s ($a opened, $c closed)"
}
# the value of "KEY value [places]" in slogstat's output
get() { awk -v k="$1" 'index($0, k " ") == 1 { $0 = substr($0, length(k) + 2); print $1; exit }' "$2"; }
snmp() { # FILE: cn=snmp,cn=monitor's counters, one read
	dirsrv_search -b cn=snmp,cn=monitor -s base '(objectClass=*)' simpleauthbinds searchops addentryops \
		modifyentryops removeentryops modifyrdnops compareops >"$1"
}
counter() { awk -v a="$1" 'tolower($1) == tolower(a ":") { print $2 }' "$2"; }

snmp "$work/before"
settled
n0=$(wc -l <"$log")
u3=$(printf "user%0${DS_WIDTH}d" 3)
ldapsearch "${root[@]}" -b "$P" "(uid=$(printf "user%0${DS_WIDTH}d" 1))" cn mail >/dev/null
ldapsearch -x -H "$DS_URI" -b "$P" -s one '(uid=user1*)' 1.1 >/dev/null || true
ldapsearch -x -H "$DS_URI" -D "uid=$u3,$P" -w "$u3" -b "uid=$u3,$P" -s base 1.1 >/dev/null
ldapsearch "${root[@]}" -b "$P" '(description=slog-nothing*)' 1.1 >/dev/null
ldapadd "${root[@]}" >/dev/null <<LDIF
dn: uid=slog1,$P
objectClass: inetOrgPerson
cn: slog1
sn: slog1
uid: slog1

dn: uid=slog2,$P
objectClass: inetOrgPerson
cn: slog2
sn: slog2
uid: slog2
LDIF
ldapmodify "${root[@]}" >/dev/null <<LDIF
dn: uid=slog1,$P
changetype: modify
replace: description
description: one

dn: uid=slog2,$P
changetype: modify
add: mail
mail: slog2@example.com
LDIF
ldapmodrdn "${root[@]}" -r "uid=slog1,$P" uid=slog3 >/dev/null
ldapcompare "${root[@]}" "uid=slog2,$P" uid:slog2 >/dev/null || true
ldapcompare "${root[@]}" "uid=slog2,$P" uid:nope >/dev/null || true
ldapdelete "${root[@]}" "uid=slog3,$P" "uid=slog2,$P"
ldapwhoami "${root[@]}" >/dev/null
ldapexop "${root[@]}" whoami >/dev/null
settled
tail -n +$((n0 + 1)) "$log" >"$work/access"
snmp "$work/after"
"$STAT" "$work/access" >"$work/st"
cat "$work/st"

# sent: 12 tool runs, each one connection, one bind and one unbind
declare -A sent=([bind]=12 [search]=4 [add]=2 [modify]=2 [modrdn]=1 [compare]=2 [delete]=2 [extended]=2 [unbind]=12)
declare -A snmpname=([bind]=simpleauthbinds [search]=searchops [add]=addentryops [modify]=modifyentryops
	[modrdn]=modifyrdnops [compare]=compareops [delete]=removeentryops)
for t in bind search add modify modrdn compare delete extended unbind; do
	assert_eq "${sent[$t]}" "$(get "request $t" "$work/st")" "$t requests in the log = sent"
	[[ -n "${snmpname[$t]:-}" ]] || continue
	c=${snmpname[$t]}
	# between two reads of cn=snmp: one more bind and search (the first read's)
	extra=0
	[[ $t == bind || $t == search ]] && extra=1
	assert_eq $(($(counter "$c" "$work/after") - $(counter "$c" "$work/before") - extra)) \
		"$(get "request $t" "$work/st")" "$t requests in the log = cn=snmp's $c"
done
assert_eq 389ds "$(get format "$work/st")" "format detected"
assert_eq 12 "$(get open "$work/st")" "connections opened"
assert_eq 12 "$(get close "$work/st")" "connections closed"
assert_eq 27 "$(get result "$work/st")" "results (every request but the unbinds)"
assert_eq 27 "$(get paired "$work/st")" "requests paired with their result"
assert_eq 0 "$(get unpaired "$work/st")" "requests without a result"
assert_eq 0 "$(get orphans "$work/st")" "results without a request"
for why in unknown-op garbage other-format bad-field too-long truncated; do
	assert_eq 0 "$(get "skipped $why" "$work/st")" "no line skipped as $why"
done
"$STAT" --events "$work/access" >"$work/ev"
assert_match "^event request .* type=search base=\"$P\" filter=\"\(uid=user0*1\)\" attrs=\"cn mail\" scope=2\$" \
	"$work/ev" "a search's base, filter, attributes and scope"
assert_match '^event request .* type=bind dn="" method="128"$' "$work/ev" "an anonymous bind"
assert_match '^event request .* type=compare dn="uid=slog2,[^"]*" attr="uid"$' "$work/ev" "compare's DN and attribute"
assert_match '^event request .* type=modrdn dn="uid=slog1,[^"]*" newrdn="uid=slog3"$' "$work/ev" \
	"modrdn's new RDN (newsuperior (null): not logged)"
assert_match '^event result .* tag=111 err=6 nentries=0 etime=[0-9]+ wtime=[0-9]+ optime=[0-9]+$' "$work/ev" \
	"compare true: err 6, its wtime, optime and etime"
assert_match '^event request .* type=extended oid="1.3.6.1.4.1.4203.1.11.3"$' "$work/ev" "whoami's OID"
assert_match '^event open .* addr="127.0.0.1"$' "$work/ev" "the client's address (389 DS logs no port)"
assert_match '^event result .* tag=101 err=0 nentries=0 .* notes=[23]$' "$work/ev" \
	"the search on description (no index): notes=U or A"
assert_match '^event close .* reason="U1"$' "$work/ev" "a clean close's code"

# replay --profile on the same lines: its counts are the reader's, and 389
# DS's server times (wtime, optime, etime) per type.
jget() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; print(eval(sys.argv[2]))' "$1" "$2"; }
"$LDBENCH" replay --profile --json "$work/p.json" "$work/access" >"$work/p.txt"
assert_eq 389ds "$(jget "$work/p.json" "p['format']")" "profile: format"
assert_eq 12 "$(jget "$work/p.json" "p['connections']['opened']")" "profile: connections opened"
assert_eq 0 "$(jget "$work/p.json" "p['connections']['open_at_end']")" "profile: none open at the end"
for t in bind search add modify modrdn compare delete extended; do
	assert_eq "${sent[$t]}" "$(jget "$work/p.json" "p['ops']['$t']['requests']")" "profile: $t requests = sent"
done
assert_eq "{'5': 1, '6': 1}" "$(jget "$work/p.json" "p['ops']['compare']['codes']")" "profile: compare false, true"
for f in wtime optime etime; do
	assert_eq 4 "$(jget "$work/p.json" "p['ops']['search']['times']['$f']['count']")" "profile: the searches' $f"
done
assert_eq False "$(jget "$work/p.json" "'qtime' in p['ops']['search']['times']")" "profile: no qtime in 389 DS's log"
# unindexed searches apart, as logconv tells them: notes=A (fully unindexed:
# the search on description) and notes=U (a component unindexed), each the
# count of the reader's results with that note (bits: U 1, A 2)
notes_with() { awk -v b="$1" '/^event result .* tag=101 .* notes=[0-9]+$/ { n = $NF; sub(/notes=/, "", n); if (int(n / b) % 2) c++ } END { print c + 0 }' "$work/ev"; }
assert_ge 1 "$(notes_with 2)" "the reader: search results with notes=A (the one on description at least)"
assert_eq "$(notes_with 2) $(notes_with 1)" \
	"$(jget "$work/p.json" "'%d %d' % (p['ops']['search']['unindexed_searches'], p['ops']['search']['unindexed_components'])")" \
	"profile: unindexed searches (notes=A), unindexed components (notes=U)"
assert_match "^  search .*, unindexed [0-9]+ \\(searches $(notes_with 2) notes=A, components $(notes_with 1) notes=U\\)\$" "$work/p.txt" \
	"profile: the text's search line"

# Older formats, from the same lines: whole-second time, etime only, and
# etime in integer seconds (389 DS 1.2/1.3).
sed -E 's/^\[([^.]*)\.[0-9]+ /[\1 /; s/ wtime=[0-9.]+ optime=[0-9.]+//' "$work/access" >"$work/old1"
sed -E 's/ etime=([0-9]+)\.[0-9]+/ etime=\1/' "$work/old1" >"$work/old2"
first_s=$(($(get first_ns "$work/st") / 1000000000))
for k in old1 old2; do
	"$STAT" "$work/$k" >"$work/st.$k"
	for key in format lines open close result paired "request bind" "request search" "request unbind" \
		"skipped known"; do
		assert_eq "$(get "$key" "$work/st")" "$(get "$key" "$work/st.$k")" "$k: $key as the current format"
	done
	assert_eq $((first_s * 1000000000)) "$(get first_ns "$work/st.$k")" "$k: the first second"
done
"$STAT" --events "$work/old2" >"$work/ev2"
assert_match '^event result .* tag=111 err=6 nentries=0 etime=0$' "$work/ev2" "integer etime: 0 s, no wtime/optime"

# A rotated set as 389 DS names it, the older part gzip'd, given out of order.
half=$(($(wc -l <"$work/access") / 2))
stamp=$(date -u -d "@$first_s" +%Y%m%d-%H%M%S)
head -n "$half" "$work/access" | gzip >"$work/access.$stamp.gz"
tail -n +$((half + 1)) "$work/access" >"$work/access.now"
"$STAT" "$work/access.now" "$work/access.$stamp.gz" >"$work/st.rot"
for key in lines bytes open close result paired unpaired "request search" first_ns last_ns; do
	assert_eq "$(get "$key" "$work/st")" "$(get "$key" "$work/st.rot")" "rotated set with .gz, out of order: $key"
done

# statlog: STAT lines between a search's request and result, skipped as known.
statlog() {
	ldapmodify "${root[@]}" >/dev/null <<LDIF
dn: cn=config
changetype: modify
replace: nsslapd-statlog-level
nsslapd-statlog-level: $1
LDIF
}
statlog 1
trap 'statlog 0 || true; cleanup' EXIT
settled
n0=$(wc -l <"$log")
ldapsearch "${root[@]}" -b "$P" "(uid=$(printf "user%0${DS_WIDTH}d" 1))" 1.1 >/dev/null
settled
tail -n +$((n0 + 1)) "$log" >"$work/stat"
statlog 0
"$STAT" "$work/stat" >"$work/st.stat"
stats=$(grep -c ' STAT ' "$work/stat" || true)
assert_ge 1 "$stats" "STAT lines written with nsslapd-statlog-level 1"
assert_eq "$stats" "$(get "skipped known" "$work/st.stat")" "every STAT line skipped as known"
assert_eq 1 "$(get "request search" "$work/st.stat")" "the search counted once"
assert_eq 2 "$(get paired "$work/st.stat")" "its bind and search paired with their results"

# A SASL bind: 389 DS writes "etime=0.000445402, SASL bind in progress" on
# its first step's result.
settled
n0=$(wc -l <"$log")
ldapwhoami -H "$DS_URI" -Y DIGEST-MD5 -U "$u3" -w "$u3" >/dev/null 2>&1 || true
settled
tail -n +$((n0 + 1)) "$log" >"$work/sasl"
"$STAT" --events "$work/sasl" >"$work/ev.sasl"
"$STAT" "$work/sasl" >"$work/st.sasl"
assert_match '^event request .* type=bind dn="" method="sasl" mech="DIGEST-MD5"$' "$work/ev.sasl" "a SASL bind's mechanism"
assert_match '^event result .* tag=97 err=14 nentries=0 etime=[0-9]+ ' "$work/ev.sasl" \
	"its first step: err 14 and its etime (the text after the comma aside)"
assert_eq 0 "$(get "skipped bad-field" "$work/st.sasl")" "no SASL result line refused"
assert_eq "$(get result "$work/st.sasl")" "$(get paired "$work/st.sasl")" "every SASL result paired"
