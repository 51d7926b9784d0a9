#!/usr/bin/env bash
# Listeners measuring a write load from another host (docs/guide.md "Another
# host's writes"), two ldbench processes on loopback against one slapd with
# the syncprov overlay:
#  1. a listeners-only run (--listeners, no operation of its own) records
#     every notification (--listen-record), a modify load (500 writes/s for
#     5 s) records every confirmed write (--write-record); ldbench
#     listen-join joins the two files: the writes equal the load's succeeded
#     modifies and slapd's own count (cn=Monitor), every write received by
#     every listener (received = writes x listeners, missing, duplicated,
#     unmatched 0), the delays' count the notifications received, in the
#     text lines and the JSON object; the listeners-only run's own lines
#     (all its notifications unmatched: it made no write) and its record
#     count equal the join's notifications;
#  2. the same load with the listeners in its own run (the live matcher),
#     for comparison: the same counts hold;
#  3. bad input: a notes file given as writes, a truncated file, a missing
#     file, an incomplete file: one line, exit 2; the recording options
#     without what they go with, an uncreatable --write-record: one line,
#     exit 2, no connection.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/slapd.sh"
. "$here/../fixture/assert.sh"

F=${LDBENCH_TIME_FACTOR:-1}
N=20
if ((F > 1)); then
	N=5
	echo "(sanitizer build: $N listeners)"
fi

fixture_start --users 1000 --syncprov
D=$FIX_DIR
server=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW")
load=("${server[@]}" -b "$FIX_PEOPLE" -f "uid=userXXXXX" -r1 -R1000 -n 2 --io-threads 1
	-e attreplace=description:lXXXXXX,random)
lfield() { # FILE KEY: a number of the "listeners" object (its delay object left out)
	grep -oE '"listeners":\{[^}]*' "$1" | grep -oE "\"$2\":-?[0-9.]+" | head -n 1 | cut -d: -f2
}
dfield() { # FILE KEY: a number of the listeners' "delay" object
	grep -oE '"listeners":\{.*' "$1" | grep -oE '"delay":\{[^}]*' | grep -oE "\"$2\":[0-9.]+" | cut -d: -f2
}
succeeded() { sed -nE "s/.*$2: attempted [0-9]+, completed [0-9]+, succeeded ([0-9]+),.*/\1/p" "$1" | tail -n 1; }

echo "=== 1. $N listeners in one process, a modify load in another, joined offline"
fixture_monitor_snapshot "$D/mon"
set +e
timeout $((300 * F)) "$LDBENCH" "${server[@]}" --listeners $N --listen-base "$FIX_PEOPLE" \
	--listen-attr description --listen-record "$D/notes.rec" --json "$D/listen.json" >"$D/listen.txt" 2>&1 &
lpid=$!
set -e
up=0
for _ in $(seq 1 $((120 * F))); do # the refreshes over (the line), at most 60 s (x the sanitizers' factor)
	if grep -q "Listeners: $N up below" "$D/listen.txt"; then
		up=1
		break
	fi
	kill -0 $lpid 2>/dev/null || break
	sleep 0.5
done
assert_eq 1 "$up" "the listeners-only run's listeners up ($(cat "$D/listen.txt"))"
run_ldbench "$D/writes.txt" "${load[@]}" --rate 500 --duration 5s --write-record "$D/writes.rec"
assert_eq 0 "$RC" "the writing run's exit status"
mods=$(succeeded "$D/writes.txt" modify)
assert_ge 500 "$mods" "modifies made (500/s asked for 5 s; a busy machine may fall short)"
assert_match "Writes: $mods confirmed writes recorded to $D/writes.rec$" "$D/writes.txt" "the writing run's record line"
sleep $((5 * F)) # the last notifications reach the listeners (a margin: the join says what is missing)
kill -TERM $lpid
set +e
wait $lpid
RC=$?
set -e
assert_eq 0 "$RC" "the listeners-only run's exit status (SIGTERM)"
assert_eq "$mods" "$(fixture_monitor_delta "$D/mon" Modify)" "the load's modifies against slapd's cn=Monitor"
recorded=$(sed -nE "s/.*Listeners: ([0-9]+) notifications recorded to .*/\1/p" "$D/listen.txt")
assert_eq $((mods * N)) "$recorded" "notifications the listeners-only run recorded"
assert_match "Listeners: $N sync, refreshed $N \(refresh p50 [0-9.]+ ms, max [0-9.]+ ms; entries p50 1001, max 1001\), failed 0, lost 0$" \
	"$D/listen.txt" "the listeners-only run's refresh line"
