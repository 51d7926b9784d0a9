#!/bin/bash
# The login flow (--login) on the ctest fixture "dirsrv" (389 DS, ldifgen
# users, password = uid): one client walks the last 5 users and 5 numbers past
# the last in turn (-T 10: 5 found, 5 not, 5 found again: 15 flows), each bind
# as the DN its search returned with the entry's uid as its password; the 5
# numbers nobody has end as "no entry" (-14) with no bind sent; --monitor's
# lines (cn=snmp,cn=monitor: searchops, simpleauthbinds) agree with the
# steps' counts.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dslogin.XXXXXX")
trap 'rm -rf "$work"' EXIT
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
