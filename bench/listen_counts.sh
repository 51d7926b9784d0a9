#!/usr/bin/env bash
# What a listener's notification costs the client against a search entry
# received by the load, in user-space instructions (valgrind callgrind:
# counts that do not depend on how busy the shared machine is).  No traffic
# leaves 127.0.0.1.
#
#   bench/listen_counts.sh [--listeners N] [--short S] [--long L] [--cpu]
#
# A slapd with syncprov (tests/fixture/slapd.sh --syncprov, 1000 users).
#  entry: the load's I/O thread (callgrind --toggle-collect=ldb_iothread_main)
#         over subtree searches of ou=People returning the 1001 entries with
#         one attribute (-e esearch,attrlist=description), -T S and -T L
#         searches: instructions per entry = (I(L) - I(S)) / (1001 (L - S));
#  one-entry search: the same thread over searches of one random uid, each
#         a whole operation (request, entry, result): per operation;
#  notification: the listeners' I/O thread (--toggle-collect=ldb_listen_thread)
#         with N listeners (default 10; each asks for the one attribute the
#         load writes) beside a modify load at 100/s for S and L seconds:
#         instructions per notification = (I(L) - I(S)) / (notes(L) - notes(S)),
#         the refresh dropping out by the subtraction; the matcher thread
#         (--toggle-collect=ldb_match_main) per notification the same way.
#  floor: ldbench-listen-floor (bench/listen_floor.c, built with
#         -DLDBENCH_FLOOR_PROBE=ON into build-floor/, or $LISTEN_FLOOR): the
#         same N sync searches, each notification read (epoll, one read) and
#         framed, nothing else; its loop's instructions (--toggle-collect=
#         'floor_loop*': gcc names it floor_loop.constprop.0) per
#         notification beside the same modify load.
# --cpu adds user + system CPU (not instructions: the kernel's share of a
# message that comes alone is most of it), 50 listeners, modifies at 100/s:
#  listeners: ldbench's process CPU (/usr/bin/time) with --listeners 50
#         less without, differences of a 5 s and a 20 s run, per
#         notification (the listeners' I/O thread and the matcher);
#  floor: ldbench-listen-floor's own CPU (getrusage) from its refreshes' end;
#  one-entry search: ldbench's process CPU per search (differences of 4,000
#         and 20,000 searches);  entries in bulk: per entry (-T 4 and -T 12).
# CPU figures are wall-clock-free but not noise-free on a shared machine.
# Prints a table; the figure goes to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=10 short=4 long=12 cpu=0
while (($# > 0)); do
	case $1 in
	--cpu) cpu=1; shift ;;
	--listeners) N=${2:?}; shift 2 ;;
	--short) short=${2:?}; shift 2 ;;
	--long) long=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "listen_counts: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "listen_counts: valgrind is not installed" >&2; exit 2; }
