#!/bin/bash
# Listeners for changes (docs/guide.md "Listeners") on the ctest fixture
# "dirsrv" (389 DS):
#  1. the content synchronization plug-in disabled (the fixture's state):
#     sync listeners stop the run with one line naming what is missing, exit 15;
#  2. the plug-in enabled with dsconf (with the retro changelog it depends on,
#     and 64 sessions: 389 DS allows 10 by default), the server restarted:
#     50 RFC 4533 refreshAndPersist listeners (10 in the sanitizer builds)
#     beside a modify load asked for 500 writes/s for 10 s: each refresh holds
#     the 999 entries of the listeners' filter, the writes followed equal the
#     load's succeeded modifies and the server's own count (cn=snmp's
#     modifyentryops), every write received by every listener;
#  3. 50 persistent searches (389 DS has them) beside the same load for 5 s:
#     the same counts.
#  4. 10 persistent searches and a modify load, the server restarted in the
#     middle: exit 0, every listener lost and re-issued fresh (lost 10,
#     reconnected 10, down 0), no duplicate, every write expected received
#     or missing (a persistent search's changes while away are not sent:
#     left out of its expected set, at most 100/s x the longest time away
#     + 1 s each), and writes after the restart received.
# The plug-ins are disabled again and the server restarted at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
F=${LDBENCH_TIME_FACTOR:-1}
N=50
((F > 1)) && N=10
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dslisten.XXXXXX")
dsconf_() { PREFIX=$DS_PREFIX timeout 120 dsconf -D "$DS_ROOTDN" -y "$DS_PWFILE" "$DS_URI" "$@" >>"$work/dsconf.log" 2>&1; }
plugins() { # on|off: the content synchronization plug-in and the retro changelog, then a restart
	local verb=enable
	[[ $1 == off ]] && verb=disable
	dsconf_ plugin contentsync "$verb" || { cat "$work/dsconf.log" >&2; _fail "dsconf plugin contentsync $verb"; }
	dsconf_ plugin retro-changelog "$verb" || { cat "$work/dsconf.log" >&2; _fail "dsconf plugin retro-changelog $verb"; }
	if [[ $1 == on ]]; then # the sessions 389 DS allows at once (its first argument; 10 without)
		LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >>"$work/dsconf.log" 2>&1 <<EOF
dn: cn=Content Synchronization,cn=plugins,cn=config
changetype: modify
replace: nsslapd-pluginarg0
nsslapd-pluginarg0: 64
EOF
	fi
	dirsrv_stop
	dirsrv_start
}
enabled=0
cleanup() {
	if ((enabled)); then
		plugins off || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
out=$work/out
w=$DS_WIDTH
X=$(printf 'X%.0s' $(seq "$w"))
pre=$(printf "user%0$((w - 3))d" 0) # user00 with 5 digits: user00001 .. user00999
common=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -b "$DS_PEOPLE" -f "uid=user$X" -r1 -R999
	-n 2 --io-threads 1 -e attreplace=description:sXXXXXX,random --listen-base "$DS_PEOPLE"
	--listen-filter "(uid=$pre*)")
lfield() { # FILE KEY: a number of the JSON summary's "listeners" object (its delay object left out)
	grep '^{"type":"summary"' "$1" | grep -oE '"listeners":\{[^}]*' | grep -oE "\"$2\":-?[0-9.]+" | head -n 1 |
		cut -d: -f2
}
succeeded() { sed -nE "s/.*$2: attempted [0-9]+, completed [0-9]+, succeeded ([0-9]+),.*/\1/p" "$1" | tail -n 1; }

echo "=== 1. the content synchronization plug-in disabled"
set +e
timeout 120 "$LDBENCH" "${common[@]}" --rate 50 --duration 2s --listeners 3 >"$out" 2>"$work/err"
RC=$?
set -e
assert_eq 15 "$RC" "exit status"
assert_eq 1 "$(wc -l <"$work/err")" "lines on stderr"
assert_match "^ldbench: the server does not support RFC 4533 sync searches below $DS_PEOPLE \(unavailableCriticalExtension\)$" \
	"$work/err" "the line naming what is missing"