assert_match "Listeners: writes 0 \(not followed 0\), notifications expected 0, received 0, missing 0, .*unmatched $((mods * N)), " \
	"$D/listen.txt" "the listeners-only run: every notification unmatched (it made no write)"
assert_eq "$((mods * N))" "$(lfield "$D/listen.json" notifications)" "the listeners-only run's JSON notifications"

"$LDBENCH" listen-join --writes "$D/writes.rec" --notes "$D/notes.rec" --json "$D/join.json" >"$D/join.txt" \
	2>"$D/join.err" || _fail "listen-join: exit $?: $(cat "$D/join.err")"
cat "$D/join.txt"
assert_match "Listeners: writes $mods \(not followed 0\), notifications expected $((mods * N)), received $((mods * N)), missing 0, duplicated 0, out of order [0-9]+, superseded [0-9]+, before the writer's result [0-9]+, unmatched 0, " \
	"$D/join.txt" "the join's notifications line"
assert_match "Listeners: delay p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms \(confirmation to arrival, over $((mods * N))\)$" \
	"$D/join.txt" "the join's delay line"
assert_match "Listeners: clocks: smallest delay -?[0-9.]+ ms, [0-9]+ notifications before their write's confirmation " \
	"$D/join.txt" "the join's clocks line"
assert_no_match "before every listener was up" "$D/join.txt" "no write before the listeners were up"
assert_eq "$mods" "$(lfield "$D/join.json" writes)" "join JSON: writes"
assert_eq $((mods * N)) "$(lfield "$D/join.json" expected)" "join JSON: expected"
assert_eq $((mods * N)) "$(lfield "$D/join.json" seen)" "join JSON: received"
assert_eq $((mods * N)) "$(lfield "$D/join.json" notifications)" "join JSON: notifications"
for k in missing duplicated unmatched dropped untracked; do
	assert_eq 0 "$(lfield "$D/join.json" $k)" "join JSON: $k"
done
assert_eq $((mods * N)) "$(dfield "$D/join.json" count)" "join JSON: delays recorded"
assert_eq 1 "$(grep -c '^{"type":"listen-join","listeners":{"n":'"$N"',"kind":"sync",' "$D/join.json")" "join JSON: its line"
# the same files joined again: the same figures (the join reads, never changes, its files)
"$LDBENCH" listen-join --writes "$D/writes.rec" --notes "$D/notes.rec" >"$D/join2.txt" 2>&1
assert_eq "$(sed 's/^[^:]*: //' "$D/join.txt")" "$(sed 's/^[^:]*: //' "$D/join2.txt")" "a second join"

echo "=== 2. the live run's figures, for comparison: the listeners in the writing run"
fixture_monitor_snapshot "$D/mon2"
run_ldbench "$D/live.txt" "${load[@]}" --rate 500 --duration 5s --listeners $N --listen-base "$FIX_PEOPLE" \
	--json "$D/live.json" --listen-record "$D/live.rec"
assert_eq 0 "$RC" "the live run's exit status"
lmods=$(succeeded "$D/live.txt" modify)
assert_eq "$lmods" "$(fixture_monitor_delta "$D/mon2" Modify)" "the live run's modifies against cn=Monitor"
assert_eq $((lmods * N)) "$(lfield "$D/live.json" seen)" "live: received"
assert_eq 0 "$(lfield "$D/live.json" missing)" "live: missing"
assert_match "Listeners: $((lmods * N)) notifications recorded to $D/live.rec$" "$D/live.txt" \
	"live: --listen-record beside a load"
echo "offline: $(grep 'Listeners: delay' "$D/join.txt" | sed 's/^[^:]*: //')"
echo "live:    $(grep 'Listeners: delay' "$D/live.txt" | sed 's/^[^:]*: //')"

