#!/bin/bash
# The replay at scale: a 10 M line log and a 1 GiB log, made of real
# servers' lines, read, profiled and replayed on one core.
#
#   bench/replay_big.sh [--lines N] [--mb MB] [--no-dirsrv]
#
# Seeds: the traffic of tests/fixture/record_traffic.sh (ldap-utils,
# pipelined python-ldap, then ldclt's searches for 2 s: clients that are not
# ldbench) on a slapd of tests/fixture/slapd.sh, and, when 389 DS is
# installed (dscreate, root; not with --no-dirsrv), on a 389 DS instance of
# its own (a minute to make, removed at exit).  bench/slog_speed.c repeats a
# seed's lines (conn= numbers moved up per repetition) into:
#   A  the slapd seed to N lines (default 10,000,000);
#   B  the 389 DS seed (the slapd one without 389 DS) to MB MiB (default
#      1024), the seed with a garbage line as its third line (so one per
#      repetition) and the log ending in a truncated line (half a line, no
#      newline).
# Both under $TMPDIR (free space checked first with df), deleted at exit.
# Measured on each, on one core (CPU time, not wall time: steady on a shared
# machine, still this machine's figures at this load):
#   1. the log reader alone (slog_speed: lines per CPU second);
#   2. `ldbench replay --profile`: lines per CPU second, max RSS;
#   3. `ldbench replay --timing asap` against tests/tools/ldapproxy --answer
#      (a server faster than any client): lines per CPU second of the whole
#      process, CPU per request sent, max RSS (/usr/bin/time -f %M), exit
#      status, the skipped lines it reports with their places.
# Checked (PASS/FAIL with the numbers; exit 1 when one fails), nothing timed:
#   - the replay of A and of B stays under 256 MiB of max RSS;
#   - memory bounded: the replay of B takes no more than 16 MiB over the
#     replay of its first 1/16 (the log 16 times longer, the memory not);
#   - B's report: exit status 0, the garbage lines counted (one per
#     repetition, grep's count) with the first places B:3, B:3+S, ... (S the
#     seed's lines), the truncated last line counted at its line number.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib.sh
source "$root/bench/lib.sh"
lines_a=10000000 mb_b=1024 dirsrv=1
while (($# > 0)); do
	case "$1" in
	--lines) lines_a=$2; shift 2 ;;
	--mb) mb_b=$2; shift 2 ;;
	--no-dirsrv) dirsrv=0; shift ;;
	*) echo "usage: bench/replay_big.sh [--lines N] [--mb MB] [--no-dirsrv]" >&2; exit 2 ;;
	esac
done
[[ $dirsrv == 1 ]] && { command -v dscreate >/dev/null && [[ $(id -u) == 0 ]] || dirsrv=0; }
build=${LDBENCH_BENCH_BUILD:-$root/build-bench}
[[ -n "${LDBENCH_BENCH_BUILD:-}" ]] || bench_build "$root" "$build"
cmake --build "$build" --target ldbench-slog-speed >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replaybig.XXXXXX")
ppid=
cleanup() {
	[[ -z "$ppid" ]] || kill "$ppid" 2>/dev/null || true
	[[ "$(type -t rec_stop)" != function ]] || rec_stop || true
	rm -rf "$work"
}
trap cleanup EXIT
proxy=$work/ldapproxy # one C file: built here, the bench build has no tests
cc -O2 -pthread -o "$proxy" "$root/tests/tools/ldapproxy.c"
export LDBENCH=$build/ldbench LDBENCH_SOURCE_DIR=$root
speed=$build/ldbench-slog-speed
fails=0
check() { # OK WHAT: PASS or FAIL
	if [[ $1 == 1 ]]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi
}

# ---- the seeds: real servers serving clients that are not ldbench ----
# shellcheck source=../tests/fixture/record_traffic.sh
source "$root/tests/fixture/record_traffic.sh"
seed() { # SERVER OUT
	if [[ $1 == dirsrv ]]; then rec_dirsrv_start; else rec_slapd_start --users 1000; fi
	trap cleanup EXIT # in place of the fixture's own
	rec_drive --ldclt 2 >/dev/null
	cp "$REC_ACCESS" "$2"
	rec_stop
	echo "seed $1: $(wc -l <"$2") lines, $(wc -c <"$2") bytes of its access log"
}
seed slapd "$work/seed-slapd.log"
if [[ $dirsrv == 1 ]]; then
	seed dirsrv "$work/seed-b.log"
	server_b="389 DS"
else
	cp "$work/seed-slapd.log" "$work/seed-b.log"
	server_b="slapd (no 389 DS here)"
fi
# B's seed: a garbage line as its third line
sed -i '3i this line is garbage: no server wrote it' "$work/seed-b.log"
seed_b_lines=$(wc -l <"$work/seed-b.log")

# ---- free disk: A, B, B's first 1/16, with a quarter to spare ----
# (a repetition's conn= numbers grow by up to 8 digits: 16 bytes a line spare)
per_line=$(($(wc -c <"$work/seed-slapd.log") / $(wc -l <"$work/seed-slapd.log") + 16))
mb_a=$((lines_a * per_line / 1048576 + 2))
need_kb=$(((mb_a + mb_b + mb_b / 16) * 1024 * 5 / 4))
free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
echo "disk: ${need_kb} KiB needed under $work, ${free_kb} KiB free"
((free_kb > need_kb)) || { echo "not enough free disk for the logs"; exit 77; }