bin=${LDBENCH:-$ROOT/build/ldbench}
[[ -x $bin ]] || { echo "listen_counts: build $bin first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
export LDBENCH=$bin LDBENCH_SOURCE_DIR=$ROOT
# shellcheck source=tests/fixture/slapd.sh
. "$ROOT/tests/fixture/slapd.sh"
fixture_start --users 1000 --syncprov
D=$FIX_DIR
common=(-h 127.0.0.1 -p "$FIX_PORT" -D "$FIX_ROOTDN" -w "$FIX_ROOTPW" -b "$FIX_PEOPLE")

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cg() { bench_cg "$@"; }
field() { bench_listen_field "$@"; }

echo "== entries: subtree searches of 1001 entries, -T $short and -T $long"
e_s=$(cg "$D/e_s" ldb_iothread_main "${common[@]}" -f '(objectClass=*)' -e esearch,attrlist=description -n 1 -T "$short")
e_l=$(cg "$D/e_l" ldb_iothread_main "${common[@]}" -f '(objectClass=*)' -e esearch,attrlist=description -n 1 -T "$long")
per_entry=$(awk -v a="$e_s" -v b="$e_l" -v n=$((1001 * (long - short))) 'BEGIN { printf "%.0f", (b - a) / n }')

echo "== one-entry searches (uid=userXXXXX, random): $((short * 200)) and $((long * 200))"
o_s=$(cg "$D/o_s" ldb_iothread_main "${common[@]}" -f '(uid=userXXXXX)' -r1 -R1000 \
	-e esearch,random,attrlist=description -n 1 -T $((short * 200)))
o_l=$(cg "$D/o_l" ldb_iothread_main "${common[@]}" -f '(uid=userXXXXX)' -r1 -R1000 \
	-e esearch,random,attrlist=description -n 1 -T $((long * 200)))
per_one=$(awk -v a="$o_s" -v b="$o_l" -v n=$((200 * (long - short))) 'BEGIN { printf "%.0f", (b - a) / n }')

echo "== notifications: $N listeners, modifies at 100/s for $short s and $long s"
lrun() { # OUT FUNCTION SECONDS
	cg "$1" "$2" "${common[@]}" -f 'uid=userXXXXX' -r1 -R1000 -n 1 -e attreplace=description:cXXXXXX,random \
		--rate 100 --duration "${3}s" --listeners "$N" --listen-base "$FIX_PEOPLE" --json "$1.json"
}
n_s=$(lrun "$D/n_s" ldb_listen_thread "$short")
n_l=$(lrun "$D/n_l" ldb_listen_thread "$long")
notes=$(($(field "$D/n_l.json" notifications) - $(field "$D/n_s.json" notifications)))
per_note=$(awk -v a="$n_s" -v b="$n_l" -v n="$notes" 'BEGIN { printf "%.0f", (b - a) / n }')
m_s=$(lrun "$D/m_s" ldb_match_main "$short")
m_l=$(lrun "$D/m_l" ldb_match_main "$long")
mnotes=$(($(field "$D/m_l.json" notifications) - $(field "$D/m_s.json" notifications)))
per_match=$(awk -v a="$m_s" -v b="$m_l" -v n="$mnotes" 'BEGIN { printf "%.0f", (b - a) / n }')
missing=$(field "$D/n_l.json" missing)

floor=${LISTEN_FLOOR:-$ROOT/build-floor/ldbench-listen-floor}
fl() { # SECONDS LISTENERS WRAPPER...: the floor beside the modify load; its last line
	local s=$1 n=$2
	shift 2
	rm -f "$D/fl.out"
	LDBENCH_PASSWORD=$FIX_ROOTPW "$@" "$floor" -p "$FIX_PORT" -n "$n" -s $((s + 3)) --base "$FIX_PEOPLE" \
		--bind-dn "$FIX_ROOTDN" >"$D/fl.out" 2>"$D/fl.err" &
	local pid=$! i
	for ((i = 0; i < 600; i++)); do
		grep -q '^ready$' "$D/fl.out" 2>/dev/null && break
		sleep 0.2
	done
	grep -q '^ready$' "$D/fl.out" || { echo "listen_counts: the floor did not start: $(cat "$D/fl.err")" >&2; exit 1; }
	"$bin" "${common[@]}" -f 'uid=userXXXXX' -r1 -R1000 -n 1 -e attreplace=description:fXXXXXX,random \
		--rate 100 --duration "${s}s" >"$D/fl.load" 2>&1
	wait "$pid" || { echo "listen_counts: the floor failed: $(cat "$D/fl.err")" >&2; exit 1; }
	tail -n 1 "$D/fl.out"
}
per_floor=-
if [[ -x $floor ]]; then
	echo "== floor: $N listeners (ldbench-listen-floor under callgrind), modifies at 100/s for $long s"
	fl "$long" "$N" valgrind --tool=callgrind --toggle-collect='floor_loop*' --callgrind-out-file="$D/fl.cg" >"$D/fl.line"
	fnotes=$(sed -nE 's/.* ([0-9]+) notifications,.*/\1/p' "$D/fl.line")
	per_floor=$(awk -v a="$(awk '/^(summary|totals):/ { print $2; exit }' "$D/fl.cg")" -v n="$fnotes" \
		'BEGIN { printf "%.0f", a / n }')
else
	echo "(no $floor: the floor left out; cmake -S . -B build-floor -DLDBENCH_FLOOR_PROBE=ON && cmake --build build-floor --target ldbench-listen-floor)"
fi

printf '%-44s %12s\n' "client instructions (callgrind)" "per item"
printf '%-44s %12s\n' "search entry received (load's I/O thread)" "$per_entry"
printf '%-44s %12s\n' "one-entry search, whole operation (load)" "$per_one"
printf '%-44s %12s\n' "notification (listeners' I/O thread)" "$per_note"
printf '%-44s %12s\n' "notification (matcher thread)" "$per_match"
printf '%-44s %12s\n' "notification, the floor (read and frame)" "$per_floor"
echo "(notifications in the difference: $notes; missing in the long run: $missing)"
((cpu)) || exit 0

echo "== CPU (user + system): 50 listeners, modifies at 100/s, 5 s and 20 s"
ucpu() { # OUT ARGS...: ldbench's user + system seconds
	local out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out.time" "$bin" "$@" >"$out" 2>&1
	awk '{ print $1 + $2 }' "$out.time"
}
crun() { # OUT SECONDS [LISTENER ARGS...]
	local out=$1 s=$2
	shift 2
	ucpu "$out" "${common[@]}" -f 'uid=userXXXXX' -r1 -R1000 -n 1 -e attreplace=description:uXXXXXX,random \
		--rate 100 --duration "${s}s" --json "$out.json" "$@"
}
w_s=$(crun "$D/cw_s" 5 --listeners 50 --listen-base "$FIX_PEOPLE")
w_l=$(crun "$D/cw_l" 20 --listeners 50 --listen-base "$FIX_PEOPLE")
o_s=$(crun "$D/co_s" 5)
o_l=$(crun "$D/co_l" 20)
cnotes=$(($(field "$D/cw_l.json" notifications) - $(field "$D/cw_s.json" notifications)))
cpu_note=$(awk -v a="$w_l" -v b="$w_s" -v c="$o_l" -v d="$o_s" -v n="$cnotes" \
	'BEGIN { printf "%.2f", ((a - b) - (c - d)) * 1e6 / n }')
cpu_floor=-
if [[ -x $floor ]]; then
	line=$(fl 20 50 env)
	cpu_floor=$(sed -nE 's/.* ([0-9.]+) us user and ([0-9.]+) us system .*/\1 \2/p' <<<"$line" |
		awk '{ printf "%.2f (user %.2f, system %.2f)", $1 + $2, $1, $2 }')
fi
q_s=$(ucpu "$D/cq_s" "${common[@]}" -f '(uid=userXXXXX)' -r1 -R1000 -e esearch,random,attrlist=description -n 1 -T 4000)
q_l=$(ucpu "$D/cq_l" "${common[@]}" -f '(uid=userXXXXX)' -r1 -R1000 -e esearch,random,attrlist=description -n 1 -T 20000)
cpu_one=$(awk -v a="$q_l" -v b="$q_s" 'BEGIN { printf "%.2f", (a - b) * 1e6 / 16000 }')
b_s=$(ucpu "$D/cb_s" "${common[@]}" -f '(objectClass=*)' -e esearch,attrlist=description -n 1 -T 4)
b_l=$(ucpu "$D/cb_l" "${common[@]}" -f '(objectClass=*)' -e esearch,attrlist=description -n 1 -T 12)
cpu_bulk=$(awk -v a="$b_l" -v b="$b_s" 'BEGIN { printf "%.2f", (a - b) * 1e6 / (1001 * 8) }')
printf '%-44s %12s\n' "client CPU, user + system (us)" "per item"
printf '%-44s %12s\n' "search entry received, in bulk (load)" "$cpu_bulk"
printf '%-44s %12s\n' "one-entry search, whole operation (load)" "$cpu_one"
printf '%-44s %12s\n' "notification (listeners' thread + matcher)" "$cpu_note"
printf '%-44s %s\n' "notification, the floor (read and frame)" "$cpu_floor"
echo "(notifications in the difference: $cnotes)"
