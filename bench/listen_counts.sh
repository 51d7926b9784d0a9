#!/usr/bin/env bash
# What a listener's notification costs the client against a search entry
# received by the load, in user-space instructions (valgrind callgrind:
# counts that do not depend on how busy the shared machine is).  No traffic
# leaves 127.0.0.1.
#
#   bench/listen_counts.sh [--listeners N] [--short S] [--long L]
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
# Prints a table; the figure goes to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=10 short=4 long=12
while (($# > 0)); do
	case $1 in
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

cg() { # OUT FUNCTION ARGS...: the instructions inside FUNCTION (every thread)
	local out=$1 fn=$2
	shift 2
	valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$out.cg" "$bin" "$@" >"$out" 2>"$out.vg"
	awk '/^(summary|totals):/ { print $2; exit }' "$out.cg"
}
field() { grep '^{"type":"summary"' "$1" | grep -oE "\"listeners\":\\{[^}]*" | grep -oE "\"$2\":[0-9]+" | cut -d: -f2; }

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

printf '%-44s %12s\n' "client instructions (callgrind)" "per item"
printf '%-44s %12s\n' "search entry received (load's I/O thread)" "$per_entry"
printf '%-44s %12s\n' "one-entry search, whole operation (load)" "$per_one"
printf '%-44s %12s\n' "notification (listeners' I/O thread)" "$per_note"
printf '%-44s %12s\n' "notification (matcher thread)" "$per_match"
echo "(notifications in the difference: $notes; missing in the long run: $missing)"
