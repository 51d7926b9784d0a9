#!/usr/bin/env bash
# scenarios/try-server.sh, the README's throwaway server: it prints its URI,
# base, root DN with its password file and its stats log; a documented run
# with --server-log against it joins every search with that log, and
# `ldbench replay --profile` reads the log; SIGINT (Ctrl-C) stops slapd, exit 0,
# the log kept.  Bad usage: one line, exit 2.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
LDBENCH=${LDBENCH:-$src/build/ldbench}
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-try.XXXXXX")
tp=
trap '[[ -n $tp ]] && kill -TERM "$tp" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
export LDBENCH
# bad usage
RC=0
"$src/scenarios/try-server.sh" --users x >"$work/bad" 2>&1 || RC=$?
assert_eq 2 "$RC" "exit status of bad usage"
assert_match '^usage: scenarios/try-server.sh \[--users N\] \[--tls\] \[--dir DIR\]$' "$work/bad" "its line"

# started with job control as a shell at a terminal starts it (a background job
# of a script without it ignores SIGINT, which Ctrl-C sends)
set -m
"$src/scenarios/try-server.sh" --users 100 --dir "$work/try" >"$work/out" 2>&1 &
tp=$!
set +m
for ((i = 0; i < 300; i++)); do
	grep -q '^  try ' "$work/out" && break
	kill -0 "$tp" 2>/dev/null || break
	sleep 0.1
done
cat "$work/out"
assert_match '^try-server: slapd \(pid [0-9]+\) with 100 users; Ctrl-C stops it$' "$work/out" "its first line"
assert_match '^  URI +ldap://127\.0\.0\.1:([0-9]+)/ +\(-h 127\.0\.0\.1 -p \1\)$' "$work/out" "the URI, on loopback"
pid=$(sed -nE 's%^try-server: slapd \(pid ([0-9]+)\).*%\1%p' "$work/out")
assert_match '^  base +ou=People,dc=example,dc=com ' "$work/out" "the base"
assert_match "^  root DN +cn=admin,dc=example,dc=com +\\(password file $work/try/rootpw\\)\$" "$work/out" "the root DN"
assert_match "^  stats log +$work/try/stats.log\$" "$work/out" "the log's path"
# the line it prints to try, run as printed (a shorter duration)
cmd=$(sed -nE 's/^  try +//p' "$work/out" | sed 's/--duration 10s/--duration 1s/')
RC=0
eval "$cmd" >"$work/run" 2>&1 || RC=$?
assert_eq 0 "$RC" "exit status of the printed command"
n=$(sed -nE 's/.* search: attempted [0-9]+, completed ([0-9]+),.*/\1/p' "$work/run" | tail -n 1)
assert_match "Server log \\(openldap\\), search: $n of $n operations joined \\(100\\.0 %\\)" "$work/run" \
	"every search joined with the server's stats log"
RC=0
"$LDBENCH" replay --profile "$work/try/stats.log" >"$work/profile" 2>&1 || RC=$?
assert_eq 0 "$RC" "replay --profile of its log"
assert_match '^  search +requests [1-9][0-9]* ' "$work/profile" "the log's searches"
# Ctrl-C: slapd stopped, exit 0, the log kept
kill -INT "$tp"
for ((i = 0; i < 200; i++)); do
	kill -0 "$tp" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$tp" 2>/dev/null && _fail "try-server still running 10 s after SIGINT"
RC=0
wait "$tp" || RC=$?
tp=
assert_eq 0 "$RC" "exit status after SIGINT"
kill -0 "$pid" 2>/dev/null && _fail "slapd $pid still running after SIGINT"
assert_match 'try-server: stopping slapd' "$work/out" "it says so"
[[ -s $work/try/stats.log ]] || _fail "the stats log was not kept"
echo "try_server: all passed"
