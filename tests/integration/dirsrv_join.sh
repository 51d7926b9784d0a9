#!/bin/bash
# The join with 389 DS's access log (buffered, as by default: the end waits
# for the run's last operation) on the ctest fixture "dirsrv": every
# completed operation found by its connection's tag and op=, for searches,
# binds and modifies at depth 1 and pipelined; an unindexed search
# (a substring filter on roomNumber, which has no index): notes=U/A counted,
# the verdict says processing, --fail-if's join keys hold.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../fixture/dirsrv.sh
source "$here/../fixture/dirsrv.sh"
# shellcheck source-path=SCRIPTDIR source=../fixture/assert.sh
source "$here/../fixture/assert.sh"
dirsrv_attach "${DS_STATE:?run through ctest (fixture dirsrv)}"
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-dsjoin.XXXXXX")
trap 'dirsrv_log_buffering on || true; rm -rf "$work"' EXIT
out=$work/out
access=$(dirsrv_access_log)
[[ -f "$access" ]] || _fail "no access log at '$access'"
echo "access log: $access"
w=$DS_WIDTH
X=$(printf 'X%.0s' $(seq "$w"))
root=(-h 127.0.0.1 -p "$DS_PORT" -D "$DS_ROOTDN" -w "$DS_ROOTPW")
range=(-r "$DS_FIRST" -R "$((DS_FIRST + 999))")

joined_all() { # KIND FILE WHAT
	local n
	n=$(sed -nE "s/.* $1: attempted [0-9]+, completed ([0-9]+),.*/\1/p" "$2" | tail -n 1)
	assert_ge 1 "${n:-0}" "$3: the client completed some"
	grep 'Server log' "$2" >&2 || true
	assert_match "Server log \(389ds\), $1: $n of $n operations joined \(100\.0 %\)" "$2" "$3: every one joined"
}

# 0. buffered (the default): the run's last lines are not written yet; the end
# waits --server-log-wait for them and says so; the run's own figures stand;
# ldbench join reads the log once it has been written
# (389 DS writes its buffer out when it fills, which may happen during a run:
# a run whose lines all came in time is tried again, three times at most)
dirsrv_log_buffering on
for try in 1 2 3; do
	run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -e esearch,random "${range[@]}" -n 1 -T 50 \
		--server-log "$access" --op-log "$work/s0.oplog" --server-log-wait 1s
	grep -q "the run's last operation is not in the log" "$out" && break
	assert_eq 0 "$RC" "exit status, buffered log written out during the run"
	echo "try $try: 389 DS wrote its buffer out during the run; again"
done
assert_eq 14 "$RC" "exit status, buffered log that never showed the run's end: the join failed"
assert_match 'search: attempted 50, completed 50, succeeded 50, counted 50, errors 0' "$out" "the run's own figures"
assert_match "Server log \(389ds\): the run's last operation is not in the log \(waited [0-9.]+ s\)" "$out" \
	"the end waited and says so"
dirsrv_log_buffering off # writes the buffer out
"$LDBENCH" join --op-log "$work/s0.oplog" "$access" >"$work/j0.txt"
assert_match 'Server log \(389ds\), search: 50 of 50 operations joined \(100\.0 %\)' "$work/j0.txt" \
	"ldbench join once the log is written"

# 1. unbuffered from here: searches, depth 1 and pipelined; queue (wtime) and processing (optime) per operation
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -e esearch,random "${range[@]}" -n 2 -T 200 \
	--server-log "$access" --op-log "$work/s1.oplog" --csv "$work/s1.csv"
assert_eq 0 "$RC" "exit status, searches"
joined_all search "$out" "searches at depth 1"
assert_match '^ldbench\[[0-9]+\]:   queue +min [0-9.]+ p50 .* ms \(wtime\)$' "$out" "queue line (wtime)"
assert_match '^ldbench\[[0-9]+\]:   processing +min [0-9.]+ p50 .* ms \(optime\)$' "$out" "processing line (optime)"
n=$(sed -nE 's/.* search: attempted [0-9]+, completed ([0-9]+),.*/\1/p' "$out" | tail -n 1)
# per sample (one 10 s window: every search in it) and the CSV's join rows: client, etime, wtime,
# optime, outside of search and of all
assert_match "Server log \(389ds\), sample 1 search $n/$n( [0-9.]+/[0-9.]+){5}$" "$out" "the per-sample row"
assert_eq 10 "$(grep -cE "^run,(search|all),$n,$n,(client|etime|queue|processing|outside),$n," "$work/s1.csv")" \
	"CSV: the join's run rows"
"$LDBENCH" join --op-log "$work/s1.oplog" "$access" >"$work/j1.txt"
assert_match "Server log \(389ds\), search: $n of $n operations joined" "$work/j1.txt" "ldbench join afterwards"
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -e esearch,random "${range[@]}" -n 2 -a 8 -T 200 \
	--server-log "$access"
