#!/usr/bin/env bash
# The pre-flight check of a -f value pattern, as of ldclt's XXX: against a
# slapd of 100 users (uid=user00001 .. user00100, 5 digits) the filter is
# searched with every range of the pattern at its first bound, its last and
# three points between; a pattern whose width does not match the data
# (4 digits) or whose range runs past it stops there: the searched values on
# one line, the failing one on another, exit 11 (as XXX's), no load, the
# server saw the five searches only.  A pattern that fits runs; a [ref:N]
# takes its bracket's value; a pattern with a bracket that is not a number
# range ([uuid]) is not checked; --no-preflight runs anyway.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"
fixture_start --users 100
out=$FIX_DIR/out.txt
snap=$FIX_DIR/snap
r=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE" -n 2)
pfx='^ldbench\[[0-9]+\]: '

# 1. the width does not match the data: 4 digits on 5-digit uids
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${r[@]}" -f "(uid=user[1-1000%0000])" -e esearch -T 50
assert_eq 11 "$RC" "exit status of a pattern whose width misses the data"
assert_match "${pfx}Pre-flight: search \(uid=user0001\) 0, \(uid=user0250\) 0, \(uid=user0500\) 0, \(uid=user0750\) 0, \(uid=user1000\) 0 entries\$" "$out" "the five values searched"
assert_match "${pfx}Pre-flight failed: the filter \(uid=user0001\) \(every range of \(uid=user\[1-1000%0000\]\) at its first bound\) returns 0 entries, expected at least 1: the pattern does not match the data under $FIX_PEOPLE \(--no-preflight runs anyway\)\$" "$out" "the one line"
assert_match "${pfx}Exit status 11 - The range does not match the data \(pre-flight check\)\.\$" "$out" "exit line"
assert_no_match 'Global average rate' "$out" "no load ran"
assert_eq 5 "$(fixture_monitor_delta "$snap" Search)" "the server saw only the pre-flight's 5 searches"
# the same mistake with XXX: the same exit status
run_ldbench "$out" "${r[@]}" -f "(uid=userXXXX)" -e esearch,random -r 1 -R 1000 -T 50
assert_eq 11 "$RC" "exit status of the XXX form"

# 2. a sequence past the data, srchnentries: the first value that misses
fixture_monitor_snapshot "$snap"
run_ldbench "$out" "${r[@]}" -f "(uid=user[1:150%00000])" -e esearch,srchnentries=1 -T 50
assert_eq 11 "$RC" "exit status of a sequence past the data"
assert_match "${pfx}Pre-flight: search \(uid=user00001\) 1, \(uid=user00038\) 1, \(uid=user00075\) 1, \(uid=user00112\) 0, \(uid=user00150\) 0 entries\$" "$out" "lowest, three between, highest"
assert_match "${pfx}Pre-flight failed: the filter \(uid=user00112\) \(every range of \(uid=user\[1:150%00000\]\) at 3/4 of the way\) returns 0 entries, expected 1 \(srchnentries\): the pattern does not match" "$out" "the first value that misses"
assert_eq 5 "$(fixture_monitor_delta "$snap" Search)" "the pre-flight's searches only"

# 3. patterns that fit run: descending, a substring around the bracket, a [ref:N]
run_ldbench "$out" "${r[@]}" -f "(uid=user[100:1%00000])" -e esearch,srchnentries=1 -T 10
assert_eq 0 "$RC" "exit status of a descending pattern that fits"
assert_match "${pfx}Pre-flight: search \(uid=user00100\) 1, \(uid=user00076\) 1, \(uid=user00051\) 1, \(uid=user00026\) 1, \(uid=user00001\) 1 entries\$" "$out" "from the first bound"
assert_match 'search: attempted 20, completed 20, succeeded 20, counted 20, errors 0, entries 20, expected-result hits 20, misses 0$' "$out" "the load ran (-T 10 on each of -n 2)"
run_ldbench "$out" "${r[@]}" -f "(&(uid=user000[1:9]*)(!(uid=user[ref:1])))" -e esearch,srchnentries=10 -T 10
assert_eq 0 "$RC" "exit status of a substring with a [ref:N]"
assert_match "${pfx}Pre-flight: search \(&\(uid=user0001\*\)\(!\(uid=user1\)\)\) 10, \(&\(uid=user0003\*\)\(!\(uid=user3\)\)\) 10, \(&\(uid=user0005\*\)\(!\(uid=user5\)\)\) 10, \(&\(uid=user0007\*\)\(!\(uid=user7\)\)\) 10, \(&\(uid=user0009\*\)\(!\(uid=user9\)\)\) 10 entries\$" "$out" "the reference takes its bracket's value"

# 4. not checked: a bracket without a range; --no-preflight
run_ldbench "$out" "${r[@]}" -f "(|(uid=user00001)(description=[uuid]))" -e esearch -T 4
assert_eq 0 "$RC" "exit status of a pattern with [uuid]"
assert_no_match 'Pre-flight' "$out" "no pre-flight for a pattern without ranges only"
run_ldbench "$out" "${r[@]}" -f "(uid=user[1-1000%0000])" -e esearch -T 20 --no-preflight
assert_eq 0 "$RC" "exit status with --no-preflight"
assert_no_match 'Pre-flight' "$out" "no pre-flight"
assert_match 'search: attempted [0-9]+, completed [0-9]+, succeeded [0-9]+, counted [0-9]+, errors 0, entries 0$' "$out" "searches that find nothing"
echo "preflight_patterns: all passed"