# ---- the logs, and the reader alone on each ----
big_a=$work/a.log big_b=$work/b.log small_b=$work/b16.log
r=$("$speed" "$work/seed-slapd.log" "$big_a" "$mb_a")
echo "log reader alone, A (slapd, ${mb_a} MiB): $r"
# A cut to exactly N lines, in place
truncate -s "$(head -n "$lines_a" "$big_a" | wc -c)" "$big_a"
(($(wc -l <"$big_a") == lines_a)) || { echo "A holds $(wc -l <"$big_a") lines, not $lines_a"; exit 1; }
r=$("$speed" "$work/seed-b.log" "$big_b" "$mb_b")
echo "log reader alone, B ($server_b, ${mb_b} MiB): $r"
sed -n 1p "$work/seed-b.log" | head -c 60 >>"$big_b" # the truncated last line
lines_b=$(($(wc -l <"$big_b") + 1))
garbage_b=$(grep -c '^this line is garbage' "$big_b")
head -n $((lines_b / 16)) "$big_b" >"$small_b"
printf 'A: %d lines, %d bytes; B: %d lines (the last truncated), %d bytes, %d garbage lines\n' \
	"$(wc -l <"$big_a")" "$(wc -c <"$big_a")" "$lines_b" "$(wc -c <"$big_b")" "$garbage_b"

# ---- the profile and the replay of each ----
"$proxy" --answer --port-file "$work/port" >"$work/proxy.log" 2>&1 &
ppid=$!
for ((i = 0; i < 100; i++)); do
	[[ -s $work/port ]] && break
	sleep 0.05
done
port=$(cat "$work/port")
timed() { # NAME CMD...: RC, CPU (s), RSS (KiB); output in $work/NAME.out
	local name=$1 u s
	shift
	RC=0
	/usr/bin/time -f '%U %S %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>&1 || RC=$?
	read -r u s RSS < <(tail -n 1 "$work/$name.time")
	CPU=$(echo "$u + $s" | bc -l)
}
jsum() { /usr/bin/python3 -I -S -c 'import json,sys; k=json.load(open(sys.argv[1]))["replay"]["kinds"]; print(sum(v["sent"] for v in k.values()))' "$1"; }
profile() { # NAME LOG LINES
	timed "$1-profile" "$LDBENCH" replay --profile "$2"
	printf 'profile %s: exit %d, %.2f CPU s: %.0f lines/CPU s, max RSS %d MiB\n' "$1" "$RC" "$CPU" \
		"$(echo "$3 / $CPU" | bc -l)" $((RSS / 1024))
}
replay() { # NAME LOG LINES
	timed "$1-replay" "$LDBENCH" replay -h 127.0.0.1 -p "$port" --timing asap --password-rule ldbench \
		--default-password secret --json "$work/$1.json" "$2"
	SENT=$(jsum "$work/$1.json")
	printf 'replay %s: exit %d, %d requests sent in %.2f CPU s: %.0f lines/CPU s, %.2f us CPU per request, max RSS %d MiB\n' \
		"$1" "$RC" "$SENT" "$CPU" "$(echo "$3 / $CPU" | bc -l)" "$(echo "$CPU * 1000000 / $SENT" | bc -l)" \
		$((RSS / 1024))
}
profile A "$big_a" "$lines_a"
replay A "$big_a" "$lines_a"
check "$((RSS < 262144))" "the replay of A (${lines_a} lines) in under 256 MiB: max RSS $((RSS / 1024)) MiB"
profile B "$big_b" "$lines_b"
replay B "$big_b" "$lines_b"
rss_b=$RSS rc_b=$RC
echo "B's report, the log lines skipped:"
grep '^log lines skipped' "$work/B-replay.out" | sed 's/^/  /'
check "$((RSS < 262144))" "the replay of B (${mb_b} MiB) in under 256 MiB: max RSS $((RSS / 1024)) MiB"
replay B16 "$small_b" $((lines_b / 16))
check "$((rss_b <= RSS + 16384))" "memory bounded: B's replay $((rss_b / 1024)) MiB, its first 1/16's $((RSS / 1024)) MiB"
check "$((rc_b == 0))" "B's replay exit status 0 (done; skipped lines are reported, not fatal): $rc_b"
want="log lines skipped, garbage: $garbage_b ($big_b:3"
for ((k = 1; k < 5; k++)); do want+=", $big_b:$((3 + k * seed_b_lines))"; done
grep -qxF "$want)" "$work/B-replay.out" && ok=1 || ok=0
check "$ok" "B's garbage lines counted ($garbage_b) with their first places"
grep -qxF "log lines skipped, truncated: 1 ($big_b:$lines_b)" "$work/B-replay.out" && ok=1 || ok=0
check "$ok" "B's truncated last line counted at line $lines_b"
echo "(A: the slapd seed; B: $server_b.  CPU time of the whole process, one core; a shared machine: compare figures of one run, not across runs)"
((fails == 0)) || exit 1
