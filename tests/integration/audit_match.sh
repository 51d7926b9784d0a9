#!/bin/bash
# The audit log reader (src/logs/audit.h, driven by tests/tools/auditmatch)
# on logs a real slapd (or, as `audit_match.sh dirsrv` from
# dirsrv_audit_match.sh, the ctest fixture's 389 DS) wrote while serving
# clients that are not ldbench (tests/fixture/record_traffic.sh): every
# successful write of the access log is matched to its audit record (100 %,
# per kind, none left over), and the content is right: the data restored to
# the snapshot, the matched changes sent as ldb_audit_encode encoded them
# (tests/tools/ldapapply.py, every result 0) give the same entries as the
# recorded traffic did.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/record_traffic.sh
source "$here/../fixture/record_traffic.sh"
MATCH=${LDBENCH_AUDITMATCH:-}
[[ -x "$MATCH" ]] || { echo "SKIP: no auditmatch (LDBENCH_AUDITMATCH; run through ctest)"; exit 77; }
server=${1:-slapd}
rec_start_as "$server" --users 50

# the entries under the base with their user attributes, one canonical text
content() {
	LDAPNOINIT=1 ldapsearch -x -H "$REC_URI" -D "$REC_ROOTDN" -y "$REC_PWFILE" -LLL -o ldif-wrap=no \
		-b "$REC_BASE" '(objectClass=*)' '*' | /usr/bin/python3 -c '
import sys
entries = []
for block in sys.stdin.read().split("\n\n"):
    lines = [l for l in block.split("\n") if l]
    if not lines:
        continue
    dn = lines[0].lower()
    attrs = sorted(l.split(":", 1)[0].lower() + ":" + l.split(":", 1)[1] for l in lines[1:])
    entries.append(dn + "\n" + "\n".join(attrs))
print("\n\n".join(sorted(entries)))'
}

rec_drive
content >"$REC_DIR/after-traffic"
"$MATCH" "$REC_ACCESS" -- "$REC_AUDIT" >"$REC_DIR/match"
grep -v '^write ' "$REC_DIR/match"
get() { awk -v k="$1" 'index($0, k " ") == 1 { $0 = substr($0, length(k) + 2); print $1; exit }' "$REC_DIR/match"; }
assert_eq "$REC_WRITES" "$(get writes)" "successful writes in the access log"
assert_eq "$REC_WRITES" "$(get matched)" "writes matched to their audit record"
assert_eq 0 "$(get not_found)" "writes without an audit record"
assert_eq 0 "$(get unmatched)" "audit records left unmatched"
for t in add modify modrdn delete; do
	ok=$(awk -v t="$t" '$1 == t { print $3 }' "$REC_EXPECT")
	assert_eq "$ok" "$(get "changes $t")" "$t changes read"
	assert_eq "$ok" "$(get "matched $t")" "$t changes matched"
done
for s in garbage unknown-change bad-value truncated too-long; do
	assert_eq 0 "$(get "skipped $s")" "records skipped as $s"
done
assert_ge 1 "$(get dropped_attrs)" "operational attributes left out"
# python-ldap's connection is the last; its two modifies were pipelined
last=$(grep -oE ' conn=[0-9]+ (fd=[0-9]+ ACCEPT|fd=[0-9]+ slot=[0-9]+ connection) ' "$REC_ACCESS" | tail -n 1 | awk '{ print $1 }')
assert_eq 2 "$(grep -c "^write modify $last op=" "$REC_DIR/match")" "python-ldap's pipelined modifies ($last) matched"

rec_restore
assert_no_match 'uid=rt1,' <(content) "the restored data has none of the traffic's entries"
/usr/bin/python3 "$here/../tools/ldapapply.py" "$REC_HOST" "$REC_PORT" "$REC_ROOTDN" "$REC_PWFILE" \
	<"$REC_DIR/match" >"$REC_DIR/apply" || { cat "$REC_DIR/apply"; _fail "a change sent as encoded failed"; }
assert_eq "applied $REC_WRITES" "$(cat "$REC_DIR/apply")" "the encoded changes, each with result 0"
content >"$REC_DIR/after-apply"
diff "$REC_DIR/after-traffic" "$REC_DIR/after-apply" || _fail "the content after the encoded changes differs"
echo "ok: the content after the encoded changes = after the recorded traffic ($(grep -c . "$REC_DIR/after-apply") lines)"
echo "audit_match ($server): all checks passed"
