#!/bin/bash
# `ldbench replay --audit-log` on the logs a real slapd (or, as
# `replay_audit.sh dirsrv` from dirsrv_replay.sh, the ctest fixture's 389 DS)
# wrote while serving clients that are not ldbench
# (tests/fixture/record_traffic.sh: ldap-utils and pipelined python-ldap;
# binds, searches, compares, adds, modifies, renames, deletes, whoami): the
# data restored to its snapshot, the access log replayed with the writes'
# content from the audit log and the passwords from the rule of
# `ldbench gen users` and the root DN's file gives the same entries as the
# recorded traffic; per operation type the target's own log holds as many
# requests as the report says were sent, and those equal the recorded ones
# less the writes that failed when recorded (not in the audit log).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/record_traffic.sh
source "$here/../fixture/record_traffic.sh"
server=${1:-slapd}
rec_start_as "$server" --users 50
jget() { /usr/bin/python3 -I -S -c 'import json,sys; p=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["replay"]; print(eval(sys.argv[2]))' "$1" "$2"; }
content() { # the entries under the base with their user attributes, one canonical text
	LDAPNOINIT=1 ldapsearch -x -H "$REC_URI" -D "$REC_ROOTDN" -y "$REC_PWFILE" -LLL -o ldif-wrap=no \
		-b "$REC_BASE" '(objectClass=*)' '*' | /usr/bin/python3 -I -S -c '
import sys
entries = []
for block in sys.stdin.read().split("\n\n"):
    lines = [l for l in block.split("\n") if l]
    if lines:
        attrs = sorted(l.split(":", 1)[0].lower() + ":" + l.split(":", 1)[1] for l in lines[1:])
        entries.append(lines[0].lower() + "\n" + "\n".join(attrs))
print("\n\n".join(sorted(entries)))'
}
the_log() { if [[ $server == dirsrv ]]; then dirsrv_access_log; else echo "$FIX_STATS_LOG"; fi; }

rec_drive
content >"$REC_DIR/after-traffic"
cat "$REC_EXPECT"
rec_restore
assert_no_match 'uid=rt1,' <(content) "the restored data has none of the traffic's entries"
log=$(the_log)
sleep 0.5
off=$(stat -c %s "$log")
"$LDBENCH" replay -H "$REC_URI" --audit-log "$REC_AUDIT" --password-rule ldbench \
	--default-password-file "$REC_PWFILE" --json "$REC_DIR/r.json" "$REC_ACCESS" >"$REC_DIR/out" 2>&1 || RC=$?
cat "$REC_DIR/out"
assert_eq 0 "${RC:-0}" "exit status of the replay"
sleep 0.5 # the last unbind's line
tail -c +$((off + 1)) "$log" >"$REC_DIR/target.log"
content >"$REC_DIR/after-replay"
diff "$REC_DIR/after-traffic" "$REC_DIR/after-replay" || _fail "the content after the replay differs from the recorded traffic's"
echo "ok: the content after the replay = after the recorded traffic ($(grep -c . "$REC_DIR/after-replay") lines)"
assert_eq "$REC_WRITES" "$(jget "$REC_DIR/r.json" "p['audit']['sent']")" "every successful write sent with its audit content"
assert_eq 0 "$(jget "$REC_DIR/r.json" "p['audit']['unmatched']")" "no audit change left"
# per type: read = recorded; sent = recorded, less the failed adds, modifies
# and renames (no audit record); the target's log = sent
exp() { awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$REC_EXPECT"; }
declare -A pat=([bind]=' BIND dn=.* method=' [search]=' SRCH base=' [compare]=' CMP dn=' [add]=' ADD dn='
	[modify]=' MOD dn=' [modrdn]=' MODRDN dn=' [delete]=' DEL dn=' [extended]=' EXT oid=' [unbind]=' UNBIND')
for t in bind search compare add modify modrdn delete extended unbind; do
	want=$(exp "$t" 2)
	case $t in add | modify | modrdn) want=$(exp "$t" 3) ;; esac
	assert_eq "$(exp "$t" 2)" "$(jget "$REC_DIR/r.json" "p['kinds']['$t']['read']")" "$t requests read"
	assert_eq "$want" "$(jget "$REC_DIR/r.json" "p['kinds']['$t']['sent']")" "$t replayed"
	assert_eq "$want" "$(grep -cE "${pat[$t]}" "$REC_DIR/target.log" || true)" "$t in the target's log"
done
assert_eq "$(exp connections 2)" "$(jget "$REC_DIR/r.json" "p['connections']['opened']")" "a connection per recorded one"
# the recorded bind with a wrong password (49) now succeeds: reported
assert_ge 1 "$(jget "$REC_DIR/r.json" "p['kinds']['bind']['differ']")" "the wrong-password bind differs"
assert_match '^  conn=[0-9]+ op=0: recorded err=49, got err=0$' "$REC_DIR/out" "... its example"
# --threads 2 (slapd's own instance only: the 389 DS fixture is shared): one
# reader reads the access and audit logs once (strace: each opened twice, the
# peek at its first line and its read, as with one thread; each thread did
# both before) and matches every write; every successful write was sent with
# its content, no change is left unmatched and the changes read count once
# (the writes fail now: the content is there)
if [[ $server != dirsrv ]]; then
	RC=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -o "$REC_DIR/trace2" -e trace=openat -e signal=none \
		"$LDBENCH" replay -H "$REC_URI" --threads 2 --audit-log "$REC_AUDIT" --password-rule ldbench \
		--default-password-file "$REC_PWFILE" --json "$REC_DIR/r2.json" "$REC_ACCESS" >"$REC_DIR/out2" 2>&1 || RC=$?
	assert_eq 0 "$RC" "exit status of the replay with 2 threads"
	assert_eq 2 "$(grep -c "\"$REC_ACCESS\", O_RDONLY" "$REC_DIR/trace2" || true)" "the access log opened by one reader (2 threads)"
	assert_eq 2 "$(grep -c "\"$REC_AUDIT\", O_RDONLY" "$REC_DIR/trace2" || true)" "the audit log opened by one reader (2 threads)"
	assert_eq "$REC_WRITES" "$(jget "$REC_DIR/r2.json" "p['audit']['sent']")" "every write sent with its content (2 threads)"
	assert_eq 0 "$(jget "$REC_DIR/r2.json" "p['audit']['unmatched']")" "no audit change left (2 threads)"
	assert_eq "$(jget "$REC_DIR/r.json" "p['audit']['changes']")" "$(jget "$REC_DIR/r2.json" "p['audit']['changes']")" \
		"the audit log's changes counted once (2 threads)"
	assert_eq "$(exp connections 2)" "$(jget "$REC_DIR/r2.json" "p['connections']['opened']")" \
		"a connection per recorded one (2 threads)"
fi
echo "replay_audit ($server): all checks passed"