assert_eq 0 "$RC" "exit status, pipelined searches"
joined_all search "$out" "pipelined searches"

# LDAPS: the tag and the searches over TLS
run_ldbench "$out" -H "ldaps://127.0.0.1:$DS_LDAPS_PORT" --tls-cacert "$DS_CA" -D "$DS_ROOTDN" -w "$DS_ROOTPW" \
	-b "$DS_PEOPLE" -f "uid=user$X" -e esearch,random "${range[@]}" -n 2 -T 50 --server-log "$access"
assert_eq 0 "$RC" "exit status, ldaps searches"
joined_all search "$out" "ldaps searches"

# 2. binds as a user, on one connection and with bindeach
u=$(printf "user%0${w}d" "$DS_FIRST")
run_ldbench "$out" -h 127.0.0.1 -p "$DS_PORT" -D "uid=$u,$DS_PEOPLE" -w "$u" -e bindonly -n 2 -T 100 \
	--server-log "$access"
assert_eq 0 "$RC" "exit status, binds"
joined_all bind "$out" "binds"
run_ldbench "$out" -h 127.0.0.1 -p "$DS_PORT" -D "uid=$u,$DS_PEOPLE" -w "$u" -e bindeach,bindonly -n 2 -T 20 \
	--server-log "$access"
assert_eq 0 "$RC" "exit status, bindeach"
joined_all bind "$out" "bindeach binds"

# 3. modifies at depth 1 and pipelined
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -e attreplace=description:jXXXXXX,random "${range[@]}" \
	-n 2 -T 100 --server-log "$access"
assert_eq 0 "$RC" "exit status, modifies"
joined_all modify "$out" "modifies"
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "uid=user$X" -e attreplace=description:kXXXXXX,random "${range[@]}" \
	-n 2 -a 4 -T 100 --server-log "$access"
assert_eq 0 "$RC" "exit status, pipelined modifies"
joined_all modify "$out" "pipelined modifies"

# 4. unindexed: a substring filter on roomNumber (no index) over every user
oplog4=$work/s4.oplog
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "(roomNumber=*9*)" -e esearch -n 1 -T 10 --no-preflight \
	--server-log "$access" --fail-if 'unindexed>0' --op-log "$oplog4"
assert_eq 10 "$RC" "exit status: --fail-if unindexed>0 holds"
joined_all search "$out" "unindexed searches"
assert_match 'Threshold failed: unindexed>0' "$out" "the threshold's line"
assert_match 'Server log \(389ds\), search: 10 of 10 operations joined \(100\.0 %\); unindexed notes=U [0-9]+, notes=A [0-9]+$' \
	"$out" "unindexed counts"
u_a=$(sed -nE 's/.*Server log \(389ds\), search: .*notes=U ([0-9]+), notes=A ([0-9]+)$/\1 \2/p' "$out")
assert_eq 10 "$(echo "$u_a" | awk '{print $1 + $2}')" "every search unindexed (notes=U + notes=A)"
# the same log joined again (ldbench join), a gate on each figure apart:
# each holds as its own count says, and shows it
read -r nu na <<<"$u_a"
RC=0
"$LDBENCH" join --op-log "$oplog4" --fail-if 'unindexed_searches>0' --fail-if 'unindexed_components>0' \
	--fail-if "unindexed_searches>$na" --fail-if "unindexed_components>$nu" "$access" >"$out.j" 2>&1 || RC=$?
cat "$out.j"
assert_eq $((na > 0 || nu > 0 ? 10 : 0)) "$RC" "ldbench join: exit status of the unindexed gates"
for g in "unindexed_searches>0 $na" "unindexed_components>0 $nu"; do
	read -r expr n <<<"$g"
	if ((n > 0)); then
		assert_match "^Threshold failed: $expr \\(is $n\\)\$" "$out.j" "ldbench join: $expr holds at $n"
	else
		assert_no_match "^Threshold failed: $expr " "$out.j" "ldbench join: $expr does not hold (0)"
	fi
done
assert_no_match "^Threshold failed: unindexed_(searches>$na|components>$nu) " "$out.j" \
	"ldbench join: neither holds above its own count"
assert_match 'Server log \(389ds\): the server is spending time processing the operation: processing \(optime\) dominates at p99' \
	"$out" "the verdict: processing"
run_ldbench "$out" "${root[@]}" -b "$DS_PEOPLE" -f "(roomNumber=*9*)" -e esearch -n 1 -T 5 --no-preflight \
	--server-log "$access" --fail-if 'server.p99>3600s' --fail-if 'outside.p99>3600s'
assert_eq 0 "$RC" "thresholds that do not hold"
echo "dirsrv_join: all passed"
