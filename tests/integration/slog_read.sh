#!/bin/bash
# The server log reader (src/logs/slog.h, driven by tests/tools/slogstat) on
# the stats log of a real slapd serving ldap-utils: per operation type the
# reader's count equals what the clients sent and the server's own
# cn=Monitor counters; every request paired with its result; connections
# opened = closed.  The same log in syslog's formats (its lines' prefixes
# rewritten), cut in a rotated set with a gzip'd part given out of order,
# and broken by hand (garbage, an unknown operation, the other server's
# line, a line too long, a truncated last line, an empty file, a file of no
# known format, both servers' logs, a truncated gzip): counted with their
# line numbers, documented exit statuses, no crash.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
STAT=${LDBENCH_SLOGSTAT:-}
[[ -x "$STAT" ]] || { echo "SKIP: no slogstat (LDBENCH_SLOGSTAT; run through ctest)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-slog.XXXXXX")
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
# the value of "KEY value [places]" in slogstat's output
get() { awk -v k="$1" 'index($0, k " ") == 1 { $0 = substr($0, length(k) + 2); print $1; exit }' "$2"; }

fixture_monitor_snapshot "$work/snap"
settled
n0=$(wc -l <"$FIX_STATS_LOG")

root=(-x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE")
P=$FIX_PEOPLE
export LDAPNOINIT=1
ldapsearch "${root[@]}" -b "$P" '(uid=user0000*)' cn mail >/dev/null
ldapsearch -x -H "$FIX_URI" -b "$P" -s one -a always '(uid=user0001*)' >/dev/null
ldapsearch -x -H "$FIX_URI" -D "uid=user00003,$P" -w user00003 -b "uid=user00003,$P" -s base 1.1 >/dev/null
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
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/run.log"
"$STAT" "$work/run.log" >"$work/st"
cat "$work/st"

# sent: 11 tool runs, each one connection, one bind and one unbind
declare -A sent=([bind]=11 [search]=3 [add]=2 [modify]=2 [modrdn]=1 [compare]=2 [delete]=2 [extended]=2 [unbind]=11)
declare -A mon=([bind]=Bind [search]=Search [add]=Add [modify]=Modify [modrdn]=Modrdn [compare]=Compare
	[delete]=Delete [extended]=Extended [unbind]=Unbind)
for t in bind search add modify modrdn compare delete extended unbind; do
	assert_eq "${sent[$t]}" "$(get "request $t" "$work/st")" "$t requests in the log = sent"
	assert_eq "$(fixture_monitor_delta "$work/snap" "${mon[$t]}")" "$(get "request $t" "$work/st")" \
		"$t requests in the log = cn=Monitor's completed"
done
assert_eq openldap "$(get format "$work/st")" "format detected"
assert_eq 11 "$(get open "$work/st")" "connections opened"
assert_eq 11 "$(get close "$work/st")" "connections closed"
assert_eq 25 "$(get result "$work/st")" "results (every request but the unbinds)"
assert_eq 25 "$(get paired "$work/st")" "requests paired with their result"
assert_eq 0 "$(get unpaired "$work/st")" "requests without a result"
assert_eq 0 "$(get orphans "$work/st")" "results without a request"
for why in unknown-op garbage other-format bad-field too-long truncated; do
	assert_eq 0 "$(get "skipped $why" "$work/st")" "no line skipped as $why"
done
# exact fields of some events
"$STAT" --events "$work/run.log" >"$work/ev"
assert_match "^event request .* type=search base=\"$P\" filter=\"\(uid=user0000\*\)\" scope=2 deref=0\$" "$work/ev" \
	"the first search's base, filter, scope, deref"
assert_match '^event more .* type=search attrs="cn mail"$' "$work/ev" "its attributes (OpenLDAP's second line)"
assert_match "^event request .* type=search base=\"$P\" filter=\"\(uid=user0001\*\)\" scope=1 deref=3\$" "$work/ev" \
	"-s one -a always: scope 1, deref 3"
assert_match '^event request .* type=compare dn="uid=slog2,[^"]*" attr="uid"$' "$work/ev" "compare's DN and attribute"
assert_match '^event result .* tag=111 err=6 ' "$work/ev" "compare true: err 6"
assert_match '^event result .* tag=111 err=5 ' "$work/ev" "compare false: err 5"
assert_match '^event request .* type=extended oid="1.3.6.1.4.1.4203.1.11.3"$' "$work/ev" "whoami's OID"
assert_match '^event open .* addr="127.0.0.1" port=[0-9]+$' "$work/ev" "ACCEPT's client address and port"
assert_match '^event result .* tag=101 err=0 nentries=9 etime=[0-9]+ qtime=[0-9]+$' "$work/ev" \
	"a search's entries, etime and qtime"

# The same lines in syslog's formats: traditional (no year, no zone: read
# with --year and --utc-offset 0), RFC 3339 with microseconds, RFC 5424.
python3 - "$work/run.log" "$work" <<'PY'
import sys, time
src, out = sys.argv[1], sys.argv[2]
f = {k: open(f"{out}/{k}.log", "w") for k in ("trad", "iso", "5424")}
for line in open(src):
    stamp, thread, msg = line.rstrip("\n").split(" ", 2)
    s, ns = (int(x, 16) for x in stamp.split("."))
    tm = time.gmtime(s)
    f["trad"].write(time.strftime("%b %e %H:%M:%S", tm) + f" ldaphost slapd[812]: {msg}\n")
    iso = time.strftime("%Y-%m-%dT%H:%M:%S", tm) + ".%06d" % (ns // 1000)
    f["iso"].write(f"{iso}+00:00 ldaphost slapd[812]: {msg}\n")
    f["5424"].write(f"<167>1 {iso}Z ldaphost slapd 812 - - {msg}\n")
PY
year=$(date -u -d "@$(($(get first_ns "$work/st") / 1000000000))" +%Y)
first_us=$(($(get first_ns "$work/st") / 1000))
for k in trad iso 5424; do
	"$STAT" --year "$year" --utc-offset 0 "$work/$k.log" >"$work/st.$k"
	for key in format lines open close result more paired "request bind" "request search" "request unbind" \
		"skipped known"; do
		assert_eq "$(get "$key" "$work/st")" "$(get "$key" "$work/st.$k")" "$k syslog format: $key as slapd's own"
	done
done
assert_eq $((first_us / 1000000 * 1000000000)) "$(get first_ns "$work/st.trad")" "traditional syslog: the first second"
assert_eq $((first_us * 1000)) "$(get first_ns "$work/st.iso")" "RFC 3339: the first microsecond"
assert_eq $((first_us * 1000)) "$(get first_ns "$work/st.5424")" "RFC 5424: the first microsecond"

# A rotated set: the older half gzip'd, given after the newer half.
half=$(($(wc -l <"$work/run.log") / 2))
head -n "$half" "$work/run.log" | gzip >"$work/stats.log.1.gz"
tail -n +$((half + 1)) "$work/run.log" >"$work/stats.log.0"
"$STAT" "$work/stats.log.0" "$work/stats.log.1.gz" >"$work/st.rot"
for key in lines bytes open close result paired unpaired "request search" first_ns last_ns; do
	assert_eq "$(get "$key" "$work/st")" "$(get "$key" "$work/st.rot")" "rotated set with .gz, out of order: $key"
done
assert_eq 2 "$(get files "$work/st.rot")" "two files read"

# Broken by hand, around the real lines.
b=$work/broken.log
{
	head -n 3 "$work/run.log"
	echo "this is not a log line"
	grep -m1 ' op=0 BIND ' "$work/run.log" | sed -E 's/ BIND .*/ FROBNICATE x=1/'
	echo '[02/Dec/2026:05:52:11.123456789 +0000] conn=1 op=0 SRCH base="" scope=0 filter="(objectClass=*)" attrs=ALL'
	grep -m1 ' op=0 BIND ' "$work/run.log" | sed -E 's/conn=[0-9]+/conn=12x/'
	sed -n 5p "$work/run.log" | sed -E 's/$/ '"$(printf 'y%.0s' $(seq 300))"'/'
	sed -n '5,$p' "$work/run.log"
	printf '%s' "$(sed -n 6p "$work/run.log" | cut -c1-40)"
} >"$b"
last=$(($(wc -l <"$b") + 1))
set +e
"$STAT" --max-line 300 "$b" >"$work/st.b" 2>&1
rc=$?
set -e
cat "$work/st.b"
assert_eq 0 "$rc" "a broken log: exit 0, its lines counted"
assert_match "^skipped garbage 1 $b:4\$" "$work/st.b" "garbage: line 4"
assert_match "^skipped unknown-op 1 $b:5\$" "$work/st.b" "unknown operation: line 5"
assert_match "^skipped other-format 1 $b:6\$" "$work/st.b" "a 389 DS line in slapd's log: line 6"
assert_match "^skipped bad-field 1 $b:7\$" "$work/st.b" "conn=12x: line 7"
assert_match "^skipped too-long 1 $b:8\$" "$work/st.b" "a line over --max-line: line 8"
assert_match "^skipped truncated 1 $b:$last\$" "$work/st.b" "the last line without its newline"
assert_eq $(($(get lines "$work/st") + 5)) "$(get lines "$work/st.b")" "every line counted (the real ones but one, 5 broken ones, a truncated one)"

: >"$work/empty.log"
"$STAT" "$work/empty.log" >"$work/st.e"
assert_eq 0 "$(get lines "$work/st.e")" "an empty log: zero lines, exit 0"
printf 'garbage\nmore garbage\n' >"$work/junk.log"
set +e
"$STAT" "$work/junk.log" >"$work/out.j" 2>&1
rc=$?
"$STAT" "$work/run.log" "$here/../../docs/design.md" >"$work/out.d" 2>&1
rcd=$?
sed -n 6p "$b" >"$work/ds.log"
"$STAT" "$work/run.log" "$work/ds.log" >"$work/out.m" 2>&1
rcm=$?
head -c 200 "$work/stats.log.1.gz" >"$work/cut.gz"
"$STAT" "$work/cut.gz" >"$work/out.z" 2>&1
rcz=$?
"$STAT" "$work/nothere.log" >"$work/out.n" 2>&1
rcn=$?
set -e
assert_eq 2 "$rc" "a file of no known format: exit 2"
assert_match "junk.log: not a 389 DS access log nor an OpenLDAP stats log" "$work/out.j" "... and its line"
assert_eq 2 "$rcd" "a log and a text file: exit 2"
assert_eq 2 "$rcm" "both servers' logs: exit 2"
assert_match "one server's logs at a time" "$work/out.m" "... and its line"
assert_eq 1 "$rcz" "a truncated gzip: exit 1 after what could be read"
assert_match "^slogstat: $work/cut.gz: gzip: unexpected end of file\$" "$work/out.z" "... and its line, naming the file"
assert_no_match "<fd:" "$work/out.z" "... not zlib's descriptor"
assert_eq 2 "$rcn" "a missing file: exit 2"
assert_match "nothere.log: No such file or directory" "$work/out.n" "... and its line"
