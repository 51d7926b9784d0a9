#!/bin/bash
# The recorded-traffic fixture (tests/fixture/record_traffic.sh) on a real
# slapd (or, as `record_traffic.sh dirsrv` from dirsrv_record_traffic.sh, on
# the ctest fixture's 389 DS): the access log it keeps holds, per operation
# type, exactly the requests the clients sent and the successes they saw
# (read by tests/tools/slogstat), one connection per client; the audit log it
# keeps holds one record per successful write, per kind; the restore gives
# back the content exported before the traffic.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/record_traffic.sh
source "$here/../fixture/record_traffic.sh"
STAT=${LDBENCH_SLOGSTAT:-}
[[ -x "$STAT" ]] || { echo "SKIP: no slogstat (LDBENCH_SLOGSTAT; run through ctest)"; exit 77; }
server=${1:-slapd}
rec_start_as "$server" --users 50

# the entries under the base, as the root DN
entries() {
	LDAPNOINIT=1 ldapsearch -x -H "$REC_URI" -D "$REC_ROOTDN" -y "$REC_PWFILE" -LLL -o ldif-wrap=no \
		-b "$REC_BASE" "${@:-(objectClass=*)}" 1.1 | grep -c '^dn:' || true
}
n_before=$(entries)
assert_eq "$(grep -c '^dn:' "$REC_LDIF")" "$n_before" "entries in the snapshot = entries on the server"

rec_drive
cat "$REC_EXPECT"
"$STAT" "$REC_ACCESS" >"$REC_DIR/stat"
"$STAT" --events "$REC_ACCESS" >"$REC_DIR/events"
get() { awk -v k="$1" 'index($0, k " ") == 1 { $0 = substr($0, length(k) + 2); print $1; exit }' "$REC_DIR/stat"; }
# results with err=0 per request type, paired by conn and op
awk '$2 == "request" { for (i = 3; i <= NF; i++) { if ($i ~ /^(conn|op|type)=/) f[substr($i, 1, index($i, "=") - 1)] = $i }
		type[f["conn"] " " f["op"]] = substr(f["type"], 6) }
	$2 == "result" && / err=0( |$)/ { c = o = ""
		for (i = 3; i <= NF; i++) { if ($i ~ /^conn=/) c = $i; if ($i ~ /^op=/) o = $i }
		ok[type[c " " o]]++ }
	END { for (t in ok) print t, ok[t] }' "$REC_DIR/events" >"$REC_DIR/ok"
while read -r t req ok; do
	if [[ $t == connections ]]; then
		assert_eq "$req" "$(get open)" "connections opened in the access log"
		assert_eq "$req" "$(get close)" "connections closed in the access log"
		continue
	fi
	assert_eq "$req" "$(get "request $t")" "$t requests in the access log"
	[[ $t == unbind ]] && continue
	assert_eq "$ok" "$(awk -v t="$t" '$1 == t { n = $2 } END { print n + 0 }' "$REC_DIR/ok")" \
		"$t results with err=0 in the access log"
done <"$REC_EXPECT"
assert_eq 0 "$(get unpaired)" "every request with its result"
assert_eq 0 "$(get 'skipped garbage')" "no garbage line"
assert_eq 0 "$(get 'skipped truncated')" "no truncated line"
assert_eq 16 "$REC_WRITES" "successful writes (4 adds, 5+2 modifies, 3 renames, 2 deletes)"

# the audit log: one record per successful write, per kind
if [[ $server == dirsrv ]]; then
	assert_eq "$REC_WRITES" "$(grep -c '^time: ' "$REC_AUDIT")" "records in the audit log"
else
	assert_eq "$REC_WRITES" "$(grep -cE '^# (add|modify|delete|modrdn) ' "$REC_AUDIT")" "records in the audit log"
	assert_eq "$REC_WRITES" "$(grep -cE '^# end (add|modify|delete|modrdn) ' "$REC_AUDIT")" "... each ended"
fi
for t in add modify modrdn delete; do
	assert_eq "$(awk -v t="$t" '$1 == t { print $3 }' "$REC_EXPECT")" "$(grep -c "^changetype: $t\$" "$REC_AUDIT")" \
		"$t records in the audit log"
done
assert_match '^newsuperior: ou=Moved,' "$REC_AUDIT" "the rename under a new superior"
assert_match '^sn:: xb1sdcWlb3XEjWvDvSBrxa/FiA==$' "$REC_AUDIT" "the UTF-8 value in base64"
assert_no_match 'not-there@example.com' "$REC_AUDIT" "the failed modify not in the audit log"
assert_no_match 'uid=nobody,' "$REC_AUDIT" "the failed delete not in the audit log"

# the restore: the content of the snapshot again
assert_eq $((n_before + 2)) "$(entries)" "entries after the traffic (ou=Moved and uid=rt3 added)"
rec_restore
assert_eq "$n_before" "$(entries)" "entries after the restore"
assert_eq 0 "$(entries '(|(uid=rt*)(ou=Moved)(description=pipelined))')" "no entry the traffic wrote"

# the traffic again on the restored data (as a replay would find it), then
# ldclt for 2 s: the same writes succeed; ldclt's searches are logged
# besides: its total and a few more (2 more with its 2 threads, measured on
# slapd 2.5: searches outside its counted samples; 4 allowed)
if command -v ldclt >/dev/null; then
	rec_drive --ldclt 2
	"$STAT" "$REC_ACCESS" >"$REC_DIR/stat"
	assert_ge 1 "$REC_LDCLT" "ldclt's searches"
	searches=$(awk '$1 == "search" { print $2 }' "$REC_EXPECT")
	assert_ge $((searches + REC_LDCLT)) "$(get 'request search')" "searches logged (ldap-utils, python-ldap, ldclt)"
	assert_le $((searches + REC_LDCLT + 4)) "$(get 'request search')" "searches logged, at most 4 more"
	for t in add modify modrdn delete; do
		assert_eq "$(awk -v t="$t" '$1 == t { print $2 }' "$REC_EXPECT")" "$(get "request $t")" "$t requests again"
	done
	assert_eq "$REC_WRITES" "$(grep -c '^changetype: ' "$REC_AUDIT")" "audit records again"
else
	echo "note: no ldclt here, rec_drive --ldclt not checked"
fi
echo "record_traffic ($server): all checks passed"
