#!/usr/bin/env bash
# -S against real OpenLDAP replication (tests/fixture/slapd_repl.sh: a syncprov
# provider, a refreshAndPersist consumer, a standalone slapd):
#  1. adds, modifies, renames and deletes, every 5th checked: every checked
#     write is seen, the delays are above 0 and below the run's length, the
#     consumer holds what the provider holds, --fail-if repl.* passes;
#     attreplace's random values and attreplacefile's file (a filter's
#     specials in it) checked the same way, the consumer holding the values;
#     a --mix of adds, modifies, deletes and searches: every checked write seen
#     (checked = a fifth of the successful writes), the consumer as the provider;
#     a warm-up: its writes are not checked (a fifth of the measured adds);
#     object= template adds with rdn= (their RDN carried to the watcher);
#  2. the consumer stopped for 2 s mid-run (SIGSTOP, SIGCONT): delays of at
#     least 1.8 s, the backlog grows and drains (per-sample lines), all seen,
#     and --fail-if repl.p99>1s holds (exit 10);
#     random modifies on 200 entries with the consumer held back: the checked
#     writes modified again before they showed are superseded, none unseen,
#     and the run ends without waiting for them;
#  3. a server that is not a replica: every checked write unseen within
#     --repl-timeout (random modifies too: superseded needs a consumer that
#     shows a later write), the line that says so, --fail-if repl.unseen>0 holds;
#  4. a consumer that is down: one line, the load unchanged (cn=Monitor).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd_repl.sh"
. "$here/../fixture/assert.sh"
repl_start --users 50 --standalone
out=$FIX_DIR/out.txt
root=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Bench,$FIX_BASE
objectClass: organizationalUnit
ou: Bench
LDIF
bench="ou=Bench,$FIX_BASE"
repl_wait_count "$REPL_CURI" "$bench" '(objectClass=*)' 1

