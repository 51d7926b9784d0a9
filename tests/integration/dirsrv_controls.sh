#!/bin/bash
# Request controls on the ctest fixture "dirsrv" (389 DS, 10,000 ldifgen
# users): which controls 389 DS announces (its root DSE's supportedControl)
# and what it does with each: sorted searches (a sort result each), paged
# searches (every entry once), a critical control it does not know (12,
# counted; the assertion control is one), proxied authorization (the root DN
# may act as a user), pre-read
# and post-read entries (one each per modify), permissive modify (ignored:
# 20), ManageDsaIT, session tracking, RFC 3672 subentries.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsctl.XXXXXX")
w=$DS_WIDTH
X=$(printf 'X%.0s' $(seq "$w"))
user() { printf "uid=user%0${w}d,%s" "$1" "$DS_PEOPLE"; }
cleanup() {
	# the descriptions this test wrote go again
	"$LDBENCH" -h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -b "$DS_PEOPLE" -f "uid=user$X" \
		-e incr,noloop -r1 -R20 -n 1 --modify "delete:description" --no-preflight -q >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
out=$work/out
root=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW" -b "$DS_PEOPLE" --no-preflight)

# what the server announces
dirsrv_search -b "" -s base supportedControl >"$work/dse"
for oid in 1.2.840.113556.1.4.473 1.2.840.113556.1.4.319 2.16.840.1.113730.3.4.18 1.3.6.1.1.13.1 1.3.6.1.1.13.2 \
	2.16.840.1.113730.3.4.2; do
	assert_match "^supportedControl: $oid$" "$work/dse" "389 DS announces $oid"
done
echo "389 DS supportedControl:"; sed -n 's/^supportedControl: /  /p' "$work/dse"

# 1. sort: nine entries, descending uid (uid has no ordering rule in 389 DS's
#    schema: every search is answered, with a sort result other than 0)
pre=$(printf "user%0$((w - 1))d" 0)
run_ldbench "$out" "${root[@]}" -f "(uid=${pre}*)" -e esearch -n 2 -T 5 --sort-order "-uid"
assert_eq 0 "$RC" "exit status, sorted searches"
assert_match 'search: attempted 10, completed 10, succeeded 10, counted 10, errors 0, entries 90, sort results 10, not sorted 10$' "$out" "ten sort results, none sorted by uid"

# 2. paged: 99 entries in pages of 10, two paged searches at once on a connection
pre2=$(printf "user%0$((w - 2))d" 0)
n99=$(dirsrv_count "$DS_PEOPLE" "(uid=${pre2}*)")
assert_eq 99 "$n99" "the server's count of the entries"
run_ldbench "$out" "${root[@]}" -f "(uid=${pre2}*)" -e esearch,srchnentries=99 -n 2 -a 2 -T 4 --simple-page-size 10
assert_eq 0 "$RC" "exit status, paged searches"
assert_match 'search: attempted 8, completed 8, succeeded 8, counted 8, errors 0, entries 792, expected-result hits 8, misses 0, pages 80$' "$out" "8 searches of 10 pages, every entry once"

# 3. a critical control the server does not know: 12, counted
run_ldbench "$out" "${root[@]}" -f "(uid=$(printf "user%0${w}d" 1))" -e esearch -n 1 -T 5 -E 4 --control 1.3.6.1.4.1.99999.1:true
assert_eq 3 "$RC" "exit status, unknown critical control"
assert_match 'Global error 12 \(Critical extension is unavailable\) occurs +5 times$' "$out" "12 counted"
# RFC 3672 subentries: announced, taken (no subentry under the people)
run_ldbench "$out" "${root[@]}" -f "(objectClass=*)" -e esearch -n 1 -T 3 --rfc3672-subentries true
assert_eq 0 "$RC" "exit status, subentries"
assert_match 'search: attempted 3, completed 3, succeeded 3, counted 3, errors 0' "$out" "subentries taken"
# the assertion control (RFC 4528) is not among 389 DS's: critical, 12
run_ldbench "$out" "${root[@]}" -f "uid=user$X" -e incr,noloop -r1 -R5 -n 1 --modify "replace:description=no-$X" --assertion-filter "(objectClass=*)"
assert_eq 0 "$(dirsrv_count "$DS_PEOPLE" "(description=no-*)")" "nothing written under the refused assertion"
assert_match 'Global error 12 \(Critical extension is unavailable\) occurs +5 times$' "$out" "assertion: 12"

# 4. proxied authorization (critical): the root DN acts as a user (the user's
#    own entry, which it may read); the ACL case is slapd's (controls.sh)
run_ldbench "$out" "${root[@]}" -b "$(user 2)" -s base -f "(objectClass=*)" -e esearch -n 1 -T 4 --proxy-as "dn:$(user 2)"
assert_eq 0 "$RC" "exit status, the root DN proxied as user 2"
assert_match 'search: attempted 4, completed 4, succeeded 4, counted 4, errors 0, entries 4$' "$out" "the proxied searches read the entry"

# 5. pre-read and post-read: an entry each per modify
run_ldbench "$out" "${root[@]}" -f "uid=user$X" -e incr,noloop -r1 -R20 -n 1 --modify "replace:description=ctl-$X" \
	--pre-read-attribute uid --post-read-attribute description
assert_eq 0 "$RC" "exit status, modifies with pre-read and post-read"
assert_match 'modify: attempted 20, completed 20, succeeded 20, counted 20, errors 0, pre-read entries 20, post-read entries 20$' "$out" "an entry of each per modify"
assert_eq 20 "$(dirsrv_count "$DS_PEOPLE" "(description=ctl-*)")" "the values written"

# 6. permissive modify is not among 389 DS's controls (not critical: ignored,
#    the value already there is 20), ManageDsaIT and session tracking taken
run_ldbench "$out" "${root[@]}" -f "uid=user$X" -e incr,noloop -r1 -R5 -n 1 --modify "add:description=ctl-$X" --permissive-modify
assert_match 'Global error 20 \(Type or value exists\) occurs +5 times$' "$out" "permissive modify ignored: 20"
run_ldbench "$out" "${root[@]}" -f "(uid=${pre}*)" -e esearch -n 1 -T 3 --manage-dsa-it --session-tracking ldbench-test
assert_eq 0 "$RC" "exit status, ManageDsaIT and session tracking"
assert_match 'search: attempted 3, completed 3, succeeded 3, counted 3, errors 0, entries 27$' "$out" "taken"
echo "dirsrv_controls: all passed"
