#!/bin/bash
# What TLS adds to the replay's cost per request (valgrind --tool=callgrind
# instructions, steadier than CPU time on a shared machine).
#
#   bench/replay_tls_cg.sh [BUILD] [SEARCHES]
#
# A slapd of tests/fixture/slapd.sh with --tls serves python-ldap: one
# connection, SEARCHES searches in turn (default 2000); its stats log and the
# log's first half are replayed (--timing asap) plain, over ldaps with GnuTLS
# and over ldaps with OpenSSL (--tls-cacert: verified).  The difference of
# the two cuts' instruction counts over the difference of their searches is
# the cost of one search without the start-up's (the TLS context, the
# handshake); the start-up is what is left of the whole log's count.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
n=${2:-2000}
command -v valgrind >/dev/null || { echo "no valgrind"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ldbench-replaytlscg.XXXXXX")
export LDBENCH=$build/ldbench LDBENCH_SOURCE_DIR=$root FIX_STATS_LOG=$work/stats.log
# shellcheck source=../tests/fixture/slapd.sh
source "$root/tests/fixture/slapd.sh"
fixture_start --users 1000 --tls
trap 'fixture_stop; rm -rf "$work"' EXIT
n0=$(wc -l <"$FIX_STATS_LOG")
/usr/bin/python3 - "$FIX_URI" "$FIX_PEOPLE" "$n" <<'PY'
import sys, ldap
l = ldap.initialize(sys.argv[1])
for i in range(int(sys.argv[3])):
    l.search_s(sys.argv[2], ldap.SCOPE_SUBTREE, "(uid=user%05d)" % (i % 1000 + 1), ["cn"])
l.unbind_s()
PY
sleep 0.5
tail -n +$((n0 + 1)) "$FIX_STATS_LOG" >"$work/full.log"
# the first half of the searches: three lines each (SRCH, SRCH attr, RESULT)
grep -n ' SRCH base=' "$work/full.log" | sed -n "$((n / 2))p" | cut -d: -f1 >"$work/cut"
head -n "$(($(cat "$work/cut") + 2))" "$work/full.log" >"$work/half.log"
count() { # LOG ARGS...: "instructions searches"
	local log=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$LDBENCH" replay "$@" --json "$work/r.json" \
		"$log" >/dev/null 2>"$work/vg.err"
	echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.out")" \
		"$(/usr/bin/python3 -I -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["replay"]["kinds"]["search"]["answered"])' "$work/r.json")"
}
for mode in plain gnutls openssl; do
	case $mode in
	plain) args=(-H "ldap://127.0.0.1:$FIX_PORT") ;;
	*) args=(-H "ldaps://127.0.0.1:$FIX_LDAPS_PORT" --tls-cacert "$FIX_CA" --tls-library "$mode") ;;
	esac
	read -r ir1 s1 < <(count "$work/full.log" "${args[@]}")
	read -r ir2 s2 < <(count "$work/half.log" "${args[@]}")
	per=$(((ir1 - ir2) / (s1 - s2)))
	printf '%-7s searches %d and %d: %d instructions per search, start-up %.1f M\n' "$mode" "$s1" "$s2" "$per" \
		"$(/usr/bin/python3 -I -S -c "print(($ir1 - $per * $s1) / 1e6)")"
done