echo "=== 2. $N sync listeners, modifies asked for 500/s for 10 s"
enabled=1
plugins on
for kind in sync psearch; do
	dur=10s
	[[ $kind == psearch ]] && dur=5s
	before=$(dirsrv_snmp modifyentryops)
	run_ldbench "$out" "${common[@]}" --rate 500 --duration $dur --listeners $N --listen-kind $kind --json "$work/$kind.json"
	assert_eq 0 "$RC" "$kind: exit status"
	mods=$(succeeded "$out" modify)
	assert_ge 100 "$mods" "$kind: modifies made (389 DS with $N listeners falls well short of 500/s)"
	assert_eq "$mods" "$(($(dirsrv_snmp modifyentryops) - before))" "$kind: the load's modifies against cn=snmp"
	entries=999
	[[ $kind == psearch ]] && entries=0 # changes only: no refresh
	assert_match "Listeners: $N $kind, refreshed $N \(refresh p50 [0-9.]+ ms, max [0-9.]+ ms; entries p50 $entries, max $entries\), failed 0, lost 0$" \
		"$out" "$kind: the refresh line"
	assert_eq "$mods" "$(lfield "$work/$kind.json" writes)" "$kind: writes followed"
	assert_eq $((mods * N)) "$(lfield "$work/$kind.json" expected)" "$kind: notifications expected"
	assert_eq $((mods * N)) "$(lfield "$work/$kind.json" seen)" "$kind: notifications received"
	for k in missing duplicated unmatched dropped untracked failed lost; do
		assert_eq 0 "$(lfield "$work/$kind.json" $k)" "$kind: $k"
	done
	assert_match "Listeners: delay p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms \(confirmation to arrival, over $((mods * N))\)$" \
		"$out" "$kind: the delay line"
	[[ $kind == sync ]] && echo "=== 3. $N persistent searches, modifies asked for 500/s for 5 s"
done
echo "=== 4. a restart in the middle of a run: 10 persistent searches re-issued"
M=10
before=$(dirsrv_snmp modifyentryops)
timeout $((180 * F)) "$LDBENCH" "${common[@]}" --rate 100 --duration $((25 * F))s --listeners $M --listen-kind psearch \
	--json "$work/rs.json" >"$work/rs.txt" 2>&1 &
pid=$!
for _ in $(seq 1 $((300 * F))); do # the load under way: its listeners are up
	(($(dirsrv_snmp modifyentryops) >= before + 200)) && break
	sleep 0.2
done
dirsrv_stop
dirsrv_start
set +e
wait $pid
RC=$?
set -e
assert_eq 0 "$RC" "exit status (the writes that failed at the restart are counted errors)"
mods=$(succeeded "$work/rs.txt" modify)
assert_eq "$mods" "$(lfield "$work/rs.json" writes)" "writes followed"
for k in lost reconnected; do
	assert_eq $M "$(lfield "$work/rs.json" $k)" "listeners $k"
done
for k in down duplicated failed; do
	assert_eq 0 "$(lfield "$work/rs.json" $k)" "$k"
done
exp=$(lfield "$work/rs.json" expected) seen=$(lfield "$work/rs.json" seen)
assert_eq "$exp" $((seen + $(lfield "$work/rs.json" missing))) "expected = received + missing"
away=$(lfield "$work/rs.json" away_max_ms)
assert_le $((M * 100 * (${away%.*} + 1000) / 1000)) $((mods * M - exp)) \
	"writes left out of the expected set (made while a listener was away, ${away} ms at most)"
after=$(dirsrv_snmp modifyentryops) # since the restart
assert_ge 100 "$after" "writes after the restart"
assert_ge $(((after - 100 * (${away%.*} + 1000) / 1000) * M)) "$seen" \
	"received: the writes after the restart, but for the time away, by every listener"
echo "ok: dirsrv_listeners"
