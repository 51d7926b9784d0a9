#!/bin/bash
# The extended operations as load on 389 DS (the ctest fixture "dirsrv"):
# whoami, passmod and a generic extended request.  389 DS's cn=snmp counts no
# extended operation (--monitor says so) and cn=monitor's opsinitiated counts
# every request, unbinds included: the server-side count here is its access
# log, one `EXT oid="..."` line per extended request (log buffering off for
# the test).  389 DS refuses a password modify on a connection without TLS
# (13, confidentialityRequired: a counted result code) and does it over
# LDAPS; an OID it does not know is 2 (protocolError).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsextops.XXXXXX")
log=/var/log/dirsrv/slapd-$DS_NAME/access
buffering() { # on|off
	LDAPNOINIT=1 ldapmodify -x -H "$DS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" >/dev/null <<EOF
dn: cn=config
changetype: modify
replace: nsslapd-accesslog-logbuffering
nsslapd-accesslog-logbuffering: $1
EOF
}
uid() { printf "user%0${DS_WIDTH}d" "$1"; }
user() { echo "uid=$(uid "$1"),$DS_PEOPLE"; }
cleanup() {
	buffering on || true
	# the password this test changed, back to the fixture's (password = uid; LDAPTLS_CACERT:
	# not with LDAPNOINIT, which leaves out the environment too)
	LDAPTLS_CACERT=$DS_CA ldappasswd -x -H "$DS_LDAPS_URI" -D "$DS_ROOTDN" -y "$DS_PWFILE" -s "$(uid 3)" \
		"$(user 3)" >/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
[[ -r $log ]] || { echo "no access log at $log: skipped"; exit 77; }
buffering off
out=$work/out
WHOAMI=1.3.6.1.4.1.4203.1.11.3
PASSMOD=1.3.6.1.4.1.4203.1.11.1
ext_lines() { grep -c "EXT oid=\"$1\"" "$log" || true; } # OID: the access log's requests so far
settle() { sleep 0.5; }                                   # the last lines reach the log
binds_with() { # DN PASSWORD: ldapwhoami's exit status
	local rc=0
	LDAPNOINIT=1 ldapwhoami -x -H "$DS_URI" -D "$1" -w "$2" >"$work/who.txt" 2>&1 || rc=$?
	echo "$rc"
}
count() { sed -nE "s/.* $1: attempted ([0-9]+), completed \\1, succeeded \\1, counted \\1, errors 0\$/\\1/p" "$out"; }
plain=(-h 127.0.0.1 -p "$DS_PORT")
tls=(-H "$DS_LDAPS_URI" --tls-cacert "$DS_CA")

# 1. whoami: each request one EXT line; --monitor: not in cn=snmp
before=$(ext_lines $WHOAMI)
run_ldbench "$out" "${plain[@]}" -D "$DS_ROOTDN" -w "$DS_ROOTPW" --whoami -n 2 -T 25 --monitor
assert_eq 0 "$RC" "exit status of a whoami run"
assert_match 'whoami: attempted 50, completed 50, succeeded 50, counted 50, errors 0$' "$out" "whoami counters"
settle
assert_eq 50 "$(($(ext_lines $WHOAMI) - before))" "the access log's WhoAmI requests"
assert_match 'Server \(cn=snmp,cn=monitor\): whoami not counted by the server$' "$out" "--monitor on 389 DS"

# 2. passmod without TLS: 13 for each, counted
before=$(ext_lines $PASSMOD)
run_ldbench "$out" "${plain[@]}" -D "$(user 2)" -w "$(uid 2)" --passmod -n 1 -T 3 -E 2
assert_eq 3 "$RC" "exit status: max errors reached"
assert_match 'passmod: attempted 3, completed 3, succeeded 0, counted 0, errors 3$' "$out" "refused passmods counted"
assert_match 'Global error +13 \(Confidentiality required\) occurs +3 times' "$out" "result code 13"
settle
assert_eq 3 "$(($(ext_lines $PASSMOD) - before))" "the access log's refused password modifies"

# 3. over LDAPS, the default: each user sets its own password again
before=$(ext_lines $PASSMOD)
run_ldbench "$out" "${tls[@]}" -D "$(user 2)" -w "$(uid 2)" --passmod -n 2 -T 10
assert_eq 0 "$RC" "exit status of passmods over LDAPS"
assert_match 'passmod: attempted 20, completed 20, succeeded 20, counted 20, errors 0$' "$out" "passmod counters"
settle
assert_eq 20 "$(($(ext_lines $PASSMOD) - before))" "the access log's password modifies"
assert_eq 0 "$(binds_with "$(user 2)" "$(uid 2)")" "$(uid 2) still binds with its password"

# 4. a new password: the user binds with it, not with the old one
run_ldbench "$out" "${tls[@]}" -D "$(user 3)" -w "$(uid 3)" --passmod --passmod-new 'ds-[1:1]' -n 1 -T 1
assert_match 'passmod: attempted 1, completed 1, succeeded 1, counted 1, errors 0$' "$out" "one change"
assert_eq 0 "$(binds_with "$(user 3)" ds-1)" "$(uid 3) binds with its new password"
assert_match "^dn: ?$(user 3)$" "$work/who.txt" "ldapwhoami's identity"
assert_eq 49 "$(binds_with "$(user 3)" "$(uid 3)")" "and no longer with the old one"

# 5. an OID 389 DS does not know (a base64 value): 2, counted
before=$(grep -c 'RESULT err=2 tag=120' "$log" || true)
run_ldbench "$out" "${plain[@]}" -D "$(user 4)" -w "$(uid 4)" --extended '1.2.3.4.5::aGVsbG8=' -n 1 -T 4 -E 3
assert_eq 3 "$RC" "exit status: max errors reached"
assert_match 'extended: attempted 4, completed 4, succeeded 0, counted 0, errors 4$' "$out" "unknown OID counted"
assert_match 'Global error +2 \(Protocol error\) occurs +4 times' "$out" "result code 2"
settle
assert_eq 4 "$(($(grep -c 'RESULT err=2 tag=120' "$log" || true) - before))" "the access log's protocolErrors"

# 6. a mixed run over LDAPS: per OID, the client's counts are the log's
p0=$(ext_lines $PASSMOD) w0=$(ext_lines $WHOAMI)
run_ldbench "$out" "${tls[@]}" -D "$(user 5)" -w "$(uid 5)" --mix passmod:5,whoami:1,extended:1 \
	--extended $WHOAMI -n 2 -T 35
assert_eq 0 "$RC" "exit status of the mixed run"
assert_eq 70 "$(global_total "$out")" "mixed total"
np=$(count passmod) nw=$(count whoami) ne=$(count extended)
assert_eq 70 "$((np + nw + ne))" "the kinds add up"
settle
assert_eq "$np" "$(($(ext_lines $PASSMOD) - p0))" "the log's password modifies = the client's passmods"
assert_eq "$((nw + ne))" "$(($(ext_lines $WHOAMI) - w0))" "the log's WhoAmIs = whoami + extended (its OID)"
assert_eq 0 "$(binds_with "$(user 5)" "$(uid 5)")" "$(uid 5) still binds after the mix"
echo "dirsrv_extops: all passed"