echo "=== 3. bad input: one line, exit 2"
bad_join() { # WHAT REGEX ARGS...
	local what=$1 re=$2
	shift 2
	set +e
	"$LDBENCH" listen-join "$@" >"$D/bad.out" 2>"$D/bad.err"
	RC=$?
	set -e
	assert_eq 2 "$RC" "exit status: $what"
	assert_eq 0 "$(wc -l <"$D/bad.out")" "nothing on stdout: $what"
	assert_eq 1 "$(wc -l <"$D/bad.err")" "one line: $what"
	assert_match "$re" "$D/bad.err" "the line: $what"
}
bad_join "notes as writes" "^ldbench listen-join: --writes $D/notes.rec: a --listen-record file \(notifications\), not writes$" \
	--writes "$D/notes.rec" --notes "$D/notes.rec"
bad_join "writes as notes" "^ldbench listen-join: --notes $D/writes.rec: a --write-record file \(writes\), not notifications$" \
	--writes "$D/writes.rec" --notes "$D/writes.rec"
head -c $(($(stat -c %s "$D/notes.rec") - 20)) "$D/notes.rec" >"$D/short.rec"
bad_join "truncated notes" "^ldbench listen-join: --notes $D/short.rec: truncated \($((mods * N - 1)) of $((mods * N)) records\)$" \
	--writes "$D/writes.rec" --notes "$D/short.rec"
head -c $(($(stat -c %s "$D/writes.rec") - 3)) "$D/writes.rec" >"$D/wshort.rec"
bad_join "truncated writes" "^ldbench listen-join: --writes $D/wshort.rec: truncated \($((mods - 1)) of $mods records\)$" \
	--writes "$D/wshort.rec" --notes "$D/notes.rec"
bad_join "missing file" "^ldbench listen-join: --notes $D/nothing.rec: cannot open: No such file or directory$" \
	--writes "$D/writes.rec" --notes "$D/nothing.rec"
head -c 30 "$D/writes.rec" >"$D/head.rec"
bad_join "a stub" "^ldbench listen-join: --writes $D/head.rec: not a recording \(too short for its header\)$" \
	--writes "$D/head.rec" --notes "$D/notes.rec"
# an incomplete recording: the header's complete flag (byte 40) cleared, as a run killed leaves it
cp "$D/notes.rec" "$D/open.rec"
printf '\0' | dd of="$D/open.rec" bs=1 seek=40 conv=notrunc status=none
bad_join "incomplete" "^ldbench listen-join: --notes $D/open.rec: incomplete \(its run did not end: no counts in its header\)$" \
	--writes "$D/writes.rec" --notes "$D/open.rec"
bad_join "no --notes" "^ldbench listen-join: no --notes FILE \(usage: ldbench listen-join --writes W --notes N\)$" \
	--writes "$D/writes.rec"

before=$(fixture_total_connections)
bad() { # WHAT REGEX ARGS...
	local what=$1 re=$2
	shift 2
	run_ldbench "$D/bad.txt" "$@"
	assert_eq 2 "$RC" "exit status: $what"
	assert_eq 1 "$(wc -l <"$D/bad.txt")" "lines: $what"
	assert_match "$re" "$D/bad.txt" "the line: $what"
}
bad "--listen-record alone" '^ldbench: --listen-record goes with --listeners N$' "${load[@]}" --listen-record "$D/x.rec"
bad "--listen-attr alone" '^ldbench: --listen-attr goes with --listeners N$' "${load[@]}" --listen-attr description
bad "--write-record with -S" '^ldbench: --write-record and -S exclude each other' "${load[@]}" \
	--write-record "$D/x.rec" -S 127.0.0.1:1
bad "--write-record with listeners" '^ldbench: --write-record and --listeners exclude each other' "${load[@]}" \
	--write-record "$D/x.rec" --listeners 2 --listen-base "$FIX_PEOPLE"
bad "--write-record with --sweep" '^ldbench: --write-record: not with --sweep or --find-max \(the writes of one run\)$' \
	"${load[@]}" --write-record "$D/x.rec" --sweep 1,2 --duration 1s
bad "listeners-only without a base" '^ldbench: --listeners needs --listen-base DN' "${server[@]}" --listeners 2
bad "--write-record not creatable" "^ldbench: --write-record $D/no/such/dir.rec: cannot create: No such file or directory$" \
	"${load[@]}" --duration 2s --write-record "$D/no/such/dir.rec"
assert_eq "$before" "$(fixture_total_connections)" "connections opened by the bad invocations (the reads excluded)"
echo "ok: listen_join"
