#!/usr/bin/env bash
# -S against real 389 DS replication (tests/fixture/dirsrv_repl.sh: a supplier
# and a consumer, one agreement): adds then deletes on the supplier, every 5th
# checked on the consumer: every checked write is seen, the delays are above 0
# and below the run's length, and the consumer holds what the supplier holds.
# About a minute, most of it dscreate and instance removal: left out of the
# sanitizer builds (LDBENCH_TIME_FACTOR > 1), where the OpenLDAP pair
# (repl_openldap.sh) covers the same code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../fixture/dirsrv_repl.sh"
. "$here/../fixture/assert.sh"
if ((${LDBENCH_TIME_FACTOR:-1} > 1)); then
	echo "repl_dirsrv: SKIPPED in a sanitizer build (see the header)"
	exit 77
fi
if ! command -v dscreate >/dev/null; then
	echo "repl_dirsrv: SKIPPED: 389-ds-base is not installed"
	exit 77
fi
LDBENCH=${LDBENCH:-$here/../../build/ldbench}
dsrepl_start
out=$DSR_DIR/out.txt
sup=(-h 127.0.0.1 -p "$DSR_SPORT" -D "$DSR_ROOTDN" -w "$DSR_ROOTPW" -b "$DSR_BASE" -f "cn=dXXXX" -r1000 -R1099
	-n 2 --io-threads 1 -S "127.0.0.1:$DSR_CPORT" --repl-sample 5 --fail-if 'repl.unseen>0')
summary() { # FIELD: of the "Replication summary" line
	sed -nE "s/.*Replication summary 127.0.0.1:$DSR_CPORT: .*\\b$1 ([0-9]+),.*/\\1/p" "$out"
}
delay_us() { # 1 = min, 2 = max
	sed -nE "s|.*Replication summary 127.0.0.1:$DSR_CPORT: .*max ([0-9.]+)/[0-9.]+/[0-9.]+/[0-9.]+/([0-9.]+) ms.*|\\1 \\2|p" "$out" |
		awk -v i="$1" '{ printf "%d\n", $i * 1000 }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
for kind in add delete; do
	t0=$(now_ms)
	if [[ $kind == add ]]; then
		run_ldbench "$out" "${sup[@]}" -e add,person,incr,commoncounter,noloop
	else
		run_ldbench "$out" "${sup[@]}" -e delete,incr,commoncounter,noloop
	fi
	t1=$(now_ms)
	assert_eq 0 "$RC" "$kind: exit status"
	assert_eq 20 "$(summary checked)" "$kind: writes checked"
	assert_eq 20 "$(summary seen)" "$kind: writes seen"
	assert_eq 0 "$(summary unseen)" "$kind: writes unseen"
	assert_ge 1 "$(delay_us 1)" "$kind: shortest delay (us)"
	assert_le $(((t1 - t0) * 1000)) "$(delay_us 2)" "$kind: longest delay (us) within the run"
	if [[ $kind == add ]]; then
		assert_eq 100 "$(dsrepl_count "$DSR_CURI" "$DSR_BASE" '(objectClass=person)')" "add: the consumer's entries"
	else
		assert_eq 0 "$(dsrepl_count "$DSR_CURI" "$DSR_BASE" '(objectClass=person)')" "delete: none left on the consumer"
	fi
done
assert_no_match "$DSR_ROOTPW" "$out" "no password in the output"
echo "repl_dirsrv: all passed"