# "Replication summary X: checked N, seen N, unseen N, superseded N, dropped N, backlog max N, delay .../MAX ms"
summary_field() { # FILE CONSUMER FIELD
	awk -v c="$2" -v f="$3" '
		index($0, "Replication summary " c ":") {
			for (i = 1; i <= NF; i++) {
				w = $i; sub(/,$/, "", $(i + 1))
				if (f == "max" && w == "max" && $(i - 1) == "backlog") { print $(i + 1); exit }
				if (w == f) { print $(i + 1); exit }
			}
		}' "$1"
}
# delay min or max of the summary line, in whole microseconds
summary_delay() { # FILE CONSUMER min|max
	sed -nE "s|.*Replication summary $2: .*delay min/p50/p95/p99/max ([0-9.]+)/[0-9.]+/[0-9.]+/[0-9.]+/([0-9.]+) ms.*|\1 \2|p" "$1" |
		awk -v w="$3" '{ v = (w == "min") ? $1 : $2; printf "%d\n", v * 1000 }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# the entries' ATTR values, sorted, on one server
values() { # URI BASE FILTER ATTR
	LDAPNOINIT=1 ldapsearch -x -H "$1" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -LLL -o ldif-wrap=no -b "$2" "$3" "$4" |
		awk -v RS= '{ gsub(/\n/, " "); print }' | sort
}
# until the consumer holds what the provider holds (the unchecked writes too)
wait_same() { # BASE FILTER ATTR WHAT
	local i
	for ((i = 0; i < 100; i++)); do
		[[ "$(values "$FIX_URI" "$1" "$2" "$3")" == "$(values "$REPL_CURI" "$1" "$2" "$3")" ]] && break
		sleep 0.2
	done
	assert_eq "$(values "$FIX_URI" "$1" "$2" "$3")" "$(values "$REPL_CURI" "$1" "$2" "$3")" "$4"
}
succeeded() { sed -nE "s/.* $2: attempted [0-9]+, completed [0-9]+, succeeded ([0-9]+),.*/\1/p" "$1"; } # FILE KIND

# 1. each write kind, every 5th of 200 (one I/O thread: exactly 40 checked)
pass() { # NAME ARGS...
	local name=$1 t0 t1
	shift
	t0=$(now_ms)
	run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=rXXXX" -r1000 -R1199 -n 2 --io-threads 1 \
		-S "$REPL_CURI" --repl-sample 5 --fail-if 'repl.p99>60s' --fail-if 'repl.unseen>0' "$@"
	t1=$(now_ms)
	assert_eq 0 "$RC" "$name: exit status"
	assert_eq 40 "$(summary_field "$out" "$REPL_CURI" checked)" "$name: writes checked"
	assert_eq 40 "$(summary_field "$out" "$REPL_CURI" seen)" "$name: writes seen"
	assert_eq 0 "$(summary_field "$out" "$REPL_CURI" unseen)" "$name: writes unseen"
	assert_ge 1 "$(summary_delay "$out" "$REPL_CURI" min)" "$name: shortest delay (us)"
	assert_le $(((t1 - t0) * 1000)) "$(summary_delay "$out" "$REPL_CURI" max)" "$name: longest delay (us) within the run"
}
pass add -e add,person,incr,commoncounter,noloop
repl_wait_count "$REPL_CURI" "$bench" '(objectClass=person)' 200
pass modify -e incr,commoncounter,noloop --modify "replace:description=dXXXX"
assert_eq 1 "$(repl_count "$REPL_CURI" "$bench" '(&(cn=r1042)(description=d1042))')" "modify: the consumer has the value"
# attreplace: random values, the run carried to the watcher
pass attreplace -e incr,commoncounter,noloop,attreplace=description:aXXXXXXXXXXz
assert_eq 200 "$(repl_count "$FIX_URI" "$bench" '(description=a*z)')" "attreplace: the provider's values"
wait_same "$bench" '(objectClass=person)' description "attreplace: the consumer holds the provider's values"
# attreplacefile: the file's value (with a filter's specials) looked for
printf 'file value (x)*\\' >"$FIX_DIR/value.txt"
pass attreplacefile -e incr,commoncounter,noloop,attreplacefile=description:"$FIX_DIR/value.txt"
assert_eq 200 "$(repl_count "$REPL_CURI" "$bench" '(description=file value \28x\29\2a\5c)')" \
	"attreplacefile: the consumer has the value"
# rename as ldclt: entry N becomes N+1, two numbers a rename; under ou=Moved
# (N+1 exists beside N): 100 renames, every 5th checked
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null <<LDIF
dn: ou=Moved,$bench
objectClass: organizationalUnit
ou: Moved
LDIF
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=rXXXX" -r1000 -R1199 -n 2 --io-threads 1 \
	-S "$REPL_CURI" --repl-sample 5 --fail-if 'repl.p99>60s' --fail-if 'repl.unseen>0' \
	-e rename,withnewparent,incr,commoncounter,noloop --new-parent "ou=Moved,$bench"
assert_eq 0 "$RC" "rename: exit status"
assert_match 'rename: attempted 100, completed 100, succeeded 100' "$out" "rename: 100 renames"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" checked)" "rename: writes checked"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" seen)" "rename: writes seen"
assert_eq 0 "$(repl_count "$REPL_CURI" "$bench" '(cn=r1000)')" "rename: the old name is gone on the consumer"
assert_eq 1 "$(repl_count "$REPL_CURI" "ou=Moved,$bench" '(cn=r1001)')" "rename: the new name is there"
# deletes of what is left: the odd numbers, in ou=Bench and in ou=Moved (the
# even ones are not there: 32, ignored), every 5th of each 100 checked
for b in "$bench" "ou=Moved,$bench"; do
	run_ldbench "$out" "${root[@]}" -b "$b" -f "cn=rXXXX" -r1000 -R1199 -n 2 --io-threads 1 -I 32 \
		-S "$REPL_CURI" --repl-sample 5 -e delete,incr,commoncounter,noloop
	assert_eq 0 "$RC" "delete under $b: exit status"
	assert_match 'delete: attempted 200, completed 200, succeeded 100' "$out" "delete under $b: 100 there"
	assert_eq 20 "$(summary_field "$out" "$REPL_CURI" seen)" "delete under $b: writes seen"
done
assert_eq 0 "$(repl_count "$REPL_CURI" "$bench" '(objectClass=person)')" "delete: the consumer has none left"
# a mix: m2000-m2299 exist; over m2000-m2599 an add succeeds above them, a
# modify or a delete within (the others' errors ignored), each number once
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=mXXXX" -r2000 -R2299 -n 2 --io-threads 1 \
	-e add,person,incr,commoncounter,noloop
assert_eq 0 "$RC" "mix: the entries before"
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=mXXXX" -r2000 -R2599 -n 2 --io-threads 1 -I 32 -I 68 \
	-S "$REPL_CURI" --repl-sample 5 --fail-if 'repl.unseen>0' -e person,incr,commoncounter,noloop \
	--mix add:1,modify:1,delete:1,search:1 --modify replace:description=mXXXX
assert_eq 0 "$RC" "mix: exit status"
writes=$(($(succeeded "$out" add) + $(succeeded "$out" modify) + $(succeeded "$out" delete)))
assert_ge 1 "$(succeeded "$out" search)" "mix: searches in it"
assert_eq $((writes / 5)) "$(summary_field "$out" "$REPL_CURI" checked)" "mix: a fifth of its $writes writes checked"
assert_ge 10 "$(summary_field "$out" "$REPL_CURI" checked)" "mix: writes checked"
assert_eq "$(summary_field "$out" "$REPL_CURI" checked)" "$(summary_field "$out" "$REPL_CURI" seen)" "mix: every checked write seen"
assert_ge 250 "$(repl_count "$FIX_URI" "$bench" '(cn=m*)')" "mix: the provider's entries"
wait_same "$bench" '(cn=m*)' description "mix: the consumer holds what the provider holds"
# a warm-up's writes are not checked: 1 s of adds at 200/s, then 100 measured
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=wXXXX" -r3000 -R3999 -n 1 --io-threads 1 --rate 200 \
	--warmup 1s -T 100 -S "$REPL_CURI" --repl-sample 5 -e add,person,incr,commoncounter,noloop
assert_eq 0 "$RC" "warm-up: exit status"
assert_eq 100 "$(succeeded "$out" add)" "warm-up: measured adds"
assert_ge 50 "$(($(repl_count "$FIX_URI" "$bench" '(cn=w*)') - 100))" "warm-up: its own adds"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" checked)" "warm-up: a fifth of the measured adds checked"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" seen)" "warm-up: seen"
# object= template adds, the RDN from rdn= (carried to the watcher): 100, every 5th checked
printf 'objectClass: top\nobjectClass: person\nsn: t[A]\ndescription: template [A]\n' >"$FIX_DIR/tmpl.ldif"
run_ldbench "$out" "${root[@]}" -b "$bench" -n 2 --io-threads 1 -S "$REPL_CURI" --repl-sample 5 \
	--fail-if 'repl.unseen>0' -e add,commoncounter -e "object=$FIX_DIR/tmpl.ldif,rdn=cn:t[A=INCRNNOLOOP(5000;5099;4)]"
assert_eq 0 "$RC" "object=: exit status"
assert_eq 100 "$(succeeded "$out" add)" "object=: adds"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" checked)" "object=: writes checked"
assert_eq 20 "$(summary_field "$out" "$REPL_CURI" seen)" "object=: writes seen"
assert_eq 0 "$(summary_field "$out" "$REPL_CURI" dropped)" "object=: none dropped"

# 2. the consumer held back for 2 s: 600 adds at 100/s, every 5th checked
(sleep 2 && kill -STOP "$REPL_CPID" && sleep 2 && kill -CONT "$REPL_CPID") &
stopper=$!
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=sXXXX" -r1000 -R1599 -n 2 --io-threads 1 --rate 100 \
	--interval 500ms -S "$REPL_CURI" --repl-sample 5 --fail-if 'repl.p99>1s' --json "$FIX_DIR/held.json" \
	-e add,person,incr,commoncounter,noloop
wait "$stopper"
assert_eq 10 "$RC" "held back: the repl.p99 threshold holds"
assert_match 'Threshold failed: repl.p99>1s \(repl is [0-9.]+ ms\)' "$out" "held back: the threshold's line"
assert_eq 120 "$(summary_field "$out" "$REPL_CURI" checked)" "held back: writes checked"
assert_eq 120 "$(summary_field "$out" "$REPL_CURI" seen)" "held back: every one seen after all"
assert_ge 1800000 "$(summary_delay "$out" "$REPL_CURI" max)" "held back: longest delay (us)"
# the per-sample backlog: it rises to at least 20 (2 s of 20 checks/s), and a
# later sample has a smaller one (it drained)
backlogs=$(sed -nE "s|.*Replication to $REPL_CURI: .*backlog max ([0-9]+),.*|\1|p" "$out" | tr '\n' ' ')
echo "backlog per sample: $backlogs"
peak_at=$(awk '{ m = 0; at = 0; for (i = 1; i <= NF; i++) if ($i > m) { m = $i; at = i } print at }' <<<"$backlogs")
peak=$(awk -v at="$peak_at" '{ print $at }' <<<"$backlogs")
after=$(awk -v at="$peak_at" '{ m = -1; for (i = at + 1; i <= NF; i++) if (m < 0 || $i < m) m = $i; print m }' <<<"$backlogs")
assert_ge 20 "$peak" "held back: the backlog grew"
assert_ge 0 "$after" "held back: a sample after the peak"
assert_le $((peak - 1)) "$after" "held back: the backlog drained"

# the records: the summary's replication figures equal the text's; merge adds them
field() { grep -oE "\"$1\":(\"[^\"]*\"|[-0-9.]+|null)" | sed -n "${2:-1}p" | sed -E 's/^"[^"]*"://; s/^"(.*)"$/\1/'; }
summ=$(tail -n 1 "$FIX_DIR/held.json")
assert_eq summary "$(field type <<<"$summ")" "records: the summary is the last line"
assert_eq 120 "$(grep -oE '"replication":\[.*' <<<"$summ" | field checked)" "records: summary's checked"
assert_eq 120 "$(grep -oE '"replication":\[.*' <<<"$summ" | field seen)" "records: summary's seen"
assert_ge 5 "$(grep -c '^{"type":"replication"' "$FIX_DIR/held.json")" "records: a replication record per sample"
"$LDBENCH" merge --json - "$FIX_DIR/held.json" "$FIX_DIR/held.json" >"$FIX_DIR/merged.json" 2>/dev/null
merged=$(grep -oE '"replication":\[.*' "$FIX_DIR/merged.json")
assert_eq 240 "$(field checked <<<"$merged")" "merge: checked add"
assert_eq 240 "$(field count <<<"$merged")" "merge: the delay histograms add"
# compare: a "repl" row (the worst consumer's p50, p99); a run against itself changes by 0 %
set +e
"$LDBENCH" compare --fail-if 'repl.p99>+1%' "$FIX_DIR/held.json" -- "$FIX_DIR/held.json" >"$FIX_DIR/cmp.txt" 2>&1
crc=$?
set -e
assert_eq 0 "$crc" "compare: repl.p99>+1% does not hold against itself"
assert_match '^repl +p99 ms .* \+0\.0%$' "$FIX_DIR/cmp.txt" "compare: the repl row"

# 2b. superseded, not lost: random values on 200 of the entries above at about
#     300 modifies/s for 6 s, the consumer held back from 2 s to 4 s.  The
#     samples whose entry was modified again (and confirmed) before the check
#     saw them never show, by design: superseded, never unseen, and the run
#     does not wait for them (--repl-timeout 60s: it would, before).
(sleep 2 && kill -STOP "$REPL_CPID" && sleep 2 && kill -CONT "$REPL_CPID") &
stopper=$!
t0=$(now_ms)
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=sXXXX" -r1000 -R1199 -n 2 --io-threads 1 --rate 300 \
	--duration 6s -S "$REPL_CURI" --repl-timeout 60s --json "$FIX_DIR/superseded.json" \
	-e random,attreplace=description:vXXXXXXXX
t1=$(now_ms)
wait "$stopper"
assert_eq 0 "$RC" "superseded: exit status"
assert_eq 0 "$(summary_field "$out" "$REPL_CURI" unseen)" "superseded: writes unseen"
assert_ge 1 "$(summary_field "$out" "$REPL_CURI" superseded)" "superseded: writes superseded"
assert_ge 1 "$(summary_field "$out" "$REPL_CURI" seen)" "superseded: writes seen"
assert_eq "$(summary_field "$out" "$REPL_CURI" checked)" \
	"$(($(summary_field "$out" "$REPL_CURI" seen) + $(summary_field "$out" "$REPL_CURI" superseded)))" \
	"superseded: checked = seen + superseded"
assert_le 30000 $((t1 - t0)) "superseded: the run ended well before --repl-timeout (ms)"
summ=$(tail -n 1 "$FIX_DIR/superseded.json")
assert_eq "$(summary_field "$out" "$REPL_CURI" superseded)" \
	"$(grep -oE '"replication":\[.*' <<<"$summ" | grep -oE '"superseded":[0-9]+' | cut -d: -f2)" \
	"superseded: the summary record's count"
wait_same "$bench" '(description=v*)' description "superseded: the consumer holds the provider's values"

# 3. not a replica: no add shows within --repl-timeout 1s (the standalone
#    server holds the suffix, nothing under it)
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=uXXXX" -r1000 -R1099 -n 2 --io-threads 1 \
	-S "127.0.0.1:$REPL_SPORT" --repl-sample 10 --repl-timeout 1s --fail-if 'repl.unseen>0' \
	-e add,person,incr,commoncounter,noloop
assert_eq 10 "$RC" "not a replica: the repl.unseen threshold holds"
assert_eq 10 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" checked)" "not a replica: writes checked"
assert_eq 0 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" seen)" "not a replica: writes seen"
assert_eq 10 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" unseen)" "not a replica: writes unseen"
assert_match "Replication to 127.0.0.1:$REPL_SPORT: none of 10 checked writes became visible within 1.000 s" "$out" \
	"not a replica: the line that says so"
# random modifies of 5 entries there (the standalone server gets them too,
# under its suffix entry): each written again soon, yet nothing shows, so
# unseen, not superseded
for i in 0 1 2 3 4; do printf 'dn: cn=x%d,%s\nobjectClass: person\ncn: x%d\nsn: x\n\n' $i "$FIX_BASE" $i; done >"$FIX_DIR/x.ldif"
printf 'dn: %s\nobjectClass: organization\nobjectClass: dcObject\no: x\ndc: %s\n\n' "$FIX_BASE" \
	"$(sed -E 's/^dc=([^,]*).*/\1/' <<<"$FIX_BASE")" | cat - "$FIX_DIR/x.ldif" |
	ldapadd -x -H "ldap://127.0.0.1:$REPL_SPORT" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" >/dev/null
ldapadd -x -H "$FIX_URI" -D "$FIX_ROOTDN" -y "$FIX_PWFILE" -f "$FIX_DIR/x.ldif" >/dev/null
run_ldbench "$out" "${root[@]}" -b "$FIX_BASE" -f "cn=xX" -r0 -R4 -n 2 --io-threads 1 --rate 100 -T 50 \
	-S "127.0.0.1:$REPL_SPORT" --repl-sample 10 --repl-timeout 1s -e random,attreplace=description:vXXXXXX
assert_eq 0 "$RC" "not a replica, random modifies: exit status"
assert_eq 0 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" seen)" "not a replica, random modifies: seen"
assert_eq 0 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" superseded)" "not a replica, random modifies: superseded"
assert_eq 10 "$(summary_field "$out" "127.0.0.1:$REPL_SPORT" unseen)" "not a replica, random modifies: unseen"

# 4. a consumer that is down (-P gives its port): one line, the load as without it
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fixture_monitor_snapshot "$FIX_DIR/snap"
run_ldbench "$out" "${root[@]}" -b "$bench" -f "cn=sXXXX" -r1100 -R1299 -n 2 -S 127.0.0.1 -P "$dead" \
	-e delete,incr,commoncounter,noloop
assert_eq 0 "$RC" "down: exit status"
assert_eq 1 "$(grep -c -- "-S 127.0.0.1: cannot connect to ldap://127.0.0.1:$dead" "$out")" "down: one line"
assert_eq 200 "$(fixture_monitor_delta "$FIX_DIR/snap" Delete)" "down: the server's deletes"
assert_match "Replication to 127.0.0.1: not checked \(down or bind refused\)" "$out" "down: the summary says so"
assert_no_match "$FIX_ROOTPW" "$out" "no password in the output"
echo "repl_openldap: all passed"
